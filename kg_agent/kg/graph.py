"""The knowledge graph service: one read-only view over an rdflib ``Graph``.

Three backends, chosen by how the graph is opened:

* **memory** (default): an in-memory rdflib graph; an adjacency index is kept beside it and kept in step
  with the graph through rdflib's store events, so direct ``kg.graph.add(...)`` calls stay visible.
* **oxigraph**: an Oxigraph store on disk through ``oxrdflib``; load once, reopen in milliseconds.
  Neighbours are fetched per entity and cached.
* **sparql**: a remote SPARQL endpoint through rdflib's ``SPARQLStore`` (read-only); per-entity
  results are fetched by templated queries and cached in a bounded LRU. An entity's edges in both
  directions come in one request; a frontier's neighbours and many entities' labels are fetched in
  batches (``VALUES``, :meth:`KnowledgeGraph.prefetch`); large answers are paged below the server's
  row cap (Virtuoso's ``ResultSetMaxRows``) instead of being silently cut.

Entity ids are IRIs (or, for literal nodes, their N3 form). Relations are named by the predicate IRI's
local name; ``^name`` is the relation walked backwards (see :mod:`kg_agent.kg.types`).
"""

from __future__ import annotations

import bisect
import re
import threading
from collections import OrderedDict
from pathlib import Path as FsPath
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Sequence
from urllib.parse import quote, unquote

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDFS, SKOS
from rdflib.plugins.stores.memory import Memory
from rdflib.store import Store, TripleAddedEvent, TripleRemovedEvent
from rdflib.term import BNode, Node
from rdflib.util import from_n3

from kg_agent.kg.errors import KGQueryError, UnknownEntityError, UnknownRelationError
from kg_agent.kg.sparql import check_read_only, sparql_iri, sparql_term
from kg_agent.kg.types import Entity, base_relation, inverse, is_inverse

if TYPE_CHECKING:
    from kg_agent.kg.sparql_cache import SparqlCache

KG_NS = "https://kg-agent.dev/"
ENTITY_NS = KG_NS + "entity/"
RELATION_NS = KG_NS + "relation/"

#: Predicates that carry names rather than facts; they are not traversed.
LABEL_PREDICATES: frozenset[URIRef] = frozenset({RDFS.label, SKOS.prefLabel, SKOS.altLabel})

_LOCAL_NAME = re.compile(r"[^/#:]+$")
_ABSOLUTE_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # RFC 3987: an IRI with a scheme


def entity_iri(name: str) -> URIRef:
    """The project IRI of a plain entity name (percent-encoded, so any text gives a valid IRI)."""
    return URIRef(ENTITY_NS + quote(name, safe=""))


def relation_iri(name: str) -> URIRef:
    """The project IRI of a plain relation name."""
    return URIRef(RELATION_NS + quote(name, safe=""))


def node_key(term: Node) -> str:
    """The string id of an RDF node: the IRI itself, ``_:id`` for blank nodes, N3 for literals."""
    if isinstance(term, URIRef):
        return str(term)
    return term.n3()


def key_term(key: str) -> Node:
    """Inverse of :func:`node_key`."""
    if key.startswith('"') or key.startswith("_:"):
        return from_n3(key)
    return URIRef(key)


def default_label(term: Node) -> str:
    """A readable label for a node that has no ``rdfs:label``."""
    if isinstance(term, Literal):
        return str(term)
    text = str(term)
    if text.startswith(ENTITY_NS):
        return unquote(text[len(ENTITY_NS):])
    match = _LOCAL_NAME.search(text.rstrip("/#"))
    return unquote(match.group(0)) if match else text


def normalize_label(text: str) -> str:
    """The form labels are matched in: lower case, punctuation to spaces, single spaces."""
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


class ObservedMemory(Memory):
    """rdflib's in-memory store, but announcing removals too (rdflib's ``Memory`` announces only additions).

    :class:`KnowledgeGraph` listens to both, so its index follows every change made through rdflib.
    """

    def remove(self, triple_pattern, context=None) -> None:
        Store.remove(self, triple_pattern, context)
        super().remove(triple_pattern, context)


def new_graph() -> Graph:
    """An empty in-memory rdflib graph whose changes a :class:`KnowledgeGraph` can follow."""
    return Graph(store=ObservedMemory())


