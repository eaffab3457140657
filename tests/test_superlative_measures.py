"""Superlatives over "which <class> of <X>" (issue 46 item 2): linking reads "vessel of Rotterdam" as the vessels of
the port *Rotterdam*, not as the painting "Old vessel of Rotterdam" its words also name
(:func:`kg_agent.kg.linking._members_of_named`); "the biggest" that names no relation ranks by the one number every
answer has (:meth:`kg_agent.tools.shared.aggregates.AnswerRanker.sole_measure`), and abstains saying why when the
answers share several numbers that rank them differently. On a small shipping-fleet KG
(tests/fixtures/fleet/shipping_fleet.ttl)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph
from kg_agent.kg import open_kg
from kg_agent.kg.linking import link_entities
from kg_agent.tools.shared.answer_checks import final_answers

FLEET = Path(__file__).parent / "fixtures" / "fleet" / "shipping_fleet.ttl"
EX = "http://example.org/fleet/"


@pytest.fixture(scope="module")
def fleet():
    return open_kg(FLEET)


@pytest.fixture(scope="module")
def rog(fleet):
    return create_rog_graph(fleet).compile()


def vessels(*keys):
    return [{"answer": key, "entity_id": EX + key, "score": 1.0, "grounded": True, "paths": []} for key in keys]


def test_class_noun_of_a_thing_links_the_thing_not_a_label_holding_the_words(fleet):
    linked = link_entities(fleet, "Which vessel of Rotterdam has the largest deadweight?")
    assert [(item.mention, item.entity.id) for item in linked.linked] == [("rotterdam", EX + "rotterdam")]


def test_a_partial_name_whose_noun_names_no_class_still_links(fleet):
    # "harbour" names no class of the KG: "harbour of Rotterdam" is the painting's name, not Rotterdam's harbours
    linked = link_entities(fleet, "Who painted the harbour of Rotterdam?")
    assert [item.entity.id for item in linked.linked] == [EX + "evening_harbour"]


def test_which_class_of_a_thing_ranks_its_members_by_the_named_number(rog):
    [top] = rog.invoke({"question": "Which vessel of Rotterdam has the largest deadweight?"})["answers"]
    assert (top["answer"], top["compared_by"]) == ("Dune Runner", "deadweight")
    [least] = rog.invoke({"question": "Which vessel of Rotterdam has the smallest deadweight?"})["answers"]
    assert least["answer"] == "Polder Queen"


def test_a_superlative_naming_no_relation_ranks_by_the_one_number_all_answers_share(rog):
    # every Rotterdam vessel has a deadweight, only two a length: the deadweight is the one measure they share
    [top] = rog.invoke({"question": "Which vessel of Rotterdam is the biggest?"})["answers"]
    assert (top["answer"], top["compared_by"]) == ("Dune Runner", "deadweight")
    assert [c["answer"] for c in top["compared"]] == ["Dune Runner", "Maas Star", "Kestrel", "Polder Queen"]


def test_the_ranker_alone_ranks_by_the_shared_measure(fleet):
    kept = final_answers("Which of these vessels is the biggest?",
                         vessels("maas_star", "dune_runner", "kestrel", "polder_queen"), kg=fleet).answers
    assert [(a["answer"], a["compared_by"]) for a in kept] == [("dune_runner", "deadweight")]


def test_several_shared_numbers_ranking_otherwise_abstain_saying_why(fleet, rog):
    # Hamburg's vessels all have a deadweight and a length: Elbe Trader is the heaviest, Alster the longest
    checked = final_answers("Which vessel of Hamburg is the biggest?", vessels("elbe_trader", "alster", "nordwind"),
                            kg=fleet)
    assert checked.answers == []
    assert "deadweight, lengthOverall" in checked.warnings[0] and "rank them differently" in checked.warnings[0]
    out = rog.invoke({"question": "Which vessel of Hamburg is the biggest?"})
    assert out["answers"] == [] and any("rank them differently" in w for w in out["warnings"])


def test_a_count_or_an_age_is_no_measure(fleet):
    # "the fewest" counts, "the oldest" reads a time line: neither ranks by the shared deadweight
    for question in ("Which vessel of Rotterdam has the fewest operators?", "Which vessel of Rotterdam is the oldest?"):
        kept = final_answers(question, vessels("maas_star", "kestrel"), kg=fleet).answers
        assert [a["answer"] for a in kept] == ["maas_star", "kestrel"] and all("compared" not in a for a in kept)
