"""Steps: how kg-agent runs a node's work, with and without an event loop (the layer below ``tools``).

A node, or a decider that asks a model, is written once, as a generator (its *steps*): ``asked = yield request``
asks one model decision (a :class:`ModelRequest`, which :class:`~kg_agent.tools.shared.decider.LLMDecision` makes);
``results = yield [steps, ...]`` runs independent steps (other generators, model requests, or plain zero-argument
calls) concurrently and gets their results in order. :func:`run_steps` drives
steps synchronously (a batch in a bounded thread pool, ``max_concurrency`` at a time); :func:`arun_steps` drives the
same steps with the model's native async calls (a batch through :func:`ask_all`) and runs the steps' own work (KG,
embeddings, documents) in worker threads, so a server's event loop is never blocked by a SPARQL request or an
embedding. :func:`graph_node` turns a node's steps into a LangGraph node with both paths, so ``invoke`` and
``ainvoke`` run the same logic; :func:`decide` is how a node asks a decider: each decider protocol has one method, which
returns the outcome (an offline or custom decider) or steps giving it (an LLM decider), :data:`Decided`.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import functools
import threading
from collections.abc import Awaitable, Callable, Generator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, TypeVar, runtime_checkable

from langchain_core.runnables import RunnableLambda

from kg_agent.llm.usage import merge_usage, missing_usage, tallied
from kg_agent.settings import DEFAULT_MAX_CONCURRENCY

T = TypeVar("T")


@runtime_checkable
class ModelRequest(Protocol):
    """One model decision a step yields: run in the step's thread (``run``) or natively async (``arun``)."""

    def run(self) -> Any: ...

    async def arun(self) -> Any: ...


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


#: What a decider's or a node's steps yield: one :class:`ModelRequest` (an LLM decision's ``Ask``), a nested steps
#: generator, a plain zero-argument call, or a list of those to run concurrently.
Steps = Generator[Any, Any, T]

#: What a decider's one method returns: its outcome (an offline or custom decider), or steps giving it (an LLM
#: decider: ``asked = yield decision.request(prompt, parse)``, see :class:`~kg_agent.tools.shared.decider.LLMDecision`).
#: Each decider protocol (``Planner.plan``, ``RelationPruner.score_relations``, ...) returns ``Decided[ItsOutcome]``.
Decided = T | Steps[T]


def decide(method: Callable[..., Decided[T]], *args: Any, **kwargs: Any) -> Steps[T]:
    """One decision as steps: ``method(*args, **kwargs)``, a decider's method (``decide(planner.plan, question,
    entities, k=3)``), whichever it returns. Steps (an LLM decider) are run by the runtime: their model calls
    natively async under ``ainvoke``, concurrently in a batch. An outcome (an offline or custom decider) is its
    decision, made where these steps run (a worker thread under ``ainvoke``, a pool thread in a batch); the model
    calls it made, if any, are held to the question's budget where they are made and added to its outcome's usage
    when it left them out (:func:`counted`)."""
    with tallied() as tally:
        outcome = method(*args, **kwargs)
    if isinstance(outcome, Generator):
        return (yield from outcome)
    return counted(outcome, tally.as_dict())


def decided(method: Callable[..., Decided[T]], *args: Any, **kwargs: Any) -> T:
    """``method(*args, **kwargs)``'s outcome, outside a graph: a decider's decision, run synchronously
    (:func:`run_steps` of :func:`decide`)."""
    return run_steps(decide(method, *args, **kwargs))


def counted(outcome: T, calls: dict) -> T:
    """A plain decider's ``outcome``, with the model calls it made (``calls``, a usage tally) but left out of its
    ``usage`` added there, so the state's usage, which the question's budget counts from, holds every call made. The
    usage is a dataclass's ``usage`` field, or the last item of a tuple (an instruction integrator's)."""
    if dataclasses.is_dataclass(outcome) and "usage" in {f.name for f in dataclasses.fields(outcome)}:
        missing = missing_usage(calls, outcome.usage)
        return outcome if missing is None else dataclasses.replace(outcome, usage=merge_usage(outcome.usage, missing))
    if isinstance(outcome, tuple) and outcome and isinstance(outcome[-1], dict | type(None)):
        missing = missing_usage(calls, outcome[-1])
        return outcome if missing is None else (*outcome[:-1], merge_usage(outcome[-1], missing))
    return outcome


def _run_one(request: Any, max_concurrency: int) -> Any:
    if isinstance(request, ModelRequest):
        return request.run()
    if isinstance(request, Generator):
        return run_steps(request, max_concurrency=max_concurrency)
    if isinstance(request, list):
        return _run_batch(request, max_concurrency)
    return request()


def _run_batch(requests: list, max_concurrency: int) -> list:
    if max_concurrency <= 1 or len(requests) <= 1:
        return [_run_one(r, max_concurrency) for r in requests]
    pool = ThreadPoolExecutor(max_workers=min(max_concurrency, len(requests)), thread_name_prefix="kg-agent-decide")
    try:
        futures = [pool.submit(contextvars.copy_context().run, _run_one, r, 1) for r in requests]
        return [f.result() for f in futures]
    finally:  # all done, or an interrupt (Ctrl-C): then the calls in flight are abandoned, not waited for
        pool.shutdown(wait=False, cancel_futures=True)


