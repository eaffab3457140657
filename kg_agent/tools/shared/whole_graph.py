"""Questions about the whole KG rather than a thing it names: "which author has the most books", "which bookshelf
holds the most books", "who created the most terms", "what is the most common subject heading among the books",
"which is the most downloaded book". No entity is linked from them (there is none to link), so no method has a
topic entity to start from; they are answered here by one aggregate query over the KG, with its evidence.

**The question** (:func:`whole_graph_question`) is read with English grammar only: "the most / fewest / least"
followed by what is counted ("the most books", "the most people affiliated with it": a participle after the counted
noun names the relation counted over) or by a participle that names a compared attribute ("the most downloaded
book"); "the most common / frequent X among Ys" counts Ys per X; what is answered is the noun after
"which"/"what" ("which **author** has ...") or, after "who", a relation the question's verb names; "which relation is
used most often in class restrictions" counts per the answer noun too ("most / least often / frequently / commonly").

**The KG decides the rest** (:class:`RelationSides`): for each relation, the classes the KG gives a sample of its
subjects and of its objects (its measured domain and range). A count groups the relation's one side by the other:
the relation and direction chosen are those whose answered side the answer noun names (by the side's classes'
names, or the relation's own name where it names that side: ``creator`` names its objects, ``member of`` its
subjects) and whose counted side the counted noun names, by the embeddings' cosine
(:func:`~kg_agent.tools.shared.scoring.shared_text_vectors`); the side with more members per group is grouped when
the nouns leave it open. A class the nouns named restricts its side in the query ("mints" per region: only the
subjects of ``skos:broader`` that are mints); the answered side only to a class its noun names as a type noun names a
class (:meth:`~kg_agent.tools.shared.answer_classes.ClassNames.named`: "region" names Region), not to the class whose
name is merely the closest ("relation" / TransitiveProperty, a part of the properties restrictions are on), unless
nearly every node sampled on that side is of it (:data:`NEARLY_ALL`: "member" and Person, where an institution is
written as a question's creator beside its authors). A counted noun that names a kind the KG writes only as an
unlabelled value of a type-like relation (:mod:`~kg_agent.tools.shared.kind_values`: "questions",
``work_type -> .../QUEST_WRITTEN``) names the counted side of each relation whose counted things have that relation,
and only the things of that kind are counted (not the answers to the questions).
Groups that are blank nodes of one name (a shelf written once per book) count as one; unnamed groups (statement
nodes) are never answers; groups of one member each answer nothing (no group stands out), nor does one group holding
every member unless the question's verb names its relation ("which station **published** the most letters": the one
publisher; not "which institution **received** the most questions"). An attribute superlative
takes the relation reaching numbers or dates whose name the participle names best, over the members of the class the answer noun names.

**Compass superlatives** ("which is the northernmost mint", "the westernmost"; generic geography: north is the greatest
latitude, east the greatest longitude) compare the relation whose own name says latitude or longitude (the word or its
usual abbreviations "lat", "long", "lon", "lng": :func:`names_coordinate`), its values within the coordinate's range.
When the class the answer noun names holds no such value itself but reaches one over one relation (a mint's
``geo:location`` holds its ``geo:lat``), the class's members are compared by the value they reach so; so is any
attribute superlative.

**Superlative adjectives** ("which airport has the highest elevation", "which station has the lowest altitude"):
"which/what <noun> has the <adjective>est <noun>", with no word between the answer noun and the verb ("which airport
**in Spain** has ..." is about Spain, the methods' question): an attribute superlative whose relation the attribute
noun names, by the embeddings' cosine or by a word of the relation's name sharing the noun's root
(:func:`names_by_root`: an abbreviated name, ``elev``, ``alt``, which the cosine misses); a relation the adjective
names too ("the longest runway": ``longest``) comes first. Time superlatives are the members-by-date reading's.

**A relation that writes the count** ("which airport has the most runways": ``runways 2``): when a relation's name
ends in the counted noun (up to an ending), its values are whole numbers and its subjects are of the class the answer
noun names, "the most <noun>" compares its values; counting the edges of another relation per subject would count
something else (routes).

A count over the whole KG ("how many mints are there", "how many terms are marked obsolete", "how many countries are
there in the air routes data": placed in a body of data, :data:`~kg_agent.text.DATA_WORDS`) counts the members of
the class its noun names, or the subjects whose yes/no relation its last word names (``owl:deprecated`` for
"obsolete") is true, with the first few counted as evidence (``counted``, ``counted_by``). A count that names a thing
or a value ("how many films are there by X", "how many ebooks are in French") is not one.

The answers carry the evidence (``compared``: the leading groups with their counts or values, ``compared_by``: what
was counted over which relation); a query counts at most :data:`MAX_EDGES` edges and says so when it is cut.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.nameless import Nameless
from kg_agent.kg.per_kg import PerKG
from kg_agent.kg.sparql import sparql_iri
from kg_agent.kg.terms import UNNAMED, node_key
from kg_agent.text import ARTICLES, AUXILIARIES, DATA_WORDS, name_phrase, name_words, same_word, word_match
from kg_agent.tools.shared.aggregates import MAX, MIN, asked_comparison, literal_text, literal_value
from kg_agent.tools.shared.answer_classes import class_names
from kg_agent.tools.shared.kind_values import KindValue, kind_values
from kg_agent.tools.shared.language_names import language_name, language_tag, tag_language
from kg_agent.tools.shared.relation_words import TIME_SUPERLATIVES
from kg_agent.tools.shared.similarity import TextVectors, shared_text_vectors

#: Words after "the most" that say the count is of how often something occurs ("the most common subject heading").
_FREQUENCY = frozenset({"common", "frequent", "popular", "usual", "prevalent"})
#: Words that end the noun phrase after "the most" ("the most books **in** the catalogue").
_PHRASE_END = AUXILIARIES | ARTICLES | {"in", "on", "among", "amongst", "of", "and", "or", "that", "which", "who", "whom",
                                        "per", "across", "at", "for", "by", "from", "to", "with", "than", "ever",
                                        "overall"}
#: Words after "which"/"what" that are no answer noun: "what **is** the most common ..." names none there.
_NO_NOUN = AUXILIARIES | ARTICLES
_SUPERLATIVE = re.compile(r"\bthe\s+(most|fewest|least)\s+", re.IGNORECASE)
#: "which airport has the highest elevation": the answer noun (group 2) and a superlative adjective with its noun.
_ADJECTIVE_SUPERLATIVE = re.compile(r"\s*(which|what)\s+([A-Za-z][\w\s'-]*?)\s+(?:has|have|had)\s+the\s+"
                                    r"[a-z]+(?:est|most)\s+[a-z]+\s*[?.!]?\s*$", re.IGNORECASE)
_HOW_MANY = re.compile(r"\s*how\s+many\s+([A-Za-z][\w\s'-]*?)\s+(?:are|were|is|was|exist)\s+([^?.!]*)[?.!]?\s*$",
                       re.IGNORECASE)
#: "which <noun> is used most often / least frequently ...": how often each occurs is counted.
_MOST_OFTEN = re.compile(r"\s*(which|what)\s+([A-Za-z][\w\s'-]*?)\s+(?:is|are|was|were|occurs?|appears?)\b[\w\s]*?"
                         r"\b(most|least)\s+(?:often|frequently|commonly)\b([^?.!]*)", re.IGNORECASE)
#: "the northernmost", "the westernmost": a compass superlative (generic geography: north is the greatest latitude,
#: east the greatest longitude).
_COMPASS = re.compile(r"\bthe\s+(north|south|east|west)(?:ern)?most\b", re.IGNORECASE)
#: The ``attribute`` of a compass superlative, read on a relation whose own name says latitude or longitude
#: (:func:`names_coordinate`).
LATITUDE, LONGITUDE = "latitude", "longitude"
#: How a relation's name says it is a latitude or a longitude: the word or its usual abbreviations (WGS84 ``geo:lat``
#: / ``geo:long``, GeoNames ``lat`` / ``lng``, schema.org ``latitude``); generic geography, no KG's vocabulary.
_COORDINATE_WORDS = {LATITUDE: frozenset({"latitude", "lat"}), LONGITUDE: frozenset({"longitude", "long", "lon", "lng"})}
#: The range of each coordinate in degrees: a relation whose values leave it is no coordinate.
_COORDINATE_RANGE = {LATITUDE: 90.0, LONGITUDE: 180.0}
#: The ``order`` of a count over the whole KG ("how many terms are marked obsolete").
COUNT = "count"
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]*")
_BOOLEAN = re.compile(r'^"(?:true|false|0|1)"\^\^<http://www\.w3\.org/2001/XMLSchema#boolean>$|^"(?:true|false)"$',
                      re.IGNORECASE)
#: A literal that is a whole number, typed as an integer or untyped ("2"^^xsd:integer, "2", "2"^^xsd:nonNegativeInteger).
_WHOLE_NUMBER = re.compile(r'^"\+?\d+"(?:\^\^<http://www\.w3\.org/2001/XMLSchema#'
                           r'(?:integer|int|long|short|nonNegativeInteger|positiveInteger|unsignedInt|unsignedLong)>)?$')
#: Most edges an aggregate query counts, or attribute values it compares: beyond, the answer says it counted that many
#: and is not marked grounded.
MAX_EDGES = 1_000_000
#: Leading groups whose names are checked (statement nodes and unnamed groups left out) before the best is taken.
NAMED_CHECKED = 50
#: Subjects and objects sampled per relation for its classes.
SIDE_SAMPLE = 50
#: Least cosine by which a noun names a side (its classes or the relation's name): "author" / "creator" 0.63,
#: "mints" / "Mint" 0.91; "author" / "bookshelf" 0.28.
NAMES_SIDE = 0.45
#: Share of a side's sampled nodes of one class above which an answer noun that is merely closest to it restricts
#: the answers to it ("member" / Person, 48 of 50 creators sampled): nearly all.
NEARLY_ALL = 0.9
#: Groups shown in the evidence.
EVIDENCE_GROUPS = 10


@dataclass(frozen=True)
class WholeGraphQuestion:
    """What a question about the whole KG asks: ``order`` (max/min), the ``answer_noun`` ("author"; "" after "who",
    then ``verb`` holds the words naming the relation), and either the ``counted_noun`` ("books") or the
    ``attribute`` word ("downloaded"); for a count of the things in a language ("how many ebooks are in French"),
    ``language`` the language's subtag ("fr"); ``relation_words``: a participle after the counted noun that names the
    relation counted over ("the most people **affiliated** with it")."""

    order: str
    answer_noun: str = ""
    counted_noun: str = ""
    attribute: str = ""
    verb: str = ""
    language: str = ""
    relation_words: str = ""


def whole_graph_question(question: str) -> WholeGraphQuestion | None:
    """The question's reading as a question about the whole KG (module docstring), or None."""
    match = _SUPERLATIVE.search(question)
    if match is None:
        return (_compass_question(question) or _adjective_question(question) or _frequency_question(question)
                or _count_question(question))
    order = MAX if match.group(1).lower() == "most" else MIN
    before = [w.lower() for w in _WORD.findall(question[:match.start()])]
    after = [w.lower() for w in _WORD.findall(question[match.end():])]
    phrase: list[str] = []
    for word in after:
        if word in _PHRASE_END:
            break
        phrase.append(word)
    rest = after[len(phrase):]
    if not phrase or not before or before[0] not in ("which", "what", "who", "whom"):
        return None
    head = before[1] if len(before) > 1 and before[0] != "who" else ""
    answer_noun = "" if head in _NO_NOUN else head
    verb = " ".join(w for w in before[1 if before[0] == "who" else 2:] if w not in _NO_NOUN)
    if phrase[0] in _FREQUENCY:
        noun = " ".join(phrase[1:]) or answer_noun
        counted = next((_noun_phrase(rest[i + 1:]) for i, w in enumerate(rest) if w in ("among", "amongst", "of", "in")),
                       "")
        return WholeGraphQuestion(order, noun, counted, verb=verb) if noun else None
    if len(phrase) >= 2 and phrase[0].endswith("ed"):
        return WholeGraphQuestion(order, " ".join(phrase[1:]), attribute=phrase[0], verb=verb)
    if not answer_noun and not verb:
        return None
    if len(phrase) >= 2 and phrase[-1].endswith("ed"):  # "the most people affiliated": the participle names the relation
        return WholeGraphQuestion(order, answer_noun, " ".join(phrase[:-1]), verb=verb, relation_words=phrase[-1])
    return WholeGraphQuestion(order, answer_noun, " ".join(phrase), verb=verb)


