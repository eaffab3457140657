"""The in-memory backend: an rdflib graph with every edge indexed, kept in step through rdflib's store events."""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from rdflib import Graph, Literal, URIRef
from rdflib.plugins.stores.memory import Memory
from rdflib.store import Store, TripleAddedEvent, TripleRemovedEvent
from rdflib.term import Node

from kg_agent.kg.naming import DEFAULT_NAMING, Naming
from kg_agent.kg.relation_index import RelationIndex, RelationIndexBuilder
from kg_agent.kg.sparql import sparql_iri
from kg_agent.kg.stores.base import SAMPLE_SCAN, WALK_BUDGET, GraphStore, NameLiterals, sampled_ends
from kg_agent.kg.terms import RelationNames, default_label, is_generated_id, is_value, key_term, node_key
from kg_agent.kg.types import inverse, turns_back


class ObservedMemory(Memory):
    """rdflib's in-memory store, but announcing removals too (rdflib's ``Memory`` announces only additions).

    :class:`MemoryGraphStore` listens to both, so its index follows every change made through rdflib.
    """

    def remove(self, triple_pattern, context=None) -> None:
        Store.remove(self, triple_pattern, context)
        super().remove(triple_pattern, context)


def new_graph() -> Graph:
    """An empty in-memory rdflib graph whose changes a :class:`MemoryGraphStore` can follow."""
    return Graph(store=ObservedMemory())


def _insert_sorted(values: list[str], value: str) -> None:
    at = bisect.bisect_left(values, value)
    if at == len(values) or values[at] != value:
        values.insert(at, value)


