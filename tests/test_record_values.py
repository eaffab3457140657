"""Records named only by a repeated value (:mod:`kg_agent.kg.record_values`, issues 45 and 46), on
``tests/fixtures/coach_tours/tours.ttl`` (invented; see its README): a coach model that repeats across the tour
departures is their value, not their name; the departures are record (statement) nodes; "which tour coach carried
X" is answered by the coach, also from a walk that went on past the departure."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import load_kg
from kg_agent.kg.naming import RDFS, Naming
from kg_agent.kg.profile import KGProfile, measure_name_predicates

TOURS = Path(__file__).resolve().parent / "fixtures" / "coach_tours" / "tours.ttl"
T = "http://example.org/tours/"
METHODS = ["rog", "tog", "tog-i"]


@pytest.fixture(scope="module")
def tours():
    return load_kg(TOURS)


@pytest.fixture(scope="module")
def tours_oxigraph(tmp_path_factory):
    from kg_agent.kg import build_oxigraph, open_oxigraph

    store = open_oxigraph(build_oxigraph(TOURS, tmp_path_factory.mktemp("tours") / "store"))
    yield store
    store.close()


def test_a_text_repeated_across_its_subjects_is_a_record_value_not_a_name():
    """One short text per subject, nothing else names them: a name, were the texts distinct; repeated, a value."""
    records = [(f"{T}departure{i}", T + "tourcoach", coach, "")
               for i, coach in enumerate(["Setra", "Neoplan", "Irizar", "Van Hool", "MAN"] * 2)]
    named = [(f"{T}group{i}", T + "groupname", f"Group {i}", "") for i in range(10)]
    profile = measure_name_predicates(records + named, Naming())
    assert profile.label_predicates == (T + "groupname",)
    assert profile.record_value_predicates == (T + "tourcoach",)
    assert T + "tourcoach" in profile.naming(Naming()).record_value_predicates
    assert T + "tourcoach" not in profile.naming(Naming()).label_predicates
    assert any("record values" in line for line in profile.describe())
    again = KGProfile.from_dict({**profile.__dict__, "classes": None})
    assert again is not None and again.record_value_predicates == (T + "tourcoach",)


def test_a_name_on_every_subject_that_tells_them_apart_stays_a_name():
    texts = [(f"{T}group{i}", T + "groupname", f"Group {i}", "") for i in range(7)]
    texts += [(f"{T}group{i}", RDFS + "comment", "x" * 200, "") for i in range(7)]
    assert measure_name_predicates(texts, Naming()).record_value_predicates == ()


@pytest.mark.parametrize("backend", ["memory", "oxigraph"])
def test_the_departures_are_record_nodes(tours, tours_oxigraph, backend):
    from kg_agent.kg.nameless import Nameless
    from kg_agent.kg.record_values import record_nodes

    kg = tours if backend == "memory" else tours_oxigraph
    assert T + "tourcoach" in kg.naming.record_value_predicates
    ids = [T + "departure1", T + "alpine_ramblers", T + "vienna"]
    assert record_nodes(kg, ids) == {T + "departure1"}
    assert Nameless.among(kg, ids).statements == {T + "departure1"}


def test_the_path_scorer_reads_a_record_as_a_statement_node(tours):
    from kg_agent.kg.terms import UNNAMED
    from kg_agent.tools.shared.answer_types import relation_object_kinds

    kinds = relation_object_kinds(tours).kinds("departure")
    assert kinds.unnamed == 1.0 and kinds.values == (UNNAMED,)


def test_a_walk_past_a_record_whose_value_is_asked_for_stops_at_its_value(tours):
    from kg_agent.tools.shared.statement_names import walks_to_asked_names

    group = {"id": T + "alpine_ramblers", "label": "Alpine Ramblers"}
    record = {"id": T + "departure1", "label": "departure1"}
    walk = {"text": "Alpine Ramblers -> departure -> departure1 -> departurecity -> Vienna", "start": group,
            "steps": [{"head": group, "relation": "departure", "tail": record},
                      {"head": record, "relation": "departurecity", "tail": {"id": T + "vienna", "label": "Vienna"}}]}
    [answered] = walks_to_asked_names("Which tour coach carried the Alpine Ramblers?", [walk], tours)
    assert [s["relation"] for s in answered["steps"]] == ["departure", "tourcoach"]
    assert answered["steps"][-1]["tail"]["label"] == "Setra S 515 HD"
    # a question that asks for the city keeps the walk as it was
    assert walks_to_asked_names("From which departure city did the Alpine Ramblers leave?", [walk], tours) == [walk]


@pytest.mark.parametrize("method", METHODS)
def test_which_coach_is_answered_by_the_record_value(tours, method):
    from kg_agent.graphs.registry import create_graph

    result = create_graph(method, tours).compile().invoke({"question": "Which tour coach carried the Castle Seekers?"})
    assert [a["answer"] for a in result["answers"]] == ["Setra S 515 HD"]
    assert all(a["grounded"] for a in result["answers"])
