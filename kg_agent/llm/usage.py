"""Per-node accounting of language-model calls, budgets, and the one way deciders call a model.

Every decider (RoG planner, ToG pruner, verifier...) calls its chat model through
:func:`call_llm` / :func:`acall_llm`, never ``model.invoke`` directly. That single path:

1. checks the question's budget *before* the call (the :class:`~kg_agent.llm.budget.Allowance` of the running
   step, :mod:`kg_agent.llm.budget`) and raises :class:`BudgetExceeded` when a limit is reached (the call is
   not made); this is the one place LLM calls are limited, so no decider can escape it;
2. invokes the model (sync or async) and wraps any failure in :class:`LLMCallError`; a model built by
   :func:`kg_agent.llm.models.resolve_chat_model` has its failed requests (429, 5xx, lost connection) resent
   here, each resend being one more attempt checked against the limits and counted, so ``calls + errors`` is
   the number of HTTP requests made;
3. counts the call for the graph node that made it, in a :class:`UsageTracker`;
4. returns the reply's text.

Calls made for any node but ``"answer"`` are tagged ``nostream`` (:func:`node_call_config`): a LangGraph app
streaming with ``stream_mode="messages"`` gets the final answer's tokens only. Token counts stay exact while
streaming when the model reports usage in its stream (``ChatOpenAI(stream_usage=True)``, which models built by
``resolve_chat_model`` have; set it on a ``ChatOpenAI`` you build yourself).

Token counts come from ``AIMessage.usage_metadata`` (what the provider reported) when present.
Otherwise they are *estimated* as ``len(text) // 4`` (roughly four characters per token for
English text), and the call is counted in ``estimated_calls`` so reports can say so. A reply served
by the LLM cache (:mod:`kg_agent.llm.cache`) is counted in ``calls`` and ``cached_calls`` with no tokens.

Outside a method graph, run calls under a budget with
``with question_allowance(QuestionBudget(max_llm_calls=20)): ...``.

Usage is reported as a plain dict (JSON-ready, usable as LangGraph state)::

    {"calls": 3, "errors": 0, "estimated_calls": 0, "cached_calls": 0,
     "prompt_tokens": 910, "completion_tokens": 75, "total_tokens": 985,
     "by_node": {"plan": {"calls": 1, "errors": 0, "estimated_calls": 0, "cached_calls": 0,
                          "prompt_tokens": 400, "completion_tokens": 30, "total_tokens": 430}, ...}}

:func:`merge_usage` adds two such dicts and is meant to be a LangGraph reducer::

    class State(TypedDict):
        usage: Annotated[dict, merge_usage]
"""

from __future__ import annotations

import asyncio
import copy
import threading
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import RunnableConfig
from langgraph.constants import TAG_NOSTREAM

from kg_agent.llm.budget import Allowance, QuestionBudget, current_allowance
from kg_agent.llm.errors import BudgetExceeded, KGAgentLLMError, LLMCallError

if TYPE_CHECKING:  # a chat model is imported with the model, not with an offline method (start-up)
    from langchain_core.language_models import BaseChatModel

#: What a decider may pass as a prompt: a string (sent as one human message), a list of
#: messages (or ``(role, text)`` tuples), or a LangChain ``PromptValue``.
PromptInput = str | Sequence[BaseMessage | tuple[str, str] | str] | PromptValue

#: Characters per token used when the provider reports no usage.
CHARS_PER_ESTIMATED_TOKEN = 4

_COUNTER_KEYS = ("calls", "errors", "estimated_calls", "cached_calls", "prompt_tokens", "completion_tokens", "total_tokens")

#: Nodes whose model calls LangGraph streams in ``stream_mode="messages"``: the final answer. Every other
#: call (planning, pruning, verifying, examining...) is tagged ``nostream``.
STREAMED_NODES: frozenset[str] = frozenset({"answer"})

#: Seconds before resending a failed request when the server asked for no ``Retry-After``, and the most waited.
RESEND_DELAY_S = 0.5
MAX_RESEND_DELAY_S = 5.0

