"""RoG's *retrieve* step: reasoning paths for each plan by constrained breadth-first search (Algorithm 1)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.paths import DEFAULT_MAX_PATHS, RANKED_POOL_FACTOR, PathSearchResult, retrieve_many_paths
from kg_agent.kg.types import Entity
from kg_agent.kg.walks import Walk
from kg_agent.steps import synchronous
from kg_agent.text import content_words, label_words
from kg_agent.tools.rog.answer import PathUse
from kg_agent.tools.shared.aggregates import MAX_COMPARED, asked_comparison
from kg_agent.tools.shared.scoring import mask_mentions


def _words(text: str) -> set[str]:
    """A label's or a question's words (any script): its content words, and its numbers however short ("7")."""
    words = label_words(text)
    return set(content_words(words)) | {w for w in words if w.isdigit()}


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


def truncation_warning(plan_text: str, result: PathSearchResult, *, max_paths: int, reason: str = "") -> str:
    """What a cut of one plan's paths kept and how many it dropped (``reason``: why the cap is ``max_paths``)."""
    dropped = f"at least {result.dropped}" if result.dropped_unread else str(result.dropped)
    return (f"retrieve: plan {plan_text} has more than {max_paths} paths; kept the {max_paths} whose entities "
            f"best match the question's words and dropped {dropped} (partial) paths{reason}")


def plan_caps(plans: list[dict], *, max_paths: int, use: PathUse | None, top_rank: int = 0) -> list[int]:
    """The most paths each plan gets: ``max_paths`` for the plans whose answers the answer step keeps when
    ``top_rank`` is the best plan with paths (:meth:`PathUse.answering`), ``use.max_prompt_paths`` for the others."""
    if use is None:
        return [max_paths] * len(plans)
    answering = set(use.answering(plans, top_rank))
    return [max_paths if rank in answering else min(max_paths, use.max_prompt_paths) for rank in range(len(plans))]


def _retrieve_capped(kg: KnowledgeGraph, starts: list[str], plans: list[dict], caps: list[int], *, max_paths: int,
                     relevance: Callable[[Entity], float]):
    """Each plan's paths under its cap (steps: the plans sharing a cap at once, one request on a SPARQL endpoint, and
    the groups side by side). A plan capped below ``max_paths`` keeps its most relevant paths of at most
    :data:`~kg_agent.kg.paths.RANKED_POOL_FACTOR` x its cap read whole, else those of a search under its cap (which
    reads as many edges a step): :func:`~kg_agent.kg.paths.retrieve_many_paths` with ``keep``."""
    groups = {cap: [rank for rank, plan_cap in enumerate(caps) if plan_cap == cap] for cap in sorted(set(caps), reverse=True)}
    found = yield [partial(retrieve_many_paths, kg, starts, [plans[rank]["relations"] for rank in ranks],
                           max_paths=min(max_paths, cap if cap == max_paths else RANKED_POOL_FACTOR * cap),
                           relevance=relevance, keep=[cap] * len(ranks)) for cap, ranks in groups.items()]
    results: list[PathSearchResult | None] = [None] * len(plans)
    for ranks, group in zip(groups.values(), found):
        for rank, result in zip(ranks, group):
            results[rank] = result
    return results


def retrieve_plans_steps(
    kg: KnowledgeGraph,
    topic_entities: list[Entity],
    plans: list[dict],
    *,
    max_paths: int = DEFAULT_MAX_PATHS,
    question: str = "",
    use: PathUse | None = None,
):
    """The paths of every plan, each path dict tagged with ``plan`` (its plan's index), and warnings for
    truncations; as steps (:mod:`kg_agent.steps`; :func:`retrieve_for_plans` runs them).

    The plans come in score order, so paths are ordered by plan score first; when a plan has more than
    ``max_paths`` paths, the ones kept are those most relevant to ``question`` (:func:`label_relevance`).

    With ``use`` (what the answer step reads, :class:`~kg_agent.tools.rog.answer.PathUse`), a plan whose answers are
    not kept beside the best plan's keeps at most ``use.max_prompt_paths`` paths (:func:`plan_caps`), the most
    relevant, and the engine is asked for no more than a search under that cap reads (:func:`_retrieve_capped`):
    never for the thousands of paths of a hub plan such as MetaQA's ``^starred_actors -> has_genre -> ^has_genre``
    (the films of a genre). The best plan with paths is taken to be the first; when it is not (the first found
    none), the plans that answer instead are retrieved again under ``max_paths`` if their cap cut them, so the
    answers are those of a retrieval that caps nothing.
    """
    starts = [e.id for e in topic_entities]
    relevance = label_relevance(question, topic_entities)
    caps = plan_caps(plans, max_paths=max_paths, use=use)
    results = yield from _retrieve_capped(kg, starts, plans, caps, max_paths=max_paths, relevance=relevance)
    while use is not None:
        top = next((rank for rank, result in enumerate(results) if result.paths), None)
        # every plan above the best one with paths (a cut may have left one empty) and those answering beside it
        needed = range(len(plans)) if top is None else [*range(top), *use.answering(plans, top)]
        again = [rank for rank in needed if caps[rank] < max_paths and results[rank].truncated]
        if not again:
            break
        redone = yield from _retrieve_capped(kg, starts, [plans[rank] for rank in again], [max_paths] * len(again),
                                             max_paths=max_paths, relevance=relevance)
        for rank, result in zip(again, redone):
            caps[rank], results[rank] = max_paths, result
    out: list[dict] = []
    warnings: list[str] = []
    for index, (plan, result) in enumerate(zip(plans, results)):
        if result.truncated:
            reason = ("" if caps[index] == max_paths else
                      f" (its answers rank below the best plan's, so it keeps at most max_prompt_paths={caps[index]}: "
                      "what the answer prompt can show)")
            warnings.append(truncation_warning(plan.get("text"), result, max_paths=caps[index], reason=reason))
        for path in result.paths:
            out.append(Walk.of(path, details={"plan": index}).to_dict())
    return out, warnings


