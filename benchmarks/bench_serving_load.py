"""Serving under load: N MCP clients against ``kg-agent mcp --transport http`` and N LangGraph-server clients against
``langgraph dev``, asking questions and making lookups whose answers are known, over the memory, Oxigraph and
Virtuoso backends (issue 30).

    python benchmarks/bench_serving_load.py                                  # all three backends, both servers
    python benchmarks/bench_serving_load.py --backend virtuoso --servers mcp --clients 10 --requests 200 --seconds 60

Everything runs on 127.0.0.1 and stops by itself. The KG is MetaQA's ``kb.txt`` (``--data``, default
``KG_AGENT_DATA`` or ``../shared/data``) on every backend: *memory* serves the file; *oxigraph* a store built from
it with ``kg-agent load`` in a temporary folder; *virtuoso* a throw-away Virtuoso (``tests/virtuoso_server.py``,
Debian's ``virtuoso-t``) into which kg-agent's own loader's N-Triples are bulk-loaded, served as a SPARQL endpoint.

For each backend and server the benchmark starts the server as a subprocess (``python -m kg_agent.cli mcp --kg KG
--transport http`` with a bearer token from ``KG_AGENT_MCP_TOKEN``; ``python -m langgraph_cli dev --no-browser
--no-reload --n-jobs-per-worker N`` in a temporary folder with ``KG_AGENT_KG=KG``), waits until it listens, makes
one request of every kind to warm it up (not counted), then opens ``--clients`` sessions (MCP: the official SDK 2
client over streamable HTTP, one session each; LangGraph: one ``langgraph_sdk`` client each, stateless runs) and
sends ``--requests`` requests spread evenly over ``--seconds``: request *j* is due at *j* · seconds / requests and
goes to client *j* mod N, which sends it then, or as soon as its previous request has returned (no client has two
requests in flight). Past ``--time-limit`` every request still out is abandoned and counted as *not done*. The
server is then stopped with SIGTERM (SIGKILL after 15 s, reported).

The mix. MCP, per 10 requests: 7 lookups (``search_entities`` ×2, ``entity_relations`` ×2, ``neighbours`` ×2,
``retrieve_paths``) and 3 ``ask`` (RoG 1-hop, RoG 2-hop, ToG 1-hop); LangGraph (it serves the method graphs only),
per 4 runs: RoG 1-hop, ToG 1-hop, RoG 2-hop, ToG 2-hop. Questions and entities rotate. Every expected answer is
computed from ``kb.txt`` itself (not by kg-agent): an answer is *wrong* when an ask's first answer is not a gold
answer or any answer is not one, a search's first hit is not the name searched, the relations or the neighbour
count differ from the file's, or a path ends outside the gold set. *Errors* are tool errors, failed runs,
exceptions and per-request timeouts (``--request-timeout``).

Reported per backend and server: requests done, errors, wrong answers, not done, latency p50 / p95 (client side,
every request that returned) overall and per kind, the server's RSS (the sum of ``VmRSS`` over its process tree,
read from ``/proc`` every 0.2 s: once listening, after the warm-up, peak under load, at the end), Virtuoso's own RSS
peak, ERROR lines and tracebacks in the server's log, how it stopped, and the 1-minute load average before and after
(other jobs share the machine). ``--code DIR`` starts the servers from another checkout (e.g. an older commit
exported with ``git archive``) for a before/after comparison on the same mix. ``--json FILE`` writes every number.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import defaultdict
from collections.abc import Callable
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BACKENDS = ("memory", "oxigraph", "virtuoso")
SERVERS = ("mcp", "langgraph")
STARTUP_TIMEOUT = 300.0  # seconds until a server listens (the memory backend parses kb.txt first: ~10-30 s under load)
STOP_TIMEOUT = 15.0

#: Questions with the relation path from their bracketed topic entity that answers them (gold = that path in kb.txt),
#: chosen so that offline RoG and ToG answer exactly: RoG's later plans add answers off the gold path to some questions
#: ("who wrote the films directed by [Robert Zemeckis]" gains three directors), a matter of accuracy (section 1), not load.
ONE_HOP = [
    ("who directed [Forrest Gump]", "Forrest Gump", ["directed_by"]),
    ("who wrote [The Terminator]", "The Terminator", ["written_by"]),
    ("who starred in [Forrest Gump]", "Forrest Gump", ["starred_actors"]),
    ("when was [Forrest Gump] released", "Forrest Gump", ["release_year"]),
    ("who directed [The Terminator]", "The Terminator", ["directed_by"]),
    ("which movies did [Winston Groom] write", "Winston Groom", ["^written_by"]),
]
TWO_HOP = [
    ("who directed the films that [Tom Hanks] starred in", "Tom Hanks", ["^starred_actors", "directed_by"]),
    ("when were the films directed by [James Cameron] released", "James Cameron", ["^directed_by", "release_year"]),
    ("who starred in the films written by [Winston Groom]", "Winston Groom", ["^written_by", "starred_actors"]),
    ("which actors starred in the films directed by [James Cameron]", "James Cameron", ["^directed_by", "starred_actors"]),
]
NAMES = ["Tom Hanks", "Robert Zemeckis", "Forrest Gump", "James Cameron", "The Terminator", "Winston Groom"]
NEIGHBOURS = [("Tom Hanks", "^starred_actors"), ("Robert Zemeckis", "^directed_by"), ("Forrest Gump", "has_tags"),
              ("James Cameron", "^directed_by")]
PATHS = [("Tom Hanks", ["^starred_actors", "directed_by"]), ("Robert Zemeckis", ["^directed_by", "starred_actors"]),
         ("James Cameron", ["^directed_by", "release_year"])]


# ------------------------------------------------------------------------------------------------ gold answers
class KBOracle:
    """Expected answers read straight from MetaQA's ``kb.txt`` (``subject|relation|object`` lines)."""

    def __init__(self, path: Path) -> None:
        self.edges: dict[tuple[str, str], set[str]] = defaultdict(set)
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split("|")
            if len(parts) == 3:
                subject, relation, obj = (p.strip() for p in parts)
                self.edges[(subject, relation)].add(obj)
                self.edges[(obj, "^" + relation)].add(subject)
        self.relations: dict[str, set[str]] = defaultdict(set)
        for subject, relation in self.edges:
            self.relations[subject].add(relation)

    def follow(self, entity: str, relations: list[str]) -> set[str]:
        frontier = {entity}
        for relation in relations:
            frontier = {end for start in frontier for end in self.edges.get((start, relation), ())}
        return frontier


