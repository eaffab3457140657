"""Entity linking: which entities of the knowledge graph does a question talk about?

1. MetaQA-style brackets (``what films did [Tom Hanks] star in``): the bracketed text is looked up.
2. Otherwise every word n-gram of the question (longest first, non-overlapping) is matched against the
   entities' labels and aliases (case, punctuation and underscores ignored), through the label index only; when
   none matches, fuzzily (typos, an inflected word: "jamaican" for Jamaica). Each entity a mention names is scored
   by the mention's length, whether the question writes the label exactly as the KG does (a cased question's
   "primary" is a word, its "Hush!" the film), how well one of its relations fits the rest of the question's words
   ("the actors in Philadelphia": the film, with ``starred_actors``, not the tag "philadelphia") and its number of
   relations; a mention whose words only name relations or classes of the KG (the tag "actors", "writer"; a page
   labelled "proceedings" where the KG has the class ``Proceedings``: the question's "which proceedings" asks for
   one, it is not about that page) is dropped when
   another mention is left, and so is one a cased question writes in lower case against a capitalised label.
   Several mentions link several entities ("... first, Blind Shaft or The Mask of Fu Manchu?"). A scheme or class
   the KG names by an acronym (*LCC*, a node many things point to) is also linked from the words it stands for
   ("Library of Congress classification"), when they cover more of the question than an exact mention inside them.
   A partial name does not replace an exact mention its words read as "<class noun> of <mention>" when the KG has
   a class the noun names whose members link to the mention's thing ("which unit of length": *Length*, whose units
   the question asks for, not the constant "atomic unit of length").
   A number in a name is its identifier, not a typo: "Endeavour 18", where the KG names "Endeavour 7" and "Endeavour 8"
   but no "Endeavour 18", links nothing (the message lists the numbers it names), nor does "chromosome 7" where it names
   only "chromosome"; a partial name keeps its label's numbers, and a typo match has the same numbers.
3. A mention without a letter or a digit (``[!!!]``, ``[🎬]``) names no entity and links to nothing.
4. Nothing found: the result says so (``no entity of the knowledge graph found in the question``) and
   lists the closest labels, so a user can rephrase.

:func:`search_entities` is the label search tools offer (exact, then labels containing the text, then fuzzy).

The work is bounded whatever the input: at most :data:`MAX_BRACKETS` bracketed mentions are looked up,
the fuzzy and partial-name passes read only the first :data:`MAX_FUZZY_TOKENS` words of the question, and a fuzzy
lookup uses the first :data:`MAX_FUZZY_WORDS` words of a mention of at most :data:`MAX_FUZZY_CHARS`
characters (a longer text cannot be a typo of a label), so a 100 kB question links in about a second.
"""

from __future__ import annotations

import collections
import difflib
import itertools
import math
import re
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.naming import HIERARCHY_NAMES
from kg_agent.kg.qualified_names import (
    ALIAS,
    LABEL,
    QUALIFIED,
    QUALIFIER_NAMED_BONUS,
    QUALIFIER_PENALTY,
    asks_for_noun,
    how_named,
    qualifier_named,
    restates_name,
)
from kg_agent.kg.relation_paths import own_name_words
from kg_agent.kg.stores.base import BoundedEdges
from kg_agent.kg.terms import (
    has_word_character,
    initials_spans,
    is_acronym,
    joined_key,
    label_key,
    lookup_keys,
    normalize_label,
    qualified_only,
    reading_order,
)
from kg_agent.kg.types import Entity
from kg_agent.text import AMOUNT_DETERMINERS, ARTICLES, COORDINATORS, FUNCTION_WORDS, content_words, stem

NO_ENTITY_MESSAGE = "no entity of the knowledge graph found in the question"
MODIFIER_NOTE = ("{!r} read as a modifier of {!r}, not as a thing the question is about: the thing of that name meets "
                 "no other thing the question names")
NUMBERED_MESSAGE = ("the question names {}, which the knowledge graph does not name: it names the words without the "
                    "number")
OTHER_NUMBERS_MESSAGE = ("the question names {}, which the knowledge graph does not name: it names only other numbers "
                         "of it ({})")

MAX_NGRAM = 12
#: Bracketed mentions looked up per question (MetaQA questions have one).
MAX_BRACKETS = 20
#: Words of the question the fuzzy passes (typos, the closest-labels hint) read.
MAX_FUZZY_TOKENS = 64
#: Words of a mention used to find fuzzy candidates, and the longest mention matched fuzzily.
MAX_FUZZY_WORDS = 8
MAX_FUZZY_CHARS = 300
_BRACKETS = re.compile(r"\[([^\[\]]+)\]")


@dataclass
class LinkedEntity:
    """An entity found in the question, with the text that matched and how well."""

    entity: Entity
    mention: str
    score: float
    how: str  # "bracket", "exact", "partial", "initials" or "fuzzy"

    def to_dict(self) -> dict:
        return {**self.entity.to_dict(), "mention": self.mention, "score": round(self.score, 4), "how": self.how}


@dataclass
class LinkResult:
    """Topic entities of a question, best first; when none was found, ``message`` and ``closest`` say why."""

    linked: list[LinkedEntity] = field(default_factory=list)
    closest: list[str] = field(default_factory=list)
    message: str | None = None
    #: what linking read otherwise than as a thing named ("'direct' read as a modifier of 'subtypes' ...")
    notes: list[str] = field(default_factory=list)

    @property
    def entities(self) -> list[Entity]:
        return [item.entity for item in self.linked]

    @property
    def found(self) -> bool:
        return bool(self.linked)


def link_entities(kg: KnowledgeGraph, question: str, *, max_entities: int = 5, fuzzy_cutoff: float = 0.8) -> LinkResult:
    """Find the topic entities of ``question`` in ``kg`` (see the module docstring for the rules)."""
    linked: list[LinkedEntity] = []
    notes: list[str] = []
    bracketed = _BRACKETS.findall(question)[:MAX_BRACKETS]
    if bracketed:
        for mention in bracketed:
            linked.extend(_link_mention(kg, mention, fuzzy_cutoff, how="bracket"))
    else:
        linked, unnamed, notes = _link_ngrams(kg, question, fuzzy_cutoff)
        if unnamed:  # "chromosome 7" where the KG names only "chromosome": the question is about what it lacks
            return LinkResult([], [], unnamed)
    linked = _with_same_names(kg, linked)
    unique: dict[str, LinkedEntity] = {}
    for item in linked:
        if item.entity.id not in unique or unique[item.entity.id].score < item.score:
            unique[item.entity.id] = item
    ranked = _ranked_things(kg, unique.values(), max_entities)
    if ranked:
        return LinkResult(ranked, notes=notes)
    closest = _closest_to_question(kg, bracketed or [question])
    hint = f"; closest labels: {', '.join(closest)}" if closest else ""
    return LinkResult([], closest, NO_ENTITY_MESSAGE + hint)


