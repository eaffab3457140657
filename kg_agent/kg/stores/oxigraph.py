"""The Oxigraph backend: a store on disk read through pyoxigraph's own API, not per-triple rdflib calls."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import XSD
from rdflib.store import TripleAddedEvent, TripleRemovedEvent
from rdflib.term import Node

from kg_agent.kg.deadline import check_deadline, read_deadline
from kg_agent.kg.errors import KGQueryError
from kg_agent.kg.label_index import SqliteLabelIndex
from kg_agent.kg.naming import DEFAULT_NAMING, DOMAIN_PREDICATES, LABEL_NAMES_GRAPH, RANGE_PREDICATES, WIKIBASE_PROPERTY_LINKS, Naming
from kg_agent.kg.owl_restrictions import RESTRICTION_GRAPH
from kg_agent.kg.relation_index import RelationIndex
from kg_agent.kg.sparql import sparql_iri, sparql_term
from kg_agent.kg.stores.base import (
    SAMPLE_SCAN,
    WALK_BUDGET,
    BoundedEdges,
    CompletePaths,
    Edges,
    LazyGraphStore,
    LRUCache,
    NameLiterals,
    breadth_first,
    sample_ends_query,
    sampled_ends,
    split_edges,
)
from kg_agent.kg.terms import RelationNames, default_label, is_generated_id, key_term, node_key
from kg_agent.kg.types import inverse, turns_back

_DEFAULT = ox.DefaultGraph()
_XSD_STRING = str(XSD.string)
_XSD_DECIMAL = str(XSD.decimal)
#: Relation paths whose :meth:`OxigraphGraphStore.paths_query` text a store keeps
PATH_QUERIES_CACHED = 1024
#: Hubs (nodes of more edges than a :meth:`OxigraphGraphStore.bounded_edges` bound) whose bounded edges a store keeps
HUBS_CACHED = 4096
#: Edges of a node read in one direction before its relations are looked up predicate by predicate
#: (:meth:`OxigraphGraphStore.relations_at` of a hub)
RELATIONS_READ = 256
#: Rows of a relation path's paths read before its sizes are counted in the engine
#: (:meth:`OxigraphGraphStore.fits`)
PROBE_AFTER_ROWS = 1000


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
        value = term.value
        if datatype == _XSD_DECIMAL and value.lstrip("+-").isdigit():
            # Oxigraph keeps a decimal's value and writes a whole one without its point (XSD 1.1): "299792458.0" read
            # back as "299792458", which reads as an integer; the point as XSD 1.0 writes it, as the file most
            # likely had it and as memory shows it (the same value, so the id finds the same literal)
            value += ".0"
        return Literal(value, datatype=None if datatype == _XSD_STRING else URIRef(datatype)).n3()
    return str(term)


def store_names(store: ox.Store, naming: Naming, nodes: Iterable | None = None) -> Iterator[tuple[str, str]]:
    """``(node id, name)`` of every label and alias literal of an Oxigraph store, in the store's order, then the
    default names of its facts' IRIs that have none (:func:`with_default_names`); ``nodes``: those IRIs' nodes when
    the caller holds them (the load's node signatures), else read from the store."""
    graphs = read_graphs(store)
    names = ((ox_key(quad.subject), quad.object.value) for iri in naming.name_predicates for graph in graphs
             for quad in store.quads_for_pattern(None, ox.NamedNode(iri), None, graph)
             if isinstance(quad.object, ox.Literal))
    return with_default_names(names, _fact_nodes(store, naming) if nodes is None else nodes)


def read_graphs(store: ox.Store) -> list:
    """The graphs of a store that are read as the KG: the default graph (the file's triples) and those of kg-agent's
    derived graphs the store has (:data:`~kg_agent.kg.owl_restrictions.RESTRICTION_GRAPH`, the edges its OWL class
    restrictions state; :data:`~kg_agent.kg.naming.LABEL_NAMES_GRAPH`, the names its label nodes give)."""
    derived = [ox.NamedNode(iri) for iri in (RESTRICTION_GRAPH, LABEL_NAMES_GRAPH)]
    return [_DEFAULT] + [graph for graph in derived if store.contains_named_graph(graph)]


def with_default_names(names: Iterable[tuple[str, str]], nodes: Iterable) -> Iterator[tuple[str, str]]:
    """``names``, then ``(iri, its default label)`` for each IRI among ``nodes`` that no name was given for, as the
    memory backend lists them (:meth:`~kg_agent.kg.stores.base.GraphStore.labelled_nodes`): a node named only by its
    IRI (``.../so#SOFA``) is found by its last segment in an Oxigraph store too. ``nodes``: ids, or the load's
    N-Triples keys (``b"<iri>"``; an escaped one is skipped); blank nodes and generated ids get none."""
    named: set[str] = set()
    for key, text in names:
        named.add(key)
        yield key, text
    for node in nodes:
        if isinstance(node, bytes):
            if node[:1] != b"<" or b"\\" in node:
                continue
            node = node[1:-1].decode("utf-8")
        if isinstance(node, str) and node not in named and not node.startswith(('"', "\x00")) \
                and not is_generated_id(node):
            yield node, default_label(URIRef(node))


def _fact_nodes(store: ox.Store, naming: Naming) -> Iterator[str]:
    """The ids of the nodes of the store's facts (its predicates that are no names or schema), for a caller that has
    no :class:`OxigraphGraphStore` (:meth:`~OxigraphGraphStore.node_ids` reads its cached predicates)."""
    predicates = [ox_key(row[0]) for row in store.query("SELECT DISTINCT ?p WHERE { ?s ?p ?o }")]
    facts = [p for p in predicates if naming.is_fact(p)]
    if facts:
        yield from (ox_key(row[0]) for row in store.query(fact_nodes_query(facts)))


def fact_nodes_query(facts: Sequence[str]) -> str:
    """``SELECT ?n``: the subjects and objects of the fact predicates ``facts``, each once (the memory index's nodes)."""
    return "SELECT DISTINCT ?n WHERE { VALUES ?p { %s } { ?n ?p ?o } UNION { ?s ?p ?n } }" % " ".join(
        sparql_iri(p) for p in facts)


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

    The default graph is read, and what ``kg-agent load`` derived from the file, kept in kg-agent's named graphs
    (:func:`read_graphs`: the edges of OWL class restrictions, the names of label nodes): the walks, paths, counts
    and names read them as one graph. Neighbourhoods come from ``quads_for_pattern`` in both directions. The rdflib view
    (:meth:`query`, the user's SPARQL) is the default graph, the KG as the file has it.
    """

    kind = "oxigraph"

    def __init__(self, store: ox.Store, *, names: RelationNames, name: str,
                 cache_size: int = 50_000, relation_index: RelationIndex | None = None,
                 label_index: SqliteLabelIndex | None = None, naming: Naming = DEFAULT_NAMING) -> None:
        self.store = store
        self._view: Graph | None = None  # the rdflib view, made by the first use of :attr:`graph`
        self._view_lock = threading.Lock()
        super().__init__(None, names=names, name=name, cache_size=cache_size, batch_size=1000, naming=naming)
        self._facts: dict[str, bool] = {}
        self._in_store: dict[str, bool] = {}  # name predicate IRI -> whether the store has a triple of it
        self._relation_index = relation_index
        self._changed = False  # whether triples were added or removed through the rdflib view since the store opened
        self._label_index = label_index
        self._path_queries: LRUCache = LRUCache(PATH_QUERIES_CACHED)  # relation path -> paths_query around its start
        self._bounded: LRUCache = LRUCache(HUBS_CACHED)  # hub -> (bound, bounded_edges)
        #: the graphs read as the KG: the default graph and kg-agent's derived graphs the store has
        self._fact_graphs = read_graphs(store)
        self._graphs_kw = {"default_graph": self._fact_graphs} if len(self._fact_graphs) > 1 else {}

    @property
    def graph(self) -> Graph:
        """The rdflib view of the store (``oxrdflib``), made at its first use: SPARQL through rdflib, rdflib's API.

        The store's own reads go through pyoxigraph and never need it; importing ``oxrdflib`` imports rdflib's
        SPARQL engine (~0.08 s), which a question need not wait for. Triples added or removed through the view
        make the store forget what it cached of their nodes.
        """
        with self._view_lock:
            if self._view is None:
                from oxrdflib import OxigraphStore
                from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

                view = Graph(store=OxigraphStore(store=self.store), identifier=DATASET_DEFAULT_GRAPH_ID)
                view.store.dispatcher.subscribe(TripleAddedEvent, self._on_change)
                view.store.dispatcher.subscribe(TripleRemovedEvent, self._on_change)
                self._view = view
            return self._view

    def _on_change(self, event) -> None:
        self._changed = True
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

    def _is_fact(self, predicate: str) -> bool:
        fact = self._facts.get(predicate)
        if fact is None:
            fact = self._facts[predicate] = self.naming.is_fact(predicate)
        return fact

    def _fact_quads(self, subject, predicate, obj) -> Iterable:
        """The quads of the pattern in the graphs read as the KG (:attr:`_fact_graphs`)."""
        if len(self._fact_graphs) == 1:
            return self.store.quads_for_pattern(subject, predicate, obj, _DEFAULT)
        return chain.from_iterable(self.store.quads_for_pattern(subject, predicate, obj, graph)
                                   for graph in self._fact_graphs)

    def fetch_neighbourhoods(self, keys: Sequence[str]) -> dict[str, Edges]:
        found: dict[str, Edges] = {}
        try:
            for key in keys:
                found[key] = self._neighbourhood(key)
        except (OSError, RuntimeError) as exc:
            raise KGQueryError(f"{self.name}: could not read the neighbours of {keys[0]}: {exc}") from exc
        return found

    def _neighbourhood(self, key: str, max_edges: int | None = None) -> Edges | None:
        """The node's edges in both directions by pattern lookup (its label remembered on the way); None, the rest
        left unread, once more than ``max_edges`` edges were read."""
        name, is_fact, is_label = self.names.name, self._is_fact, self.naming.is_label
        quads = self._fact_quads
        term = self._ox(key)
        rels: Edges = {}
        read = 0
        deadline = read_deadline()
        if not isinstance(term, ox.Literal):
            literals: NameLiterals = []
            for quad in quads(term, None, None):
                predicate = quad.predicate.value
                obj = quad.object
                if is_label(predicate) and isinstance(obj, ox.Literal):  # a label or an alias (a fact too)
                    literals.append((predicate, obj.value, obj.language))
                if not is_fact(predicate):
                    continue
                if isinstance(obj, ox.Literal) and not obj.value:
                    continue  # an empty literal is no value
                read += 1
                if max_edges is not None and read > max_edges:
                    return None
                if deadline is not None and not read % 1000:
                    check_deadline(deadline, f"{self.name}: the neighbours of {key}")
                rels.setdefault(name(predicate), []).append(ox_key(obj))
            self.remember_label(key, self.naming.display(literals))
            incoming = quads(None, None, term)
        else:
            incoming = ()  # a literal is an end: no path goes on from it
        for quad in incoming:
            predicate = quad.predicate.value
            if not is_fact(predicate):
                continue
            read += 1
            if max_edges is not None and read > max_edges:
                return None
            if deadline is not None and not read % 1000:
                check_deadline(deadline, f"{self.name}: the neighbours of {key}")
            rels.setdefault(inverse(name(predicate)), []).append(ox_key(quad.subject))
        for rel, targets in rels.items():
            if len(targets) > 1:
                rels[rel] = sorted(set(targets))
        return rels

    def bounded_edges(self, key: str, bound: int) -> BoundedEdges:
        """Read by pattern lookup while the node has at most ``bound`` edges (then kept as its whole neighbourhood);
        past that, the number of targets of each relation is counted in the engine, one query without reading them
        (a genre's thousands of films: a millisecond, against 10 ms per thousand edges read), and only the relations
        with at most ``bound`` targets are read. A hub's answer is kept in its own cache."""
        with self._lock:
            cached = self._edges.get_or_none(key)
            wide = self._bounded.get_or_none(key) if cached is None else None
        if cached is not None:
            return split_edges(cached, bound)
        if wide is not None and wide[0] == bound:
            return wide[1]
        if not self.queryable(key) or key.startswith(("_:", '"')):  # a blank node cannot be named in a query
            return split_edges(self.edges(key), bound)
        try:
            whole = self._neighbourhood(key, max_edges=bound)
            if whole is not None:
                with self._lock:
                    self._misses += 1
                    self._edges.put(key, whole)
                return split_edges(whole, bound)
            found = self._read_hub(key, bound)
        except (OSError, RuntimeError) as exc:
            raise KGQueryError(f"{self.name}: could not read the neighbours of {key}: {exc}") from exc
        with self._lock:
            self._bounded.put(key, (bound, found))
        return found

    def _read_hub(self, key: str, bound: int) -> BoundedEdges:
        """:meth:`bounded_edges` of a node with more than ``bound`` edges: the relations counted in the engine, the
        targets of those with at most ``bound`` read by pattern."""
        term = self._ox(key)
        node = sparql_term(self.term(key))
        counted = self._select(
            'SELECT ?p ?back (COUNT(*) AS ?n) WHERE { { %s ?p ?o FILTER(!isLiteral(?o) || STR(?o) != "") BIND(false AS ?back) } '
            'UNION { ?s ?p %s BIND(true AS ?back) } } GROUP BY ?p ?back' % (node, node))
        sizes: dict[tuple[str, bool], int] = {}
        for row in counted:
            if self._is_fact(row[0].value):
                sizes[(row[0].value, row[1].value == "true")] = int(row[2].value)
        targets: Edges = {}
        wide: dict[str, int] = {}
        quads = self._fact_quads
        for (predicate, back), count in sizes.items():
            relation = inverse(self.names.name(predicate)) if back else self.names.name(predicate)
            if count > bound:
                wide[relation] = wide.get(relation, 0) + count
            elif back:
                targets.setdefault(relation, []).extend(
                    ox_key(quad.subject) for quad in quads(None, ox.NamedNode(predicate), term))
            else:
                targets.setdefault(relation, []).extend(
                    ox_key(quad.object) for quad in quads(term, ox.NamedNode(predicate), None)
                    if not (isinstance(quad.object, ox.Literal) and not quad.object.value))
        return BoundedEdges({rel: sorted(set(found)) for rel, found in targets.items() if found}, wide)

    def name_literals(self, keys: Sequence[str], predicates: Sequence[str]) -> dict[str, NameLiterals]:
        """By pattern lookup (``quads_for_pattern``): as fast per node as one ``VALUES`` query for a batch of 1000,
        and five times faster for one node (no query to parse); only the predicates the store has (a KG names its
        nodes with one or two of the dozen name predicates: the labels of a genre's 54,000 films are 54,000
        lookups, not 700,000)."""
        wanted = [ox.NamedNode(iri) for iri in predicates if self._has_predicate(iri)]
        found: dict[str, NameLiterals] = {}
        try:
            for key in keys:
                term = self._ox(key)
                if isinstance(term, ox.Literal):
                    continue
                for predicate in wanted:
                    for quad in self._fact_quads(term, predicate, None):
                        if isinstance(quad.object, ox.Literal):
                            found.setdefault(key, []).append((predicate.value, quad.object.value, quad.object.language))
        except (OSError, RuntimeError) as exc:
            raise KGQueryError(f"{self.name}: could not read the labels of {keys[0]}: {exc}") from exc
        return found

    def _has_predicate(self, iri: str) -> bool:
        """Whether the store has a triple of the predicate (asked once; forgotten on any change)."""
        known = self._in_store.get(iri)
        if known is None:
            try:
                known = next(iter(self._fact_quads(None, ox.NamedNode(iri), None)), None) is not None
            except (OSError, RuntimeError) as exc:
                raise KGQueryError(f"{self.name}: could not read {iri}: {exc}") from exc
            self._in_store[iri] = known
        return known

    def fetch_labels(self, keys: Sequence[str]) -> dict[str, str | None]:
        return self.display_labels(keys)

    def property_links(self) -> list[tuple[str, str, str]]:
        found = []
        for link in WIKIBASE_PROPERTY_LINKS:
            for quad in self.store.quads_for_pattern(None, ox.NamedNode(link), None, _DEFAULT):
                if isinstance(quad.object, ox.NamedNode):
                    found.append((ox_key(quad.subject), link, quad.object.value))
        for link in DOMAIN_PREDICATES + RANGE_PREDICATES:
            for quad in self.store.quads_for_pattern(None, ox.NamedNode(link), None, _DEFAULT):
                if isinstance(quad.subject, ox.NamedNode) and not isinstance(quad.object, ox.Literal):
                    found.append((ox_key(quad.object), link, quad.subject.value))
        return found

    # ---------------------------------------------------------------- relation paths and walks, in the engine
    def relation_index(self) -> RelationIndex | None:
        return self._relation_index

    def current_relation_index(self) -> RelationIndex | None:
        return None if self._changed else self._relation_index

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
        if key.startswith('"'):
            return []  # a literal is an end: no path goes on from it
        if key.startswith("_:"):  # a blank node cannot be named in a query: its edges by pattern lookup
            return list(self.edges(key))
        name = self.names.name
        try:
            term = self._ox(key)
            found = [name(iri) for iri in self._predicates_at(key, term, outgoing=True)]
            found += ["^" + name(iri) for iri in self._predicates_at(key, term, outgoing=False)]
        except (OSError, RuntimeError) as exc:
            raise KGQueryError(f"{self.name}: could not read the relations at {key}: {exc}") from exc
        return found

    def _predicates_at(self, key: str, term, *, outgoing: bool) -> list[str]:
        """The fact predicates of the node's outgoing (an empty literal is no value) or incoming edges: read by pattern
        lookup up to :data:`RELATIONS_READ` edges; past that (a hub: a genre's films, a country's people) each
        predicate the relation index has in that direction is looked up once instead (the first edge of it, if any),
        so a hub costs as many lookups as the KG has predicates, not as it has edges. Without a current relation
        index the engine reads every edge (``SELECT DISTINCT``)."""
        edges = self._fact_quads(term, None, None) if outgoing else self._fact_quads(None, None, term)
        seen: dict[str, None] = {}
        for read, quad in enumerate(edges, start=1):
            if read > RELATIONS_READ:
                return self._predicates_of_hub(key, term, seen, outgoing=outgoing)
            obj = quad.object
            if outgoing and isinstance(obj, ox.Literal) and not obj.value:
                continue
            seen[quad.predicate.value] = None
        return [iri for iri in seen if self._is_fact(iri)]

    def _predicates_of_hub(self, key: str, term, seen: dict[str, None], *, outgoing: bool) -> list[str]:
        index = self.current_relation_index()
        if index is None:
            node = sparql_term(self.term(key))
            query = ('SELECT DISTINCT ?p WHERE { %s ?p ?o FILTER(!isLiteral(?o) || STR(?o) != "") }' % node if outgoing
                     else "SELECT DISTINCT ?p WHERE { ?s ?p %s }" % node)
            return [row[0].value for row in self._select(query) if self._is_fact(row[0].value)]
        found = [iri for iri in seen if self._is_fact(iri)]
        for signed in index.nodes:
            if signed.startswith("^") == outgoing:
                continue
            iri = signed if outgoing else signed[1:]
            if iri in seen or not self._is_fact(iri):
                continue
            predicate = ox.NamedNode(iri)
            edges = self._fact_quads(term, predicate, None) if outgoing else self._fact_quads(None, predicate, term)
            if any(not (outgoing and isinstance(quad.object, ox.Literal) and not quad.object.value) for quad in edges):
                found.append(iri)
        return found

    def walk_batch(self, keys: Sequence[str], relation: str, limit: int | None) -> dict[str, list[str]]:
        query = self.walk_query(keys, relation) + ("" if limit is None else f" LIMIT {limit}")
        walked: dict[str, list[str]] = {}
        for row in self._select(query):
            walked.setdefault(ox_key(row[0]), []).append(ox_key(row[1]))
        return walked

    def count_batch(self, keys: Sequence[str], relation: str) -> dict[str, int]:
        return {ox_key(row[0]): int(row[1].value) for row in self._select(self.count_query(keys, relation))}

    def complete_paths(self, starts: Sequence[str], relation_paths: Sequence[tuple[str, ...]], *, max_paths: int,
                       max_partial: int) -> CompletePaths:
        """Each relation path's node paths with their labels in one query per start (:meth:`paths_query`).

        Oxigraph streams the answer, so a query is read only until a cut applies (more than ``max_partial``
        partial paths at a depth before the last, or more than ``max_paths`` complete ones, counted over all
        starts); such a relation path is left out, for the caller's step-by-step walk. A relation path that
        passes :data:`PROBE_AFTER_ROWS` rows is first counted in the engine (:meth:`fits`), so that one a cut
        applies to is left after those rows, not after reading up to its bound with labels.
        """
        if any(key.startswith("_:") for key in starts):  # blank nodes cannot be named in a query
            return CompletePaths({}, {})
        starts = [key for key in starts if self.queryable(key)]
        complete: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
        labels: dict[str, str | None] = {}
        for relations in dict.fromkeys(relation_paths):
            if not relations:
                continue
            queries = [self.paths_query(start, relations) for start in starts]
            if not starts or queries[0] is None:  # no start it can name, or a relation the graph does not have
                complete[relations] = []
                continue
            node_paths = self._read_paths(starts, relations, queries, labels, max_paths=max_paths,
                                          max_partial=max_partial)
            if node_paths is not None:
                complete[relations] = node_paths
        return CompletePaths(complete, labels)

    def paths_query(self, start: str, relations: Sequence[str]) -> str | None:
        """``SELECT ?x1 ... ?xn``: every path that follows ``relations`` from ``start`` (a constant, as in the
        store's own query for the plan), no step walking the one before it backwards to where that began
        (:func:`~kg_agent.kg.types.turns_back`), and every partial path on the way: one ``UNION`` branch per
        depth, each a chain of joins from the start, so that one query also counts the partial paths.
        None when a relation is not in the graph.

        Oxigraph streams each branch from the start (index lookups, nested loops), so a reader that stops early
        leaves the rest undone and memory stays bounded. The partial paths were once asked as nested ``OPTIONAL``
        steps, which Oxigraph joins by hash: it built the later steps' joins over the whole graph before the first
        row (six steps of MetaQA's genres and actors: 5.6 GB, minutes, not stoppable from Python).

        The start's label is not asked (a pattern on a constant costs this query a third more than the label
        lookup), and the text around the start is kept per relation path: building it again costs a tenth of
        a sub-millisecond query."""
        relations = tuple(relations)
        with self._lock:
            parts = self._path_queries.get_or_none(relations)
        if parts is None:
            chain, branches = "", []
            for depth in range(1, len(relations) + 1):
                here, there = ("\x00" if depth == 1 else f"?x{depth - 1}"), f"?x{depth}"
                try:
                    step = self.relation_pattern(relations[depth - 1], here, there)
                except KeyError:
                    return None
                before = "\x00" if depth == 2 else f"?x{depth - 2}"  # where the step before began
                back = " FILTER(!sameTerm(%s, %s))" % (there, before) if turns_back(relations, depth - 1) else ""
                chain += "%s .%s " % (step, back)
                branches.append("{ %s}" % chain)
            variables = " ".join(f"?x{i}" for i in range(1, len(relations) + 1))
            parts = ("SELECT %s WHERE { %s }" % (variables, " UNION ".join(branches))).split("\x00")
            with self._lock:
                self._path_queries.put(relations, parts)
        return sparql_term(self.term(start)).join(parts)

    def _read_paths(self, starts: Sequence[str], relations: tuple[str, ...], queries: Sequence[str],
                    labels: dict[str, str | None], *, max_paths: int, max_partial: int) -> list[tuple[str, ...]] | None:
        """The complete node paths among the rows of each start's :meth:`paths_query`, in Algorithm 1's
        breadth-first order, the labels read added to ``labels``; None, and the rest left unread, once a cut
        applies."""
        length = len(relations)
        partial: list[dict[tuple[str, ...], None]] = [{} for _ in relations]  # by depth, 1 .. length - 1
        found: dict[tuple[str, ...], None] = {}
        read = 0
        for start, query in zip(starts, queries):
            for row in self._select(query):  # ?x1 ... ?xn
                read += 1
                if read == PROBE_AFTER_ROWS + 1 and not self.fits(starts, relations, max_paths=max_paths,
                                                                  max_partial=max_partial):
                    return None
                nodes = [start]
                for depth in range(1, length + 1):
                    term = row[depth - 1]
                    if term is None:
                        break
                    node = ox_key(term)
                    nodes.append(node)
                    if node not in labels and node[0] != '"':
                        labels[node] = None
                    if depth < length:
                        known = partial[depth]
                        prefix = tuple(nodes)
                        if prefix not in known:
                            known[prefix] = None
                            if len(known) > max_partial:
                                return None
                if len(nodes) == length + 1:
                    found[tuple(nodes)] = None
                    if len(found) > max_paths:
                        return None
        labels.update(self.display_labels([node for node, label in labels.items() if label is None]))
        return breadth_first(found, starts)

    def fits(self, starts: Sequence[str], relations: Sequence[str], *, max_paths: int, max_partial: int) -> bool:
        """Whether no cut applies to the relation path from ``starts``: at most ``max_partial`` partial paths at
        each depth before the last and at most ``max_paths`` complete ones, counted in the engine in one query
        (no labels, each count stopping one above its bound)."""
        values = " ".join(sparql_term(self.term(key)) for key in starts)
        steps, branches = "", []
        for depth, relation in enumerate(relations, start=1):
            steps += "%s . %s" % (self.relation_pattern(relation, f"?x{depth - 1}", f"?x{depth}"),
                                  f"FILTER(!sameTerm(?x{depth}, ?x{depth - 2})) " if turns_back(relations, depth - 1) else "")
            bound = max_paths if depth == len(relations) else max_partial
            branches.append("{ { SELECT (COUNT(*) AS ?n) WHERE { { SELECT * WHERE { VALUES ?x0 { %s } %s} LIMIT %d } } } "
                            "BIND(%d AS ?d) }" % (values, steps, bound + 1, depth))
        for row in self._select("SELECT ?d ?n WHERE { %s }" % " UNION ".join(branches)):
            bound = max_paths if int(row[0].value) == len(relations) else max_partial
            if int(row[1].value) > bound:
                return False
        return True

    def walkable(self, starts: Sequence[str], relations: Sequence[str], *, budget: int = WALK_BUDGET) -> bool:
        """One ``ASK`` query: the engine stops at the first walk (no step walking the one before it backwards to where
        that began)."""
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
            if turns_back(relations, depth - 1):
                filters.append(f"FILTER(!sameTerm({there}, ?x{depth - 2}))")
            here = there
        query = "ASK { VALUES ?x0 { %s } %s %s }" % (values, " ".join(steps), " ".join(filters))
        try:
            return bool(self.store.query(query, **self._graphs_kw))
        except (OSError, RuntimeError, SyntaxError) as exc:
            raise KGQueryError(f"{self.name}: query failed: {exc}") from exc

    def sample_ends(self, predicates: Sequence[tuple[str, bool]], *, limit: int) -> list[list[str]]:
        """The base's query and sample, the query asked of the engine directly (rdflib's parser takes a third of a
        second for a long ``UNION`` of a question's relations). The sample is chosen here, not by the engine's order
        (its indexes', not the file's): so a store samples what the file read into memory samples."""
        ends: list[list[str]] = [[] for _ in predicates]
        if predicates:
            for number, node in self._select(sample_ends_query(predicates, SAMPLE_SCAN)):
                ends[int(number.value)].append(ox_key(node))
        return [sampled_ends(found, limit) for found in ends]

    def _select(self, sparql: str) -> Iterator:
        """The rows of a SELECT, streamed from the engine; stopped (:class:`~kg_agent.kg.deadline.ReadStopped`) once
        the call's deadline (:func:`~kg_agent.kg.deadline.reads_until`) has passed, checked before each row."""
        deadline = read_deadline()
        try:
            rows = self.store.query(sparql, **self._graphs_kw)
            if deadline is None:
                yield from rows
                return
            for row in rows:
                if time.monotonic() > deadline:
                    check_deadline(deadline, f"{self.name}: a query")
                yield row
        except (OSError, RuntimeError, SyntaxError) as exc:
            raise KGQueryError(f"{self.name}: query failed: {exc}") from exc

    def predicate_iris(self) -> list[str]:
        if self._relation_index is not None:
            return self._relation_index.predicates()
        return [row[0].value for row in self._select("SELECT DISTINCT ?p WHERE { ?s ?p ?o }")]

    def labelled_nodes(self) -> Iterable[tuple[str, str]]:
        return list(store_names(self.store, self.naming, self.node_ids()))

    def node_ids(self) -> Iterator[str]:
        # Same nodes as the memory index: subjects and objects of facts, not of names or schema.
        facts = [p for p in self.predicate_iris() if self._is_fact(p)]
        if facts:
            for row in self._select(fact_nodes_query(facts)):
                yield ox_key(row[0])

    def forget(self, key: str) -> None:
        super().forget(key)
        with self._lock:
            self._bounded.pop(key, None)
            self._in_store.clear()  # a change may add the first triple of a name predicate

    def clear(self) -> None:
        super().clear()
        with self._lock:
            self._path_queries.clear()
            self._bounded.clear()
            self._in_store.clear()

    def close(self) -> None:
        if self._label_index is not None:
            self._label_index.close()
        if self._view is not None:
            self._view.close()
        self.store = None
