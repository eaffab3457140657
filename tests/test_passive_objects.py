"""A question asking which things "were <verb>ed" under a condition in time, where the verb names a relation between
two things of one kind and the date is on the other end ("which of [X]'s manuscripts were reviewed after March
2025": a review ``reviews`` its manuscript and carries the date), is answered with the things the verb is said of
(the manuscripts), not the things the walk compared (the reviews): kg_agent/tools/shared/passive_objects.py. On an
invented journal's manuscripts and reviews (tests/fixtures/journal_manuscripts/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph
from kg_agent.tools.shared.passive_objects import passive_verb

JOURNAL = Path(__file__).parent / "fixtures" / "journal_manuscripts" / "journal.ttl"
METHODS = [create_rog_graph, create_tog_graph, create_tog_i_graph]


@pytest.fixture(scope="module")
def journal():
    return open_kg(JOURNAL)


@pytest.fixture(scope="module")
def journal_store(tmp_path_factory):
    kg = open_oxigraph(build_oxigraph(JOURNAL, tmp_path_factory.mktemp("journal") / "store"))
    yield kg
    kg.close()


@pytest.mark.parametrize(("question", "verb", "passive"), [
    ("Which manuscripts were reviewed after March 2025?", "reviewed", True),
    ("Which manuscript was reviewed last?", "reviewed", True),
    ("Which manuscripts have been reviewed since May?", "reviewed", True),
    ("Which reviewer reviewed the most manuscripts?", "reviewed", False),
])
def test_a_verb_after_a_form_of_be_is_passive(question, verb, passive):
    assert passive_verb(question, verb) is passive


@pytest.mark.parametrize("method", METHODS, ids=["rog", "tog", "tog-i"])
@pytest.mark.parametrize(("question", "answers"), [
    ("Which of Ana Leit's manuscripts were reviewed after March 2025?",
     {"Pioneer plants of young coastal dunes", "Tidal mixing in shallow estuaries"}),
    ("Which of Ana Leit's manuscripts was reviewed last?", {"Pioneer plants of young coastal dunes"}),
])
def test_the_things_the_passive_verb_is_said_of_are_answered_not_the_dated_ones(journal, method, question, answers):
    result = method(journal).compile().invoke({"question": question})
    assert {a["answer"] for a in result["answers"]} == answers
    assert any("passive verb is said of" in w for w in result["warnings"])


@pytest.mark.parametrize("method", METHODS, ids=["rog", "tog", "tog-i"])
def test_a_date_asked_for_is_still_the_date(journal, method):
    result = method(journal).compile().invoke(
        {"question": "When was the manuscript 'Tidal mixing in shallow estuaries' reviewed?"})
    assert [a["answer"] for a in result["answers"]][:1] == ["2025-04-01"]
    assert not any("passive verb is said of" in w for w in result["warnings"])


def test_the_same_on_an_oxigraph_store(journal_store):
    app = create_rog_graph(journal_store).compile()
    result = app.invoke({"question": "Which of Ana Leit's manuscripts were reviewed after March 2025?"})
    assert {a["answer"] for a in result["answers"]} == {"Pioneer plants of young coastal dunes",
                                                        "Tidal mixing in shallow estuaries"}


def test_things_of_two_kinds_are_not_stepped_back_over(tmp_path):
    """Without the class a manuscript and a review share, the verb relates things of two kinds: the answers stand."""
    two_kinds = tmp_path / "journal.ttl"
    two_kinds.write_text(JOURNAL.read_text().replace(", :Document ;", " ;"))
    kg = open_kg(two_kinds)
    result = create_rog_graph(kg).compile().invoke(
        {"question": "Which of Ana Leit's manuscripts were reviewed after March 2025?"})
    assert not any("passive verb is said of" in w for w in result["warnings"])
    assert not {a["answer"] for a in result["answers"]} & {"Pioneer plants of young coastal dunes",
                                                            "Tidal mixing in shallow estuaries"}
