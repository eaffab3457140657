"""Which way to walk a relation between two things of one class: from the preposition before the question's entity.

A relation whose subjects and objects are things of the same classes (a route between two airports, a crossing
between two ports, a road between two towns) can be walked both ways from the question's entity, and both walks reach
things of the asked class: its class says nothing of the direction, and its name often says nothing either
(``route``, ``crossing``, ``link``; a name ending in a preposition, ``connected_to``, ``replaced_by``, is read by
:meth:`~kg_agent.tools.shared.path_scoring.RelationPathScorer._direction`). English says it with the preposition
that governs the mention: "flights **from** [X]" puts [X] where the link starts, "ferries **to** [X]" where it ends.
An RDF triple reads from its subject to its object (``:A :route :B`` is a route from A to B), so "from [X]" walks the
relation forwards from [X] and "to [X]" / "into [X]" backwards.

The classes are measured, not declared: the classes of a sample of the relation's objects and of its subjects
(:class:`~kg_agent.tools.shared.answer_types.ObjectKinds` of ``r`` and of ``^r``); the relation is a *peer relation*
when both are non-empty and the same. Prepositions are general English (:data:`~kg_agent.text.SOURCE_PREPOSITIONS`,
:data:`~kg_agent.text.TARGET_PREPOSITIONS`), articles between them and the mention skipped ("to **the** [X]").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from kg_agent.kg.types import inverse, is_inverse
from kg_agent.text import ARTICLES, SOURCE_PREPOSITIONS, TARGET_PREPOSITIONS
from kg_agent.tools.shared.question_parts import ENTITY_TOKEN, QuestionParts

if TYPE_CHECKING:
    from kg_agent.kg.graph import KnowledgeGraph


class PathScorer(Protocol):
    """What :func:`counted_one_way` asks of a scorer (:class:`~kg_agent.tools.shared.path_scoring.RelationPathScorer`,
    which imports this module): one score per relation path, higher is better."""

    def score(self, masked_question: str, paths: Sequence[Sequence[str]], *,
              kg: KnowledgeGraph | None = None) -> list[float]: ...


def governing_preposition(parts: QuestionParts, entity: int) -> str:
    """The preposition before the entity mention at token ``entity``, articles skipped ("to the [X]": "to"); "" when
    the word before it is no preposition of a start or an end."""
    at = entity - 1
    while at >= 0 and parts.tokens[at] in ARTICLES:
        at -= 1
    word = parts.tokens[at] if at >= 0 else ""
    return word if word in SOURCE_PREPOSITIONS | TARGET_PREPOSITIONS else ""


def says_a_direction(parts: QuestionParts) -> bool:
    """Whether some entity mention of the question is governed by "from", "to" or "into" (only then are the relations'
    subjects' classes read)."""
    return any(governing_preposition(parts, at) for at, token in enumerate(parts.tokens) if token == ENTITY_TOKEN)


def peer_relations(relations: Iterable[str], kinds_of: Mapping[str, object]) -> frozenset[str]:
    """The relations (as given: ``r`` or ``^r``) whose objects' and subjects' measured classes are the same, non-empty
    set (``kinds_of``: ``{relation or ^relation: ObjectKinds}``, both directions given)."""
    found = set()
    for relation in relations:
        ahead = getattr(kinds_of.get(relation), "classes", ())
        back = getattr(kinds_of.get(inverse(relation)), "classes", ())
        if ahead and set(ahead) == set(back):
            found.add(relation)
    return frozenset(found)


def peer_direction(parts: QuestionParts, relation: str, position: float) -> float:
    """+1 when the first hop ``relation`` (a peer relation) walks the way the preposition before the entity nearest
    the hop's evidence (``position``) says, -1 when it walks the other way, 0 when no such preposition governs it."""
    if not parts.entity_positions:
        return 0.0
    entity = min(parts.entity_positions, key=lambda e: abs(e - position))
    preposition = governing_preposition(parts, entity)
    if not preposition:
        return 0.0
    forwards = preposition in SOURCE_PREPOSITIONS
    return 1.0 if forwards != is_inverse(relation) else -1.0




def counted_one_way(masked_question: str, answers: Sequence[dict], scorer: PathScorer,
                    kg: KnowledgeGraph) -> list[dict]:
    """For a count: the answers but those reached over a relation walked the other way than another answer's walk from
    the same node walks it (``MUC -route->`` and ``MUC -^route->``), when the scorer rates that way lower for the
    question (:func:`peer_direction` tells it "from [X]" from "to [X]"). A beam (ToG) or plans kept side by side (RoG)
    may walk both ways; a count is of the things at one end, and the ends of the other way would be counted with them
    (:func:`~kg_agent.tools.shared.answer_checks.every_end_reached` counts every end of each walk's last step). The
    answers unchanged when no node is left both ways, or the scorer rates both alike."""
    walks: dict[tuple[str, str], tuple[str, ...]] = {}
    for answer in answers:
        for path in (answer.get("paths") or [])[:1]:
            steps = path.get("steps") or []
            if steps:
                walks.setdefault((steps[-1]["head"]["id"], steps[-1]["relation"]), tuple(s["relation"] for s in steps))
    dropped: set[tuple[str, str]] = set()
    for (head, relation), walk in walks.items():
        other = walks.get((head, inverse(relation)))
        if other is None or is_inverse(relation) or other[:-1] != walk[:-1]:
            continue
        ahead, back = scorer.score(masked_question, [walk, other], kg=kg)
        if ahead != back:
            dropped.add((head, inverse(relation)) if ahead > back else (head, relation))
    if not dropped:
        return list(answers)

    def last_step(answer: dict) -> tuple[str, str] | None:
        steps = ((answer.get("paths") or [{}])[0]).get("steps") or []
        return (steps[-1]["head"]["id"], steps[-1]["relation"]) if steps else None

    return [a for a in answers if last_step(a) not in dropped]
