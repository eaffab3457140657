"""RoG's *plan* step: top-K relation paths (``<PATH> r1 <SEP> r2 </PATH>``) that may answer a question.

Three planners share one interface (:class:`Planner`), so the graph does not know which one runs:

* :class:`LLMPlanner` — RoG's planning prompt for any LangChain chat model, given the relations that
  are actually walkable from the topic entities; its output is parsed leniently, grounded in the KG
  (unknown relations mapped to the nearest existing one or dropped, and said so), retried once, and
  falls back to an offline planner with the reason recorded.
* :class:`ExemplarPlanner` — RoG's planning optimisation without fine-tuning: relation paths distilled
  from training question/answer pairs, retrieved by nearest training questions (Chroma). Its index also gives
  the LLM planner's prompt its examples (:meth:`ExemplarPlanner.examples`).
* :class:`SimilarityPlanner` — zero-shot: the walkable relation paths ranked by embedding similarity.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

import numpy as np
from langchain_core.embeddings import Embeddings

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.linking import link_entities
from kg_agent.kg.paths import shortest_relation_paths
from kg_agent.kg.relation_paths import verbalize_relation, walkable_relation_paths
from kg_agent.kg.types import Entity, base_relation, inverse, is_inverse, relation_path_text
from kg_agent.llm.parsing import parse_relation_paths
from kg_agent.llm.usage import merge_usage
from kg_agent.settings import StructuredMode
from kg_agent.steps import Decided, decide, decided, synchronous
from kg_agent.tools.rog.exemplar import Exemplar
from kg_agent.tools.rog.taught_store import kept_exemplars
from kg_agent.tools.shared.constraints import mention_of
from kg_agent.tools.shared.decider import MAX_ENUM_VALUES, Candidates, Decider, LLMDecider, Outcome, fall_back
from kg_agent.tools.shared.decision_schemas import RelationPaths, path_choice
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.scoring import mask_every_name, mask_mentions
from kg_agent.tools.shared.similarity import TextVectors, default_embeddings, shared_text_vectors

if TYPE_CHECKING:  # a chat model is imported with the model, not with an offline method (start-up)
    from langchain_core.language_models import BaseChatModel

DEFAULT_K = 3  # RoG's top-K plans


@dataclass(frozen=True)
class Plan:
    """A relation path to follow from the topic entities, with a score and the planner that proposed it."""

    relations: tuple[str, ...]
    score: float = 1.0
    source: str = ""

    def text(self) -> str:
        return relation_path_text(self.relations)

    def to_dict(self) -> dict:
        return {"relations": list(self.relations), "text": self.text(), "score": round(self.score, 6), "source": self.source}

    @classmethod
    def from_dict(cls, data: dict) -> Plan:
        return cls(tuple(data["relations"]), float(data.get("score", 1.0)), data.get("source", ""))


@dataclass
class PlanOutcome(Outcome):
    """What a planner returns: plans best first, warnings (dropped relations, fallbacks) and LLM usage."""

    plans: list[Plan]


@runtime_checkable
class Planner(Decider, Protocol):
    def plan(self, question: str, topic_entities: Sequence[Entity], *, k: int = DEFAULT_K) -> Decided[PlanOutcome]: ...


# ---------------------------------------------------------------------------------------------- similarity
class SimilarityPlanner:
    """Zero-shot offline planner: the walkable relation paths ranked by :class:`RelationPathScorer`.

    The scorer aligns each hop with a phrase of the question (entity mentions masked): a path is as good as
    its least evidenced hop, gains for explaining the question's words and for a direction and order that
    agree with its wording, and loses per extra hop. Top-plan-is-gold and Hits@1 on MetaQA dev, the WebQSP
    subgraphs and the generated KGs: docs/benchmarks.md.
    """

    name = "similarity"

    def __init__(
        self,
        kg: KnowledgeGraph,
        *,
        embeddings: Embeddings | None = None,
        max_hops: int = 3,
        scorer: RelationPathScorer | None = None,
    ) -> None:
        self.kg = kg
        self.max_hops = max_hops
        # the scorer reads the process-wide vector cache of its embeddings: relation names repeat across KGs
        # (WebQSP brings a subgraph per question), so later questions embed only what is new
        self.scorer = scorer or RelationPathScorer(embeddings=embeddings)

    def plan(self, question: str, topic_entities: Sequence[Entity], *, k: int = DEFAULT_K) -> PlanOutcome:
        candidates = walkable_relation_paths(self.kg, [e.id for e in topic_entities], max_hops=self.max_hops)
        if not candidates:
            return PlanOutcome([], warnings=["no relation can be walked from the topic entities"])
        ranked = self.scorer.top(mask_every_name(question, topic_entities, self.kg), candidates, k, kg=self.kg)
        return PlanOutcome([Plan(c, s, self.name) for s, c in ranked])


# ---------------------------------------------------------------------------------------------- exemplars
DEFAULT_EXAMPLES = 3  # training questions shown in the LLM planner's prompt


@dataclass(frozen=True)
class PlanningExample:
    """A training question and the relation paths that answer it, as the LLM planner's prompt shows them."""

    question: str
    paths: tuple[tuple[str, ...], ...]

    def text(self) -> str:
        return "\n".join([f"Question: {self.question}", *(relation_path_text(p) for p in self.paths)])


