"""``kg-agent mcp``: start-up time and tool-call latency over stdio and streamable HTTP, against the same
calls made in process (the protocol's overhead).

    python benchmarks/bench_mcp_server.py --repeat 20
    python benchmarks/bench_mcp_server.py --kg ../shared/data/metaqa/kb.txt --repeat 20

For each transport a fresh server process is started (``python -m kg_agent.cli mcp``, offline) and timed until
the client is connected; then each call below is made once to warm up and ``--repeat`` times timed with the
official SDK 2 client (``mcp.Client``, its default mode: protocol revision 2026-07-28 after ``server/discover``;
``tools/list`` bypasses the client's response cache, so every listing is a round trip). "in process" is
:class:`kg_agent.mcp.service.KGService` called directly (same checks, same result models, no transport). Prints a
Markdown table of medians in milliseconds.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CALLS = [
    ("search_entities", {"text": "Tom Hanks"}),
    ("entity_relations", {"entity": "Tom Hanks"}),
    ("neighbours", {"entity": "Tom Hanks", "relation": "^starred_actors"}),
    ("retrieve_paths", {"entity": "Tom Hanks", "relations": ["^starred_actors", "directed_by"]}),
    ("ask", {"question": "who directed the films that [Tom Hanks] starred in"}),
    ("ask (refused: 20k chars)", {"question": "x" * 20_000}),
]


def server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"OPENAI_API_KEY", "OPENAI_BASE_URL", "KG_AGENT_MODEL"}}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def kg_args(kg: str | None) -> list[str]:
    return ["--kg", kg] if kg else []


async def timed_calls(client, repeat: int) -> dict[str, float]:
    medians = {}
    for label, arguments in CALLS:
        tool = label.split(" ")[0]
        await client.call_tool(tool, arguments)  # warm-up (builds the method graph on the first ask)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            await client.call_tool(tool, arguments)
            times.append(time.perf_counter() - start)
        medians[label] = statistics.median(times) * 1000
    start = time.perf_counter()
    for _ in range(repeat):
        await client.list_tools(cache_mode="bypass")  # a round trip each time, not the SDK's response cache
    medians["tools/list"] = (time.perf_counter() - start) / repeat * 1000
    return medians


async def over_stdio(kg: str | None, repeat: int) -> tuple[float, dict[str, float]]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "kg_agent.cli", "mcp", *kg_args(kg)],
                                   env=server_env(), cwd=str(ROOT))
    start = time.perf_counter()
    async with Client(params) as client:  # entering spawns the server and connects (server/discover)
        startup = time.perf_counter() - start
        return startup, await timed_calls(client, repeat)


async def http_client(url: str, repeat: int) -> dict[str, float]:
    from mcp import Client

    async with Client(url) as client:
        return await timed_calls(client, repeat)


def over_http(kg: str | None, repeat: int) -> tuple[float, dict[str, float]]:
    """Start-up: spawn until the port accepts connections (the client's initialize is in the call times)."""
    import anyio

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "kg_agent.cli", "mcp", *kg_args(kg), "--transport", "http",
                                "--port", str(port)], cwd=ROOT, env=server_env(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None:
                    raise SystemExit(f"the server exited with {process.returncode}") from None
                time.sleep(0.05)
        startup = time.perf_counter() - start
        return startup, anyio.run(http_client, f"http://127.0.0.1:{port}/mcp", repeat)
    finally:
        process.terminate()
        process.wait(timeout=30)


def in_process(kg_source: str | None, repeat: int) -> tuple[float, dict[str, float]]:
    from kg_agent.kg import open_kg
    from kg_agent.mcp.service import KGService
    from kg_agent.tools.lookups import KGToolError

    start = time.perf_counter()
    service = KGService(open_kg(kg_source))
    startup = time.perf_counter() - start
    medians = {}
    for label, arguments in CALLS:
        method = getattr(service, label.split(" ")[0])
        arguments = {**arguments, **({"method": "rog"} if label.startswith("ask") else {"limit": 10})}

        def once(method=method, arguments=arguments):
            try:
                method(**arguments)
            except KGToolError:
                pass

        once()
        times = []
        for _ in range(repeat):
            begin = time.perf_counter()
            once()
            times.append(time.perf_counter() - begin)
        medians[label] = statistics.median(times) * 1000
    return startup, medians


def main(argv=None) -> int:
    import anyio

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kg", default=None, help="KG source as for kg-agent mcp (default: the bundled sample KG)")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)

    columns = {"in process": in_process(args.kg, args.repeat),
               "stdio": anyio.run(over_stdio, args.kg, args.repeat),
               "streamable HTTP": over_http(args.kg, args.repeat)}
    print(f"KG: {args.kg or 'bundled sample'}; median of {args.repeat} calls, ms\n")
    print("| call | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    print("| start-up, s (in process: open the KG; stdio: spawn to initialized; HTTP: spawn to listening) | "
          + " | ".join(f"{startup:.2f}" for startup, _ in columns.values()) + " |")
    for label in [label for label, _ in CALLS] + ["tools/list"]:
        cells = [f"{medians[label]:.1f}" if label in medians else "-" for _, medians in columns.values()]
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
