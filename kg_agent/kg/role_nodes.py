"""Role nodes: named statement nodes, recognised from the data.

Many KGs model an n-ary relation with a node of its own that is *named*, but whose name says which role it is, not
which individual: a conference's ``hasRole`` node labelled "General Chair" that ``heldBy`` a person, a W3C
``org:Post`` labelled "Treasurer" that ``org:heldBy`` a person of an organisation, a schema.org ``Role``, a club's
"Captain" position that joins a season and a player. The label repeats on one such node per fact ("General Chair" of
each year's conference), so it names no one: it qualifies the relation (which of the conference's roles), and the
answer is what the node joins (its holder), never the node.

A class of the KG is a **role class** when, over a sample of :data:`ROLE_SAMPLE` of its members
(:meth:`RoleNodes.is_role_class`):

* at least :data:`MIN_ROLE_NODES` members are named, and their labels **repeat**: at most :data:`MAX_LABEL_SHARE`
  distinct labels (compared as :func:`~kg_agent.kg.terms.label_key` writes them) per named member -- a class of
  individuals (persons, papers, films) has about one label each;
* most of them (:data:`MIN_JOINING_SHARE`) **join two or more entities that vary** from member to member: the
  entities a member reaches over any relation but a class predicate, in either direction, leaving out literals and
  the entities at least half of the sampled members reach (a scheme, a vocabulary every member points to: a
  catalogue's blank subject node "Fiction" that joins a book to the LCSH scheme is a value of the book, not a role);
  a relation with more than :data:`EDGE_BOUND` targets at a member (a "PC member" role held by a hundred persons)
  counts as one varying entity, unread. A member that some relation leads both into and out of is a level of a
  hierarchy (a league's "North Division" of each season, part of the season, with its clubs as parts), a thing of
  its own, not a statement joining others: it does not count.

A class is an **owned-value class** (:meth:`RoleNodes.is_owned_class`) when at least :data:`MIN_ROLE_NODES` of its
sampled members are named and most of them (:data:`MIN_OWNED_SHARE`) are reached by exactly one entity (over any
relation but a class predicate), hold facts of their own (a relation out of them), and are named after that entity:
every word of its name is in theirs ("Value for Avogadro constant" of the Avogadro constant, "Reading of gauge
Millbrook" of the gauge Millbrook). Such a node is a part of its owner's description that carries values (a
measurement with its value, unit and uncertainty): by its shape a statement node, which joins one entity to
literals and named values, though it has a name; the answer is what it holds, never the node. A class of
individuals (persons, places, works) has names of their own, and most of its members are reached from several
things.

A node is a role node when one of its classes (``rdf:type``, ``instance of`` ...) is a role class. Measured lazily,
once per class and per KG, through :class:`~kg_agent.kg.graph.KnowledgeGraph`'s own reads (a sample of a class's
members as the backend reads them first, :meth:`~kg_agent.kg.graph.KnowledgeGraph.sample_targets`: a class of millions
is not read whole; their labels and edges in a batch), so an rdflib file, an Oxigraph store and a SPARQL endpoint
answer alike. Unnamed statement nodes (blank nodes, nameless IRIs) are no role nodes: they are statements already.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.measured_cache import MeasuredOnce
from kg_agent.kg.per_kg import PerKG
from kg_agent.kg.terms import label_key
from kg_agent.kg.types import base_relation

#: Fewest named members a class needs before its labels can be said to repeat.
MIN_ROLE_NODES = 5
#: Most distinct labels per named member of a role class (a class of individuals has about one each).
MAX_LABEL_SHARE = 0.5
#: Least share of the sampled members that must join two or more varying entities.
MIN_JOINING_SHARE = 0.5
#: Least share of the sampled named members of an owned-value class that have one owner and are named after it.
MIN_OWNED_SHARE = 0.8
#: The kinds of the KG's result cache (:attr:`~kg_agent.kg.graph.KnowledgeGraph.result_cache`) where role classes
#: and owned-value classes are kept.
ROLE_CLASSES_KIND = "role_classes"
OWNED_CLASSES_KIND = "owned_value_classes"
#: Members of a class read to measure it.
ROLE_SAMPLE = 200
#: Edges read per relation of a sampled member (a role node has a few; a hub's many are not needed to tell).
EDGE_BOUND = 20


class RoleNodes:
    """The role classes of one KG, measured on first use of each class (module docstring)."""

    def __init__(self, kg: KnowledgeGraph) -> None:
        self.kg = kg
        # a role class -> its members' distinct labels (sampled); no labels: no role class
        self._role_labels = MeasuredOnce(kg, ROLE_CLASSES_KIND, self._measure)
        self._owned = MeasuredOnce(kg, OWNED_CLASSES_KIND, self._measure_owned)
        self._by_relation: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def labels_reached_by(self, relation: str) -> tuple[str, ...]:
        """The labels of the role nodes ``relation`` leads to (``^r``: from its objects to its subjects), sorted:
        what a question names to ask for one of them ("the general chair of [X]" for ``hasRole``). Read from
        :data:`ROLE_SAMPLE` of the relation's objects and their role classes' sampled members; measured once. A step
        from a class to its members (``^type``, :meth:`~kg_agent.kg.graph.KnowledgeGraph.class_fan_outs`) reaches
        none: a role node is among a role class's members as every other member is, not the value of a fact about
        the class."""
        with self._lock:
            known = self._by_relation.get(relation)
        if known is not None:
            return known
        try:
            if relation in self.kg.class_fan_outs():
                return ()
            ends = self.kg.sample_ends([relation], ROLE_SAMPLE).get(relation, [])
            classes = self.kg.classes_of(ends) if ends else {}
        except KGError:
            return ()
        found = {c for of_end in classes.values() for c in of_end if self.is_role_class(c)}
        labels = tuple(sorted({label for c in found for label in self._role_labels.get(c) or ()}))
        with self._lock:
            self._by_relation[relation] = labels
        return labels

    def among(self, ids: Iterable[str], classes: Mapping[str, Sequence[str]] | None = None) -> set[str]:
        """The ids among ``ids`` that are role nodes (named nodes of a role class); ``classes``: their classes when
        the caller read them already (:meth:`~kg_agent.kg.graph.KnowledgeGraph.classes_of`)."""
        keys, classes = self._nodes_with_classes(ids, classes)
        roles = {c for key in keys for c in classes.get(key, ()) if self.is_role_class(c)}
        if not roles:
            return set()
        named = self.kg.store.labels_of([key for key in keys if roles.intersection(classes.get(key, ()))])
        return {key for key, label in named.items() if label}

    def _nodes_with_classes(self, ids: Iterable[str], classes: Mapping[str, Sequence[str]] | None
                            ) -> tuple[list[str], Mapping[str, Sequence[str]]]:
        """The nodes among ``ids`` (no literals, each once) with their classes (``classes`` when the caller read
        them already); no nodes when there are none or their classes cannot be read."""
        keys = [key for key in dict.fromkeys(ids) if key and not key.startswith('"')]
        if not keys:
            return [], {}
        try:
            return keys, (self.kg.classes_of(keys) if classes is None else classes)
        except KGError:
            return [], {}

    def statements_among(self, ids: Iterable[str], classes: Mapping[str, Sequence[str]] | None = None) -> set[str]:
        """The ids among ``ids`` that are named statement nodes: role nodes (:meth:`among`) and named nodes of an
        owned-value class (:meth:`is_owned_class`)."""
        keys, classes = self._nodes_with_classes(ids, classes)
        if not keys:
            return set()
        found = self.among(keys, classes)
        owned = [key for key in keys if key not in found and any(self.is_owned_class(c) for c in classes.get(key, ()))]
        if owned:
            found |= {key for key, label in self.kg.store.labels_of(owned).items() if label}
        return found

    def is_owned_class(self, class_id: str) -> bool:
        """Whether ``class_id``'s members are named values owned by one entity each (module docstring); measured
        once (:class:`~kg_agent.kg.measured_cache.MeasuredOnce`); False when the KG cannot answer."""
        return bool(self._owned.get(class_id))

    def is_role_class(self, class_id: str) -> bool:
        """Whether ``class_id``'s members are role nodes (module docstring); measured once, with their labels."""
        return bool(self._role_labels.get(class_id))

    def sample_members(self, class_id: str) -> list[str]:
        """Up to :data:`ROLE_SAMPLE` members of a class (no literals), as the backend reads them first."""
        members: list[str] = []
        for fan_out in sorted(self.kg.class_fan_outs()):
            members += self.kg.sample_targets(class_id, fan_out, ROLE_SAMPLE)
        return [m for m in dict.fromkeys(members) if not m.startswith('"')][:ROLE_SAMPLE]

    def _measure_owned(self, class_id: str) -> bool:
        kg = self.kg
        labels = {key: label for key, label in kg.store.labels_of(self.sample_members(class_id)).items() if label}
        if len(labels) < MIN_ROLE_NODES:
            return False
        typing = {base_relation(r) for r in kg.class_fan_outs()}
        owner_of: dict[str, str] = {}
        for member, edges in kg.bounded_edges_each(labels, EDGE_BOUND).items():
            held = [relation for relation in (*edges.targets, *edges.wide) if base_relation(relation) not in typing]
            owners = {node for relation, nodes in edges.targets.items() if relation.startswith("^")
                      and base_relation(relation) not in typing for node in nodes if not node.startswith('"')}
            if (len(owners) == 1 and not any(r.startswith("^") for r in edges.wide)
                    and any(not r.startswith("^") for r in held)):
                owner_of[member] = next(iter(owners))
        names = kg.store.labels_of(list(set(owner_of.values()))) if owner_of else {}
        named_after = 0
        for member, owner in owner_of.items():
            name = names.get(owner)
            named_after += bool(name) and set(label_key(name or "").split()) < set(label_key(labels[member]).split())
        return named_after >= MIN_OWNED_SHARE * len(labels)

    def _measure(self, class_id: str) -> list[str]:
        """The distinct labels of a role class's sampled members, sorted; none when ``class_id`` is no role class."""
        kg = self.kg
        labels = {key: label for key, label in kg.store.labels_of(self.sample_members(class_id)).items() if label}
        if len(labels) < MIN_ROLE_NODES or len({label_key(label) for label in labels.values()}) > MAX_LABEL_SHARE * len(labels):
            return []
        typing = {base_relation(r) for r in kg.class_fan_outs()}
        joined: dict[str, set[str]] = {}
        many: dict[str, int] = {}  # relations with more than EDGE_BOUND targets: those vary by themselves
        chained: set[str] = set()  # members that are a level of a hierarchy: one relation both into and out of them
        kg.prefetch(labels)
        for member in labels:
            edges = kg.bounded_edges(member, EDGE_BOUND)
            held = {relation for relation in (*edges.targets, *edges.wide) if base_relation(relation) not in typing}
            if any(relation.startswith("^") and relation[1:] in held for relation in held):
                chained.add(member)
            joined[member] = {node for relation, nodes in edges.targets.items() if base_relation(relation) not in typing
                              for node in nodes if node != member and not node.startswith('"')}
            many[member] = sum(base_relation(relation) not in typing for relation in edges.wide)
        shared = Counter(node for nodes in joined.values() for node in nodes)
        common = {node for node, n in shared.items() if 2 * n >= len(joined)}
        joining = sum(len(nodes - common) + many[member] >= 2 and member not in chained
                      for member, nodes in joined.items())
        if joining < MIN_JOINING_SHARE * len(joined):
            return []
        by_key: dict[str, str] = {}
        for label in sorted(labels.values()):
            by_key.setdefault(label_key(label), label)
        return sorted(by_key.values())


_BY_KG: PerKG[RoleNodes] = PerKG(RoleNodes)


def role_nodes(kg: KnowledgeGraph) -> RoleNodes:
    """The process-wide :class:`RoleNodes` of a KG (kept as long as the KG is)."""
    return _BY_KG.get(kg)
