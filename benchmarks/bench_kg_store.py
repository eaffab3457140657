"""Load a KG file into an Oxigraph store and time offline RoG on it: load rate, reopen, first and warm questions.

    python benchmarks/bench_kg_store.py KG_FILE --store /tmp/kg.oxigraph --questions QUESTIONS_FILE [--repeat 1]
    python benchmarks/bench_kg_store.py --sample --questions QUESTIONS_FILE   # bundled sample KG, memory backend

QUESTIONS_FILE holds one question per line with its topic entity in brackets (``who directed [Film 123]``).
Each measurement runs in this process; max RSS is the process's (``ru_maxrss``). The KG file is not part of
the repository (see docs/benchmarks_kg.md for how the one measured was made).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", help="KG file (N-Triples, Turtle, MetaQA ...)")
    parser.add_argument("--store", help="Oxigraph store folder to build (overwritten)")
    parser.add_argument("--sample", action="store_true", help="the bundled sample KG in memory instead")
    parser.add_argument("--questions", required=True)
    parser.add_argument("--repeat", type=int, default=1, help="passes over the questions after the first")
    args = parser.parse_args()

    from kg_agent.graphs.rog import create_rog_graph
    from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph

    questions = [line.strip() for line in Path(args.questions).read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.sample:
        started = time.perf_counter()
        kg = open_kg()
        print(f"sample KG in memory: {len(kg):,} triples, opened in {time.perf_counter() - started:.2f} s")
    else:
        started = time.perf_counter()
        build_oxigraph(args.source, args.store, overwrite=True)
        seconds = time.perf_counter() - started
        started = time.perf_counter()
        kg = open_oxigraph(args.store)
        reopen = time.perf_counter() - started
        print(f"load: {len(kg):,} triples in {seconds:.1f} s = {len(kg) / seconds:,.0f} triples/s; reopen {reopen:.2f} s")
    app = create_rog_graph(kg).compile()
    started = time.perf_counter()
    app.invoke({"question": questions[0]})
    first = time.perf_counter() - started
    warm = []
    for _ in range(args.repeat):
        for question in questions[1:]:
            started = time.perf_counter()
            app.invoke({"question": question})
            warm.append(time.perf_counter() - started)
    warm.sort()
    p90 = warm[min(len(warm) - 1, int(0.9 * len(warm)))]
    print(f"RoG offline: first question {first:.2f} s; warm ({len(warm)} questions) median "
          f"{statistics.median(warm):.3f} s, p90 {p90:.3f} s, max {warm[-1]:.3f} s; "
          f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")


if __name__ == "__main__":
    main()