@dataclass(frozen=True)
class Request:
    """One request of the mix: its kind (a table row), what to send and how to check the reply."""

    kind: str
    target: str  # MCP: the tool; LangGraph: the graph id
    arguments: dict
    check: Callable[[Any], str | None]  # the reply -> None when right, else what is wrong


def check_answers(gold: set[str], answers: list[str]) -> str | None:
    if not answers:
        return "no answer"
    if answers[0] not in gold:
        return f"first answer {answers[0]!r} is not a gold answer"
    stray = [a for a in answers if a not in gold]
    return f"answers not in the gold set: {stray[:3]}" if stray else None


def mcp_mix(oracle: KBOracle) -> list[Request]:
    """One cycle of 10 MCP requests per rotation step; :func:`schedule` takes them in turn."""
    def ask(question: str, topic: str, path: list[str], method: str, hops: int) -> Request:
        gold = oracle.follow(topic, path)
        return Request(f"ask {method} {hops}-hop", "ask", {"question": question, "method": method},
                       lambda r: check_answers(gold, [a["answer"] for a in r.get("answers", [])]))

    def search(name: str) -> Request:
        return Request("search_entities", "search_entities", {"text": name},
                       lambda r: None if r.get("entities") and r["entities"][0]["label"] == name
                       else f"first hit {(r.get('entities') or [{}])[0].get('label')!r}, not {name!r}")

    def relations(name: str) -> Request:
        want = oracle.relations[name]

        def check(r):
            got = set(r.get("outgoing", {})) | set(r.get("incoming", {}))
            return None if got == want else f"relations differ: missing {sorted(want - got)}, extra {sorted(got - want)}"
        return Request("entity_relations", "entity_relations", {"entity": name}, check)

    def neighbours(name: str, relation: str) -> Request:
        gold = oracle.follow(name, [relation])

        def check(r):
            labels = [n["label"] for n in r.get("neighbours", [])]
            if r.get("count") != len(gold):
                return f"count {r.get('count')} != {len(gold)}"
            stray = [x for x in labels if x not in gold]
            return f"neighbours not in the KB: {stray[:3]}" if stray or not labels else None
        return Request("neighbours", "neighbours", {"entity": name, "relation": relation}, check)

    def paths(name: str, relations_: list[str]) -> Request:
        gold = oracle.follow(name, relations_)

        def check(r):
            answers = r.get("answers", [])
            stray = [x for x in answers if x not in gold]
            return "no path" if not answers else (f"path ends not in the gold set: {stray[:3]}" if stray else None)
        return Request("retrieve_paths", "retrieve_paths", {"entity": name, "relations": relations_}, check)

    cycles = []
    for step in range(max(len(ONE_HOP), len(TWO_HOP), len(NAMES), len(NEIGHBOURS), len(PATHS))):
        def pick(items, offset=0, step=step):
            return items[(step + offset) % len(items)]
        cycles += [
            search(pick(NAMES)), ask(*pick(ONE_HOP), "rog", 1), relations(pick(NAMES, 2)), neighbours(*pick(NEIGHBOURS)),
            ask(*pick(ONE_HOP, 3), "tog", 1), paths(*pick(PATHS)),
            search(pick(NAMES, 3)), ask(*pick(TWO_HOP), "rog", 2), neighbours(*pick(NEIGHBOURS, 1)), relations(pick(NAMES, 4)),
        ]
    return cycles


