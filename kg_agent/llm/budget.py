"""Per-question budgets: LLM calls, tokens and wall time.

A :class:`QuestionBudget` caps what one question may spend. The method graphs (``max_llm_calls``,
``max_tokens``, ``max_seconds`` on the graph factories) enforce it in two places:

* **between steps**: before each exploration step the graph checks the question's usage so far (the
  state's ``usage``) and the time since its ``link`` step (``started_at``); when a limit is reached the
  graph stops exploring, answers from what it has, sets ``stop_reason="budget"`` and says which limit
  in ``warnings`` (:func:`kg_agent.tools.shared.question_budget.budgeted`);
* **inside a step**: while a step runs, its LLM calls are checked against an *allowance*
  (:func:`question_allowance`, a context variable read by :func:`kg_agent.llm.call_llm`). A call that
  would start beyond a limit is not made: it raises :class:`~kg_agent.llm.errors.BudgetExceeded`, and
  the decider that wanted it falls back to its offline twin, as it does when the model fails.

**A reserve for the answer.** ``answer_reserve`` calls of ``max_llm_calls`` are kept for the calls made for the
answer node (:data:`ANSWER_NODE`): the other nodes' calls are refused, and exploration steps skipped, once only
the reserve is left, so a method that explores under a tight budget (ToG, ToG-I) can still ask its answer.

This is the one limiter of LLM calls: it is enforced where a model call is made (:func:`kg_agent.llm.call_llm`),
so no decider, built in or custom, can make more calls than the question's budget allows.

A circuit breaker guards against a model that is down: once ``max_llm_errors`` calls of a question
have failed (each resend of a failed request counting as one, see :func:`kg_agent.llm.usage.call_llm`), its
further calls are not made
(:class:`~kg_agent.llm.errors.LLMUnavailable`) and the offline deciders finish the question, so a dead
endpoint costs a few timeouts per question, not one per decision.

A call that has started is not interrupted (the chat model's own ``timeout`` bounds it), so a question
can end a little past ``max_seconds``, by at most one call plus the offline work of the current step;
``max_tokens`` is checked before each call, so the last call may end above it.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from kg_agent.llm.errors import BudgetExceeded, LLMUnavailable

__all__ = ["ANSWER_NODE", "DEFAULT_MAX_LLM_ERRORS", "QuestionBudget", "Allowance", "question_allowance",
           "current_allowance"]

#: Failed LLM calls after which a question stops calling the model (see the module docstring).
DEFAULT_MAX_LLM_ERRORS = 3

#: The node whose calls may use the budget's ``answer_reserve``.
ANSWER_NODE = "answer"


@dataclass(frozen=True, slots=True)
class QuestionBudget:
    """Limits for one question; ``None`` means unlimited.

    Args:
        max_llm_calls: LLM calls attempted (failed ones included: they may cost money too).
        max_tokens: prompt + completion tokens spent (as reported by the provider, else estimated).
        max_seconds: wall time since the question's ``link`` step.
        max_llm_errors: failed calls after which the question makes no more calls (circuit breaker; not a
            reason to stop exploring: the offline deciders go on).
        answer_reserve: calls of ``max_llm_calls`` only the answer node's calls may use (see the module docstring).
    """

    max_llm_calls: int | None = None
    max_tokens: int | None = None
    max_seconds: float | None = None
    max_llm_errors: int | None = DEFAULT_MAX_LLM_ERRORS
    answer_reserve: int = 0

    def __post_init__(self) -> None:
        for name in ("max_llm_calls", "max_tokens", "max_seconds", "max_llm_errors", "answer_reserve"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value) or value < 0:
                raise ValueError(f"{name} must be a number >= 0 or None, not {value!r}")

    @property
    def limited(self) -> bool:
        """Whether a spending limit (calls, tokens or time) is set."""
        return any(v is not None for v in (self.max_llm_calls, self.max_tokens, self.max_seconds))

    @property
    def active(self) -> bool:
        """Whether anything is checked at all (a spending limit or the circuit breaker)."""
        return self.limited or self.max_llm_errors is not None

    def calls_left(self, calls: int, *, keep: int = 0) -> int | None:
        """Calls still allowed after ``calls`` attempted ones, less ``keep`` kept for the answer; ``None``: no call
        limit."""
        if self.max_llm_calls is None:
            return None
        return max(0, self.max_llm_calls - keep - calls)

    def exhausted(self, *, calls: int, tokens: int, started_at: float | None, now: float | None = None,
                  keep: int = 0) -> str | None:
        """Why no further LLM call (or exploration step) is allowed, or ``None`` when it is.

        ``calls`` counts attempted calls (completed and failed); ``started_at`` is a ``time.time()`` value;
        ``keep``: calls kept for the answer (anything but the answer keeps the ``answer_reserve``).
        """
        if self.calls_left(calls, keep=keep) == 0:
            kept = f", {keep} kept for the answer" if keep else ""
            return f"LLM call budget spent ({calls} of max_llm_calls={self.max_llm_calls}{kept})"
        if self.max_tokens is not None and tokens >= self.max_tokens:
            return f"LLM token budget spent ({tokens} of max_tokens={self.max_tokens})"
        if self.max_seconds is not None and started_at is not None:
            elapsed = (time.time() if now is None else now) - float(started_at)
            if elapsed >= self.max_seconds:
                return f"time budget spent ({elapsed:.2f} s of max_seconds={self.max_seconds:g})"
        return None

    def exhausted_for(self, state: Mapping[str, Any], *, keep: int = 0) -> str | None:
        """:meth:`exhausted` for a graph state (its ``usage`` and ``started_at``)."""
        calls, tokens = spent(state.get("usage"))
        return self.exhausted(calls=calls, tokens=tokens, started_at=state.get("started_at"), keep=keep)


def spent(usage: Mapping[str, Any] | None) -> tuple[int, int]:
    """``(attempted calls, total tokens)`` of a usage dict."""
    usage = usage or {}
    return int(usage.get("calls") or 0) + int(usage.get("errors") or 0), int(usage.get("total_tokens") or 0)


class Allowance:
    """What the running step may still spend: the question's budget minus what it spent before the step.

    Thread-safe; :func:`kg_agent.llm.call_llm` calls :meth:`begin` before and :meth:`end` after each call.
    ``refusal`` holds the reason of the first call refused by the budget, ``unavailable`` that of the first
    call refused by the circuit breaker.
    """

    def __init__(self, budget: QuestionBudget, *, calls: int = 0, tokens: int = 0, errors: int = 0,
                 started_at: float | None = None) -> None:
        self.budget = budget
        self.calls = calls
        self.tokens = tokens
        self.errors = errors
        self.started_at = started_at
        self.refusal: str | None = None
        self.unavailable: str | None = None
        self._in_flight = 0
        self._answer_calls = 0
        self._lock = threading.Lock()

    def begin(self, node: str | None = None) -> None:
        """Reserve one call for ``node``, or raise :class:`BudgetExceeded` / :class:`LLMUnavailable` (the call must
        then not be made). The other nodes' calls leave the budget's ``answer_reserve`` to the :data:`ANSWER_NODE`'s
        (less the answer calls already begun in this allowance, e.g. asked ahead by a speculating step)."""
        with self._lock:
            limit = self.budget.max_llm_errors
            if limit is not None and self.errors >= limit:
                reason = (f"the model failed {self.errors} times for this question (max_llm_errors={limit}); "
                          "the offline deciders take over")
                if self.unavailable is None:
                    self.unavailable = reason
                raise LLMUnavailable(reason)
            answering = node == ANSWER_NODE
            keep = 0 if answering else max(0, self.budget.answer_reserve - self._answer_calls)
            reason = self.budget.exhausted(calls=self.calls + self._in_flight, tokens=self.tokens, started_at=self.started_at,
                                           keep=keep)
            if reason is not None:
                if self.refusal is None:
                    self.refusal = reason
                raise BudgetExceeded(reason)
            self._in_flight += 1
            self._answer_calls += int(answering)

    def cancel(self, node: str | None = None) -> None:
        """The call :meth:`begin` reserved for ``node`` is not made after all (another limit refused it)."""
        with self._lock:
            self._in_flight -= 1
            self._answer_calls -= int(node == ANSWER_NODE)

    def end(self, tokens: int = 0, *, failed: bool = False) -> None:
        """The reserved call is over (``failed``: it raised)."""
        with self._lock:
            self._in_flight -= 1
            self.calls += 1
            self.errors += int(failed)
            self.tokens += max(0, int(tokens))


_ALLOWANCE: ContextVar[Allowance | None] = ContextVar("kg_agent_question_allowance", default=None)


def current_allowance() -> Allowance | None:
    """The allowance of the step running in this context, if any."""
    return _ALLOWANCE.get()


@contextmanager
def question_allowance(budget: QuestionBudget, state: Mapping[str, Any] | None = None) -> Iterator[Allowance]:
    """Check every LLM call made inside the block against ``budget``, counting what ``state`` already spent."""
    state = state or {}
    calls, tokens = spent(state.get("usage"))
    errors = int((state.get("usage") or {}).get("errors") or 0)
    allowance = Allowance(budget, calls=calls, tokens=tokens, errors=errors, started_at=state.get("started_at"))
    token = _ALLOWANCE.set(allowance)
    try:
        yield allowance
    finally:
        _ALLOWANCE.reset(token)
