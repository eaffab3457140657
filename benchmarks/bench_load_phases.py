"""Where the foreground process of a load spends its time, part by part (issue 48 item 1).

    PYTHONPATH=<checkout> python benchmarks/bench_load_phases.py FILE STORE

Runs :func:`kg_agent.kg.build_oxigraph` once with a timer (wall seconds, and CPU seconds of this process:
``time.process_time``; the bulk loader's child is not counted) around each part it calls: the index pass
(``index_triples``, which measures the KG profile from the file since the fifth pass), each label file built,
the profile's read of the store (``measure_name_predicates``, where the code still calls it after the bulk load),
the restriction edges and the class list, and when the bulk loader's process ended. The store is deleted after.
Works on the code before the fifth pass too (a part it does not call is not printed).
"""

from __future__ import annotations

import shutil
import sys
import time

from kg_agent.kg.loading import oxigraph_build

marks: list[tuple[str, float, float]] = []


def timed(name: str, function):
    def run(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            marks.append((name, time.perf_counter() - wall, time.process_time() - cpu))
    return run


def main() -> None:
    source, store = sys.argv[1], sys.argv[2]
    parts = {"index_triples": "index pass", "build_label_sqlite": "label file",
             "measure_name_predicates": "profile (reads the store)",
             "_keep_restriction_edges": "restriction edges (SPARQL over the store)", "pass_classes": "class list"}
    for attribute, name in parts.items():
        if hasattr(oxigraph_build, attribute):
            setattr(oxigraph_build, attribute, timed(name, getattr(oxigraph_build, attribute)))
    beside = oxigraph_build._bulk_load_beside

    def bulk_load_beside(*args, **kwargs):
        started = time.perf_counter()
        beside(*args, **kwargs)
        marks.append(("the bulk loader ended (wall since it started)", time.perf_counter() - started, 0.0))

    oxigraph_build._bulk_load_beside = bulk_load_beside
    shutil.rmtree(store, ignore_errors=True)
    wall, cpu = time.perf_counter(), time.process_time()
    oxigraph_build.build_oxigraph(source, store)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    for name, part_wall, part_cpu in marks:
        print(f"{name}: {part_wall:.2f} s wall, {part_cpu:.2f} CPU-s")
    print(f"build_oxigraph: {wall:.2f} s wall, {cpu:.2f} CPU-s (this process)")
    shutil.rmtree(store, ignore_errors=True)


if __name__ == "__main__":
    main()