def langgraph_mix(oracle: KBOracle) -> list[Request]:
    """One cycle of 4 runs per rotation step: RoG 1-hop, ToG 1-hop, RoG 2-hop, ToG 2-hop."""
    def run(question: str, topic: str, path: list[str], graph: str, hops: int) -> Request:
        gold = oracle.follow(topic, path)
        return Request(f"run {graph} {hops}-hop", graph, {"question": question},
                       lambda r: check_answers(gold, [a["answer"] for a in (r or {}).get("answers") or []]))

    cycles = []
    for step in range(max(len(ONE_HOP), len(TWO_HOP))):
        cycles += [run(*ONE_HOP[step % len(ONE_HOP)], "rog", 1), run(*ONE_HOP[(step + 3) % len(ONE_HOP)], "tog", 1),
                   run(*TWO_HOP[step % len(TWO_HOP)], "rog", 2), run(*TWO_HOP[(step + 1) % len(TWO_HOP)], "tog", 2)]
    return cycles


def warm_up_set(mix: list[Request]) -> list[Request]:
    """The first request of every kind (answered once before the clock starts: graphs, label indexes, caches)."""
    seen: dict[str, Request] = {}
    for request in mix:
        seen.setdefault(request.kind, request)
    return list(seen.values())


# ------------------------------------------------------------------------------------------------ memory (RSS)
def process_tree(root: int) -> list[int]:
    """``root`` and every descendant, from ``/proc/*/stat``."""
    children: dict[int, list[int]] = defaultdict(list)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        children[ppid].append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def rss_mb(pids: list[int]) -> float:
    total_kb = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total_kb += int(line.split()[1])
                    break
        except OSError:
            pass
    return total_kb / 1024


class RSSSampler:
    """The summed RSS of a process tree, sampled every ``interval`` seconds in a daemon thread."""

    def __init__(self, root: int, interval: float = 0.2) -> None:
        self.root, self.interval = root, interval
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def now(self) -> float:
        value = rss_mb(process_tree(self.root))
        self.peak = max(self.peak, value)
        return value

    def reset_peak(self) -> None:
        self.peak = 0.0

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.now()

    def __enter__(self) -> RSSSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def load_average() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


