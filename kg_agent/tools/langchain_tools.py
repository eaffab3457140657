"""The node tools as LangChain tools, for any tool-calling agent.

:func:`kg_tools` returns ready :class:`~langchain_core.tools.BaseTool` objects over one knowledge graph:

* lookups: ``search_entities`` (text -> entities), ``entity_relations`` (entity -> its relations),
  ``neighbours`` (entity + relation -> entities);
* RoG: ``plan`` (question -> top-K relation paths), ``retrieve`` (entity or question + relation path ->
  reasoning paths, RoG's Algorithm 1), ``answer`` (question + reasoning paths -> answers);
* ToG: ``prune_relations``, ``prune_entities``, ``verify``.

Each one wraps the node function or decider the method graphs use (offline by default, an LLM decider
when ``model=`` is given), reads the KG and never writes to it, and returns a short JSON-serialisable
dict (lists are capped, and a ``note`` says when). A relation walked backwards is written ``^relation``
in arguments and results alike. Bad input (an unknown entity or relation, a path that is not in the KG)
comes back as an error message the agent can act on (naming the closest labels or the relations that
do exist), not as an exception that stops the agent.

:func:`as_tool` wraps a whole method graph (RoG, ToG, ...) as one tool taking a question, so an agent
can delegate whole questions::

    from kg_agent.graphs import create_rog_graph
    from kg_agent.tools import as_tool, kg_tools

    tools = [*kg_tools(kg), as_tool(create_rog_graph(kg))]
"""

from __future__ import annotations

import threading
import uuid
from typing import Any, Iterable, Sequence

from langchain_core.callbacks import AsyncCallbackManagerForToolRun, CallbackManagerForToolRun
from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool, ToolException
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from kg_agent.kg.graph import KnowledgeGraph, normalize_label
from kg_agent.kg.linking import closest_labels, search_entities
from kg_agent.kg.paths import DEFAULT_MAX_PATHS, node_path_to_path, retrieve_paths
from kg_agent.kg.types import Entity, base_relation, relation_path_text
from kg_agent.llm.parsing import parse_relation_paths
from kg_agent.tools.answer import Answerer, LLMAnswerer, VoteAnswerer, answer_node
from kg_agent.tools.link import link_node
from kg_agent.tools.plan import DEFAULT_K, LLMPlanner, Planner, SimilarityPlanner, plan_node
from kg_agent.tools.prune_entities import (
    EntityScorer,
    LLMEntityScorer,
    SimilarityEntityScorer,
    new_chain,
    prune_entities_node,
)
from kg_agent.tools.prune_relations import (
    DEFAULT_IGNORED_RELATIONS,
    DEFAULT_WIDTH,
    LLMRelationPruner,
    RelationPruner,
    SimilarityRelationPruner,
    prune_relations_node,
)
from kg_agent.tools.verify import LLMVerifier, ScoreVerifier, Verifier, verify_node

INVERSE_NOTE = "A relation starting with ^ is walked backwards (^starred_actors: from an actor to the films that list them)."
PATH_NOTE = "A reasoning path is written 'entity -> relation -> entity -> ...', e.g. 'Tom Hanks -> ^starred_actors -> Big -> directed_by -> Penny Marshall'."
MAX_LIMIT = 200


# ---------------------------------------------------------------------------------------------- helpers
def _validation_message(error: ValidationError | Exception) -> str:
    """A short message for arguments that do not match the tool's schema."""
    if isinstance(error, ValidationError):
        parts = [f"{'.'.join(str(x) for x in e['loc']) or 'input'}: {e['msg']}" for e in error.errors()[:5]]
        return "invalid arguments: " + "; ".join(parts)
    return f"invalid arguments: {error}"


def _capped(items: list, limit: int, what: str) -> tuple[list, str | None]:
    """``items[:limit]`` and a note saying how many were left out (``None`` when none was)."""
    if len(items) <= limit:
        return items, None
    return items[:limit], f"showing the first {limit} of {len(items)} {what}"


