"""An answer that is the question's own topic entity (or an entity named as it) is not the answer (issue 27, item 2).

On the bundled sample KG "which films did tom hanks act in" links the tag "tom hanks" (a ``has_tags`` object spelt
as in the question) beside the actor, and ToG's beam starts from the tag: it walked tag -> film -> the actor Tom
Hanks, and the offline verifier accepted the actor as the answer to "which films". A chain back to the question's
topic (or its namesake) is no answer unless the question asks for what the last relation reaches by name ("which
words describe [Hotel]" may answer the tag "hotel").
"""

from __future__ import annotations

import re
import sys

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.tools.rog.answer import VoteAnswerer
from kg_agent.tools.shared.answer_types import AskedType, contradicts_asked_type, relation_object_kinds
from kg_agent.tools.shared.grounding import UnaskedAnswers, asks_for_topic_kind, names_a_topic, topic_names
from kg_agent.tools.shared.question_parts import NO_RELATION_WORDS
from kg_agent.tools.tog.answer import ChainAnswerer
from kg_agent.tools.tog.verify import ScoreVerifier, answerable_chains

QUESTION = "which films did tom hanks act in"
TOM_HANKS = "Tom Hanks"


def tom_hanks_films(kg) -> set[str]:
    actor = next(e for e in kg.find_entities(TOM_HANKS) if e.label == TOM_HANKS)
    return {kg.label(n) for n in kg.neighbors(actor.id, "^starred_actors")}


@pytest.mark.parametrize("factory", [create_tog_graph, create_tog_i_graph, create_rog_graph])
def test_which_films_did_tom_hanks_act_in_answers_films(kg, factory):
    result = factory(kg).compile().invoke({"question": QUESTION})
    answers = [a["answer"] for a in result["answers"]]
    assert answers, result["warnings"]
    assert answers[0] != TOM_HANKS, result["chains"] if "chains" in result else result["paths"]
    assert answers[0] in tom_hanks_films(kg)
    assert TOM_HANKS not in answers


def films_of(kg, actor_label: str) -> set[str]:
    actor = next(e for e in kg.find_entities(actor_label) if e.label == actor_label)
    return {kg.label(n) for n in kg.neighbors(actor.id, "^starred_actors")}


@pytest.mark.parametrize("factory", [create_tog_graph, create_tog_i_graph])
def test_what_films_did_meg_ryan_star_in_answers_films_not_her_co_actors(kg, factory):
    """The tag "meg ryan" again, but the beam walks on to her co-actors (persons), not to her: answers of a kind the
    question does not ask for ("what films") are not accepted either."""
    result = factory(kg).compile().invoke({"question": "what films did meg ryan star in"})
    answers = [a["answer"] for a in result["answers"]]
    assert answers and set(answers) <= films_of(kg, "Meg Ryan"), result["chains"]


