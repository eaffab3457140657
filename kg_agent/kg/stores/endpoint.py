"""The SPARQL endpoint backend: templated, batched (``VALUES``) and paged queries, an optional persistent cache."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDFS
from rdflib.term import Node

from kg_agent.kg.errors import KGQueryError
from kg_agent.kg.request_tally import note_request
from kg_agent.kg.sparql import check_read_only, sparql_iri, sparql_term
from kg_agent.kg.stores.base import Edges, LazyGraphStore, absolute_or_literal
from kg_agent.kg.terms import LABEL_PREDICATES, RelationNames, node_key
from kg_agent.kg.types import base_relation, inverse, is_inverse

if TYPE_CHECKING:
    from kg_agent.kg.sparql_cache import SparqlCache


class EndpointGraphStore(LazyGraphStore):
    """A remote SPARQL endpoint through rdflib's ``SPARQLStore`` (read-only).

    An entity's edges in both directions come in one request; a frontier's neighbours and many entities'
    labels are fetched ``batch_size`` per request (``VALUES``); large answers are paged below the server's
    row cap (Virtuoso's ``ResultSetMaxRows``) instead of being silently cut. ``store_cache`` (a
    :class:`~kg_agent.kg.sparql_cache.SparqlCache`) is consulted before every request and filled after it.
    """

    kind = "sparql"
    batched = True

    def __init__(self, graph: Graph, *, names: RelationNames, name: str, cache_size: int = 10_000,
                 batch_size: int = 100, page_size: int = 5_000, store_cache: SparqlCache | None = None) -> None:
        super().__init__(graph, names=names, name=name, cache_size=cache_size, batch_size=batch_size)
        if page_size < 1:
            raise ValueError(f"page_size must be >= 1, got {page_size}")
        self.page_size = page_size
        self.store_cache = store_cache
        self._requests = 0
        self._count_lock = threading.Lock()
        self._following: dict[str, list[str]] = {}

    def request_count(self) -> int:
        return self._requests

    def _count_request(self) -> None:
        with self._count_lock:
            self._requests += 1
            note_request()

    def queryable(self, key: str) -> bool:
        # an endpoint refuses a relative IRI (HTTP 400): a bare name such as "Big" cannot be in it
        return super().queryable(key) and absolute_or_literal(key)

    # ---------------------------------------------------------------- requests
    def select(self, query: str, variables: str, what: str) -> list:
        """Every row of a templated SELECT (projecting exactly ``variables``) on the endpoint.

        Asked once with ``LIMIT page_size``; when the page comes back full, the rows are fetched again
        page by page in a fixed order: an ordered sub-select, paged outside
        (``SELECT v { { query ORDER BY v } } LIMIT n OFFSET k``) — Virtuoso refuses ``ORDER BY`` with
        ``OFFSET + LIMIT`` above its ``MaxSortedTopRows`` (error SR353) but pages a sub-select. A server
        that cuts answers below ``page_size`` (Virtuoso's ``ResultSetMaxRows``, reported in
        ``X-SPARQL-MaxRows``) makes the page smaller.
        """
        store = self.graph.store
        identifier = self.graph.identifier

        def ask(text: str):
            self._count_request()
            try:
                result = store.query(text, initNs={}, queryGraph=identifier)
                rows = list(result)
            except Exception as exc:  # network errors, endpoint errors
                raise KGQueryError(f"{self.name}: could not read {what}: {exc}") from exc
            cut = getattr(result, "max_rows", None)
            return rows, (cut is not None and len(rows) >= cut), cut

        page = self.page_size
        rows, cut_short, cap = ask(f"{query} LIMIT {page}")
        if len(rows) < page and not cut_short:
            return rows
        while True:
            if cut_short:
                if cap is None or cap < 2:
                    raise KGQueryError(f"{self.name}: the endpoint cuts answers at {cap} rows; cannot page {what}")
                page = self.page_size = min(page, cap) - 1
            found: list = []
            offset = 0
            while True:
                rows, cut_short, cap = ask(
                    f"SELECT {variables} WHERE {{ {{ {query} ORDER BY {variables} }} }} LIMIT {page} OFFSET {offset}")
                if cut_short:
                    break  # the server's cap is below the page: start again with smaller pages
                found.extend(rows)
                if len(rows) < page:
                    return found
                offset += page

    # ---------------------------------------------------------------- neighbourhoods and labels
    def fetch_neighbourhoods(self, keys: Sequence[str]) -> dict[str, Edges]:
        """Edges in both directions of up to ``batch_size`` entities: from the store cache, else one request."""
        if self.store_cache is None:
            return self._query_neighbourhoods(keys)[0]
        found: dict[str, Edges] = {}
        labels = self.store_cache.get_many("label", keys)
        for key, stored in self.store_cache.get_many("edges", keys).items():
            found[key] = {self._stored_relation(rel): targets for rel, targets in stored.items()}
            if key in labels:
                self.remember_label(key, labels[key])
        todo = [key for key in keys if key not in found]
        if todo:
            fetched, labels = self._query_neighbourhoods(todo)
            self.store_cache.put_many("edges", {
                key: {self._storable_relation(rel): targets for rel, targets in rels.items()}
                for key, rels in fetched.items()})
            self.store_cache.put_many("label", labels)
            found.update(fetched)
        return found

    def _storable_relation(self, name: str) -> str:
        """A relation name as stored in the store cache: its predicate IRI (``^IRI`` for incoming)."""
        iri = self.names.by_name[base_relation(name)]
        return inverse(iri) if is_inverse(name) else iri

    def _stored_relation(self, stored: str) -> str:
        name = self.names.name(base_relation(stored))
        return inverse(name) if is_inverse(stored) else name

    def _query_neighbourhoods(self, keys: Sequence[str]) -> tuple[dict[str, Edges], dict[str, str | None]]:
        """Edges in both directions of up to ``batch_size`` entities in one request (``VALUES``), and their labels."""
        terms = {key: self.term(key) for key in keys}
        values = " ".join(sparql_term(t) for t in terms.values())
        query = "SELECT ?n ?p ?o ?s WHERE { VALUES ?n { %s } { ?n ?p ?o } UNION { ?s ?p ?n } }" % values
        what = f"the neighbours of {keys[0]}" if len(keys) == 1 else f"the neighbours of {len(keys)} entities"
        rows = self.select(query, "?n ?p ?o ?s", what)
        by_term = {term: key for key, term in terms.items()}
        found: dict[str, Edges] = {key: {} for key in keys}
        labelled: dict[str, str | None] = {}
        name = self.names.name
        for n, p, o, s in rows:
            key = by_term.get(n)
            if key is None:
                key = node_key(n)
                if key not in found:
                    continue
            rels = found[key]
            if o is not None:
                if p in LABEL_PREDICATES:
                    if p == RDFS.label and key not in labelled:
                        labelled[key] = str(o)
                        self.remember_label(key, str(o))
                    continue
                rels.setdefault(name(p), []).append(node_key(o))
            elif s is not None and p not in LABEL_PREDICATES:
                rels.setdefault(inverse(name(p)), []).append(node_key(s))
        for key, rels in found.items():
            for rel, targets in rels.items():
                rels[rel] = sorted(set(targets))
            if key not in labelled and not isinstance(terms[key], Literal):
                labelled[key] = None
                self.remember_label(key, None)
        return found, labelled

    def fetch_labels(self, keys: Sequence[str]) -> dict[str, str | None]:
        found: dict[str, str | None] = {}
        if self.store_cache is not None:
            found.update(self.store_cache.get_many("label", keys))
        todo = [key for key in keys if key not in found]
        if todo:
            terms = {key: self.term(key) for key in todo}
            query = "SELECT ?n ?l WHERE { VALUES ?n { %s } ?n %s ?l }" % (
                " ".join(sparql_term(t) for t in terms.values()), sparql_iri(RDFS.label))
            rows = self.select(query, "?n ?l", f"the labels of {len(todo)} entities")
            labels: dict[str, str] = {}
            for n, label in rows:
                labels.setdefault(node_key(n), str(label))
            fetched = {key: labels.get(key) for key in todo}
            if self.store_cache is not None:
                self.store_cache.put_many("label", fetched)
            found.update(fetched)
        return found

    # ---------------------------------------------------------------- whole-graph lists
    def predicate_iris(self) -> list[str]:
        stored = self.store_cache.get("relations") if self.store_cache is not None else None
        if stored is None:
            rows = self.select("SELECT DISTINCT ?p WHERE { ?s ?p ?o }", "?p", "the relations")
            stored = [str(p) for (p,) in rows if isinstance(p, URIRef) and p not in LABEL_PREDICATES]
            if self.store_cache is not None:
                self.store_cache.put("relations", "", stored)
        return stored

    def following(self, signed_iri: str) -> Iterable[str]:
        """The relation index's row for ``signed_iri``, asked of the endpoint (one query per relation, cached).

        Same rule as :class:`~kg_agent.kg.relation_index.RelationIndex`: ``b`` can follow ``a`` when some node
        reached over ``a`` has ``b`` (outgoing ``IRI``, incoming ``^IRI``); label predicates are left out.
        """
        with self._count_lock:
            cached = self._following.get(signed_iri)
        if cached is None and self.store_cache is not None:
            cached = self.store_cache.get("following", signed_iri)
        if cached is None:
            incoming = signed_iri.startswith("^")
            predicate = sparql_iri(URIRef(signed_iri[1:] if incoming else signed_iri))
            # the distinct nodes reached first: joined pair by pair, a hub (a genre of 54k films) is expanded
            # once per edge into it, which times out on a 1M-triple Virtuoso
            arrive = "{ SELECT DISTINCT ?x WHERE { %s } }" % (f"?x {predicate} ?a" if incoming else f"?a {predicate} ?x")
            not_labels = ", ".join(sparql_iri(p) for p in sorted(LABEL_PREDICATES))
            query = ("SELECT DISTINCT ?q ?in WHERE { %s { ?x ?q ?o BIND(false AS ?in) } UNION "
                     "{ ?o ?q ?x BIND(true AS ?in) } FILTER(?q NOT IN (%s)) }" % (arrive, not_labels))
            rows = self.select(query, "?q ?in", f"the relations that can follow {signed_iri}")
            cached = sorted({("^" if bool(getattr(flag, "value", flag)) else "") + str(q)
                             for q, flag in rows if isinstance(q, URIRef)})
            if self.store_cache is not None:
                self.store_cache.put("following", signed_iri, cached)
        with self._count_lock:
            self._following[signed_iri] = cached
        return cached

    def labelled_nodes(self) -> Iterable[tuple[str, str]]:
        stored = self.store_cache.get("label_index") if self.store_cache is not None else None
        if stored is None:
            query = "SELECT ?s ?l WHERE { ?s %s ?l }" % sparql_iri(RDFS.label)
            stored = [(node_key(s), str(o)) for s, o in self.select(query, "?s ?l", "the labels")]
            if self.store_cache is not None:
                self.store_cache.put("label_index", "", stored)
        return [tuple(pair) for pair in stored]

    def node_ids(self) -> Iterator[str]:
        not_labels = ", ".join(sparql_iri(p) for p in sorted(LABEL_PREDICATES))
        query = "SELECT DISTINCT ?n WHERE { { ?n ?p ?o } UNION { ?s ?p ?n } FILTER(?p NOT IN (%s)) }" % not_labels
        for (n,) in self.select(query, "?n", "the entities"):
            yield node_key(n)

    # ---------------------------------------------------------------- SPARQL and lifecycle
    def query(self, sparql: str, *, bindings: Mapping[str, Node] | None = None, timeout: float | None = None):
        check_read_only(sparql)
        override = getattr(self.graph.store, "request_timeout", None)
        self._count_request()
        try:
            if timeout is not None and override is not None:
                with override(timeout):
                    result = self.graph.query(sparql, initBindings=dict(bindings or {}))
            else:
                result = self.graph.query(sparql, initBindings=dict(bindings or {}))
        except Exception as exc:
            raise KGQueryError(f"{self.name}: query failed: {exc}") from exc
        cap = getattr(result, "max_rows", None)
        if cap is not None and getattr(result, "type", None) == "SELECT" and len(result) >= cap:
            raise KGQueryError(f"{self.name}: the endpoint cut the answer at {cap} rows (its result cap, e.g. "
                               "Virtuoso's ResultSetMaxRows); page with ORDER BY ... LIMIT ... OFFSET")
        return result

    def close(self) -> None:
        if self.store_cache is not None:
            self.store_cache.close()
        super().close()
