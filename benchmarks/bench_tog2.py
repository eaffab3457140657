"""Offline Think-on-Graph 2.0 vs offline Think-on-Graph on 2WikiMultihopQA dev (194 questions).

    python benchmarks/bench_tog2.py --data ../shared/data --out docs/benchmarks_tog2.md

KG: ``twowiki/kg_evidence_triples.jsonl`` (1,268 triples). Documents: ``twowiki/docs_context_paragraphs.jsonl``
(3,301 paragraphs), linked to KG entities by title and kept in a persistent Chroma index under
``--cache-dir`` (default ``.kg_agent/cache/bench_tog2``), so reruns embed nothing again.

Two settings:

* **full KG** — every evidence triple is in the KG;
* **last hop removed** — the last evidence triple of every question (``evidences[-1]``) is deleted from the
  KG (all 194 at once, one KG), so the final fact can only come from a document.

Both methods run offline (``model=None``, bundled MiniLM) with their default settings (W=3, D=3; ToG-2
K=10, alpha=0.8, L=10) and get the dataset's topic entities (the subjects of the evidence chain starts,
:func:`kg_agent.eval.datasets.load_twowiki`) as input. Scores: strict exact match / F1 (the answer list
against the gold answer, :func:`kg_agent.eval.metrics.score_question`), in percent.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def load_triples(path: Path) -> list[tuple[str, str, str]]:
    rows = []
    with path.open(encoding="utf-8") as stream:
        for line in stream:
            if line.strip():
                record = json.loads(line)
                rows.append((record["subject"], record["relation"], record["object"]))
    return rows


def run(method: str, kg, questions, *, index=None, limit: int | None = None) -> dict:
    from kg_agent.eval.metrics import aggregate, score_question

    if method == "tog2":
        from kg_agent.graphs.tog2 import create_tog2_graph

        app = create_tog2_graph(kg, documents=index).compile()
    else:
        from kg_agent.graphs.tog import create_tog_graph

        app = create_tog_graph(kg).compile()
    per_question, by_type = [], defaultdict(list)
    from_documents = 0
    stops = Counter()
    start = time.perf_counter()
    for q in questions[:limit]:
        state = app.invoke({"question": q.question, "topic_entities": list(q.topic_entities)}, {"recursion_limit": 100})
        answers = [a["answer"] for a in state.get("answers") or []]
        scores = score_question(answers, None, q.answers)["strict"]
        per_question.append(scores)
        by_type[q.qtype].append(scores)
        stops[state.get("stop_reason") or ""] += 1
        if any(a.get("chunks") and not a.get("paths") for a in state.get("answers") or []):
            from_documents += 1
    seconds = time.perf_counter() - start
    return {"overall": aggregate(per_question), "by_type": {t: aggregate(s) for t, s in sorted(by_type.items())},
            "seconds": seconds, "from_documents": from_documents, "stops": dict(stops)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--cache-dir", default=str(ROOT / ".kg_agent" / "cache" / "bench_tog2"))
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--methods", default="tog2,tog")
    parser.add_argument("--out", default=None, help="write a Markdown report here")
    args = parser.parse_args(argv)

    from kg_agent.docs.index import DocumentIndex, load_documents_jsonl
    from kg_agent.eval.datasets import load_twowiki
    from kg_agent.kg import kg_from_triples
    from kg_agent.tools.tog2.documents import ingest_documents

    data = Path(args.data) / "twowiki"
    triples = load_triples(data / "kg_evidence_triples.jsonl")
    questions = load_twowiki(data / "questions_dev.jsonl")
    full_kg = kg_from_triples(triples, name="twowiki")

    start = time.perf_counter()
    index = DocumentIndex(args.cache_dir, collection="twowiki_paragraphs")
    summary = ingest_documents(index, full_kg, load_documents_jsonl(data / "docs_context_paragraphs.jsonl", skip_empty=True))
    ingest_seconds = time.perf_counter() - start
    print(f"index: {summary.documents} documents, {summary.linked} linked, {summary.unlinked} unlinked, "
          f"{summary.ingested} ingested now, {summary.chunks_total} chunks ({ingest_seconds:.1f} s)", flush=True)

    last_hops = {tuple(q.extra["evidences"][-1]) for q in questions if q.extra.get("evidences")}
    kept = [t for t in triples if t not in last_hops]
    cut_kg = kg_from_triples(kept, name="twowiki-last-hop-removed")
    earlier = {tuple(e) for q in questions for e in q.extra.get("evidences", [])[:-1]}
    print(f"last-hop variant: {len(triples) - len(kept)} triples removed ({len(last_hops & earlier)} of them are also "
          f"an earlier hop of another question)", flush=True)

    results: dict[str, dict] = {}
    for setting, kg in (("full KG", full_kg), ("last hop removed", cut_kg)):
        for method in args.methods.split(","):
            if method == "tog":
                try:
                    import kg_agent.graphs.tog  # noqa: F401
                except ImportError:
                    print("ToG graph not available; skipped", flush=True)
                    continue
            result = run(method, kg, questions, index=index, limit=args.limit)
            results[f"{method} / {setting}"] = result
            o = result["overall"]
            print(f"{method:5s} {setting:17s} EM {o['exact_match']:.1f}  F1 {o['f1']:.1f}  n={o['n']}  "
                  f"answers only from a document: {result['from_documents']}  {result['seconds']:.0f} s  stops {result['stops']}",
                  flush=True)
    if args.out:
        write_report(Path(args.out), results, summary, len(triples) - len(kept), ingest_seconds, argv)
    return 0


def write_report(path: Path, results: dict, summary, removed: int, ingest_seconds: float, argv) -> None:
    lines = ["| setting | method | EM | F1 | answers citing only a document | time |", "|---|---|---:|---:|---:|---:|"]
    for key, r in results.items():
        method, setting = key.split(" / ")
        o = r["overall"]
        lines.append(f"| {setting} | {'ToG-2' if method == 'tog2' else 'ToG'} | {o['exact_match']:.1f} | {o['f1']:.1f} | "
                     f"{r['from_documents']} | {r['seconds']:.0f} s |")
    types = sorted({t for r in results.values() for t in r["by_type"]})
    lines += ["", "By question type (EM / F1):", "", "| setting | method | " + " | ".join(f"{t} (n={next(iter(results.values()))['by_type'][t]['n']})" for t in types) + " |",
              "|---|---|" + "---:|" * len(types)]
    for key, r in results.items():
        method, setting = key.split(" / ")
        cells = [f"{r['by_type'][t]['exact_match']:.1f} / {r['by_type'][t]['f1']:.1f}" for t in types]
        lines.append(f"| {setting} | {'ToG-2' if method == 'tog2' else 'ToG'} | " + " | ".join(cells) + " |")
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    marker = "<!-- results -->"
    table = "\n".join(lines)
    block = (f"{marker}\nIndex: {summary.documents} paragraphs ({summary.linked} linked to KG entities by title, "
             f"{summary.unlinked} unlinked), {summary.chunks_total} chunks; this run ingested {summary.ingested} "
             f"({ingest_seconds:.0f} s). Last-hop variant: {removed} triples removed.\n\n{table}\n{marker}")
    if marker in text:
        head, _, rest = text.partition(marker)
        _, _, tail = rest.partition(marker)
        text = head + block + tail
    else:
        text = text + "\n" + block + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