def _resolve(kg: KnowledgeGraph, names: Iterable[str]) -> list[str]:
    ids: list[str] = []
    for name in names:
        if kg.has_entity(name):
            ids.append(name)
        else:
            found = kg.find_entities(name)
            if found:
                ids.append(found[0].id)
    return list(dict.fromkeys(ids))


def answer_f1_relation_paths(
    kg: KnowledgeGraph,
    starts: Sequence[str],
    answers: Sequence[str],
    *,
    max_hops: int = 3,
    max_set: int = 5000,
    keep: int = 5,
) -> list[tuple[tuple[str, ...], float]]:
    """Walkable relation paths scored by the F1 of the entities they reach against the answers.

    The teacher signal of the exemplar planner's default distillation: it keeps the multi-hop path a
    question was asked about even when a shorter path happens to reach the same answer (RoG's Q(z)
    keeps only shortest paths). Entity sets are propagated per relation prefix; a set grown past
    ``max_set`` entities (a genre hub) is not expanded further.
    """
    gold = set(answers)
    start_set = set(starts)
    if not gold or not start_set:
        return []
    scored: list[tuple[tuple[str, ...], float]] = []
    layer: list[tuple[tuple[str, ...], set[str]]] = [((), start_set)]
    for _hop in range(max_hops):
        next_layer = []
        for relations, nodes in layer:
            if len(nodes) > max_set:
                continue
            reached: dict[str, set[str]] = {}
            for node in nodes:
                for rel, targets in kg.edges(node).items():
                    reached.setdefault(rel, set()).update(targets)
            for rel in sorted(reached):
                ends = reached[rel] - start_set
                if not ends:
                    continue
                sequence = relations + (rel,)
                hits = len(ends & gold)
                if hits:
                    precision, recall = hits / len(ends), hits / len(gold)
                    scored.append((sequence, 2 * precision * recall / (precision + recall)))
                next_layer.append((sequence, ends))
        layer = next_layer
    scored.sort(key=lambda pair: (-pair[1], len(pair[0]), pair[0]))
    if not scored:
        return []
    best = scored[0][1]
    return [pair for pair in scored[:keep] if pair[1] >= 0.5 * best]