def _with_notes(result: dict, notes: Iterable[str | None]) -> dict:
    kept = [n for n in notes if n]
    if kept:
        result["note"] = "; ".join(kept)
    return result


def _entity_ids_for(kg: KnowledgeGraph, text: str) -> list[str]:
    """Ids of the entities a text names: an id itself, else the entities labelled so (best first)."""
    found = [e.id for e in kg.find_entities(text)]
    if found:
        return found
    try:
        return [text] if kg.has_entity(text) else []
    except Exception:  # not a valid id for this backend
        return []


def unknown_entity_message(kg: KnowledgeGraph, text: str) -> str:
    """The message for a name the KG does not have, naming the closest labels."""
    closest: list[str] = []
    index = kg.label_index()
    for label in closest_labels(kg, text, limit=5, cutoff=0.5):  # every spelling of each close label
        closest.extend(kg.label(i) or label for i in index.get(normalize_label(label), [])[:3])
    closest = list(dict.fromkeys(closest))[:6]
    hint = ("closest labels: " + ", ".join(repr(c) for c in closest)) if closest else "no similar label either"
    return (f"{text!r} is not an entity of the knowledge graph ({hint}). "
            "Use an exact label or id, e.g. one returned by search_entities.")


def resolve_entity(kg: KnowledgeGraph, text: str) -> Entity:
    """The entity named by a label or id; :class:`ToolException` naming the closest labels when there is none."""
    text = (text or "").strip()
    if not text:
        raise ToolException("no entity given: pass an entity label or id (search_entities finds them)")
    ids = _entity_ids_for(kg, text)
    if not ids:
        raise ToolException(unknown_entity_message(kg, text))
    return Entity(ids[0], kg.label(ids[0]) or ids[0])


def _check_relation(kg: KnowledgeGraph, entity: Entity, relation: str, limit: int = 40) -> str:
    """The relation if the entity has it; otherwise a :class:`ToolException` listing the ones it has."""
    relation = (relation or "").strip().strip("'\"`")
    available = kg.relations(entity.id)
    if relation in available:
        return relation
    shown, note = _capped(available, limit, "relations")
    listed = ", ".join(shown) + (f" ({note})" if note else "")
    raise ToolException(
        f"{entity.label} has no relation {relation!r}. Its relations: {listed or 'none'}. {INVERSE_NOTE}"
    )


def _relation_list(value: str | Sequence[str]) -> list[str]:
    """A relation path given as a list, ``<PATH> r1 <SEP> r2 </PATH>``, ``r1 -> r2`` or ``r1, r2``."""
    if isinstance(value, str):
        if "<" in value or "->" in value:
            parsed = parse_relation_paths(value)
            return parsed[0] if parsed else []
        return [r for r in (part.strip().strip("'\"`") for part in value.replace(",", " ").split()) if r]
    out: list[str] = []
    for item in value:
        out.extend(_relation_list(item) if ("<" in item or "->" in item or "," in item) else [item.strip().strip("'\"`")])
    return [r for r in out if r]


def paths_from_texts(kg: KnowledgeGraph, texts: Iterable[str], *, max_candidates: int = 50) -> tuple[list[dict], list[str]]:
    """Reasoning-path dicts (as the nodes use them) for path texts, each checked against the KG.

    ``"Tom Hanks -> ^starred_actors -> Big"`` is walked edge by edge: a path whose entities or relations
    the KG does not have is skipped and a warning says where it breaks.
    """
    paths: list[dict] = []
    warnings: list[str] = []
    for text in texts:
        text = str(text).strip()
        parts = [p.strip() for p in text.split("->")]
        if not text or any(not p for p in parts) or len(parts) % 2 == 0:
            warnings.append(f"skipped {text!r}: not a reasoning path ('entity -> relation -> entity ...')")
            continue
        labels, relations = parts[0::2], parts[1::2]
        frontier = [(i,) for i in _entity_ids_for(kg, labels[0])]
        if not frontier:
            warnings.append(f"skipped {text!r}: {unknown_entity_message(kg, labels[0])}")
            continue
        broken = None
        for relation, label in zip(relations, labels[1:]):
            wanted = normalize_label(label)
            extended = [
                nodes + (n,)
                for nodes in frontier
                for n in kg.neighbors(nodes[-1], relation)
                if n == label or normalize_label(kg.label(n) or n) == wanted
            ]
            if not extended:
                broken = f"{kg.label(frontier[0][-1])} -> {relation} -> {label} is not in the knowledge graph"
                break
            frontier = extended[:max_candidates]
        if broken:
            warnings.append(f"skipped {text!r}: {broken}")
            continue
        paths.append(node_path_to_path(kg, frontier[0], relations).to_dict())
    return paths, warnings


