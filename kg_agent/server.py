"""The method graphs for a LangGraph server: ``langgraph dev`` (see ``langgraph.json``) or LangGraph Platform.

``rog``, ``tog``, ``tog_i`` and ``tog2`` are async graph factories: the server awaits one whenever it needs the
graph. The first call builds the graph (opens the KG, loads embeddings and ToG-2's documents: seconds of file
reads and, for an endpoint, HTTP requests) in a worker thread, so the server's event loop keeps answering
other requests and LangGraph's blocking-call detector has nothing to reject; later calls hand back the same
compiled graph at once. In Python, :func:`build_graph` gives the graph directly. The graphs are compiled
without a checkpointer or store: the server brings its own, which gives every thread its memory (follow-up
questions such as "and who directed it?" use the previous turn's answers).

Configuration, read when a graph is first built (into the graph's :class:`~kg_agent.settings.GraphSettings`):

* ``KG_AGENT_KG``: the knowledge graph (a file, an Oxigraph store folder or a SPARQL endpoint URL, as for
  :func:`kg_agent.kg.open_kg`); default: the bundled sample movie KG.
* ``KG_AGENT_MODEL``: a chat model such as ``openai:gpt-4o-mini`` (``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``
  honoured); default: none, every decision is made offline. An API key in the environment alone never selects
  a model.
* ``KG_AGENT_TIMEOUT`` (seconds per model request) and ``KG_AGENT_MAX_REPLY_TOKENS`` (cap on each reply): the
  ``--timeout`` and ``--max-reply-tokens`` of the CLI; defaults as there.
* ``KG_AGENT_KG_TIMEOUT``: seconds each request to a SPARQL endpoint may take (``--kg-timeout`` of the CLI; default
  :data:`~kg_agent.kg.naming.DEFAULT_KG_TIMEOUT`).
* ``KG_AGENT_LANGUAGES`` (``de,en``), ``KG_AGENT_LABEL_PREDICATES`` and ``KG_AGENT_ALIAS_PREDICATES`` (full IRIs,
  separated by spaces): how the KG's nodes are named, as ``--language``, ``--label-predicate`` and
  ``--alias-predicate`` of the CLI (:func:`~kg_agent.kg.naming.make_naming`; defaults as there).
* ``KG_AGENT_RUN_TIMEOUT``: each run's wall-clock deadline in seconds, as ``kg-agent mcp --tool-timeout`` gives each
  ``ask`` (default :data:`~kg_agent.mcp.flags.DEFAULT_TOOL_TIMEOUT`). It is the question's time budget
  (``max_seconds``, :mod:`kg_agent.llm.budget`): past it a graph makes no model call (its offline decider decides
  instead) and explores no further, answers from what it found, and says so in ``warnings`` (``stop_reason`` is
  ``"budget"`` when that cut anything); a step already running ends first (a model request is bounded by
  ``KG_AGENT_TIMEOUT``, a SPARQL request by its own timeout).

Runs return what ``kg-agent mcp``'s ``ask`` returns at most: :data:`~kg_agent.mcp.results.MAX_ANSWERS` answers (RoG's
``max_answers``; ToG's answerer keeps as many) with at most :data:`~kg_agent.mcp.results.MAX_ANSWER_PATHS` paths
each, and RoG's state keeps only the reasoning paths its answer step reads; RoG reports each cut in ``warnings``.

Input: ``{"messages": [{"role": "user", "content": "..."}]}`` (a chat) or ``{"question": "..."}``.

Per run, a client chooses :class:`~kg_agent.settings.RunSettings` (the graphs' context schema) with the run's
``context``: ``grounding``, ``structured_output``, and budgets (``max_llm_calls``, ``max_tokens``, ``max_seconds``)
that apply only where they are tighter than the server's (``KG_AGENT_RUN_TIMEOUT`` stays the ceiling), e.g.
``client.runs.wait(thread_id, "rog", input=..., context={"grounding": "strict", "max_seconds": 10})``.
"""

from __future__ import annotations

import asyncio
import os
import threading

from langgraph.graph.state import CompiledStateGraph

from kg_agent.graphs.registry import METHODS, create_graph, method_name, options_for
from kg_agent.kg.naming import DEFAULT_KG_TIMEOUT
from kg_agent.llm.models import default_model_from_env, resolve_model_option
from kg_agent.mcp.flags import DEFAULT_TOOL_TIMEOUT
from kg_agent.mcp.results import MAX_ANSWERS
from kg_agent.settings import GraphSettings

#: Environment variable holding each run's deadline in seconds (default :data:`DEFAULT_TOOL_TIMEOUT`, as MCP's).
RUN_TIMEOUT_ENV = "KG_AGENT_RUN_TIMEOUT"
#: Environment variable holding the seconds each SPARQL endpoint request may take (``--kg-timeout`` of the CLI).
KG_TIMEOUT_ENV = "KG_AGENT_KG_TIMEOUT"

