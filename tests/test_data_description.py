"""A question about the data itself ("who compiled the ferry crossings data?") links no entity; it is answered from the
node the KG describes itself on (kg_agent/tools/shared/data_description.py): here the sole member of a class whose
comment says it is the data (tests/fixtures/ferry_crossings, invented), as a VoID/DCAT dataset node would be."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.registry import create_graph
from kg_agent.kg import open_kg
from kg_agent.tools.shared.data_description import answer_about_the_data, data_phrase, describing_nodes

PORTS = Path(__file__).parent / "fixtures" / "ferry_crossings" / "ports.ttl"
EDITION = "http://example.org/ferries/spring2024"


@pytest.fixture(scope="module")
def kg():
    return open_kg(PORTS)


def test_the_data_is_named_by_a_data_word_after_an_article():
    assert data_phrase("Who compiled the ferry crossings data?") == ("the ferry crossings data", ("ferry", "crossings"))
    assert data_phrase("When was this dataset published?") == ("this dataset", ())
    assert data_phrase("Which ports can you sail to from Alport Harbour?") is None


def test_the_describing_node_is_the_sole_member_of_a_class_that_says_it_is_the_data(kg):
    assert describing_nodes(kg, ("ferry", "crossings")) == [EDITION]
    assert describing_nodes(kg, ("bus", "network")) == []  # its comment does not name that data


@pytest.mark.parametrize("method", ["rog", "tog", "tog-i"])
@pytest.mark.parametrize("question, answer", [
    ("Who compiled the ferry crossings data?", "Isles Harbour Board"),
    ("When was the ferry crossings data published?", "2024-03-01"),
])
def test_a_question_about_the_data_is_answered_from_its_node(kg, method, question, answer):
    result = create_graph(method, kg).compile().invoke({"question": question})
    assert [a["answer"] for a in result["answers"]] == [answer]
    assert result["answers"][0]["paths"][0]["steps"][0]["head"]["id"] == EDITION


def test_a_question_naming_no_data_is_not_answered_here(kg):
    assert answer_about_the_data(kg, "Who compiled the timetable?") is None
