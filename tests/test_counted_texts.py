"""A count of texts stands only when the counted noun names the attribute read (kg_agent/tools/shared/counted_texts.py).
Fixture: tests/fixtures/object_types/catalogue.ttl (museum catalogue records, invented)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.tools.shared.answer_checks import _scorer
from kg_agent.tools.shared.counted_texts import texts_of_an_unnamed_attribute

CATALOGUE = Path(__file__).parent / "fixtures" / "object_types" / "catalogue.ttl"
CAT = "http://example.org/catalogue/"


@pytest.fixture(scope="module")
def kg():
    return open_kg(CATALOGUE)


def _texts(relation: str, *texts: str) -> list[dict]:
    head = {"id": CAT + "obj1", "label": "Windsor chair, 1780"}
    return [{"answer": text, "entity_id": f'"{text}"', "grounded": True,
             "paths": [{"steps": [{"head": head, "relation": relation, "tail": {"id": f'"{text}"', "label": text}}]}]}
            for text in texts]


def test_texts_of_an_attribute_the_counted_noun_does_not_name_are_no_count(kg):
    found = texts_of_an_unnamed_attribute("How many loans did the Windsor chair have?", _texts("condition", "good"),
                                          kg, _scorer(), "loans")
    assert found is not None and found[0] == [] and "'condition'" in found[1]


def test_texts_of_the_attribute_the_noun_names_are_counted(kg):
    answers = _texts("keyword", "seating", "turned spindles", "yew")
    assert texts_of_an_unnamed_attribute("How many keywords does the Windsor chair have?", answers, kg, _scorer(),
                                         "keywords") is None


def test_things_and_numbers_are_not_judged(kg):
    node = [{**_texts("condition", "x")[0], "entity_id": CAT + "obj2", "answer": "Pewter tankard, 1720"}]
    assert texts_of_an_unnamed_attribute("How many loans?", node, kg, _scorer(), "loans") is None
    number = [{**_texts("condition", "x")[0], "entity_id": '"5"^^<http://www.w3.org/2001/XMLSchema#integer>'}]
    assert texts_of_an_unnamed_attribute("How many loans?", number, kg, _scorer(), "loans") is None


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_every_method_counts_keywords_but_not_loans_from_a_condition_code(kg, factory):
    keywords = factory(kg).compile().invoke({"question": "How many keywords does the Windsor chair, 1780 have?"})
    assert [a["answer"] for a in keywords["answers"]] == ["3"]
    loans = factory(kg).compile().invoke({"question": "How many loans did the Windsor chair, 1780 have in good condition?"})
    assert loans["answers"] == []
