"""Gold answers of questions.jsonl: each question's ``sparql`` run with rdflib on the committed KG file.

    python benchmarks/realkgs/europarl-questions/make_gold.py           # check: exit 1 when a stored answer differs
    python benchmarks/realkgs/europarl-questions/make_gold.py --write   # rewrite ``answers`` from the queries

``answers`` holds every value of ``?answer`` (a literal's lexical form as rdflib reads it; a count as the number),
sorted (rdflib's result order changes from one process to the next); an unanswerable question's query returns nothing
and its ``answers`` is ``[]``. A member of the European Parliament is given by its ``rdfs:label`` (``"Isabel Santos"``),
an institution by its English ``skos:prefLabel`` (``"European Commission"``), a parliamentary question by its English
``dcterms:title``. A date answer is the KG's ``xsd:dateTime`` (UTC, as stored: ``2022-01-04T23:00:00Z`` is midnight
of 5 January in Brussels) written four ways, each accepted: as rdflib prints it (``+00:00``), in the canonical ``Z``
form, as the file writes it (``.000Z``), and its calendar day (``2022-01-04``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # benchmarks/realkgs: the check every KG folder shares
from gold import check_rdflib  # noqa: E402

KG = HERE / "europarl_questions_2022.ttl"
QUESTIONS = HERE / "questions.jsonl"


def main(argv: list[str] | None = None) -> int:
    return check_rdflib(KG, "turtle", QUESTIONS, __doc__.split("\n\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())