def _frequency_question(question: str) -> WholeGraphQuestion | None:
    """"which relation is used most often in class restrictions", "what subject occurs least frequently among the
    books": the answer noun after "which"/"what", counted per the noun after "in"/"among"/"of"."""
    match = _MOST_OFTEN.match(question)
    if match is None:
        return None
    noun = " ".join(w for w in _WORD.findall(match.group(2).lower()) if w not in _NO_NOUN)
    rest = [w.lower() for w in _WORD.findall(match.group(4))]
    counted = next((_noun_phrase(rest[i + 1:]) for i, w in enumerate(rest) if w in ("among", "amongst", "of", "in")), "")
    if not noun:
        return None
    return WholeGraphQuestion(MAX if match.group(3).lower() == "most" else MIN, noun, counted)


def _compass_question(question: str) -> WholeGraphQuestion | None:
    """"which is the northernmost mint", "which mint is the westernmost": the greatest or least latitude or longitude
    (``attribute`` :data:`LATITUDE` / :data:`LONGITUDE`) over the things the noun names."""
    match = _COMPASS.search(question)
    if match is None:
        return None
    before = [w.lower() for w in _WORD.findall(question[:match.start()])]
    if not before or before[0] not in ("which", "what"):
        return None
    after = _noun_phrase([w.lower() for w in _WORD.findall(question[match.end():])])
    head = before[1] if len(before) > 1 and before[1] not in _NO_NOUN else ""
    noun = after or head
    if not noun:
        return None
    direction = match.group(1).lower()
    axis = LATITUDE if direction in ("north", "south") else LONGITUDE
    return WholeGraphQuestion(MAX if direction in ("north", "east") else MIN, noun, attribute=axis)