def _entity_json(entity: Entity | dict) -> dict:
    return entity.to_dict() if isinstance(entity, Entity) else {"id": entity["id"], "label": entity["label"]}


# ---------------------------------------------------------------------------------------------- base
class KGTool(BaseTool):
    """A tool over one :class:`KnowledgeGraph` (read only). Errors come back as messages, not exceptions."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    kg: KnowledgeGraph = Field(exclude=True)
    #: Longest list a result shows (the rest is summarised in ``note``).
    max_items: int = 20
    handle_tool_error: bool = True
    handle_validation_error: Any = _validation_message

    def _limit(self, limit: int | None) -> int:
        return max(1, min(int(limit or self.max_items), MAX_LIMIT))


class _DeciderTool(KGTool):
    """A tool that asks a decider (LLM one when ``model`` is set, else offline); built on first use."""

    model: BaseChatModel | None = Field(default=None, exclude=True)
    _decider_cache: Any = PrivateAttr(default=None)
    _decider_lock: Any = PrivateAttr(default_factory=threading.Lock)

    def _given_decider(self) -> Any:
        return None

    def _default_decider(self) -> Any:
        raise NotImplementedError

    def decider(self) -> Any:
        given = self._given_decider()
        if given is not None:
            return given
        with self._decider_lock:
            if self._decider_cache is None:
                self._decider_cache = self._default_decider()
            return self._decider_cache


# ---------------------------------------------------------------------------------------------- lookups
class SearchEntitiesInput(BaseModel):
    text: str = Field(description="A name or part of a name, e.g. 'Tom Hanks' or 'forrest'.")
    limit: int = Field(default=10, ge=1, le=MAX_LIMIT, description="Most entities to return.")


class SearchEntitiesTool(KGTool):
    name: str = "search_entities"
    description: str = (
        "Find entities of the knowledge graph by name. Returns up to `limit` matches (exact label first, then "
        "labels containing the text, then similar spellings), each with its id, label and the names of its "
        "relations. Use it to get the exact label or id other tools need. " + INVERSE_NOTE
    )
    args_schema: type[BaseModel] = SearchEntitiesInput

    def _run(self, text: str, limit: int = 10, run_manager: CallbackManagerForToolRun | None = None) -> dict:
        text = (text or "").strip()
        if not text:
            raise ToolException("no text given: pass (part of) a name to search for")
        limit = self._limit(limit)
        exact = self.kg.find_entities(text)  # ranked: the label as written first
        found = list(dict.fromkeys([*exact, *search_entities(self.kg, text, limit=limit + 1)]))
        entities = [
            {**e.to_dict(), "relations": self.kg.relations(e.id)[:10]} for e in found[:limit]
        ]
        result: dict = {"query": text, "entities": entities}
        notes = [f"more than {limit} entities match; pass a larger limit or a more specific text" if len(found) > limit else None]
        if not entities:
            notes.append(unknown_entity_message(self.kg, text))
        return _with_notes(result, notes)


class EntityInput(BaseModel):
    entity: str = Field(description="The entity's exact label (e.g. 'Tom Hanks') or id.")


class EntityRelationsTool(KGTool):
    name: str = "entity_relations"
    description: str = (
        "List the relations of one entity: `outgoing` (entity -relation-> other) and `incoming` "
        "(other -relation-> entity, written ^relation), each with how many entities it leads to. "
        "Use a relation from this list with `neighbours` or in a relation path. " + INVERSE_NOTE
    )
    args_schema: type[BaseModel] = EntityInput
    max_items: int = 50

    def _run(self, entity: str, run_manager: CallbackManagerForToolRun | None = None) -> dict:
        found = resolve_entity(self.kg, entity)
        edges = self.kg.edges(found.id)
        relations = self.kg.relations(found.id)
        shown, note = _capped(relations, self.max_items, "relations")
        outgoing = {r: len(edges[r]) for r in shown if not r.startswith("^")}
        incoming = {r: len(edges[r]) for r in shown if r.startswith("^")}
        return _with_notes({"entity": found.to_dict(), "outgoing": outgoing, "incoming": incoming}, [note])


class NeighboursInput(BaseModel):
    entity: str = Field(description="The entity's exact label (e.g. 'Tom Hanks') or id.")
    relation: str = Field(description="A relation of the entity, e.g. 'directed_by', or '^starred_actors' to walk it backwards.")
    limit: int = Field(default=20, ge=1, le=MAX_LIMIT, description="Most entities to return.")


class NeighboursTool(KGTool):
    name: str = "neighbours"
    description: str = (
        "Follow one relation from an entity and return the entities it leads to (id and label), with their "
        "total count. Example: entity='Tom Hanks', relation='^starred_actors' gives the films Tom Hanks starred "
        "in; entity='Forrest Gump', relation='directed_by' gives its director. " + INVERSE_NOTE
    )
    args_schema: type[BaseModel] = NeighboursInput

    def _run(self, entity: str, relation: str, limit: int = 20, run_manager: CallbackManagerForToolRun | None = None) -> dict:
        found = resolve_entity(self.kg, entity)
        relation = _check_relation(self.kg, found, relation)
        ids = self.kg.neighbors(found.id, relation)
        shown, note = _capped(ids, self._limit(limit), "entities")
        return _with_notes({
            "entity": found.to_dict(),
            "relation": relation,
            "count": len(ids),
            "neighbours": [{"id": i, "label": self.kg.label(i) or i} for i in shown],
        }, [note])


# ---------------------------------------------------------------------------------------------- RoG
class PlanInput(BaseModel):
    question: str = Field(description="The question, e.g. 'who directed the films that [Tom Hanks] starred in'.")
    topic_entities: list[str] | None = Field(
        default=None, description="The question's entities (labels or ids); found in the question when omitted."
    )
    k: int = Field(default=DEFAULT_K, ge=1, le=20, description="How many relation paths to propose (RoG's K).")


class PlanTool(_DeciderTool):
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
        offline = SimilarityPlanner(self.kg)
        return LLMPlanner(self.kg, self.model, fallback=offline) if self.model is not None else offline

    def _run(self, question: str, topic_entities: list[str] | None = None, k: int = DEFAULT_K,
             run_manager: CallbackManagerForToolRun | None = None) -> dict:
        state = _linked_state(self.kg, question, topic_entities)
        state.update(plan_node(state, planner=self.decider(), k=k))
        result = {
            "question": state["question"],
            "topic_entities": [_entity_json(e) for e in state["topic_entities"]],
            "plans": [{"relations": p["relations"], "score": p["score"], "planner": p.get("source", "")} for p in state["plans"]],
        }
        if state.get("warnings"):
            result["warnings"] = state["warnings"][:5]
        return result


def _linked_state(kg: KnowledgeGraph, question: str, topic_entities: Sequence[str] | None = None) -> dict:
    """RoG's link step for a tool call; :class:`ToolException` (with the closest labels) when no entity is found."""
    question = (question or "").strip()
    if not question:
        raise ToolException("no question given")
    state: dict = {"question": question}
    if topic_entities:
        state["topic_entities"] = [str(t) for t in topic_entities]
    state.update(link_node(state, kg=kg))
    if not state["topic_entities"]:
        reasons = [w.removeprefix("link: ") for w in state.get("warnings") or []]
        if topic_entities:
            reasons = [unknown_entity_message(kg, str(t)) for t in topic_entities]
        raise ToolException("; ".join(reasons) or "no entity of the knowledge graph found in the question")
    return state