class ExemplarPlanner:
    """Offline planner distilled from training questions (RoG's planning optimisation, no fine-tuning).

    ``fit`` computes, for each training question, the relation paths from its topic entities to its
    answers — ``teacher="answer_f1"`` (default: walkable paths weighted by answer-set F1) or
    ``teacher="shortest"`` (RoG's Q(z): relation paths of all shortest paths) — and indexes the
    questions' embeddings (entity mentions abstracted to ``[ENT]``) in a Chroma collection. ``plan``
    finds the ``neighbours`` nearest training questions and returns the relation paths they vote for,
    each vote weighted by ``exp(sharpness x cosine similarity)`` x the teacher's weight; paths whose
    first relation cannot be walked from the topic entities are skipped; with ``walkable_only`` only the training
    questions whose best path starts with a relation at the topic entities are asked (for questions taught by the KG,
    about every kind of entity, where the nearest wording alone is often about another kind).

    Example::

        planner = ExemplarPlanner(kg).fit([Exemplar("what films did [Tom Hanks] act in", ["Big", "Splash"])])
        planner.plan("what movies did [Meg Ryan] act in", kg.find_entities("Meg Ryan")).plans[0].relations
        # ('^starred_actors',)
    """

    name = "exemplar"

    def __init__(
        self,
        kg: KnowledgeGraph,
        *,
        embeddings: Embeddings | None = None,
        neighbours: int = 16,
        sharpness: float = 20.0,
        max_hops: int = 3,
        teacher: str = "answer_f1",
        client=None,
        collection: str | None = None,
        walkable_only: bool = False,
    ) -> None:
        if teacher not in {"answer_f1", "shortest"}:
            raise ValueError(f"teacher must be 'answer_f1' or 'shortest', not {teacher!r}")
        self.kg = kg
        self.embeddings = embeddings or default_embeddings()
        self.neighbours = neighbours
        self.sharpness = sharpness
        self.max_hops = max_hops
        self.teacher = teacher
        self.walkable_only = walkable_only
        if client is None:
            import chromadb

            from kg_agent.docs.index import chroma_settings

            client = chromadb.EphemeralClient(settings=chroma_settings())
            if collection is None:  # the in-process client is shared: keep each planner's exemplars apart
                import uuid

                collection = f"kg_agent_exemplars_{uuid.uuid4().hex}"
        collection = collection or "kg_agent_exemplars"
        self._collection = client.get_or_create_collection(collection, metadata={"hnsw:space": "cosine"}, embedding_function=None)
        self.skipped: list[str] = []

    def relation_paths_for(self, exemplar: Exemplar) -> list[tuple[tuple[str, ...], float]]:
        """The teacher's weighted relation paths for one training question ([] when none reaches an answer); the
        exemplar's own relation paths, each of weight 1, when it has them."""
        if exemplar.relation_paths:
            return [(tuple(p), 1.0) for p in exemplar.relation_paths]
        if exemplar.topic_entities:
            starts = _resolve(self.kg, exemplar.topic_entities)
        else:
            starts = [e.id for e in link_entities(self.kg, exemplar.question).entities[:2]]
        answers = _resolve(self.kg, exemplar.answers)
        if not starts or not answers:
            return []
        if self.teacher == "shortest":
            paths = shortest_relation_paths(self.kg, starts, answers, max_hops=self.max_hops)
            return [(p, 1.0) for p in paths]
        return answer_f1_relation_paths(self.kg, starts, answers, max_hops=self.max_hops)

    def fit(self, exemplars: Iterable[Exemplar | tuple], *, batch_size: int = 256) -> ExemplarPlanner:
        """Distil relation paths from training questions and index them; returns ``self``."""
        batch: list[tuple[str, str, dict]] = []
        for exemplar in exemplars:
            if not isinstance(exemplar, Exemplar):
                exemplar = Exemplar(*exemplar)
            weighted = self.relation_paths_for(exemplar)
            if not weighted:
                self.skipped.append(exemplar.question)
                continue
            text = mask_mentions(exemplar.question)
            best = max(weighted, key=lambda pair: pair[1])[0]
            record = {"paths": json.dumps([[list(p), round(w, 4)] for p, w in weighted]), "question": exemplar.question,
                      "first": best[0]}
            batch.append((f"ex-{self._collection.count() + len(batch)}", text, record))
            if len(batch) >= batch_size:
                self._add(batch)
                batch = []
        if batch:
            self._add(batch)
        return self

    def _add(self, batch: list[tuple[str, str, dict]]) -> None:
        # the vectors of the process's text vectors, read from and kept in the KG's and the user's vector files
        # (taught questions repeat across processes)
        vectors = shared_text_vectors(self.embeddings).matrix([text for _, text, _ in batch])
        self._collection.add(
            ids=[i for i, _, _ in batch],
            documents=[text for _, text, _ in batch],
            embeddings=[list(map(float, v)) for v in vectors],
            metadatas=[m for _, _, m in batch],
        )

    def __len__(self) -> int:
        return self._collection.count()

    def _question_vector(self, question: str, topic_entities: Sequence[Entity]) -> list[float]:
        return [float(x) for x in self.embeddings.embed_query(mask_mentions(question, topic_entities))]

    def examples(self, question: str, topic_entities: Sequence[Entity], *, n: int = DEFAULT_EXAMPLES,
                 paths_each: int = 2) -> list[PlanningExample]:
        """The ``n`` training questions nearest ``question`` (entity mentions masked on both sides), nearest first,
        each with its best relation paths (at most ``paths_each``, those of the teacher's best weight); a
        question worded like a nearer one (the same template about another entity) is left out, so ``n``
        examples show ``n`` different questions."""
        if n <= 0 or len(self) == 0:
            return []
        result = self._collection.query(query_embeddings=[self._question_vector(question, topic_entities)],
                                        n_results=min(n * 4, len(self)))
        found: list[PlanningExample] = []
        seen: set[str] = set()
        for template, meta in zip(result["documents"][0], result["metadatas"][0]):
            if template in seen:
                continue
            seen.add(template)
            weighted = json.loads(meta["paths"])
            best = max(weight for _, weight in weighted)
            paths = [tuple(relations) for relations, weight in weighted if weight >= best][:paths_each]
            found.append(PlanningExample(meta["question"], tuple(paths)))
            if len(found) == n:
                break
        return found

    def plan(self, question: str, topic_entities: Sequence[Entity], *, k: int = DEFAULT_K) -> PlanOutcome:
        if len(self) == 0:
            return PlanOutcome([], warnings=["the exemplar planner has no training questions (call fit first)"])
        vector = self._question_vector(question, topic_entities)
        starts = [e.id for e in topic_entities]
        warnings: list[str] = []
        walkable: dict[tuple[str, ...], float] = {}
        # Ask the nearest neighbours first; when none of their paths can be walked from these topic
        # entities (a template seen only with other entity types), widen the neighbourhood once.
        where = None
        if self.walkable_only:
            at = sorted({r for relations in self.kg.relations_at_each(starts).values() for r in relations})
            if not at:
                return PlanOutcome([], warnings=["no relation can be walked from the topic entities"])
            where = {"first": {"$in": at}}
        for n in (self.neighbours, self.neighbours * 8):
            result = self._collection.query(query_embeddings=[vector], n_results=min(n, len(self)), where=where)
            votes: dict[tuple[str, ...], float] = {}
            for distance, meta in zip(result["distances"][0], result["metadatas"][0]):
                similarity = max(0.0, 1.0 - float(distance))
                weight = math.exp(self.sharpness * similarity)  # the nearest templates dominate
                for relations, score in json.loads(meta["paths"]):
                    key = tuple(relations)
                    votes[key] = votes.get(key, 0.0) + weight * float(score)
            walkable = {rels: v for rels, v in votes.items() if _walkable(self.kg, starts, rels)}
            if walkable or n >= len(self):
                break
            warnings.append(f"exemplar planner: none of the {n} nearest training questions' relation paths can be walked "
                            "from the topic entities; asked more")
        total = sum(walkable.values()) or 1.0
        ranked = sorted(walkable.items(), key=lambda pair: (-pair[1], pair[0]))[:k]
        return PlanOutcome([Plan(rels, v / total, self.name) for rels, v in ranked], warnings=warnings)


