"""Which relation a comparison of a measure compares, read from the measure's English words: "airports **higher than
1500 feet**" compares the relation whose name says it holds a height ("elev", "height_ft", "altitude"), "the
**longest** runway" the relation named "longest" rather than the one named "runways".

Two rules, both on general English and the KG's own relation names (and descriptions), nothing of one data set:

* **A dimension** (:func:`dimension_relations`): a number said in a unit of length or mass ("1500 feet", "20 kg";
  :data:`~kg_agent.text.UNIT_DIMENSIONS`), or a comparative or superlative adjective of a dimension ("higher",
  "widest"; :data:`~kg_agent.text.DIMENSION_NOUNS`), names the dimension nouns ("height", "elevation", "altitude");
  a relation whose name (or description) has a word that is one of them or the start of one ("elev" of
  "elevation") holds that dimension. Both said ("higher than 1500 feet") keep the nouns both name.
* **The adjective itself** (:func:`named_by_adjective`): of relations the question's words name equally well ("the
  longest runway" names ``longest`` and ``runways``), the one whose name is the superlative or comparative word.

* **A unit of time** (:func:`unit_scale`): a bound said in one ("shorter than a **minute**";
  :data:`~kg_agent.text.DURATION_SECONDS`) is compared with a relation whose name (``length_sec``) or description
  ("expressed **in seconds**") states the unit of its values in that unit: the bound is converted (a minute is 60
  seconds). A relation that states no unit is compared with the number as said: nothing tells what to convert to.
  A unit of time also makes "long" / "short" a length of time ("longer than a minute": a duration, a runtime).

The caller (:meth:`~kg_agent.tools.shared.aggregates.AnswerRanker.compare`) uses the dimension only when no relation
is named outright by a word of the question (:func:`named_outright`): "a rating higher than 2000" compares the
rating, not a height.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import base_relation
from kg_agent.text import DURATION_SECONDS, UNIT_DIMENSIONS, dimension_of, same_word, words
from kg_agent.tools.shared.relation_words import relation_words

#: A relation's word shorter than this names no dimension by being its start ("el", "alt" are too short to tell).
MIN_DIMENSION_PREFIX = 4


def asked_dimension(adjective: str, unit: str) -> tuple[str, ...]:
    """The dimension nouns a comparison's adjective and unit name (both: the nouns both name; else either's)."""
    by_adjective = dimension_of(adjective) if adjective else ()
    by_unit = UNIT_DIMENSIONS.get(unit.lower(), ()) if unit else ()
    if by_adjective and by_unit:
        both = tuple(n for n in by_adjective if n in by_unit)
        # "longer than a minute": a unit of time makes "long" a length of time, which a duration or a runtime holds
        return by_unit if both and unit.lower() in DURATION_SECONDS else both
    return by_adjective or by_unit


def _names_dimension(word: str, nouns: Sequence[str]) -> bool:
    return len(word) >= MIN_DIMENSION_PREFIX and any(n.startswith(word) or word == n for n in nouns)


def _words(relation: str, kg: KnowledgeGraph | None) -> list[str]:
    found = list(relation_words(relation))
    if kg is not None:
        try:
            found += words(kg.relation_description(base_relation(relation)) or "")
        except KGError:  # a description is optional evidence: a store failing to give one gives none
            pass
    return found


def dimension_relations(adjective: str, unit: str, candidates: Sequence[str], kg: KnowledgeGraph | None) -> list[str]:
    """The candidate relations holding the dimension the adjective and unit name (module docstring), sorted."""
    nouns = asked_dimension(adjective, unit)
    if not nouns:
        return []
    return sorted(r for r in candidates if r and any(_names_dimension(w, nouns) for w in _words(r, kg)))


def named_by_adjective(adjective: str, named: Sequence[str]) -> list[str]:
    """Of relations named equally well, those whose name has the comparison's adjective itself ("longest")."""
    if len(adjective) < MIN_DIMENSION_PREFIX:
        return []
    return [r for r in named if any(len(w) >= MIN_DIMENSION_PREFIX and same_word(w, adjective.lower())
                                    for w in relation_words(r))]


def named_outright(question: str, relations: Sequence[str]) -> bool:
    """Whether a word of the question is a word of one of the relations' names (up to an ending: "runway" of
    ``runways``), not only close to it."""
    asked = [w for w in words(question) if len(w) >= MIN_DIMENSION_PREFIX]
    return any(same_word(a, w) for r in relations for w in relation_words(r) if len(w) >= MIN_DIMENSION_PREFIX
               for a in asked)


def unit_scale(unit: str, relation: str, kg: KnowledgeGraph | None) -> float:
    """How many of the relation's units one of the question's is (a "minute" against a relation "expressed in
    seconds": 60.0): both units of time, the relation's the one a word of its name says (``length_sec``) or its
    description says after "in" ("expressed in seconds", "in minutes"; "the day the episode aired" states no unit).
    1.0 when the question's unit is none of time, or the relation states no unit of time (nothing to convert to)."""
    asked = DURATION_SECONDS.get(unit.lower()) if unit else None
    if asked is None or not relation:
        return 1.0
    stated = [w for w in relation_words(relation) if w in DURATION_SECONDS]
    if not stated and kg is not None:
        try:
            said = words(kg.relation_description(base_relation(relation)) or "")
        except KGError:  # a description is optional evidence: a store failing to give one gives none
            said = []
        stated = [w for before, w in zip(said, said[1:]) if before == "in" and w in DURATION_SECONDS]
    return asked / DURATION_SECONDS[stated[0]] if stated else 1.0
