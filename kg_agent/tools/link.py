"""The *link* step every method starts with: the question and its topic entities.

The question is the state's ``question`` or, in a chat, the last human message. Topic entities given
by the caller (ids or labels) are used as they are; otherwise they are linked from the question. In a
follow-up turn with no entity of its own ("and who directed it?"), the previous turn's answers (or,
without answers, its topic entities) become the topic entities, and a warning says so.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.linking import link_entities
from kg_agent.kg.types import Entity

MAX_CARRIED_ENTITIES = 5


def question_from_state(state: dict) -> str:
    """The current question: the last human message of a chat, else the ``question`` field."""
    for message in reversed(state.get("messages") or []):
        if isinstance(message, HumanMessage) or (isinstance(message, BaseMessage) and message.type == "human"):
            content = message.content
            if isinstance(content, list):  # multimodal content blocks
                content = " ".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)
            return str(content).strip()
        if isinstance(message, dict) and message.get("role") in {"user", "human"}:
            return str(message.get("content", "")).strip()
    return str(state.get("question") or "").strip()


def resolve_given_entities(kg: KnowledgeGraph, given: list) -> tuple[list[Entity], list[str]]:
    """Entities given by the caller as ids, labels or entity dicts; unknown ones are reported."""
    entities: list[Entity] = []
    warnings: list[str] = []
    for item in given:
        if kg.has_entity(item):
            entities.append(kg.entity(item))
            continue
        found = kg.find_entities(item)
        if found:
            entities.append(found[0])
        else:
            warnings.append(f"link: topic entity {item!r} is not in the knowledge graph")
    return list(dict.fromkeys(entities)), warnings


def link_node(state: dict, *, kg: KnowledgeGraph, max_entities: int = 5) -> dict:
    """Graph node: set ``question`` and ``topic_entities``; start this turn's warnings, usage and outputs."""
    question = question_from_state(state)
    warnings: list[str] = []
    fresh = {"question": question, "plans": [], "paths": [], "chains": [], "documents": [], "answers": [],
             "output": "", "stop_reason": "", "usage": {}}
    if not question:
        return {**fresh, "topic_entities": [], "warnings": ["link: no question given"], "stop_reason": "no_question"}
    # Entities given with this input are ids or labels (strings); dicts are the previous turn's, kept by a checkpointer.
    given = [g for g in state.get("topic_entities") or [] if isinstance(g, str)]
    if given:
        entities, warnings = resolve_given_entities(kg, given)
    else:
        result = link_entities(kg, question, max_entities=max_entities)
        entities = result.entities
        previous = _previous_turn_entities(state)
        if not entities and previous:
            entities = previous
            warnings.append("link: no entity in this question; using the previous turn's entities: "
                            + ", ".join(e.label for e in entities))
        elif not entities:
            warnings.append(f"link: {result.message}")
    stop = "" if entities else "no_topic_entity"
    return {**fresh, "topic_entities": [e.to_dict() for e in entities], "warnings": warnings, "stop_reason": stop}


def _previous_turn_entities(state: dict) -> list[Entity]:
    """The last turn's answer entities, else its topic entities (empty outside a checkpointed chat)."""
    answers = [a for a in state.get("answers") or [] if a.get("entity_id")]
    if answers:
        return [Entity(a["entity_id"], a["answer"]) for a in answers[:MAX_CARRIED_ENTITIES]]
    return [Entity.from_dict(e) for e in (state.get("topic_entities") or [])[:MAX_CARRIED_ENTITIES]]
