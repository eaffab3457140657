"""RoG's planning and retrieval without the answer step (for the retriever and the chat-model context)."""

from __future__ import annotations

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.paths import DEFAULT_MAX_PATHS
from kg_agent.tools.rog.plan import DEFAULT_K, Planner, plan_node
from kg_agent.tools.rog.retrieve import retrieve_node
from kg_agent.tools.shared.link import link_node
from kg_agent.tools.shared.updates import apply_update


def rog_reasoning_paths(
    kg: KnowledgeGraph,
    question_or_messages,
    *,
    planner: Planner,
    k: int = DEFAULT_K,
    max_paths: int = DEFAULT_MAX_PATHS,
) -> dict:
    """RoG's planning and retrieval without the answer step: the state after link -> plan -> retrieve."""
    if isinstance(question_or_messages, str):
        state: dict = {"question": question_or_messages}
    elif isinstance(question_or_messages, dict):
        state = dict(question_or_messages)
    else:
        state = {"messages": list(question_or_messages)}
    state = apply_update(state, link_node(state, kg=kg))
    state = apply_update(state, plan_node(state, planner=planner, k=k))
    return apply_update(state, retrieve_node(state, kg=kg, max_paths=max_paths))
