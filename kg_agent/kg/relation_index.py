"""A schema-level relation index: which relation can follow which, per direction, with counts.

For every node the index notes the relations at it (outgoing ``r``, incoming ``^r``). A walk that arrives
at a node over ``a`` can leave it over ``b`` when some node has both ``inverse(a)`` and ``b``; the index
keeps how many nodes do (``follows[a][b]``). Candidate relation paths (:mod:`kg_agent.kg.relation_paths`)
are grown from it, so their cost does not depend on how many edges a hub has; each candidate is then
checked against the graph from the actual start entities, but where the index shows that *every* node reached
over ``a`` has ``b`` (:meth:`RelationIndex.always_follows`: then a walk that reached a node over ``a`` goes on
over ``b``, whatever the start). For that the index also keeps which predicates have a literal object
(``literal_objects``: a walk that ends on a literal goes on nowhere). And it keeps which relations some node has
more than once (``repeated``): a walk that steps back over the relation it came by must reach another node than the
one it came from, which no walk can where every node has the relation at most once (the other films in a film's
language, then *their* other language: :meth:`RelationIndex.never_follows`), however many nodes it would have to try.

Built once when a KG is loaded (``kg-agent load``, :func:`kg_agent.kg.build_oxigraph`) and kept beside the
store as JSON (``<store>/kg-agent/relation_index.json``); the memory backend builds it from its own index
on first use. Relations are stored by predicate IRI (``^IRI`` for incoming), so the file does not depend
on how relation names are shortened.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Mapping
from pathlib import Path

from kg_agent.kg.errors import KGLoadError
from kg_agent.kg.types import inverse

FORMAT_VERSION = 1


class RelationIndexBuilder:
    """Collects the relation signature of every node from a stream of triples, then counts who follows whom.

    Feed it with :meth:`add` (subject id, predicate IRI, object id); label predicates should be left out
    (but counted in :attr:`triples`, the number of triples of the graph).
    Memory use is one small set per node.
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}  # signed predicate IRI -> bit
        self._signatures: dict[Hashable, int] = {}  # node -> bit set of signed predicates
        self.triples = 0
        #: bit set of the predicates with a (non-empty) literal object; None once a node was fed by
        #: :meth:`add_signature`, which does not say
        self.literal_bits: int | None = 0
        #: bit set of the signed predicates some node has more than once (a subject with two objects of ``p``, an
        #: object with two subjects: ``^p``); None once a node was fed by :meth:`add_signature`
        self.repeated_bits: int | None = 0

    def _bit(self, signed: str) -> int:
        bit = self._ids.get(signed)
        if bit is None:
            bit = self._ids[signed] = 1 << len(self._ids)
        return bit

    def add(self, subject: str, predicate: str, obj: str, *, object_walks_on: bool = True) -> None:
        """One fact; ``object_walks_on=False`` for a literal object, from which no path goes on."""
        signatures = self._signatures
        bit = self._bit(predicate)
        had = signatures.get(subject, 0)
        signatures[subject] = had | bit
        repeated = had & bit
        if object_walks_on:
            back = self._bit("^" + predicate)
            had = signatures.get(obj, 0)
            signatures[obj] = had | back
            repeated |= had & back
        elif self.literal_bits is not None:
            self.literal_bits |= bit
        if self.repeated_bits is not None:
            self.repeated_bits |= repeated
        self.triples += 1

    def mark_repeated(self, predicate: str) -> None:
        """Take it that some node has ``predicate`` (and some its inverse) more than once: for facts fed under keys
        that may name a node another way than the file's facts did."""
        if self.repeated_bits is not None:
            self.repeated_bits |= self._bit(predicate) | self._bit("^" + predicate)

    def predicate_bits(self, predicate: str) -> tuple[int, int]:
        """The bits of ``predicate`` and of its inverse, for a caller that fills :attr:`signatures` itself
        (the load's line pass: one dict update per node, no call per triple; it adds the bits of the predicates
        it met with a literal object to :attr:`literal_bits`, and those a node had already to :attr:`repeated_bits`)."""
        return self._bit(predicate), self._bit("^" + predicate)

    def predicates(self) -> list[str]:
        """Every (unsigned) predicate IRI fed so far, sorted."""
        return sorted({signed[1:] if signed.startswith("^") else signed for signed in self._ids})

    @property
    def signatures(self) -> dict[Hashable, int]:
        """Node key (any hashable, e.g. the node's N-Triples bytes) -> bit set of its signed predicates."""
        return self._signatures

    def nodes_with(self, signed: Iterable[str], limit: int, *,
                   keep: Callable[[Hashable], bool] = lambda node: True) -> dict[str, list[Hashable]]:
        """``{signed predicate: up to limit nodes whose signature holds it}`` among those ``keep`` keeps, the first fed
        first, read in one pass over the signatures (a predicate never fed has none): the classes a load's pass met,
        for instance, are the nodes with ``^rdf:type`` (:mod:`kg_agent.kg.profile`)."""
        bits = {name: self._ids[name] for name in dict.fromkeys(signed) if name in self._ids}
        found: dict[str, list[Hashable]] = {name: [] for name in bits}
        wanted = 0
        for bit in bits.values():
            wanted |= bit
        for node, node_bits in self._signatures.items():
            if node_bits & wanted and keep(node):
                for name, bit in bits.items():
                    if node_bits & bit and len(found[name]) < limit:
                        found[name].append(node)
                        if len(found[name]) == limit:
                            wanted &= ~bit
                if not wanted:
                    break
        return found

    def add_signature(self, relations: Iterable[str]) -> None:
        """One node's signed relations at once (a backend that already holds them per node)."""
        bits = 0
        for signed in relations:
            bits |= self._bit(signed)
        self._signatures[f"\x00{len(self._signatures)}"] = bits
        self.literal_bits = self.repeated_bits = None

    def build(self) -> RelationIndex:
        by_bit = {bit: signed for signed, bit in self._ids.items()}
        kinds: dict[int, int] = {}
        for bits in self._signatures.values():
            kinds[bits] = kinds.get(bits, 0) + 1
        follows: dict[str, dict[str, int]] = {}
        nodes: dict[str, int] = {}
        for bits, count in kinds.items():
            present = [signed for bit, signed in by_bit.items() if bits & bit]
            for here in present:
                nodes[here] = nodes.get(here, 0) + count
                arriving = inverse(here)  # arrive over inverse(here) means the node has `here`
                row = follows.setdefault(arriving, {})
                for leaving in present:
                    row[leaving] = row.get(leaving, 0) + count
        literal_objects = None if self.literal_bits is None else [
            signed for signed, bit in self._ids.items() if self.literal_bits & bit]
        repeated = None if self.repeated_bits is None else [
            signed for signed, bit in self._ids.items() if self.repeated_bits & bit]
        return RelationIndex(follows, nodes, triples=self.triples, literal_objects=literal_objects, repeated=repeated)


