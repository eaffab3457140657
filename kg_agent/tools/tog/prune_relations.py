"""Think-on-Graph's *relation pruning* step (Sun et al., ICLR 2024), shared by ToG and ToG-I.

For each entity at the end of a chain, the entity's outgoing and incoming relations (incoming written
``^rel``) are filtered of bookkeeping relations (:data:`DEFAULT_IGNORED_RELATIONS`, configurable), then a
decider keeps ``W`` of them with scores in [0, 1] that sum to 1. The node then keeps the global top-``W``
(entity, relation) pairs by score, so the entity-pruning step that follows makes at most ``W`` calls per
depth: with at most ``W`` chains in the beam, one relation call per chain, one entity call per kept pair
and one verification, a question costs at most ``2·W·D + D + 1`` LLM calls (ToG's bound, the ``+1`` being
the final answer). Retries of malformed replies are counted against the same per-question limit
(``max_llm_calls``, the question's :class:`~kg_agent.llm.budget.QuestionBudget`, one call kept for the answer): when
it is reached, the offline decider answers instead and a warning says so.

Two deciders share one interface (:class:`RelationPruner`):

* :class:`LLMRelationPruner` — ToG's prompt, answers written ``{relation (Score: 0.x)}``; parsed
  leniently (prose, missing scores, scores not summing to 1, unknown names), retried once, then the
  offline pruner answers and the reason is recorded;
* :class:`SimilarityRelationPruner` — ToG's SentenceBERT pruning ablation, with the shared
  :class:`~kg_agent.tools.shared.path_scoring.RelationPathScorer` scoring the relation path (the chain's
  relations so far plus the candidate) against the question (and, in ToG-I, the guiding instructions);
  top-``W`` kept with weights that sum to 1. Offline ToG / ToG-I use it with a look ahead: whole-chain weights
  the beam compares across chains (:attr:`ScoredOutcome.whole_path`), normalised so the beam's best pair scores 1.

The LLM deciders ask through :class:`~kg_agent.tools.shared.decider.LLMDecision` (budget, one retry, warnings).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

import numpy as np
from langchain_core.embeddings import Embeddings

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import Entity, inverse
from kg_agent.kg.walks import Walk
from kg_agent.llm.parsing import parse_scored_items
from kg_agent.llm.usage import merge_usage
from kg_agent.settings import StructuredMode
from kg_agent.steps import Decided, decide, decided, placed_warnings, synchronous
from kg_agent.tools.shared.constraints import mention_of, shared_among_mentions
from kg_agent.tools.shared.decider import Candidates, Decider, LLMDecider, Outcome, fall_back, relation_meanings
from kg_agent.tools.shared.decision_schemas import ScoredNames
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.scoring import (
    DEFAULT_IGNORED_RELATIONS,
    filter_relations,
    mask_mentions,
    mask_topic_mentions,
    softmax_weights,
    top_normalised,
)
from kg_agent.tools.shared.updates import emit, pruned_update

if TYPE_CHECKING:  # a chat model is imported with the model, not with an offline method (start-up)
    from langchain_core.language_models import BaseChatModel

DEFAULT_WIDTH = 3  # ToG's beam width W
DEFAULT_DEPTH = 3  # ToG's maximum depth D

@dataclass
class ScoredOutcome(Outcome):
    """A decider's scores (best first), its warnings, LLM usage and which decider produced them."""

    items: list[tuple[str, float]]
    budget_exhausted: bool = False
    whole_path: bool = False  # the scores weigh the whole chain (prefix + relation), not this step alone


# ---------------------------------------------------------------------------------------------- deciders
@runtime_checkable
class RelationPruner(Decider, Protocol):
    def score_relations(
        self,
        question: str,
        entity: Entity,
        relations: Sequence[str],
        *,
        width: int,
        prefix: Sequence[str] = (),
        guidance: str = "",
    ) -> Decided[ScoredOutcome]: ...


