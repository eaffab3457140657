"""The SPARQL backend's remote-endpoint performance features, against a real local HTTP endpoint.

Batched ``VALUES`` requests for a frontier's neighbours and for labels, a bounded per-entity cache, paged
answers, long queries POSTed, per-query timeouts, and bindings placed where every server accepts them.
(tests/sparql_server.py is pyoxigraph behind the standard library's HTTP server; tests/test_virtuoso.py
repeats the important ones against Virtuoso.)
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from rdflib import Literal, URIRef

from kg_agent.kg import KGQueryError, entity_iri, load_kg, open_kg, open_sparql, retrieve_many_paths, retrieve_paths
from kg_agent.kg.loading.sparql_endpoint import MAX_GET_QUERY_CHARS
from kg_agent.kg.relation_paths import walkable_relation_paths
from kg_agent.kg.sparql import bind_values, check_read_only, values_block
from tests.sparql_server import SparqlServer, store_from_graph

E = lambda name: str(entity_iri(name))  # noqa: E731


@pytest.fixture(scope="module")
def memory(kg):
    return kg  # the bundled sample movie KG, in memory


@pytest.fixture(scope="module")
def server(memory):
    with SparqlServer(store_from_graph(memory.graph)) as srv:
        yield srv


def _view(kg, entity):
    return {r: list(v) for r, v in kg.edges(entity).items()}, kg.label(entity)


def test_one_request_per_entity_for_both_directions(server, memory):
    kg = open_sparql(server.url)
    kg.relation_names()  # the relations and their names: asked once per client (one request)
    before = len(server.queries)
    assert _view(kg, E("Tom Hanks")) == _view(memory, E("Tom Hanks"))
    assert len(server.queries) - before == 1  # out and in edges and the label in one query
    assert kg.relations(E("Tom Hanks"), direction="in") == memory.relations(E("Tom Hanks"), direction="in")
    assert len(server.queries) - before == 1  # cached
    assert kg.cache_info()["hits"] >= 1 and kg.cache_info()["misses"] == 1


def test_prefetch_batches_a_frontier_and_matches_memory(server, memory):
    kg = open_sparql(server.url, batch_size=50)
    kg.relation_names()  # the relations and their names: asked once per client (one request)
    entities = sorted(memory.entity_ids())
    before = len(server.queries)
    assert kg.prefetch(entities) == len(entities)
    sent = server.queries[before:]
    assert len(sent) == -(-len(entities) // 50)  # ceil: one request per batch
    assert all("VALUES ?n" in q for q in sent)
    assert any(len(q) > MAX_GET_QUERY_CHARS for q in sent)  # long enough to be POSTed, and answered
    before = len(server.queries)
    for entity in entities:
        assert _view(kg, entity) == _view(memory, entity), entity
    assert len(server.queries) == before  # everything from the cache, labels too
    assert kg.prefetch(entities) == 0


def test_path_search_requests_scale_with_batches_not_entities(server, memory):
    kg = open_sparql(server.url, batch_size=100)
    starts = [E(n) for n in ("Tom Hanks", "Robert Zemeckis", "Steven Spielberg", "Meg Ryan")]
    before = len(server.queries)
    got = retrieve_paths(kg, starts, ("^starred_actors", "directed_by"))
    want = retrieve_paths(memory, starts, ("^starred_actors", "directed_by"))
    assert got.paths == want.paths and len(got.paths) > 30
    entities = {n for p in got.paths for n in (p.start.id, *(s.tail.id for s in p.steps))}
    assert len(server.queries) - before <= 4 < len(entities)
    before = len(server.queries)
    assert retrieve_paths(kg, starts, ("^starred_actors", "directed_by")).paths == want.paths
    assert len(server.queries) == before


@pytest.mark.parametrize("starts", [["Tom Hanks"], ["Forrest Gump"], ["Drama"], ["Meg Ryan", "Big"]])
def test_candidate_relation_paths_take_one_request_per_layer(server, memory, starts):
    """Every candidate of a layer and its walkability in one query: the memory backend's candidates, in order."""
    starts = [E(name) for name in starts]
    kg = open_sparql(server.url)
    kg.prefetch(starts)  # what linking fetches; the first layer is read from these edges
    before = len(server.queries)
    got = walkable_relation_paths(kg, starts, max_hops=3)
    assert got == walkable_relation_paths(memory, starts, max_hops=3) and any(len(p) == 3 for p in got)
    assert len(server.queries) - before == 2  # layers 2 and 3


