"""ToG's start: link the topic entities, then one empty chain per entity (the beam)."""

from __future__ import annotations

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.tools.shared.link import link_node
from kg_agent.tools.tog.prune_entities import new_chain


def prefer_exact_case(entities: list[dict], question: str) -> list[dict]:
    """Of topic entities whose labels differ only in case ("Robert Zemeckis", the tag "robert zemeckis"),
    keep the one written as in the question: a beam of W chains has no room for near-duplicates."""
    kept: dict[str, dict] = {}
    for entity in entities:
        if not written_with_capitals(entity, question):
            continue
        key = entity["label"].casefold()
        current = kept.get(key)
        if current is None or (entity["label"] in question and current["label"] not in question):
            kept[key] = entity
    return [e for e in entities if not written_with_capitals(e, question) or kept.get(e["label"].casefold()) is e]


def written_with_capitals(entity: dict, question: str) -> bool:
    """Whether the question writes the entity's mention with a capital letter: then its case tells one label from
    another; a mention in lower case ("the standard atmosphere") is how English writes a common noun, whatever the
    labels' case."""
    mention = entity.get("mention") or entity.get("label") or ""
    return mention != mention.lower()


def start_node(state: dict, *, kg: KnowledgeGraph, ask_when_ambiguous: bool = False) -> dict:
    """``link`` (asking the user which entity an ambiguous mention means, with ``ask_when_ambiguous``), then the
    beam: one empty chain per topic entity."""
    update = link_node(state, kg=kg, ask_when_ambiguous=ask_when_ambiguous)
    update["topic_entities"] = prefer_exact_case(update["topic_entities"], update.get("question", ""))
    update.update({
        "depth": 0,
        "frontier": [new_chain(e) for e in update["topic_entities"]],
        "candidate_relations": [],
        "verification": {},
        "instructions": [],
        "guidance": "",
        "round": 0,
    })
    return update