class RetrieveInput(BaseModel):
    relations: list[str] | str = Field(
        description="The relation path to follow, in order, e.g. ['^starred_actors', 'directed_by'] (a plan's relations)."
    )
    entity: str | None = Field(default=None, description="Start entity (exact label or id). Give this or `question`.")
    question: str | None = Field(default=None, description="A question whose entities are the start (when no `entity`).")
    limit: int = Field(default=20, ge=1, le=MAX_LIMIT, description="Most paths and answers to show.")


class RetrieveTool(KGTool):
    name: str = "retrieve"
    description: str = (
        "Follow a relation path from a start entity (or from the entities of a question) and return every "
        "reasoning path it yields (RoG's constrained search) plus the distinct entities reached (`answers`). "
        "Pass the paths to `answer` or `verify`. " + PATH_NOTE + " " + INVERSE_NOTE
    )
    args_schema: type[BaseModel] = RetrieveInput
    #: Cap on paths the search keeps (RoG's Algorithm 1 stops there and says so).
    max_paths: int = DEFAULT_MAX_PATHS

    def _run(self, relations: list[str] | str, entity: str | None = None, question: str | None = None, limit: int = 20,
             run_manager: CallbackManagerForToolRun | None = None) -> dict:
        rels = _relation_list(relations)
        if not rels:
            raise ToolException("no relation given: pass the relation path to follow, e.g. ['^starred_actors', 'directed_by']")
        unknown = [r for r in rels if not self.kg.has_relation(base_relation(r))]
        if unknown:
            known, note = _capped(self.kg.relation_names(), 40, "relations")
            raise ToolException(
                f"unknown relation(s) {', '.join(map(repr, unknown))}; the knowledge graph has: {', '.join(known)}"
                + (f" ({note})" if note else "") + f". {INVERSE_NOTE}"
            )
        if entity:
            starts = [resolve_entity(self.kg, entity)]
        elif question:
            starts = [Entity.from_dict(e) for e in _linked_state(self.kg, question)["topic_entities"]]
        else:
            raise ToolException("give the start: `entity` (a label or id) or `question`")
        found = retrieve_paths(self.kg, [e.id for e in starts], rels, max_paths=self.max_paths)
        limit = self._limit(limit)
        texts = list(dict.fromkeys(p.text() for p in found.paths))
        answers = [e.label for e in found.answers]
        shown_paths, paths_note = _capped(texts, limit, "paths")
        shown_answers, answers_note = _capped(answers, limit, "answers")
        notes = [paths_note, answers_note]
        if found.truncated:
            notes.append(f"the search stopped at {self.max_paths} paths")
        if not found.paths:
            notes.append(self._dead_end(starts, rels))
        return _with_notes({
            "start": [e.label for e in starts],
            "relation_path": relation_path_text(rels),
            "count": len(texts),
            "paths": shown_paths,
            "answers": shown_answers,
        }, notes)

    def _dead_end(self, starts: list[Entity], relations: list[str]) -> str:
        """Where the relation path stops leading anywhere."""
        ids = [e.id for e in starts]
        where = ", ".join(e.label for e in starts)
        for step in range(1, len(relations) + 1):
            reached = retrieve_paths(self.kg, ids, relations[:step], max_paths=self.max_paths)
            if not reached.paths:
                return f"no path: {relations[step - 1]!r} leads to no new entity from {where} (see entity_relations)"
            ends = reached.answers
            where = f"the {len(ends)} entities reached by {relation_path_text(relations[:step])}"
        return "no path"