def test_every_plan_is_retrieved_in_one_request_and_its_labels_in_one_more(server, memory):
    starts = [E("Tom Hanks"), E("Meg Ryan")]
    plans = [("^starred_actors", "directed_by"), ("^directed_by",), ("^starred_actors", "starred_actors", "^starred_actors")]
    kg = open_sparql(server.url)
    kg.relation_names()  # names learnt (one request) before counting
    before = len(server.queries)
    got = retrieve_many_paths(kg, starts, plans)
    want = retrieve_many_paths(memory, starts, plans)
    assert [r.paths for r in got] == [r.paths for r in want] and all(r.paths for r in got)
    assert not any(r.truncated for r in got)
    assert len(server.queries) - before == 2  # the paths, then the names of their nodes (a node may have many)
    assert [r.paths for r in retrieve_many_paths(kg, starts, plans)] == [r.paths for r in want]
    assert len(server.queries) - before == 2  # asked again: from the client's cache


@pytest.mark.parametrize("max_paths", [1, 3, 20])
def test_a_cut_plan_is_walked_step_by_step_and_cut_as_in_memory(server, memory, max_paths):
    starts = [E("Tom Hanks"), E("Meg Ryan")]
    plans = [("^starred_actors", "starred_actors", "^starred_actors"), ("^directed_by",)]
    relevance = lambda entity: float("Sleepless" in entity.label)  # noqa: E731
    for score in (None, relevance):
        got = retrieve_many_paths(open_sparql(server.url), starts, plans, max_paths=max_paths, relevance=score)
        want = retrieve_many_paths(memory, starts, plans, max_paths=max_paths, relevance=score)
        assert [(r.paths, r.truncated, r.dropped, r.dropped_unread) for r in got] == \
            [(r.paths, r.truncated, r.dropped, r.dropped_unread) for r in want]
        assert got[0].truncated


def test_a_walk_cut_by_its_limit_reads_again_only_the_nodes_the_cut_read_left_partial(server, memory):
    """At a cut the batch's counts say which nodes come whole before it; those the cut read already holds whole
    are not asked for again (a hub's thousands of targets were read twice)."""
    films = sorted(memory.walk([E("Tom Hanks")], "^starred_actors")[E("Tom Hanks")])
    kg = open_sparql(server.url)
    kg.relation_names()
    for limit in (3, 7, 12, 20):
        kg.store.clear()
        before = len(server.queries)
        got = kg.walk(films, "starred_actors", limit=limit)
        want = memory.walk(films, "starred_actors", limit=limit)
        assert {k: list(v) for k, v in got.items()} == {k: list(v) for k, v in want.items()}, limit
        sent = server.queries[before:]
        assert "LIMIT %d" % (limit + 1) in sent[0] and "COUNT" in sent[1]  # the cut read, then the counts
        reread = [sum(f"<{film}>" in query for film in films) for query in sent[2:]]
        assert reread in ([], [1]), (limit, reread)  # at most the one node the limit cut in the middle
    assert len(sent) == 2  # limit 20: the cut fell between two nodes, nothing is read again


def test_labels_are_fetched_in_batches_and_misses_are_remembered(server, memory):
    kg = open_sparql(server.url, batch_size=40)
    films = memory.neighbors(E("Tom Hanks"), "^starred_actors") + [E("No Such Film")]
    before = len(server.queries)
    assert kg.prefetch_labels(films) == len(films)
    assert len(server.queries) - before == 1
    assert [kg.label(f) for f in films] == [memory.label(f) for f in films]
    assert kg.label(E("No Such Film"), default=None) is None
    assert len(server.queries) - before == 1


