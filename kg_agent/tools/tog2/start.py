"""ToG-2's start: link the topic entities; the frontier starts empty (topic prune fills it)."""

from __future__ import annotations

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.tools.shared.link import link_node
from kg_agent.tools.shared.updates import combined_updates


def start_node(state: dict, *, kg: KnowledgeGraph, notes: list[str], ask_when_ambiguous: bool = False) -> dict:
    """``link`` (asking the user which entity an ambiguous mention means, with ``ask_when_ambiguous``), the ``notes``
    (e.g. no documents) as warnings, and an empty frontier."""
    update = combined_updates(link_node(state, kg=kg, ask_when_ambiguous=ask_when_ambiguous), {"warnings": notes})
    update.update(frontier=[], depth=0, clue_queries=[], relations=[], candidates=[], references=[])
    return update
