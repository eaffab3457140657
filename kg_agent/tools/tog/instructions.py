"""ToG-I's *instruction generation* and *instruction integration* steps.

Instruction generation (ToG-I §3.1): the question is analysed into up to ``n`` (3) guiding instructions,
shallow to deep, and the topic entities they suggest; those entities join the linked ones as the starting
points E^0. Integration (§3.2): in outer iteration T the accumulated instructions ``i_1..i_T`` are
summarised into one set I'_T that guides relation and entity exploration.

* :class:`LLMInstructionGenerator` — a prompt asking for JSON ``{"instructions": [...], "topic_entities": [...]}``
  (numbered lines are accepted too); one retry, then the offline generator;
* :class:`PathInstructionGenerator` — offline: the relation path most similar to the question, grown
  greedily hop by hop from the topic entities (up to ``n`` hops), gives one instruction per hop, shallow
  to deep ("From Robert Zemeckis, follow 'directed by (reverse)'.", "Then from the entities found, follow
  'starred actors'."); it suggests the linked topic entities;
* :class:`LLMInstructionIntegrator` (one call for T >= 2; I'_1 is i_1 itself) and
  :class:`JoinInstructionIntegrator` (offline: the instructions joined in order).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from langchain_core.embeddings import Embeddings

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.relation_paths import verbalize_relation
from kg_agent.kg.types import Entity
from kg_agent.llm.parsing import parse_json_object
from kg_agent.settings import StructuredMode
from kg_agent.steps import Decided, decide, decided
from kg_agent.tools.shared.constraints import mention_of
from kg_agent.tools.shared.decider import Decider, LLMDecider, Outcome, fall_back
from kg_agent.tools.shared.decision_schemas import Instructions, Summary
from kg_agent.tools.shared.scoring import DEFAULT_IGNORED_RELATIONS, filter_relations
from kg_agent.tools.tog.prune_relations import SimilarityRelationPruner, guided_query

if TYPE_CHECKING:  # a chat model is imported with the model, not with an offline method (start-up)
    from langchain_core.language_models import BaseChatModel

DEFAULT_MAX_INSTRUCTIONS = 3


@dataclass
class InstructionOutcome(Outcome):
    instructions: list[str]
    entities: list[str] = field(default_factory=list)


@runtime_checkable
class InstructionGenerator(Decider, Protocol):
    def generate(self, question: str, topic_entities: Sequence[Entity], *,
                 max_instructions: int = DEFAULT_MAX_INSTRUCTIONS) -> Decided[InstructionOutcome]: ...


class PathInstructionGenerator:
    """Offline instructions: one per hop of the relation path most similar to the question.

    The path is grown greedily with the offline relation scorer (:class:`SimilarityRelationPruner`: MiniLM
    cosine plus stem overlap) over the relations walkable from the entities reached so far, and stops when
    no extension is more similar to the question than the path itself (the offline verifier's rule).
    """

    name = "path"

    def __init__(self, kg: KnowledgeGraph, *, embeddings: Embeddings | None = None,
                 ignored_relations: Sequence[str] = DEFAULT_IGNORED_RELATIONS, frontier_sample: int = 100) -> None:
        self.kg = kg
        self.ignored_relations = tuple(ignored_relations)
        self.frontier_sample = frontier_sample
        self._similarity = SimilarityRelationPruner(kg=kg, embeddings=embeddings)

    def relation_path(self, question: str, topic_entities: Sequence[Entity], max_hops: int) -> tuple[str, ...]:
        query = guided_query(question, "", topic_entities)
        nodes = [e.id for e in topic_entities]
        prefix: tuple[str, ...] = ()
        current = float("-inf")
        for _hop in range(max_hops):
            relations = sorted({r for n in nodes[: self.frontier_sample] for r in self.kg.relations(n)})
            relations, _ = filter_relations(relations, self.ignored_relations)
            if not relations:
                break
            best, score = self._similarity.best_similarity(query, prefix, relations)
            if prefix and current >= score:
                break
            prefix, current = prefix + (relations[best],), score
            seen = set(nodes)
            nodes = sorted({t for n in nodes[: self.frontier_sample] for t in self.kg.neighbors(n, relations[best])} - seen)
        return prefix

    def generate(self, question, topic_entities, *, max_instructions=DEFAULT_MAX_INSTRUCTIONS) -> InstructionOutcome:
        entities = list(topic_entities)
        if not entities:
            return InstructionOutcome([f"Find the entities the question is about: {question}"], source=self.name)
        relations = self.relation_path(question, entities, max_instructions)
        if not relations:
            return InstructionOutcome([], [e.label for e in entities], source=self.name,
                                      warnings=["instructions: no relation can be walked from the topic entities"])
        names = ", ".join(e.label for e in entities)
        instructions = []
        for hop, relation in enumerate(relations):
            where = f"From {names}" if hop == 0 else "Then from the entities found"
            instructions.append(f"{where}, follow '{verbalize_relation(relation)}' ({relation}).")
        return InstructionOutcome(instructions, [e.label for e in entities], source=self.name)


INSTRUCTION_PROMPT = """Analyse the question from several angles and levels, shallow to deep. Write up to {n} guiding instructions that say what to look for in a knowledge graph to answer it (the first one the most direct), and the topic entities those instructions start from (names as they may appear in the knowledge graph).
Reply with JSON only: {{"instructions": ["...", "..."], "topic_entities": ["...", "..."]}}
Example:
Q: Is Liu Cixin one of China's most influential science fiction writers?
A: {{"instructions": ["Look for the science fiction awards Liu Cixin's works have won, such as the Hugo Award.", "Look for Liu Cixin's works and their sales rankings."], "topic_entities": ["Liu Cixin", "Hugo Award"]}}

Q: {question}
A: """  # noqa: E501 (prompt text kept verbatim)

INTEGRATE_PROMPT = """Summarise these guiding instructions for answering a question into one comprehensive instruction set (a few sentences, keep every concrete relation or entity they mention).
Question: {question}
Instructions:
{instructions}
Summary: """  # noqa: E501 (prompt text kept verbatim)


def parse_instructions(reply: str, max_instructions: int) -> tuple[list[str], list[str]] | None:
    """``(instructions, entities)`` from JSON, else from numbered/bulleted lines; ``None`` when empty."""
    obj = parse_json_object(reply)
    if obj:
        raw = obj.get("instructions") or obj.get("instruction") or []
        raw = [raw] if isinstance(raw, str) else raw
        instructions = [str(i).strip() for i in raw if str(i).strip()]
        ents = obj.get("topic_entities") or obj.get("entities") or []
        ents = [ents] if isinstance(ents, str) else ents
        entities = [str(e).strip() for e in ents if str(e).strip()]
        if instructions:
            return instructions[:max_instructions], entities
    lines = [re.sub(r"^\s*(?:[-*•]|\d+[.)]|instruction\s*\d*\s*[:.])\s*", "", line, flags=re.I).strip()
             for line in (reply or "").splitlines() if re.match(r"^\s*(?:[-*•]|\d+[.)]|instruction\s*\d*\s*[:.])", line, re.I)]
    lines = [line for line in lines if line]
    return (lines[:max_instructions], []) if lines else None


class LLMInstructionGenerator(LLMDecider):
    """ToG-I's instruction generation for a chat model, with the offline generator as fallback."""

    def __init__(self, model: BaseChatModel, *, fallback: InstructionGenerator | None = None, prompt: str = INSTRUCTION_PROMPT,
                 structured_output: StructuredMode = "auto") -> None:
        # free text in a JSON shape, which SmolLM2 writes usably only under a grammar (0 of 2 on the first attempt in
        # text, one fell back; docs/real_llm.md)
        super().__init__(model, "instructions", fallback=fallback, structured_output=structured_output, schema=Instructions,
                         reply_format='{"instructions": ["Find ...", "Then find ..."], "topic_entities": ["..."]}',
                         grammar_under_auto="always")
        self.prompt = prompt

    def generate(self, question, topic_entities, *, max_instructions=DEFAULT_MAX_INSTRUCTIONS):
        """The decision as steps (its model calls asked by :mod:`kg_agent.steps`)."""
        prompt = self.prompt.format(n=max_instructions, question=question)
        asked = yield self.decision.request(prompt, lambda r: (parse_instructions(r, max_instructions), []))
        if asked.decided:
            instructions, entities = asked.value
            return InstructionOutcome(instructions, entities, warnings=asked.warnings, usage=asked.usage, source=self.name)
        if self.fallback is None:
            return fall_back(asked, InstructionOutcome([], source=self.name), node="instructions", to="no instructions")
        outcome = decided(self.fallback.generate, question, topic_entities, max_instructions=max_instructions)
        return fall_back(asked, outcome, node="instructions", to=f"the {self.fallback.name} generator")


@runtime_checkable
class InstructionIntegrator(Decider, Protocol):
    def integrate(self, question: str, instructions: Sequence[str]) -> Decided[tuple[str, list[str], dict]]: ...


@dataclass
class JoinedInstructions:
    """The offline integration's outcome: the instructions joined in order."""

    text: str
    warnings: list[str] = field(default_factory=list)
    usage: dict = field(default_factory=dict)


class JoinInstructionIntegrator:
    """Offline integration: the accumulated instructions joined in order."""

    name = "join"

    def integrate(self, question, instructions):
        return " ".join(instructions), [], {}


class LLMInstructionIntegrator(LLMDecider):
    """One summarising call per outer iteration T >= 2 (I'_1 = i_1 needs none)."""

    def __init__(self, model: BaseChatModel, *, prompt: str = INTEGRATE_PROMPT, structured_output: StructuredMode = "auto") -> None:
        super().__init__(model, "integrate", what="instruction", schema=Summary, structured_output=structured_output)
        self.prompt = prompt

    def integrate(self, question, instructions):
        """The decision as steps (its model calls asked by :mod:`kg_agent.steps`)."""
        if len(instructions) <= 1:
            return " ".join(instructions), [], {}
        prompt = self.prompt.format(question=question, instructions="\n".join(f"{i}. {text}" for i, text in enumerate(instructions, 1)))
        asked = yield self.decision.request(prompt, lambda r: (r.strip() or None, []))
        if asked.decided:
            return asked.value, asked.warnings, asked.usage
        joined = JoinedInstructions(" ".join(instructions))
        joined = fall_back(asked, joined, node="integrate", to="the instructions joined in order")
        return joined.text, joined.warnings, joined.usage


# ---------------------------------------------------------------------------------------------- nodes
def instructions_steps(
    state: dict,
    *,
    kg: KnowledgeGraph,
    generator: InstructionGenerator,
    max_instructions: int = DEFAULT_MAX_INSTRUCTIONS,
    max_topic_entities: int = 5,
) -> dict:
    """Graph node (as steps): generate the instructions; add the entities they suggest to ``topic_entities``."""
    entities = [Entity.from_dict(e) for e in state.get("topic_entities") or []]
    outcome = yield decide(generator.generate, state["question"], entities, max_instructions=max_instructions)
    warnings = list(outcome.warnings)
    known = {e.id for e in entities}
    known_at_start = list(entities)
    for name in outcome.entities:
        if len(entities) >= max_topic_entities:
            break
        matches = kg.find_entities(name) if name else []
        if any(e.id in known for e in matches):
            continue  # already a topic entity (a case variant would only crowd the beam)
        found = [e for e in matches if e.id not in known]
        if found:
            entities.append(found[0])
            known.add(found[0].id)
    update = {
        "instructions": outcome.instructions[:max_instructions],
        "topic_entities": list(state.get("topic_entities") or []) + [e.to_dict() for e in entities[len(known_at_start):]],
        "round": 0,
        "warnings": warnings,
        "usage": outcome.usage,
    }
    if entities and state.get("stop_reason") == "no_topic_entity":
        update["stop_reason"] = ""
    return update


def integrate_steps(state: dict, *, integrator: InstructionIntegrator, max_width: int | None = None):
    """Graph node (as steps): start outer iteration T: integrate ``i_1..i_T`` into ``guidance``, set width W = T, restart.
    A question naming more things than T (the topic entities' mentions) is explored from each: W is their number."""
    from kg_agent.tools.tog.prune_entities import new_chain

    round_ = int(state.get("round") or 0) + 1
    instructions = list(state.get("instructions") or [])[:round_]
    guidance, warnings, usage = yield decide(integrator.integrate, state["question"], instructions)
    named = len(set(mention_of(state.get("topic_entities") or []).values()))  # at least one chain for each
    width = max(round_, named) if max_width is None else min(max(round_, named), max_width)
    return {
        "round": round_,
        "width": width,
        "guidance": guidance,
        "depth": 0,
        "frontier": [new_chain(e) for e in state.get("topic_entities") or []],
        "candidate_relations": [],
        "verification": {},
        "stop_reason": "" if state.get("topic_entities") else (state.get("stop_reason") or "no_topic_entity"),
        "warnings": warnings,
        "usage": usage,
    }
