"""kg-agent as a Model Context Protocol server: its read-only KG lookups and its methods for any MCP client.

    kg-agent mcp                                   # the bundled sample movie KG, offline, over stdio
    kg-agent mcp --kg kb.oxigraph --model openai:gpt-4o-mini --transport http --port 8765   # http://127.0.0.1:8765/mcp
    KG_AGENT_MCP_TOKEN=... kg-agent mcp --transport http --host 0.0.0.0   # clients send Authorization: Bearer ...

Built on the official MCP Python SDK 2 (``mcp.server.mcpserver.MCPServer``), which serves protocol revision
2026-07-28 (stateless: no ``initialize``, no ``Mcp-Session-Id``; the client's default in SDK 2) and, to older clients
that open with the ``initialize`` handshake, 2025-11-25 back to 2024-11-05 (SDK 1 clients), over stdio and
streamable HTTP alike (:func:`served_revisions`). Tools, each with typed, described arguments and a structured
result (an output schema):

* ``search_entities(text)``, ``entity_relations(entity)``, ``neighbours(entity, relation)`` and
  ``retrieve_paths(entity, relations)``: the lookups of :mod:`kg_agent.tools.lookups`;
* ``ask(question, method="rog")``: a whole method graph (offline unless the server was given ``--model``),
  its answers with reasoning paths or document chunks, ``grounded`` flags, plans, warnings and usage.

Resources: ``kg-agent://kg/summary`` (size, relations with their triple counts) and ``kg-agent://methods``.

Nothing here writes to the KG; every text argument is a literal (looked up by label or id, never pasted into a
query). Text arguments have length caps, lists are capped with a ``note`` saying what was cut, and bad input
(an empty or oversized argument, text holding a lone UTF-16 surrogate, an unknown entity or relation) is a
tool error (``isError`` on the wire) whose message says what to do instead; the server keeps serving.

**Scheduling.** Calls run in worker threads (the KG and the compiled graphs are thread-safe), so the server
answers pings while they run, in two pools: the cheap lookups (``search_entities``, ``entity_relations``,
``neighbours``; each bounded by its ``limit``) get :data:`MAX_CONCURRENT_LOOKUPS` slots, the heavy calls
(``retrieve_paths``, ``ask`` and the KG summary) :data:`MAX_CONCURRENT_CALLS` slots of their own, so heavy
calls never hold up a lookup. Within each pool one client holds at most :data:`MAX_CLIENT_CALLS` slots; its
further calls wait in its own queue, first come first served, without taking a slot, so one client sending many
calls at once cannot fill a pool and another client's call starts at once. A client (:func:`client_key`) is the
authenticated client when the server requires a token (its token: clients sharing one token share one queue),
else the connection: a handshake-era session (its ``Mcp-Session-Id``), or for 2026-07-28, which has no sessions,
the HTTP connection a request came on (a client that opens several connections gets a share on each; the pools
still bound the server). (Measured on 2 cores, SDK 1 sessions, twelve six-relation hub walks from
one session: over a SPARQL endpoint another session's ``search_entities`` waited 31 s, until its deadline, when
all calls shared one pool of 4 slots, and now answers in 0.1-1.1 s; over the in-memory MetaQA KB, 2.0 s before,
0.9 s now, the rest being Python threads sharing one interpreter lock with the event loop.) Over stdio there is
one client, and it may use every slot. ``retrieve_paths`` stops a walk at
:data:`~kg_agent.kg.paths.DEFAULT_MAX_PATHS` partial paths per step (its ``note`` says "the search stopped at
... paths"), so a walk from a hub is bounded too.

**Deadline.** Every call has a wall-clock deadline (``tool_timeout``, default :data:`DEFAULT_TOOL_TIMEOUT`
seconds, counted from the call's arrival, waiting for its turn included). At the deadline the server stops
waiting and answers a tool error saying so (and whether the call had started). A Python thread cannot be
killed: the stopped call's thread runs on to its end, but outside the slots (its slot is freed at the deadline,
so a stuck call never holds up the calls behind it). That thread's work is bounded: ``ask`` gets the same
deadline as its question budget (``max_seconds``), so its graph makes no model call after it and answers from
what it has (at most one model call in flight and the current step's offline work run on); a lookup's work is
capped by its ``limit``, and a SPARQL endpoint's or a model's request by its own timeout. Every call's KG reads
run under :func:`~kg_agent.kg.deadline.reads_until` its deadline: an Oxigraph query or neighbourhood read still
going then stops within a row.

**Authentication** (streamable HTTP). With a ``token`` (``kg-agent mcp``: ``KG_AGENT_MCP_TOKEN`` or
``--token-file``), every request to ``/mcp`` must carry ``Authorization: Bearer <token>``; a missing or wrong
one gets HTTP 401 with a ``WWW-Authenticate: Bearer`` header. This is the SDK's own resource-server auth
(``MCPServer(token_verifier=..., auth=AuthSettings(...))``) with :class:`StaticTokenVerifier`, which compares in
constant time; the SDK also serves the RFC 9728 protected-resource metadata at
``/.well-known/oauth-protected-resource/mcp``. There is no OAuth authorization server: the token is a shared
secret handed out of band, and the metadata names the server itself as ``authorization_servers`` (the SDK and
RFC 9728 need one). Without a token the server serves only on a loopback address (127.0.0.0/8, ::1,
``localhost``), with the SDK's DNS-rebinding protection (a browser page on another site cannot reach it).

**At the edge** (streamable HTTP, :func:`http_app`). A request body that is not UTF-8 gets HTTP 400 with a
JSON-RPC parse error in plain words (SDK 2 alone answers a bare "Parse error"); the SDK's ERROR traceback for a client that
closed its session's event stream ("Error in standalone SSE writer", ``ClosedResourceError``) is one INFO line
(:class:`ClosedSessionLog`; shown only when INFO is logged); every other record is left as it is.
"""

