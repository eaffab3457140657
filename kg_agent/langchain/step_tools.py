"""The paper steps that decide, as LangChain tools: RoG's ``plan`` and ``answer``, ToG's ``prune_relations``,
``prune_entities`` and ``verify``; each asks the decider the method's graph would (the method's
``default_deciders``): the offline one, or the LLM one when ``model`` is given."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForToolRun
from pydantic import BaseModel, Field

from kg_agent.kg.walks import Walk
from kg_agent.langchain.base import DeciderTool
from kg_agent.settings import GraphSettings
from kg_agent.tools.lookups import (
    INVERSE_NOTE,
    PATH_NOTE,
    KGToolError,
    capped,
    check_relation,
    entity_json,
    linked_state,
    paths_from_texts,
    resolve_entity,
    with_notes,
)
from kg_agent.tools.rog import deciders as rog
from kg_agent.tools.rog.answer import Answerer, answer_node
from kg_agent.tools.rog.plan import DEFAULT_K, Planner, plan_node
from kg_agent.tools.shared.scoring import DEFAULT_IGNORED_RELATIONS
from kg_agent.tools.shared.updates import apply_update
from kg_agent.tools.tog import deciders as tog
from kg_agent.tools.tog.prune_entities import (
    EntityScorer,
    new_chain,
    prune_entities_node,
)
from kg_agent.tools.tog.prune_relations import (
    DEFAULT_WIDTH,
    RelationPruner,
    prune_relations_node,
)
from kg_agent.tools.tog.verify import Verifier, verify_node


# ---------------------------------------------------------------------------------------------- RoG
class PlanInput(BaseModel):
    question: str = Field(description="The question, e.g. 'who directed the films that [Tom Hanks] starred in'.")
    topic_entities: list[str] | None = Field(
        default=None, description="The question's entities (labels or ids); found in the question when omitted."
    )
    k: int = Field(default=DEFAULT_K, ge=1, le=20, description="How many relation paths to propose (RoG's K).")


class PlanTool(DeciderTool):
    name: str = "plan"
    description: str = (
        "Plan how to answer a question from the knowledge graph (RoG planning): returns the question's topic "
        "entities and the top-k relation paths to follow from them, best first, each a list of relations with "
        "a score. Follow a plan with `retrieve` (relations=plan's relations). " + INVERSE_NOTE
    )
    args_schema: type[BaseModel] = PlanInput
    planner: Any = Field(default=None, exclude=True)

    def _given_decider(self) -> Planner | None:
        return self.planner

    def _default_decider(self) -> Planner:
        return rog.default_deciders(self.kg, GraphSettings(model=self.model)).planner

    def _run(self, question: str, topic_entities: list[str] | None = None, k: int = DEFAULT_K,
             run_manager: CallbackManagerForToolRun | None = None) -> dict:
        state = linked_state(self.kg, question, topic_entities)
        state = apply_update(state, plan_node(state, planner=self.decider(), k=k))
        result = {
            "question": state["question"],
            "topic_entities": [entity_json(e) for e in state["topic_entities"]],
            "plans": [{"relations": p["relations"], "score": p["score"], "planner": p.get("source", "")} for p in state["plans"]],
        }
        if state.get("warnings"):
            result["warnings"] = state["warnings"][:5]
        return result


class PathsInput(BaseModel):
    question: str = Field(description="The question to answer.")
    paths: list[str] = Field(
        description="Reasoning paths as returned by `retrieve`, "
        "each 'entity -> relation -> entity -> ...' ('^' marks a relation walked backwards)."
    )


class AnswerTool(DeciderTool):
    name: str = "answer"
    description: str = (
        "Answer a question from reasoning paths of the knowledge graph (RoG's answer step). Returns the answers, "
        "best first, each with the paths that support it and `grounded` (false when no given path supports it). "
        "Paths that are not in the knowledge graph are skipped, with a warning. " + PATH_NOTE
    )
    args_schema: type[BaseModel] = PathsInput
    answerer: Any = Field(default=None, exclude=True)

    def _given_decider(self) -> Answerer | None:
        return self.answerer

    def _default_decider(self) -> Answerer:
        return rog.default_deciders(self.kg, GraphSettings(model=self.model)).answerer

    def _run(self, question: str, paths: list[str], run_manager: CallbackManagerForToolRun | None = None) -> dict:
        if not (question or "").strip():
            raise KGToolError("no question given")
        path_dicts, warnings = paths_from_texts(self.kg, paths)
        state = {"question": question.strip(), "paths": path_dicts, "plans": [], "warnings": warnings}
        state = apply_update(state, answer_node(state, answerer=self.decider()))
        answers, note = capped(state["answers"], self.max_items, "answers")
        result = {
            "question": state["question"],
            "answers": [
                {"answer": a["answer"], "grounded": a["grounded"], "paths": [p["text"] for p in a.get("paths", [])[:2]]}
                for a in answers
            ],
        }
        if state.get("warnings"):
            result["warnings"] = state["warnings"][:5]
        return with_notes(result, [note])


# ---------------------------------------------------------------------------------------------- ToG
class PruneRelationsInput(BaseModel):
    question: str = Field(description="The question being answered.")
    entity: str = Field(description="The entity whose relations to rank (exact label or id).")
    width: int = Field(default=DEFAULT_WIDTH, ge=1, le=20, description="How many relations to keep (ToG's W).")


class PruneRelationsTool(DeciderTool):
    name: str = "prune_relations"
    description: str = (
        "Rank an entity's relations by how much they help answer the question and keep the best `width` (ToG "
        "relation pruning; the decider ToG's graph uses). Returns the kept relations, best first, with scores (with "
        "a model ToG's, summing to 1; offline how well the relation paths through each answer the question, the "
        "best 1.0); then use `prune_entities` or "
        "`neighbours` with one of them. " + INVERSE_NOTE
    )
    args_schema: type[BaseModel] = PruneRelationsInput
    pruner: Any = Field(default=None, exclude=True)
    ignored_relations: tuple[str, ...] = DEFAULT_IGNORED_RELATIONS

    def _given_decider(self) -> RelationPruner | None:
        return self.pruner

    def _default_decider(self) -> RelationPruner:
        return tog.default_deciders(self.kg, GraphSettings(model=self.model),
                                    tog.ToGOptions(ignored_relations=self.ignored_relations)).relation_pruner

    def _run(self, question: str, entity: str, width: int = DEFAULT_WIDTH,
             run_manager: CallbackManagerForToolRun | None = None) -> dict:
        found = resolve_entity(self.kg, entity)
        state = {"question": (question or "").strip(), "frontier": [new_chain(found)], "width": width}
        update = prune_relations_node(state, kg=self.kg, pruner=self.decider(), width=width,
                                      ignored_relations=self.ignored_relations)
        result = {
            "entity": found.to_dict(),
            "relations": [{"relation": p["relation"], "score": p["relation_score"]} for p in update["candidate_relations"]],
        }
        if update.get("warnings"):
            result["warnings"] = update["warnings"][:5]
        return result


class PruneEntitiesInput(BaseModel):
    question: str = Field(description="The question being answered.")
    entity: str = Field(description="The entity to start from (exact label or id).")
    relation: str = Field(description="The relation to follow from it, as the KG names it ('^' in front: walked "
                                      "backwards).")
    width: int = Field(default=DEFAULT_WIDTH, ge=1, le=20, description="How many entities to keep (ToG's W).")


class PruneEntitiesTool(DeciderTool):
    name: str = "prune_entities"
    description: str = (
        "Follow a relation from an entity and keep the `width` entities it leads to that best help answer the "
        "question (ToG entity pruning). Returns the kept entities with scores (best 1.0) and the triples as "
        "reasoning paths, usable with `verify` and `answer`. " + INVERSE_NOTE
    )
    args_schema: type[BaseModel] = PruneEntitiesInput
    scorer: Any = Field(default=None, exclude=True)

    def _given_decider(self) -> EntityScorer | None:
        return self.scorer

    def _default_decider(self) -> EntityScorer:
        return tog.default_deciders(self.kg, GraphSettings(model=self.model)).entity_scorer

    def _run(self, question: str, entity: str, relation: str, width: int = DEFAULT_WIDTH,
             run_manager: CallbackManagerForToolRun | None = None) -> dict:
        found = resolve_entity(self.kg, entity)
        relation = check_relation(self.kg, found, relation)
        pair = {"chain": 0, "entity": found.to_dict(), "relation": relation, "relation_score": 1.0, "score": 1.0}
        state = {"question": (question or "").strip(), "frontier": [new_chain(found)], "candidate_relations": [pair],
                 "width": width}
        update = prune_entities_node(state, kg=self.kg, scorer=self.decider(), width=width)
        chains = update["frontier"]
        result = {
            "entity": found.to_dict(),
            "relation": relation,
            "candidates": len(self.kg.neighbors(found.id, relation)),
            "entities": [{**c["steps"][-1]["tail"], "score": c["scores"][-1]} for c in chains],
            "paths": [c["text"] for c in chains],
        }
        if update.get("warnings"):
            result["warnings"] = update["warnings"][:5]
        return result


class VerifyTool(DeciderTool):
    name: str = "verify"
    description: str = (
        "Decide whether the reasoning paths found so far are enough to answer the question (ToG's reasoning "
        "step). Returns `sufficient` (true/false) and, when true, the `answer` they point to; when false, explore "
        "further (prune_relations / neighbours from the paths' last entities). " + PATH_NOTE
    )
    args_schema: type[BaseModel] = PathsInput
    verifier: Any = Field(default=None, exclude=True)

    def _given_decider(self) -> Verifier | None:
        return self.verifier

    def _default_decider(self) -> Verifier:
        return tog.default_deciders(self.kg, GraphSettings(model=self.model)).verifier

    def _run(self, question: str, paths: list[str], run_manager: CallbackManagerForToolRun | None = None) -> dict:
        if not (question or "").strip():
            raise KGToolError("no question given")
        path_dicts, warnings = paths_from_texts(self.kg, paths)
        if not path_dicts:
            raise KGToolError("no usable reasoning path: " + ("; ".join(warnings[:3]) or "pass paths from retrieve or prune_entities"))
        chains = [
            Walk.from_dict(p).to_dict() | {"score": round(1.0 - i * 1e-3, 6), "scores": [], "depth": len(p["steps"])}
            for i, p in enumerate(path_dicts)
        ]
        state = {"question": question.strip(), "chains": chains, "depth": max(c["depth"] for c in chains),
                 "warnings": warnings}
        state = apply_update(state, verify_node(state, verifier=self.decider()))
        verification = state["verification"]
        result = {"sufficient": bool(verification["sufficient"]), "answer": verification.get("answer")}
        if state.get("warnings"):
            result["warnings"] = state["warnings"][:5]
        return result


