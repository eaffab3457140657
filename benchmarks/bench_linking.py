"""Entity linking on plain questions (issue 27, item 1): is the gold topic entity among / equal to the linked ones?

    KG_AGENT_DATA=../shared/data python benchmarks/bench_linking.py --part report --out /tmp/linking.json
    python benchmarks/bench_linking.py --sets metaqa --part tune --wrong 20     # the tuning half, misses shown

Data: the folder of ``KG_AGENT_DATA`` (default ``../shared/data``, as the other benchmarks); a set whose files are
absent is skipped with a message. The question text only is given to :func:`kg_agent.kg.linking.link_entities`
(``max_entities=5``, its default in the link step); brackets are removed where a set has them.

* ``metaqa``: MetaQA dev 1-, 2- and 3-hop (the ``*_some_gold_reachable`` lines), brackets removed; gold = the
  bracketed text. KG: ``metaqa/kb.txt`` (memory).
* ``pathquestion``: ``questions_{2h,3h}_topic.jsonl``; gold = ``topic_entities``. KG: ``pathquestion/kb.txt``.
* ``webqsp``: ``rog_webqsp_18q.jsonl``; gold = ``q_entity``; KG = each question's own subgraph.
* ``twowiki``: ``questions_dev.jsonl``; gold = the evidence chain's start subjects
  (:func:`kg_agent.eval.datasets.load_twowiki`, which drops comparison questions' second subject only when it is
  an object too); KG: ``kg_evidence_triples.jsonl``.

Tuning and reporting parts are disjoint: :func:`kg_agent.eval.datasets.split_lines` (seed 0, half each) on the
question ids, then ``--sample`` questions (seeded) per set and hop from the chosen half.

Scores (percent of questions): **recall** = some gold topic entity is among the linked ones; **top-1** = the first
linked entity is a gold one; **all gold** = every gold topic entity is linked (questions naming several);
**precision** = linked entities that are gold, over all linked entities (micro); **none** = nothing linked;
``ms`` = mean milliseconds per question for ``link_entities`` (warm: the label index is built before timing).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SETS = ("metaqa", "pathquestion", "webqsp", "twowiki")


def data_folder() -> Path:
    return Path(os.environ.get("KG_AGENT_DATA", "../shared/data"))


def _part(questions, part: str, sample: int, seed: int):
    from kg_agent.eval.datasets import sample_questions, split_lines

    tune, report = split_lines(questions, 0.5, seed=0)
    chosen = tune if part == "tune" else report if part == "report" else list(questions)
    return sample_questions(chosen, sample, seed) if sample else chosen


def load_set(name: str, data: Path, part: str, sample: int, seed: int):
    """``(kg or None, [(question, gold names, kg or None)])``, or a string saying why the set is skipped."""
    from kg_agent.eval.datasets import load_jsonl, load_metaqa, load_rog_jsonl, load_twowiki
    from kg_agent.kg import kg_from_triples, load_kg

    if name == "metaqa":
        folder = data / "metaqa"
        if not (folder / "kb.txt").exists():
            return f"{folder}/kb.txt not found"
        items = []
        for hop in (1, 2, 3):
            sub = folder / f"{hop}-hop"
            loaded = load_metaqa(sub / "qa_dev.txt", only_lines=sub / f"{hop}hop_dev_some_gold_reachable.idx", hop=hop)
            items += [(q.question, q.topic_entities, f"{hop}-hop") for q in _part(loaded, part, sample, seed)]
        return load_kg(folder / "kb.txt"), items
    if name == "pathquestion":
        folder = data / "pathquestion"
        if not (folder / "kb.txt").exists():
            return f"{folder}/kb.txt not found"
        items = []
        for hop in ("2h", "3h"):
            loaded = load_jsonl(folder / f"questions_{hop}_topic.jsonl")
            items += [(q.question, q.topic_entities, hop) for q in _part(loaded, part, sample, seed)]
        return load_kg(folder / "kb.txt", format="metaqa"), items
    if name == "webqsp":
        path = data / "webqsp" / "rog_webqsp_18q.jsonl"
        if not path.exists():
            return f"{path} not found"
        # 18 questions: too few to split; every question is reported (nothing was tuned on them)
        return None, [(q.question, q.topic_entities, kg_from_triples(q.extra["graph"], name=q.id))
                      for q in load_rog_jsonl(path)]
    if name == "twowiki":
        folder = data / "twowiki"
        if not (folder / "questions_dev.jsonl").exists():
            return f"{folder}/questions_dev.jsonl not found"
        loaded = load_twowiki(folder / "questions_dev.jsonl")
        return load_kg(folder / "kg_evidence_triples.jsonl", format="twowiki"), [
            (q.question, q.topic_entities, q.qtype) for q in _part(loaded, part, sample, seed)]
    raise ValueError(name)


def measure(name: str, kg, items, *, wrong: int = 0) -> dict:
    from kg_agent.kg.linking import link_entities
    from kg_agent.kg.terms import label_key

    rows = {}
    misses = []
    elapsed = 0.0
    for question, gold, group in items:
        graph = kg if kg is not None else group
        group = "all" if kg is None else group
        if kg is None:
            graph.label_index()  # per-question subgraph: build its index before timing
        wanted = {label_key(g) for g in gold}
        start = time.perf_counter()
        result = link_entities(graph, question)
        elapsed += time.perf_counter() - start
        linked = [label_key(e.label) for e in result.entities]
        for key in (group, "total"):
            row = rows.setdefault(key, {"n": 0, "recall": 0, "top1": 0, "all": 0, "gold_linked": 0, "linked": 0,
                                        "none": 0})
            row["n"] += 1
            row["recall"] += bool(wanted & set(linked))
            row["top1"] += bool(linked) and linked[0] in wanted
            row["all"] += wanted <= set(linked)
            row["gold_linked"] += sum(1 for x in linked if x in wanted)
            row["linked"] += len(linked)
            row["none"] += not linked
        if not (linked and linked[0] in wanted) and len(misses) < wrong:
            misses.append({"question": question, "gold": gold,
                           "linked": [(item.entity.label, item.mention, round(item.score, 3)) for item in result.linked]})
    table = {}
    for key, row in rows.items():
        n = row["n"]
        table[key] = {"n": n, "recall": 100 * row["recall"] / n, "top1": 100 * row["top1"] / n,
                      "all_gold": 100 * row["all"] / n,
                      "precision": 100 * row["gold_linked"] / row["linked"] if row["linked"] else 0.0,
                      "none": 100 * row["none"] / n, "linked_per_question": row["linked"] / n}
    total = rows.get("total", {}).get("n", 0)
    return {"set": name, "rows": table, "ms_per_question": 1000 * elapsed / total if total else 0.0, "wrong": misses}


def write_metaqa(data: Path, out: Path, part: str, sample: int, seed: int) -> int:
    from kg_agent.eval.datasets import load_metaqa

    folder = data / "metaqa"
    if not folder.exists():
        print(f"skipped: {folder} not found")
        return 0
    out.mkdir(parents=True, exist_ok=True)
    files = {"bracketed": [], "plain": []}
    for hop in (1, 2):
        sub = folder / f"{hop}-hop"
        loaded = load_metaqa(sub / "qa_dev.txt", only_lines=sub / f"{hop}hop_dev_some_gold_reachable.idx", hop=hop)
        for q in _part(loaded, part, sample, seed):
            base = {"answers": q.answers, "hop": q.hop, "qtype": q.qtype, "topic": q.topic_entities[0]}
            files["bracketed"].append({"id": f"bracketed/{q.id}", "question": q.extra["raw"], **base})
            files["plain"].append({"id": f"plain/{q.id}", "question": q.question, **base})
    for variant, records in files.items():
        with (out / f"{variant}.jsonl").open("w", encoding="utf-8") as stream:
            stream.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        print(f"{out / (variant + '.jsonl')}: {len(records)} questions")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS))
    parser.add_argument("--part", choices=("tune", "report", "all"), default="report")
    parser.add_argument("--sample", type=int, default=200, help="questions per set and hop from the part (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--wrong", type=int, default=0, help="list this many questions whose top link is not gold")
    parser.add_argument("--out", help="write the results as JSON")
    parser.add_argument("--write-metaqa", metavar="DIR",
                        help="only write MetaQA 1- and 2-hop questions of the part and sample as kg-agent eval jsonl files "
                             "(bracketed.jsonl, plain.jsonl) into DIR, for the end-to-end runs")
    args = parser.parse_args(argv)
    data = data_folder()
    if not data.exists():
        print(f"skipped: data folder {data} not found (set KG_AGENT_DATA)")
        return 0
    if args.write_metaqa:
        return write_metaqa(data, Path(args.write_metaqa), args.part, args.sample, args.seed)
    results = []
    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        loaded = load_set(name, data, args.part, args.sample, args.seed)
        if isinstance(loaded, str):
            print(f"{name}: skipped ({loaded})")
            continue
        kg, items = loaded
        if kg is not None:
            kg.label_index()
        result = measure(name, kg, items, wrong=args.wrong)
        results.append(result)
        print(f"\n{name} ({args.part}), {result['ms_per_question']:.1f} ms/question")
        print("| group | n | recall | top-1 | all gold | precision | none | linked/q |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for key, row in sorted(result["rows"].items(), key=lambda kv: (kv[0] == "total", kv[0])):
            print(f"| {key} | {row['n']} | {row['recall']:.1f} | {row['top1']:.1f} | {row['all_gold']:.1f} | "
                  f"{row['precision']:.1f} | {row['none']:.1f} | {row['linked_per_question']:.2f} |")
        for miss in result["wrong"]:
            print("  MISS", json.dumps(miss, ensure_ascii=False))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
