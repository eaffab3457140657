"""The interface every backend implements, and the per-entity cache the disk and remote backends share.

A backend is a :class:`GraphStore`: it must answer the five abstract reads (:meth:`~GraphStore.edges`,
:meth:`~GraphStore.label`, :meth:`~GraphStore.predicate_iris`, :meth:`~GraphStore.labelled_nodes`,
:meth:`~GraphStore.node_ids`); everything else has a default it may answer faster. A backend read per entity on
demand is a :class:`LazyGraphStore` instead, which answers those reads from four batch fetches of its own
(:meth:`~LazyGraphStore.fetch_neighbourhoods`, :meth:`~LazyGraphStore.fetch_labels`,
:meth:`~LazyGraphStore.walk_batch`, :meth:`~LazyGraphStore.count_batch`). A new backend is one module and one line in
``tests/test_kg_conformance.py``'s ``BACKENDS``, whose suite every backend passes: the same links, labels, relation
names, paths and answers for the same data.
"""

from __future__ import annotations

import hashlib
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

from rdflib import Graph, Literal, URIRef
from rdflib.term import Node

from kg_agent.kg.errors import KGQueryError
from kg_agent.kg.known_vocabularies import published_names
from kg_agent.kg.label_index import SqliteLabelIndex
from kg_agent.kg.naming import (
    DEFAULT_NAMING,
    DOMAIN_PREDICATES,
    RANGE_PREDICATES,
    WIKIBASE_PROPERTY_LINKS,
    Naming,
    wikidata_property_entity,
)
from kg_agent.kg.relation_index import RelationIndex
from kg_agent.kg.sparql import check_read_only, sparql_iri, sparql_term
from kg_agent.kg.terms import RelationNames, is_absolute_iri, key_term, node_key, sibling_copied_labels
from kg_agent.kg.types import turns_back

#: What :meth:`GraphStore.name_literals` gives for a node: ``(predicate IRI, text, language tag or None)`` each.
NameLiterals = list[tuple[str, str, str | None]]

#: Triples of a predicate read to sample its ends (:meth:`GraphStore.sample_ends`): a predicate with few distinct
#: objects over millions of triples (``instance of``) is not read whole to find that it has no more
SAMPLE_SCAN = 5_000


def sampled_ends(ends: Iterable[str], limit: int) -> list[str]:
    """The sample of a predicate's ends (:meth:`GraphStore.sample_ends`) from the distinct ends of its first
    :data:`SAMPLE_SCAN` triples (ids, in any order): the same on every backend that reads the same ends, whatever order
    its engine reads them in (an in-memory graph reads a file's order; an Oxigraph store reads its indexes' order,
    which has nothing to do with the file's). The named ends (IRIs, literals) first, ordered by a digest of their ids,
    which no order of the data favours; then the blank ends, whose ids name them for one load only, in the order
    read."""
    named, blank = [], []
    for end in ends:
        (blank if end.startswith("_:") else named).append(end)
    named.sort(key=lambda end: (hashlib.blake2b(end.encode("utf-8"), digest_size=8).digest(), end))
    return (named + blank)[:max(0, limit)]


def sample_ends_query(predicates: Sequence[tuple[str, bool]], limit: int, *, with_ends: str = "",
                      projected: str = "?r ?x", facts: Callable[[str, str, str], str] | None = None) -> str:
    """``SELECT ?r ?x``: a ``UNION`` of one sub-select per ``(iri, subjects)`` binding its number ``?r``: the distinct
    ends ``?x`` (objects, or subjects when ``subjects``) among the predicate's first :data:`SAMPLE_SCAN` triples, at
    most ``limit`` (ValueError: an IRI that could break out of ``<...>``). ``with_ends``: a group joined to each
    branch's ends (an endpoint's names of blank ends), its variables added to ``projected``. ``facts(subject,
    predicate, object)``: the pattern matching a predicate's facts (an endpoint's, with the edges class restrictions
    state); a triple pattern without it."""
    branches = []
    for number, (iri, subjects) in enumerate(predicates):
        ends = ("?x", sparql_iri(iri), "?y") if subjects else ("?y", sparql_iri(iri), "?x")
        pattern = facts(*ends) if facts is not None else " ".join(ends)
        branches.append("{ { SELECT DISTINCT ?x WHERE { { SELECT ?x WHERE { %s } LIMIT %d } } LIMIT %d } %s BIND(%d AS ?r) }"
                        % (pattern, SAMPLE_SCAN, int(limit), with_ends, number))
    return "SELECT %s WHERE { %s }" % (projected, " UNION ".join(branches))


#: Edge visits after which :meth:`GraphStore.walkable`'s depth-first walk takes a relation path to be walkable
WALK_BUDGET = 50_000

#: What a neighbourhood is: ``{relation name (``^name`` for incoming): [neighbour id, ...] sorted}``.
Edges = dict[str, list[str]]


class BoundedEdges(NamedTuple):
    """What :meth:`GraphStore.bounded_edges` answers for a node: ``targets``, the relations with at most the bound's
    targets, each with its targets sorted by id (:data:`Edges`), and ``wide``, each relation with more and its number
    of targets (not read)."""

    targets: Mapping[str, Sequence[str]]
    wide: Mapping[str, int]


