"""Knowledge-graph layer benchmark on MetaQA's kb.txt (130k triples).

    python benchmarks/bench_kg.py [--data ../shared/data] [--topics 1000] [--seed 0] [--out docs/benchmarks_kg.md]

Measures, in one run:

* load time and peak memory per backend, each in a fresh subprocess (peak RSS from ``resource``):
  memory (rdflib graph + adjacency index), Oxigraph bulk build (once) and Oxigraph reopen;
* constrained-BFS retrieval (RoG's Algorithm 1, :func:`kg_agent.kg.retrieve_paths`) for 1-, 2- and
  3-hop relation paths from ``--topics`` seeded MetaQA dev topic entities, the relation path taken from
  each question's qtype (``movie_to_director_to_movie`` -> ``[directed_by, ^directed_by]``), side by
  side with a plain networkx implementation built the way RoG's code does (a MultiDiGraph with a
  ``relation`` attribute per edge plus reverse ``^relation`` edges; expand by iterating ``out_edges``
  and checking the relation; the same revisit rule as the library: a path never returns to its start).
  Both must return the same path sets.

Prints a markdown table and writes it to ``--out``. Needs networkx (the ``dev`` extra).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))

KIND_RELATION = {"director": "directed_by", "writer": "written_by", "actor": "starred_actors", "genre": "has_genre",
                 "language": "in_language", "year": "release_year", "tags": "has_tags", "tag": "has_tags",
                 "imdbrating": "has_imdb_rating", "imdbvotes": "has_imdb_votes"}


def qtype_relations(qtype: str) -> list[str]:
    """``movie_to_director_to_movie`` -> ``[directed_by, ^directed_by]``."""
    kinds = qtype.split("_to_")
    return [KIND_RELATION[b] if a == "movie" else "^" + KIND_RELATION[a] for a, b in zip(kinds, kinds[1:])]


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


# ---------------------------------------------------------------- load measurements (subprocess)
def measure(what: str, kb: Path, store: Path) -> dict:
    """Run in a fresh interpreter: load one backend, report seconds and peak RSS."""
    import oxrdflib  # noqa: F401
    import pyoxigraph  # noqa: F401

    from kg_agent.kg import build_oxigraph, load_kg, open_oxigraph  # noqa: F401 (imports before the baseline)

    base = rss_mb()
    started = time.perf_counter()
    if what == "memory":
        kg = load_kg(kb)
        probe = kg.neighbors(kg.find_entities("Tom Hanks")[0].id, "^starred_actors")
    elif what == "oxigraph-build":
        build_oxigraph(kb, store)
        probe = []
    elif what == "oxigraph-reopen":
        kg = open_oxigraph(store)
        hanks = "https://kg-agent.dev/entity/Tom%20Hanks"
        probe = kg.neighbors(hanks, "^starred_actors")
    else:
        raise ValueError(what)
    seconds = time.perf_counter() - started
    return {"what": what, "seconds": seconds, "peak_rss_mb": rss_mb(), "baseline_rss_mb": base, "probe": len(probe)}


def run_measure(what: str, kb: Path, store: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--_measure", what, "--_kb", str(kb), "--_store", str(store)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- the networkx baseline (RoG's way)
def build_networkx(kb: Path):
    import networkx as nx

    graph = nx.MultiDiGraph()
    with kb.open(encoding="utf-8") as handle:
        for line in handle:
            parts = line.rstrip("\n").split("|")
            if len(parts) != 3:
                continue
            h, r, t = (p.strip() for p in parts)
            graph.add_edge(h, t, relation=r)
            graph.add_edge(t, h, relation="^" + r)
    return graph


def nx_bfs_with_rule(graph, start: str, rule: list[str]) -> list[list[tuple[str, str, str]]]:
    """RoG's ``bfs_with_rule`` (utils/graph_utils.py) on a MultiDiGraph, never returning to the start."""
    result = []
    queue = deque([(start, [])])
    while queue:
        node, path = queue.popleft()
        if len(path) == len(rule):
            result.append(path)
            continue
        if node not in graph:
            continue
        wanted = rule[len(path)]
        for _, neighbour, rel in graph.out_edges(node, data="relation"):
            if rel != wanted or neighbour == start:
                continue
            queue.append((neighbour, path + [(node, rel, neighbour)]))
    return result