#: Targets of one relation at a node that the look ahead reads; the targets of a relation with more (a genre's films,
#: a country's citizens) are not read, and the walk goes on from it by the relations that can follow it
#: (:meth:`~kg_agent.kg.graph.KnowledgeGraph.relations_following`, the relation index): the same on every backend,
#: and a hub costs what a count of its edges costs, whatever its size
LOOKAHEAD_TARGETS = 1000


def relation_walks(kg: KnowledgeGraph, nodes: Sequence[str], steps: int, *, sample: int,
                   ignored_relations: Sequence[str], max_paths: int, reached_over: str | None = None,
                   came_from: str | None = None, wide: bool = False,
                   start: str | None = None) -> list[tuple[str, ...]]:
    """The relation paths of 1..``steps`` relations walkable from ``nodes`` (at most ``sample`` nodes and
    neighbours per step), shortest first, at most ``max_paths``. A step never walks the step before it backwards
    to where that began (:func:`~kg_agent.kg.types.turns_back`, as RoG's paths): otherwise a walk may come back.

    ``reached_over``: the relation that reached ``nodes`` from ``came_from``; ``wide``: it has more than :data:`LOOKAHEAD_TARGETS`
    targets there, left unread, so the first step also takes the relations that can follow it. A relation with more
    than :data:`LOOKAHEAD_TARGETS` targets at a node is walked on the same way. A walk ends at a class (none starts
    from nodes reached over ``instance of``): its members (Wikidata's human: millions) are no step of a fact about the
    topic, and reading the class's edges would read them all (:meth:`KnowledgeGraph.class_fan_outs`).

    ``start``: the chain's topic entity; no walk ends there. A walk that ends back at the thing the question names
    (Nirvana -> ``^producer`` -> an album -> ``artist`` -> Nirvana) answers nothing the question asks (the verifier
    refuses a chain that ends at its own start as well), yet its relations' words may echo the question's better than
    the path that answers it ("who produced [X]'s albums": ``^producer, artist`` read as "produced ... albums"
    outscored ``^artist, producer``). A walk may pass through the start and go on ("the cause of death of [X]'s
    spouse's wife": ``spouse, spouse, cause_of_death``)."""
    fan_outs = kg.class_fan_outs()
    into_class = {relation[1:] for relation in fan_outs}
    if reached_over in into_class:
        return []
    paths: list[tuple[str, ...]] = []
    # each branch: the relations walked, the nodes reached, each with the nodes it was reached from, and the relation
    # whose unread targets it also stands for
    layer: list[tuple[tuple[str, ...], list[tuple[str, set[str | None]]], str | None]] = [
        ((), [(node, {came_from}) for node in dict.fromkeys(nodes)], reached_over if wide else None)]
    for _step in range(steps):
        next_layer = []
        for walked, reached, unread in layer:
            last = walked[-1] if walked else reached_over
            options: dict[str, dict[str, set[str | None]]] = {}
            wide_here: set[str] = set()
            for node, before in reached[:sample]:
                edges = kg.bounded_edges(node, LOOKAHEAD_TARGETS)
                relations, _ = filter_relations([*edges.targets, *edges.wide], ignored_relations)
                for relation in relations:
                    if relation in fan_outs:
                        continue
                    if relation in edges.wide:
                        options.setdefault(relation, {})
                        wide_here.add(relation)
                        continue
                    # straight back is denied only where the node was reached from that one node alone
                    back = last is not None and relation == inverse(last) and len(before) == 1
                    denied = next(iter(before)) if back else None
                    fresh = [n for n in edges.targets[relation][:sample] if n != denied]
                    for target in fresh:
                        options.setdefault(relation, {}).setdefault(target, set()).add(node)
            if unread is not None:
                for relation in filter_relations(kg.relations_following(unread), ignored_relations)[0]:
                    if relation not in fan_outs:
                        options.setdefault(relation, {})
                        wide_here.add(relation)
            for relation in sorted(options):
                if relation in wide_here or start is None or any(t != start for t in options[relation]):
                    paths.append((*walked, relation))
                if relation not in into_class:
                    next_layer.append(((*walked, relation), sorted(options[relation].items()),
                                       relation if relation in wide_here else None))
        layer = next_layer
        if len(paths) >= max_paths:
            break
    return paths[:max_paths]


