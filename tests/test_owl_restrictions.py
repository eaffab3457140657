"""OWL class restrictions read as the relations they state (kg_agent/kg/owl_restrictions.py), as in the Sequence
Ontology (CC BY 4.0, realkgs/sequence-ontology/so.owl, whose restrictions these are written after): "a
telomeric_repeat is part of a telomere" is a restriction on the class, asked as a relation."""

from __future__ import annotations

import pytest
from rdflib import Graph, URIRef
from rdflib.namespace import RDFS

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.kg.owl_restrictions import restriction_edges

ONTOLOGY = """@prefix so: <http://purl.obolibrary.org/obo/so#> . @prefix obo: <http://purl.obolibrary.org/obo/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
so:part_of a owl:ObjectProperty ; rdfs:label "part_of" .
so:derives_from a owl:ObjectProperty ; rdfs:label "derives_from" .
obo:SO_0000624 a owl:Class ; rdfs:label "telomere" .
obo:SO_0000657 a owl:Class ; rdfs:label "repeat_region" .
obo:SO_0001496 a owl:Class ; rdfs:label "telomeric_repeat" ; rdfs:subClassOf obo:SO_0000657 ,
    [ a owl:Restriction ; owl:onProperty so:part_of ; owl:someValuesFrom obo:SO_0000624 ] .
obo:SO_0001244 a owl:Class ; rdfs:label "pre_miRNA" .
obo:SO_0000276 a owl:Class ; rdfs:label "miRNA" ;
    owl:equivalentClass [ owl:intersectionOf ( obo:SO_0000370
        [ a owl:Restriction ; owl:onProperty so:derives_from ; owl:someValuesFrom obo:SO_0001244 ] ) ] .
obo:SO_0000370 a owl:Class ; rdfs:label "small_regulatory_ncRNA" .
"""

SO = "http://purl.obolibrary.org/obo/"


@pytest.fixture()
def ontology(tmp_path):
    path = tmp_path / "so.ttl"
    path.write_text(ONTOLOGY, encoding="utf-8")
    return path


def test_each_restriction_on_a_named_class_is_one_edge(ontology):
    graph = Graph().parse(ontology)
    edges = restriction_edges(graph)
    assert (URIRef(SO + "SO_0001496"), URIRef(SO + "so#part_of"), URIRef(SO + "SO_0000624")) in edges
    # genus and differentia: the intersection's class is a superclass, its restriction a relation
    assert (URIRef(SO + "SO_0000276"), RDFS.subClassOf, URIRef(SO + "SO_0000370")) in edges
    assert (URIRef(SO + "SO_0000276"), URIRef(SO + "so#derives_from"), URIRef(SO + "SO_0001244")) in edges
    assert len(edges) == 3


def test_the_file_is_read_not_changed(ontology):
    before = ontology.read_bytes()
    open_kg(ontology)
    assert ontology.read_bytes() == before


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
@pytest.mark.parametrize(("question", "answer"), [("What is a telomeric_repeat part of?", "telomere"),
                                                  ("What does a miRNA derive from?", "pre_miRNA")])
def test_every_method_walks_a_restriction_as_the_relation_asked(ontology, factory, question, answer):
    result = factory(open_kg(ontology)).compile().invoke({"question": question})
    assert [a["answer"] for a in result["answers"]] == [answer]