class PathsInput(BaseModel):
    question: str = Field(description="The question to answer.")
    paths: list[str] = Field(
        description="Reasoning paths as returned by `retrieve`, e.g. ['Tom Hanks -> ^starred_actors -> Big -> directed_by -> Penny Marshall']."
    )


class AnswerTool(_DeciderTool):
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
        return LLMAnswerer(self.model) if self.model is not None else VoteAnswerer()

    def _run(self, question: str, paths: list[str], run_manager: CallbackManagerForToolRun | None = None) -> dict:
        if not (question or "").strip():
            raise ToolException("no question given")
        path_dicts, warnings = paths_from_texts(self.kg, paths)
        state = {"question": question.strip(), "paths": path_dicts, "plans": [], "warnings": warnings}
        state.update(answer_node(state, answerer=self.decider()))
        answers, note = _capped(state["answers"], self.max_items, "answers")
        result = {
            "question": state["question"],
            "answers": [
                {"answer": a["answer"], "grounded": a["grounded"], "paths": [p["text"] for p in a.get("paths", [])[:2]]}
                for a in answers
            ],
        }
        if state.get("warnings"):
            result["warnings"] = state["warnings"][:5]
        return _with_notes(result, [note])


# ---------------------------------------------------------------------------------------------- ToG
class PruneRelationsInput(BaseModel):
    question: str = Field(description="The question being answered.")
    entity: str = Field(description="The entity whose relations to rank (exact label or id).")
    width: int = Field(default=DEFAULT_WIDTH, ge=1, le=20, description="How many relations to keep (ToG's W).")