class Branch(NamedTuple):
    """A relation path scored with its look ahead (:meth:`SimilarityRelationPruner.best_scores`): the ``path``, the
    ``nodes`` its last relation reached (at most ``sample``) from the node ``came_from``, and whether that relation
    has more targets there than the look ahead reads (``wide``: :func:`relation_walks`)."""

    path: tuple[str, ...]
    nodes: Sequence[str]
    came_from: str | None
    wide: bool = False
    start: str | None = None  # the chain's topic entity, which the look ahead does not walk back to


def guided_query(question: str, guidance: str = "", entities: Sequence[Entity] = (), *, approximate: bool = True) -> str:
    """The text the offline deciders compare with: the question (entity mentions abstracted) plus guidance;
    ``approximate=False`` for entities the question is not known to name (:func:`mask_mentions`)."""
    text = mask_mentions(question, entities, approximate=approximate)
    return f"{text} {guidance}".strip() if guidance else text


class SimilarityRelationPruner:
    """Offline: relations ranked by how well ``prefix + relation`` aligns with the question, hop by hop.

    ToG's SentenceBERT pruning ablation, made path-aware: at depth 2 the candidate ``starred_actors`` after
    ``^directed_by`` is scored as the path ``^directed_by, starred_actors`` by :class:`RelationPathScorer` (each
    hop evidenced by a phrase of the question, the question's words explained, direction and order). The top
    ``width`` are kept with softmax weights (``temperature``) that sum to 1. Given ``kg``, the graph the
    relations walk, the scorer also weighs what each candidate's objects are against the answer type asked.

    With ``lookahead`` > 0 (the offline ToG / ToG-I beam, see :func:`default_deciders`) a relation is scored as
    the best of ``prefix + relation`` and its completions by up to ``lookahead`` relations walkable past it in
    ``kg`` (at most ``max_hops`` relations in all: the beam's depth D), so an intermediate hop the question
    needs ("the company that owns [X]" -> ``subsidiary_of`` before ``founded_by``) is not outscored by a
    one-hop path that ends early. The scores are then whole-path weights ``exp(score / temperature)``, not
    normalised per entity (:attr:`ScoredOutcome.whole_path`): the beam compares chains by them directly
    instead of multiplying per-step weights, where an entity with a single relation kept its chain's whole
    weight.
    """

    name = "similarity"

    def __init__(self, *, kg: KnowledgeGraph | None = None, embeddings: Embeddings | None = None,
                 scorer: RelationPathScorer | None = None, temperature: float = 0.25, lookahead: int = 0,
                 max_hops: int | None = None, sample: int = 30, max_completions: int = 300,
                 ignored_relations: Sequence[str] = DEFAULT_IGNORED_RELATIONS) -> None:
        if lookahead and kg is None:
            raise ValueError("lookahead needs the kg the relations walk")
        self.kg = kg
        self.scorer = scorer or RelationPathScorer(embeddings=embeddings)
        self.temperature = temperature
        self.lookahead = lookahead
        self.max_hops = max_hops
        self.sample = sample
        self.max_completions = max_completions
        self.ignored_relations = tuple(ignored_relations)

    @property
    def scores_whole_paths(self) -> bool:
        """Whether :meth:`score_relations` scores whole chains (``lookahead`` > 0); then a single relation is scored too."""
        return self.lookahead > 0

    def similarities(self, query: str, prefix: Sequence[str], relations: Sequence[str]) -> list[float]:
        """The scorer's score of each ``prefix + relation`` for ``query``; ``"\x1f"`` joins a multi-step relation."""
        return self.scorer.score(query, [(*prefix, *r.split("\x1f")) for r in relations], kg=self.kg)

    def best_similarity(self, query: str, prefix: Sequence[str], relations: Sequence[str]) -> tuple[int, float] | None:
        """The index and :meth:`similarities` score of the best relation (the first of equals; ``None`` for none),
        embedding only the paths that can still be best (:meth:`RelationPathScorer.best`)."""
        return self.scorer.best(query, [(*prefix, *r.split("\x1f")) for r in relations], kg=self.kg)

    def best_scores(self, query: str, branches: Sequence[Branch], *, ranked: int | None = None) -> list[float]:
        """For each :class:`Branch`: the best score of its path or of the path completed by up to ``lookahead``
        relations walkable from the nodes it reached (at most ``max_hops``); with ``ranked=k``, exact for the ``k``
        best branches only (:meth:`RelationPathScorer.best_of`)."""
        candidates = []
        for path, nodes, came_from, wide, start in branches:
            steps = self.lookahead if self.max_hops is None else min(self.lookahead, self.max_hops - len(path))
            walks = relation_walks(self.kg, nodes, steps, sample=self.sample, ignored_relations=self.ignored_relations,
                                   max_paths=self.max_completions, reached_over=path[-1] if path else None,
                                   came_from=came_from, wide=wide, start=start) if steps > 0 else []
            candidates.append([path, *((*path, *walk) for walk in walks)])
        # branches share completions: each scored once
        return self.scorer.best_of(query, candidates, kg=self.kg, ranked=ranked)

    def path_scores(self, query: str, entity: Entity, prefix: Sequence[str], relations: Sequence[str], *,
                    ranked: int | None = None) -> list[float]:
        """Each relation's best score as ``prefix + relation`` or completed by up to ``lookahead`` relations; with
        ``ranked=k``, exact for the ``k`` best relations only (the others score lower)."""
        edges = self.kg.bounded_edges(entity.id, LOOKAHEAD_TARGETS)
        return self.best_scores(query, ranked=ranked, branches=[
            Branch((*prefix, relation), edges.targets.get(relation, ())[: self.sample], entity.id,
                   wide=relation in edges.wide, start=None if prefix else entity.id)
            for relation in relations
        ])

    def score_relations(self, question, entity, relations, *, width, prefix=(), guidance="") -> ScoredOutcome:
        if not relations:
            return ScoredOutcome([], source=self.name)
        if self.scores_whole_paths:  # the question alone: offline guidance is this scorer's own greedy path
            # the chain's entity may be a node the walk reached: masked only where the question writes its label
            # (the chain's topic is masked already, approximately too: :func:`beam_question`)
            scores = self.path_scores(guided_query(question, "", [entity], approximate=False), entity, prefix, relations,
                                      ranked=width)
            ranked = sorted(zip(relations, scores), key=lambda pair: -pair[1])[:width]
            weights = [(r, float(np.exp(s / self.temperature))) for r, s in ranked]
            return ScoredOutcome(weights, source=self.name, whole_path=True)
        scores = self.similarities(guided_query(question, guidance, [entity], approximate=False), prefix, relations)
        return ScoredOutcome(top_normalised(zip(relations, softmax_weights(scores, self.temperature)), width), source=self.name)


