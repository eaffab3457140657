"""Write ``stardog_music.ttl``: Stardog's tutorial music data set (a simplified subset of DBpedia, see ``ORIGIN.md``)
with the schema published beside it, as one Turtle file.

    python benchmarks/realkgs/stardog-music/make_slice.py /path/to/stardog-tutorials/music/

The source folder holds ``music.ttl.gz`` (the data: albums, songs, artists, bands, songwriters, producers) and
``music_schema.ttl`` (its RDFS schema: class and property labels and comments, domains, ranges, two subclass
axioms). Nothing is dropped: the whole data set (41,099 triples) is within what the card carries, so the "slice" is
the union of the two files, written verbatim one after the other (a Turtle document may declare its prefixes again),
so every IRI and literal keeps the source's lexical form. The script checks the result parses and holds exactly the
union of the two files' triples.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

import rdflib

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the folder of music.ttl.gz and music_schema.ttl")
    parser.add_argument("--out", type=Path, default=HERE / "stardog_music.ttl")
    args = parser.parse_args(argv)
    data = gzip.decompress((args.folder / "music.ttl.gz").read_bytes()).decode("utf-8")
    schema = (args.folder / "music_schema.ttl").read_text(encoding="utf-8")
    parts = [rdflib.Graph().parse(data=text, format="turtle") for text in (data, schema)]
    text = data.rstrip("\n") + "\n\n" + schema
    args.out.write_text(text, encoding="utf-8")
    written = rdflib.Graph().parse(args.out, format="turtle")
    union = set(parts[0]) | set(parts[1])
    if set(written) != union:
        print(f"{args.out} holds {len(written)} triples, the sources' union {len(union)}", file=sys.stderr)
        return 1
    print(f"data {len(parts[0])} + schema {len(parts[1])} triples -> {len(written)} in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