def split_edges(edges: Mapping[str, Sequence[str]], bound: int) -> BoundedEdges:
    """A node's whole :data:`Edges` as :class:`BoundedEdges`: the relations with more than ``bound`` targets are wide."""
    return BoundedEdges({rel: targets for rel, targets in edges.items() if len(targets) <= bound},
                        {rel: len(targets) for rel, targets in edges.items() if len(targets) > bound})


class CompletePaths(NamedTuple):
    """What :meth:`GraphStore.complete_paths` answers: ``{relation path: node paths}`` for the relation paths no
    cut applies to, and the display labels (None: none) of the nodes on those paths."""

    paths: dict[tuple[str, ...], list[tuple[str, ...]]]
    labels: dict[str, str | None]


def breadth_first(node_paths: Iterable[tuple[str, ...]], starts: Sequence[str]) -> list[tuple[str, ...]]:
    """Node paths in the order Algorithm 1's breadth-first walk finds them: by start, as given, then by the ids of
    the nodes after it (each node's targets are walked sorted by id)."""
    if len(starts) == 1:
        return sorted(node_paths)
    position = {start: at for at, start in enumerate(starts)}
    return sorted(node_paths, key=lambda nodes: (position[nodes[0]], nodes[1:]))


class GraphStore(ABC):
    """A read-only view of one knowledge graph's triples, answering in kg-agent ids and relation names.

    Subclasses implement the reads; :class:`~kg_agent.kg.graph.KnowledgeGraph` is the public front.

    Attributes:
        kind: ``"memory"``, ``"oxigraph"`` or ``"sparql"``.
        graph: the rdflib graph over the same triples (SPARQL queries).
        naming: which predicates name nodes, which languages are shown (:class:`~kg_agent.kg.naming.Naming`).
        batched: whether fetching many entities at once saves requests (callers then :meth:`prefetch`
            a search frontier before walking it).
    """

    kind = "abstract"
    batched = False
    #: Whether :meth:`complete_paths` answers every relation path it is asked about but those a cut applies to (so
    #: one it leaves out is known to be cut); the default answers none.
    answers_complete_paths = False

    def __init__(self, graph: Graph | None, *, names: RelationNames, name: str, naming: Naming = DEFAULT_NAMING) -> None:
        if graph is not None:  # None: the subclass makes its ``graph`` itself (the Oxigraph store, at first use)
            self.graph = graph
        self.names = names
        self.name = name
        self.naming = naming
        names.bind(self.relation_naming)

    # ---------------------------------------------------------------- names
    def name_literals(self, keys: Sequence[str], predicates: Sequence[str]) -> dict[str, NameLiterals]:
        """``{key: [(predicate, text, language), ...]}``: the literals of the given predicates on each node (rdflib
        reads; backends override with their own)."""
        found: dict[str, NameLiterals] = {}
        wanted = [URIRef(p) for p in predicates]
        for key in keys:
            term = key_term(key)
            if isinstance(term, Literal):
                continue
            for predicate in wanted:
                for obj in self.graph.objects(term, predicate):
                    if isinstance(obj, Literal):
                        found.setdefault(key, []).append((str(predicate), str(obj), obj.language))
        return found

    def display_labels(self, keys: Sequence[str]) -> dict[str, str | None]:
        """The label :class:`~kg_agent.kg.naming.Naming` shows for each node (None: it has no label or alias)."""
        names = self.name_literals(keys, self.naming.name_predicates)
        return {key: self.naming.display(names.get(key, ())) for key in keys}

    def property_links(self) -> list[tuple[str, str, str]]:
        """``(node, link IRI, predicate IRI)``: Wikibase's links from a property entity to the predicates that stand
        for it (``wd:P57 wikibase:directClaim wdt:P57``; :data:`~kg_agent.kg.naming.WIKIBASE_PROPERTY_LINKS`), and
        the classes of predicates' values and subjects (``dbo:starring rdfs:range dbo:Actor`` gives ``(dbo:Actor,
        rdfs:range, dbo:starring)``; :data:`~kg_agent.kg.naming.RANGE_PREDICATES`, ``DOMAIN_PREDICATES``)."""
        links = [(node_key(prop), link, str(predicate)) for link in WIKIBASE_PROPERTY_LINKS
                 for prop, predicate in self.graph.subject_objects(URIRef(link)) if isinstance(predicate, URIRef)]
        return links + [(node_key(cls), link, str(predicate)) for link in DOMAIN_PREDICATES + RANGE_PREDICATES
                        for predicate, cls in self.graph.subject_objects(URIRef(link))
                        if isinstance(predicate, URIRef) and not isinstance(cls, Literal)]

    def relation_naming(self) -> RelationNaming:
        """What :class:`~kg_agent.kg.terms.RelationNames` names relations from: the predicate IRIs of the facts,
        ``{IRI: label}`` of those whose property has a label: its own, else that of the Wikibase property entity it
        stands for (``wd:P57`` for ``wdt:P57``, with ``statement`` or ``qualifier`` added for ``p:`` and ``pq:``),
        those property entities and the classes of the values, ``{IRI: aliases}``: the alias literals
        (``skos:altLabel`` ...) in the caller's languages of the predicate and of the property entities standing for
        it ("actor", "starring") and the names of its values' class (``rdfs:range``), and ``{IRI: description}``
        (``rdfs:comment`` ...)."""
        iris = [iri for iri in self.predicate_iris() if self.naming.is_fact(iri)]
        return name_relations(self.naming, iris, self.property_links(), self.name_literals)

    # ---------------------------------------------------------------- reads every backend answers
    @abstractmethod
    def edges(self, key: str) -> Mapping[str, Sequence[str]]:
        """``{relation name: neighbour ids sorted}``, ``^name`` for incoming edges (:data:`Edges`)."""

    def bounded_edges(self, key: str, bound: int) -> BoundedEdges:
        """The node's edges over each relation with at most ``bound`` targets, and the number of targets of each
        relation with more (:class:`BoundedEdges`); a backend that can count a hub's edges in the engine overrides
        this so that their targets are never read. The same answer on every backend: :meth:`edges` split by size."""
        return split_edges(self.edges(key), bound)

    def bounded_edges_each(self, keys: Sequence[str], bound: int) -> dict[str, BoundedEdges]:
        """:meth:`bounded_edges` of many nodes: ``{key: its bounded edges}``; a remote store reads them in batches."""
        return {key: self.bounded_edges(key, bound) for key in dict.fromkeys(keys)}

    @abstractmethod
    def label(self, key: str) -> str | None:
        """The node's display label (:class:`~kg_agent.kg.naming.Naming`), None when it has no name."""

    def has_node(self, key: str) -> bool:
        return bool(self.edges(key)) or self.label(key) is not None

    @abstractmethod
    def predicate_iris(self) -> list[str]:
        """Every predicate IRI of the graph (name and schema predicates included; the caller filters)."""

    @abstractmethod
    def labelled_nodes(self) -> Iterable[tuple[str, str]]:
        """``(node id, name)`` for every name of every node that linking should find: each label and alias
        (:class:`~kg_agent.kg.naming.Naming`), in every language, or the default label of an IRI that has none."""

    @abstractmethod
    def node_ids(self) -> Iterator[str]:
        """Every node that is the subject or object of a fact."""

    def triple_count(self) -> int:
        return len(self.graph)

    # ---------------------------------------------------------------- relation paths and walks
    def relation_index(self) -> RelationIndex | None:
        """The schema-level relation index (:mod:`kg_agent.kg.relation_index`), None when there is none."""
        return None

    def current_relation_index(self) -> RelationIndex | None:
        """:meth:`relation_index` while it describes the graph as it is (what is true of *every* node is taken from
        it); None when there is none or the graph changed since it was built."""
        return self.relation_index()

    def following(self, signed_iri: str) -> Iterable[str]:
        """Signed predicate IRIs that some node reached over ``signed_iri`` has (the relation index's row)."""
        index = self.relation_index()
        if index is None:
            return ()
        return [signed for signed in index.following(signed_iri) if self.naming.is_fact(signed.lstrip("^"))]

    def signed_iri(self, relation: str) -> str | None:
        """The signed predicate IRI of a relation name (``^IRI`` for ``^name``); None for a relation the graph does
        not have."""
        return self.names.signed_iri(relation)

    def relation_pattern(self, relation: str, here: str, there: str) -> str:
        """The SPARQL pattern walking ``relation`` from ``here`` to ``there`` (KeyError: not a relation), with the
        rules every backend walks by: an empty literal is no value (never reached), and no step goes on from a
        literal (a walk backwards from ``"American"`` would join every American through it)."""
        signed = self.signed_iri(relation)
        if signed is None:
            raise KeyError(relation)
        if signed.startswith("^"):
            return f"{there} {sparql_iri(signed[1:])} {here} . FILTER(!isLiteral({here}))"
        return f'{here} {sparql_iri(signed)} {there} . FILTER(!isLiteral({there}) || STR({there}) != "")'

    def subjects_per_object(self, iris: Sequence[str]) -> dict[str, float]:
        """``{predicate IRI: how many subjects its objects have on average}``: the nodes with the predicate over the
        nodes it reaches that a walk goes on from (not literals; at least 1), from the relation index; empty without
        one."""
        index = self.relation_index()
        if index is None:
            return {}
        return {iri: index.nodes.get(iri, 0) / max(index.nodes.get("^" + iri, 0), 1) for iri in iris}

    def relations_following(self, relation: str) -> list[str]:
        """The relation names that can follow ``relation`` (sorted): :meth:`following` in names."""
        signed = self.names.signed_iri(relation)
        if signed is None:
            return []
        return sorted(self.names.signed_name(iri) for iri in self.following(signed))

    def walkable_extensions(self, starts: Sequence[str],
                            prefixes: Sequence[tuple[str, ...]]) -> dict[tuple[str, ...], list[str]]:
        """``{prefix: relations (sorted)}``: the relations that extend each relation path to one walkable from ``starts``.

        The empty prefix is extended by the relations at the starts, each walkable as read; a longer one by those
        that can follow its last relation (:meth:`relations_following`), each checked with :meth:`walkable` but where
        the relation index shows that every walk over the prefix's last relation goes on over it
        (:meth:`~kg_agent.kg.relation_index.RelationIndex.always_follows`: a film's genre after the films of a
        director) or that none does (:meth:`~kg_agent.kg.relation_index.RelationIndex.never_follows`: the other
        films in a film's language, then their other language), which needs no look at the graph. A backend that
        can answer a whole layer of prefixes in one engine call overrides this.
        """
        index = self.current_relation_index()
        signed = self.names.signed_iri
        found: dict[tuple[str, ...], list[str]] = {}
        at_starts: list[str] | None = None
        for prefix in prefixes:
            options = self.extension_options(starts, prefix)
            if not prefix:
                found[prefix] = options
                continue
            last = signed(prefix[-1])
            found[prefix] = []
            prefix_walkable: bool | None = None  # looked at once, when an index shortcut would take an extension
            for rel in options:
                following = signed(rel)
                if index is not None and last is not None and following is not None:
                    if index.never_follows(last, following):
                        continue
                    if index.always_follows(last, following):
                        if prefix_walkable is None:
                            # a prefix of one relation is walkable when the starts have it (as read); a longer one
                            # is asked once: a caller may pass a prefix no walk takes
                            if len(prefix) == 1:
                                if at_starts is None:
                                    at_starts = self.extension_options(starts, ())
                                prefix_walkable = prefix[0] in at_starts
                            else:
                                prefix_walkable = self.walkable(starts, prefix)
                        if prefix_walkable:
                            found[prefix].append(rel)
                        continue
                if self.walkable(starts, (*prefix, rel)):
                    found[prefix].append(rel)
        return found

    def extension_options(self, starts: Sequence[str], prefix: tuple[str, ...]) -> list[str]:
        """The relations that may extend ``prefix`` (sorted), before any is checked: those at the starts for the empty
        prefix, else those that can follow its last relation."""
        if prefix:
            return self.relations_following(prefix[-1])
        return sorted({rel for start in starts for rel in self.relations_at(start)})

    def complete_paths(self, starts: Sequence[str], relation_paths: Sequence[tuple[str, ...]], *, max_paths: int,
                       max_partial: int) -> CompletePaths:
        """Every node path that follows each relation path from ``starts``, for backends that answer it in one call.

        A relation path is in the answer only when no cut applies: at most ``max_partial`` partial paths at
        each depth before the last and at most ``max_paths`` complete ones (the node paths of Algorithm 1
        then, in breadth-first order). The others, and every relation path on backends without such a query
        (the default: none), are walked step by step by the caller.
        """
        return CompletePaths({}, {})

    def label_index(self) -> SqliteLabelIndex | None:
        """A label index the backend keeps on disk; None means the front builds one from :meth:`labelled_nodes`."""
        return None

    def relations_at(self, key: str) -> list[str]:
        """The relation names at a node, both directions (``^name`` for incoming)."""
        return list(self.edges(key))

    def relations_at_each(self, keys: Sequence[str]) -> dict[str, list[str]]:
        """``{key: relations_at(key)}`` for many nodes; a remote store asks for them in batches."""
        return {key: self.relations_at(key) for key in dict.fromkeys(keys)}

    def walk(self, keys: Sequence[str], relation: str, *, limit: int | None = None) -> dict[str, Sequence[str]]:
        """``{node: targets over relation}`` for many nodes (targets sorted by id); the whole answer is cut one row
        past ``limit``, in ``keys`` order (:func:`targets_until`).

        Nodes with no target are left out. Backends that can answer in one engine call override this.
        """
        self.prefetch(keys)
        return targets_until(keys, lambda key: self.edges(key).get(relation), limit)

    def sample_targets(self, key: str, relation: str, count: int) -> list[str]:
        """:meth:`~kg_agent.kg.graph.KnowledgeGraph.sample_targets`; here the walk's first ``count``."""
        return sorted(set(self.walk([key], relation, limit=count).get(key, ())))[:count]

    def walkable(self, starts: Sequence[str], relations: Sequence[str], *, budget: int = WALK_BUDGET) -> bool:
        """Whether ``relations`` can be walked from some start (no step walking the one before it backwards to where that
        began: :func:`~kg_agent.kg.types.turns_back`).

        Depth-first with an early exit; after ``budget`` edge visits the answer is taken to be yes
        (a candidate that then yields no path costs one empty retrieval, never a wrong answer).
        """
        visits = 0
        last = len(relations) - 1
        for start in starts:
            stack: list[tuple[str, str | None, int]] = [(start, None, 0)]  # node, the node before it, depth
            while stack:
                node, before, depth = stack.pop()
                targets = self.edges(node).get(relations[depth], ())
                back = turns_back(relations, depth)
                for target in targets:
                    visits += 1
                    if back and target == before:
                        continue
                    if depth == last:
                        return True
                    stack.append((target, node, depth + 1))
                if visits > budget:
                    return True
        return False

    # ---------------------------------------------------------------- batching and caches (no-ops by default)
    def prefetch(self, keys: Iterable[str]) -> int:
        return 0

    def prefetch_labels(self, keys: Iterable[str]) -> int:
        return 0

    def labels_of(self, keys: Iterable[str]) -> dict[str, str | None]:
        """``{key: label(key)}`` for many nodes at once."""
        return {key: self.label(key) for key in dict.fromkeys(keys)}

    def clear(self) -> None:  # noqa: B027 - a store without caches has nothing to forget
        """Forget every cached read (after changes made outside rdflib's API)."""

    def cache_info(self) -> dict[str, int]:
        return {}

    def request_count(self) -> int:
        """Requests sent to a remote store so far (0 for local stores)."""
        return 0

    # ---------------------------------------------------------------- SPARQL and lifecycle
    def query(self, sparql: str, *, bindings: Mapping[str, Node] | None = None, timeout: float | None = None):
        """A read-only SPARQL query through rdflib (see :meth:`KnowledgeGraph.query`)."""
        check_read_only(sparql)
        try:
            result = self.graph.query(sparql, initBindings=dict(bindings or {}))
        except Exception as exc:
            raise KGQueryError(f"{self.name}: query failed: {exc}") from exc
        return result

    def sample_ends(self, predicates: Sequence[tuple[str, bool]], *, limit: int) -> list[list[str]]:
        """For each ``(iri, subjects)``: up to ``limit`` distinct objects of the predicate (its subjects when
        ``subjects``) among its first :data:`SAMPLE_SCAN` triples, as ids, chosen and ordered by
        :func:`sampled_ends` (so every backend that reads the same triples samples the same ends), from one query of
        the distinct ends (:func:`sample_ends_query`; an IRI that could break out of ``<...>`` raises ValueError)."""
        ends: list[list[str]] = [[] for _ in predicates]
        if predicates:
            for number, node in self.query(sample_ends_query(predicates, SAMPLE_SCAN)):
                ends[int(number)].append(node_key(node))
        return [sampled_ends(found, limit) for found in ends]

    def queryable(self, key: str) -> bool:
        """Whether an id can be asked about: a valid IRI, a literal, or a blank node."""
        try:
            if not key.startswith(('"', "_:")):
                sparql_iri(key)  # first: rdflib's URIRef logs a warning for a plain label such as "Tom Hanks"
            key_term(key)
        except Exception:  # not an IRI (spaces, brackets...) or not valid N3
            return False
        return True

    def term(self, key: str) -> Node:
        """The rdflib term of an id, checked: an IRI that could break out of ``<...>`` raises ValueError."""
        term = key_term(key)
        if isinstance(term, URIRef):
            sparql_iri(term)
        return term

    def close(self) -> None:
        try:
            self.graph.close()
        except Exception:  # pragma: no cover - stores without close
            pass


