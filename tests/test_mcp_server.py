"""``kg-agent mcp`` (:mod:`kg_agent.mcp`) used through the official MCP SDK 2 client (``mcp.Client``), as an
MCP client would: on protocol revision 2026-07-28 (the client's default: it probes ``server/discover``) and on the
handshake era's 2025-11-25 (``mode="legacy"``, an older client's ``initialize``). tests/test_mcp_clients.py adds an
SDK 1.x client and the MCP Inspector.

The server tests start the real command in a subprocess (``python -m kg_agent.cli mcp`` over stdio, and
``python -m kg_agent.mcp --transport http`` on a free port of 127.0.0.1) with no OpenAI key in its
environment, so every method runs offline over the bundled sample movie KG. The in-process tests check
the pieces (result shaping, caps, the KG summary) without a transport.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2 is not installed (pip install 'mcp>=2.3,<3')")

from mcp import Client, StdioServerParameters

from kg_agent.mcp.input_checks import MAX_QUESTION_CHARS
from kg_agent.mcp.results import ask_result, kg_summary
from kg_agent.mcp.server import create_server
from kg_agent.mcp.service import KGService

PROJECT_ROOT = Path(__file__).resolve().parent.parent
TOOLS = ["search_entities", "entity_relations", "neighbours", "retrieve_paths", "ask"]
TWO_HOP = "who directed the films written by [Winston Groom]"
GARBAGE = "".join(chr(33 + (i * 7919) % 90) for i in range(20_000))  # 20k characters of printable noise
SPARQL_TEXT = 'Big" } ; DROP ALL ; INSERT DATA { <urn:x> <urn:y> "z" } ; SELECT * WHERE { ?s ?p ?o'
STARTUP_TIMEOUT = 120.0
#: The protocol revisions the server serves, newest first: the client's default, and an older client's handshake.
MODERN, HANDSHAKE = "2026-07-28", "2025-11-25"
MODES = {MODERN: "auto", HANDSHAKE: "legacy"}


def server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "KG_AGENT_MODEL", "KG_AGENT_MCP_TOKEN"}}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT_ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@asynccontextmanager
async def stdio_session(*args: str, revision: str = MODERN):
    """An SDK 2 client of ``kg-agent mcp [args]`` started over stdio (the way Claude Desktop starts it), speaking
    protocol ``revision``."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "kg_agent.cli", "mcp", *args],
                                   env=server_env(), cwd=str(PROJECT_ROOT))
    async with Client(params, mode=MODES[revision]) as client:
        assert client.protocol_version == revision
        yield client


@asynccontextmanager
async def http_session(url: str, revision: str = MODERN):
    """An SDK 2 client of the streamable-HTTP server at ``url``, speaking protocol ``revision``."""
    async with Client(url, mode=MODES[revision]) as client:
        assert client.protocol_version == revision
        yield client


@dataclass(frozen=True)
class HttpServer:
    url: str  # http://127.0.0.1:PORT/mcp
    log: Path  # its stdout and stderr


