"""The ``StateGraph`` every method factory builds over its KG (:class:`KGStateGraph`).

* ``usage["kg_requests"]``: every node counts the HTTP requests its own context sent to a SPARQL endpoint
  (:func:`kg_agent.kg.request_tally.tally_requests`, so concurrent questions over one KG do not count each
  other's) and adds them to its ``usage`` update. Local backends (memory, Oxigraph) send none, and their
  ``usage`` has no ``kg_requests`` key.
* Each run's settings (:class:`~kg_agent.settings.RunSettings`, the graph's LangGraph context schema: grounding,
  structured output, budgets) are :func:`~kg_agent.settings.current_run_settings` while each node runs.
* The KG's persistent vector cache (:attr:`KnowledgeGraph.vector_cache_path`) is attached to the offline
  deciders' text vectors (:func:`kg_agent.tools.shared.similarity.use_vector_file`).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, cast

from langchain_core.runnables import RunnableLambda
from langgraph.graph import StateGraph
from langgraph.runtime import get_runtime

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.request_tally import tally_requests
from kg_agent.llm.budget import QuestionBudget
from kg_agent.settings import GraphSettings, RunSettings, run_settings_of, using_run_settings
from kg_agent.steps import add_nodes
from kg_agent.tools.shared.similarity import use_vector_file
from kg_agent.tools.shared.updates import combined_updates

Node = Callable[[dict], Any]


def _with_requests(update: Any, requests: int) -> Any:
    return combined_updates(update, {"usage": {"kg_requests": requests}}) if isinstance(update, dict) else update


def count_kg_requests(action: Node | RunnableLambda, kg: KnowledgeGraph) -> Node | RunnableLambda:
    """``action`` adding the KG requests it sent to ``usage["kg_requests"]`` (unchanged for a local KG).

    ``action`` is a node function or a node with a sync and an async path
    (:func:`kg_agent.steps.graph_node`); both paths are counted."""
    if not kg.batched:
        return action
    func, afunc, name = _paths_of(action)

    def run(state: dict) -> Any:
        with tally_requests() as tally:
            update = func(state)
        return _with_requests(update, tally.requests)

    if afunc is None:
        run.__name__ = name
        return run

    async def arun(state: dict) -> Any:
        with tally_requests() as tally:
            update = await afunc(state)
        return _with_requests(update, tally.requests)

    return RunnableLambda(run, afunc=arun, name=name)


def _paths_of(action: Node | RunnableLambda) -> tuple[Node, Callable[[dict], Awaitable[Any]] | None, str]:
    """A node's sync function, its async one (``None`` for a plain function) and its name."""
    if isinstance(action, RunnableLambda):
        return cast(Node, action.func), cast("Callable[[dict], Awaitable[Any]] | None", action.afunc), action.get_name()
    return action, None, getattr(action, "__name__", "node")


def _run_context() -> RunSettings:
    """The settings of the run executing this node (its LangGraph context), validated."""
    try:
        runtime = get_runtime()
    except RuntimeError:  # the node called outside a graph run
        return run_settings_of(None)
    return run_settings_of(getattr(runtime, "context", None))


def with_run_settings(action: Node | RunnableLambda) -> Node | RunnableLambda:
    """``action`` (a node function or a :func:`~kg_agent.steps.graph_node`) with its run's settings
    current while it runs (:func:`~kg_agent.settings.current_run_settings`), on both paths."""
    func, afunc, name = _paths_of(action)

    def run(state: dict) -> Any:
        with using_run_settings(_run_context()):
            return func(state)

    if afunc is None:
        run.__name__ = name
        return run

    async def arun(state: dict) -> Any:
        with using_run_settings(_run_context()):
            return await afunc(state)

    return RunnableLambda(run, afunc=arun, name=name)


class KGStateGraph(StateGraph[Any, Any, Any, Any]):
    """A ``StateGraph`` over one KG whose nodes count their KG requests (:func:`count_kg_requests`) and see their
    run's settings (:func:`with_run_settings`; the context schema is :class:`~kg_agent.settings.RunSettings`), and
    whose offline deciders keep text vectors in the KG's vector cache file.

    Args:
        state_schema, input_schema, output_schema: as for ``StateGraph``.
        kg: the knowledge graph the nodes query.
    """

    def __init__(self, state_schema: type, *, kg: KnowledgeGraph, input_schema: type | None = None,
                 output_schema: type | None = None) -> None:
        super().__init__(state_schema, context_schema=RunSettings, input_schema=input_schema, output_schema=output_schema)
        self.kg = kg
        use_vector_file(kg.vector_cache_path)

    def add_node(self, node, action=None, **kwargs):  # noqa: ANN001, ANN201  (StateGraph's signature)
        if action is not None:
            action = with_run_settings(count_kg_requests(action, self.kg))
        return super().add_node(node, action, **kwargs)


def question_budget(settings: GraphSettings, *, auto_calls: int | None = None, answer_reserve: int = 0) -> QuestionBudget:
    """The budget of each question of a graph built with ``settings`` (``max_llm_calls="auto"``: ``auto_calls``, the
    method's own bound); ``answer_reserve`` calls kept for the answer."""
    return QuestionBudget(max_llm_calls=settings.call_limit(auto_calls), max_tokens=settings.max_tokens,
                          max_seconds=settings.max_seconds, answer_reserve=answer_reserve)


def wired_graph(state_schema: type, kg: KnowledgeGraph, settings: GraphSettings, nodes: Mapping[str, Node],
                edges: Mapping[str, str | Callable[[dict], str]], *, input_schema: type | None = None,
                output_schema: type | None = None) -> KGStateGraph:
    """A method's uncompiled graph: its ``nodes`` (each a :func:`~kg_agent.steps.graph_node`, asking at most
    ``settings.max_concurrency`` decisions at once) and ``edges`` (``source: target``, or ``source: router``, a
    function of the state whose ``Literal`` return type names the targets; ``START`` and ``END`` as LangGraph's)."""
    graph = KGStateGraph(state_schema, kg=kg, input_schema=input_schema, output_schema=output_schema)
    add_nodes(graph, dict(nodes), max_concurrency=settings.max_concurrency)
    for source, target in edges.items():
        if isinstance(target, str):
            graph.add_edge(source, target)
        else:
            graph.add_conditional_edges(source, target)
    return graph


class OfflineMethod:
    """A method's graph without a model (``build()``, compiled on first use, without a checkpointer): what the method
    answers offline, for a model's answer step under grounding ``"prefer"`` and ``"strict"``
    (:class:`~kg_agent.tools.tog.answer.OfflineRun`). Each run starts in a fresh context, apart from the calling
    run's settings, budget, callbacks and checkpoints; it makes no model call."""

    def __init__(self, name: str, build: Callable[[], StateGraph]) -> None:
        self.name = name
        self._build = build
        self._compiled: Any = None
        self._lock = threading.Lock()

    def run(self, question: str, topic_entities: Sequence[dict]) -> dict:
        """The offline method's result for ``question`` from ``topic_entities`` (linked from the question when there
        are none)."""
        with self._lock:
            if self._compiled is None:
                self._compiled = self._build().compile(checkpointer=False)
        given: dict = {"question": question}
        if topic_entities:
            given["topic_entities"] = [entity["id"] for entity in topic_entities]
        return contextvars.Context().run(self._compiled.invoke, given)
