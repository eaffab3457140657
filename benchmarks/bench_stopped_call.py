"""``kg-agent mcp`` after a heavy call it stopped: the server's memory and a cheap call's latency (issue 47, item 1).

    python benchmarks/bench_stopped_call.py --kg /tmp/metaqa.oxigraph [--tool-timeout 1] [--watch 40]

Starts ``kg-agent mcp --transport http`` over the KG (an Oxigraph store folder: build it with ``kg-agent load
../shared/data/metaqa/kb.txt --store /tmp/metaqa.oxigraph``), calls ``retrieve_paths`` from "Drama" along six
relations with limit 200 (the issue's heavy call), then samples the server's RSS (``/proc/PID/status``) every
second for ``--watch`` seconds and times a ``search_entities`` call at the end. Prints one Markdown row.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_mcp_server import server_env  # noqa: E402

HEAVY = {"entity": "Drama", "relations": ["^has_genre", "starred_actors", "^starred_actors", "has_genre", "^has_genre",
                                          "starred_actors"], "limit": 200}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def client(url: str, pid: int, watch: float) -> dict:
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool("search_entities", {"text": "Tom Hanks"})
        before = rss_mb(pid)
        start = time.perf_counter()
        heavy = await session.call_tool("retrieve_paths", HEAVY)
        heavy_seconds = time.perf_counter() - start
        text = heavy.content[0].text if heavy.content else ""
        peak = rss_mb(pid)
        for _ in range(int(watch)):
            await anyio.sleep(1)
            peak = max(peak, rss_mb(pid))
        start = time.perf_counter()
        await session.call_tool("search_entities", {"text": "Tom Hanks"})
        cheap = time.perf_counter() - start
        return {"rss_before": before, "heavy_s": heavy_seconds, "heavy_error": heavy.isError, "heavy_text": text[:160],
                "peak_rss": peak, "rss_after": rss_mb(pid), "cheap_s": cheap}


def main(argv=None) -> int:
    import anyio

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kg", required=True)
    parser.add_argument("--tool-timeout", type=float, default=30.0)
    parser.add_argument("--watch", type=float, default=40.0)
    args = parser.parse_args(argv)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "kg_agent.cli", "mcp", "--kg", args.kg, "--transport", "http",
                                "--port", str(port), "--tool-timeout", str(args.tool_timeout)], cwd=ROOT,
                               env=server_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None:
                    raise SystemExit(f"the server exited with {process.returncode}") from None
                time.sleep(0.1)
        found = anyio.run(client, f"http://127.0.0.1:{port}/mcp", process.pid, args.watch)
    finally:
        process.terminate()
        process.wait(timeout=30)
    print("| tool timeout | heavy call | server RSS before / peak / after | search_entities after |")
    print("|---|---|---|---|")
    outcome = f"{'stopped' if found['heavy_error'] else 'answered'} in {found['heavy_s']:.1f} s"
    print(f"| {args.tool_timeout:g} s | {outcome} | {found['rss_before']:.0f} / {found['peak_rss']:.0f} / "
          f"{found['rss_after']:.0f} MB | {found['cheap_s'] * 1000:.0f} ms |")
    print(f"heavy call said: {found['heavy_text']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
