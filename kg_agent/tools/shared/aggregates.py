"""Rank and compare a method's answers by a literal the KG gives each: "the earliest-born author of ...", "which of
[X]'s books is the most downloaded", "authors born before 1800", "books with more than 1000 downloads".

The question's English comparison grammar is read (a word list: most/least, -est adjectives, "more than N",
"before/after <year>", "in <year>", "was launched last"); the attribute compared is never named by a word list: it
is the relation, among those that reach a number or a date from the answers in one step, or in two through a
statement node (a constant's value node with its value and unit: ``quantityValue -> value``; kept only when every
such node names the same unit), whose words the question uses most (the project's relation scorer,
:class:`~kg_agent.tools.shared.path_scoring.RelationPathScorer`: word stems, or the embeddings' cosine of a phrase
with the relation's words); when no relation is named, nothing is ranked ("the most books" is a count). Relations
named equally well (``value``, ``valueSN``: one number written twice) rank when they reach the same answers and
keep the same ones.
Values are numbers or dates, BC ones included (``"-0063-09-23"`` ``xsd:date``, ``"-0027"`` ``xsd:gYear``); an answer
with several values of the relation compares by its extreme in the asked direction. The answers kept carry the
evidence: ``compared`` (every compared answer with its value, in order) and ``compared_by`` (the relation).

Time words (earliest, oldest, first, latest, youngest, newest, last) compare dates or years: the oldest is the one
with the earliest value. A relation stating an age in years reads the other way; a KG's relations are not read for
that. "The first / last / earliest / latest <noun> at [X]" that names no relation ranks by the relation whose values
are typed points in time (``xsd:dateTime``, ``xsd:date``, ``xsd:gYear`` ...; :meth:`AnswerRanker.time_line`): a
talk's ``ical:dtstart``; when several are (a start and an end), only if they put the same answer first. A
``dateTime`` compares with its time of day.

**Comparisons in time** (:func:`asked_comparison` reads them with
:mod:`~kg_agent.tools.shared.time_phrases`): a condition of time names a period ("launched **in 1965**", "**on 12 April
1961**", "**in March 1965**", "**between 1960 and 1965**"; "before" / "after" / "since" / "until" a period, its start or
its end), kept as an interval or a bound (:meth:`Comparison.keeps`); a time superlative said as an adverb after a verb
("was launched **last**", "died **earliest**") ranks as "the last" does. Both compare by :meth:`AnswerRanker.time_relation`:
among the relations reaching points in time from the answers -- including, for these, the dates on statement nodes
that name different things (a date has no unit: each launch node names its own site) -- the one the verb names
(``launch -> launched`` for "launched"), else the one the question names, else the answers' sole one. An answer that is
a date a walk reached through a statement node ("[craft] -> launch -> [launch] -> launched -> 1965-03-23") stands for
the thing before the statement (:meth:`AnswerRanker.owners`). A condition no answer meets keeps none, and
:meth:`AnswerRanker.compare` says why ("none of the 40 answers compared was launched in 1965 by the knowledge graph");
the answer check then abstains rather than answer the unfiltered set.

A superlative adjective that names no relation ("which unit of time is **the longest**", "the heaviest", "the
largest") compares the answers by the one measure the KG gives them all (:meth:`AnswerRanker.sole_measure`): the
relation reaching a number (not a point in time) from every answer compared; when there is none, or several that
rank the answers differently, nothing is ranked, and :meth:`AnswerRanker.unmeasured` says why.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.nameless import Nameless
from kg_agent.kg.terms import UNNAMED
from kg_agent.kg.types import is_inverse
from kg_agent.kg.walks import Walk
from kg_agent.text import (
    FUNCTION_WORDS,
    INDEFINITE_ARTICLES,
    NUMBER_WORDS,
    POSSESSIVE_DETERMINERS,
    UNIT_DIMENSIONS,
    dimension_of,
)
from kg_agent.tools.shared.measured_relations import (
    dimension_relations,
    named_by_adjective,
    named_outright,
    unit_scale,
)
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.question_parts import QuestionParts
from kg_agent.tools.shared.relation_words import EARLIEST_WORDS, TIME_PHRASE_SUPERLATIVES, TIME_SUPERLATIVES
from kg_agent.tools.shared.time_phrases import asked_time, asked_time_adverb, time_text

MAX, MIN = "max", "min"
#: The most answers one comparison compares: a list cut for showing (RoG's ``max_answers``, a beam's width) is not cut
#: for comparing, past this a method says what it compared.
MAX_COMPARED = 2000
#: Superlatives asking for the least value; any other superlative ("most", "-est", "-most") asks for the greatest.
_LEAST = EARLIEST_WORDS | {"least", "fewest", "smallest", "lowest", "shortest", "oldest", "cheapest", "southernmost",
                           "westernmost", "minimum", "lightest", "thinnest", "narrowest", "slowest"}
#: -est words that are no superlative.
_NOT_SUPERLATIVE = frozenset({"interest", "forest", "west", "test", "rest", "nest", "best-known", "guest", "honest",
                              "modest", "contest", "priest", "harvest", "request", "quest", "chest", "protest",
                              "digest", "arrest", "conquest", "manifest", "almost", "utmost", "best", "worst"})
#: A superlative after its determiner: "the", a possessive pronoun ("their first album") or a possessive "'s"
#: ("[X]'s most recent album"): English determiners a superlative adjective follows.
_SUPERLATIVE = re.compile(
    r"(?:\bthe\s+|\b(?:" + "|".join(sorted(POSSESSIVE_DETERMINERS)) + r")\s+|(?<=\w)['’]s\s+)"
    r"(most|least|fewest|first|last|maximum|minimum|[a-z]+est|[a-z]+most)\b(?:[-\s]+([a-z]+))?",
    re.IGNORECASE)
#: The comparatives of a bound that name no dimension ("more than 5", "at least 3").
_COMPARATIVES = frozenset({"more", "greater", "higher", "larger", "bigger", "over", "above", "fewer", "less", "lower",
                           "smaller", "under", "below"}) | {"at least", "at most"}
_COMPARED_TO = re.compile(
    r"\b(" + "|".join(sorted(word.replace(" ", r"\s+") for word in _COMPARATIVES) + [r"[a-z]{3,}er"])
    + r")(?:\s+than)?\s+(-?\d[\d,]*(?:\.\d+)?|(?:" + "|".join(NUMBER_WORDS) + r")\b|(?:"
    + "|".join(sorted(INDEFINITE_ARTICLES)) + r")(?=\s+(?:" + "|".join(sorted(UNIT_DIMENSIONS, key=len, reverse=True))
    + r")\b))(?!\s*(?:BC|BCE)\b)"
    r"(?:\s+([a-z]+))?", re.IGNORECASE)
#: Superlatives of time order or age: compared on a time line.
_TIME_ORDER = TIME_SUPERLATIVES | {"oldest", "youngest", "newest"}
#: Superlative adjectives that compare no measure: a count ("the fewest"), or an age, read on a time line.
_NO_MEASURE = _TIME_ORDER | {"fewest"}
#: "only one runway", "exactly 3 moons": a count or measure of one value (not after "the": "the only one who ...").
_EXACTLY = re.compile(r"(?<!\bthe\s)\b(only|exactly|just)\s+(\d[\d,]*(?:\.\d+)?|(?:" + "|".join(NUMBER_WORDS)
                      + r"))\s+([a-z]+)", re.IGNORECASE)
#: Comparatives of a dimension asking for the lesser value ("shorter than 2 m", "lighter than 20 kg").
_LESSER = frozenset({"shorter", "narrower", "shallower", "lighter", "nearer", "closer"})
_AT_MOST = re.compile(r"fewer|less|lower|smaller|under|below|at\s+most", re.IGNORECASE)
_LITERAL = re.compile(r'^"(.*)"(?:\^\^<[^>]*>|@[A-Za-z0-9-]+)?$', re.DOTALL)
_DATE = re.compile(r"^(-?\d{1,6})(?:-(\d\d)(?:-(\d\d))?)?(?:T(\d\d):(\d\d)(?::(\d\d(?:\.\d+)?))?)?"
                   r"(?:Z|[+-]\d\d:\d\d)?$")
#: Datatypes of points in time: a relation whose values are of one is a time line "first" and "latest" rank on.
TIME_DATATYPE_ENDINGS = ("date>", "dateTime>", "dateTimeStamp>", "gYear>", "gYearMonth>")
#: A question asking for a value itself ("when ...", "how long ...", "what is the highest number of ..."), not a thing.
_ASKS_VALUE = re.compile(r"\s*(?:when|how)\b|\s*what\s+(?:is|was|are|were)\s+the\s+\w+\s+(?:date|year|number|"
                         r"value|amount|count|time)\b", re.IGNORECASE)
_NUMBER = re.compile(r"^[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$")


@dataclass(frozen=True)
class Comparison:
    """What the question asks to compare: the extreme (``order`` max/min), a bound (``bound`` with ``order`` max: at
    least/after it, min: at most/before it; ``strict``), or an interval of time (``low`` to before ``high``: "in
    1965", "on 12 April 1961", "between 1960 and 1965"); the words that name the attribute (``words``: "earliest
    born"; for a time superlative the superlative first: "last"), and for a comparison in time the verb or participle
    it is said of (``verb``: "launched") and the question's words for the condition (``phrase``: "in 1965")."""

    order: str
    bound: float | None = None
    strict: bool = True
    words: str = ""
    low: float | None = None
    high: float | None = None
    verb: str = ""
    phrase: str = ""
    #: whether it compares points in time (a date condition, or a time superlative said of a verb)
    in_time: bool = False
    #: the comparison's adjective ("higher" of "higher than 1500 feet", "longest" of "the longest runway") and the
    #: word after a bound's number ("feet"): what :mod:`~kg_agent.tools.shared.measured_relations` reads a
    #: dimension from
    adjective: str = ""
    unit: str = ""

    @property
    def extreme(self) -> bool:
        """Whether it asks for the greatest or least value (a superlative), not for the values meeting a condition."""
        return self.bound is None and self.low is None and self.high is None

    def keeps(self, value: float) -> bool:
        """Whether a value meets the condition (any value does for a superlative, which keeps the extreme among
        them: :func:`ranked`)."""
        if self.low is not None or self.high is not None:
            return (self.low is None or value >= self.low) and (self.high is None or value < self.high)
        if self.bound is None:
            return True
        if value == self.bound:
            return not self.strict
        return value > self.bound if self.order == MAX else value < self.bound


def asked_comparison(question: str, names: Sequence[str] = ()) -> Comparison | None:
    """The comparison the question's grammar asks for, or None: a superlative ("the earliest X", "was launched
    last"), a bound ("more than N") or a condition of time ("in 1965", "before 44 BC",
    :func:`~kg_agent.tools.shared.time_phrases.asked_time`). ``names``: the names of the things the question
    mentions; a date inside one is no condition ("who acted in 1900", a film)."""
    for match in _SUPERLATIVE.finditer(question):
        word = match.group(1).lower()
        if match.group(1)[:1].isupper():  # part of a name: "The Last Kiss"
            continue
        if word in _NOT_SUPERLATIVE or len(word) < 4 and word not in ("most", "last"):
            continue
        after = (match.group(2) or "").lower()
        said = TIME_PHRASE_SUPERLATIVES.get((word, after))
        if said is not None:  # "most recent": the one-word superlative it means, the noun after it its words
            word, rest = said, question[match.end():].split()
            after = rest[0].strip("?.!,;:").lower() if rest else ""
        adverb = asked_time_adverb(question)
        verb = adverb.verb if adverb is not None and word in TIME_SUPERLATIVES else ""
        return Comparison(MIN if word in _LEAST else MAX, words=f"{word} {after}".strip(), verb=verb,
                          in_time=bool(verb), adjective=word)
    adverb = asked_time_adverb(question)
    if adverb is not None:
        return Comparison(MIN if adverb.superlative in _LEAST else MAX, words=adverb.superlative, verb=adverb.verb,
                          phrase=adverb.phrase, in_time=True)
    when = asked_time(question, tuple(names))
    if when is not None:
        if when.low is not None and when.high is not None:
            return Comparison(MIN, low=when.low, high=when.high, verb=when.verb, phrase=when.phrase, in_time=True)
        at_most = when.low is None
        return Comparison(MIN if at_most else MAX, bound=when.high if at_most else when.low, strict=at_most,
                          verb=when.verb, phrase=when.phrase, in_time=True)
    exactly = _EXACTLY.search(question)
    if exactly is not None and exactly.group(3).lower() not in FUNCTION_WORDS:
        number = exactly.group(2).lower()
        value = float(NUMBER_WORDS[number]) if number in NUMBER_WORDS else float(number.replace(",", ""))
        # one value exactly: the interval from it to the next number a float holds
        return Comparison(MIN, low=value, high=math.nextafter(value, math.inf), phrase=f"{exactly.group(1).lower()} "
                          f"{exactly.group(2)}", adjective=exactly.group(1).lower(), unit=exactly.group(3).lower())
    for match in _COMPARED_TO.finditer(question):
        said = " ".join(match.group(1).lower().split())
        if said not in _COMPARATIVES and not dimension_of(said):
            continue  # a word in -er that is no comparative of a dimension ("number 5", "after 3")
        number = match.group(2).lower()
        least = _AT_MOST.match(said) is not None or said in _LESSER
        strict = not re.match(r"at\s+(?:least|most)", said, re.IGNORECASE)
        bound = (1.0 if number in INDEFINITE_ARTICLES else float(NUMBER_WORDS[number]) if number in NUMBER_WORDS
                 else float(number.replace(",", "")))
        return Comparison(MIN if least else MAX, bound=bound,
                          strict=strict, adjective=said,
                          phrase=" ".join(question[match.start():match.end(3 if number in INDEFINITE_ARTICLES else 2)]
                                          .split()),
                          unit=(match.group(3) or "").lower())
    return None


def literal_text(key: str) -> str:
    """A literal's lexical form from its key (N3: ``"5"^^<...#integer>`` -> ``5``); any other text as it is."""
    match = _LITERAL.match(key)
    return match.group(1) if match else key


def literal_value(key: str) -> float | None:
    """A number or a date (as a year with its fraction) from a literal's key (N3) or plain text; None otherwise."""
    text = literal_text(key).strip()
    if _NUMBER.match(text):
        return float(text)
    date = _DATE.match(text)
    if date:
        year, month, day = int(date.group(1)), int(date.group(2) or 1), int(date.group(3) or 1)
        seconds = int(date.group(4) or 0) * 3600 + int(date.group(5) or 0) * 60 + float(date.group(6) or 0)
        return year + (month - 1) / 12 + (day - 1) / 372 + seconds / (372 * 86400)
    return None


def _shown(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


class AnswerRanker:
    """Ranks or filters answers by the literal attribute the question compares (module docstring)."""

    def __init__(self, scorer: RelationPathScorer | None = None) -> None:
        self.scorer = scorer or RelationPathScorer()

    def compared_relation(self, question: str, candidates: Sequence[str], kg: KnowledgeGraph | None) -> str | None:
        """The candidate relation the question's words name best (word stems or the embeddings' phrase evidence,
        :meth:`RelationPathScorer.unclipped_evidence`); None when none is named, or two are named equally: a
        superlative over something no relation's words name ("the most books": a count) ranks nothing."""
        named = self.named_relations(question, candidates, kg)
        return named[0] if len(named) == 1 else None

    def named_relations(self, question: str, candidates: Sequence[str], kg: KnowledgeGraph | None) -> list[str]:
        """The candidate relations the question's words name best, all those named equally well, sorted; none when
        no candidate is named."""
        parts = QuestionParts.of(question)
        evidence = self.scorer.unclipped_evidence(parts, list(candidates), kg.relation_names() if kg is not None else ())
        if not evidence.size:
            return []
        best = evidence.max(axis=1)
        top = float(best.max())
        return [] if top <= 0.0 else sorted(c for c, e in zip(candidates, best) if e == top)

    def values(self, kg: KnowledgeGraph, ids: Sequence[str]) -> dict[str, dict[str, list[float]]]:
        """``{relation: {id: [values]}}``: each outgoing relation reaching a number or a date from the ids."""
        return self._values(kg, ids)[0]

    @staticmethod
    def _values(kg: KnowledgeGraph, ids: Sequence[str], in_time: bool = False
                ) -> tuple[dict[str, dict[str, list[float]]], set[str]]:
        """:meth:`values`, and the relations whose every value is typed a point in time (``xsd:dateTime``,
        ``xsd:date``, ``xsd:gYear`` ...). Besides a relation reaching a value in one step, a path of two through a
        statement node (``flowValue -> value``, :func:`_through_statements`); for a comparison in time
        (``in_time``) the paths of points in time through statement nodes that name different things too (a date
        has no unit: each launch names its own site), read as time lines."""
        found: dict[str, dict[str, list[float]]] = {}
        untimed: set[str] = set()
        held: dict[str, dict[str, list[str]]] = {}  # key -> {relation: [nodes it reaches]}
        for key in ids:
            for relation, targets in kg.edges(key).items():
                if is_inverse(relation):
                    continue
                numbers = [v for t in targets if t.startswith('"') and (v := literal_value(t)) is not None]
                if numbers:
                    found.setdefault(relation, {})[key] = numbers
                    if not all(t.endswith(TIME_DATATYPE_ENDINGS) for t in targets if t.startswith('"')):
                        untimed.add(relation)
                nodes = [t for t in targets if not t.startswith('"')]
                if nodes:
                    held.setdefault(key, {})[relation] = nodes
        through, timed_paths = _through_statements(kg, held, dates_apart=in_time)
        for path, of in through.items():
            found[path] = of
            if path not in timed_paths:
                untimed.add(path)
        return found, set(found) - untimed

    @staticmethod
    def _agreeing(asked: Comparison, named: list[str], items: dict[str, dict]) -> str | None:
        """Of several relations the question names equally well (a value and the same value written otherwise:
        ``value``, ``valueSN``), the first by name when each reaches the same answers and puts the same ones first
        (for a bound: keeps the same ones); None when they disagree or are none."""
        kept: set[frozenset[str]] = set()
        for relation in named:
            scored = {key: item["values"][relation] for key, item in items.items() if relation in item["values"]}
            kept.add(frozenset(ranked(asked, scored)[2]) | frozenset(f"reached {key}" for key in scored))
        return named[0] if named and len(kept) == 1 else None

    def time_line(self, asked: Comparison, timed: set[str], items: dict[str, dict]) -> str | None:
        """For "the first / last / earliest / latest" that names no relation: the one relation whose values are
        points in time, or among several (a start and an end) the first by name of those that pick the same answer
        first; None when none is, or they disagree."""
        if asked.bound is not None or asked.words.split()[:1] == [] or asked.words.split()[0] not in TIME_SUPERLATIVES:
            return None  # (:func:`~kg_agent.tools.shared.answer_checks.ranks_in_time` reads the same)
        pick = max if asked.order == MAX else min
        firsts: dict[str, frozenset[str]] = {}
        for relation in sorted(timed):
            value = {key: pick(item["values"][relation]) for key, item in items.items() if relation in item["values"]}
            if value:
                best = pick(value.values())
                firsts[relation] = frozenset(k for k, v in value.items() if v == best)
        return next(iter(firsts)) if firsts and len(set(firsts.values())) == 1 else None

    def time_relation(self, question: str, asked: Comparison, timed: set[str], items: dict[str, dict],
                      kg: KnowledgeGraph | None) -> str | None:
        """For a comparison in time ("launched in 1965", "born before 44 BC", "was launched last"): the relation the
        answers' dates are compared by. Of the relations reaching points in time from them (typed so, one step or
        two through a statement node: a launch's date), and of those reaching whole numbers (years written as
        integers), the one the verb or participle names ("launched" a ``launch -> launched``: the relation scorer's
        stems or embeddings), else the one the question's words name; else, among the points in time only, the
        sole one (or several keeping, or putting first, the same answers: :meth:`_agreeing`). None when none is,
        or several named or found disagree."""
        candidates = sorted({r for item in items.values() for r in item["values"]})
        times = [r for r in candidates if r in timed]
        years = [r for r in candidates if r not in timed and r
                 and all(v == int(v) for item in items.values() for v in item["values"].get(r, ()))]
        for words in dict.fromkeys(w for w in (asked.verb, question) if w):
            named = self.named_relations(words, times + years, kg) if times or years else []
            if named:
                return named[0] if len(named) == 1 else self._agreeing(asked, named, items)
        return times[0] if len(times) == 1 else self._agreeing(asked, times, items)

    def measured(self, question: str, asked: Comparison, candidates: Sequence[str], timed: set[str],
                 items: dict[str, dict], kg: KnowledgeGraph | None) -> str | None:
        """The relation a comparison of a measure names by its English words
        (:mod:`~kg_agent.tools.shared.measured_relations`): of relations the question names equally well, the one
        named by the adjective itself ("the **longest** runway": ``longest``, not ``runways``); else, when no
        relation is named outright by a word of the question, the one holding the dimension the adjective or the
        bound's unit names ("higher than 1500 **feet**": the relation named for an elevation), or several that keep
        or put first the same answers. None otherwise (the relation scorer decides)."""
        numbers = [r for r in candidates if r not in timed]
        named = self.named_relations(question, numbers, kg)
        if len(named) > 1:
            by_adjective = named_by_adjective(asked.adjective, named)
            if len(by_adjective) == 1:
                return by_adjective[0]
        if named_outright(question, named):
            return None
        dimension = dimension_relations(asked.adjective, asked.unit, numbers, kg)
        return dimension[0] if len(dimension) == 1 else self._agreeing(asked, dimension, items)

    @staticmethod
    def _measure_asked(asked: Comparison) -> bool:
        """Whether the comparison is a superlative adjective of a measure ("the longest", "the largest"; not "the
        most", "the fewest", "the oldest")."""
        word = (asked.words.split() or [""])[0]
        return asked.bound is None and word.endswith("est") and word not in _NO_MEASURE

    @staticmethod
    def _shared_measures(timed: set[str], items: dict[str, dict]) -> list[str]:
        """The relations reaching a number, not a point in time, from every one of two or more items."""
        if len(items) < 2:
            return []
        shared = set.intersection(*(set(item["values"]) for item in items.values()))
        return sorted(shared - timed - {""})

    def sole_measure(self, asked: Comparison, timed: set[str], items: dict[str, dict]) -> str | None:
        """For a superlative adjective of a measure that names no relation ("which unit of time is the longest"): the
        one relation reaching a number (not a point in time) from every answer compared, the one measure the KG
        gives them all (a unit's conversion multiplier); among several, the first by name when they put the same
        answers first (:meth:`_agreeing`: one number written twice). None when the superlative is none of a measure
        ("the most", "the fewest", "the oldest"), or no relation, or several ranking differently, are shared."""
        if not self._measure_asked(asked):
            return None
        shared = self._shared_measures(timed, items)
        return shared[0] if len(shared) == 1 else self._agreeing(asked, shared, items)

    def unmeasured(self, question: str, answers: Sequence[dict], kg: KnowledgeGraph | None) -> str | None:
        """For answers :meth:`apply` ranked none of: why, when the question is a superlative adjective of a measure
        that names no relation and two or more answers are things (:meth:`sole_measure`): no number the KG gives
        every one of them, or several ranking them differently. None for any other question or answers."""
        asked = asked_comparison(question)
        keys = sorted({str(a.get("entity_id")) for a in answers
                       if a.get("entity_id") and not str(a.get("entity_id")).startswith(('"', "_:"))})
        if kg is None or asked is None or not self._measure_asked(asked) or len(keys) < 2:
            return None
        found, timed = self._values(kg, keys)
        if found and self.named_relations(question, sorted(found), kg):
            return None  # a relation is named: not this rule's to explain
        items = {key: {"values": {r: of[key] for r, of in found.items() if key in of}} for key in keys}
        shared = self._shared_measures(timed, items)
        word = asked.words.split()[0]
        if not shared:
            return (f"the question asks for the {word} and names no attribute, and no number the knowledge graph "
                    f"gives is shared by all {len(items)} answers to compare them by")
        if len(shared) > 1 and self._agreeing(asked, shared, items) is None:
            return (f"the question asks for the {word} and names no attribute, and the answers share several numbers "
                    f"that rank them differently ({', '.join(shared[:4])})")
        return None

    def apply(self, question: str, answers: Sequence[dict], kg: KnowledgeGraph | None) -> list[dict] | None:
        """The answers the comparison keeps, each with ``compared``/``compared_by``; None when the question
        compares nothing or no attribute to compare is found (the answers then stand as they are); ``[]`` when a
        condition keeps none (:meth:`compare` says why)."""
        found = self.compare(question, answers, kg)
        return None if found is None else found.kept

    @staticmethod
    def owners(question: str, answers: Sequence[dict], kg: KnowledgeGraph | None) -> list[dict]:
        """For a comparison in time (:func:`asks_time`), the answers with each date a walk reached from a named thing
        (:func:`_value_owner`: "Gemini 3 -> launch -> [launch] -> launched -> 1965-03-23") replaced by that thing,
        once, when the question asks for a thing (not "when", "how ..."): what the comparison ranks, so the answers a
        method offers are the things. Any other answers, or question, as they are."""
        asked = asked_comparison(question, walk_starts(answers))
        if asks_a_value(question) or asked is None or not asks_time(asked):
            return list(answers)
        found: dict[str, dict] = {}
        for a in answers:
            key = str(a.get("entity_id") or "")
            value = literal_value(str(a.get("answer", ""))) if not key or key.startswith('"') else None
            owner = _value_owner(a, kg) if value is not None else None
            if owner is None:
                found.setdefault(key or str(a.get("answer")), a)
                continue
            head, relation = owner
            back = len(relation.split(" -> "))
            paths = [replace(walk, steps=walk.steps[:-back]).to_dict() for p in a.get("paths") or ()
                     if (p.get("steps") or [{}])[-1].get("tail", {}).get("id") == key
                     and len((walk := Walk.from_dict(p)).steps) > back]
            found.setdefault(head["id"], {**a, "answer": head["label"], "entity_id": head["id"],
                                          "paths": paths})
        return list(found.values())

    def compare(self, question: str, answers: Sequence[dict], kg: KnowledgeGraph | None) -> Compared | None:
        """The answers the comparison keeps, each with ``compared``/``compared_by``, and, when a condition keeps none,
        why; None when the question compares nothing or no attribute to compare is found (the answers then stand
        as they are).

        What is compared: the answers that are things, by their values in the KG; and, for an answer that is a
        number or a date a walk reached from a named thing ("[shelf] -> ^bookshelf -> Dracula -> downloads ->
        11758") when the question asks for a thing (not "when", "how ..."), that thing by that value. When every
        answer is a value and none steps back so, the values themselves. A comparison in time (a date condition, a
        superlative said of a verb) compares by :meth:`time_relation`."""
        asked = asked_comparison(question, walk_starts(answers))
        if asked is None or not answers:
            return None
        items: dict[str, dict] = {}  # key -> {"record": answer, "values": {relation: [value]}}
        values_asked = asks_a_value(question)
        own: dict[str, dict] = {}
        for a in answers:
            key = str(a.get("entity_id") or "")
            value = literal_value(str(a.get("answer", ""))) if not key or key.startswith('"') else None
            if value is None:
                if key and not key.startswith('"'):
                    items.setdefault(key, {"record": a, "values": {}})
                continue
            own.setdefault(key or str(a.get("answer")), {"record": a, "values": {"": [value]}})
            owner = None if values_asked else _value_owner(a, kg, asks_time(asked))
            if owner is None:
                continue
            head, relation = owner
            item = items.setdefault(head["id"], {"record": {**a, "answer": head["label"], "entity_id": head["id"]},
                                                 "values": {}})
            item["values"].setdefault(relation, []).append(value)
        timed: set[str] = set()
        if kg is not None:
            of_relation, timed = self._values(kg, [k for k in items if not k.startswith("_:")], in_time=asks_time(asked))
            for relation, of in of_relation.items():
                for key, found in of.items():
                    items[key]["values"].setdefault(relation, []).extend(found)
        candidates = sorted({r for item in items.values() for r in item["values"]})
        if candidates:
            if asked.in_time:
                chosen = self.time_relation(question, asked, timed, items, kg)
            else:
                chosen = self.measured(question, asked, candidates, timed, items, kg)
                named = [chosen] if chosen else self.named_relations(question, candidates, kg)
                chosen = (named[0] if len(named) == 1 else self._agreeing(asked, named, items)) or self.time_line(
                    asked, timed, items) or (None if named else self.sole_measure(asked, timed, items))
            if chosen is None:
                return None
            relation = chosen
        elif own and len(own) == len(answers):
            relation, items = "", own  # the answers are the values ("the latest start date of ...")
            if asked.in_time and not all(_is_time_literal(str(item["record"].get("entity_id") or ""))
                                         for item in own.values()):
                return None  # "how many passengers ... in 2019" answered by a number: no date to test
        else:
            return None
        scored = {key: item["values"][relation] for key, item in items.items() if relation in item["values"]}
        scale = unit_scale(asked.unit, relation, kg) if asked.bound is not None and relation else 1.0
        if scale != 1.0:  # "shorter than a minute" of a length written in seconds: the bound in the relation's unit
            asked = replace(asked, bound=asked.bound * scale)
        value, order, kept = ranked(asked, scored)
        if not asked.extreme:  # a condition's evidence: the values kept first, then the others
            order = [*kept, *(k for k in order if k not in set(kept))]
        in_time = relation in timed or relation == "" and all(
            _is_time_literal(str(own[k]["record"].get("entity_id") or "")) for k in scored)
        compared = [{"answer": str(items[k]["record"].get("answer")), "value": shown_value(value[k], in_time)}
                    for k in order]
        records = [{**items[k]["record"], "compared": compared, "compared_by": relation} for k in kept]
        if records or not order:
            return Compared(records)
        return Compared([], _none_kept(asked, relation, [compared[0]["value"], compared[-1]["value"]], len(order)))


@dataclass(frozen=True)
class Compared:
    """What :meth:`AnswerRanker.compare` kept (each answer with its ``compared`` evidence), and, when a condition kept
    none, why (a plain sentence)."""

    kept: list[dict]
    reason: str = ""


def asks_time(asked: Comparison) -> bool:
    """Whether a comparison is one in time: a date condition, a superlative said of a verb ("launched last"), or a
    superlative of time order or age ("the first", "the latest", "the oldest")."""
    return asked.in_time or asked.extreme and (asked.words.split() or [""])[0] in _TIME_ORDER


def asks_a_value(question: str) -> bool:
    """Whether the question asks for a value ("when ...", "how ...", "what was the date of ..."), not a thing."""
    return _ASKS_VALUE.match(question) is not None


def walk_starts(answers: Sequence[dict]) -> tuple[str, ...]:
    """The names of the things the answers' walks start from: the things the question mentions."""
    return tuple(dict.fromkeys(str(path["steps"][0]["head"].get("label") or "") for a in answers
                               for path in a.get("paths") or () if path.get("steps")))


def _none_kept(asked: Comparison, relation: str, extremes: list[str], compared: int) -> str:
    """Why a condition kept no answer: "none of the 40 answers compared was launched in 1965 by the knowledge graph
    (launch -> launched: 1957-10-04 to 1969-11-14)"."""
    low, high = extremes if asked.order == MIN else extremes[::-1]
    values = f"{relation or 'values'}: {low}" + (f" to {high}" if high != low else "")
    subject, was, has = (("the one answer compared", "was not", "has no") if compared == 1 else
                         (f"none of the {compared} answers compared", "was", "has a"))
    if asked.verb and asked.in_time:
        return f"{subject} {was} {asked.verb} {asked.phrase} by the knowledge graph ({values})"
    return f"{subject} {has} {relation or 'value'} {asked.phrase} in the knowledge graph ({values})"


def _is_time_literal(key: str) -> bool:
    return key.endswith(TIME_DATATYPE_ENDINGS)


def shown_value(value: float, in_time: bool = False) -> str:
    """A compared value as the evidence shows it: a number as written; a point in time as a year, or a day
    (:func:`~kg_agent.tools.shared.time_phrases.time_text`) when it is not a whole year."""
    if in_time and value != int(value):
        return time_text(value)
    return _shown(value)


def ranked(asked: Comparison, scored: dict[str, list[float]]) -> tuple[dict[str, float], list[str], list[str]]:
    """Rank and filter keys by their values (``{key: [values]}``, a key with several values of one relation: a thing
    launched twice): each key's value (its extreme in the asked direction; for a condition, its first value that
    meets it, else that extreme), the keys in the asked order, and those kept (the ones at the extreme for a
    superlative, the ones with a value that meets the condition, :meth:`Comparison.keeps`, for a bound or an
    interval)."""
    pick = max if asked.order == MAX else min
    value = {key: next((v for v in sorted(vs, reverse=asked.order == MAX) if asked.keeps(v)), pick(vs))
             if not asked.extreme else pick(vs) for key, vs in scored.items() if vs}
    order = sorted(value, key=lambda k: value[k], reverse=asked.order == MAX)
    if not order:
        return value, order, []
    if asked.extreme:
        return value, order, [k for k in order if value[k] == value[order[0]]]
    return value, order, [k for k in order if asked.keeps(value[k])]


def _through_statements(kg: KnowledgeGraph, held: dict[str, dict[str, list[str]]], dates_apart: bool = False
                        ) -> tuple[dict[str, dict[str, list[float]]], set[str]]:
    """``{"r1 -> r2": {id: [values]}}``: the numbers and dates the ids reach in two steps through a statement node
    (unnamed, or a named one :class:`~kg_agent.kg.nameless.Nameless` reads as a statement: a value
    node with its value and unit), and (with ``dates_apart``) the paths whose every value is typed a point in time.
    A path is kept only when the statement nodes of every id it reaches name the same things (the same unit): values
    in different units are not compared. With ``dates_apart``, a path of points in time is kept whatever its
    statement nodes name (a date has no unit: a launch names its site, a planting its bed), and read as a time
    line."""

    nodes = {n for of in held.values() for targets in of.values() for n in targets}
    if not nodes:
        return {}, set()
    statements = Nameless.among(kg, nodes).statements | {n for n in nodes if n.startswith("_:")}
    found: dict[str, dict[str, list[float]]] = {}
    named: dict[str, set[frozenset[str]]] = {}
    untimed: set[str] = set()
    for key, of in held.items():
        for relation, targets in of.items():
            for node in targets:
                if node not in statements:
                    continue
                inner = kg.edges(node)
                names = frozenset(f"{r} {n}" for r, ns in inner.items() if not is_inverse(r) for n in ns
                                  if not n.startswith('"'))
                for second, values in inner.items():
                    literals = [t for t in values if t.startswith('"') and literal_value(t) is not None]
                    if literals and not is_inverse(second):
                        path = f"{relation} -> {second}"
                        found.setdefault(path, {}).setdefault(key, []).extend(
                            v for t in literals if (v := literal_value(t)) is not None)
                        named.setdefault(path, set()).add(names)
                        if not all(t.endswith(TIME_DATATYPE_ENDINGS) for t in literals):
                            untimed.add(path)
    timed = set(found) - untimed if dates_apart else set()
    return {path: of for path, of in found.items() if len(named[path]) == 1 or path in timed}, timed


def _value_owner(answer: dict, kg: KnowledgeGraph | None, in_time: bool = True) -> tuple[dict, str] | None:
    """The named thing a value answer is a value of, and the relation (path) between: the head of the walk's last
    step ("Dracula -> downloads -> 11758"), or, when that head is a statement node (unnamed, or a nameless IRI with
    facts of its own: a launch), the thing the step before comes from ("Gemini 3 -> launch -> [launch] -> launched
    -> 1965-03-23": ``launch -> launched``; for a date, whichever way the KG links the two, ``^spacecraft ->
    launched`` when the launch names its craft). None when no walk ends at the answer, its last step is backwards,
    the owner is no named thing or is the thing the walk starts from (the question's own entity: "[kilogram] ->
    ^hasUnit -> [value node] -> value" is a constant's value in kilograms, not the kilogram's), or a number's
    statement node is entered backwards (from its unit). Only a comparison in time (``in_time``) steps back over a
    statement node; any other reads the last step's head, named, as the owner."""
    for path in answer.get("paths") or ():
        steps = path.get("steps") or ()
        if not steps or steps[-1].get("tail", {}).get("id") != answer.get("entity_id"):
            continue
        last = steps[-1]
        if is_inverse(last["relation"]):
            return None
        head = last["head"]
        if not in_time:  # a number: the named node it is a value of, whatever it is ("Value for [X]" too)
            return (head, last["relation"]) if _names_a_thing(head) else None
        statement = not _names_a_thing(head) or kg is not None and head["id"] in Nameless.among(kg, [head["id"]]).statements
        if not statement:
            return head, last["relation"]
        before = steps[-2] if len(steps) >= 2 else None
        if before is None or not _names_a_thing(before["head"]) or str(head.get("id", "")).startswith('"') \
                or len(steps) == 2 and path.get("start", before["head"]).get("id") == before["head"]["id"]:
            return None  # no thing before the statement, or the thing the question names itself
        if is_inverse(before["relation"]) and not str(answer.get("entity_id") or "").endswith(TIME_DATATYPE_ENDINGS):
            return None  # a value node entered from its unit ([kilogram] -> ^hasUnit -> [value]): not the unit's value
        return before["head"], f"{before['relation']} -> {last['relation']}"
    return None


def _names_a_thing(node: dict) -> bool:
    return node.get("label") not in (None, "", UNNAMED) and not str(node.get("id", "")).startswith(("_:", '"'))
