"""Think-on-Graph 2.0's *relation prune combination* (RC, ToG-2 §3.2 "Relation Prune"):
the relations to follow for **all** topic entities of an iteration are chosen in **one** model call.

ToG asks the model once per entity; ToG-2 puts every topic entity with its candidate relations in a single
prompt, which cuts the calls per iteration to one and lets the model weigh the paths against each other.
As in the authors' released code, an entity with at most ``W`` candidate relations keeps them all without
asking, so an iteration makes one call when at least one entity needs pruning and none otherwise.

Candidate relations of a frontier entity: its outgoing and incoming (``^rel``) relations, minus
bookkeeping relations (:data:`DEFAULT_IGNORED_RELATIONS`) and relations that only lead back to entities already on
its path.

* :class:`LLMCombinedRelationPruner` — reply ``{"entity": ["rel", ...]}`` (or ``{"entity": {"rel": 0.6}}``,
  or ``entity: rel1; rel2`` lines); asked in a structured mode, the schema lists each topic entity's relations
  as its own ``enum`` (:class:`~kg_agent.tools.shared.decider.CandidatesBySubject`: one choice per entity, each
  entity's relations those its block lists, at most ``W`` of them under a grammar; past the enum limits each
  entity's best by the offline pruner, in turn); relation names are matched leniently to the candidates
  (:func:`~kg_agent.llm.parsing.parse_scored_items`); entities the model left out are pruned offline (with
  a warning); an unusable reply is retried once, then the offline pruner decides for everyone.
* :class:`SimilarityCombinedRelationPruner` — offline: per entity, the ``W`` relations whose path so far plus
  the relation aligns best with the question (entity mentions abstracted), by the relation-path scorer every
  offline decider shares; weights sum to 1 per entity.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from langchain_core.embeddings import Embeddings

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import Entity
from kg_agent.kg.walks import Walk
from kg_agent.llm.parsing import parse_json_object, parse_scored_items
from kg_agent.settings import StructuredMode
from kg_agent.steps import Decided, decide, decided
from kg_agent.tools.shared.decider import CandidatesBySubject, Decider, LLMDecider, Outcome, fall_back, relation_meanings
from kg_agent.tools.shared.decision_schemas import RelationChoices
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.scoring import (
    DEFAULT_IGNORED_RELATIONS,
    is_ignored_relation,
    mask_mentions,
    softmax_weights,
    top_normalised,
)
from kg_agent.tools.shared.updates import emit
from kg_agent.tools.tog2.frontier import (
    match_label,
    triple_text,
)

if TYPE_CHECKING:  # a chat model is imported with the model, not with an offline method (start-up)
    from langchain_core.language_models import BaseChatModel


def candidate_relations(kg: KnowledgeGraph, item: dict, ignored: Sequence[str] = DEFAULT_IGNORED_RELATIONS) -> list[str]:
    """Relations worth walking from a frontier item (see the module docstring), sorted."""
    entity_id = item["entity"]["id"]
    visited = Walk.from_dict(item).entity_ids
    out = []
    for relation, targets in kg.edges(entity_id).items():
        if is_ignored_relation(relation, ignored):
            continue
        if all(t in visited for t in targets):
            continue
        out.append(relation)
    return sorted(out)





@dataclass
class RelationChoice(Outcome):
    """Per frontier item (same order as the frontier): the chosen ``(relation, score)`` pairs."""

    chosen: list[list[tuple[str, float]]]


@runtime_checkable
class CombinedRelationPruner(Decider, Protocol):
    def choose(self, question: str, frontier: Sequence[dict], candidates: Sequence[list[str]], *,
               width: int) -> Decided[RelationChoice]: ...


class SimilarityCombinedRelationPruner:
    """Offline relation prune for every frontier entity at once (see the module docstring): each candidate is
    scored as the item's path so far plus the relation by the shared
    :class:`~kg_agent.tools.shared.path_scoring.RelationPathScorer`; top ``W`` kept with softmax weights. Given
    ``kg``, the graph the relations walk, the scorer also weighs what each relation's objects are against the
    answer type the question asks for."""

    name = "similarity"

    def __init__(self, *, kg: KnowledgeGraph | None = None, embeddings: Embeddings | None = None,
                 scorer: RelationPathScorer | None = None, temperature: float = 0.25) -> None:
        self.kg = kg
        self.scorer = scorer or RelationPathScorer(embeddings=embeddings)
        self.temperature = temperature

    def choose_one(self, question: str, item: dict, relations: Sequence[str], *, width: int) -> list[tuple[str, float]]:
        if not relations:
            return []
        prefix = Walk.from_dict(item).relations
        # labels masked only where the question writes them (ToG-2 does not mask approximately: on 2WikiMultihopQA a
        # topic masked so stopped at the bridge entity, "When did [ENT]'s father die?" answered by the father)
        query = mask_mentions(question, [Walk.from_dict(item).end, Entity.from_dict(item["start"])], approximate=False)
        scores = self.scorer.score(query, [(*prefix, r) for r in relations], kg=self.kg)
        return top_normalised(list(zip(relations, softmax_weights(scores, self.temperature))), width)

    def choose(self, question, frontier, candidates, *, width) -> RelationChoice:
        return RelationChoice([self.choose_one(question, item, rels, width=width) for item, rels in zip(frontier, candidates)],
                              source=self.name)


RELATION_PRUNE_PROMPT = """We explore a knowledge graph to answer a question. For EACH topic entity below, choose up to {width} of its relations that most likely lead to entities whose documents help to answer the question and match the entity's clue query. A relation starting with ^ is followed backwards (from object to subject).