# ------------------------------------------------------------------------------------------------ servers
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(code: Path, **extra: str) -> dict[str, str]:
    """Offline (no model, no key, no tracing or version checks), the checkout ``code`` first on the path."""
    drop = {"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "KG_AGENT_MODEL", "KG_AGENT_KG", "KG_AGENT_MCP_TOKEN",
            "LANGSMITH_API_KEY", "LANGCHAIN_API_KEY", "LANGSMITH_CONTROL_PLANE_API_KEY", "LANGGRAPH_CLOUD_LICENSE_KEY",
            "LANGSMITH_ENDPOINT"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(LANGGRAPH_CLI_NO_ANALYTICS="1", LANGGRAPH_NO_VERSION_CHECK="true", LANGSMITH_TRACING="false",
               LANGCHAIN_TRACING_V2="false", PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join(p for p in (str(code), env.get("PYTHONPATH", "")) if p), **extra)
    return env


@dataclass
class RunningServer:
    process: subprocess.Popen
    url: str
    log: Path
    headers: dict[str, str] = field(default_factory=dict)
    startup: float = 0.0  # seconds from spawn to listening
    stopped: str = ""  # how it stopped: "SIGTERM, exit 0", "killed after 15 s" ...


def wait_listening(server: RunningServer, probe: Callable[[], bool]) -> float:
    start = time.monotonic()
    while time.monotonic() - start < STARTUP_TIMEOUT:
        if server.process.poll() is not None:
            raise SystemExit(f"the server exited with {server.process.returncode}:\n{server.log.read_text()[-3000:]}")
        try:
            if probe():
                return time.monotonic() - start
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"the server did not answer within {STARTUP_TIMEOUT:.0f} s:\n{server.log.read_text()[-3000:]}")


def stop_server(server: RunningServer) -> None:
    process = server.process
    if process.poll() is not None:
        server.stopped = f"had exited ({process.returncode})"
        return
    os.killpg(process.pid, signal.SIGTERM)
    start = time.monotonic()
    try:
        process.wait(timeout=STOP_TIMEOUT)
        server.stopped = f"on SIGTERM in {time.monotonic() - start:.1f} s (exit {process.returncode})"
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_TIMEOUT)
        server.stopped = f"did not stop within {STOP_TIMEOUT:.0f} s of SIGTERM: killed"


@contextmanager
def mcp_server(code: Path, kg: str, workdir: Path):
    token = secrets.token_urlsafe(32)
    port = free_port()
    log = workdir / "mcp_server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "kg_agent.cli", "mcp", "--kg", kg, "--transport", "http",
                                    "--host", "127.0.0.1", "--port", str(port)],
                                   cwd=workdir, env=server_env(code, KG_AGENT_MCP_TOKEN=token), stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    server = RunningServer(process, f"http://127.0.0.1:{port}/mcp", log, {"Authorization": f"Bearer {token}"})

    def listening() -> bool:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    try:
        server.startup = wait_listening(server, listening)
        yield server
    finally:
        stop_server(server)


@contextmanager
def langgraph_server(code: Path, kg: str, workdir: Path, jobs: int):
    port = free_port()
    folder = workdir / "langgraph_dev"
    folder.mkdir(exist_ok=True)
    log = workdir / "langgraph_server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "langgraph_cli", "dev", "--no-browser", "--no-reload",
                                    "--host", "127.0.0.1", "--port", str(port), "--config", str(code / "langgraph.json"),
                                    "--n-jobs-per-worker", str(jobs)],
                                   cwd=folder, env=server_env(code, KG_AGENT_KG=kg), stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    server = RunningServer(process, f"http://127.0.0.1:{port}", log)

    def ok() -> bool:
        with urllib.request.urlopen(f"{server.url}/ok", timeout=2) as response:
            return response.status == 200
    try:
        server.startup = wait_listening(server, ok)
        yield server
    finally:
        stop_server(server)


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def log_text(log: Path) -> str:
    return ANSI.sub("", log.read_text(encoding="utf-8", errors="replace")) if log.exists() else ""


def log_trouble(log: Path) -> tuple[int, int]:
    """(lines logged at ERROR or CRITICAL, tracebacks) in a server log (``logging``'s upper-case levels or
    structlog's ``[error    ]``)."""
    text = log_text(log)
    errors = len(re.findall(r"(?m)^.*(\b(ERROR|CRITICAL)\b|\[(error|critical)\s*\])", text))
    return errors, text.count("Traceback (most recent call last)")


