"""RoG and ToG against a real OpenLink Virtuoso SPARQL endpoint give the in-memory backend's results.

The module starts ``virtuoso-t`` itself (tests/virtuoso_server.py: 127.0.0.1, free ports, a temporary
database), bulk-loads the bundled sample KG (and, with the benchmark data, the full MetaQA KB) into named
graphs, and reads them through kg-agent's SPARQL backend (``open_kg(url)``). Skipped, with the reason, only
when not on Linux or when Virtuoso is not installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import re
import urllib.parse

import pytest
from rdflib import Literal

from kg_agent.eval.datasets import load_metaqa, sample_questions
from kg_agent.graphs import create_rog_graph, create_tog_graph
from kg_agent.kg import (
    KGQueryError,
    ReadOnlyViolation,
    entity_iri,
    load_kg,
    open_kg,
    open_sparql,
    retrieve_paths,
    search_entities,
    shortest_relation_paths,
)
from kg_agent.kg.terms import node_key
from kg_agent.tools.shared.answer_types import RelationObjectKinds, relation_object_kinds
from tests.virtuoso_server import VirtuosoServer, export_ntriples, graph_iri, skip_reason

pytestmark = [pytest.mark.server, pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")]

E = lambda name: str(entity_iri(name))  # noqa: E731

SAMPLE_QUESTIONS = [
    "who directed the films that [Tom Hanks] starred in",
    "what films did [Tom Hanks] star in",
    "who directed [Forrest Gump]",
    "who starred in films directed by [Robert Zemeckis]",
    "what languages are the movies that share directors with [Forrest Gump] in",
    "when were the movies that share directors with [Forrest Gump] released",
    "what genre is [Catch Me If You Can]",
    "who wrote the films directed by [Steven Spielberg]",
    "which films share actors with [Big]",
    "who directed [Qwzx Blorptastic]",
]

HOSTILE = ["Tom \"The Bomb\" O'Neil", "Alpha > Beta <Gamma>", "First line\nsecond line",
           "Closing } brace } DROP ALL { ?s ?p ?o }", "Zoë Ørsted – 東京 🎬", "C:\\temp\\new \\ folder"]


# ---------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def memory(kg):
    return kg  # the bundled sample movie KG, in memory


@pytest.fixture(scope="module")
def server(memory, fixtures_dir):
    with VirtuosoServer() as srv:
        srv.load(export_ntriples(memory, srv.workdir / "sample.nt"), graph_iri("sample"))
        srv.load(fixtures_dir / "kg" / "labels.ttl", graph_iri("labels"))
        yield srv


@pytest.fixture()
def remote(server):
    """A fresh client (cold cache) on the sample graph, opened as a user would: by URL."""
    return open_kg(server.endpoint(graph_iri("sample")), timeout=30)


#: State keys that differ between any two runs (the messages list, the wall-clock start of the run).
VOLATILE = {"messages", "started_at"}


def _state(result: dict) -> dict:
    """The whole result state, as JSON (what a caller sees), without the endpoint's request count (a memory KG
    sends none, so its usage has no ``kg_requests``), plan and answer scores to 4 decimals: MiniLM pads a batch to its
    longest text, so a path text embedded in another batch (the candidates come in another order) moves a score by
    float noise (1e-7), which is no difference between backends."""
    state = {k: v for k, v in result.items() if k not in VOLATILE}
    state["usage"] = {k: v for k, v in (state.get("usage") or {}).items() if k != "kg_requests"}
    for key in ("plans", "answers"):
        state[key] = [{**item, "score": round(item["score"], 4)} if isinstance(item.get("score"), float) else item
                      for item in state.get(key) or []]
    return json.loads(json.dumps(state, sort_keys=True))


# ---------------------------------------------------------------- loading and the graph view
def test_bulk_load_puts_every_triple_in_its_named_graph(server, memory, remote):
    assert server.loaded[graph_iri("sample")] == len(memory) == len(remote)
    assert remote.backend == "sparql"
    # the endpoint's union of graphs also holds Virtuoso's system graphs: default-graph-uri keeps them out
    status, headers, body = server.sparql_get("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    assert status == 200 and int(json.loads(body)["results"]["bindings"][0]["n"]["value"]) > len(memory)


def test_relations_both_directions_neighbours_and_labels_equal_memory(remote, memory):
    entities = sorted(memory.entity_ids())
    assert remote.prefetch(entities) == len(entities)
    for entity in entities:
        assert {r: list(v) for r, v in remote.edges(entity).items()} == \
            {r: list(v) for r, v in memory.edges(entity).items()}, entity
        for direction in ("out", "in", "both"):
            assert remote.relations(entity, direction=direction) == memory.relations(entity, direction=direction)
        assert remote.label(entity) == memory.label(entity)
    hanks = E("Tom Hanks")
    assert remote.relations(hanks, direction="in") == ["^directed_by", "^starred_actors", "^written_by"]
    assert remote.relations(E("Forrest Gump"), direction="out") == memory.relations(E("Forrest Gump"), direction="out")
    assert "directed_by" in remote.relations(E("Forrest Gump"), direction="out")
    assert remote.neighbors(E("Forrest Gump"), "directed_by") == [E("Robert Zemeckis")]
    assert E("Forrest Gump") in remote.neighbors(E("Robert Zemeckis"), "^directed_by")
    assert remote.relation_names() == memory.relation_names()
    assert sorted(remote.entity_ids()) == sorted(memory.entity_ids())
    assert remote.has_entity(hanks) and not remote.has_entity(E("No Such Film"))
    assert remote.neighbors(E("No Such Film"), "directed_by") == []


def test_label_search_equals_memory(remote, memory):
    for text in ["Tom Hanks", "tom hanks", "Forrest Gump", "forrest-gump", "Steven Spielberg", "English", "Big",
                 "No Such Thing At All"]:
        assert [e.id for e in remote.find_entities(text)] == [e.id for e in memory.find_entities(text)], text
    for text in ["Hanks", "Spielberg", "gump", "Forest Gump"]:
        assert [e.id for e in search_entities(remote, text)] == [e.id for e in search_entities(memory, text)], text
    assert [e.label for e in remote.find_entities("Tom Hanks")][0] == "Tom Hanks"


def test_hostile_labels_and_wikidata_iris(server, fixtures_dir):
    memory = load_kg(fixtures_dir / "kg" / "labels.ttl")
    remote = open_sparql(server.url, default_graph=graph_iri("labels"), timeout=30)
    for entity in sorted(memory.entity_ids()):
        assert {r: list(v) for r, v in remote.edges(entity).items()} == {r: list(v) for r, v in memory.edges(entity).items()}
        assert remote.label(entity) == memory.label(entity)
    for text in HOSTILE + ["Cork", "Charles James Mathew"]:
        want = [e.id for e in memory.find_entities(text)]
        assert want and [e.id for e in remote.find_entities(text)] == want, text
        label = Literal(text) if text in HOSTILE else Literal(text, lang="en")  # as written in labels.ttl
        rows = remote.query("SELECT ?s WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l }",
                            bindings={"l": label})
        assert [str(r[0]) for r in rows] == want, text


# ---------------------------------------------------------------- RoG and ToG end to end
@pytest.mark.parametrize("create", [create_rog_graph, create_tog_graph], ids=["rog", "tog"])
def test_same_results_as_memory(create, remote, memory):
    on_memory, on_virtuoso = create(memory).compile(), create(remote).compile()
    answered = 0
    for question in SAMPLE_QUESTIONS:
        want = _state(on_memory.invoke({"question": question}))
        got = _state(on_virtuoso.invoke({"question": question}))
        assert got == want, question
        answered += bool(want["answers"])
    assert answered >= len(SAMPLE_QUESTIONS) - 1


def test_the_answer_type_profile_is_two_requests_and_samples_as_one_query_per_relation(server, memory):
    """The scorer's profile of what relations' objects are (kg_agent/tools/shared/answer_types.py): Virtuoso
    runs the UNION of LIMIT-ed sub-selects and samples the objects a query per relation samples; every relation
    of the KG costs a cold client two requests."""
    remote = open_kg(server.endpoint(graph_iri("sample")), timeout=30)
    names = remote.relation_names()
    relations = names + [f"^{name}" for name in names]
    sampled = remote.sample_ends(relations, 8)
    for relation in relations:
        target = "?s" if relation.startswith("^") else "?o"
        rows = remote.query(f"SELECT DISTINCT {target} WHERE {{ ?s <{remote.relation_iri(relation)}> ?o }} LIMIT 8")
        assert sampled[relation] == [node_key(row[0]) for row in rows], relation
    cold = open_kg(server.endpoint(graph_iri("sample")), timeout=30)
    cold.relation_names()
    before, sent = server.settled_sparql_count(), cold.request_count()
    kinds = RelationObjectKinds(cold).kinds_of(relations)
    assert cold.request_count() - sent == 2 == server.settled_sparql_count(at_least=before + 2) - before
    assert kinds == {r: RelationObjectKinds(remote).kinds_of([r])[r] for r in relations}


def test_rog_sends_at_most_twelve_requests_per_question_on_a_cold_client(server, memory):
    """Linking given ids, one query per layer of candidate relation paths, one for every plan's paths and labels, one
    that counts the subjects per object of the candidate round trips' relations (docs/benchmarks.md section 13k), and
    since 29 Nov one for every name of the topic entities (the planner and the answer checks mask each name a question
    calls an entity by, not only its label: an airport labelled "LGW" and asked about as "London Gatwick"; kept per
    client and in ``--kg-cache``): the count in usage is what Virtuoso's HTTP log received, and the result is the
    memory backend's."""
    sent = []
    for question in SAMPLE_QUESTIONS:
        topics = [E(name) for name in re.findall(r"\[([^\]]+)\]", question)]
        remote = open_kg(server.endpoint(graph_iri("sample")), timeout=30)  # the answer-type profile included
        before = server.settled_sparql_count()
        got = create_rog_graph(remote, planner="similarity").compile().invoke(
            {"question": question, "topic_entities": topics})
        want = create_rog_graph(memory, planner="similarity").compile().invoke(
            {"question": question, "topic_entities": topics})
        assert _state(got) == _state(want), question
        sent.append(got["usage"]["kg_requests"])
        assert server.settled_sparql_count(at_least=before + sent[-1]) - before == sent[-1], question
    assert max(sent) <= 12, sent
    assert min(sent) >= 1