class PruneRelationsTool(_DeciderTool):
    name: str = "prune_relations"
    description: str = (
        "Rank an entity's relations by how much they help answer the question and keep the best `width` (ToG "
        "relation pruning). Returns the kept relations with scores summing to 1; then use `prune_entities` or "
        "`neighbours` with one of them. " + INVERSE_NOTE
    )
    args_schema: type[BaseModel] = PruneRelationsInput
    pruner: Any = Field(default=None, exclude=True)
    ignored_relations: tuple[str, ...] = DEFAULT_IGNORED_RELATIONS

    def _given_decider(self) -> RelationPruner | None:
        return self.pruner

    def _default_decider(self) -> RelationPruner:
        offline = SimilarityRelationPruner()
        return LLMRelationPruner(self.model, fallback=offline) if self.model is not None else offline

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
    relation: str = Field(description="The relation to follow from it, e.g. 'directed_by' or '^starred_actors'.")
    width: int = Field(default=DEFAULT_WIDTH, ge=1, le=20, description="How many entities to keep (ToG's W).")


class PruneEntitiesTool(_DeciderTool):
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
        offline = SimilarityEntityScorer()
        return LLMEntityScorer(self.model, fallback=offline) if self.model is not None else offline

    def _run(self, question: str, entity: str, relation: str, width: int = DEFAULT_WIDTH,
             run_manager: CallbackManagerForToolRun | None = None) -> dict:
        found = resolve_entity(self.kg, entity)
        relation = _check_relation(self.kg, found, relation)
        pair = {"chain": 0, "entity": found.to_dict(), "relation": relation, "relation_score": 1.0, "score": 1.0}
        state = {"question": (question or "").strip(), "frontier": [new_chain(found)], "candidate_relations": [pair],
                 "width": width}
        update = prune_entities_node(state, kg=self.kg, scorer=self.decider(), width=width)
        chains = update["frontier"]
        result = {
            "entity": found.to_dict(),
            "relation": relation,
            "candidates": len(self.kg.neighbors(found.id, relation)),
            "entities": [{**c["triples"][-1]["tail"], "score": c["scores"][-1]} for c in chains],
            "paths": [c["text"] for c in chains],
        }
        if update.get("warnings"):
            result["warnings"] = update["warnings"][:5]
        return result


class VerifyTool(_DeciderTool):
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
        offline = ScoreVerifier(self.kg)
        return LLMVerifier(self.model, fallback=offline) if self.model is not None else offline

    def _run(self, question: str, paths: list[str], run_manager: CallbackManagerForToolRun | None = None) -> dict:
        if not (question or "").strip():
            raise ToolException("no question given")
        path_dicts, warnings = paths_from_texts(self.kg, paths)
        if not path_dicts:
            raise ToolException("no usable reasoning path: " + ("; ".join(warnings[:3]) or "pass paths from retrieve or prune_entities"))
        chains = [
            {"text": p["text"], "start": p["start"], "triples": p["steps"], "score": round(1.0 - i * 1e-3, 6),
             "scores": [], "depth": len(p["steps"])}
            for i, p in enumerate(path_dicts)
        ]
        state = {"question": question.strip(), "chains": chains, "depth": max(c["depth"] for c in chains),
                 "warnings": warnings}
        update = verify_node(state, verifier=self.decider())
        verification = update["verification"]
        result = {"sufficient": bool(verification["sufficient"]), "answer": verification.get("answer")}
        if update.get("warnings"):
            result["warnings"] = update["warnings"][:5]
        return result


