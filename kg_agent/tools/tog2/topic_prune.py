"""Think-on-Graph 2.0's *topic prune* (TP, ToG-2 §3.1): which linked entities are good starting points?

General entities ("country", "gender", "film", a genre or a language shared by thousands of nodes) make
the exploration wide and unfocused; TP drops them before the first iteration. Two deciders share one
interface (:class:`TopicPruner`):

* :class:`LLMTopicPruner` — the question and the linked entities (each with how many relations and
  neighbours it has) go to the model, which lists the entities to keep; the reply is parsed leniently
  (JSON list/object, a list, one name per line), names are matched to the candidates, unknown names
  dropped with a warning; an unusable reply is retried once, then the offline pruner decides.
* :class:`SimilarityTopicPruner` — offline: an entity is *general* when it is a hub (at least
  ``hub_degree`` neighbours and ``hub_ratio`` times as many as the least connected linked entity) or its
  label is closer (cosine, MiniLM) to the prompt "a general category ..." than to the question; general
  entities are dropped, the rest ordered by embedding similarity of their label to the question.

Both always keep at least one entity (the most specific) and prune only when two or more are linked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from langchain_core.embeddings import Embeddings

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import Entity
from kg_agent.llm.parsing import parse_answer_list, parse_json_object
from kg_agent.settings import StructuredMode
from kg_agent.steps import Decided, decide, decided
from kg_agent.tools.shared.decider import Candidates, Decider, LLMDecider, Outcome, fall_back
from kg_agent.tools.shared.decision_schemas import KeptEntities
from kg_agent.tools.shared.scoring import TextVectorsFromEmbeddings
from kg_agent.tools.tog2.frontier import match_label

if TYPE_CHECKING:  # a chat model is imported with the model, not with an offline method (start-up)
    from langchain_core.language_models import BaseChatModel

GENERAL_PROMPT = "a general category or type, such as a country, a gender, a film, a genre, a language or a year"


@dataclass
class TopicOutcome(Outcome):
    kept: list[Entity]
    dropped: list[Entity] = field(default_factory=list)


@runtime_checkable
class TopicPruner(Decider, Protocol):
    def prune(self, question: str, entities: Sequence[Entity]) -> Decided[TopicOutcome]: ...


def _degree(kg: KnowledgeGraph, entity_id: str) -> int:
    return sum(len(v) for v in kg.edges(entity_id).values())


class SimilarityTopicPruner(TextVectorsFromEmbeddings):
    """Offline topic prune: drop hubs and category-like labels; order the rest by similarity to the question."""

    name = "similarity"

    def __init__(self, kg: KnowledgeGraph, *, embeddings: Embeddings | None = None, hub_degree: int = 100,
                 hub_ratio: float = 5.0, general_margin: float = 0.0) -> None:
        self.kg = kg
        self.hub_degree = hub_degree
        self.hub_ratio = hub_ratio
        self.general_margin = general_margin
        self._embeddings = embeddings


    def prune(self, question: str, entities: Sequence[Entity]) -> TopicOutcome:
        entities = list(dict.fromkeys(entities))
        if len(entities) < 2:
            return TopicOutcome(entities, source=self.name)
        labels = [e.label for e in entities]
        to_question = self.vectors.rank(question, labels)
        to_general = self.vectors.rank(GENERAL_PROMPT, labels)
        degrees = [_degree(self.kg, e.id) for e in entities]
        least = max(1, min(degrees))
        kept, dropped = [], []
        for entity, q_sim, g_sim, degree in zip(entities, to_question, to_general, degrees):
            hub = degree >= self.hub_degree and degree >= self.hub_ratio * least
            category = g_sim > q_sim + self.general_margin
            (dropped if hub or category else kept).append((q_sim, -degree, entity))
        if not kept:  # keep the most specific one
            dropped.sort(key=lambda t: (t[1], t[0]), reverse=True)
            kept.append(dropped.pop(0))
        kept.sort(key=lambda t: (-t[0], -t[1]))
        warnings = [f"topic_prune: dropped general entities: {', '.join(t[2].label for t in dropped)}"] if dropped else []
        return TopicOutcome([t[2] for t in kept], [t[2] for t in dropped], warnings=warnings, source=self.name)


TOPIC_PRUNE_PROMPT = """You choose the starting points for exploring a knowledge graph to answer a question.
Keep the entities that are specific and central to the question; drop general ones (such as a country, a gender, "film", a genre or a language) that many unrelated things connect to.