def langgraph_run_times(log: Path, skip: int) -> dict:
    """The server's own view of its runs (``Background run succeeded`` lines, the first ``skip`` being the warm-up):
    how long each waited to be picked up and how long it executed, p50 / p95 in seconds."""
    waits, execs = [], []
    for line in log_text(log).splitlines():
        if "Background run succeeded" in line:
            wait, run = re.search(r"run_wait_time_ms=(\d+)", line), re.search(r"run_exec_ms=(\d+)", line)
            if wait and run:
                waits.append(int(wait.group(1)) / 1000)
                execs.append(int(run.group(1)) / 1000)
    waits, execs = waits[skip:], execs[skip:]
    return {"runs": len(execs), "wait_p50": percentile(waits, 0.5), "wait_p95": percentile(waits, 0.95),
            "exec_p50": percentile(execs, 0.5), "exec_p95": percentile(execs, 0.95)}


# ------------------------------------------------------------------------------------------------ clients
@dataclass
class Outcome:
    kind: str
    status: str  # ok | wrong | error | not done
    seconds: float | None = None
    detail: str = ""


def flattened(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in flattened(inner)]
    return [error]


def describe(error: BaseException) -> str:
    return "; ".join(f"{type(e).__name__}: {str(e)[:200]}" for e in flattened(error))


class MCPClient:
    """One SDK 2 client (``mcp.Client``, protocol revision 2026-07-28) over streamable HTTP, with the server's bearer
    token on an ``httpx2`` client (generous timeouts: a short read timeout drops a slow reply). The tool listing is
    fetched on opening, so a counted ``tools/call`` is never preceded by the client's re-list of an unlisted tool."""

    def __init__(self, server: RunningServer) -> None:
        self.server = server

    async def __aenter__(self):
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        self._stack = AsyncExitStack()
        await self._stack.__aenter__()
        http = await self._stack.enter_async_context(httpx2.AsyncClient(headers=self.server.headers,
                                                                        timeout=httpx2.Timeout(30, read=600)))
        self.session = await self._stack.enter_async_context(
            Client(streamable_http_client(self.server.url, http_client=http)))
        await self.session.list_tools()
        return self

    async def __aexit__(self, *exc):
        return await self._stack.__aexit__(*exc)

    async def send(self, request: Request) -> tuple[str, str]:
        result = await self.session.call_tool(request.target, request.arguments)
        if result.is_error:
            return "error", (result.content[0].text if result.content else "tool error")[:300]
        problem = request.check(result.structured_content or {})
        return ("wrong", problem) if problem else ("ok", "")


class LangGraphClient:
    """One ``langgraph_sdk`` client; every request is a stateless run (``runs.wait`` with no thread)."""

    def __init__(self, server: RunningServer) -> None:
        self.server = server

    async def __aenter__(self):
        import httpx
        from langgraph_sdk import get_client

        self.client = get_client(url=self.server.url, api_key=None, timeout=httpx.Timeout(30, read=600))
        return self

    async def __aexit__(self, *exc):
        await self.client.aclose()

    async def send(self, request: Request) -> tuple[str, str]:
        result = await self.client.runs.wait(None, request.target, input=request.arguments)
        if not isinstance(result, dict) or "__error__" in result:
            return "error", str(result)[:300]
        problem = request.check(result)
        return ("wrong", problem) if problem else ("ok", "")


async def send_one(client, request: Request, timeout: float) -> Outcome:
    import anyio

    start = time.perf_counter()
    try:
        with anyio.fail_after(timeout):
            status, detail = await client.send(request)
    except TimeoutError:
        status, detail = "error", f"no reply within {timeout:.0f} s"
    except Exception as error:  # noqa: BLE001 - every failure of a request is counted, not raised
        status, detail = "error", describe(error)
    return Outcome(request.kind, status, time.perf_counter() - start, detail)


