"""``langgraph.json`` + :mod:`kg_agent.server`: the method graphs served by ``langgraph dev`` and used through the
LangGraph SDK client, as a user of LangGraph Server would.

The integration tests start the real server (``langgraph dev``, in-memory runtime, its default flags: LangGraph's
blocking-call detector on) on a free port of 127.0.0.1 with the project's ``langgraph.json``, make no outside
network call (no analytics, version check, tracing or browser) and stop it at the end. The server runs in a
temporary working directory so its ``.langgraph_api`` state folder does not land in the checkout (the project
root goes on PYTHONPATH, where a run from the root would find it too). One server serves the bundled sample KG;
another serves a real SPARQL endpoint (Virtuoso, ``tests/virtuoso_server.py``) named by ``KG_AGENT_KG``.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kg_agent import server
from tests.virtuoso_server import VirtuosoServer, export_ntriples, graph_iri
from tests.virtuoso_server import skip_reason as virtuoso_skip_reason

pytestmark = pytest.mark.server  # starts a server process (pytest -m "not server" skips it)

PROJECT_ROOT = Path(__file__).resolve().parent.parent
STARTUP_TIMEOUT = 180.0  # seconds; a cold start on a busy 2-core machine takes ~10 s
GRAPHS = ["rog", "tog", "tog_i", "tog2"]


# ------------------------------------------------------------------------------------- the graphs module
def test_langgraph_json_exposes_every_method():
    config = json.loads((PROJECT_ROOT / "langgraph.json").read_text())
    assert config["graphs"] == {name: f"kg_agent.server:{name}" for name in GRAPHS}
    assert config["dependencies"] == ["."]
    assert config["auth"] == {"path": "kg_agent.server_auth:auth", "disable_studio_auth": True}
    assert config["http"]["cors"]["allow_origins"] == []


def test_graph_factories_build_once_without_checkpointer(monkeypatch):
    monkeypatch.delenv("KG_AGENT_KG", raising=False)
    monkeypatch.delenv("KG_AGENT_MODEL", raising=False)
    graph = asyncio.run(server.rog())
    assert graph is asyncio.run(server.rog()) is server.build_graph("rog")  # the server calls the factory per request
    assert graph.checkpointer is None and graph.store is None  # the server brings its own
    result = graph.invoke({"question": "who wrote [Forrest Gump]"})
    assert [a["answer"] for a in result["answers"]] == ["Winston Groom"]


def test_graph_factories_read_the_kg_from_the_environment(monkeypatch, fixtures_dir):
    monkeypatch.setenv("KG_AGENT_KG", str(fixtures_dir / "kg" / "metaqa_slice.txt"))
    monkeypatch.delenv("KG_AGENT_MODEL", raising=False)
    graph = asyncio.run(server.tog())
    assert graph is asyncio.run(server.tog())
    result = graph.invoke({"question": "who directed [5 Centimeters Per Second]"})
    assert result["answers"][0]["answer"] == "Makoto Shinkai"


def test_graph_factories_build_off_the_event_loop(monkeypatch, fixtures_dir):
    """Building a graph reads files and may ask the endpoint (the KG, ToG-2's documents, embeddings): the server
    awaits the factory, which does that in a worker thread. LangGraph's blocking-call detector watches the loop."""
    from blockbuster import BlockBuster

    monkeypatch.setenv("KG_AGENT_KG", str(fixtures_dir / "kg" / "metaqa_slice.txt"))
    monkeypatch.delenv("KG_AGENT_MODEL", raising=False)
    monkeypatch.setenv("KG_AGENT_TIMEOUT", "17")  # a configuration no other test has built
    built_in = []
    create_graph = server.create_graph
    monkeypatch.setattr(server, "create_graph", lambda *a, **k: built_in.append(threading.get_ident()) or create_graph(*a, **k))

    async def first_and_second_call():
        return threading.get_ident(), await server.tog_i(), await server.tog_i()

    blockbuster = BlockBuster(excluded_modules=[])
    blockbuster.activate()
    try:
        loop_thread, first, second = asyncio.run(first_and_second_call())
    finally:
        blockbuster.deactivate()
    assert len(built_in) == 1 and built_in[0] != loop_thread  # built once, in a worker thread
    assert first is second is server.build_graph("tog_i")
    assert first.invoke({"question": "who directed [5 Centimeters Per Second]"})["answers"][0]["answer"] == "Makoto Shinkai"


@pytest.mark.parametrize("method", GRAPHS)
def test_graph_input_and_output_schemas_are_json_schemas(method, monkeypatch):
    """The server shows these schemas (Studio, the assistants API, the /mcp tools' arguments)."""
    monkeypatch.delenv("KG_AGENT_KG", raising=False)
    monkeypatch.delenv("KG_AGENT_MODEL", raising=False)
    graph = server.build_graph(method)
    assert {"question", "messages", "topic_entities"} <= set(graph.get_input_jsonschema()["properties"])
    assert {"answers", "warnings", "usage"} <= set(graph.get_output_jsonschema()["properties"])


def test_graph_factories_name_the_kg_in_the_languages_of_the_environment(monkeypatch, fixtures_dir):
    """``KG_AGENT_LANGUAGES`` is the CLI's ``--language`` for the server: a DBpedia-style KG with labels in @en, @de
    and @fr answers in German when German comes first; a bad predicate IRI is refused naming its variable."""
    monkeypatch.setenv("KG_AGENT_KG", str(fixtures_dir / "styles" / "dbpedia" / "kg.ttl"))
    monkeypatch.delenv("KG_AGENT_MODEL", raising=False)
    monkeypatch.delenv("KG_AGENT_LANGUAGES", raising=False)
    english = server.build_graph("rog").invoke({"question": "where was [Celeste Whitcombe] born"})
    assert [a["answer"] for a in english["answers"]] == ["Kraków"]
    monkeypatch.setenv("KG_AGENT_LANGUAGES", "de,en")  # relations are named in German too: dbo:birthPlace "Geburtsort"
    german = server.build_graph("rog").invoke({"question": "was ist der Geburtsort von [Celeste Whitcombe]"})
    assert [a["answer"] for a in german["answers"]] == ["Krakau"]
    monkeypatch.setenv("KG_AGENT_LABEL_PREDICATES", "label")
    with pytest.raises(ValueError, match="^KG_AGENT_LABEL_PREDICATES: label_predicates must be full IRIs"):
        server.build_graph("rog")


def test_unknown_method_is_refused():
    with pytest.raises(ValueError, match="unknown method 'gnn'"):
        server.build_graph("gnn")


@pytest.mark.parametrize("value, message", [
    ("0", "KG_AGENT_RUN_TIMEOUT must be a number of seconds above 0, not '0'"),
    ("-5", "KG_AGENT_RUN_TIMEOUT must be a number of seconds above 0, not '-5'"),
    ("inf", "KG_AGENT_RUN_TIMEOUT must be a number of seconds above 0, not 'inf'"),
    ("soon", "KG_AGENT_RUN_TIMEOUT must be a number, not 'soon'"),
])
def test_a_bad_run_timeout_is_refused_in_plain_words(monkeypatch, value, message):
    monkeypatch.setenv("KG_AGENT_RUN_TIMEOUT", value)
    with pytest.raises(ValueError) as raised:
        server.build_graph("rog")
    assert str(raised.value) == message


# ------------------------------------------------------------------------------------- the running server
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env() -> dict:
    env = dict(os.environ)
    for name in ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY", "LANGSMITH_CONTROL_PLANE_API_KEY", "LANGGRAPH_CLOUD_LICENSE_KEY",
                 "LANGSMITH_ENDPOINT", "KG_AGENT_KG", "KG_AGENT_MODEL"):
        env.pop(name, None)
    env.update(
        LANGGRAPH_CLI_NO_ANALYTICS="1",  # the CLI's usage ping
        LANGGRAPH_NO_VERSION_CHECK="true",  # the server's PyPI version check
        LANGSMITH_TRACING="false",
        LANGCHAIN_TRACING_V2="false",
        PYTHONPATH=os.pathsep.join(p for p in (str(PROJECT_ROOT), env.get("PYTHONPATH", "")) if p),
        PYTHONUNBUFFERED="1",
    )
    return env


