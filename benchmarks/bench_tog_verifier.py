"""Offline ToG: how the verifier's margin trades MetaQA accuracy against 2WikiMultihopQA accuracy.

    python benchmarks/bench_tog_verifier.py --data ../shared/data --margins 0,0.1

The offline verifier (:class:`kg_agent.tools.tog.verify.ScoreVerifier`) stops when the chain's relation path
scores at least as well (plus ``margin``) as its best one-relation extension under the relation-path scorer
shared with relation pruning (:class:`kg_agent.tools.shared.path_scoring.RelationPathScorer`). A larger margin
favours stopping: right for 1-hop MetaQA ("what films did [ENT] star in"), wrong for 2Wiki chains whose next
relation the question names only in other words ("Where did [ENT]'s father die?" needs ``place of death``).

For each margin: offline ToG (W=3, D=3, everything else default) on the 194 2Wiki dev questions (strict
exact match, full KG, dataset topic entities) and on ``--sample`` seeded MetaQA dev questions per hop
(from the ``*_dev_some_gold_reachable.idx`` lines; Hits@1 = first answer is a gold answer). Prints a
Markdown table.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--margins", default="0,0.1", help="comma-separated verifier margins")
    parser.add_argument("--sample", type=int, default=100, help="MetaQA dev questions per hop")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from bench_tog2 import load_triples

    from kg_agent.eval.datasets import load_metaqa, load_twowiki
    from kg_agent.eval.metrics import score_question
    from kg_agent.graphs.tog import create_tog_graph
    from kg_agent.kg import kg_from_triples, open_kg
    from kg_agent.tools.tog.verify import ScoreVerifier

    data = Path(args.data)
    if not (data / "twowiki").is_dir() or not (data / "metaqa").is_dir():
        print(f"bench_tog_verifier: needs {data}/twowiki and {data}/metaqa (set --data)", file=sys.stderr)
        return 2
    wiki_kg = kg_from_triples(load_triples(data / "twowiki" / "kg_evidence_triples.jsonl"), name="twowiki")
    wiki = load_twowiki(data / "twowiki" / "questions_dev.jsonl")
    metaqa_kg = open_kg(data / "metaqa" / "kb.txt")
    metaqa = {}
    for hop in (1, 2, 3):
        folder = data / "metaqa" / f"{hop}-hop"
        questions = load_metaqa(folder / "qa_dev.txt", only_lines=folder / f"{hop}hop_dev_some_gold_reachable.idx", hop=hop)
        metaqa[hop] = random.Random(args.seed).sample(list(questions), args.sample)

    def run(kg, questions, margin: float, score) -> float:
        verifier = ScoreVerifier(kg, margin=margin)
        app = create_tog_graph(kg, verifier=verifier).compile()
        hits = 0
        for q in questions:
            state = app.invoke({"question": q.question, "topic_entities": list(q.topic_entities)}, {"recursion_limit": 100})
            hits += score([a["answer"] for a in state.get("answers") or []], q)
        return 100 * hits / len(questions)

    def exact(answers, q) -> bool:
        return score_question(answers, None, q.answers)["strict"]["exact_match"] > 0

    def hit_at_1(answers, q) -> bool:
        return bool(answers) and answers[0] in q.answers

    print(f"| verifier margin | 2Wiki EM (n={len(wiki)}) | MetaQA 1-hop Hits@1 | 2-hop | 3-hop "
          f"(n={args.sample} each) | seconds |")
    print("|---:|---:|---:|---:|---:|---:|")
    for margin in (float(m) for m in args.margins.split(",")):
        start = time.perf_counter()
        row = [run(wiki_kg, wiki, margin, exact)] + [run(metaqa_kg, metaqa[hop], margin, hit_at_1) for hop in (1, 2, 3)]
        print(f"| {margin:g} | " + " | ".join(f"{v:.1f}" for v in row) + f" | {time.perf_counter() - start:.0f} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