class TaughtPlanner:
    """The similarity planner's plans, its leading plans of one length re-ordered by the votes of an exemplar planner
    fitted on questions the KG taught (:func:`~kg_agent.tools.rog.taught_exemplars.teach_exemplars`).

    The scorer says how many hops a question asks for (it aligns each hop with a phrase of the question); the taught
    questions do not (MiniLM puts a two-hop question near the one-hop templates of its first relation). So the votes
    only choose among the scorer's leading plans that have as many hops as its top plan (those before the first
    plan of another length): each such plan ranks by its rank among the scorer's plus its rank among them by the taught
    votes (equal votes share a rank; a plan they do not vote for ranks after those they do), the scorer's rank breaking
    ties, so a plan overtakes one before it only when the votes put it at least two places higher; the plans after them keep their
    places. The plans stay the similarity planner's (scores, source), so the answer checks read them as they read its
    own; only their order changes."""

    name = "taught"

    def __init__(self, kg: KnowledgeGraph, *, embeddings: Embeddings | None = None, max_hops: int = 3,
                 exemplars: Iterable[Exemplar] | None = None) -> None:
        self.similarity = SimilarityPlanner(kg, embeddings=embeddings, max_hops=max_hops)
        self.exemplars = ExemplarPlanner(kg, embeddings=embeddings, max_hops=max_hops, walkable_only=True).fit(
            kept_exemplars(kg) if exemplars is None else exemplars)

    def plan(self, question: str, topic_entities: Sequence[Entity], *, k: int = DEFAULT_K) -> PlanOutcome:
        scored = self.similarity.plan(question, topic_entities, k=k)
        plans = scored.plans
        hops = len(plans[0].relations) if plans else 0
        leading = next((i for i, p in enumerate(plans) if len(p.relations) != hops), len(plans))
        if leading < 2:
            return scored
        voted = {p.relations: p.score for p in self.exemplars.plan(question, topic_entities, k=4 * k).plans}
        # each leading plan's rank among the leading plans by its votes (equal votes share a rank; no vote is last)
        shares = sorted({voted.get(p.relations, 0.0) for p in plans[:leading]}, reverse=True)
        votes = [shares.index(voted.get(p.relations, 0.0)) for p in plans[:leading]]
        order = sorted(range(leading), key=lambda i: (i + votes[i], i))
        return PlanOutcome([*(plans[i] for i in order), *plans[leading:]], warnings=scored.warnings)


