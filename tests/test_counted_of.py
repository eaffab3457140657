""""How many <things> of <X>" counts the things of X, not the whole KG (issue 46 item 2): when the counted noun phrase
as a whole names no class of the KG ("gauging stations of the Wenning"), the words after "of" name the thing the
counted ones are of, and the entity linked from them stays the question's topic; when it names one ("units of
measure": the class *unit of measure*) the question is about the whole KG's class. A mention holding the count's
grammar ("many gauging stations", linked by a fuzzy match) is the counted noun, no thing the question is about.

Fixture: ``tests/fixtures/gauges/river_basin.ttl``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.kg import load_kg
from kg_agent.tools.shared.whole_graph import only_names_its_nouns

BASIN = Path(__file__).resolve().parent / "fixtures" / "gauges" / "river_basin.ttl"


@pytest.fixture(scope="module")
def basin():
    return load_kg(BASIN)


def test_the_thing_after_of_is_what_the_counted_things_are_of(basin):
    assert not only_names_its_nouns("How many gauging stations of the Wenning are there?", ["Wenning"], basin)
    # the whole phrase names a class of the KG: its words are what is counted
    assert only_names_its_nouns("How many units of measure are there?", ["measure"], basin)
    # the count's grammar in a fuzzy mention
    assert only_names_its_nouns("How many gauging stations are there?", ["many gauging stations"], basin)


def test_a_count_of_a_class_the_phrase_names_is_answered_over_the_whole_kg(basin):
    result = create_rog_graph(basin).compile().invoke({"question": "How many units of measure are there?"})
    assert [a["answer"] for a in result["answers"]] == ["3"]
    result = create_rog_graph(basin).compile().invoke({"question": "How many gauging stations of the Wenning are there?"})
    assert [e["label"] for e in result["topic_entities"]] == ["Wenning"]
