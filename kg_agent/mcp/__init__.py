"""kg-agent as a Model Context Protocol server: its read-only KG lookups and its methods for any MCP client.

    kg-agent mcp                                   # the bundled sample movie KG, offline, over stdio
    kg-agent mcp --kg kb.oxigraph --model openai:gpt-4o-mini --transport http --port 8765   # http://127.0.0.1:8765/mcp
    KG_AGENT_MCP_TOKEN=... kg-agent mcp --transport http --host 0.0.0.0   # clients send Authorization: Bearer ...

Built on the official MCP Python SDK 2 (``mcp.server.mcpserver.MCPServer``), which serves protocol revision
2026-07-28 (stateless: no ``initialize``, no ``Mcp-Session-Id``; the client's default in SDK 2) and, to older clients
that open with the ``initialize`` handshake, 2025-11-25 back to 2024-11-05 (SDK 1 clients), over stdio and
streamable HTTP alike (:func:`~kg_agent.mcp.command.served_revisions`). Tools, each with typed, described arguments and a structured
result (an output schema):

* ``search_entities(text)``, ``entity_relations(entity)``, ``neighbours(entity, relation)`` and
  ``retrieve_paths(entity, relations)``: the lookups of :mod:`kg_agent.tools.lookups`;
* ``ask(question, method="rog")``: a whole method graph (offline unless the server was given ``--model``),
  its answers with reasoning paths or document chunks, ``grounded`` flags, plans, warnings and usage; a client
  that can elicit is asked which entity a mention means when several fit it equally well
  (:mod:`~kg_agent.mcp.elicitation`).

Resources: ``kg-agent://kg/summary`` (size, relations with their triple counts) and ``kg-agent://methods``.

Nothing here writes to the KG; every text argument is a literal (looked up by label or id, never pasted into a
query). Text arguments have length caps, lists are capped with a ``note`` saying what was cut, and bad input
(an empty or oversized argument, text holding a lone UTF-16 surrogate, an unknown entity or relation) is a
tool error (``isError`` on the wire) whose message says what to do instead; the server keeps serving.

**Scheduling.** Calls run in worker threads (the KG and the compiled graphs are thread-safe), so the server
answers pings while they run, in two pools: the cheap lookups (``search_entities``, ``entity_relations``,
``neighbours``; each bounded by its ``limit``) get :data:`~kg_agent.mcp.scheduling.MAX_CONCURRENT_LOOKUPS` slots, the heavy calls
(``retrieve_paths``, ``ask`` and the KG summary) :data:`~kg_agent.mcp.scheduling.MAX_CONCURRENT_CALLS` slots of their own, so heavy
calls never hold up a lookup. Within each pool one client holds at most :data:`~kg_agent.mcp.scheduling.MAX_CLIENT_CALLS` slots; its
further calls wait in its own queue, first come first served, without taking a slot, so one client sending many
calls at once cannot fill a pool and another client's call starts at once. A client (:func:`~kg_agent.mcp.scheduling.client_key`) is the
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

**Deadline.** Every call has a wall-clock deadline (``tool_timeout``, default :data:`~kg_agent.mcp.flags.DEFAULT_TOOL_TIMEOUT`
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
(``MCPServer(token_verifier=..., auth=AuthSettings(...))``) with :class:`~kg_agent.mcp.access.StaticTokenVerifier`, which compares in
constant time; the SDK also serves the RFC 9728 protected-resource metadata at
``/.well-known/oauth-protected-resource/mcp``. There is no OAuth authorization server: the token is a shared
secret handed out of band, and the metadata names the server itself as ``authorization_servers`` (the SDK and
RFC 9728 need one). Without a token the server serves only on a loopback address (127.0.0.0/8, ::1,
``localhost``), with the SDK's DNS-rebinding protection (a browser page on another site cannot reach it).

**At the edge** (streamable HTTP, :func:`~kg_agent.mcp.http_edge.http_app`). A request body that is not UTF-8 gets HTTP 400 with a
JSON-RPC parse error in plain words (SDK 2 alone answers a bare "Parse error"); the SDK's ERROR traceback for a client that
closed its session's event stream ("Error in standalone SSE writer", ``ClosedResourceError``) is one INFO line
(:class:`~kg_agent.mcp.http_edge.ClosedSessionLog`; shown only when INFO is logged); every other record is left as it is.

**Modules**, one job each: :mod:`~kg_agent.mcp.server` builds the server and its tools, :mod:`~kg_agent.mcp.service`
runs the calls, :mod:`~kg_agent.mcp.results` and :mod:`~kg_agent.mcp.input_checks` shape and check what goes in and
out, :mod:`~kg_agent.mcp.elicitation` (asking the user which entity),
:mod:`~kg_agent.mcp.scheduling` (fairness), :mod:`~kg_agent.mcp.access` (tokens, loopback),
:mod:`~kg_agent.mcp.http_edge` (the streamable-HTTP app), :mod:`~kg_agent.mcp.command` and :mod:`~kg_agent.mcp.flags`
(the ``kg-agent mcp`` command; ``python -m kg_agent.mcp`` is the same).
"""
