"""Scale benchmark: kg-agent on synthetic KGs of 0.2M, 2M (and 20M) triples, offline.

    python benchmarks/bench_scale.py --sizes 0.2M,2M --domain movie --questions 20 \\
        --out docs/benchmarks_scale.json --png docs/benchmarks_scale.png

For each domain and size (graphs from :mod:`kg_agent.eval.synthetic`, cached under ``--work``):

* **generate** the KG and its questions (skipped when the cached folder has them);
* **load** it with ``kg-agent load`` into an Oxigraph store (wall time, triples/s, the loader's max RSS);
* per method (RoG, ToG, ToG-I, offline), in a fresh interpreter: **reopen** the store, answer the first
  ``--questions`` 1-hop and 2-hop questions (and ``--three-hop`` 3-hop ones): **first-question** latency (the
  first after reopening), **warm** latency (median and p90 of the others), strict **Hits@1** per hop and the
  process's **max RSS** (``resource.getrusage``);
* **retrieval**: RoG's Algorithm 1 (:func:`kg_agent.kg.retrieve_paths`, labels included) against the store's
  own SPARQL query (pyoxigraph, labels included) for the same relation path: the gold paths of the first
  1- and 2-hop questions and plans through the graph's biggest hubs (a genre's films, a popular actor's
  co-actors): a first run of each, then a repeat (the median of :data:`SHORT_PLAN_REPEATS` repeats for a plan
  whose first runs took under :data:`SHORT_PLAN_SECONDS`, where one sub-millisecond timing is mostly noise).

Every question and retrieval runs under ``--timeout`` seconds: a worker that overruns is killed, the item is
recorded as a timeout (no answer, Hits@1 0) and a new worker goes on with the next item (its first item is
then cold again and is left out of the warm statistics). Results go to ``--out`` (JSON, rewritten after
every size) and a latency-vs-size chart to ``--png``; a Markdown table is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import select
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[1]
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))

METHODS = ("rog", "tog", "tog-i")
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
#: A retrieval plan whose first runs (both sides) took less than this many seconds is repeated
#: :data:`SHORT_PLAN_REPEATS` times, alternating the two sides, and the medians are reported as its repeat
SHORT_PLAN_SECONDS = 0.1
SHORT_PLAN_REPEATS = 5


def parse_size(text: str) -> int:
    """``0.2M`` -> 200000, ``20M`` -> 20000000, ``50k`` -> 50000, ``123`` -> 123."""
    text = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1:], 1)
    number = text[:-1] if scale != 1 else text
    return round(float(number) * scale)


def size_label(triples: int) -> str:
    return f"{triples / 1e6:g}M" if triples >= 100_000 else f"{triples / 1e3:g}k"


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def percentile(values: list[float], q: float) -> float | None:
    """The q-quantile (0..1) with linear interpolation; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(PROJECT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    return env


# ---------------------------------------------------------------- the data
def dataset_dir(work: Path, domain: str, triples: int, seed: int) -> Path:
    return work / f"{domain}-{size_label(triples)}-seed{seed}"


def ensure_generated(folder: Path, domain: str, triples: int, seed: int) -> dict[str, Any]:
    """Generate the KG and its questions unless ``folder`` has them; returns meta.json plus the generation time."""
    from kg_agent.eval.synthetic import generate

    meta_path = folder / "meta.json"
    if meta_path.exists() and (folder / "kg.nt").exists():
        meta = json.loads(meta_path.read_text())
        if meta.get("target_triples") == triples and meta.get("seed") == seed and meta.get("domain") == domain:
            return meta
    report = generate(domain, folder, triples=triples, seed=seed, questions_per_hop=100, three_hop=25,
                      progress=lambda text: print(f"  generate: {text}", file=sys.stderr, flush=True))
    meta = json.loads(meta_path.read_text())
    meta["generate_seconds"] = round(report.seconds, 1)
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def ensure_loaded(folder: Path, *, reload: bool) -> dict[str, Any]:
    """``kg-agent load kg.nt --store store`` (timed, with the loader's max RSS) unless the store exists."""
    store, record = folder / "store", folder / "load.json"
    if store.exists() and record.exists() and not reload:
        return json.loads(record.read_text())
    command = [sys.executable, "-m", "kg_agent.cli", "load", str(folder / "kg.nt"), "--store", str(store), "--overwrite"]
    began = time.perf_counter()
    process = subprocess.Popen(command, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - began
    stdout, stderr = process.stdout.read(), process.stderr.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"kg-agent load failed: {stderr.strip()[-500:]}")
    triples = json.loads((folder / "meta.json").read_text())["triples"]
    # the command's own report: the store build alone, without the interpreter's start and imports
    built = re.search(r"loaded in ([0-9.]+) s", stdout)
    result = {"command": "kg-agent load kg.nt --store store --overwrite", "seconds": round(seconds, 2),
              "triples_per_second": round(triples / seconds), "max_rss_mb": round(usage.ru_maxrss / 1024),
              "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
              "build_seconds": float(built.group(1)) if built else None, "output": stdout.strip()}
    record.write_text(json.dumps(result, indent=1) + "\n")
    return result


def pick_questions(folder: Path, *, per_hop: int, three_hop: int) -> list[dict[str, Any]]:
    """The first ``per_hop`` 1-hop and 2-hop questions and ``three_hop`` 3-hop ones (file order cycles through
    the templates, so a prefix covers them evenly)."""
    wanted = {1: per_hop, 2: per_hop, 3: three_hop}
    taken: dict[int, int] = {}
    chosen = []
    with (folder / "questions.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            q = json.loads(line)
            if taken.get(q["hop"], 0) < wanted.get(q["hop"], 0):
                taken[q["hop"]] = taken.get(q["hop"], 0) + 1
                chosen.append(q)
    return chosen


def hub_plans(meta: dict[str, Any], *, limit: int = 4) -> list[dict[str, Any]]:
    """Plans through the biggest hubs: the hub's in-neighbours (``^r``) and one more hop from them: ``r`` again
    when it is many-valued (a genre's films' genres, a popular actor's co-actors), else the first relation of
    those entities (the directors of the films in a language)."""
    from kg_agent.eval.synthetic import DOMAINS

    relations_of = {r.name: r for r in DOMAINS[meta["domain"]].relations}
    plans = []
    people = [h for h in meta["hubs"] if "person" in h["entity"].rsplit("/", 1)[-1]][:1]
    others = [h for h in meta["hubs"] if h not in people][: max(0, limit - len(people))]
    for hub in others + people:
        relation = hub["relation"]
        base = relations_of[relation.lstrip("^")]
        onward = base.name if base.high > 1 else next(
            r.name for r in relations_of.values() if r.owner == base.subject_type and r.name != base.name)
        for relations in ([relation], [relation, onward]):
            plans.append({"id": f"hub {hub['label']} {' '.join(relations)}", "topic_ids": [hub["entity"]],
                          "relations": relations, "hub": True, "in_edges": hub["in_edges"]})
    return plans


# ---------------------------------------------------------------- workers (run in a child interpreter)
def _emit(record: dict[str, Any]) -> None:
    record["max_rss_mb"] = round(max_rss_mb())
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def worker_method(store: str, method: str, items: list[dict[str, Any]]) -> None:
    """Reopen the store, build the method's graph, answer ``items`` one by one (a JSON line each)."""
    from kg_agent.eval.metrics import score_question
    from kg_agent.graphs import create_graph
    from kg_agent.kg import open_kg

    began = time.perf_counter()
    kg = open_kg(store)
    opened = time.perf_counter()
    app = create_graph(method, kg).compile()
    _emit({"event": "open", "seconds": opened - began, "build_seconds": time.perf_counter() - opened})
    for item in items:
        began = time.perf_counter()
        error = None
        try:
            state = app.invoke({"question": item["question"], "topic_entities": item["topic_entities"]})
        except Exception as exc:  # noqa: BLE001 - recorded; the run goes on
            state, error = {}, f"{type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - began
        predicted = [str(a.get("answer", "")) for a in state.get("answers") or [] if isinstance(a, dict)]
        hit = score_question(predicted, None, item["answers"])["strict"]["hits_at_1"]
        _emit({"event": "item", "id": item["id"], "seconds": seconds, "hits_at_1": hit, "error": error,
               "predicted": predicted[:3]})


def _native_store(kg, store_path: str):
    """The pyoxigraph store under a KG opened from ``store_path`` (or a read-only second handle on it)."""
    import pyoxigraph as ox

    for candidate in (getattr(kg, "store", None), getattr(getattr(kg, "graph", None), "store", None)):
        for inner in (candidate, getattr(candidate, "_inner", None)):
            if isinstance(inner, ox.Store):
                return inner
    return ox.Store.read_only(store_path)


def _plan_query(topic: str, relations: list[str]) -> str:
    """The plan as one SPARQL query: every path from ``topic`` (a constant) that never returns to it, with the
    labels of the nodes it reaches."""
    from kg_agent.kg import relation_iri, sparql_iri

    start = sparql_iri(topic)
    nodes = [start] + [f"?e{i}" for i in range(1, len(relations) + 1)]
    patterns = []
    for i, relation in enumerate(relations):
        predicate = sparql_iri(relation_iri(relation.lstrip("^")))
        a, b = nodes[i], nodes[i + 1]
        patterns.append(f"{b} {predicate} {a} ." if relation.startswith("^") else f"{a} {predicate} {b} .")
        patterns.append(f"FILTER({b} != {start})")
    labels = " ".join(f"OPTIONAL {{ {n} <{RDFS_LABEL}> ?l{i} }}" for i, n in enumerate(nodes) if i)
    variables = " ".join(nodes[1:] + [f"?l{i}" for i in range(1, len(nodes))])
    return f"SELECT {variables} WHERE {{ {' '.join(patterns)} {labels} }}"


def worker_retrieval(store: str, items: list[dict[str, Any]]) -> None:
    """Algorithm 1 and the store's own SPARQL for each plan, each run twice (a JSON line per plan)."""
    from kg_agent.kg import open_kg, retrieve_paths

    kg = open_kg(store)
    native = _native_store(kg, store)
    _emit({"event": "open", "seconds": 0.0})
    def sparql() -> tuple[float, int]:
        began = time.perf_counter()
        solutions = native.query(query)
        rows = [tuple(s[v] for v in solutions.variables) for s in solutions]
        return time.perf_counter() - began, len(rows)

    def algorithm1() -> tuple[float, int]:
        began = time.perf_counter()
        result = retrieve_paths(kg, [topic], relations, max_paths=10_000_000)
        rows = [(p.start.label, *(t.tail.label for t in p.steps)) for p in result.paths]
        return time.perf_counter() - began, len(rows)

    for item in items:
        record: dict[str, Any] = {"event": "item", "id": item["id"]}
        topic, relations = item["topic_ids"][0], item["relations"]
        query = _plan_query(topic, relations)
        record["sparql_first"], record["sparql_rows"] = sparql()
        _emit({"event": "partial", **{k: v for k, v in record.items() if k != "event"}})  # kept should Algorithm 1 overrun
        record["algorithm1_first"], record["algorithm1_rows"] = algorithm1()
        short = max(record["sparql_first"], record["algorithm1_first"]) < SHORT_PLAN_SECONDS
        repeats = [(sparql()[0], algorithm1()[0]) for _ in range(SHORT_PLAN_REPEATS if short else 1)]
        record["sparql_repeat"] = statistics.median(times[0] for times in repeats)
        record["algorithm1_repeat"] = statistics.median(times[1] for times in repeats)
        record["repeats"] = len(repeats)
        _emit(record)


# ---------------------------------------------------------------- running workers with per-item timeouts
class _LineReader:
    """Lines from a pipe with a deadline (``select`` on the raw descriptor, so no line waits in a buffer)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pending = b""
        self.eof = False

    def next(self, deadline: float) -> str | None:
        """The next line; ``""`` at end of output; ``None`` when ``deadline`` (monotonic) passes first."""
        while b"\n" not in self.pending and not self.eof:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
                return None
            chunk = os.read(self.fd, 1 << 16)
            self.eof = not chunk
            self.pending += chunk
        if b"\n" in self.pending:
            line, self.pending = self.pending.split(b"\n", 1)
            return line.decode() + "\n"
        return ""

def run_items(kind: str, store: Path, items: list[dict[str, Any]], *, method: str | None, timeout: float,
              open_timeout: float) -> dict[str, Any]:
    """Run ``items`` in worker processes; kill a worker whose item overruns ``timeout`` and go on in a new one.

    Returns ``{"opens": [...], "items": [...], "max_rss_mb"}``; a timed-out item is ``{"id", "timeout": True}``,
    an item that was the first of its worker has ``"cold": True``.
    """
    opens: list[float] = []
    results: list[dict[str, Any]] = []
    rss = 0.0
    position = 0
    while position < len(items):
        batch = items[position:]
        command = [sys.executable, __file__, "--worker", kind, "--store", str(store)]
        if method:
            command += ["--method", method]
        process = subprocess.Popen(command, env=_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
        process.stdin.write(json.dumps(batch).encode())
        process.stdin.close()
        first = True
        partial: dict[str, Any] = {}
        deadline = time.monotonic() + open_timeout + timeout
        lines = _LineReader(process.stdout.fileno())
        while True:
            line = lines.next(deadline)
            if line is None:  # the current item overran: kill this worker, record a timeout, go on after it
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                results.append({**partial, "id": items[position]["id"], "timeout": True, "seconds": timeout,
                                "hits_at_1": 0.0, "cold": first})
                position += 1
                break
            if not line:  # the worker ended
                process.wait()
                if position < len(items):
                    results.append({"id": items[position]["id"], "error": f"worker exited ({process.returncode})",
                                    "hits_at_1": 0.0, "cold": first})
                    position += 1
                break
            buffer = line
            record = json.loads(buffer)
            rss = max(rss, record.pop("max_rss_mb", 0))
            event = record.pop("event")
            if event == "open":
                opens.append(record)
            elif event == "partial":
                partial = record
            else:
                partial = {}
                record["cold"] = first
                first = False
                results.append(record)
                position += 1
            if event != "partial":  # the next item's clock starts now
                deadline = time.monotonic() + timeout
        if position >= len(items) and process.poll() is None:
            process.wait()
    return {"opens": opens, "items": results, "max_rss_mb": rss}


def summarize_method(run: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
    hops = {item["id"]: item["hop"] for item in items}
    done = run["items"]
    warm = [r["seconds"] for r in done if not r.get("cold") and not r.get("timeout") and not r.get("error")]
    first = done[0] if done else {}
    by_hop: dict[str, Any] = {}
    for hop in sorted(set(hops.values())):
        subset = [r for r in done if hops[r["id"]] == hop]
        by_hop[str(hop)] = {"n": len(subset), "hits@1": round(100 * sum(r.get("hits_at_1", 0) for r in subset) / len(subset), 1)}
    return {
        "reopen_s": round(run["opens"][0]["seconds"], 3) if run["opens"] else None,
        "graph_build_s": round(run["opens"][0].get("build_seconds", 0), 3) if run["opens"] else None,
        "first_question_s": None if first.get("timeout") else round(first.get("seconds", 0), 3),
        "warm_median_s": round(statistics.median(warm), 3) if warm else None,
        "warm_p90_s": round(percentile(warm, 0.9), 3) if warm else None,
        "warm_max_s": round(max(warm), 3) if warm else None,
        "n": len(done), "timeouts": sum(1 for r in done if r.get("timeout")),
        "errors": sum(1 for r in done if r.get("error")), "workers": len(run["opens"]),
        "max_rss_mb": round(run["max_rss_mb"]), "hits_at_1_by_hop": by_hop,
        "per_question": done,
    }


def summarize_retrieval(run: dict[str, Any], plans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    info = {p["id"]: p for p in plans}
    rows = []
    for record in run["items"]:
        plan = info[record["id"]]
        row = {"plan": " ".join(plan["relations"]), "id": record["id"], "hub": plan.get("hub", False)}
        if record.get("timeout") or record.get("error"):
            row["timeout" if record.get("timeout") else "error"] = record.get("error", True)
            row.update({k: round(v, 5) if isinstance(v, float) else v for k, v in record.items() if k.startswith("sparql")})
        else:
            row.update({k: round(v, 5) if isinstance(v, float) else v for k, v in record.items()
                        if k.startswith(("algorithm1", "sparql"))})
            row["ratio_first"] = round(record["algorithm1_first"] / max(record["sparql_first"], 1e-6), 2)
            row["ratio_repeat"] = round(record["algorithm1_repeat"] / max(record["sparql_repeat"], 1e-6), 2)
            row["rows_match"] = record["algorithm1_rows"] == record["sparql_rows"]
            row["repeats"] = record.get("repeats", 1)
        rows.append(row)
    return rows


# ---------------------------------------------------------------- report
def markdown(results: dict[str, Any]) -> str:
    lines = [("| domain | triples | load (triples/s): command / build | load CPU s | load RSS MB | method | reopen s | "
              "first q s | warm median s | "
              "warm p90 s | timeouts | Hits@1 1-hop | Hits@1 2-hop | Hits@1 3-hop | max RSS MB |"),
             "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for run in results["runs"]:
        load = run["load"]
        build = f"{round(run['triples'] / load['build_seconds']):,}" if load.get("build_seconds") else "—"
        head = (f"| {run['domain']} | {run['triples']:,} | {load['triples_per_second']:,} / {build} | "
                f"{load.get('cpu_seconds', '—')} | {load['max_rss_mb']:,} ")
        for method, m in run["methods"].items():
            hits = m["hits_at_1_by_hop"]

            def cell(value):
                return "—" if value is None else f"{value}"

            lines.append(head + f"| {method} | {cell(m['reopen_s'])} | {cell(m['first_question_s'])} | "
                         f"{cell(m['warm_median_s'])} | {cell(m['warm_p90_s'])} | {m['timeouts']}/{m['n']} | "
                         + " | ".join(f"{hits[h]['hits@1']} ({hits[h]['n']})" if h in hits else "—" for h in "123")
                         + f" | {m['max_rss_mb']:,} |")
            head = "| | | | | "
    lines += ["", ("| domain | triples | plan | paths | Algorithm 1 first / repeat s | store SPARQL first / repeat s | "
                   "ratio first / repeat |"),
              "|---|---:|---|---:|---:|---:|---:|"]

    def median(rows, key):
        return statistics.median(r[key] for r in rows)

    for run in results["runs"]:
        where = f"| {run['domain']} | {run['triples']:,} | "
        rows = run.get("retrieval", [])
        for hop in (1, 2):  # the gold plans: medians over the questions of a hop
            gold = [r for r in rows if not r["hub"] and len(r["plan"].split()) == hop and "algorithm1_first" in r]
            if gold:
                lines.append(where + f"gold {hop}-hop plans (median of {len(gold)}) | {median(gold, 'algorithm1_rows'):g} | "
                             f"{median(gold, 'algorithm1_first'):.4f} / {median(gold, 'algorithm1_repeat'):.4f} | "
                             f"{median(gold, 'sparql_first'):.4f} / {median(gold, 'sparql_repeat'):.4f} | "
                             f"{median(gold, 'ratio_first'):.2f} / {median(gold, 'ratio_repeat'):.2f} |")
        for row in rows:
            if not row["hub"]:
                continue
            name = row["id"].removeprefix("hub ")
            if "algorithm1_first" not in row:
                store = f"{row['sparql_first']:.4f} ({row['sparql_rows']:,} rows)" if "sparql_first" in row else ""
                what = "timeout" if row.get("timeout") else "error"
                lines.append(where + f"hub: {name} | — | {what} | {store} | |")
                continue
            lines.append(where + f"hub: {name} | {row['algorithm1_rows']:,} | "
                         f"{row['algorithm1_first']:.4f} / {row['algorithm1_repeat']:.4f} | "
                         f"{row['sparql_first']:.4f} / {row['sparql_repeat']:.4f} | {row['ratio_first']:.2f} / {row['ratio_repeat']:.2f} |")
    return "\n".join(lines)


def write_chart(results: dict[str, Any], png: Path) -> None:
    """Seconds per question against triples (log-log): colour = method, line = statistic, marker = domain."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    colors = {"rog": "tab:blue", "tog": "tab:orange", "tog-i": "tab:green"}
    statistics_ = (("first_question_s", ":", "first question after reopen"), ("warm_p90_s", "--", "warm p90"),
                   ("warm_median_s", "-", "warm median"))
    markers = {"movie": "o", "company": "s"}
    fig, ax = plt.subplots(figsize=(8, 4.8))
    domains = sorted({r["domain"] for r in results["runs"]})
    for domain in domains:
        runs = sorted((r for r in results["runs"] if r["domain"] == domain), key=lambda r: r["triples"])
        for method in METHODS:
            points = [(r["triples"], r["methods"][method]) for r in runs if method in r["methods"]]
            for key, style, _what in statistics_:
                xy = [(x, m[key]) for x, m in points if m.get(key) is not None]
                if xy:
                    ax.plot(*zip(*xy), style, marker=markers.get(domain, "^"), color=colors[method], alpha=0.85,
                            markerfacecolor=colors[method] if domain == "movie" else "none")
    handles = [Line2D([], [], color=c, lw=2, label=m) for m, c in colors.items()]
    handles += [Line2D([], [], color="grey", ls=style, label=what) for _k, style, what in statistics_]
    handles += [Line2D([], [], color="grey", ls="", marker=markers.get(d, "^"),
                       markerfacecolor="grey" if d == "movie" else "none", label=f"{d} KG") for d in domains]
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("triples")
    ax.set_ylabel("seconds per question")
    ax.set_title("kg-agent offline latency vs KG size (synthetic KGs, Oxigraph store)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(handles=handles, fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=110)
    plt.close(fig)


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


# ---------------------------------------------------------------- main
def run_size(args: argparse.Namespace, domain: str, triples: int) -> dict[str, Any]:
    folder = dataset_dir(Path(args.work), domain, triples, args.seed)
    print(f"{domain} {size_label(triples)}: {folder}", file=sys.stderr, flush=True)
    meta = ensure_generated(folder, domain, triples, args.seed)
    load = ensure_loaded(folder, reload=args.reload)
    print(f"  loaded: {load['seconds']} s, {load['triples_per_second']} triples/s", file=sys.stderr, flush=True)
    store = folder / "store"
    questions = pick_questions(folder, per_hop=args.questions, three_hop=args.three_hop)
    run: dict[str, Any] = {"domain": domain, "size": size_label(triples), "triples": meta["triples"],
                           "entities": meta["entities"], "generate_seconds": meta.get("generate_seconds"),
                           "load": load, "methods": {}, "load_average_start": os.getloadavg()[0]}
    for method in args.methods:
        print(f"  {method}: {len(questions)} questions", file=sys.stderr, flush=True)
        began = time.perf_counter()
        outcome = run_items("method", store, questions, method=method, timeout=args.timeout,
                            open_timeout=args.open_timeout)
        run["methods"][method] = summarize_method(outcome, questions)
        run["methods"][method]["wall_s"] = round(time.perf_counter() - began, 1)
        m = run["methods"][method]
        print(f"    first {m['first_question_s']} s, warm median {m['warm_median_s']} s, p90 {m['warm_p90_s']} s, "
              f"timeouts {m['timeouts']}, hits@1 {m['hits_at_1_by_hop']}, rss {m['max_rss_mb']} MB",
              file=sys.stderr, flush=True)
    if args.retrieval:
        one, two = ([q for q in questions if q["hop"] == hop] for hop in (1, 2))
        gold = one[: (args.retrieval + 1) // 2] + two[: args.retrieval // 2]
        plans = gold + hub_plans(meta)
        print(f"  retrieval: {len(plans)} plans", file=sys.stderr, flush=True)
        outcome = run_items("retrieval", store, plans, method=None, timeout=args.timeout, open_timeout=args.open_timeout)
        run["retrieval"] = summarize_retrieval(outcome, plans)
    run["load_average_end"] = os.getloadavg()[0]  # other jobs on the machine slow every number
    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="0.2M,2M", help="comma-separated triple counts, e.g. 0.2M,2M,20M")
    parser.add_argument("--domain", action="append", default=None,
                        help="movie and/or company (repeatable or comma-separated; default movie)")
    parser.add_argument("--methods", default=",".join(METHODS),
                        help="comma-separated, default rog,tog,tog-i; '' runs none (keeps their earlier numbers in --out)")
    parser.add_argument("--questions", type=int, default=20, metavar="N", help="1-hop and 2-hop questions each (default 20)")
    parser.add_argument("--three-hop", type=int, default=0, metavar="N", help="3-hop questions (default 0)")
    parser.add_argument("--retrieval", type=int, default=10, metavar="N",
                        help="gold plans of N questions (half 1-hop, half 2-hop) for Algorithm 1 vs SPARQL, plus hub plans "
                        "(0: skip)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds one question or plan may take (default 120)")
    parser.add_argument("--open-timeout", type=float, default=300.0, help="extra seconds a worker may take to start")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", default="/tmp/kg-agent-scale", help="cache of generated KGs and stores")
    parser.add_argument("--reload", action="store_true", help="load the store again even when cached")
    parser.add_argument("--out", default="docs/benchmarks_scale.json", help="results JSON")
    parser.add_argument("--png", default="docs/benchmarks_scale.png", help="latency-vs-size chart")
    parser.add_argument("--worker", choices=("method", "retrieval"), help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    parser.add_argument("--method", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        items = json.loads(sys.stdin.read())
        if args.worker == "method":
            worker_method(args.store, args.method, items)
        else:
            worker_retrieval(args.store, items)
        return 0

    args.methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = set(args.methods) - set(METHODS)
    if unknown:
        parser.error(f"unknown methods {sorted(unknown)}; choose from {', '.join(METHODS)}")
    domains = [d.strip() for value in (args.domain or ["movie"]) for d in value.split(",") if d.strip()]
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    out = Path(args.out)
    results: dict[str, Any] = {
        "command": "python benchmarks/bench_scale.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "runs": [],
    }
    if out.exists():  # keep the sizes and domains of earlier runs; the ones run now replace theirs
        results["runs"] = json.loads(out.read_text()).get("runs", [])
    for domain in domains:
        for triples in sizes:
            run = run_size(args, domain, triples)
            run["command"], run["finished"] = results["command"], time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
            earlier = [r for r in results["runs"] if r["domain"] == domain and r["size"] == run["size"]]
            if earlier:  # methods (or the retrieval table) not run now keep their earlier numbers
                run["methods"] = {**earlier[0].get("methods", {}), **run["methods"]}
                if "retrieval" not in run and "retrieval" in earlier[0]:
                    run["retrieval"] = earlier[0]["retrieval"]
            results["runs"] = [r for r in results["runs"] if r not in earlier] + [run]
            results["runs"].sort(key=lambda r: (r["domain"], r["triples"]))
            write_json(out, results)
            if args.png:
                write_chart(results, Path(args.png))
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