async def drive(make_client: Callable[[], Any], mix: list[Request], *, clients: int, requests: int, seconds: float,
                time_limit: float, request_timeout: float, warm_up: list[Request],
                after_warm_up: Callable[[], None]) -> tuple[list[Outcome], list[Outcome], float]:
    """Warm up over one session (then call ``after_warm_up``), then ``clients`` sessions send ``requests`` requests on
    the schedule; returns the warm-up outcomes, the load outcomes and the load's wall time."""
    import anyio

    async with make_client() as client:
        warm = [await send_one(client, request, request_timeout) for request in warm_up]
    after_warm_up()

    schedule: list[list[tuple[float, Request]]] = [[] for _ in range(clients)]
    for j in range(requests):
        schedule[j % clients].append((j * seconds / requests, mix[j % len(mix)]))
    outcomes: list[Outcome] = []
    opened = anyio.Event()
    ready = [0]
    start = [0.0]

    async def client_loop(mine: list[tuple[float, Request]]) -> None:
        done = 0
        try:
            async with make_client() as client:
                ready[0] += 1
                if ready[0] == clients:
                    start[0] = time.perf_counter()
                    opened.set()
                await opened.wait()
                for due, request in mine:
                    delay = start[0] + due - time.perf_counter()
                    if delay > 0:
                        await anyio.sleep(delay)
                    outcomes.append(await send_one(client, request, request_timeout))
                    done += 1
        except Exception as error:  # noqa: BLE001 - a session that fails to open or breaks: its requests are errors
            if not opened.is_set():
                ready[0] += 1
                if ready[0] == clients:
                    start[0] = time.perf_counter()
                    opened.set()
            outcomes.extend(Outcome(r.kind, "error", None, f"session: {describe(error)}") for _, r in mine[done:])
            done = len(mine)
        finally:
            outcomes.extend(Outcome(r.kind, "not done") for _, r in mine[done:])

    with anyio.move_on_after(time_limit):
        async with anyio.create_task_group() as group:
            for mine in schedule:
                group.start_soon(client_loop, mine)
    wall = time.perf_counter() - start[0] if start[0] else 0.0
    return warm, outcomes, wall


# ------------------------------------------------------------------------------------------------ one measurement
def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def summarise(outcomes: list[Outcome]) -> dict:
    times = [o.seconds for o in outcomes if o.seconds is not None]
    counts = {status: sum(o.status == status for o in outcomes) for status in ("ok", "wrong", "error", "not done")}
    return {"n": len(outcomes), **counts, "p50": percentile(times, 0.50), "p95": percentile(times, 0.95),
            "max": max(times) if times else None}


def measure(kind: str, code: Path, kg: str, workdir: Path, oracle: KBOracle, args) -> dict:
    import anyio

    mix = mcp_mix(oracle) if kind == "mcp" else langgraph_mix(oracle)
    starter = (lambda: mcp_server(code, kg, workdir)) if kind == "mcp" else (lambda: langgraph_server(code, kg, workdir, args.clients))
    client_class = MCPClient if kind == "mcp" else LangGraphClient
    row: dict[str, Any] = {"server": kind}
    with starter() as server, RSSSampler(server.process.pid) as rss:
        row["startup_s"] = server.startup
        row["rss_listening"] = rss.now()

        def after_warm_up() -> None:
            row["rss_warm"] = rss.now()
            row["load_before"] = load_average()
            rss.reset_peak()

        warm, outcomes, wall = anyio.run(lambda: drive(
            lambda: client_class(server), mix, clients=args.clients, requests=args.requests, seconds=args.seconds,
            time_limit=args.time_limit, request_timeout=args.request_timeout, warm_up=warm_up_set(mix),
            after_warm_up=after_warm_up))
        row["rss_peak"] = max(rss.peak, row["rss_warm"])
        row["rss_end"] = rss.now()
        row["load_after"] = load_average()
    row["stopped"] = server.stopped
    row["log_errors"], row["log_tracebacks"] = log_trouble(server.log)
    if kind == "langgraph":
        row["server_side"] = langgraph_run_times(server.log, skip=len(warm))
    row["warm_up"] = [{"kind": o.kind, "status": o.status, "seconds": o.seconds, "detail": o.detail} for o in warm]
    row["wall_s"] = wall
    row["all"] = summarise(outcomes)
    row["by_kind"] = {k: summarise([o for o in outcomes if o.kind == k]) for k in dict.fromkeys(r.kind for r in mix)}
    problems = [o for o in outcomes if o.status in {"wrong", "error"}]
    row["problems"] = [{"kind": o.kind, "status": o.status, "detail": o.detail} for o in problems[:20]]
    return row


