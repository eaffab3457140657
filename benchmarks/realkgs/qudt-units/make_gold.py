"""Gold answers of questions.jsonl: each question's ``sparql`` run with rdflib on the staged KG file.

    python benchmarks/realkgs/qudt-units/make_gold.py           # check: exit 1 when a stored answer differs
    python benchmarks/realkgs/qudt-units/make_gold.py --write   # rewrite ``answers`` from the queries

``answers`` holds every value of ``?answer`` as the KG writes it (a literal's lexical form, an IRI as text), sorted
(rdflib's result order changes from one process to the next); an unanswerable question's query returns nothing
and its ``answers`` is ``[]``. rdflib, not pyoxigraph as for the other KGs: pyoxigraph returns an ``xsd:decimal``
in its canonical form (``299792458`` for the KG's ``299792458.0``), not as the KG writes it, and one multiplier of
this KG (4.6e113) overflows its decimals. (rdflib prints a number from its value too, but for every number in
``answers`` that is the form the file writes.)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import rdflib

HERE = Path(__file__).resolve().parent
KG = HERE / "qudt_units_constants.ttl"
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
    store.parse(KG, format="turtle")
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