import argparse
import hmac
import inspect
import ipaddress
import json
import logging
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Hashable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Annotated, Any, Literal

import anyio
import pydantic_core
from pydantic import BaseModel, Field

from kg_agent.graphs.registry import METHODS, create_graph, graph_factory, options_for
from kg_agent.kg.deadline import reads_until
from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.naming import endpoint_options, file_options, naming_options
from kg_agent.mcp_command import DEFAULT_TOOL_TIMEOUT, MIN_TOKEN_CHARS, TOKEN_ENV, add_mcp_parser
from kg_agent.settings import GraphSettings, RunSettings
from kg_agent.tools import lookups
from kg_agent.tools.lookups import KGToolError

#: Longest entity name, relation or search text accepted (characters).
MAX_NAME_CHARS = 300
#: Longest question accepted by ``ask`` (characters).
MAX_QUESTION_CHARS = 2000
#: Most relations in one relation path.
MAX_PATH_RELATIONS = 6
#: ``ask``: answers, paths per answer and chunks per answer returned; characters of a chunk's text.
MAX_ANSWERS, MAX_ANSWER_PATHS, MAX_ANSWER_CHUNKS, MAX_CHUNK_CHARS = 20, 3, 3, 600
#: Relations listed by the KG summary.
MAX_SUMMARY_RELATIONS = 200
#: Heavy calls (``retrieve_paths``, ``ask``, the KG summary) running at once, all clients together; more wait their turn.
MAX_CONCURRENT_CALLS = 4
#: Lookups (``search_entities``, ``entity_relations``, ``neighbours``) running at once, apart from the heavy calls.
MAX_CONCURRENT_LOOKUPS = 4
#: Slots of each pool one client (:func:`client_key`) holds at once over HTTP; its further calls wait in its own queue.
MAX_CLIENT_CALLS = 2

SUMMARY_URI = "kg-agent://kg/summary"
METHODS_URI = "kg-agent://methods"


# ---------------------------------------------------------------------------------------------- methods
def method_graph(method: str, kg: KnowledgeGraph, *, model=None, documents=None, max_seconds: float | None = None):
    """The uncompiled graph of ``method`` over ``kg``; ToG-2 also gets the documents (``None``: see its docs).
    ``max_seconds``: the wall time of each question's budget (``None``: unlimited)."""
    if method not in METHODS:
        raise KGToolError(f"unknown method {method!r}: use one of {', '.join(METHODS)}")
    settings = GraphSettings(model=model, max_seconds=max_seconds)
    return create_graph(method, kg, settings=settings, **options_for(method, {"documents": documents}))