def _insert_sorted(values: list[str], value: str) -> None:
    at = bisect.bisect_left(values, value)
    if at == len(values) or values[at] != value:
        values.insert(at, value)


#: Cached in a lazy backend's label cache for an entity known to have no ``rdfs:label``.
_NO_LABEL = "\x00no-label"


class _LRU(OrderedDict):
    """A small bounded mapping; the least recently used entry goes first."""

    def __init__(self, maxsize: int) -> None:
        super().__init__()
        self.maxsize = maxsize

    def get_or_none(self, key):
        try:
            self.move_to_end(key)
            return self[key]
        except KeyError:
            return None

    def put(self, key, value) -> None:
        self[key] = value
        self.move_to_end(key)
        if self.maxsize and len(self) > self.maxsize:
            self.popitem(last=False)


class KnowledgeGraph:
    """Read-only queries over an rdflib graph, with an adjacency index for neighbour expansion.

    Build one with a loader (:mod:`kg_agent.kg.loaders`) or :func:`kg_agent.kg.open_kg`::

        from kg_agent.kg import open_kg
        kg = open_kg("../shared/data/metaqa/kb.txt")
        [hanks] = kg.find_entities("Tom Hanks")
        kg.neighbors(hanks.id, "^starred_actors")   # the films that star Tom Hanks

    Args:
        graph: the rdflib graph (any store). Defaults to a new in-memory graph.
        backend: ``"memory"``, ``"oxigraph"`` or ``"sparql"`` (what the graph's store is).
        eager_index: index every triple now (memory) instead of per entity on demand (disk/remote).
        cache_size: how many entities' neighbourhoods a lazy backend keeps (0 = unbounded).
        name: a short description (file or URL) used in messages.
        batch_size: entities per batched request (``sparql`` backend).
        page_size: rows per request for large answers (``sparql`` backend); lowered automatically when
            the server reports a smaller cap.
        store_cache: a persistent :class:`~kg_agent.kg.sparql_cache.SparqlCache` (``sparql`` backend),
            consulted before every request and filled after it; closed with the graph.
    """

    def __init__(
        self,
        graph: Graph | None = None,
        *,
        backend: str = "memory",
        eager_index: bool | None = None,
        cache_size: int = 50_000,
        name: str = "knowledge graph",
        batch_size: int = 100,
        page_size: int = 5_000,
        store_cache: SparqlCache | None = None,
    ) -> None:
        if batch_size < 1 or page_size < 1:
            raise ValueError(f"batch_size and page_size must be >= 1, got {batch_size} and {page_size}")
        self.graph = graph if graph is not None else new_graph()
        self.backend = backend
        self.name = name
        self._lock = threading.RLock()
        self._eager = (backend == "memory") if eager_index is None else eager_index
        # node -> {relation name (with ^ for incoming): [neighbour node, ...]}
        self._adjacency: dict[str, dict[str, list[str]]] | _LRU = {} if self._eager else _LRU(cache_size)
        self._labels: dict[str, str] | _LRU = {} if self._eager else _LRU(cache_size)
        self._relation_names: dict[str, str] = {}  # predicate IRI -> name
        self._relation_iris: dict[str, str] = {}  # name -> predicate IRI
        self._label_index: dict[str, list[str]] | None = None  # normalized label -> nodes
        self._dirty = False
        self.cache_size = cache_size
        self.batch_size = batch_size
        self.page_size = page_size
        self.store_cache = store_cache
        self._hits = self._misses = self._requests = 0
        if self._eager:
            self._index_all()
        self._subscribe()

    # ------------------------------------------------------------------ index upkeep
    def _subscribe(self) -> None:
        dispatcher = getattr(self.graph.store, "dispatcher", None)
        if dispatcher is None or self.backend == "sparql":
            return
        dispatcher.subscribe(TripleAddedEvent, self._on_added)
        dispatcher.subscribe(TripleRemovedEvent, self._on_removed)

    def _on_added(self, event: TripleAddedEvent) -> None:
        s, p, o = event.triple
        with self._lock:
            self._index_triple(s, p, o)

    def _on_removed(self, event: TripleRemovedEvent) -> None:
        s, p, o = event.triple
        with self._lock:
            if self._eager:
                # A removal pattern may hold wildcards; rebuild the index on next use.
                self._dirty = True
            else:
                for term in (s, o):
                    if term is not None:
                        self._adjacency.pop(node_key(term), None)
                        self._labels.pop(node_key(term), None)
                if s is None or o is None:
                    self._adjacency.clear()
                    self._labels.clear()
            self._label_index = None

    def _relation_name(self, predicate: URIRef) -> str:
        iri = str(predicate)
        name = self._relation_names.get(iri)
        if name is not None:
            return name
        if iri.startswith(RELATION_NS):
            name = unquote(iri[len(RELATION_NS):])
        else:
            name = default_label(predicate)
        if name in self._relation_iris and self._relation_iris[name] != iri or name.startswith("^"):
            name = iri  # local names collide: fall back to the full IRI, which is unique
        self._relation_names[iri] = name
        self._relation_iris[name] = iri
        return name

    def _index_triple(self, s: Node, p: Node, o: Node, bulk: bool = False) -> None:
        if p in LABEL_PREDICATES:
            key = node_key(s)
            if p == RDFS.label and (self._eager or key in self._labels):
                self._labels[key] = str(o)
            if self._label_index is not None:
                self._label_index.setdefault(normalize_label(str(o)), []).append(key)
            return
        rel = self._relation_name(p)
        sk, ok = node_key(s), node_key(o)
        if bulk:
            self._adjacency.setdefault(sk, {}).setdefault(rel, []).append(ok)
            self._adjacency.setdefault(ok, {}).setdefault(inverse(rel), []).append(sk)
        elif self._eager:
            if self._label_index is not None and (sk not in self._adjacency or ok not in self._adjacency):
                self._label_index = None  # a new node is findable by its default label: rebuild on next use
            _insert_sorted(self._adjacency.setdefault(sk, {}).setdefault(rel, []), ok)
            _insert_sorted(self._adjacency.setdefault(ok, {}).setdefault(inverse(rel), []), sk)
        else:
            # Lazily cached neighbourhoods are extended only when already cached.
            if sk in self._adjacency:
                _insert_sorted(self._adjacency[sk].setdefault(rel, []), ok)
            if ok in self._adjacency:
                _insert_sorted(self._adjacency[ok].setdefault(inverse(rel), []), sk)

    def _index_all(self) -> None:
        self._adjacency.clear()
        self._labels.clear()
        self._label_index = None
        for s, p, o in self.graph.triples((None, None, None)):
            self._index_triple(s, p, o, bulk=True)
        # Neighbours sorted by id: results do not depend on load order or backend.
        for rels in self._adjacency.values():
            for rel, targets in rels.items():
                if len(targets) > 1:
                    rels[rel] = sorted(set(targets))
        self._dirty = False

    def reindex(self) -> None:
        """Rebuild every cache from the graph (needed only after bulk changes made outside rdflib's API)."""
        with self._lock:
            if self._eager:
                self._index_all()
            else:
                self._adjacency.clear()
                self._labels.clear()
                self._label_index = None

    def _check_fresh(self) -> None:
        if self._dirty:
            with self._lock:
                if self._dirty:
                    self._index_all()

    def _fetch_neighbourhood(self, key: str) -> dict[str, list[str]]:
        """One entity's outgoing and incoming edges, read from the store (lazy backends)."""
        term = self._term(key)
        rels: dict[str, list[str]] = {}
        try:
            if not isinstance(term, Literal):
                for _, p, o in self.graph.triples((term, None, None)):
                    if p in LABEL_PREDICATES:
                        if p == RDFS.label:
                            with self._lock:  # the LRU is shared by every thread
                                self._labels.put(key, str(o))
                        continue
                    rels.setdefault(self._relation_name(p), []).append(node_key(o))
            for s, p, _ in self.graph.triples((None, None, term)):
                if p in LABEL_PREDICATES:
                    continue
                rels.setdefault(inverse(self._relation_name(p)), []).append(node_key(s))
        except KGQueryError:
            raise
        except Exception as exc:  # network errors, endpoint errors
            raise KGQueryError(f"{self.name}: could not read the neighbours of {key}: {exc}") from exc
        for rel, targets in rels.items():
            rels[rel] = sorted(set(targets))
        return rels

    def _neighbourhood(self, key: str) -> Mapping[str, list[str]]:
        if self._eager:
            self._check_fresh()
            return self._adjacency.get(key, {})
        with self._lock:
            cached = self._adjacency.get_or_none(key)
            if cached is not None:
                self._hits += 1
                return cached
            self._misses += 1
        if not self._queryable(key):
            return {}  # not an IRI the store could hold (e.g. a label given where an id was expected)
        if self._remote:
            rels = self._fetch_remote_neighbourhoods([key])[key]
        else:
            rels = self._fetch_neighbourhood(key)
        with self._lock:
            self._adjacency.put(key, rels)
        return rels

    # ------------------------------------------------------------------ remote endpoint: templated, batched, paged
    @property
    def _remote(self) -> bool:
        return self.backend == "sparql"

    def _queryable(self, key: str) -> bool:
        """Whether an id can be asked about: a valid IRI, a literal, or (local stores) a blank node."""
        try:
            term = key_term(key)
            if isinstance(term, URIRef):
                sparql_iri(term)
                # an endpoint refuses a relative IRI (HTTP 400): a bare name such as "Big" cannot be in it
                return not self._remote or _ABSOLUTE_IRI.match(term) is not None
        except Exception:  # not an IRI (spaces, brackets...) or not valid N3
            return False
        return isinstance(term, Literal) or not self._remote

    def _remote_select(self, query: str, variables: str, what: str) -> list:
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
            with self._lock:
                self._requests += 1
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

    def _fetch_remote_neighbourhoods(self, keys: Sequence[str]) -> dict[str, dict[str, list[str]]]:
        """Edges in both directions of up to ``batch_size`` entities: from the store cache, else one request."""
        if self.store_cache is None:
            return self._query_neighbourhoods(keys)[0]
        found: dict[str, dict[str, list[str]]] = {}
        labels = self.store_cache.get_many("label", keys)
        for key, stored in self.store_cache.get_many("edges", keys).items():
            found[key] = {self._stored_relation(rel): targets for rel, targets in stored.items()}
            if key in labels:
                with self._lock:
                    self._labels.put(key, _NO_LABEL if labels[key] is None else labels[key])
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
        iri = self._relation_iris[base_relation(name)]
        return inverse(iri) if is_inverse(name) else iri

    def _stored_relation(self, stored: str) -> str:
        name = self._relation_name(URIRef(base_relation(stored)))
        return inverse(name) if is_inverse(stored) else name

    def _query_neighbourhoods(
            self, keys: Sequence[str]) -> tuple[dict[str, dict[str, list[str]]], dict[str, str | None]]:
        """Edges in both directions of up to ``batch_size`` entities in one request (``VALUES``), and their labels."""
        terms = {key: self._term(key) for key in keys}
        values = " ".join(sparql_term(t) for t in terms.values())
        query = ("SELECT ?n ?p ?o ?s WHERE { VALUES ?n { %s } { ?n ?p ?o } UNION { ?s ?p ?n } }" % values)
        what = f"the neighbours of {keys[0]}" if len(keys) == 1 else f"the neighbours of {len(keys)} entities"
        rows = self._remote_select(query, "?n ?p ?o ?s", what)
        by_term = {term: key for key, term in terms.items()}
        found: dict[str, dict[str, list[str]]] = {key: {} for key in keys}
        labelled: dict[str, str | None] = {}
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
                        with self._lock:
                            self._labels.put(key, str(o))
                    continue
                rels.setdefault(self._relation_name(p), []).append(node_key(o))
            elif s is not None and p not in LABEL_PREDICATES:
                rels.setdefault(inverse(self._relation_name(p)), []).append(node_key(s))
        with self._lock:
            for key, rels in found.items():
                for rel, targets in rels.items():
                    rels[rel] = sorted(set(targets))
                if key not in labelled and not isinstance(terms[key], Literal):
                    labelled[key] = None
                    self._labels.put(key, _NO_LABEL)
        return found, labelled

    def prefetch(self, entity_ids: Iterable[str]) -> int:
        """Fetch the edges of every given entity not cached yet, ``batch_size`` per request; returns how many.

        Only the ``sparql`` backend batches (other backends read their store per entity anyway). Call it
        with a search frontier before walking it: ``neighbors``/``relations``/``edges`` then hit the cache.
        """
        if self._eager:
            return 0
        with self._lock:
            todo = [k for k in dict.fromkeys(entity_ids) if k not in self._adjacency]
        if not self._remote:
            for key in todo:
                self._neighbourhood(key)
            return len(todo)
        batchable = [k for k in todo if self._queryable(k)]
        for start in range(0, len(batchable), self.batch_size):
            batch = batchable[start:start + self.batch_size]
            fetched = self._fetch_remote_neighbourhoods(batch)
            with self._lock:
                self._misses += len(batch)
                for key, rels in fetched.items():
                    self._adjacency.put(key, rels)
        return len(batchable)

    def prefetch_labels(self, entity_ids: Iterable[str]) -> int:
        """Fetch the ``rdfs:label`` of every given entity not cached yet, ``batch_size`` per request (``sparql``)."""
        if self._eager or not self._remote:
            return 0
        with self._lock:
            todo = [k for k in dict.fromkeys(entity_ids)
                    if k not in self._labels and self._queryable(k) and isinstance(key_term(k), URIRef)]
        if self.store_cache is not None:
            stored = self.store_cache.get_many("label", todo)
            with self._lock:
                for key, label in stored.items():
                    self._labels.put(key, _NO_LABEL if label is None else label)
            todo = [k for k in todo if k not in stored]
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start:start + self.batch_size]
            terms = {key: self._term(key) for key in batch}
            query = "SELECT ?n ?l WHERE { VALUES ?n { %s } ?n %s ?l }" % (
                " ".join(sparql_term(t) for t in terms.values()), sparql_iri(RDFS.label))
            rows = self._remote_select(query, "?n ?l", f"the labels of {len(batch)} entities")
            labels: dict[str, str] = {}
            for n, label in rows:
                labels.setdefault(node_key(n), str(label))
            if self.store_cache is not None:
                self.store_cache.put_many("label", {key: labels.get(key) for key in batch})
            with self._lock:
                for key in batch:
                    self._labels.put(key, labels.get(key, _NO_LABEL))
        return len(todo)

    def cache_info(self) -> dict[str, int]:
        """Cache use of a lazy backend: entities and labels held, hits and misses, requests made for them."""
        with self._lock:
            return {"entities": len(self._adjacency), "labels": len(self._labels), "maxsize": self.cache_size,
                    "hits": self._hits, "misses": self._misses, "requests": self._requests}

    def _term(self, key: str) -> Node:
        term = key_term(key)
        if isinstance(term, URIRef):
            sparql_iri(term)  # validates: no characters that could break out of <...>
        return term

    # ------------------------------------------------------------------ public queries
    def __len__(self) -> int:
        """Number of triples in the graph."""
        return len(self.graph)

    def __contains__(self, entity_id: str) -> bool:
        return self.has_entity(entity_id)

    def has_entity(self, entity_id: str) -> bool:
        """Whether the id names a node with at least one edge or label."""
        if self._eager:
            self._check_fresh()
            return entity_id in self._adjacency or entity_id in self._labels
        if not entity_id.startswith(('"', "_:")):
            try:
                sparql_iri(entity_id)  # before rdflib sees it: URIRef("Tom Hanks") logs a warning
            except ValueError:  # not an IRI (e.g. a plain label such as "Tom Hanks"): no node has this id
                return False
        return bool(self._neighbourhood(entity_id)) or self.label(entity_id, default=None) is not None

    def label(self, entity_id: str, *, default: str | None = "") -> str | None:
        """The entity's ``rdfs:label`` (its local name when it has none)."""
        if self._eager:
            self._check_fresh()
            found = self._labels.get(entity_id)
        else:
            with self._lock:
                found = self._labels.get_or_none(entity_id)
            if found == _NO_LABEL:
                found = None
            elif found is None and not self._queryable(entity_id):
                found = None
            elif found is None and self._remote and isinstance(key_term(entity_id), URIRef):
                self.prefetch_labels([entity_id])
                with self._lock:
                    found = self._labels.get_or_none(entity_id)
                if found == _NO_LABEL:
                    found = None
            elif found is None:
                term = self._term(entity_id)
                value = None if isinstance(term, Literal) else self.graph.value(term, RDFS.label)
                if value is not None:
                    found = str(value)
                    with self._lock:
                        self._labels.put(entity_id, found)
        if found is not None:
            return found
        if default == "":
            return default_label(key_term(entity_id))
        return default

    def labels(self, entity_id: str) -> list[str]:
        """Every label of the entity (``rdfs:label``, ``skos:prefLabel``, ``skos:altLabel``)."""
        term = self._term(entity_id)
        found = [str(o) for p in (RDFS.label, SKOS.prefLabel, SKOS.altLabel) for o in self.graph.objects(term, p)]
        return list(dict.fromkeys(found)) or [self.label(entity_id) or entity_id]

    def entity(self, entity_id: str) -> Entity:
        """The entity with its label; :class:`UnknownEntityError` when the graph does not have it."""
        if not self.has_entity(entity_id):
            raise UnknownEntityError(f"{self.name} has no entity {entity_id!r}")
        return Entity(entity_id, self.label(entity_id) or entity_id)

    def relations(self, entity_id: str, *, direction: str = "both") -> list[str]:
        """The relations at an entity: outgoing names, incoming as ``^name``, or both (sorted)."""
        rels = self._neighbourhood(entity_id)
        if direction == "out":
            names = [r for r in rels if not is_inverse(r)]
        elif direction == "in":
            names = [r for r in rels if is_inverse(r)]
        elif direction == "both":
            names = list(rels)
        else:
            raise ValueError(f"direction must be 'out', 'in' or 'both', not {direction!r}")
        return sorted(names)

    def neighbors(self, entity_id: str, relation: str) -> list[str]:
        """Entities reached from ``entity_id`` over ``relation`` (``^relation`` walks it backwards)."""
        return list(self._neighbourhood(entity_id).get(relation, ()))

    def edges(self, entity_id: str) -> Mapping[str, Sequence[str]]:
        """All of an entity's edges as ``{relation: [neighbour, ...]}`` (read-only view; do not mutate)."""
        return self._neighbourhood(entity_id)

    def relation_names(self) -> list[str]:
        """Every relation name of the graph (without inverses), sorted."""
        if self._remote:
            stored = self.store_cache.get("relations") if self.store_cache is not None else None
            if stored is None:
                rows = self._remote_select("SELECT DISTINCT ?p WHERE { ?s ?p ?o }", "?p", "the relations")
                stored = [str(p) for (p,) in rows if isinstance(p, URIRef) and p not in LABEL_PREDICATES]
                if self.store_cache is not None:
                    self.store_cache.put("relations", "", stored)
            for p in stored:
                self._relation_name(URIRef(p))
        elif not self._eager:
            rows = self.query("SELECT DISTINCT ?p WHERE { ?s ?p ?o }")
            for (p,) in rows:
                if isinstance(p, URIRef) and p not in LABEL_PREDICATES:
                    self._relation_name(p)
        else:
            self._check_fresh()
        return sorted(n for iri, n in self._relation_names.items() if URIRef(iri) not in LABEL_PREDICATES)

    def relation_iri(self, name: str) -> str:
        """The predicate IRI of a relation name (inverse prefix ignored)."""
        name = base_relation(name)
        if name not in self._relation_iris:
            self.relation_names()
        try:
            return self._relation_iris[name]
        except KeyError:
            raise UnknownRelationError(f"{self.name} has no relation {name!r}") from None

    def has_relation(self, name: str) -> bool:
        try:
            self.relation_iri(name)
            return True
        except UnknownRelationError:
            return False

    def entity_ids(self) -> Iterator[str]:
        """Every node id (memory backend: from the index; others: by query)."""
        if self._eager:
            self._check_fresh()
            yield from self._adjacency.keys()
        else:
            # Same nodes as the memory index: subjects and objects of facts, not of label triples.
            not_labels = ", ".join(sparql_iri(p) for p in sorted(LABEL_PREDICATES))
            query = "SELECT DISTINCT ?n WHERE { { ?n ?p ?o } UNION { ?s ?p ?n } FILTER(?p NOT IN (%s)) }" % not_labels
            rows = self._remote_select(query, "?n", "the entities") if self._remote else self.query(query)
            for (n,) in rows:
                yield node_key(n)

    # ------------------------------------------------------------------ label search
    def _build_label_index(self) -> dict[str, list[str]]:
        index: dict[str, list[str]] = {}
        if self._eager:
            self._check_fresh()
            for key in self._adjacency:
                label = self._labels.get(key) or default_label(key_term(key))
                index.setdefault(normalize_label(label), []).append(key)
            for key, label in self._labels.items():
                if key not in self._adjacency:
                    index.setdefault(normalize_label(label), []).append(key)
        else:
            stored = self.store_cache.get("label_index") if self.store_cache is not None else None
            if stored is None:
                query = "SELECT ?s ?l WHERE { ?s %s ?l }" % sparql_iri(RDFS.label)
                rows = self._remote_select(query, "?s ?l", "the labels") if self._remote else self.query(query)
                stored = [(node_key(s), str(o)) for s, o in rows]
                if self.store_cache is not None:
                    self.store_cache.put("label_index", "", stored)
            for key, label in stored:
                index.setdefault(normalize_label(label), []).append(key)
        for keyed in index.values():
            keyed[:] = list(dict.fromkeys(keyed))
        return index

    def label_index(self) -> dict[str, list[str]]:
        """``{normalized label: [entity ids]}``, built on first use and kept up to date."""
        with self._lock:
            if self._label_index is None:
                self._label_index = self._build_label_index()
            return self._label_index

    def find_entities(self, text: str) -> list[Entity]:
        """Entities whose label equals ``text`` (case, punctuation and spacing ignored).

        Ranked: labels equal to ``text`` as written first, then by number of relations (a film before a
        tag spelt the same way), then by id.
        """
        keys = self.label_index().get(normalize_label(text), [])
        found = [Entity(k, self.label(k) or k) for k in keys]
        if len(found) > 1:
            stripped = text.strip()
            found.sort(key=lambda e: (e.label != stripped, -len(self.edges(e.id)), e.id))
        return found

    def search(self, text: str, *, limit: int = 10) -> list[Entity]:
        """Entities whose label matches ``text``: exact first, then labels containing it, then fuzzy."""
        from kg_agent.kg.linking import closest_labels

        wanted = normalize_label(text)
        if not wanted:
            return []
        index = self.label_index()
        written = text.strip()

        def group(ids) -> list[str]:
            # entities spelt alike: the one whose label contains the text as written first, then by id
            return sorted(ids, key=lambda k: (written not in (self.label(k) or ""), k))

        found: list[str] = group(index.get(wanted, []))
        if len(found) < limit:
            pattern = re.compile(r"\b" + re.escape(wanted) + r"\b")
            contained = sorted((lab for lab in index if lab != wanted and pattern.search(lab)), key=lambda lab: (len(lab), lab))
            for lab in contained[: limit * 2]:
                found.extend(group(index[lab]))
        if len(found) < limit:
            for lab in closest_labels(self, wanted, limit=limit):
                found.extend(group(index.get(normalize_label(lab), [])))
        found = list(dict.fromkeys(found))[:limit]
        return [Entity(k, self.label(k) or k) for k in found]

    # ------------------------------------------------------------------ SPARQL (read-only)
    def query(self, sparql: str, *, bindings: Mapping[str, Node] | None = None, timeout: float | None = None):
        """Run a read-only SPARQL query (SELECT/ASK/CONSTRUCT/DESCRIBE) with terms bound, never pasted.

        Updates and ``SERVICE`` clauses are rejected before anything reaches the store. ``timeout``
        (seconds) overrides the endpoint's request timeout for this query (``sparql`` backend).
        An answer the endpoint cut at its row cap raises :class:`KGQueryError` rather than come back short.
        """
        check_read_only(sparql)
        override = getattr(self.graph.store, "request_timeout", None)
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

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Close the underlying store (disk and remote backends) and the store cache."""
        if self.store_cache is not None:
            self.store_cache.close()
        try:
            self.graph.close()
        except Exception:  # pragma: no cover - stores without close
            pass

    def __enter__(self) -> "KnowledgeGraph":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"KnowledgeGraph(name={self.name!r}, backend={self.backend!r})"




__all__ = [
    "KnowledgeGraph",
    "KG_NS",
    "ENTITY_NS",
    "RELATION_NS",
    "entity_iri",
    "relation_iri",
    "node_key",
    "key_term",
    "normalize_label",
    "default_label",
]
