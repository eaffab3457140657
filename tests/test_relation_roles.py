"""One relation holding two roles, told apart by its objects' classes (kg_agent/tools/shared/class_split.py, issue 45):
a grant proposal's ``dcterms:creator`` holds its applicants (``foaf:Person``) and the funding body it is submitted to
(``org:Organization``). "Who wrote [X]", "who are the authors of [X]" and "how many authors does [X] have" ask for the
persons; "to whom was [X] submitted" asks for the party a preposition names, and keeps the body. On an invented
register of a funder's grant proposals (tests/fixtures/research_grants/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph

GRANTS = Path(__file__).parent / "fixtures" / "research_grants" / "grants.ttl"
METHODS = [create_rog_graph, create_tog_graph, create_tog_i_graph]


@pytest.fixture(scope="module")
def grants():
    return open_kg(GRANTS)


@pytest.fixture(scope="module")
def grants_store(tmp_path_factory):
    kg = open_oxigraph(build_oxigraph(GRANTS, tmp_path_factory.mktemp("grants") / "store"))
    yield kg
    kg.close()


@pytest.fixture(scope="module", params=METHODS, ids=["rog", "tog", "tog-i"])
def app(request, grants):
    return request.param(grants).compile()


def _answers(app, question: str) -> list[str]:
    return [a["answer"] for a in app.invoke({"question": question})["answers"]]


@pytest.mark.parametrize("question", [
    "Who wrote the proposal 'Soil microbes under drought'?",
    "Who are the authors of the proposal 'Soil microbes under drought'?",
])
def test_who_asks_for_the_persons_of_a_relation_that_also_holds_an_organisation(app, question):
    answers = _answers(app, question)
    assert answers and "Soil Science Fund" not in answers
    assert set(answers) <= {"Anouk Verlinde", "Tomasz Wierzba", "Ilse Brandvold"}


def test_a_count_of_authors_counts_only_the_persons(app):
    assert _answers(app, "How many authors does the proposal 'Soil microbes under drought' have?") == ["3"]


@pytest.mark.parametrize("method", [create_rog_graph, create_tog_graph], ids=["rog", "tog"])  # ToG-I's beam keeps one
def test_to_whom_keeps_the_organisation(grants, method):
    answers = _answers(method(grants).compile(), "To whom was the proposal 'Kelp forests and coastal carbon' submitted?")
    assert "Ocean Research Council" in answers


def test_the_same_on_an_oxigraph_store(grants_store):
    app = create_rog_graph(grants_store).compile()
    assert _answers(app, "Who wrote the proposal 'Soil microbes under drought'?") == [
        "Anouk Verlinde", "Ilse Brandvold", "Tomasz Wierzba"]
    assert _answers(app, "How many authors does the proposal 'Soil microbes under drought' have?") == ["3"]


def test_nothing_is_split_without_a_person_class(grants):
    from kg_agent.tools.shared.class_split import persons_apart

    def answer(key: str, label: str) -> dict:
        step = {"head": {"id": "http://example.org/grants/g1", "label": "g1"}, "relation": "creator",
                "tail": {"id": key, "label": label}}
        return {"answer": label, "entity_id": key, "grounded": True, "paths": [{"steps": [step]}]}

    bodies = [answer("http://example.org/grants/fund-soil", "Soil Science Fund"),
              answer("http://example.org/grants/fund-ocean", "Ocean Research Council")]
    assert persons_apart("Who wrote the proposal?", bodies, grants) is None
    mixed = [*bodies, answer("http://example.org/grants/p1", "Anouk Verlinde")]
    kept, reason = persons_apart("Who wrote the proposal?", mixed, grants)
    assert [a["answer"] for a in kept] == ["Anouk Verlinde"] and "another class" in reason
    assert persons_apart("Which bodies received the proposal?", mixed, grants) is None  # no persons asked
    assert persons_apart("To whom was the proposal sent?", mixed, grants) is None
