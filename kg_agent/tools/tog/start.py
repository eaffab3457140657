"""ToG's start: link the topic entities, then one empty chain per entity (the beam)."""

from __future__ import annotations

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.tools.shared.link import link_node
from kg_agent.tools.tog.prune_entities import new_chain


def prefer_exact_case(entities: list[dict], question: str) -> list[dict]:
    """Of topic entities whose labels differ only in case ("Robert Zemeckis", the tag "robert zemeckis"),
    keep the one written as in the question: a beam of W chains has no room for near-duplicates. A mention the
    question writes in lower case ("the standard atmosphere") is how English writes a common noun, whatever the
    labels' case: then the case tells nothing, and labels differing in case (the unit "Standard Atmosphere", the
    constant "standard atmosphere") are kept each; entities of one same label are kept once either way."""
    kept: dict[str, dict] = {}
    for entity in entities:
        key = entity["label"].casefold() if written_with_capitals(entity, question) else entity["label"]
        current = kept.get(key)
        if current is None or (entity["label"] in question and current["label"] not in question):
            kept[key] = entity
    return [e for e in entities if any(e is k for k in kept.values())]


def written_with_capitals(entity: dict, question: str) -> bool:
    """Whether the question writes the entity's mention (linking's, in lower case; else its label) with a capital
    letter; a mention not found as written in the question counts as written so."""
    mention = entity.get("mention") or entity.get("label") or ""
    found = question.casefold().find(mention.casefold())
    written = question[found:found + len(mention)] if found >= 0 and mention else ""
    return not written or written != written.lower()


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
