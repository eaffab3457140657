"""Answer-type cues: what kind of thing a question asks for, and what kind of thing a relation leads to.

The relation-path scorer (:mod:`kg_agent.tools.shared.path_scoring`) aligns each hop with a phrase of the
question, but some questions name no relation at all ("what kind of film is [X]", "where did the CEO of [X]
study"): their wh-word or type noun says what the *answer* is, and the knowledge graph says what a
relation's objects are. :func:`answer_type_match` scores a path's last hop against that cue.

* **The question** (:class:`AskedType`): "when" / "what year" ask for a time, "how much" / "how heavy" a number,
  "where" / "which country" for a place, "who" for a person; the noun after "what"/"which" ("industries", "genres", "kind of", "words") is
  the type noun. The word lists are generic English type words, nothing data-set specific.
* **The graph** (:class:`ObjectKinds`, one per relation and KG, cached): a few objects of the relation are
  sampled with bounded SPARQL sub-selects (:meth:`~kg_agent.kg.graph.KnowledgeGraph.sample_ends`: many relations
  per query, so memory, Oxigraph and endpoint graphs answer alike and an endpoint is asked once per scoring call,
  not once per relation) and read from the backend's interface: a literal's datatype (``xsd:date``, ``xsd:gYear``:
  a time; ``xsd:integer``: a number), else their labels' shape (years and dates), and the
  relations at them — an object others are born / located / headquartered *in* or educated *at* is a place, one
  that things are directed / written / founded *by*, or that is born, is a person; a place with a relation *in*
  another place (a city ``located_in`` a country) is contained in a larger one.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import SAMPLE_RELATIONS_PER_QUERY, KnowledgeGraph
from kg_agent.kg.per_kg import PerKG
from kg_agent.kg.profile import MAX_NAME_CHARACTERS
from kg_agent.kg.record_values import record_nodes
from kg_agent.kg.role_nodes import role_nodes
from kg_agent.kg.terms import UNNAMED
from kg_agent.kg.types import base_relation, is_inverse
from kg_agent.text import BE_WORDS, content_words, name_words, same_word
from kg_agent.text import words as text_words
from kg_agent.tools.shared.relation_words import ROUND_TRIP_WORDS, TIME_SUPERLATIVES

TIME, PLACE, PERSON, NUMBER = "time", "place", "person", "number"

#: The determiner of "which other mints", "what other books": the noun after it is the type noun.
OTHER = "other"
#: What a wh-word asks for.
WH_KINDS = {"when": TIME, "where": PLACE, "who": PERSON, "whom": PERSON}
#: Type nouns (after "what"/"which") that ask for a time or a place.
TIME_NOUNS = frozenset({"year", "years", "date", "dates", "day", "month", "decade", "century"})
LARGE_PLACE_NOUNS = frozenset({"country", "countries", "nation", "nations", "continent", "continents"})
SMALL_PLACE_NOUNS = frozenset({"city", "cities", "town", "towns", "village", "villages"})
PLACE_NOUNS = LARGE_PLACE_NOUNS | SMALL_PLACE_NOUNS | {"place", "places", "location", "locations", "region", "regions",
                                                     "state", "area", "address"}
#: Words after "how" that ask for a quantity, a number ("how much", "how heavy", "how long"); "how many" counts things
#: (:func:`~kg_agent.tools.shared.answer_checks.asks_how_many`). Generic English.
MEASURE_WORDS = frozenset({"much", "heavy", "tall", "high", "long", "old", "far", "big", "large", "deep", "wide",
                           "fast", "expensive", "hot", "cold", "thick", "small", "short", "low"})
#: Type nouns that stand for a family of words a relation may name its objects by: "what kind of film" is
#: answered by a relation whose objects are genres, "what kind of government" by one whose objects are forms (of
#: government: "form" is "kind" as "sort" and "variety" are), "what words describe [X]" by one whose objects are tags.
NOUN_FAMILIES = (
    frozenset({"kind", "type", "sort", "form", "genre", "category", "class", "style", "variety"}),
    frozenset({"word", "words", "term", "terms", "keyword", "keywords", "tag", "tags", "label", "labels"}),
)
#: Family words that in a relation's name mark schema bookkeeping (``common.topic.notable_types``,
#: ``administrative_area_type``), not the kind of thing asked for: "what kind of government" is no cue for them.
SCHEMA_TYPE_WORDS = frozenset({"type", "types", "kind", "kinds", "class", "classes"})
#: Beginnings of words by which a node's *own* relations say it is a place ("located_in", Freebase's
#: ``containedby``) or a person: only persons are born and die ("birth_date", "birthdate", "died_in"). Generic English.
PLACE_SUBJECT_STEMS = ("located", "contained")
PERSON_SUBJECT_STEMS = ("born", "birth", "death", "died")
#: Nouns by which a node's own relations say it is a person: what has a spouse, parents or children, or a dotted
#: name's domain ``people.person``. Generic English.
PERSON_SUBJECT_NOUNS = frozenset({"person", "people", "spouse", "spouses", "wife", "husband", "parent", "parents",
                                  "child", "children", "mother", "father", "sibling", "siblings"})
#: Type nouns that ask for persons without ending like an agent noun (:data:`AGENT_ENDINGS`: "director", "writer",
#: "actress", "artist", "politician", "president"): generic English, nothing data-set specific.
PERSON_NOUNS = frozenset({
    "person", "persons", "people", "man", "men", "woman", "women", "someone", "somebody", "anyone", "individual",
    "individuals", "human", "humans", "guy", "guys", "kid", "kids", "child", "children", "son", "sons", "daughter",
    "daughters", "wife", "wives", "husband", "husbands", "spouse", "spouses", "sibling", "siblings", "family",
    "relative", "relatives", "friend", "friends", "colleague", "colleagues", "cast", "crew", "staff", "star", "stars",
    "celebrity", "celebrities", "king", "kings", "queen", "queens", "prince", "princes", "heir", "heirs", "pope",
    "popes", "chef", "chefs", "guest", "guests", "hero", "heroes", "heroine", "athlete", "athletes", "coach",
    "coaches", "pilot", "pilots", "poet", "poets", "judge", "judges", "monarch", "monarchs", "saint", "saints",
    "candidate", "candidates", "nominee", "nominees", "ceo", "ceos", "cofounder", "cofounders", "alumni", "alumnus",
    "critic", "critics", "mom", "dad", "mum", "parent", "parents", "mother", "mothers", "father", "fathers", "brother", "brothers",
    "sister", "sisters", "uncle", "aunt", "cousin", "cousins", "grandson", "granddaughter", "offspring",
    # agent nouns that name persons (by their -er/-or/-ist ending a question's type noun is read so too)
    "actor", "actors", "actress", "actresses", "author", "authors", "writer", "writers", "director", "directors",
    "producer", "producers", "creator", "creators", "founder", "founders", "member", "members", "employee",
    "employees", "artist", "artists", "player", "players", "singer", "singers", "leader", "leaders", "owner", "owners",
    "winner", "winners", "editor", "editors", "translator", "translators", "illustrator", "illustrators",
})
#: Endings of agent nouns, which may name persons ("screenwriters", "actor", "actress", "scientist", "politician",
#: "president", "employee"); a type noun ending so is never read as asking for something other than a person.
AGENT_ENDINGS = ("er", "ers", "or", "ors", "ess", "esses", "ist", "ists", "ian", "ians", "ant", "ants", "ent", "ents",
                 "ee", "ees", "eur", "eurs", "ive", "ives", "ary", "aries", "ate", "ates")
def names_persons(word: str) -> bool:
    """Whether a word of a relation's name says its node is a person: a person noun (:data:`PERSON_NOUNS`, generic
    English; agent-noun endings are no cue in a relation's name: "gender", "number", "risk_factors")."""
    return word in PERSON_NOUNS