#: Labels holding a linked name's longest word read for the same name written with or without initials.
SAME_NAME_LABELS = 200


def _without_initials(label: str) -> tuple[str, ...]:
    """A normalised label's words but its one-letter ones (initials: "peter f patel schneider")."""
    return tuple(w for w in label.split() if len(w) > 1)


def _with_same_names(kg: KnowledgeGraph, linked: list[LinkedEntity]) -> list[LinkedEntity]:
    """The linked entities, each with the KG's other entities of the same name but for initials ("Peter
    Patel-Schneider" and "Peter F. Patel-Schneider") that share a neighbour with it other than a class (an
    affiliation, a co-author): one person the KG writes under two IRIs, linked from the same mention (alternatives,
    as two things of one label are). A same name with no neighbour in common is another person, and is left out."""
    index = kg.label_index()
    classes = {r.lstrip("^") for r in kg.class_fan_outs()}
    neighbours: dict[str, set[str]] = {}

    def around(key: str) -> set[str]:
        if key not in neighbours:
            neighbours[key] = {n for r, ts in kg.edges(key).items() if r.lstrip("^") not in classes
                               for n in ts if not n.startswith('"')}
        return neighbours[key]

    known = {item.entity.id for item in linked}
    out = list(linked)
    for item in linked:
        name = _without_initials(normalize_label(item.entity.label))
        if len(name) < 2 or item.entity.id.startswith("_:"):
            continue
        for label in index.labels_with_word(max(name, key=len), limit=SAME_NAME_LABELS):
            if label == normalize_label(item.entity.label) or _without_initials(label) != name:
                continue
            for twin in kg.find_entities(label):
                if qualified_only(label, twin.label):  # a name less its qualifier is not the same name
                    continue
                if twin.id not in known and not twin.id.startswith("_:") and around(twin.id) & around(item.entity.id):
                    known.add(twin.id)
                    out.append(LinkedEntity(twin, item.mention, item.score, item.how))
    return out


#: Blank nodes one mention stands for at most: a value a KG writes as a node of its own at each use (a catalogue's
#: shelf ``[ rdf:value "Horror" ]`` under every book on it) is one thing however many nodes write it.
MAX_VALUE_NODES = 10_000


def value_nodes(kg: KnowledgeGraph, name: str) -> list[str]:
    """The ids of the blank nodes named ``name`` (up to :data:`MAX_VALUE_NODES`): one value a KG writes as a node of
    its own at each use, which linking and counting read as one thing."""
    return [e.id for e in kg.find_entities(name) if e.id.startswith("_:") and e.label == name][:MAX_VALUE_NODES]


def _ranked_things(kg: KnowledgeGraph, linked: Iterable[LinkedEntity], max_entities: int) -> list[LinkedEntity]:
    """The best ``max_entities`` things linked, best first. Blank nodes of one mention with one name are one thing:
    every blank node of that name is kept (up to :data:`MAX_VALUE_NODES`), and together they count once."""
    groups: dict[tuple, list[LinkedEntity]] = {}
    for item in sorted(linked, key=lambda item: -item.score):
        key = (("value", item.mention, item.entity.label) if item.entity.id.startswith("_:") else ("id", item.entity.id))
        groups.setdefault(key, []).append(item)
    kept: list[LinkedEntity] = []
    for key, items in list(groups.items())[:max_entities]:
        if key[0] == "value":
            best = items[0]
            seen = {item.entity.id for item in items}
            items = items + [LinkedEntity(Entity(key, best.entity.label), best.mention, best.score, best.how)
                             for key in value_nodes(kg, best.entity.label) if key not in seen]
        kept.extend(items)
    return kept


def _link_mention(kg: KnowledgeGraph, mention: str, cutoff: float, *, how: str) -> list[LinkedEntity]:
    if not has_word_character(mention):  # "[!!!]", "[🎬]": no name to look up, even if a label is made of symbols
        return []
    exact = kg.find_entities(mention)
    if exact:
        return [LinkedEntity(e, mention, 1.0 + len(mention.split()), how) for e in exact]
    wanted = normalize_label(mention)
    out: list[LinkedEntity] = []
    for label in closest_labels(kg, mention, limit=3, cutoff=cutoff):
        ratio = difflib.SequenceMatcher(None, wanted, normalize_label(label)).ratio()
        out.extend(LinkedEntity(e, mention, ratio * len(mention.split()), "fuzzy") for e in kg.find_entities(label))
    return out


#: Ranking of the n-gram candidates (plain questions): a candidate scores its span's length in words times the match
#: quality (1 exact, the similarity ratio when fuzzy), plus ``CASE_BONUS`` when the entity's label is written in the
#: question exactly as the KG writes it (case and punctuation too), plus ``FIT_WEIGHT`` times the best share of one of
#: its relations' words the rest of the question names, plus ``DEGREE_WEIGHT`` per log of its number of relations.
CASE_BONUS = 0.5
FIT_WEIGHT = 0.5
DEGREE_WEIGHT = 0.05
#: Taken off a candidate the mention names by an alias only (not by one of its labels): a thing whose label the
#: question writes ranks above one that is also called so, by more than :data:`TWIN_MARGIN` (so it is dropped unless
#: its relations fit the question better).
ALIAS_PENALTY = 0.5
#: Entities of one mention kept when they score this close to its best (twins: the film "Philadelphia" and the
#: tag "philadelphia"; the one written as in the question, or whose relations the question names, wins).
TWIN_MARGIN = 0.4
#: Partial names: a word of the question proposes the first (shortest) labels holding it; a label is a candidate when
#: it shares two content words or more with a stretch of the question (at most ``PARTIAL_GAP`` other content words
#: between two of them) and twice the words shared over the label's and the stretch's words is ``PARTIAL_MIN``.
PARTIAL_ANCHOR_LABELS = 200
PARTIAL_GAP = 2
PARTIAL_MIN = 0.7
_WORD = re.compile(r"\w+")
_relation_words_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass
class _Question:
    """A plain question as linking reads it: its normalized words, where each is written, its content words' roots."""

    text: str
    tokens: list[str]
    raw: list[tuple[int, int]]  # each token's span in ``text``; empty when lower() changed the tokens (no case cues)
    cased: bool  # capitals beyond the first letter: its case says something
    vocabulary_roots: frozenset[str]  # the KG's relation and class names' word roots
    shouted: bool = False  # all in capitals
    roots: collections.Counter = field(default_factory=collections.Counter)

    @classmethod
    def of(cls, kg: KnowledgeGraph, question: str) -> _Question:
        tokens = normalize_label(question).split()
        raw = [(m.start(), m.end()) for m in _WORD.finditer(question)]
        found = cls(question, tokens, raw if len(raw) == len(tokens) else [], any(ch.isupper() for ch in question[1:]),
                    _vocabulary_roots(kg), question.isupper())
        found.roots.update(stem(t) for t in content_words(tokens))
        return found

    def capitalised_inside(self, begin: int) -> bool:
        """A word written with a capital, not the first of the question nor in a question all in capitals: a span of
        function words starting there is a name ("which words describe Her")."""
        return bool(self.raw) and begin > 0 and self.text[self.raw[begin][0]].isupper() and not self.shouted

    def written(self, begin: int, size: int, slack: int = 0) -> str:
        """The question's own text of tokens ``begin .. begin + size``, ``slack`` characters more each side."""
        if not self.raw:
            return ""
        return self.text[max(0, self.raw[begin][0] - slack) : self.raw[begin + size - 1][1] + slack]


