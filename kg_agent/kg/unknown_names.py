"""Names a question gives that the KG has nothing for: "which airports in **Japan** have flights from [X]" over a KG
without Japan.

English writes a proper noun (a place, an organisation, a person) with a capital letter inside a sentence, and a
preposition's object is a noun phrase naming a thing ("in Japan", "from the Isle of Man", "to Dublin Airport"). Such
a name is a thing the question is about: when no label, name or literal of the KG holds it (as whole words, nor
spelt within the linker's fuzzy cutoff, :func:`~kg_agent.kg.linking.closest_labels`), the linker cannot have found
it, and what the other entities of the question reach answers a different question (every airport [X] flies to,
not those in Japan). :func:`unknown_names` lists them, so a method can say "the knowledge graph has no entity named
'Japan'" instead of answering without it.

Not read as names: a language's name ("in German": the KG tags literals with languages,
:func:`~kg_agent.tools.shared.language_names.language_tag`), a month ("in March"), a word in quotes (a title, the
linker's own job) or in brackets (an entity given), digits. Only the capitalised run right after a preposition
(with an article between: "in the Netherlands"; "of", "de", ... inside: "the University of Manchester") is read, and
not when a common noun follows it: then it modifies that noun ("the value of the **Hubble** constant"), as a
demonym does ("in Italian cities"); a capital opening the sentence is no preposition's object either. An era ("than
BC") is a time, no thing.
"""

from __future__ import annotations

import re

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.terms import joined_key, normalize_label
from kg_agent.text import ARTICLES, ERAS_AFTER, ERAS_BEFORE, FUNCTION_WORDS, MONTHS, NAME_PARTICLES, PREPOSITIONS

#: Within a name, lower-case words that join its capitalised ones ("Isle **of** Man", "Rio **de** Janeiro").
_JOINERS = frozenset({"of", "and", "the"}) | NAME_PARTICLES
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|\[[^\]]*\]|'[^']*'(?!\w)")
_TOKEN = re.compile(r"[^\W_](?:[\w.&-]*[^\W_])?|[^\w\s]")
#: The linker's fuzzy cutoff (:func:`~kg_agent.kg.linking.link_entities`): a name spelt this close to a label is known.
FUZZY_CUTOFF = 0.8


def prepositional_names(question: str) -> list[str]:
    """The capitalised names that are a preposition's object in ``question``, as written ("Japan", "Isle of Man")."""
    text = _QUOTED.sub(" , ", question)
    tokens = [m.group(0) for m in _TOKEN.finditer(text)]
    names: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i] not in PREPOSITIONS:  # lower case as written: a preposition, not a name's first word
            i += 1
            continue
        j = i + 1
        if j < len(tokens) and tokens[j] in ARTICLES:
            j += 1
        run: list[str] = []
        while j < len(tokens) and (_capitalised(tokens[j]) or (run and tokens[j] in _JOINERS and j + 1 < len(tokens)
                                                                and _capitalised(tokens[j + 1]))):
            run.append(tokens[j])
            j += 1
        # a capitalised word right before a common noun modifies it ("of the **Hubble** constant"): no object
        modifies = j < len(tokens) and tokens[j][:1].isalpha() and tokens[j].islower() and tokens[j] not in FUNCTION_WORDS
        if run and not modifies:
            names.append(" ".join(run))
        i = max(j, i + 1)
    return [n for n in dict.fromkeys(names) if not _not_a_thing(n)]


def _capitalised(token: str) -> bool:
    return token[:1].isupper()


def _not_a_thing(name: str) -> bool:
    from kg_agent.tools.shared.language_names import language_tag

    lowered = name.lower()
    return lowered in MONTHS or lowered in ERAS_BEFORE | ERAS_AFTER or language_tag(name) is not None or not any(c.isalpha() for c in name)


def known_name(kg: KnowledgeGraph, name: str) -> bool:
    """Whether some label, name or literal of ``kg`` is ``name`` (also with its letters and digits joined, as the
    label index keys "ISWC 2005" as "iswc2005" too), holds it as whole words, or is spelt within the linker's fuzzy
    cutoff of it."""
    from kg_agent.kg.linking import closest_labels

    key = normalize_label(name)
    if not key:
        return True
    index = kg.label_index()
    if index.get(key) or index.get(joined_key(key)):  # "Rockfest-2019" for a KG's "ROCKFEST2019"
        return True
    pattern = re.compile(r"\b" + re.escape(key) + r"\b")
    rarest = min(key.split(), key=lambda w: len(index.labels_with_word(w, limit=50)))
    if any(pattern.search(label) for label in index.iter_labels_with_word(rarest)):
        return True
    return bool(closest_labels(kg, name, limit=1, cutoff=FUZZY_CUTOFF))


def unknown_names(kg: KnowledgeGraph, question: str) -> list[str]:
    """The names a preposition of ``question`` takes that ``kg`` has nothing for (see the module docstring)."""
    return [name for name in prepositional_names(question) if not known_name(kg, name)]


def no_entity_named(names: list[str]) -> str:
    """The reason a method gives when it abstains for ``names``."""
    shown = ", ".join(repr(n) for n in names)
    return f"the knowledge graph has no entity named {shown} (no label, name or value holds it)"
