"""Asking the user which entity a mention means, when two or more fit it equally well ("which Paris?").

With ``ask_when_ambiguous=True`` (:class:`~kg_agent.settings.GraphSettings`; off by default), a method graph's link
step stops the run with LangGraph's ``interrupt`` for each mention whose best link score is shared by several
entities (a bracketed ``[Paris]`` that two entities are labelled), in question order. The interrupt's value is
:func:`ambiguity_request`'s: the question, the mention and the candidates, each with its ``id``, ``label``,
``classes`` and a ``fact`` that tells it from the others (:func:`distinguishing_fact`). Its ``response_schema``
is ``{"id": one of the candidates' ids}`` (:func:`choice_schema`): a client resumes the run with
``Command(resume={"id": ...})``, the link step keeps the chosen entity for that mention and drops the others.
A resume naming no candidate is pydantic's ``ValidationError`` and nothing is saved, so the question can be
answered again. An interrupt needs a checkpointer (``compile(checkpointer=...)``) and a ``thread_id``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, create_model

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.linking import LinkedEntity

#: How close two link scores are to count as equal (they are sums of the same terms).
SCORE_TOLERANCE = 1e-9
#: Classes shown per candidate.
MAX_CLASSES = 3


def ambiguous_mentions(linked: Sequence[LinkedEntity]) -> dict[str, list[LinkedEntity]]:
    """The mentions whose best score is shared by several entities, each with those entities (by id), in the
    order the mentions were linked."""
    by_mention: dict[str, list[LinkedEntity]] = {}
    for item in linked:
        by_mention.setdefault(item.mention, []).append(item)
    tied: dict[str, list[LinkedEntity]] = {}
    for mention, items in by_mention.items():
        best = max(item.score for item in items)
        top = sorted((item for item in items if best - item.score <= SCORE_TOLERANCE), key=lambda item: item.entity.id)
        if len(top) > 1:
            tied[mention] = top
    return tied


def distinguishing_fact(kg: KnowledgeGraph, entity_id: str, others: Sequence[str]) -> str:
    """A fact of ``entity_id`` that none of ``others`` has, as ``relation -> neighbour``: on a relation they all
    have when there is one (their ``country`` differs), else on one only it has; ``""`` when none tells them apart.
    Outgoing relations before incoming ones, then by name, so the fact is the same on every run."""
    own = kg.edges(entity_id)
    theirs = [kg.edges(other) for other in others]

    def facts(relations) -> list[tuple[str, str]]:
        return [(rel, tail) for rel in sorted(relations, key=lambda r: (r.startswith("^"), r))
                for tail in sorted(own.get(rel, ())) if not any(tail in edges.get(rel, ()) for edges in theirs)]

    shared = [rel for rel in own if all(rel in edges for edges in theirs)]
    found = facts(shared) or facts(own)
    if not found:
        return ""
    relation, tail = found[0]
    return f"{relation} -> {kg.label(tail) or tail}"


def candidate_card(kg: KnowledgeGraph, entity_id: str, others: Sequence[str]) -> dict[str, Any]:
    """What the user is shown of one candidate: ``id``, ``label``, ``classes`` (labels) and ``fact``."""
    classes = kg.classes_of([entity_id]).get(entity_id, [])[:MAX_CLASSES]
    return {"id": entity_id, "label": kg.label(entity_id) or entity_id,
            "classes": [kg.label(c) or c for c in classes], "fact": distinguishing_fact(kg, entity_id, others)}


def ambiguity_request(kg: KnowledgeGraph, question: str, mention: str, candidates: Sequence[LinkedEntity]) -> dict:
    """The interrupt's value for one ambiguous mention (module docstring)."""
    ids = [item.entity.id for item in candidates]
    cards = [candidate_card(kg, key, [other for other in ids if other != key]) for key in ids]
    return {"kind": "ambiguous_entity", "question": question, "mention": mention, "candidates": cards,
            "message": f"{mention!r} fits {len(cards)} entities equally well: which one do you mean?"}


def choice_schema(ids: Sequence[str]) -> type[BaseModel]:
    """The resume value's schema: ``{"id": one of ids}``."""
    return create_model("EntityChoice", __config__=ConfigDict(extra="forbid"),
                        id=(Literal[tuple(ids)], ...))  # type: ignore[valid-type]


def ask_which(kg: KnowledgeGraph, question: str, mention: str, candidates: Sequence[LinkedEntity]) -> str:
    """Interrupt the run with the candidates of ``mention``; on resume, the chosen entity's id."""
    from langgraph.types import interrupt

    chosen = interrupt(ambiguity_request(kg, question, mention, candidates),
                       response_schema=choice_schema([item.entity.id for item in candidates]))
    return chosen.id
