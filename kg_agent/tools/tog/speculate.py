"""Speculative ToG and ToG-I (``speculate=True``): the step after a verification asks its model calls while the
verifier decides.

Per depth, ToG's relation pruning -> entity scoring -> verification each need the step before. But the next depth's
relation pruning reads only the beam, which verification does not change, and the answer's model call (when the
answer does not come from the verifier) reads only the chains. So the ``verify`` node asks them *ahead*, in the same
batch as the verification:

    verify(d < D)  +  prune_relations(d+1)'s calls  ->  No: prune_relations(d+1) takes the replies (asks nothing)
                                                    ->  Yes: discarded
    verify(D)      +  the answer's call             ->  the answer needs the model: the answer step takes the reply
                                                    ->  the verifier's braced answer answers: discarded

When the next depth's relation pruning needs no model call (every beam entity has a single relation left), it is
decided at once and the entity scoring after it is asked with the verification instead (both steps then take
their results).

What was asked ahead waits in the state's ``speculated`` field (not part of the result) and is taken by the step it
is for (:func:`taking_speculated`), which does with the replies exactly what it does with replies it asks for itself
(same warnings in the same place, same usage), so answers, chains, warnings and usage are those of a run without
speculation, except that discarded calls still count: in ``usage`` (calls and tokens, per node, and in
``usage["speculation"]``: ``discarded_calls``, ``discarded_tokens``) and against the question's budget.

Speculation runs only when it cannot change what the question does; otherwise the verification runs alone, as
without speculation:

* the calls left cover the worst case: the verification, every decision asked ahead and the answer, each asked
  :data:`~kg_agent.tools.shared.decider.DEFAULT_ATTEMPTS` times (the call and its retry), so no decision is refused
  a call it would have had without speculation (an answer call asked ahead uses the answer's reserve first);
* no model call of the question has failed (the calls asked ahead could fail too, and move the circuit breaker).

The factories refuse ``speculate`` with ``max_tokens`` or ``max_seconds``: tokens and time cannot be reserved ahead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.llm.budget import QuestionBudget, spent
from kg_agent.llm.usage import merge_usage
from kg_agent.steps import steps_of
from kg_agent.tools.shared.decider import DEFAULT_ATTEMPTS, Asked
from kg_agent.tools.shared.question_budget import run_budget
from kg_agent.tools.tog.answer import ToGAnswerer
from kg_agent.tools.tog.prune_entities import (
    DEFAULT_MAX_CANDIDATES,
    EntityScorer,
    plan_entity_scoring,
    scored_entities,
)
from kg_agent.tools.tog.prune_relations import (
    DEFAULT_WIDTH,
    RelationPruner,
    kept_pairs,
    plan_relation_scoring,
    scored_relations,
)
from kg_agent.tools.tog.verify import (
    Verifier,
    round_chains,
    verification_update,
    verify_and_decide,
    verify_request,
    with_stop_reason,
)

#: The state field holding what ``verify`` asked ahead: ``{step: {"step", "question", "round", "depth", "result"}}``.
SPECULATED = "speculated"

#: The steps that take what was asked ahead: the keyword they take it as, and how it is read back from the state.
TAKEN_AS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "prune_relations": ("scored", dict),
    "prune_entities": ("scored", dict),
    "answer": ("asked", lambda result: Asked(**result)),
}


def check_speculation(speculate: bool, budget: QuestionBudget) -> None:
    """Refuse ``speculate`` with a token or time budget (see the module docstring)."""
    if speculate and (budget.max_tokens is not None or budget.max_seconds is not None):
        raise ValueError("speculate=True cannot be combined with max_tokens or max_seconds: calls asked ahead could "
                         "spend tokens or time the question would not have spent (max_llm_calls is fine)")


@dataclass
class Ahead:
    """Model calls asked in the verification's batch for the steps after it."""

    requests: list
    results: Callable[[list], dict[str, dict]]  # the outcomes -> {step: what it takes (plain JSON, with its "usage")}
    used: Callable[[dict], bool]  # the verification's update -> whether those steps run next and need the results


def _key(state: dict, step: str) -> dict:
    return {"step": step, "question": state.get("question"), "round": state.get("round") or 0,
            "depth": int(state.get("depth") or 0)}


def _affordable(state: dict, budget: QuestionBudget, decisions: int) -> bool:
    """Whether the calls left cover ``decisions`` asked ahead plus the verification and the answer, each asked
    :data:`DEFAULT_ATTEMPTS` times, and no call of the question has failed."""
    if (state.get("usage") or {}).get("errors"):
        return False
    budget = run_budget(budget)
    if budget.max_tokens is not None or budget.max_seconds is not None:  # a run's: as check_speculation refuses
        return False
    left = budget.calls_left(spent(state.get("usage"))[0])
    return left is None or left >= DEFAULT_ATTEMPTS * (decisions + 2)


def _explores_on(update: dict) -> bool:
    return update["stop_reason"] == ""


