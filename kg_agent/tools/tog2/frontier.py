"""Helpers shared by the Think-on-Graph 2.0 tools (topic prune, clue query, combined relation prune,
document-based entity prune, examine & reason).

The ToG-2 state keeps a **frontier**: the current topic entities ``E^i`` with their preceding triple
paths ``P^i`` and clue queries ``Q_c^i`` (ToG-2 §3.2). Each frontier item is plain JSON::

    {"entity": {"id", "label"}, "start": {"id", "label"}, "triples": [Triple.to_dict(), ...],
     "clue": "...", "score": 0.42, "relation_score": 0.5, "depth": 1}
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_agent.kg.terms import normalize_label
from kg_agent.kg.types import Entity, Path, Triple


def new_frontier_item(entity: Entity | dict, *, clue: str = "") -> dict:
    """A topic entity at depth 0 (empty path)."""
    entity = entity.to_dict() if isinstance(entity, Entity) else dict(entity)
    entity = {"id": entity["id"], "label": entity["label"]}
    return {"entity": entity, "start": entity, "triples": [], "clue": clue, "score": 0.0,
            "relation_score": 0.0, "depth": 0}


def item_entity(item: dict) -> Entity:
    return Entity.from_dict(item["entity"])


def item_relations(item: dict) -> tuple[str, ...]:
    return tuple(t["relation"] for t in item.get("triples") or [])


def item_entity_ids(item: dict) -> set[str]:
    """Entities on the item's path (its start, every tail)."""
    ids = {item["start"]["id"], item["entity"]["id"]}
    ids.update(t["tail"]["id"] for t in item.get("triples") or [])
    return ids


def item_path(item: dict) -> dict:
    """The item's reasoning path as a :class:`~kg_agent.kg.types.Path` dict (RoG's ``e0 -> r1 -> e1``)."""
    start = Entity.from_dict(item["start"])
    return Path(start, tuple(Triple.from_dict(t) for t in item.get("triples") or [])).to_dict()


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