# ---------------------------------------------------------------------------------------------- factory
TOOL_CLASSES: dict[str, type[KGTool]] = {
    "search_entities": SearchEntitiesTool,
    "entity_relations": EntityRelationsTool,
    "neighbours": NeighboursTool,
    "plan": PlanTool,
    "retrieve": RetrieveTool,
    "prune_relations": PruneRelationsTool,
    "prune_entities": PruneEntitiesTool,
    "verify": VerifyTool,
    "answer": AnswerTool,
}


def kg_tools(
    kg: KnowledgeGraph,
    *,
    model: BaseChatModel | str | None = None,
    planner: Planner | None = None,
    include: Iterable[str] | None = None,
) -> list[BaseTool]:
    """The node tools over ``kg``, ready for a tool-calling agent (see the module docstring).

    Args:
        kg: the knowledge graph (only read).
        model: a chat model (or ``"openai:gpt-4o-mini"``) for the deciding tools (plan, prune_relations,
            prune_entities, verify, answer); each falls back to its offline twin. ``None``: all offline.
        planner: the planner of the ``plan`` tool (e.g. an ``ExemplarPlanner``); default: LLM planner with
            a model, else the offline similarity planner.
        include: tool names to return (default all): ``search_entities``, ``entity_relations``,
            ``neighbours``, ``plan``, ``retrieve``, ``prune_relations``, ``prune_entities``, ``verify``, ``answer``.

    Example::

        tools = kg_tools(open_kg())
        neighbours = {t.name: t for t in tools}["neighbours"]
        neighbours.invoke({"entity": "Tom Hanks", "relation": "^starred_actors"})
    """
    if isinstance(model, str):
        from kg_agent.llm.models import resolve_chat_model

        model = resolve_chat_model(model)
    names = list(TOOL_CLASSES) if include is None else list(dict.fromkeys(include))
    unknown = [n for n in names if n not in TOOL_CLASSES]
    if unknown:
        raise ValueError(f"unknown tool name(s) {unknown}; choose from {list(TOOL_CLASSES)}")
    tools: list[BaseTool] = []
    for name in names:
        cls = TOOL_CLASSES[name]
        kwargs: dict[str, Any] = {"kg": kg}
        if issubclass(cls, _DeciderTool):
            kwargs["model"] = model
        if cls is PlanTool:
            kwargs["planner"] = planner
        tools.append(cls(**kwargs))
    return tools


# ---------------------------------------------------------------------------------------------- as_tool
class QuestionInput(BaseModel):
    question: str = Field(
        description="The full question in natural language, e.g. 'who directed the films that [Tom Hanks] starred in' "
        "(square brackets around entity names are optional and help find them)."
    )


DEFAULT_AS_TOOL_DESCRIPTION = (
    "Answer a question from the knowledge graph. Input: the whole question in natural language. Returns the answers, "
    "each with a reasoning path from the knowledge graph that supports it. " + PATH_NOTE + " " + INVERSE_NOTE
)
_REASON_PREFIXES = ("link:", "plan:", "retrieve:", "answer:", "examine:")