@dataclass
class _Candidate:
    """An n-gram of the question that names some entities, and how each scored."""

    begin: int
    size: int
    text: str
    how: str
    quality: float
    scored: list[tuple[float, Entity]]
    relational: bool = False  # every content word names a relation or class of the KG ("actors", "writer")
    #: the word right after it when that word names a relation or class of the KG ("direct **subtypes**"): the
    #: mention may modify that noun rather than name a thing the question is about (:func:`_modifiers`)
    before_noun: str = ""
    aliased: bool = False  # every entity is named so only by another name than its label ("accession": a synonym)
    lowered: bool = False  # a cased question writes it in lower case while every label is capitalised ("primary")

    @property
    def best(self) -> float:
        return self.scored[0][0]


def _is_designation(token: str) -> bool:
    """Whether a word is a number that completes a name ("chromosome 7", "apollo 13"): one or two digits. A year
    ("ISWC 2005", "the Nobel Prize 2001") more often qualifies the thing named than names another."""
    return token.isdigit() and len(token) <= 2


def _link_ngrams(kg: KnowledgeGraph, question: str, cutoff: float) -> tuple[list[LinkedEntity], str, list[str]]:
    """Mentions of a plain question: every n-gram that is a label or alias (longest first, non-overlapping), each
    entity scored by :data:`CASE_BONUS` and the others; a mention whose words only name relations or classes of the KG, or
    that a cased question writes in lower case against a capitalised label, is dropped when a better mention is
    left; nothing found: typos (fuzzy) and partial names. A numbered thing the KG does not name links nothing, and
    the message (second item) says so: a mention written with a number right after it that its names lack
    (:func:`_is_designation`: "chromosome 7" against the term "chromosome"), or a word and number the KG names only
    with other numbers ("Endeavour 18" where it names "Endeavour 7" and "Endeavour 8": :func:`_other_numbers`).
    Last, a note for each mention read as a modifier."""
    q = _Question.of(kg, question)
    tokens = q.tokens
    index = kg.label_index()
    known: dict[str, dict[str, list[str]]] = {}
    claimed = [False] * len(tokens)
    candidates: list[_Candidate] = []
    for size in range(min(MAX_NGRAM, len(tokens)), 0, -1):
        for begin in range(0, len(tokens) - size + 1):
            span = range(begin, begin + size)
            if any(claimed[i] for i in span):
                continue
            words = tokens[begin : begin + size]
            if all(w in FUNCTION_WORDS or len(w) < 2 for w in words) and not q.capitalised_inside(begin):
                continue
            text = " ".join(words)
            # as written, then without a space between a letter and a digit ("iswc 2005": "ISWC2005"), then with the
            # last word in the singular ("roman emperors": the role "Roman Emperor"), which matches less well
            forms = dict.fromkeys(lookup_keys(text), 1.0)
            singular = _singular(text) if size >= 2 else None
            for form in lookup_keys(singular) if singular else ():
                forms.setdefault(form, PLURAL_QUALITY)
            if q.capitalised_inside(begin) and words[0] not in ARTICLES and begin > 0 and tokens[begin - 1] not in ARTICLES:
                forms.setdefault(f"the {text}", ARTICLE_QUALITY)  # a name written without its article: "Beatles"
            found, quality = {}, 1.0
            for form, form_quality in forms.items():
                if form not in known:  # one lookup per distinct text, however often the question repeats it
                    known[form] = kg.entities_among(index.get(form, [])) if form in index else {}
                found, quality = known[form], form_quality
                if found:
                    break
            if not found:  # the name of a relation, a class or a literal: the words stay free
                continue
            candidate = _score_candidate(kg, q, begin, size, "exact", quality, found)
            if not candidate.scored:  # only names less their qualifier, written otherwise ("How long": "How Long (song)")
                continue
            for i in span:
                claimed[i] = True
            candidates.append(candidate)
    numbered = [f"{c.text} {tokens[c.begin + c.size]}" for c in candidates
                if c.begin + c.size < len(tokens) and _is_designation(tokens[c.begin + c.size])
                and not any(e.label.split()[-1:] == [tokens[c.begin + c.size]] for _, e in c.scored)]
    if numbered:
        return [], NUMBERED_MESSAGE.format(", ".join(repr(m) for m in numbered)), []
    others = _other_numbers(kg, q, claimed)
    if others:
        mention, labels = others
        return [], OTHER_NUMBERS_MESSAGE.format(repr(mention), ", ".join(labels)), []
    partial = _partial_candidates(kg, q) + _initials_candidates(kg, q)
    if not candidates:  # typos compete with partial names ("ben franklin": Benjamin Franklin, not "Bite-size Ben ...")
        partial += _fuzzy_candidates(kg, q, cutoff)
    linked, notes = _select(kg, _with_partial_names(kg, q, candidates, partial), tokens)
    return linked, "", notes


#: Labels holding a word read for the numbers the KG writes after it (:func:`_other_numbers`).
NUMBERED_LABELS = 2000
#: Other numbered names shown in the message.
NUMBERED_SHOWN = 3


def _numbers(words: Iterable[str]) -> set[str]:
    """The words of a name that hold a digit: its numbers ("endeavour 7", "b52"), which identify it."""
    return {word for word in words if any(ch.isdigit() for ch in word)}


