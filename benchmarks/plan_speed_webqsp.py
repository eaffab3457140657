"""Time per WebQSP question, warm: the planner alone, or a whole method, on the 16 answerable subgraphs.

    python benchmarks/plan_speed_webqsp.py [--data DIR] [--method plan|rog|tog|tog-i] [--kg cold|warm] [--out out.json]

``--data`` defaults to ``KG_AGENT_DATA`` (else ``../shared/data``); without its ``webqsp/rog_webqsp_18q.jsonl`` the
benchmark says so and stops (exit 0).

Each question's subgraph is built with ``kg_from_triples`` beforehand (building it is not timed), in a process
warmed by one question first. ``plan`` (the default) links the ``q_entity`` labels with ``find_entities`` and times
``SimilarityPlanner.plan`` alone; a method name times the offline method's graph (``create_graph(method, kg)``, no
model, similarity planner for RoG) invoked on the question text, which links for itself. ``--kg cold`` (default)
times each question on a KG that has answered nothing yet (its caches of relation names, kinds and classes are
filled by that question); ``--kg warm`` first asks the KG "what is <its topic> known for" (untimed), as a user's
KG that has answered a question before; no question's text is seen before it is timed. Reports CPU time of the
process and wall time per question (mean, median, max). ``--out`` writes the top-3 plans (``plan``) or each
question's answers and stop reason (a method), to compare two versions of the code (docs/benchmarks.md 13b, 13j).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

UNANSWERABLE = ("WebQTest-3", "WebQTest-31")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.environ.get("KG_AGENT_DATA", "../shared/data"))
    parser.add_argument("--method", default="plan", choices=["plan", "rog", "tog", "tog-i"])
    parser.add_argument("--kg", default="cold", choices=["cold", "warm"])
    parser.add_argument("--out")
    args = parser.parse_args(argv)

    from kg_agent.graphs.registry import create_graph
    from kg_agent.kg import kg_from_triples
    from kg_agent.tools.rog.plan import SimilarityPlanner

    source = Path(args.data) / "webqsp" / "rog_webqsp_18q.jsonl"
    if not source.is_file():
        print(f"skipped: {source} not found (set KG_AGENT_DATA or --data)")
        return 0
    lines = source.read_text(encoding="utf-8").splitlines()
    rows = [r for r in map(json.loads, lines) if r["id"] not in UNANSWERABLE]

    def runner(row, kg):
        if args.method == "plan":
            def plan(question):
                topics = [e for name in row["q_entity"] for e in kg.find_entities(name)[:1]]
                return [list(p.relations) for p in SimilarityPlanner(kg).plan(question, topics).plans]
            return plan
        options = {"planner": "similarity"} if args.method == "rog" else {}
        app = create_graph(args.method, kg, **options).compile()

        def run(question):
            state = app.invoke({"question": question})
            answers = [a.get("answer") if isinstance(a, dict) else a for a in state.get("answers") or []]
            return {"answers": answers, "stop_reason": state.get("stop_reason")}
        return run

    runner(rows[0], kg_from_triples(rows[0]["graph"], name="warm-up"))("what is this about")
    cpu, wall, out = [], [], {}
    for row in rows:
        run = runner(row, kg_from_triples(row["graph"], name=row["id"]))
        if args.kg == "warm":
            run(f"what is {row['q_entity'][0]} known for")
        cpu0, wall0 = time.process_time(), time.perf_counter()
        out[row["id"]] = run(row["question"])
        cpu.append(time.process_time() - cpu0)
        wall.append(time.perf_counter() - wall0)
    print(f"{args.method}, {args.kg} KG ({len(rows)} questions): CPU mean {statistics.mean(cpu):.3f} s, median "
          f"{statistics.median(cpu):.3f} s, max {max(cpu):.3f} s; wall mean {statistics.mean(wall):.3f} s, "
          f"median {statistics.median(wall):.3f} s, max {max(wall):.3f} s")
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
