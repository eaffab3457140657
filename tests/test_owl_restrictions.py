"""OWL class restrictions read as the relations they state (kg_agent/kg/owl_restrictions.py), as in the Sequence
Ontology (CC BY 4.0, realkgs/sequence-ontology/so.owl, whose restrictions tests/fixtures/kg/owl_restrictions.ttl is
written after): "a telomeric_repeat is part of a telomere" is a restriction on the class, asked as a relation. The
same edges in memory (rdflib, read in Python), in an Oxigraph store ``kg-agent load`` builds (SPARQL, kept in a named
graph of the store) and from a real SPARQL endpoint (Virtuoso) answering the same query."""

from __future__ import annotations

import shutil

import pyoxigraph as ox
import pytest
from rdflib import Graph, Literal, URIRef

from kg_agent.cli import main
from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.kg.owl_restrictions import RESTRICTION_EDGES_QUERY, RESTRICTION_GRAPH, restriction_edges
from kg_agent.kg.profile import KGProfile
from kg_agent.kg.store_folder import PROFILE_FILE, SIDECAR_DIR
from tests.conftest import FIXTURES
from tests.virtuoso_server import VirtuosoServer, graph_iri, skip_reason

SO = "http://purl.obolibrary.org/obo/"
EDGES = {(URIRef(SO + "SO_0001496"), URIRef(SO + "so#part_of"), URIRef(SO + "SO_0000624")),
         # genus and differentia: the intersection's restriction is a relation (its named class no edge)
         (URIRef(SO + "SO_0000276"), URIRef(SO + "so#derives_from"), URIRef(SO + "SO_0001244"))}
ORCHESTRA = FIXTURES / "kg" / "instrument_classes.ttl"


@pytest.fixture()
def ontology(tmp_path):
    path = tmp_path / "so.ttl"
    shutil.copy(FIXTURES / "kg" / "owl_restrictions.ttl", path)
    return path


def _store(ontology, tmp_path):
    return open_kg(ontology, backend="oxigraph", store_path=tmp_path / "store")


def _rdflib(term) -> URIRef | Literal:
    return URIRef(term.value) if isinstance(term, ox.NamedNode) else Literal(term.value)


def test_each_restriction_on_a_named_class_is_one_edge(ontology):
    assert restriction_edges(Graph().parse(ontology)) == EDGES


def test_an_edge_the_graph_states_already_is_not_derived_again(ontology):
    graph = Graph().parse(ontology)
    graph.add((URIRef(SO + "SO_0001496"), URIRef(SO + "so#part_of"), URIRef(SO + "SO_0000624")))
    stated = {(row[0], row[1], row[2]) for row in graph.query(RESTRICTION_EDGES_QUERY)}
    assert restriction_edges(graph) == stated == {edge for edge in EDGES if edge[1] != URIRef(SO + "so#part_of")}


def test_the_query_reads_the_edges_python_reads(ontology):
    """The SPARQL form stores and endpoints use yields the in-memory edges, in rdflib's engine and in Oxigraph's."""
    graph = Graph().parse(ontology)
    assert {(row[0], row[1], row[2]) for row in graph.query(RESTRICTION_EDGES_QUERY)} == EDGES
    store = ox.Store()
    store.load(path=str(ontology), format=ox.RdfFormat.TURTLE)
    assert {tuple(_rdflib(term) for term in row) for row in store.query(RESTRICTION_EDGES_QUERY)} == EDGES


def test_the_file_is_read_not_changed(ontology, tmp_path):
    before = ontology.read_bytes()
    open_kg(ontology)
    _store(ontology, tmp_path).close()
    assert ontology.read_bytes() == before


def test_the_store_keeps_the_edges_in_its_own_named_graph_and_the_profile_counts_them(ontology, tmp_path):
    _store(ontology, tmp_path).close()
    store = ox.Store.read_only(str(tmp_path / "store"))
    derived = {tuple(_rdflib(term) for term in (q.subject, q.predicate, q.object))
               for q in store.quads_for_pattern(None, None, None, ox.NamedNode(RESTRICTION_GRAPH))}
    assert derived == EDGES
    file_triples = {tuple(_rdflib(term) for term in (q.subject, q.predicate, q.object))
                    for q in store.quads_for_pattern(None, None, None, ox.DefaultGraph())
                    if not isinstance(q.subject, ox.BlankNode) and not isinstance(q.object, ox.BlankNode)}
    assert not derived & file_triples  # the file's graph holds the file's triples only
    del store
    assert KGProfile.load(tmp_path / "store" / SIDECAR_DIR / PROFILE_FILE).restriction_edges == 2


def test_kg_agent_load_prints_how_many_edges_the_restrictions_gave(ontology, tmp_path, capsys):
    assert main(["load", str(ontology), "--store", str(tmp_path / "cli-store")]) == 0
    assert "OWL restrictions: 2 relation edges read from class restrictions" in capsys.readouterr().out


