"""A remote SPARQL endpoint opened as a KG (:func:`open_sparql`): rdflib's ``SPARQLStore`` with every request
bounded in time, long queries POSTed, HTTP errors explained, cut and partial results marked or refused, and SPARQL
JSON results read straight into terms."""

from __future__ import annotations

import json
from pathlib import Path

from rdflib import Graph

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.naming import DEFAULT_NAMING, Naming
from kg_agent.kg.terms import RelationNames

#: Queries whose form-encoded text is longer than this are POSTed (SPARQL 1.1 Protocol) rather than put in the URL.
MAX_GET_QUERY_CHARS = 2000


class SPARQLEndpointError(RuntimeError):
    """The endpoint answered with an HTTP error; the message carries the status and the start of its body."""


#: Content types of SPARQL JSON results (the W3C type, and what some servers send instead).
JSON_RESULT_TYPES = frozenset({"application/sparql-results+json", "application/json"})


def json_result_rows(document: dict) -> list[tuple]:
    """The rows of a SPARQL JSON results document: tuples of rdflib terms in the order of ``head.vars`` (``None``
    for an unbound variable), each term made by rdflib's own JSON term parser (``parseJsonTerm``)."""
    from rdflib import URIRef
    from rdflib.plugins.sparql.results.jsonresults import parseJsonTerm

    variables = list(document.get("head", {}).get("vars") or [])
    iris: dict[str, URIRef] = {}  # a node met again in the same answer (a path's start, a hub) is made once

    def term(cell: dict):
        if cell["type"] != "uri":
            return parseJsonTerm(cell)
        found = iris.get(cell["value"])
        if found is None:
            found = iris[cell["value"]] = URIRef(cell["value"])
        return found

    return [tuple(term(row[name]) if name in row else None for name in variables)
            for row in document["results"].get("bindings") or []]


