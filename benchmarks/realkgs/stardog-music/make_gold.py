"""Gold answers of questions.jsonl: each question's ``sparql`` run with rdflib on the committed KG file.

    python benchmarks/realkgs/stardog-music/make_gold.py           # check: exit 1 when a stored answer differs
    python benchmarks/realkgs/stardog-music/make_gold.py --write   # rewrite ``answers`` from the queries

``answers`` holds every value of ``?answer`` as the KG writes it (a literal's lexical form: a song's length in
seconds as ``301``, a release date as ``1991-09-24``; a count as the number), sorted (rdflib's result order changes
from one process to the next); an unanswerable question's query returns nothing and its ``answers`` is ``[]``. An
album, song, artist, band or person answer is given by its ``:name`` (the only name the KG gives it, often with a
Wikipedia disambiguator: ``"Nevermind"``, ``"Polly (Nirvana song)"``, ``"Chicago (band)"``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # benchmarks/realkgs: the check every KG folder shares
from gold import check_rdflib  # noqa: E402

KG = HERE / "stardog_music.ttl"
QUESTIONS = HERE / "questions.jsonl"


def main(argv: list[str] | None = None) -> int:
    return check_rdflib(KG, "turtle", QUESTIONS, __doc__.split("\n\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())