def test_topic_entities_given_as_labels_or_ids(remote, memory):
    """Callers may pass topic entities as labels (not IRIs: never sent to the server) or as ids."""
    for create in (create_rog_graph, create_tog_graph):
        for given in (["Tom Hanks"], [E("Tom Hanks")], ["No Such Person"]):
            state = {"question": "who directed the films he starred in", "topic_entities": given}
            assert _state(create(remote).compile().invoke(state)) == _state(create(memory).compile().invoke(state))
    assert not remote.has_entity("Tom Hanks") and remote.neighbors("Tom Hanks", "^starred_actors") == []


def test_path_search_equals_memory(remote, memory):
    for start, rels in [("Tom Hanks", ("^starred_actors", "directed_by")), ("Forrest Gump", ("directed_by", "^directed_by")),
                        ("Robert Zemeckis", ("^directed_by", "starred_actors", "^starred_actors"))]:
        got, want = retrieve_paths(remote, [E(start)], rels), retrieve_paths(memory, [E(start)], rels)
        assert got.paths == want.paths and got.truncated == want.truncated and got.paths, (start, rels)
    assert shortest_relation_paths(remote, [E("Tom Hanks")], [E("Robert Zemeckis")]) == \
        shortest_relation_paths(memory, [E("Tom Hanks")], [E("Robert Zemeckis")])