def _adjective_question(question: str) -> WholeGraphQuestion | None:
    """"which airport has the highest elevation", "what mountain has the lowest summit": a superlative adjective and
    the noun naming the compared attribute after it, asked of the things the noun after "which"/"what" names and of
    nothing else (no word between the noun and the verb: "which airport **in Spain** has ..." is about Spain). A time
    superlative ("the earliest launch") is left to the members-by-date reading."""
    match = _ADJECTIVE_SUPERLATIVE.match(question)
    if match is None:
        return None
    words = [w for w in _WORD.findall(match.group(2).lower()) if w not in _NO_NOUN]
    compared = asked_comparison(question)
    if not words or any(w in _PHRASE_END for w in words) or compared is None or not compared.extreme \
            or len(compared.words.split()) != 2 or compared.words.split()[0] in TIME_SUPERLATIVES:
        return None
    return WholeGraphQuestion(compared.order, " ".join(words), attribute=compared.words)


def _count_question(question: str) -> WholeGraphQuestion | None:
    """"how many <noun> are there" (``attribute`` empty: the class's members), "how many <noun> are (marked)
    <word>" (``attribute``: the word naming a yes/no relation)."""
    match = _HOW_MANY.match(question)
    if match is None:
        return None
    noun = " ".join(_WORD.findall(match.group(1).lower()))
    rest = [w.lower() for w in _WORD.findall(match.group(2))]
    if not noun or not rest:
        return None
    if rest in (["there"], ["in", "total"], ["there", "in", "total"]):  # "... are there by X" names a thing: not here
        return WholeGraphQuestion(COUNT, counted_noun=noun)
    if rest[:2] == ["there", "in"] and rest[-1] in DATA_WORDS:  # "... are there in the air routes data": in the KG
        return WholeGraphQuestion(COUNT, counted_noun=noun)
    if "in" in rest:  # "how many ebooks are (written) in French": the things whose language it is
        at = len(rest) - 1 - rest[::-1].index("in")
        tag = language_tag(" ".join(rest[at + 1:]))
        return WholeGraphQuestion(COUNT, counted_noun=noun, language=tag) if tag else None
    if len(rest) > 2 or any(w in _PHRASE_END for w in rest):  # "on the shelf": a thing, not a yes/no
        return None
    return WholeGraphQuestion(COUNT, counted_noun=noun, attribute=rest[-1])


def _noun_phrase(words: Sequence[str]) -> str:
    kept: list[str] = []
    for word in words:
        if word in ("the", "a", "an") and not kept:
            continue
        if word in _PHRASE_END:
            break
        kept.append(word)
    return " ".join(kept)


