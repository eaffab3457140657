"""A question asking for a thing's full name ("what is the full name of the stop with the code KRB") is answered
from the KG's names (kg_agent/tools/shared/name_questions.py): the longest of the thing's label and alias texts (here
``ex:desc``, which the KG profile takes for an alias), not the code the question named it by. Fixture:
tests/fixtures/bus_network (invented; codes as labels, names in a description property)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph
from kg_agent.tools.shared.name_questions import FULL_NAME, NameQuestion, name_question

BUSES = Path(__file__).parent / "fixtures" / "bus_network" / "bus_network.nt"


@pytest.mark.parametrize("question", ["What is the full name of the stop with the code KRB?",
                                      "What is the official name of MLT?", "Give me PEN's full title."])
def test_a_full_name_is_asked_by_an_adjective_of_the_whole_name(question):
    assert name_question(question) == NameQuestion(FULL_NAME)


@pytest.mark.parametrize("question", ["What is the name of the stop with the code KRB?",
                                      "What is the full name of the region of MLT?"])  # another thing's name
def test_other_name_questions_are_no_full_name_question(question):
    assert name_question(question) is None


@pytest.mark.parametrize("backend", ["memory", "oxigraph"])
@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_the_full_name_is_the_longest_name_not_the_code_asked_by(factory, backend, tmp_path):
    kg = open_kg(BUSES) if backend == "memory" else open_oxigraph(build_oxigraph(BUSES, tmp_path / "store"))
    result = factory(kg).compile().invoke({"question": "What is the full name of the stop with the code KRB?"})
    assert [a["answer"] for a in result["answers"]] == ["Karsby Bus Station"]
    assert result["answers"][0]["paths"][0]["steps"][0]["predicate"] == "http://example.org/bus/desc"