def _with_offline_top(model_paths: Sequence[tuple[str, ...]], offline: Sequence[Plan], offline_name: str,
                      model_name: str) -> tuple[list[Plan], str]:
    """The offline planner's top plan, then the model's relation paths (in its order, the offline top plan not
    repeated): best first, as every planner returns them, with a note saying so."""
    if not offline:
        ranked = list(model_paths)
        note = f"plan: the {offline_name} planner has no plan to keep alongside the model's"
    else:
        top = offline[0].relations
        ranked = [top, *(p for p in model_paths if p != top)]
        note = (f"plan: the {offline_name} planner's top plan {offline[0].text()} is also the model's; it ranks first"
                if top in model_paths else f"plan: kept the {offline_name} planner's top plan {offline[0].text()} alongside the model's")
    return [Plan(p, 1.0 - rank / (len(ranked) + 1), model_name if p in model_paths else offline_name)
            for rank, p in enumerate(ranked)], note


def _walkable(kg: KnowledgeGraph, starts: Sequence[str], relations: Sequence[str]) -> bool:
    """Whether the first step of the relation path exists at some start entity (cheap pre-check)."""
    return any(relations[0] in kg.edges(s) for s in starts) if relations else False


# ---------------------------------------------------------------------------------------------- LLM
PLANNING_PROMPT = (
    "Please generate a valid relation path that can be helpful for answering the following question: {question}\n"
    "Use only relations from this list (a relation starting with ^ is followed backwards, from object to subject):\n"
    "{relations}\n"
    "{examples}"
    "Write {k} different relation paths, one per line, each as <PATH> relation1 <SEP> relation2 </PATH>."
)
#: How the LLM planner's prompt shows the nearest training questions (``{examples}``; empty without training data).
EXAMPLES_TEMPLATE = "Relation paths of similar training questions:\n{examples}\n"

#: RoG's planning prompt with two worked examples (questions and relation paths of the paper's Table 14, each with
#: the relation list it was chosen from), for small models that do not follow :data:`PLANNING_PROMPT`'s format.
#: Use it as ``LLMPlanner(kg, model, prompt=FEW_SHOT_PLANNING_PROMPT)``; docs/real_llm.md has its parse rates.
FEW_SHOT_PLANNING_PROMPT = (
    "Please generate a valid relation path that can be helpful for answering the question. Use only relations "
    "from the question's list (a relation starting with ^ is followed backwards, from object to subject). "
    "Write {k} different relation paths, one per line, each as <PATH> relation1 <SEP> relation2 </PATH>.\n\n"
    "Question: what does jamaican people speak?\n"
    "Relations:\nlocation.country.languages_spoken\nlocation.country.official_language\npeople.person.nationality\n"
    "Relation paths:\n<PATH> location.country.languages_spoken </PATH>\n<PATH> location.country.official_language </PATH>\n\n"
    "Question: what highschool did harper lee go to?\n"
    "Relations:\npeople.person.education\npeople.person.place_of_birth\n^education.education.student\n"
    "education.education.institution\n"
    "Relation paths:\n<PATH> people.person.education <SEP> education.education.institution </PATH>\n"
    "<PATH> ^education.education.student <SEP> education.education.institution </PATH>\n\n"
    "{examples}"
    "Question: {question}\nRelations:\n{relations}\nRelation paths:\n"
)


