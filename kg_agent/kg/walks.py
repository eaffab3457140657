"""One record for every walk a method takes over the knowledge graph: RoG's reasoning paths, ToG's and ToG-I's
scored chains, ToG-2's frontier items (and the answers' evidence, which are walks too).

A :class:`Walk` starts at an entity and follows triples (``steps``); what a method adds is optional: a ``score``,
each step's own score (``scores``, ToG), the ``depth`` it was reached at, ToG-I's outer iteration (``round``), and
the method's own plain-JSON fields (``details``: RoG's ``plan`` index, ToG-2's ``entity``, ``clue`` and
``relation_score``). In the state a walk is its :meth:`Walk.to_dict`::

    {"text": "Tom Hanks -> ^starred_actors -> Big", "start": {"id", "label"}, "steps": [Triple.to_dict(), ...],
     "score": 0.9, "scores": [0.9], "depth": 1, "round": 1, ...details}

(``score``, ``scores``, ``depth`` and ``round`` only when set), and its text is :meth:`Walk.text`, the one rendering
of a walk (:meth:`~kg_agent.kg.types.Path.text`), whatever method took it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kg_agent.kg.terms import UNNAMED
from kg_agent.kg.types import Entity, Path, Triple, inverse

#: The keys :meth:`Walk.to_dict` writes itself; any other key of a walk's dict is one of its ``details``.
WALK_KEYS = ("text", "start", "steps", "score", "scores", "depth", "round")


@dataclass(frozen=True)
class Walk:
    """A walk over the KG from ``start`` along ``steps`` (see the module docstring)."""

    start: Entity
    steps: tuple[Triple, ...] = ()
    score: float | None = None
    scores: tuple[float, ...] | None = None
    depth: int | None = None
    round: int | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, path: Path, **fields: Any) -> Walk:
        """The walk along a :class:`~kg_agent.kg.types.Path` (``fields``: ``score``, ``depth``, ``details`` ...)."""
        return cls(path.start, path.steps, **fields)

    @property
    def path(self) -> Path:
        return Path(self.start, self.steps)

    @property
    def end(self) -> Entity:
        """The entity the walk ends at (its start when it has no step)."""
        return self.steps[-1].tail if self.steps else self.start

    @property
    def relations(self) -> tuple[str, ...]:
        return tuple(step.relation for step in self.steps)

    @property
    def entity_ids(self) -> set[str]:
        """The ids of the entities on the walk (its start and every step's tail)."""
        return {self.start.id, *(step.tail.id for step in self.steps)}

    @property
    def steps_back(self) -> bool:
        """Whether the walk's last step is one :meth:`denied` forbids: back to where the step before began, out of an
        unnamed node ("the spouse of [X] 's director" through a Freebase marriage reaches the director too) or along
        that step backwards."""
        if len(self.steps) < 2:
            return False
        return Walk(self.start, self.steps[:-1]).denied(self.steps[-1].relation) == self.steps[-1].tail.id

    def denied(self, relation: str) -> str | None:
        """The id of the node a next step along ``relation`` may not reach: where the last step began, when
        ``relation`` walks it backwards (:func:`~kg_agent.kg.types.turns_back`) or when the walk stands at an unnamed
        node (a Freebase marriage, a Wikidata statement: one n-ary fact, whose way back to where the walk entered it
        reaches nothing new: "the spouse of [X]" through the marriage is not [X]); otherwise ``None``."""
        if self.steps and (relation == inverse(self.steps[-1].relation) or self.end.label == UNNAMED):
            return self.steps[-1].head.id
        return None

    @staticmethod
    def end_of(data: Mapping[str, Any]) -> dict:
        """The end entity of a walk's dict (:attr:`end`'s ``to_dict()``), read without building the walk: for a
        loop over thousands of retrieved paths."""
        steps = data.get("steps")
        return steps[-1]["tail"] if steps else data["start"]

    def text(self) -> str:
        """``e0 -> r1 -> e1 -> ...``: how every walk is written (in the state, in replies, in prompts that list paths)."""
        return self.path.text()

    def extended(self, step: Triple, **changes: Any) -> Walk:
        """The walk one step further (``changes``: its new ``score``, ``scores``, ``depth``, ``details`` ...)."""
        return replace(self, steps=(*self.steps, step), **changes)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"text": self.text(), "start": self.start.to_dict(),
                                "steps": [step.to_dict() for step in self.steps]}
        for key in ("score", "scores", "depth", "round"):
            value = getattr(self, key)
            if value is not None:
                data[key] = list(value) if key == "scores" else value
        return {**data, **self.details}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Walk:
        scores = data.get("scores")
        return cls(
            Entity.from_dict(data["start"]),
            tuple(Triple.from_dict(step) for step in data.get("steps") or ()),
            score=data.get("score"),
            scores=None if scores is None else tuple(scores),
            depth=data.get("depth"),
            round=data.get("round"),
            details={key: value for key, value in data.items() if key not in WALK_KEYS},
        )
