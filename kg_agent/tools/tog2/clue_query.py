"""Think-on-Graph 2.0's *clue queries* (ToG-2 §3.1): one short search query per topic entity.

A clue query ``q_j^0`` says what to look for around topic entity ``e_j`` ("their political roles or
affiliations"); it is part of the text every candidate's document chunks are scored against in the
entity prune, and the examine step replaces it with a *supplementary* query when it cannot answer yet.

* :class:`LLMClueWriter` — one call for all topic entities; the model replies ``{"entity": "query"}``
  (JSON, or ``entity: query`` lines); entities the model skipped get the offline clue, with a warning;
  an unusable reply is retried once, then the offline writer runs.
* :class:`TemplateClueWriter` — offline: ``"<entity label> <relation words>"`` where the relation is the
  one at the entity whose verbalisation (``the place of burial of [ENT]``) is most similar (MiniLM
  cosine) to the question, e.g. ``"Charles James Mathew father"``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from langchain_core.embeddings import Embeddings

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.relation_paths import verbalize_relation, verbalize_relation_path
from kg_agent.kg.types import Entity
from kg_agent.llm.parsing import parse_json_object
from kg_agent.settings import StructuredMode
from kg_agent.steps import Decided, decide, decided
from kg_agent.tools.shared.decider import Candidates, Decider, LLMDecider, Outcome, fall_back
from kg_agent.tools.shared.decision_schemas import ClueQueries
from kg_agent.tools.shared.scoring import TextVectorsFromEmbeddings, mask_mentions
from kg_agent.tools.tog2.frontier import match_label, new_frontier_item

if TYPE_CHECKING:  # a chat model is imported with the model, not with an offline method (start-up)
    from langchain_core.language_models import BaseChatModel


@dataclass
class ClueOutcome(Outcome):
    clues: dict[str, str]  # entity id -> clue query


@runtime_checkable
class ClueWriter(Decider, Protocol):
    def write(self, question: str, entities: Sequence[Entity]) -> Decided[ClueOutcome]: ...


class TemplateClueWriter(TextVectorsFromEmbeddings):
    """Offline clue queries: the entity's label and its relation most similar to the question."""

    name = "template"

    def __init__(self, kg: KnowledgeGraph, *, embeddings: Embeddings | None = None) -> None:
        self.kg = kg
        self._embeddings = embeddings


    def best_relation(self, question: str, entity: Entity, prefix: Sequence[str] = ()) -> str | None:
        relations = self.kg.relations(entity.id)
        if not relations:
            return None
        scores = self.vectors.rank(mask_mentions(question, [entity], approximate=False),  # as in prune_relations
                                   [verbalize_relation_path((*prefix, r)) for r in relations])
        return relations[max(range(len(relations)), key=lambda i: scores[i])]

    def clue(self, question: str, entity: Entity, relation: str | None) -> str:
        return f"{entity.label} {verbalize_relation(relation)}".strip() if relation else entity.label

    def write(self, question: str, entities: Sequence[Entity]) -> ClueOutcome:
        return ClueOutcome({e.id: self.clue(question, e, self.best_relation(question, e)) for e in entities},
                           source=self.name)


CLUE_PROMPT = """We will explore a knowledge graph and read documents about its entities to answer a question.
For each topic entity below, write one short search query (a few words) saying what information about that entity would help to answer the question.

Question: {question}
Topic entities:
{entities}

Reply with a JSON object mapping each entity name to its query, e.g. {{"Entity": "its role in ..."}}."""  # noqa: E501 (prompt text kept verbatim)


#: An ``entity: query`` line; the bullets, numbering and bold marks before the name are read once (atomic group)
_CLUE_LINE = re.compile(r"^\s*+(?>(?:[-*\d.)]+\s*)?\**)([^:*]{1,120}?)\**+\s*+:\s*(.+)$")


def _parse_clue_lines(reply: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in reply.splitlines():
        match = _CLUE_LINE.match(line)
        if match:
            out[match.group(1).strip().strip("\"'")] = match.group(2).strip().strip("\"'")
    return out


class LLMClueWriter(LLMDecider):
    """Clue queries by a chat model, one call for all topic entities (see the module docstring)."""

    def __init__(self, model: BaseChatModel, *, fallback: ClueWriter, structured_output: StructuredMode = "auto") -> None:
        super().__init__(model, "clue_query", fallback=fallback, structured_output=structured_output, what="clue",
                         reply_format='{"Entity name": "short search query"}', schema=ClueQueries)

    def write(self, question: str, entities: Sequence[Entity]):
        """The decision as steps (its model calls asked by :mod:`kg_agent.steps`)."""
        entities = list(entities)
        if not entities:
            return ClueOutcome({}, source=self.name)
        labels = [e.label for e in entities]
        prompt = CLUE_PROMPT.format(question=question, entities="\n".join(f"- {label}" for label in labels))

        def parse(reply: str):
            obj = parse_json_object(reply) or _parse_clue_lines(reply)
            found: dict[str, str] = {}
            notes: list[str] = []
            for name, clue in obj.items():
                index = match_label(str(name), labels)
                if index is None:
                    notes.append(f"clue_query: ignored the clue for {str(name)!r}, which is not a topic entity")
                elif isinstance(clue, str) and clue.strip():
                    found.setdefault(entities[index].id, clue.strip())
            return found or None, notes

        asked = yield self.decision.request(prompt, parse, candidates=Candidates(labels))
        if not asked.decided:
            return fall_back(asked, decided(self.fallback.write, question, entities), node="clue_query",
                             to=f"the {self.fallback.name} clue writer")
        warnings = list(asked.warnings)
        clues = dict(asked.value)
        missing = [e for e in entities if e.id not in clues]
        if missing:
            warnings.append("clue_query: the model wrote no clue for " + ", ".join(e.label for e in missing)
                            + f"; used the {self.fallback.name} clue")
            clues.update(decided(self.fallback.write, question, missing).clues)
        return ClueOutcome({e.id: clues[e.id] for e in entities}, warnings=warnings, usage=asked.usage, source=self.name)


def clue_query_steps(state: dict, *, writer: ClueWriter):
    """Graph node (as steps): a clue query per topic entity; starts the frontier ``E^0`` (empty paths)."""
    entities = [Entity.from_dict(e) for e in state.get("topic_entities") or []]
    outcome = yield decide(writer.write, state["question"], entities)
    frontier = [new_frontier_item(e, clue=outcome.clues.get(e.id, "")) for e in entities]
    return {
        "frontier": frontier,
        "depth": 0,
        "clue_queries": [{"depth": 0, "entity": e.label, "clue": outcome.clues.get(e.id, ""), "source": outcome.source}
                         for e in entities],
        "warnings": outcome.warnings,
        "usage": outcome.usage,
    }
