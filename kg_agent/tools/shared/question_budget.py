"""Per-question budgets in the method graphs (see :mod:`kg_agent.llm.budget` for the rules).

The graph factories wrap their nodes:

* :func:`timed` on the first node (``link``): records ``started_at``, when the question's clock starts;
* :func:`budgeted` on every other node that may call a model or explore the KG. An *exploration* step
  (``explore=True``) is skipped once the budget is spent (all of it but the answer's reserve) and something was explored (the state has
  ``chains``; the first round always runs, with offline deciders if need be): it returns
  ``stop_reason="budget"`` and a warning, and the graph goes on to its answer step, which answers
  from what was found. Any step runs
  under the question's allowance, so an LLM call beyond the budget is refused and the step's decider
  falls back to its offline twin (the warning names the limit). A non-exploration step during which a
  call was refused sets ``stop_reason="budget"`` too.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from typing import Any

from kg_agent.llm.budget import QuestionBudget, question_allowance
from kg_agent.settings import current_run_settings, tightened
from kg_agent.steps import steps_of

Node = Callable[[dict], dict]

BUDGET_STOP = "budget"


def run_budget(budget: QuestionBudget | None) -> QuestionBudget:
    """``budget`` as the running question's settings tighten it (:class:`~kg_agent.settings.RunSettings`: a run's
    ``max_llm_calls``, ``max_tokens`` and ``max_seconds`` apply where they are below the graph's own)."""
    budget = budget if budget is not None else QuestionBudget()
    run = current_run_settings()
    if run.max_llm_calls is None and run.max_tokens is None and run.max_seconds is None:
        return budget
    return dataclasses.replace(budget, max_llm_calls=tightened(budget.max_llm_calls, run.max_llm_calls),
                               max_tokens=tightened(budget.max_tokens, run.max_tokens),
                               max_seconds=tightened(budget.max_seconds, run.max_seconds))


def timed(node: Node, budget: QuestionBudget | None = None) -> Node:
    """``node`` (the first step of a turn) also records ``started_at`` (``time.time()``) in the state, where the
    question's time budget is counted from (the graph's ``budget`` or the run's settings may set one)."""

    def run(state: dict) -> dict:
        started = time.time()
        update = node(state)
        update["started_at"] = started
        return update

    run.__name__ = getattr(node, "__name__", "link")
    return run


def budgeted(
    node: Node,
    budget: QuestionBudget | None,
    *,
    step: str,
    explore: bool = True,
    stop_update: Mapping[str, Any] | None = None,
) -> Node:
    """``node`` under ``budget`` as the run's settings tighten it (:func:`run_budget`). ``node`` returns its update or steps
    giving it (:mod:`kg_agent.steps`); the budgeted node returns steps, which keep the question's
    allowance in force (for every call, concurrent ones included) until the node's last step.

    Args:
        step: the node's name, for warnings.
        explore: skip the step once the budget is spent and the state has ``chains`` (``stop_reason="budget"``);
            else always run it.
        stop_update: extra fields returned with a skipped step (e.g. an empty ``candidate_relations``).
    """
    extra = dict(stop_update or {})

    def run(state: dict):
        budget_now = run_budget(budget)
        if not budget_now.active:
            return (yield from steps_of(node(state)))
        reason = budget_now.exhausted_for(state, keep=budget_now.answer_reserve) if budget_now.limited else None
        if reason is not None and explore and state.get("chains"):
            return {**extra, "stop_reason": BUDGET_STOP,
                    "warnings": [f"{step}: {reason}; exploration stops and the answer uses what was found"]}
        with question_allowance(budget_now, state) as allowance:
            update = yield from steps_of(node(state))
        if allowance.refusal is not None and not explore:
            update["stop_reason"] = BUDGET_STOP
        return update

    run.__name__ = getattr(node, "__name__", step)
    return run