class MemoryGraphStore(GraphStore):
    """Every node's edges and label in dicts, built once from the graph and updated on each change.

    ``on_label_change`` (set by the owner) is called when labels or the set of nodes may have changed.
    """

    kind = "memory"

    def __init__(self, graph: Graph, *, names: RelationNames, name: str, naming: Naming = DEFAULT_NAMING) -> None:
        self._lock = threading.RLock()
        self._adjacency: dict[str, dict[str, list[str]]] = {}
        self._names: dict[str, NameLiterals] = {}  # every node's label and alias literals
        self._labels: dict[str, str] = {}  # the displayed one
        self._facts: dict[str, bool] = {}  # predicate IRI -> whether its triples are facts
        super().__init__(graph, names=names, name=name, naming=naming)
        self._dirty = False
        self._relation_index: RelationIndex | None = None
        self.on_label_change: Callable[[], None] = lambda: None
        self._index_all()
        dispatcher = getattr(graph.store, "dispatcher", None)
        if dispatcher is not None:
            dispatcher.subscribe(TripleAddedEvent, self._on_added)
            dispatcher.subscribe(TripleRemovedEvent, self._on_removed)

    # ---------------------------------------------------------------- index upkeep
    def _is_fact(self, predicate: str) -> bool:
        fact = self._facts.get(predicate)
        if fact is None:
            fact = self._facts[predicate] = self.naming.is_fact(predicate)
        return fact

    def _on_added(self, event: TripleAddedEvent) -> None:
        s, p, o = event.triple
        with self._lock:
            predicate = str(p)
            named = self.naming.is_label(predicate) and isinstance(o, Literal)
            if named:  # a label or an alias (an alias is a fact too)
                key = node_key(s)
                self._names.setdefault(key, []).append((predicate, str(o), o.language))
                self._labels[key] = self.naming.display(self._names[key])
            if not self._is_fact(predicate):
                self.on_label_change()
                return
            if named:
                self.on_label_change()
            if not is_value(o):
                return
            rel = self.names.name(p)
            sk, ok = node_key(s), node_key(o)
            if sk not in self._adjacency or ok not in self._adjacency:
                self.on_label_change()  # a new node is findable by its default label
            _insert_sorted(self._adjacency.setdefault(sk, {}).setdefault(rel, []), ok)
            if isinstance(o, Literal):
                self._adjacency.setdefault(ok, {})  # a literal is an end: no path goes on from it
            else:
                _insert_sorted(self._adjacency.setdefault(ok, {}).setdefault(inverse(rel), []), sk)
            self._relation_index = None

    def _on_removed(self, event: TripleRemovedEvent) -> None:
        with self._lock:
            self._dirty = True  # a removal pattern may hold wildcards: rebuild on next use
            self.on_label_change()

    def _index_all(self) -> None:
        adjacency: dict[str, dict[str, list[str]]] = {}
        names: dict[str, NameLiterals] = {}
        name, is_fact, is_label = self.names.name, self._is_fact, self.naming.is_label
        for s, p, o in self.graph.triples((None, None, None)):
            predicate = str(p)
            if is_label(predicate) and isinstance(o, Literal):  # a label or an alias (an alias is a fact too)
                names.setdefault(node_key(s), []).append((predicate, str(o), o.language))
            if not is_fact(predicate):
                continue
            if not is_value(o):
                continue
            rel = name(p)
            sk, ok = node_key(s), node_key(o)
            adjacency.setdefault(sk, {}).setdefault(rel, []).append(ok)
            if isinstance(o, Literal):
                adjacency.setdefault(ok, {})  # a literal is an end: no path goes on from it
            else:
                adjacency.setdefault(ok, {}).setdefault(inverse(rel), []).append(sk)
        # Neighbours sorted by id: results do not depend on load order or backend.
        for rels in adjacency.values():
            for rel, targets in rels.items():
                if len(targets) > 1:
                    rels[rel] = sorted(set(targets))
        display = self.naming.display
        labels = {key: label for key, literals in names.items() if (label := display(literals)) is not None}
        self._adjacency, self._names, self._labels = adjacency, names, labels
        self._relation_index = None
        self._dirty = False

    def _fresh(self) -> None:
        if self._dirty:
            with self._lock:
                if self._dirty:
                    self._index_all()

    def clear(self) -> None:
        with self._lock:
            self._index_all()
            self.on_label_change()

    # ---------------------------------------------------------------- reads
    def edges(self, key: str) -> Mapping[str, Sequence[str]]:
        self._fresh()
        return self._adjacency.get(key, {})

    def walkable_extensions(self, starts: Sequence[str],
                            prefixes: Sequence[tuple[str, ...]]) -> dict[tuple[str, ...], list[str]]:
        """The base's answer (every extension judged as :meth:`walkable` judges it, its budget included), with each
        prefix walked once for all its extensions instead of once per extension: the nodes it reaches from each
        start, with the node before each and the number of depth-first walks reaching it (what the walk's budget
        counts)."""
        following: dict[str, list[str]] = {}  # many prefixes end with the same relation
        found = {}
        for prefix in prefixes:
            if prefix and prefix[-1] not in following:
                following[prefix[-1]] = self.extension_options(starts, prefix)
            options = following[prefix[-1]] if prefix else self.extension_options(starts, prefix)
            found[prefix] = self._walkable_after(starts, prefix, options)
        return found

    def _walkable_after(self, starts: Sequence[str], prefix: tuple[str, ...], options: list[str]) -> list[str]:
        prefix_visits = 0
        ends: list[dict[tuple[str, str | None], int]] = []
        for start in starts:
            layer: dict[tuple[str, str | None], int] = {(start, None): 1}  # (node, the node before) -> walks reaching
            for depth, relation in enumerate(prefix):
                back = turns_back(prefix, depth)
                reached: dict[tuple[str, str | None], int] = {}
                for (node, before), walks in layer.items():
                    targets = self.edges(node).get(relation, ())
                    prefix_visits += walks * len(targets)
                    for target in targets:
                        if not (back and target == before):  # r then ^r: not back to where r began
                            reached[target, node] = reached.get((target, node), 0) + walks
                if prefix_visits > WALK_BUDGET:  # every extension's walk would exceed the budget: walkable
                    return list(options)
                layer = reached
            ends.append(layer)
        visits: dict[str, int] = {}
        walkable: set[str] = set()
        back = inverse(prefix[-1]) if prefix else None  # the extension that walks the last step backwards
        for layer in ends:
            for (node, before), walks in layer.items():
                for relation, targets in self.edges(node).items():
                    visits[relation] = visits.get(relation, 0) + walks * len(targets)
                    if relation not in walkable and targets and (relation != back or len(targets) > 1
                                                                 or targets[0] != before):
                        walkable.add(relation)
        return [rel for rel in options if rel in walkable or prefix_visits + visits.get(rel, 0) > WALK_BUDGET]

    def relation_index(self) -> RelationIndex:
        """Built from the adjacency index on first use (MetaQA: about a second) and after every change."""
        self._fresh()
        with self._lock:
            if self._relation_index is None:
                builder = RelationIndexBuilder()
                signed = self.names.signed_iri
                for rels in self._adjacency.values():
                    builder.add_signature(signed(rel) for rel in rels)
                builder.triples = len(self.graph)
                self._relation_index = builder.build()
            return self._relation_index

    def label(self, key: str) -> str | None:
        self._fresh()
        return self._labels.get(key)

    def has_node(self, key: str) -> bool:
        self._fresh()
        return key in self._adjacency or key in self._labels

    def predicate_iris(self) -> list[str]:
        return sorted({str(p) for p in self.graph.predicates(unique=True)})

    def sample_ends(self, predicates: Sequence[tuple[str, bool]], *, limit: int) -> list[list[str]]:
        """What the base class's query and sample give, read without parsing SPARQL (rdflib's parser takes ~10 ms a
        query and more for a long ``UNION``): the distinct ends of the predicate's first :data:`SAMPLE_SCAN` triples
        (``triples((None, iri, None))``, as rdflib evaluates the query), sampled by :func:`sampled_ends`."""
        found = []
        for iri, subjects in predicates:
            sparql_iri(iri)  # the same check as the query's
            ends: dict[Node, None] = {}
            for scanned, (subject, _, obj) in enumerate(self.graph.triples((None, URIRef(iri), None)), start=1):
                ends.setdefault(subject if subjects else obj, None)
                if scanned >= SAMPLE_SCAN:
                    break
            found.append(sampled_ends((node_key(end) for end in ends), limit))
        return found

    def labelled_nodes(self) -> Iterable[tuple[str, str]]:
        self._fresh()
        names = self._names
        for key in self._adjacency:
            literals = names.get(key)
            if literals:
                yield from ((key, text) for _, text, _ in literals)
            elif not key.startswith('"') and not is_generated_id(key):
                yield key, default_label(key_term(key))
        for key, literals in names.items():
            if key not in self._adjacency:
                yield from ((key, text) for _, text, _ in literals)

    def node_ids(self) -> Iterator[str]:
        self._fresh()
        yield from self._adjacency.keys()