#: A relation ending in one of these has a place (or a time) as its object ("born_in", "educated_at"), in "by"
#: an agent ("directed_by").
PLACE_PREPOSITIONS = frozenset({"in", "at"})
AGENT_PREPOSITION = "by"

#: XML Schema datatypes whose values are times (dates, years, moments) and numbers: a literal's datatype says what its
#: value is, where its lexical form may not (``"858"^^xsd:integer`` looks like a year, ``"-0063-09-23"^^xsd:date`` like
#: nothing its shape rule reads).
XSD = "http://www.w3.org/2001/XMLSchema#"
TIME_DATATYPES = frozenset(XSD + name for name in ("date", "dateTime", "dateTimeStamp", "gYear", "gYearMonth", "time"))
NUMBER_DATATYPES = frozenset(XSD + name for name in (
    "integer", "decimal", "double", "float", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
    "nonPositiveInteger", "negativeInteger", "unsignedInt", "unsignedLong", "unsignedShort", "unsignedByte"))
_DATATYPE = re.compile(r'^".*"\^\^<([^>]*)>$', re.DOTALL)


def literal_kind(node: str) -> str:
    """What a node's datatype says it is: :data:`TIME` for a literal typed as a date, year or moment, :data:`NUMBER` for
    one typed as a number, "" for anything else (an IRI, a plain or language-tagged string, another datatype)."""
    match = _DATATYPE.match(node) if node.startswith('"') else None
    if match is None:
        return ""
    datatype = match.group(1)
    return TIME if datatype in TIME_DATATYPES else NUMBER if datatype in NUMBER_DATATYPES else ""


