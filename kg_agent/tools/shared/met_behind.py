"""Two things named meet behind what each reaches, on things of the kind the question asks for (issue 46 item 4).

"Who had roles in both [Apollo 8] and [Apollo 11]": each mission's walks end at its own role nodes ("Apollo 8 Mission
Commander", a named node joining the mission, a person and a role), so the two sets of ends meet nowhere; the persons
one step behind them are what the question asks for ("who") and are reached from both. When the ends two mentions'
walks reach meet nowhere and are not of the kind the question asks for, each end is stepped on once (any relation but
a class predicate, not back to where the walk came from, to named nodes only) to the nodes of that kind, and those
are the mentions' ends too (:func:`met_behind_the_ends`); the caller intersects as it does its own ends.

The kind asked is read from the question's grammar and the KG: the classes its type noun names ("which **astronauts**",
:mod:`~kg_agent.tools.shared.answer_classes`), else, for "who" or a person noun, the classes the KG names a person
(a class name whose last word is a person noun: ``foaf:Person``). A question naming neither steps on nowhere: without
a kind to check, any two things meet somewhere one step behind (a shared class of role, a shared country).
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.tools.shared.answer_classes import class_names
from kg_agent.tools.shared.answer_types import names_persons
from kg_agent.tools.shared.question_parts import QuestionParts
from kg_agent.tools.shared.scoring import mask_topic_mentions
from kg_agent.tools.shared.similarity import shared_text_vectors

#: Ends stepped on at most (a walked-out relation path's).
MAX_ENDS_STEPPED = 2000
#: Nodes read behind one end at most (a role node joins a few; a hub is not what joins two things named).
MAX_BEHIND_ONE = 50


def _of_the_kind(question: str, topic_entities: Sequence[dict], kg: KnowledgeGraph, ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` of the kind the question asks for (module docstring); none when it names no kind."""
    asked = QuestionParts.of(mask_topic_mentions(question, list(topic_entities))).asked
    if not ids or not (asked.phrase or asked.asks_persons):
        return set()
    classes = kg.classes_of(list(ids))
    every = {c for found in classes.values() for c in found}
    names = class_names(kg, shared_text_vectors(None))
    named = names.named(asked.phrase, every) if asked.phrase else frozenset()
    if not named and asked.asks_persons:
        named = frozenset(c for c in every if any(n.split() and names_persons(n.split()[-1].lower()) for n in names.names(c)))
    return {key for key, found in classes.items() if named.intersection(found)}


def met_behind_the_ends(question: str, topic_entities: Sequence[dict], groups: dict[str, set[str]],
                        walks: Sequence[dict], kg: KnowledgeGraph) -> tuple[list[dict], dict[str, set[str]]]:
    """The walks stepped on from their ends to the nodes of the kind the question asks for, and those nodes by the
    mention whose walk reaches them (module docstring); nothing when the question names no kind, or the ends are of
    it already (then they meet nowhere indeed)."""
    mention_of = {entity: mention for mention, ids in groups.items() for entity in ids}
    explored = [w for w in walks if w.get("steps") and w["start"]["id"] in mention_of]
    ends = [e for e in dict.fromkeys(w["steps"][-1]["tail"]["id"] for w in explored)
            if not e.startswith('"') and e not in mention_of][:MAX_ENDS_STEPPED]
    try:
        if not ends or _of_the_kind(question, topic_entities, kg, ends):
            return [], {}
        classes = {r.lstrip("^") for r in kg.class_fan_outs()}
        kg.prefetch(ends)
        behind = {end: [(relation, target) for relation, targets in kg.edges(end).items()
                        if relation.lstrip("^") not in classes
                        for target in targets[:MAX_BEHIND_ONE] if not target.startswith('"') and target not in mention_of]
                  for end in ends}
        kind = _of_the_kind(question, topic_entities, kg, sorted({t for found in behind.values() for _, t in found}))
        labels = kg.labels_by_id(sorted(kind))
    except KGError:
        return [], {}
    stepped: list[dict] = []
    ends_from: dict[str, set[str]] = {}
    for walk in explored:
        last = walk["steps"][-1]
        for relation, target in behind.get(last["tail"]["id"], ()):
            if target not in kind or target == last["head"]["id"] or not labels.get(target):
                continue
            tail = {"id": target, "label": labels[target]}
            stepped.append({**walk, "steps": [*walk["steps"], {"head": last["tail"], "relation": relation, "tail": tail}],
                            "text": f"{walk.get('text', '')} -> {relation} -> {tail['label']}"})
            ends_from.setdefault(mention_of[walk["start"]["id"]], set()).add(target)
    return stepped, ends_from
