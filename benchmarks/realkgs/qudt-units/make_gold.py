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

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # benchmarks/realkgs: the check every KG folder shares
from gold import check_rdflib  # noqa: E402

KG = HERE / "qudt_units_constants.ttl"
QUESTIONS = HERE / "questions.jsonl"


def main(argv: list[str] | None = None) -> int:
    return check_rdflib(KG, "turtle", QUESTIONS, __doc__.split("\n\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())
