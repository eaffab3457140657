"""Evaluating methods on MetaQA: a seeded sample of questions per hop, scored three ways, as a table.

Uses the evaluation harness behind `kg-agent eval`: `evaluate()` runs a method over benchmark questions
(the graph is compiled once and reused), scores every answer under the strict convention and the ones
RoG and ToG published, and returns a results document (per-hop breakdown included). The "ceiling"
pseudo-method follows each question's gold relation path: what the KG and the metric allow at best.

Needs the MetaQA data (KG_AGENT_DATA, default ../shared/data: metaqa/kb.txt and metaqa/{1,2,3}-hop/).
Run from the project root (offline RoG; about a minute, mostly loading the 130k-triple KB):

    python cookbook/08_evaluate_on_metaqa.py          # 20 questions per hop
    python cookbook/08_evaluate_on_metaqa.py 100      # a bigger sample

The same from the command line, with a results file you can resume and compare (`kg-agent report`):

    kg-agent eval metaqa --questions ../shared/data/metaqa/1-hop/qa_dev.txt --sample 20 --seed 0 \\
        --kg ../shared/data/metaqa/kb.txt --method rog --out rog-1hop.json
"""

import os
import sys
from pathlib import Path

from kg_agent.eval import load_dataset
from kg_agent.eval.cli import format_table
from kg_agent.eval.datasets import sample_questions
from kg_agent.eval.runner import evaluate
from kg_agent.kg import open_kg

data = Path(os.environ.get("KG_AGENT_DATA", "../shared/data")) / "metaqa"
if not (data / "kb.txt").exists():
    sys.exit(f"MetaQA not found in {data}: set KG_AGENT_DATA to the folder holding metaqa/")
per_hop = int(sys.argv[1]) if len(sys.argv) > 1 else 20

questions = []
for hop in (1, 2, 3):  # dev questions whose gold answers the KB can reach, sampled with a fixed seed
    folder = data / f"{hop}-hop"
    dev = load_dataset("metaqa", folder / "qa_dev.txt", only_lines=folder / f"{hop}hop_dev_some_gold_reachable.idx")
    questions += sample_questions(dev, per_hop, seed=0)
print(f"{len(questions)} questions ({per_hop} per hop); loading the KB ...", flush=True)

kg = open_kg(data / "kb.txt")
results = [(method, evaluate(questions, method=method, kg=kg, progress=False)) for method in ("rog", "ceiling")]

print(format_table(results))  # metrics in percent
print(format_table(results, by_hop=True))
rog = results[0][1]
print(f"RoG: strict Hits@1 {rog['metrics']['strict']['hits@1']:.1f}%, {rog['seconds_per_question']:.2f} s per question")
