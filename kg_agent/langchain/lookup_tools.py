"""KG lookups as LangChain tools: ``search_entities``, ``entity_relations``, ``neighbours`` and ``retrieve``
(RoG's Algorithm 1); thin wrappers of :mod:`kg_agent.tools.lookups`."""

from __future__ import annotations

from langchain_core.callbacks import CallbackManagerForToolRun
from pydantic import BaseModel, Field

from kg_agent.kg.paths import DEFAULT_MAX_PATHS
from kg_agent.langchain.base import KGTool
from kg_agent.tools.lookups import (
    INVERSE_NOTE,
    MAX_LIMIT,
    PATH_NOTE,
    entity_relations,
    neighbours,
    retrieve,
    search_entities,
)


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
        return search_entities(self.kg, text, limit=self._limit(limit))


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
        return entity_relations(self.kg, entity, limit=self.max_items)


class NeighboursInput(BaseModel):
    entity: str = Field(description="The entity's exact label or id.")
    relation: str = Field(description="A relation of the entity as `entity_relations` lists it; with '^' in front, walked "
                                      "backwards (from the things that have it to the entity).")
    limit: int = Field(default=20, ge=1, le=MAX_LIMIT, description="Most entities to return.")


class NeighboursTool(KGTool):
    name: str = "neighbours"
    description: str = (
        "Follow one relation from an entity and return the entities it leads to (id and label), with their "
        "total count. The relation is one `entity_relations` lists for the entity; '^' in front walks it from its "
        "objects back to its subjects. " + INVERSE_NOTE
    )
    args_schema: type[BaseModel] = NeighboursInput

    def _run(self, entity: str, relation: str, limit: int = 20, run_manager: CallbackManagerForToolRun | None = None) -> dict:
        return neighbours(self.kg, entity, relation, limit=self._limit(limit))


class RetrieveInput(BaseModel):
    relations: list[str] | str = Field(
        description="The relation path to follow, in order: relation names as the KG lists them, '^' in front of one "
                    "walked backwards (a plan's relations)."
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
        return retrieve(self.kg, relations, entity=entity, question=question, limit=self._limit(limit),
                        max_paths=self.max_paths)


