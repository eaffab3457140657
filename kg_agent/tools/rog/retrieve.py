"""RoG's *retrieve* step: reasoning paths for each plan by constrained breadth-first search (Algorithm 1)."""

from __future__ import annotations

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.paths import DEFAULT_MAX_PATHS, retrieve_paths
from kg_agent.kg.types import Entity


def retrieve_for_plans(
    kg: KnowledgeGraph, topic_entities: list[Entity], plans: list[dict], *, max_paths: int = DEFAULT_MAX_PATHS
) -> tuple[list[dict], list[str]]:
    """Paths of every plan, each path dict tagged with ``plan`` (its plan's index); warnings for truncations."""
    starts = [e.id for e in topic_entities]
    out: list[dict] = []
    warnings: list[str] = []
    for index, plan in enumerate(plans):
        result = retrieve_paths(kg, starts, plan["relations"], max_paths=max_paths)
        if result.truncated:
            warnings.append(f"retrieve: plan {plan.get('text')} has more than {max_paths} paths; "
                            f"kept the first {max_paths} in breadth-first order")
        for path in result.paths:
            out.append({**path.to_dict(), "plan": index})
    return out, warnings


EMITTED_PATHS = 20  # paths named in the custom stream event (all are in the state)


def retrieve_node(state: dict, *, kg: KnowledgeGraph, max_paths: int = DEFAULT_MAX_PATHS) -> dict:
    """Graph node: retrieve the reasoning paths of the state's plans."""
    from kg_agent.tools.shared.updates import add_warnings, emit

    entities = [Entity.from_dict(e) for e in state.get("topic_entities") or []]
    paths, warnings = retrieve_for_plans(kg, entities, state.get("plans") or [], max_paths=max_paths)
    emit("retrieve", count=len(paths), paths=[p["text"] for p in paths[:EMITTED_PATHS]])
    if state.get("plans") and not paths:
        warnings.append("retrieve: no reasoning path follows any plan in the knowledge graph")
    return {"paths": paths, "warnings": add_warnings(state, warnings)}
