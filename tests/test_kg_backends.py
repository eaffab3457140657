"""Oxigraph on disk and a remote SPARQL endpoint give the same answers as the in-memory graph."""

from __future__ import annotations

import shutil
import socket
import time
from pathlib import Path

import pytest
from rdflib import Literal

from kg_agent.kg import (
    KGLoadError,
    KGQueryError,
    build_oxigraph,
    entity_iri,
    load_kg,
    open_oxigraph,
    open_sparql,
    retrieve_many_paths,
    retrieve_paths,
    shortest_relation_paths,
)
from tests.sparql_server import SparqlServer, store_from_graph

E = lambda name: str(entity_iri(name))  # noqa: E731

PLANS = [
    ("Combat Shock", ("directed_by", "^directed_by")),
    ("The Place Promised in Our Early Days", ("directed_by", "^directed_by")),
    ("Temuera Morrison", ("^starred_actors",)),
    ("Temuera Morrison", ("^starred_actors", "starred_actors")),
    ("The Theatre Bizarre", ("directed_by", "^directed_by", "written_by")),
    ("Voices of a Distant Star", ("directed_by", "^starred_actors")),
]

HOSTILE = ["Tom \"The Bomb\" O'Neil", "Alpha > Beta <Gamma>", "First line\nsecond line",
           "Closing } brace } DROP ALL { ?s ?p ?o }", "Zoë Ørsted – 東京 🎬", "C:\\temp\\new \\ folder"]


@pytest.fixture(scope="module")
def memory(fixtures_dir: Path):
    return load_kg(fixtures_dir / "kg" / "metaqa_slice.txt")


@pytest.fixture(scope="module")
def oxigraph_store(fixtures_dir: Path, tmp_path_factory) -> Path:
    """Built from a copy of the slice that is deleted afterwards: reopening must not re-parse."""
    work = tmp_path_factory.mktemp("oxigraph")
    source = work / "metaqa_slice.txt"
    shutil.copy(fixtures_dir / "kg" / "metaqa_slice.txt", source)
    store = build_oxigraph(source, work / "store")
    source.unlink()
    return store


@pytest.fixture(scope="module")
def oxigraph(oxigraph_store):
    kg = open_oxigraph(oxigraph_store)
    yield kg
    kg.close()


@pytest.fixture(scope="module")
def server(memory):
    with SparqlServer(store_from_graph(memory.graph)) as srv:
        yield srv


@pytest.fixture(scope="module")
def remote(server):
    return open_sparql(server.url, timeout=10)


def _same_graph_view(kg, memory, entity_ids):
    for entity in entity_ids:
        assert {r: list(v) for r, v in kg.edges(entity).items()} == {r: list(v) for r, v in memory.edges(entity).items()}, entity
        assert kg.label(entity) == memory.label(entity)
        for direction in ("out", "in", "both"):
            assert kg.relations(entity, direction=direction) == memory.relations(entity, direction=direction)


def _same_paths(kg, memory):
    for start, rels in PLANS:
        got = retrieve_paths(kg, [E(start)], rels)
        want = retrieve_paths(memory, [E(start)], rels)
        assert [p.text() for p in got.paths] == [p.text() for p in want.paths], (start, rels)
        assert got.paths == want.paths and got.truncated == want.truncated
    assert shortest_relation_paths(kg, [E("Combat Shock")], [E("Life Is Hot in Cracktown")]) == \
        shortest_relation_paths(memory, [E("Combat Shock")], [E("Life Is Hot in Cracktown")])


# ---------------------------------------------------------------- Oxigraph
def test_oxigraph_same_neighbours_as_memory(oxigraph, memory):
    assert oxigraph.backend == "oxigraph"
    assert len(oxigraph) == len(memory)
    _same_graph_view(oxigraph, memory, sorted(memory.entity_ids()))


def test_oxigraph_same_paths_as_memory(oxigraph, memory):
    _same_paths(oxigraph, memory)