__all__ = ["rog", "tog", "tog_i", "tog2", "build_graph", "serve_graph", "METHODS"]

_lock = threading.Lock()
_graphs: dict[tuple, CompiledStateGraph] = {}
_kgs: dict[tuple, object] = {}


def build_graph(method: str) -> CompiledStateGraph:
    """The compiled graph of ``method`` (one of :data:`METHODS`; ``tog_i``, the graph's id in ``langgraph.json``,
    is ``tog-i``) for the configured KG and model, built once per configuration and then reused. No
    checkpointer: the caller or server adds one."""
    key = _configuration(method)
    method, source, naming, model, timeout, max_reply_tokens, run_timeout, kg_timeout = key
    with _lock:
        if key not in _graphs:
            from kg_agent.kg import open_kg

            if (source, naming, kg_timeout) not in _kgs:
                _kgs[source, naming, kg_timeout] = open_kg(source or None, timeout=kg_timeout, **dict(naming))
            chat_model = resolve_model_option(model or "none", timeout=timeout,
                                              max_tokens=None if max_reply_tokens is None else int(max_reply_tokens))
            # the model and deadline (GraphSettings) and the caps of kg-agent mcp's ask (the options the method takes)
            settings = GraphSettings(model=chat_model, max_seconds=run_timeout)
            graph = create_graph(method, _kgs[source, naming, kg_timeout], settings=settings,
                                 **options_for(method, {"max_answers": MAX_ANSWERS}))
            _graphs[key] = graph.compile(name=method.replace("-", "_"))
        return _graphs[key]


async def serve_graph(method: str) -> CompiledStateGraph:
    """:func:`build_graph` for a server's event loop: the graph at once when it is built, else built in a worker thread."""
    graph = _graphs.get(_configuration(method))
    return graph if graph is not None else await asyncio.to_thread(build_graph, method)


def _configuration(method: str) -> tuple:
    """What a graph is built from: the method and the environment's KG, model, timeout, reply cap and run deadline
    (read, not opened)."""
    timeout, max_reply_tokens = (_number_from_env(name) for name in ("KG_AGENT_TIMEOUT", "KG_AGENT_MAX_REPLY_TOKENS"))
    run_timeout, kg_timeout = _number_from_env(RUN_TIMEOUT_ENV), _number_from_env(KG_TIMEOUT_ENV)
    for name, value in ((RUN_TIMEOUT_ENV, run_timeout), (KG_TIMEOUT_ENV, kg_timeout)):
        if value is not None and not 0 < value < float("inf"):
            raise ValueError(f"{name} must be a number of seconds above 0, not {os.environ[name]!r}")
    return (method_name(method), os.environ.get("KG_AGENT_KG") or "", _naming_from_env(), default_model_from_env(),
            timeout, max_reply_tokens, DEFAULT_TOOL_TIMEOUT if run_timeout is None else run_timeout,
            DEFAULT_KG_TIMEOUT if kg_timeout is None else kg_timeout)


#: Environment variables naming the KG's nodes -> :func:`~kg_agent.kg.naming.make_naming`'s keywords.
NAMING_ENV = {"KG_AGENT_LANGUAGES": "languages", "KG_AGENT_LABEL_PREDICATES": "label_predicates",
              "KG_AGENT_ALIAS_PREDICATES": "alias_predicates"}


def _naming_from_env() -> tuple:
    """The naming settings the environment gives (``open_kg``'s keywords, as sorted pairs), checked now: a bad value
    is a ValueError naming the variable."""
    from kg_agent.kg.naming import make_naming

    settings = {}
    for variable, keyword in NAMING_ENV.items():
        value = (os.environ.get(variable) or "").strip()
        if value:
            settings[keyword] = value if keyword == "languages" else tuple(value.split())
            try:
                make_naming(**{keyword: settings[keyword]})
            except ValueError as exc:
                raise ValueError(f"{variable}: {exc}") from None
    return tuple(sorted(settings.items()))


def _number_from_env(name: str) -> float | None:
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {value!r}") from None


async def rog() -> CompiledStateGraph:
    """Reasoning on Graphs: link -> plan -> retrieve -> answer."""
    return await serve_graph("rog")


async def tog() -> CompiledStateGraph:
    """Think-on-Graph: beam search over the KG with relation and entity pruning and verification."""
    return await serve_graph("tog")


async def tog_i() -> CompiledStateGraph:
    """ToG-I: Think-on-Graph guided by progressively integrated instructions."""
    return await serve_graph("tog_i")


async def tog2() -> CompiledStateGraph:
    """Think-on-Graph 2.0: KG exploration guided by entity documents (the sample KG's plot summaries)."""
    return await serve_graph("tog2")