def _numbers_after(label: str, word: str) -> set[str]:
    """The numbers (:func:`_is_designation`) a normalised label writes right after ``word``."""
    words = label.split()
    return {words[i + 1] for i in range(len(words) - 1) if words[i] == word and _is_designation(words[i + 1])}


def _other_numbers(kg: KnowledgeGraph, q: _Question, claimed: list[bool]) -> tuple[str, list[str]] | None:
    """A word and a number of the question that no exact mention holds ("Endeavour 18"), where the KG's labels write
    that word only with other numbers ("Endeavour 7", "Endeavour 8 Master"): a number in a name is its identifier,
    not a typo, so the question is about a numbered thing the KG does not name. ``(mention, up to
    NUMBERED_SHOWN labels with other numbers)``, or None."""
    index = kg.label_index()
    tokens = q.tokens[:MAX_FUZZY_TOKENS]
    for i in range(1, len(tokens)):
        number, word = tokens[i], tokens[i - 1]
        if claimed[i] or not _is_designation(number) or word in FUNCTION_WORDS or not word.isalpha():
            continue
        labels = list(itertools.islice(index.iter_labels_with_word(word), NUMBERED_LABELS))
        numbers = [(label, _numbers_after(label, word)) for label in labels]
        if any(number in found for _, found in numbers):
            continue
        others = [label for label, found in numbers if found]
        if others:
            shown = [repr(kg.label(min(index[label])) or label) for label in others[:NUMBERED_SHOWN]]
            return f"{word} {number}", shown
    return None


#: How well a name of several words matches when the question writes its last word in the plural ("Roman emperors"
#: for "Roman Emperor"): below the exact form.
PLURAL_QUALITY = 0.9
#: How well a name matches when the question writes it, capitalised, without the definite article that begins its
#: label ("which Beatles albums" for "The Beatles"; English drops the article before a name used as a modifier or
#: in a possessive): below the exact form, tried after it.
ARTICLE_QUALITY = 0.9


def _singular(text: str) -> str | None:
    """``text`` with its last word in the singular by English spelling ("roman emperors" -> "roman emperor",
    "dynasties" -> "dynasty", "churches" -> "church"); None when the last word reads as no plural."""
    head, _, last = text.rpartition(" ")
    if len(last) <= 3 or not last.endswith("s") or last.endswith(("ss", "us", "is")):
        return None
    if last.endswith("ies"):
        last = last[:-3] + "y"
    elif last.endswith(("ches", "shes", "xes", "sses", "zes")):
        last = last[:-2]
    else:
        last = last[:-1]
    return f"{head} {last}" if head else last


def _with_partial_names(kg: KnowledgeGraph, q: _Question, exact: list[_Candidate],
                        partial: list[_Candidate]) -> list[_Candidate]:
    """The exact candidates, with a partial name in place of those it overlaps when it holds them whole and covers
    more of the question (its words times its match quality, against the exact ones' words): "martin luther king"
    links "Martin Luther King, Jr." rather than "Martin Luther". Not in place of a mention the partial name's words
    read as "<class noun> of <mention>" (:func:`_members_of_named`): "which unit of length" asks for the units of
    *Length*, not about the constant "atomic unit of length"; nor of one that only adds the asked noun before it
    (:func:`_asked_noun_before`)."""
    kept = list(exact)
    for candidate in sorted(partial, key=lambda c: (-c.size * c.quality, -c.best)):
        span = range(candidate.begin, candidate.begin + candidate.size)
        overlapped = [c for c in kept if c.begin < span.stop and span.start < c.begin + c.size]
        # it must cover each mention it overlaps whole: "directed by john" (the film "Directed by John Ford") does
        # not cut the name "john simpson"
        if all(c.how == "exact" and c.size * c.quality < candidate.size * candidate.quality
               and span.start <= c.begin and c.begin + c.size <= span.stop for c in overlapped) \
                and not any(_members_of_named(kg, q, candidate, c) or _asked_noun_before(q, candidate, c)
                            for c in overlapped):
            kept = [c for c in kept if c not in overlapped] + [candidate]
    return kept


def _asked_noun_before(q: _Question, partial: _Candidate, exact: _Candidate) -> bool:
    """Whether the partial name's stretch is the exact mention and the noun the question asks for right before it,
    a relative clause after (:func:`~kg_agent.kg.qualified_names.asks_for_noun`): "the first album the beatles
    released" is not "album the beatles" (the album "The Beatles (album)")."""
    return (partial.begin + 1 == exact.begin and partial.begin + partial.size == exact.begin + exact.size
            and asks_for_noun(q.tokens, exact.begin, exact.begin + exact.size))


#: Neighbours of a mention's entities read per relation for a member of the class a "<class noun> of" names.
MEMBERS_READ = 50


def _members_of_named(kg: KnowledgeGraph, q: _Question, partial: _Candidate, exact: _Candidate) -> bool:
    """Whether the partial name's stretch of the question reads "<class noun> of <the exact mention>" ("unit of
    length", "city of spain"): the words before "of" end in a noun naming a class of the KG, some member of which is
    linked to an entity of the exact mention (one of its neighbours, up to :data:`MEMBERS_READ` per relation), and no
    entity of the partial name is a member of such a class. The question then asks for the class's members linked to
    that thing ("which unit of length": the units of *Length*), not about the thing whose label also has those words
    (the constant "atomic unit of length")."""
    tokens = q.tokens
    of_at = exact.begin - 1
    if of_at <= partial.begin or tokens[of_at] != "of" or exact.begin + exact.size != partial.begin + partial.size:
        return False
    nouns = content_words(tokens[partial.begin:of_at])
    if not nouns or stem(nouns[-1]) not in q.vocabulary_roots:
        return False
    noun = nouns[-1]
    if _of_class_named(kg, [entity.id for _, entity in _linked(partial)], noun):
        return False  # the partial name is itself one of the class's members: it names one
    classes = {r.lstrip("^") for r in kg.class_fan_outs()}
    neighbours: set[str] = set()
    for _, entity in _linked(exact):
        for relation, targets in kg.edges(entity.id).items():
            if relation.lstrip("^") not in classes:
                neighbours.update(t for t in targets[:MEMBERS_READ] if not t.startswith('"'))
    return bool(neighbours) and _of_class_named(kg, sorted(neighbours), noun)


