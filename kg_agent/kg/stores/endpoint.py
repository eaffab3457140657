"""The SPARQL endpoint backend: templated, batched (``VALUES``) and paged queries, an optional persistent cache."""

from __future__ import annotations

import hashlib
import logging
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from kg_agent.kg.errors import KGError, KGQueryError
from kg_agent.kg.naming import DEFAULT_NAMING, DOMAIN_PREDICATES, RANGE_PREDICATES, WIKIBASE_PROPERTY_LINKS, Naming
from kg_agent.kg.owl_restrictions import RESTRICTION_EDGES_QUERY, restriction_edge_pattern, restriction_end_filter
from kg_agent.kg.request_tally import note_request
from kg_agent.kg.sparql import check_read_only, sparql_bool, sparql_iri, sparql_term
from kg_agent.kg.stores.base import (
    BoundedEdges,
    Edges,
    LRUCache,
    NameLiterals,
    RelationNaming,
    absolute_or_literal,
    name_relations,
    sample_ends_query,
    wikidata_property_entities,
)
from kg_agent.kg.stores.endpoint_paths import EndpointRelationPaths
from kg_agent.kg.terms import RelationNames, is_value, node_key
from kg_agent.kg.types import base_relation, inverse, is_inverse

if TYPE_CHECKING:
    from kg_agent.kg.sparql_cache import SparqlCache


#: Relation paths whose complete node paths a client keeps (a retrieval asked again sends nothing).
COMPLETE_PATHS_CACHED = 256

#: The store cache's kinds for the predicates the KG's OWL class restrictions state edges of, and for those edges
RESTRICTED_KIND = "restriction_relations"
DERIVED_KIND = "restriction_edges"

#: The edges an endpoint's class restrictions state that a client reads and keeps (an ontology states thousands; the
#: Gene Ontology, about 100,000)
MAX_DERIVED_EDGES = 200_000

logger = logging.getLogger(__name__)