@dataclass
class Side:
    """One side of a relation: the classes of a sample of its nodes (``{class id: how many}``), how many were
    sampled, and how many of them are literals."""

    classes: dict[str, int] = field(default_factory=dict)
    sampled: int = 0
    literals: int = 0
    booleans: int = 0  # literals reading true or false
    whole_numbers: int = 0  # literals that are whole numbers (a count: "2"^^xsd:integer)


class RelationSides:
    """The sampled subject and object classes of every relation of one KG, measured on first use and kept."""

    def __init__(self, kg: KnowledgeGraph) -> None:
        self.kg = kg
        self._sides: dict[str, tuple[Side, Side]] | None = None
        self._lock = threading.Lock()

    def sides(self) -> dict[str, tuple[Side, Side]]:
        """``{relation: (subjects' side, objects' side)}``."""
        with self._lock:
            if self._sides is None:
                self._sides = self._measure()
            return self._sides

    def _measure(self) -> dict[str, tuple[Side, Side]]:
        relations = self.kg.relation_names()
        ends = self.kg.sample_ends([*relations, *(f"^{r}" for r in relations)], SIDE_SAMPLE)
        nodes = list(dict.fromkeys(n for found in ends.values() for n in found if not n.startswith('"')))
        classes = self.kg.classes_of(nodes)
        found: dict[str, tuple[Side, Side]] = {}
        for relation in relations:
            sides = []
            for key in (f"^{relation}", relation):
                side = Side(sampled=len(ends.get(key, [])))
                for node in ends.get(key, []):
                    if node.startswith('"'):
                        side.literals += 1
                        side.booleans += _BOOLEAN.match(node) is not None
                        side.whole_numbers += _WHOLE_NUMBER.match(node) is not None
                    for c in classes.get(node, ()):
                        side.classes[c] = side.classes.get(c, 0) + 1
                sides.append(side)
            found[relation] = (sides[0], sides[1])
        return found


_SIDES: PerKG[RelationSides] = PerKG(RelationSides)


def relation_sides(kg: KnowledgeGraph) -> RelationSides:
    """The process-wide :class:`RelationSides` of a KG (kept as long as the KG is)."""
    return _SIDES.get(kg)


def names_its_subjects(relation_text: str) -> bool:
    """Whether a relation's name says what its *subjects* are ("member of", "sub class of", "part of": ``A member of
    B`` makes A the member) rather than its objects ("creator", "bookshelf", "has exact synonym")."""
    words = relation_text.split()
    return len(words) >= 2 and words[-1] == "of"


@dataclass(frozen=True)
class Grouping:
    """A relation read as groups: ``grouped`` is "object" (count subjects per object) or "subject"; ``answer_class``
    / ``counted_class``: the class restricting each side ("" for none); ``score``: how well the nouns name it;
    ``counted_kind``: the kind value the counted side's members must have (the counted noun names it)."""

    relation: str
    grouped: str
    answer_class: str = ""
    counted_class: str = ""
    score: float = 0.0
    counted_kind: KindValue | None = None