def method_descriptions() -> dict[str, str]:
    """Each method with the first line of its module's docstring."""
    return {name: (inspect.getdoc(sys.modules[graph_factory(name).__module__]) or name).splitlines()[0]
            for name in METHODS}


class EntityRef(BaseModel):
    id: str = Field(description="the entity's id (an IRI) in the knowledge graph")
    label: str = Field(description="its label")


class TopicEntity(EntityRef):
    mention: str | None = Field(default=None, description="the words of the question it was linked from (none when "
                                "given by id or carried over from the previous turn)")
    how: str | None = Field(default=None, description="how the mention matched: bracket, exact, partial or fuzzy")
    score: float | None = Field(default=None, description="how well it matched (higher is better)")


class EntityHit(EntityRef):
    relations: list[str] = Field(description="up to 10 of its relations (^relation: walked backwards)")


class SearchResult(BaseModel):
    query: str
    entities: list[EntityHit] = Field(description="best first: the label as written, then labels containing it, then similar spellings")
    note: str | None = Field(None, description="what was cut, or why nothing was found")


class RelationsResult(BaseModel):
    entity: EntityRef
    outgoing: dict[str, int] = Field(description="relation -> number of entities it leads to")
    incoming: dict[str, int] = Field(description="^relation -> number of entities it comes from")
    note: str | None = None


class NeighboursResult(BaseModel):
    entity: EntityRef
    relation: str
    count: int = Field(description="how many entities the relation leads to (all of them, before the cap)")
    neighbours: list[EntityRef]
    note: str | None = None


class PathsResult(BaseModel):
    start: list[str] = Field(description="the start entities")
    relation_path: str = Field(description="the relation path followed, <PATH> r1 <SEP> r2 </PATH>")
    count: int = Field(description="how many distinct reasoning paths were found")
    paths: list[str] = Field(description="reasoning paths 'entity -> relation -> entity -> ...'")
    answers: list[str] = Field(description="the distinct entities the paths end in")
    note: str | None = None


class Chunk(BaseModel):
    title: str | None = None
    entity: str | None = Field(None, description="the KG entity the document is about")
    text: str = Field(description=f"the chunk's text (at most {MAX_CHUNK_CHARS} characters)")


class Answer(BaseModel):
    answer: str
    grounded: bool = Field(description="False when no retrieved path or chunk supports the answer")
    paths: list[str] = Field(description="reasoning paths that support it")
    chunks: list[Chunk] = Field(default_factory=list, description="document chunks that support it (ToG-2)")
    note: str | None = None


class Plan(BaseModel):
    text: str = Field(description="a relation path, <PATH> r1 <SEP> r2 </PATH>")
    score: float
    source: str = Field(description="who made it: llm, exemplar, similarity ...")


class AskResult(BaseModel):
    question: str = Field(description="the question as the method read it")
    method: str
    topic_entities: list[TopicEntity]
    answers: list[Answer] = Field(description="best first")
    plans: list[Plan] = Field(default_factory=list, description="RoG's relation-path plans")
    stop_reason: str = ""
    warnings: list[str] = Field(default_factory=list)
    usage: dict[str, Any] = Field(default_factory=dict, description="LLM calls and tokens (empty when offline)")
    note: str | None = None


# ---------------------------------------------------------------------------------------------- input checks
def checked_text(value: str | None, what: str, *, max_chars: int = MAX_NAME_CHARS) -> str:
    """``value`` stripped; :class:`KGToolError` when it is empty, longer than ``max_chars`` or not valid Unicode
    (a lone UTF-16 surrogate, which JSON's ``\\ud800`` escape can carry and no reply could send back)."""
    text = (value or "").strip()
    if not text:
        raise KGToolError(f"no {what} given")
    if len(text) > max_chars:
        raise KGToolError(f"the {what} is {len(text)} characters long; at most {max_chars} are accepted")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise KGToolError(f"the {what} holds an invalid character (a lone UTF-16 surrogate, character {exc.start + 1}); "
                          "send valid Unicode") from None
    return text


