"""Gold answers of questions.jsonl: each question's ``sparql`` run with rdflib on the committed KG file.

    python benchmarks/realkgs/nasa-spaceflight/make_gold.py           # check: exit 1 when a stored answer differs
    python benchmarks/realkgs/nasa-spaceflight/make_gold.py --write   # rewrite ``answers`` from the queries

``answers`` holds every value of ``?answer`` as the KG writes it (a literal's lexical form: a date as
``1957-10-04``, a mass as the untyped string ``508.3``; a count as the number), sorted (rdflib's result order
changes from one process to the next); an unanswerable question's query returns nothing and its ``answers`` is
``[]``. Names are the ones the KG gives: ``foaf:name`` for spacecraft and people, ``rdfs:label`` for disciplines,
launch sites and mission roles, ``dc:title`` for missions.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import rdflib

HERE = Path(__file__).resolve().parent
KG = HERE / "nasa_spaceflight_1957-1969.nt"
QUESTIONS = HERE / "questions.jsonl"


def gold(graph: rdflib.Graph, sparql: str) -> list[str]:
    answers: list[str] = []
    for row in graph.query(sparql):
        term = row.answer  # type: ignore[union-attr]
        if term is not None and str(term) not in answers:
            answers.append(str(term))
    return sorted(answers)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the answers instead of checking them")
    args = parser.parse_args(argv)
    store = rdflib.Graph()
    store.parse(KG, format="nt")
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
