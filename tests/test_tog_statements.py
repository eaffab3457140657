"""Unnamed fragment nodes are never answers (every method), and ToG's answer step over statement nodes and
comparisons: a count through statements answers from the path the verifier judged best, a comparison is made over
every end of the relation path whose ends have the compared value. On a hand-written orchestra KG
(tests/fixtures/kg/orchestra.ttl: shapes of Nomisma's geography and memberships, Gutenberg's shelves)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.kg.terms import UNNAMED
from kg_agent.tools.shared.answer_checks import ABSTAINED, final_answers

ORCHESTRA = Path(__file__).parent / "fixtures" / "kg" / "orchestra.ttl"
EX = "http://example.org/orchestra/"


@pytest.fixture(scope="module")
def orchestra():
    return open_kg(ORCHESTRA)


def record(label: str, key: str) -> dict:
    return {"answer": label, "entity_id": key, "grounded": True, "paths": []}


def test_a_nameless_fragment_of_a_node_the_kg_describes_is_unnamed_not_a_page(orchestra):
    district = f"{EX}riverside#this"  # nothing names it, nothing links it to ex:riverside: no answer
    checked = final_answers("which district contains the location of the Royal Hall", [record("this", district)],
                            kg=orchestra)
    assert checked.answers == [] and checked.stop_reason == ABSTAINED
    page, term = "http://en.wikipedia.org/wiki/Royal_Hall", "http://example.org/vocab#Baroque"
    kept = final_answers("q", [record("this", district), record("Royal_Hall", page), record("Baroque", term)],
                         kg=orchestra)
    # a web page, and a fragment of a document the KG does not describe, are answered by their IRI as before
    assert [a["answer"] for a in kept.answers] == [page, term]


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_no_method_answers_a_nameless_fragment_node(orchestra, factory):
    result = factory(orchestra).compile().invoke({"question": "Which district contains the location of the Royal Hall?"})
    answers = [a["answer"] for a in result["answers"]]
    assert not any("#this" in a or a == UNNAMED for a in answers)


@pytest.mark.parametrize("factory", [create_tog_graph, create_tog_i_graph])
def test_tog_counts_the_people_behind_the_statements_its_verifier_judged_best(orchestra, factory):
    result = factory(orchestra).compile().invoke({"question": "How many people held the role of Principal Violin?"})
    [count] = result["answers"]
    assert count["answer"] == "5"
    assert set(count["counted"]) == {"Anna Berg", "Luis Costa", "Ove Dahl", "Mara Eno", "Tom Fox"}


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_a_comparison_is_over_every_end_of_the_path_with_the_compared_value(orchestra, factory):
    result = factory(orchestra).compile().invoke(
        {"question": "Who is the earliest-born conductor of a concert in the Winter Series?"})
    assert [a["answer"] for a in result["answers"]][:1] == ["Karl Zuber"]  # not Ida Adler (summer), nor the organiser
    compared = [c["answer"] for c in result["answers"][0]["compared"]]
    assert "Ida Adler" not in compared and len(compared) == 6


def chain(*steps: tuple[str, str, str], score: float = 1.0) -> dict:
    """A chain from the first step's head over ``(head, relation, tail)`` local names of the orchestra KG."""
    def node(name: str) -> dict:
        return {"id": EX + name, "label": name}
    walked = [{"head": node(h), "relation": r, "tail": node(t)} for h, r, t in steps]
    return {"start": walked[0]["head"], "steps": walked, "score": score, "depth": len(walked),
            "text": " -> ".join([steps[0][0], *(f"{r} -> {t}" for _, r, t in steps)])}


def test_a_count_answers_from_the_judged_path_when_the_beam_stepped_on_to_another_value(orchestra):
    from kg_agent.tools.tog.answer import chains_answered

    posts = [chain(("principal_violin", "^role", f"{name}_post")) for name in ("berg", "costa", "dahl")]
    on = [chain(("principal_violin", "^role", f"{name}_post"), (f"{name}_post", "ensemble", "city_orchestra"))
          for name in ("berg", "costa", "dahl")]
    judged = {"sufficient": True, "relations": ["^role"], "depth": 1}
    counted = chains_answered("How many people held the role of Principal Violin?", [*posts, *on], judged, orchestra)
    assert counted == posts  # the memberships: the count counts the people behind them
    found = final_answers("How many people held the role of Principal Violin?",
                          [{"answer": c["steps"][-1]["tail"]["label"], "entity_id": c["steps"][-1]["tail"]["id"],
                            "grounded": True, "paths": [c]} for c in counted], kg=orchestra)
    assert [a["answer"] for a in found.answers] == ["5"]
    # a question that counts nothing reads the chains walked on through the statements, as before
    asked = chains_answered("Which ensemble had a Principal Violin?", [*posts, *on], judged, orchestra)
    assert asked == on