class LRUCache(OrderedDict):
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


#: Cached for an entity known to have no name.
NO_LABEL = "\x00no-label"


class LazyGraphStore(GraphStore):
    """A backend read per entity on demand, keeping neighbourhoods and labels in a bounded LRU cache.

    Subclasses implement :meth:`fetch_neighbourhoods` and :meth:`fetch_labels` (one call per batch of
    ``batch_size`` entities), and :meth:`walk_batch`; everything else (caching, batching, counting) is here.
    """

    #: Nodes per :meth:`walk_batch` call (one ``VALUES`` query)
    walk_batch_size = 1000

    def __init__(self, graph: Graph | None, *, names: RelationNames, name: str, cache_size: int = 50_000,
                 batch_size: int = 100, naming: Naming = DEFAULT_NAMING) -> None:
        super().__init__(graph, names=names, name=name, naming=naming)
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.cache_size = cache_size
        self.batch_size = batch_size
        self._lock = threading.RLock()
        self._edges: LRUCache = LRUCache(cache_size)
        self._labels: LRUCache = LRUCache(cache_size)
        self._hits = self._misses = 0

    # ---------------------------------------------------------------- what subclasses implement
    @abstractmethod
    def fetch_neighbourhoods(self, keys: Sequence[str]) -> dict[str, Edges]:
        """Edges in both directions of each key (labels met on the way may go to :meth:`remember_label`)."""

    @abstractmethod
    def fetch_labels(self, keys: Sequence[str]) -> dict[str, str | None]:
        """The display label of each key (None: no name), as :meth:`GraphStore.display_labels` chooses it."""

    def walk_query(self, keys: Sequence[str], relation: str) -> str:
        """``SELECT ?n ?t``: the targets ``?t`` of the nodes ``?n`` over ``relation`` (terms escaped)."""
        values = " ".join(sparql_term(self.term(key)) for key in keys)
        return "SELECT ?n ?t WHERE { VALUES ?n { %s } %s }" % (values, self.relation_pattern(relation, "?n", "?t"))

    @abstractmethod
    def walk_batch(self, keys: Sequence[str], relation: str, limit: int | None) -> dict[str, list[str]]:
        """``{node: targets over relation}`` for up to :attr:`walk_batch_size` nodes in one engine call
        (:meth:`walk_query`), at most ``limit`` rows (cut inside the query)."""

    @abstractmethod
    def count_batch(self, keys: Sequence[str], relation: str) -> dict[str, int]:
        """``{node: number of targets over relation}`` in one engine call (``GROUP BY``)."""

    def first_targets(self, key: str, relation: str, count: int) -> list[str] | None:
        """The first ``count`` targets of ``key`` over ``relation`` in id order, read in one engine call without the
        rest; None when the backend cannot (the caller reads them all)."""
        return None

    def count_query(self, keys: Sequence[str], relation: str) -> str:
        """``SELECT ?n ?c``: how many targets each node has over ``relation``."""
        values = " ".join(sparql_term(self.term(key)) for key in keys)
        return "SELECT ?n (COUNT(?t) AS ?c) WHERE { VALUES ?n { %s } %s } GROUP BY ?n" % (
            values, self.relation_pattern(relation, "?n", "?t"))

    def walk(self, keys: Sequence[str], relation: str, *, limit: int | None = None) -> dict[str, Sequence[str]]:
        """:meth:`GraphStore.walk` in one query per :attr:`walk_batch_size` nodes (``VALUES``), cut by ``LIMIT``
        inside the engine; cached neighbourhoods reused.

        The same answer as walking node by node: when the ``LIMIT`` cuts a batch (which leaves arbitrary rows
        out), the batch's target counts say which nodes, in the given order, come whole before the cut, and
        those the cut read did not hold whole are read again (one or two more queries, only at a cut); of the node
        the cut falls in, only its first targets (:meth:`first_targets`), so a hub's thousands are not read.
        """
        found: dict[str, Sequence[str]] = {}
        todo = []
        with self._lock:
            for key in keys:
                cached = self._edges.get_or_none(key)
                if cached is not None:
                    if cached.get(relation):
                        found[key] = cached[relation]
                elif key.startswith("_:"):  # blank nodes cannot be named in a query
                    targets = self.edges(key).get(relation)
                    if targets:
                        found[key] = targets
                elif self.queryable(key):
                    todo.append(key)
        if not todo or self.signed_iri(relation) is None:
            return self._cut_in_order(keys, found, limit)
        rows = 0
        walked: dict[str, list[str]] = {}
        for start in range(0, len(todo), self.walk_batch_size):
            batch = todo[start:start + self.walk_batch_size]
            room = None if limit is None else limit - rows + 1
            read = self.walk_batch(batch, relation, room)
            if room is not None and sum(len(set(t)) for t in read.values()) >= room:
                walked.update(self._whole_before_cut(keys, found, walked, batch, read, relation, limit))
                break
            walked.update(read)
            rows += sum(len(set(t)) for t in read.values())
        for key, targets in walked.items():
            found[key] = sorted(set(targets))
        return self._cut_in_order(keys, found, limit)

    def sample_targets(self, key: str, relation: str, count: int) -> list[str]:
        """The first ``count`` rows the engine gives (``LIMIT``), sorted: no count and no second read at a cut."""
        if key.startswith("_:") or not self.queryable(key) or self.signed_iri(relation) is None:
            return super().sample_targets(key, relation, count)
        return sorted(set(self.walk_batch([key], relation, count).get(key, ())))[:count]

    def _whole_before_cut(self, keys: Sequence[str], found: Mapping[str, Sequence[str]], walked: Mapping[str, list[str]],
                          batch: Sequence[str], read: Mapping[str, list[str]], relation: str,
                          limit: int) -> dict[str, list[str]]:
        """The targets of the batch's nodes that a node-by-node walk of ``keys`` reads before passing ``limit``:
        from the cut ``read`` of the batch for the nodes it holds whole (as many targets as counted), else read
        again; the node whose targets pass ``limit`` only up to one past it when the backend can read just those."""
        counts = self.count_batch(batch, relation)
        in_batch = set(batch)
        rows = 0
        wanted = []
        passing: tuple[str, int] | None = None  # the node whose targets pass the limit, and how many of them are read
        for key in keys:
            before = rows
            if key in in_batch:
                if counts.get(key):
                    wanted.append(key)
                    rows += counts[key]
            else:
                rows += len(found.get(key) or walked.get(key) or ())
            if rows > limit:
                if key in in_batch and counts.get(key):
                    passing = (key, limit - before + 1)
                break
        whole = {key: read[key] for key in wanted if len(set(read.get(key, ()))) == counts[key]}
        missing = [key for key in wanted if key not in whole]
        if passing is not None and passing[0] in missing:
            first = self.first_targets(passing[0], relation, passing[1])
            if first is not None:
                whole[passing[0]] = first
                missing.remove(passing[0])
        if missing:
            whole.update(self.walk_batch(missing, relation, None))
        return whole

    @staticmethod
    def _cut_in_order(keys: Sequence[str], found: Mapping[str, Sequence[str]], limit: int | None) -> dict[str, Sequence[str]]:
        """The nodes with targets in ``keys`` order, up to and including the one whose targets pass ``limit`` (its
        targets cut one past it: :func:`targets_until`)."""
        return targets_until(keys, found.get, limit)

    # ---------------------------------------------------------------- cache
    def remember_label(self, key: str, label: str | None) -> None:
        with self._lock:
            self._labels.put(key, NO_LABEL if label is None else label)

    def forget(self, key: str) -> None:
        with self._lock:
            self._edges.pop(key, None)
            self._labels.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._edges.clear()
            self._labels.clear()

    def cache_info(self) -> dict[str, int]:
        with self._lock:
            return {"entities": len(self._edges), "labels": len(self._labels), "maxsize": self.cache_size,
                    "hits": self._hits, "misses": self._misses, "requests": self.request_count()}

    def edges(self, key: str) -> Mapping[str, Sequence[str]]:
        with self._lock:
            cached = self._edges.get_or_none(key)
            if cached is not None:
                self._hits += 1
                return cached
        if not self.queryable(key):
            return {}
        fetched = self.fetch_neighbourhoods([key]).get(key, {})
        with self._lock:
            self._misses += 1
            self._edges.put(key, fetched)
        return fetched

    def prefetch(self, keys: Iterable[str]) -> int:
        """Fetch the edges of every given entity not cached yet, ``batch_size`` per call; returns how many."""
        with self._lock:
            todo = [k for k in dict.fromkeys(keys) if k not in self._edges and self.queryable(k)]
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start:start + self.batch_size]
            fetched = self.fetch_neighbourhoods(batch)
            with self._lock:
                self._misses += len(batch)
                for key in batch:
                    self._edges.put(key, fetched.get(key, {}))
        return len(todo)

    def label(self, key: str) -> str | None:
        with self._lock:
            found = self._labels.get_or_none(key)
        if found is None:
            if not self.queryable(key) or isinstance(key_term(key), Literal):
                return None
            return self._fetch_labels_of([key]).get(key)  # as fetched: another thread may evict it from the cache
        return None if found == NO_LABEL else found

    def prefetch_labels(self, keys: Iterable[str]) -> int:
        """Fetch the display label of every given node not cached yet, :attr:`walk_batch_size` per call (a label
        row is small; the ends of a walk are labelled in as many calls as the walk took)."""
        with self._lock:
            todo = [k for k in dict.fromkeys(keys)
                    if k not in self._labels and self.queryable(k) and not k.startswith('"')]
        self._fetch_labels_of(todo)
        return len(todo)

    def labels_of(self, keys: Iterable[str]) -> dict[str, str | None]:
        """The labels of many nodes: the cached ones, the others fetched :attr:`walk_batch_size` per call and returned
        as fetched, so a batch larger than the label cache is not fetched again one by one."""
        found: dict[str, str | None] = {}
        todo = []
        with self._lock:
            for key in dict.fromkeys(keys):
                cached = self._labels.get_or_none(key)
                if cached is not None:
                    found[key] = None if cached == NO_LABEL else cached
                elif self.queryable(key) and not key.startswith('"'):
                    todo.append(key)
                else:
                    found[key] = None
        found.update(self._fetch_labels_of(todo))
        return found

    def _fetch_labels_of(self, keys: Sequence[str]) -> dict[str, str | None]:
        fetched: dict[str, str | None] = {}
        for start in range(0, len(keys), self.walk_batch_size):
            batch = keys[start:start + self.walk_batch_size]
            found = self.fetch_labels(batch)
            for key in batch:
                fetched[key] = found.get(key)
                self.remember_label(key, fetched[key])
        return fetched


