"""``kg-agent mcp --transport http`` with a bearer token, its refusal to serve off loopback without one, and the
per-tool deadline; the real command in a subprocess, used through httpx and the official MCP SDK client.

One server per configuration, reused across assertions: a token from ``KG_AGENT_MCP_TOKEN``; a token from
``--token-file`` (which wins over the environment) with a short ``--tool-timeout`` and a chat model that never
answers (a real OpenAI-compatible server on 127.0.0.1 holding every request), so an ``ask`` runs past any deadline
while lookups, which need no model, answer at once.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
import threading
from contextlib import asynccontextmanager

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2 is not installed (pip install 'mcp>=2.3,<3')")

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from kg_agent.mcp.access import is_loopback
from kg_agent.mcp.scheduling import MAX_CLIENT_CALLS, MAX_CONCURRENT_CALLS
from kg_agent.mcp.server import create_server
from tests.openai_server import OpenAICompatibleServer
from tests.test_mcp_server import (
    HANDSHAKE,
    MODERN,
    MODES,
    PROJECT_ROOT,
    TOOLS,
    TWO_HOP,
    call,
    error_text,
    free_port,
    serve_http,
    server_env,
)

ENV_TOKEN = secrets.token_urlsafe(32)
FILE_TOKEN = secrets.token_urlsafe(32)
#: The short deadline of the server whose model never answers: long enough for any lookup on the sample KG
#: (a "does not hang" bound, not a speed claim), far too short for an ask waiting on that model.
SHORT_TIMEOUT = 5
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}


@asynccontextmanager
async def session_with(url: str, token: str, revision: str = MODERN):
    """An SDK 2 client sending ``Authorization: Bearer <token>``, speaking protocol ``revision`` (with the SDK's own
    client's timeouts: a short read timeout would drop a reply that takes longer)."""
    async with (httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=300)) as client,
                Client(streamable_http_client(url, http_client=client), mode=MODES[revision]) as session):
        assert session.protocol_version == revision
        yield session


