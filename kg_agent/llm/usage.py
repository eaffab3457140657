"""Per-node accounting of language-model calls, budgets, and the one way deciders call a model.

Every decider (RoG planner, ToG pruner, verifier...) calls its chat model through
:func:`call_llm` / :func:`acall_llm` (or an :class:`LLMCaller`), never ``model.invoke`` directly.
That single path:

1. checks the :class:`CallLimit` *before* the call and raises :class:`BudgetExceeded` when a limit
   is reached (the call is not made);
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

While a method graph runs a step under a per-question budget (:mod:`kg_agent.llm.budget`), every call
is also checked against that question's allowance and refused (:class:`BudgetExceeded`) beyond it.

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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import RunnableConfig
from langgraph.constants import TAG_NOSTREAM

from kg_agent.llm.budget import Allowance, current_allowance
from kg_agent.llm.errors import BudgetExceeded, KGAgentLLMError, LLMCallError

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


@dataclass(frozen=True, slots=True)
class CallLimit:
    """Limits on language-model use for one run; ``None`` means unlimited.

    ``max_calls`` limits *attempted* calls (failed ones included, since they may cost money);
    ``max_tokens`` limits prompt + completion tokens already spent. Both are checked before each
    call: a run stops at the first call that would start beyond a limit.
    """

    max_calls: int | None = None
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_calls", "max_tokens"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"CallLimit.{name} must be >= 0 or None, got {value}")

    def violation(self, *, attempted_calls: int, total_tokens: int) -> str | None:
        """Why one more call is not allowed, or ``None`` when it is."""
        if self.max_calls is not None and attempted_calls >= self.max_calls:
            return f"LLM call budget exhausted: {attempted_calls} of max_calls={self.max_calls} calls already made"
        if self.max_tokens is not None and total_tokens >= self.max_tokens:
            return f"LLM token budget exhausted: {total_tokens} of max_tokens={self.max_tokens} tokens already used"
        return None


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
        limit: default :class:`CallLimit` checked by :func:`call_llm` before each call made with
            this tracker.
    """

    def __init__(self, limit: CallLimit | None = None) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._totals: dict[str, int] = {key: 0 for key in _COUNTER_KEYS}
        self._by_node: dict[str, dict[str, int]] = {}
        self._in_flight = 0

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

    # -- call limit ----------------------------------------------------------------------------
    def check_limit(self, limit: CallLimit | None = None) -> None:
        """Raise :class:`BudgetExceeded` if one more call would break ``limit`` (default: ``self.limit``)."""
        with self._lock:
            self._check_locked(limit or self.limit)

    def _check_locked(self, limit: CallLimit | None) -> None:
        if limit is None:
            return
        reason = limit.violation(
            attempted_calls=self._totals["calls"] + self._totals["errors"] + self._in_flight,
            total_tokens=self._totals["total_tokens"],
        )
        if reason is not None:
            raise BudgetExceeded(reason)

    def _begin_call(self, limit: CallLimit | None) -> None:
        """Atomically check the limit and reserve a call slot (so concurrent calls respect max_calls)."""
        with self._lock:
            self._check_locked(limit or self.limit)
            self._in_flight += 1

    def _end_call(self) -> None:
        with self._lock:
            self._in_flight -= 1

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
            allowance: Allowance | None = None) -> LLMReply:
    text = reply_text(message)
    cached = is_cache_hit(message)
    if cached:  # answered from the LLM cache: no tokens were spent
        prompt_tokens, completion_tokens, estimated = 0, 0, False
    else:
        prompt_tokens, completion_tokens, estimated = token_counts(message, prompt_to_text(prompt), text)
    if tracker is not None:
        tracker.record(node, prompt_tokens, completion_tokens, estimated=estimated, cached=cached)
    if allowance is not None:
        allowance.end(prompt_tokens + completion_tokens)
    return LLMReply(text, node, prompt_tokens, completion_tokens, estimated, cached)


def _failed(tracker: UsageTracker | None, allowance: Allowance | None, node: str) -> None:
    if tracker is not None:
        tracker.record_error(node)
    if allowance is not None:
        allowance.end(0, failed=True)


def _start(tracker: UsageTracker | None, limit: CallLimit | None, node: str) -> tuple[UsageTracker | None, Allowance | None]:
    """Reserve the call in ``tracker`` (checking ``limit``) and in the running step's question allowance."""
    if tracker is None and limit is not None:
        raise ValueError("a CallLimit needs a UsageTracker to count against; pass tracker=UsageTracker(limit)")
    if tracker is not None:
        tracker._begin_call(limit)
    allowance = current_allowance()
    if allowance is not None:
        try:
            allowance.begin(node)
        except BudgetExceeded:
            if tracker is not None:
                tracker._end_call()
            raise
    return tracker, allowance


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
    """One HTTP request of a call, used as ``with attempt: message = model.invoke(...)``.

    Made by :func:`_attempts`, which reserves it against the limits first (:func:`_start`). On leaving the
    ``with`` block its slot is released; a failure is counted, then either raised (as :class:`LLMCallError`)
    or swallowed with :attr:`resend_after` set to the seconds to wait before the next attempt."""

    def __init__(self, model: BaseChatModel, node: str, tracker: UsageTracker | None, limit: CallLimit | None,
                 resends_left: int) -> None:
        self.model, self.node, self.resends_left = model, node, resends_left
        self.active, self.allowance = _start(tracker, limit, node)
        self.resend_after: float | None = None

    def __enter__(self) -> _Attempt:
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, traceback: Any) -> bool:
        try:
            if not isinstance(exc, Exception):
                return False
            _failed(self.active, self.allowance, self.node)
            self.resend_after = _resend_delay(exc, self.resends_left, self.model, self.node)
            return True
        finally:
            if self.active is not None:
                self.active._end_call()