RELATION_PROMPT = """Please retrieve {width} relations (separated by semicolon) that contribute to the question and rate their contribution on a scale from 0 to 1 (the sum of the scores of {width} relations is 1). A relation starting with ^ is followed backwards (from object to subject).
Q: Name the president of the country whose main spoken language was Brahui in 1980?
Topic Entity: Brahui Language
Relations: language.human_language.main_country; language.human_language.language_family; language.human_language.iso_639_3_code; base.rosetta.languoid.parent; language.human_language.writing_system; language.human_language.countries_spoken_in; language.human_language.region
A: 1. {{language.human_language.main_country (Score: 0.4)}}: This relation is highly relevant as it directly relates to the country whose president is being asked for, and the main country where Brahui language is spoken in 1980.
2. {{language.human_language.countries_spoken_in (Score: 0.3)}}: This relation is also relevant as it provides information on the countries where Brahui language is spoken, which could help narrow down the search for the president.
3. {{base.rosetta.languoid.parent (Score: 0.2)}}: This relation is less relevant but still provides some context on the language family to which Brahui belongs.

Q: {question}
{guidance}Topic Entity: {entity}
Relations: {relations}
{meanings}A: """  # noqa: E501 (prompt text kept verbatim; {meanings}: the KG's descriptions of the relations, when it has any)

GUIDANCE_LINE = "Guiding instructions: {guidance}\n"


