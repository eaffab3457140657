"""The Oxigraph backend: a store on disk read through pyoxigraph's own API, not per-triple rdflib calls."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDFS, XSD
from rdflib.store import TripleAddedEvent, TripleRemovedEvent
from rdflib.term import Node

from kg_agent.kg.errors import KGQueryError
from kg_agent.kg.label_index import SqliteLabelIndex
from kg_agent.kg.relation_index import RelationIndex
from kg_agent.kg.sparql import sparql_iri, sparql_term
from kg_agent.kg.stores.base import Edges, LazyGraphStore
from kg_agent.kg.terms import LABEL_PREDICATES, RelationNames, key_term, node_key
from kg_agent.kg.types import inverse

_DEFAULT = ox.DefaultGraph()
_LABEL = ox.NamedNode(str(RDFS.label))
_LABEL_IRIS = frozenset(str(p) for p in LABEL_PREDICATES)
_XSD_STRING = str(XSD.string)


def ox_key(term) -> str:
    """The kg-agent id of a pyoxigraph term (the same string the memory backend gives the rdflib term)."""
    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.BlankNode):
        return "_:" + term.value
    if isinstance(term, ox.Literal):
        datatype = term.datatype.value
        if term.language:
            return Literal(term.value, lang=term.language).n3()
        return Literal(term.value, datatype=None if datatype == _XSD_STRING else URIRef(datatype)).n3()
    return str(term)


def ox_term(term: Node):
    """The pyoxigraph term of an rdflib term."""
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype is not None:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
    raise ValueError(f"not an RDF term: {term!r}")


class OxigraphGraphStore(LazyGraphStore):
    """An Oxigraph store (``pyoxigraph.Store``) with an rdflib view (``oxrdflib``) for SPARQL and ``skos`` labels.

    Only the default graph is read. Neighbourhoods come from ``quads_for_pattern`` in both directions.
    """

    kind = "oxigraph"

    def __init__(self, store: ox.Store, graph: Graph, *, names: RelationNames, name: str,
                 cache_size: int = 50_000, relation_index: RelationIndex | None = None,
                 label_index: SqliteLabelIndex | None = None) -> None:
        super().__init__(graph, names=names, name=name, cache_size=cache_size, batch_size=1000)
        self.store = store
        self._relation_index = relation_index
        self._label_index = label_index
        dispatcher = getattr(graph.store, "dispatcher", None)
        if dispatcher is not None:
            dispatcher.subscribe(TripleAddedEvent, self._on_change)
            dispatcher.subscribe(TripleRemovedEvent, self._on_change)

    def _on_change(self, event) -> None:
        s, _, o = event.triple
        if s is None or o is None:
            self.clear()
            return
        self.forget(node_key(s))
        self.forget(node_key(o))

    def queryable(self, key: str) -> bool:
        """Also whether Oxigraph accepts the term: its IRIs are absolute (a bare name such as ``Big`` is not one)."""
        if not super().queryable(key):
            return False
        try:
            ox_term(key_term(key))
        except ValueError:
            return False
        return True

    def _ox(self, key: str):
        term = key_term(key)
        if isinstance(term, URIRef):
            sparql_iri(term)
        return ox_term(term)

    def fetch_neighbourhoods(self, keys: Sequence[str]) -> dict[str, Edges]:
        name = self.names.name
        quads = self.store.quads_for_pattern
        found: dict[str, Edges] = {}
        try:
            for key in keys:
                term = self._ox(key)
                rels: Edges = {}
                label = None
                if not isinstance(term, ox.Literal):
                    for quad in quads(term, None, None, _DEFAULT):
                        predicate = quad.predicate.value
                        if predicate in _LABEL_IRIS:
                            if label is None and predicate == _LABEL.value:
                                label = quad.object.value
                            continue
                        rels.setdefault(name(predicate), []).append(ox_key(quad.object))
                    self.remember_label(key, label)
                for quad in quads(None, None, term, _DEFAULT):
                    predicate = quad.predicate.value
                    if predicate in _LABEL_IRIS:
                        continue
                    rels.setdefault(inverse(name(predicate)), []).append(ox_key(quad.subject))
                for rel, targets in rels.items():
                    if len(targets) > 1:
                        rels[rel] = sorted(set(targets))
                found[key] = rels
        except (OSError, RuntimeError) as exc:
            raise KGQueryError(f"{self.name}: could not read the neighbours of {keys[0]}: {exc}") from exc
        return found

    def fetch_labels(self, keys: Sequence[str]) -> dict[str, str | None]:
        """The labels of up to ``batch_size`` nodes in one query (``VALUES``), not one lookup each."""
        values = " ".join(sparql_term(self.term(key)) for key in keys)
        found: dict[str, str | None] = dict.fromkeys(keys)
        for row in self._select("SELECT ?n ?l WHERE { VALUES ?n { %s } ?n %s ?l }" % (values, sparql_iri(RDFS.label))):
            key = ox_key(row[0])
            if found.get(key) is None:
                found[key] = row[1].value
        return found

    # ---------------------------------------------------------------- relation paths and walks, in the engine
    def relation_index(self) -> RelationIndex | None:
        return self._relation_index

    def label_index(self) -> SqliteLabelIndex | None:
        return self._label_index

    def triple_count(self) -> int:
        """Counted at load time (a count by the store reads every triple)."""
        if self._relation_index is not None and self._relation_index.triples:
            return self._relation_index.triples
        return super().triple_count()

    def relations_at(self, key: str) -> list[str]:
        with self._lock:
            cached = self._edges.get_or_none(key)
        if cached is not None:
            return list(cached)
        if not self.queryable(key):
            return []
        node = sparql_term(self.term(key))
        name = self.names.name
        found = []
        if not key.startswith('"'):
            found += [name(row[0].value) for row in self._select("SELECT DISTINCT ?p WHERE { %s ?p ?o }" % node)
                      if row[0].value not in _LABEL_IRIS]
        found += ["^" + name(row[0].value) for row in self._select("SELECT DISTINCT ?p WHERE { ?s ?p %s }" % node)
                  if row[0].value not in _LABEL_IRIS]
        return found

    def walk_batch(self, keys: Sequence[str], relation: str, limit: int | None) -> dict[str, list[str]]:
        query = self.walk_query(keys, relation) + ("" if limit is None else f" LIMIT {limit}")
        walked: dict[str, list[str]] = {}
        for row in self._select(query):
            walked.setdefault(ox_key(row[0]), []).append(ox_key(row[1]))
        return walked

    def count_batch(self, keys: Sequence[str], relation: str) -> dict[str, int]:
        return {ox_key(row[0]): int(row[1].value) for row in self._select(self.count_query(keys, relation))}

    def walkable(self, starts: Sequence[str], relations: Sequence[str], *, budget: int = 50_000) -> bool:
        """One ``ASK`` query: the engine stops at the first walk that never comes back to its start."""
        if any(key.startswith("_:") for key in starts):  # blank nodes cannot be named in a query
            return super().walkable(starts, relations, budget=budget)
        starts = [key for key in starts if self.queryable(key)]
        if not starts or any(self.signed_iri(r) is None for r in relations):
            return False
        values = " ".join(sparql_term(self.term(key)) for key in starts)
        steps, filters, here = [], [], "?x0"
        for depth, relation in enumerate(relations, start=1):
            there = f"?x{depth}"
            steps.append(self.relation_pattern(relation, here, there) + " .")
            filters.append(f"{there} != ?x0")
            here = there
        query = "ASK { VALUES ?x0 { %s } %s FILTER(%s) }" % (values, " ".join(steps), " && ".join(filters))
        try:
            return bool(self.store.query(query))
        except (OSError, RuntimeError, SyntaxError) as exc:
            raise KGQueryError(f"{self.name}: query failed: {exc}") from exc

    def _select(self, sparql: str) -> Iterator:
        try:
            yield from self.store.query(sparql, use_default_graph_as_union=False)
        except (OSError, RuntimeError, SyntaxError) as exc:
            raise KGQueryError(f"{self.name}: query failed: {exc}") from exc

    def predicate_iris(self) -> list[str]:
        if self._relation_index is not None:
            return self._relation_index.predicates()
        return [row[0].value for row in self._select("SELECT DISTINCT ?p WHERE { ?s ?p ?o }")]

    def labelled_nodes(self) -> Iterable[tuple[str, str]]:
        query = "SELECT ?s ?l WHERE { ?s %s ?l }" % sparql_iri(RDFS.label)
        return [(ox_key(row[0]), row[1].value) for row in self._select(query)]

    def node_ids(self) -> Iterator[str]:
        # Same nodes as the memory index: subjects and objects of facts, not of label triples.
        not_labels = ", ".join(sparql_iri(p) for p in sorted(LABEL_PREDICATES))
        query = "SELECT DISTINCT ?n WHERE { { ?n ?p ?o } UNION { ?s ?p ?n } FILTER(?p NOT IN (%s)) }" % not_labels
        for row in self._select(query):
            yield ox_key(row[0])

    def close(self) -> None:
        if self._label_index is not None:
            self._label_index.close()
        super().close()
        self.store = None
