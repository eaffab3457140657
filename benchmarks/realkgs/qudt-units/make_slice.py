"""How ``qudt_units_constants.ttl`` was cut from QUDT's source vocabularies (see ORIGIN.md).

    python benchmarks/realkgs/qudt-units/make_slice.py SRC OUT.ttl

``SRC`` is a folder holding ``VOCAB_QUDT-UNITS-ALL.ttl``, ``VOCAB_QUDT-CONSTANTS.ttl``,
``VOCAB_QUDT-QUANTITY-KINDS-ALL.ttl`` and ``VOCAB_QUDT-SYSTEM-OF-UNITS-ALL.ttl`` (from ``src/main/rdf/vocab/`` of
``qudt/qudt-public-repo``). Kept in full (every triple, with the blank nodes they reach): the 33 quantity kinds of
``FIELDS``, every unit that is a unit for one of them (``qudt:unitForQuantityKind`` / ``qudt:hasQuantityKind``),
every physical constant with its value node, the units those values are given in and the quantity kinds the
constants have, and the ten systems of units. Every other IRI these reference that the sources describe keeps its
``rdf:type``, ``rdfs:label`` and ``qudt:symbol`` (one hop). Nothing is renamed or rewritten; Turtle by rdflib.
"""

from __future__ import annotations

import sys
from pathlib import Path

import rdflib
from rdflib import BNode, URIRef
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


def main(src: Path, out: Path) -> None:
    g = rdflib.Graph()
    for name in SOURCES:
        g.parse(src / f"{name}.ttl")
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
    for node in referenced:
        kept.update(t for t in g.triples((node, None, None)) if t[1] in (RDF.type, RDFS.label, QUDT.symbol))
    sliced = rdflib.Graph()
    for prefix, namespace in g.namespaces():
        sliced.bind(prefix, namespace)
    for triple in kept:
        sliced.add(triple)
    out.write_text(sliced.serialize(format="turtle"), encoding="utf-8")
    print(f"{len(sliced)} triples: {len(units)} units, {len(constants)} constants, {len(kinds)} quantity kinds "
          f"in full, {len(referenced)} referenced nodes named")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
