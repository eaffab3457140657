"""LLM calls and prompt tokens per question for RoG, ToG and ToG-I on MetaQA dev, plus offline Hits@1.

    python benchmarks/bench_llm_calls.py --data ../shared/data --n 200 --seed 0 --out docs/benchmarks_llm_calls.md

Questions: ``n`` MetaQA dev questions, a third from each of 1-, 2- and 3-hop, drawn with ``seed`` from the
lines whose gold answers are at least partly reachable in ``kb.txt`` (``{h}hop_dev_some_gold_reachable.idx``).

The chat model is a deterministic scripted model (:class:`~kg_agent.llm.scripted.ScriptedChatModel`) that
answers every prompt from the question's *gold relation path* (its qtype, e.g. ``director_to_movie_to_actor``
-> ``^directed_by, starred_actors``): RoG's planner gets the gold path, its answerer the ends of the gold-path
reasoning paths it is shown; ToG's relation pruner gets the gold relation of the hop the entity sits on,
its entity scorer the entities reachable along the gold path, its verifier Yes once a gold answer is in the
triplets; ToG-I's instruction generator one instruction per gold hop. So the numbers measure the methods'
call patterns with a well-behaved model, not a model's accuracy. Offline Hits@1 (``model=None``) is the
methods' own offline deciders on the same questions.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QTYPE_RELATION = {
    "actor": "starred_actors", "director": "directed_by", "writer": "written_by", "year": "release_year",
    "language": "in_language", "tags": "has_tags", "tag": "has_tags", "genre": "has_genre",
    "imdbvotes": "has_imdb_votes", "imdbrating": "has_imdb_rating",
}


def gold_relation_path(qtype: str) -> tuple[str, ...]:
    """``director_to_movie_to_actor`` -> ``('^directed_by', 'starred_actors')`` (X_to_movie steps walk backwards)."""
    parts = qtype.split("_to_")
    steps = []
    for here, there in zip(parts, parts[1:]):
        steps.append(QTYPE_RELATION[there] if here == "movie" else "^" + QTYPE_RELATION[here])
    return tuple(steps)


class GoldResponder:
    """Answers RoG / ToG / ToG-I prompts for one question from its gold relation path (see the module docstring)."""

    def __init__(self, kg, topic: str, relations: tuple[str, ...], answers: list[str], cap: int = 20000) -> None:
        self.relations = relations
        self.answers = answers
        self.gold = {a.casefold() for a in answers}
        starts = [e.id for e in kg.find_entities(topic)[:1]]
        layers = [set(starts)]
        for relation in relations:
            nxt: set[str] = set()
            for node in sorted(layers[-1])[:cap]:
                nxt.update(kg.neighbors(node, relation))
            layers.append(nxt)
        self.labels = [{(kg.label(i) or i) for i in layer} for layer in layers]

    @staticmethod
    def _last_line(prompt: str, key: str) -> str:
        lines = [line for line in prompt.splitlines() if line.startswith(key)]
        return lines[-1][len(key):].strip() if lines else ""

    def __call__(self, prompt: str) -> str:
        if prompt.startswith("Please generate a valid relation path"):
            return "<PATH> " + " <SEP> ".join(self.relations) + " </PATH>"
        if prompt.startswith("Based on the reasoning paths"):
            return self._rog_answer(prompt)
        if prompt.startswith("Please retrieve"):
            return self._relations(prompt)
        if prompt.startswith("Please score the entities"):
            return self._entities(prompt)
        if prompt.startswith("Given a question and the associated retrieved knowledge graph triplets"):
            found = self._answers_in_triplets(prompt)
            if "whether it's sufficient" in prompt:
                return f"{{Yes}}. Based on the given knowledge triplets, the answer is {{{found[0]}}}." if found else \
                    "{No}. The triplets do not contain the answer yet."
            return "So the answer is " + ", ".join("{" + a + "}" for a in found) if found else "I do not know. {unknown}"
        if prompt.startswith("Answer the question with your own knowledge"):
            return "{unknown}"
        if prompt.startswith("Analyse the question"):
            steps = [f"Follow the relation {r} from the entities found so far." for r in self.relations]
            return json.dumps({"instructions": steps, "topic_entities": []})
        if prompt.startswith("Summarise these guiding instructions"):
            return " ".join(line.split(". ", 1)[-1] for line in prompt.splitlines() if re.match(r"^\d+\. ", line))
        return "I do not know."

    def _rog_answer(self, prompt: str) -> str:
        ends = []
        for line in prompt.split("Reasoning Paths:", 1)[-1].split("Question:", 1)[0].splitlines():
            parts = [p.strip() for p in line.split(" -> ")]
            if len(parts) >= 3 and tuple(parts[1::2]) == self.relations and parts[-1] not in ends:
                ends.append(parts[-1])
        return str(ends or ["unknown"])

    def _relations(self, prompt: str) -> str:
        entity = self._last_line(prompt, "Topic Entity:")
        listed = [r.strip() for r in self._last_line(prompt, "Relations:").split(";") if r.strip()]
        chosen = None
        for hop, relation in enumerate(self.relations):
            if entity in self.labels[hop] and relation in listed:
                chosen = relation
                break
        others = [r for r in listed if r != chosen][:2]
        if chosen is None:
            return "\n".join(f"{i}. {{{r} (Score: 0.5)}}: maybe relevant." for i, r in enumerate(listed[:2], 1))
        lines = [f"1. {{{chosen} (Score: 0.8)}}: This relation follows the question."]
        lines += [f"{i}. {{{r} (Score: 0.1)}}: less relevant." for i, r in enumerate(others, 2)]
        return "\n".join(lines)

    def _entities(self, prompt: str) -> str:
        relation = self._last_line(prompt, "Relation:")
        entities = [e.strip() for e in self._last_line(prompt, "Entites:").split(";")]
        good: set[str] = set()
        for hop, rel in enumerate(self.relations):
            if rel == relation:
                good |= self.labels[hop + 1]
        hits = [e in good for e in entities]
        share = 1.0 / sum(hits) if any(hits) else 1.0 / len(entities)
        return ", ".join(f"{share if (h or not any(hits)) else 0.0:.3f}" for h in hits)

    def _answers_in_triplets(self, prompt: str) -> list[str]:
        block = prompt.rsplit("Knowledge Triplets:", 1)[-1].rsplit("\nA:", 1)[0]
        last = self.relations[-1].lstrip("^")
        found = []
        for line in block.strip().splitlines():
            parts = [p.strip() for p in line.split(", ")]
            if len(parts) >= 3 and parts[1] == last:
                for name in (parts[0], ", ".join(parts[2:])):
                    if name.casefold() in self.gold and name not in found:
                        found.append(name)
        return found


def load_questions(data: Path, n: int, seed: int):
    from kg_agent.eval.datasets import load_metaqa, sample_questions

    per_hop = [n // 3 + (1 if i < n % 3 else 0) for i in range(3)]
    questions = []
    for hop, count in zip((1, 2, 3), per_hop):
        folder = data / "metaqa" / f"{hop}-hop"
        pool = load_metaqa(folder / "qa_dev.txt", only_lines=folder / f"{hop}hop_dev_some_gold_reachable.idx")
        questions += sample_questions(pool, count, seed=seed)
    return questions


def run(args: argparse.Namespace) -> str:
    from kg_agent.eval.metrics import hits_at_1
    from kg_agent.graphs.rog import create_rog_graph
    from kg_agent.graphs.tog import create_tog_graph, tog_call_bound
    from kg_agent.graphs.tog_i import create_tog_i_graph, tog_i_call_bound
    from kg_agent.kg import open_kg
    from kg_agent.llm.scripted import ScriptedChatModel

    data = Path(args.data)
    start = time.perf_counter()
    kg = open_kg(data / "metaqa" / "kb.txt")
    questions = load_questions(data, args.n, args.seed)
    print(f"{len(questions)} questions, KG loaded in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    factories = {
        "RoG": lambda model: create_rog_graph(kg, model=model),
        "ToG": lambda model: create_tog_graph(kg, model=model, width=3, depth=3),
        "ToG-I": lambda model: create_tog_i_graph(kg, model=model, depth=3),
    }
    rows = {}
    for name, factory in factories.items():
        calls, tokens, hits, offline_hits, by_hop, stops = [], [], [], [], {1: [], 2: [], 3: []}, {}
        offline_app = factory(None).compile()
        t0 = time.perf_counter()
        for q in questions:
            responder = GoldResponder(kg, q.topic_entities[0], gold_relation_path(q.qtype), q.answers)
            model = ScriptedChatModel(responder=responder)
            result = factory(model).compile().invoke({"question": q.extra["raw"]})
            usage = result.get("usage") or {}
            calls.append(usage.get("calls", 0))
            tokens.append(usage.get("prompt_tokens", 0))
            by_hop[q.hop].append(usage.get("calls", 0))
            hits.append(hits_at_1([a["answer"] for a in result["answers"]], q.answers))
            stops[result.get("stop_reason", "")] = stops.get(result.get("stop_reason", ""), 0) + 1
        t1 = time.perf_counter()
        for q in questions[: args.offline_n]:
            result = offline_app.invoke({"question": q.extra["raw"]})
            offline_hits.append(hits_at_1([a["answer"] for a in result["answers"]], q.answers))
        t2 = time.perf_counter()
        rows[name] = {
            "calls": statistics.mean(calls), "max_calls": max(calls), "tokens": statistics.mean(tokens),
            "by_hop": {h: statistics.mean(v) if v else 0 for h, v in by_hop.items()},
            "scripted_hits": statistics.mean(hits), "offline_hits": statistics.mean(offline_hits) if offline_hits else float("nan"),
            "offline_by_hop": {}, "stops": stops, "seconds": (t1 - t0, t2 - t1),
        }
        for hop in (1, 2, 3):
            vals = [h for q, h in zip(questions[: args.offline_n], offline_hits) if q.hop == hop]
            rows[name]["offline_by_hop"][hop] = statistics.mean(vals) if vals else float("nan")
        print(f"{name}: {rows[name]}", file=sys.stderr)
    return report(rows, args, len(questions), min(args.offline_n, len(questions)), tog_call_bound(3, 3), tog_i_call_bound(3, 3))


def _shown(path: str) -> str:
    """A path as typed from the project root (relative when it can be)."""
    import os

    return os.path.relpath(Path(path).resolve(), ROOT)


def report(rows: dict, args, n: int, n_offline: int, tog_bound: int, tog_i_bound: int) -> str:
    lines = [
        "# LLM calls per question: RoG vs ToG vs ToG-I (MetaQA dev)",
        "",
        "Command (from the project root):",
        "",
        "```",
        f"python benchmarks/bench_llm_calls.py --data {_shown(args.data)} --n {args.n} --seed {args.seed} "
        f"--offline-n {args.offline_n} --out {_shown(args.out)}",
        "```",
        "",
        f"{n} MetaQA dev questions (a third each of 1-, 2-, 3-hop, seed {args.seed}, from the `*_some_gold_reachable.idx` lines) "
        "over the full `kb.txt`. The chat model is a deterministic scripted model answering each prompt from the "
        "question's gold relation path (see the script's docstring), so calls and prompt tokens show each method's "
        "call pattern under a well-behaved model; prompt tokens are `len(prompt) // 4` estimates. "
        f"ToG: W=3, D=3 (bound 2·W·D+D+1 = {tog_bound}); ToG-I: up to 3 instructions, W=T, D=3 (bound {tog_i_bound}). "
        f"Offline Hits@1 (model=None, the methods' own offline deciders, MiniLM similarity) on the first {n_offline} of those questions.",
        "",
        "| method | LLM calls / q | max | calls 1-hop | 2-hop | 3-hop | prompt tokens / q | Hits@1 (scripted) | Hits@1 offline | offline 1/2/3-hop |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in rows.items():
        hop = r["by_hop"]
        off = r["offline_by_hop"]
        lines.append(
            f"| {name} | {r['calls']:.2f} | {r['max_calls']} | {hop[1]:.2f} | {hop[2]:.2f} | {hop[3]:.2f} | {r['tokens']:.0f} | "
            f"{r['scripted_hits']:.3f} | {r['offline_hits']:.3f} | {off[1]:.2f} / {off[2]:.2f} / {off[3]:.2f} |"
        )
    lines += ["", "Stop reasons with the scripted model: " + "; ".join(
        f"{name}: " + ", ".join(f"{k or 'answered'} {v}" for k, v in sorted(r["stops"].items())) for name, r in rows.items()
        if name != "RoG"), ""]
    tog, togi = rows.get("ToG"), rows.get("ToG-I")
    if tog and togi:
        change = {h: 100 * (togi["by_hop"][h] - tog["by_hop"][h]) / max(tog["by_hop"][h], 1e-9) for h in (1, 2, 3)}
        lines += [
            "Reading: RoG makes a fixed 2 calls (plan, answer). ToG's calls grow with the depth reached "
            "(relation pruning per beam entity, entity scoring per kept relation unless it has a single tail, one "
            "verification per depth; the verifier's braced answer is reused, so a verified question needs no answer "
            "call). ToG-I vs ToG calls per hop: " + ", ".join(f"{h}-hop {change[h]:+.0f}%" for h in (1, 2, 3)) + ". "
            "ToG-I's W=1 first round is cheaper per depth, but it pays one instruction call per question, one "
            "integration call per extra round, and restarts exploration from the topic entities in each round; with "
            "a model that already follows the right relation, ToG rarely wastes width, so the paper's 18-26% saving "
            "is not reproduced in this setting (it comes from questions ToG explores widely). Offline, ToG-I's "
            "instructions (a relation path grown greedily from the question) mostly help 3-hop questions.",
            "",
        ]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"), help="shared data folder (default ../shared/data)")
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--offline-n", type=int, default=200, help="questions for the offline Hits@1 (default: all n)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "benchmarks_llm_calls.md"))
    args = parser.parse_args(argv)
    if not (Path(args.data) / "metaqa" / "kb.txt").exists():
        print(f"bench_llm_calls: MetaQA data not found under {args.data} (expected metaqa/kb.txt); pass --data", file=sys.stderr)
        return 2
    text = run(args)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
