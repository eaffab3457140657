"""Gold answers of questions.jsonl: each question's ``sparql`` run with pyoxigraph on the staged KG file.

    python benchmarks/realkgs/qudt-units/make_gold.py           # check: exit 1 when a stored answer differs
    python benchmarks/realkgs/qudt-units/make_gold.py --write   # rewrite ``answers`` from the queries

``answers`` holds every value of ``?answer`` as the KG writes it (a literal's lexical form, an IRI as text), in
result order; an unanswerable question's query returns nothing and its ``answers`` is ``[]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pyoxigraph

HERE = Path(__file__).resolve().parent
KG = HERE / "qudt_units_constants.ttl"
QUESTIONS = HERE / "questions.jsonl"


def gold(store: pyoxigraph.Store, sparql: str) -> list[str]:
    answers: list[str] = []
    for row in store.query(sparql):
        term = row["answer"]
        if term is not None and term.value not in answers:
            answers.append(term.value)
    return answers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the answers instead of checking them")
    args = parser.parse_args(argv)
    store = pyoxigraph.Store()
    store.bulk_load(path=str(KG), format=pyoxigraph.RdfFormat.TURTLE)
    questions = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    wrong = 0
    for question in questions:
        answers = gold(store, question["sparql"])
        if question["answerable"] != bool(answers):
            print(f"{question['id']}: answerable={question['answerable']} but the query gives {answers}", file=sys.stderr)
            wrong += 1
        if answers != question["answers"]:
            if not args.write:
                print(f"{question['id']}: stored {question['answers']}, query gives {answers}", file=sys.stderr)
                wrong += 1
            question["answers"] = answers
    if args.write:
        QUESTIONS.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), encoding="utf-8")
    print(f"{len(questions)} questions, {wrong} problem(s)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
