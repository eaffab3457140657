"""The MCP server itself (:func:`create_server`): an SDK 2 ``MCPServer`` with kg-agent's tools and resources, each
call run in a worker thread under the scheduler and its deadline (the package docstring says how)."""

import json
import math
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal

import anyio
from pydantic import Field

from kg_agent.graphs.registry import METHODS
from kg_agent.kg.deadline import reads_until
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.mcp.access import StaticTokenVerifier, is_loopback, server_origin
from kg_agent.mcp.flags import DEFAULT_TOOL_TIMEOUT
from kg_agent.mcp.input_checks import MAX_NAME_CHARS, MAX_PATH_RELATIONS, MAX_QUESTION_CHARS, sendable
from kg_agent.mcp.results import AskResult, NeighboursResult, PathsResult, RelationsResult, SearchResult
from kg_agent.mcp.scheduling import MAX_CLIENT_CALLS, CallKind, CallScheduler, client_key
from kg_agent.mcp.service import KGService, method_descriptions
from kg_agent.settings import RunSettings
from kg_agent.tools import lookups
from kg_agent.tools.lookups import KGToolError

SUMMARY_URI = "kg-agent://kg/summary"


METHODS_URI = "kg-agent://methods"


Limit = Annotated[int, Field(ge=1, le=lookups.MAX_LIMIT, description=f"most items to return (1-{lookups.MAX_LIMIT})")]


EntityArg = Annotated[str, Field(description="an entity label as written in the KG (e.g. 'Tom Hanks') or its id; "
                                 f"at most {MAX_NAME_CHARS} characters")]


