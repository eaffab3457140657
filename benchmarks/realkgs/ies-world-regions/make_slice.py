"""Write ``ies_world_regions.ttl``: Telicent's four published Turtle files of the countries of the world and their
subdivisions in the UK's IES4 ontology (``regions_of_the_world/{countries,country_subdivisions1,
country_subdivisions2,country_subdivisions3}.ttl`` of the repository ``telicent-oss/ies-examples``), one after the
other, verbatim (each declares its prefixes again, which Turtle allows), and check that the result holds exactly the
union of their triples. Nothing is dropped.

    python benchmarks/realkgs/ies-world-regions/make_slice.py /path/to/ies-examples/regions_of_the_world/
"""

from __future__ import annotations

import sys
from pathlib import Path

import rdflib

HERE = Path(__file__).resolve().parent
OUT = HERE / "ies_world_regions.ttl"
PARTS = ["countries.ttl", "country_subdivisions1.ttl", "country_subdivisions2.ttl", "country_subdivisions3.ttl"]


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
