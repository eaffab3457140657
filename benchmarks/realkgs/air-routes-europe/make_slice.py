"""Cut ``air_routes_europe.nt`` from Kelvin Lawrence's air-routes graph as the aws/graph-notebook repository publishes
it in RDF (three SPARQL ``INSERT DATA`` files, see ``ORIGIN.md``): the airports of one continent, the routes between
them, and the countries and the continent that contain them.

    python benchmarks/realkgs/air-routes-europe/make_slice.py /path/to/airports/ [--continent Europe]

The source is SPARQL Update text whose body is TriG: every triple sits in a named graph (nodes in
``v:DefaultNamedGraph``; each route and each ``contains`` edge in a graph of its own, named by an IRI such as
``r:3747``, and the route's distance is written on that graph name: ``r:3747 dtp:dist 811``). A Neptune SPARQL
query sees the union of the graphs as its default graph; this file is that union written as N-Triples, graph
names dropped. Kept:

- every triple about the continent named ``--continent`` (its ``dtp:desc``) and the ``op:contains`` edges from it
  to its airports;
- every triple about those airports (type, label, code, ICAO code, name, city, region, country code, runways,
  longest runway, elevation, latitude, longitude);
- every ``op:route`` edge whose two ends are both kept airports;
- every triple about the countries that ``op:contains`` a kept airport, and those ``op:contains`` edges;
- the version node (``c:Version``: the data's version, author and date).

Dropped: the other continents, countries and airports and every edge touching them; and the ``dtp:dist``
triples, whose subjects are graph names (the N-Triples union cannot link a distance to its route). Terms are
written by pyoxigraph from the parsed values, which keep the source's lexical forms (the script checks every
literal of the output occurs, quoted, in the source text). Lines are written sorted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pyoxigraph as ox

HERE = Path(__file__).resolve().parent
AR = "http://kelvinlawrence.net/air-routes/"
CONTAINS, ROUTE = AR + "objectProperty/contains", AR + "objectProperty/route"
DESC, DIST = AR + "datatypeProperty/desc", AR + "datatypeProperty/dist"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
CLASS = AR + "class/"
SOURCES = ("0_nodes.txt", "1_edges_part_1.txt", "2_edges_part_2.txt")


def trig_body(update: str) -> str:
    """The TriG inside ``INSERT DATA { ... }`` (the PREFIX lines before it are TriG too)."""
    start = update.index("INSERT DATA {")
    return update[:start] + update[start + len("INSERT DATA {"):update.rstrip().rfind("}")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the folder of 0_nodes.txt, 1_edges_part_1.txt, 2_edges_part_2.txt")
    parser.add_argument("--continent", default="Europe")
    parser.add_argument("--out", type=Path, default=HERE / "air_routes_europe.nt")
    args = parser.parse_args(argv)
    texts = [(args.folder / name).read_text(encoding="utf-8") for name in SOURCES]
    quads = [q for text in texts for q in ox.parse(trig_body(text).encode("utf-8"), format=ox.RdfFormat.TRIG)]
    triples = {ox.Triple(q.subject, q.predicate, q.object) for q in quads}

    def typed(cls: str) -> set[ox.NamedNode]:
        return {t.subject for t in triples if t.predicate.value == RDF_TYPE and t.object.value == CLASS + cls}

    continents = {t.subject for t in triples if t.predicate.value == DESC and t.object.value == args.continent} \
        & typed("Continent")
    if len(continents) != 1:
        print(f"no single continent named {args.continent!r}", file=sys.stderr)
        return 1
    airports = {t.object for t in triples if t.predicate.value == CONTAINS and t.subject in continents}
    countries = {t.subject for t in triples if t.predicate.value == CONTAINS and t.object in airports} & typed("Country")
    described = continents | airports | countries | typed("Version")
    kept, dist = set(), 0
    for t in triples:
        if t.predicate.value == DIST:
            dist += 1
        elif t.predicate.value == ROUTE:
            if t.subject in airports and t.object in airports:
                kept.add(t)
        elif t.predicate.value == CONTAINS:
            if t.object in airports and t.subject in described:
                kept.add(t)
        elif t.subject in described:
            kept.add(t)
    source_text = "\n".join(texts)
    for t in kept:
        if isinstance(t.object, ox.Literal) and f'"{t.object.value}"' not in source_text:
            print(f"literal {t.object} is not written so in the source", file=sys.stderr)
            return 1
    lines = sorted(f"{t} .\n" for t in kept)
    args.out.write_text("".join(lines), encoding="utf-8")
    print(f"{len(quads)} quads read ({len(triples)} distinct triples); kept {len(lines)} triples: "
          f"{len(airports)} airports, {len(countries)} countries, {len(continents)} continent; "
          f"{dist} dtp:dist triples dropped -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