_YEAR_OR_DATE = re.compile(r"^\s*(\d{3,4}|\d{4}-\d{2}(-\d{2})?([t ].*)?|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|"
                           r"([a-z]+\.? )?\d{1,2},? \d{4}|\d{1,2} [a-z]+\.? \d{4})\s*$", re.IGNORECASE)


#: The namespaces of the languages RDF data is written in (RDF 1.1, RDF Schema 1.1, OWL 2): their terms as values
#: (``x rdf:type owl:Class``) say how a node is modelled, not what it is.
LANGUAGE_VOCABULARIES = ("http://www.w3.org/1999/02/22-rdf-syntax-ns#", "http://www.w3.org/2000/01/rdf-schema#",
                         "http://www.w3.org/2002/07/owl#")
#: Fewest words of a sentence (:func:`is_prose`).
SENTENCE_WORDS = 4


def is_prose(text: str) -> bool:
    """Whether a text literal is prose rather than a name: longer than names are
    (:data:`~kg_agent.kg.profile.MAX_NAME_CHARACTERS`), or a sentence, :data:`SENTENCE_WORDS` words or more ending
    in a full stop ("A gene from nuclear sequence.")."""
    text = text.strip()
    return len(text) > MAX_NAME_CHARACTERS or (text.endswith(".") and len(text.split()) >= SENTENCE_WORDS)


def looks_like_time(label: str) -> bool:
    """Whether a label reads as a year or a date ("1850", "2008-06-27", "June 27, 2008")."""
    return _YEAR_OR_DATE.match(label) is not None


@dataclass(frozen=True)
class AskedType:
    """What a question asks for: ``kind`` (:data:`TIME`, :data:`PLACE`, :data:`PERSON` or ""), the type noun, and
    the token where the question says so."""

    kind: str = ""
    noun: str = ""
    position: int = 0
    #: words before the noun that say which of its kind ("invited" in "how many invited talks")
    modifiers: tuple[str, ...] = ()
    #: the noun phrase as the question writes it, from its first word up to the first function word or mention:
    #: ``("research", "track", "papers")`` in "which research track papers did [X] write" (what a literal value or
    #: a class of some answers may name whole: :func:`~kg_agent.tools.shared.constraints.of_named_kind`)
    noun_phrase: tuple[str, ...] = ()

    @property
    def phrase(self) -> str:
        """The type noun with its modifiers ("invited talks"): what names a class of the KG."""
        return " ".join((*self.modifiers, self.noun)) if self.noun else ""

    @classmethod
    def of(cls, tokens: Sequence[str], function_words: frozenset[str]) -> AskedType:
        """From the question's first wh-word: its kind, or for "what"/"which" the noun that follows (also after
        "what was the first / last / earliest / latest": "what was the first invited talk at [X]")."""
        for index, token in enumerate(tokens):
            if token in WH_KINDS:
                return cls(WH_KINDS[token], position=index)
            if token in ("what", "which"):
                # "which other mints": the noun after the determiner "other" is what the answers are
                at = index + 2 if index + 2 < len(tokens) and tokens[index + 1] == OTHER else index + 1
                if (at + 3 < len(tokens) and tokens[at] in BE_WORDS and tokens[at + 1] == "the"
                        and tokens[at + 2] in TIME_SUPERLATIVES):
                    at += 3  # "what was the first <noun>": the things ranked are of the noun's kind
                return cls._noun_at(tokens, at, function_words)
            if token == "how" and index + 1 < len(tokens) and tokens[index + 1] in MEASURE_WORDS:
                return cls(NUMBER, position=index + 1)  # "how much", "how heavy": a quantity
            if token == "how":  # "how many terms ...": the noun counted is what the answers are
                if index + 1 < len(tokens) and tokens[index + 1] == "many":
                    return cls._noun_at(tokens, index + 2, function_words)
                return cls()
        return cls()

    @classmethod
    def _noun_at(cls, tokens: Sequence[str], at: int, function_words: frozenset[str]) -> AskedType:
        """The type noun at token ``at``; a participle there ("invited talks", "published papers") modifies the
        content word after it, which is the noun."""
        noun = tokens[at] if at < len(tokens) else ""
        if not noun or noun in function_words or noun == "[ent]":
            return cls()
        written: list[str] = []  # a round-trip cue after its first word ends it too: "which films **share** actors"
        for word in tokens[at:]:
            if word in function_words or word == "[ent]" or (written and word in ROUND_TRIP_WORDS):
                break
            written.append(word)
        modifiers: tuple[str, ...] = ()
        after = tokens[at + 1] if at + 1 < len(tokens) else ""
        if (len(noun) > 4 and noun.endswith("ed") and after and after not in function_words and after != "[ent]"
                and after.isalpha()):
            modifiers, noun, at = (noun,), after, at + 1
        kind = TIME if noun in TIME_NOUNS else PLACE if noun in PLACE_NOUNS else ""
        return cls(kind, noun, at, modifiers, tuple(written))

    @property
    def excludes_persons(self) -> bool:
        """Whether the question names a kind of thing that is not a person ("which films", "what genres", "which
        words"): a type noun neither in :data:`PERSON_NOUNS` nor ending like an agent noun (:data:`AGENT_ENDINGS`),
        with no wh-word kind. A noun that may name persons ("which screenwriters", "which actress") does not."""
        noun = self.noun
        return bool(noun) and not self.kind and noun not in PERSON_NOUNS and not noun.endswith(AGENT_ENDINGS) \
            and not names_persons(noun)

    @property
    def asks_persons(self) -> bool:
        """Whether the question asks for persons: "who", or a type noun that names persons (:func:`names_persons`:
        "which authors", "which actors")."""
        return self.kind == PERSON or (not self.kind and names_persons(self.noun))

    def named_by(self, relation: str) -> bool:
        """Whether the relation names its objects with the type noun (or a word of its family): ``in_industry``
        for "industries", ``has_genre`` for "kind", ``release_year`` for "year"."""
        return bool(self.noun) and _noun_names_objects(self.noun, relation)


