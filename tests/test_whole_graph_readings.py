"""Whole-KG questions a bus network's data answers (kg_agent/tools/shared/whole_graph.py): a count of a class's
members "in the data", a superlative adjective with the attribute's noun ("the highest altitude", a relation named by
an abbreviation, ``alt``), and "the most <noun>" read from a relation that writes that number (``platforms``) rather
than counted over another relation's edges (``link``). Fixture: tests/fixtures/bus_network (invented)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph
from kg_agent.tools.shared.aggregates import MAX, MIN
from kg_agent.tools.shared.whole_graph import COUNT, WholeGraphQuestion, answer_over_whole_graph, names_by_root, whole_graph_question

BUSES = Path(__file__).parent / "fixtures" / "bus_network" / "bus_network.nt"


@pytest.fixture(scope="module", params=["memory", "oxigraph"])
def buses(request, tmp_path_factory):
    if request.param == "memory":
        return open_kg(BUSES)
    return open_oxigraph(build_oxigraph(BUSES, tmp_path_factory.mktemp("buses") / "store"))


@pytest.mark.parametrize(("question", "read"), [
    ("How many regions are there in the bus network data?", WholeGraphQuestion(COUNT, counted_noun="regions")),
    ("How many stations are there in this dataset?", WholeGraphQuestion(COUNT, counted_noun="stations")),
    ("Which station has the highest altitude?", WholeGraphQuestion(MAX, "station", attribute="highest altitude")),
    ("Which station has the lowest altitude?", WholeGraphQuestion(MIN, "station", attribute="lowest altitude")),
])
def test_whole_graph_readings_of_data_counts_and_adjective_superlatives(question, read):
    assert whole_graph_question(question) == read


@pytest.mark.parametrize("question", [
    "How many stations are there in North Riding?",  # names a thing: the methods' question
    "Which station in North Riding has the highest altitude?",  # about North Riding
    "Which station has the earliest opening?",  # a time superlative: the members-by-date reading's
])
def test_a_count_or_superlative_about_a_thing_is_not_about_the_whole_graph(question):
    assert whole_graph_question(question) is None


def test_a_count_in_the_data_counts_the_class_members(buses):
    [answer], what = answer_over_whole_graph(buses, "How many regions are there in the bus network data?")
    assert answer["answer"] == "3" and "class" in what


@pytest.mark.parametrize(("question", "expected"), [
    ("Which station has the highest altitude?", "PEN"),
    ("Which station has the lowest altitude?", "OSW"),
])
def test_an_adjective_superlative_compares_the_relation_its_noun_abbreviates(buses, question, expected):
    answers, what = answer_over_whole_graph(buses, question)
    assert [a["answer"] for a in answers] == [expected] and "alt" in what


def test_the_most_of_a_noun_a_relation_writes_as_a_number_reads_that_number(buses):
    # MLT has the most links (5 other stops), KRB the most platforms (6): the number is read, not the links counted
    answers, what = answer_over_whole_graph(buses, "Which station has the most platforms?")
    assert [a["answer"] for a in answers] == ["KRB"] and "platforms" in what


def test_a_relation_named_by_an_abbreviation_of_the_word():
    assert names_by_root("altitude", "alt") == 1.0 and names_by_root("elevation", "elev") == 1.0
    assert names_by_root("altitude", "city") == 0.0 and names_by_root("altitude", "al") == 0.0


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_every_method_answers_the_bus_network_s_whole_graph_questions(factory):
    graph = factory(open_kg(BUSES)).compile()
    for question, expected in [("How many regions are there in the bus network data?", "3"),
                               ("Which station has the highest altitude?", "PEN"),
                               ("Which station has the most platforms?", "KRB")]:
        result = graph.invoke({"question": question})
        assert [a["answer"] for a in result["answers"]][:1] == [expected], question
