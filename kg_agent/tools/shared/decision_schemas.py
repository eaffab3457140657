"""Every LLM decision as a pydantic schema, for structured output (:class:`~kg_agent.tools.shared.decider.LLMDecision`).

Each schema's :meth:`~kg_agent.tools.shared.decider.DecisionSchema.as_reply` writes its value in the text format
the decider's lenient parser reads (ToG's ``{relation (Score: 0.4)}``, RoG's ``<PATH> ... </PATH>``, the JSON the
ToG-2 prompts ask for), so a structured value goes through the same validation as a text reply.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union

from pydantic import Field, WithJsonSchema, create_model

from kg_agent.tools.shared.decider import DecisionSchema


def name_choice(names: Sequence[str]) -> Any:
    """The type of one name among ``names``: a ``Literal``, a JSON-schema ``{"type": "string", "enum": names}`` (an
    ``enum`` even of one name, which pydantic would write as ``const``, not in OpenAI's strict subset)."""
    return Annotated[Literal[tuple(names)], WithJsonSchema({"type": "string", "enum": list(names)})]


@functools.lru_cache(maxsize=512)
def _constrained(schema: type[DecisionSchema], names: tuple[str, ...]) -> type[DecisionSchema]:
    """``schema`` with its name fields limited to ``names`` (built once per schema and list; a subclass of ``schema``)."""
    if issubclass(schema, KeptEntities):
        return create_model(schema.__name__, __base__=schema, keep=(list[name_choice(names)], ...))
    if issubclass(schema, Answers):  # grounding="strict": the retrieved path ends, and "none"
        return create_model(schema.__name__, __base__=schema, answers=(list[name_choice(names)], ...))
    if issubclass(schema, Verification):  # grounding="strict": the answer is an explored chain's end, or none
        return create_model(schema.__name__, __base__=schema, answer=(name_choice(names) | None, None))
    if issubclass(schema, ClueQueries):  # one query per topic entity, each naming one of them
        clue = create_model(EntityClue.__name__, __base__=EntityClue, entity=(name_choice(names), ...))
        return create_model(schema.__name__, __base__=schema, clues=(list[clue], ...))
    if issubclass(schema, RelationPaths):  # each path one the KG can walk from the topic entities (the trie's leaves)
        return create_model(schema.__name__, __base__=schema, paths=(list[name_choice(names)], ...))
    item = create_model(ScoredName.__name__, __base__=ScoredName,
                        name=(name_choice(names), Field(description="a name from the list given")))
    return create_model(schema.__name__, __base__=schema, items=(list[item], ...))


def path_choice(relations: Sequence[str]) -> str:
    """A relation path as :class:`RelationPaths` writes it: ``relation1 <SEP> relation2``."""
    return " <SEP> ".join(relations)


class NamesFromTheKG(DecisionSchema):
    """A decision whose names (relations, entities, relation paths) come from the KG's candidates: for one call its
    name fields are limited to them (:func:`_constrained`, a JSON-schema ``enum``)."""

    @classmethod
    def with_candidates(cls, names: Sequence[str]) -> type[DecisionSchema]:
        return _constrained(cls, tuple(names)) if names else cls


class ScoredName(DecisionSchema):
    name: str = Field(description="a name from the list given")
    score: float = Field(description="its contribution, from 0 to 1")


class ScoredNames(NamesFromTheKG):
    """ToG's relation pruning and entity scoring: names from the list with scores summing to 1."""

    items: list[ScoredName]

    def as_reply(self) -> str:
        return "\n".join(f"{{{item.name} (Score: {item.score})}}" for item in self.items)


class RelationPaths(NamesFromTheKG):
    """RoG's plans: relation paths, each written ``relation1 <SEP> relation2`` with relations from the list given.

    A path is one string, as the planning prompt writes it, so that the paths the KG can walk from the topic entities
    (the trie of walkable paths, GCR's constraint) are one ``enum`` (:func:`path_choice`): under it a model can only
    name a path the KG has, in any provider's JSON-schema subset."""

    paths: list[str] = Field(description="relation paths, each written relation1 <SEP> relation2")

    def as_reply(self) -> str:
        return "\n".join(f"<PATH> {path} </PATH>" for path in self.paths if path.strip())


class Answers(NamesFromTheKG):
    """The answers, as short as possible."""

    answers: list[str]

    def as_reply(self) -> str:
        return json.dumps(self.answers)


class Verification(NamesFromTheKG):
    """ToG's verification: are the triplets enough to answer, and if so the answer."""

    sufficient: bool
    answer: str | None = None

    def as_reply(self) -> str:
        if not self.sufficient:
            return "{No}."
        return "{Yes}." + (f" The answer is {{{self.answer}}}." if self.answer else "")


class Instructions(DecisionSchema):
    """ToG-I's instructions and the entities they name."""

    instructions: list[str]
    topic_entities: list[str] = Field(default_factory=list)


class Summary(DecisionSchema):
    """ToG-I's integrated instruction."""

    summary: str

    def as_reply(self) -> str:
        return self.summary


class KeptEntities(NamesFromTheKG):
    """ToG-2's topic prune: the names of the linked entities to keep."""

    keep: list[str]


class EntityClue(DecisionSchema):
    entity: str
    query: str


class ClueQueries(NamesFromTheKG):
    """ToG-2's clue queries, one per topic entity."""

    clues: list[EntityClue]

    def as_reply(self) -> str:
        return json.dumps({clue.entity: clue.query for clue in self.clues})


class EntityRelations(DecisionSchema):
    entity: str
    relations: list[ScoredName]


class RelationChoices(DecisionSchema):
    """ToG-2's relation prune: the relations chosen per topic entity, with scores."""

    choices: list[EntityRelations]

    def as_reply(self) -> str:
        return json.dumps({c.entity: {r.name: r.score for r in c.relations} for c in self.choices})

    @classmethod
    def with_candidates(cls, names: Mapping[str, Sequence[str]]) -> type[DecisionSchema]:
        """Each choice one topic entity (an ``enum`` of its label) with relations from its own list."""
        return _constrained_per_entity(cls, tuple((entity, tuple(relations)) for entity, relations in names.items()))


@functools.lru_cache(maxsize=256)
def _constrained_per_entity(schema: type[DecisionSchema], groups: tuple[tuple[str, tuple[str, ...]], ...]) -> type[DecisionSchema]:
    """``schema`` (:class:`RelationChoices`) whose choices are each one of ``groups``' entities with its own relations."""
    if not groups:
        return schema
    choices = []
    for number, (entity, relations) in enumerate(groups, start=1):
        item = create_model(f"{ScoredName.__name__}{number}", __base__=ScoredName,
                            name=(name_choice(relations), Field(description="a relation of this entity")))
        choices.append(create_model(f"{EntityRelations.__name__}{number}", __base__=EntityRelations,
                                    entity=(name_choice([entity]), ...), relations=(list[item], ...)))
    return create_model(schema.__name__, __base__=schema, choices=(list[Union[tuple(choices)]], ...))  # noqa: UP007


class Examination(DecisionSchema):
    """ToG-2's examine & reason: sufficient with the answers, or a supplementary clue query."""

    sufficient: bool
    answer: list[str] = Field(default_factory=list)
    clue: str = ""
