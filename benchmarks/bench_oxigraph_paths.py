"""``retrieve_paths`` on an Oxigraph store of MetaQA's KB: many ordinary 2- and 3-hop plans from people, and one hub.

    python benchmarks/bench_oxigraph_paths.py --store /tmp/metaqa.oxigraph --kb ../shared/data/metaqa/kb.txt [--people 60]

Picks ``--people`` actors and directors from the KB file (seeded), runs six plans from each and
``Drama ^has_genre has_genre`` once, timing each retrieval, twice over; prints the total, median and slowest.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PLANS = [("^starred_actors", "directed_by"), ("^directed_by", "starred_actors"), ("^written_by", "has_genre"),
         ("^starred_actors", "starred_actors", "^starred_actors"), ("^directed_by", "release_year"),
         ("^starred_actors", "directed_by", "^directed_by")]


def main(argv=None) -> int:
    from kg_agent.kg import open_oxigraph
    from kg_agent.kg.paths import retrieve_paths

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--kb", required=True)
    parser.add_argument("--people", type=int, default=60)
    args = parser.parse_args(argv)
    kg = open_oxigraph(args.store)
    rng = random.Random(0)
    with open(args.kb, encoding="utf-8") as handle:
        people = [line.split("|")[2].strip() for line in handle if "|starred_actors|" in line or "|directed_by|" in line]
    rng.shuffle(people)
    cases = [(found[0].id, plan) for name in people[:args.people] if (found := kg.find_entities(name)) for plan in PLANS]
    cases.append(("https://kg-agent.dev/entity/Drama", ("^has_genre", "has_genre")))
    for repeat in range(2):
        times, paths, began = [], 0, time.perf_counter()
        for start, plan in cases:
            t = time.perf_counter()
            paths += len(retrieve_paths(kg, [start], plan).paths)
            times.append(time.perf_counter() - t)
        print(f"run {repeat + 1}: {len(cases)} retrievals, {paths} paths, total {time.perf_counter() - began:.2f} s, "
              f"median {statistics.median(times) * 1000:.2f} ms, max {max(times) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