#: A number as an untyped literal writes it: "42", "-3.5", "1,5".
PLAIN_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)?")


def literal_answer_kind(answer: dict) -> str:
    """What a literal answer is: its datatype's kind (:func:`~kg_agent.tools.shared.answer_types.literal_kind`), else
    for an untyped literal :data:`TIME` when it reads as a year or date, :data:`NUMBER` as a number, ``"text"``
    otherwise; "" for an answer that is no literal (a thing, judged by its relations elsewhere)."""
    key = str(answer.get("entity_id") or "")
    if not key.startswith('"'):
        return ""
    kind = literal_kind(key)
    if kind:
        return kind
    text = str(answer.get("answer", "")).strip()
    return TIME if looks_like_time(text) else NUMBER if PLAIN_NUMBER.fullmatch(text) else "text"


@functools.lru_cache(maxsize=65_536)
def _noun_names_objects(noun: str, relation: str) -> bool:
    """:meth:`AskedType.named_by` for a type noun (a pure function of the two names, asked for every scored path)."""
    family = next((f - SCHEMA_TYPE_WORDS for f in NOUN_FAMILIES if any(same_word(noun, w) for w in f)), frozenset({noun}))
    return any(same_word(word, other) for word in object_name_words(relation) for other in family)


def object_name_words(relation: str) -> list[str]:
    """The words by which a relation's name describes its objects: the name's own words when walked forward
    (``has_genre`` -> genre), but not the words that say what its *subject* is (:func:`subject_qualifier`:
    ``original_language_of_film_or_TV_show`` -> original, language), the subject's type of a dotted name when
    walked backwards (``^film.film.directed_by`` -> film)."""
    name = base_relation(relation)
    if is_inverse(relation):
        parts = name.split(".")
        return text_words(parts[-2]) if len(parts) >= 3 else []
    words = text_words(name.rsplit(".", 1)[-1])
    qualifier = len(subject_qualifier(words))
    return content_words(words[:len(words) - qualifier])


def names_places(relation: str) -> bool:
    """Whether a relation walked forward names its objects by a place noun (:data:`PLACE_NOUNS`): ``hasLocation``,
    ``address``, ``place_of_birth``'s head "place" -- what the KG calls its values, which may be texts
    ("Hiroshima, Japan") that no relation at them says are places."""
    if is_inverse(relation):
        return False
    words = name_words(_own_name(relation))
    return bool(set(words[:len(words) - len(subject_qualifier(words))]) & PLACE_NOUNS)


