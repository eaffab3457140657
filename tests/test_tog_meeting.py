"""ToG and ToG-I where two things the question names meet through a node of the KG rather than at a common end
(issue 46 item 4): on the named values behind a statement node, never on the statement node itself; a node one edge
from the other named thing ranks first in the beam; and a comparison answered from the path its compared relation is
named on. On the hand-written orchestra KG (tests/fixtures/kg/orchestra.ttl: posts as statement nodes joining a
person, a role and an ensemble; an ensemble with a post of its own; halls' entries in a classification as blank
nodes; concerts with dates and conductors with birth dates)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_tog_graph, create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.tools.shared.constraints import constrain_walks, met_through_statements, mention_groups
from kg_agent.tools.tog.answer import AnswerOutcome, compared_over_every_end
from kg_agent.tools.tog.prune_entities import candidate_entities, joining_nodes, new_chain
from kg_agent.tools.tog.verify import judged_ends_uncompared

ORCHESTRA = Path(__file__).parent / "fixtures" / "kg" / "orchestra.ttl"
EX = "http://example.org/orchestra/"


@pytest.fixture(scope="module")
def orchestra():
    return open_kg(ORCHESTRA)


def node(name: str) -> dict:
    return {"id": EX + name, "label": name}


def chain(*steps: tuple[str, str, str], score: float = 1.0) -> dict:
    """A chain over ``(head, relation, tail)`` local names of the orchestra KG."""
    walked = [{"head": node(h), "relation": r, "tail": node(t)} for h, r, t in steps]
    return {"start": walked[0]["head"], "steps": walked, "score": score, "depth": len(walked),
            "text": " -> ".join([steps[0][0], *(f"{r} -> {t}" for _, r, t in steps)])}


def topic(name: str, mention: str) -> dict:
    return {**node(name), "mention": mention}


@pytest.mark.parametrize("factory", [create_tog_graph, create_tog_i_graph])
def test_the_role_a_person_held_in_an_ensemble_is_the_role_of_the_post_joining_them(orchestra, factory):
    # the ensemble's own beam walks its own post (its membership of a network): the two names meet only through
    # Anna Berg's post whose ensemble is the Youth Orchestra; before, ToG abstained ("no answer is reached from both")
    result = factory(orchestra).compile().invoke({"question": "What role did Anna Berg hold in the Youth Orchestra?"})
    assert [a["answer"] for a in result["answers"]][:1] == ["Concertmaster"]
    assert all(not a["entity_id"].endswith("_post") and not a["entity_id"].endswith("_post2") for a in result["answers"])


@pytest.mark.parametrize("factory", [create_tog_graph, create_tog_i_graph])
def test_members_holding_a_role_meet_on_the_persons_behind_the_posts(orchestra, factory):
    result = factory(orchestra).compile().invoke(
        {"question": "Which members of the Founders Circle held the role of Principal Violin?"})
    assert {a["answer"] for a in result["answers"]} == {"Anna Berg", "Ove Dahl"}  # not Ida Adler, Karl Zuber, no post


def test_a_statement_end_is_stepped_on_to_its_named_values_and_never_is_an_answer(orchestra):
    topics = [topic("founders_circle", "founders circle"), topic("principal_violin", "principal violin")]
    chains = [chain(("founders_circle", "^memberOf", "dahl")), chain(("founders_circle", "^memberOf", "adler")),
              chain(("principal_violin", "^role", "eno_post"))]
    met = met_through_statements(mention_groups(topics), chains, orchestra)
    assert EX + "eno" in met.ends_from["principal violin"]  # the post's holder, over its inverse hasPost and holder
    assert not any(e.endswith("_post") for ends in met.ends_from.values() for e in ends)
    # over every walk of the explored relation paths (the beam kept two members and one post of five): both meet
    joined = constrain_walks("", topics, chains, orchestra, type_check=False)
    assert set(joined.applied) == {EX + "berg", EX + "dahl"} and not joined.unmet


def test_a_walk_through_a_statement_joined_to_the_other_name_reaches_its_end_from_both(orchestra):
    topics = [topic("berg", "anna berg"), topic("youth_orchestra", "youth orchestra")]
    chains = [chain(("berg", "hasPost", "berg_post2"), ("berg_post2", "role", "concertmaster")),
              chain(("berg", "hasPost", "berg_post"), ("berg_post", "role", "principal_violin")),
              chain(("youth_orchestra", "hasPost", "youth_post"), ("youth_post", "role", "member_ensemble"))]
    joined = constrain_walks("", topics, chains, orchestra, type_check=False)
    assert set(joined.applied) == {EX + "concertmaster"}  # berg_post's ensemble is the City Orchestra


def test_the_beam_scores_first_the_tail_one_edge_from_the_other_name(orchestra):
    topics = [topic("royal_hall", "royal hall"), topic("heritage_classification", "heritage classification")]
    near = joining_nodes(orchestra, topics)
    register = new_chain(topics[1])
    joining = {n for n, mentions in near.items() if mentions - {"heritage classification"}}
    [first], total, _ = candidate_entities(orchestra, register, "^inScheme", max_candidates=1, joining=joining)
    assert total == 5 and first.label == "Grade II"  # the Royal Hall's entry, not "Grade A" first by label
    assert joining_nodes(orchestra, topics[:1]) == {}  # one name: nothing to join


def test_tog_i_answers_the_entry_one_edge_from_the_other_name(orchestra):
    result = create_tog_i_graph(orchestra).compile().invoke({"question": "What is the Heritage Classification of the Royal Hall?"})
    assert [a["answer"] for a in result["answers"]] == ["Grade II"]


def test_a_comparison_is_answered_from_the_path_whose_compared_relation_the_question_names(orchestra):
    question = "Who is the earliest-born conductor of a concert in the Winter Series?"
    concerts = [chain(("winter_series", "^series", c)) for c in ("c1", "c3")]
    conductors = [chain(("winter_series", "^series", "c1"), ("c1", "conductor", "berg"), score=0.9)]
    first = AnswerOutcome([{"answer": "c1", "entity_id": EX + "c1", "grounded": True, "paths": [concerts[0]]}], "c1")
    # the judged path's ends (concerts) compare only on their dates' time line; the conductors' on "born"
    outcome = compared_over_every_end(question, [*concerts, *conductors], {"sufficient": True, "relations": ["^series"]},
                                      first, orchestra)
    # every conductor of the series (walked out; the answer check then ranks them), not the concerts by date
    assert {a["entity_id"] for a in outcome.answers} == {EX + n for n in ("berg", "costa", "dahl", "eno", "fox", "zuber")}


def test_the_verifier_explores_on_when_the_judged_ends_have_nothing_to_compare(orchestra):
    question = "Who is the earliest-born conductor of a concert in the Winter Series?"
    organisers = [{**chain(("winter_series", "^series", "c1")),
                   "steps": [*chain(("winter_series", "^series", "c1"))["steps"],
                             {"head": node("c1"), "relation": "organiser",
                              "tail": {"id": '"City Arts Trust"', "label": "City Arts Trust"}}]}]
    conductors = [chain(("winter_series", "^series", "c1"), ("c1", "conductor", "berg"))]
    chains = [*organisers, *conductors]
    assert judged_ends_uncompared(question, chains, {"relations": ["^series", "organiser"]}, orchestra)
    assert not judged_ends_uncompared(question, chains, {"relations": ["^series", "conductor"]}, orchestra)
    # the judged path walks the compared relation itself: stop as before
    assert not judged_ends_uncompared(question, chains, {"relations": ["^series", "conductor", "birthDate"]}, orchestra)
    assert not judged_ends_uncompared("Who organised the Winter Series?", chains,
                                      {"relations": ["^series", "organiser"]}, orchestra)
