"""Path search over the knowledge graph.

* :func:`retrieve_paths` is RoG's Algorithm 1 (constrained breadth-first search): from the question's
  entities, follow a relation path ``z = r1 ... rl`` edge by edge and return every reasoning path
  ``e0 -r1-> e1 ... -rl-> el``. A step that walks the step before it backwards never ends where that step
  began (:func:`~kg_agent.kg.types.turns_back`: MetaQA's ``movie -> directed_by -> director -> ^directed_by ->
  movie`` reaches the director's other films, not the question's film); otherwise a path may come back to any
  entity, its start included, as the paper's Algorithm 1 (no visited set) walks it: in "who wrote the films
  directed by the director of [Super Fuzz]" the director is also one of the writers, so ``Super Fuzz ->
  directed_by -> Sergio Corbucci -> ^directed_by -> ... -> written_by -> Sergio Corbucci`` is a valid answer
  path, and PathQuestion's "the gender of the parent of [X] 's son" is [X]'s gender (``children, parents,
  gender`` through [X]).
* :func:`shortest_relation_paths` finds the relation paths of all shortest paths between question and
  answer entities up to a hop limit (RoG's Q(z), used to distil planners and to build training data).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import Entity, Path, Triple, inverse, new_entity, new_path, new_triple, turns_back

DEFAULT_MAX_PATHS = 5000
#: With a ``relevance`` score, a step reads up to this many times ``max_paths`` edges before keeping the best
RANKED_POOL_FACTOR = 4
#: Path ends whose labels are fetched together (well below a lazy backend's label cache)
LABEL_CHUNK = 1000


@dataclass
class PathSearchResult:
    """Reasoning paths found for one relation path, and whether the cap cut the search short."""

    relation_path: tuple[str, ...]
    paths: list[Path] = field(default_factory=list)
    truncated: bool = False
    #: partial or complete paths found and cut by ``max_paths``
    dropped: int = 0
    #: whether a query limit also left edges unread (``dropped`` is then a lower bound)
    dropped_unread: bool = False

    @property
    def answers(self) -> list[Entity]:
        """Distinct path ends, in first-seen order."""
        return list(dict.fromkeys(p.end for p in self.paths))


def retrieve_node_paths(
    kg: KnowledgeGraph,
    starts: Iterable[str],
    relation_path: Sequence[str],
    *,
    max_paths: int = DEFAULT_MAX_PATHS,
) -> tuple[list[tuple[str, ...]], bool]:
    """Algorithm 1 over entity ids: every node sequence that follows ``relation_path`` (no step walking the one before
    it backwards to where that began: :func:`~kg_agent.kg.types.turns_back`).

    Returns ``(node_paths, truncated)``. The search is breadth-first, so when more than ``max_paths``
    partial or complete paths would be kept, the first ones in breadth-first order are kept (a
    deterministic cut) and ``truncated`` is True.
    """
    relations = tuple(relation_path)
    frontier: list[tuple[str, ...]] = [(s,) for s in dict.fromkeys(starts)]
    if not relations:
        return frontier[:max_paths], len(frontier) > max_paths
    truncated = False
    edges = kg.edges
    for depth, relation in enumerate(relations):
        back = turns_back(relations, depth)
        if kg.batched:  # a remote endpoint: the frontier's edges in batched requests
            kg.prefetch(partial[-1] for partial in frontier)
        expanded: list[tuple[str, ...]] = []
        for partial in frontier:
            targets = edges(partial[-1]).get(relation)
            if not targets:
                continue
            if back:  # r then ^r: not back to where r began
                expanded.extend([partial + (target,) for target in targets if target != partial[-2]])
            else:
                expanded.extend([partial + (target,) for target in targets])
            if len(expanded) > max_paths:
                truncated = True
                del expanded[max_paths:]
                break
        frontier = expanded
        if not frontier:
            break
    return frontier, truncated


def node_path_to_path(kg: KnowledgeGraph, nodes: Sequence[str], relations: Sequence[str]) -> Path:
    labels = [Entity(n, kg.label(n) or n) for n in nodes]
    steps = tuple(Triple(labels[i], relations[i], labels[i + 1]) for i in range(len(relations)))
    return Path(labels[0], steps)


def retrieve_paths(
    kg: KnowledgeGraph,
    starts: Iterable[str],
    relation_path: Sequence[str],
    *,
    max_paths: int = DEFAULT_MAX_PATHS,
    relevance: Callable[[Entity], float] | None = None,
) -> PathSearchResult:
    """RoG's Algorithm 1: the reasoning paths from ``starts`` that follow ``relation_path`` exactly.

    Relations may be inverse (``^starred_actors``). ``max_paths`` caps the result; ``truncated`` says
    when it did and ``dropped`` how many paths the cut removed. The same search as
    :func:`retrieve_node_paths`, but the paths are built edge by edge as the search goes, and paths that
    share a prefix share its :class:`Triple` objects.

    Without ``relevance`` a cut keeps the first paths in breadth-first order. With it (a score of each
    entity a path reaches, e.g. its label's overlap with the question) every step reads up to
    :data:`RANKED_POOL_FACTOR` x ``max_paths`` edges and keeps as many partial paths (the highest-scoring
    when there are more), so that an entity the question names further on is not cut early; the last step
    keeps the ``max_paths`` paths whose entities score highest in total (ties in breadth-first order).
    """
    return retrieve_many_paths(kg, starts, [relation_path], max_paths=max_paths, relevance=relevance)[0]


def retrieve_many_paths(
    kg: KnowledgeGraph,
    starts: Iterable[str],
    relation_paths: Sequence[Sequence[str]],
    *,
    max_paths: int = DEFAULT_MAX_PATHS,
    relevance: Callable[[Entity], float] | None = None,
    keep: Sequence[int] | None = None,
) -> list[PathSearchResult]:
    """:func:`retrieve_paths` for each of several relation paths from the same starts (e.g. RoG's K plans).

    A backend that answers a plan in one query, labels included (:meth:`KnowledgeGraph.complete_paths`:
    Oxigraph, one query per plan; a SPARQL endpoint, one request for every plan), gives the paths of each plan
    no cut applies to; the others are searched step by step. The results are the same either way.

    ``keep`` (one number per relation path; default ``max_paths`` for each) keeps fewer paths of some: a relation
    path with more than its ``keep`` paths keeps the ``keep`` most relevant (:func:`most_relevant`) of all its paths
    when no cut under ``max_paths`` applies to it, else the paths of the search under ``keep``, so that a hub's paths
    are never all read (RoG's plans whose answers the answer step does not keep).
    """
    starts = list(dict.fromkeys(starts))
    plans = [tuple(relations) for relations in relation_paths]
    keeps = [max_paths] * len(plans) if keep is None else [min(max_paths, kept) for kept in keep]
    pool = max_paths if relevance is None else RANKED_POOL_FACTOR * max_paths
    complete, labels = kg.complete_paths(starts, [plan for plan in plans if plan], max_paths=max_paths,
                                         max_partial=pool)
    # a relation path the backend left out is one a cut applies to; on a backend without such a query, unknown
    cut_when_left_out = kg.store.answers_complete_paths
    entities = _Entities(kg, labels)
    entities.fetch(node for node_paths in complete.values() for nodes in node_paths for node in nodes)
    walks: dict[tuple, dict[str, Sequence[str]]] = {}  # plans sharing a prefix walk the store once
    results = []
    for plan, kept in zip(plans, keeps):
        node_paths = complete.get(plan)
        if node_paths is not None:
            paths = [new_path(entities[nodes[0]], tuple(new_triple(entities[nodes[i]], plan[i], entities[nodes[i + 1]])
                                                         for i in range(len(plan)))) for nodes in node_paths]
            results.append(most_relevant(PathSearchResult(plan, paths), kept, relevance))
        elif kept == max_paths or cut_when_left_out:
            results.append(_search_paths(kg, starts, plan, max_paths=kept, relevance=relevance, walks=walks))
        else:  # whether a cut under max_paths applies is learnt by the search under it
            found = _search_paths(kg, starts, plan, max_paths=max_paths, relevance=relevance, walks=walks)
            results.append(_search_paths(kg, starts, plan, max_paths=kept, relevance=relevance, walks=walks)
                           if found.truncated else most_relevant(found, kept, relevance))
    return results


def most_relevant(result: PathSearchResult, keep: int, relevance: Callable[[Entity], float] | None) -> PathSearchResult:
    """``result`` cut to its ``keep`` paths whose entities score highest in total (the score of a cut search), ties
    in breadth-first order; the first ``keep`` without ``relevance``. Unchanged when it has no more."""
    if len(result.paths) <= keep:
        return result
    paths = result.paths
    if relevance is not None:
        scores = [sum(relevance(step.tail) for step in path.steps) for path in paths]
        paths = [paths[i] for i in sorted(range(len(paths)), key=lambda i: -scores[i])]
    return PathSearchResult(result.relation_path, paths[:keep], truncated=True, dropped=len(result.paths) - keep)


class _Entities(dict):
    """Node id -> its :class:`Entity` (label, else the id), made on first use, one object per node.

    :meth:`fetch` reads many labels at once and keeps them here until used, so a step with more nodes than a
    lazy backend's label cache does not fetch evicted labels again one by one."""

    def __init__(self, kg: KnowledgeGraph, labels: dict[str, str] | None = None) -> None:
        super().__init__()
        self._kg = kg
        self._labels: dict[str, str] = labels if labels is not None else {}

    def fetch(self, nodes: Iterable[str]) -> None:
        missing = [n for n in dict.fromkeys(nodes) if n not in self and n not in self._labels]
        if missing:
            self._labels.update(self._kg.labels_by_id(missing))

    def __missing__(self, node: str) -> Entity:
        label = self._labels.pop(node, None)
        found = self[node] = new_entity(node, (label if label is not None else self._kg.label(node)) or node)
        return found


def _search_paths(
    kg: KnowledgeGraph,
    starts: list[str],
    relations: tuple[str, ...],
    *,
    max_paths: int,
    relevance: Callable[[Entity], float] | None,
    walks: dict[tuple, dict[str, Sequence[str]]] | None = None,
) -> PathSearchResult:
    """:func:`retrieve_paths` step by step: one walk (and one label lookup) of the whole frontier per relation.

    ``walks`` (kept by the caller for one question) remembers each walk, so plans that share a prefix walk the
    store once."""
    if not relations:
        node_paths, truncated = retrieve_node_paths(kg, starts, relations, max_paths=max_paths)
        return PathSearchResult(relations, [node_path_to_path(kg, nodes, relations) for nodes in node_paths], truncated)
    entities = _Entities(kg)
    pool = max_paths if relevance is None else RANKED_POOL_FACTOR * max_paths
    # each partial path: (start id, last node id, last Entity, steps so far, score); the starts' entities are
    # made after the first walk, which on an endpoint brings their labels with their edges
    frontier: list[tuple[str, str, Entity | None, tuple[Triple, ...], float]] = [(s, s, None, (), 0.0) for s in starts]
    dropped = 0
    unread = False
    for depth, relation in enumerate(relations, start=1):
        keep = max_paths if depth == len(relations) else pool
        # the frontier's neighbours over this relation in as few store calls as the backend allows (one
        # query per 1000 nodes on Oxigraph, batched requests on endpoints), cut inside the query
        nodes = list(dict.fromkeys(node for _, node, _, _, _ in frontier))
        limit = pool + len(frontier)
        walk_key = (tuple(nodes), relation, limit)
        walked = walks.get(walk_key) if walks is not None else None
        if walked is None:
            walked = kg.walk(nodes, relation, limit=limit)
            if walks is not None:
                walks[walk_key] = walked
        unread = unread or sum(len(targets) for targets in walked.values()) > limit
        # the (partial path, target) pairs kept, in breadth-first order; past ``pool`` they are only counted, so
        # the entities (labels) of cut targets are never looked up
        kept: list[tuple[int, str]] = []
        back = turns_back(relations, depth - 1)
        for position, (_, node, _, steps, _) in enumerate(frontier):
            targets = walked.get(node) or ()
            if back:  # r then ^r: not back to where r began
                targets = [target for target in targets if target != steps[-1].head.id]
            room = pool - len(kept)
            kept.extend((position, target) for target in targets[:room])
            if len(targets) > room:
                dropped += len(targets) - room + sum(len(walked.get(rest[1]) or ()) for rest in frontier[position + 1:])
                break
        expanded: list[tuple[str, str, Entity | None, tuple[Triple, ...], float]] = []
        for at, (position, target) in enumerate(kept):
            if at % LABEL_CHUNK == 0:  # labels a chunk at a time, kept until used
                entities.fetch([*(starts if at == 0 else ()), *(t for _, t in kept[at:at + LABEL_CHUNK])])
            start, node, head, steps, score = frontier[position]
            if head is None:
                head = entities[node]
            tail = entities[target]
            gain = relevance(tail) if relevance is not None else 0.0
            expanded.append((start, target, tail, steps + (new_triple(head, relation, tail),), score + gain))
        if len(expanded) > keep:  # only with ``relevance``: keep the best-scoring partial paths
            dropped += len(expanded) - keep
            expanded.sort(key=lambda partial: -partial[4])
            del expanded[keep:]
        frontier = expanded
        if not frontier:
            break
    paths = [new_path(entities[start], steps) for start, _, _, steps, _ in frontier]
    return PathSearchResult(relations, paths, truncated=bool(dropped) or unread, dropped=dropped, dropped_unread=unread)


def shortest_relation_paths(
    kg: KnowledgeGraph,
    starts: Iterable[str],
    targets: Iterable[str],
    *,
    max_hops: int = 3,
    max_relation_paths: int = 50,
) -> list[tuple[str, ...]]:
    """Relation paths of all shortest KG paths from any start to each target, up to ``max_hops`` (RoG's Q(z)).

    For every (start, target) pair the shortest distance is found by breadth-first search over both
    edge directions; every shortest path then contributes its relation sequence. Returned sorted by how
    many (start, target) pairs use them, most first, then alphabetically (deterministic).
    """
    target_set = set(targets)
    counts: dict[tuple[str, ...], int] = {}
    for start in dict.fromkeys(starts):
        distance = _bfs_levels(kg, start, target_set - {start}, max_hops)
        for target in target_set:
            if target == start or target not in distance:
                continue
            for rels in _relation_sequences(kg, start, target, distance, limit=max_relation_paths):
                counts[rels] = counts.get(rels, 0) + 1
    ordered = sorted(counts, key=lambda rels: (-counts[rels], len(rels), rels))
    return ordered[:max_relation_paths]


def _bfs_levels(kg: KnowledgeGraph, start: str, targets: set[str], max_hops: int) -> dict[str, int]:
    """Distances from ``start`` up to ``max_hops``; stops after the level where the last target appears."""
    distance = {start: 0}
    frontier = [start]
    remaining = set(targets)
    for level in range(1, max_hops + 1):
        if not frontier or not remaining:
            break
        next_frontier: list[str] = []
        if kg.batched:
            kg.prefetch(frontier)
        for node in frontier:
            for neighbours in kg.edges(node).values():
                for neighbour in neighbours:
                    if neighbour not in distance:
                        distance[neighbour] = level
                        next_frontier.append(neighbour)
                        remaining.discard(neighbour)
        frontier = next_frontier
    return distance


def _relation_sequences(
    kg: KnowledgeGraph, start: str, target: str, distance: dict[str, int], *, limit: int
) -> set[tuple[str, ...]]:
    """Relation sequences of the shortest paths start -> target, found backwards from the target."""
    found: set[tuple[str, ...]] = set()
    stack: deque[tuple[str, tuple[str, ...]]] = deque([(target, ())])
    seen: set[tuple[str, tuple[str, ...]]] = set()
    while stack and len(found) < limit:
        item = stack.pop()
        if item in seen:
            continue
        seen.add(item)
        node, suffix = item
        level = distance[node]
        if level == 0:
            if node == start:
                found.add(suffix)
            continue
        # An edge u -r-> node with distance[u] == level - 1; from node it is seen as inverse(r) -> u.
        for rel, neighbours in kg.edges(node).items():
            for previous in neighbours:
                if distance.get(previous) == level - 1:
                    stack.append((previous, (inverse(rel),) + suffix))
    return found
