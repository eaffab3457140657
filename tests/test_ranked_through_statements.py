"""Superlatives rank by a value reached through a statement node of each answer (issue 46 item 2): a school's
headcount sits on its enrolment record, a named node owned by the school ("Enrolment of Ashby Primary") with the
number and its unit, two steps from the school (``enrolment -> headcount``). Values in different units (one
record counts full-time equivalents) are not compared.

Fixture: ``tests/fixtures/schools/district.ttl`` (hand-written, invented schools and numbers).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import load_kg
from kg_agent.tools.shared.aggregates import AnswerRanker

DISTRICT = Path(__file__).resolve().parent / "fixtures" / "schools" / "district.ttl"
EX = "http://example.org/district/"
SCHOOLS = {"ashby": "Ashby Primary", "brook": "Brookfield Academy", "corran": "Corran High",
           "dunmore": "Dunmore Infants", "elmwood": "Elmwood Primary", "fernhill": "Fernhill College"}


@pytest.fixture(scope="module")
def district():
    return load_kg(DISTRICT)


def _answers(*keys: str) -> list[dict]:
    return [{"answer": SCHOOLS[k], "entity_id": EX + k} for k in keys]


def test_the_largest_ranks_by_the_value_on_each_answers_statement_node(district):
    ranked = AnswerRanker().apply("Which school has the largest headcount?",
                                  _answers("ashby", "brook", "corran", "dunmore", "elmwood"), district)
    assert ranked is not None
    assert [a["answer"] for a in ranked] == ["Brookfield Academy"]  # not Corran High, the largest site
    assert ranked[0]["compared_by"] == "enrolment -> headcount"
    assert [c["answer"] for c in ranked[0]["compared"]][:2] == ["Brookfield Academy", "Corran High"]


def test_the_smallest_and_a_bound_read_the_same_path(district):
    answers = _answers("ashby", "brook", "corran", "dunmore", "elmwood")
    smallest = AnswerRanker().apply("Which school has the smallest headcount?", answers, district)
    assert [a["answer"] for a in smallest or ()] == ["Dunmore Infants"]  # the smallest site is Ashby Primary's
    over = AnswerRanker().apply("Which schools have a headcount of more than 400?", answers, district)
    assert sorted(a["answer"] for a in over or ()) == ["Ashby Primary", "Brookfield Academy", "Corran High"]


def test_values_in_different_units_are_not_compared(district):
    # Fernhill's 2400.5 is in full-time equivalents: the path through the records names two units, so nothing ranks
    ranked = AnswerRanker().apply("Which school has the largest headcount?",
                                  _answers("ashby", "brook", "fernhill"), district)
    assert ranked is None or "Fernhill College" not in [a["answer"] for a in ranked]
