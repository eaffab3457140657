"""Gold answers of questions.jsonl: each question's ``sparql`` run with rdflib on the committed KG file.

    python benchmarks/realkgs/air-routes-europe/make_gold.py           # check: exit 1 when a stored answer differs
    python benchmarks/realkgs/air-routes-europe/make_gold.py --write   # rewrite ``answers`` from the queries

``answers`` holds every value of ``?answer`` as the KG writes it (a literal's lexical form: an elevation as
``1416``, a date as the plain string ``2021-07-31 18:29:16 UTC``; a count as the number), sorted (rdflib's result
order changes from one process to the next); an unanswerable question's query returns nothing and its ``answers`` is
``[]``. An airport, country or continent answer is given by both names the KG gives it: its ``rdfs:label`` (a code:
``"VIE"``, ``"AT"``, ``"EU"``) and its ``dtp:desc`` (its full name: ``"Vienna International Airport"``,
``"Austria"``, ``"Europe"``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # benchmarks/realkgs: the check every KG folder shares
from gold import check_rdflib  # noqa: E402

KG = HERE / "air_routes_europe.nt"
QUESTIONS = HERE / "questions.jsonl"


def main(argv: list[str] | None = None) -> int:
    return check_rdflib(KG, "nt", QUESTIONS, __doc__.split("\n\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())
