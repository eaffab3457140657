"""A question asking for things of a class the KG has is not answered by numbers, times or truth values (issue 46
item 1): "which gauging stations ..." names the KG's class *gauging station* (read from the opening of its noun
phrase, "gauging stations measure ..."), so a catchment area (``xsd:decimal``) or a ``telemetered`` flag
(``xsd:boolean``) reached for it is of the wrong kind; with nothing else left the method abstains, saying why. A
relation the noun names ("which value ...": ``value``) stands.

Fixture: ``tests/fixtures/gauges/river_basin.ttl``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import load_kg
from kg_agent.tools.shared.answer_checks import final_answers

BASIN = Path(__file__).resolve().parent / "fixtures" / "gauges" / "river_basin.ttl"
EX = "http://example.org/basin/"
XSD = "http://www.w3.org/2001/XMLSchema#"


@pytest.fixture(scope="module")
def basin():
    return load_kg(BASIN)


def _answer(start: str, relation: str, key: str, label: str) -> dict:
    step = {"head": {"id": EX + start, "label": start}, "relation": relation, "tail": {"id": key, "label": label}}
    return {"answer": label, "entity_id": key, "grounded": True, "paths": [{"steps": [step], "text": label}]}


def test_numbers_and_truth_values_are_no_things_of_the_class_asked(basin):
    area = _answer("wenning", "^onRiver", f'"55.2"^^<{XSD}decimal>', "55.2")
    flag = _answer("wenning", "^onRiver", f'"true"^^<{XSD}boolean>', "true")
    station = _answer("wenning", "^onRiver", EX + "oxmoor", "Gauge Oxmoor")
    checked = final_answers("Which gauging stations measure the Wenning?", [area, flag, station], kg=basin)
    assert [a["answer"] for a in checked.answers] == ["Gauge Oxmoor"]
    checked = final_answers("Which gauging stations measure the Wenning?", [area, flag], kg=basin)
    assert checked.answers == [] and checked.stop_reason == "abstained"
    assert "a number" in checked.warnings[-1] and "a truth value" in checked.warnings[-1]


def test_a_number_over_a_relation_the_noun_names_stands(basin):
    value = _answer("reading_oxmoor", "value", f'"2.35"^^<{XSD}decimal>', "2.35")
    assert [a["answer"] for a in final_answers("Which value does the reading of Gauge Oxmoor hold?", [value],
                                               kg=basin).answers] == ["2.35"]
    # a noun naming no class of the KG asks for no thing of it
    area = _answer("oxmoor", "catchmentArea", f'"55.2"^^<{XSD}decimal>', "55.2")
    assert [a["answer"] for a in final_answers("Which catchment area does Gauge Oxmoor have?", [area],
                                               kg=basin).answers] == ["55.2"]


def _on_wenning(key: str, label: str) -> dict:
    return _answer("wenning", "^onRiver", EX + key, label)


def test_a_count_keeps_the_class_an_opening_of_the_noun_phrase_names(basin):
    # "gauging stations": the noun read is "gauging", which names no class; "gauging stations" names *gauging
    # station*, so the weir on the Wenning, reached over the same relation, is not counted
    answers = [_on_wenning("oxmoor", "Gauge Oxmoor"), _on_wenning("lowgill", "Gauge Low Gill")]
    checked = final_answers("How many gauging stations are on the Wenning?", answers, kg=basin)
    assert [a["answer"] for a in checked.answers] == ["3"]
    assert sorted(checked.answers[0]["counted"]) == ["Gauge Fell End", "Gauge Low Gill", "Gauge Oxmoor"]