def _partial_candidates(kg: KnowledgeGraph, q: _Question) -> list[_Candidate]:
    """Labels that share at least two words with a stretch of the question, most of both ("Harriet Nevins" for
    "Harriet Francoeur Nevins", "fukushima daiichi nuclear plant" for "Fukushima Daiichi Nuclear Power Plant").

    Each content word of the question proposes the first :data:`PARTIAL_ANCHOR_LABELS` labels holding it
    (shortest first, from the label index); each is matched against the question's words around that word."""
    index = kg.label_index()
    tokens = q.tokens
    content = [i for i, t in enumerate(tokens[:MAX_FUZZY_TOKENS]) if t not in FUNCTION_WORDS and len(t) >= 2]
    positions: dict[str, list[int]] = {}
    for i in content:
        positions.setdefault(tokens[i], []).append(i)
    found: dict[tuple[int, int, str], _Candidate] = {}
    for anchor in dict.fromkeys(tokens[i] for i in content):
        for label in index.labels_with_word(anchor, limit=PARTIAL_ANCHOR_LABELS):
            words = set(label.split())
            hits = sorted(i for w in words - FUNCTION_WORDS for i in positions.get(w, ()))
            if len(hits) < 2:
                continue
            window = _cluster(hits, positions[anchor][0], content)
            begin, end = window[0], window[-1] + 1
            matched = {tokens[i] for i in window}
            if len(matched) < 2:
                continue
            # all words, function words too: "government of egypt" is not "government does egypt"
            stretch = tokens[begin:end]
            if _numbers(words) != _numbers(stretch):  # "ship master of endeavour" is not "Endeavour 7 Ship Master"
                continue
            shared = len(words & set(stretch))
            quality = 2 * shared / (len(label.split()) + len(stretch))
            if quality < PARTIAL_MIN or " ".join(stretch) == label:
                continue
            key = (begin, end, label)
            if key in found:
                continue
            entities = kg.entities_among(index.get(label, []))
            # a partial name is of a whole label: a name less its qualifier matched in part is too loose
            entities = {k: r for k, r in entities.items() if not qualified_only(label, kg.label(k) or k)}
            if entities:
                found[key] = _score_candidate(kg, q, begin, end - begin, "partial", quality, entities)
    return list(found.values())


#: Things an acronym-named node must group (the subjects of one relation to it: a class's members, a scheme's
#: concepts) for its initials to name it: a handful of notes is no scheme (as few name no naming predicate,
#: :data:`kg_agent.kg.profile.MIN_NAMED_SUBJECTS`).
INITIALS_MIN_MEMBERS = 5


def _initials_candidates(kg: KnowledgeGraph, q: _Question) -> list[_Candidate]:
    """A class or scheme the KG names by an acronym, which the question names by the words it stands for: "Library
    of Congress classification" for a node labelled *LCC* that many nodes are members of (``dcam:memberOf``,
    ``rdf:type``: more than :data:`INITIALS_MIN_MEMBERS` subjects under one relation to it). Only acronym labels
    (:func:`~kg_agent.kg.terms.is_acronym`) of such nodes: the initials of a question's words are never matched
    against every label."""
    index = kg.label_index()
    spans = [(begin, end, list(index.get(letters) or ()))
             for begin, end, letters in initials_spans(q.tokens[:MAX_FUZZY_TOKENS], FUNCTION_WORDS | AMOUNT_DETERMINERS)
             if letters in index]
    named = list(dict.fromkeys(key for *_, keys in spans for key in keys))
    if not named:
        return []
    kg.prefetch_labels(named)
    acronyms = [key for key in named if is_acronym(kg.label(key) or "")]
    # every acronym-labelled node's edges at once (over an endpoint: in batches, not one request each)
    groups = {key for key, edges in kg.bounded_edges_each(acronyms, INITIALS_MIN_MEMBERS).items() if _groups_many(edges)}
    found: list[_Candidate] = []
    for begin, end, keys in spans:
        keys = [key for key in keys if key in groups]
        entities = kg.entities_among(keys) if keys else {}
        if entities:
            found.append(_score_candidate(kg, q, begin, end - begin, "initials", 1.0, entities))
    return found


def _groups_many(edges: BoundedEdges) -> bool:
    """Whether more than :data:`INITIALS_MIN_MEMBERS` subjects point to a node by one relation (a class, a scheme):
    its edges bounded by that many (:meth:`~kg_agent.kg.graph.KnowledgeGraph.bounded_edges`)."""
    return any(relation.startswith("^") for relation in edges.wide)


def _cluster(hits: list[int], anchor: int, content: list[int]) -> list[int]:
    """The matched positions around the anchor, at most :data:`PARTIAL_GAP` content words between one and the next."""
    def gap(a: int, b: int) -> int:
        return sum(1 for i in content if a < i < b)

    cluster = [anchor]
    for i in sorted(h for h in hits if h > anchor):
        if gap(cluster[-1], i) > PARTIAL_GAP:
            break
        cluster.append(i)
    for i in sorted((h for h in hits if h < anchor), reverse=True):
        if gap(i, cluster[0]) > PARTIAL_GAP:
            break
        cluster.insert(0, i)
    return cluster


def _select(kg: KnowledgeGraph, candidates: list[_Candidate],
            tokens: list[str] | None = None) -> tuple[list[LinkedEntity], list[str]]:
    """The linked entities of the candidates that stay (see :func:`_link_ngrams`), best first, and a note for each
    mention read as a modifier (:func:`_modifiers`). A mention in lower case stays when the question coordinates it
    with one that stays, of the same class (:func:`_coordinated_alike`). A mention that only other names than their
    labels link to entities (a synonym) and that stands right before "of" and another mention is the relational noun
    the question asks for of that one, not a thing it is about ("the SO **accession** of stop_codon": *databank_entry*
    has the synonym "accession")."""
    kept = [c for c in candidates if not c.relational] or candidates
    if tokens is not None:  # "the SO accession of [X]": a relational noun named only by an alias asks for X's value
        starts = {c.begin for c in kept}
        kept = [c for c in kept if not (c.aliased and c.begin + c.size + 1 < len(tokens) and tokens[c.begin + c.size] == "of"
                                        and c.begin + c.size + 1 in starts)] or kept
    cased = [c for c in kept if not c.lowered]
    if cased and tokens is not None:
        cased += [c for c in kept if c.lowered and _coordinated_alike(kg, c, cased, tokens)]
    kept = [c for c in kept if c in cased] or kept
    modifiers = _modifiers(kg, kept)
    kept = [c for c in kept if c not in modifiers] or kept
    linked: list[LinkedEntity] = []
    for candidate in sorted(kept, key=lambda c: -c.best):
        linked.extend(LinkedEntity(entity, candidate.text, score, candidate.how) for score, entity in _linked(candidate))
    notes = [MODIFIER_NOTE.format(c.text, c.before_noun) for c in modifiers if c not in kept]
    return linked, notes


