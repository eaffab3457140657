"""A relational noun compounded with a modifier that is itself a relation's whole name: "the **ICAO code** of [X]".

English puts the kind of a thing before the noun naming it: an "ICAO code" is the code of the kind "ICAO", a "postal
code" a code of the post. When a KG has a relation whose whole name is the modifier (``icao``) and another named by
the head noun (``code``), the modifier's relation is the one asked for: it is the more specific of the two, and the
head noun restates what its values are (codes). A path walking the modifier's relation therefore explains the head
noun too, as the noun after a relative clause restates its hop; without this the head noun, a relational noun
(before "of"), counts as unexplained and the generic relation it names wins ("VIE", the airport's own code, for
"the ICAO code of Vienna International Airport").

Only a one-word relation name matching the modifier word (:func:`~kg_agent.text.same_word`) counts, and only the
modifier directly before the head noun: a longer relation name is already matched word by word.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_agent.text import same_word
from kg_agent.tools.shared.question_parts import QuestionParts
from kg_agent.tools.shared.relation_words import relation_words


def heads_of_named_modifiers(parts: QuestionParts, path: Sequence[str],
                             spans: Sequence[tuple[int, int] | None]) -> dict[int, int]:
    """``{head token: hop}`` for each hop whose span is one modifier word directly before a relational noun ("icao"
    in "the icao code of [X]") and whose relation's whole name is that word (``icao``): the head noun the hop
    explains with it."""
    heads: dict[int, int] = {}
    for hop, (relation, span) in enumerate(zip(path, spans)):
        if span is None or span[0] != span[1]:
            continue
        at = span[0]
        head = at + 1
        if head >= len(parts.tokens) or not parts.asks_relation[head] or parts.asks_relation[at]:
            continue
        words = relation_words(relation)
        if len(words) == 1 and same_word(words[0].lower(), parts.tokens[at]):
            heads[head] = hop
    return heads
