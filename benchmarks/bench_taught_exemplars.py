"""Build time of the taught planner's exemplars (:mod:`kg_agent.tools.rog.taught_exemplars`) on KG files or stores.

    python benchmarks/bench_taught_exemplars.py KG [KG ...] [--backend memory|oxigraph] [--lenient]

Per KG: the time to open it, to read its fingerprint (:func:`~kg_agent.tools.rog.taught_store.kg_fingerprint`), to
get its taught questions (the fingerprint read again included) (:func:`~kg_agent.tools.rog.taught_store.kept_exemplars`: taught, walked and worded, by the
first process; read where they are kept by later ones), to fit the exemplar planner on them (their embeddings with
the bundled MiniLM: computed by the first process, read from the vector files by later ones; indexing them in
Chroma), how many questions and relation paths were taught, and the process's peak RSS. Run it twice: the first
process teaches, the second reuses. Numbers: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time


def main(argv: list[str] | None = None) -> int:
    from kg_agent.kg.loading.open_kg import open_kg
    from kg_agent.tools.rog.plan import ExemplarPlanner
    from kg_agent.tools.rog.taught_store import kept_exemplars, kg_fingerprint
    from kg_agent.tools.shared.similarity import use_vector_file

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kgs", nargs="+")
    parser.add_argument("--backend", default=None, choices=("memory", "oxigraph"))
    parser.add_argument("--lenient", action="store_true")
    args = parser.parse_args(argv)
    print("| KG | open s | fingerprint s | taught or kept s | fit s | questions | relation paths | peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for source in args.kgs:
        began = time.perf_counter()
        kg = open_kg(source, backend=args.backend, lenient=args.lenient)
        use_vector_file(kg.vector_cache_path)  # as the method graphs do (an Oxigraph store's own file)
        opened = time.perf_counter()
        kg_fingerprint(kg)
        fingerprinted = time.perf_counter()
        taught = kept_exemplars(kg)
        teached = time.perf_counter()
        ExemplarPlanner(kg, walkable_only=True).fit(taught)
        fitted = time.perf_counter()
        paths = {tuple(p) for e in taught for p in e.relation_paths}
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(f"| {source} | {opened - began:.1f} | {fingerprinted - opened:.2f} | {teached - fingerprinted:.2f} | "
              f"{fitted - teached:.1f} | {len(taught)} | "
              f"{len(paths)} | {rss} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