def subject_qualifier(words: Sequence[str]) -> list[str]:
    """The trailing words of a relation's name (or alias) ``A of B`` that say what kind of thing its *subject* is,
    not its objects: ``B`` when the head ``A`` is no agent noun -- "original language **of film or TV show**" (a
    language, of a film), "type **of film**", "place **of birth**" -- with the "of"; none for "member of sports
    team" (the subject is the member, the object the team: an agent noun, :data:`AGENT_ENDINGS`), nor for a name
    without "of" or ending in it ("part of")."""
    words = [w.lower() for w in words]
    if "of" not in words[1:-1]:
        return []
    at = words.index("of", 1)
    head = [w for w in words[:at] if len(w) >= 3]
    if not head or head[-1].endswith(AGENT_ENDINGS) or head[-1] in PERSON_NOUNS:
        return []
    return list(words[at:])


def _own_name(relation: str) -> str:
    """The relation's name without its domain: ``people.person.place_of_birth`` -> ``place_of_birth``."""
    return base_relation(relation).rsplit(".", 1)[-1]


def _subject_words(relation: str) -> list[str]:
    """What a relation says of its subject: the domain's type of a dotted name (``people.person.*`` -> person,
    people), else the name's words (``born_in`` -> born, in)."""
    parts = base_relation(relation).split(".")
    return text_words(parts[-2]) + text_words(parts[0]) if len(parts) >= 3 else text_words(parts[-1])


@dataclass(frozen=True)
class _Traits:
    """What :meth:`ObjectKinds.of` reads from a relation at a sampled object (its name's words, once per name)."""

    incoming: bool
    own_words: frozenset[str]  # the words of its own name (:func:`_own_name`)
    subject_words: frozenset[str]  # what it says of its subject (:func:`_subject_words`)
    ending: str  # the last word of its own name ("in" of ``born_in``, "by" of ``directed_by``)


@functools.lru_cache(maxsize=65_536)
def _traits(relation: str) -> _Traits:
    own = text_words(_own_name(relation))
    return _Traits(is_inverse(relation), frozenset(own), frozenset(_subject_words(relation)), own[-1] if own else "")


