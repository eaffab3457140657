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
graph given by the caller never is). A store or an endpoint reads the same edges with one SPARQL query,
:data:`RESTRICTION_EDGES_QUERY` (tests hold the two readings identical): ``kg-agent load`` keeps them in a named
graph of the store it builds (:data:`RESTRICTION_GRAPH`), never in the file's default graph. Edges the graph states
already are left out. The KG profile says how many were derived (:attr:`kg_agent.kg.profile.KGProfile.restriction_edges`).
"""

from __future__ import annotations

from rdflib import BNode, Graph, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDFS

#: The restriction predicates whose object is the related class or value.
RESTRICTION_VALUES = (OWL.someValuesFrom, OWL.allValuesFrom, OWL.hasValue)

#: The named graph of an Oxigraph store ``kg-agent load`` builds that holds the edges derived from the file's
#: restrictions (kg-agent's own: the file's triples stay in the default graph, as they were).
RESTRICTION_GRAPH = "urn:kg-agent:derived:owl-restrictions"

#: ``SELECT ?c ?p ?v``: :func:`restriction_edges` as one SPARQL query, for a store or an endpoint (a restriction on
#: a named class under ``rdfs:subClassOf`` or in an ``owl:equivalentClass`` intersection; an edge the graph states
#: already left out).
RESTRICTION_EDGES_QUERY = """PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
SELECT DISTINCT ?c ?p ?v WHERE {
  { ?c rdfs:subClassOf ?r . ?r owl:onProperty ?p ; ?vp ?v .
    FILTER(isBlank(?r) && ?vp IN (owl:someValuesFrom, owl:allValuesFrom, owl:hasValue)) }
  UNION
  { ?c owl:equivalentClass ?e . ?e owl:intersectionOf ?list . ?list rdf:rest*/rdf:first ?r .
    ?r owl:onProperty ?p ; ?vp ?v .
    FILTER(isBlank(?e) && isBlank(?r) && ?vp IN (owl:someValuesFrom, owl:allValuesFrom, owl:hasValue)) }
  FILTER(isIRI(?c) && isIRI(?p) && !isBlank(?v))
  FILTER NOT EXISTS { ?c ?p ?v }
}"""


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
