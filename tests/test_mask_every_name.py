"""RoG's similarity planner reads the question with every name the KG gives its topic entity masked, not only the label: a hut
labelled by its code "LNZ" and asked about by its other name "Lonza Hut" (tests/fixtures/mountain_huts, invented)
left "Lonza" in the text, whose first letters name the relation ``lon``, and ``lon`` was planned for "how high"."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import open_kg
from kg_agent.kg.types import Entity
from kg_agent.tools.rog.plan import SimilarityPlanner
from kg_agent.tools.shared.scoring import mask_every_name

HUTS = Path(__file__).parent / "fixtures" / "mountain_huts" / "huts.ttl"
LONZA = "http://example.org/huts/lonza"


@pytest.fixture(scope="module")
def kg():
    return open_kg(HUTS)


def test_every_name_of_the_entity_is_masked_where_the_question_writes_it(kg):
    lonza = Entity(LONZA, kg.label(LONZA))
    assert lonza.label == "LNZ"
    assert mask_every_name("How high is Lonza Hut?", [lonza], kg) == "How high is [ENT]?"
    # without the KG only the label is masked, as before
    assert mask_every_name("How high is Lonza Hut?", [lonza]) == "How high is Lonza Hut?"


@pytest.mark.parametrize("question, relation", [
    ("How high is Lonza Hut?", "elevation"),
    ("Which valley is Lonza Hut in?", "valley"),
])
def test_the_plans_are_chosen_on_the_questions_words_not_on_the_entitys_name(kg, question, relation):
    plans = SimilarityPlanner(kg).plan(question, [Entity(LONZA, kg.label(LONZA))]).plans
    assert plans[0].relations == (relation,)
    # "lon" is no longer evidenced by the name: at most a distant alternative
    assert all(plan.score < plans[0].score / 2 for plan in plans if plan.relations == ("lon",))


def test_how_high_is_answered_by_the_relation_holding_a_height():
    # planned on the question's words, "how high" walks ``elevation``, whose name says it holds a height: answered;
    # "how far" over coordinates still abstains (tests/test_unsupported_asks.py)
    from kg_agent.graphs.rog import create_rog_graph

    result = create_rog_graph(open_kg(HUTS)).compile().invoke({"question": "How high is Lonza Hut?"})
    assert [answer["answer"] for answer in result["answers"]] == ["2710"] and result["answers"][0]["grounded"]