class LLMPlanner(LLMDecider):
    """RoG's planning prompt for any chat model, grounded in the KG's walkable relations.

    The prompt lists the relations walkable within ``max_hops`` of the topic entities. Returned paths
    are parsed leniently; a relation the KG does not have is mapped to the most similar existing one
    (embedding cosine >= ``map_threshold``) or the path is dropped, and a warning says which. When
    nothing usable comes back the call is retried once, then the ``fallback`` planner runs and the
    reason is recorded. A server that constrains decoding (structured output) is sent every relation path walkable
    from the topic entities as the ``enum`` of the reply's paths (the trie of walkable paths, GCR, ICML 2025): the
    model can only name a path the KG has; the prompt still lists the relations, which are far fewer.

    With ``examples`` (an :class:`ExemplarPlanner` fitted on training questions) the prompt also shows the
    ``max_examples`` training questions nearest this one, each with its relation paths (the teacher's best, at
    most two), where the prompt has ``{examples}`` (retrieved examples: GRASP, ISWC 2025). ``max_examples`` is
    small (3) to keep the prompt short: each example costs about as many tokens as a few listed relations.
    Without training questions the prompt is the paper's, unchanged.

    With ``keep_offline_plan`` the ``fallback`` planner's top plan is kept alongside the model's plans (the
    grounding policies ``"prefer"`` and ``"strict"`` ask for it) and ranks first: its paths lead the answer
    prompt and the offline path votes, so when the model's answer is not grounded the votes that replace it
    are the offline planner's, not those of a wrong model plan.
    """

    def __init__(
        self,
        kg: KnowledgeGraph,
        model: BaseChatModel,
        *,
        fallback: Planner | None = None,
        embeddings: Embeddings | None = None,
        max_hops: int = 3,
        map_threshold: float = 0.75,
        max_listed_relations: int = 200,
        prompt: str = PLANNING_PROMPT,
        structured_output: StructuredMode = "auto",
        keep_offline_plan: bool = False,
        examples: ExemplarPlanner | None = None,
        max_examples: int = DEFAULT_EXAMPLES,
    ) -> None:
        if examples is not None and "{examples}" not in prompt:
            raise ValueError("the planning prompt has no {examples} field to show the training questions in")
        super().__init__(model, "plan", fallback=fallback, structured_output=structured_output, what="relation path",
                         reply_format="<PATH> relation1 <SEP> relation2 </PATH>\n<PATH> relation3 </PATH>",
                         schema=RelationPaths)
        self.kg = kg
        self.examples = examples
        self.max_examples = max_examples
        self.keep_offline_plan = keep_offline_plan
        self.max_hops = max_hops
        self.map_threshold = map_threshold
        self.max_listed_relations = max_listed_relations
        self.prompt = prompt
        self._embeddings = embeddings
        self._vectors: TextVectors | None = None

    def _text_vectors(self) -> TextVectors:
        if self._vectors is None:
            self._vectors = TextVectors(self._embeddings or default_embeddings())
        return self._vectors

    def plan(self, question: str, topic_entities: Sequence[Entity], *, k: int = DEFAULT_K):
        """The decision as steps (its model calls asked by :mod:`kg_agent.steps`)."""
        starts = [e.id for e in topic_entities]
        walkable = walkable_relation_paths(self.kg, starts, max_hops=self.max_hops)
        relations = sorted({r for path in walkable for r in path})[: self.max_listed_relations]
        if not relations:
            return PlanOutcome([], warnings=["no relation can be walked from the topic entities"])
        prompt = self.prompt.format(question=question, relations="\n".join(relations), k=k,
                                    examples=self._examples_text(question, topic_entities))

        def parse(reply: str):
            plans, notes = self._ground(parse_relation_paths(reply), walkable)
            return plans or None, notes

        asked = yield self.decision.request(prompt, parse, candidates=self._walkable_paths(
            question, topic_entities, walkable, set(relations), k=k))
        if asked.decided:
            if self.keep_offline_plan and self.fallback is not None:
                plans, note = _with_offline_top(asked.value[:k], decided(self.fallback.plan, question, topic_entities, k=k).plans,
                                                self.fallback.name, self.name)
                return PlanOutcome(plans, warnings=[*asked.warnings, note], usage=asked.usage)
            total = len(asked.value)
            return PlanOutcome([Plan(p, 1.0 - i / (total + 1), self.name) for i, p in enumerate(asked.value[:k])],
                               warnings=asked.warnings, usage=asked.usage)
        if self.fallback is None:
            return PlanOutcome([], warnings=asked.warnings, usage=asked.usage)
        return fall_back(asked, decided(self.fallback.plan, question, topic_entities, k=k), node="plan",
                         to=f"the {self.fallback.name} planner")

    def _walkable_paths(self, question: str, topic_entities: Sequence[Entity], walkable: list[tuple[str, ...]],
                        listed: set[str], *, k: int) -> Candidates:
        """The plan's candidates: every relation path walkable from the topic entities over the listed relations (the
        trie of walkable paths, each path one name, :func:`path_choice`), at most ``k`` in a reply; past the enum
        limits the ``fallback`` planner's ranking chooses which go in."""
        def ranking() -> list[str]:
            if self.fallback is None:
                return []
            ranked = decided(self.fallback.plan, question, topic_entities, k=MAX_ENUM_VALUES).plans
            return [path_choice(p.relations) for p in ranked]

        return Candidates([path_choice(p) for p in walkable if listed.issuperset(p)], rank=ranking, most=k)

    def _examples_text(self, question: str, topic_entities: Sequence[Entity]) -> str:
        """The nearest training questions with their relation paths, as the prompt's ``{examples}`` ("" without)."""
        found = self.examples.examples(question, topic_entities, n=self.max_examples) if self.examples is not None else []
        return EXAMPLES_TEMPLATE.format(examples="\n".join(e.text() for e in found)) if found else ""

    def _ground(self, paths: list[list[str]], walkable: list[tuple[str, ...]]) -> tuple[list[tuple[str, ...]], list[str]]:
        """Map each step to a relation walkable at that step from the topic entities; drop what cannot be grounded."""
        grounded: list[tuple[str, ...]] = []
        notes: list[str] = []
        for path in paths:
            mapped: list[str] = []
            for step, relation in enumerate(path):
                relation = relation.strip().strip("'\"`")
                known = {w[step] for w in walkable if len(w) > step and tuple(w[:step]) == tuple(mapped)}
                target = self._match(relation, known)
                if target is None:
                    known_relation = self.kg.has_relation(relation)
                    where = f"cannot be walked at step {step + 1}" if known_relation else "is not in the knowledge graph"
                    notes.append(f"plan: dropped the path {relation_path_text(path)}: relation {relation!r} {where}")
                    mapped = []
                    break
                if target != relation:
                    notes.append(f"plan: mapped relation {relation!r} to {target!r}")
                mapped.append(target)
            if mapped and tuple(mapped) not in grounded:
                grounded.append(tuple(mapped))
        return grounded, notes

    def _match(self, relation: str, known: set[str]) -> str | None:
        if relation in known:
            return relation
        lowered = {r.lower(): r for r in known}
        if relation.lower() in lowered:
            return lowered[relation.lower()]
        # the model wrote a relation the other way round, or without the inverse marker
        for candidate in (inverse(relation), base_relation(relation)):
            if candidate in known:
                return candidate
        if not relation:
            return None
        options = sorted(known)
        vectors = self._text_vectors()
        scores = vectors.similarity(vectors.matrix([verbalize_relation(r) for r in options]), vectors.query(verbalize_relation(relation)))
        best = int(np.argmax(scores))
        if float(scores[best]) >= self.map_threshold and is_inverse(options[best]) == is_inverse(relation):
            return options[best]
        return None


