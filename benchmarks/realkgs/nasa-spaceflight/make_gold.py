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

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # benchmarks/realkgs: the check every KG folder shares
from gold import check_rdflib  # noqa: E402

KG = HERE / "nasa_spaceflight_1957-1969.nt"
QUESTIONS = HERE / "questions.jsonl"


def main(argv: list[str] | None = None) -> int:
    return check_rdflib(KG, "nt", QUESTIONS, __doc__.split("\n\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())
