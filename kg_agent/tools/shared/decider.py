"""The one LLM-decider mechanism every LLM decider uses.

A decision by a chat model goes: prompt -> call -> parse -> validate -> one retry -> the offline twin.
:class:`LLMDecision` does the call, parse, validation and retry (:meth:`LLMDecision.ask`, or
:meth:`LLMDecision.aask` without a worker thread); :func:`fall_back` hands the decision to the offline twin and
records why. Each decider writes only its prompt, its parser (which validates: it returns ``None`` for a reply
that decides nothing, with notes saying what it ignored or repaired) and what it makes of the parsed value.

The reason and usage are recorded here, once: every attempt's failure (``"<node>: attempt 2 gave no usable
reply (reply: ...)"``, ``"<node>: the model call failed (...)"``, a refused call ``"<node>: <budget reason>"``)
and the ``"<node>: fell back to ..."`` line go to the outcome's ``warnings``; the calls and tokens of every
attempt to its ``usage``.

Why not LangChain's ``with_retry`` / ``with_fallbacks``: a retry here is caused by an unusable *reply*, not an
exception, must be counted against the question's call budget, and must leave its reason in ``warnings``;
``with_fallbacks`` would swallow that reason. The model is still any LangChain ``BaseChatModel`` (its own HTTP
retries included), and the calls go through :func:`kg_agent.llm.usage.call_llm`, which counts them per node.

Hooks for what comes next:

* ``schema``: a pydantic model describing the decision; a decider that sets it is ready for structured output
  (``model.with_structured_output(schema)``) in place of the text prompt and lenient parser;
* :meth:`LLMDecision.aask` and :func:`ask_all` (independent decisions of one step, e.g. one relation-pruning call
  per beam entry, run concurrently, at most ``max_concurrency`` at a time, in input order).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from kg_agent.llm.errors import BudgetExceeded
from kg_agent.llm.usage import CallLimit, UsageTracker, acall_llm_reply, call_llm_reply, merge_usage

T = TypeVar("T")
Outcome = TypeVar("Outcome")

#: What a parser returns: the decided value (``None``: the reply decides nothing) and notes (repairs, ignored names).
Parsed = tuple[Any, list[str]]
Parser = Callable[[str], Parsed]

DEFAULT_ATTEMPTS = 2  # the call and one retry
DEFAULT_MAX_CONCURRENCY = 4
REPLY_EXCERPT = 120


@dataclass
class Asked(Generic[T]):
    """What :meth:`LLMDecision.ask` got: the parsed value (``None`` when no attempt gave a usable reply)."""

    value: T | None
    reply: str = ""
    warnings: list[str] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    budget_exhausted: bool = False

    @property
    def decided(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class LLMDecision:
    """One decision of one node by a chat model.

    Args:
        model: any LangChain chat model.
        node: the node name the calls are counted under and the warnings start with.
        what: what a usable reply gives, for the warning of an unusable attempt ("relation path", "answer").
        attempts: calls per decision (the first and one retry).
        schema: the decision as a pydantic model (the hook for structured output).
    """

    model: BaseChatModel
    node: str
    what: str = "reply"
    attempts: int = DEFAULT_ATTEMPTS
    schema: type[BaseModel] | None = None

    def _tracker(self, calls_left: int | None) -> UsageTracker:
        return UsageTracker(CallLimit(max_calls=max(0, calls_left)) if calls_left is not None else None)

    def _failed_call(self, exc: Exception, warnings: list[str]) -> bool:
        """Record a failed call; True when it was refused by a budget."""
        if isinstance(exc, BudgetExceeded):
            warnings.append(f"{self.node}: {exc}")
            return True
        warnings.append(f"{self.node}: the model call failed ({type(exc).__name__}: {exc})")
        return False

    def _parsed(self, reply: str, parse: Parser, attempt: int, warnings: list[str]) -> Any:
        value, notes = parse(reply)
        warnings.extend(notes)
        if value is None:
            warnings.append(f"{self.node}: attempt {attempt} gave no usable {self.what} (reply: {reply[:REPLY_EXCERPT]!r})")
        return value

    def ask(self, prompt: str, parse: Parser, *, calls_left: int | None = None) -> Asked:
        """Call, parse, and retry once when the reply is unusable.

        ``calls_left``: calls this question may still make (``None``: no per-decider limit; the question's
        budget, if any, is enforced by the call itself); a call beyond it is not made (``budget_exhausted``).
        """
        tracker = self._tracker(calls_left)
        warnings: list[str] = []
        reply = ""
        for attempt in range(1, self.attempts + 1):
            try:
                reply = call_llm_reply(self.model, prompt, node=self.node, tracker=tracker).text
            except Exception as exc:  # a refused call, network, rate limit after the SDK's retries
                exhausted = self._failed_call(exc, warnings)
                return Asked(None, reply, warnings, tracker.as_dict(), exhausted)
            value = self._parsed(reply, parse, attempt, warnings)
            if value is not None:
                return Asked(value, reply, warnings, tracker.as_dict())
        return Asked(None, reply, warnings, tracker.as_dict())

    async def aask(self, prompt: str, parse: Parser, *, calls_left: int | None = None) -> Asked:
        """:meth:`ask` with the model's native async call (no worker thread)."""
        tracker = self._tracker(calls_left)
        warnings: list[str] = []
        reply = ""
        for attempt in range(1, self.attempts + 1):
            try:
                reply = (await acall_llm_reply(self.model, prompt, node=self.node, tracker=tracker)).text
            except Exception as exc:  # as in ask
                exhausted = self._failed_call(exc, warnings)
                return Asked(None, reply, warnings, tracker.as_dict(), exhausted)
            value = self._parsed(reply, parse, attempt, warnings)
            if value is not None:
                return Asked(value, reply, warnings, tracker.as_dict())
        return Asked(None, reply, warnings, tracker.as_dict())


async def ask_all(requests: Sequence[Callable[[], Awaitable[T]]], *, max_concurrency: int = DEFAULT_MAX_CONCURRENCY) -> list[T]:
    """Run independent decisions (``lambda: decision.aask(...)``) concurrently, at most ``max_concurrency`` at a
    time; the results come back in the order of ``requests``."""
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
    gate = asyncio.Semaphore(max_concurrency)

    async def run(request: Callable[[], Awaitable[T]]) -> T:
        async with gate:
            return await request()

    return list(await asyncio.gather(*(run(r) for r in requests)))


def fall_back(asked: Asked, outcome: Outcome, *, node: str, to: str, before: Sequence[str] = ()) -> Outcome:
    """The offline twin's ``outcome`` with the LLM attempts' record in front: ``before`` (what the decider
    noted while writing the prompt), the attempts' warnings, ``"<node>: fell back to <to>"``, then the twin's
    own warnings; the attempts' usage; ``budget_exhausted`` when a call was refused. ``outcome`` is a
    dataclass with ``warnings`` and ``usage`` fields."""
    changes: dict[str, Any] = {
        "warnings": [*before, *asked.warnings, f"{node}: fell back to {to}", *getattr(outcome, "warnings", [])],
        "usage": merge_usage(asked.usage, outcome.usage) if getattr(outcome, "usage", None) else asked.usage,
    }
    names = {f.name for f in dataclasses.fields(outcome)}
    if "budget_exhausted" in names:
        changes["budget_exhausted"] = asked.budget_exhausted or bool(getattr(outcome, "budget_exhausted", False))
    return dataclasses.replace(outcome, **changes)