def _timeout_sparql_store(endpoint: str, timeout: float):
    """rdflib's ``SPARQLStore`` with every request bounded by ``timeout`` seconds.

    rdflib's ``SPARQLConnector`` calls ``urlopen`` without a timeout (its ``timeout`` keyword is stored and
    never used), so an endpoint that accepts the connection and never answers would block forever.
    Long queries (batched ``VALUES``) are POSTed; HTTP errors carry the endpoint's explanation; a result
    the server cut at its row limit is marked (``result.max_rows``, from Virtuoso's ``X-SPARQL-MaxRows``);
    a result cut short by the server's time limit (Virtuoso "anytime" queries: HTTP 206 or ``X-SQL-State:
    S1TAT``) is an error, never an answer.
    """
    import threading
    from contextlib import contextmanager
    from io import BytesIO
    from urllib.error import HTTPError
    from urllib.parse import urlencode
    from urllib.request import Request, urlopen

    from rdflib.plugins.stores.sparqlstore import SPARQLStore
    from rdflib.query import Result
    from rdflib.term import BNode

    class TimeoutSPARQLStore(SPARQLStore):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.timeout = timeout
            self._local = threading.local()

        @contextmanager
        def request_timeout(self, seconds: float | None):
            """Requests made by this thread inside the block time out after ``seconds`` instead."""
            previous = getattr(self._local, "timeout", None)
            self._local.timeout = seconds
            try:
                yield
            finally:
                self._local.timeout = previous

        def query(self, query, initNs=None, initBindings=None, queryGraph=None, DEBUG=False):  # noqa: N803
            if initBindings:  # bound inside the WHERE group, not appended (Virtuoso rejects unprojected ones)
                from kg_agent.kg.sparql import bind_values

                query, initBindings = bind_values(query, initBindings), None
            return super().query(query, initNs=initNs, initBindings=initBindings, queryGraph=queryGraph, DEBUG=DEBUG)

        def _fetch(self, query: str, default_graph=None, named_graph=None) -> tuple[str, bytes, int | None]:
            """The endpoint's answer to ``query``: its content type, body and row cap (``X-SPARQL-MaxRows``)."""
            self._queries += 1
            params = {"query": query}
            if default_graph is not None and not isinstance(default_graph, BNode):
                params["default-graph-uri"] = default_graph
            if named_graph is not None:
                params["named-graph-uri"] = named_graph
            headers = {**self.kwargs.get("headers", {}), "Accept": self.response_mime_types()}
            encoded = urlencode(params)
            if len(encoded) > MAX_GET_QUERY_CHARS:
                headers["Content-Type"] = "application/x-www-form-urlencoded"
                request = Request(self.query_endpoint, data=encoded.encode("ascii"), headers=headers, method="POST")
            else:
                separator = "&" if "?" in self.query_endpoint else "?"
                request = Request(self.query_endpoint + separator + encoded, headers=headers)
            seconds = getattr(self._local, "timeout", None) or self.timeout
            try:
                with urlopen(request, timeout=seconds) as response:
                    content_type = (response.headers.get("Content-Type") or "").split(";")[0]
                    body = response.read()
                    cut = response.headers.get("X-SPARQL-MaxRows")
                    # Virtuoso's "anytime" queries: a result interrupted by the server's timeout comes back
                    # short with X-SQL-State S1TAT (HTTP 206 or 200, depending on HTTPAnytimeStatus)
                    partial = response.status == 206 or (response.headers.get("X-SQL-State") or "").strip() == "S1TAT"
                    partial_reason = response.headers.get("X-SQL-Message") or f"HTTP {response.status}"
            except HTTPError as exc:
                detail = " ".join(exc.read(600).decode("utf-8", errors="replace").split())
                raise SPARQLEndpointError(f"HTTP {exc.code} {exc.reason}: {detail[:500]}") from exc
            if partial:
                raise SPARQLEndpointError(f"the endpoint returned incomplete results: {' '.join(partial_reason.split())[:300]}")
            return content_type, body, int(cut) if cut and cut.strip().isdigit() else None

        def _query(self, query: str, default_graph=None, named_graph=None) -> Result:
            content_type, body, max_rows = self._fetch(query, default_graph, named_graph)
            result = Result.parse(BytesIO(body), content_type=content_type)
            result.max_rows = max_rows
            return result

        def select_rows(self, query: str, queryGraph=None) -> tuple[list[tuple], int | None]:  # noqa: N803
            """The rows of a SELECT (tuples in the projection's order, ``None`` for an unbound variable) and the
            endpoint's row cap. SPARQL JSON results are read straight into terms, as rdflib's parser reads them
            but without a ``Variable`` and a ``ResultRow`` per row (a page of paths is 0.7 MB: rdflib took ~5x as
            long, holding the interpreter lock); any other format goes through rdflib."""
            graph = queryGraph if self._is_contextual(queryGraph) else None
            content_type, body, max_rows = self._fetch(query, default_graph=graph)
            if content_type in JSON_RESULT_TYPES:
                document = json.loads(body)
                if isinstance(document, dict) and isinstance(document.get("results"), dict):
                    return json_result_rows(document), max_rows
            result = Result.parse(BytesIO(body), content_type=content_type)
            return [tuple(row) for row in result], max_rows

    return TimeoutSPARQLStore(endpoint, returnFormat="json")


