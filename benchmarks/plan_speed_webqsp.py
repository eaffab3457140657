"""Planner time per WebQSP question, warm: ``SimilarityPlanner.plan`` alone on the 16 answerable subgraphs.

    python benchmarks/plan_speed_webqsp.py [--data ../shared/data] [--out plans.json]

Each question's subgraph is built with ``kg_from_triples``, its ``q_entity`` labels linked with ``find_entities``,
and every question planned twice; the second pass is timed (CPU time of the process and wall time). ``--out``
writes the top-3 plans, to compare two versions of the scorer (docs/benchmarks.md section 13b).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

UNANSWERABLE = ("WebQTest-3", "WebQTest-31")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("--out")
    args = parser.parse_args(argv)

    from kg_agent.kg import kg_from_triples
    from kg_agent.tools.rog.plan import SimilarityPlanner

    lines = (Path(args.data) / "webqsp" / "rog_webqsp_18q.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [r for r in map(json.loads, lines) if r["id"] not in UNANSWERABLE]
    graphs = [(r, kg_from_triples(r["graph"], name=r["id"])) for r in rows]

    def run():
        cpu = wall = 0.0
        plans = {}
        for row, kg in graphs:
            topics = [e for name in row["q_entity"] for e in kg.find_entities(name)[:1]]
            planner = SimilarityPlanner(kg)
            cpu0, wall0 = time.process_time(), time.perf_counter()
            outcome = planner.plan(row["question"], topics)
            cpu += time.process_time() - cpu0
            wall += time.perf_counter() - wall0
            plans[row["id"]] = [list(p.relations) for p in outcome.plans]
        return cpu / len(graphs), wall / len(graphs), plans

    run()
    cpu, wall, plans = run()
    print(f"planner, warm: {cpu:.3f} s CPU / question, {wall:.3f} s wall / question ({len(graphs)} questions)")
    if args.out:
        Path(args.out).write_text(json.dumps(plans, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
