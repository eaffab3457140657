"""Whole-process time of the command line (issue 48 items 2 and 4): start-up, one question, and the same question
asked through the Python library.

    python benchmarks/bench_cli_start.py --kg STORE --question "Who wrote Moby Dick?" [--runs 7]

Measures, each command run ``--runs`` times in a fresh process after one warm-up run (medians; wall seconds and the
CPU seconds the process used, user + system, from ``getrusage(RUSAGE_CHILDREN)``):

* ``python -c pass`` and ``python -c "import langgraph.graph"``: the interpreter, and the floor a LangGraph method
  graph puts under every question of a new process;
* ``kg-agent --help``;
* ``kg-agent ask QUESTION --kg STORE`` (text) and ``... --json``;
* ``library``: a ``python -c`` doing what ``ask`` does through the library (``open_kg``, ``create_graph("rog", kg)``,
  ``invoke``), printing nothing: what the command line adds is the difference.

The commands run in turn (one run of each, then the next round), so a machine getting busier or quieter during the
benchmark moves them alike; "CLI / library" is the median of the per-round ratios. The user's cache folder
(``KG_AGENT_CACHE_DIR``) is a fresh folder filled by the warm-up round: every counted run finds there the texts its
question scores and MiniLM as onnxruntime optimised it, as any second question on a machine does. Python writes and
reads its bytecode caches as it does for a user (``PYTHONDONTWRITEBYTECODE`` is removed from the environment). On a
shared machine quote CPU seconds beside wall seconds: wall time also counts waiting for the processors.
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


def timed_run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command``, which must exit 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kg", required=True, help="an Oxigraph store built by kg-agent load")
    parser.add_argument("--question", required=True)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["KG_AGENT_CACHE_DIR"] = tempfile.mkdtemp(prefix="kg-agent-bench-cache-")
    ask = ["kg-agent", "ask", args.question, "--kg", args.kg]
    library = "library (open_kg, create_graph, invoke)"
    rows = {"python -c pass": [sys.executable, "-c", "pass"],
            "python -c 'import langgraph.graph'": [sys.executable, "-c", "import langgraph.graph"],
            "kg-agent --help": ["kg-agent", "--help"], "kg-agent ask (text)": ask, "kg-agent ask --json": [*ask, "--json"],
            library: [sys.executable, "-c", LIBRARY, args.question, args.kg]}
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in rows}
    for round_ in range(1 + args.runs):  # round 0 is the warm-up
        for name, command in rows.items():
            result = timed_run(command, env)
            if round_:
                runs[name].append(result)
    print(f"{'command':42s} {'wall s':>8s} {'CPU s':>8s}   (median of {args.runs}; min-max wall)")
    for name, results in runs.items():
        walls, cpus = [w for w, _ in results], [c for _, c in results]
        print(f"{name:42s} {statistics.median(walls):8.2f} {statistics.median(cpus):8.2f}   "
              f"({min(walls):.2f}-{max(walls):.2f})")
    for name in ("kg-agent ask (text)", "kg-agent ask --json"):
        wall = statistics.median(a[0] / b[0] for a, b in zip(runs[name], runs[library]))
        cpu = statistics.median(a[1] / b[1] for a, b in zip(runs[name], runs[library]))
        print(f"{name} / library, median of per-round ratios: wall {wall:.2f}, CPU {cpu:.2f}")


if __name__ == "__main__":
    main()
