"""RoG's *retrieve* step: reasoning paths for each plan by constrained breadth-first search (Algorithm 1)."""

from __future__ import annotations

import re
from collections.abc import Callable

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.paths import DEFAULT_MAX_PATHS, PathSearchResult, retrieve_many_paths
from kg_agent.kg.types import Entity
from kg_agent.tools.shared.scoring import STOPWORDS, mask_mentions

_WORD = re.compile(r"[^\W_]+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and (len(w) >= 3 or w.isdigit())}


def label_relevance(question: str, topic_entities: list[Entity]) -> Callable[[Entity], float]:
    """The score :func:`~kg_agent.kg.paths.retrieve_paths` keeps the best paths by when a plan has more than ``max_paths``.

    A cheap proxy for relevance, computed for every entity a cut plan reaches (thousands): the number of the
    question's words (its entity mentions masked, stop words dropped; numbers such as years kept) that occur
    in the entity's label. "which films of [Tom Hanks] came out in 1994" thus keeps the paths through
    ``1994`` when Tom Hanks' films times their years are more than ``max_paths``.
    """
    question_words = _words(mask_mentions(question, topic_entities))
    if not question_words:
        return lambda entity: 0.0
    by_label: dict[str, float] = {}

    def relevance(entity: Entity) -> float:
        score = by_label.get(entity.label)
        if score is None:
            score = by_label[entity.label] = float(len(question_words & _words(entity.label)))
        return score

    return relevance


def truncation_warning(plan_text: str, result: PathSearchResult, *, max_paths: int) -> str:
    """What a cut of one plan's paths kept and how many it dropped."""
    dropped = f"at least {result.dropped}" if result.dropped_unread else str(result.dropped)
    return (f"retrieve: plan {plan_text} has more than {max_paths} paths; kept the {max_paths} whose entities "
            f"best match the question's words and dropped {dropped} (partial) paths")


def retrieve_for_plans(
    kg: KnowledgeGraph,
    topic_entities: list[Entity],
    plans: list[dict],
    *,
    max_paths: int = DEFAULT_MAX_PATHS,
    question: str = "",
) -> tuple[list[dict], list[str]]:
    """Paths of every plan, each path dict tagged with ``plan`` (its plan's index); warnings for truncations.

    The plans come in score order, so paths are ordered by plan score first; when a plan has more than
    ``max_paths`` paths, the ones kept are those most relevant to ``question`` (:func:`label_relevance`).
    """
    starts = [e.id for e in topic_entities]
    relevance = label_relevance(question, topic_entities)
    out: list[dict] = []
    warnings: list[str] = []
    # every plan at once: one request on a SPARQL endpoint
    results = retrieve_many_paths(kg, starts, [plan["relations"] for plan in plans], max_paths=max_paths,
                                  relevance=relevance)
    for index, (plan, result) in enumerate(zip(plans, results)):
        if result.truncated:
            warnings.append(truncation_warning(plan.get("text"), result, max_paths=max_paths))
        for path in result.paths:
            out.append({**path.to_dict(), "plan": index})
    return out, warnings


EMITTED_PATHS = 20  # paths named in the custom stream event (all are in the state)


def retrieve_node(state: dict, *, kg: KnowledgeGraph, max_paths: int = DEFAULT_MAX_PATHS) -> dict:
    """Graph node: retrieve the reasoning paths of the state's plans."""
    from kg_agent.tools.shared.updates import add_warnings, emit

    entities = [Entity.from_dict(e) for e in state.get("topic_entities") or []]
    paths, warnings = retrieve_for_plans(kg, entities, state.get("plans") or [], max_paths=max_paths,
                                         question=state.get("question") or "")
    emit("retrieve", count=len(paths), paths=[p["text"] for p in paths[:EMITTED_PATHS]])
    if state.get("plans") and not paths:
        warnings.append("retrieve: no reasoning path follows any plan in the knowledge graph")
    return {"paths": paths, "warnings": add_warnings(state, warnings)}