def wait_until_ready(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"langgraph dev exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    pytest.fail(f"langgraph dev did not answer {url}/ok within {STARTUP_TIMEOUT:.0f} s:\n{log.read_text()[-4000:]}")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=15)


@contextmanager
def langgraph_dev(workdir: Path, *, env: dict | None = None, options: tuple[str, ...] = ()) -> Iterator[str]:
    """``langgraph dev`` on a free port of 127.0.0.1 (its default flags plus ``options``), its log in
    ``workdir/server.log``; yields its URL once ``/ok`` answers and stops it on exit."""
    pytest.importorskip("langgraph_cli", reason="the LangGraph CLI is not installed (pip install 'langgraph-cli[inmem]')")
    pytest.importorskip("langgraph_api", reason="the LangGraph in-memory server is not installed (pip install 'langgraph-cli[inmem]')")
    log = workdir / "server.log"
    port = free_port()
    command = [sys.executable, "-m", "langgraph_cli", "dev", "--no-browser", "--no-reload",
               "--host", "127.0.0.1", "--port", str(port), "--config", str(PROJECT_ROOT / "langgraph.json"), *options]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, cwd=workdir, env=env or server_env(), stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(url, process, log)
        yield url
    finally:
        stop(process)


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    with langgraph_dev(tmp_path_factory.mktemp("langgraph_dev")) as url:
        yield url


@pytest.fixture(scope="module")
def client(server_url):
    from langgraph_sdk import get_sync_client

    return get_sync_client(url=server_url)


def user(text: str) -> dict:
    return {"messages": [{"role": "user", "content": text}]}


def test_server_lists_the_graphs(client):
    assert sorted(a["graph_id"] for a in client.assistants.search()) == sorted(GRAPHS)


def test_thread_answers_and_follows_up(client):
    thread = client.threads.create()
    first = client.runs.wait(thread["thread_id"], "rog", input=user("what did [Winston Groom] write"))
    assert [a["answer"] for a in first["answers"]] == ["Forrest Gump"]
    assert first["messages"][-1]["type"] == "ai" and first["messages"][-1]["content"].startswith("Forrest Gump")

    second = client.runs.wait(thread["thread_id"], "rog", input=user("and who directed it?"))
    assert second["question"] == "and who directed it? [Forrest Gump]"
    assert second["answers"][0]["answer"] == "Robert Zemeckis"
    assert second["answers"][0]["paths"][0]["text"] == "Forrest Gump -> directed_by -> Robert Zemeckis"

    state = client.threads.get_state(thread["thread_id"])
    messages = state["values"]["messages"]
    assert [m["type"] for m in messages] == ["human", "ai", "human", "ai"]
    assert messages[-1]["response_metadata"]["kg_agent"]["topic_entities"][0]["label"] == "Forrest Gump"


def test_streamed_run_shows_each_node_and_custom_events(client):
    thread = client.threads.create()
    parts = list(client.runs.stream(thread["thread_id"], "rog", input={"question": "who wrote [Forrest Gump]"},
                                    stream_mode=["updates", "custom"]))
    nodes = [node for p in parts if p.event == "updates" for node in p.data]
    assert nodes == ["link", "plan", "retrieve", "answer"]
    custom = [p.data for p in parts if p.event == "custom"]
    assert [c["event"] for c in custom] == ["plan", "retrieve", "answer"]
    assert custom[0]["plans"][0]["relations"] == ["written_by"]
    assert custom[-1]["answers"][0]["answer"] == "Winston Groom"
    answer_update = next(p.data["answer"] for p in parts if p.event == "updates" and "answer" in p.data)
    assert answer_update["answers"][0]["answer"] == "Winston Groom"


@pytest.mark.parametrize("graph, question, expected", [
    ("tog", "who directed [Forrest Gump]", "Robert Zemeckis"),
    ("tog_i", "who directed [Forrest Gump]", "Robert Zemeckis"),
    ("tog2", "who directed [Catch Me If You Can]", "Steven Spielberg"),
])
def test_other_methods_answer_without_a_thread(client, graph, question, expected):
    result = client.runs.wait(None, graph, input={"question": question})
    assert result["answers"][0]["answer"] == expected
    assert result["stop_reason"] in {"verified", "answered"}


def test_runs_get_the_caps_of_mcp_ask_results(client):
    """38 actors of Robert Zemeckis's films: a run returns at most MAX_ANSWERS answers with MAX_ANSWER_PATHS paths
    each, as ``kg-agent mcp``'s ``ask`` does, and says that it cut."""
    from kg_agent.mcp.results import MAX_ANSWER_PATHS, MAX_ANSWERS

    result = client.runs.wait(None, "rog", input={"question": "who starred in films directed by [Robert Zemeckis]"})
    assert len(result["answers"]) == MAX_ANSWERS and all(len(a["paths"]) <= MAX_ANSWER_PATHS for a in result["answers"])
    assert f"answer: more answers than max_answers={MAX_ANSWERS}; kept the first {MAX_ANSWERS}, most evidence across " \
           "the plans first" in result["warnings"]
    assert result["stop_reason"] == "answered"


def test_a_client_chooses_settings_per_run(client):
    """The graphs' context schema is RunSettings: a client tightens a run's budget through ``context``, the next run
    has the server's own settings again, and a bad setting fails that run only, naming the field."""
    tight = client.runs.wait(None, "tog", input={"question": "who directed the films that [Tom Hanks] starred in"},
                             context={"max_seconds": 1e-6})
    assert tight["stop_reason"] == "budget" and any("max_seconds=1e-06" in w for w in tight["warnings"])
    again = client.runs.wait(None, "tog", input={"question": "who directed the films that [Tom Hanks] starred in"})
    assert again["stop_reason"] != "budget" and not any("max_seconds" in w for w in again["warnings"])
    refused = client.runs.wait(None, "rog", input={"question": "who directed [Forrest Gump]"},
                               context={"grounding": "sometimes"}, raise_error=False)
    assert "grounding" in str(refused.get("__error__")), refused
    schema = client.assistants.get_schemas(client.assistants.search(graph_id="rog")[0]["assistant_id"])
    assert set(schema["context_schema"]["properties"]) == {"grounding", "structured_output", "when_unsupported",
                                                           "max_llm_calls", "max_tokens", "max_seconds"}


def test_a_run_past_its_deadline_says_so_and_ends_cleanly(tmp_path):
    """KG_AGENT_RUN_TIMEOUT is each run's deadline (MCP's tool timeout, given to the graph as its question budget):
    past it ToG explores no further and answers from what it found, RoG (which skips no step offline) says that
    its answer came late; both runs succeed."""
    from langgraph_sdk import get_sync_client

    env = server_env() | {"KG_AGENT_RUN_TIMEOUT": "0.001"}
    with langgraph_dev(tmp_path, env=env) as url:
        client = get_sync_client(url=url)
        tog = client.runs.wait(None, "tog", input={"question": "who directed the films that [Tom Hanks] starred in"},
                               raise_error=False)
        rog = client.runs.wait(None, "rog", input={"question": "who directed [Forrest Gump]"}, raise_error=False)
    assert "__error__" not in tog and "__error__" not in rog  # the runs succeeded
    assert tog["stop_reason"] == "budget"
    assert any("time budget spent" in w and "max_seconds=0.001" in w and "exploration stops" in w for w in tog["warnings"])
    assert [a["answer"] for a in rog["answers"]] == ["Robert Zemeckis"] and rog["stop_reason"] == "answered"
    assert any(w.startswith("answer: the question's time budget was spent before the answer step") and
               "max_seconds=0.001" in w for w in rog["warnings"])


def test_langgraph_dev_serves_the_graphs_as_mcp_tools(server_url):
    """``langgraph dev`` also answers MCP at ``/mcp``: one tool per graph, its input schema as the arguments and
    the final state as text (Python ``repr``, no structured content). ``kg-agent mcp`` adds the KG lookups,
    structured results and resources (``tests/test_mcp_server.py``)."""
    import anyio
    from mcp import Client

    async def scenario():
        async with Client(f"{server_url}/mcp") as session:  # LangGraph's server speaks the handshake era: SDK 2 falls back
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            result = await session.call_tool("rog", {"question": "who wrote [Forrest Gump]"})
            return tools, result

    tools, result = anyio.run(scenario)
    assert sorted(tools) == sorted(GRAPHS)
    assert "question" in tools["rog"].input_schema["properties"] and tools["rog"].output_schema is None
    assert not result.is_error and result.structured_content is None
    text = result.content[0].text
    assert text.startswith("{") and "'answer': 'Winston Groom'" in text


# ------------------------------------------------------------------------------------- over a SPARQL endpoint
@pytest.fixture(scope="module")
def virtuoso(kg):
    reason = virtuoso_skip_reason()
    if reason:
        pytest.skip(reason)
    with VirtuosoServer() as endpoint:
        endpoint.load(export_ntriples(kg, endpoint.workdir / "sample.nt"), graph_iri("sample"))
        yield endpoint


@pytest.fixture(scope="module")
def endpoint_server(virtuoso, tmp_path_factory):
    """``langgraph dev`` with its default flags serving the sample KG from Virtuoso (``KG_AGENT_KG`` = the endpoint):
    its URL and its log file."""
    workdir = tmp_path_factory.mktemp("langgraph_dev_endpoint")
    env = server_env() | {"KG_AGENT_KG": virtuoso.endpoint(graph_iri("sample"))}
    with langgraph_dev(workdir, env=env) as url:
        yield url, workdir / "server.log"


@pytest.mark.parametrize("graph, question, expected", [
    ("rog", "who directed the films that [Tom Hanks] starred in", {"Robert Zemeckis", "Steven Spielberg", "Penny Marshall"}),
    ("tog", "who directed [Forrest Gump]", {"Robert Zemeckis"}),
    ("tog2", "who directed [Catch Me If You Can]", {"Steven Spielberg"}),
])
def test_langgraph_dev_answers_over_a_sparql_endpoint(endpoint_server, virtuoso, graph, question, expected):
    """With its default flags LangGraph's server rejects a blocking call on its event loop: every question over an
    endpoint failed with "Blocking call to socket.socket.connect" (SPARQL requests made on the loop) and ToG-2's
    graph could not even be built there ("Blocking call to os.getcwd")."""
    from langgraph_sdk import get_sync_client

    url, log = endpoint_server
    requests_before = len(virtuoso.sparql_requests())
    result = get_sync_client(url=url).runs.wait(None, graph, input={"question": question}, raise_error=False)
    assert "__error__" not in result, result["__error__"]
    assert expected <= {a["answer"] for a in result["answers"]}, result.get("warnings")
    if graph != "tog2":
        # ToG-2's graph is built when the server starts, and its build reads the entities its documents name from the
        # endpoint (their relations, labels and edges, kept in the shared client's cache): this question asks nothing new
        assert result["usage"]["kg_requests"] > 0  # the KG work went to the endpoint ...
        assert virtuoso.settled_sparql_count(at_least=requests_before + 1) > requests_before  # ... and reached Virtuoso
    text = log.read_text(errors="replace")
    assert "Blocking call" not in text and "BlockingError" not in text, text[-4000:]



# ------------------------------------------------------------------------------ who may use the server (issue 47)
def http_status(url: str, path: str, headers: dict[str, str], method: str = "POST") -> tuple[int, dict[str, str]]:
    """The status and headers of a raw request (``Host`` and ``Origin`` as given: urllib sends them as set)."""
    body = b"{}" if method == "POST" else None
    request = urllib.request.Request(f"{url}{path}", data=body, method=method,
                                     headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}


def test_without_a_token_only_loopback_requests_from_no_other_site_are_answered(server_url):
    assert http_status(server_url, "/assistants/search", {})[0] == 200
    assert http_status(server_url, "/assistants/search", {"Origin": server_url})[0] == 200
    assert http_status(server_url, "/assistants/search", {"Host": "evil.example"})[0] == 403  # DNS rebinding
    status, headers = http_status(server_url, "/assistants/search", {"Origin": "https://evil.example"})
    assert status == 403 and "access-control-allow-origin" not in headers
    status, headers = http_status(server_url, "/runs/wait", {"Origin": "https://evil.example",
                                                             "Access-Control-Request-Method": "POST"}, method="OPTIONS")
    assert "access-control-allow-origin" not in headers  # no CORS for an origin nobody listed


def test_with_a_token_every_request_needs_it(tmp_path):
    from langgraph_sdk import get_sync_client

    token = "kg-agent-test-token-0123456789"
    env = {**server_env(), "KG_AGENT_SERVER_TOKEN": token}
    with langgraph_dev(tmp_path, env=env) as url:
        for headers in ({}, {"Authorization": "Bearer wrong-token-0123456789"}, {"Authorization": token},
                        {"x-auth-scheme": "langsmith"}):  # langgraph dev's Studio scheme is no way round it
            assert http_status(url, "/assistants/search", headers)[0] == 401, headers
        assert http_status(url, "/assistants/search", {"Authorization": f"Bearer {token}",
                                                       "Host": "kg.example.org"})[0] == 200  # any host, with the token
        client = get_sync_client(url=url, headers={"Authorization": f"Bearer {token}"})
        result = client.runs.wait(None, "rog", input={"question": "who wrote [Forrest Gump]"})
        assert [a["answer"] for a in result["answers"]] == ["Winston Groom"]
        with pytest.raises(Exception, match="send 'Authorization: Bearer <KG_AGENT_SERVER_TOKEN>'"):  # the SDK's 401
            get_sync_client(url=url).assistants.search()