def absolute_or_literal(key: str) -> bool:
    """Whether a remote endpoint can be asked about the id (a relative IRI such as ``Big`` cannot)."""
    term = key_term(key)
    return isinstance(term, Literal) or (isinstance(term, URIRef) and is_absolute_iri(term))


def targets_until(keys: Iterable[str], targets_of: Callable[[str], Sequence[str] | None],
                  limit: int | None) -> dict[str, Sequence[str]]:
    """Each key's non-empty targets, in key order, until the rows pass ``limit``: the key that takes them past it
    keeps its first targets up to one row past the limit (so the cut shows: more than ``limit`` rows), and the keys
    after it are left out. A hub's targets thus cost no more than the limit."""
    kept: dict[str, Sequence[str]] = {}
    rows = 0
    for key in keys:
        targets = targets_of(key)
        if targets:
            if limit is not None and rows + len(targets) > limit:
                kept[key] = targets[:limit - rows + 1]
                break
            kept[key] = targets
            rows += len(targets)
    return kept


class RelationNaming(NamedTuple):
    """What :class:`~kg_agent.kg.terms.RelationNames` names relations from (:meth:`GraphStore.relation_naming`)."""

    #: the facts' predicate IRIs
    iris: list[str]
    #: ``{IRI: display label}`` of the predicates whose property has a label
    labels: dict[str, str]
    #: the Wikibase property entities standing for some predicate (``wd:P57``) and the classes of predicates' values
    #: (``rdfs:range``): not entities
    schema_nodes: list[str]
    #: ``{IRI: other names}``: the property's aliases and the names of its values' class, in the caller's languages
    aliases: dict[str, list[str]]
    #: ``{IRI: description}``: the property's description in the caller's languages
    descriptions: dict[str, str]