@pytest.mark.parametrize("backend", ["memory", "oxigraph"])
@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
@pytest.mark.parametrize(("question", "answer"), [("What is a telomeric_repeat part of?", "telomere"),
                                                  ("What does a miRNA derive from?", "pre_miRNA")])
def test_every_method_walks_a_restriction_as_the_relation_asked(ontology, tmp_path, backend, factory, question, answer):
    kg = open_kg(ontology) if backend == "memory" else _store(ontology, tmp_path)
    try:
        result = factory(kg).compile().invoke({"question": question})
    finally:
        kg.close()
    assert [a["answer"] for a in result["answers"]] == [answer]


def test_a_class_defined_from_a_genus_is_no_subclass_edge():
    """The hierarchy stays the one the ontology asserts: *keyboard_instrument* is defined as an instrument with a
    keyboard part, and asserted under no class, so it is no direct subtype of *instrument*; its restriction is an
    edge."""
    orchestra = "http://example.org/orchestra#"
    graph = Graph().parse(ORCHESTRA)
    edges = {(URIRef(orchestra + "keyboard_instrument"), URIRef(orchestra + "has_part"), URIRef(orchestra + "keyboard"))}
    assert restriction_edges(graph) == {tuple(row) for row in graph.query(RESTRICTION_EDGES_QUERY)} == edges


@pytest.mark.parametrize("backend", ["memory", "oxigraph"])
@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_direct_subtypes_are_the_asserted_subclasses(tmp_path, backend, factory):
    """"How many direct subtypes": the three classes stated ``rdfs:subClassOf`` instrument, not also the class
    defined from it (4 when the intersection's genus was read as a superclass)."""
    kg = open_kg(ORCHESTRA) if backend == "memory" else _store(ORCHESTRA, tmp_path)
    try:
        result = factory(kg).compile().invoke({"question": "How many direct subtypes does instrument have?"})
    finally:
        kg.close()
    assert [a["answer"] for a in result["answers"]] == ["3"]


def _named(edges) -> dict[str, list[str]]:
    """A node's edges, its blank neighbours (the restrictions, named by each backend its own way) counted only."""
    return {rel: sorted(t if not t.startswith("_:") else "_:" for t in targets) for rel, targets in edges.items()}


def test_a_store_walks_the_edges_memory_walks(ontology, tmp_path):
    """Neighbourhoods, relation paths from the relation index and walks in the engine: as in memory."""
    memory, store = open_kg(ontology), _store(ontology, tmp_path)
    try:
        for node in (SO + "SO_0001496", SO + "SO_0000624", SO + "SO_0000276", SO + "SO_0001244"):
            assert _named(store.store.edges(node)) == _named(memory.store.edges(node))
        assert store.store.walk([SO + "SO_0000276"], "derives_from") == {SO + "SO_0000276": [SO + "SO_0001244"]}
        assert store.store.walkable([SO + "SO_0001244"], ["^derives_from", "subClassOf"])
        assert store.store.relations_following("^part_of") == memory.store.relations_following("^part_of")
    finally:
        memory.close()
        store.close()


def test_a_sparql_endpoint_answers_the_query_with_the_same_edges(ontology):
    """Virtuoso (Debian's ``virtuoso-t``) reads the query's property path and filters as rdflib and Oxigraph do."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    with VirtuosoServer() as server:
        graph = server.load(ontology, graph_iri("owl-restrictions"))
        kg = open_kg(server.endpoint(graph))
        try:
            rows = kg.store.select(RESTRICTION_EDGES_QUERY, "?c ?p ?v", "the restriction edges")
        finally:
            kg.close()
    assert {(row[0], row[1], row[2]) for row in rows} == EDGES


def test_the_sequence_ontology_behind_virtuoso_walks_every_restriction_edge_memory_walks(data_dir, tmp_path):
    """so.owl's own triples in Virtuoso (nothing derived is written to it): every relation its restrictions state
    walks from every class to the classes memory reaches (hundreds of edges), and learning which relations those
    are costs no request of its own (it comes with the relations' names)."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    path = data_dir / "realkgs" / "sequence-ontology" / "so.owl"
    if not path.exists():
        pytest.skip(f"{path} not found")
    raw = Graph().parse(path)
    edges = restriction_edges(raw)
    raw.serialize(tmp_path / "so.nt", format="nt", encoding="utf-8")
    memory = open_kg(path)
    with VirtuosoServer() as server:
        kg = open_kg(server.endpoint(server.load(tmp_path / "so.nt", graph_iri("so"))))
        try:
            names = {memory.store.names.name(p) for _, p, _ in edges}
            assert len(edges) > 600 and len(names) > 10
            sent = kg.store.request_count()
            for name in sorted(names):
                classes = sorted({str(c) for c, p, _ in edges if memory.store.names.name(p) == name})
                assert kg.walk(classes, name) == memory.walk(classes, name), name
            assert kg.store.request_count() - sent == 1 + len(names)  # the relations with their names, one walk each
        finally:
            kg.close()
            memory.close()
