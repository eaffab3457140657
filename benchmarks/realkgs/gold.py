"""The gold-answer check every committed real KG's ``make_gold.py`` runs: each question's ``sparql`` answered on the KG
file, compared with the ``answers`` stored in ``questions.jsonl`` (or written there with ``--write``).

A KG folder's script says how its KG file is read and how a SPARQL result is written as text (the engine matters:
rdflib keeps a decimal as the file writes it, pyoxigraph in its canonical form); this module does the rest."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import rdflib


def check_or_write(questions_path: Path, answers_of: Callable[[str], list[str]], description: str,
                   argv: list[str] | None = None) -> int:
    """Compare (or with ``--write`` rewrite) every question's stored ``answers`` with ``answers_of(sparql)``, and
    ``answerable`` with whether there are any; problems go to stderr. The exit status: 1 when one was found."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--write", action="store_true", help="rewrite the answers instead of checking them")
    args = parser.parse_args(argv)
    questions = [json.loads(line) for line in questions_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    wrong = 0
    for question in questions:
        answers = answers_of(question["sparql"])
        if question["answerable"] != bool(answers):
            print(f"{question['id']}: answerable={question['answerable']} but the query gives {answers}", file=sys.stderr)
            wrong += 1
        if answers != question["answers"]:
            if not args.write:
                print(f"{question['id']}: stored {question['answers']}, query gives {answers}", file=sys.stderr)
                wrong += 1
            question["answers"] = answers
    if args.write:
        questions_path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), encoding="utf-8")
    print(f"{len(questions)} questions, {wrong} problem(s)")
    return 1 if wrong else 0


def rdflib_answers(graph: rdflib.Graph, sparql: str) -> list[str]:
    """Every distinct value of ``?answer`` as the KG file writes it (rdflib keeps a literal's lexical form), sorted:
    rdflib's result order changes from one process to the next."""
    answers: list[str] = []
    for row in graph.query(sparql):
        term = row.answer  # type: ignore[union-attr]
        if term is not None and str(term) not in answers:
            answers.append(str(term))
    return sorted(answers)


def check_rdflib(kg_file: Path, rdf_format: str, questions_path: Path, description: str,
                 argv: list[str] | None = None) -> int:
    """:func:`check_or_write` with each question answered by rdflib on ``kg_file``."""
    graph = rdflib.Graph()
    graph.parse(kg_file, format=rdf_format)
    return check_or_write(questions_path, lambda sparql: rdflib_answers(graph, sparql), description, argv)
