"""Names a KG writes with a qualifier after them: how a mention names an entity, and when the question names the
qualifier.

Wikipedia and what is made from it (DBpedia, YAGO), library catalogues and gazetteers tell apart things of one name
by a qualifier in parentheses: "Chicago (band)", "Madonna (entertainer)", "Acre (Israel)". A question never writes it
("How many members does the band Chicago have?"). The label index keys such a label under its name without the
qualifier too (:func:`~kg_agent.kg.terms.label_keys`); linking reads here how a mention names each entity it finds:

* by a whole label (or, failing that, an alias): as before;
* only by a label less its qualifier: below a whole label (:data:`QUALIFIER_PENALTY`, as an alias ranks), so a KG
  with the city "Chicago" and "Chicago (band)" links "Chicago" to the city;
* unless the question's words right beside the mention name a word of the qualifier ("the **band** Chicago",
  "Madonna's **album** Erotica", "the **song** Thriller"): then above it (:data:`QUALIFIER_NAMED_BONUS`);
* a qualifier that writes the name itself ("Genesis (Genesis album)") tells the thing apart by another thing of that
  name, which the qualifier takes for known (the band Genesis): the name alone ranks that other thing first
  (:data:`QUALIFIER_PENALTY` once more, :func:`restates_name`).

The qualifier is read from the KG's own text against the question's own words (by root, :func:`~kg_agent.text.stem`);
the only word class read is English's function words, which end the words beside a mention ("which songs are **on**
Thriller" names no qualifier of Thriller: "songs" is what is asked, not what Thriller is). Nor does the noun a
question asks for when a relative clause with no "that" follows it ("what was the first **album** the Beatles
released", "which **album** the Beatles recorded first"): the noun after "which"/"what" or an ordinal ("first",
"last") is the asked type, the mention is the clause's subject, not a name in apposition to it
(:func:`asks_for_noun`); English's ordinals and the WH determiners are the only words read.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_agent.kg.terms import lookup_keys, normalize_label, split_qualifier, whole_label_keys
from kg_agent.text import ARTICLES, FUNCTION_WORDS, ORDER_WORDS, PREPOSITIONS, WH_DETERMINERS, content_words, stem

#: Taken off an entity a mention names only by a label less its qualifier (as :data:`~kg_agent.kg.linking.ALIAS_PENALTY`
#: for an alias): an entity whose whole label the mention is ranks above it by more than the linking's twin margin.
QUALIFIER_PENALTY = 0.5
#: Added instead when the words beside the mention name its qualifier ("the band Chicago"): it then ranks above a
#: whole-label twin by as much.
QUALIFIER_NAMED_BONUS = 0.5
#: Content words read before a mention for its qualifier ("the Nirvana **song** Polly": "song", "nirvana").
BESIDE_WORDS = 3

LABEL, QUALIFIED, ALIAS = "label", "qualified", "alias"


def how_named(mention: str, names: Sequence[str]) -> tuple[str, str, str]:
    """How ``mention`` names a thing whose label predicates give ``names`` (its display label first): ``(LABEL, "",
    "")`` when it is one of them whole, ``(QUALIFIED, name, qualifier)`` when it is one of them less its qualifier
    (the first such: "Chicago", "band"), else ``(ALIAS, "", "")`` (another name: an alias, or nothing the names
    say)."""
    forms = set(lookup_keys(mention))
    qualified: tuple[str, str] | None = None
    for name in names:
        if forms.intersection(whole_label_keys(name)):
            return LABEL, "", ""
        split = split_qualifier(name)
        if qualified is None and split is not None and forms.intersection(whole_label_keys(split[0])):
            qualified = split
    return (QUALIFIED, *qualified) if qualified else (ALIAS, "", "")


def words_beside(tokens: Sequence[str], begin: int, end: int) -> list[str]:
    """The content words that say what the mention ``tokens[begin:end]`` is, as English puts a noun in apposition
    to a name: right before it ("the **band** Chicago", "Madonna's **album** Erotica"; up to :data:`BESIDE_WORDS`,
    ending at a function word or a possessive's "s") or after it and an article ("Chicago the **band**"). Not the
    words right after it: there the name modifies the noun ("Nirvana **albums**", "Nirvana's **albums**": what
    Nirvana made, not what it is), nor the asked noun before a relative clause (:func:`asks_for_noun`: "the first
    **album** the Beatles released")."""
    found: list[str] = []
    for step, start in ((-1, begin - 1), (1, end + 1)):
        if step == -1 and asks_for_noun(tokens, begin, end):
            continue
        if step == 1 and not (end < len(tokens) and tokens[end] in ARTICLES):
            break
        i = start
        while 0 <= i < len(tokens) and len(found) < BESIDE_WORDS * (1 if step < 0 else 2):
            word = tokens[i]
            if word in FUNCTION_WORDS or len(word) < 2:
                break
            found.append(word)
            i += step
    return found


def asks_for_noun(tokens: Sequence[str], begin: int, end: int) -> bool:
    """Whether the noun right before the mention ``tokens[begin:end]`` is the asked type with a relative clause
    after it that has no "that" ("the first **album** the Beatles released"): the noun follows a WH determiner
    ("which album", "what album"; not "who": "who **wrote** Moby Dick" has a verb there) or an ordinal ("the first
    album", "the last album"), and the mention is followed by its clause's verb (any word but a preposition: "the
    band Chicago **in** 1970" is no clause). English puts no such word before a noun in apposition to a name ("the
    band Chicago", "the Nirvana song Polly")."""
    noun = begin - 1
    if noun < 1 or tokens[noun] in FUNCTION_WORDS or end >= len(tokens):
        return False
    after = tokens[end]
    if after in PREPOSITIONS or after in ("s", "t") or len(after) < 2:
        return False
    return tokens[noun - 1] in WH_DETERMINERS or tokens[noun - 1] in ORDER_WORDS


def qualifier_named(qualifier: str, tokens: Sequence[str], begin: int, end: int) -> bool:
    """Whether a content word of the qualifier has the root of a word beside the mention (:func:`words_beside`)."""
    wanted = {stem(word) for word in content_words(normalize_label(qualifier).split())}
    return bool(wanted) and any(stem(word) in wanted for word in words_beside(tokens, begin, end))


def restates_name(qualifier: str, mention: str) -> bool:
    """Whether the qualifier writes the mention's words in a row ("Genesis album" for "genesis")."""
    return f" {normalize_label(mention)} " in f" {normalize_label(qualifier)} "