@pytest.mark.parametrize("probe_after", [1000, 0, 2], ids=["no-probe", "probe-first", "probe-later"])
@pytest.mark.parametrize("max_paths", [1, 3, 20, 5000])
def test_oxigraph_answers_a_plan_in_one_query_and_walks_a_cut_plan_as_in_memory(oxigraph, memory, max_paths,
                                                                                 probe_after, monkeypatch):
    # A plan's paths are read in one streamed query; one that passes ``probe_after`` rows is counted first
    import kg_agent.kg.stores.oxigraph as oxigraph_store

    monkeypatch.setattr(oxigraph_store, "PROBE_AFTER_ROWS", probe_after)
    starts = [E("Temuera Morrison"), E("Combat Shock")]
    plans = [("^starred_actors", "starred_actors"), ("directed_by", "^directed_by", "written_by"),
             ("^starred_actors",), ("directed_by", "flew_to")]
    relevance = lambda entity: float(len(entity.label) % 3)  # noqa: E731
    queries: list[str] = []
    select = oxigraph.store._select
    monkeypatch.setattr(oxigraph.store, "_select", lambda query: queries.append(query) or select(query))
    for score in (None, relevance):
        queries.clear()
        got = retrieve_many_paths(oxigraph, starts, plans, max_paths=max_paths, relevance=score)
        want = retrieve_many_paths(memory, starts, plans, max_paths=max_paths, relevance=score)
        assert [(r.paths, r.truncated, r.dropped, r.dropped_unread) for r in got] == \
            [(r.paths, r.truncated, r.dropped, r.dropped_unread) for r in want]
        assert got[3].paths == []
        probes = sum("COUNT(*)" in query for query in queries)
        if probe_after == 1000:
            assert probes == 0  # no plan here has that many rows
        elif probe_after == 0:
            assert probes > 0  # a plan is counted at its first row
        if max_paths == 5000:  # no cut: one query per plan and start, labels included (none for the unknown relation)
            assert len(queries) - probes == 3 * len(starts) and all(r.paths for r in got[:3]) and not any(r.truncated for r in got)
        elif max_paths == 1:
            assert all(r.truncated for r in got[:3])


def test_oxigraph_labels_relations_and_search(oxigraph, memory):
    assert oxigraph.relation_names() == memory.relation_names()
    assert sorted(oxigraph.entity_ids()) == sorted(memory.entity_ids())
    assert [e.id for e in oxigraph.find_entities("Makoto Shinkai")] == [e.id for e in memory.find_entities("Makoto Shinkai")]
    assert oxigraph.has_entity(E("Tracker")) and not oxigraph.has_entity(E("No Such Film"))
    assert oxigraph.neighbors(E("No Such Film"), "directed_by") == []


def test_oxigraph_reopen_is_fast_and_needs_no_source(oxigraph_store, memory):
    started = time.perf_counter()
    kg = open_oxigraph(oxigraph_store)
    try:
        assert kg.neighbors(E("Buddy Giovinazzo"), "^directed_by") == memory.neighbors(E("Buddy Giovinazzo"), "^directed_by")
    finally:
        kg.close()
    assert time.perf_counter() - started < 5


def test_oxigraph_build_refuses_to_overwrite_and_open_needs_a_store(fixtures_dir, tmp_path, oxigraph_store):
    target = tmp_path / "store"
    build_oxigraph(fixtures_dir / "kg" / "twowiki_slice.jsonl", target)
    with pytest.raises(KGLoadError, match="already exists"):
        build_oxigraph(fixtures_dir / "kg" / "twowiki_slice.jsonl", target)
    build_oxigraph(fixtures_dir / "kg" / "metaqa_slice.txt", target, overwrite=True)
    kg = open_oxigraph(target)
    try:
        assert kg.find_entities("Combat Shock") and not kg.find_entities("Cork")
    finally:
        kg.close()
    with pytest.raises(KGLoadError, match="no Oxigraph store"):
        open_oxigraph(tmp_path / "nothing-here")


def test_oxigraph_turtle_keeps_iris_and_hostile_labels(fixtures_dir, tmp_path):
    memory = load_kg(fixtures_dir / "kg" / "labels.ttl")
    kg = open_oxigraph(build_oxigraph(fixtures_dir / "kg" / "labels.ttl", tmp_path / "store"))
    try:
        _same_graph_view(kg, memory, sorted(memory.entity_ids()))
        for text in HOSTILE:
            assert [e.id for e in kg.find_entities(text)] == [e.id for e in memory.find_entities(text)], text
            # Oxigraph substitutes only projected variables (oxrdflib initBindings), so ?l is selected too
            rows = list(kg.query("SELECT ?s ?l WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l }",
                                 bindings={"l": Literal(text)}))
            assert [str(r[0]) for r in rows] == [e.id for e in memory.find_entities(text)], text
    finally:
        kg.close()


# ---------------------------------------------------------------- remote SPARQL endpoint
def test_sparql_endpoint_same_neighbours_as_memory(remote, memory, server):
    assert remote.backend == "sparql"
    entities = sorted(memory.entity_ids())[::4]  # a quarter: each entity costs two HTTP round trips
    _same_graph_view(remote, memory, entities)
    assert server.queries  # really went over HTTP


def test_sparql_endpoint_same_paths_as_memory(remote, memory):
    _same_paths(remote, memory)