# ---------------------------------------------------------------- requests: batched, cached
def test_frontier_is_fetched_in_batches_and_a_warm_cache_makes_no_requests(server, memory):
    kg = open_kg(server.endpoint(graph_iri("sample")), timeout=30)
    starts = [E(n) for n in ("Tom Hanks", "Robert Zemeckis", "Steven Spielberg", "Meg Ryan", "Ron Howard")]
    before = server.settled_sparql_count()  # earlier tests' requests may still be reaching the log
    cold = retrieve_paths(kg, starts, ("^starred_actors", "directed_by"))
    sent = kg.cache_info()["requests"]
    touched = {n for p in cold.paths for n in (p.start.id, *(s.tail.id for s in p.steps))}
    assert len(touched) > 40 and sent <= 6  # one request per batch, not one (or two) per entity
    assert server.settled_sparql_count(at_least=before + sent) - before == sent  # the server saw exactly those
    before = server.settled_sparql_count()
    warm = retrieve_paths(kg, starts, ("^starred_actors", "directed_by"))
    assert warm.paths == cold.paths == retrieve_paths(memory, starts, ("^starred_actors", "directed_by")).paths
    assert server.settled_sparql_count() == before  # everything came from the cache
    assert kg.cache_info()["hits"] > 0


def test_bounded_cache_evicts_and_refetches(server, memory):
    kg = open_sparql(server.url, default_graph=graph_iri("sample"), cache_size=20, batch_size=7)
    films = memory.neighbors(E("Tom Hanks"), "^starred_actors")
    assert kg.prefetch(memory.entity_ids()) == len(list(memory.entity_ids()))
    info = kg.cache_info()
    assert info["entities"] == 20 and info["labels"] <= 20 and info["maxsize"] == 20
    assert kg.neighbors(E("Tom Hanks"), "^starred_actors") == films  # evicted long ago: fetched again
    assert kg.cache_info()["requests"] > info["requests"]