def format_answers(result: dict, *, max_answers: int = 20, max_paths_per_answer: int = 1) -> str:
    """Compact text of a method graph's result: one line per answer with its supporting path(s)."""
    answers = result.get("answers") or []
    if not answers:
        reasons = [w for w in result.get("warnings") or [] if w.startswith(_REASON_PREFIXES)]
        why = (" Reason: " + " | ".join(reasons[-3:])) if reasons else ""
        return "No answer found in the knowledge graph." + why
    shown = answers[:max_answers]
    header = f"Answers ({len(answers)}" + (f", showing {len(shown)}" if len(shown) < len(answers) else "") + "):"
    lines = [header]
    for answer in shown:
        support = [p["text"] for p in (answer.get("paths") or [])[:max_paths_per_answer]]
        if not support:
            support = [" ".join(str(c.get("text", "")).split())[:200] for c in (answer.get("chunks") or [])[:max_paths_per_answer]]
        flag = "" if answer.get("grounded", True) else " (not supported by the knowledge graph)"
        lines.append(f"- {answer['answer']}{flag}" + (": " + " | ".join(support) if support else ""))
    return "\n".join(lines)


def _artifact(result: dict) -> dict:
    return {
        "answers": [
            {"answer": a["answer"], "entity_id": a.get("entity_id"), "grounded": a.get("grounded", True),
             "paths": [p["text"] for p in a.get("paths") or []]}
            for a in result.get("answers") or []
        ],
        "stop_reason": result.get("stop_reason", ""),
        "warnings": list(result.get("warnings") or []),
    }


class GraphTool(BaseTool):
    """A whole method graph as one tool: question in, answers with their reasoning paths out.

    The content is compact text for the model; the artifact (``ToolMessage.artifact``) holds every answer
    with all its path texts, the stop reason and the warnings.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = "answer_from_knowledge_graph"
    description: str = DEFAULT_AS_TOOL_DESCRIPTION
    args_schema: type[BaseModel] = QuestionInput
    response_format: str = "content_and_artifact"
    handle_tool_error: bool = True
    handle_validation_error: Any = _validation_message
    graph: Any = Field(exclude=True)
    max_answers: int = 20
    max_paths_per_answer: int = 1

    def _input(self, question: str, run_manager) -> tuple[dict, dict]:
        question = (question or "").strip()
        if not question:
            raise ToolException("no question given")
        config: dict = {}
        if run_manager is not None:
            config["callbacks"] = run_manager.get_child()
        if getattr(self.graph, "checkpointer", None):  # a graph compiled with memory needs a thread
            config["configurable"] = {"thread_id": f"kg-tool-{uuid.uuid4().hex}"}
        return {"question": question}, config

    def _output(self, result: dict) -> tuple[str, dict]:
        text = format_answers(result, max_answers=self.max_answers, max_paths_per_answer=self.max_paths_per_answer)
        return text, _artifact(result)

    def _run(self, question: str, run_manager: CallbackManagerForToolRun | None = None) -> tuple[str, dict]:
        state, config = self._input(question, run_manager)
        return self._output(self.graph.invoke(state, config or None))

    async def _arun(self, question: str, run_manager: AsyncCallbackManagerForToolRun | None = None) -> tuple[str, dict]:
        state, config = self._input(question, run_manager)
        return self._output(await self.graph.ainvoke(state, config or None))


def as_tool(
    graph: Any,
    *,
    name: str = "answer_from_knowledge_graph",
    description: str = DEFAULT_AS_TOOL_DESCRIPTION,
    max_answers: int = 20,
    max_paths_per_answer: int = 1,
) -> GraphTool:
    """A method graph (uncompiled ``StateGraph`` or compiled) as one tool taking ``question``.

    Returns the answers, each with its supporting path text (compact text for the model; the full list in
    the tool message's artifact). Sync and async (``ainvoke``).

    Example::

        tool = as_tool(create_rog_graph(kg))
        tool.invoke({"question": "who directed the films that [Tom Hanks] starred in"})
    """
    from langgraph.graph import StateGraph

    if isinstance(graph, StateGraph):
        graph = graph.compile()
    if not (hasattr(graph, "invoke") and hasattr(graph, "ainvoke")):
        raise TypeError(f"as_tool needs a StateGraph or a compiled graph (a Runnable), not {type(graph).__name__}")
    return GraphTool(graph=graph, name=name, description=description, max_answers=max_answers,
                     max_paths_per_answer=max_paths_per_answer)
