"""The report card across KGs: RoG, ToG and ToG-I, offline, over every real third-party KG in
``<data>/realkgs/`` and in ``benchmarks/realkgs/`` (committed with the repository, so they run on a fresh clone
without the data folder; same layout: one folder per KG with its KG file, ``questions.jsonl`` and ``ORIGIN.md``; a
name in both is read from ``<data>``), all questions, the seven RDF style fixtures (``tests/fixtures/styles``, their
plain-language questions: one domain written as DBpedia, Wikidata, schema.org, SKOS, Freebase and others write it;
committed too), and seeded samples of MetaQA, PathQuestion and WebQSP; one table of
KG x method x question kind with Hits@1, coverage, precision of the answered, abstention on unanswerable
questions and seconds per question, compared with the committed baseline (``benchmarks/report_card_baseline.json``).

    python benchmarks/report_card.py [--data DIR] [--out DIR] [--only KG ...] [--methods rog,tog,tog-i]
                                     [--backend memory|oxigraph ...] [--planner NAME] [--write-baseline] [--check]

``--backend`` (repeatable; default ``memory``) says where each KG file is read from: ``memory`` is ``kg-agent eval
--kg FILE`` (an in-memory rdflib graph); ``oxigraph`` is a user's path, ``kg-agent load FILE --store DIR`` then
``kg-agent eval --kg DIR`` over that store. The stores are kept in ``<out>/stores/``, one per KG file and version of
the loading code (named by the digest of both), so a rerun with the same ``--out`` reuses them. A KG the card gives
no file (WebQSP's per-question subgraphs) has memory rows only. Rows and baseline entries are keyed by KG, with
``@oxigraph`` after the name for the Oxigraph rows (``nomisma-roman@oxigraph``), so memory rows keep their keys.

``--check`` exits 1 when any KG x method answers more than ``--slack`` (default 1) question fewer right than the
baseline: offline answers are deterministic, but floats differ a little between CPUs. A KG that is new to the
baseline is reported, not checked. ``--write-baseline`` replaces the baseline with this run (commit it with the
change that lifts it). The data folder is ``--data``, else ``KG_AGENT_DATA``, else ``../shared/data``.

Scores (strict, of every question): a question with gold answers is right when the first answer is one of them; a
question with none (unanswerable) is right only when nothing is answered. ``coverage`` is the share answered,
``precision`` the share of answered questions whose first answer is right, ``abstained`` the share of
unanswerable questions left unanswered.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASELINE = HERE / "report_card_baseline.json"
COMMITTED_REALKGS = HERE / "realkgs"
STYLE_FIXTURES = HERE.parent / "tests" / "fixtures" / "styles"
METHODS = ("rog", "tog", "tog-i")
BACKENDS = ("memory", "oxigraph")
#: The source of what ``kg-agent load`` writes into a store (the store, its relation index, label file and KG
#: profile): a cached store is reused only while it is the same.
LOADING_CODE = HERE.parent / "kg_agent" / "kg"


def suites(data: Path) -> dict[str, list[str]]:
    """``{KG name: kg-agent eval arguments}`` for every KG of the card present under ``data``."""
    found: dict[str, list[str]] = {}
    for realkgs in (data / "realkgs", COMMITTED_REALKGS):
        for folder in sorted(p for p in realkgs.iterdir() if p.is_dir()) if realkgs.is_dir() else ():
            questions = folder / "questions.jsonl"
            kg = [p for p in sorted(folder.iterdir()) if p.suffix in (".nt", ".ttl", ".owl", ".rdf", ".nq", ".jsonld")]
            if questions.exists() and kg and folder.name not in found:
                found[folder.name] = ["jsonl", "--questions", str(questions), "--kg", str(kg[0]), "--lenient"]
    for folder in sorted(p for p in STYLE_FIXTURES.iterdir() if p.is_dir()) if STYLE_FIXTURES.is_dir() else ():
        questions, meta = folder / "questions_plain.jsonl", folder / "meta.json"
        if questions.exists() and meta.exists():
            kg = folder / json.loads(meta.read_text(encoding="utf-8"))["kg"]
            found[f"style-{folder.name}"] = ["jsonl", "--questions", str(questions), "--kg", str(kg)]
    metaqa = data / "metaqa"
    if (metaqa / "kb.txt").exists():
        args = ["metaqa"]
        for hop in (1, 2, 3):
            args += ["--questions", str(metaqa / f"{hop}-hop" / "qa_dev.txt")]
        for hop in (1, 2, 3):
            args += ["--only-lines", str(metaqa / f"{hop}-hop" / f"{hop}hop_dev_some_gold_reachable.idx")]
        found["metaqa"] = args + ["--sample", "20", "--seed", "0", "--kg", str(metaqa / "kb.txt")]
    pathquestion = data / "pathquestion"
    if (pathquestion / "kb.txt").exists():
        found["pathquestion"] = ["jsonl", "--questions", str(pathquestion / "questions_2h.jsonl"), "--questions",
                                 str(pathquestion / "questions_3h.jsonl"), "--sample", "30", "--seed", "0",
                                 "--kg", str(pathquestion / "kb.txt")]
    webqsp = data / "webqsp" / "rog_webqsp_18q.jsonl"
    if webqsp.exists():
        found["webqsp"] = ["rog-jsonl", "--questions", str(webqsp)]
    return found


def card_key(name: str, backend: str) -> str:
    """A KG's key in the card and the baseline on a backend: its name on ``memory``, ``name@backend`` else."""
    return name if backend == "memory" else f"{name}@{backend}"