def relations_ahead(state: dict, *, budget: QuestionBudget, kg: KnowledgeGraph, pruner: RelationPruner,
                    scorer: EntityScorer, width: int | None, ignored_relations: Sequence[str],
                    max_candidates: int) -> Ahead | None:
    """The next depth's relation scoring of the beam in ``state``; when it needs no model call (every beam entity
    has a single relation), it is decided now and the entity scoring after it is asked ahead instead. ``None``
    when the calls left do not cover it, or nothing would be asked."""
    width = int(width or state.get("width") or DEFAULT_WIDTH)
    if not _affordable(state, budget, min(width, len(state.get("frontier") or []))):
        return None
    relations = plan_relation_scoring(state, kg=kg, pruner=pruner, width=width, ignored_relations=ignored_relations)
    if relations.decisions:
        return Ahead(relations.requests, lambda outcomes: {"prune_relations": scored_relations(relations, outcomes)},
                     _explores_on)
    scored = scored_relations(relations, [single() for single in relations.requests])
    pairs = kept_pairs(scored, width, state.get("topic_entities") or [])
    entities = plan_entity_scoring({**state, "frontier": scored["frontier"], "candidate_relations": pairs}, kg=kg,
                                   scorer=scorer, max_candidates=max_candidates)
    if not entities.decisions or not _affordable(state, budget, entities.decisions):
        return None
    return Ahead(entities.requests,
                 lambda outcomes: {"prune_relations": scored, "prune_entities": scored_entities(entities, outcomes)},
                 _explores_on)


def _answer_asks(update: dict) -> bool:
    """Whether the answer step follows this verification and asks the model (not reusing the verifier's answer)."""
    verification = update["verification"]
    return bool(update["stop_reason"]) and not (verification["sufficient"] and verification.get("answer"))


def answer_ahead(state: dict, *, budget: QuestionBudget, answerer: ToGAnswerer) -> Ahead | None:
    """The answer's model call (``None`` for an answerer without :meth:`~LLMToGAnswerer.answer_request`, or when the
    calls left do not cover it)."""
    answer_request = getattr(answerer, "answer_request", None)
    if answer_request is None or not _affordable(state, budget, 0):
        return None
    ask = answer_request(state.get("question", ""), round_chains(state))
    return Ahead([ask], lambda outcomes: {"answer": dataclasses.asdict(outcomes[0])}, _answer_asks)


def _last_round(state: dict) -> bool:
    """ToG's one round, or ToG-I's last outer iteration (after it, a No goes to the answer, not to a new round)."""
    return int(state.get("round") or 0) >= len(state.get("instructions") or [])


def verify_and_speculate(state: dict, *, verifier: Verifier, max_depth: int, budget: QuestionBudget,
                         kg: KnowledgeGraph, pruner: RelationPruner, scorer: EntityScorer, answerer: ToGAnswerer,
                         width: int | None = None, ignored_relations: Sequence[str] = (),
                         max_candidates: int = DEFAULT_MAX_CANDIDATES):
    """:func:`~kg_agent.tools.tog.verify.verify_and_decide`, with the next step's calls asked in the same batch: the
    next depth's relation pruning (or entity scoring) below ``max_depth``, the answer's call at it (in ToG-I's last
    round). Steps."""
    if int(state.get("depth") or 0) < max_depth:
        ahead = relations_ahead(state, budget=budget, kg=kg, pruner=pruner, scorer=scorer, width=width,
                                ignored_relations=ignored_relations, max_candidates=max_candidates)
    else:
        ahead = answer_ahead(state, budget=budget, answerer=answerer) if _last_round(state) else None
    if ahead is None:
        return (yield from verify_and_decide(state, verifier=verifier, max_depth=max_depth, kg=kg))
    verification, *outcomes = yield [verify_request(state, verifier=verifier), *ahead.requests]
    update = with_stop_reason(state, verification_update(state, verification), max_depth=max_depth, kg=kg)
    results = ahead.results(outcomes)
    if ahead.used(update):
        update[SPECULATED] = {step: {**_key(state, step), "result": result} for step, result in results.items()}
        return update
    usage: dict = {}
    for result in results.values():
        usage = merge_usage(usage, result["usage"])
    discarded = {"discarded_calls": int(usage.get("calls", 0)) + int(usage.get("errors", 0)),
                 "discarded_tokens": int(usage.get("total_tokens", 0))}
    update["usage"] = merge_usage(update.get("usage"), {**usage, "speculation": discarded})
    return update


def taking_speculated(node: Callable[..., Any], *, step: str) -> Callable[[dict], Any]:
    """``node`` (``step``'s function of the state, giving its update or steps) taking what ``verify`` asked ahead for
    it, when the state holds that (for this question, round and depth), instead of asking again."""
    keyword, read = TAKEN_AS[step]

    def run(state: dict):
        speculated = dict(state.get(SPECULATED) or {})
        entry = speculated.pop(step, None)
        if entry is not None and {k: entry.get(k) for k in _key(state, step)} == _key(state, step):
            update = yield from steps_of(node(state, **{keyword: read(entry["result"])}))
        else:
            update = yield from steps_of(node(state))
        return {**update, SPECULATED: speculated or None} if state.get(SPECULATED) else update

    run.__name__ = step
    return run


def with_speculation(steps: dict[str, Callable[..., Any]], *, budget: QuestionBudget, kg: KnowledgeGraph,
                     pruner: RelationPruner,
                     scorer: EntityScorer, answerer: ToGAnswerer, width: int | None, ignored_relations: Sequence[str],
                     max_candidates: int) -> dict[str, Callable[..., Any]]:
    """A ToG-family graph's step functions (by node name) made speculative: ``verify`` (a ``partial`` of
    :func:`~kg_agent.tools.tog.verify.verify_and_decide`) asks ahead; the steps after it take what it asked."""
    verify = steps["verify"]
    return {
        **steps,
        "verify": partial(verify_and_speculate, **{**verify.keywords, "kg": kg}, budget=budget, pruner=pruner, scorer=scorer,
                          answerer=answerer, width=width, ignored_relations=tuple(ignored_relations),
                          max_candidates=max_candidates),
        **{step: taking_speculated(steps[step], step=step) for step in TAKEN_AS},
    }