def checked_relations(relations: list[str] | str) -> list[str]:
    """A relation path's relations, each checked for length; at most :data:`MAX_PATH_RELATIONS`."""
    items = [relations] if isinstance(relations, str) else list(relations)
    if len(items) > MAX_PATH_RELATIONS:
        raise KGToolError(f"{len(items)} relations given; a relation path has at most {MAX_PATH_RELATIONS}")
    rels = lookups.relation_list([checked_text(r, "relation") for r in items])
    if len(rels) > MAX_PATH_RELATIONS:
        raise KGToolError(f"{len(rels)} relations given; a relation path has at most {MAX_PATH_RELATIONS}")
    return rels


def sendable(result: Any) -> Any:
    """``result`` when it can be sent as JSON; :class:`KGToolError` when text from the KG holds a lone UTF-16
    surrogate (e.g. a SPARQL endpoint's ``\\ud800`` escape), instead of the SDK's serializer error."""
    try:
        pydantic_core.to_json(result)
    except pydantic_core.PydanticSerializationError as exc:
        if "surrogates not allowed" not in str(exc):
            raise
        raise KGToolError("the knowledge graph's text for this result holds an invalid character (a lone UTF-16 "
                          "surrogate), so it cannot be sent; fix that text in the KG or ask about other entities") from None
    return result


# ---------------------------------------------------------------------------------------------- the service
class KGService:
    """The KG, the model and the compiled method graphs behind the server's tools; plain synchronous calls.
    ``max_seconds``: the wall time of each ``ask``'s question budget (``None``: unlimited)."""

    def __init__(self, kg: KnowledgeGraph, *, model=None, documents=None, max_seconds: float | None = None) -> None:
        self.kg = kg
        self.model = model
        self.documents = documents
        self.max_seconds = max_seconds
        self._graphs: dict[str, Any] = {}
        self._summary: dict | None = None
        self._lock = threading.Lock()

    def search_entities(self, text: str, limit: int) -> SearchResult:
        """Entities by name (no match is an empty list with a note naming the closest labels)."""
        return SearchResult.model_validate(lookups.search_entities(self.kg, checked_text(text, "text"), limit=limit))

    def entity_relations(self, entity: str, limit: int) -> RelationsResult:
        """An entity's relations with their fan-out."""
        found = lookups.entity_relations(self.kg, checked_text(entity, "entity"), limit=limit)
        return RelationsResult.model_validate(found)

    def neighbours(self, entity: str, relation: str, limit: int) -> NeighboursResult:
        """The entities one relation leads to."""
        found = lookups.neighbours(self.kg, checked_text(entity, "entity"), checked_text(relation, "relation"), limit=limit)
        return NeighboursResult.model_validate(found)

    def retrieve_paths(self, entity: str, relations: list[str], limit: int) -> PathsResult:
        """The reasoning paths a relation path yields from an entity."""
        rels = checked_relations(relations)
        found = lookups.retrieve(self.kg, rels, entity=checked_text(entity, "entity"), limit=limit)
        return PathsResult.model_validate(found)

    def graph(self, method: str):
        """The compiled graph of ``method``, built on first use."""
        with self._lock:
            if method not in self._graphs:
                self._graphs[method] = method_graph(method, self.kg, model=self.model, documents=self.documents,
                                                    max_seconds=self.max_seconds).compile()
            return self._graphs[method]

    def ask(self, question: str, method: str, settings: RunSettings | None = None) -> AskResult:
        """A method's answer, run with ``settings`` (:class:`~kg_agent.settings.RunSettings`: grounding, structured
        output, tighter budgets); :class:`KGToolError` when the question names no entity of the KG."""
        question = checked_text(question, "question", max_chars=MAX_QUESTION_CHARS)
        state = self.graph(method).invoke({"question": question}, context=settings)
        if not state.get("topic_entities"):
            reasons = [w.removeprefix("link: ") for w in state.get("warnings") or [] if w.startswith("link:")]
            reason = "; ".join(reasons).rstrip(". ") or "no entity of the knowledge graph found in the question"
            raise KGToolError(f"{reason}. Name an entity as the KG writes it, e.g. in [brackets] "
                              "(search_entities finds labels).")
        return ask_result(state, method=method)

    def summary(self) -> dict:
        """Size and relations (with triple counts) of the KG, computed once."""
        with self._lock:
            if self._summary is None:
                self._summary = kg_summary(self.kg)
            return self._summary

    def methods(self) -> dict:
        """The methods ``ask`` runs, the chat model and ToG-2's documents."""
        docs = "configured" if self.documents else "none given (the bundled plot summaries with the sample KG, else KG only)"
        return {
            "methods": method_descriptions(),
            "model": type(self.model).__name__ if self.model is not None else "none (offline deciders)",
            "tog2_documents": docs,
        }