@dataclass(frozen=True)
class ObjectKinds:
    """What a relation's objects are, from a sample: the share that are times (years, dates), places, persons,
    and, of the places, the share contained in another place; and the share that are unnamed (mediator nodes: a
    Freebase marriage or government position, a Wikidata statement), which are a step inside one fact, never
    its answer."""

    sampled: int = 0
    time: float = 0.0
    place: float = 0.0
    person: float = 0.0
    contained: float = 0.0
    unnamed: float = 0.0
    classes: tuple[str, ...] = ()  # the KG's classes (``rdf:type``, ``instance of``) of at least half the sampled objects
    values: tuple[str, ...] = ()  # the sampled objects' labels, sorted, each once ("is [X] a man or a woman": *male*, *female*)
    number: float = 0.0  # the share that are literals typed as numbers (:func:`literal_kind`)
    #: the share that are prose (:func:`is_prose`): a definition, a comment, an abstract, which a question asks for by
    #: its relation's name, never by a paraphrase
    prose: float = 0.0
    #: the share that are terms of the RDF, RDFS and OWL vocabularies themselves (:data:`LANGUAGE_VOCABULARIES`:
    #: ``owl:Class``, ``owl:NamedIndividual``): what kind of node the ontology language makes a thing, nothing the KG
    #: says about it
    vocabulary: float = 0.0
    #: the labels of the role nodes the relation leads to (:meth:`~kg_agent.kg.role_nodes.RoleNodes.labels_reached_by`:
    #: "General Chair", "Gold Sponsor" for ``hasRole``): the names a question asks for one of them by
    role_labels: tuple[str, ...] = ()

    @classmethod
    def of(cls, labels: Sequence[str], signatures: Sequence[Sequence[str]],
           classes: Sequence[Sequence[str]] = (), nodes: Sequence[str] = (),
           role_labels: Sequence[str] = ()) -> ObjectKinds:
        """From the sampled objects' labels, the relations at each of them (``^r`` for incoming), when the KG
        has class facts each object's classes, and the objects' ids (``nodes``: a typed literal's datatype says
        whether it is a time or a number, :func:`literal_kind`, before its label's shape is read; numbers that all
        read as years are years, as a KG may type a year of birth ``xsd:integer``)."""
        if not labels:
            return cls()
        unnamed = sum(label == UNNAMED for label in labels) / len(labels)
        typed = [literal_kind(node) for node in nodes] if nodes else [""] * len(labels)
        if NUMBER in typed and all(looks_like_time(label) for label, kind in zip(labels, typed) if kind == NUMBER):
            typed = [TIME if kind == NUMBER else kind for kind in typed]  # integers that are all years: 1812, 1870
        times = [kind == TIME or (not kind and bool(_YEAR_OR_DATE.match(label))) for label, kind in zip(labels, typed)]
        numbers = sum(kind == NUMBER for kind in typed)
        places = persons = contained = 0
        for is_time, relations in zip(times, signatures):
            if is_time:
                continue
            traits = [_traits(r) for r in relations]
            incoming = [t for t in traits if t.incoming]
            outgoing = [t for t in traits if not t.incoming]
            # each relation at the node votes for what it says the node is; the kind more of them say wins
            place = (sum(t.ending in PLACE_PREPOSITIONS or bool(t.own_words & PLACE_NOUNS) for t in incoming)
                     + sum(any(w.startswith(PLACE_SUBJECT_STEMS) or w == "location" for w in t.subject_words)
                           for t in outgoing))
            person = (sum(t.ending == AGENT_PREPOSITION or any(names_persons(w) for w in t.own_words) for t in incoming)
                      + sum(any(w.startswith(PERSON_SUBJECT_STEMS) or w in PERSON_SUBJECT_NOUNS for w in t.subject_words)
                            for t in outgoing))
            if place > person:
                places += 1
                contained += any(t.ending in PLACE_PREPOSITIONS
                                 or any(w.startswith(PLACE_SUBJECT_STEMS) or w == "location" for w in t.own_words)
                                 for t in outgoing)
            elif person > place:
                persons += 1
        n = len(labels)
        held: dict[str, int] = {}
        for of_object in classes:
            for name in set(of_object):
                held[name] = held.get(name, 0) + 1
        common = tuple(sorted(name for name, count in held.items() if 2 * count >= n))
        prose = sum(node.startswith('"') and not kind and is_prose(label) for node, label, kind in zip(nodes, labels, typed))
        vocabulary = sum(node.startswith(LANGUAGE_VOCABULARIES) for node in nodes)
        return cls(n, sum(times) / n, places / n, persons / n, contained / places if places else 0.0, unnamed, common,
                   tuple(sorted(set(labels))), numbers / n, prose / n, vocabulary / n, tuple(role_labels))




#: The name of the kinds' table in an endpoint's persistent result cache (renamed when :class:`ObjectKinds` gained
#: ``classes``, then ``values``: kinds stored before hold none; when the relations at a node began to vote; and when
#: a literal's datatype began to say whether it is a time, and ``number`` was added; and ``prose``, ``vocabulary``).
OBJECT_KINDS_CACHE = "object_kinds_vocabulary"


