"""Fair serving in ``kg-agent mcp --transport http``: one client's heavy calls do not hold up another client's lookup.

The real command runs in a subprocess over a SPARQL endpoint (tests/sparql_server.py: pyoxigraph behind the standard
library's HTTP server, in this process) holding a generated cast graph in which every actor is a hub, so that a
six-relation walk (``^starred_actors, starred_actors`` x 3) takes the endpoint seconds, as it takes Virtuoso over the
MetaQA KB (issue 30: there another session's ``search_entities`` waited 32-49 s behind twelve such walks, because all
sessions shared one pool of 4 slots). The scheduler itself (:class:`kg_agent.mcp.scheduling.CallScheduler`) is also
tested in process, on real anyio tasks.
"""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2 is not installed (pip install 'mcp>=2.3,<3')")

from kg_agent.mcp.scheduling import MAX_CLIENT_CALLS, MAX_CONCURRENT_CALLS, CallScheduler
from tests.test_mcp_server import HANDSHAKE, MODERN, call, error_text, http_session, serve_http

HUB_WALK = ["^starred_actors", "starred_actors"] * 3
HEAVY_CALLS = 12
#: The issue's bound on how long another client's lookup may take while one client's heavy calls run.
FAIR_WAIT = 2.0
#: The server's deadline: long enough for a lookup under load, short enough that the twelve walks end soon.
DEADLINE = 15


