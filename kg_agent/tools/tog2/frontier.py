"""Helpers shared by the Think-on-Graph 2.0 tools (topic prune, clue query, combined relation prune,
document-based entity prune, examine & reason).

The ToG-2 state keeps a **frontier**: the current topic entities ``E^i`` with their preceding triple
paths ``P^i`` and clue queries ``Q_c^i`` (ToG-2 §3.2). Each frontier item is plain JSON::

    {"entity": {"id", "label"}, "start": {"id", "label"}, "triples": [Triple.to_dict(), ...],
     "clue": "...", "score": 0.42, "relation_score": 0.5, "depth": 1}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from langchain_core.language_models import BaseChatModel

from kg_agent.kg.graph import normalize_label
from kg_agent.kg.types import Entity, Path, Triple
from kg_agent.llm.usage import UsageTracker, call_llm


@dataclass
class Asked:
    """What :func:`ask_with_retry` got: the parsed value (``None`` when nothing usable came back)."""

    value: Any
    reply: str = ""
    warnings: list[str] = field(default_factory=list)
    usage: dict = field(default_factory=dict)


def ask_with_retry(
    model: BaseChatModel,
    prompt: str,
    *,
    node: str,
    parse: Callable[[str], Any],
    attempts: int = 2,
) -> Asked:
    """Call ``model``, parse the reply (``parse`` returns ``None`` for unusable), retry once."""
    tracker = UsageTracker()
    warnings: list[str] = []
    reply = ""
    for attempt in range(1, attempts + 1):
        try:
            reply = call_llm(model, prompt, node=node, tracker=tracker)
        except Exception as exc:  # network, rate limit after retries, budget
            warnings.append(f"{node}: the model call failed ({type(exc).__name__}: {exc})")
            break
        value = parse(reply)
        if value is not None:
            return Asked(value, reply, warnings, tracker.as_dict())
        warnings.append(f"{node}: attempt {attempt} gave no usable reply (reply: {reply[:120]!r})")
    return Asked(None, reply, warnings, tracker.as_dict())


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


def match_label(name: str, labels: Sequence[str]) -> int | None:
    """Index of the label ``name`` names: equal after normalisation, else contained either way."""
    wanted = normalize_label(str(name))
    if not wanted:
        return None
    keys = [normalize_label(label) for label in labels]
    for index, key in enumerate(keys):
        if key == wanted:
            return index
    for index, key in enumerate(keys):
        if key and (key in wanted or wanted in key) and min(len(key), len(wanted)) >= 3:
            return index
    return None


_BRACKETS = re.compile(r"\[([^\[\]]+)\]")


def abstract_question(question: str, entities: Sequence[Entity] = ()) -> str:
    """The question with entity mentions replaced by ``[ENT]`` (so relation similarity ignores names)."""
    text = _BRACKETS.sub("[ENT]", question)
    for entity in entities:
        label = entity.label.strip()
        if len(label) > 1:
            text = re.sub(r"(?i)\b" + re.escape(label) + r"\b", "[ENT]", text)
    return text


_STOP = frozenset("a an the of in on at to for from by with and or is are was were be what which who whom whose when where why how "
                  "that this it its as did do does has have had reverse".split())


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP and len(w) > 2}


def lexical_overlap(question: str, relations: Sequence[str]) -> float:
    """Share of the relations' content words (5-letter stems) that the question uses: ``directed_by`` and
    "who directed" -> 1.0. Added (x ``LEXICAL_WEIGHT``) to the offline deciders' cosine similarities,
    which on their own barely tell "starred actors" from "directed by" for "who directed X"."""
    from kg_agent.kg.relation_paths import verbalize_relation

    words = set().union(*(_stems(verbalize_relation(r)) for r in relations)) if relations else set()
    if not words:
        return 0.0
    return len(words & _stems(question)) / len(words)


LEXICAL_WEIGHT = 0.1
