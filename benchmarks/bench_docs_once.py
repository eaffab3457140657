"""ToG-2's documents embedded once (issue 48 item 3): the same ``kg-agent eval --method tog2 --docs FILE`` run three
times in new processes, whole-process wall and CPU seconds of each.

    python benchmarks/bench_docs_once.py [--data ../shared/data] [--sample 20] [--work /tmp/docs-once]

1. *first run*: an empty user cache folder (``KG_AGENT_CACHE_DIR``): the 2WikiMultihopQA paragraphs are chunked,
   embedded and written to a Chroma index there;
2. *second run*: the same command: the index is reused, nothing is embedded;
3. *in memory*: ``KG_AGENT_CACHE_DIR`` set empty: the documents are embedded into an in-memory index, as every run
   did before; its predictions must equal the others'.

Prints each run's seconds and whether the three runs' predictions (answers per question) are the same.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path


def run(command: list[str], cache: str) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, env={**os.environ, "KG_AGENT_CACHE_DIR": cache}, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - started, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def predictions(path: Path) -> list:
    results = json.loads(path.read_text(encoding="utf-8"))
    return [(row["id"], row["predicted"]) for row in results["per_question"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("KG_AGENT_DATA", "../shared/data"))
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="kg-agent-docs-once-"))
    work.mkdir(parents=True, exist_ok=True)
    wiki = Path(args.data) / "twowiki"
    cache = work / "cache"
    base = ["kg-agent", "eval", "twowiki", "--questions", str(wiki / "questions_dev.jsonl"), "--kg",
            str(wiki / "kg_evidence_triples.jsonl"), "--method", "tog2", "--docs", str(wiki / "docs_context_paragraphs.jsonl"),
            "--sample", str(args.sample), "--model", "none", "--no-progress"]
    outs = {}
    for name, folder in (("first run", str(cache)), ("second run", str(cache)), ("in memory", "")):
        outs[name] = work / f"{name.replace(' ', '_')}.json"
        outs[name].unlink(missing_ok=True)
        wall, cpu = run([*base, "--out", str(outs[name])], folder)
        print(f"{name:12s} {wall:8.1f} s wall {cpu:8.1f} s CPU", flush=True)
    same = len({json.dumps(predictions(path)) for path in outs.values()}) == 1
    print(f"predictions of the three runs {'identical' if same else 'DIFFER'} ({args.sample} questions)")


if __name__ == "__main__":
    main()