#: ``response_metadata`` key set on replies served by the LLM cache (:mod:`kg_agent.llm.cache`).
CACHE_HIT_KEY = "kg_agent_cache_hit"


def estimate_tokens(text: str) -> int:
    """Rough token count when the provider reports none: ``len(text) // 4``."""
    return len(text) // CHARS_PER_ESTIMATED_TOKEN


def empty_usage() -> dict[str, Any]:
    """A usage dict with every counter at zero and no nodes."""
    usage: dict[str, Any] = {key: 0 for key in _COUNTER_KEYS}
    usage["by_node"] = {}
    return usage


def merge_usage(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> dict[str, Any]:
    """Add two usage dicts (as produced by :meth:`UsageTracker.as_dict`); a LangGraph state reducer.

    Numbers are summed, nested dicts (``by_node``) are merged recursively, keys missing on one
    side count as zero; ``None`` counts as empty. Neither input is modified.

    >>> merge_usage({"calls": 1, "by_node": {"plan": {"calls": 1}}},
    ...             {"calls": 2, "by_node": {"plan": {"calls": 1}, "answer": {"calls": 1}}})
    {'calls': 3, 'by_node': {'plan': {'calls': 2}, 'answer': {'calls': 1}}}
    """
    merged: dict[str, Any] = copy.deepcopy(dict(a or {}))
    for key, value in (b or {}).items():
        current = merged.get(key)
        if isinstance(value, Mapping):
            merged[key] = merge_usage(current if isinstance(current, Mapping) else None, value)
        elif isinstance(value, bool) or not isinstance(value, int | float):
            merged[key] = copy.deepcopy(value)  # not a counter: the newer value wins
        elif isinstance(current, int | float) and not isinstance(current, bool):
            merged[key] = current + value
        else:
            merged[key] = value
    return merged


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"{old} is deprecated and will be removed in the next release; {new}", DeprecationWarning, stacklevel=3)


def CallLimit(max_calls: int | None = None, max_tokens: int | None = None) -> QuestionBudget:  # noqa: N802
    """Deprecated: limits are :class:`~kg_agent.llm.budget.QuestionBudget` s. Returns
    ``QuestionBudget(max_llm_calls=max_calls, max_tokens=max_tokens, max_llm_errors=None)``."""
    _deprecated("CallLimit", "use QuestionBudget(max_llm_calls=..., max_tokens=...) with question_allowance")
    return QuestionBudget(max_llm_calls=max_calls, max_tokens=max_tokens, max_llm_errors=None)


