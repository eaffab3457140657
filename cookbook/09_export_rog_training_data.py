"""Exporting RoG training data: instruction-tuning sets for your own planner and reasoner.

RoG fine-tunes an LLM on two tasks (paper Section 4.3): *planning* (question -> relation paths that lead
from its entities to its answers, the relation paths of the shortest KG paths) and *reasoning*
(question + reasoning paths -> answers). `kg-agent export-rog-data` builds both from question/answer
pairs and a KG, as `planning.jsonl` and `reasoning.jsonl` of {"id", "instruction", "output"} records,
ready for any supervised fine-tuning tool.

Run from the project root (a few questions of our own over the bundled sample KG):

    python cookbook/09_export_rog_training_data.py

The same on MetaQA's training questions (or RoG's WebQSP/CWQ JSONL with `rog-jsonl`):

    kg-agent export-rog-data metaqa --questions ../shared/data/metaqa/2-hop/qa_dev.txt \\
        --kg ../shared/data/metaqa/kb.txt --out-dir rog-data --limit 1000
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

QUESTIONS = """\
who directed [Forrest Gump]\tRobert Zemeckis
what did [Winston Groom] write\tForrest Gump
who directed the films written by [Winston Groom]\tRobert Zemeckis
which actors starred in [Apollo 13]\tBill Paxton|Gary Sinise|Kevin Bacon|Tom Hanks
"""  # MetaQA's format: the question with [topic entities], a tab, the answers separated by |

with tempfile.TemporaryDirectory() as tmp:
    questions = Path(tmp) / "qa_train.txt"
    questions.write_text(QUESTIONS, encoding="utf-8")
    out_dir = Path(tmp) / "rog-data"
    # = `kg-agent export-rog-data metaqa --questions ... --out-dir ...` (no --kg: the bundled sample KG)
    subprocess.run([sys.executable, "-m", "kg_agent.cli", "export-rog-data", "metaqa",
                    "--questions", str(questions), "--out-dir", str(out_dir)], check=True)
    planning, reasoning = ([json.loads(line) for line in (out_dir / name).read_text(encoding="utf-8").splitlines()]
                           for name in ("planning.jsonl", "reasoning.jsonl"))

print(f"\nplanning.jsonl: {len(planning)} records (instruction -> output)")
for record in planning:
    print(f"  {record['instruction'].split(': ', 1)[1]!r} -> {record['output']}")
print(f"\nreasoning.jsonl: {len(reasoning)} records; one of them:")
print(json.dumps(reasoning[2], indent=2, ensure_ascii=False))