#: :func:`retrieve_plans_steps` run synchronously: ``(paths, warnings)``.
retrieve_for_plans = synchronous(retrieve_plans_steps)




def paths_the_answer_uses(paths: list[dict], use: PathUse, *, compares: bool = False) -> list[dict]:
    """The paths the answer step reads (:class:`~kg_agent.tools.rog.answer.PathUse`), in their order:

    * the first ``use.max_prompt_paths`` distinct paths, best plans first (a model's prompt);
    * for each plan, every path of it reaching one of the ``use.max_answers`` ends it reaches by the most paths
      (ties by label, then id: the order of the offline answers, which thus get the votes and supporting paths
      of all the paths); for a question that ``compares`` ("the heaviest ..."), of the
      :data:`~kg_agent.tools.shared.aggregates.MAX_COMPARED` ends: a comparison is over every answer, not those shown;
    * each plan's first path from each topic entity (which plans found paths, and from where).
    """
    kept: set[int] = set()
    texts: set[str] = set()
    for index in sorted(range(len(paths)), key=lambda i: paths[i].get("plan", 0)):
        text = paths[index]["text"]
        if text not in texts:
            if len(texts) == use.max_prompt_paths:
                break
            texts.add(text)
            kept.add(index)
    reaching: dict[tuple, list[int]] = {}  # (plan, end id) -> the paths of the plan ending there
    labels: dict[str, str] = {}
    firsts: dict[tuple, int] = {}
    for index, path in enumerate(paths):
        end = Walk.end_of(path)
        reaching.setdefault((path.get("plan"), end["id"]), []).append(index)
        labels[end["id"]] = end["label"]
        firsts.setdefault((path.get("plan"), path["start"]["id"]), index)
    kept.update(firsts.values())
    ends_of: dict = {}
    for plan, end in reaching:
        ends_of.setdefault(plan, []).append(end)
    for plan, ends in ends_of.items():
        ends.sort(key=lambda end: (-len(reaching[plan, end]), labels[end], end))
        for end in ends[:max(use.max_answers, MAX_COMPARED) if compares else use.max_answers]:
            kept.update(reaching[plan, end])
    return [paths[index] for index in sorted(kept)]


EMITTED_PATHS = 20  # paths named in the custom stream event (all are in the state)


def retrieve_steps(state: dict, *, kg: KnowledgeGraph, max_paths: int = DEFAULT_MAX_PATHS, use: PathUse | None = None):
    """Graph node (as steps): retrieve the reasoning paths of the state's plans.

    With ``use`` (what the answer step reads), retrieval keeps no more (:func:`retrieve_for_plans`) and the state
    only :func:`paths_the_answer_uses`, with a warning giving how many were found and kept (a LangGraph server
    copies and stores the state after every step: thousands of paths are megabytes)."""
    from kg_agent.tools.shared.updates import emit

    entities = [Entity.from_dict(e) for e in state.get("topic_entities") or []]
    plans = state.get("plans") or []
    paths, warnings = yield from retrieve_plans_steps(kg, entities, plans, max_paths=max_paths,
                                                      question=state.get("question") or "", use=use)
    found = len(paths)
    if use is not None:
        ends = len({Walk.end_of(p)["id"] for p in paths})
        paths = paths_the_answer_uses(paths, use, compares=asked_comparison(state.get("question") or "") is not None)
        if len(paths) < found:
            warnings.append(f"retrieve: {found} reasoning paths to {ends} entities found; the state keeps the "
                            f"{len(paths)} the answer step reads (the first {use.max_prompt_paths} distinct paths, best plans "
                            f"first; each plan's paths to its {use.max_answers} ends reached by most paths; each plan's "
                            "first path from each topic entity)")
    emit("retrieve", count=len(paths), found=found, paths=[p["text"] for p in paths[:EMITTED_PATHS]])
    if plans and not paths:
        warnings.append("retrieve: no reasoning path follows any plan in the knowledge graph")
    return {"paths": paths, "warnings": warnings}


retrieve_node = synchronous(retrieve_steps)
