"""Gold answers of questions.jsonl: each question's ``sparql`` run with pyoxigraph on the staged KG file.

    python benchmarks/realkgs/iswc-conferences/make_gold.py           # check: exit 1 when a stored answer differs
    python benchmarks/realkgs/iswc-conferences/make_gold.py --write   # rewrite ``answers`` from the queries

``answers`` holds every value of ``?answer`` as the KG writes it (a literal's lexical form, an IRI as text), in
result order; an unanswerable question's query returns nothing and its ``answers`` is ``[]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyoxigraph

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # benchmarks/realkgs: the check every KG folder shares
from gold import check_or_write  # noqa: E402

KG = HERE / "iswc_2001-2005.ttl"
QUESTIONS = HERE / "questions.jsonl"


def gold(store: pyoxigraph.Store, sparql: str) -> list[str]:
    answers: list[str] = []
    for row in store.query(sparql):
        term = row["answer"]
        if term is not None and term.value not in answers:
            answers.append(term.value)
    return answers


def main(argv: list[str] | None = None) -> int:
    store = pyoxigraph.Store()
    store.bulk_load(path=str(KG), format=pyoxigraph.RdfFormat.TURTLE)
    return check_or_write(QUESTIONS, lambda sparql: gold(store, sparql), __doc__.split("\n\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())