# ---------------------------------------------------------------------------------------------- node
def plan_steps(state: dict, *, planner: Planner, k: int = DEFAULT_K):
    """Graph node (as steps): plan relation paths for the state's question and topic entities. When they were linked
    from two or more mentions of the question (:func:`~kg_agent.tools.shared.constraints.mention_of`), each mention's
    entities get ``k`` plans of their own (the question's other mentions masked), merged by score, each plan saying
    its ``mention``: a plan walkable only from the shelf would otherwise crowd out the author's ("which books by [A]
    are on the [B] bookshelf"), and the answer step keeps the answers reached from every mention."""
    from kg_agent.tools.shared.updates import emit

    topics = state.get("topic_entities") or []
    entities = [Entity.from_dict(e) for e in topics]
    if not entities:
        return {"plans": [], "warnings": ["plan: no topic entity, nothing to plan"]}
    mentions = mention_of(topics)
    if not mentions:
        outcome = yield decide(planner.plan, state["question"], entities, k=k)
        plans = [p.to_dict() for p in outcome.plans]
        emit("plan", plans=plans)
        return {"plans": plans, "warnings": outcome.warnings, "usage": outcome.usage}
    # the question names two things or more ("books by [A] on the [B] bookshelf"): each one's own relation to the
    # answers is planned from it, the question's other mentions masked; the answer step keeps what every one reaches
    named = list(dict.fromkeys(mentions.values()))
    groups = [[e for e in entities if mentions.get(e.id) in (mention, None)] for mention in named]
    outcomes = yield [decide(planner.plan, mask_mentions(state["question"], [e for e in entities if e not in group]),
                             group, k=k) for group in groups]
    best: dict[tuple[str, ...], tuple[Plan, str]] = {}
    for mention, outcome in zip(named, outcomes):
        for plan in outcome.plans:
            if plan.relations not in best or plan.score > best[plan.relations][0].score:
                best[plan.relations] = (plan, mention)
    ranked = sorted(best.values(), key=lambda found: -found[0].score)
    plans = [{**plan.to_dict(), "mention": mention} for plan, mention in ranked]
    emit("plan", plans=plans)
    return {
        "plans": plans,
        "warnings": [w for outcome in outcomes for w in outcome.warnings],
        "usage": functools.reduce(merge_usage, (outcome.usage for outcome in outcomes), {}),
    }