#: The words that may stand between two things a question names side by side ("both the imperial **and the** US
#: customary system"), of which one of :data:`~kg_agent.text.COORDINATORS` must be there.
_BETWEEN_COORDINATED = COORDINATORS | ARTICLES


def _coordinated_alike(kg: KnowledgeGraph, candidate: _Candidate, others: list[_Candidate], tokens: list[str]) -> bool:
    """Whether a mention stands side by side with one of ``others`` ("both the **imperial** and the US customary
    system", only an article and "and" / "or" between them) and one of its entities shares a class with one of that
    mention's: English coordinates things of one kind, so a name the question writes in lower case beside a
    capitalised one ("imperial" beside "US") is a name all the same. A mention whose entities have no class is not
    judged so."""
    for other in others:
        first, second = sorted((candidate, other), key=lambda c: c.begin)
        between = tokens[first.begin + first.size:second.begin]
        if not between or not COORDINATORS.intersection(between) or not set(between) <= _BETWEEN_COORDINATED:
            continue
        ids = [entity.id for _, entity in _linked(candidate)]
        other_ids = [entity.id for _, entity in _linked(other)]
        try:
            classes = kg.classes_of([*ids, *other_ids])
        except KGError:
            return False
        mine = {c for key in ids for c in classes.get(key, ())}
        if mine & {c for key in other_ids for c in classes.get(key, ())}:
            return True
    return False


def _linked(candidate: _Candidate) -> list[tuple[float, Entity]]:
    """The entities a candidate links: those scoring within :data:`TWIN_MARGIN` of its best."""
    return [(score, entity) for score, entity in candidate.scored if score >= candidate.best - TWIN_MARGIN]


#: Nodes read around an entity when :func:`_meets` looks for a node two mentions share: its neighbours, and those
#: of its unnamed neighbours (a blank statement or list node between a person and the paper) up to this many.
MAX_MEETING_NODES = 2000


def _modifiers(kg: KnowledgeGraph, candidates: list[_Candidate]) -> list[_Candidate]:
    """The candidates read as a modifier of the noun right after them, not as a thing the question is about. The noun
    names a relation of the KG that another mention's entity has ("which terms are **direct subtypes** of
    exon": ``^subClassOf``, which exon has; "how many direct subtypes does gene have"), so that mention is what the
    noun is said of; none of the candidate's entities is a member of a class the noun names ("the ISWC 2005
    **conference**" names the conference); and none meets an entity of another mention (is its neighbour or shares a
    named node with it, also through an unnamed node: "which **Alice Moreau** dependencies does linter have": linter
    is maintained by her). What the KG says decides, no word list: a term labelled "direct" links in that
    question, but it meets exon nowhere, so "direct" says which subtypes. A noun no other mention has stays the
    candidate's ("books by Ada Marlow on the **Poetry bookshelf**": Ada Marlow has no bookshelf; if her books are on
    none of that shelf, the two meet nowhere and the question has no answer). A class noun ("which Chiara Conti
    **packages** ...") is the answers' type, said of no other mention: a name before it stays."""
    found = [c for c in candidates if c.before_noun and len(candidates) > 1]
    if not found:
        return []
    around: dict[str, set[str]] = {}
    out = []
    for candidate in found:
        ids = [entity.id for _, entity in _linked(candidate)]
        others = [entity.id for other in candidates if other is not candidate for _, entity in _linked(other)]
        noun = candidate.before_noun
        if _has_relation_named(kg, others, noun) and not _of_class_named(kg, ids, noun) \
                and not _meets(kg, ids, others, around):
            out.append(candidate)
    return out


def _relation_roots(kg: KnowledgeGraph, relation: str) -> set[str]:
    """The roots of the words naming a relation: its own name's, and for a W3C hierarchy property the English names
    of either direction (:data:`~kg_agent.kg.naming.HIERARCHY_NAMES`: ``rdfs:subClassOf`` "subtype", "superclass")."""
    words = [*own_name_words(relation), *(w for name in _hierarchy_names(kg, [relation]) for w in name.split())]
    return {stem(w) for w in content_words(words)}


def _has_relation_named(kg: KnowledgeGraph, ids: list[str], noun: str) -> bool:
    """Whether one of the entities has a relation (either way) that ``noun`` names (a word of its root)."""
    kg.prefetch(ids)
    names = {r.lstrip("^") for key in ids for r in kg.relations(key)}
    return any(stem(noun) in _relation_roots(kg, name) for name in names)


def _of_class_named(kg: KnowledgeGraph, ids: list[str], noun: str) -> bool:
    """Whether one of the entities is a member of a class of the KG whose name has a word of ``noun``'s root."""
    classes = kg.classes_of(ids)
    if not classes:
        return False
    members = {c for found in classes.values() for c in found}
    labels = kg.labels_by_id(sorted(members))
    return any(stem(noun) in {stem(w) for w in own_name_words(labels.get(c) or c)} for c in members)


def _meets(kg: KnowledgeGraph, ids: list[str], others: list[str], around: dict[str, set[str]]) -> bool:
    """Whether an entity of ``ids`` is a neighbour of one of ``others`` or shares a node with it (an entity, not a
    class, a property or a literal), through an unnamed node too (:data:`MAX_MEETING_NODES`)."""
    classes = {r.lstrip("^") for r in kg.class_fan_outs()}

    def near(key: str) -> set[str]:
        if key not in around:
            found = {n for r, ts in kg.edges(key).items() if r.lstrip("^") not in classes for n in ts
                     if not n.startswith('"')}
            unnamed = [n for n in found if n.startswith("_:")][:MAX_MEETING_NODES]
            kg.prefetch(unnamed)
            for node in unnamed:
                found.update(n for r, ts in kg.edges(node).items() if r.lstrip("^") not in classes for n in ts
                             if not n.startswith(('"', "_:")) and n != key)
                if len(found) > MAX_MEETING_NODES:
                    break
            around[key] = found
        return around[key]

    kg.prefetch([*ids, *others])
    mine = set().union(*(near(key) for key in ids))
    if mine.intersection(others):
        return True
    shared = mine.intersection(*[set().union(*(near(key) for key in others))])
    # a blank node both reach is a statement or a list joining them; a named one must be an entity
    return any(n.startswith("_:") for n in shared) or bool(kg.entities_among(shared))