class WholeGraphAnswerer:
    """Answers :class:`WholeGraphQuestion` s over one KG (module docstring)."""

    def __init__(self, kg: KnowledgeGraph, vectors: TextVectors) -> None:
        self.kg = kg
        self.vectors = vectors
        self.class_names = class_names(kg, vectors)

    # ------------------------------------------------------------------ choosing the relation
    def _fit(self, noun: str, texts: Sequence[str]) -> tuple[float, int]:
        """The best cosine of ``noun`` with ``texts`` and its index (0.0, -1 for none)."""
        if not noun or not texts:
            return 0.0, -1
        cosines = self.vectors.rank(noun, list(texts))
        best = max(range(len(texts)), key=lambda i: cosines[i])
        return float(cosines[best]), best

    def _side_fit(self, noun: str, side: Side, relation_text: str, named: bool) -> tuple[float, str]:
        """How well ``noun`` names a side: its classes' names (the class then restricts it), or the relation's name
        when that names this side (``named``)."""
        classes = [c for c, n in side.classes.items() if n >= 2 or n == side.sampled]
        texts: list[str] = []
        owners: list[str] = []
        for c in classes:
            for name in self.class_names.names(c):
                texts.append(name)
                owners.append(c)
        if named:
            texts.append(relation_text)
            owners.append("")
        score, at = self._fit(noun, texts)
        return score, (owners[at] if at >= 0 else "")

    def groupings(self, asked: WholeGraphQuestion) -> list[Grouping]:
        """Every relation and direction, scored by how well the question's nouns name its sides, best first."""
        found: list[Grouping] = []
        kind = self._kind_named(asked.counted_noun) if asked.counted_noun else None
        for relation, (subjects, objects) in relation_sides(self.kg).sides().items():
            text = name_phrase(relation.rsplit(".", 1)[-1])
            by_subject = names_its_subjects(text)
            for grouped, answered, counted in (("object", objects, subjects), ("subject", subjects, objects)):
                if counted.sampled == 0 or answered.sampled == 0:
                    continue
                names_answered = by_subject == (grouped == "subject")
                if asked.answer_noun:
                    a_score, a_class = self._side_fit(asked.answer_noun, answered, text, names_answered)
                else:  # "who created the most terms": the verb names the relation
                    a_score, a_class = self._fit(asked.verb, [text])[0], ""
                c_score, c_class = self._side_fit(asked.counted_noun, counted, text, not names_answered)
                counted_kind = kind if kind is not None and self._reaches_kind(relation, grouped, kind) else None
                if counted_kind is not None:  # the KG's own kind IRI names the counted side ("questions": QUEST_...)
                    c_score, c_class = 1.0, ""
                if max(a_score, c_score) < NAMES_SIDE or a_score + c_score < 2 * NAMES_SIDE:
                    continue
                named_relation = self._fit(asked.relation_words, [text])[0] if asked.relation_words else 0.0
                # the answers are restricted to a class only when the noun names it as a type noun names a class
                # ("region": Region), not when its name is merely closest ("relation": TransitiveProperty, a part of
                # the object properties an ontology's restrictions are on)
                # the answers are restricted to a class only when the noun names it as a type noun names a class
                # ("region": Region), not when its name is merely closest ("relation": TransitiveProperty, a part of
                # the object properties an ontology's restrictions are on), unless nearly every answer sampled is of
                # it (then it leaves out only odd ones: an institution written as a question's creator beside its
                # authors, for "which member asked the most questions")
                if a_class and not self.class_names.named(asked.answer_noun, [a_class]) \
                        and answered.classes.get(a_class, 0) < NEARLY_ALL * answered.sampled:
                    a_class = ""
                found.append(Grouping(relation, grouped, a_class if a_score >= NAMES_SIDE else "",
                                      c_class if c_score >= NAMES_SIDE else "", a_score + c_score + named_relation,
                                      counted_kind))
        return sorted(found, key=lambda g: -g.score)

    # ------------------------------------------------------------------ counting
    def _rows(self, sparql: str) -> list[tuple]:
        try:
            return [tuple(row) for row in self.kg.query(sparql)]
        except (KGError, ValueError):
            return []

    def group_counts(self, grouping: Grouping) -> tuple[dict[str, int], bool]:
        """``({group id: how many distinct counted nodes}, whether the relation has more than :data:`MAX_EDGES` edges,
        of which only that many were counted)``."""
        relation = sparql_iri(self.kg.relation_iri(grouping.relation))
        group, member = ("?o", "?s") if grouping.grouped == "object" else ("?s", "?o")
        where = [f"?s {relation} ?o ."]
        if grouping.answer_class:
            where.append(f"{group} a {sparql_iri(grouping.answer_class)} .")
        if grouping.counted_class:
            where.append(f"{member} a {sparql_iri(grouping.counted_class)} .")
        if grouping.counted_kind is not None:
            kind = grouping.counted_kind
            where.append(f"{member} {sparql_iri(self.kg.relation_iri(kind.relation))} {sparql_iri(kind.value)} .")
        edges = f"SELECT ?s ?o WHERE {{ {' '.join(where)} }} LIMIT {MAX_EDGES + 1}"
        rows = self._rows(f"SELECT {group} (COUNT(DISTINCT {member}) AS ?n) WHERE {{ {{ {edges} }} }} GROUP BY {group}")
        counts = {node_key(key): _number(n) for key, n in rows}
        return counts, sum(counts.values()) > MAX_EDGES and self._more_than_max(edges)

    def _more_than_max(self, edges: str) -> bool:
        rows = self._rows(f"SELECT (COUNT(*) AS ?n) WHERE {{ {{ {edges} }} }}")
        return bool(rows) and _number(rows[0][0]) > MAX_EDGES

    def answer(self, question: str) -> tuple[list[dict], str] | None:
        """``(answers, what was done)`` for a question about the whole KG; None when it is none, or the KG has no
        grouping or attribute the question's nouns name."""
        asked = whole_graph_question(question)
        if asked is None:
            return None
        if asked.order == COUNT:
            return self._language_count_answer(asked) if asked.language else self._count_answer(asked)
        if asked.attribute:
            return self._attribute_answer(asked)
        if self._counts_relation(asked):  # "the most runways": the KG writes how many, read, not counted
            return self._attribute_answer(WholeGraphQuestion(asked.order, asked.answer_noun, attribute=asked.counted_noun))
        for grouping in self.groupings(asked)[:5]:
            counts, cut = self.group_counts(grouping)
            ranked, labels = self._leading_named(counts, asked.order)
            if not ranked or ranked[0][1] < 2 <= len(ranked):  # one member each: nothing stands out
                continue
            if len(ranked) == 1 and not self._verb_names(asked.verb, grouping.relation):
                # one group holding every member (the one publisher of all the questions) is the most only of the
                # relation the question's verb names ("which station published the most letters")
                continue
            best = ranked[0][1]
            of_kind = grouping.counted_kind
            what = (f"counted {asked.counted_noun or 'nodes'}"
                    + (f" (whose {of_kind.relation} is {of_kind.local_name})" if of_kind is not None else "")
                    + f" per {asked.answer_noun or 'value'} over "
                    f"{grouping.relation} ({'subjects per object' if grouping.grouped == 'object' else 'objects per subject'})"
                    + (f", over its first {MAX_EDGES:,} edges only" if cut else ""))
            compared = [{"answer": labels[key], "value": str(n)} for key, n in ranked[:EVIDENCE_GROUPS]]
            return [_record(key, labels[key], compared, what, grounded=not cut) for key, n in ranked if n == best], what
        return None

    def _counts_relation(self, asked: WholeGraphQuestion) -> bool:
        """Whether a relation of the KG writes the counted noun's number itself ("the most runways": ``runways``
        ``2``): its name ends in the counted noun's last word (up to an ending), its values are whole numbers, and
        its subjects are of the class the answer noun names (when the KG's classes are known). Such a relation
        answers "the most <noun>" by its values; counting edges of some other relation would count something else."""
        last = asked.counted_noun.split()[-1:] if asked.counted_noun else []
        if not last or " " in asked.counted_noun.strip() and asked.relation_words:
            return False
        noun_class = self._class_named(asked.answer_noun) if asked.answer_noun else ""
        for relation, (subjects, objects) in relation_sides(self.kg).sides().items():
            words = name_words(relation.rsplit(".", 1)[-1])
            if not words or not same_word(words[-1].lower(), last[0]):
                continue
            if objects.sampled == 0 or objects.whole_numbers < objects.sampled / 2:
                continue
            if noun_class and subjects.classes and noun_class not in subjects.classes:
                continue
            return True
        return False

    def _leading_named(self, values: Mapping[str, float], order: str) -> tuple[list[tuple[str, float]], dict[str, str]]:
        """The groups (or compared nodes) best first, each blank node of one name merged into one (counts summed), the
        unnamed and statement nodes left out; of the leading :data:`NAMED_CHECKED` only, and their labels."""
        blank = [key for key in values if key.startswith("_:")]
        blank_labels = self.kg.labels_by_id(blank) if blank else {}
        merged: dict[str, float] = {}
        first_of: dict[str, str] = {}
        for key, value in values.items():
            if key.startswith("_:"):
                label = blank_labels.get(key) or ""
                if not label or label == UNNAMED:
                    continue
                key = first_of.setdefault(label, key)
                merged[key] = merged.get(key, 0) + value
            else:
                merged[key] = value
        leading = sorted(merged.items(), key=lambda item: (-item[1] if order == MAX else item[1], item[0]))
        leading = leading[:NAMED_CHECKED]
        iris = [key for key, _ in leading if not key.startswith(('"', "_:"))]
        labels = self.kg.labels_by_id(iris) if iris else {}
        nameless = Nameless.among(self.kg, iris)
        named: dict[str, str] = {}
        for key, _ in leading:
            if key.startswith('"'):
                named[key] = literal_text(key)
            elif key.startswith("_:"):
                named[key] = blank_labels[key]  # the first blank node of its name stands for them all
            elif key in nameless.pages:
                named[key] = key
            elif key not in nameless.statements and labels.get(key) not in (None, "", UNNAMED):
                named[key] = labels[key]
        return [(key, value) for key, value in leading if key in named], named

    def _language_count_answer(self, asked: WholeGraphQuestion) -> tuple[list[dict], str] | None:
        """"how many ebooks are in French": the nodes the KG names by a code of the language (``fr``, ``fra``, ``fre``;
        a literal's or a blank node's value, as catalogues write a language), and the things of the class the noun
        names that reach one of them over one relation (the relation reaching most of them), counted."""
        codes = _language_codes(asked.language)
        nodes = list(dict.fromkeys(e.id for code in codes for e in self.kg.find_entities(code)
                                   if tag_language(e.label) == asked.language and e.label.casefold() in codes))
        if not nodes:
            return None
        noun_class = self._class_named(asked.counted_noun)
        by_relation: dict[str, set[str]] = {}
        written: dict[str, set[str]] = {}  # relation -> the codes of the language it reaches
        for node in nodes:
            for relation, subjects in self.kg.edges(node).items():
                if relation.startswith("^"):
                    by_relation.setdefault(relation[1:], set()).update(s for s in subjects if not s.startswith('"'))
                    written.setdefault(relation[1:], set()).add(self.kg.label(node) or "")
        if noun_class:
            members = self.kg.classes_of(sorted({s for found in by_relation.values() for s in found}))
            by_relation = {r: {s for s in found if noun_class in members.get(s, ())} for r, found in by_relation.items()}
        by_relation = {r: found for r, found in by_relation.items() if found}
        if not by_relation:
            return None
        relation = max(sorted(by_relation), key=lambda r: len(by_relation[r]))
        counted = sorted(by_relation[relation])
        labels = self.kg.labels_by_id(counted[:EVIDENCE_GROUPS])
        what = (f"counted the {asked.counted_noun} whose {relation} is {language_name(asked.language)} "
                f"(written {', '.join(sorted(written[relation]))})")
        answer = {"answer": str(len(counted)), "entity_id": None, "score": 1.0, "grounded": True, "paths": [],
                  "chunks": [], "counted": [labels.get(k) or k for k in counted[:EVIDENCE_GROUPS]], "counted_by": what}
        return [answer], what

    def _count_answer(self, asked: WholeGraphQuestion) -> tuple[list[dict], str] | None:
        """"how many terms are marked obsolete": the subjects with a true value of the yes/no relation the word names
        best, of the class the noun names when it names one; "how many mints are there": the members of the class the
        noun names."""
        sides = relation_sides(self.kg).sides()
        if asked.attribute:
            candidates = []
            for relation, (subjects, objects) in sides.items():
                if objects.sampled == 0 or objects.booleans < objects.sampled / 2:
                    continue
                score = self._fit(asked.attribute, [name_phrase(relation.rsplit(".", 1)[-1])])[0]
                if score >= NAMES_SIDE:
                    s_score, s_class = self._side_fit(asked.counted_noun, subjects, "", False)
                    candidates.append((score, relation, s_class if s_score >= NAMES_SIDE else ""))
            if not candidates:
                return None
            _, relation, subject_class = max(candidates)
            where = (f"?s {sparql_iri(self.kg.relation_iri(relation))} ?v . FILTER(LCASE(STR(?v)) IN (\"true\", \"1\"))"
                     + (f" ?s a {sparql_iri(subject_class)} ." if subject_class else ""))
            what = f"counted the {asked.counted_noun} whose {relation} is true"
        else:
            classes = list(dict.fromkeys(c for pair in sides.values() for side in pair for c in side.classes))
            named = self.class_names.named(asked.counted_noun, classes)
            if named:
                counts = {c: sum(side.classes.get(c, 0) for pair in sides.values() for side in pair) for c in named}
                chosen = max(sorted(counts), key=lambda c: counts[c])
                predicates = " ".join(sparql_iri(p) for p in self.kg.naming.class_predicates)
                where = f"VALUES ?class_of {{ {predicates} }} ?s ?class_of {sparql_iri(chosen)} ."
                what = f"counted the members of the class {self.class_names.names(chosen)[0] if self.class_names.names(chosen) else chosen}"
            else:
                of_kind = self._of_kind_value(asked)
                if of_kind is None:
                    return None
                where, what = of_kind
        rows = self._rows(f"SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {{ {where} }}")
        if not rows or rows[0][0] is None:
            return None
        total = _number(rows[0][0])
        shown = [node_key(row[0]) for row in self._rows(f"SELECT DISTINCT ?s WHERE {{ {where} }} LIMIT {EVIDENCE_GROUPS}")]
        labels = self.kg.labels_by_id([k for k in shown if not k.startswith('"')])
        answer = {"answer": str(total), "entity_id": None, "score": 1.0, "grounded": True, "paths": [], "chunks": [],
                  "counted": [labels.get(k) or k for k in shown], "counted_by": what}
        return [answer], what

    def _of_kind_value(self, asked: WholeGraphQuestion) -> tuple[str, str] | None:
        """For "how many written questions are there": the pattern of the subjects of the kind value of a type-like
        relation the counted noun names (``work_type -> .../QUEST_WRITTEN``, :mod:`~kg_agent.tools.shared.kind_values`),
        when it names no class, and what is counted; of several, the one whose local name the phrase's other words
        name too. None when it names none, or several alike (which one is asked is not said)."""
        best = self._kind_named(asked.counted_noun)
        if best is None:
            return None
        return (f"?s {sparql_iri(self.kg.relation_iri(best.relation))} {sparql_iri(best.value)} .",
                f"counted the {asked.counted_noun} (whose {best.relation} is {best.local_name})")

    def _kind_named(self, noun: str) -> KindValue | None:
        """The kind value of a type-like relation the noun names (:mod:`~kg_agent.tools.shared.kind_values`); of
        several, the one whose local name the phrase's other words name too; None when it names none, or several
        alike (which one is asked is not said)."""
        named = kind_values(self.kg).named(noun)
        if not named:
            return None
        phrase = noun.split()
        said = {v: sum(v.named_by(word) for word in phrase) for v in named}
        best = max(named, key=lambda v: said[v])
        return None if sum(said[v] == said[best] for v in named) > 1 else best

    def _verb_names(self, verb: str, relation: str) -> bool:
        """Whether the question's verb (the last word before "the most": "published"; not the words of a phrase
        before it, "member **of the European Parliament** asked") names the relation: by root, or by the cosine at
        the floor."""
        word = verb.split()[-1] if verb.split() else ""
        text = name_phrase(relation.rsplit(".", 1)[-1])
        return bool(word) and (names_by_root(word, text) > 0 or self._fit(word, [text])[0] >= NAMES_SIDE)

    def _reaches_kind(self, relation: str, grouped: str, kind: KindValue) -> bool:
        """Whether the counted side of the relation (its subjects when objects are grouped) has the kind's relation."""
        try:
            return kind.relation in self.kg.relations_following(f"^{relation}" if grouped == "object" else relation)
        except KGError:
            return False

    def _attribute_candidates(self, asked: WholeGraphQuestion) -> list[tuple[float, str, str]]:
        """``(score, relation, subject class)`` of each relation reaching numbers or dates that the attribute names:
        by its words' cosine ("downloaded" / ``downloads``), or for a compass superlative by its own name saying
        latitude or longitude (:func:`names_coordinate`); the subject class is the one the answer noun names."""
        candidates = []
        for relation, (subjects, objects) in relation_sides(self.kg).sides().items():
            if objects.sampled == 0 or objects.literals < objects.sampled / 2:
                continue
            text = name_phrase(relation.rsplit(".", 1)[-1])
            if asked.attribute in _COORDINATE_WORDS:
                score = 1.0 if names_coordinate(text, asked.attribute) else 0.0
            else:
                *adjective, noun = asked.attribute.split()  # "highest elevation": the noun names the attribute
                score = max(self._fit(asked.attribute, [text])[0], names_by_root(noun, text))
                # a relation the adjective names too ("longest runway": ``longest``) over one only the noun names
                score += sum(names_by_root(word, text) for word in adjective)
            if score < NAMES_SIDE:
                continue
            s_score, s_class = self._side_fit(asked.answer_noun, subjects, text, False)
            candidates.append((score + max(s_score, 0.0), relation, s_class if s_score >= NAMES_SIDE else ""))
        return sorted(candidates, reverse=True)

    def _class_named(self, noun: str) -> str:
        """The class of the KG the noun names with the most members sampled on the relations' sides ("" for none)."""
        sides = relation_sides(self.kg).sides()
        classes = list(dict.fromkeys(c for pair in sides.values() for side in pair for c in side.classes))
        named = self.class_names.named(noun, classes) if noun else frozenset()
        if not named:
            return ""
        counts = {c: sum(side.classes.get(c, 0) for pair in sides.values() for side in pair) for c in named}
        return max(sorted(counts), key=lambda c: counts[c])

    def _attribute_answer(self, asked: WholeGraphQuestion) -> tuple[list[dict], str] | None:
        """"the most downloaded book": the relation reaching numbers or dates that the participle names best, over
        the members of the class the answer noun names (when it names one); "the northernmost mint": the relation
        whose name says latitude. When the noun names a class whose members do not hold the value themselves, the
        value is read one relation away (a mint's location, whose latitude the KG gives): the things compared are
        the class's members, each by the extreme of the values it reaches so."""
        candidates = self._attribute_candidates(asked)
        noun_class = self._class_named(asked.answer_noun)
        for _, relation, subject_class in candidates[:3]:
            attribute = sparql_iri(self.kg.relation_iri(relation))
            through = ""
            if subject_class or not noun_class:
                where = f"?s {attribute} ?v ." + (f" ?s a {sparql_iri(subject_class)} ." if subject_class else "")
            else:  # the value is the named class's members' one step away
                where = f"?s a {sparql_iri(noun_class)} . ?s ?through ?x . ?x {attribute} ?v ."
                through = " through the things its members reach"
            values: dict[str, float] = {}
            rows = self._rows(f"SELECT ?s ?v WHERE {{ {where} }} LIMIT {MAX_EDGES + 1}")
            bound = _COORDINATE_RANGE.get(asked.attribute)
            for s, v in rows[:MAX_EDGES]:
                value = literal_value(node_key(v))
                if value is None or bound is not None and abs(value) > bound:
                    continue
                key = node_key(s)
                values[key] = max(value, values.get(key, value)) if asked.order == MAX else min(value, values.get(key, value))
            ranked, labels = self._leading_named(values, asked.order)
            if not ranked:
                continue
            cut = len(rows) > MAX_EDGES
            what = (f"compared {relation}{through} over every {asked.answer_noun or 'subject'}"
                    + (f", over its first {MAX_EDGES:,} values only" if cut else ""))
            compared = [{"answer": labels[key], "value": f"{value:g}"} for key, value in ranked[:EVIDENCE_GROUPS]]
            return [_record(key, labels[key], compared, what, grounded=not cut) for key, value in ranked
                    if value == ranked[0][1]], what
        return None


