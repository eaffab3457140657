"""Questions about the members of a class by a date, naming no entity (kg_agent/tools/shared/dated_members.py):
"which lighthouses were commissioned before 1850", "which lighthouse was commissioned first", "how many lighthouses
were commissioned after 1860"; the class from the KG's class names, the date the participle names among those the
members reach in one step or two through an unnamed statement node, on memory and Oxigraph, through every method.
On an invented register of lighthouses (tests/fixtures/lighthouses/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph, open_sparql
from kg_agent.tools.shared import dated_members
from kg_agent.tools.shared.aggregates import MAX, MIN, Comparison
from kg_agent.tools.shared.dated_members import (
    DatedQuestion,
    answer_dated_members,
    dated_question,
    kept_by,
    only_names_its_class,
)
from tests.sparql_server import SparqlServer, store_from_file

LIGHTHOUSES = Path(__file__).parent / "fixtures" / "lighthouses" / "lighthouses.ttl"


@pytest.fixture(scope="module")
def lighthouses():
    return open_kg(LIGHTHOUSES)


@pytest.fixture(scope="module")
def lighthouses_store(tmp_path_factory):
    kg = open_oxigraph(build_oxigraph(LIGHTHOUSES, tmp_path_factory.mktemp("lights") / "store"))
    yield kg
    kg.close()


@pytest.mark.parametrize(("question", "read"), [
    ("Which lighthouses were commissioned before 1850?",
     ("lighthouses", "commissioned", Comparison(MIN, bound=1850.0), False)),
    ("How many lighthouses were commissioned after 1860?",
     ("lighthouses", "commissioned", Comparison(MAX, bound=1861.0, strict=False), True)),  # from 1861 on
    ("Which lighthouse was commissioned first?", ("lighthouse", "commissioned", Comparison(MIN, words="first"), False)),
    ("Which lighthouse was first commissioned?", ("lighthouse", "commissioned", Comparison(MIN, words="first"), False)),
    ("Which lighthouse was commissioned last?", ("lighthouse", "commissioned", Comparison(MAX, words="last"), False)),
    ("Which lighthouse was commissioned the last?",
     ("lighthouse", "commissioned", Comparison(MAX, words="last"), False)),
    ("Which lighthouse was the earliest commissioned?",
     ("lighthouse", "commissioned", Comparison(MIN, words="earliest commissioned"), False)),
])
def test_the_question_is_read_by_its_grammar(question, read):
    noun, participle, comparison, count = read
    found = dated_question(question)
    assert found is not None and (found.noun, found.participle, found.count, found.question) == (
        noun, participle, count, question)

    def condition(c: Comparison) -> tuple:  # what the question asks, not how time_phrases words its evidence
        return c.order, c.bound, c.strict, c.words, c.low, c.high

    assert condition(found.comparison) == condition(comparison)


@pytest.mark.parametrize("question", [
    "Which lighthouses were commissioned?",  # no condition
    "Which lighthouse is the tallest?",  # a superlative of no time order
    "Which lighthouse was the most visited?",
    "How many lighthouses were commissioned first?",  # no count
    "When was Grey Head Light commissioned?",
    "Which of the lighthouses were commissioned before 1850?",
    "What topics is Last Stand at Saber River about?",  # a capitalised "Last" is part of a name
    "Which lighthouses were designed by the first engineer?",  # the superlative is the engineer's
])
def test_other_questions_are_none_of_these(question):
    assert dated_question(question) is None


def test_a_condition_is_applied_in_one_place():
    before, since = Comparison(MIN, bound=1850.0), Comparison(MAX, bound=1850.0, strict=False)
    assert kept_by(before, 1849.9) and not kept_by(before, 1850.0)
    assert kept_by(since, 1850.0) and not kept_by(since, 1849.9)
    assert not kept_by(Comparison(MIN, words="first"), 1800.0)  # a superlative keeps nothing: it ranks


@pytest.mark.parametrize("backend", ["memory", "oxigraph"])
@pytest.mark.parametrize(("question", "expected", "shown"), [
    # commissioning dates sit on unnamed statement nodes (IRIs for some lighthouses, blank nodes for others)
    ("Which lighthouses were commissioned before 1850?", ["Grey Head Light", "Salt Rock Light"], "1841-06-01"),
    ("Which lighthouses were commissioned after 1860?", ["Tern Point Light", "Black Spit Light", "Harbour Mouth Light"],
     "1867-09-14"),
    ("Which lighthouse was commissioned first?", ["Grey Head Light", "Salt Rock Light"], "1841-06-01"),  # tied
    ("Which lighthouse was commissioned last?", ["Harbour Mouth Light"], "1902-04-10"),
    ("Which lighthouses were decommissioned before 1980?", ["Grey Head Light"], "1978"),  # one step, an xsd:gYear
    ("Which keepers were born before 1830?", ["Elsie Morrow"], "1820-01-15"),
])
def test_the_members_are_kept_or_ranked_by_the_date_the_participle_names(
        backend, question, expected, shown, lighthouses, lighthouses_store):
    kg = lighthouses if backend == "memory" else lighthouses_store
    answers, what = answer_dated_members(kg, question)
    assert [a["answer"] for a in answers] == expected
    assert all(a["grounded"] and not a["entity_id"].startswith("_:") for a in answers)
    assert answers[0]["compared"][0]["value"] == shown and answers[0]["compared_by"] == what
    assert ("commissioned" in what) == ("commissioned" in question)


@pytest.mark.parametrize("backend", ["memory", "oxigraph"])
def test_how_many_counts_the_members_the_condition_keeps(backend, lighthouses, lighthouses_store):
    kg = lighthouses if backend == "memory" else lighthouses_store
    [answer], what = answer_dated_members(kg, "How many lighthouses were commissioned after 1860?")
    assert answer["answer"] == "3" and answer["entity_id"] is None
    assert answer["counted"] == ["Tern Point Light", "Black Spit Light", "Harbour Mouth Light"]
    assert answer["counted_by"] == what and "commissioning -> commissioned" in what


def test_an_endpoint_answers_alike():
    with SparqlServer(store_from_file(LIGHTHOUSES)) as server:
        kg = open_sparql(server.url)
        try:
            answers, _ = answer_dated_members(kg, "Which lighthouse was commissioned first?")
            assert [a["answer"] for a in answers] == ["Grey Head Light", "Salt Rock Light"]
            [count], _ = answer_dated_members(kg, "How many lighthouses were commissioned after 1860?")
            assert count["answer"] == "3"
        finally:
            kg.close()


@pytest.mark.parametrize(("question", "reason"), [
    ("Which volcanoes were commissioned before 1900?", "no class named 'volcanoes'"),
    ("Which islands were settled before 1800?", "no date the knowledge graph gives"),
    # a designer's birth date is a named node's, no date of the lighthouse
    ("Which lighthouses were born before 1800?", "names (their dates: commissioning -> commissioned, decommissioned)"),
    ("Which lighthouses were commissioned before 1700?", "the question's condition keeps"),
])
def test_what_the_kg_cannot_answer_is_no_answer_with_its_reason(question, reason, lighthouses):
    answers, why = answer_dated_members(lighthouses, question)
    assert answers == [] and reason in why


def test_a_noun_whose_modifiers_name_a_thing_is_left_to_the_methods(lighthouses):
    assert answer_dated_members(lighthouses, "Which North Coast lighthouses were commissioned before 1850?") is None


def test_a_mention_of_the_class_is_no_topic_entity_but_a_mention_of_a_modifier_is():
    assert only_names_its_class("Which lighthouses were commissioned before 1850?", ["lighthouses"])
    assert not only_names_its_class("Which North Coast lighthouses were commissioned before 1850?", ["North Coast"])
    assert not only_names_its_class("Which lighthouses on the North Coast were lit first?", ["North Coast"])


def test_a_read_cut_at_its_bound_says_so_and_is_not_grounded(lighthouses, monkeypatch):
    monkeypatch.setattr(dated_members, "MAX_EDGES", 2)
    answers, what = answer_dated_members(lighthouses, "Which lighthouses were commissioned before 1900?")
    assert "first 2 dates only" in what and answers and not any(a["grounded"] for a in answers)


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_every_method_answers_a_question_about_a_class_by_a_date(lighthouses, factory):
    app = factory(lighthouses).compile()
    result = app.invoke({"question": "Which lighthouse was commissioned first?"})
    assert [a["answer"] for a in result["answers"]] == ["Grey Head Light", "Salt Rock Light"]
    assert result["stop_reason"] == "answered" and result["topic_entities"] == []
    assert any("members of a class by a date" in w for w in result["warnings"])
    counted = app.invoke({"question": "How many lighthouses were commissioned after 1860?"})
    assert [a["answer"] for a in counted["answers"]] == ["3"]
    none = app.invoke({"question": "Which lighthouses were commissioned before 1700?"})
    assert none["answers"] == [] and none["stop_reason"] == "abstained"
    assert any("condition keeps" in w for w in none["warnings"])