plan_node = synchronous(plan_steps)


# ---------------------------------------------------------------------------------------------- choice
PlannerChoice = Literal["auto", "llm", "exemplar", "taught", "similarity"]


def make_planner(
    kg: KnowledgeGraph,
    *,
    planner: PlannerChoice | Planner = "auto",
    model: BaseChatModel | None = None,
    exemplars: Iterable[Exemplar] | None = None,
    embeddings: Embeddings | None = None,
    max_hops: int = 3,
    structured_output: StructuredMode = "auto",
    keep_offline_plan: bool = False,
) -> Planner:
    """Build the planner a RoG graph uses (``structured_output``: the LLM planner's mode, see
    :func:`~kg_agent.tools.shared.decider.structured_mode`; ``keep_offline_plan``: the LLM planner keeps the
    offline planner's top plan alongside the model's, see :class:`LLMPlanner`).

    ``"auto"``: the LLM planner when a model is given (falling back to the offline one), else the
    exemplar planner when training questions are given, else the similarity planner. With a model and training
    questions, the LLM planner's prompt shows the nearest training questions with their relation paths.
    """
    if not isinstance(planner, str):
        return planner
    offline: Planner
    if exemplars is not None and planner in {"auto", "exemplar", "llm"}:
        offline = ExemplarPlanner(kg, embeddings=embeddings, max_hops=max_hops).fit(exemplars)
    elif planner == "taught":
        offline = TaughtPlanner(kg, embeddings=embeddings, max_hops=max_hops)
    elif planner == "exemplar":
        raise ValueError("the exemplar planner needs training questions: pass exemplars=[Exemplar(question, answers), ...]")
    else:
        offline = SimilarityPlanner(kg, embeddings=embeddings, max_hops=max_hops)
    if planner == "llm" or (planner == "auto" and model is not None):
        if model is None:
            raise ValueError("planner='llm' needs a chat model (model=...)")
        return LLMPlanner(kg, model, fallback=offline, embeddings=embeddings, max_hops=max_hops,
                          structured_output=structured_output, keep_offline_plan=keep_offline_plan,
                          examples=offline if isinstance(offline, ExemplarPlanner) else None)
    if planner not in {"auto", "exemplar", "taught", "similarity"}:
        raise ValueError(f"unknown planner {planner!r}: use 'auto', 'llm', 'exemplar', 'taught', 'similarity' or a Planner")
    return offline