def split_key(key: str) -> tuple[str, str]:
    """``(KG name, backend)`` of a card key (:func:`card_key`)."""
    name, _, backend = key.partition("@")
    return name, backend or "memory"


def loading_code_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(LOADING_CODE.rglob("*.py")):
        digest.update(path.relative_to(LOADING_CODE).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def oxigraph_args(name: str, args: list[str], stores: Path, code: str) -> list[str] | None:
    """The eval arguments of a KG over an Oxigraph store loaded from its file as a user loads it (``kg-agent load
    FILE --store DIR``, with ``--lenient`` when the card reads the file leniently), kept in ``stores`` under the
    digest of the file and of the loading code and reused while both are the same; None (with the error printed)
    when the KG has no file or the load fails."""
    if "--kg" not in args:
        return None
    at = args.index("--kg")
    source = Path(args[at + 1])
    lenient = "--lenient" in args
    store = stores / f"{name}-{hashlib.sha256((file_digest(source) + code + str(lenient)).encode()).hexdigest()[:16]}"
    if not (store / "kg-agent").is_dir():
        for old in stores.glob(f"{name}-*"):  # an older version of this KG's store
            if old.is_dir() and len(old.name) == len(name) + 17:
                shutil.rmtree(old, ignore_errors=True)
        stores.mkdir(parents=True, exist_ok=True)
        command = ["kg-agent", "load", str(source), "--store", str(store), *(["--lenient"] if lenient else [])]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{name}: kg-agent load failed (exit {done.returncode}):\n{done.stderr[-2000:]}", file=sys.stderr)
            return None
    kept = [a for a in args if a != "--lenient"]  # a store is read as it was loaded
    kept[kept.index("--kg") + 1] = str(store)
    return kept


def run_eval(name: str, method: str, args: list[str], out: Path, planner: str | None = None) -> dict | None:
    """The results of one ``kg-agent eval`` run (``name`` is the card key); None (with the error printed) when it
    wrote none."""
    target = out / f"{name.replace('@', '-')}-{method}.json"
    target.unlink(missing_ok=True)
    command = ["kg-agent", "eval", *args, "--method", method, "--model", "none", "--no-progress", "--out", str(target)]
    if planner:
        command += ["--planner", planner]
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    if not target.exists():
        print(f"{name} {method}: kg-agent eval failed (exit {done.returncode}):\n{done.stderr[-2000:]}", file=sys.stderr)
        return None
    result = json.loads(target.read_text(encoding="utf-8"))
    result["wall_seconds"] = time.perf_counter() - began
    return result


def question_kinds(args: list[str]) -> dict[str, str]:
    """``{question id: kind}`` from the JSONL question files an eval reads (``kind``, as realkgs' files give it, else
    ``N-hop`` from a ``hop`` field, as the style fixtures give it)."""
    kinds: dict[str, str] = {}
    for flag, value in zip(args, args[1:]):
        if flag == "--questions" and value.endswith(".jsonl"):
            for line in Path(value).read_text(encoding="utf-8").splitlines():
                if line.strip():
                    question = json.loads(line)
                    if question.get("kind"):
                        kinds[str(question.get("id"))] = str(question["kind"])
                    elif question.get("hop"):
                        kinds[str(question.get("id"))] = f"{question['hop']}-hop"
    return kinds


def question_kind(record: dict, kinds: dict[str, str]) -> str:
    kind = kinds.get(str(record.get("id")))
    if kind:
        return kind
    return "unanswerable" if not record.get("gold") else "all"


def scores(records: list[dict]) -> dict:
    """The card's scores of some questions' records (see the module docstring)."""
    n = len(records)
    answered = [r for r in records if r.get("predicted")]
    right = [r for r in records if is_right(r)]
    unanswerable = [r for r in records if not r.get("gold")]
    return {
        "n": n,
        "right": len(right),
        "hits@1": round(100 * len(right) / n, 1) if n else 0.0,
        "coverage": round(100 * len(answered) / n, 1) if n else 0.0,
        "precision": round(100 * sum(is_right(r) for r in answered) / len(answered), 1) if answered else 0.0,
        "abstained": (round(100 * sum(not r.get("predicted") for r in unanswerable) / len(unanswerable), 1)
                      if unanswerable else None),
    }


def is_right(record: dict) -> bool:
    if not record.get("gold"):
        return not record.get("predicted")
    return bool(record["scores"]["strict"]["hits_at_1"])


def card_row(result: dict, question_kinds: dict[str, str]) -> dict:
    records = result["per_question"]
    kinds: dict[str, list[dict]] = {}
    for record in records:
        kinds.setdefault(question_kind(record, question_kinds), []).append(record)
    return {"all": scores(records), "kinds": {kind: scores(rs) for kind, rs in sorted(kinds.items())},
            "seconds_per_question": round(result["wall_seconds"] / max(1, len(records)), 3)}


def table(card: dict, baseline: dict) -> str:
    lines = ["| KG | backend | method | Hits@1 | right / n | baseline | coverage | precision | abstained | s/q | "
             "by kind (Hits@1) |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for key, methods in card.items():
        name, backend = split_key(key)
        for method, row in methods.items():
            s = row["all"]
            before = baseline.get(key, {}).get(method, {}).get("all", {}).get("right")
            kinds = ", ".join(f"{k} {v['hits@1']:.0f} ({v['n']})" for k, v in row["kinds"].items()) if len(row["kinds"]) > 1 else ""
            abstained = "" if s["abstained"] is None else f"{s['abstained']:.0f}"
            lines.append(f"| {name} | {backend} | {method} | {s['hits@1']:.1f} | {s['right']} / {s['n']} | "
                         f"{'' if before is None else before} | {s['coverage']:.0f} | {s['precision']:.0f} | {abstained} | "
                         f"{row['seconds_per_question']:.2f} | {kinds} |")
    return "\n".join(lines)


def regressions(card: dict, baseline: dict, slack: int) -> list[str]:
    lost = []
    for name, methods in card.items():
        for method, row in methods.items():
            before = baseline.get(name, {}).get(method, {}).get("all", {}).get("right")
            if before is not None and row["all"]["right"] < before - slack:
                lost.append(f"{name} {method}: {row['all']['right']} right, baseline {before}")
    return lost


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.environ.get("KG_AGENT_DATA", "../shared/data"))
    parser.add_argument("--out", default="report-card")
    parser.add_argument("--only", action="append", default=None, metavar="KG", help="only this KG (repeatable)")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--backend", action="append", choices=BACKENDS, default=None, dest="backends",
                        help="where each KG file is read from (repeatable; default memory): memory, or an Oxigraph "
                        "store loaded with kg-agent load (kept in <out>/stores)")
    parser.add_argument("--planner", default=None, help="RoG's planner (kg-agent eval --planner), to measure one that is "
                        "not the default; the baseline is the default's")
    parser.add_argument("--slack", type=int, default=1)
    parser.add_argument("--check", action="store_true", help="exit 1 when a KG x method lost more than --slack questions")
    parser.add_argument("--write-baseline", action="store_true")
    args = parser.parse_args(argv)
    if args.planner and args.write_baseline:
        parser.error("--write-baseline records the default planner's card: leave out --planner")
    data = Path(args.data)
    found = suites(data)
    if not found:
        print(f"report card: no KG of the card under {data} (set --data or KG_AGENT_DATA)", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    card: dict[str, dict] = {}
    failed: list[str] = []
    backends = list(dict.fromkeys(args.backends or ["memory"]))
    code = loading_code_digest() if "oxigraph" in backends else ""
    for name, file_args in found.items():
        if args.only and name not in args.only:
            continue
        for backend in backends:
            key = card_key(name, backend)
            eval_args = file_args if backend == "memory" else oxigraph_args(name, file_args, out / "stores", code)
            if eval_args is None:
                if "--kg" in file_args:  # the load failed (said); a KG with no file has no store rows
                    failed.append(f"{key} load")
                continue
            for method in args.methods.split(","):
                result = run_eval(key, method, eval_args, out, args.planner)
                if result is None:
                    failed.append(f"{key} {method}")
                    continue
                card.setdefault(key, {})[method] = card_row(result, question_kinds(eval_args))
                print(f"{key} {method}: {card[key][method]['all']}", file=sys.stderr, flush=True)
    baseline = json.loads(BASELINE.read_text(encoding="utf-8")) if BASELINE.exists() else {}
    print(table(card, baseline))
    (out / "card.json").write_text(json.dumps(card, indent=1), encoding="utf-8")
    if args.write_baseline:
        merged = {**baseline, **{name: {**baseline.get(name, {}), **methods} for name, methods in card.items()}}
        BASELINE.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if args.check:
        lost = regressions(card, baseline, args.slack)
        for line in lost:
            print(f"report card: lower than the baseline: {line}", file=sys.stderr)
        return 1 if lost or failed else 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
