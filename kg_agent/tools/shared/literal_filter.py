"""A place the question names with "in" that the KG writes as a plain literal on the answers, not as a node: "which
airports **in London** have a direct flight to [X]" over a KG stating ``<airport> city "London"``. "London" is no
node to walk from; things *named after* it ("London Heathrow") are linked from the word, but they are candidates of
the answer, not what it is about. The phrase is a **filter** on the answers.

Two steps, both read from the KG's own literals (no relation named by a word list, nothing of one data set):

* **Linking** (:func:`filter_mentions`): a mention written after "in" (a run of capitalised words, the way English
  writes a place: :func:`place_phrases`) whose every linked entity holds a literal equal to the mention (case
  aside) is a filter, not a topic, when some other mention is linked too ("[X]" above): its entities are dropped
  from the topic, so the methods walk from [X] alone. A mention that is the only one linked stays (the things in
  London are then the question's topic, as before). The literal must be held by two things or more
  (:func:`held_by_several`): a value they share, not a name identifying one ("Norway" written on one country).
* **Answering** (:func:`literal_filtered`): of two or more answers that are things, those holding a literal equal to
  the place under one relation are kept when some but not all hold it; no answer holding it, or every answer, leaves
  the answers as they are (the phrase named something else: a linked country, a node).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rdflib import URIRef

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.terms import key_term
from kg_agent.kg.types import is_inverse
from kg_agent.tools.shared.aggregates import literal_text

#: "in London", "in New York": "in" and a run of capitalised words (at most four), how English writes a place.
_IN_PLACE = re.compile(r"\bin\s+((?:[A-Z][\w'.-]*)(?:\s+(?:[A-Z][\w'.-]*))*)")
MAX_PLACE_WORDS = 4
#: Most edges read per answer when looking for the place among its literals.
MAX_LITERALS_READ = 200


def place_phrases(question: str) -> list[str]:
    """The places the question names after "in" as capitalised words ("Which airports in London ..." ->
    ``["London"]``); none in a question written all in lower case or all in capitals."""
    if question.isupper():
        return []
    return [m.group(1) for m in _IN_PLACE.finditer(question) if len(m.group(1).split()) <= MAX_PLACE_WORDS]


def holding_relation(kg: KnowledgeGraph, key: str, place: str) -> str | None:
    """The relation under which ``key`` holds a plain literal equal to ``place`` (case aside) that other things hold
    too (:func:`held_by_several`: a value, not the thing's own name), else None."""
    wanted = place.casefold()
    try:
        edges = kg.edges(key)
    except KGError:
        return None
    for relation, targets in edges.items():
        if is_inverse(relation):
            continue
        for target in list(targets)[:MAX_LITERALS_READ]:
            if target.startswith('"') and literal_text(target).strip().casefold() == wanted \
                    and held_by_several(kg, relation, target):
                return relation
    return None


def held_by_several(kg: KnowledgeGraph, relation: str, literal: str) -> bool:
    """Whether two or more things hold ``literal`` (a key, N3) for ``relation``: a value they share ("London", the
    city of four airports), not a name that identifies one thing ("Norway", one country's name)."""
    try:
        rows = kg.query("SELECT DISTINCT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 2",
                        bindings={"p": URIRef(kg.relation_iri(relation)), "o": key_term(literal)})
        return len(list(rows)) >= 2
    except (KGError, ValueError):
        return False


def filter_mentions(kg: KnowledgeGraph, question: str, linked: Sequence[dict]) -> set[str]:
    """The mentions of ``linked`` (``{"id", "mention"}`` dicts) that are a place filter, not a topic (module
    docstring)."""
    by_mention: dict[str, list[str]] = {}
    for item in linked:
        by_mention.setdefault(str(item.get("mention") or "").casefold(), []).append(str(item.get("id")))
    places = {p.casefold() for p in place_phrases(question)}
    found = {m for m, ids in by_mention.items()
             if m in places and all(holding_relation(kg, key, m) is not None for key in ids)}
    return found if found and set(by_mention) - found else set()


def literal_filtered(question: str, answers: Sequence[dict], kg: KnowledgeGraph | None
                     ) -> tuple[list[dict], str] | None:
    """The answers holding the place the question names after "in" as a literal, and what was done; None when no
    place filters them (module docstring)."""
    if kg is None:
        return None
    things = [a for a in answers if a.get("entity_id") and not str(a["entity_id"]).startswith(('"', "_:"))]
    if len(things) < 2:
        return None
    for place in place_phrases(question):
        held = {str(a["entity_id"]): holding_relation(kg, str(a["entity_id"]), place) for a in things}
        relations = Counter(r for r in held.values() if r is not None)
        if not relations or len(relations) > 1 or all(r is not None for r in held.values()):
            continue
        relation = next(iter(relations))
        kept = [a for a in things if held[str(a["entity_id"])] == relation]
        return kept, (f"kept the {len(kept)} of {len(things)} answers whose {relation} is \"{place}\" (the question "
                      f"asks for those in {place}; the knowledge graph writes it as a value, not a thing)")
    return None