def test_name_queries_ask_only_the_name_predicates_the_endpoint_has(server, memory):
    """Once the endpoint's predicates are known (learnt with the relation names), a name query lists only the name
    predicates it has: the sample KG uses rdfs:label alone, not the thirteen label and alias predicates a KG may
    use (each one joined with every node asked about cost Virtuoso up to ten times the work)."""
    films = memory.neighbors(E("Tom Hanks"), "^starred_actors")
    kg = open_sparql(server.url)
    kg.prefetch_labels(films[:2])  # predicates not known yet: every name predicate is asked for
    assert "skos/core#prefLabel" in server.queries[-1] and "rdf-schema#label" in server.queries[-1]
    kg.relation_names()
    before = len(server.queries)
    assert kg.prefetch_labels(films) == len(films) - 2
    asked = server.queries[before:]
    assert len(asked) == 1 and "rdf-schema#label" in asked[0]
    assert not any(name in asked[0] for name in ("prefLabel", "altLabel", "schema.org/name", "type.object.name"))
    assert [kg.label(f) for f in films] == [memory.label(f) for f in films]


def test_small_pages_give_complete_answers(server, memory):
    kg = open_sparql(server.url, page_size=7)
    assert sorted(kg.entity_ids()) == sorted(memory.entity_ids())
    assert kg.relation_names() == memory.relation_names()
    assert {k: sorted(v) for k, v in kg.label_index().items()} == {k: sorted(v) for k, v in memory.label_index().items()}
    for name in ("Tom Hanks", "Drama", "English"):
        assert _view(kg, E(name)) == _view(memory, E(name))
    assert any("OFFSET" in q for q in server.queries)


def test_a_walk_longer_than_a_page_is_paged_in_order_from_its_first_request(server, memory):
    """A walk (a hub's targets) is paged in a fixed order at once: no unordered first page asked and thrown away."""
    kg = open_sparql(server.url, page_size=7)
    kg.relation_names()
    want = memory.walk([E("Drama")], "^has_genre", limit=1000)
    films = len(want[E("Drama")])
    assert films > 7 and all(memory.label(film, default=None) for film in want[E("Drama")])  # one row per film
    before = len(server.queries)
    assert {k: list(v) for k, v in kg.walk([E("Drama")], "^has_genre", limit=1000).items()} == \
        {k: list(v) for k, v in want.items()}
    sent = server.queries[before:]
    assert len(sent) == films // 7 + 1 and all("ORDER BY" in query and "OFFSET" in query for query in sent)


def test_bounded_cache(server, memory):
    kg = open_sparql(server.url, cache_size=5, batch_size=3)
    entities = sorted(memory.entity_ids())[:40]
    kg.prefetch(entities)
    info = kg.cache_info()
    assert info["entities"] == 5 and info["labels"] <= 5
    assert _view(kg, entities[0]) == _view(memory, entities[0])  # evicted, fetched again
    assert kg.cache_info()["requests"] > info["requests"]


def test_ids_that_are_not_iris_are_absent_and_never_sent(server, memory):
    kg = open_sparql(server.url)
    before = len(server.queries)
    for text in ["Tom Hanks", "a <b> c", "{", ""]:
        assert not kg.has_entity(text) and kg.edges(text) == {} and kg.relations(text) == []
        assert kg.label(text, default=None) is None
    assert kg.prefetch(["Tom Hanks", "x y"]) == 0 and kg.prefetch_labels(["Tom Hanks"]) == 0
    assert len(server.queries) == before


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="batch_size"):
        open_sparql("http://127.0.0.1:9/sparql", batch_size=0)
    with pytest.raises(ValueError, match="one default graph"):
        open_sparql("http://127.0.0.1:9/sparql?default-graph-uri=urn:a&default-graph-uri=urn:b")


def test_per_query_timeout_overrides_the_endpoint_timeout():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)  # accepts, never answers
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/sparql"
    try:
        kg = open_sparql(url, timeout=60)
        started = time.perf_counter()
        with pytest.raises(KGQueryError) as err:
            kg.query("SELECT * WHERE { ?s ?p ?o } LIMIT 1", timeout=1)
        assert url in str(err.value)
        assert time.perf_counter() - started < 30  # far below the endpoint's 60 s
    finally:
        listener.close()


