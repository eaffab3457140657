"""Whole-process time of the command line (issue 48 items 2 and 4): start-up, one question, and the same question
asked through the Python library.

    python benchmarks/bench_cli_start.py --kg STORE --question "Who wrote Moby Dick?" [--runs 5]

Measures, each command run ``--runs`` times in a fresh process after one warm-up run (medians; wall seconds and the
CPU seconds the process used, user + system, from ``getrusage(RUSAGE_CHILDREN)``):

* ``kg-agent --help``;
* ``kg-agent ask QUESTION --kg STORE`` (text) and ``... --json``;
* ``library``: a ``python -c`` doing what ``ask`` does through the library (``open_kg``, ``create_graph("rog", kg)``,
  ``invoke``), printing nothing: what the command line adds is the difference.

The user's vector file (``KG_AGENT_CACHE_DIR``) is a fresh folder filled by the warm-up run, so every counted run finds
the texts its question scores there (as any second question on a KG does). On a shared machine quote CPU seconds
beside wall seconds: wall time also counts waiting for the processors.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

LIBRARY = """
import sys
from kg_agent.graphs import create_graph
from kg_agent.kg import open_kg
result = create_graph("rog", open_kg(sys.argv[2])).compile().invoke({"question": sys.argv[1]})
sys.exit(0 if result["answers"] else 1)
"""


def timed_runs(command: list[str], runs: int, *, env: dict[str, str] | None = None, warmup: int = 1) -> dict[str, float]:
    """Median wall and CPU seconds of ``command`` over ``runs`` runs after ``warmup`` uncounted ones; each run must
    exit 0."""
    walls, cpus = [], []
    for index in range(warmup + runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)}: exit {done.returncode}\n{done.stderr[-2000:]}")
        if index >= warmup:
            walls.append(wall)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {"wall": statistics.median(walls), "cpu": statistics.median(cpus)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kg", required=True, help="an Oxigraph store built by kg-agent load")
    parser.add_argument("--question", required=True)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    env = {**os.environ, "KG_AGENT_CACHE_DIR": tempfile.mkdtemp(prefix="kg-agent-bench-cache-")}
    ask = ["kg-agent", "ask", args.question, "--kg", args.kg]
    rows = [("kg-agent --help", ["kg-agent", "--help"]), ("kg-agent ask (text)", ask),
            ("kg-agent ask --json", [*ask, "--json"]),
            ("library (open_kg, create_graph, invoke)", [sys.executable, "-c", LIBRARY, args.question, args.kg])]
    print(f"{'command':42s} {'wall s':>8s} {'CPU s':>8s}   (median of {args.runs})")
    results = {}
    for name, command in rows:
        results[name] = timed_runs(command, args.runs, env=env)
        print(f"{name:42s} {results[name]['wall']:8.2f} {results[name]['cpu']:8.2f}", flush=True)
    library = results["library (open_kg, create_graph, invoke)"]
    for name in ("kg-agent ask (text)", "kg-agent ask --json"):
        print(f"{name} / library: wall {results[name]['wall'] / library['wall']:.2f}, "
              f"CPU {results[name]['cpu'] / library['cpu']:.2f}")


if __name__ == "__main__":
    main()