def test_server_row_cap_is_paged_not_silently_cut(memory):
    """Virtuoso cuts every answer at ResultSetMaxRows (default 10000) and says so only in a header."""
    with VirtuosoServer(result_set_max_rows=25) as small:
        graph = small.load(export_ntriples(memory, small.workdir / "sample.nt"), graph_iri("sample"))
        kg = open_kg(small.endpoint(graph), timeout=30)
        assert kg.store.page_size == 5000
        drama = {r: list(v) for r, v in memory.edges(E("Drama")).items()}
        assert sum(map(len, drama.values())) > 25  # more edges than one answer may hold
        assert {r: list(v) for r, v in kg.edges(E("Drama")).items()} == drama
        assert kg.store.page_size < 25  # learnt from X-SPARQL-MaxRows
        assert sorted(kg.entity_ids()) == sorted(memory.entity_ids())
        assert [e.id for e in kg.find_entities("Tom Hanks")] == [e.id for e in memory.find_entities("Tom Hanks")]
        with pytest.raises(KGQueryError, match="cut the answer at 25 rows"):
            kg.query("SELECT ?s ?p ?o WHERE { ?s ?p ?o }")  # a raw query is never returned short
        assert len(kg.query("SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 10")) == 10


# ---------------------------------------------------------------- read-only
UPDATES = [
    "INSERT DATA { <urn:x:a> <urn:x:b> <urn:x:c> }",
    "DELETE WHERE { ?s ?p ?o }",
    "CLEAR ALL",
    "DROP GRAPH <https://kg-agent.dev/graph/sample>",
    "LOAD <http://example.org/evil.ttl>",
    "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }",
    "SELECT * WHERE { ?s ?p ?o } ; INSERT DATA { <urn:x:a> <urn:x:b> <urn:x:c> }",
]


def test_a_bare_name_where_an_id_belongs_is_unknown_without_asking_the_server(server, remote, memory):
    """A relative IRI ("Big") is refused by the endpoint with HTTP 400; the client answers like memory does."""
    before = server.settled_sparql_count()
    for name in ("Big", "Tom Hanks", "films/Big"):
        assert remote.edges(name) == memory.edges(name) == {}
        assert remote.relations(name) == memory.relations(name) == []
        assert remote.has_entity(name) is memory.has_entity(name) is False
    assert server.settled_sparql_count() == before  # nothing was sent


def test_updates_are_rejected_client_side_and_never_reach_the_server(server, remote, memory):
    before = server.settled_sparql_count()
    for update in UPDATES:
        with pytest.raises(ReadOnlyViolation):
            remote.query(update)
    assert server.settled_sparql_count() == before  # nothing was sent
    assert server.count(graph_iri("sample")) == len(memory)


def test_the_anonymous_sparql_user_cannot_write_either(server, memory):
    """Defence in depth: even a raw protocol request (not through kg-agent) is refused by Virtuoso."""
    update = "INSERT DATA { GRAPH <%s> { <urn:x:a> <urn:x:b> <urn:x:c> } }" % graph_iri("sample")
    status, _, body = server.sparql_get(update)
    assert status != 200 or b"permission" in body.lower() or b"error" in body.lower()
    assert server.count(graph_iri("sample")) == len(memory)


def test_endpoint_url_forms(server):
    url = server.endpoint(graph_iri("sample"))
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(url).query) == {"default-graph-uri": [graph_iri("sample")]}
    by_url = open_kg(url)
    by_argument = open_sparql(server.url, default_graph=graph_iri("sample"))
    assert len(by_url) == len(by_argument)
    assert by_url.neighbors(E("Big"), "directed_by") == by_argument.neighbors(E("Big"), "directed_by") == [E("Penny Marshall")]
    with pytest.raises(ValueError, match="one default graph"):
        open_sparql(url, default_graph=graph_iri("labels"))


# ---------------------------------------------------------------- full MetaQA KB (benchmark data)
@pytest.fixture(scope="module")
def metaqa(data_dir, server, tmp_path_factory):
    memory = load_kg(data_dir / "metaqa" / "kb.txt")
    path = export_ntriples(memory, tmp_path_factory.mktemp("metaqa") / "metaqa.nt")
    graph = server.load(path, graph_iri("metaqa"))
    assert server.loaded[graph] == len(memory)
    path.unlink()
    return memory, open_kg(server.endpoint(graph), timeout=60)


