"""Cut ``nasa_spaceflight_1957-1972.nt`` from the published NASA space flight dump (``nasa.nt.gz`` of the Empire
repository, see ``ORIGIN.md``): the launches of the years 1957-1972 and everything the dump says about them.

    python benchmarks/realkgs/nasa-spaceflight/make_slice.py /path/to/nasa.nt.gz [--first 1957 --last 1972]

Kept, line by line and byte for byte (N-Triples lines are copied, never re-serialised, so every literal keeps the
lexical form and datatype the dump writes, e.g. the untyped masses ``"28801.0"``):

- every ``space:Launch`` whose ``space:launched`` date falls in the years ``--first``..``--last``, in full;
- every ``space:Spacecraft`` whose ``space:launch`` is one of them, in full;
- every ``foaf:Image`` that ``foaf:depicts`` one of those spacecraft, in full;
- every other subject of the dump (missions, mission roles, people, launch sites, disciplines, the VoID dataset
  description, the two BBC programmes about Apollo), in full.

Dropped: launches outside the years (among them the 52 launches whose ``space:launched`` is the ill-typed empty
``""^^xsd:date`` and the one dated 1900), their spacecraft and images, the 114 triples about the files of the old
Talis store's web site (``http://api.talis.com/stores/space/items/...``: etags and content types of CSS and
JavaScript files, not data), and any triple of a kept subject whose object is a dropped launch or spacecraft (the
script prints how many). Lines are written sorted, so the output does not depend on the dump's order.
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPACE = "http://purl.org/net/schemas/space/"
RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
FOAF_DEPICTS = "<http://xmlns.com/foaf/0.1/depicts>"
TALIS_ITEMS = "<http://api.talis.com/stores/space/items/"
LINE = re.compile(r"^(<[^>]*>|_:\S+)\s+(<[^>]*>)\s+(.*\S)\s*\.\s*$")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dump", type=Path, help="nasa.nt or nasa.nt.gz")
    parser.add_argument("--first", type=int, default=1957)
    parser.add_argument("--last", type=int, default=1972)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    out = args.out or HERE / f"nasa_spaceflight_{args.first}-{args.last}.nt"
    opener = gzip.open if args.dump.suffix == ".gz" else open
    with opener(args.dump, "rt", encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]

    by_subject: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    unparsed = 0
    for line in lines:
        match = LINE.match(line)
        if match is None:
            unparsed += 1
            continue
        subject, predicate, obj = match.groups()
        by_subject[subject].append((predicate, obj, line))

    def typed(subject: str, cls: str) -> bool:
        return any(p == RDF_TYPE and o == f"<{SPACE}{cls}>" for p, o, _ in by_subject[subject])

    launches, dropped_launches = set(), set()
    for subject in by_subject:
        if typed(subject, "Launch"):
            years = [o[1:5] for p, o, _ in by_subject[subject] if p == f"<{SPACE}launched>"]
            keep = any(y.isdigit() and args.first <= int(y) <= args.last for y in years)
            (launches if keep else dropped_launches).add(subject)
    spacecraft, dropped_spacecraft = set(), set()
    for subject in by_subject:
        if typed(subject, "Spacecraft"):
            on = {o for p, o, _ in by_subject[subject] if p == f"<{SPACE}launch>"}
            (spacecraft if on & launches else dropped_spacecraft).add(subject)
    images = {s for s, triples in by_subject.items()
              if any(p == FOAF_DEPICTS for p, _, _ in triples)
              and all(o in spacecraft for p, o, _ in triples if p == FOAF_DEPICTS)}
    dropped_images = {s for s, triples in by_subject.items()
                      if any(p == FOAF_DEPICTS for p, _, _ in triples)} - images
    dropped_subjects = dropped_launches | dropped_spacecraft | dropped_images
    dropped_objects = dropped_launches | dropped_spacecraft

    kept: set[str] = set()
    talis = dangling = 0
    for subject, triples in by_subject.items():
        if subject in dropped_subjects:
            continue
        if subject.startswith(TALIS_ITEMS):
            talis += len(triples)
            continue
        for _, obj, line in triples:
            if obj in dropped_objects or obj in dropped_images:
                dangling += 1
                continue
            kept.add(line)
    out.write_text("".join(line + "\n" for line in sorted(kept)), encoding="utf-8")
    print(f"{len(lines)} lines read ({unparsed} not parsed); kept {len(kept)} triples: {len(launches)} launches, "
          f"{len(spacecraft)} spacecraft, {len(images)} images; dropped {len(dropped_launches)} launches, "
          f"{len(dropped_spacecraft)} spacecraft, {len(dropped_images)} images, {talis} Talis web-site triples, "
          f"{dangling} triples pointing at dropped things -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
