"""A relation between two things of one class (a ferry crossing from port to port) is walked the way the preposition
before the question's entity says: "from [X]" forwards, "to [X]" backwards (kg_agent/tools/shared/peer_relations.py).
Fixture: tests/fixtures/ferry_crossings (invented): Dunmere sails to Alport, Alport does not sail to Dunmere, so the
crossings out of Alport (2) and into it (2, another pair) differ, and both ways together are 3."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.registry import create_graph
from kg_agent.kg import open_kg
from kg_agent.kg.types import Entity
from kg_agent.tools.rog.answer import close_enough
from kg_agent.tools.rog.plan import SimilarityPlanner
from kg_agent.tools.shared.peer_relations import governing_preposition, peer_relations
from kg_agent.tools.shared.question_parts import QuestionParts
from kg_agent.tools.tog.prune_relations import SimilarityRelationPruner, beam_question

PORTS = Path(__file__).parent / "fixtures" / "ferry_crossings" / "ports.ttl"
FERRIES = "http://example.org/ferries/"
ALPORT = FERRIES + "alport"


@pytest.fixture(scope="module")
def kg():
    return open_kg(PORTS)


def _before_mention(question: str) -> str:
    parts = QuestionParts.of(question)
    return governing_preposition(parts, parts.tokens.index("[ent]"))


def test_the_preposition_before_the_mention_is_read_past_an_article():
    assert _before_mention("Which ports have a crossing to the [ENT]?") == "to"
    assert _before_mention("Which ports can you sail to from [ENT]?") == "from"
    assert _before_mention("How many berths does [ENT] have?") == ""


def test_a_relation_is_a_peer_relation_when_both_its_ends_are_of_one_class(kg):
    from kg_agent.tools.shared.answer_types import relation_object_kinds

    kinds = relation_object_kinds(kg).kinds_of(["crossing", "^crossing", "hasPort", "^hasPort"])
    assert peer_relations(["crossing", "^crossing", "hasPort", "^hasPort"], kinds) == {"crossing", "^crossing"}


@pytest.mark.parametrize("question, asked, other", [
    ("Which ports can you sail to directly from Alport Harbour?", ("crossing",), ("^crossing",)),
    ("Which ports have a direct crossing to Alport Harbour?", ("^crossing",), ("crossing",)),
])
def test_the_preposition_picks_the_direction_and_the_other_is_not_kept_beside_it(kg, question, asked, other):
    plans = [p.to_dict() for p in SimilarityPlanner(kg).plan(question, [Entity(ALPORT, kg.label(ALPORT))]).plans]
    assert tuple(plans[0]["relations"]) == asked
    rank = next(i for i, p in enumerate(plans) if tuple(p["relations"]) == other)
    # RoG keeps a plan's answers beside the best plan's only when it scores at least 0.9 of it
    assert not close_enough(plans, rank, 0, min_relative_score=0.9)


@pytest.mark.parametrize("method", ["rog", "tog", "tog-i"])
@pytest.mark.parametrize("question, count", [
    ("How many ports can you sail to directly from Alport Harbour?", "2"),
    ("How many ports have a direct crossing to Alport Harbour?", "2"),
])
def test_a_count_over_a_peer_relation_counts_one_way(kg, method, question, count):
    result = create_graph(method, kg).compile().invoke({"question": question})
    assert [a["answer"] for a in result["answers"]] == [count]


def test_tog_beam_masks_the_mention_of_an_entity_labelled_by_a_code(kg):
    # "ALP" is not written in the question: its linked mention is masked, so "from [ENT]" is read
    topic = {"id": ALPORT, "label": "ALP", "mention": "alport harbour", "how": "exact"}
    pruner = SimilarityRelationPruner(kg=kg, lookahead=1)
    state = {"question": "Which ports can you sail to from Alport Harbour?", "topic_entities": [topic]}
    chain = {"start": {"id": ALPORT, "label": "ALP"}, "steps": []}
    assert beam_question(state, chain, pruner) == "Which ports can you sail to from [ENT]?"


def test_tog_beam_leaves_the_words_of_a_mention_linked_in_part(kg):
    # a mention linked in part may hold the asked relation's words ("the value of ..." for a node labelled
    # "Value for ..."): it is not masked whole, so "value" stays for the scorer
    topic = {"id": ALPORT, "label": "ALP", "mention": "the crossings of alport harbour", "how": "partial"}
    pruner = SimilarityRelationPruner(kg=kg, lookahead=1)
    state = {"question": "Which are the crossings of Alport Harbour?", "topic_entities": [topic]}
    chain = {"start": {"id": ALPORT, "label": "ALP"}, "steps": []}
    assert "crossings" in beam_question(state, chain, pruner)


@pytest.mark.parametrize("method", ["tog", "tog-i"])
def test_which_noun_answered_by_things_of_another_class_abstains(kg, method):
    # "companies" names no class (port, island) and no relation of the KG: the ports reached are no companies
    result = create_graph(method, kg).compile().invoke(
        {"question": "Which shipping companies sail from Alport Harbour to Brenhaven Quay?"})
    assert result["answers"] == [] and result["stop_reason"] == "abstained"


def test_tog_i_narrow_beam_keeps_the_candidate_holding_the_place_the_question_filters_by(kg):
    # ToG-I's first round keeps one entity; the ports sailing to Alport are BRH (Eastbay) and DNM (Westbay): the beam
    # keeps the one the answer step's literal filter ("in Westbay") keeps, not the first by label (then abstained)
    result = create_graph("tog-i", kg).compile().invoke(
        {"question": "Which ports in Westbay have a direct crossing to Alport Harbour?"})
    assert [a["answer"] for a in result["answers"]] == ["DNM"]
