"""HTTP requests and seconds per RoG question on a cold client of a Virtuoso SPARQL endpoint.

    python benchmarks/bench_endpoint_requests.py [--triples 200000] [--questions 20] [--seed 0] [--memory]

Generates a movie KG (:mod:`kg_agent.eval.synthetic`: readable relation names, labels, genre/year/country hubs)
with its 1-hop and 2-hop questions, bulk-loads it into a Virtuoso started for the run (tests/virtuoso_server.py),
then answers each question with offline RoG (similarity planner, topic entities given as ids) on a fresh client,
so nothing is cached. For every question, ``usage["kg_requests"]`` is checked against Virtuoso's HTTP log.
With ``--memory`` the KG is also loaded in memory and every result state must equal the memory backend's.
Prints a markdown table per hop: requests (min / median / max, how many questions sent at most 10) and
seconds (median / p90).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))

from benchmarks.bench_kg import pct  # noqa: E402


def comparable(result: dict) -> dict:
    """The result state without what differs between runs and backends (messages, start time, request count)."""
    state = {k: v for k, v in result.items() if k not in {"messages", "started_at"}}
    state["usage"] = {k: v for k, v in (state.get("usage") or {}).items() if k != "kg_requests"}
    return json.loads(json.dumps(state, sort_keys=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triples", type=int, default=200_000, help="size of the generated KG")
    parser.add_argument("--questions", type=int, default=20, help="questions per hop count (1 and 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memory", action="store_true", help="also check every state against the memory backend")
    args = parser.parse_args(argv)

    from kg_agent.eval.synthetic import generate
    from kg_agent.graphs import create_rog_graph
    from kg_agent.kg import load_kg, open_kg
    from tests.virtuoso_server import VirtuosoServer, graph_iri, skip_reason

    if skip_reason() is not None:
        print(f"cannot run: {skip_reason()}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp, VirtuosoServer() as server:
        folder = Path(tmp) / "kg"
        generate("movie", folder, triples=args.triples, seed=args.seed, questions_per_hop=args.questions, three_hop=0)
        questions = [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
        started = time.perf_counter()
        graph = server.load(folder / "kg.nt", graph_iri("bench"))
        print(f"bulk load: {server.loaded[graph]} triples in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        memory = create_rog_graph(load_kg(folder / "kg.nt"), planner="similarity").compile() if args.memory else None
        rows: dict[int, tuple[list[int], list[float]]] = {}
        for question in questions:
            remote = open_kg(server.endpoint(graph), timeout=300)
            app = create_rog_graph(remote, planner="similarity").compile()
            state = {"question": question["raw"], "topic_entities": question["topic_ids"]}
            before = server.settled_sparql_count()
            started = time.perf_counter()
            result = app.invoke(state)
            seconds = time.perf_counter() - started
            sent = result["usage"]["kg_requests"]
            logged = server.settled_sparql_count(at_least=before + sent) - before
            if logged != sent:
                raise SystemExit(f"{question['raw']!r}: usage says {sent} requests, Virtuoso logged {logged}")
            if memory is not None and comparable(memory.invoke(state)) != comparable(result):
                raise SystemExit(f"{question['raw']!r}: the endpoint's result differs from the memory backend's")
            requests, times = rows.setdefault(question["hop"], ([], []))
            requests.append(sent)
            times.append(seconds)
    load = os.getloadavg()[0]
    print(f"Virtuoso, generated movie KG of {args.triples} triples (seed {args.seed}), RoG offline, cold client per "
          f"question, topics as ids; load average {load:.1f}" + (", states equal to memory's" if args.memory else ""))
    print()
    print("| hops | questions | requests min / median / max | questions with <= 10 requests | seconds median / p90 |")
    print("|---:|---:|---|---:|---|")
    for hop, (requests, times) in sorted(rows.items()):
        print(f"| {hop} | {len(requests)} | {min(requests)} / {statistics.median(requests):g} / {max(requests)} | "
              f"{sum(n <= 10 for n in requests)} | {statistics.median(times):.2f} / {pct(times, 0.9):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