class LLMRelationPruner(LLMDecider):
    """ToG's relation-pruning prompt for any chat model, with a lenient parse and an offline fallback.

    Unknown relation names are ignored (and reported); missing scores share what the scored relations left;
    scores not summing to 1 are rescaled; more than ``width`` relations are cut to the best ``width``.

    With ``keep_offline_top`` (the grounding policies ``"prefer"`` and ``"strict"`` ask for it) the ``fallback``
    pruner's top relation is kept beside the model's, tied with the model's best and ranked before it, so a
    small model that picks the wrong relations ("directed_by" for "what kind of film is [X]") still leaves the
    beam a chain the question asks for -- the chain the answer step's grounding check then prefers.

    Given the ``kg``, the prompt also says what the KG says the relations mean (their properties' descriptions,
    :func:`~kg_agent.tools.shared.decider.relation_meanings`), when it describes any.
    """

    def __init__(self, model: BaseChatModel, *, fallback: RelationPruner | None = None, prompt: str = RELATION_PROMPT,
                 structured_output: StructuredMode = "auto", keep_offline_top: bool = False,
                 kg: KnowledgeGraph | None = None) -> None:
        super().__init__(model, "prune_relations", fallback=fallback if fallback is not None else SimilarityRelationPruner(),
                         structured_output=structured_output, schema=ScoredNames,
                         reply_format="1. {relation_a (Score: 0.6)}: why\n2. {relation_b (Score: 0.4)}: why")
        self.keep_offline_top = keep_offline_top
        self.prompt = prompt
        self.kg = kg

    def score_relations(self, question, entity, relations, *, width, prefix=(), guidance=""):
        """The decision as steps (its model calls asked by :mod:`kg_agent.steps`)."""
        if not relations:
            return ScoredOutcome([], source=self.name)
        prompt = self.prompt.format(
            width=width, question=question, entity=entity.label, relations="; ".join(relations),
            guidance=GUIDANCE_LINE.format(guidance=guidance) if guidance else "",
            meanings=relation_meanings(self.kg, relations),
        )

        def parse(reply: str):
            parsed = parse_scored_items(reply, list(relations))
            notes = []
            if parsed.unknown:
                notes.append(f"prune_relations: ignored relation(s) {entity.label} does not have: " + ", ".join(parsed.unknown))
            if not parsed.items:
                return None, notes
            if parsed.renormalized or parsed.scores_missing:
                notes.append(f"prune_relations: the scores for {entity.label} were incomplete or did not sum to 1; rescaled")
            return top_normalised(parsed.items, width), notes

        def offline_ranking() -> list[str]:
            ranked = decided(self.fallback.score_relations, question, entity, relations, width=len(relations), prefix=prefix,
                                                   guidance=guidance)
            return [relation for relation, _ in ranked.items]

        asked = yield self.decision.request(prompt, parse, candidates=Candidates(list(relations), rank=offline_ranking,
                                                                                 most=width))
        if asked.decided and not self.keep_offline_top:
            return ScoredOutcome(asked.value, warnings=asked.warnings, usage=asked.usage, source=self.name)
        outcome = decided(self.fallback.score_relations, question, entity, relations, width=width, prefix=prefix, guidance=guidance)
        if asked.decided:
            top = outcome.items[0][0] if outcome.items else None
            if top is None or top in dict(asked.value):
                return ScoredOutcome(asked.value, warnings=asked.warnings, usage=asked.usage, source=self.name)
            kept = top_normalised([(top, asked.value[0][1]), *asked.value], width)
            note = f"prune_relations: kept the {self.fallback.name} pruner's top relation {top} for {entity.label} beside the model's"
            return ScoredOutcome(kept, warnings=[*asked.warnings, note], usage=asked.usage, source=self.name)
        return fall_back(asked, outcome, node="prune_relations", to=f"the {self.fallback.name} pruner for {entity.label}")


# ---------------------------------------------------------------------------------------------- node
def scores_whole_paths(decider) -> bool:
    """Whether an offline decider scores whole chains (:attr:`SimilarityRelationPruner.scores_whole_paths`)."""
    return bool(getattr(decider, "scores_whole_paths", False))


