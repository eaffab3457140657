"""OWL class restrictions read as the relations they state.

An ontology says "a telomeric_repeat is part of a telomere" as a restriction on a class, not as a triple::

    so:telomeric_repeat rdfs:subClassOf [ a owl:Restriction ; owl:onProperty so:part_of ;
                                          owl:someValuesFrom so:telomere ] .

Its users ask it as a relation ("what is a telomeric_repeat part of?"), and the walks of every method step over
triples, where the restriction is a blank node between two steps named ``subClassOf`` and ``someValuesFrom`` and the
relation asked, ``part_of``, is nowhere on the path. :func:`restriction_edges` reads each restriction on a named class
(``rdfs:subClassOf`` it, or ``owl:equivalentClass`` an ``owl:intersectionOf`` holding it, the OBO "genus and
differentia" form) with ``owl:someValuesFrom``, ``owl:allValuesFrom`` or ``owl:hasValue`` a named class or value, as one
edge ``class property value``: the relation graph OBO tools (ROBOT's and the OBO Graphs' "existential restriction"
edges) derive the same way. An intersection's named classes are its class's superclasses (``rdfs:subClassOf`` edges).

:func:`add_restriction_edges` adds them to a graph kg-agent parsed from a file itself (the file is not changed, a
graph given by the caller never is); the KG profile says how many were added.
"""

from __future__ import annotations

from rdflib import BNode, Graph, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDFS

#: The restriction predicates whose object is the related class or value.
RESTRICTION_VALUES = (OWL.someValuesFrom, OWL.allValuesFrom, OWL.hasValue)


def _restriction(graph: Graph, node: BNode) -> tuple[URIRef, URIRef] | None:
    """``(property, value)`` of a restriction blank node on a named property with a named value, else None."""
    prop = graph.value(node, OWL.onProperty)
    if not isinstance(prop, URIRef):
        return None
    for predicate in RESTRICTION_VALUES:
        value = graph.value(node, predicate)
        if value is not None and not isinstance(value, BNode):
            return prop, value
    return None


def restriction_edges(graph: Graph) -> set[tuple[URIRef, URIRef, URIRef]]:
    """The edges the graph's class restrictions state (module docstring), without those it already holds."""
    found: set[tuple] = set()
    for cls, node in graph.subject_objects(RDFS.subClassOf):
        if isinstance(cls, URIRef) and isinstance(node, BNode):
            stated = _restriction(graph, node)
            if stated is not None:
                found.add((cls, *stated))
    for cls, node in graph.subject_objects(OWL.equivalentClass):
        if not isinstance(cls, URIRef) or not isinstance(node, BNode):
            continue
        members = graph.value(node, OWL.intersectionOf)
        if members is None:
            continue
        for member in Collection(graph, members):
            if isinstance(member, URIRef):
                found.add((cls, RDFS.subClassOf, member))
            elif isinstance(member, BNode):
                stated = _restriction(graph, member)
                if stated is not None:
                    found.add((cls, *stated))
    return {edge for edge in found if edge not in graph}


def add_restriction_edges(graph: Graph) -> int:
    """Add :func:`restriction_edges` to ``graph`` (one kg-agent parsed itself); how many were added."""
    edges = restriction_edges(graph)
    for edge in edges:
        graph.add(edge)
    return len(edges)