class RelationIndex:
    """``follows[a][b]``: nodes reached over ``a`` that have ``b`` (signed predicate IRIs), node counts, and the
    predicates with a literal object (``literal_objects``) and the signed predicates some node has more than once
    (``repeated``); each None when not known (an index saved before it was kept, or built from nodes' relations
    alone)."""

    def __init__(self, follows: Mapping[str, Mapping[str, int]], nodes: Mapping[str, int], *, triples: int = 0,
                 literal_objects: Iterable[str] | None = None, repeated: Iterable[str] | None = None) -> None:
        self.follows = {a: dict(row) for a, row in follows.items()}
        self.nodes = dict(nodes)
        self.triples = triples
        self.literal_objects = None if literal_objects is None else frozenset(literal_objects)
        self.repeated = None if repeated is None else frozenset(repeated)

    def predicates(self) -> list[str]:
        """Every (unsigned) predicate IRI seen."""
        return sorted({signed[1:] if signed.startswith("^") else signed for signed in self.nodes})

    def following(self, signed: str) -> dict[str, int]:
        """``{relation that can follow: nodes where it can}`` after walking ``signed``."""
        return self.follows.get(signed, {})

    def always_follows(self, signed: str, following: str) -> bool:
        """Whether every walk that reached a node over ``signed`` can go on over ``following``: every node reached over
        it has ``following`` (``follows`` counts as many as ``nodes`` has reached), ``following`` is not ``signed``
        walked back (which must reach another node than the one before), and no walk over ``signed`` ends on a literal,
        from which none goes on (an incoming step ends on a subject; an outgoing one on a predicate's objects, which
        ``literal_objects`` must say are never literals)."""
        reached = self.nodes.get(inverse(signed), 0)
        if not reached or following == inverse(signed) or self.follows.get(signed, {}).get(following, 0) != reached:
            return False
        return signed.startswith("^") or (self.literal_objects is not None and signed not in self.literal_objects)

    def never_follows(self, signed: str, following: str) -> bool:
        """Whether no walk that reached a node over ``signed`` can go on over ``following``: no node reached over it
        has ``following``, or ``following`` is ``signed`` walked back (which must reach another node than the one
        before) and no node has ``following`` more than once."""
        if not self.follows.get(signed, {}).get(following, 0):
            return True
        return following == inverse(signed) and self.repeated is not None and following not in self.repeated

    def to_json(self) -> dict:
        data = {"version": FORMAT_VERSION, "triples": self.triples, "nodes": self.nodes, "follows": self.follows}
        if self.literal_objects is not None:
            data["literal_objects"] = sorted(self.literal_objects)
        if self.repeated is not None:
            data["repeated"] = sorted(self.repeated)
        return data

    def save(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        partial.write_text(json.dumps(self.to_json(), sort_keys=True), encoding="utf-8")
        partial.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> RelationIndex:
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") != FORMAT_VERSION:
                raise ValueError(f"format version {data.get('version')!r}, expected {FORMAT_VERSION}")
            literal_objects, repeated = data.get("literal_objects"), data.get("repeated")  # not in older indexes
            return cls(data["follows"], data["nodes"], triples=int(data.get("triples", 0)),
                       literal_objects=None if literal_objects is None else [str(p) for p in literal_objects],
                       repeated=None if repeated is None else [str(p) for p in repeated])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise KGLoadError(f"{path}: not a usable relation index ({exc}); rebuild the store with "
                              "`kg-agent load --overwrite`") from exc
