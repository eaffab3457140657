"""Walks that stop where the question stops (issue 46 item 3), on ``tests/fixtures/council_motions/motions.ttl``: a
city council's motions (tabled by councillors) and the mayor's office's replies to them (invented for the tests).

"Who tabled the motion that [reply] responds to?" asks for what the main verb ("tabled") joins to the thing the
relative clause reaches (the motion): the walk goes through the clause's hop (``respondsTo``) and one hop on
(``creator``), not stopping at the motion (:attr:`~kg_agent.tools.shared.question_parts.QuestionParts.object_clause`,
the scorer's ``clause_stop_penalty``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import load_kg
from kg_agent.tools.shared.question_parts import QuestionParts

MOTIONS = Path(__file__).resolve().parent / "fixtures" / "council_motions" / "motions.ttl"


@pytest.fixture(scope="module")
def council():
    return load_kg(MOTIONS)


def test_a_relative_clause_heading_the_object_of_the_wh_words_verb():
    parts = QuestionParts.of("Who tabled the motion that [ENT] responds to?")
    assert parts.object_clause == (parts.tokens.index("[ent]"), len(parts.tokens) - 1)
    # with a type noun before the verb too
    parts = QuestionParts.of("Which councillors tabled the motion that [ENT] responds to?")
    assert parts.object_clause == (parts.tokens.index("[ent]"), len(parts.tokens) - 1)
    # not after a form of "to be" (the head is what is asked), nor when the type noun heads the clause, nor when the
    # clause holds no entity, nor when a word other than the wh-word's is the verb's subject
    assert QuestionParts.of("What was the motion that [ENT] responds to?").object_clause is None
    assert QuestionParts.of("Which motion that [ENT] responds to was tabled first?").object_clause is None
    assert QuestionParts.of("Who tabled the motion that was answered by [ENT]?").object_clause is not None
    assert QuestionParts.of("Who tabled the motion that was answered first?").object_clause is None
    assert QuestionParts.of("When did [ENT] table the motion that was answered?").object_clause is None
    # a relational noun before the head ("the title of the motion that ...") is the clause_heads rule's, not this one
    assert QuestionParts.of("What is the title of the motion that [ENT] responds to?").object_clause is None


@pytest.mark.parametrize("method", ["rog", "tog", "tog-i"])
@pytest.mark.parametrize(("question", "asker"), [
    ("Who tabled the motion that 'Reply to motion M-0003' responds to?", "Agnes Holloway"),
    ("Who wrote the motion that 'Reply to motion M-0005' responds to?", "Ines Brannigan"),
])
def test_who_verbed_the_thing_a_clause_reaches_walks_one_hop_past_the_clause(council, method, question, asker):
    # the clause's hop alone reaches the motion (its title was answered before); the reply's own creator is the
    # mayor's office, one hop, which no word asks for
    from kg_agent.graphs.registry import create_graph

    app = create_graph(method, council).compile()
    result = app.invoke({"question": question})
    assert [a["answer"] for a in result["answers"]] == [asker]


def test_the_thing_the_clause_reaches_is_still_answered_when_the_question_asks_for_it(council):
    from kg_agent.graphs.registry import create_graph

    app = create_graph("rog", council).compile()
    result = app.invoke({"question": "What does 'Reply to motion M-0003' respond to?"})
    assert [a["answer"] for a in result["answers"]] == ["Cycle lanes on the ring road"]


# -- the hop a passive verb names (kg_agent/tools/shared/passive_hop.py) ---------------------------------------------
# Marta Oyelaran tabled M-0001 (dated February 2026, replied to on 21 March) and M-0007 (August, replied to in
# February): "were responded to in March" is said of M-0001 by its reply's date, though neither motion's own date is in
# March; the walk that stops at her motions compares over the hop ``respondsTo`` the passive verb names.
PASSIVE = "Which documents tabled by Marta Oyelaran were responded to in March 2026?"


@pytest.mark.parametrize("method", ["rog", "tog", "tog-i"])
def test_a_passive_verb_compares_over_the_hop_it_names_past_answers_whose_own_dates_meet_nothing(council, method):
    from kg_agent.graphs.registry import create_graph

    result = create_graph(method, council).compile().invoke({"question": PASSIVE})
    assert [a["answer"] for a in result["answers"]] == ["Street lighting on Mill Lane"]
    assert any("passive verb is said of" in w for w in result["warnings"])


def test_the_passive_hop_over_an_oxigraph_store(tmp_path):
    from kg_agent.graphs.registry import create_graph
    from kg_agent.kg import build_oxigraph, open_oxigraph

    kg = open_oxigraph(build_oxigraph(MOTIONS, tmp_path / "store"))
    try:
        result = create_graph("rog", kg).compile().invoke({"question": PASSIVE})
    finally:
        kg.close()
    assert [a["answer"] for a in result["answers"]] == ["Street lighting on Mill Lane"]


@pytest.mark.parametrize("question", [
    # no reply of hers is dated May: the check still abstains, saying why
    "Which documents tabled by Marta Oyelaran were responded to in May 2026?",
    # "answered" names no relation of this KG: no hop is walked for it
    "Which documents tabled by Marta Oyelaran were answered in March 2026?",
])
def test_no_hop_is_walked_where_the_verb_names_none_or_its_ends_meet_nothing(council, question):
    from kg_agent.graphs.registry import create_graph
    from kg_agent.tools.shared.passive_hop import passive_hop_ends
    from kg_agent.tools.shared.path_scoring import RelationPathScorer

    result = create_graph("rog", council).compile().invoke({"question": question})
    assert result["answers"] == []
    if "answered" in question:
        motions = [{"answer": "Street lighting on Mill Lane", "entity_id": "http://example.org/council#M-0001",
                    "paths": []}]
        assert passive_hop_ends(question, motions, council, RelationPathScorer()) is None


# -- one relation holding two roles, a beam of width one (persons_beside_the_beam in kg_agent/tools/tog/answer.py) ---
@pytest.mark.parametrize("method", ["rog", "tog", "tog-i"])
def test_who_asks_for_the_persons_of_a_two_role_relation_whatever_end_the_beam_kept(council, method):
    # a motion's creator holds its councillor and the committee it is addressed to; ToG-I's beam keeps one of the two
    from kg_agent.graphs.registry import create_graph

    result = create_graph(method, council).compile().invoke(
        {"question": "Who tabled the motion 'Cycle lanes on the ring road'?"})
    assert [a["answer"] for a in result["answers"]] == ["Agnes Holloway"]


def test_a_beam_that_kept_no_person_is_left_alone_where_the_walk_reaches_none(council):
    # "who replied to ...": a reply's creator is the mayor's office only; no person to put in its place
    from kg_agent.graphs.registry import create_graph

    result = create_graph("tog-i", council).compile().invoke(
        {"question": "Who wrote 'Reply to motion M-0003'?"})
    assert [a["answer"] for a in result["answers"]] == ["Office of the Mayor"]
