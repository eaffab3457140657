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
edges) derive the same way. An intersection's named class (its genus) is not made an ``rdfs:subClassOf`` edge: the
class hierarchy stays the one the ontology asserts, so "the direct subtypes of gene" are the classes stated
``rdfs:subClassOf`` it (what the ontology's own SPARQL users count), not also the classes defined from it.

:func:`add_restriction_edges` adds them to a graph kg-agent parsed from a file itself (the file is not changed, a
graph given by the caller never is). A store reads the same edges with one SPARQL query,
:data:`RESTRICTION_EDGES_QUERY` (tests hold the two readings identical): ``kg-agent load`` keeps them in a named
graph of the store it builds (:data:`RESTRICTION_GRAPH`), never in the file's default graph, and the KG profile says
how many were derived (:attr:`kg_agent.kg.profile.KGProfile.restriction_edges`). An endpoint, which kg-agent never
writes to, matches them where it reads facts: its patterns join :func:`restriction_edge_pattern` (the query's
pattern) to their triples (:class:`~kg_agent.kg.stores.endpoint.EndpointGraphStore`). Edges the graph states already
are left out.
"""

from __future__ import annotations

from rdflib import BNode, Graph, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS

#: The restriction predicates whose object is the related class or value.
RESTRICTION_VALUES = (OWL.someValuesFrom, OWL.allValuesFrom, OWL.hasValue)

#: The named graph of an Oxigraph store ``kg-agent load`` builds that holds the edges derived from the file's
#: restrictions (kg-agent's own: the file's triples stay in the default graph, as they were).
RESTRICTION_GRAPH = "urn:kg-agent:derived:owl-restrictions"

def restriction_edge_pattern(subject: str, predicate: str, value: str, *, tag: str = "", unstated: bool = True) -> str:
    """A SPARQL group matching the edges ``subject predicate value`` the graph's class restrictions state and its
    triples do not (:func:`restriction_edges` as a pattern): each a variable or a SPARQL term. ``tag`` ends the names
    of the group's own variables (``?owl_r<tag>``...), so that several groups can stand in one query. ``unstated``
    False keeps the edges the graph states too (cheaper, for a query that reads distinct rows). A store reads
    the edges with it (:data:`RESTRICTION_EDGES_QUERY`); an endpoint's walks, which cannot keep derived edges in the
    KG, join it to their own patterns."""
    r, e, members, vp = (f"?owl_{v}{tag}" for v in ("r", "e", "list", "vp"))
    values = ", ".join(f"<{iri}>" for iri in RESTRICTION_VALUES)
    return (f"{{ {{ {subject} <{RDFS.subClassOf}> {r} . {r} <{OWL.onProperty}> {predicate} ; {vp} {value} . "
            f"FILTER(isBlank({r}) && {vp} IN ({values})) }} UNION "
            f"{{ {subject} <{OWL.equivalentClass}> {e} . {e} <{OWL.intersectionOf}> {members} . "
            f"{members} <{RDF.rest}>*/<{RDF.first}> {r} . {r} <{OWL.onProperty}> {predicate} ; {vp} {value} . "
            f"FILTER(isBlank({e}) && isBlank({r}) && {vp} IN ({values})) }} "
            f"FILTER(isIRI({subject}) && isIRI({predicate}) && !isBlank({value})) "
            + (f"FILTER NOT EXISTS {{ {subject} {predicate} {value} }} }}" if unstated else "}"))


def restriction_end_filter(node: str) -> str:
    """A SPARQL ``FILTER`` keeping the nodes a restriction may state an edge of: a class with an unnamed superclass or
    equivalent (a restriction, an intersection), or the value of a restriction. Cheap (no property path, no
    negation): a query asks it of the nodes its walk reaches, and the edges themselves are read once
    (:data:`RESTRICTION_EDGES_QUERY`)."""
    b, vp = "?owl_b", "?owl_vp"
    values = " ".join(f"<{iri}>" for iri in RESTRICTION_VALUES)
    return (f"FILTER EXISTS {{ {{ {node} <{RDFS.subClassOf}> {b} FILTER(isBlank({b})) }} UNION "
            f"{{ {node} <{OWL.equivalentClass}> {b} FILTER(isBlank({b})) }} UNION "
            f"{{ VALUES {vp} {{ {values} }} {b} {vp} {node} }} }}")


#: ``SELECT ?c ?p ?v``: :func:`restriction_edges` as one SPARQL query, for a store or an endpoint (a restriction on
#: a named class under ``rdfs:subClassOf`` or in an ``owl:equivalentClass`` intersection; an edge the graph states
#: already left out).
RESTRICTION_EDGES_QUERY = "SELECT DISTINCT ?c ?p ?v WHERE %s" % restriction_edge_pattern("?c", "?p", "?v")


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
            if isinstance(member, BNode):
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
