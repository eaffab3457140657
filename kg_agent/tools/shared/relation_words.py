"""The words a relation's name carries as the question readers read them (with its domain, :func:`relation_words`;
without the noun before its participle, :func:`meaning_words`), and the question's cue words they share (time
superlatives, round-trip words): generic English, nothing of a data set. Tokens, name splitting, stems and the
closed-class English words are :mod:`kg_agent.text`'s."""

from __future__ import annotations

from functools import lru_cache

from kg_agent.kg.relation_paths import verbalize_relation
from kg_agent.kg.types import base_relation
from kg_agent.text import PREPOSITIONS, words

#: Superlatives of time order asking for the earliest thing, and for the latest: "what was the **first** invited
#: talk at [X]" asks for a thing of the noun's kind, the one first in time.
EARLIEST_WORDS = frozenset({"first", "earliest"})
LATEST_WORDS = frozenset({"last", "latest"})
TIME_SUPERLATIVES = EARLIEST_WORDS | LATEST_WORDS
#: Two-word superlatives of time order, read as the one-word superlative they mean: "[X]'s **most recent** album" is
#: its latest, "the **least recent**" the earliest (English: "recent" is an adjective of time order).
TIME_PHRASE_SUPERLATIVES = {("most", "recent"): "latest", ("least", "recent"): "earliest"}

#: Words by which a question asks for a round trip through a shared neighbour ("films that share actors with [X]").
ROUND_TRIP_WORDS = frozenset({"same", "share", "shared", "shares", "sharing", "also", "together", "other", "co", "fellow"})


def relation_words(relation: str) -> list[str]:
    """The words a relation's name carries, without the inverse marker: ``^film.film.directed_by`` ->
    ``["film", "directed", "by"]``."""
    return list(_relation_words(base_relation(relation)))


@lru_cache(maxsize=1 << 16)
def _relation_words(name: str) -> tuple[str, ...]:
    return tuple(words(verbalize_relation(name)))


#: Prepositions after a participle that end a relation's name ("replaced by", "derived from"): the English
#: prepositions but "for", "about" and "than", which do not join a participle to the relation's other side
#: ("known for", "cared about" name what the relation is about).
PARTICIPLE_PREPOSITIONS = PREPOSITIONS - {"for", "about", "than"}


def meaning_words(words: list[str]) -> list[str]:
    """A relation name's words without the noun before its participle, which names one of its sides (as a dotted
    name's domain does), not what the relation says: ``term replaced by`` -> ``replaced by`` (a term replaced by
    another: "which terms ..." asks for no such hop), ``countries spoken in`` -> ``spoken in`` ("what do they
    speak"); other names as they are."""
    if len(words) >= 3 and words[-1] in PARTICIPLE_PREPOSITIONS and len(words[-2]) > 4 \
            and words[-2].endswith(("ed", "en")) and not words[-3].endswith(("ed", "en", "ly")):
        return words[-2:]
    return words