def _score_candidate(kg: KnowledgeGraph, q: _Question, begin: int, size: int, how: str, quality: float,
                     found: dict[str, list[str]]) -> _Candidate:
    words = q.tokens[begin : begin + size]
    content = content_words(words)
    inside = collections.Counter(stem(w) for w in content)
    written = q.written(begin, size)
    scored = []
    all_capitalised = True
    aliased = how == "exact"
    for key, relations in found.items():
        label = kg.label(key) or key
        # where the label would be written: the mention and as many characters around it as the label has
        around = q.written(begin, size, slack=len(label)) if how == "exact" else ""
        # a question in lower case says nothing by its case, only by its punctuation ("hush!"); a name a catalogue
        # writes surname first is written as the KG writes it when the question has it in reading order
        named, name, qualifier = _named_by_label(kg, key, label, " ".join(words)) if how == "exact" else (LABEL, "", "")
        # a label with a qualifier is written as the KG writes it when the question writes its name so ("Chicago")
        shown = name if named == QUALIFIED else label
        verbatim = bool(around) and any(
            _written_as(around, written) if q.cased else _written_as(around.lower(), written.lower())
            for written in (shown, reading_order(shown)) if written)
        all_capitalised = all_capitalised and any(ch.isupper() for ch in label)
        score = size * quality + DEGREE_WEIGHT * math.log1p(len(relations)) + FIT_WEIGHT * _fit(relations, q.roots, inside)
        if named == ALIAS:
            score -= ALIAS_PENALTY
        else:
            aliased = False
        if named == QUALIFIED and q.cased and not verbatim:
            continue  # a weaker match: a cased question must write the name as the KG does ("How long" is no title)
        if named == QUALIFIED:  # "Chicago (band)" named "Chicago": below the city, above it for "the band Chicago"
            score += QUALIFIER_NAMED_BONUS if qualifier_named(qualifier, q.tokens, begin, begin + size) \
                else -QUALIFIER_PENALTY
            if restates_name(qualifier, " ".join(words)):  # "Genesis (Genesis album)": the band first
                score -= QUALIFIER_PENALTY
        if verbatim:
            score += CASE_BONUS + 1e-3 * len(shown)  # "Hush!" before "Hush" when the question writes "Hush!"
        scored.append((score, Entity(key, label)))
    scored.sort(key=lambda pair: (-pair[0], pair[1].id))
    relational = bool(content) and all(stem(w) in q.vocabulary_roots for w in content)
    lowered = q.cased and bool(written) and written == written.lower() and all_capitalised
    after = q.tokens[begin + size] if begin + size < len(q.tokens) else ""
    noun = after if after not in FUNCTION_WORDS and len(after) >= 3 and stem(after) in q.vocabulary_roots else ""
    return _Candidate(begin, size, " ".join(words), how, quality, scored, relational, lowered=lowered, before_noun=noun,
                      aliased=aliased)


def _named_by_label(kg: KnowledgeGraph, key: str, label: str, text: str) -> tuple[str, str, str]:
    """How the mention ``text`` (normalized) names the entity (:func:`~kg_agent.kg.qualified_names.how_named`): by
    one of its labels whole (its display label, else any label under the naming's label predicates, in any
    language; a thing with no label at all is named by whatever names it), by a label less its qualifier ("Chicago"
    for "Chicago (band)"), or only by an alias."""
    named = how_named(text, [label])
    if named[0] == LABEL:
        return named
    literals = kg.store.name_literals([key], kg.naming.label_predicates).get(key, [])
    if not literals:
        return named if named[0] == QUALIFIED else (LABEL, "", "")
    return how_named(text, [label, *(name for _, name, _ in literals)])


def _written_as(question: str, label: str) -> bool:
    """Whether the label occurs in the question exactly as written (case, punctuation), as whole words."""
    label = label.strip()
    return bool(label) and re.search(r"(?<!\w)" + re.escape(label) + r"(?!\w)", question) is not None


def _vocabulary_roots(kg: KnowledgeGraph) -> frozenset[str]:
    """Roots of the content words of the KG's relation names (``people.person.place_of_birth``: its own name,
    ``place of birth``; ``dbo.birthPlace``: ``birth place``) and class names (``swrc:Proceedings``: "proceedings",
    its labels or its IRI's last segment: :func:`_class_names`), computed once per graph."""
    try:
        return _relation_words_cache[kg]
    except (KeyError, TypeError):
        pass
    roots = set()
    relations = kg.relation_names()
    for name in [*relations, *_class_names(kg), *_hierarchy_names(kg, relations)]:
        roots.update(stem(word) for word in content_words(own_name_words(name)))
    found = frozenset(roots)
    try:
        _relation_words_cache[kg] = found
    except TypeError:
        pass
    return found


def _hierarchy_names(kg: KnowledgeGraph, relations: list[str]) -> list[str]:
    """The English names of both directions of the W3C hierarchy properties among ``relations``
    (:data:`~kg_agent.kg.naming.HIERARCHY_NAMES`: ``rdfs:subClassOf`` is named "superclass" and "subtype"), which
    the KG itself rarely names."""
    found: list[str] = []
    for name in relations:
        try:
            names = HIERARCHY_NAMES.get(kg.relation_iri(name))
        except KGError:
            continue
        if names is not None:
            found.extend(itertools.chain(*names))
    return found


def _class_names(kg: KnowledgeGraph) -> list[str]:
    """The names of the KG's classes (:meth:`KnowledgeGraph.classes <kg_agent.kg.graph.KnowledgeGraph.classes>`),
    each by its display label."""
    classes = list(kg.classes().ids)
    labels = kg.labels_by_id(classes)
    return [labels.get(c) or c for c in classes]


def _fit(relations: list[str], roots: collections.Counter, inside: collections.Counter) -> float:
    """The best share of one relation's content words whose root the question has outside the mention (``roots``:
    the question's content-word roots, ``inside``: the mention's)."""
    if not relations:
        return 0.0
    best = 0.0
    for relation in relations:
        words = content_words(own_name_words(relation))
        if words:
            best = max(best, sum(roots[stem(w)] > inside[stem(w)] for w in words) / len(words))
            if best == 1.0:
                break
    return best


def _fuzzy_candidates(kg: KnowledgeGraph, q: _Question, cutoff: float) -> list[_Candidate]:
    """Nothing matched exactly: the longest spans (up to 4 words, at the start of the question) close to a label,
    typos such as "Tom Hanx"; one word of at least 5 letters too ("jamaican" for "Jamaica")."""
    tokens = q.tokens[:MAX_FUZZY_TOKENS]
    for size in range(min(4, len(tokens)), 0, -1):
        found: list[_Candidate] = []
        for begin in range(0, len(tokens) - size + 1):
            words = tokens[begin : begin + size]
            if words[0] in FUNCTION_WORDS or words[-1] in FUNCTION_WORDS or (size == 1 and len(words[0]) < 5):
                continue
            mention = " ".join(words)
            for label in closest_labels(kg, mention, limit=3, cutoff=cutoff):
                entities = kg.entities_among(kg.label_index().get(label_key(label), []))
                if entities:
                    first, last, ratio = _closest_stretch(words, normalize_label(label))
                    if _numbers(words[first:last]) != _numbers(normalize_label(label).split()):
                        continue  # "endeavour 18" is no typo of "Endeavour 8": a name's number identifies it
                    found.append(_score_candidate(kg, q, begin + first, last - first, "fuzzy", ratio, entities))
        if found:
            return found
    return []


