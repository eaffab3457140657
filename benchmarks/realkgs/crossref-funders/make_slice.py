"""Write ``crossref_funders_uk_canada.nt``: the funders of the United Kingdom and Canada from the Crossref Open Funder
Registry (CC0) as the repository ``inveniosoftware/invenio-openaire`` ships it
(``invenio_openaire/data/fundref_registry.rdf.gz``, the registry of 9 July 2018, RDF/XML, 289,484 triples).

    python benchmarks/realkgs/crossref-funders/make_slice.py /path/to/fundref_registry.rdf.gz

Kept: every funder (``skos:Concept``) whose ``svf:country`` is the United Kingdom (``http://sws.geonames.org/2635167/``)
or Canada (``http://sws.geonames.org/6251999/``), every triple with such a funder as its subject, and every triple
of its SKOS-XL label nodes (``skosxl:prefLabel`` / ``skosxl:altLabel`` -> ``skosxl:Label`` -> ``skosxl:literalForm``);
the concept scheme's ``skos:hasTopConcept`` triples for the kept funders. Dropped: a triple from a kept funder to a
funder of another country (``skos:broader``/``narrower``, ``svf:affilWith``, ``renamedAs``, ``dct:replaces``...: its
object would be a node with no name), and everything about the other countries' funders. Nothing else is changed;
the output is N-Triples, one triple a line, sorted, so that the file is the same on every run.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import rdflib
from rdflib.namespace import RDF, SKOS

HERE = Path(__file__).resolve().parent
OUT = HERE / "crossref_funders_uk_canada.nt"
SVF = rdflib.Namespace("http://data.crossref.org/fundingdata/xml/schema/grant/grant-1.2/")
SKOSXL = rdflib.Namespace("http://www.w3.org/2008/05/skos-xl#")
COUNTRIES = {rdflib.URIRef("http://sws.geonames.org/2635167/"), rdflib.URIRef("http://sws.geonames.org/6251999/")}


def main(argv: list[str]) -> int:
    source = rdflib.Graph()
    with gzip.open(argv[1], "rb") as data:
        source.parse(data, format="xml")
    funders = set(source.subjects(RDF.type, SKOS.Concept))
    kept = {f for f in funders if set(source.objects(f, SVF.country)) & COUNTRIES}
    labels = {label for f in kept for p in (SKOSXL.prefLabel, SKOSXL.altLabel) for label in source.objects(f, p)}
    out = rdflib.Graph()
    for s, p, o in source:
        if s in kept:
            if o in funders and o not in kept:
                continue
            out.add((s, p, o))
        elif s in labels or (p == SKOS.hasTopConcept and o in kept):
            out.add((s, p, o))
    lines = sorted(line for line in out.serialize(format="nt", encoding="utf-8").decode("utf-8").splitlines() if line)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{OUT.name}: {len(lines)} triples, {len(kept)} funders, {len(labels)} labels")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