def test_open_kg_passes_the_timeout():
    kg = open_kg("http://127.0.0.1:9/sparql?default-graph-uri=urn:g", timeout=7)
    assert kg.backend == "sparql" and kg.graph.store.timeout == 7
    assert str(kg.graph.identifier) == "urn:g"


# ---------------------------------------------------------------- bindings inside the WHERE group
HOSTILE = ['a "quoted" } { DROP ALL', "line\nbreak", "back\\slash \\u0041", "Zoë 東京 🎬", "'single'"]


@pytest.mark.parametrize("text", HOSTILE)
def test_bind_values_keeps_terms_inside_one_literal(text):
    query = bind_values("SELECT ?s WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l }", {"l": Literal(text)})
    check_read_only(query)  # still one read query
    assert query.startswith("SELECT ?s WHERE { VALUES (?l) { (")


def test_bind_values_finds_the_where_group():
    binding = {"x": URIRef("http://example.org/x")}
    assert bind_values('PREFIX a: <urn:{> SELECT ?s WHERE { ?s ?p "{" }', binding) == \
        'PREFIX a: <urn:{> SELECT ?s WHERE { VALUES (?x) { (<http://example.org/x>) }  ?s ?p "{" }'
    construct = bind_values("CONSTRUCT { ?x ?p ?o } WHERE { ?x ?p ?o }", binding)
    assert construct == "CONSTRUCT { ?x ?p ?o } WHERE { VALUES (?x) { (<http://example.org/x>) }  ?x ?p ?o }"
    with pytest.raises(ValueError):
        values_block({"x y": URIRef("urn:a")})
    with pytest.raises(ValueError):
        values_block({"x": URIRef("urn:a> } DROP ALL {")})


def test_unprojected_bindings_work_on_the_endpoint(server, fixtures_dir):
    memory = load_kg(fixtures_dir / "kg" / "labels.ttl")
    with SparqlServer(store_from_graph(memory.graph)) as srv:
        kg = open_sparql(srv.url)
        for text in ["Tom \"The Bomb\" O'Neil", "Closing } brace } DROP ALL { ?s ?p ?o }", "Zoë Ørsted – 東京 🎬"]:
            rows = kg.query("SELECT ?s WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l }",
                            bindings={"l": Literal(text)})
            assert [str(r[0]) for r in rows] == [e.id for e in memory.find_entities(text)]
            assert "VALUES (?l)" in srv.queries[-1] and srv.queries[-1].rstrip().endswith("}")


# ---------------------------------------------------------------- answers the server cut short
class _CuttingHandler(BaseHTTPRequestHandler):
    """Answers every query with one row and the headers Virtuoso sends when it cut the answer short."""

    headers_to_send: dict[str, str] = {}
    status = 200

    def log_message(self, format, *args):
        pass

    def do_GET(self):  # noqa: N802
        body = json.dumps({"head": {"vars": ["s"]}, "results": {"bindings": [
            {"s": {"type": "uri", "value": "http://example.org/a"}}]}}).encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/sparql-results+json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in self.headers_to_send.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)


def _serve(handler):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/sparql"


