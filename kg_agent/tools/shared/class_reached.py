"""Answered where the class the question names is reached, not past it (issue 46 items 2 and 3).

"How many **mission roles** did [X] perform": a plan ``performed -> ^missionRole`` walks from [X] to the role nodes
(of the class *Mission Role*) and on to their missions, because the noun phrase's words also name the relation
``missionRole`` (and ``performed -> ^missionRole -> missionRole`` on to every role of those missions). The question
asks for the things of the class its whole noun phrase names, the first ones the walk reaches: a walk whose nodes at
some step are all of that class (no statement node: "members" may name the class *Membership*, whose nodes join a
member to what it holds) is answered at that step (:func:`stopped_at_the_named_class`). Only when no relation
past that step is named by a word of the question beyond its noun phrase: "which people are married to the children
of [X]" reaches persons at the children and walks on over ``spouse``, which "married" names, so it is answered at its
end.

Read from the KG: the nodes' classes (``rdf:type``, ``instance of`` ...) and the classes' names
(:mod:`~kg_agent.tools.shared.answer_classes`); the relations' names by the project's relation scorer. No word list.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import Entity
from kg_agent.kg.walks import Walk
from kg_agent.text import words as text_words
from kg_agent.tools.shared.answer_checks import statement_ends
from kg_agent.tools.shared.answer_classes import class_names
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.question_parts import QuestionParts
from kg_agent.tools.shared.scoring import mask_mentions
from kg_agent.tools.shared.similarity import shared_text_vectors


def named_by_the_noun_phrase(question: str, ids: Sequence[str], kg: KnowledgeGraph) -> frozenset[str]:
    """The classes the question's whole noun phrase ("which **unit**", "how many **physical constants**"), not an
    opening of it ("launch" of "launch site"), names among those of ``ids``, when every one of ``ids`` is of one of
    them; else none."""
    words = QuestionParts.of(question).asked.noun_phrase
    keys = [key for key in dict.fromkeys(ids) if key and not key.startswith('"')]
    if not words or not keys or len(keys) < len(set(ids)):
        return frozenset()
    classes = kg.classes_of(keys)
    if len(classes) < len(keys):
        return frozenset()
    named = class_names(kg, shared_text_vectors(None)).named(" ".join(words), {c for f in classes.values() for c in f})
    return named if named and all(named.intersection(found) for found in classes.values()) else frozenset()


def _without_noun_phrase(question: str, walks: Sequence[dict]) -> str:
    """The question with the names of the entities the walks start from masked and the words of its noun phrase left
    out: what else it says."""
    masked = mask_mentions(question, [Entity(w["start"]["id"], w["start"].get("label") or "") for w in walks
                                      if w.get("start")])
    phrase = set(QuestionParts.of(masked).asked.noun_phrase)
    return " ".join(token for token in masked.split() if " ".join(text_words(token)).lower() not in phrase)


def _key(walk: dict) -> object:
    """What one cut judges together: a RoG path's plan, else the walk's relation path."""
    return ("plan", walk["plan"]) if isinstance(walk.get("plan"), int) else Walk.from_dict(walk).relations


def stopped_at_the_named_class(question: str, walks: Sequence[dict], kg: KnowledgeGraph | None,
                               scorer: RelationPathScorer | None = None) -> tuple[list[dict], list[str]]:
    """The walks, those of a plan (or relation path) that walks past the class the question's whole noun phrase names
    cut where its nodes are all of that class (module docstring), each cut walk once; and a warning per cut. Unchanged
    without ``kg``, for a question naming no type, or when no walk passes such a step."""
    if kg is None or not QuestionParts.of(question).asked.noun_phrase:
        return list(walks), []
    groups: dict[object, list[dict]] = {}
    for walk in walks:
        if len(walk.get("steps") or ()) >= 2:
            groups.setdefault(_key(walk), []).append(walk)
    cut_at: dict[object, int] = {}
    try:
        for key, group in groups.items():
            size = _step_of_the_class(question, group, kg, scorer or RelationPathScorer())
            if size:
                cut_at[key] = size
    except KGError:
        return list(walks), []
    if not cut_at:
        return list(walks), []
    out: list[dict] = []
    seen: set[tuple] = set()
    warnings: dict[object, str] = {}
    for walk in walks:
        size = cut_at.get(_key(walk)) if walk.get("steps") else None
        if size is None:
            out.append(walk)
            continue
        found = Walk.from_dict(walk)
        cut = Walk(found.start, found.steps[:size], score=found.score, depth=found.depth, round=found.round,
                   details=found.details)
        mark = (_key(walk), cut.start.id, *(step.tail.id for step in cut.steps))
        if mark not in seen:
            seen.add(mark)
            out.append(cut.to_dict())
        warnings.setdefault(_key(walk), (
            f"answer: the question's noun names the class of the ends of {' -> '.join(found.relations[:size])}; "
            f"answered there, not past them ({' -> '.join(found.relations)})"))
    return out, list(warnings.values())


def _step_of_the_class(question: str, group: Sequence[dict], kg: KnowledgeGraph, scorer: RelationPathScorer) -> int:
    """The first step (1-based) at which every node of the group's walks is of a class the whole noun phrase names,
    when no relation past it is named beyond the noun phrase; else 0."""
    relations = Walk.from_dict(group[0]).relations
    for size in range(1, len(relations)):
        at = [w["steps"][size - 1]["tail"]["id"] for w in group]
        named = named_by_the_noun_phrase(question, at, kg)
        if not named or statement_ends([{"steps": w["steps"][:size]} for w in group], kg):
            continue  # a statement node is a step inside a fact ("members": the memberships), never an answer
        past = list(relations[size:])
        return 0 if scorer.named_hops(_without_noun_phrase(question, group), past, kg=kg) else size
    return 0
