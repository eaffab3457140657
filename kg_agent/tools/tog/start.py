"""ToG's start: link the topic entities, then one empty chain per entity (the beam)."""

from __future__ import annotations

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.tools.shared.link import link_node
from kg_agent.tools.tog.prune_entities import new_chain


def prefer_exact_case(entities: list[dict], question: str) -> list[dict]:
    """Of topic entities whose labels differ only in case ("Robert Zemeckis", the tag "robert zemeckis"),
    keep the one written as in the question where its case says something (:func:`_cased_as_asked`), else the
    better linked (the first): a beam of W chains has no room for near-duplicates."""
    kept: dict[str, dict] = {}
    for entity in entities:
        key = entity["label"].casefold()
        current = kept.get(key)
        if current is None or (_cased_as_asked(entity, question) and not _cased_as_asked(current, question)):
            kept[key] = entity
    return [e for e in entities if kept.get(e["label"].casefold()) is e]


def _cased_as_asked(entity: dict, question: str) -> bool:
    """``entity``'s label is written in the question as it is in the KG, where that tells something: in brackets (MetaQA
    brackets a tag in lower case, a name capitalised), given by the caller, or with a capital letter. A lower-case
    label met in a plain question does not: people type names in lower case ("which films did tom hanks act in" is
    about the actor, not the tag "tom hanks")."""
    label = entity["label"]
    if label not in question:
        return False
    return entity.get("how") in (None, "bracket") or label != label.lower()


def start_node(state: dict, *, kg: KnowledgeGraph) -> dict:
    """``link``, then the beam: one empty chain per topic entity."""
    update = link_node(state, kg=kg)
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