def flattened(error: BaseException) -> list[BaseException]:
    """The leaf exceptions of (nested) exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in flattened(inner)]
    return [error]


def refused_status(url: str, headers: dict[str, str]) -> tuple[int, str]:
    response = httpx.post(url, headers={**MCP_HEADERS, **headers}, json=INITIALIZE, timeout=30)
    return response.status_code, response.headers.get("www-authenticate", "")


@pytest.fixture(scope="module")
def env_token_server(tmp_path_factory):
    """The server with its token in ``KG_AGENT_MCP_TOKEN``."""
    env = {**server_env(), "KG_AGENT_MCP_TOKEN": ENV_TOKEN}
    with serve_http(tmp_path_factory.mktemp("mcp_env_token") / "server.log", env=env) as running:
        yield running


@pytest.fixture(scope="module")
def file_token_server(tmp_path_factory):
    """The server with its token in a file (and another in the environment), a short deadline and a chat model
    that holds every request until the module is done."""
    folder = tmp_path_factory.mktemp("mcp_file_token")
    token_file = folder / "token"
    token_file.write_text(f"  {FILE_TOKEN}  \nthe first line only is read\n")
    release = threading.Event()

    def never_answers(prompt: str) -> str:
        release.wait(300)
        return "Robert Zemeckis"

    with OpenAICompatibleServer(responder=never_answers) as model:
        env = {**server_env(), "KG_AGENT_MCP_TOKEN": ENV_TOKEN, "OPENAI_BASE_URL": model.base_url,
               "OPENAI_API_KEY": "test-key"}
        try:
            with serve_http(folder / "server.log", "--token-file", str(token_file), "--model", "openai:gpt-4o-mini",
                            "--tool-timeout", str(SHORT_TIMEOUT), env=env) as running:
                yield running, model
                release.set()  # the stopped asks' threads get their replies and end before the server is stopped
        finally:
            release.set()


# ---------------------------------------------------------------------------------------------- real servers
@pytest.mark.server
@pytest.mark.parametrize("revision", [MODERN, HANDSHAKE])
def test_the_http_server_serves_only_the_right_bearer_token(env_token_server, revision):
    url = env_token_server.url
    # no token, a wrong one, the right one with a character more, the right one without "Bearer": 401 with a challenge
    for headers in ({}, {"Authorization": f"Bearer {FILE_TOKEN}"}, {"Authorization": f"Bearer {ENV_TOKEN}x"},
                    {"Authorization": ENV_TOKEN}):
        status, challenge = refused_status(url, headers)
        assert status == 401 and challenge.startswith("Bearer "), headers
    metadata_url = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    assert f'resource_metadata="{metadata_url}"' in challenge

    # RFC 9728 protected-resource metadata, served without a token
    metadata = httpx.get(metadata_url, timeout=30)
    assert metadata.status_code == 200
    assert metadata.json()["resource"] == url and metadata.json()["bearer_methods_supported"] == ["header"]

    async def scenario():
        with pytest.raises(BaseException) as refused:
            async with session_with(url, "not-the-token-" + "x" * 30, revision):
                pass
        # the SDK 2 client turns the HTTP 401 (checked above) into a JSON-RPC error of its own
        assert [type(e).__name__ for e in flattened(refused.value)] == ["MCPError"], refused.value

        async with session_with(url, ENV_TOKEN, revision) as session:
            assert [t.name for t in (await session.list_tools()).tools] == TOOLS
            found = await call(session, "search_entities", text="Forrest Gump", limit=1)
            assert not found.is_error and found.structured_content["entities"][0]["label"] == "Forrest Gump"

    anyio.run(scenario)
    started = env_token_server.log.read_text()
    assert "bearer token required" in started and "note: no token" not in started


@pytest.mark.server
@pytest.mark.parametrize("revision", [MODERN, HANDSHAKE])
def test_a_call_past_the_deadline_is_stopped_and_the_server_keeps_serving(file_token_server, revision):
    """The token is the client (2026-07-28 has no session to tell clients by): its asks beyond its share wait."""
    running, model = file_token_server
    assert refused_status(running.url, {"Authorization": f"Bearer {ENV_TOKEN}"})[0] == 401  # the file's token wins

    async def scenario():
        async with (session_with(running.url, FILE_TOKEN, revision) as session,
                    session_with(running.url, FILE_TOKEN, revision) as other):
            found = await call(session, "neighbours", entity="Forrest Gump", relation="directed_by")
            assert not found.is_error, found

            # more asks than the client's share of the workers, from two connections holding the same token (one
            # client): each stopped at its deadline, though its thread still waits on the model; the two first run,
            # the others wait their turn (one that gets a worker the moment another's deadline frees it, just
            # before its own, was started and says so)
            stopped: list[str] = []
            before = len(model.chat_requests)

            async def ask(client):
                stopped.append(error_text(await call(client, "ask", question=TWO_HOP)))

            async with anyio.create_task_group() as group:
                for client in (session, other, session, other, session):
                    group.start_soon(ask, client)
                with anyio.fail_after(SHORT_TIMEOUT - 1):  # the first asks reach the model (and wait there) ...
                    while len(model.chat_requests) - before < MAX_CLIENT_CALLS:
                        await anyio.sleep(0.05)
                await anyio.sleep(1.0)  # ... and no other starts: the two connections share the token's share
                assert len(model.chat_requests) - before == MAX_CLIENT_CALLS
            ran = (f"Error executing tool ask: ask took longer than {SHORT_TIMEOUT} s and was stopped; "
                   "ask a narrower question or raise --tool-timeout")
            waited = (f"Error executing tool ask: ask waited {SHORT_TIMEOUT} s for a free worker and was not started "
                      f"(a client runs at most {MAX_CLIENT_CALLS} such calls at once, the server {MAX_CONCURRENT_CALLS}); "
                      "send fewer calls at once or raise --tool-timeout")
            assert len(stopped) == 5 and set(stopped) <= {ran, waited} and stopped.count(ran) >= MAX_CLIENT_CALLS, stopped

            # the stopped calls' threads still run (the model holds them) but hold no slot: a lookup answers
            found = await call(other, "retrieve_paths", entity="Winston Groom", relations=["^written_by", "directed_by"])
            assert not found.is_error, found
            assert found.structured_content["answers"] == ["Robert Zemeckis"]
            assert len((await session.list_tools()).tools) == len(TOOLS)

    anyio.run(scenario)
    assert model.chat_requests  # the asks really were waiting on the model


def test_the_command_refuses_to_serve_off_loopback_without_a_token(tmp_path):
    """Refused before the KG is opened (a missing KG file is not even looked at) or any port bound."""
    empty = tmp_path / "empty_token"
    empty.write_text("\n")
    cases = [
        (["--host", "0.0.0.0", "--kg", str(tmp_path / "nope.ttl")], {},
         "kg-agent mcp: refusing to serve on 0.0.0.0 without a token: set KG_AGENT_MCP_TOKEN or --token-file"),
        (["--host", "127.0.0.1", "--token-file", str(empty)], {},
         f"kg-agent mcp: the token file {empty} has no token on its first line"),
        (["--host", "0.0.0.0"], {"KG_AGENT_MCP_TOKEN": "short"},
         "kg-agent mcp: the token in KG_AGENT_MCP_TOKEN is 5 characters long; use at least 16"),
    ]
    for args, env, message in cases:
        done = subprocess.run([sys.executable, "-m", "kg_agent.cli", "mcp", "--transport", "http", "--port",
                               str(free_port()), *args], cwd=PROJECT_ROOT, env={**server_env(), **env},
                              capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr and "serving on" not in done.stderr


# ---------------------------------------------------------------------------------------------- in process
def test_which_hosts_count_as_loopback():
    assert all(is_loopback(host) for host in ("127.0.0.1", "127.1.2.3", "::1", "localhost", "LOCALHOST"))
    assert not any(is_loopback(host) for host in ("0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.org", "",
                                                  "[::1]", "127.0.0.1.nip.io"))


def test_create_server_refuses_a_public_host_without_a_token_and_bad_timeouts(kg):
    with pytest.raises(ValueError, match="refusing to serve on 0.0.0.0 without a token"):
        create_server(kg, host="0.0.0.0")
    assert create_server(kg, host="0.0.0.0", token=ENV_TOKEN).settings.auth is not None
    with pytest.raises(ValueError, match="at least 16"):
        create_server(kg, token="short")
    for timeout in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="tool_timeout must be a positive number of seconds"):
            create_server(kg, tool_timeout=timeout)