def _closest_stretch(words: list[str], label: str) -> tuple[int, int, float]:
    """The words of a span that spell ``label`` best: the span less the words at either end that only lower the
    likeness ("temuera morison act" -> "temuera morison" for "temuera morrison"), as ``(first, end, ratio)``."""
    def ratio(first: int, end: int) -> float:
        return difflib.SequenceMatcher(None, " ".join(words[first:end]), label).ratio()

    first, end = 0, len(words)
    best = ratio(first, end)
    while end - first > 1:
        trimmed = max(((first + 1, end), (first, end - 1)), key=lambda span: ratio(*span))
        if ratio(*trimmed) <= best:
            break
        (first, end), best = trimmed, ratio(*trimmed)
    return first, end, best


def _closest_to_question(kg: KnowledgeGraph, texts: list[str], limit: int = 5) -> list[str]:
    """The labels closest to any short word span of the texts, for the no-match message."""
    scored: dict[str, float] = {}
    for text in texts:
        tokens = normalize_label(text).split()[:MAX_FUZZY_TOKENS]
        for size in (3, 2, 1):
            for begin in range(0, len(tokens) - size + 1):
                words = tokens[begin : begin + size]
                if words[0] in FUNCTION_WORDS or words[-1] in FUNCTION_WORDS:
                    continue
                span = " ".join(words)
                for label in closest_labels(kg, span, limit=3, cutoff=0.5):
                    ratio = difflib.SequenceMatcher(None, span, normalize_label(label)).ratio()
                    scored[label] = max(scored.get(label, 0.0), ratio)
    if not scored:
        return _respelt_closest(kg, texts, limit=limit)
    return [label for label, _ in sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]]


#: :func:`_respelt_closest`: words of the mentions looked at, spellings of each word tried, labels per spelling.
RESPELT_WORDS, RESPELT_SPELLINGS, RESPELT_LABELS_PER_SPELLING = 8, 20, 50


def _respelt_closest(kg: KnowledgeGraph, texts: list[str], *, limit: int = 5, cutoff: float = 0.5) -> list[str]:
    """Labels closest to the mentions ``texts`` when no label shares a word or a 4-letter prefix with them: each
    word is respelt from the KG's words sharing its first three letters ("Forest Gum" -> "forrest", "gump"), so a
    typo in a short word still finds "Forrest Gump". Bounded: at most :data:`RESPELT_WORDS` words,
    :data:`RESPELT_SPELLINGS` spellings of each and :data:`RESPELT_LABELS_PER_SPELLING` labels per spelling."""
    index = kg.label_index()
    scored: dict[str, float] = {}
    for mention in [normalize_label(text) for text in texts][:RESPELT_WORDS]:
        words = content_words(mention.split())[:RESPELT_WORDS]
        candidates: set[str] = set()
        for word in words:
            alike = [token for token in index.words_with_prefix(word[:3]) if abs(len(token) - len(word)) <= 2]
            spellings = sorted(alike, key=lambda token: (-difflib.SequenceMatcher(None, word, token).ratio(), token))
            for token in spellings[:RESPELT_SPELLINGS]:
                candidates.update(index.labels_with_word(token, limit=RESPELT_LABELS_PER_SPELLING))
        for label in candidates:
            ratio = difflib.SequenceMatcher(None, mention, label).ratio()
            if ratio >= cutoff:
                scored[label] = max(scored.get(label, 0.0), ratio)
    best = sorted(scored, key=lambda label: (-scored[label], label))[:limit]
    return [kg.label(min(index[label])) or label for label in best]


def closest_labels(kg: KnowledgeGraph, text: str, *, limit: int = 5, cutoff: float = 0.6) -> list[str]:
    """Labels most similar to ``text`` (difflib ratio over labels that share a word or a 4-letter prefix)."""
    wanted = normalize_label(text)
    if not wanted or len(wanted) > MAX_FUZZY_CHARS:
        return []
    index = kg.label_index()
    candidates: set[str] = set()
    words = ([w for w in wanted.split() if w not in FUNCTION_WORDS] or wanted.split())[:MAX_FUZZY_WORDS]
    for word in words:
        candidates.update(index.labels_with_word(word, limit=2000))
        if len(word) >= 4:
            for token in index.words_with_prefix(word[:4]):
                if abs(len(token) - len(word)) <= 3:
                    candidates.update(index.labels_with_word(token, limit=200))
    scored = []
    for label in candidates:
        ratio = difflib.SequenceMatcher(None, wanted, label).ratio()
        if ratio >= cutoff:
            scored.append((ratio, label))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [kg.label(min(index[label])) or label for _, label in scored[:limit]]


def search_entities(kg: KnowledgeGraph, text: str, *, limit: int = 10) -> list[Entity]:
    """Entities whose label matches ``text``: exact first, then labels containing it, then fuzzy."""
    wanted = normalize_label(text)
    index = kg.label_index()
    written = text.strip()
    if not wanted:  # a label made of symbols only (the film "$") is found by its own text, exactly
        return [Entity(k, kg.label(k) or k) for k in kg.entities_among(index.get(label_key(text), []))][:limit]

    def group(ids) -> list[str]:
        # entities spelt alike: the one whose label contains the text as written first, then by id
        return sorted(ids, key=lambda k: (written not in (kg.label(k) or ""), k))

    found: list[str] = group(index.get(wanted, []) or index.get(joined_key(wanted), []))
    if len(found) < limit:
        # labels holding the text as whole words: among those with its first word, shortest first
        pattern = re.compile(r"\b" + re.escape(wanted) + r"\b")
        contained = (lab for lab in index.iter_labels_with_word(wanted.split()[0]) if lab != wanted and pattern.search(lab))
        for lab in itertools.islice(contained, limit * 2):
            found.extend(group(index[lab]))
    if len(found) < limit:
        for lab in closest_labels(kg, wanted, limit=limit):
            found.extend(group(index.get(normalize_label(lab), [])))
    found = list(kg.entities_among(found))[:limit]
    return [Entity(k, kg.label(k) or k) for k in found]
