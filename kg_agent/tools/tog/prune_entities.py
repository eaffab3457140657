"""Think-on-Graph's *entity pruning* step, shared by ToG and ToG-I; also the chain value helpers.

For each (chain, relation) pair kept by relation pruning, the candidate tail entities are the relation's
neighbours of the chain's last entity, except where the chain's last step began when the relation walks that step
backwards or the chain stands at an unnamed node (:meth:`~kg_agent.kg.walks.Walk.denied`: ``Robert Zemeckis
-^directed_by->`` offers his other films, not the one the chain came from; a Freebase marriage offers the other
partner). Otherwise a chain may come back to an entity it visited, as RoG's reasoning paths do
(:func:`~kg_agent.kg.types.turns_back`): "the gender of the parent of [X]'s son" walks ``children, parents`` back
to [X] and [X]'s partner. Large candidate sets are capped deterministically: sorted by (label, id), the first
``max_candidates`` kept, with a warning (ToG samples randomly). A decider scores the candidates; a triple's
score is relation score x entity score; the global top-``W`` triples extend their chains (ToG's beam).

A chain is a :class:`~kg_agent.kg.walks.Walk` (in the state its ``to_dict()``: ``{"text", "start", "steps", "score",
"scores", "depth"}``, ToG-I adds ``round``), an answer's evidence as it is. ``scores`` holds each triple's score
(relation score x entity score, as in ToG); the chain's ``score`` is their product, so the beam ranks whole
chains. (ToG ranks by the newest triple alone, which lets an entity with a single relation — scored 1 —
or a single tail take over the beam from a better chain.)

* :class:`LLMEntityScorer` — ToG's entity-scoring prompt (one call per pair; none for a single candidate);
  the reply may be ToG's ``Score: 0.0, 1.0, ...`` list (in candidate order) or ``{entity (Score: x)}`` items;
* :class:`SimilarityEntityScorer` — offline: cosine similarity of the triple text ("head relation tail") to
  the question, rescaled so the best candidate scores 1 (it has no reason to split mass among equally
  plausible entities, which would penalise relations with many tails);
* :class:`PathEntityScorer` — offline, for the whole-path beam: that similarity times the weight of the best
  relation path through the candidate (the chain's path, the relation, and up to ``lookahead`` relations on).

With the whole-path beam (no model; :func:`~kg_agent.tools.tog.deciders.default_deciders`) a pair's score is
already the whole chain's weight, so the new chain's ``score`` is the triple's rank score (pair x entity) rather
than a product over depths.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np
from langchain_core.embeddings import Embeddings

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.relation_paths import verbalize_relation
from kg_agent.kg.types import Entity, Triple
from kg_agent.kg.walks import Walk
from kg_agent.llm.parsing import parse_scored_items
from kg_agent.llm.usage import merge_usage
from kg_agent.settings import StructuredMode
from kg_agent.steps import Decided, decide, decided, placed_warnings, synchronous
from kg_agent.tools.shared.constraints import mention_groups, mention_of, neighbours_of_mentions, shared_among_mentions
from kg_agent.tools.shared.decider import Candidates, Decider, LLMDecider, fall_back
from kg_agent.tools.shared.decision_schemas import ScoredNames
from kg_agent.tools.shared.literal_filter import literal_filtered
from kg_agent.tools.shared.role_qualifiers import named_role_candidates
from kg_agent.tools.shared.scoring import TextVectorsFromEmbeddings, top_normalised
from kg_agent.tools.shared.updates import emit, pruned_update
from kg_agent.tools.tog.prune_relations import (
    DEFAULT_WIDTH,
    GUIDANCE_LINE,
    Branch,
    ScoredOutcome,
    SimilarityRelationPruner,
    beam_question,
    guided_query,
    scores_whole_paths,
)

if TYPE_CHECKING:  # a chat model is imported with the model, not with an offline method (start-up)
    from langchain_core.language_models import BaseChatModel

DEFAULT_MAX_CANDIDATES = 40


# ---------------------------------------------------------------------------------------------- chains
def new_chain(entity: Entity | dict) -> dict:
    """A chain of no triple yet, starting at a topic entity."""
    entity = entity if isinstance(entity, Entity) else Entity.from_dict(entity)
    return Walk(entity, score=1.0, scores=(), depth=0).to_dict()


def extend_chain(chain: dict, triple: Triple, score: float, depth: int, *, chain_score: float | None = None, **extra) -> dict:
    """The chain with one more triple; ``score`` is the triple's own score; the chain's is ``chain_score`` when given
    (a whole-path relation score, :attr:`ScoredOutcome.whole_path`), else the product of its triples' scores.
    ``extra``: more :class:`~kg_agent.kg.walks.Walk` fields (ToG-I's ``round``)."""
    walk = Walk.from_dict(chain)
    if chain_score is None:
        chain_score = float(1.0 if walk.score is None else walk.score) * float(score)
    return walk.extended(triple, score=round(float(chain_score), 8), scores=(*(walk.scores or ()), round(float(score), 6)),
                         depth=depth, **extra).to_dict()


def triplet_text(triple: dict) -> str:
    """ToG's ``head, relation, tail`` line, in the KG's own direction (``^r`` written the other way round)."""
    head, relation, tail = triple["head"]["label"], triple["relation"], triple["tail"]["label"]
    if relation.startswith("^"):
        return f"{tail}, {relation[1:]}, {head}"
    return f"{head}, {relation}, {tail}"


def chain_triplets(chains: Sequence[dict]) -> list[str]:
    """The distinct triplet lines of the chains, in chain order."""
    return list(dict.fromkeys(triplet_text(t) for c in chains for t in c.get("steps", [])))


# ---------------------------------------------------------------------------------------------- deciders
@runtime_checkable
class EntityScorer(Decider, Protocol):
    def score_entities(
        self,
        question: str,
        entity: Entity,
        relation: str,
        candidates: Sequence[Entity],
        *,
        guidance: str = "",
    ) -> Decided[ScoredOutcome]: ...


class SimilarityEntityScorer(TextVectorsFromEmbeddings):
    """Offline: similarity of "head relation tail" to the question, rescaled so the best candidate scores 1."""

    name = "similarity"

    def __init__(self, *, embeddings: Embeddings | None = None) -> None:
        self._embeddings = embeddings


    def score_entities(self, question, entity, relation, candidates, *, guidance="") -> ScoredOutcome:
        if not candidates:
            return ScoredOutcome([], source=self.name)
        verb = verbalize_relation(relation)
        sims = self.vectors.rank(guided_query(question, guidance), [f"{entity.label} {verb} {c.label}" for c in candidates])
        best = max(max(sims), 1e-6)
        scored = [(c.id, round(max(0.0, s) / best, 6)) for c, s in zip(candidates, sims)]
        return ScoredOutcome(sorted(scored, key=lambda pair: -pair[1]), source=self.name)


#: The weight left to a candidate that does not hold the place the question filters by, against one that does.
UNHELD_PLACE_SHARE = 0.1


class PathEntityScorer:
    """Offline, for the whole-path beam (:class:`SimilarityRelationPruner` with ``lookahead``): each candidate
    tail weighed by the best relation path through it — the chain's path so far plus the relation, or that
    completed by up to ``lookahead`` relations walkable from the candidate — times its text similarity
    (:class:`SimilarityEntityScorer`). So a film the question's next hop cannot leave ("the languages of the
    films starred by [X]'s actors": a film without ``in_language``) ranks below one it can.
    """

    name = "path"
    scores_whole_paths = True

    def __init__(self, paths: SimilarityRelationPruner, *, text: SimilarityEntityScorer | None = None) -> None:
        self.paths = paths
        self.text = text or SimilarityEntityScorer()

    def score_entities(self, question, entity, relation, candidates, *, guidance="", prefix=()) -> ScoredOutcome:
        if not candidates:
            return ScoredOutcome([], source=self.name)
        texts = dict(decided(self.text.score_entities, question, entity, relation, candidates, guidance=guidance).items)
        path = (*prefix, relation)
        scores = self.paths.best_scores(guided_query(question), [Branch(path, [c.id], entity.id) for c in candidates])
        best = max(scores)
        held = self._held_place(question, candidates)
        weights = [(c.id, round(float(np.exp((s - best) / self.paths.temperature)) * texts.get(c.id, 0.0)
                                * (1.0 if held is None or c.id in held else UNHELD_PLACE_SHARE), 6))
                   for c, s in zip(candidates, scores)]
        return ScoredOutcome(sorted(weights, key=lambda pair: -pair[1]), source=self.name)

    def _held_place(self, question: str, candidates: Sequence[Entity]) -> set[str] | None:
        """The candidates holding, as a literal, the place the question names after "in" when some but not all do
        ("which airports **in London** have a flight to [X]" over ``city "London"``:
        :func:`~kg_agent.tools.shared.literal_filter.literal_filtered`, the filter the answer step applies); None when
        no place filters them. A narrow beam (ToG-I's first round keeps one entity) then keeps one the answer step
        keeps."""
        kg = self.paths.kg
        if kg is None or len(candidates) < 2:
            return None
        filtered = literal_filtered(question, [{"entity_id": c.id, "answer": c.label} for c in candidates], kg)
        return {str(a["entity_id"]) for a in filtered[0]} if filtered else None


ENTITY_PROMPT = """Please score the entities' contribution to the question on a scale from 0 to 1 (the sum of the scores of all entities is 1).
Q: The movie featured Miley Cyrus and was produced by Tobin Armbrust?
Relation: film.producer.film
Entites: The Resident; So Undercover; Let Me In; Begin Again; The Quiet Ones; A Walk Among the Tombstones
Score: 0.0, 1.0, 0.0, 0.0, 0.0, 0.0
The movie featured Miley Cyrus and was produced by Tobin Armbrust is So Undercover.

Q: {question}
{guidance}Relation: {relation}
Entites: {entities}
Score: """  # noqa: E501 (prompt text kept verbatim)

_NUMBER = re.compile(r"(?<![\w.])(?:0(?:\.\d+)?|1(?:\.0+)?|\.\d+)(?![\w.])")


def parse_score_list(reply: str, count: int) -> list[float] | None:
    """ToG's ``0.0, 1.0, 0.0`` reply (after an optional ``Score:``) when it has exactly ``count`` numbers."""
    text = reply.split("Score:", 1)[1] if "Score:" in reply else reply
    for line in text.strip().splitlines() or [""]:
        numbers = [float(n) for n in _NUMBER.findall(line)]
        if len(numbers) == count:
            return numbers
    return None


#: Entities a grammar-constrained reply scores at most (ToG's default beam width: the beam keeps no more per step);
#: the others score 0. A 135M model scoring every film of a director ran past the token cap.
REPLY_ENTITIES = 3


class LLMEntityScorer(LLMDecider):
    """ToG's entity-scoring prompt, lenient parse, one retry, offline fallback."""

    def __init__(self, model: BaseChatModel, *, fallback: EntityScorer | None = None, prompt: str = ENTITY_PROMPT,
                 structured_output: StructuredMode = "auto") -> None:
        super().__init__(model, "prune_entities", fallback=fallback if fallback is not None else SimilarityEntityScorer(),
                         structured_output=structured_output, schema=ScoredNames,
                         reply_format="Score: 0.0, 1.0, 0.0 (one score per entity, in the order listed)")
        self.prompt = prompt

    def score_entities(self, question, entity, relation, candidates, *, guidance=""):
        """The decision as steps (its model calls asked by :mod:`kg_agent.steps`)."""
        if not candidates:
            return ScoredOutcome([], source=self.name)
        labels = [c.label for c in candidates]
        ids_by_label: dict[str, str] = {}
        for c in candidates:
            ids_by_label.setdefault(c.label, c.id)
        prompt = self.prompt.format(
            question=question, relation=relation, entities="; ".join(labels),
            guidance=GUIDANCE_LINE.format(guidance=guidance) if guidance else "",
        )

        def parse(reply: str):
            notes: list[str] = []
            parsed = parse_scored_items(reply, list(ids_by_label))
            if parsed.items:
                if parsed.unknown:
                    notes.append("prune_entities: ignored unknown entities: " + ", ".join(parsed.unknown[:5]))
                items = [(ids_by_label[name], score) for name, score in parsed.items]
            else:
                numbers = parse_score_list(reply, len(candidates))
                if numbers is None:
                    return None, notes
                items = [(c.id, n) for c, n in zip(candidates, numbers)]
            total = sum(max(0.0, s) for _, s in items)
            if total > 0 and abs(total - 1.0) > 1e-6:
                notes.append(f"prune_entities: entity scores for {entity.label} -{relation}-> summed to {total:.2f}; rescaled")
            return top_normalised(items, len(items)), notes

        def offline_ranking() -> list[str]:
            label_of = {c.id: c.label for c in candidates}
            ranked = decided(self.fallback.score_entities, question, entity, relation, candidates, guidance=guidance)
            return [label_of[i] for i, _ in ranked.items if i in label_of]

        asked = yield self.decision.request(prompt, parse, candidates=Candidates(list(ids_by_label), rank=offline_ranking,
                                                                                 most=REPLY_ENTITIES))
        if asked.decided:
            return ScoredOutcome(asked.value, warnings=asked.warnings, usage=asked.usage, source=self.name)
        outcome = decided(self.fallback.score_entities, question, entity, relation, candidates, guidance=guidance)
        return fall_back(asked, outcome, node="prune_entities", to=f"the {self.fallback.name} scorer for {entity.label} -{relation}->")


# ---------------------------------------------------------------------------------------------- node
def candidate_entities(kg: KnowledgeGraph, chain: dict, relation: str, *, max_candidates: int,
                       joining: Collection[str] = ()) -> tuple[list[Entity], int, int]:
    """``(candidates, total, revisits)``: the neighbours the chain may step to (:meth:`Walk.denied`), those in
    ``joining`` first (the nodes joined to another thing the question names, :func:`joining_nodes`), then sorted by
    (label, id), capped."""
    walk = Walk.from_dict(chain)
    denied = walk.denied(relation)
    ids = kg.neighbors(walk.end.id, relation)
    fresh = [i for i in dict.fromkeys(ids) if i != denied]
    entities = sorted((Entity(i, kg.label(i) or i) for i in fresh), key=lambda e: (e.id not in joining, e.label, e.id))
    return entities[:max_candidates], len(entities), len(ids) - len(fresh)


@dataclass
class EntityScoring:
    """What entity pruning asks for the kept (chain, relation) pairs (:func:`plan_entity_scoring`): each scored
    pair with its head and candidates, the warnings (an ``int``: where that request's warnings go) and one request
    per pair (a decision, or the score 1 of a single candidate)."""

    scored_pairs: list[tuple[dict, Entity, list[Entity]]]
    warnings: list[str | int]
    requests: list
    decisions: int = 0  # requests that ask the entity scorer


def topic_entities(state: dict) -> list[Entity]:
    return [Entity(t["id"], t.get("label") or "") for t in state.get("topic_entities") or [] if t.get("id")]


def joining_nodes(kg: KnowledgeGraph, topic_entities: Sequence[dict]) -> dict[str, set[str]]:
    """``{node: mentions}``: when the question names several things, the nodes joined by one edge to an entity linked
    from each mention (:func:`~kg_agent.tools.shared.constraints.neighbours_of_mentions`: a membership whose
    ``organization`` is the empire the question names, a book's catalogue entry in the classification it names);
    empty when it names fewer than two, or the KG cannot be read."""
    groups = mention_groups(topic_entities)
    if len(groups) < 2:
        return {}
    try:
        return neighbours_of_mentions(groups, kg)
    except KGError:
        return {}


def plan_entity_scoring(state: dict, *, kg: KnowledgeGraph, scorer: EntityScorer, max_candidates: int) -> EntityScoring:
    """The entity-scoring requests of the state's ``candidate_relations``; of a relation's many tails, those joined to
    another thing the question names (:func:`joining_nodes`) are scored first."""
    frontier = state.get("frontier") or []
    scoring = EntityScoring([], [], [])
    pairs = state.get("candidate_relations") or []
    near = joining_nodes(kg, state.get("topic_entities") or []) if pairs else {}
    mentions = mention_of(state.get("topic_entities") or [])
    for pair in pairs:
        chain = frontier[pair["chain"]]
        head = Walk.from_dict(chain).end
        relation = pair["relation"]
        own = mentions.get(chain["start"]["id"])
        joining = {node for node, found in near.items() if found - {own}}
        candidates, total, revisits = candidate_entities(kg, chain, relation, max_candidates=max_candidates,
                                                         joining=joining)
        # "the general chair of [X]": of [X]'s role nodes, those labelled so (kg_agent.tools.shared.role_qualifiers)
        candidates = named_role_candidates(state.get("question") or "", candidates, topic_entities(state), kg)
        if total > len(candidates):
            scoring.warnings.append(f"prune_entities: {head.label} -{relation}-> has {total} candidate entities; "
                                    f"scoring the first {len(candidates)} by label")
        if not candidates:
            why = " (only back where the chain came from)" if revisits else ""
            scoring.warnings.append(f"prune_entities: {head.label} -{relation}-> leads to no new entity{why}")
            continue
        scoring.warnings.append(len(scoring.requests))
        scoring.scored_pairs.append((pair, head, candidates))
        if len(candidates) == 1:
            scoring.requests.append(functools.partial(ScoredOutcome, [(candidates[0].id, 1.0)], source="single"))
        else:
            scoring.decisions += 1
            on_path = {"prefix": Walk.from_dict(chain).relations} if scores_whole_paths(scorer) else {}
            scoring.requests.append(decide(scorer.score_entities, beam_question(state, chain, scorer), head, relation,
                                           candidates, guidance=state.get("guidance") or "", **on_path))
    return scoring


def scored_entities(scoring: EntityScoring, outcomes: Sequence[ScoredOutcome]) -> dict:
    """The pairs' scored triples as plain JSON: ``{"triples": [[rank score, chain index, triple, triple score, chain
    score (the rank score for a whole-path pair, else ``None``: the chain's score times the triple's)]],
    "warnings", "usage"}`` (unsorted; the warnings in order; the calls' usage)."""
    usage: dict = {}
    scored_triples: list[list] = []
    for (pair, head, candidates), scored in zip(scoring.scored_pairs, outcomes):
        usage = merge_usage(usage, scored.usage)
        by_id = {c.id: c for c in candidates}
        for entity_id, entity_score in scored.items:
            if entity_id in by_id:
                triple = Triple(head, pair["relation"], by_id[entity_id])
                triple_score = pair.get("relation_score", pair["score"]) * entity_score
                rank = pair["score"] * entity_score
                scored_triples.append([rank, pair["chain"], triple.to_dict(), triple_score,
                                       rank if pair.get("whole_path") else None])
    return {"triples": scored_triples, "warnings": placed_warnings(scoring.warnings, outcomes), "usage": usage}


def kept_triples(triples: Sequence[list], frontier: Sequence[dict], width: int, topic_entities: Sequence[dict],
                 joining: Mapping[str, set[str]] | None = None) -> list[list]:
    """The top-``width`` of :func:`scored_entities`' triples, best first. When the question names several things
    (``topic_entities``' mentions), an entity reached from more of them ranks first (the answer must satisfy them
    all; an entity joined by one edge to a mention's entity, ``joining`` of :func:`joining_nodes`, is reached from
    it), and each one's best triple is kept (:func:`~kg_agent.tools.shared.constraints.shared_among_mentions`)."""
    mentions = mention_of(topic_entities)
    joining = joining or {}

    def mention(item: list) -> str | None:
        return mentions.get(frontier[item[1]]["start"]["id"])

    reached: dict[str, set[str]] = {}
    for item in triples:
        if (found := mention(item)) is not None:
            reached.setdefault(item[2]["tail"]["id"], set()).update({found, *joining.get(item[2]["tail"]["id"], ())})
    ranked = sorted(triples, key=lambda item: (-len(reached.get(item[2]["tail"]["id"], ())), -item[0]))
    return shared_among_mentions(ranked, width, mention)


def prune_entities_steps(
    state: dict,
    *,
    kg: KnowledgeGraph,
    scorer: EntityScorer,
    width: int | None = None,
    max_candidates: int = DEFAULT_MAX_CANDIDATES,
    scored: dict | None = None,
):
    """Graph node (as steps): score the tails of each kept (chain, relation) pair; extend the chains with the
    top-``W`` triples. The pairs' scoring calls are independent and run concurrently, under the question's
    budget (:mod:`kg_agent.llm.budget`).

    Appends the new chains to ``chains``, makes them the ``frontier``, advances ``depth``; sets
    ``stop_reason="no_candidates"`` when no pair has a tail entity left to visit.

    ``scored``: these pairs' :func:`scored_entities`, already asked (``speculate``); then no call is made here.
    """
    width = int(width or state.get("width") or DEFAULT_WIDTH)
    frontier = state.get("frontier") or []
    depth = int(state.get("depth") or 0) + 1
    if scored is None:
        scoring = plan_entity_scoring(state, kg=kg, scorer=scorer, max_candidates=max_candidates)
        scored = scored_entities(scoring, (yield scoring.requests))
    topics = state.get("topic_entities") or []
    ranked = kept_triples(scored["triples"], frontier, width, topics, joining_nodes(kg, topics))
    extra = {"round": state["round"]} if state.get("round") else {}
    new_chains = [extend_chain(frontier[i], Triple.from_dict(triple), score, depth, chain_score=chain_score, **extra)
                  for _, i, triple, score, chain_score in ranked]
    emit("prune_entities", depth=depth, kept=[{"chain": c["text"], "score": c["score"]} for c in new_chains])
    return pruned_update(new_chains, "no_candidates", scored, chains=[*(state.get("chains") or []), *new_chains],
                         frontier=new_chains, depth=depth, candidate_relations=[])


prune_entities_node = synchronous(prune_entities_steps)