def _language_codes(subtag: str) -> set[str]:
    """The codes a KG may write a language by: its subtag and its ISO 639-2 codes (``fr``, ``fra``, ``fre``)."""
    import langcodes

    codes = {subtag}
    try:
        language = langcodes.Language.get(subtag)
        codes |= {language.to_alpha3(), language.to_alpha3(variant="B")}
    except (LookupError, ValueError):
        pass
    return {c.casefold() for c in codes if c}


def names_by_root(word: str, relation_text: str) -> float:
    """1.0 when a word of the relation's name is the asked word's root or shares its root (:func:`~kg_agent.text.word_match`
    1.0): an abbreviated name ("elev" for "elevation") the embeddings' cosine misses; else 0.0. Words of fewer than
    three letters of the name are no root."""
    return 1.0 if any(len(w) >= 3 and word_match(word.lower(), w) == 1.0 for w in relation_text.lower().split()) else 0.0


def names_coordinate(relation_text: str, axis: str) -> bool:
    """Whether a relation's own name says it is a latitude (``axis`` :data:`LATITUDE`) or a longitude: one of its
    words is the word or a usual abbreviation of it ("lat", "geo lat", "has latitude", "lng")."""
    return bool(set(relation_text.lower().split()) & _COORDINATE_WORDS[axis])