# ---------------------------------------------------------------- retrieval benchmark
def topic_plans(data: Path, hops: int, count: int, seed: int) -> list[tuple[str, list[str]]]:
    folder = data / "metaqa" / f"{hops}-hop"
    lines = (folder / "qa_dev.txt").read_text(encoding="utf-8").splitlines()
    qtypes = (folder / "qa_dev_qtype.txt").read_text(encoding="utf-8").splitlines()
    chosen = random.Random(seed + hops).sample(range(len(lines)), count)
    plans = []
    for index in chosen:
        topic = re.search(r"\[([^\]]+)\]", lines[index]).group(1)
        plans.append((topic, qtype_relations(qtypes[index].strip())))
    return plans


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def bench_retrieval(kg, graph, plans, entity_iri, retrieve_paths):
    from kg_agent.kg.paths import retrieve_node_paths

    ours_ms, ids_ms, nx_ms, n_paths, mismatches = [], [], [], 0, []
    for topic, rels in plans:
        start = str(entity_iri(topic))
        t0 = time.perf_counter()
        result = retrieve_paths(kg, [start], rels, max_paths=10**9)
        t1 = time.perf_counter()
        baseline = nx_bfs_with_rule(graph, topic, rels)
        t2 = time.perf_counter()
        node_paths, _ = retrieve_node_paths(kg, [start], rels, max_paths=10**9)
        t3 = time.perf_counter()
        ours_ms.append((t1 - t0) * 1e3)
        nx_ms.append((t2 - t1) * 1e3)
        ids_ms.append((t3 - t2) * 1e3)
        if len(node_paths) != len(result.paths):
            mismatches.append((topic, rels, "node paths", len(node_paths), len(result.paths)))
        got = {tuple(e.label for e in p.entities) for p in result.paths}
        want = {(topic, *(t for _, _, t in path)) for path in baseline}
        n_paths += len(result.paths)
        if got != want or len(result.paths) != len(baseline):
            mismatches.append((topic, rels, len(got), len(want)))
    return ours_ms, ids_ms, nx_ms, n_paths, mismatches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(PROJECT.parent / "shared" / "data"), help="benchmark data folder")
    parser.add_argument("--topics", type=int, default=1000, help="topic entities per hop count")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(PROJECT / "docs" / "benchmarks_kg.md"))
    parser.add_argument("--_measure", help=argparse.SUPPRESS)
    parser.add_argument("--_kb", help=argparse.SUPPRESS)
    parser.add_argument("--_store", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args._measure:
        print(json.dumps(measure(args._measure, Path(args._kb), Path(args._store))))
        return 0

    data = Path(args.data)
    kb = data / "metaqa" / "kb.txt"
    if not kb.is_file():
        print(f"bench_kg: MetaQA kb.txt not found under {data} (pass --data DIR, the shared data folder)", file=sys.stderr)
        return 2
    try:
        import networkx  # noqa: F401
    except ImportError:
        print("bench_kg: networkx is needed for the baseline: pip install -e '.[dev]'", file=sys.stderr)
        return 2

    from kg_agent.kg import entity_iri, load_kg, retrieve_paths

    # ---- loads, each in a fresh process
    tmp = Path(tempfile.mkdtemp(prefix="bench_kg_"))
    try:
        store = tmp / "kb.oxigraph"
        loads = [run_measure("memory", kb, store), run_measure("oxigraph-build", kb, store),
                 run_measure("oxigraph-reopen", kb, store)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for m in loads:
        print(f"load {m['what']:16s} {m['seconds']:7.2f} s  peak RSS {m['peak_rss_mb']:7.0f} MB "
              f"(+{m['peak_rss_mb'] - m['baseline_rss_mb']:.0f} MB over imports)", flush=True)

    # ---- retrieval, both implementations in this process
    t0 = time.perf_counter()
    kg = load_kg(kb)
    t1 = time.perf_counter()
    graph = build_networkx(kb)
    t2 = time.perf_counter()
    print(f"in-process: kg-agent memory load {t1 - t0:.1f} s, networkx MultiDiGraph build {t2 - t1:.1f} s "
          f"({graph.number_of_edges()} edges incl. reverse)", flush=True)

    rows = []
    all_ok = True
    for hops in (1, 2, 3):
        plans = topic_plans(data, hops, args.topics, args.seed)
        ours, ids, nxs, n_paths, mismatches = bench_retrieval(kg, graph, plans, entity_iri, retrieve_paths)
        all_ok &= not mismatches
        row = {
            "hops": hops, "plans": len(plans), "paths": n_paths,
            "ours_med": statistics.median(ours), "ours_p95": pct(ours, 0.95),
            "nx_med": statistics.median(nxs), "nx_p95": pct(nxs, 0.95),
            "ids_med": statistics.median(ids), "ids_p95": pct(ids, 0.95), "ids_total": sum(ids),
            "ours_total": sum(ours), "nx_total": sum(nxs), "mismatches": len(mismatches),
        }
        rows.append(row)
        print(f"{hops}-hop: ours median {row['ours_med']:.3f} ms p95 {row['ours_p95']:.3f} ms | ids only median "
              f"{row['ids_med']:.3f} ms | networkx median "
              f"{row['nx_med']:.3f} ms p95 {row['nx_p95']:.3f} ms | {n_paths} paths | mismatches {len(mismatches)}"
              + (f" e.g. {mismatches[:3]}" if mismatches else ""), flush=True)

    table = render(args, loads, rows, kg_load=t1 - t0, nx_build=t2 - t1, nx_edges=graph.number_of_edges())
    print()
    print(table)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(table, encoding="utf-8")
    print(f"written to {out}")
    return 0 if all_ok else 1


def render(args, loads, rows, *, kg_load: float, nx_build: float, nx_edges: int) -> str:
    import networkx
    import pyoxigraph
    import rdflib

    default_data = str(PROJECT.parent / "shared" / "data")
    data_arg = "" if args.data == default_data else f" --data {args.data}"
    names = {"memory": "memory (rdflib graph + adjacency index)", "oxigraph-build": "Oxigraph bulk build (once)",
             "oxigraph-reopen": "Oxigraph reopen"}
    lines = [
        "## Knowledge-graph layer (MetaQA kb.txt, 129,660 triples)",
        "",
        f"Command: `python benchmarks/bench_kg.py{data_arg} --topics {args.topics} --seed {args.seed}` "
        f"(data: `{args.data}`)  ",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"rdflib {rdflib.__version__}, pyoxigraph {pyoxigraph.__version__}, networkx {networkx.__version__}.",
        "",
        "### Load (each in a fresh process)",
        "",
        "| backend | time (s) | peak RSS (MB) | over imports (MB) |",
        "|---|---:|---:|---:|",
    ]
    for m in loads:
        lines.append(f"| {names[m['what']]} | {m['seconds']:.2f} | {m['peak_rss_mb']:.0f} | "
                     f"{m['peak_rss_mb'] - m['baseline_rss_mb']:.0f} |")
    lines += [
        "",
        f"In the retrieval process: kg-agent memory load {kg_load:.1f} s; networkx MultiDiGraph build "
        f"{nx_build:.1f} s ({nx_edges:,} edges incl. reverse edges).",
        "",
        f"### Constrained BFS (RoG Algorithm 1), {args.topics} seeded MetaQA dev topic entities per hop count",
        "",
        "Relation path from each question's qtype; ms per plan (one topic entity, one relation path), "
        "kg-agent `retrieve_paths` (returns `Path` objects with labels) vs RoG-style networkx "
        "`bfs_with_rule` (returns triple lists). Both give the same path sets. \"ids only\" is the same search "
        "returning node-id tuples (`kg_agent.kg.paths.retrieve_node_paths`), i.e. without building `Path` objects.",
        "",
        "| hops | plans | paths | kg-agent median | kg-agent p95 | ids only median | ids only p95 | networkx median | networkx p95 | speed-up median (total) | ids only speed-up median (total) | same paths |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['hops']} | {r['plans']} | {r['paths']:,} | {r['ours_med']:.3f} | {r['ours_p95']:.3f} | "
            f"{r['ids_med']:.3f} | {r['ids_p95']:.3f} | {r['nx_med']:.3f} | {r['nx_p95']:.3f} | "
            f"{r['nx_med'] / r['ours_med']:.1f}x ({r['nx_total'] / r['ours_total']:.1f}x) | "
            f"{r['nx_med'] / r['ids_med']:.1f}x ({r['nx_total'] / r['ids_total']:.1f}x) | "
            f"{'yes' if not r['mismatches'] else 'NO (%d)' % r['mismatches']} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
