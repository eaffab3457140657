"""The SPARQL endpoint store's relation-path questions, each in one query (a whole layer of candidate relation paths:
:meth:`~EndpointRelationPaths.walkable_extensions`; every plan's node paths with their labels:
:meth:`~EndpointRelationPaths.complete_paths`), with the walk patterns they are built from and the store cache's keys
for their answers. Mixed into :class:`~kg_agent.kg.stores.endpoint.EndpointGraphStore`, which holds the requests,
caches and blank-node naming these use."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rdflib import BNode, URIRef

from kg_agent.kg.owl_restrictions import restriction_end_filter
from kg_agent.kg.sparql import sparql_bool, sparql_iri, sparql_term
from kg_agent.kg.stores.base import CompletePaths, LazyGraphStore, LRUCache, NameLiterals, breadth_first
from kg_agent.kg.terms import node_key
from kg_agent.kg.types import base_relation, inverse, is_inverse, turns_back

if TYPE_CHECKING:
    from collections.abc import Mapping

    from kg_agent.kg.sparql_cache import SparqlCache


#: The store cache's kinds for the answers that depend on how a walk may go (suffixed when that rule changes, so
#: that a cache file written under an older rule is not read: ``.2``, a walk may come back to its start)
WALKS_KIND = {"extensions": "extensions.2", "complete_paths": "complete_paths.2"}

#: Relation paths with a step over a relation class restrictions state asked in one request
RESTRICTED_PER_REQUEST = 4


class EndpointRelationPaths(LazyGraphStore):
    """Relation paths answered in one query each (module docstring); the rest of the store is
    :class:`~kg_agent.kg.stores.endpoint.EndpointGraphStore`'s."""

    # held by EndpointGraphStore
    store_cache: SparqlCache | None
    page_size: int
    _not_facts: str
    _label_kind: str
    _complete_paths: LRUCache
    _lock: threading.RLock
    _hits: int

    if TYPE_CHECKING:
        def select(self, query: str, variables: str, what: str, *, ordered: bool = False) -> list: ...
        def _blank_names(self, node: str, predicate: str, name: str) -> str: ...
        def _remember_blank_labels(self, names: Mapping[str, NameLiterals],
                                   keys: Iterable[str]) -> dict[str, str | None]: ...
        def _cached(self, key: str) -> bool: ...
        def _derived_edges(self) -> Mapping[str, dict[str, list[str]]]: ...
        def _restricted_iris(self) -> frozenset[str]: ...
        def relation_pattern(self, relation: str, here: str, there: str, *, distinct: bool = False) -> str: ...

    def _walk_pattern(self, relations: Sequence[str]) -> str | None:
        """Triple patterns walking ``relations`` (names) from ``?x0`` to ``?x<len>``, no step walking the one before it
        backwards to where that began (:func:`~kg_agent.kg.types.turns_back`; None when a relation is unknown to this
        client)."""
        parts = []
        for depth, relation in enumerate(relations, start=1):
            try:
                parts.append(self.relation_pattern(relation, f"?x{depth - 1}", f"?x{depth}", distinct=True) + " .")
            except KeyError:
                return None
            if turns_back(relations, depth - 1):  # Virtuoso 7 gets !sameTerm wrong over an inverse step
                parts.append(f"FILTER(?x{depth} != ?x{depth - 2})")
        return " ".join(parts)

    def walkable_extensions(self, starts: Sequence[str],
                            prefixes: Sequence[tuple[str, ...]]) -> dict[tuple[str, ...], list[str]]:
        """A whole layer in one request: the relations at the nodes each prefix reaches from the starts.

        The same set as the relation index's candidates checked one by one (a relation that extends a walk
        is one that can follow its last relation), without asking the index. The empty prefix is answered
        from the starts' cached edges when linking fetched them.
        """
        starts = [key for key in starts if self.queryable(key)]
        found: dict[tuple[str, ...], list[str]] = {prefix: [] for prefix in prefixes}
        asked: list[tuple[tuple[str, ...], str]] = []
        for prefix in prefixes:
            if not prefix and all(self._cached(key) for key in starts):
                found[prefix] = super().walkable_extensions(starts, [prefix])[prefix]
                continue
            pattern = self._walk_pattern(prefix)
            if pattern is not None:
                asked.append((prefix, pattern))
        stored_as = {prefix: self._stored_key(starts, prefix) for prefix, _ in asked}
        if self.store_cache is not None and starts:
            stored = self.store_cache.get_many(WALKS_KIND["extensions"], stored_as.values())
            for prefix, key in stored_as.items():
                if key in stored:
                    found[prefix] = sorted(self.names.signed_name(signed) for signed in stored[key])
            asked = [(prefix, pattern) for prefix, pattern in asked if stored_as[prefix] not in stored]
        if not starts or not asked:
            return found
        values = " ".join(sparql_term(self.term(key)) for key in starts)
        # each branch a sub-select, its number bound outside (Virtuoso 7 may drop the FILTERs of a group that
        # also BINDs a constant); the extension that walks the prefix's last step backwards does not end where that
        # step began (turns_back: its branch names its end ?back, checked where the prefix's nodes are bound)
        branches = [
            "{ { SELECT DISTINCT ?q ?in WHERE { VALUES ?x0 { %s } %s "
            '{ ?x%d ?q ?y FILTER(!isLiteral(?y) || STR(?y) != "")%s BIND(false AS ?in) } UNION '
            "{ ?y ?q ?x%d FILTER(!isLiteral(?x%d))%s BIND(true AS ?in) } FILTER(?q NOT IN (%s)%s) } } "
            "BIND(%d AS ?c) }"
            % (values, pattern, len(prefix), " BIND(?y AS ?back)" if turn and turn[0] else "", len(prefix), len(prefix),
               " BIND(?y AS ?back)" if turn and not turn[0] else "", self._not_facts,
               f" && (!BOUND(?back) || ?q != {turn[1]} || ?back != ?x{len(prefix) - 1})" if turn else "", index)
            for index, (prefix, pattern) in enumerate(asked) for turn in [self._turn_back(prefix)]]
        derived = self._derived_edges()
        if derived:  # and the nodes each prefix reaches that restrictions may state edges of (whose edges are known)
            branches = [branch + " UNION { { SELECT DISTINCT (?x%d AS ?end) (%s AS ?before) WHERE { VALUES ?x0 { %s } "
                        "%s %s } } BIND(%d AS ?c) }" % (len(prefix), f"?x{len(prefix) - 1}" if prefix else "?x0", values,
                                                       pattern, restriction_end_filter(f"?x{len(prefix)}"), index)
                        for branch, (index, (prefix, pattern)) in zip(branches, enumerate(asked), strict=True)]
        rows = []
        for group in self._request_groups([prefix for prefix, _ in asked]):
            query = " UNION ".join(branches[index] for index in group)
            what = f"the relations that extend {len(group)} relation paths"
            if derived:
                rows += self.select("SELECT ?c ?q ?in ?end ?before WHERE { %s }" % query, "?c ?q ?in ?end ?before", what)
            else:
                rows += [(*row, None, None) for row in self.select("SELECT ?c ?q ?in WHERE { %s }" % query, "?c ?q ?in", what)]
        extended: dict[int, set[str]] = {index: set() for index in range(len(asked))}
        for index, q, flag, end, before in rows:
            if isinstance(q, URIRef) and self.naming.is_fact(str(q)):
                extended[int(index)].add(("^" if sparql_bool(flag) else "") + str(q))
            elif end is not None:  # a walk over the prefix goes on over the edges restrictions state at its end
                prefix = asked[int(index)][0]
                back = inverse(prefix[-1]) if prefix else None
                for rel, targets in derived.get(node_key(end), {}).items():
                    signed = self.names.signed_iri(rel)
                    if signed is not None and (rel != back or any(t != node_key(before) for t in targets)):
                        extended[int(index)].add(signed)
        for index, (prefix, _) in enumerate(asked):
            found[prefix] = sorted(self.names.signed_name(signed) for signed in extended[index])
        if self.store_cache is not None:
            self.store_cache.put_many(WALKS_KIND["extensions"], {stored_as[prefix]: sorted(extended[index])
                                                     for index, (prefix, _) in enumerate(asked)})
        return found

    def _request_groups(self, relation_paths: Sequence[tuple[str, ...]]) -> list[list[int]]:
        """The relation paths (their indexes) asked in each request: all in one, but those with a step over a relation
        class restrictions state (a ``UNION`` with the restriction's shape: a query of many such patterns is one an
        engine refuses, Virtuoso's "abnormally long" SQL) :data:`RESTRICTED_PER_REQUEST` a request."""
        restricted = self._restricted_iris()
        plain: list[int] = []
        over: list[int] = []
        for index, relations in enumerate(relation_paths):
            signed = (self.signed_iri(relation) for relation in relations)
            (over if any((iri or "").lstrip("^") in restricted for iri in signed) else plain).append(index)
        return ([plain] if plain else []) + [over[at:at + RESTRICTED_PER_REQUEST]
                                             for at in range(0, len(over), RESTRICTED_PER_REQUEST)]

    def _turn_back(self, prefix: tuple[str, ...]) -> tuple[bool, str] | None:
        """The extension of ``prefix`` that walks its last step backwards, for :meth:`walkable_extensions`: whether it
        is outgoing, and its predicate (SPARQL); None for the empty prefix."""
        if not prefix:
            return None
        return is_inverse(prefix[-1]), sparql_iri(base_relation(self.signed_iri(prefix[-1]) or ""))

    def _stored_key(self, starts: Sequence[str], relations: Sequence[str], *bounds: int) -> str:
        """The store cache's key of a question about relation paths: starts, predicate IRIs, bounds (JSON)."""
        return json.dumps([list(starts), [self.signed_iri(r) for r in relations], *bounds])

    def _complete_paths_query(self, starts: Sequence[str], asked: Sequence[tuple[tuple[str, ...], str]], *,
                              max_paths: int, max_partial: int, blank_names: bool = False) -> tuple[str, str]:
        """``(query, projected variables)``: the node paths of each ``(relation path, its _walk_pattern)`` from
        ``starts`` in one ``SELECT``.

        Per relation path, one ``UNION`` branch per depth counts its partial paths up to one above ``max_partial``
        (its complete paths, at the last depth, up to one above ``max_paths``), and one branch returns its complete
        paths (``DISTINCT``, ``LIMIT`` one above ``max_paths`` inside a sub-select) only when its count is within
        ``max_paths``: the paths of a relation path a cut applies to (a hub's thousands) are not sent. The nodes'
        labels are asked afterwards (a node may have many names); with ``blank_names`` the names of blank nodes come
        with the paths (``?bp1 ?bl1 ...``, :meth:`_blank_names`).
        """
        values = " ".join(sparql_term(self.term(key)) for key in starts)
        branches = []
        for index, (relations, pattern) in enumerate(asked):
            nodes = " ".join(f"?x{i}" for i in range(len(relations) + 1))
            paths = "SELECT DISTINCT %s WHERE { VALUES ?x0 { %s } %s } LIMIT %d" % (nodes, values, pattern, max_paths + 1)
            # the names of the blank nodes on a path come with it (one row per name: a blank node has few)
            names = (" ".join(self._blank_names(f"?x{i}", f"?bp{i}", f"?bl{i}") for i in range(1, len(relations) + 1))
                     if blank_names else "")
            branches.append("{ { SELECT (COUNT(*) AS ?count) WHERE { { %s } } } FILTER(?count <= %d) { %s } %s BIND(%d AS ?plan) }"
                            % (paths, max_paths, paths, names, index))
            for depth in range(1, len(relations) + 1):
                partial = " ".join(f"?x{i}" for i in range(depth + 1))
                bound = max_paths if depth == len(relations) else max_partial
                branches.append(
                    "{ { SELECT (COUNT(*) AS ?n) WHERE { { SELECT DISTINCT %s WHERE { VALUES ?x0 { %s } %s } LIMIT %d } } } "
                    "BIND(%d AS ?plan) BIND(%d AS ?depth) }"
                    % (partial, values, self._walk_pattern(relations[:depth]), bound + 1, index, depth))
        longest = max(len(relations) for relations, _ in asked)
        variables = " ".join(["?plan", "?depth", "?n", *(f"?x{i}" for i in range(longest + 1)),
                              *(f"?bp{i} ?bl{i}" for i in range(1, longest + 1) if blank_names)])
        return "SELECT %s WHERE { %s }" % (variables, " UNION ".join(branches)), variables

    def _read_complete_paths(self, rows: Iterable[Sequence], starts: Sequence[str],
                             asked: Sequence[tuple[tuple[str, ...], str]], *, max_paths: int,
                             max_partial: int) -> tuple[CompletePaths, dict[str, str | None]]:
        """The answer of :meth:`_complete_paths_query`: the node paths of each relation path no cut applies to, in
        Algorithm 1's breadth-first order, and their IRI nodes (labels None: not read); and the labels of their blank
        nodes, read with them."""
        paths: dict[int, dict[tuple[str, ...], None]] = {index: {} for index in range(len(asked))}
        cut: set[int] = set()
        labels: dict[str, str | None] = {}
        names: dict[str, NameLiterals] = {}
        blank: set[str] = set()
        longest = max((len(relations) for relations, _ in asked), default=0)
        for row in rows:
            index = int(row[0])
            if row[1] is not None:  # a count of partial paths (of complete ones at the last depth)
                if int(row[2]) > (max_paths if int(row[1]) == len(asked[index][0]) else max_partial):
                    cut.add(index)
                continue
            length = len(asked[index][0]) + 1
            terms = row[3:3 + length]
            if any(term is None for term in terms):  # an engine's malformed row
                continue
            paths[index][tuple(node_key(term) for term in terms)] = None
            labels.update((node_key(term), None) for term in terms if isinstance(term, URIRef))
            named = row[4 + longest:]
            for i in range(1, length if named else 1):
                if isinstance(terms[i], BNode):
                    blank.add(node_key(terms[i]))
                    predicate, name = named[2 * (i - 1)], named[2 * (i - 1) + 1]
                    if name is not None:
                        names.setdefault(node_key(terms[i]), []).append((str(predicate), str(name), name.language))
        complete = {relations: breadth_first(paths[index], starts)
                    for index, (relations, _) in enumerate(asked) if index not in cut and len(paths[index]) <= max_paths}
        return CompletePaths(complete, labels), self._remember_blank_labels(names, blank)

    def _ask_complete_paths(self, starts: Sequence[str], asked: Sequence[tuple[tuple[str, ...], str]], *, max_paths: int,
                            max_partial: int) -> tuple[CompletePaths, dict[str, str | None]]:
        """:meth:`_read_complete_paths` of one request (:meth:`_complete_paths_query`), and of one more for the relation
        paths through blank nodes, asked again with their names."""
        query, variables = self._complete_paths_query(starts, asked, max_paths=max_paths, max_partial=max_partial)
        rows = self.select(query, variables, f"the paths of {len(asked)} relation paths",
                           ordered=len(asked) * max_paths > self.page_size)
        read, blank_labels = self._read_complete_paths(rows, starts, asked, max_paths=max_paths, max_partial=max_partial)
        blank = [(relations, pattern) for relations, pattern in asked
                 if any(node.startswith("_:") for path in read.paths.get(relations, ()) for node in path)]
        if blank:  # their paths asked again with the names of their blank nodes, whose ids hold for one answer only
            query, variables = self._complete_paths_query(starts, blank, max_paths=max_paths, max_partial=max_partial,
                                                          blank_names=True)
            rows = self.select(query, variables, f"the paths of {len(blank)} relation paths through blank nodes",
                               ordered=len(blank) * max_paths > self.page_size)
            again, blank_labels = self._read_complete_paths(rows, starts, blank, max_paths=max_paths,
                                                            max_partial=max_partial)
            read = CompletePaths({**read.paths, **again.paths}, {**read.labels, **again.labels})
        return read, blank_labels

    def complete_paths(self, starts: Sequence[str], relation_paths: Sequence[tuple[str, ...]], *, max_paths: int,
                       max_partial: int) -> CompletePaths:
        """Every relation path's node paths in one request, with the labels of their nodes
        (:meth:`_complete_paths_query`); a relation path that passes
        either bound is left out, for the caller's step-by-step walk, which then cuts as on every backend.
        Answers are kept per client and in the store cache."""
        starts = [key for key in starts if self.queryable(key)]
        complete: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
        labels: dict[str, str | None] = {}
        with self._lock:
            for relations in relation_paths:
                cached = self._complete_paths.get_or_none((tuple(starts), relations, max_paths, max_partial))
                if cached is not None:
                    self._hits += 1
                    complete[relations] = cached
        asked = [(relations, self._walk_pattern(relations)) for relations in dict.fromkeys(relation_paths)
                 if relations and relations not in complete]
        complete.update((relations, []) for relations, pattern in asked if pattern is None)  # not in the graph
        asked = [(relations, pattern) for relations, pattern in asked if pattern is not None]
        if not starts:
            complete.update((relations, []) for relations, _ in asked)
            return CompletePaths(complete, {})
        stored_as = {relations: self._stored_key(starts, relations, max_paths, max_partial) for relations, _ in asked}
        if self.store_cache is not None and asked:
            stored = self.store_cache.get_many(WALKS_KIND["complete_paths"], stored_as.values())
            asked = [(relations, pattern) for relations, pattern in asked if stored_as[relations] not in stored]
            held = {relations: [tuple(nodes) for nodes in stored[key]] for relations, key in stored_as.items()
                    if stored.get(key) is not None}  # null: a cut relation path
            nodes = {node for node_paths in held.values() for path in node_paths for node in path}
            for key, label in self.store_cache.get_many(self._label_kind, nodes).items():
                self.remember_label(key, label)
                labels[key] = label
            complete.update(held)
        if not asked:
            return CompletePaths(complete, labels)
        read, blank_labels = CompletePaths({}, {}), {}
        for group in self._request_groups([relations for relations, _ in asked]):
            some, some_blank = self._ask_complete_paths(starts, [asked[index] for index in group], max_paths=max_paths,
                                                        max_partial=max_partial)
            read = CompletePaths({**read.paths, **some.paths}, {**read.labels, **some.labels})
            blank_labels.update(some_blank)
        read = CompletePaths(read.paths, self.labels_of(read.labels))
        labels.update(read.labels)
        labels.update(blank_labels)
        complete.update(read.paths)
        with self._lock:
            for relations, node_paths in read.paths.items():
                self._complete_paths.put((tuple(starts), relations, max_paths, max_partial), node_paths)
        if self.store_cache is not None:
            self.store_cache.put_many(self._label_kind, {**read.labels, **blank_labels})
            self.store_cache.put_many(WALKS_KIND["complete_paths"], {stored_as[relations]: read.paths.get(relations)
                                                         for relations, _ in asked})
        return CompletePaths(complete, labels)
