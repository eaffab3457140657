"""Write ``europarl_questions_2022.ttl``: the European Parliament's four published Turtle files of parliamentary
questions of 2022 (``data/parliamentary-questions/data_v1_questions-by-year_{0,100,200,300}_100_2022.ttl`` of the
repository ``europarl/open-data-beta-testing``), one after the other, verbatim (each declares its prefixes again,
which Turtle allows), and check that the result holds exactly the union of their triples. Nothing is dropped.

    python benchmarks/realkgs/europarl-questions/make_slice.py /path/to/open-data-beta-testing/data/parliamentary-questions/
"""

from __future__ import annotations

import sys
from pathlib import Path

import rdflib

HERE = Path(__file__).resolve().parent
OUT = HERE / "europarl_questions_2022.ttl"
PARTS = [f"data_v1_questions-by-year_{start}_100_2022.ttl" for start in (0, 100, 200, 300)]


def main(argv: list[str]) -> int:
    folder = Path(argv[1])
    texts = [(folder / name).read_text(encoding="utf-8") for name in PARTS]
    OUT.write_text("".join(text if text.endswith("\n") else text + "\n" for text in texts), encoding="utf-8")
    union = rdflib.Graph()
    for name in PARTS:
        union.parse(folder / name, format="turtle")
    joined = rdflib.Graph()
    joined.parse(OUT, format="turtle")
    if set(union) != set(joined):
        print("the joined file differs from the union of the parts", file=sys.stderr)
        return 1
    print(f"{OUT.name}: {len(joined)} triples")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