def ask_result(state: dict, *, method: str) -> AskResult:
    """The structured result of a method run: answers with their evidence, capped, with a note on what was cut."""
    notes: list[str | None] = []
    answers, note = lookups.capped(state.get("answers") or [], MAX_ANSWERS, "answers")
    notes.append(note)
    shown = []
    for record in answers:
        paths = [p["text"] for p in record.get("paths") or []]
        chunks = record.get("chunks") or []
        if len(paths) > MAX_ANSWER_PATHS or len(chunks) > MAX_ANSWER_CHUNKS:
            notes.append(f"at most {MAX_ANSWER_PATHS} paths and {MAX_ANSWER_CHUNKS} chunks shown per answer")
        shown.append(Answer(
            answer=record["answer"], grounded=bool(record.get("grounded", True)), paths=paths[:MAX_ANSWER_PATHS],
            chunks=[Chunk(title=c.get("title"), entity=c.get("entity_label") or c.get("entity"),
                          text=str(c.get("text", ""))[:MAX_CHUNK_CHARS]) for c in chunks[:MAX_ANSWER_CHUNKS]],
            note=record.get("note"),
        ))
    plans = [Plan(text=p["text"], score=float(p.get("score", 0.0)), source=str(p.get("source", "")))
             for p in state.get("plans") or []]
    return AskResult(
        question=state.get("question", ""), method=method,
        topic_entities=[TopicEntity(id=e["id"], label=e["label"], mention=e.get("mention"), how=e.get("how"),
                                    score=e.get("score")) for e in state.get("topic_entities") or []],
        answers=shown, plans=plans, stop_reason=state.get("stop_reason") or "",
        warnings=list(state.get("warnings") or []), usage=dict(state.get("usage") or {}),
        note="; ".join(dict.fromkeys(n for n in notes if n)) or None,
    )


def kg_summary(kg: KnowledgeGraph) -> dict:
    """``{"name", "triples", "relation_count", "relations": {name: triples}}``, relations most frequent first."""
    names = {kg.relation_iri(name): name for name in kg.relation_names()}
    counts: dict[str, int] = dict.fromkeys(names.values(), 0)
    note = None
    try:
        for predicate, count in kg.query("SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p"):
            if str(predicate) in names:
                counts[names[str(predicate)]] = int(count)
    except (KGError, ValueError) as exc:  # an endpoint that refuses aggregates: names without counts
        note = f"triple counts unavailable: {exc}"
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    shown, cut = lookups.capped(ranked, MAX_SUMMARY_RELATIONS, "relations")
    summary = {"name": kg.name, "triples": len(kg), "relation_count": len(ranked), "relations": dict(shown),
               "inverse_relations": lookups.INVERSE_NOTE}
    return lookups.with_notes(summary, [cut, note])


# ---------------------------------------------------------------------------------------------- access
def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (127.0.0.0/8, ::1) or ``localhost``."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name, a wildcard spelled otherwise, garbage: not loopback
        return False


def url_host(host: str) -> str:
    """``host`` as a URL writes it (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host


def server_origin(host: str, port: int) -> str:
    """``http://host:port``."""
    return f"http://{url_host(host)}:{port}"


def checked_token(token: str, what: str = "the token") -> str:
    """``token`` when it can be a bearer token: printable ASCII without spaces, at least :data:`MIN_TOKEN_CHARS`
    characters; else a ``ValueError`` naming ``what``."""
    if not token or not all("!" <= char <= "~" for char in token):
        raise ValueError(f"{what} must be printable ASCII without spaces")
    if len(token) < MIN_TOKEN_CHARS:
        raise ValueError(f"{what} is {len(token)} characters long; use at least {MIN_TOKEN_CHARS}, e.g. from "
                         "python -c 'import secrets; print(secrets.token_urlsafe(32))'")
    return token