def test_sparql_endpoint_labels_and_relations(remote, memory):
    assert remote.relation_names() == memory.relation_names()
    assert [e.id for e in remote.find_entities("Combat Shock")] == [E("Combat Shock")]
    rows = list(remote.query("SELECT ?d WHERE { ?f <https://kg-agent.dev/relation/directed_by> ?d }",
                             bindings={"f": entity_iri("Combat Shock")}))
    assert [str(r[0]) for r in rows] == [E("Buddy Giovinazzo")]


def test_sparql_endpoint_hostile_labels(fixtures_dir):
    memory = load_kg(fixtures_dir / "kg" / "labels.ttl")
    with SparqlServer(store_from_graph(memory.graph)) as srv:
        remote = open_sparql(srv.url, timeout=10)
        for text in HOSTILE:
            want = [e.id for e in memory.find_entities(text)]
            assert [e.id for e in remote.find_entities(text)] == want, text
            rows = list(remote.query("SELECT ?s WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l }",
                                     bindings={"l": Literal(text)}))
            assert [str(r[0]) for r in rows] == want, text


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_dead_endpoint_raises_kg_query_error_naming_the_url():
    url = f"http://127.0.0.1:{_closed_port()}/sparql"
    kg = open_sparql(url, timeout=2)
    started = time.perf_counter()
    with pytest.raises(KGQueryError) as err:
        kg.neighbors(E("Combat Shock"), "directed_by")
    assert url in str(err.value)
    with pytest.raises(KGQueryError) as err:
        kg.query("SELECT * WHERE { ?s ?p ?o } LIMIT 1")
    assert url in str(err.value)
    assert time.perf_counter() - started < 4


def test_silent_endpoint_times_out_with_kg_query_error():
    """A server that accepts the connection but never answers: the client's timeout applies."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/sparql"
    try:
        kg = open_sparql(url, timeout=1)
        started = time.perf_counter()
        with pytest.raises(KGQueryError) as err:
            kg.neighbors(E("Combat Shock"), "directed_by")
        assert url in str(err.value)
        assert time.perf_counter() - started < 5
    finally:
        listener.close()


def test_lazy_backends_say_a_plain_label_is_not_an_entity_id(oxigraph, remote):
    """A label ("Makoto Shinkai") is not an IRI: has_entity answers False instead of raising (the exemplar
    planner resolves answers given as labels this way)."""
    for kg in (oxigraph, remote):
        assert not kg.has_entity("Makoto Shinkai") and not kg.has_entity("")
        assert not kg.has_entity("Big") and kg.relations("Big") == [] and kg.label("Big") == "Big"  # a relative IRI
        assert kg.has_entity(E("Makoto Shinkai"))


def test_oxigraph_reads_only_the_name_predicates_it_has_and_sees_a_new_one():
    # labels are looked up by the name predicates the store has (one of a dozen on most KGs: a hub's 54,000 films
    # are 54,000 lookups, not 700,000); a triple added through rdflib's API that brings a new one is seen
    import pyoxigraph as ox
    from rdflib import Literal, URIRef
    from rdflib.namespace import RDFS, SKOS

    from kg_agent.kg.stores.oxigraph import OxigraphGraphStore
    from kg_agent.kg.terms import RelationNames

    raw = ox.Store()
    raw.add(ox.Quad(ox.NamedNode("http://ex.org/a"), ox.NamedNode("http://ex.org/p"), ox.NamedNode("http://ex.org/b")))
    raw.add(ox.Quad(ox.NamedNode("http://ex.org/a"), ox.NamedNode(str(RDFS.label)), ox.Literal("A")))
    store = OxigraphGraphStore(raw, names=RelationNames(), name="names")
    lookups = []
    pattern = raw.quads_for_pattern

    class Counting:  # pyoxigraph's Store cannot be patched: count through a stand-in
        def __getattr__(self, name):
            return getattr(raw, name)

        def quads_for_pattern(self, *args):
            lookups.append(args[1])
            return pattern(*args)

    store.store = Counting()
    assert store.display_labels(["http://ex.org/a", "http://ex.org/b"]) == {"http://ex.org/a": "A", "http://ex.org/b": None}
    assert {str(p.value) for p in lookups if p is not None} >= {str(RDFS.label), str(SKOS.prefLabel)}
    lookups.clear()
    store.display_labels(["http://ex.org/a", "http://ex.org/b"])
    assert [p.value for p in lookups] == [str(RDFS.label)] * 2  # the other predicates are known to be absent
    store.graph.add((URIRef("http://ex.org/b"), SKOS.prefLabel, Literal("B")))
    assert store.display_labels(["http://ex.org/b"]) == {"http://ex.org/b": "B"}
