"""How ``qudt_units_constants.ttl`` was cut from QUDT's source vocabularies (see ORIGIN.md).

    python benchmarks/realkgs/qudt-units/make_slice.py SRC OUT.ttl

``SRC`` is a folder holding ``VOCAB_QUDT-UNITS-ALL.ttl``, ``VOCAB_QUDT-CONSTANTS.ttl``,
``VOCAB_QUDT-QUANTITY-KINDS-ALL.ttl`` and ``VOCAB_QUDT-SYSTEM-OF-UNITS-ALL.ttl`` (from ``src/main/rdf/vocab/`` of
``qudt/qudt-public-repo``). Kept in full (the subject's whole Turtle block, with the blank nodes nested in it): the 33
quantity kinds of ``FIELDS``, every unit that is a unit for one of them (``qudt:unitForQuantityKind`` /
``qudt:hasQuantityKind``), every physical constant with its value node, the units those values are given in and the
quantity kinds the constants have, and the ten systems of units. Every other IRI these reference that the sources
describe keeps the lines of its block that give its ``rdf:type``, ``rdfs:label`` and ``qudt:symbol`` (one hop).

The blocks are copied as text, so every literal keeps the lexical form and datatype the sources write: rdflib
(7.6) reads numbers into Python values and writes them back from those (``2.99792458E8`` comes out ``2.997925e+08``,
a decimal ``0.0000000000000015`` comes out ``1.5E-15``, which Turtle reads as a double), and Oxigraph writes
decimals canonical (``299792458.0`` -> ``299792458``). rdflib only chooses the subjects. The script checks that the
result parses to the same graph as the rdflib selection.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import rdflib
from rdflib import BNode, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import RDF, RDFS

QUDT = rdflib.Namespace("http://qudt.org/schema/qudt/")
QUANTITYKIND = rdflib.Namespace("http://qudt.org/vocab/quantitykind/")
SOURCES = ("VOCAB_QUDT-UNITS-ALL", "VOCAB_QUDT-CONSTANTS", "VOCAB_QUDT-QUANTITY-KINDS-ALL",
           "VOCAB_QUDT-SYSTEM-OF-UNITS-ALL")
FIELDS = ("Length", "Mass", "Time", "Area", "Volume", "Speed", "Velocity", "Acceleration", "Force", "Pressure",
          "ForcePerArea", "Energy", "Power", "Temperature", "ThermodynamicTemperature", "Frequency", "ElectricCurrent",
          "Voltage", "ElectricCharge", "Resistance", "Capacitance", "Density", "AmountOfSubstance",
          "LuminousIntensity", "PlaneAngle", "SolidAngle", "MagneticFluxDensity", "Activity", "AbsorbedDose",
          "DoseEquivalent", "DynamicViscosity", "KinematicViscosity", "Torque")
NAMING_LINES = ("a ", "rdfs:label ", "qudt:symbol ")
PREFIX = re.compile(r"@prefix\s+([\w-]*):\s*<([^>]*)>\s*\.")


def select(g: rdflib.Graph) -> tuple[set, set]:
    """The subjects kept in full, and the referenced ones kept by their naming lines."""
    fields = {QUANTITYKIND[k] for k in FIELDS}
    units = {u for u in g.subjects(RDF.type, QUDT.Unit)
             if any((u, p, k) in g for k in fields for p in (QUDT.unitForQuantityKind, QUDT.hasQuantityKind))}
    constants = set(g.subjects(RDF.type, QUDT.PhysicalConstant))
    values = {v for c in constants for v in g.objects(c, QUDT.quantityValue)}
    units |= {u for v in values for u in g.objects(v, QUDT.hasUnit)}
    kinds = fields | {k for c in constants for k in g.objects(c, QUDT.hasQuantityKind)}
    full = units | constants | values | kinds | set(g.subjects(RDF.type, QUDT.SystemOfUnits))
    kept: set = set()

    def describe(node) -> None:
        for triple in g.triples((node, None, None)):
            kept.add(triple)
            if isinstance(triple[2], BNode):
                describe(triple[2])

    for node in full:
        describe(node)
    referenced = {o for (_, p, o) in kept
                  if isinstance(o, URIRef) and p != RDF.type and o not in full and (o, None, None) in g}
    return full, referenced


def blocks(text: str, prefixes: dict[str, str]) -> dict[str, list[str]]:
    """``{subject IRI: the lines of its top-level Turtle block}`` of a source file (one subject a block, starting
    at column 0, one predicate-object a line, as QUDT writes its files)."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    in_long_string = False
    for line in text.splitlines():
        if not in_long_string and line and not line[0].isspace() and not line.startswith(("@prefix", "#")):
            token = line.split()[0]
            if token.startswith("<"):
                iri = token.strip("<>")
            else:
                prefix, _, local = token.partition(":")
                iri = prefixes[prefix] + local
            current = found.setdefault(iri, [])
        if current is not None and (line.strip() or in_long_string):
            current.append(line)
        if line.count('"""') % 2:
            in_long_string = not in_long_string
    return found


def naming_block(lines: list[str]) -> list[str]:
    """A block cut to its subject line and its type, label and symbol lines."""
    kept = []
    in_long_string = False
    for line in lines[1:]:
        if not in_long_string and line.strip().startswith(NAMING_LINES):
            kept.append(line.strip().rstrip(" ;."))
        if line.count('"""') % 2:
            in_long_string = not in_long_string
    return [lines[0]] + [f"  {line} ;" for line in kept[:-1]] + [f"  {kept[-1]} ."]


def main(src: Path, out: Path) -> None:
    g = rdflib.Graph()
    texts = {name: (src / f"{name}.ttl").read_text(encoding="utf-8") for name in SOURCES}
    prefixes: dict[str, str] = {}
    for text in texts.values():
        for prefix, namespace in PREFIX.findall(text):
            assert prefixes.setdefault(prefix, namespace) == namespace, prefix
        g.parse(data=text, format="turtle")
    full, referenced = select(g)
    source_blocks: dict[str, list[str]] = {}
    for text in texts.values():
        for iri, lines in blocks(text, prefixes).items():
            assert iri not in source_blocks, iri
            source_blocks[iri] = lines
    chunks = [f"@prefix {p}: <{n}> ." for p, n in sorted(prefixes.items())] + [""]
    for node in sorted(full | referenced):
        lines = source_blocks[str(node)]
        chunks += (lines if node in full else naming_block(lines)) + [""]
    out.write_text("\n".join(chunks), encoding="utf-8")
    expected = rdflib.Graph()
    for node in full:
        for triple in g.triples((node, None, None)):
            expected.add(triple)
    for node in referenced:
        for triple in g.triples((node, None, None)):
            if triple[1] in (RDF.type, RDFS.label, QUDT.symbol):
                expected.add(triple)
    bnodes = {o for (_, _, o) in expected if isinstance(o, BNode)}
    while bnodes:
        node = bnodes.pop()
        for triple in g.triples((node, None, None)):
            expected.add(triple)
            if isinstance(triple[2], BNode):
                bnodes.add(triple[2])
    written = rdflib.Graph().parse(out, format="turtle")
    assert isomorphic(written, expected), "the copied blocks do not give the selected triples"
    print(f"{len(written)} triples: {len(full)} subjects in full, {len(referenced)} referenced nodes named")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