Question: {question}
Entities found in the question:
{entities}

Reply with a JSON list of the entity names to keep, e.g. ["Name 1", "Name 2"]."""  # noqa: E501 (prompt text kept verbatim)


_NAME_SEPARATORS = re.compile(r"""[\[\]{}:,"']+""")


def named_entities(reply: str) -> list[str]:
    """The entity names a topic-prune reply gives: a JSON list, a JSON object's ``keep`` (or ``entities``...) list,
    or one name per line; a reply that only looks like JSON (unquoted names, placeholder keys) is split at its
    brackets, colons, commas and quotes, so every name in it is seen (and a made-up one reported)."""
    obj = parse_json_object(reply)
    if obj is not None:
        for key in ("keep", "entities", "topic_entities", "kept"):
            if isinstance(obj.get(key), list):
                return [str(n) for n in obj[key]]
        return [str(key) for key in obj]
    names = parse_answer_list(reply)
    if any(mark in name for name in names for mark in "[]{}:\""):
        names = [part.strip() for part in _NAME_SEPARATORS.split(reply) if part.strip()]
    return list(dict.fromkeys(names))


class LLMTopicPruner(LLMDecider):
    """Topic prune by a chat model (see the module docstring); falls back to ``fallback``."""

    def __init__(self, kg: KnowledgeGraph, model: BaseChatModel, *, fallback: TopicPruner | None = None,
                 structured_output: StructuredMode = "auto") -> None:
        super().__init__(model, "topic_prune", fallback=fallback or SimilarityTopicPruner(kg),
                         structured_output=structured_output, reply_format='["Name 1", "Name 2"]', schema=KeptEntities)
        self.kg = kg

    def prune(self, question: str, entities: Sequence[Entity]):
        """The decision as steps (its model calls asked by :mod:`kg_agent.steps`)."""
        entities = list(dict.fromkeys(entities))
        if len(entities) < 2:
            return TopicOutcome(entities, source=self.name)
        labels = [e.label for e in entities]
        lines = [f"- {e.label} ({len(self.kg.relations(e.id))} relations, {_degree(self.kg, e.id)} neighbours)" for e in entities]
        prompt = TOPIC_PRUNE_PROMPT.format(question=question, entities="\n".join(lines))

        def parse(reply: str):
            names = named_entities(reply)
            unknown = [name for name in names if match_label(name, labels) is None]
            if unknown:  # a made-up name or a malformed reply: not a decision
                return None, [f"topic_prune: rejected the reply: it names {', '.join(map(repr, unknown))}, "
                              f"which {'is' if len(unknown) == 1 else 'are'} not among the linked entities"]
            chosen = list(dict.fromkeys(match_label(name, labels) for name in names))
            return chosen or None, []

        def offline_ranking() -> list[str]:
            return [e.label for e in decided(self.fallback.prune, question, entities).kept]

        asked = yield self.decision.request(prompt, parse, candidates=Candidates(labels, rank=offline_ranking))
        if not asked.decided:
            return fall_back(asked, decided(self.fallback.prune, question, entities), node="topic_prune",
                             to=f"the {self.fallback.name} topic pruner")
        warnings = list(asked.warnings)
        kept = [entities[i] for i in asked.value]
        dropped = [e for e in entities if e not in kept]
        if dropped:
            warnings.append(f"topic_prune: dropped general entities: {', '.join(e.label for e in dropped)}")
        return TopicOutcome(kept, dropped, warnings=warnings, usage=asked.usage, source=self.name)


def topic_prune_steps(state: dict, *, pruner: TopicPruner):
    """Graph node (as steps): keep the topic entities that are good starting points."""
    entities = [Entity.from_dict(e) for e in state.get("topic_entities") or []]
    if not entities:
        return {}
    outcome = yield decide(pruner.prune, state["question"], entities)
    kept = {e.id for e in outcome.kept}
    return {
        "topic_entities": [e for e in state["topic_entities"] if e["id"] in kept],  # with how each was linked
        "warnings": outcome.warnings,
        "usage": outcome.usage,
    }
