"""The text kit of the question readers: the words of a relation's name, how surely two words share a root (the
lexical half of the relation-path scorer's hop evidence,
:class:`~kg_agent.tools.shared.path_scoring.RelationPathScorer`), and the closed-class English words they share,
one copy each (forms of "be", "have" and "do", the articles, the superlatives of time order): generic English
grammar, nothing of a data set; a reader needing a set of them builds it from these (``AUXILIARIES | ARTICLES``)
rather than spelling the words again."""

from __future__ import annotations

import re
from functools import lru_cache

from kg_agent.kg.relation_paths import verbalize_relation
from kg_agent.kg.types import base_relation
from kg_agent.tools.shared.scoring import STEM_LETTERS

#: Forms of "to be" ("what **was** the first ...").
BE_WORDS = frozenset({"is", "are", "was", "were"})
#: Forms of "to have" ("which term **has** the most ...").
HAVE_WORDS = frozenset({"has", "have", "had"})
#: Forms of "to do" ("what **does** [X] do").
DO_WORDS = frozenset({"do", "does", "did"})
#: The auxiliaries a question opens a clause with ("what **is** the most common ...", "**does** [X] ...").
AUXILIARIES = BE_WORDS | HAVE_WORDS | DO_WORDS
ARTICLES = frozenset({"a", "an", "the"})
#: Superlatives of time order asking for the earliest thing, and for the latest: "what was the **first** invited
#: talk at [X]" asks for a thing of the noun's kind, the one first in time.
EARLIEST_WORDS = frozenset({"first", "earliest"})
LATEST_WORDS = frozenset({"last", "latest"})
TIME_SUPERLATIVES = EARLIEST_WORDS | LATEST_WORDS

#: Words by which a question asks for a round trip through a shared neighbour ("films that share actors with [X]").
ROUND_TRIP_WORDS = frozenset({"same", "share", "shared", "shares", "sharing", "also", "together", "other", "co", "fellow"})

#: English prefixes of three letters: two words that share only one of them share no root ("subtypes"/"subset",
#: "prequel"/"premiere", "disease"/"discount").
PREFIXES = frozenset({"sub", "pre", "pro", "con", "com", "dis", "mis", "non", "out", "per", "syn", "sym", "uni", "tri"})


#: English inflectional and derivational endings: a word of 3 letters and one of these is those 3 letters' root
#: ("act|ed", "act|or", "bur|y"); with any other rest it is a word of its own ("par|t", "mat|ch").
ENDINGS = frozenset({"", "e", "s", "es", "ed", "er", "ers", "or", "ors", "ing", "ings", "y", "ies", "ied", "ion",
                     "ions", "ive", "ives", "al", "ly", "ment", "ments", "ress", "ist", "ists", "ism"})


def word_match(a: str, b: str) -> float:
    """How surely two words share a root: 1.0 from a common prefix of ``STEM_LETTERS`` letters (or one word
    whole: "directed"/"director", "released"/"release"), 0.8 from 3 letters that are no English prefix
    (:data:`PREFIXES`: "acted"/"actors", not "subtypes"/"subset") when the shorter word is those 3 letters and an
    English ending (:data:`ENDINGS`: "acted"/"actors", "bury"/"burial"; not "part"/"parent", "match"/"material"), or
    for the root of ``a`` inside a longer ``b`` ("written"/"screenwriter")."""
    if a == b:
        return 1.0
    common = 0
    for x, y in zip(a, b):
        if x != y:
            break
        common += 1
    if common >= min(STEM_LETTERS, len(a), len(b)):
        return 1.0
    shorter = a if len(a) <= len(b) else b
    if (common == 3 and a[:3] not in PREFIXES and shorter[3:] in ENDINGS) \
            or (len(a) >= STEM_LETTERS and len(b) > len(a) + 2 and a[:STEM_LETTERS] in b):
        return 0.8  # "acted"/"actors"; a relation word's root inside a longer word ("written" in "screenwriter")
    return 0.0


def relation_words(relation: str) -> list[str]:
    """The words a relation's name carries, without the inverse marker: ``^film.film.directed_by`` ->
    ``["film", "directed", "by"]``."""
    return list(_relation_words(base_relation(relation)))


@lru_cache(maxsize=1 << 16)
def _relation_words(name: str) -> tuple[str, ...]:
    return tuple(re.findall(r"[a-z0-9]+", verbalize_relation(name).lower()))


def name_words(relation: str) -> list[str]:
    """The words of a relation's own name, without its domain: ``people.person.place_of_death`` ->
    ``["place", "of", "death"]``, ``dbo.birthPlace`` -> ``["birth", "place"]`` (a question saying "film" does not
    evidence every ``film.*`` relation)."""
    return re.findall(r"[a-z0-9]+", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", base_relation(relation).rsplit(".", 1)[-1]).lower())


#: Prepositions after a participle that end a relation's name ("replaced by", "derived from").
PARTICIPLE_PREPOSITIONS = frozenset({"by", "of", "from", "to", "in", "at", "on", "with", "as", "into"})


def meaning_words(words: list[str]) -> list[str]:
    """A relation name's words without the noun before its participle, which names one of its sides (as a dotted
    name's domain does), not what the relation says: ``term replaced by`` -> ``replaced by`` (a term replaced by
    another: "which terms ..." asks for no such hop), ``countries spoken in`` -> ``spoken in`` ("what do they
    speak"); other names as they are."""
    if len(words) >= 3 and words[-1] in PARTICIPLE_PREPOSITIONS and len(words[-2]) > 4 \
            and words[-2].endswith(("ed", "en")) and not words[-3].endswith(("ed", "en", "ly")):
        return words[-2:]
    return words