# ------------------------------------------------------------------------------------------------ backends
@contextmanager
def backend_kg(backend: str, code: Path, kb: Path, workdir: Path):
    """The KG source the servers get (a file, a store folder, an endpoint URL) and, for Virtuoso, its process."""
    if backend == "memory":
        yield str(kb), None, {}
    elif backend == "oxigraph":
        start = time.perf_counter()
        store = workdir / "oxigraph"
        subprocess.run([sys.executable, "-m", "kg_agent.cli", "load", str(kb), "--store", str(store)], check=True,
                       env=server_env(code), cwd=workdir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        yield str(store), None, {"prepare_s": time.perf_counter() - start}
    else:
        from kg_agent.kg import load_kg
        from tests.virtuoso_server import VirtuosoServer, export_ntriples, graph_iri, skip_reason

        reason = skip_reason()
        if reason:
            raise SystemExit(f"cannot run the virtuoso backend: {reason}")
        start = time.perf_counter()
        with VirtuosoServer(workdir / "virtuoso") as virtuoso:
            memory = load_kg(kb)
            nt = export_ntriples(memory, virtuoso.workdir / "metaqa.nt")
            del memory
            graph = virtuoso.load(nt, graph_iri("metaqa"))
            yield virtuoso.endpoint(graph), virtuoso.process.pid, {"prepare_s": time.perf_counter() - start,
                                                                   "triples": virtuoso.loaded[graph]}


def run_backend(backend: str, args, oracle: KBOracle, kb: Path) -> dict:
    code = Path(args.code).resolve()
    with tempfile.TemporaryDirectory(prefix=f"kg-agent-load-{backend}-") as tmp:
        workdir = Path(tmp)
        with backend_kg(backend, code, kb, workdir) as (kg, store_pid, info):
            result = {"backend": backend, **info, "servers": []}
            store_rss = RSSSampler(store_pid) if store_pid else None
            if store_rss:
                store_rss.__enter__()
            try:
                for kind in args.servers:
                    if store_rss:
                        store_rss.reset_peak()
                    row = measure(kind, code, kg, workdir, oracle, args)
                    if store_rss:
                        row["store_rss_peak"] = store_rss.peak
                    result["servers"].append(row)
                    print_row(backend, row, flush=True)
            finally:
                if store_rss:
                    store_rss.__exit__()
            if args.keep_logs:
                keep = Path(args.keep_logs) / backend
                keep.mkdir(parents=True, exist_ok=True)
                for log in [*workdir.glob("*_server.log"), *workdir.glob("virtuoso/db/*.log")]:  # Virtuoso: its HTTP and error logs
                    shutil.copy(log, keep / log.name)
    return result


# ------------------------------------------------------------------------------------------------ report
def fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_row(backend: str, row: dict, flush: bool = False) -> None:
    a = row["all"]
    print(f"[{backend} / {row['server']}] done {a['ok'] + a['wrong'] + a['error']}/{a['n']}, errors {a['error']}, "
          f"wrong {a['wrong']}, not done {a['not done']}, p50 {fmt(a['p50'])} s, p95 {fmt(a['p95'])} s, "
          f"wall {row['wall_s']:.1f} s, RSS {row['rss_listening']:.0f}/{row['rss_warm']:.0f}/{row['rss_peak']:.0f}/"
          f"{row['rss_end']:.0f} MB, "
          f"load {row['load_before']:.1f}->{row['load_after']:.1f}", file=sys.stderr, flush=flush)
    for problem in row["problems"][:5]:
        print(f"    {problem['status']}: {problem['kind']}: {problem['detail']}", file=sys.stderr, flush=flush)


def markdown(results: list[dict], args) -> str:
    lines = [f"{args.clients} clients per server, {args.requests} requests over {args.seconds:g} s, time limit "
             f"{args.time_limit:g} s; latency in seconds (client side), RSS in MB (server process tree: listening / "
             "after warm-up / peak under load / end)", "",
             "| backend | server | done | errors | wrong | not done | p50 | p95 | max | wall, s | RSS listening / warm / peak / end "
             "| store RSS peak | log ERROR / tracebacks | stopped | load avg before → after |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---|---|"]
    for result in results:
        for row in result["servers"]:
            a = row["all"]
            lines.append(
                f"| {result['backend']} | {row['server']} | {a['ok'] + a['wrong'] + a['error']}/{a['n']} | {a['error']} | "
                f"{a['wrong']} | {a['not done']} | {fmt(a['p50'])} | {fmt(a['p95'])} | {fmt(a['max'], 2)} | "
                f"{row['wall_s']:.1f} | {row['rss_listening']:.0f} / {row['rss_warm']:.0f} / {row['rss_peak']:.0f} / "
                f"{row['rss_end']:.0f} | "
                f"{fmt(row.get('store_rss_peak'), 0)} | {row['log_errors']} / {row['log_tracebacks']} | {row['stopped']} | "
                f"{row['load_before']:.1f} → {row['load_after']:.1f} |")
    lines += ["", "| backend | server | kind | n | errors | wrong | p50 | p95 | max |", "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for result in results:
        for row in result["servers"]:
            for kind, s in row["by_kind"].items():
                lines.append(f"| {result['backend']} | {row['server']} | {kind} | {s['n']} | {s['error']} | {s['wrong']} | "
                             f"{fmt(s['p50'])} | {fmt(s['p95'])} | {fmt(s['max'], 2)} |")
    server_side = [(result["backend"], row["server_side"]) for result in results for row in result["servers"] if "server_side" in row]
    if server_side:
        lines += ["", "LangGraph server's own log (runs after the warm-up): wait to be picked up, execution; seconds", "",
                  "| backend | runs | wait p50 | wait p95 | execution p50 | execution p95 |", "|---|---:|---:|---:|---:|---:|"]
        lines += [f"| {backend} | {t['runs']} | {fmt(t['wait_p50'])} | {fmt(t['wait_p95'])} | {fmt(t['exec_p50'])} | "
                  f"{fmt(t['exec_p95'])} |" for backend, t in server_side]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=[*BACKENDS, "all"], default="all", help="KG backend (default: all three in turn)")
    parser.add_argument("--servers", choices=[*SERVERS, "both"], default="both",
                        help="which server to load (default: both, one after the other)")
    parser.add_argument("--clients", type=int, default=10, help="concurrent client sessions per server (default 10)")
    parser.add_argument("--requests", type=int, default=200, help="requests per server (default 200)")
    parser.add_argument("--seconds", type=float, default=60.0, help="the requests are spread evenly over this many seconds (default 60)")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds after which requests still out are abandoned (default: --seconds + 120)")
    parser.add_argument("--request-timeout", type=float, default=120.0, help="seconds a client waits for one reply (default 120)")
    parser.add_argument("--data", default=os.environ.get("KG_AGENT_DATA", str(ROOT.parent / "shared" / "data")),
                        help="data folder holding metaqa/kb.txt (default: KG_AGENT_DATA or ../shared/data)")
    parser.add_argument("--code", default=str(ROOT), help="the kg-agent checkout whose servers are started (default: this one)")
    parser.add_argument("--json", default=None, help="write every number to this JSON file")
    parser.add_argument("--keep-logs", default=None, help="copy the servers' logs into this folder")
    args = parser.parse_args(argv)
    if args.clients < 1 or args.requests < 1 or args.seconds <= 0:
        parser.error("--clients and --requests must be at least 1 and --seconds positive")
    args.time_limit = args.time_limit if args.time_limit is not None else args.seconds + 120
    args.servers = list(SERVERS) if args.servers == "both" else [args.servers]
    kb = Path(args.data) / "metaqa" / "kb.txt"
    if not kb.exists():
        parser.error(f"no MetaQA KB at {kb} (pass --data or set KG_AGENT_DATA)")

    oracle = KBOracle(kb)
    results = []
    for backend in BACKENDS if args.backend == "all" else [args.backend]:
        results.append(run_backend(backend, args, oracle, kb))
    report = markdown(results, args)
    print(report)
    if args.json:
        Path(args.json).write_text(json.dumps({"args": {k: v for k, v in vars(args).items()}, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