@dataclass(frozen=True, slots=True)
class LLMReply:
    """One completed call: the reply text and what it cost."""

    text: str
    node: str
    prompt_tokens: int
    completion_tokens: int
    estimated: bool
    """True when the token counts are ``len(text) // 4`` estimates rather than provider-reported."""
    cached: bool = False
    """True when the reply came from the LLM cache (no request made, no tokens spent)."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def usage_dict(self) -> dict[str, Any]:
        """This call alone, in the :meth:`UsageTracker.as_dict` shape (ready for :func:`merge_usage`)."""
        tracker = UsageTracker()
        tracker.record(self.node, self.prompt_tokens, self.completion_tokens, estimated=self.estimated, cached=self.cached)
        return tracker.as_dict()


class UsageTracker:
    """Thread-safe counter of LLM calls and tokens, in total and per graph node.

    Args:
        limit: deprecated (limit calls with :func:`~kg_agent.llm.budget.question_allowance`): a budget
            (``QuestionBudget`` or the deprecated ``CallLimit``) every call made with this tracker is checked against.
    """

    def __init__(self, limit: QuestionBudget | None = None) -> None:
        if limit is not None:
            _deprecated("UsageTracker(limit=...)", "run the calls under question_allowance(QuestionBudget(...))")
        self.limit = limit
        self._allowance = None if limit is None else Allowance(limit)
        self._lock = threading.Lock()
        self._totals: dict[str, int] = {key: 0 for key in _COUNTER_KEYS}
        self._by_node: dict[str, dict[str, int]] = {}

    # -- recording -------------------------------------------------------------------------
    def _add(self, node: str, **counts: int) -> None:
        node_counts = self._by_node.setdefault(node, {key: 0 for key in _COUNTER_KEYS})
        for key, value in counts.items():
            self._totals[key] += value
            node_counts[key] += value

    def record(self, node: str, prompt_tokens: int, completion_tokens: int, *, estimated: bool = False,
               cached: bool = False) -> None:
        """Count one completed call made by ``node`` (``cached``: answered by the LLM cache, no tokens spent)."""
        prompt_tokens, completion_tokens = max(0, int(prompt_tokens)), max(0, int(completion_tokens))
        with self._lock:
            self._add(
                node,
                calls=1,
                estimated_calls=int(estimated),
                cached_calls=int(cached),
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                total_tokens=prompt_tokens + completion_tokens,
            )

    def record_error(self, node: str) -> None:
        """Count one call made by ``node`` that failed (no tokens known)."""
        with self._lock:
            self._add(node, errors=1)

    def _limit_allowance(self, limit: QuestionBudget | None) -> Allowance | None:
        """The deprecated limit's allowance: ``limit`` counted from this tracker's totals, else the tracker's own."""
        if limit is None:
            return self._allowance
        with self._lock:
            return Allowance(limit, calls=self._totals["calls"] + self._totals["errors"], tokens=self._totals["total_tokens"])

    # -- reading ---------------------------------------------------------------------------
    @property
    def calls(self) -> int:
        with self._lock:
            return self._totals["calls"]

    @property
    def total_tokens(self) -> int:
        with self._lock:
            return self._totals["total_tokens"]

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready snapshot: totals plus ``by_node`` (see the module docstring for the shape)."""
        with self._lock:
            usage: dict[str, Any] = dict(self._totals)
            usage["by_node"] = {node: dict(counts) for node, counts in self._by_node.items()}
        return usage

    def merge_from(self, usage: Mapping[str, Any]) -> None:
        """Add a usage dict (e.g. from a sub-run or :meth:`LLMReply.usage_dict`) into this tracker."""
        with self._lock:
            for node, counts in (usage.get("by_node") or {}).items():
                self._add(node, **{key: int(counts.get(key, 0)) for key in _COUNTER_KEYS})

    def __repr__(self) -> str:
        snapshot = self.as_dict()
        return f"UsageTracker(calls={snapshot['calls']}, total_tokens={snapshot['total_tokens']}, nodes={sorted(snapshot['by_node'])})"


_TALLIES: ContextVar[tuple[UsageTracker, ...]] = ContextVar("kg_agent_call_tallies", default=())


@contextmanager
def tallied() -> Iterator[UsageTracker]:
    """Count every call made inside the block (in this context, through :func:`call_llm`) in a fresh tracker too,
    whatever tracker its caller passed, or none: what code that may not report its usage (a custom decider) spent."""
    tally = UsageTracker()
    token = _TALLIES.set((*_TALLIES.get(), tally))
    try:
        yield tally
    finally:
        _TALLIES.reset(token)


def missing_usage(made: Mapping[str, Any], reported: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What of the usage ``made`` (counters, per node) ``reported`` leaves out, or ``None`` when it leaves out nothing."""
    reported = reported or {}
    missing: dict[str, Any] = {key: max(0, int(made.get(key) or 0) - int(reported.get(key) or 0)) for key in _COUNTER_KEYS}
    if not any(missing.values()):
        return None
    nodes = reported.get("by_node") or {}
    missing["by_node"] = {node: {key: max(0, int(counts.get(key) or 0) - int((nodes.get(node) or {}).get(key) or 0))
                                 for key in _COUNTER_KEYS} for node, counts in (made.get("by_node") or {}).items()}
    return missing


# -- calling a model -------------------------------------------------------------------------

