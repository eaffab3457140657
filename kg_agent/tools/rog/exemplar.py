"""A training question for RoG's exemplar planner: given by a user, or taught by the KG
(:mod:`~kg_agent.tools.rog.taught_exemplars`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass
class Exemplar:
    """A training question with its answers (labels or ids) and, optionally, its topic entities and the relation
    paths that answer it (known for questions taught by the KG, :mod:`~kg_agent.tools.rog.taught_exemplars`; the
    exemplar planner's teacher finds them otherwise)."""

    question: str
    answers: Sequence[str]
    topic_entities: Sequence[str] = ()
    relation_paths: Sequence[Sequence[str]] = ()
