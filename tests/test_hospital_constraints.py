"""Counts, superlatives and constraints on a KG whose members come in lists and whose kinds are literals (issue 46
items 2 and 4), on ``tests/fixtures/constraints/hospital.ttl``: a hospital's surgeons, patients and operations, written
as ISWC's conference data writes papers and authors (benchmarks/realkgs/iswc-conferences/ORIGIN.md "Shape")."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import load_kg
from kg_agent.tools.shared.aggregates import MAX
from kg_agent.tools.shared.whole_graph import WholeGraphQuestion, answer_over_whole_graph, whole_graph_question

HOSPITAL = Path(__file__).resolve().parent / "fixtures" / "constraints" / "hospital.ttl"


@pytest.fixture(scope="module")
def hospital():
    return load_kg(HOSPITAL)


def test_a_participle_after_the_counted_noun_names_the_relation_counted():
    assert whole_graph_question("Which hospital has the most people affiliated with it?") == WholeGraphQuestion(
        MAX, "hospital", "people", relation_words="affiliated")


def test_the_most_people_affiliated_counts_over_the_affiliation_not_another_relation_of_people(hospital):
    # City General treats four patients (persons too), St Mary has three surgeons affiliated with it
    answers, what = answer_over_whole_graph(hospital, "Which hospital has the most people affiliated with it?")
    assert [a["answer"] for a in answers] == ["St Mary Hospital"] and "affiliation" in what
    answers, what = answer_over_whole_graph(hospital, "Which hospital has the most people treated?")
    assert [a["answer"] for a in answers] == ["City General Hospital"] and "treatedAt" in what
