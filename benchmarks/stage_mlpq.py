"""Stage MLPQ (Multilingual Path Questions; Tan et al.) as files kg-agent loads.

MLPQ is published at github.com/tan92hl/Dataset-for-QA-over-Multilingual-KG (GPL-3.0). Every MLPQ path crosses
two language editions of DBpedia (en-zh, en-fr, zh-fr): a 2-hop path is one triple in one edition, an
inter-language link (ILL) to the same entity in the other edition, and one triple there; a 3-hop path has two
triples in one edition and one in the other. No question's path lies wholly in the English DBpedia.

The sampled KGs of the repository (datasets/KGs/, 9 files) are too large for the snapshot this script was written
against (they are listed in the tree but their blobs are absent), so the KG is **reconstructed from the questions'
own paths**: the union of every triple on every path of every version-1.3 question file of the chosen language
pair that is present (train/dev/test, questions in en/fr/zh: they share paths), with the ILL pairs on the paths
fused into one node, as the repository's own "ILLs_fusion" KGs do. Relations of the two editions that have the
same local name (en `leader`, zh `leader`) are one relation.

Questions: the English questions (`en_question/`) of one split (default: test) of the pair, 2-hop and 3-hop.

Writes into OUT:
  kb.txt                    head|relation|tail
  questions_2h.jsonl        generic JSONL {id, question, answers, hop, qtype, gold_path, gold_in_kb, ...}
  questions_3h.jsonl
  questions_{2h,3h}_topic.jsonl  the same + topic_entities (the path's first node; linking bypassed)
  stats.json, ORIGIN.md

Normalisation (the only changes to the data):
  * a node's name is the readable label of its DBpedia id: the IRI's last segment, %-decoded, '_' -> ' '
    (<http://dbpedia.org/resource/Boris_Shaposhnikov> -> 'Boris Shaposhnikov'); a fused ILL pair is named by its
    English id, else by the smallest id, except that a pair whose non-English id starts the path of an English
    question of the split (the question names it so: "... of 利奥波德三世_(比利时)?") is named by that id; ids of
    different editions with the same label are one node (counted);
  * relation names: the property IRI's last segment, %-decoded, unchanged otherwise ('subdivisionName', '父親');
  * question text: '_' -> ' ' (underscores only occur inside the entity mention); the raw text is kept too;
  * gold answers: every node the KB reaches from the topic entity along the gold relation path (the published
    answer, the path's last node, is always among them; `mlpq_answer` keeps it alone).

Run:  python benchmarks/stage_mlpq.py RAW OUT [--pair en_zh] [--split test]
RAW is a folder holding the repository's files (at least `datasets/Questions 1.3/<pair>/`). Deterministic; stdlib
only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import unquote

REPO = "tan92hl/Dataset-for-QA-over-Multilingual-KG"
COMMIT = "13abc3a8112789040706e9f1c91c87b09e20dcb7"
QDIR = "datasets/Questions 1.3"
IRI = re.compile(r"<([^<>]*)>")
PAIRS = ("en_zh", "en_fr", "zh_fr")


def edition(iri: str) -> str:
    """'http://zh.dbpedia.org/resource/X' -> 'zh'; the English edition 'http://dbpedia.org/...' -> 'en'."""
    host = iri.split("//", 1)[1].split("/", 1)[0]
    return "en" if host == "dbpedia.org" else host.split(".", 1)[0]


def local(iri: str) -> str:
    return unquote(iri.rstrip("/").rsplit("/", 1)[1])


def label(iri: str) -> str:
    return local(iri).replace("_", " ").strip()


def blob_sha(data: bytes) -> str:
    """The git blob id of a file's bytes (what `git hash-object` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def parse_path(ids: list[str]) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """MLPQ 1.3 path -> (triples, same-entity pairs).

    2-hop: h r1 e e' r2 a; 3-hop: h r1 e e' r2 f f' r3 a, where e/e' (f/f') is one entity twice, either the same
    id (the path stays in one edition) or an ILL pair (it crosses to the other edition).
    """
    if len(ids) not in (6, 9):
        raise ValueError(f"a path of {len(ids)} IRIs")
    triples = [(ids[0], ids[1], ids[2])]
    pairs = []
    for i in range(3, len(ids), 3):
        pairs.append((ids[i - 1], ids[i]))
        triples.append((ids[i], ids[i + 1], ids[i + 2]))
    return triples, pairs


def read_records(path: Path) -> tuple[list[tuple[int, str, list[str]]], int]:
    records, bad = [], 0
    for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        question, sep, rest = line.partition("@@@")
        ids = IRI.findall(rest)
        if not sep or len(ids) not in (6, 9):
            bad += 1
            continue
        records.append((index, question.strip(), ids))
    return records, bad


class Fusion:
    """Union-find over IRIs joined by the paths' ILL pairs."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def stage(raw: Path, out: Path, pair: str, split: str) -> dict:
    qroot = raw / QDIR / pair
    kg_files = sorted(qroot.glob("*/*.txt"))
    if not kg_files:
        raise SystemExit(f"no question files under {qroot}")
    triples: set[tuple[str, str, str]] = set()
    fusion = Fusion()
    inputs = []
    unparsed = 0
    for f in kg_files:
        data = f.read_bytes()
        records, bad = read_records(f)
        unparsed += bad
        inputs.append({"path": str(f.relative_to(raw)), "blob": blob_sha(data), "lines": len(records) + bad})
        for _, _, ids in records:
            ts, ps = parse_path(ids)
            triples.update(ts)
            for a, b in ps:
                fusion.find(a)
                fusion.find(b)
                if a != b:
                    fusion.union(a, b)
    for h, _, t in triples:
        fusion.find(h)
        fusion.find(t)

    # one name per fused group: the English member's label, else the smallest id's
    members: dict[str, list[str]] = defaultdict(list)
    for iri in sorted(fusion.parent):
        members[fusion.find(iri)].append(iri)
    # the English questions name their topic entity by the id the path starts from (a zh id for zh>en paths):
    # a fused group holding such an id is named by it, so that the question's mention is a name of the KB
    question_files = {hop: qroot / "en_question" / f"{split}_{pair}_{hop}h_en.txt" for hop in (2, 3)}
    topics = {ids[0] for f in question_files.values() if f.exists() for _, _, ids in read_records(f)[0]}
    name_of: dict[str, str] = {}
    groups_two_english = groups_named_by_topic = 0
    for group in members.values():
        english = [m for m in group if edition(m) == "en"]
        groups_two_english += len(english) > 1
        if english and not any(m in topics for m in english) and any(m in topics for m in group):
            name = label(min(m for m in group if m in topics))
            groups_named_by_topic += 1
        else:
            name = label(min(english) if english else min(group))
        for m in group:
            name_of[m] = name
    by_name: dict[str, set[str]] = defaultdict(set)
    for root in members:
        by_name[name_of[root]].add(root)
    same_label_groups = sum(len(v) > 1 for v in by_name.values())

    kb = sorted({(name_of[h], local(r), name_of[t]) for h, r, t in triples})
    for h, r, t in kb:
        if "|" in h + r + t or "\n" in h + r + t:
            raise SystemExit(f"a name with '|' or a newline: {(h, r, t)}")
    out.mkdir(parents=True, exist_ok=True)
    with (out / "kb.txt").open("w", encoding="utf-8") as fh:
        for h, r, t in kb:
            fh.write(f"{h}|{r}|{t}\n")
    forward: dict[tuple[str, str], set[str]] = defaultdict(set)
    for h, r, t in kb:
        forward[(h, r)].add(t)
    entities = {x for h, _, t in kb for x in (h, t)}

    stats: dict = {
        "source": {"repo": REPO, "commit": COMMIT, "pair": pair, "split": split},
        "kb_triples": len(kb),
        "kb_entities": len(entities),
        "kb_relations": len({r for _, r, _ in kb}),
        "kb_source_triples": len(triples),
        "kb_source_files": len(kg_files),
        "kb_unparsed_lines": unparsed,
        "ill_groups": sum(len(g) > 1 for g in members.values()),
        "ill_groups_with_two_english_ids": groups_two_english,
        "ill_groups_named_by_a_question_topic": groups_named_by_topic,
        "names_shared_by_unfused_ids": same_label_groups,
        "kb_edges_by_edition": dict(Counter(edition(r) for _, r, _ in triples).most_common()),
        "questions": {},
    }
    for hop in (2, 3):
        qfile = question_files[hop]
        if not qfile.exists():
            stats["questions"][f"{hop}h"] = {"n": 0, "missing": str(qfile.relative_to(raw))}
            continue
        data = qfile.read_bytes()
        records, bad = read_records(qfile)
        rows = []
        for index, question, ids in records:
            ts, _ = parse_path(ids)
            rels = [local(r) for _, r, _ in ts]
            nodes = [name_of[ts[0][0]]] + [name_of[t] for _, _, t in ts]
            frontier = {nodes[0]}
            for r in rels:
                frontier = {t for x in frontier for t in forward.get((x, r), ())}
            answers = [nodes[-1]] + sorted(frontier - {nodes[-1]})
            rows.append(
                {
                    "id": f"mlpq-{pair}-{split}-{hop}h-{index}",
                    "question": question.replace("_", " "),
                    "answers": answers,
                    "hop": hop,
                    "qtype": ">".join(rels),
                    "gold_path": [nodes[0]] + [x for r, n in zip(rels, nodes[1:]) for x in (r, n)],
                    "gold_in_kb": nodes[-1] in frontier,
                    "raw_question": question,
                    "mlpq_answer": nodes[-1],
                    "editions": ">".join(edition(r) for _, r, _ in ts),
                    "topic": nodes[0],
                }
            )
        for suffix, with_topic in (("", False), ("_topic", True)):
            with (out / f"questions_{hop}h{suffix}.jsonl").open("w", encoding="utf-8") as fh:
                for row in rows:
                    row = dict(row)
                    topic = row.pop("topic")
                    if with_topic:
                        row["topic_entities"] = [topic]
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        stats["questions"][f"{hop}h"] = {
            "file": str(qfile.relative_to(raw)),
            "blob": blob_sha(data),
            "n": len(rows),
            "unparsed_lines": bad,
            "gold_in_kb": sum(r["gold_in_kb"] for r in rows),
            "multi_answer": sum(len(r["answers"]) > 1 for r in rows),
            "topic_mention_in_question": sum(r["topic"].lower() in r["question"].lower() for r in rows),
            "answer_named_in_ascii": sum(r["mlpq_answer"].isascii() for r in rows),
            "editions": dict(Counter(r["editions"] for r in rows).most_common()),
            "relation_paths": len({r["qtype"] for r in rows}),
            "top_relation_paths": Counter(r["qtype"] for r in rows).most_common(5),
        }
    stats["inputs"] = inputs
    (out / "stats.json").write_text(json.dumps(stats, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "ORIGIN.md").write_text(origin(stats), encoding="utf-8")
    return stats


def origin(s: dict) -> str:
    pair, split = s["source"]["pair"], s["source"]["split"]
    q2, q3 = s["questions"].get("2h", {}), s["questions"].get("3h", {})
    kb = f"{s['kb_triples']:,} triples, {s['kb_entities']:,} entities, {s['kb_relations']:,} relations"
    fused = f"{s['kb_source_triples']:,} IRI triples; {s['ill_groups']:,} ILL-fused nodes"
    shared = s["names_shared_by_unfused_ids"]
    unnamed2 = q2.get("n", 0) - q2.get("topic_mention_in_question", 0)
    unnamed3 = q3.get("n", 0) - q3.get("topic_mention_in_question", 0)
    inputs = "\n".join(f"| `{i['path']}` | {i['blob']} | {i['lines']:,} |" for i in s["inputs"])
    return f"""# MLPQ ({pair}, English questions, {split} split) — Tan et al., "MLPQ: A Dataset for Path Question Answering
over Multilingual Knowledge Graphs"

**Source**: GitHub `{REPO}`, snapshot commit `{COMMIT}` (2022-01-11; dataset version 1.3). Files
`{QDIR}/{pair}/*/*.txt` (format: `question@@@<path IRIs separated by spaces>`).
**Licence**: GPL-3.0 (`LICENSE.txt` in the repository; the readme: "This project is licensed under the GPL3 License").
The KG content is DBpedia (en / zh / fr editions; DBpedia data is CC BY-SA 3.0 and GFDL).

**Not as published**: the repository's KGs (`datasets/KGs/sampled_monolingual_KGs/Sampled_*.txt`,
`datasets/KGs/fusion_bilingual_KGs/*`) and the version-1.3 *train* 3-hop files are absent from the snapshot we
could fetch (too large), so `kb.txt` is **reconstructed from the questions' own paths**: the union of all triples
on all paths of the {len(s["inputs"])} version-1.3 files of `{pair}` that are present (train 2-hop, dev and test 2- and
3-hop; questions in en, fr and zh share paths), with each path's inter-language-link pair fused into one node (as
the repository's `ILLs_fusion` KGs do). Every edge of this KB is on some MLPQ path; the sampled DBpedia KG has many
more edges per node, so this KB is easier than the published one for exploring methods and says nothing about
scale. MLPQ has no monolingual path: every question crosses from one DBpedia edition to the other, so the KB
mixes English and Chinese (or French) entity names and property names.

## Input files (git blob ids; `git hash-object` reproduces them)
| file | blob | lines |
|---|---|---:|
{inputs}

## Derived (`python benchmarks/stage_mlpq.py RAW OUT --pair {pair} --split {split}`; deterministic, stdlib only)
| file | what |
|---|---|
| kb.txt | `head|relation|tail`: **{kb}** ({fused}) |
| questions_2h.jsonl | {q2.get("n", 0):,} English 2-hop questions of `{q2.get("file", "-")}` |
| questions_3h.jsonl | {q3.get("n", 0):,} English 3-hop questions of `{q3.get("file", "-")}` |
| questions_{{2h,3h}}_topic.jsonl | the same + `topic_entities` (the path's first node) |
| stats.json | counts |

JSONL fields: `id, question, answers, hop, qtype, gold_path, gold_in_kb, raw_question, mlpq_answer, editions`.
`answers` = every node `kb.txt` reaches from the topic along the gold relation path (multi-answer questions:
2-hop {q2.get("multi_answer", 0):,}, 3-hop {q3.get("multi_answer", 0):,}); `mlpq_answer` = the published answer (the
path's last node). Gold reachable along the gold path (`gold_in_kb`): 2-hop {q2.get("gold_in_kb", 0):,} / {q2.get("n", 0):,},
3-hop {q3.get("gold_in_kb", 0):,} / {q3.get("n", 0):,}. Published answers whose name is ASCII: 2-hop
{q2.get("answer_named_in_ascii", 0):,}, 3-hop {q3.get("answer_named_in_ascii", 0):,} (most others are Chinese
labels of zh-DBpedia entities with no English ILL on any path). `editions` = the DBpedia edition of each
hop's property (`en>zh`).

Normalisation: node names = the DBpedia id's last segment, %-decoded, `_` -> space; a fused ILL pair takes its
English id's name, unless its other id starts an English question's path (the question names the entity by that
id; {s["ill_groups_named_by_a_question_topic"]:,} nodes); ids of two editions with one name are one node ({shared:,} names).
Relation names = the property's local name, unchanged (en and zh properties of one local name are one relation).
Question text: `_` -> space (the raw text is in `raw_question`). Known quirks (the data's): the 1.3 questions were
half replaced by machine paraphrases, some of them ungrammatical or describing the entity ("X, an album by Y");
templates map a property to one English wording, sometimes loosely (`chronology` asked as "author"); in
{unnamed2:,} 2-hop and {unnamed3:,} 3-hop questions the topic entity's name is not in the
question text, mostly because the paraphraser put the relation words inside it after its first letter ("which
type of subdivision does G's southern regionombrèn belong to?" for Gombrèn, relation `s`).
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("raw", type=Path, help="folder with the repository's files (datasets/Questions 1.3/...)")
    parser.add_argument("out", type=Path, help="output folder, e.g. .kg_agent/data/mlpq")
    parser.add_argument("--pair", choices=PAIRS, default="en_zh", help="language pair (default en_zh)")
    parser.add_argument("--split", choices=("train", "dev", "test"), default="test", help="question split (default test)")
    args = parser.parse_args(argv)
    stats = stage(args.raw, args.out, args.pair, args.split)
    summary = {k: v for k, v in stats.items() if k != "inputs"}
    print(json.dumps(summary, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
