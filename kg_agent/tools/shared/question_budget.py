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

import time
from collections.abc import Callable, Mapping
from typing import Any

from kg_agent.llm.budget import QuestionBudget, question_allowance
from kg_agent.tools.shared.decider import steps_of
from kg_agent.tools.shared.updates import add_warnings

Node = Callable[[dict], dict]

BUDGET_STOP = "budget"


def timed(node: Node, budget: QuestionBudget | None = None) -> Node:
    """``node`` (the first step of a turn) also records ``started_at`` (``time.time()``) in the state.

    With a ``budget`` that sets no limit, ``node`` is returned unchanged.
    """
    if budget is not None and not budget.active:
        return node

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
    """``node`` under ``budget`` (returned unchanged when it checks nothing). ``node`` returns its update or steps
    giving it (:mod:`kg_agent.tools.shared.decider`); the budgeted node returns steps, which keep the question's
    allowance in force (for every call, concurrent ones included) until the node's last step.

    Args:
        step: the node's name, for warnings.
        explore: skip the step once the budget is spent and the state has ``chains`` (``stop_reason="budget"``);
            else always run it.
        stop_update: extra fields returned with a skipped step (e.g. an empty ``candidate_relations``).
    """
    if budget is None or not budget.active:
        return node
    extra = dict(stop_update or {})

    def run(state: dict):
        reason = budget.exhausted_for(state, keep=budget.answer_reserve) if budget.limited else None
        if reason is not None and explore and state.get("chains"):
            return {**extra, "stop_reason": BUDGET_STOP,
                    "warnings": add_warnings(state, f"{step}: {reason}; exploration stops and the answer uses what was found")}
        with question_allowance(budget, state) as allowance:
            update = yield from steps_of(node(state))
        if allowance.refusal is not None and not explore:
            update["stop_reason"] = BUDGET_STOP
        return update

    run.__name__ = getattr(node, "__name__", step)
    return run
