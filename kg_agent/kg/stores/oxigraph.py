"""The Oxigraph backend: a store on disk read through pyoxigraph's own API, not per-triple rdflib calls."""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDFS, XSD
from rdflib.store import TripleAddedEvent, TripleRemovedEvent
from rdflib.term import Node

from kg_agent.kg.errors import KGQueryError
from kg_agent.kg.sparql import sparql_iri
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
                 cache_size: int = 50_000) -> None:
        super().__init__(graph, names=names, name=name, cache_size=cache_size)
        self.store = store
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
        found: dict[str, str | None] = {}
        for key in keys:
            term = self._ox(key)
            found[key] = next((q.object.value for q in self.store.quads_for_pattern(term, _LABEL, None, _DEFAULT)), None)
        return found

    def _select(self, sparql: str) -> Iterator:
        try:
            yield from self.store.query(sparql, use_default_graph_as_union=False)
        except (OSError, RuntimeError, SyntaxError) as exc:
            raise KGQueryError(f"{self.name}: query failed: {exc}") from exc

    def predicate_iris(self) -> list[str]:
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
        super().close()
        self.store = None
