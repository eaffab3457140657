"""Gold answers of questions.jsonl: each question's ``sparql`` run with rdflib on the committed KG file.

    python benchmarks/realkgs/ies-world-regions/make_gold.py           # check: exit 1 when a stored answer differs
    python benchmarks/realkgs/ies-world-regions/make_gold.py --write   # rewrite ``answers`` from the queries

``answers`` holds every value of ``?answer`` (a literal's lexical form as rdflib reads it; a count as the number),
sorted (rdflib's result order changes from one process to the next); an unanswerable question's query returns nothing
and its ``answers`` is ``[]``. A funder is given by the ``skosxl:literalForm`` of its ``skosxl:prefLabel`` node
(``"Medical Research Council"``), an abbreviation by that of its ``skosxl:altLabel`` flagged ``abbrevName``. A date
answer is the KG's ``dct:created``/``dct:modified`` string (``2011-05-04T11:42:53.000000``, untyped) or its calendar
day (``2011-05-04``), each accepted.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # benchmarks/realkgs: the check every KG folder shares
from gold import check_rdflib  # noqa: E402

KG = HERE / "ies_world_regions.ttl"
QUESTIONS = HERE / "questions.jsonl"


def main(argv: list[str] | None = None) -> int:
    return check_rdflib(KG, "turtle", QUESTIONS, __doc__.split("\n\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())