def _metaqa_questions(data_dir, hop: int, n: int = 30):
    folder = data_dir / "metaqa" / f"{hop}-hop"
    return sample_questions(load_metaqa(folder / "qa_dev.txt"), n, seed=hop)


@pytest.mark.full_data
@pytest.mark.parametrize("hop", [1, 2, 3])
def test_metaqa_rog_and_tog_on_virtuoso_equal_memory(metaqa, data_dir, hop):
    """Everything but the answer-type profiles: each backend samples a relation's objects in its own order (the first
    ``SAMPLE_SCAN`` triples, 8 distinct objects: rdflib's insertion order, Virtuoso's index order, which a bulk load
    may lay out differently each time), so on MetaQA their profiles differ (``^has_tags``: 1 of 8 sampled objects a
    year on one, none on the other) and so may a middle plan's score; the remote is given memory's profiles."""
    memory, remote = metaqa
    names = memory.relation_names()
    pinned = relation_object_kinds(memory).kinds_of([*names, *("^" + name for name in names)])
    relation_object_kinds(remote)._kinds.update(pinned)
    questions = _metaqa_questions(data_dir, hop)
    for create in (create_rog_graph, create_tog_graph):
        on_memory, on_virtuoso = create(memory).compile(), create(remote).compile()
        answered = 0
        for q in questions:
            want = _state(on_memory.invoke({"question": q.extra["raw"]}))
            got = _state(on_virtuoso.invoke({"question": q.extra["raw"]}))
            assert got == want, (create.__name__, q.id)
            answered += bool(want["answers"])
        assert answered >= len(questions) // 2, (create.__name__, hop, answered)


# ---------------------------------------------------------------- a million generated triples, bulk-loaded
@pytest.fixture(scope="module")
def million(tmp_path_factory):
    """Virtuoso with a generated 1M-triple movie KG (kg_agent.eval.synthetic) loaded by its bulk loader."""
    from kg_agent.eval.synthetic import generate

    folder = tmp_path_factory.mktemp("synthetic-1m")
    generate("movie", folder, triples=1_050_000, seed=0, questions_per_hop=3, three_hop=0)  # lands a little under target
    questions = [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    with VirtuosoServer() as srv:
        srv.load(folder / "kg.nt", graph_iri("million"))
        yield srv, questions


def test_the_bulk_loader_loads_a_million_generated_triples(million):
    srv, _ = million
    assert srv.loaded[graph_iri("million")] >= 1_000_000


def test_rog_on_a_million_triples_sends_at_most_twelve_requests_per_question(million):
    # a cold client per question, topics given as ids (linking by label would download the label index);
    # usage["kg_requests"] is exactly what Virtuoso's HTTP log received, at most 12 (docs/benchmarks.md
    # sections 2 and 13k, and one for the topic entities' names since 29 Nov), and the retrieved paths are those of Algorithm 1 walked step by step
    from kg_agent.kg.paths import _search_paths
    from kg_agent.kg.types import Entity
    from kg_agent.tools.rog.answer import VoteAnswerer, path_use
    from kg_agent.tools.rog.retrieve import label_relevance, paths_the_answer_uses, plan_caps

    srv, questions = million
    for question in questions:
        remote = open_kg(srv.endpoint(graph_iri("million")), timeout=120)  # the answer-type profile included
        app = create_rog_graph(remote, planner="similarity").compile()
        before = srv.settled_sparql_count()
        result = app.invoke({"question": question["raw"], "topic_entities": question["topic_ids"]})
        sent = result["usage"]["kg_requests"]
        assert 0 < sent <= 12, (question["raw"], sent)
        assert srv.settled_sparql_count(at_least=before + sent) - before == sent
        relevance = label_relevance(result["question"], [Entity.from_dict(e) for e in result["topic_entities"]])
        # the offline answerer's defaults: a plan whose answers are not kept gets at most max_prompt_paths paths, and
        # the state keeps only the paths the answer step reads
        use = path_use(VoteAnswerer(), max_prompt_paths=100)
        caps = plan_caps(result["plans"], max_paths=5000, use=use)
        stepwise = [{**path.to_dict(), "plan": rank} for rank, (plan, cap) in enumerate(zip(result["plans"], caps))
                    for path in _search_paths(remote, question["topic_ids"], tuple(plan["relations"]),
                                              max_paths=cap, relevance=relevance).paths]
        assert result["paths"] == paths_the_answer_uses(stepwise, use), question["raw"]
        gold = retrieve_paths(remote, question["topic_ids"], question["relations"])
        assert {p.end.id for p in gold.paths} == set(question["answer_ids"])