#: The words of "how many" / "how much" and of "the most / fewest / least": a mention holding them ("many systems of
#: units"; "most", linked to a thing whose name is close to it) is the count's grammar and the noun it counts, no
#: thing the question is about.
_COUNT_WORDS = frozenset({"how", "many", "much", "most", "fewest", "least"})


def only_names_its_nouns(question: str, mentions: Sequence[str], kg: KnowledgeGraph | None = None) -> bool:
    """Whether the question is about the whole KG and each mention an entity was linked from is one of the words of its
    answer or counted noun ("which **bookshelf** holds the most books" linked to the class ``Bookshelf``; "the most
    exact **synonyms**" to a term named "synonymous"; "how **many systems of units** are there"): what it counts or
    asks for, not a thing it is about. With ``kg``, the words after "of" in a counted noun that names no class of the
    KG as a whole name the thing the counted ones are of ("how many units of **length**": the quantity kind
    *length*, whose units are counted), unless the whole phrase names a class ("systems of units")."""
    asked = whole_graph_question(question)
    if asked is None or not mentions:
        return False
    counted = asked.counted_noun
    _, of, tail = counted.partition(" of ")
    about = set(tail.split()) if of and kg is not None and _names_no_class(kg, counted) else set()
    nouns = set(f"{asked.answer_noun} {counted}".split()) - about
    return all(mention and set(_WORD.findall(mention.lower())) - _COUNT_WORDS <= nouns for mention in mentions)


def _names_no_class(kg: KnowledgeGraph, noun: str) -> bool:
    """Whether the KG's classes are known and the noun names none of them."""
    names = class_names(kg, shared_text_vectors())
    every = kg.classes().every
    return every is not None and not names.named(noun, every)


def answer_over_whole_graph(kg: KnowledgeGraph, question: str,
                            vectors: TextVectors | None = None) -> tuple[list[dict], str] | None:
    """:meth:`WholeGraphAnswerer.answer` over ``kg`` with the offline deciders' shared text vectors by default; None
    when the question is no question about the whole KG or the KG cannot answer it."""
    if whole_graph_question(question) is None:
        return None
    return WholeGraphAnswerer(kg, vectors or shared_text_vectors()).answer(question)


def _record(key: str, label: str, compared: list[dict], what: str, *, grounded: bool = True) -> dict:
    return {"answer": label, "entity_id": key, "score": 1.0, "grounded": grounded, "paths": [], "chunks": [],
            "compared": compared, "compared_by": what}


def _number(term) -> int:
    return int(term.toPython() if hasattr(term, "toPython") else term)


