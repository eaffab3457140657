"""Abstain where the KG names nothing of the kind asked (issues 45 item 3, 46 item 1), on the invented stamps KG
(tests/fixtures/stamps/README.md): "which <place noun>" none of whose walks reaches a place, when no relation or
class of the KG is named so (:meth:`~kg_agent.tools.shared.path_scoring.RelationPathScorer.asked_paths`), and "how
many <unit> <measure adjective>" answered by counting things (:mod:`~kg_agent.tools.shared.unit_measures`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph
from kg_agent.tools.shared.answer_checks import ABSTAINED, final_answers
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.unit_measures import counted_for_a_measure, unit_measure

STAMPS = Path(__file__).parent / "fixtures" / "stamps" / "stamps.ttl"
EX = "http://example.org/stamps/"


@pytest.fixture(scope="module")
def stamps_memory():
    return open_kg(STAMPS)


@pytest.fixture(scope="module")
def stamps_store(tmp_path_factory):
    kg = open_oxigraph(build_oxigraph(STAMPS, tmp_path_factory.mktemp("stamps") / "store"))
    yield kg
    kg.close()


@pytest.fixture(params=["memory", "oxigraph"])
def stamps(request, stamps_memory, stamps_store):
    return stamps_memory if request.param == "memory" else stamps_store


def thing(label: str, key: str, *steps: tuple[str, str, str, str]) -> dict:
    """An answer (a thing of the KG) at the end of a walk of ``(head, relation, tail, tail label)`` steps."""
    path = [{"head": {"id": EX + head, "label": head}, "relation": relation, "tail": {"id": tail, "label": tail_label}}
            for head, relation, tail, tail_label in steps]
    return {"answer": label, "entity_id": key, "score": 1.0, "grounded": True, "paths": [{"steps": path}]}


def test_a_place_noun_the_kg_names_by_no_relation_nor_class_is_abstained_on(stamps):
    """"Which country": the KG has no relation or class named so or near it, and the class Stamp reached over
    ``type`` (or the designer) is no place. Before, a place noun was never judged so (its wh-kind kept every walk)."""
    scorer = RelationPathScorer()
    found = scorer.asked_paths("Which country does [ENT] honour?", [("type",), ("designed_by",)], kg=stamps)
    assert found.asked == frozenset() and "no relation or class for 'country'" in (found.reason or ""), found


def test_a_place_noun_naming_a_class_of_the_kg_keeps_its_walks(stamps):
    """"Which city": the class City is named so; the walk reaching it is kept."""
    found = RelationPathScorer().asked_paths("Which city was [ENT] printed in?",
                                             [("printed_at", "located_in"), ("designed_by",)], kg=stamps)
    assert ("printed_at", "located_in") in found.asked and not found.reason


def test_how_many_units_long_asks_for_a_measure_not_a_count():
    assert unit_measure("How many pages long is the entry Birds of the Shore?") == "pages long"
    assert unit_measure("How many years old was the designer?") == "years old"
    assert unit_measure("How many stamps does Birds of the Shore describe?") == ""  # a count
    assert unit_measure("How many long stamps are there?") == ""  # the adjective before the noun: a count
    assert counted_for_a_measure("How many stamps does Birds of the Shore describe?", [{"answer": "x"}]) is None


def test_a_measure_asked_by_its_unit_is_not_answered_by_counting_things(stamps):
    """The entry's page count is stated nowhere: counting the stamps it describes is no answer. Counting them for
    "how many stamps" is; a number the KG states ("how many millimetres wide") stands."""
    described = [thing(label, EX + key, ("entry_birds", "describes", EX + key, label))
                 for key, label in (("heron", "Grey Heron 5c"), ("kestrel", "Kestrel 10c"))]
    checked = final_answers("How many pages long is Birds of the Shore?", described, kg=stamps)
    assert checked.answers == [] and checked.stop_reason == ABSTAINED
    assert any("asks for a measure ('pages long')" in w for w in checked.warnings), checked.warnings
    counted = final_answers("How many stamps does Birds of the Shore describe?", described, kg=stamps)
    assert [a["answer"] for a in counted.answers] == ["2"], counted
    width = {"answer": "30", "entity_id": '"30"^^<http://www.w3.org/2001/XMLSchema#integer>', "score": 1.0,
             "grounded": True, "paths": [{"steps": [{"head": {"id": EX + "kestrel", "label": "Kestrel 10c"},
                                                     "relation": "width_mm", "tail": {"id": "30", "label": "30"}}]}]}
    measured = final_answers("How many millimetres wide is Kestrel 10c?", [width], kg=stamps)
    assert [a["answer"] for a in measured.answers] == ["30"], measured


def test_best_effort_keeps_the_things_reached_for_a_measure_flagged_ungrounded():
    described = [thing("Grey Heron 5c", EX + "heron", ("entry_birds", "describes", EX + "heron", "Grey Heron 5c"))]
    checked = final_answers("How many pages long is Birds of the Shore?", described, policy="best_effort")
    assert [a["answer"] for a in checked.answers] == ["Grey Heron 5c"] and not checked.answers[0]["grounded"]
    assert any("kept as asked (best effort)" in w for w in checked.warnings), checked.warnings
