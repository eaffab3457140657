"""Helpers shared by the Think-on-Graph 2.0 tools (topic prune, clue query, combined relation prune,
document-based entity prune, examine & reason).

The ToG-2 state keeps a **frontier**: the current topic entities ``E^i`` with their preceding triple
paths ``P^i`` and clue queries ``Q_c^i`` (ToG-2 §3.2). Each frontier item is a :class:`~kg_agent.kg.walks.Walk`
(its ``to_dict()`` in the state) whose details are the entity it reached, its clue query and its relation's score::

    {"text", "start": {"id", "label"}, "steps": [Triple.to_dict(), ...], "score": 0.42, "depth": 1,
     "entity": {"id", "label"}, "clue": "...", "relation_score": 0.5}
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_agent.kg.terms import normalize_label
from kg_agent.kg.types import Entity
from kg_agent.kg.walks import Walk


def new_frontier_item(entity: Entity | dict, *, clue: str = "") -> dict:
    """A topic entity at depth 0 (empty path)."""
    entity = entity if isinstance(entity, Entity) else Entity.from_dict(entity)
    return Walk(entity, score=0.0, depth=0, details={"entity": entity.to_dict(), "clue": clue, "relation_score": 0.0}).to_dict()


def triple_text(triple: dict) -> str:
    """``(head, relation, tail)`` as the prompts and the chunk-scoring query write it."""
    return f"({triple['head']['label']}, {triple['relation']}, {triple['tail']['label']})"


def match_label(name: str, labels: Sequence[str], *, contained: bool = False) -> int | None:
    """Index of the label ``name`` names: equal after normalisation (case, punctuation, spaces).

    ``contained``: else also a label contained in ``name`` or containing it (at least 3 characters), for names
    the offline rules read from a question ("X or Y?"); a model's reply is matched exactly, so
    ``"Name 1: Tom Hanks"`` is not read as ``Tom Hanks``.
    """
    wanted = normalize_label(str(name))
    if not wanted:
        return None
    keys = [normalize_label(label) for label in labels]
    for index, key in enumerate(keys):
        if key == wanted:
            return index
    if contained:
        for index, key in enumerate(keys):
            if key and (key in wanted or wanted in key) and min(len(key), len(wanted)) >= 3:
                return index
    return None


LEXICAL_WEIGHT = 0.1  # ToG-2's weight of the lexical bonus (kg_agent.tools.shared.scoring.relation_overlap)