def _attempts(model: BaseChatModel, node: str, tracker: UsageTracker | None, limit: CallLimit | None) -> Iterator[_Attempt]:
    """The call's first request, then its resends (:func:`model_resends`), each reserved when it is reached."""
    for resends_left in reversed(range(model_resends(model) + 1)):
        yield _Attempt(model, node, tracker, limit, resends_left)


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


def call_llm_reply(
    model: BaseChatModel | None,
    prompt: PromptInput,
    *,
    node: str,
    tracker: UsageTracker | None = None,
    limit: CallLimit | None = None,
    config: RunnableConfig | None = None,
) -> LLMReply:
    """Like :func:`call_llm` but returns the full :class:`LLMReply` (text + token counts)."""
    chat_model = _require_model(model, node)
    call_config = node_call_config(node, config)
    for attempt in _attempts(chat_model, node, tracker, limit):
        with attempt:
            message = chat_model.invoke(prompt, config=call_config)
        if attempt.resend_after is None:
            return _finish(message, prompt, node, tracker, attempt.allowance)
        time.sleep(attempt.resend_after)
    raise AssertionError("unreachable: the last attempt returns or raises")


async def acall_llm_reply(
    model: BaseChatModel | None,
    prompt: PromptInput,
    *,
    node: str,
    tracker: UsageTracker | None = None,
    limit: CallLimit | None = None,
    config: RunnableConfig | None = None,
) -> LLMReply:
    """Async :func:`call_llm_reply`."""
    chat_model = _require_model(model, node)
    call_config = node_call_config(node, config)
    for attempt in _attempts(chat_model, node, tracker, limit):
        with attempt:
            message = await chat_model.ainvoke(prompt, config=call_config)
        if attempt.resend_after is None:
            return _finish(message, prompt, node, tracker, attempt.allowance)
        await asyncio.sleep(attempt.resend_after)
    raise AssertionError("unreachable: the last attempt returns or raises")


def call_llm(
    model: BaseChatModel | None,
    prompt: PromptInput,
    *,
    node: str,
    tracker: UsageTracker | None = None,
    limit: CallLimit | None = None,
    config: RunnableConfig | None = None,
) -> str:
    """Call ``model`` for graph node ``node`` and return the reply text.

    Checks ``limit`` (default: ``tracker.limit``) first, counts the call in ``tracker``.

    Raises:
        BudgetExceeded: a call limit was already reached; the model was not called.
        LLMCallError: the model call failed (network, timeout, HTTP error...); cause chained.
        KGAgentLLMError: ``model`` is ``None`` (offline mode).
    """
    return call_llm_reply(model, prompt, node=node, tracker=tracker, limit=limit, config=config).text


async def acall_llm(
    model: BaseChatModel | None,
    prompt: PromptInput,
    *,
    node: str,
    tracker: UsageTracker | None = None,
    limit: CallLimit | None = None,
    config: RunnableConfig | None = None,
) -> str:
    """Async :func:`call_llm`."""
    reply = await acall_llm_reply(model, prompt, node=node, tracker=tracker, limit=limit, config=config)
    return reply.text


class LLMCaller:
    """:func:`call_llm` with a tracker and limit bound once, for code that passes one object around.

    >>> caller = LLMCaller(UsageTracker(), CallLimit(max_calls=20))
    >>> text = caller.invoke(model, "Which relations...?", node="plan")  # doctest: +SKIP
    """

    def __init__(self, tracker: UsageTracker | None = None, limit: CallLimit | None = None) -> None:
        self.tracker = tracker if tracker is not None else UsageTracker()
        self.limit = limit

    def invoke(
        self,
        model: BaseChatModel | None,
        prompt: PromptInput,
        *,
        node: str,
        tracker: UsageTracker | None = None,
        config: RunnableConfig | None = None,
    ) -> str:
        """Call the model for ``node``; returns the reply text (see :func:`call_llm`)."""
        return self.invoke_reply(model, prompt, node=node, tracker=tracker, config=config).text

    async def ainvoke(
        self,
        model: BaseChatModel | None,
        prompt: PromptInput,
        *,
        node: str,
        tracker: UsageTracker | None = None,
        config: RunnableConfig | None = None,
    ) -> str:
        """Async :meth:`invoke`."""
        reply = await self.ainvoke_reply(model, prompt, node=node, tracker=tracker, config=config)
        return reply.text

    def invoke_reply(
        self,
        model: BaseChatModel | None,
        prompt: PromptInput,
        *,
        node: str,
        tracker: UsageTracker | None = None,
        config: RunnableConfig | None = None,
    ) -> LLMReply:
        """Like :meth:`invoke` but returns the :class:`LLMReply` with token counts."""
        return call_llm_reply(
            model, prompt, node=node, tracker=tracker or self.tracker, limit=self.limit, config=config
        )

    async def ainvoke_reply(
        self,
        model: BaseChatModel | None,
        prompt: PromptInput,
        *,
        node: str,
        tracker: UsageTracker | None = None,
        config: RunnableConfig | None = None,
    ) -> LLMReply:
        """Async :meth:`invoke_reply`."""
        return await acall_llm_reply(
            model, prompt, node=node, tracker=tracker or self.tracker, limit=self.limit, config=config
        )