def open_sparql(
    endpoint: str,
    *,
    timeout: float = 30.0,
    cache_size: int = 50_000,
    default_graph: str | None = None,
    batch_size: int = 100,
    page_size: int = 5_000,
    cache_path: str | Path | None = None,
    naming: Naming = DEFAULT_NAMING,
    discover_names: bool = True,
) -> KnowledgeGraph:
    """A read-only view of a remote SPARQL endpoint (rdflib ``SPARQLStore``).

    Args:
        endpoint: the endpoint URL; a ``default-graph-uri`` parameter in it (``.../sparql?default-graph-uri=G``)
            is the same as ``default_graph=G``.
        timeout: seconds every request may take (connect and read) before it fails with ``KGQueryError``.
        cache_size: entities whose relations and neighbours (and labels) are kept in the LRU cache.
        default_graph: the graph queries run against (SPARQL protocol ``default-graph-uri``); without it the
            endpoint's own default applies (Virtuoso: every graph in the store, its system graphs too).
        batch_size: entities per batched request (``VALUES``) when a frontier's neighbours or many labels
            are fetched at once (:meth:`KnowledgeGraph.prefetch`).
        page_size: rows per request for large answers (``ORDER BY ... LIMIT ... OFFSET``); keep it below the
            server's cap (Virtuoso ``ResultSetMaxRows``, 10000 by default) — a smaller cap is detected and used.
        cache_path: a SQLite file keeping fetched neighbourhoods, labels, the label index and the relation
            list across runs (:mod:`kg_agent.kg.sparql_cache`), keyed by endpoint and default graph.
        naming: which predicates name things, which languages are shown (:class:`~kg_agent.kg.naming.Naming`).
        discover_names: also find the predicates the data names its things with (:mod:`kg_agent.kg.profile`) from
            one request for a sample of its text literals when opened (kept in ``cache_path`` when given), and read
            them as labels after the naming's own. A failed request leaves the naming as it is, with a warning.
    """
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    from rdflib import URIRef

    if batch_size < 1 or page_size < 1:
        raise ValueError(f"batch_size and page_size must be >= 1, got {batch_size} and {page_size}")

    parts = urlsplit(endpoint)
    params = parse_qsl(parts.query, keep_blank_values=True)
    graphs = [value for key, value in params if key == "default-graph-uri"]
    if len(graphs) > 1 or (graphs and default_graph is not None and graphs[0] != default_graph):
        raise ValueError(f"give one default graph, not {graphs + ([default_graph] if default_graph else [])}")
    default_graph = default_graph or (graphs[0] if graphs else None)
    rest = urlencode([(key, value) for key, value in params if key != "default-graph-uri"])
    url = urlunsplit(parts._replace(query=rest))
    store = _timeout_sparql_store(url, timeout)
    graph = Graph(store=store, identifier=URIRef(default_graph)) if default_graph else Graph(store=store)
    store_cache = None
    if cache_path is not None:
        from kg_agent.kg.sparql_cache import SparqlCache

        store_cache = SparqlCache(cache_path, f"{url} {default_graph or ''}")
    from kg_agent.kg.stores.endpoint import EndpointGraphStore

    if discover_names:
        naming = _discovered_naming(store, graph, naming, store_cache, url)

    return KnowledgeGraph(EndpointGraphStore(graph, names=RelationNames(), name=endpoint, cache_size=cache_size,
                                             batch_size=batch_size, page_size=page_size, store_cache=store_cache,
                                             naming=naming))


def _discovered_naming(store, graph: Graph, naming: Naming, store_cache, url: str) -> Naming:
    """``naming`` with the label predicates the endpoint's data names its things with (module
    :mod:`kg_agent.kg.profile`), measured on one sample of its text literals, or read from the cache."""
    import logging
    from dataclasses import asdict

    from kg_agent.kg.errors import KGError
    from kg_agent.kg.profile import KGProfile, endpoint_texts, endpoint_texts_query, measure_name_predicates

    cached = store_cache.get("profile", repr(naming)) if store_cache is not None else None
    profile = KGProfile.from_dict(cached) if isinstance(cached, dict) else None  # a cache of another version: measured
    if profile is not None:
        return profile.naming(naming)
    try:
        rows, _ = store.select_rows(endpoint_texts_query(), queryGraph=graph.identifier)
    except (KGError, SPARQLEndpointError, OSError, ValueError) as exc:  # a dead or refusing endpoint: the known label predicates only
        logging.getLogger(__name__).warning("%s: the predicates its things are named with were not measured (%s); "
                                            "the known label predicates are read", url, exc)
        return naming
    profile = measure_name_predicates(endpoint_texts(rows), naming)
    if store_cache is not None:
        store_cache.put("profile", repr(naming), asdict(profile))
    return profile.naming(naming)
