"""Per hop: how often RoG's top plan is the question's gold relation path, and strict Hits@1, from a results file.

    kg-agent eval metaqa ... --method rog --planner similarity --out rog.json
    python benchmarks/top_plan_is_gold.py rog.json [--show 5]

The gold path is read from each MetaQA question's type (:func:`kg_agent.eval.runner.metaqa_gold_relation_path`);
``--show N`` prints N questions per hop whose top plan is not the gold one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def plan_relations(text: str) -> tuple[str, ...]:
    """``<PATH> a <SEP> b </PATH>`` -> ``("a", "b")``."""
    inner = text.replace("<PATH>", "").replace("</PATH>", "")
    return tuple(part.strip() for part in inner.split("<SEP>") if part.strip())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results")
    parser.add_argument("--show", type=int, default=0)
    args = parser.parse_args(argv)

    from kg_agent.eval.runner import metaqa_gold_relation_path

    per_hop: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    shown: dict[int, int] = defaultdict(int)
    for record in json.loads(Path(args.results).read_text(encoding="utf-8"))["per_question"]:
        hop, gold = record["hop"], metaqa_gold_relation_path(record["qtype"])
        plans = [plan_relations(p) for p in record.get("plans") or []]
        is_gold = bool(plans) and plans[0] == gold
        counts = per_hop[hop]
        counts[0] += 1
        counts[1] += is_gold
        counts[2] += record["scores"]["strict"]["hits_at_1"]
        if not is_gold and shown[hop] < args.show:
            shown[hop] += 1
            print(f"{hop}-hop: {record['question']} | gold {gold} | plans {plans}")
    print("| hop | n | top plan = gold | strict Hits@1 |\n|---:|---:|---:|---:|")
    for hop in sorted(per_hop):
        n, gold, hits = per_hop[hop]
        print(f"| {hop} | {n} | {100 * gold / n:.0f} | {100 * hits / n:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