class RelationObjectKinds:
    """:class:`ObjectKinds` per relation of one KG, computed on first use from ``sample`` objects per relation
    and kept (also in an endpoint's persistent result cache, :attr:`KnowledgeGraph.result_cache`, when it has one).

    :meth:`kinds_of` profiles many relations at once: their objects in one query per ``relations_per_query``
    relations (:meth:`KnowledgeGraph.sample_ends`), then the labels and relation names at all those objects in one batch
    (:meth:`KnowledgeGraph.relations_at_each`), so a cold SPARQL endpoint client pays two requests for a whole
    scoring call's last hops rather than a few per relation."""

    def __init__(self, kg: KnowledgeGraph, *, sample: int = 8, relations_per_query: int = SAMPLE_RELATIONS_PER_QUERY) -> None:
        self.kg = kg
        self.sample = sample
        self.relations_per_query = relations_per_query
        self._kinds: dict[str, ObjectKinds] = {}
        self._lock = threading.Lock()

    def kinds_of(self, relations: Iterable[str]) -> dict[str, ObjectKinds]:
        """``{relation: ObjectKinds}``: the known ones as kept, the others profiled together (class docstring).
        When the graph cannot answer (a dead endpoint), the relations not known get no cue (``sampled == 0``)
        and are asked again next time."""
        wanted = list(dict.fromkeys(relations))
        with self._lock:
            found = {relation: self._kinds[relation] for relation in wanted if relation in self._kinds}
        todo = [relation for relation in wanted if relation not in found]
        cache = self.kg.result_cache
        if cache is not None and todo:  # an endpoint's persistent cache: a re-run asks the endpoint nothing
            stored = cache.get_many(OBJECT_KINDS_CACHE, todo)
            found.update({relation: ObjectKinds(**{**kinds, "classes": tuple(kinds.get("classes", ())),
                                                   "values": tuple(kinds.get("values", ())),
                                                   "role_labels": tuple(kinds.get("role_labels", ()))})
                          for relation, kinds in stored.items()})
            todo = [relation for relation in todo if relation not in stored]
        if todo:
            try:
                objects = self.kg.sample_ends(todo, self.sample, per_query=self.relations_per_query)
                every = list(dict.fromkeys(node for nodes in objects.values() for node in nodes))
                relations_at = self.kg.relations_at_each(every)
                labels = self.kg.labels_by_id(every)
                classes = self.kg.classes_of(every)
                # a named role node ("General Chair") or owned value ("Value for X") is a statement node, a step inside
                # one fact, as unnamed ones are
                roles = role_nodes(self.kg).statements_among(every, classes)
                # so is a record named only by a value many records share (kg/record_values.py)
                roles |= record_nodes(self.kg, every, relations_at)
                labels.update(dict.fromkeys(roles, UNNAMED))
                role_labels = {relation: role_nodes(self.kg).labels_reached_by(relation) for relation in todo
                               if roles.intersection(objects[relation])}
            except KGError:
                return {**found, **{relation: ObjectKinds() for relation in todo}}
            profiled = {relation: ObjectKinds.of([labels[node] for node in objects[relation]],
                                                 [relations_at[node] for node in objects[relation]],
                                                 [classes.get(node, ()) for node in objects[relation]],
                                                 objects[relation], role_labels.get(relation, ()))
                        for relation in todo}
            if cache is not None:
                cache.put_many(OBJECT_KINDS_CACHE, {relation: asdict(kinds) for relation, kinds in profiled.items()})
            found.update(profiled)
        with self._lock:
            self._kinds.update(found)
        return {relation: found[relation] for relation in wanted}

    def kinds(self, relation: str) -> ObjectKinds:
        """The :class:`ObjectKinds` of one relation (:meth:`kinds_of`)."""
        return self.kinds_of([relation])[relation]


_BY_KG: PerKG[RelationObjectKinds] = PerKG(RelationObjectKinds)


def relation_object_kinds(kg: KnowledgeGraph) -> RelationObjectKinds:
    """The process-wide :class:`RelationObjectKinds` of a KG (kept as long as the KG is)."""
    return _BY_KG.get(kg)


#: How strongly a question's wh-word or place/time noun evidences a last hop whose objects fit it ("where" for
#: ``educated_at``, whose objects are places): short of a named relation (1.0), enough to count as asked for.
TYPE_EVIDENCE = 0.75


@dataclass(frozen=True)
class TypeMatch:
    """How a path's last hop meets the answer type asked: ``fit`` (about -2..+2, see :func:`answer_type_match`)
    and ``evidence``, how far the cue itself asks for the last hop (0..1)."""

    fit: float = 0.0
    evidence: float = 0.0


def noun_only_modifies(noun: str, names: Iterable[str]) -> bool:
    """Whether some of ``names`` (a relation's name and aliases) hold the type noun and each that does holds it
    before its last word, as a modifier: "**film** director" is a director (of films), not a film."""
    found = False
    for name in names:
        words = text_words(name)
        hits = [i for i, word in enumerate(words) if same_word(noun, word)]
        if not hits:
            continue
        if hits[-1] == len(words) - 1:
            return False
        found = True
    return found


def persons_named_by_modifier(asked: AskedType, relation: str, kinds: RelationObjectKinds | None,
                              names: Iterable[str]) -> bool:
    """Whether ``relation`` holds the question's type noun only as a modifier of its name (:func:`noun_only_modifies`)
    while the KG says its objects are persons and the noun asks for something else (:attr:`AskedType.excludes_persons`):
    "what **films** did [X] write" is not asked for by a hop ``film director`` (dbo:director) after the films."""
    if kinds is None or not asked.excludes_persons or not noun_only_modifies(asked.noun, names):
        return False
    return kinds.kinds(relation).person >= 0.5