class EndpointGraphStore(EndpointRelationPaths):
    """A remote SPARQL endpoint through rdflib's ``SPARQLStore`` (read-only).

    An entity's edges in both directions come in one request, many entities' edges ``batch_size`` per
    request (``VALUES``); a walk over one relation and labels come 1,000 entities per request
    (:attr:`walk_batch_size`, the walk's targets with their labels); large answers are paged below the server's
    row cap (Virtuoso's ``ResultSetMaxRows``) instead of being silently cut. ``store_cache`` (a
    :class:`~kg_agent.kg.sparql_cache.SparqlCache`) is consulted before every request and filled after it.

    RoG's work on a question is a few requests (docs/benchmarks.md, section 2): a whole layer of candidate
    relation paths in one query (:meth:`walkable_extensions`), and every plan's reasoning paths with their
    labels in one more (:meth:`complete_paths`).

    The edges an ontology's OWL class restrictions state (:mod:`kg_agent.kg.owl_restrictions`: "a Station has some
    Platform" read as ``Station has_part Platform``), which memory adds to its own parse and an Oxigraph store keeps
    in a named graph, cannot be written to an endpoint (the agent never writes to the KG). Which predicates they are
    is learnt with the relations (:meth:`_restricted_iris`, no request of its own); the edges themselves are read
    once (:meth:`_derived_edges`, one request) and added to the neighbourhoods, relations at nodes and relation index
    rows read; a walk over such a predicate matches them in the engine too (:meth:`_facts`, a ``UNION`` with the
    restriction's shape), and the relation paths a layer or a plan asks find them at the nodes they reach
    (:func:`~kg_agent.kg.owl_restrictions.restriction_end_filter`). For a KG without restrictions every query stays
    as it was.
    """

    kind = "sparql"
    batched = True
    answers_complete_paths = True

    def __init__(self, graph: Graph, *, names: RelationNames, name: str, cache_size: int = 50_000,
                 batch_size: int = 100, page_size: int = 5_000, store_cache: SparqlCache | None = None,
                 naming: Naming = DEFAULT_NAMING) -> None:
        super().__init__(graph, names=names, name=name, cache_size=cache_size, batch_size=batch_size, naming=naming)
        #: name, description and property-schema predicates, which are not relations (``FILTER(?q NOT IN (...))``)
        self._not_facts = ", ".join(sparql_iri(p) for p in sorted(naming.not_fact_predicates))
        #: the store cache's kind for display labels: they depend on the naming
        self._label_kind = "label" if naming == DEFAULT_NAMING else f"label {naming.key}"
        if page_size < 1:
            raise ValueError(f"page_size must be >= 1, got {page_size}")
        self.page_size = page_size
        self.store_cache = store_cache
        self._requests = 0
        self._count_lock = threading.Lock()
        self._following: dict[str, list[str]] = {}
        self._shares: dict[str, float] = {}  # predicate IRI -> subjects per object (subjects_per_object)
        self._predicates: list[str] | None = None
        #: the predicates the KG's OWL class restrictions state edges of (None: not known yet), and those edges
        self._restricted: frozenset[str] | None = None
        self._derived: dict[str, Edges] | None = None
        self._relations_at: LRUCache = LRUCache(cache_size)  # key -> relation names, read without the edges
        self._name_literals: LRUCache = LRUCache(cache_size)  # (predicates, key) -> name literals (name_literals)
        #: (starts, relation path, max_paths, max_partial) -> node paths, for a repeated retrieval
        self._complete_paths: LRUCache = LRUCache(COMPLETE_PATHS_CACHED)

    def request_count(self) -> int:
        return self._requests

    def _present(self, predicates: Sequence[str]) -> list[str]:
        """``predicates`` less those the endpoint does not have, once its predicates are known (asked with the
        relation names, once per client): a name query with thirteen name predicates of which the graph uses one
        costs Virtuoso up to ten times the work (``VALUES ?p`` joined with every node); unknown, all of them."""
        known = self._predicates
        if known is None and self.store_cache is not None:
            known = self._predicates = self.store_cache.get("relations")
        if known is None:
            return list(predicates)
        present = set(known)
        return [p for p in predicates if p in present]

    def _name_values(self) -> str:
        return " ".join(sparql_iri(p) for p in self._present(self.naming.name_predicates))

    def _count_request(self) -> None:
        with self._count_lock:
            self._requests += 1
            note_request()

    # ---------------------------------------------------------------- edges OWL class restrictions state
    def _restricted_iris(self) -> frozenset[str]:
        """The predicates the KG's OWL class restrictions state edges of: learnt with the relations and their names
        (:meth:`_query_relation_naming`, once per client, kept in the store cache), asked on their own (one
        request) only when the relations came from a store cache written without them."""
        if self._restricted is None:
            stored = self.store_cache.get(RESTRICTED_KIND) if self.store_cache is not None else None
            if stored is None:
                self.names.resolve()  # asks the relations with their names, and these with them
                if self._restricted is not None:
                    return self._restricted
                rows = self.select("SELECT DISTINCT ?p WHERE %s" % restriction_edge_pattern("?c", "?p", "?v"), "?p",
                                   "the relations OWL class restrictions state")
                stored = self._keep_restricted(str(p) for (p,) in rows)
            self._restricted = frozenset(stored)
        return self._restricted

    def _keep_restricted(self, iris: Iterable[str]) -> list[str]:
        """Keep the predicates restrictions state edges of (for this client and in the store cache)."""
        stored = sorted(set(iris))
        self._restricted = frozenset(stored)
        if self.store_cache is not None:
            self.store_cache.put(RESTRICTED_KIND, "", stored)
        return stored

    def _derived_edges(self) -> Mapping[str, Edges]:
        """``{node: {relation name: targets}}``: the edges the KG's class restrictions state (both directions, as
        :meth:`fetch_neighbourhoods` gives them), read once per client (:data:`RESTRICTION_EDGES_QUERY`, paged) and
        kept in the store cache; empty, without a request, for a KG without restrictions. At most
        :data:`MAX_DERIVED_EDGES` are kept (a warning says when an ontology states more)."""
        if self._derived is not None:
            return self._derived
        if not self._restricted_iris():
            self._derived = {}
            return self._derived
        stored = self.store_cache.get(DERIVED_KIND) if self.store_cache is not None else None
        if stored is None:
            query = "SELECT ?c ?p ?v WHERE { { %s LIMIT %d } }" % (RESTRICTION_EDGES_QUERY, MAX_DERIVED_EDGES + 1)
            rows = self.select(query, "?c ?p ?v", "the edges OWL class restrictions state", ordered=True)
            if len(rows) > MAX_DERIVED_EDGES:
                logger.warning("%s: its OWL class restrictions state more than %d edges; the first %d are walked",
                               self.name, MAX_DERIVED_EDGES, MAX_DERIVED_EDGES)
            stored = [[node_key(c), str(p), node_key(v)] for c, p, v in rows[:MAX_DERIVED_EDGES]]
            if self.store_cache is not None:
                self.store_cache.put(DERIVED_KIND, "", stored)
        derived: dict[str, Edges] = {}
        for subject, predicate, value in stored:
            name = self.names.name(URIRef(predicate))
            derived.setdefault(subject, {}).setdefault(name, []).append(value)
            if not value.startswith('"'):  # no path goes on from a literal
                derived.setdefault(value, {}).setdefault(inverse(name), []).append(subject)
        self._derived = {key: {rel: sorted(set(targets)) for rel, targets in rels.items()}
                         for key, rels in derived.items()}
        return self._derived

    def _facts(self, subject: str, predicate: str, obj: str, *, distinct: bool = False) -> str:
        """A group matching the facts ``subject predicate obj`` (variables or SPARQL terms; the predicate a term): the
        triples, and when the KG's class restrictions state edges of the predicate, those edges too (a ``UNION``
        with :func:`~kg_agent.kg.owl_restrictions.restriction_edge_pattern`, its own variables named after the
        group's terms). ``distinct``: for a query that reads distinct rows, where an edge both stated and derived may
        match twice (the check that it is not stated costs an engine such as Virtuoso three times the time)."""
        restricted = self._restricted_iris()
        if predicate[1:-1] not in restricted:
            return "{ %s %s %s }" % (subject, predicate, obj)
        tag = "%x" % zlib.crc32(f"{subject} {predicate} {obj}".encode())
        return "{ { %s %s %s } UNION %s }" % (subject, predicate, obj, restriction_edge_pattern(
            subject, predicate, obj, tag=tag, unstated=not distinct))

    def relation_pattern(self, relation: str, here: str, there: str, *, distinct: bool = False) -> str:
        """:meth:`GraphStore.relation_pattern`, with the edges class restrictions state (:meth:`_facts`; ``distinct``:
        for a query that reads distinct rows)."""
        signed = self.signed_iri(relation)
        if signed is None:
            raise KeyError(relation)
        predicate = sparql_iri(signed.lstrip("^"))
        if signed.startswith("^"):
            return f"{self._facts(there, predicate, here, distinct=distinct)} FILTER(!isLiteral({here}))"
        return f'{self._facts(here, predicate, there, distinct=distinct)} FILTER(!isLiteral({there}) || STR({there}) != "")'

    def bounded_edges_each(self, keys: Sequence[str], bound: int) -> dict[str, BoundedEdges]:
        """The nodes' edges fetched in batches first (:meth:`prefetch`: one request per ``batch_size`` nodes), then
        split by size as :meth:`bounded_edges` splits them."""
        self.prefetch(keys)
        return super().bounded_edges_each(keys, bound)

    def queryable(self, key: str) -> bool:
        # an endpoint refuses a relative IRI (HTTP 400): a bare name such as "Big" cannot be in it
        return super().queryable(key) and absolute_or_literal(key)

    # ---------------------------------------------------------------- requests
    def select(self, query: str, variables: str, what: str, *, ordered: bool = False) -> list:
        """Every row of a templated SELECT (projecting exactly ``variables``) on the endpoint.

        Asked once with ``LIMIT page_size``; when the page comes back full, the rows are fetched again
        page by page in a fixed order (at once with ``ordered``, for an answer that may well pass a page: a
        walk's targets, a hub's paths): an ordered sub-select, paged outside
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
                if hasattr(store, "select_rows"):  # the endpoint client open_sparql makes
                    rows, cut = store.select_rows(text, queryGraph=identifier)
                else:
                    result = store.query(text, initNs={}, queryGraph=identifier)
                    rows, cut = list(result), getattr(result, "max_rows", None)
            except Exception as exc:  # network errors, endpoint errors
                raise KGQueryError(f"{self.name}: could not read {what}: {exc}") from exc
            return rows, (cut is not None and len(rows) >= cut), cut

        page = self.page_size
        cut_short, cap = False, None
        if not ordered:
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
        labels = self.store_cache.get_many(self._label_kind, keys)
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
            self.store_cache.put_many(self._label_kind, labels)
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
        """Edges in both directions of up to ``batch_size`` entities in one request (``VALUES``), and their labels;
        when a neighbour is a blank node, one more request with the blank neighbours' names (:meth:`_blank_names`)."""
        terms = {key: self.term(key) for key in keys}
        values = " ".join(sparql_term(t) for t in terms.values())
        query = "SELECT ?n ?p ?o ?s WHERE { VALUES ?n { %s } { ?n ?p ?o } UNION { ?s ?p ?n } }" % values
        what = f"the neighbours of {keys[0]}" if len(keys) == 1 else f"the neighbours of {len(keys)} entities"
        rows = self._select_naming_blanks(query, "?n ?p ?o ?s", lambda: (
            "SELECT ?n ?p ?o ?s ?bp ?bl WHERE { VALUES ?n { %s } { ?n ?p ?o %s } UNION { ?s ?p ?n %s } }"
            % (values, self._blank_names("?o", "?bp", "?bl"), self._blank_names("?s", "?bp", "?bl"))), what)
        by_term = {term: key for key, term in terms.items()}
        found: dict[str, Edges] = {key: {} for key in keys}
        literals: dict[str, NameLiterals] = {}
        blank_names: dict[str, NameLiterals] = {}
        name, is_fact, is_label = self.names.name, self.naming.is_fact, self.naming.is_label
        for n, p, o, s, bp, bl in rows:
            if n is None or p is None:  # an engine's malformed row
                continue
            if bl is not None:
                blank_names.setdefault(node_key(o if o is not None else s), []).append((str(bp), str(bl), bl.language))
            key = by_term.get(n)
            if key is None:
                key = node_key(n)
                if key not in found:
                    continue
            rels = found[key]
            predicate = str(p)
            if o is not None and is_label(predicate) and isinstance(o, Literal):  # a label or an alias (a fact too)
                literals.setdefault(key, []).append((predicate, str(o), o.language))
            if not is_fact(predicate):
                continue
            if o is not None:
                if is_value(o):
                    rels.setdefault(name(p), []).append(node_key(o))
            elif s is not None and not isinstance(terms[key], Literal):  # no path goes on from a literal
                rels.setdefault(inverse(name(p)), []).append(node_key(s))
        derived = self._derived_edges()
        labelled: dict[str, str | None] = {}
        for key, rels in found.items():
            for rel, targets in derived.get(key, {}).items():
                rels.setdefault(rel, []).extend(targets)
            for rel, targets in rels.items():
                rels[rel] = sorted(set(targets))
            if not isinstance(terms[key], Literal):
                labelled[key] = self.naming.display(literals.get(key, ()))
                self.remember_label(key, labelled[key])
        labelled.update(self._remember_blank_labels(  # kept with the edges in a store cache too
            blank_names, {t for rels in found.values() for targets in rels.values() for t in targets}))
        return found, labelled

    def fetch_labels(self, keys: Sequence[str]) -> dict[str, str | None]:
        found: dict[str, str | None] = {}
        if self.store_cache is not None:
            found.update(self.store_cache.get_many(self._label_kind, keys))
        todo = [key for key in keys if key not in found]
        if todo:
            fetched = self.display_labels(todo)
            if self.store_cache is not None:
                self.store_cache.put_many(self._label_kind, fetched)
            found.update(fetched)
        return found

    def name_literals(self, keys: Sequence[str], predicates: Sequence[str]) -> dict[str, NameLiterals]:
        """One request per :attr:`walk_batch_size` nodes (``VALUES``) not read before; blank nodes cannot be asked
        about. What a node's names are is kept per node and predicates, in memory and in the store cache
        (``--kg-cache``): a question's steps ask for the names of its topic entities more than once (to mask every
        name they go by), and a rerun over the cache asks nothing."""
        keys = [key for key in dict.fromkeys(keys) if not key.startswith(("_:", '"')) and self.queryable(key)]
        found: dict[str, NameLiterals] = {}
        present = self._present(predicates)
        if not present:
            return found
        kind = "names " + hashlib.sha1("\x1f".join(present).encode("utf-8")).hexdigest()[:16]
        todo = []
        with self._lock:
            for key in keys:
                cached = self._name_literals.get_or_none((kind, key))
                if cached is None:
                    todo.append(key)
                elif cached:
                    found[key] = list(cached)
        if todo and self.store_cache is not None:
            for key, stored in self.store_cache.get_many(kind, todo).items():
                literals = [(str(p), str(text), language) for p, text, language in stored]
                with self._lock:
                    self._name_literals.put((kind, key), literals)
                if literals:
                    found[key] = literals
            todo = [key for key in todo if (kind, key) not in self._name_literals]
        wanted = " ".join(sparql_iri(p) for p in present)
        fetched: dict[str, NameLiterals] = {}
        for start in range(0, len(todo), self.walk_batch_size):
            batch = todo[start:start + self.walk_batch_size]
            query = "SELECT ?n ?p ?l WHERE { VALUES ?n { %s } VALUES ?p { %s } ?n ?p ?l FILTER(isLiteral(?l)) }" % (
                " ".join(sparql_term(self.term(key)) for key in batch), wanted)
            for n, p, label in self.select(query, "?n ?p ?l", f"the names of {len(batch)} nodes"):
                fetched.setdefault(node_key(n), []).append((str(p), str(label), label.language))
        if todo:
            with self._lock:
                for key in todo:
                    self._name_literals.put((kind, key), fetched.get(key, []))
            if self.store_cache is not None:
                self.store_cache.put_many(kind, {key: fetched.get(key, []) for key in todo})
        found.update(fetched)
        return found

    def relation_naming(self) -> RelationNaming:
        """Asked once per client (and kept in the store cache)."""
        kind = "relation_naming with aliases, ranges and descriptions"
        stored = self.store_cache.get(kind, self.naming.key) if self.store_cache is not None else None
        if stored is None:
            stored = self._query_relation_naming()
            if self.store_cache is not None:
                self.store_cache.put(kind, self.naming.key, list(stored))
        iris, labels, schema_nodes, aliases, descriptions = stored
        return RelationNaming(list(iris), dict(labels), list(schema_nodes),
                              {iri: list(texts) for iri, texts in aliases.items()}, dict(descriptions))

    def _query_relation_naming(self) -> RelationNaming:
        """:meth:`GraphStore.relation_naming` in one request: the predicates (unless the client knows them), the labels,
        aliases and descriptions of each and of the Wikibase property entities that stand for them, and the names of
        the classes of their values and subjects (``rdfs:range``, ``rdfs:domain``; a class without a name is not
        asked for: no label, nothing to link)."""
        names = " ".join(sparql_iri(p) for p in self.naming.name_predicates)
        described = " ".join(sparql_iri(p) for p in dict.fromkeys(self.naming.name_predicates
                                                                  + self.naming.description_predicates))
        labelled = ("{ VALUES ?lp { %s } ?p ?lp ?l } UNION { VALUES ?link { %s } VALUES ?lp { %s } ?prop ?link ?p . "
                    "?prop ?lp ?l } UNION { VALUES ?link { %s } VALUES ?lp { %s } ?p ?link ?prop . ?prop ?lp ?l }"
                    % (described, " ".join(sparql_iri(link) for link in WIKIBASE_PROPERTY_LINKS), described,
                       " ".join(sparql_iri(link) for link in DOMAIN_PREDICATES + RANGE_PREDICATES), names))
        known = self._predicates
        if known is None and self.store_cache is not None:
            known = self.store_cache.get("relations")
        if known is None:  # the predicates and their names at once, and which ones class restrictions state edges of
            restricted = restriction_edge_pattern("?c", "?p", "?v")
            query = ("SELECT ?p ?d ?prop ?link ?lp ?l WHERE { { { SELECT DISTINCT ?p WHERE { { ?s ?p ?o } UNION %s } } "
                     "OPTIONAL { %s FILTER(isLiteral(?l)) } } UNION { SELECT DISTINCT ?p (1 AS ?d) WHERE %s } }"
                     % (restricted, labelled, restricted))
        else:
            iris = [iri for iri in known if self.naming.is_fact(iri)]
            if not iris:
                return RelationNaming(iris, {}, [], {}, {})
            query = "SELECT ?p ?prop ?link ?lp ?l WHERE { VALUES ?p { %s } { %s } FILTER(isLiteral(?l)) }" % (
                " ".join(sparql_iri(iri) for iri in iris), labelled)
        if known is None:
            rows = self.select(query, "?p ?d ?prop ?link ?lp ?l", "the relations and their names", ordered=True)
            self._keep_restricted(str(p) for p, d, *_ in rows if d is not None)
            rows = [(p, *rest) for p, d, *rest in rows if d is None]
            known = list(dict.fromkeys(str(p) for p, *_ in rows if isinstance(p, URIRef)))
            if self.store_cache is not None:
                self.store_cache.put("relations", "", known)
        else:
            rows = self.select(query, "?p ?prop ?link ?lp ?l", "the relations and their names")
        self._predicates = known
        literals: dict[str, NameLiterals] = {}
        links: dict[tuple[str, str, str], None] = {}
        for p, prop, link, lp, label in rows:
            if label is None:  # a predicate without a name
                continue
            node = str(p) if link is None else node_key(prop)
            literals.setdefault(node, []).append((str(lp), str(label), label.language))
            if link is not None:
                links[(node, str(link), str(p))] = None
        iris = [iri for iri in known if self.naming.is_fact(iri)]
        unlinked = [entity for entity in wikidata_property_entities(iris) if entity not in literals]
        if unlinked:  # Wikidata's property entities its namespaces name, when no wikibase link says so
            query = "SELECT ?prop ?lp ?l WHERE { VALUES ?prop { %s } VALUES ?lp { %s } ?prop ?lp ?l FILTER(isLiteral(?l)) }" % (
                " ".join(sparql_iri(e) for e in dict.fromkeys(unlinked)), described)
            for prop, lp, label in self.select(query, "?prop ?lp ?l", "the names of Wikidata's property entities"):
                literals.setdefault(node_key(prop), []).append((str(lp), str(label), label.language))
        return name_relations(self.naming, iris, links, lambda nodes, _predicates: literals)

    def relations_at_each(self, keys: Sequence[str]) -> dict[str, list[str]]:
        """The relation names at many nodes, :attr:`walk_batch_size` nodes per request: the distinct relations
        only (a hub's edges are not transferred), with the nodes' labels; edges already held are used as they are."""
        found: dict[str, list[str]] = {}
        todo = []
        with self._lock:
            for key in dict.fromkeys(keys):
                cached = self._edges.get_or_none(key)
                if cached is None:
                    cached = self._relations_at.get_or_none(key)
                if cached is not None:
                    found[key] = list(cached)
                elif self.queryable(key):
                    todo.append(key)
                else:
                    found[key] = []
        if self.store_cache is not None and todo:
            for kind in ("edges", "relations_at"):
                for key, stored in self.store_cache.get_many(kind, todo).items():
                    found[key] = [self._stored_relation(rel) for rel in stored]
                todo = [key for key in todo if key not in found]
        for start in range(0, len(todo), self.walk_batch_size):
            fetched, labels = self._query_relations_at(todo[start:start + self.walk_batch_size])
            with self._lock:
                for key, relations in fetched.items():
                    self._relations_at.put(key, relations)
            if self.store_cache is not None:
                self.store_cache.put_many("relations_at", {
                    key: [self._storable_relation(rel) for rel in relations] for key, relations in fetched.items()})
                self.store_cache.put_many(self._label_kind, labels)
            found.update(fetched)
        return found

    def _query_relations_at(self, keys: Sequence[str]) -> tuple[dict[str, list[str]], dict[str, str | None]]:
        """``({key: relation names}, {key: display label})`` of up to :attr:`walk_batch_size` nodes in one request."""
        terms = {key: self.term(key) for key in keys}
        query = ("SELECT DISTINCT ?n ?p ?q ?lp ?l WHERE { VALUES ?n { %s } "
                 '{ ?n ?p ?o FILTER(?p NOT IN (%s) && (!isLiteral(?o) || STR(?o) != "")) } UNION '
                 "{ ?s ?q ?n FILTER(?q NOT IN (%s) && !isLiteral(?n)) } UNION { VALUES ?lp { %s } ?n ?lp ?l } }"
                 % (" ".join(sparql_term(t) for t in terms.values()), self._not_facts, self._not_facts, self._name_values()))
        rows = self.select(query, "?n ?p ?q ?lp ?l", f"the relations at {len(keys)} entities")
        by_term = {term: key for key, term in terms.items()}
        found: dict[str, dict[str, None]] = {key: {} for key in keys}
        literals: dict[str, NameLiterals] = {key: [] for key, term in terms.items() if isinstance(term, URIRef)}
        name, is_fact = self.names.name, self.naming.is_fact
        for n, p, q, lp, label in rows:
            key = by_term.get(n, node_key(n))
            if key not in found:
                continue
            if p is not None:
                if is_fact(str(p)):
                    found[key][name(p)] = None
            elif q is not None:
                if is_fact(str(q)):
                    found[key][inverse(name(q))] = None
            elif isinstance(label, Literal) and key in literals:
                literals[key].append((str(lp), str(label), label.language))
        derived = self._derived_edges()
        for key, relations in found.items():
            relations.update(dict.fromkeys(derived.get(key, ())))
        labels = {key: self.naming.display(named) for key, named in literals.items()}
        for key, label in labels.items():
            self.remember_label(key, label)
        return {key: list(relations) for key, relations in found.items()}, labels

    # ---------------------------------------------------------------- walks, one query each (relation paths: EndpointRelationPaths)

    def walk_batch(self, keys: Sequence[str], relation: str, limit: int | None) -> dict[str, list[str]]:
        """One request (the targets' labels are asked when needed, :meth:`labels_of`); when some target is a blank
        node, whose id holds for one answer only, one more with the blank targets' names (:meth:`_blank_names`)."""
        inner = self.walk_query(keys, relation) + ("" if limit is None else f" LIMIT {limit}")
        what = f"the neighbours of {len(keys)} entities over {relation}"
        # a sub-select: the LIMIT stays inside the paging's ORDER BY
        rows = self._select_naming_blanks("SELECT ?n ?t WHERE { { %s } }" % inner, "?n ?t", lambda: (
            "SELECT ?n ?t ?bp ?bl WHERE { { %s } %s }" % (inner, self._blank_names("?t", "?bp", "?bl"))), what, ordered=True)
        walked: dict[str, dict[str, None]] = {}
        names: dict[str, NameLiterals] = {}
        for n, t, predicate, name in rows:
            if n is None or t is None:  # an engine's malformed row
                continue
            walked.setdefault(node_key(n), {})[node_key(t)] = None
            if name is not None:
                names.setdefault(node_key(t), []).append((str(predicate), str(name), name.language))
        self._remember_blank_labels(names, {key for targets in walked.values() for key in targets})
        return {key: list(targets) for key, targets in walked.items()}

    def sample_ends(self, predicates: Sequence[tuple[str, bool]], *, limit: int) -> list[list[str]]:
        """One request, as every backend asks it (:func:`~kg_agent.kg.stores.base.sample_ends_query`); when some end
        is a blank node, one more with the names of the blank ends (:meth:`_blank_names`): whether an end is named
        is what it is sampled for."""
        ends: list[dict[str, None]] = [{} for _ in predicates]
        if not predicates:
            return []
        what = f"the ends of {len(predicates)} relations"
        distinct_facts = partial(self._facts, distinct=True)  # each branch reads distinct ends
        rows = self._select_naming_blanks(sample_ends_query(predicates, limit, facts=distinct_facts), "?r ?x", lambda: (
            sample_ends_query(predicates, limit, with_ends=self._blank_names("?x", "?bp", "?bl"),
                              projected="?r ?x ?bp ?bl", facts=distinct_facts)), what)
        names: dict[str, NameLiterals] = {}
        for number, node, predicate, name in rows:
            if number is None or node is None:  # an engine's malformed row
                continue
            ends[int(number)][node_key(node)] = None
            if name is not None:
                names.setdefault(node_key(node), []).append((str(predicate), str(name), name.language))
        self._remember_blank_labels(names, {key for found in ends for key in found})
        return [list(found) for found in ends]

    def _select_naming_blanks(self, query: str, variables: str, named: Callable[[], str], what: str, *,
                              ordered: bool = False) -> list:
        """The rows of ``query`` (projecting ``variables``), each with ``(None, None)`` added; when some term in them
        is a blank node, the rows of ``named()`` instead: the same query with the names of its blank nodes
        (``?bp ?bl`` last, :meth:`_blank_names`), asked only then, since a blank node's id holds for one answer."""
        rows = [(*row, None, None) for row in self.select(query, variables, what, ordered=ordered)]
        if any(isinstance(term, BNode) for row in rows for term in row):
            rows = self.select(named(), variables + " ?bp ?bl", what, ordered=ordered)
        return rows

    def _blank_names(self, node: str, predicate: str, name: str) -> str:
        """An ``OPTIONAL`` group binding the name literals of ``node`` when it is a blank node. A blank node's id in
        an answer holds for that answer only (SPARQL 1.1, section 4.1.4): it cannot be asked about later, so what
        names it is read with it, as memory and Oxigraph read it by its id."""
        wanted = self._name_values()
        if not wanted:
            return ""
        return ("OPTIONAL { VALUES %s { %s } %s %s %s FILTER(isBlank(%s) && isLiteral(%s)) }"
                % (predicate, wanted, node, predicate, name, node, name))

    def _remember_blank_labels(self, names: Mapping[str, NameLiterals], keys: Iterable[str]) -> dict[str, str | None]:
        """The display labels of the blank nodes among ``keys`` from the names read with them (None: no name), kept
        in the label cache, which is where :meth:`label` finds them."""
        labels = {key: self.naming.display(names.get(key, ())) for key in keys if key.startswith("_:")}
        for key, label in labels.items():
            self.remember_label(key, label)
        return labels

    def count_batch(self, keys: Sequence[str], relation: str) -> dict[str, int]:
        rows = self.select(self.count_query(keys, relation), "?n ?c", f"the neighbour counts of {len(keys)} entities")
        return {node_key(n): int(count) for n, count in rows}

    def first_targets(self, key: str, relation: str, count: int) -> list[str] | None:
        """One request: the first ``count`` IRI targets, sorted and cut in the engine (``ORDER BY ?t LIMIT``: IRIs
        compare as their strings, as ids do), and how many targets are not IRIs; None when some are not (literals and
        blank nodes are ordered otherwise in SPARQL than by id)."""
        pattern = self.relation_pattern(relation, sparql_term(self.term(key)), "?t")
        query = ("SELECT ?t ?others WHERE { { SELECT ?t WHERE { %s FILTER(isIRI(?t)) } ORDER BY ?t LIMIT %d } UNION "
                 "{ SELECT (COUNT(*) AS ?others) WHERE { %s FILTER(!isIRI(?t)) } } }" % (pattern, count, pattern))
        rows = self.select(query, "?t ?others", f"the first {count} neighbours of {key} over {relation}")
        if any(others is not None and int(others) for _, others in rows):
            return None
        return sorted(node_key(t) for t, _ in rows if t is not None)

    def _cached(self, key: str) -> bool:
        with self._lock:
            return key in self._edges







    # ---------------------------------------------------------------- whole-graph lists
    def predicate_iris(self) -> list[str]:
        """Asked once per client (and kept in the store cache)."""
        if self._predicates is not None:
            return self._predicates
        stored = self.store_cache.get("relations") if self.store_cache is not None else None
        if stored is None:  # with those class restrictions state edges of
            restricted = restriction_edge_pattern("?c", "?p", "?v")
            rows = self.select("SELECT DISTINCT ?p ?d WHERE { { ?s ?p ?o } UNION %s UNION { SELECT DISTINCT ?p (1 AS ?d) "
                               "WHERE %s } }" % (restricted, restricted), "?p ?d", "the relations", ordered=True)
            self._keep_restricted(str(p) for p, d in rows if d is not None)
            stored = list(dict.fromkeys(str(p) for p, d in rows if d is None and isinstance(p, URIRef)))
            if self.store_cache is not None:
                self.store_cache.put("relations", "", stored)
        self._predicates = stored
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
            reached = (self._facts("?x", predicate, "?a", distinct=True) if incoming
                       else self._facts("?a", predicate, "?x", distinct=True))
            arrive = "{ SELECT DISTINCT ?x WHERE { %s } }" % reached
            query = ("SELECT DISTINCT ?q ?in WHERE { %s "
                     '{ ?x ?q ?o FILTER(!isLiteral(?o) || STR(?o) != "") BIND(false AS ?in) } UNION '
                     "{ ?o ?q ?x FILTER(!isLiteral(?x)) BIND(true AS ?in) } FILTER(?q NOT IN (%s)) }"
                     % (arrive, self._not_facts))
            derived = self._derived_edges()
            if derived:  # and the nodes reached that restrictions may state edges of, whose edges are known
                query = "SELECT ?q ?in ?end WHERE { { %s } UNION { SELECT DISTINCT (?x AS ?end) WHERE { %s %s } } }" % (
                    query, reached, restriction_end_filter("?x"))
                rows = self.select(query, "?q ?in ?end", f"the relations that can follow {signed_iri}")
            else:
                rows = [(*row, None) for row in self.select(query, "?q ?in", f"the relations that can follow {signed_iri}")]
            signed_iri_of = self.names.signed_iri
            cached = sorted({("^" if sparql_bool(flag) else "") + str(q)
                             for q, flag, _ in rows if isinstance(q, URIRef) and self.naming.is_fact(str(q))}
                            | {signed_iri_of(rel) or "" for _, _, end in rows if end is not None
                               for rel in derived.get(node_key(end), ())} - {""})
            if self.store_cache is not None:
                self.store_cache.put("following", signed_iri, cached)
        with self._count_lock:
            self._following[signed_iri] = cached
        return cached

    def subjects_per_object(self, iris: Sequence[str]) -> dict[str, float]:
        """The relation index's ratios (:meth:`GraphStore.subjects_per_object`) counted by the endpoint, every predicate
        not known yet in one query (two counts each), kept in the store cache; a query that fails counts its
        predicates as 0 for this client (no value taken to be shared)."""
        with self._count_lock:
            found = {iri: self._shares[iri] for iri in iris if iri in self._shares}
        todo = [iri for iri in dict.fromkeys(iris) if iri not in found]
        if todo and self.store_cache is not None:
            found.update(self.store_cache.get_many("subjects_per_object", todo))
            todo = [iri for iri in todo if iri not in found]
        if todo:
            branches = []
            for index, iri in enumerate(todo):
                predicate = sparql_iri(URIRef(iri))
                facts = self._facts("?s", predicate, "?o", distinct=True)
                branches.append('{ { SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { %s FILTER(!isLiteral(?o) || STR(?o) != "") } } '
                                "BIND(%d AS ?c) BIND(0 AS ?k) }" % (facts, index))
                branches.append("{ { SELECT (COUNT(DISTINCT ?o) AS ?n) WHERE { %s FILTER(!isLiteral(?o)) } } "
                                "BIND(%d AS ?c) BIND(1 AS ?k) }" % (facts, index))
            try:
                rows = self.select("SELECT ?c ?k ?n WHERE { %s }" % " UNION ".join(branches), "?c ?k ?n",
                                   f"how many subjects the objects of {len(todo)} relations have")
            except KGError:
                counted = dict.fromkeys(todo, 0.0)
            else:
                counts = {(int(c), int(k)): int(n) for c, k, n in rows}
                counted = {iri: counts.get((index, 0), 0) / max(counts.get((index, 1), 0), 1)
                           for index, iri in enumerate(todo)}
                if self.store_cache is not None:
                    self.store_cache.put_many("subjects_per_object", counted)
            found.update(counted)
        with self._count_lock:
            self._shares.update(found)
        return found

    def labelled_nodes(self) -> Iterable[tuple[str, str]]:
        kind = "label_index" if self.naming == DEFAULT_NAMING else f"label_index {self.naming.key}"
        stored = self.store_cache.get(kind) if self.store_cache is not None else None
        if stored is None:
            names = self._name_values()
            query = "SELECT ?s ?l WHERE { VALUES ?p { %s } ?s ?p ?l FILTER(isLiteral(?l)) }" % names
            stored = [(node_key(s), str(o)) for s, o in self.select(query, "?s ?l", "the names")] if names else []
            if self.store_cache is not None:
                self.store_cache.put(kind, "", stored)
        return [tuple(pair) for pair in stored]

    def node_ids(self) -> Iterator[str]:
        query = "SELECT DISTINCT ?n WHERE { { ?n ?p ?o } UNION { ?s ?p ?n } FILTER(?p NOT IN (%s)) }" % self._not_facts
        for (n,) in self.select(query, "?n", "the entities"):
            yield node_key(n)

    def clear(self) -> None:
        super().clear()
        with self._lock:
            self._complete_paths.clear()
            self._relations_at.clear()
            self._name_literals.clear()
            self._predicates = None  # the relations' names stay, and which of them restrictions state

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