@contextmanager
def serve_http(log: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[HttpServer]:
    """``python -m kg_agent.mcp --transport http [args]`` on a free port of 127.0.0.1, once it accepts connections."""
    port = free_port()
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "kg_agent.mcp", "--transport", "http",
                                    "--host", "127.0.0.1", "--port", str(port), *args],
                                   cwd=PROJECT_ROOT, env=server_env() if env is None else env, stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"the MCP server exited with {process.returncode}:\n{log.read_text()[-3000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"the MCP server did not listen within {STARTUP_TIMEOUT:.0f} s:\n{log.read_text()[-3000:]}")
                time.sleep(0.3)
        yield HttpServer(f"http://127.0.0.1:{port}/mcp", log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


@pytest.fixture(scope="module")
def http_server(tmp_path_factory):
    """``python -m kg_agent.mcp --transport http`` without a token (allowed on loopback)."""
    with serve_http(tmp_path_factory.mktemp("mcp_http") / "server.log") as running:
        yield running


async def call(session: Client, tool: str, **arguments):
    return await session.call_tool(tool, arguments)


def error_text(result) -> str:
    assert result.is_error, result
    return result.content[0].text


async def exercise(session: Client) -> None:
    """What every transport must do: tools listed, a 2-hop question answered, hostile input refused, still alive."""
    listed = (await session.list_tools()).tools
    assert [t.name for t in listed] == TOOLS
    for tool in listed:
        assert tool.output_schema and tool.annotations.read_only_hint, tool.name
        assert all(p.get("description") for p in tool.input_schema["properties"].values()), tool.name
    ask_schema = next(t for t in listed if t.name == "ask").input_schema
    assert ask_schema["properties"]["method"]["enum"] == ["rog", "tog", "tog-i", "tog2"]

    answer = await call(session, "ask", question=TWO_HOP)
    assert not answer.is_error, answer
    result = answer.structured_content
    assert result["method"] == "rog" and [e["label"] for e in result["topic_entities"]] == ["Winston Groom"]
    assert result["answers"][0]["answer"] == "Robert Zemeckis" and result["answers"][0]["grounded"] is True
    assert result["answers"][0]["paths"][0] == "Winston Groom -> ^written_by -> Forrest Gump -> directed_by -> Robert Zemeckis"
    assert result["plans"][0]["text"] == "<PATH> ^written_by <SEP> directed_by </PATH>"
    assert result["usage"] == {} and result["stop_reason"] == "answered"
    assert json.loads(answer.content[0].text) == result  # the same result as text, for clients without structured content

    # this run's settings (RunSettings): a tighter time budget is applied and said; a bad setting is refused
    late = (await call(session, "ask", question=TWO_HOP, settings={"max_seconds": 1e-9})).structured_content
    assert late["answers"][0]["answer"] == "Robert Zemeckis" and any("answered late" in w for w in late["warnings"])
    assert "grounding" in error_text(await call(session, "ask", question=TWO_HOP, settings={"grounding": "sometimes"}))

    # hostile input: each a clear tool error, none a crash
    assert "20000 characters long; at most 2000" in error_text(await call(session, "ask", question=GARBAGE))
    assert "20000 characters long; at most 300" in error_text(await call(session, "search_entities", text=GARBAGE))
    assert "no question given" in error_text(await call(session, "ask", question="   "))
    assert "'rog', 'tog', 'tog-i' or 'tog2'" in error_text(await call(session, "ask", question=TWO_HOP, method="gnn"))
    unknown = error_text(await call(session, "neighbours", entity="Tom Hankz", relation="directed_by"))
    assert "'Tom Hankz' is not an entity of the knowledge graph" in unknown and "'Tom Hanks'" in unknown
    relation = error_text(await call(session, "neighbours", entity="Big", relation="married_to"))
    assert "Big has no relation 'married_to'. Its relations: directed_by, has_genre" in relation
    assert "unknown relation(s) 'flew_to'" in error_text(
        await call(session, "retrieve_paths", entity="Big", relations=["directed_by", "flew_to"]))
    # SPARQL-looking text is a name like any other: nothing matches it
    injected = await call(session, "search_entities", text=SPARQL_TEXT)
    assert not injected.is_error and injected.structured_content["entities"] == []
    assert "is not an entity of the knowledge graph" in injected.structured_content["note"]

    # still serving, and the KG is unchanged
    assert len((await session.list_tools()).tools) == len(TOOLS)  # (ping is gone from 2026-07-28)
    found = await call(session, "neighbours", entity="Forrest Gump", relation="directed_by")
    assert found.structured_content["neighbours"] == [
        {"id": "https://kg-agent.dev/entity/Robert%20Zemeckis", "label": "Robert Zemeckis"}]
    summary = json.loads((await session.read_resource("kg-agent://kg/summary")).contents[0].text)
    assert summary["triples"] == 2935 and summary["relations"]["starred_actors"] == 378


# ---------------------------------------------------------------------------------------------- real servers
@pytest.mark.server
@pytest.mark.parametrize("revision", [MODERN, HANDSHAKE])
def test_stdio_server_answers_refuses_and_keeps_serving(revision):
    async def scenario():
        async with stdio_session(revision=revision) as session:
            await exercise(session)

    anyio.run(scenario)


@pytest.mark.server
@pytest.mark.parametrize("revision", [MODERN, HANDSHAKE])
def test_streamable_http_server_answers_refuses_and_keeps_serving(http_server, revision):
    async def scenario():
        async with http_session(http_server.url, revision) as session:
            await exercise(session)
        async with http_session(http_server.url, revision) as session:  # a second client after the first left
            assert (await call(session, "search_entities", text="Forrest Gump", limit=1)).structured_content[
                "entities"][0]["label"] == "Forrest Gump"

    anyio.run(scenario)
    started = http_server.log.read_text()
    assert "tool timeout 30 s, serving on http://127.0.0.1:" in started and (
        "MCP protocol revisions 2026-07-28 and, by the initialize handshake, 2025-11-25 back to 2024-11-05") in started
    assert started.count("note: no token, so any program on this machine may call the tools; set KG_AGENT_MCP_TOKEN") == 1


@pytest.mark.server
def test_http_server_refuses_a_foreign_host_header(http_server):
    """DNS-rebinding protection: a page on another site cannot drive the local server through the browser."""
    import httpx

    response = httpx.post(http_server.url, headers={"Host": "evil.example:80", "Accept": "application/json, text/event-stream",
                                             "Content-Type": "application/json"},
                          json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert response.status_code == 421


@pytest.mark.server
def test_sparql_text_stays_a_literal_on_a_sparql_endpoint():
    """Over a SPARQL endpoint, SPARQL-looking text is never pasted into a query and the store is unchanged."""
    from kg_agent.kg import open_kg
    from tests.sparql_server import SparqlServer, store_from_graph

    store = store_from_graph(open_kg().graph)
    before = len(store)
    with SparqlServer(store) as endpoint:
        async def scenario():
            async with stdio_session("--kg", endpoint.url) as session:
                for tool, arguments in [("search_entities", {"text": SPARQL_TEXT}),
                                        ("entity_relations", {"entity": SPARQL_TEXT[:200]}),
                                        ("neighbours", {"entity": SPARQL_TEXT[:200], "relation": "directed_by"})]:
                    result = await call(session, tool, **arguments)
                    assert result.is_error == (tool != "search_entities"), result
                directed = await call(session, "neighbours", entity="Big", relation="directed_by")
                assert directed.structured_content["neighbours"][0]["label"] == "Penny Marshall"

        anyio.run(scenario)
        queries = list(endpoint.queries)
    assert len(store) == before
    assert queries  # the endpoint really was asked
    assert not any('Big" }' in q for q in queries)  # never pasted into a query (at most an escaped literal)


@pytest.mark.server
def test_tog2_answers_from_a_document_chunk_given_with_docs(tmp_path):
    """``--kg`` and ``--docs`` as for ``kg-agent ask``: ToG-2 reads an answer the KG lacks from a chunk and cites it."""
    notes = tmp_path / "notes.jsonl"
    notes.write_text(json.dumps({"title": "Ursula K. Le Guin", "text": (
        "Ursula Kroeber Le Guin (1929-2018) was an American author best known for the Earthsea fantasy series. "
        "She won the Hugo Award and the Nebula Award for The Left Hand of Darkness in 1970.")}) + "\n")

    async def scenario():
        async with stdio_session("--kg", str(PROJECT_ROOT / "cookbook" / "data" / "my_kg.ttl"),
                                 "--docs", str(notes)) as session:
            methods = json.loads((await session.read_resource("kg-agent://methods")).contents[0].text)
            assert methods["tog2_documents"] == "configured"
            result = await call(session, "ask", question="which prize was awarded to the author of [A Wizard of Earthsea]",
                                method="tog2")
            return result.structured_content

    result = anyio.run(scenario)
    best = result["answers"][0]
    assert best["answer"] == "Hugo Award" and best["grounded"] is True
    assert best["chunks"][0]["title"] == "Ursula K. Le Guin" and "won the Hugo Award" in best["chunks"][0]["text"]


MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
#: A lone surrogate as JSON writes it (valid UTF-8 JSON; a client in another language can send it, the SDK client cannot)
SURROGATE = "\\ud800"
SURROGATE_ERROR = "holds an invalid character (a lone UTF-16 surrogate, character {}); send valid Unicode"


def raw_session(client, url: str) -> dict[str, str]:
    """An MCP session opened with plain JSON-RPC over HTTP: the headers its further requests carry."""
    opened = client.post(url, headers=MCP_HEADERS, json=INITIALIZE)
    assert opened.status_code == 200, opened.text
    headers = {**MCP_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    assert client.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
    return headers


def sse_result(response) -> dict:
    """The JSON-RPC result of a streamable-HTTP reply (JSON, or an SSE stream whose last message is the reply)."""
    assert response.status_code == 200, response.text
    if response.headers["content-type"].startswith("application/json"):
        return response.json()["result"]
    data = [line.removeprefix("data:").strip() for line in response.text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])["result"]


def modern_call(tool: str, arguments: str, number: int = 2) -> tuple[dict[str, str], bytes]:
    """The headers and body of a 2026-07-28 ``tools/call`` in plain JSON-RPC over HTTP (no session, no handshake:
    the revision and the client's capabilities ride in each request's ``_meta`` and headers)."""
    headers = {**MCP_HEADERS, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": tool}
    meta = '{"io.modelcontextprotocol/protocolVersion": "%s", "io.modelcontextprotocol/clientCapabilities": {}}' % MODERN
    body = '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "%s", "arguments": %s, "_meta": %s}}' % (
        number, tool, arguments, meta)
    return headers, body.encode("utf-8")


@pytest.mark.server
def test_a_lone_surrogate_in_an_argument_is_a_plain_tool_error(http_server):
    """JSON's \\ud800 escape makes a string no reply can carry. On 2026-07-28 each tool says so in plain words (SDK 1
    said "Error serializing to JSON: UnicodeEncodeError ..."); on the handshake era SDK 2's own JSON parser refuses
    the request (HTTP 400, a JSON-RPC parse error), and the session keeps serving."""
    import httpx

    cases = [("search_entities", '{"text": "Big%s"}' % SURROGATE, "the text " + SURROGATE_ERROR.format(4)),
             ("neighbours", '{"entity": "%s", "relation": "directed_by"}' % SURROGATE, "the entity " + SURROGATE_ERROR.format(1)),
             ("retrieve_paths", '{"entity": "Big", "relations": ["directed_by", "x%s"]}' % SURROGATE,
              "the relation " + SURROGATE_ERROR.format(2)),
             ("ask", '{"question": "who directed [Big%s]"}' % SURROGATE, "the question " + SURROGATE_ERROR.format(18))]
    with httpx.Client(timeout=60) as client:
        for number, (tool, arguments, message) in enumerate(cases, start=2):
            headers, body = modern_call(tool, arguments, number)
            result = sse_result(client.post(http_server.url, headers=headers, content=body))
            assert result["isError"] is True and result["content"][0]["text"] == f"Error executing tool {tool}: {message}"
        headers, body = modern_call("search_entities", '{"text": "Big"}')
        assert sse_result(client.post(http_server.url, headers=headers, content=body))[
            "structuredContent"]["entities"][0]["label"] == "Big"  # still serving

        headers = raw_session(client, http_server.url)
        tool, arguments, _ = cases[0]
        body = '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "%s", "arguments": %s}}' % (tool, arguments)
        refused = client.post(http_server.url, headers=headers, content=body.encode("utf-8"))
        assert refused.status_code == 400 and refused.json()["error"]["code"] == -32700, refused.text
        found = sse_result(client.post(http_server.url, headers=headers, json={
            "jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "search_entities", "arguments": {"text": "Big"}}}))
        assert found["structuredContent"]["entities"][0]["label"] == "Big"  # the session still serves


@pytest.mark.server
def test_a_request_body_that_is_not_utf8_gets_400_and_the_server_keeps_serving(http_server):
    """The SDK alone answers 500 (and logs an ERROR traceback) when its json.loads meets a byte that is not UTF-8."""
    import httpx

    with httpx.Client(timeout=60) as client:
        initialize = json.dumps(INITIALIZE).encode().replace(b'"raw"', b'"r\xffw"')
        refused = client.post(http_server.url, headers=MCP_HEADERS, content=initialize)
        offset = initialize.index(b"\xff")
        assert refused.status_code == 400 and refused.json() == {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32700, "message": f"Parse error: the request body is not valid UTF-8 (byte 0xff at offset {offset}); "
                                       "send JSON encoded as UTF-8"}}

        headers = raw_session(client, http_server.url)  # inside a session too
        call_body = b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search_entities", ' \
                    b'"arguments": {"text": "Big\xc3"}}}'
        refused = client.post(http_server.url, headers=headers, content=call_body)
        assert refused.status_code == 400 and "not valid UTF-8 (byte 0xc3 at offset" in refused.json()["error"]["message"]
        assert client.post(http_server.url, headers=MCP_HEADERS, content=b"{not json").status_code == 400  # the SDK's own

        found = sse_result(client.post(http_server.url, headers=headers, content=call_body.replace(b"\xc3", b"")))
        assert found["structuredContent"]["entities"][0]["label"] == "Big"

        headers, body = modern_call("search_entities", '{"text": "Big"}')  # a 2026-07-28 request
        refused = client.post(http_server.url, headers=headers, content=body.replace(b"Big", b"Big\xc3"))
        assert refused.status_code == 400 and "not valid UTF-8 (byte 0xc3 at offset" in refused.json()["error"]["message"]
    log = http_server.log.read_text()
    assert "Error handling POST request" not in log and "UnicodeDecodeError" not in log


@pytest.mark.server
def test_clients_closing_their_sessions_log_no_error(http_server):
    """Each closed session logged "ERROR Error in standalone SSE writer" with a ClosedResourceError traceback."""
    async def scenario():
        for _ in range(3):
            async with http_session(http_server.url) as session:
                assert not (await call(session, "search_entities", text="Big", limit=1)).is_error
        await anyio.sleep(1)  # the server has seen the sessions end

    anyio.run(scenario)
    log = http_server.log.read_text()
    assert "ERROR" not in log and "Traceback" not in log and "ClosedResourceError" not in log, log[-3000:]


def test_the_command_refuses_a_missing_kg_file(tmp_path):
    done = subprocess.run([sys.executable, "-m", "kg_agent.cli", "mcp", "--kg", str(tmp_path / "nope.ttl")],
                          cwd=PROJECT_ROOT, env=server_env(), capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 2 and "kg-agent: error:" in done.stderr and "nope.ttl" in done.stderr


def test_the_command_refuses_missing_documents_at_start(tmp_path):
    done = subprocess.run([sys.executable, "-m", "kg_agent.cli", "mcp", "--docs", str(tmp_path / "nope.jsonl")],
                          cwd=PROJECT_ROOT, env=server_env(), capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 2 and f"documents not found: {tmp_path / 'nope.jsonl'}" in done.stderr


# ---------------------------------------------------------------------------------------------- in process
@pytest.fixture(scope="module")
def sample_kg():
    from kg_agent.kg import open_kg

    return open_kg()


def test_ask_result_caps_answers_paths_and_chunks_with_a_note():
    path = {"text": "A -> r -> B"}
    state = {"question": "q", "topic_entities": [{"id": "urn:a", "label": "A"}],
             "answers": [{"answer": f"B{i}", "grounded": i % 2 == 0, "paths": [path] * 5,
                          "chunks": [{"title": "T", "entity_label": "A", "text": "x" * 5000}] * 4} for i in range(30)],
             "plans": [{"text": "<PATH> r </PATH>", "score": 0.5, "source": "similarity", "relations": ["r"]}],
             "warnings": ["w"], "usage": {"calls": 2}, "stop_reason": "answered"}
    result = ask_result(state, method="rog")
    assert len(result.answers) == 20 and [a.grounded for a in result.answers[:3]] == [True, False, True]
    assert len(result.answers[0].paths) == 3 and len(result.answers[0].chunks) == 3
    assert len(result.answers[0].chunks[0].text) == 600 and result.answers[0].chunks[0].entity == "A"
    assert result.note == ("showing the first 20 of 30 answers; at most 3 paths and 3 chunks shown per answer")
    assert result.usage == {"calls": 2} and result.plans[0].source == "similarity"


def test_kg_summary_counts_triples_per_relation(fixtures_dir):
    from kg_agent.kg import open_kg

    kg = open_kg(fixtures_dir / "kg" / "metaqa_slice.txt")
    summary = kg_summary(kg)
    assert summary["triples"] == len(kg) and summary["relation_count"] == len(kg.relation_names())
    counts = summary["relations"]
    assert list(counts.values()) == sorted(counts.values(), reverse=True)
    label_triples = len(kg) - sum(counts.values())  # rdfs:label triples are not relations
    assert 0 < label_triples < len(kg)


def test_tog2_without_documents_says_so(fixtures_dir):
    from kg_agent.kg import open_kg

    service = KGService(open_kg(fixtures_dir / "kg" / "metaqa_slice.txt"))
    assert service.methods()["tog2_documents"].startswith("none given")
    result = service.ask("who directed [5 Centimeters Per Second]", "tog2")
    assert any("no documents given" in w for w in result.warnings), result.warnings


def test_question_length_is_capped_before_any_work(sample_kg):
    from kg_agent.tools.lookups import KGToolError

    service = KGService(sample_kg)
    with pytest.raises(KGToolError, match=f"at most {MAX_QUESTION_CHARS}"):
        service.ask("x" * (MAX_QUESTION_CHARS + 1), "rog")
    assert service._graphs == {}  # refused before a graph was even built


def test_a_method_the_server_does_not_know_is_a_tool_error(sample_kg):
    from kg_agent.mcp.service import method_graph
    from kg_agent.tools.lookups import KGToolError

    with pytest.raises(KGToolError, match="unknown method 'gnn': use one of rog, tog, tog-i, tog2"):
        method_graph("gnn", sample_kg)


def test_create_server_registers_the_tools_and_resources(sample_kg):
    server = create_server(sample_kg)

    async def listed():
        return ([t.name for t in await server.list_tools()], sorted(str(r.uri) for r in await server.list_resources()))

    tools, resources = anyio.run(listed)
    assert tools == TOOLS and resources == ["kg-agent://kg/summary", "kg-agent://methods"]


def test_a_question_naming_no_entity_is_a_tool_error_saying_what_to_do(sample_kg):
    from kg_agent.tools.lookups import KGToolError

    with pytest.raises(KGToolError) as refused:
        KGService(sample_kg).ask("qwzx plorb vlimt", "tog")
    message = str(refused.value)
    assert message.endswith("Name an entity as the KG writes it, e.g. in [brackets] (search_entities finds labels).")
    assert ".." not in message


def test_a_lookup_is_answered_while_a_method_runs(sample_kg):
    """Calls run in worker threads: a slow ``ask`` (its model waits for the lookup) does not hold up a lookup."""
    import threading

    from kg_agent.llm.scripted import ScriptedChatModel
    from tests.llm_responders import well_behaved

    lookup_done = threading.Event()
    reply = well_behaved("Robert Zemeckis", "directed_by")

    def waiting_model(prompt: str) -> str:
        assert lookup_done.wait(timeout=60), "the lookup was not answered while ask ran"
        return reply(prompt)

    server = create_server(sample_kg, model=ScriptedChatModel(responder=waiting_model))
    finished: list[str] = []

    async def scenario():
        async with Client(server) as session:
            async def ask():
                result = await session.call_tool("ask", {"question": "who directed [Forrest Gump]"})
                assert not result.is_error, result
                assert result.structured_content["answers"][0]["answer"] == "Robert Zemeckis"
                assert result.structured_content["usage"]["calls"] >= 1
                finished.append("ask")

            async def lookup():
                result = await session.call_tool("neighbours", {"entity": "Forrest Gump", "relation": "directed_by"})
                assert not result.is_error, result
                finished.append("neighbours")
                lookup_done.set()

            async with anyio.create_task_group() as group:
                group.start_soon(ask)
                await anyio.sleep(0.2)
                group.start_soon(lookup)

    anyio.run(scenario)
    assert finished == ["neighbours", "ask"]


def test_a_lone_surrogate_is_refused_in_arguments_and_in_kg_text(sample_kg):
    """Through the SDK client in process (its HTTP and stdio transports cannot even encode such a string): a lone
    surrogate in an argument, and one in a label of the KG (an endpoint's JSON or rdflib can hold one), are
    tool errors in plain words, not the serializer's."""
    from rdflib import RDFS, Literal, URIRef

    from kg_agent.kg import open_kg

    kg = open_kg()
    kg.graph.add((URIRef("https://kg-agent.dev/entity/Odd"), RDFS.label, Literal("Odd \ud800 Film")))

    async def scenario():
        async with Client(create_server(kg)) as session:
            refused = await session.call_tool("search_entities", {"text": "Big\ud800"})
            assert error_text(refused) == "Error executing tool search_entities: the text " + SURROGATE_ERROR.format(4)
            refused = await session.call_tool("search_entities", {"text": "Odd"})
            assert error_text(refused) == (
                "Error executing tool search_entities: the knowledge graph's text for this result holds an invalid "
                "character (a lone UTF-16 surrogate), so it cannot be sent; fix that text in the KG or ask about other "
                "entities")
            found = await session.call_tool("search_entities", {"text": "Big", "limit": 1})
            assert found.structured_content["entities"][0]["label"] == "Big"

    anyio.run(scenario)