class StaticTokenVerifier:
    """The MCP SDK's ``TokenVerifier`` for one shared bearer token, compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = checked_token(token).encode()

    async def verify_token(self, token: str):
        """An ``AccessToken`` for the right token, ``None`` (HTTP 401) for any other."""
        from mcp.server.auth.provider import AccessToken

        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token=token, client_id="kg-agent-mcp-token", scopes=[])
        return None


def loopback_security(host: str):
    """The SDK's DNS-rebinding protection for a loopback ``host``: only Host and Origin headers naming a loopback
    address are served (the SDK turns it on by itself only for 127.0.0.1, ::1 and localhost)."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = list(dict.fromkeys(["127.0.0.1", "localhost", "[::1]", url_host(host)]))
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=[f"{name}:*" for name in names],
                                     allowed_origins=[f"http://{name}:*" for name in names])


# ---------------------------------------------------------------------------------------------- scheduling
#: The pool a tool call runs in: ``lookup`` (cheap, bounded by a ``limit``) or ``heavy`` (path walks, methods).
CallKind = Literal["lookup", "heavy"]


def client_key(ctx: Any) -> Hashable | None:
    """Who a tool call comes from, for :class:`CallScheduler`: the authenticated client (its bearer token's
    principal) when the server requires a token; else the connection: the ``Mcp-Session-Id`` of a handshake-era
    (2025-11-25 and earlier) streamable-HTTP session, or the HTTP connection (the client's address and port) of a
    2026-07-28 request, which carries no session. ``None`` over stdio (one client) and outside a request.
    ``ctx`` is the SDK's ``Context`` of the call (``None``: none)."""
    from mcp.server.mcpserver import authenticated_principal

    if ctx is None:
        return None
    try:
        request_context = ctx.request_context
    except ValueError:  # a Context outside a request
        return None
    principal = authenticated_principal(request_context)
    if principal is not None:
        return ("client", principal)
    request = request_context.request  # the HTTP request (Starlette's); None over stdio
    if request is None:
        return None
    session = request.headers.get("mcp-session-id")
    if session:
        return ("session", session)
    return ("connection", request.client.host, request.client.port) if request.client else None


class CallScheduler:
    """Who runs when (see the module docstring): a pool of worker slots per :data:`CallKind`, and in each pool
    at most ``client_calls`` slots per client (:func:`client_key`; ``None``: no per-client cap, for stdio's single
    client). A client's calls beyond its share wait on its own limiter, first come first served, holding no pool
    slot; a client's limiters are dropped when it has no call running or waiting."""

    def __init__(self, *, client_calls: int | None = MAX_CLIENT_CALLS) -> None:
        if client_calls is not None and client_calls < 1:
            raise ValueError(f"client_calls must be at least 1, not {client_calls!r}")
        self.pools: dict[str, anyio.CapacityLimiter] = {"lookup": anyio.CapacityLimiter(MAX_CONCURRENT_LOOKUPS),
                                                         "heavy": anyio.CapacityLimiter(MAX_CONCURRENT_CALLS)}
        self.client_calls = client_calls
        self._clients: dict[tuple[Hashable | None, str], anyio.CapacityLimiter] = {}

    @asynccontextmanager
    async def slot(self, client: Hashable | None, kind: CallKind):
        """Hold a slot of the ``kind`` pool for ``client``: first the client's turn, then a free slot. ``client``
        ``None``: a call from no known client (all such calls share one limiter)."""
        async with AsyncExitStack() as held:
            if self.client_calls is not None:
                key = (client, kind)
                own = self._clients.get(key)
                if own is None:
                    own = self._clients[key] = anyio.CapacityLimiter(self.client_calls)
                held.callback(self._forget_if_idle, key, own)
                await held.enter_async_context(own)
            await held.enter_async_context(self.pools[kind])
            yield

    def _forget_if_idle(self, key: tuple[Hashable | None, str], limiter: anyio.CapacityLimiter) -> None:
        """Drop a client's limiter once none of its calls runs or waits (connections come and go)."""
        if limiter.borrowed_tokens == 0 and limiter.statistics().tasks_waiting == 0 and self._clients.get(key) is limiter:
            del self._clients[key]

    def busy_reason(self, kind: CallKind) -> str:
        """Why a call of ``kind`` can wait: the caps, in words."""
        total = self.pools[kind].total_tokens
        if self.client_calls is None:
            return f"the server runs at most {total:g} such calls at once"
        return f"a client runs at most {self.client_calls} such calls at once, the server {total:g}"


