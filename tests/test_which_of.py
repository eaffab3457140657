""""Which is larger, A or B?" compares a number the KG gives both (issue 46 item 2): the numbers each thing has in one
step or through a statement node (a reading's value, its unit), the statement's unit the same for both; the thing
most shared numbers put first is the answer, with the compared values as evidence, on every method.

"Which was planted first, A or B?" compares the dates the verb names (a relation whose name the verb's words or
embeddings match, here through an unnamed planting record), and an adjective ("taller") the number of the relation it
names, not every number the two share.

Fixtures: ``tests/fixtures/gauges/river_basin.ttl`` (stations' catchment areas; their flow values as named
statement nodes with a unit: Hartside's in litres per second, Millbrook's in cubic metres per second);
``tests/fixtures/garden/plantings.ttl`` (trees, each planted on an unnamed planting record with its date; heights,
girths, accession numbers and pruning dates as decoys that put the other tree first).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import load_kg
from kg_agent.tools.shared.aggregates import MAX, MIN
from kg_agent.tools.shared.which_of import asked_order, comparative_order, which_of_answered

BASIN = Path(__file__).resolve().parent / "fixtures" / "gauges" / "river_basin.ttl"
EX = "http://example.org/basin/"
GARDEN = Path(__file__).resolve().parent / "fixtures" / "garden" / "plantings.ttl"
TREE = "http://example.org/garden/"


@pytest.fixture(scope="module")
def basin():
    return load_kg(BASIN)


def test_the_comparison_is_read_from_english_grammar():
    assert comparative_order("Which is larger, the bar or the standard atmosphere?") == MAX
    assert comparative_order("Which one is smaller, Gauge Oxmoor or Gauge Fell End?") == MIN
    assert comparative_order("Which of Gauge Oxmoor and Gauge Fell End is older?") == MIN
    assert comparative_order("Which river is Gauge Oxmoor on?") is None
    assert comparative_order("Which is the river of Gauge Oxmoor or Gauge Fell End?") is None


def test_a_time_adverb_asks_for_the_date_its_verb_names():
    assert asked_order("Which was planted first, the Maidenhair Tree or the Atlas Cedar?") == (MIN, "planted", True)
    assert asked_order("Which one was planted earlier: Irish Yew or Atlas Cedar?") == (MIN, "planted", True)
    assert asked_order("Which was pruned later, the Irish Yew or the Atlas Cedar?") == (MAX, "pruned", True)
    assert asked_order("Which of the Irish Yew and the Atlas Cedar was planted last?") == (MAX, "planted", True)
    assert asked_order("Which of the Irish Yew and the Atlas Cedar was pruned the latest?") == (MAX, "pruned", True)
    assert asked_order("Which is taller, the Irish Yew or the Atlas Cedar?") == (MAX, "taller", False)
    assert asked_order("Which tree was planted first?") is None  # a superlative over answers, no two named things
    assert asked_order("Which was planted in the East Lawn, the Irish Yew or the Atlas Cedar?") is None


@pytest.fixture(scope="module")
def garden():
    return load_kg(GARDEN)


def _trees(*pairs: tuple[str, str]) -> list[dict]:
    return [{"id": TREE + key, "label": label, "mention": label.lower()} for key, label in pairs]


@pytest.mark.parametrize(("question", "gold", "dates"), [
    ("Which was planted first, the Maidenhair Tree or the Atlas Cedar?", "Atlas Cedar", ["1887-11-02", "1921-03-14"]),
    ("Which was planted later, the Maidenhair Tree or the Atlas Cedar?", "Maidenhair Tree",
     ["1921-03-14", "1887-11-02"]),
    ("Which of the Atlas Cedar and the Maidenhair Tree was planted earlier?", "Atlas Cedar",
     ["1887-11-02", "1921-03-14"]),
])
def test_the_date_the_verb_names_is_compared_through_an_unnamed_record(garden, question, gold, dates):
    # the planting records are unnamed nodes naming different beds and gardeners (dates have no unit to agree on);
    # the pruning dates on the trees put the other tree first and are not compared: "planted" names the record's date
    topics = _trees(("ginkgo", "Maidenhair Tree"), ("cedar", "Atlas Cedar"))
    answers, what = which_of_answered(question, topics, garden)
    assert [a["answer"] for a in answers] == [gold]
    assert answers[0]["compared_by"] == "planting -> planted"
    assert [c["value"] for c in answers[0]["compared"]] == dates
    assert [s["tail"]["label"] for s in answers[0]["paths"][0]["steps"]][-1] == dates[0]
    assert "1 of the 1 dates" in what


def test_a_verb_naming_no_relation_compares_points_in_time_and_abstains_when_they_disagree(garden):
    # "came" names neither date: the planting dates put the cedar first, the pruning dates the ginkgo: no answer
    topics = _trees(("ginkgo", "Maidenhair Tree"), ("cedar", "Atlas Cedar"))
    assert which_of_answered("Which came first, the Maidenhair Tree or the Atlas Cedar?", topics, garden) is None


@pytest.mark.parametrize(("question", "gold", "by"), [
    ("Which is taller, the Maidenhair Tree or the Atlas Cedar?", "Maidenhair Tree", "height"),
    ("Which is shorter, the Maidenhair Tree or the Atlas Cedar?", "Atlas Cedar", "height"),
])
def test_an_adjective_compares_the_number_of_the_relation_it_names(garden, question, gold, by):
    # the accession numbers and girths both put the cedar above the ginkgo: counted as votes they would outvote the
    # height; "taller" names the height (the scorer's embeddings), so it alone is compared
    topics = _trees(("ginkgo", "Maidenhair Tree"), ("cedar", "Atlas Cedar"))
    answers, what = which_of_answered(question, topics, garden)
    assert [a["answer"] for a in answers] == [gold] and answers[0]["compared_by"] == by
    assert "1 of the 1 numbers" in what


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


@pytest.mark.parametrize("create", [create_rog_graph, create_tog_graph, create_tog_i_graph])
@pytest.mark.parametrize(("question", "gold"), [
    ("Which was planted first, Maidenhair Tree or Atlas Cedar?", "Atlas Cedar"),
    ("Which was planted later, Irish Yew or Atlas Cedar?", "Irish Yew"),
])
def test_every_method_answers_which_was_first_with_the_thing_not_its_date(garden, create, question, gold):
    result = create(garden).compile().invoke({"question": question})
    assert [a["answer"] for a in result["answers"]] == [gold]