def contradicts_asked_type(asked: AskedType, path: Sequence[str], kinds: RelationObjectKinds) -> bool:
    """Whether the path's answers are of a kind the question does not ask for, judged from the KG: the last hop's
    sampled objects are persons (:class:`ObjectKinds`) and the question's type noun names something else
    (:attr:`AskedType.excludes_persons`: "which films did [X] act in" is not answered by ``^has_tags ->
    starred_actors``), unless the last relation names its objects by that noun."""
    if not path or not asked.excludes_persons or asked.named_by(path[-1]):
        return False
    return kinds.kinds(path[-1]).person >= 0.5


def answer_type_match(asked: AskedType, path: Sequence[str], kinds: RelationObjectKinds,
                      named_classes: frozenset[str] = frozenset(), reaching: frozenset[str] = frozenset()) -> TypeMatch:
    """How well the path's answers (the last hop's objects) fit what the question asks for.

    ``fit``:

    * a time asked: +1 when the objects are times, -1 when not;
    * a place asked: +1 for places, -1 for times and persons; for "which country" +0.5 when the places are
      not contained in another place and -0.5 when they are (a city), the other way round for "which city"; for
      "where", +1 for a relation whose name calls its objects a place (:func:`names_places`: ``hasLocation``);
    * a person asked ("who", or a type noun that names persons: "which authors"): +1 for persons, -1 for times and
      places;
    * a quantity asked ("how much", "how heavy"): +1 for numbers (literals typed so), -1 for times, places, persons;
    * a type noun: +1 when the last relation names its objects by it (``in_industry`` for "what industries") or its
      sampled objects are of a class the noun names (``named_classes``, the KG's classes the noun names:
      :mod:`~kg_agent.tools.shared.answer_classes`; "what films" and ``instance of`` *film*), or the last relation is
      among ``reaching``, those whose measured range holds such a class though few of their objects are of it
      ("invited talks" and ``^isSubEventOf``), -1 when an earlier
      hop names it and the path walks on past it.

    ``evidence``: 1.0 when the last relation or its objects' class names the type noun, :data:`TYPE_EVIDENCE` when a time or place
    is asked and the objects are one (of the size asked) or, for "where", the relation names them a place, or "who"
    and the objects are persons, else 0.
    """
    if not path or (not asked.kind and not asked.noun):
        return TypeMatch()
    fit = evidence = 0.0
    last = kinds.kinds(path[-1]) if asked.kind or asked.asks_persons or named_classes else ObjectKinds()
    if asked.kind == TIME:
        fit += 1.0 if last.time >= 0.5 else -1.0
        evidence = TYPE_EVIDENCE if last.time >= 0.5 else 0.0
    elif asked.kind == PLACE:
        if last.place >= 0.5:
            size = 0.5 if last.contained >= 0.5 else -0.5
            size = size if asked.noun in SMALL_PLACE_NOUNS else -size if asked.noun in LARGE_PLACE_NOUNS else 0.0
            fit += 1.0 + size
            evidence = TYPE_EVIDENCE if size >= 0 else 0.0
        elif last.time >= 0.5 or last.person >= 0.5:
            fit -= 1.0
        elif not asked.noun and names_places(path[-1]):  # "where": a relation the KG names a place ("hasLocation")
            fit += 1.0
            evidence = TYPE_EVIDENCE
    elif asked.kind == NUMBER:  # a quantity: numbers fit, though many relations give one (no evidence)
        if last.number >= 0.5:
            fit += 1.0
        elif last.time >= 0.5 or last.place >= 0.5 or last.person >= 0.5:
            fit -= 1.0
    elif asked.asks_persons:
        if last.person >= 0.5:
            fit += 1.0
            # "who" as "when" and "where": a last hop to persons is asked for by the wh-word (a noun is read below),
            # but not a hop past a walk that reached persons already: "who" asks for one set of persons, not for
            # the persons of the persons ("who is the heir of [X]'s husband": no ``parents`` after ``children``)
            walked_past = len(path) > 1 and kinds.kinds(path[-2]).person >= 0.5
            evidence = TYPE_EVIDENCE if asked.kind == PERSON and not asked.noun and not walked_past else 0.0
        elif last.time >= 0.5 or last.place >= 0.5:
            fit -= 1.0
    of_named_class = bool(named_classes.intersection(last.classes)) or path[-1] in reaching
    if of_named_class or (asked.named_by(path[-1])
                          and not persons_named_by_modifier(asked, path[-1], kinds, [_own_name(path[-1])])):
        fit += 1.0
        evidence = 1.0
    elif any(asked.named_by(r) for r in path[:-1]):
        fit -= 1.0
    return TypeMatch(fit, evidence)