def test_cli_ask_tog_answers_a_film(kg, capsys, monkeypatch):
    from kg_agent import cli

    monkeypatch.setitem(cli.print_result.__kwdefaults__, "out", sys.stdout)
    code = cli.main(["ask", QUESTION, "--method", "tog", "--model", "none"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    first = re.search(r"Answers:\n  - (.+)\n", captured.out)
    assert first, captured.out
    assert first.group(1) != TOM_HANKS and first.group(1) in tom_hanks_films(kg), captured.out


def _chain(start: dict, *steps: tuple[str, dict], depth: int | None = None, score: float = 1.0) -> dict:
    triples, head = [], start
    for relation, tail in steps:
        triples.append({"head": head, "relation": relation, "tail": tail})
        head = tail
    return {"text": "", "start": start, "steps": triples, "score": score, "scores": [],
            "depth": len(steps) if depth is None else depth}


TAG = {"id": "tag:tom hanks", "label": "tom hanks"}
ACTOR = {"id": "person:Tom Hanks", "label": "Tom Hanks"}
FILM = {"id": "film:Big", "label": "Big"}
OTHER = {"id": "person:Sally Field", "label": "Sally Field"}


def test_topic_names_and_namesakes():
    names = topic_names([{"id": "x", "label": "tom hanks", "mention": "Tom  Hanks!"}])
    assert names == {"tom hanks"}
    assert names_a_topic(ACTOR, ["tag:tom hanks"], names)  # named as the topic
    assert names_a_topic(TAG, ["tag:tom hanks"], set())  # the topic itself
    assert not names_a_topic(OTHER, ["tag:tom hanks"], names)


def test_the_question_may_ask_for_the_kind_its_topic_is():
    assert asks_for_topic_kind("which words describe [ENT]", ["has_tags"])
    assert not asks_for_topic_kind("which films did [ENT] act in", ["^has_tags", "starred_actors"])
    topics = UnaskedAnswers("which words describe movie Hotel", [{"id": "film:Hotel", "label": "Hotel"}])
    assert not topics.excluded({"id": "tag:hotel", "label": "hotel"}, ["has_tags"])
    topics = UnaskedAnswers(QUESTION, [TAG])
    assert topics.excluded(ACTOR, ["^has_tags", "starred_actors"])
    assert not topics.excluded(OTHER, ["^has_tags", "starred_actors"])


def asked(question: str) -> AskedType:
    return AskedType.of(question.lower().split(), NO_RELATION_WORDS)


def test_type_nouns_that_name_something_other_than_persons():
    for question in ("which films did [ent] act in", "what movies are about [ent]", "what genres are [ent] in",
                     "which words describe [ent]", "what languages are spoken in [ent]"):
        assert asked(question).excludes_persons, question
    for question in ("which person directed [ent]", "which screenwriters wrote [ent]", "which actress starred in [ent]",
                     "which directors directed [ent]", "who directed [ent]", "what year was [ent] released",
                     "which country is [ent] in", "what is [ent] about", "which stars acted in [ent]",
                     "which players play for [ent]"):
        assert not asked(question).excludes_persons, question


def test_persons_contradict_which_films(kg):
    kinds = relation_object_kinds(kg)
    films = asked("which films did [ent] act in")
    assert contradicts_asked_type(films, ["^has_tags", "starred_actors"], kinds)
    assert not contradicts_asked_type(films, ["^has_tags", "starred_actors", "^starred_actors"], kinds)
    assert not contradicts_asked_type(films, ["^has_tags"], kinds)
    assert not contradicts_asked_type(asked("which person acted in [ent]"), ["starred_actors"], kinds)
    unasked = UnaskedAnswers("which films did tom hanks act in", [TAG], kg=kg)
    assert unasked.wrong_kind(["^has_tags", "starred_actors"]) and unasked.excluded(OTHER, ["^has_tags", "starred_actors"])
    assert not UnaskedAnswers("which films did tom hanks act in", [TAG]).wrong_kind(["^has_tags", "starred_actors"])


def test_chains_back_to_the_topic_are_not_answerable():
    back = _chain(TAG, ("^has_tags", FILM), ("starred_actors", ACTOR))
    co_actor = _chain(TAG, ("^has_tags", FILM), ("starred_actors", OTHER))
    assert answerable_chains(QUESTION, [back, co_actor]) == [co_actor]


def test_the_offline_verifier_does_not_accept_the_topic_as_the_answer(kg):
    tag = next(e for e in kg.find_entities("tom hanks") if e.label == "tom hanks").to_dict()
    actor = next(e for e in kg.find_entities(TOM_HANKS) if e.label == TOM_HANKS).to_dict()
    film = next(e for e in kg.find_entities("Saving Private Ryan")).to_dict()
    chains = [_chain(tag, ("^has_tags", film)), _chain(tag, ("^has_tags", film), ("starred_actors", actor))]
    outcome = ScoreVerifier(kg).verify(QUESTION, chains, depth=2)
    assert outcome.answer != TOM_HANKS
    assert not (outcome.sufficient and list(outcome.relations or []) == ["^has_tags", "starred_actors"])


def test_the_chain_answerer_puts_the_topic_last():
    back = _chain(TAG, ("^has_tags", FILM), ("starred_actors", ACTOR), score=1.0)
    co_actor = _chain(TAG, ("^has_tags", FILM), ("starred_actors", OTHER), score=0.5)
    verification = {"sufficient": True, "depth": 2, "relations": ["^has_tags", "starred_actors"]}
    answers = ChainAnswerer().answer(QUESTION, [back, co_actor], verification=verification, stop_reason="verified").answers
    assert [a["answer"] for a in answers] == ["Sally Field", "Tom Hanks"]


def test_the_vote_answerer_puts_the_topic_last():
    def path(start: dict, *steps: tuple[str, dict]) -> dict:
        chain = _chain(start, *steps)
        return {"plan": 0, "start": start, "steps": chain["steps"], "text": ""}

    plans = [{"relations": ["^has_tags", "starred_actors"], "score": 1.0}]
    paths = [path(TAG, ("^has_tags", FILM), ("starred_actors", ACTOR)),
             path(TAG, ("^has_tags", {"id": "film:Splash", "label": "Splash"}), ("starred_actors", ACTOR)),
             path(TAG, ("^has_tags", FILM), ("starred_actors", OTHER))]
    answers = VoteAnswerer().answer(QUESTION, paths, plans).answers
    assert [a["answer"] for a in answers] == ["Sally Field", "Tom Hanks"]  # though Tom Hanks has more votes
    # a question that asks for tags may answer the topic's namesake tag first
    plans = [{"relations": ["has_tags"], "score": 1.0}]
    hotel = {"id": "film:Hotel", "label": "Hotel"}
    paths = [path(hotel, ("has_tags", {"id": "tag:hotel", "label": "hotel"})),
             path(hotel, ("has_tags", {"id": "tag:hotel", "label": "hotel"})),
             path(hotel, ("has_tags", {"id": "tag:luxury", "label": "luxury"}))]
    answers = VoteAnswerer().answer("which words describe movie Hotel", paths, plans).answers
    assert [a["answer"] for a in answers] == ["hotel", "luxury"]