def name_relations(naming: Naming, iris: Sequence[str], property_links: Iterable[tuple[str, str, str]],
                   name_literals: Callable[[Sequence[str], Sequence[str]], Mapping[str, NameLiterals]]) -> RelationNaming:
    """:meth:`GraphStore.relation_naming` from its parts, wherever they were read: the facts' predicate ``iris``, the
    ``(node, link IRI, predicate IRI)`` links -- a Wikibase property entity standing for the predicate
    (:data:`~kg_agent.kg.naming.WIKIBASE_PROPERTY_LINKS`), or the class of the predicate's values or subjects
    (:data:`~kg_agent.kg.naming.RANGE_PREDICATES`, read from ``?predicate rdfs:range ?class``, and
    ``DOMAIN_PREDICATES``; a range's names name the relation's values) -- and a
    ``name_literals(keys, predicates)`` reader (a store's; the load's index pass reads them from the file,
    :func:`kg_agent.kg.loading.oxigraph_build.build_oxigraph`)."""
    iris = list(iris)
    standing: dict[str, list[tuple[str, str]]] = {iri: [(iri, "")] for iri in iris}
    ranges: dict[str, list[str]] = {}
    classes: list[str] = []
    for node, link, predicate in sorted(property_links):
        if predicate not in standing:
            continue
        if link in WIKIBASE_PROPERTY_LINKS:
            standing[predicate].append((node, WIKIBASE_PROPERTY_LINKS[link]))
        elif link in RANGE_PREDICATES or link in DOMAIN_PREDICATES:
            classes.append(node)
            if link in RANGE_PREDICATES:
                ranges.setdefault(predicate, []).append(node)
    for iri in iris:  # Wikidata's namespaces say which property entity a predicate stands for, linked or not
        entity = wikidata_property_entity(iri)
        if entity is not None and entity[0] not in (node for node, _ in standing[iri]):
            standing[iri].append(entity)
    properties = list(dict.fromkeys(node for pairs in standing.values() for node, _ in pairs))
    names = name_literals(list(dict.fromkeys(properties + [node for found in ranges.values() for node in found])),
                          naming.label_predicates + naming.alias_predicates + naming.description_predicates)
    labels: dict[str, str] = {}
    aliases: dict[str, list[str]] = {}
    descriptions: dict[str, str] = {}
    for iri, pairs in standing.items():
        for node, suffix in pairs:
            label = naming.display(labels_only(naming, names.get(node, ())))
            if label:
                labels[iri] = label + suffix
                break
        own = [literal for node, _ in pairs for literal in names.get(node, ())]
        found = alias_texts(naming, own)
        if naming.in_languages("en"):  # a published vocabulary's English names of its codes ("trl": "translator")
            found += published_names(iri)
        found += alias_texts(naming, [literal for node in ranges.get(iri, ()) for literal in names.get(node, ())],
                             labels_too=True)
        if found:
            aliases[iri] = sorted(set(found))  # the same whatever order a backend reads them in
        description = description_text(naming, own)
        if description:
            descriptions[iri] = description
    for iri in sibling_copied_labels(labels, [*iris, *naming.label_predicates, *naming.alias_predicates,
                                              *naming.description_predicates]):
        del labels[iri]  # a label copied from a sibling property ("name" on ``:member``): named by its local name
    schema_nodes = [node for node in properties if node not in standing] + list(dict.fromkeys(classes))
    return RelationNaming(iris, labels, schema_nodes, aliases, descriptions)



