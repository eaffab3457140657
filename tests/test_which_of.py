""""Which is larger, A or B?" compares a number the KG gives both (issue 46 item 2): the numbers each thing has in one
step or through a statement node (a reading's value, its unit), the statement's unit the same for both; the thing
most shared numbers put first is the answer, with the compared values as evidence, on every method.

Fixture: ``tests/fixtures/gauges/river_basin.ttl`` (stations' catchment areas; their flow values as named
statement nodes with a unit: Hartside's in litres per second, Millbrook's in cubic metres per second).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import load_kg
from kg_agent.tools.shared.aggregates import MAX, MIN
from kg_agent.tools.shared.which_of import comparative_order, which_of_answered

BASIN = Path(__file__).resolve().parent / "fixtures" / "gauges" / "river_basin.ttl"
EX = "http://example.org/basin/"


@pytest.fixture(scope="module")
def basin():
    return load_kg(BASIN)


def test_the_comparison_is_read_from_english_grammar():
    assert comparative_order("Which is larger, the bar or the standard atmosphere?") == MAX
    assert comparative_order("Which one is smaller, Gauge Oxmoor or Gauge Fell End?") == MIN
    assert comparative_order("Which of Gauge Oxmoor and Gauge Fell End is older?") == MIN
    assert comparative_order("Which river is Gauge Oxmoor on?") is None
    assert comparative_order("Which is the river of Gauge Oxmoor or Gauge Fell End?") is None


def _topics(*pairs: tuple[str, str]) -> list[dict]:
    return [{"id": EX + key, "label": label, "mention": label.lower()} for key, label in pairs]


def test_numbers_in_different_units_are_not_compared(basin):
    # catchment areas: Millbrook 412.5 > Hartside 96; their flow values 18.25 m3/s and 730 l/s (and uncertainties)
    # are in different units, so they cast no vote
    answers, what = which_of_answered("Which is larger, Gauge Hartside or Gauge Millbrook?",
                                      _topics(("hartside", "Gauge Hartside"), ("millbrook", "Gauge Millbrook")), basin)
    assert [a["answer"] for a in answers] == ["Gauge Millbrook"] and answers[0]["compared_by"] == "catchmentArea"
    assert answers[0]["compared"] == [{"answer": "Gauge Millbrook", "value": "412.5"},
                                      {"answer": "Gauge Hartside", "value": "96.0"}]
    assert "1 of the 1 numbers" in what


@pytest.mark.parametrize("create", [create_rog_graph, create_tog_graph, create_tog_i_graph])
@pytest.mark.parametrize(("question", "gold"), [
    ("Which is smaller, Gauge Keld Bridge or Gauge Low Gill?", "Gauge Low Gill"),
    ("Which is larger, Gauge Keld Bridge or Gauge Low Gill?", "Gauge Keld Bridge"),
])
def test_every_method_answers_which_of_the_two(basin, create, question, gold):
    result = create(basin).compile().invoke({"question": question})
    assert [a["answer"] for a in result["answers"]] == [gold]