def cast_graph(path: Path, *, films: int = 200, actors: int = 100, cast: int = 4, hubs: int = HEAVY_CALLS,
               films_per_hub: int = 10) -> Path:
    """A MetaQA-style KB (``film|starred_actors|actor``) where every film has ``cast`` actors and each ``Hub i``
    stars in ``films_per_hub`` films: any six-relation walk from a hub passes the 5,000-path cap."""
    lines = [f"Film {film}|starred_actors|Actor {(film * 7 + k * 13) % actors}" for film in range(films) for k in range(cast)]
    lines += [f"Film {(hub * 37 + j * 11) % films}|starred_actors|Hub {hub}" for hub in range(hubs) for j in range(films_per_hub)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def settle(endpoint, *, quiet: float = 1.0, limit: float = 60.0) -> None:
    """Wait until the endpoint has had no query for ``quiet`` seconds (the server's stopped walks have ended)."""
    deadline = time.monotonic() + limit
    seen = -1
    while time.monotonic() < deadline and seen != len(endpoint.queries):
        seen = len(endpoint.queries)
        time.sleep(quiet)


@pytest.mark.server
@pytest.mark.parametrize("revision", [MODERN, HANDSHAKE])
def test_heavy_calls_of_one_client_do_not_delay_another_clients_lookup(tmp_path, revision):
    """On 2026-07-28 (no sessions: a client is its HTTP connection) and on the handshake era (a client is its session)."""
    from kg_agent.kg import open_kg
    from tests.sparql_server import SparqlServer, store_from_graph

    store = store_from_graph(open_kg(str(cast_graph(tmp_path / "cast.txt"))).graph)
    walks: list[str] = []
    timings: dict[str, float] = {}
    with SparqlServer(store) as endpoint, serve_http(tmp_path / "server.log", "--kg", endpoint.url,
                                                      "--tool-timeout", str(DEADLINE)) as server:
        async def scenario():
            async with http_session(server.url, revision) as heavy, http_session(server.url, revision) as light:
                # the lookup, once idle: what it needs of the endpoint is read now, so that under load its time is the
                # server's scheduling (what this test is about), not the endpoint's own load from the walks
                found = await call(light, "search_entities", text="Actor 42", limit=3)
                assert found.structured_content["entities"][0]["label"] == "Actor 42", found

                async def walk(hub: int):
                    result = await call(heavy, "retrieve_paths", entity=f"Hub {hub}", relations=HUB_WALK, limit=5)
                    walks.append(error_text(result) if result.is_error else result.structured_content["note"])

                async with anyio.create_task_group() as group:
                    before = len(endpoint.queries)
                    for hub in range(HEAVY_CALLS):
                        group.start_soon(walk, hub)
                    with anyio.fail_after(60):  # the walks have started: the endpoint is working for them
                        while len(endpoint.queries) < before + 2:
                            await anyio.sleep(0.05)
                    started = time.monotonic()
                    found = await call(light, "search_entities", text="Actor 42", limit=3)
                    timings["lookup"] = time.monotonic() - started
                    assert not found.is_error and found.structured_content["entities"][0]["label"] == "Actor 42", found
                    timings["walks running"] = HEAVY_CALLS - len(walks)

        anyio.run(scenario)
        settle(endpoint)
    assert timings["walks running"] > 0  # the lookup was answered while the walks ran
    print("MEASURED", timings, walks)
    assert timings["lookup"] < FAIR_WAIT, timings
    # every walk ended: capped with a note saying so, or stopped at the deadline (running, or never started because
    # the session already held its share of the workers)
    assert len(walks) == HEAVY_CALLS
    stopped = f"Error executing tool retrieve_paths: retrieve_paths took longer than {DEADLINE} s and was stopped"
    waited = (f"Error executing tool retrieve_paths: retrieve_paths waited {DEADLINE} s for a free worker and was not "
              f"started (a client runs at most {MAX_CLIENT_CALLS} such calls at once, the server {MAX_CONCURRENT_CALLS}); "
              "send fewer calls at once or raise --tool-timeout")
    for outcome in walks:
        assert "the search stopped at 5000 paths" in outcome or outcome.startswith(stopped) or outcome == waited, outcome
    assert any("the search stopped at 5000 paths" in outcome for outcome in walks), walks
    log = server.log.read_text()
    assert "ERROR" not in log and "Traceback" not in log, log[-3000:]


# ---------------------------------------------------------------------------------------------- in process
class Client:
    """What the scheduler keys a client's queue on (the server uses :func:`~kg_agent.mcp.scheduling.client_key`): any
    hashable value."""


def test_a_client_holds_at_most_its_share_and_waits_in_its_own_queue():
    """Client A fills its share of the heavy pool and queues more; client B's heavy call and A's lookup start at once."""
    scheduler = CallScheduler(client_calls=2)
    session_a, session_b = Client(), Client()
    events: list[str] = []

    async def scenario():
        release = anyio.Event()

        async def hold(session, kind, name):
            async with scheduler.slot(session, kind):
                events.append(name)
                await release.wait()

        async with anyio.create_task_group() as group:
            for i in range(4):  # A sends four heavy calls: two run, two wait in A's queue
                group.start_soon(hold, session_a, "heavy", f"A heavy {i}")
                await anyio.sleep(0.01)
            group.start_soon(hold, session_b, "heavy", "B heavy")
            group.start_soon(hold, session_a, "lookup", "A lookup")
            await anyio.sleep(0.2)
            assert events == ["A heavy 0", "A heavy 1", "B heavy", "A lookup"]
            assert scheduler.pools["heavy"].borrowed_tokens == 3  # A's waiting calls hold no slot of the pool
            release.set()
        assert sorted(events[4:]) == ["A heavy 2", "A heavy 3"]

    anyio.run(scenario)
    assert scheduler._clients == {}  # a client's queues go when its calls are done (2026-07-28 connections come and go)
    assert scheduler.busy_reason("heavy") == f"a client runs at most 2 such calls at once, the server {MAX_CONCURRENT_CALLS}"


def test_without_a_client_cap_one_client_may_use_every_slot():
    """stdio: one client, so no per-client cap; the pool's size still bounds it."""
    scheduler = CallScheduler(client_calls=None)
    session = Client()
    running: list[int] = []

    async def scenario():
        release = anyio.Event()

        async def hold(i):
            async with scheduler.slot(session, "heavy"):
                running.append(i)
                await release.wait()

        async with anyio.create_task_group() as group:
            for i in range(MAX_CONCURRENT_CALLS + 2):
                group.start_soon(hold, i)
            await anyio.sleep(0.2)
            assert len(running) == MAX_CONCURRENT_CALLS
            release.set()

    anyio.run(scenario)
    assert len(running) == MAX_CONCURRENT_CALLS + 2
    with pytest.raises(ValueError, match="client_calls must be at least 1"):
        CallScheduler(client_calls=0)