def wikidata_property_entities(iris: Iterable[str]) -> list[str]:
    """The Wikidata property entities (``wd:P57``) that predicates in Wikidata's namespaces stand for, each once."""
    return list(dict.fromkeys(found[0] for iri in iris if (found := wikidata_property_entity(iri))))


def labels_only(naming, literals: Iterable[tuple[str, str, str | None]]) -> list[tuple[str, str, str | None]]:
    """The label literals among ``(predicate, text, language)`` name literals (a relation is named by a label only)."""
    labels = set(naming.label_predicates)
    return [literal for literal in literals if literal[0] in labels]


def alias_texts(naming, literals: Iterable[tuple[str, str, str | None]], *, labels_too: bool = False) -> list[str]:
    """The alias texts among name literals (with ``labels_too``, the labels' too: a class's names), in the caller's
    languages, each once."""
    wanted = set(naming.name_predicates) if labels_too else set(naming.alias_predicates) - set(naming.label_predicates)
    return list(dict.fromkeys(" ".join(text.split()) for predicate, text, language in literals
                              if predicate in wanted and text.strip() and naming.in_languages(language)))


def description_text(naming, literals: Iterable[tuple[str, str, str | None]]) -> str | None:
    """The description among name literals to show: the caller's first language that has one, then an untagged
    one; among equals the predicate listed first, then the shortest, then code-point order (None: no description)."""
    order = {iri: at for at, iri in enumerate(naming.description_predicates)}
    ranked = [((naming.language_rank(language), order[predicate], len(text), text), text)
              for predicate, text, language in literals
              if predicate in order and text.strip() and naming.in_languages(language)]
    return " ".join(min(ranked)[1].split()) if ranked else None