Question: {question}

{entities}

{meanings}Reply with one JSON object mapping each topic entity name to the relations you choose with a score from 0 to 1, e.g. {{"Entity A": {{"relation 1": 0.7, "relation 2": 0.3}}, "Entity B": {{"relation 3": 1.0}}}}."""  # noqa: E501 (prompt text kept verbatim)


def _entity_block(item: dict, relations: Sequence[str]) -> str:
    path = "; ".join(triple_text(t) for t in item.get("steps") or []) or "(start)"
    return (f"Topic entity: {item['entity']['label']}\nClue query: {item.get('clue') or '-'}\nPath so far: {path}\n"
            f"Relations: {'; '.join(relations)}")


#: An ``entity: relations`` line: bullets, numbering and bold marks (atomic, so a long run of them is read once,
#: not split every way: the name could take them too, and a run of 200 ``*`` took 1.4 s), a "Topic entity:"
#: prefix, the name, the text after its colon
_HEADER = re.compile(r"^\s*+(?>(?:[-*\d.)]+\s*)?\**\s*)(?:topic entity\s*:?\s*)?([^:{}]{1,160}?)\**+\s*+:\s*(.*)$",
                     re.IGNORECASE)


def _sections(reply: str, labels: Sequence[str]) -> dict[int, str]:
    """``entity: relations`` lines or blocks when the model wrote no JSON."""
    out: dict[int, str] = {}
    current: int | None = None
    for line in reply.splitlines():
        match = _HEADER.match(line)
        index = match_label(match.group(1), labels) if match else None
        if index is not None:
            current = index
            out[index] = out.get(index, "") + "\n" + match.group(2)
        elif current is not None and line.strip():
            out[current] += "\n" + line
    return out


class LLMCombinedRelationPruner(LLMDecider):
    """ToG-2's relation prune combination: one model call for all topic entities."""

    def __init__(self, model: BaseChatModel, *, fallback: CombinedRelationPruner | None = None,
                 max_listed_relations: int = 60, structured_output: StructuredMode = "auto",
                 kg: KnowledgeGraph | None = None) -> None:
        super().__init__(model, "relation_prune", fallback=fallback or SimilarityCombinedRelationPruner(),
                         structured_output=structured_output, schema=RelationChoices,
                         reply_format='{"Entity A": {"relation 1": 0.7, "relation 2": 0.3}}')
        self.max_listed_relations = max_listed_relations
        self.kg = kg  # given: the prompt says what the KG says the relations mean

    def choose(self, question, frontier, candidates, *, width):
        """The decision as steps (its model calls asked by :mod:`kg_agent.steps`)."""
        chosen: list[list[tuple[str, float]] | None] = [None] * len(frontier)
        ask = []
        for index, rels in enumerate(candidates):
            if len(rels) <= width:
                chosen[index] = [(r, round(1.0 / len(rels), 6)) for r in rels] if rels else []
            else:
                ask.append(index)
        warnings: list[str] = []
        usage: dict = {}
        source = self.name
        if ask:
            labels = [frontier[i]["entity"]["label"] for i in ask]
            listed = {i: list(candidates[i])[: self.max_listed_relations] for i in ask}
            for i in ask:
                if len(candidates[i]) > self.max_listed_relations:
                    warnings.append(f"relation_prune: {frontier[i]['entity']['label']} has {len(candidates[i])} relations; "
                                    f"the prompt lists the first {self.max_listed_relations}")
            prompt = RELATION_PRUNE_PROMPT.format(width=width, question=question,
                                                  entities="\n\n".join(_entity_block(frontier[i], listed[i]) for i in ask),
                                                  meanings=relation_meanings(self.kg, [r for i in ask for r in listed[i]]))

            def parse(reply: str):
                obj = parse_json_object(reply)
                texts: dict[int, str] = {}
                if obj:
                    for name, value in obj.items():
                        position = match_label(str(name), labels)
                        if position is None:
                            continue
                        if isinstance(value, dict):
                            texts[position] = json.dumps(value)
                        elif isinstance(value, list):
                            texts[position] = "\n".join(json.dumps(v) if isinstance(v, dict) else str(v) for v in value)
                        else:
                            texts[position] = str(value).replace(";", "\n").replace(",", "\n")
                if not texts:
                    texts = {k: v.replace(";", "\n") for k, v in _sections(reply, labels).items()}
                found: dict[int, list[tuple[str, float]]] = {}
                for position, text in texts.items():
                    item_index = ask[position]
                    parsed = parse_scored_items(text, list(candidates[item_index]))
                    if parsed.items:
                        found[item_index] = top_normalised(parsed.items, width)
                return found or None, []

            def offline_ranking(label: str) -> list[str]:
                index = ask[match_label(label, labels)]
                return [r for r, _ in decided(self.fallback.choose, question, [frontier[index]], [listed[index]],
                                                           width=len(listed[index])).chosen[0]]

            listed_by_label: dict[str, list[str]] = {}
            for i in ask:  # two topic entities of one label share its list (the reply names them by label)
                names = listed_by_label.setdefault(frontier[i]["entity"]["label"], [])
                names += [r for r in listed[i] if r not in names]
            candidates_by_entity = CandidatesBySubject(listed_by_label, rank=offline_ranking, most=width)
            asked = yield self.decision.request(prompt, parse, candidates=candidates_by_entity)
            if not asked.decided:
                offline = decided(self.fallback.choose, question, [frontier[i] for i in ask], [candidates[i] for i in ask], width=width)
                for index, pairs in zip(ask, offline.chosen):
                    chosen[index] = pairs
                outcome = RelationChoice([c or [] for c in chosen], source=self.fallback.name)
                return fall_back(asked, outcome, node="relation_prune", to=f"the {self.fallback.name} relation pruner",
                                 before=warnings)
            warnings += asked.warnings
            usage = asked.usage
            for index, pairs in asked.value.items():
                chosen[index] = pairs
            missing = [i for i in ask if chosen[i] is None]
            if missing:
                warnings.append("relation_prune: the model chose no relation for "
                                + ", ".join(frontier[i]["entity"]["label"] for i in missing)
                                + f"; the {self.fallback.name} pruner chose them")
                offline = decided(self.fallback.choose, question, [frontier[i] for i in missing],
                                  [candidates[i] for i in missing], width=width)
                for index, pairs in zip(missing, offline.chosen):
                    chosen[index] = pairs
        return RelationChoice([c or [] for c in chosen], warnings=warnings, usage=usage, source=source)


def prune_relations_steps(state: dict, *, kg: KnowledgeGraph, pruner: CombinedRelationPruner, width: int):
    """Graph node (as steps): choose up to ``width`` relations per frontier entity (one model call for all)."""
    frontier = state.get("frontier") or []
    candidates = [candidate_relations(kg, item) for item in frontier]
    choice = yield decide(pruner.choose, state["question"], frontier, candidates, width=width)
    selected = [
        {"item": index, "entity": frontier[index]["entity"], "relation": relation, "score": score}
        for index, pairs in enumerate(choice.chosen)
        for relation, score in pairs
    ]
    emit("prune_relations", depth=int(state.get("depth") or 0) + 1,
         kept=[{"entity": s["entity"]["label"], "relation": s["relation"], "score": s["score"]} for s in selected])
    update = {
        "relations": selected,
        "warnings": choice.warnings,
        "usage": choice.usage,
    }
    if not selected:
        update["stop_reason"] = "no_relations"
        update["warnings"] = [*choice.warnings, "relation_prune: no relation can be walked from the topic entities"]
    return update