def run_steps(steps: Steps | Any, *, max_concurrency: int = DEFAULT_MAX_CONCURRENCY) -> Any:
    """Drive ``steps`` synchronously and return their result (a batch runs in a pool of ``max_concurrency``
    threads, each with a copy of the caller's context, so budgets and callbacks follow the calls); anything
    that is not a generator is returned as it is."""
    if not isinstance(steps, Generator):
        return steps
    send, value = steps.send, None
    while True:
        try:
            request = send(value)
        except StopIteration as done:
            return done.value
        try:
            value, send = _run_one(request, max_concurrency), steps.send
        except BaseException as exc:  # handed to the steps (even an interrupt: they leave a budget's context here)
            value, send = exc, steps.throw


#: Worker threads that advance steps under ``ainvoke``/``astream``: the KG's, embeddings' and document index's work
#: (SPARQL requests, ONNX runs, Chroma queries) between two model calls. Sized for many concurrent questions
#: waiting on a remote endpoint, not for the CPU; idle threads cost nothing.
STEP_THREADS = 32
_step_executor: ThreadPoolExecutor | None = None
_step_executor_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _step_executor
    with _step_executor_lock:
        if _step_executor is None:
            _step_executor = ThreadPoolExecutor(max_workers=STEP_THREADS, thread_name_prefix="kg-agent-step")
        return _step_executor


def advance(move: Callable[[Any], Any], value: Any) -> tuple[bool, Any]:
    """``(False, next request)`` or ``(True, result)`` once the steps end (a ``StopIteration`` cannot cross a
    future)."""
    try:
        return False, move(value)
    except StopIteration as done:
        return True, done.value


async def off_loop(context: contextvars.Context, function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in a worker thread, inside ``context``, so the event loop stays free meanwhile.

    A cancelled caller stops waiting at once; the call itself ends in its thread (Python cannot stop it) and its
    result is dropped."""
    future = asyncio.get_running_loop().run_in_executor(_executor(), context.run, function, *args)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        future.add_done_callback(lambda f: f.cancelled() or f.exception())  # retrieved: no "never retrieved" log
        raise


async def _arun_one(request: Any, max_concurrency: int, context: contextvars.Context) -> Any:
    if isinstance(request, ModelRequest):  # the model's native async call, on the loop, in the steps' context (budget, tally)
        return await asyncio.create_task(request.arun(), context=context)
    if isinstance(request, Generator):
        return await arun_steps(request, max_concurrency=max_concurrency, context=context)
    if isinstance(request, list):  # each in its own copy of the steps' context, as run_steps's pool threads
        return await ask_all([functools.partial(_arun_one, r, max_concurrency, context.run(contextvars.copy_context))
                              for r in request], max_concurrency=max_concurrency)
    return await off_loop(context, request)


async def arun_steps(steps: Steps | Any, *, max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
                     context: contextvars.Context | None = None) -> Any:
    """:func:`run_steps` that never blocks the event loop: the steps' own code (KG lookups, SPARQL requests,
    embeddings, document search) runs in worker threads (:data:`STEP_THREADS`), one step after another inside one
    context (``context``, default a copy of the caller's), so what a step sets there (the question's call budget,
    the KG request tally) holds for the next step and for the model calls; the model calls are the models' native
    async calls on the loop; a batch runs through :func:`ask_all`."""
    if not isinstance(steps, Generator):
        return steps
    context = context if context is not None else contextvars.copy_context()
    move, value = steps.send, None
    while True:
        done, request = await off_loop(context, advance, move, value)
        if done:
            return request
        try:
            value, move = await _arun_one(request, max_concurrency, context), steps.send
        except BaseException as exc:  # as in run_steps (a cancelled task included)
            value, move = exc, steps.throw


def placed_warnings(warnings: Sequence[str | int], outcomes: Sequence[Any]) -> list[str]:
    """A step's warnings in order, each ``int`` replaced by the warnings of that outcome (a step that runs its
    decisions as one batch keeps each decision's warnings where a sequential run would have put them)."""
    return [w for item in warnings for w in (outcomes[item].warnings if isinstance(item, int) else [item])]


def steps_of(result: Any) -> Steps:
    """Steps that give ``result`` (a node's return value, or its steps when it has any): for ``yield from``."""
    if isinstance(result, Generator):
        return (yield from result)
    return result


def synchronous(function: Callable[..., Steps[T] | T]) -> Callable[..., T]:
    """``function`` (which returns steps, or its result) as a plain function returning the result (:func:`run_steps`):
    a node written as steps as a plain function of the state, for direct callers and LangChain tools."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> T:
        return run_steps(function(*args, **kwargs))

    return run


def graph_node(node: Callable[[dict], Any], *, name: str, max_concurrency: int = DEFAULT_MAX_CONCURRENCY) -> RunnableLambda:
    """A LangGraph node with a sync and a native async path from one ``node`` (a function of the state that
    returns the update or steps giving it): ``invoke`` runs :func:`run_steps`, ``ainvoke`` :func:`arun_steps`."""
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")

    def invoke(state: dict) -> dict:
        return run_steps(node(state), max_concurrency=max_concurrency)

    async def ainvoke(state: dict) -> dict:
        context = contextvars.copy_context()  # the node's work, even a plain function's, runs off the event loop
        steps = await off_loop(context, node, state)
        return await arun_steps(steps, max_concurrency=max_concurrency, context=context)

    return RunnableLambda(invoke, afunc=ainvoke, name=name)


def add_nodes(graph: Any, nodes: dict[str, Callable[[dict], Any]], *, max_concurrency: int = DEFAULT_MAX_CONCURRENCY) -> None:
    """Add each ``name: node`` to a ``StateGraph`` as a :func:`graph_node`."""
    for name, node in nodes.items():
        graph.add_node(name, graph_node(node, name=name, max_concurrency=max_concurrency))
