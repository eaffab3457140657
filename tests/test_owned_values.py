"""Named values owned by one entity are statements (issue 45 item 2, issue 46): a node with a name of its own that
only one entity reaches and that is named after it ("Reading of Gauge Millbrook": the value, unit and uncertainty
of a station's latest reading) joins that entity to literals and named values; by its shape it is a statement node
though it has a name, walked through and never answered ("what is the flow value of X" answers the value it holds, not the node).

Fixture: ``tests/fixtures/gauges/river_basin.ttl`` (gauging stations, their flow values as named nodes, units,
rivers, catchment areas; every term defined by the vocabulary's owl:Ontology header).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import load_kg
from kg_agent.kg.nameless import Nameless
from kg_agent.kg.role_nodes import role_nodes
from kg_agent.tools.shared.answer_checks import final_answers

BASIN = Path(__file__).resolve().parent / "fixtures" / "gauges" / "river_basin.ttl"
EX = "http://example.org/basin/"


@pytest.fixture(scope="module")
def basin():
    return load_kg(BASIN)


def test_a_class_of_named_values_each_owned_by_one_entity_and_named_after_it_is_measured(basin):
    nodes = role_nodes(basin)
    assert nodes.is_owned_class(EX + "Reading")
    # stations are reached from no one; rivers by several stations; units by several readings; none is named after
    # what reaches it
    assert not any(nodes.is_owned_class(EX + c) for c in ("Station", "River", "Unit"))
    assert not nodes.is_role_class(EX + "Reading")  # its names do not repeat: no role class


def test_an_owned_value_is_a_statement_never_an_answer(basin):
    assert Nameless.among(basin, [EX + "reading_keld", EX + "keld", EX + "m3s"]).statements == {EX + "reading_keld"}
    answers = [{"answer": "Reading of Gauge Keld Bridge", "entity_id": EX + "reading_keld", "grounded": True}]
    checked = final_answers("What is the flow value of Gauge Keld Bridge?", answers, kg=basin)
    assert checked.answers == [] and checked.stop_reason == "abstained"


@pytest.mark.parametrize("create", [create_rog_graph, create_tog_graph, create_tog_i_graph])
@pytest.mark.parametrize(("question", "gold"), [
    ("What is the flow value of Gauge Keld Bridge?", "64.1"),
    ("What is the value of Gauge Hartside?", "730.0"),
])
def test_every_method_answers_the_value_the_owned_node_holds(basin, create, question, gold):
    result = create(basin).compile().invoke({"question": question})
    answers = [a["answer"] for a in result["answers"]]
    assert answers and answers[0] == gold and not any(a.startswith("Reading of") for a in answers)