# ---------------------------------------------------------------------------------------------- the HTTP edge
class Utf8RequestBody:
    """ASGI middleware in front of the SDK's streamable-HTTP app: a POST body that is not UTF-8 gets HTTP 400 with a
    JSON-RPC parse error saying so and where (SDK 2 answers 400 too, but with a bare "Parse error" on 2026-07-28 and
    its JSON parser's words on the handshake era; SDK 1 answered 500). The body is read once and handed on
    unchanged; one over ``max_body_size`` bytes is handed on unchecked, for the SDK's own 413."""

    def __init__(self, app, *, max_body_size: int) -> None:
        self.app = app
        self.max_body_size = max_body_size

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        received: list[dict] = []
        size, complete = 0, False
        while size <= self.max_body_size and not complete:
            message = await receive()
            received.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            complete = not message.get("more_body", False)
        if complete and size <= self.max_body_size:
            body = b"".join(message.get("body", b"") for message in received)
            try:
                body.decode("utf-8")
            except UnicodeDecodeError as exc:
                from starlette.responses import JSONResponse

                reason = (f"Parse error: the request body is not valid UTF-8 (byte 0x{body[exc.start]:02x} at offset "
                          f"{exc.start}); send JSON encoded as UTF-8")
                refusal = JSONResponse({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": reason}},
                                       status_code=400)
                await refusal(scope, receive, send)
                return

        async def replay():
            return received.pop(0) if received else await receive()

        await self.app(scope, replay, send)


class ClosedSessionLog(logging.Filter):
    """For the SDK's ``mcp.server.streamable_http`` logger: its ERROR with a traceback when a client has closed its
    session's event stream ("Error in standalone SSE writer" with ``ClosedResourceError`` or
    ``BrokenResourceError``) becomes one INFO line, kept only when INFO is logged. Every other record passes as it is."""

    MESSAGE = "Error in standalone SSE writer"

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if record.msg != self.MESSAGE or not isinstance(error, anyio.ClosedResourceError | anyio.BrokenResourceError):
            return True
        record.levelno, record.levelname = logging.INFO, logging.getLevelName(logging.INFO)
        record.msg, record.args = "an MCP client closed its session's event stream", ()
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return logging.getLogger(record.name).isEnabledFor(logging.INFO)


def quiet_closed_sessions() -> None:
    """Put :class:`ClosedSessionLog` on the SDK's streamable-HTTP logger (once)."""
    logger = logging.getLogger("mcp.server.streamable_http")
    if not any(isinstance(f, ClosedSessionLog) for f in logger.filters):
        logger.addFilter(ClosedSessionLog())


def http_app(server, host: str = "127.0.0.1"):
    """``server``'s streamable-HTTP ASGI app (the SDK's Starlette app, ``/mcp``, both protocol eras) for listening on
    ``host``, behind :class:`Utf8RequestBody`, with the SDK's closed-session tracebacks turned into INFO lines
    (:class:`ClosedSessionLog`) and, on a loopback ``host``, DNS-rebinding protection (:func:`loopback_security`)."""
    from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

    quiet_closed_sessions()
    app = server.streamable_http_app(host=host, max_request_body_size=DEFAULT_MAX_REQUEST_BODY_SIZE,
                                     transport_security=loopback_security(host) if is_loopback(host) else None)
    return Utf8RequestBody(app, max_body_size=DEFAULT_MAX_REQUEST_BODY_SIZE)


async def serve_http(server, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve :func:`http_app` with uvicorn at ``host`` and ``port``, as ``MCPServer.run("streamable-http")`` does."""
    import uvicorn

    config = uvicorn.Config(http_app(server, host), host=host, port=port, log_level=server.settings.log_level.lower())
    await uvicorn.Server(config).serve()


# ---------------------------------------------------------------------------------------------- the server
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
    from mcp.types import ToolAnnotations

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
                                              f"{MAX_PATH_RELATIONS}), e.g. ['^starred_actors', 'directed_by']")],
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
    ) -> AskResult:
        """Answer a question with one of kg-agent's reasoning methods: the answers with the reasoning paths (or
        document chunks) behind them, grounded flags, the plans, warnings and LLM usage."""
        return await run(ctx, "ask", "ask a narrower question", "heavy", service.ask, question, method, settings)

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


# ---------------------------------------------------------------------------------------------- the command
def served_revisions() -> str:
    """The MCP protocol revisions the SDK serves, in words: the stateless one(s), and the handshake era's range."""
    from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    return (f"MCP protocol revisions {', '.join(reversed(MODERN_PROTOCOL_VERSIONS))} and, by the initialize handshake, "
            f"{HANDSHAKE_PROTOCOL_VERSIONS[-1]} back to {HANDSHAKE_PROTOCOL_VERSIONS[0]}")


def register(subparsers) -> None:
    """Add the ``mcp`` sub-command (:func:`kg_agent.mcp_command.add_mcp_parser`) to ``kg-agent``'s sub-parsers."""
    add_mcp_parser(subparsers).set_defaults(handler=cmd_mcp)


def http_token(args: argparse.Namespace) -> str | None:
    """The bearer token of ``--transport http``: the first line of ``--token-file``, else ``KG_AGENT_MCP_TOKEN``
    (``None``: neither); a ``ValueError`` in the command's words when it is unusable."""
    if args.token_file is None:
        token = os.environ.get(TOKEN_ENV, "").strip()
        return checked_token(token, f"the token in {TOKEN_ENV}") if token else None
    try:
        with open(args.token_file, encoding="utf-8") as file:
            token = file.readline().strip()
    except OSError as exc:
        raise ValueError(f"cannot read the token file {args.token_file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"the token file {args.token_file} is not UTF-8 text") from None
    if not token:
        raise ValueError(f"the token file {args.token_file} has no token on its first line")
    return checked_token(token, f"the token in {args.token_file}")


def serving_token(args: argparse.Namespace) -> str | None:
    """The token the command serves with; a ``ValueError`` when it must not serve (checked before the KG loads)."""
    if args.transport != "http":
        if args.token_file is not None:
            raise ValueError("--token-file applies to --transport http only")
        return None
    token = http_token(args)
    if token is None and not is_loopback(args.host):
        raise ValueError(f"refusing to serve on {args.host} without a token: set {TOKEN_ENV} or --token-file")
    return token


def cmd_mcp(args: argparse.Namespace) -> int:
    from kg_agent.kg import open_kg
    from kg_agent.llm.models import resolve_model_args

    try:
        token = serving_token(args)
    except ValueError as exc:
        print(f"kg-agent mcp: {exc}", file=sys.stderr)
        return 2
    http = args.transport == "http"
    kg = open_kg(args.kg, backend=args.backend, cache_path=args.kg_cache, **naming_options(args), **file_options(args),
                 **endpoint_options(args))
    model = resolve_model_args(args)
    server = create_server(kg, model=model, documents=args.docs, host=args.host if http else "127.0.0.1", port=args.port,
                           token=token, tool_timeout=args.tool_timeout, client_calls=MAX_CLIENT_CALLS if http else None)
    where = f"{server_origin(args.host, args.port)}/mcp" + (", bearer token required" if token else "") if http else "stdio"
    print(f"kg-agent mcp: {kg.name} ({len(kg)} triples), {'model ' + type(model).__name__ if model else 'offline'}, "
          f"tool timeout {args.tool_timeout:g} s, serving on {where} ({served_revisions()})", file=sys.stderr, flush=True)
    if http and token is None:
        print(f"kg-agent mcp: note: no token, so any program on this machine may call the tools; set {TOKEN_ENV} or "
              "--token-file to require one", file=sys.stderr, flush=True)
    if http:
        anyio.run(serve_http, server, args.host, args.port)
    else:
        server.run("stdio")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m kg_agent.mcp_server [options]``: the same as ``kg-agent mcp [options]``."""
    parser = argparse.ArgumentParser(prog="kg_agent.mcp_server")
    register(parser.add_subparsers(dest="command", required=True))
    try:
        return cmd_mcp(parser.parse_args(["mcp", *(sys.argv[1:] if argv is None else argv)]))
    except (KGError, ValueError, FileNotFoundError) as exc:
        print(f"kg-agent mcp: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