@pytest.mark.parametrize("status, headers", [
    (206, {"X-SQL-State": "S1TAT"}),
    (200, {"X-SQL-State": "S1TAT", "X-SQL-Message": "RC...: Returning incomplete results, query interrupted by result timeout."}),
])
def test_anytime_partial_results_are_errors_not_answers(status, headers):
    handler = type("Partial", (_CuttingHandler,), {"status": status, "headers_to_send": headers})
    httpd, url = _serve(handler)
    try:
        kg = open_sparql(url, timeout=5)
        with pytest.raises(KGQueryError, match="incomplete results") as err:
            kg.query("SELECT ?s WHERE { ?s ?p ?o }")
        assert url in str(err.value)
        with pytest.raises(KGQueryError, match="incomplete results"):
            kg.neighbors("http://example.org/a", "r")
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_row_cap_header_on_a_raw_query_is_an_error():
    handler = type("Capped", (_CuttingHandler,), {"headers_to_send": {"X-SPARQL-MaxRows": "1"}})
    httpd, url = _serve(handler)
    try:
        kg = open_sparql(url, timeout=5)
        with pytest.raises(KGQueryError, match="cut the answer at 1 rows"):
            kg.query("SELECT ?s WHERE { ?s ?p ?o }")
        with pytest.raises(KGQueryError, match="cuts answers at 1 rows"):
            kg.entity_ids().__next__()  # a cap of 1 row cannot be paged
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("method", ["rog", "tog", "tog-i", "tog2"])
def test_every_method_reports_the_endpoint_requests_of_each_question(server, method):
    from kg_agent.graphs import create_graph

    kg = open_sparql(server.url)  # cold cache
    app = create_graph(method, kg).compile()
    before = len(server.queries)
    first = app.invoke({"question": "who directed the films that [Tom Hanks] starred in"})
    sent = len(server.queries) - before
    assert sent > 0 and first["usage"]["kg_requests"] == sent
    before = len(server.queries)
    again = app.invoke({"question": "who directed the films that [Tom Hanks] starred in"})
    assert again["usage"]["kg_requests"] == len(server.queries) - before < sent  # a fresh count, warm cache


def test_a_checkpointed_thread_counts_each_turns_own_endpoint_requests(server):
    from langgraph.checkpoint.memory import InMemorySaver

    from kg_agent.graphs import create_graph

    app = create_graph("tog", open_sparql(server.url)).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "kg-requests"}}
    counts = []
    for question in ["who directed [Forrest Gump]", "who directed the films that [Tom Hanks] starred in"]:
        before = len(server.queries)
        result = app.invoke({"question": question}, config)
        counts.append((result["usage"]["kg_requests"], len(server.queries) - before))
    assert all(counted == sent > 0 for counted, sent in counts), counts  # the second turn's alone


def test_concurrent_questions_count_only_their_own_requests(server):
    from concurrent.futures import ThreadPoolExecutor

    from kg_agent.graphs import create_graph

    kg = open_sparql(server.url)
    app = create_graph("rog", kg).compile()
    questions = ["who directed the films that [Tom Hanks] starred in", "what genre is [Apollo 13]",
                 "which films did [Ron Howard] direct", "who starred in [Forrest Gump]"]
    before = len(server.queries)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda q: app.invoke({"question": q}), questions))
    counts = [r["usage"]["kg_requests"] for r in results]
    assert all(count > 0 for count in counts)
    assert sum(counts) == len(server.queries) - before == kg.request_count()


def test_local_backends_report_no_kg_requests(kg):
    from kg_agent.graphs import create_graph

    result = create_graph("rog", kg).compile().invoke({"question": "who directed [Forrest Gump]"})
    assert "kg_requests" not in result["usage"]


def test_json_result_rows_read_every_term_as_rdflibs_parser_does():
    """The endpoint client reads SPARQL JSON results itself (rdflib's parser made a Variable and a ResultRow per row):
    every kind of term, an unbound variable and the projection's order come out as rdflib reads them."""
    from io import BytesIO

    from rdflib.query import Result

    from kg_agent.kg.loading.sparql_endpoint import json_result_rows

    document = {"head": {"vars": ["s", "o", "x"]}, "results": {"bindings": [
        {"s": {"type": "uri", "value": "http://e/a"}, "o": {"type": "literal", "value": "Ä", "xml:lang": "de"},
         "x": {"type": "bnode", "value": "b0"}},
        {"s": {"type": "uri", "value": "http://e/a"},
         "o": {"type": "literal", "value": "1999", "datatype": "http://www.w3.org/2001/XMLSchema#gYear"}},
        {"o": {"type": "typed-literal", "value": "3", "datatype": "http://www.w3.org/2001/XMLSchema#integer"},
         "x": {"type": "literal", "value": "plain"}},
    ]}}
    want = [tuple(row) for row in Result.parse(BytesIO(json.dumps(document).encode()), format="json")]
    got = json_result_rows(document)
    assert got == want and [[type(t) for t in row] for row in got] == [[type(t) for t in row] for row in want]
    assert got[1][2] is None and got[2][0] is None
    assert json_result_rows({"head": {"vars": ["s"]}, "results": {"bindings": []}}) == []