def beam_question(state: dict, chain: dict, decider) -> str:
    """The question a decider is asked about ``chain``: for one that scores whole chains, with the chain's topic
    entity and every other thing the question names masked (its scores are compared across chains, so every chain's
    query must be the same; and a name is no relation word: with "the Roman Empire" left in "what role did [X] hold
    in the Roman Empire", ``memberOf`` outscored ``hasMembership -> role``, as RoG's plans, which mask the other
    mentions too, do not). A topic entity is masked where the question names it (its linked ``mention``) when the
    question does not write its label (an airport labelled "MUC", named "Munich International Airport"): the words
    around the mask tell the scorer which way to walk ("from [X]"). Only a mention that names the entity whole is
    masked so: one linked in part may hold the asked relation's words."""
    if scores_whole_paths(decider):
        # a mention linked in part ("value of the speed of light in vacuum" for "Value for speed of light in a
        # vacuum") may hold the relation's words: it is masked where the label's words are, as before
        named = [e if e.get("how") == "exact" else {k: v for k, v in e.items() if k != "mention"}
                 for e in state.get("topic_entities") or () if e.get("label")]
        text = mask_topic_mentions(state["question"], named)
        if not any(e.get("id") == chain["start"].get("id") for e in named):
            text = mask_mentions(text, [Entity.from_dict(chain["start"])])
        return text
    return state["question"]


@dataclass
class RelationScoring:
    """What relation pruning asks for one beam (:func:`plan_relation_scoring`): the ``frontier`` it explores (at
    most ``W`` chains), the ``(frontier index, entity)`` of each chain it scores, its warnings (an ``int``: where
    that request's warnings go, see :func:`placed_warnings`) and one request per scored chain (a decision, or
    the score 1 of an entity's single relation)."""

    frontier: list[dict]
    chosen: list[tuple[int, Entity]]
    warnings: list[str | int]
    requests: list
    decisions: int = 0  # requests that ask the relation pruner (the others score a single relation)


def plan_relation_scoring(state: dict, *, kg: KnowledgeGraph, pruner: RelationPruner, width: int,
                          ignored_relations: Sequence[str]) -> RelationScoring:
    """The relation-scoring requests of the beam in ``state``."""
    frontier = list(state.get("frontier") or [])
    warnings: list[str | int] = []
    # the first depth scores the relations of every topic entity (ToG's and ToG-I's E^0), and the beam keeps the
    # global top-W pairs (:func:`kept_pairs`): cut by order before scoring, a narrow beam (ToG-I's W=1) explored the
    # best-linked of two readings of one name ("Beatles": the band or its album) whatever their relations say
    if len(frontier) > width and any(chain.get("steps") for chain in frontier):
        mentions = mention_of(state.get("topic_entities") or [])
        shared = ", each thing the question names first" if mentions else ""
        warnings.append(f"prune_relations: {len(frontier)} chains in the frontier; exploring the first {width} (W={width}{shared})")
        frontier = shared_among_mentions(frontier, width, lambda chain: mentions.get(chain["start"]["id"]))
    scoring = RelationScoring(frontier, [], warnings, [])
    for index, chain in enumerate(frontier):
        entity = Walk.from_dict(chain).end
        edges = kg.bounded_edges(entity.id, LOOKAHEAD_TARGETS)  # a hub's wide relations lead on (more targets than the chain)
        relations, dropped = filter_relations(sorted([*edges.targets, *edges.wide]), ignored_relations)
        walk = Walk.from_dict(chain)
        relations = [r for r in relations if r in edges.wide or set(edges.targets[r]) - {walk.denied(r)}]  # not only back
        if not relations:
            note = f" ({len(dropped)} bookkeeping relation(s) ignored)" if dropped else ""
            warnings.append(f"prune_relations: no relation leads on from {entity.label}, so this path ends there{note}")
            continue
        warnings.append(len(scoring.requests))
        scoring.chosen.append((index, entity))
        if len(relations) == 1 and not scores_whole_paths(pruner):
            scoring.requests.append(functools.partial(ScoredOutcome, [(relations[0], 1.0)], source="single"))
        else:
            scoring.decisions += 1
            scoring.requests.append(decide(pruner.score_relations, beam_question(state, chain, pruner), entity, relations, width=width,
                                           prefix=Walk.from_dict(chain).relations, guidance=state.get("guidance") or ""))
    return scoring