def prompt_to_text(prompt: PromptInput) -> str:
    """The prompt's text as a model would read it: message contents joined by blank lines."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, PromptValue):
        return prompt.to_string()
    parts: list[str] = []
    for item in prompt:
        if isinstance(item, BaseMessage):
            parts.append(item.text)
        elif isinstance(item, tuple) and len(item) == 2:
            parts.append(str(item[1]))
        else:
            parts.append(str(item))
    return "\n\n".join(parts)


def reply_text(message: Any) -> str:
    """The text of a model reply (string content or the text blocks of a content list)."""
    if isinstance(message, BaseMessage):
        return str(message.text)
    return "" if message is None else str(message)


def token_counts(message: Any, prompt_text: str, completion_text: str) -> tuple[int, int, bool]:
    """``(prompt_tokens, completion_tokens, estimated)`` for one reply.

    Uses ``usage_metadata`` when the provider reported it; otherwise estimates both counts
    with :func:`estimate_tokens` and returns ``estimated=True``.
    """
    usage = getattr(message, "usage_metadata", None) if isinstance(message, AIMessage) else None
    if usage and ("input_tokens" in usage or "output_tokens" in usage):
        return int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0), False
    return estimate_tokens(prompt_text), estimate_tokens(completion_text), True


def _require_model(model: BaseChatModel | None, node: str) -> BaseChatModel:
    if model is None:
        raise KGAgentLLMError(
            f"node {node!r} needs a chat model but none is configured (offline mode); "
            "pass a model or use the offline decider"
        )
    return model


def _failure(exc: Exception, model: BaseChatModel, node: str) -> LLMCallError:
    from kg_agent.llm.models import describe_chat_model

    return LLMCallError(
        f"LLM call for node {node!r} with model {describe_chat_model(model)} failed "
        f"({type(exc).__name__}): {exc}"
    )


def _finish(message: Any, prompt: PromptInput, node: str, tracker: UsageTracker | None,
            allowances: Sequence[Allowance] = ()) -> LLMReply:
    text = reply_text(message)
    cached = is_cache_hit(message)
    if cached:  # answered from the LLM cache: no tokens were spent
        prompt_tokens, completion_tokens, estimated = 0, 0, False
    else:
        prompt_tokens, completion_tokens, estimated = token_counts(message, prompt_to_text(prompt), text)
    for counter in (tracker, *_TALLIES.get()):
        if counter is not None:
            counter.record(node, prompt_tokens, completion_tokens, estimated=estimated, cached=cached)
    for allowance in allowances:
        allowance.end(prompt_tokens + completion_tokens)
    return LLMReply(text, node, prompt_tokens, completion_tokens, estimated, cached)


def _failed(tracker: UsageTracker | None, allowances: Sequence[Allowance], node: str) -> None:
    for counter in (tracker, *_TALLIES.get()):
        if counter is not None:
            counter.record_error(node)
    for allowance in allowances:
        allowance.end(0, failed=True)


def _start(tracker: UsageTracker | None, limit: QuestionBudget | None, node: str) -> list[Allowance]:
    """Reserve the call in the running step's question allowance (and in a deprecated tracker limit's); raises
    :class:`BudgetExceeded` / :class:`~kg_agent.llm.errors.LLMUnavailable` when it must not be made."""
    if tracker is None and limit is not None:
        raise ValueError("a limit needs a UsageTracker to count against; run the calls under question_allowance instead")
    candidates = [current_allowance(), tracker._limit_allowance(limit) if tracker is not None else None]
    begun: list[Allowance] = []
    try:
        for allowance in candidates:
            if allowance is not None:
                allowance.begin(node)
                begun.append(allowance)
    except BudgetExceeded:
        for allowance in begun:
            allowance.cancel(node)
        raise
    return begun


def model_resends(model: BaseChatModel) -> int:
    """How many times a failed request to ``model`` is resent here: the ``max_retries`` a model built by
    :func:`kg_agent.llm.models.resolve_chat_model` carries in its ``metadata``; 0 for any other model (whose own
    HTTP client may resend, uncounted: build it with ``max_retries=0`` to have every request counted)."""
    from kg_agent.llm.models import RETRIES_METADATA_KEY

    return int((getattr(model, "metadata", None) or {}).get(RETRIES_METADATA_KEY, 0))


def is_transient_error(exc: BaseException) -> bool:
    """A 429, a 5xx or a lost connection: worth a resend. A timeout is not: the server may still be working on
    the request (a single-slot local server finishes it anyway), so a resend would queue behind it and time out."""
    try:
        import openai
    except ImportError:  # pragma: no cover - openai comes with langchain-openai
        return False
    if isinstance(exc, openai.APITimeoutError):
        return False
    if isinstance(exc, openai.APIConnectionError):
        return True
    return isinstance(exc, openai.APIStatusError) and (exc.status_code == 429 or exc.status_code >= 500)


class _Attempt:
    """One HTTP request of a call, used as ``with attempt: attempt.message = model.invoke(...)``.

    Made by :meth:`_Call.attempts`, which reserves it against the budget first (:func:`_start`). On leaving the
    ``with`` block a failure is counted, then either raised (as :class:`LLMCallError`) or swallowed with
    :attr:`resend_after` set to the seconds to wait before the next attempt."""

    def __init__(self, call: _Call, resends_left: int) -> None:
        self.call, self.resends_left = call, resends_left
        self.allowances = _start(call.tracker, call.limit, call.node)
        self.message: Any = None
        self.resend_after: float | None = None

    def __enter__(self) -> _Attempt:
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, traceback: Any) -> bool:
        if not isinstance(exc, Exception):
            return False
        _failed(self.call.tracker, self.allowances, self.call.node)
        self.resend_after = _resend_delay(exc, self.resends_left, self.call.model, self.call.node)
        return True


class _Call:
    """One model call, written once for :func:`call_llm_reply` and :func:`acall_llm_reply`, which make each request
    of :meth:`attempts` (``with attempt: attempt.message = <the model's reply>``) and wait ``attempt.resend_after``
    seconds after a failed one; :attr:`reply` is then the :class:`LLMReply`."""

    def __init__(self, model: BaseChatModel | None, prompt: PromptInput, node: str, tracker: UsageTracker | None,
                 limit: QuestionBudget | None, config: RunnableConfig | None) -> None:
        self.model, self.prompt, self.node, self.tracker, self.limit = _require_model(model, node), prompt, node, tracker, limit
        self.config = node_call_config(node, config)
        self.reply: LLMReply | None = None

    def attempts(self) -> Iterator[_Attempt]:
        """The call's first request, then its resends (:func:`model_resends`), each reserved when it is reached,
        until one succeeds (a failure of the last one is raised by its ``with`` block)."""
        for resends_left in reversed(range(model_resends(self.model) + 1)):
            attempt = _Attempt(self, resends_left)
            yield attempt
            if attempt.resend_after is None:
                self.reply = _finish(attempt.message, self.prompt, self.node, self.tracker, attempt.allowances)
                return


def _resend_delay(exc: Exception, resends_left: int, model: BaseChatModel, node: str) -> float:
    """Seconds to wait before resending after ``exc``; raises when the call is not to be resent."""
    if isinstance(exc, KGAgentLLMError):
        raise exc
    if not (resends_left and is_transient_error(exc)):
        raise _failure(exc, model, node) from exc
    response = getattr(exc, "response", None)
    try:
        asked = float(response.headers.get("retry-after", "")) if response is not None else RESEND_DELAY_S
    except ValueError:
        asked = RESEND_DELAY_S
    return min(max(asked, 0.0), MAX_RESEND_DELAY_S)


def node_call_config(node: str, config: RunnableConfig | None) -> RunnableConfig | None:
    """``config`` for a call made by ``node``: tagged ``nostream`` unless ``node`` is in :data:`STREAMED_NODES`,
    so LangGraph's ``stream_mode="messages"`` streams the answering model's tokens only."""
    if node in STREAMED_NODES:
        return config
    tags = list((config or {}).get("tags") or [])
    return {**(config or {}), "tags": [*tags, TAG_NOSTREAM]}


def is_cache_hit(message: Any) -> bool:
    """Whether a reply came from the LLM cache of :mod:`kg_agent.llm.cache` (no request was made)."""
    metadata = getattr(message, "response_metadata", None)
    return isinstance(metadata, Mapping) and bool(metadata.get(CACHE_HIT_KEY))


def _limit(limit: QuestionBudget | None) -> QuestionBudget | None:
    if limit is not None:
        _deprecated("the limit= argument", "run the calls under question_allowance(QuestionBudget(...))")
    return limit


def call_llm_reply(model: BaseChatModel | None, prompt: PromptInput, *, node: str, tracker: UsageTracker | None = None,
                   limit: QuestionBudget | None = None, config: RunnableConfig | None = None) -> LLMReply:
    """Like :func:`call_llm` but returns the full :class:`LLMReply` (text + token counts)."""
    call = _Call(model, prompt, node, tracker, _limit(limit), config)
    for attempt in call.attempts():
        with attempt:
            attempt.message = call.model.invoke(prompt, config=call.config)
        time.sleep(attempt.resend_after or 0)
    return call.reply


async def acall_llm_reply(model: BaseChatModel | None, prompt: PromptInput, *, node: str, tracker: UsageTracker | None = None,
                          limit: QuestionBudget | None = None, config: RunnableConfig | None = None) -> LLMReply:
    """Async :func:`call_llm_reply`."""
    call = _Call(model, prompt, node, tracker, _limit(limit), config)
    for attempt in call.attempts():
        with attempt:
            attempt.message = await call.model.ainvoke(prompt, config=call.config)
        await asyncio.sleep(attempt.resend_after or 0)
    return call.reply


def call_llm(model: BaseChatModel | None, prompt: PromptInput, **options: Any) -> str:
    """Call ``model`` for graph node ``node`` and return the reply text.

    Keyword options (as :func:`call_llm_reply`): ``node`` (required), ``tracker`` (counts the call), ``config``
    (the LangChain run config), ``limit`` (deprecated). The call is checked against the running question's
    budget first (:mod:`kg_agent.llm.budget`).

    Raises:
        BudgetExceeded: the question's budget is spent; the model was not called.
        LLMUnavailable: the model failed too often for this question (circuit breaker); not called.
        LLMCallError: the model call failed (network, timeout, HTTP error...); cause chained.
        KGAgentLLMError: ``model`` is ``None`` (offline mode).
    """
    return call_llm_reply(model, prompt, **options).text


async def acall_llm(model: BaseChatModel | None, prompt: PromptInput, **options: Any) -> str:
    """Async :func:`call_llm`."""
    return (await acall_llm_reply(model, prompt, **options)).text


class LLMCaller:
    """Deprecated: call :func:`call_llm` with ``tracker=``, under :func:`~kg_agent.llm.budget.question_allowance`
    for a limit. Binds a tracker (and a deprecated limit, checked against that tracker's calls) once."""

    def __init__(self, tracker: UsageTracker | None = None, limit: QuestionBudget | None = None) -> None:
        _deprecated("LLMCaller", "call call_llm(model, prompt, node=..., tracker=...) under question_allowance")
        self.tracker = tracker if tracker is not None else UsageTracker()
        self.limit = limit
        if limit is not None:
            self.tracker._allowance = self.tracker._limit_allowance(limit)

    def invoke(self, model: BaseChatModel | None, prompt: PromptInput, *, node: str, **options: Any) -> str:
        """Call the model for ``node``; returns the reply text (see :func:`call_llm`)."""
        return self.invoke_reply(model, prompt, node=node, **options).text

    async def ainvoke(self, model: BaseChatModel | None, prompt: PromptInput, *, node: str, **options: Any) -> str:
        """Async :meth:`invoke`."""
        return (await self.ainvoke_reply(model, prompt, node=node, **options)).text

    def invoke_reply(self, model: BaseChatModel | None, prompt: PromptInput, *, node: str,
                     tracker: UsageTracker | None = None, config: RunnableConfig | None = None) -> LLMReply:
        """Like :meth:`invoke` but returns the :class:`LLMReply` with token counts."""
        return call_llm_reply(model, prompt, node=node, tracker=tracker or self.tracker, config=config)

    async def ainvoke_reply(self, model: BaseChatModel | None, prompt: PromptInput, *, node: str,
                            tracker: UsageTracker | None = None, config: RunnableConfig | None = None) -> LLMReply:
        """Async :meth:`invoke_reply`."""
        return await acall_llm_reply(model, prompt, node=node, tracker=tracker or self.tracker, config=config)
