"""Small value objects shared by every layer: entities, triples and reasoning paths.

Relations are named by a short string (the IRI's local name, e.g. ``starred_actors`` or
``people.person.nationality``). A relation traversed backwards is written with SPARQL's inverse
path prefix: ``^starred_actors`` goes from an actor to the films that list them. That one notation is
used everywhere: in plans, in paths, in prompts and in JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

INVERSE_PREFIX = "^"


def inverse(relation: str) -> str:
    """The same relation walked the other way: ``r`` <-> ``^r``."""
    if relation.startswith(INVERSE_PREFIX):
        return relation[len(INVERSE_PREFIX):]
    return INVERSE_PREFIX + relation


def is_inverse(relation: str) -> bool:
    return relation.startswith(INVERSE_PREFIX)


def turns_back(relations: Sequence[str], depth: int) -> bool:
    """Whether step ``depth`` (0-based) of a relation path walks the step before it backwards (``r`` then ``^r``).

    Such a step never ends where the step before began: ``directed_by, ^directed_by`` from a film reaches the
    director's *other* films ("films that share a director with [X]"). It is the only way back a walk is denied:
    ``children, parents`` from a person comes back to the person and their partner ("the gender of the parent
    of [X]'s son"), as RoG's Algorithm 1 walks it, which keeps no visited set."""
    return depth > 0 and relations[depth] == inverse(relations[depth - 1])


def base_relation(relation: str) -> str:
    """The relation's name without the inverse prefix."""
    return relation[len(INVERSE_PREFIX):] if relation.startswith(INVERSE_PREFIX) else relation


@dataclass(frozen=True, slots=True)
class Entity:
    """A node of the knowledge graph: its IRI (or literal key) and a human-readable label."""

    id: str
    label: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "label": self.label}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entity:
        return cls(id=data["id"], label=data["label"])


@dataclass(frozen=True, slots=True)
class Triple:
    """One traversed edge: ``head -relation-> tail``; an inverse relation means the KG stores tail -> head."""

    head: Entity
    relation: str
    tail: Entity

    def text(self) -> str:
        return f"{self.head.label} -> {self.relation} -> {self.tail.label}"

    def to_dict(self) -> dict[str, Any]:
        return {"head": self.head.to_dict(), "relation": self.relation, "tail": self.tail.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Triple:
        return cls(Entity.from_dict(data["head"]), data["relation"], Entity.from_dict(data["tail"]))


@dataclass(frozen=True, slots=True)
class Path:
    """A reasoning path ``e0 -> r1 -> e1 -> ... -> rl -> el`` (RoG's w_z), rendered the same way everywhere."""

    start: Entity
    steps: tuple[Triple, ...] = field(default_factory=tuple)

    @property
    def relations(self) -> tuple[str, ...]:
        return tuple(step.relation for step in self.steps)

    @property
    def entities(self) -> tuple[Entity, ...]:
        return (self.start, *(step.tail for step in self.steps))

    @property
    def end(self) -> Entity:
        return self.steps[-1].tail if self.steps else self.start

    def __len__(self) -> int:
        return len(self.steps)

    def text(self) -> str:
        parts = [self.start.label]
        for step in self.steps:
            parts += [step.relation, step.tail.label]
        return " -> ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text(),
            "start": self.start.to_dict(),
            "steps": [step.to_dict() for step in self.steps],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Path:
        return cls(Entity.from_dict(data["start"]), tuple(Triple.from_dict(s) for s in data["steps"]))


def relation_path_text(relations: Iterable[str]) -> str:
    """RoG's plan format: ``<PATH> r1 <SEP> r2 </PATH>``."""
    return "<PATH> " + " <SEP> ".join(relations) + " </PATH>"


# Fast constructors for the path search's inner loop. A frozen dataclass's __init__ sets each field through
# object.__setattr__, which costs about twice what writing the slots directly does; these write the slots
# directly and build exactly the objects the normal constructors build (equal, same hash, still frozen).
_new = object.__new__
_set_entity_id, _set_entity_label = Entity.id.__set__, Entity.label.__set__  # type: ignore[attr-defined]
_set_head, _set_relation, _set_tail = Triple.head.__set__, Triple.relation.__set__, Triple.tail.__set__  # type: ignore[attr-defined]
_set_start, _set_steps = Path.start.__set__, Path.steps.__set__  # type: ignore[attr-defined]


def new_entity(entity_id: str, label: str) -> Entity:
    entity = _new(Entity)
    _set_entity_id(entity, entity_id)
    _set_entity_label(entity, label)
    return entity


def new_triple(head: Entity, relation: str, tail: Entity) -> Triple:
    triple = _new(Triple)
    _set_head(triple, head)
    _set_relation(triple, relation)
    _set_tail(triple, tail)
    return triple


def new_path(start: Entity, steps: tuple[Triple, ...]) -> Path:
    path = _new(Path)
    _set_start(path, start)
    _set_steps(path, steps)
    return path