def scored_relations(scoring: RelationScoring, outcomes: Sequence[ScoredOutcome]) -> dict:
    """The beam's scored relations as plain JSON: ``{"frontier", "pairs", "warnings", "usage"}`` (every
    (chain, relation) pair scored, unsorted; the warnings in order; the calls' usage)."""
    usage: dict = {}
    pairs: list[dict] = []
    best_whole = max((score for scored in outcomes if scored.whole_path for _, score in scored.items), default=1.0)
    for (index, entity), scored in zip(scoring.chosen, outcomes):
        usage = merge_usage(usage, scored.usage)
        for rel, score in scored.items:
            if scored.whole_path:  # the chain's own weight, relative to the beam's best
                score = score / best_whole if best_whole > 0 else 0.0
                pairs.append({"chain": index, "entity": entity.to_dict(), "relation": rel, "relation_score": round(score, 8),
                              "score": round(score, 8), "whole_path": True})
            else:
                pairs.append({"chain": index, "entity": entity.to_dict(), "relation": rel, "relation_score": score,
                              "score": round(score * float(scoring.frontier[index].get("score", 1.0)), 8)})
    return {"frontier": scoring.frontier, "pairs": pairs, "warnings": placed_warnings(scoring.warnings, outcomes),
            "usage": usage}


def kept_pairs(scored: dict, width: int, topic_entities: Sequence[dict] = ()) -> list[dict]:
    """The global top-``width`` (chain, relation) pairs of :func:`scored_relations`, best first; when the question
    names several things (``topic_entities``' mentions), the best pair of each first
    (:func:`~kg_agent.tools.shared.constraints.shared_among_mentions`)."""
    mentions = mention_of(topic_entities)
    return shared_among_mentions(sorted(scored["pairs"], key=lambda p: -p["score"]), width,
                                 lambda pair: mentions.get(scored["frontier"][pair["chain"]]["start"]["id"]))


def prune_relations_steps(
    state: dict,
    *,
    kg: KnowledgeGraph,
    pruner: RelationPruner,
    width: int | None = None,
    ignored_relations: Sequence[str] = DEFAULT_IGNORED_RELATIONS,
    scored: dict | None = None,
):
    """Graph node (as steps): score ``W`` relations per frontier chain; keep the global top-``W`` (chain, relation) pairs.

    Relations that lead only straight back where the chain's last step began (:meth:`Walk.denied`) are not
    offered. Writes
    ``candidate_relations``: ``[{"chain": frontier index, "entity", "relation", "relation_score", "score"}]``
    (``score`` = relation score x the chain's score, the ranking used for the global top-``W``); sets
    ``stop_reason="no_relations"`` when no frontier entity has a usable relation. One LLM call per frontier
    chain (none when the entity has a single relation: it scores 1); the chains' calls are independent and
    run concurrently, under the question's budget (:mod:`kg_agent.llm.budget`).

    ``scored``: this beam's :func:`scored_relations`, already asked (``speculate``: while the previous depth was
    verified); then no call is made here.
    """
    width = int(width or state.get("width") or DEFAULT_WIDTH)
    if scored is None:
        scoring = plan_relation_scoring(state, kg=kg, pruner=pruner, width=width, ignored_relations=ignored_relations)
        scored = scored_relations(scoring, (yield scoring.requests))
    pairs = kept_pairs(scored, width, state.get("topic_entities") or [])
    emit("prune_relations", depth=int(state.get("depth") or 0) + 1,
         kept=[{"entity": p["entity"]["label"], "relation": p["relation"], "score": p["score"]} for p in pairs])
    return pruned_update(pairs, "no_relations", scored, candidate_relations=pairs, frontier=scored["frontier"])


prune_relations_node = synchronous(prune_relations_steps)
