"""VoteAnswerer, the offline answer step: scores, votes within the best plan, the relative-score cut."""

from kg_agent.kg.types import Entity
from kg_agent.tools.rog.answer import VoteAnswerer
from kg_agent.tools.shared.scoring import mask_mentions


def path(plan: int, start: str, *ends: str) -> dict:
    """A path dict as the retrieve node writes it: start -> r -> ... -> last of ends."""
    steps, head = [], {"id": start, "label": start}
    for end in ends:
        tail = {"id": end, "label": end}
        steps.append({"head": head, "relation": f"r{plan}", "tail": tail})
        head = tail
    return {"plan": plan, "start": {"id": start, "label": start}, "steps": steps, "text": " -> ".join((start, *ends))}


def test_weaker_plan_paths_do_not_out_vote_the_best_plan():
    plans = [{"relations": ["r0"], "score": 1.0}, {"relations": ["r1"], "score": 0.95}]
    # plan 0 reaches A once and B once; plan 1 (weaker) reaches B three more times
    paths = [path(0, "s", "A"), path(0, "s", "B"), path(1, "x", "B"), path(1, "y", "B"), path(1, "z", "B")]
    answers = VoteAnswerer().answer("q", paths, plans).answers
    # A and B tie on the best plan (one vote each there); the tie is broken by label, not by plan 1's votes
    assert [a["answer"] for a in answers] == ["A", "B"]
    # and B's supporting paths are those of the best plan reaching it
    assert [p["plan"] for p in answers[1]["paths"]] == [0]


def test_answers_of_plans_well_below_the_best_are_left_out():
    plans = [{"relations": ["r0"], "score": 1.0}, {"relations": ["r1"], "score": 0.5}]
    paths = [path(0, "s", "A"), path(1, "s", "C")]
    assert [a["answer"] for a in VoteAnswerer().answer("q", paths, plans).answers] == ["A"]
    assert [a["answer"] for a in VoteAnswerer(min_relative_score=0.4).answer("q", paths, plans).answers] == ["A", "C"]


def test_more_votes_on_the_same_plan_rank_first():
    plans = [{"relations": ["r0"], "score": 1.0}]
    paths = [path(0, "s", "A"), path(0, "t", "B"), path(0, "u", "B")]
    assert [a["answer"] for a in VoteAnswerer().answer("q", paths, plans).answers] == ["B", "A"]


def test_no_paths_no_answer_with_a_reason():
    outcome = VoteAnswerer().answer("q", [], [])
    assert outcome.answers == [] and outcome.warnings


def test_entity_labels_ending_in_punctuation_are_abstracted():
    text = mask_mentions("who are the writers of the movies acted by Robert Downey Jr.", [Entity("x", "Robert Downey Jr.")])
    assert text == "who are the writers of the movies acted by [ENT]"
    assert mask_mentions("films by Fired Up!", [Entity("y", "Fired Up!")]) == "films by [ENT]"


def test_the_best_plans_answers_come_first_even_when_a_later_plan_scores_the_same_and_has_more_votes():
    plans = [{"relations": ["r0"], "score": 0.8}, {"relations": ["r1"], "score": 0.8}]
    # plan 1 reaches C through three paths; plan 0, which the planner ranked first, reaches A once
    paths = [path(1, "x", "C"), path(1, "y", "C"), path(1, "z", "C"), path(0, "s", "A")]
    assert [a["answer"] for a in VoteAnswerer().answer("q", paths, plans).answers] == ["A", "C"]


def test_answers_are_kept_when_every_plan_scores_below_zero():
    """The zero-shot scorer's scores may be negative (penalised hops): the best plan's answers still come out."""
    plans = [{"relations": ["r0"], "score": -0.2}, {"relations": ["r1"], "score": -0.5}]
    paths = [path(1, "x", "C"), path(0, "s", "A"), path(0, "s", "B")]
    assert [a["answer"] for a in VoteAnswerer().answer("q", paths, plans).answers] == ["A", "B"]