def create_server(kg: KnowledgeGraph, *, model=None, documents=None, host: str = "127.0.0.1", port: int = 8000,
                  token: str | None = None, tool_timeout: float = DEFAULT_TOOL_TIMEOUT,
                  client_calls: int | None = MAX_CLIENT_CALLS):
    """An ``MCPServer`` (MCP Python SDK 2) with kg-agent's tools and resources over ``kg`` (run it with
    ``.run("stdio")``, or ``anyio.run(serve_http, server, host, port)`` for streamable HTTP with the checks of
    :func:`http_app`).

    Args:
        host, port: where the streamable-HTTP transport listens (the protected-resource metadata names it).
        token: the bearer token HTTP clients must send (see the module docstring); ``None``: none, and then
            ``host`` must be a loopback address (a ``ValueError`` otherwise).
        tool_timeout: seconds each tool call may take, from its arrival, before it is stopped with a tool error.
        client_calls: slots of each pool one client (:func:`client_key`) may hold at once (:class:`CallScheduler`);
            ``None``: no per-client cap (stdio, where there is one client).
    """
    from mcp.server.auth.settings import AuthSettings
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import InputRequiredResult, ToolAnnotations

    from kg_agent.mcp.elicitation import answer_choosing, can_elicit, warn_ambiguous

    if isinstance(tool_timeout, bool) or not isinstance(tool_timeout, int | float) or not 0 < tool_timeout < math.inf:
        raise ValueError(f"tool_timeout must be a positive number of seconds, not {tool_timeout!r}")
    if token is None and not is_loopback(host):
        raise ValueError(f"refusing to serve on {host} without a token: pass token=... or a loopback host")
    MethodName = Literal[METHODS]  # the ask tool's argument type
    method_help = "the reasoning method: " + "; ".join(f"{name}: {text}" for name, text in method_descriptions().items())
    service = KGService(kg, model=model, documents=documents, max_seconds=tool_timeout)
    if documents is not None:
        service.graph("tog2")  # bad documents fail here, at start-up, not at the first ask
    scheduler = CallScheduler(client_calls=client_calls)

    async def run(ctx: Context | None, what: str, advice: str, kind: CallKind, function: Callable, *args):
        """``function(*args)`` in a worker thread once the calling client (:func:`client_key`) has a slot of the
        ``kind`` pool (:class:`CallScheduler`); a tool error (the SDK's ``ToolError``, whose text the client sees)
        when it fails with :class:`KGToolError` or is not done ``tool_timeout`` seconds from now. At the deadline
        the thread is abandoned and its slot freed (see the module docstring)."""
        started = False
        deadline = time.monotonic() + tool_timeout

        def call() -> Any:
            with reads_until(deadline):  # the KG reads of a call abandoned at its deadline stop there too
                return sendable(function(*args))

        try:
            with anyio.move_on_after(tool_timeout):
                async with scheduler.slot(client_key(ctx), kind):
                    started = True
                    return await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
        except KGToolError as exc:
            raise ToolError(str(exc)) from None
        if not started:
            raise ToolError(f"{what} waited {tool_timeout:g} s for a free worker and was not started "
                            f"({scheduler.busy_reason(kind)}); send fewer calls at once or raise --tool-timeout")
        raise ToolError(f"{what} took longer than {tool_timeout:g} s and was stopped; {advice} or raise --tool-timeout")

    access: dict[str, Any] = {}
    if token is not None:
        origin = server_origin(host, port)
        access = {"token_verifier": StaticTokenVerifier(token),
                  "auth": AuthSettings(issuer_url=origin, resource_server_url=f"{origin}/mcp", validate_token_resource=False)}
    server = MCPServer("kg-agent", log_level="WARNING", **access, instructions=(
        f"Read-only tools over the knowledge graph {kg.name!r}: find entities by name (search_entities), see their "
        "relations (entity_relations), follow one relation (neighbours) or a relation path (retrieve_paths), or let "
        "a reasoning method answer a whole question (ask). " + lookups.INVERSE_NOTE))
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only)
    async def search_entities(
        text: Annotated[str, Field(description=f"(part of) a name to look for, at most {MAX_NAME_CHARS} characters")],
        limit: Limit = 10,
        ctx: Context | None = None,
    ) -> SearchResult:
        """Find entities of the knowledge graph by name: the label as written first, then labels containing the
        text, then similar spellings; each with some of its relations."""
        return await run(ctx, "search_entities", "give more of the name", "lookup", service.search_entities, text, limit)

    @server.tool(annotations=read_only)
    async def entity_relations(entity: EntityArg, limit: Limit = 50, ctx: Context | None = None) -> RelationsResult:
        """An entity's relations, outgoing and incoming (^relation), each with how many entities it reaches."""
        return await run(ctx, "entity_relations", "lower the limit", "lookup", service.entity_relations, entity, limit)

    @server.tool(annotations=read_only)
    async def neighbours(
        entity: EntityArg,
        relation: Annotated[str, Field(description="one of the entity's relations (see entity_relations); "
                                       "^relation walks it backwards")],
        limit: Limit = 20,
        ctx: Context | None = None,
    ) -> NeighboursResult:
        """The entities one relation leads to from an entity, with their total count."""
        return await run(ctx, "neighbours", "lower the limit", "lookup", service.neighbours, entity, relation, limit)

    @server.tool(annotations=read_only)
    async def retrieve_paths(
        entity: EntityArg,
        relations: Annotated[list[str], Field(description=f"the relation path to follow, in order (at most "
                                              f"{MAX_PATH_RELATIONS}): relation names as entity_relations lists them, '^' "
                                              "in front of one walked backwards")],
        limit: Limit = 20,
        ctx: Context | None = None,
    ) -> PathsResult:
        """RoG's constrained search: the reasoning paths a relation path yields from an entity, and the
        distinct entities they end in."""
        return await run(ctx, "retrieve_paths", "follow a shorter relation path, lower the limit", "heavy",
                         service.retrieve_paths, entity, relations, limit)

    @server.tool(annotations=read_only)
    async def ask(
        question: Annotated[str, Field(description="a natural-language question naming at least one entity of the KG "
                                       f"(brackets help: 'who directed [Big]'); at most {MAX_QUESTION_CHARS} characters")],
        method: Annotated[MethodName, Field(description=method_help)] = "rog",
        settings: Annotated[RunSettings | None, Field(description=(
            "this run's settings, each optional: grounding, structured_output, and budgets (max_llm_calls, "
            "max_tokens, max_seconds) that can only be tighter than the server's"))] = None,
        ctx: Context | None = None,
    ) -> AskResult | InputRequiredResult:
        """Answer a question with one of kg-agent's reasoning methods: the answers with the reasoning paths (or
        document chunks) behind them, grounded flags, the plans, warnings and LLM usage. A client that can elicit
        is asked which entity a mention means when several fit it equally well (kg_agent.mcp.elicitation)."""
        async def answer_all() -> AskResult:
            return await run(ctx, "ask", "ask a narrower question", "heavy", service.ask, question, method, settings)

        async def choose(choices: dict[str, str]) -> AskResult | dict:
            return await run(ctx, "ask", "ask a narrower question", "heavy", service.ask_choosing, question, method,
                             settings, choices)

        if ctx is not None and can_elicit(ctx):
            return await answer_choosing(ctx, choose, answer_all)
        return warn_ambiguous(await answer_all())

    @server.resource(SUMMARY_URI, name="kg_summary", mime_type="application/json",
                     description="The knowledge graph: its size and its relations with their triple counts")
    async def summary_resource() -> str:  # the SDK gives a static resource no Context: no client key, see run
        summary = await run(None, "reading the KG summary", "use entity_relations on single entities", "heavy", service.summary)
        return json.dumps(summary, ensure_ascii=False, indent=1)

    @server.resource(METHODS_URI, name="methods", mime_type="application/json",
                     description="The reasoning methods the ask tool runs, the chat model and ToG-2's documents")
    async def methods_resource() -> str:
        return json.dumps(service.methods(), ensure_ascii=False, indent=1)

    return server
