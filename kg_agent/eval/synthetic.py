"""Synthetic knowledge graphs of any size, with questions whose gold answers come from the generated triples.

    python -m kg_agent.eval.synthetic --domain movie --triples 2000000 --out /tmp/movie-2m
    kg-agent load /tmp/movie-2m/kg.nt --store /tmp/movie-2m/store
    kg-agent eval jsonl --questions /tmp/movie-2m/questions.jsonl --kg /tmp/movie-2m/store --method rog --out r.json

Two vocabularies (:data:`DOMAINS`):

* ``movie``: films, people, genres, years, countries, languages, cities (``directed_by``, ``written_by``,
  ``starred_actors``, ``release_year``, ``has_genre``, ``in_language``, ``produced_in``, ``born_in``,
  ``birth_year``, ``located_in``);
* ``company``: companies, people, cities, countries, industries, universities, years (``founded_by``,
  ``headquartered_in``, ``in_industry``, ``founded_in``, ``subsidiary_of``, ``ceo_of``, ``works_for``,
  ``born_in``, ``educated_at``, ``located_in``).

What makes the graphs realistic enough to measure a KG reasoner on:

* readable relation names as project IRIs (:func:`kg_agent.kg.graph.relation_iri`), entities as project IRIs
  (``film_123``) with an ``rdfs:label`` each: pronounceable made-up names, about 2 % of films, people and
  companies sharing the label of another entity of their kind (remakes, namesakes);
* hubs: genres, industries, countries and years are small fixed sets chosen with a Zipf law, so at 2M
  triples the biggest have tens of thousands of in-edges;
* Zipf-popular people: who directs, acts, founds is drawn from a power law over all people (a different
  ranking per role), so a few people have thousands of films and most have one or none.

Everything is a function of ``(domain, size, seed)``: labels are hashes of the entity id, edges come from one
seeded random stream. The N-Triples file is written as it is generated (nothing but the current entity is
held), and questions are found in extra passes over the same stream that keep only the edges around the
sampled topic entities.

Questions (``questions.jsonl``, read by :func:`kg_agent.eval.datasets.load_jsonl`, so ``kg-agent eval jsonl``
runs them): 1-hop, 2-hop and a few 3-hop, from natural templates per relation path ("where was the director
of [X] born"). The topic entity is in brackets in ``raw`` like MetaQA (``question`` is the same text without
the brackets), its label is unique in the graph, the gold answers are the labels of every end of the gold
relation path from it (Algorithm 1's rule: a path never returns to its start; 1 to ``max_answers`` answers),
and ``relations`` is that gold relation path (``^`` = walked backwards).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kg_agent.kg.terms import entity_iri, relation_iri
from kg_agent.kg.types import base_relation

__all__ = [
    "DOMAINS",
    "Domain",
    "GenerationReport",
    "QuestionTemplate",
    "Relation",
    "SyntheticKG",
    "generate",
    "main",
]

RDFS_LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"
#: ``(subject, relation, object)`` with nodes as ``(type index, number)``; ``(node, None, None)`` marks an entity.
Fact = tuple[tuple[int, int], str, tuple[int, int]] | tuple[tuple[int, int], None, None]
MASK64 = (1 << 64) - 1
DUPLICATE_LABEL_RATE = 0.02  # share of films/people/companies that reuse another entity's label


# --------------------------------------------------------------------------------------------- hashing, names


def _mix(value: int) -> int:
    """splitmix64's finaliser: a well-spread 64-bit hash of an int."""
    value = (value + 0x9E3779B97F4A7C15) & MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK64
    return value ^ (value >> 31)


def _hash(*parts: int) -> int:
    h = 0
    for part in parts:
        h = _mix(h ^ (part & MASK64))
    return h


_ONSETS = ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "kr", "tr", "st",
           "sh", "th", "ch", "gl", "pl", "vr", "h", "j", "w", "c", "fl"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou", "y"]
_CODAS = ["", "", "", "n", "r", "l", "s", "k", "th", "nd", "x", "m", "t", "z"]
_TITLE_NOUNS = ["Code", "Night", "River", "Return", "Garden", "Letter", "Storm", "Mirror", "Harbor", "Crown",
                "Secret", "Winter", "Road", "Promise", "Island", "Shadow", "Journey", "Bridge", "Song", "Empire",
                "Tower", "Dream", "Summer", "Train", "Voyage", "House", "Circle", "Hunt", "Machine", "Ghost"]
_TITLE_ADJECTIVES = ["Last", "Silent", "Broken", "Golden", "Hidden", "Lost", "Red", "Long", "Final", "Secret",
                     "Wild", "Second", "Dark", "Little", "Endless", "Burning", "Forgotten", "Distant"]
_COMPANY_SUFFIXES = ["Systems", "Labs", "Holdings", "Group", "Industries", "Works", "Partners", "Dynamics",
                     "Technologies", "Capital", "Logistics", "Foods", "Energy", "Media", "Motors", "Networks"]
_CITY_SUFFIXES = ["ton", "burg", "ville", "ford", "mouth", "stad", "haven", "field", "port", "dale", "wick", ""]
_COUNTRY_SUFFIXES = ["ia", "land", "stan", "ora", "avia", "esh", "ica", "mark"]
_LANGUAGE_SUFFIXES = ["ese", "ic", "ish", "i", "an", "ol"]
_UNIVERSITY_FORMS = ["University of {}", "{} Institute of Technology", "{} College", "{} State University"]
GENRES = ["Drama", "Comedy", "Thriller", "Action", "Romance", "Horror", "Documentary", "Crime", "Adventure",
          "Science Fiction", "Animation", "Family", "Mystery", "Fantasy", "War", "Western", "Musical",
          "Biography", "History", "Sport", "Film Noir", "Short", "Teen", "Martial Arts"]
INDUSTRIES = ["Software", "Banking", "Retail", "Telecommunications", "Pharmaceuticals", "Automotive",
              "Insurance", "Construction", "Aerospace", "Agriculture", "Mining", "Shipping", "Hospitality",
              "Publishing", "Semiconductors", "Biotechnology", "Real Estate", "Utilities", "Textiles",
              "Chemicals", "Consulting", "Gaming", "Steel", "Airlines", "Education", "Healthcare",
              "Food Processing", "Advertising", "Robotics", "Renewable Energy"]
FIRST_YEAR, LAST_YEAR = 1900, 2025


class _Namer:
    """Pronounceable made-up words, picked from a 64-bit hash."""

    def __init__(self, h: int) -> None:
        self.h = h

    def take(self, n: int) -> int:
        value = self.h % n
        self.h //= n
        if self.h < 1 << 16:  # ran out of entropy: rehash
            self.h = _mix(self.h ^ value ^ 0x5BD1E995)
        return value

    def choice(self, items: Sequence[str]) -> str:
        return items[self.take(len(items))]

    def word(self, syllables: int | None = None) -> str:
        count = syllables if syllables is not None else 2 + self.take(2)
        text = "".join(self.choice(_ONSETS) + self.choice(_VOWELS) for _ in range(count)) + self.choice(_CODAS)
        return text.capitalize()


def _person_name(n: _Namer) -> str:
    return f"{n.word(2)} {n.word()}"


def _film_title(n: _Namer) -> str:
    form = n.take(5)
    if form == 0:
        return f"The {n.word()} {n.word(2)} {n.choice(_TITLE_NOUNS)}"
    if form == 1:
        return f"The {n.choice(_TITLE_ADJECTIVES)} {n.choice(_TITLE_NOUNS)} of {n.word()}"
    if form == 2:
        return f"{n.word()}'s {n.choice(_TITLE_NOUNS)}"
    if form == 3:
        return f"{n.choice(_TITLE_NOUNS)} of the {n.word()} {n.word(2)}"
    return f"{n.word()} {n.word()}"


def _company_name(n: _Namer) -> str:
    return f"{n.word()} {n.word(2)} {n.choice(_COMPANY_SUFFIXES)}" if n.take(3) == 0 else \
        f"{n.word()} {n.choice(_COMPANY_SUFFIXES)}"


def _city_name(n: _Namer) -> str:
    name = n.word(2) + n.choice(_CITY_SUFFIXES)
    return f"{n.choice(['New', 'Port', 'Saint', 'East', 'Old'])} {name}" if n.take(6) == 0 else name


def _university_name(n: _Namer) -> str:
    return n.choice(_UNIVERSITY_FORMS).format(n.word())


def _country_name(n: _Namer) -> str:
    return n.word(2) + n.choice(_COUNTRY_SUFFIXES)


def _language_name(n: _Namer) -> str:
    return n.word(2) + n.choice(_LANGUAGE_SUFFIXES)


# --------------------------------------------------------------------------------------------- domain model


@dataclass(frozen=True)
class EntityType:
    """A kind of entity: how many there are (``fixed`` names, a fixed ``count`` or ``per_unit`` of the size unit)
    and how its labels are made."""

    name: str
    namer: Callable[[_Namer], str] | None = None
    fixed: tuple[str, ...] = ()
    count: int = 0
    per_unit: float = 0.0
    duplicates: bool = False


@dataclass(frozen=True)
class Relation:
    """One relation, generated from its ``owner`` type: every owner entity gets ``low..high`` distinct targets
    of type ``other`` (or one with probability ``chance``), picked by ``pick``.

    ``pick`` is ``"uniform"``, ``"zipf"`` (power law with ``exponent`` over a per-relation ranking of the
    targets, so the most popular actor is not the most popular director) or ``"ranked"`` (power law over the
    targets in their own order: ``Drama`` first, recent years first). ``span`` limits the targets to an
    index range (e.g. birth years). ``owner_is_subject=False`` writes the triple the other way round
    (``person ceo_of company`` is generated per company).
    """

    name: str
    owner: str
    other: str
    low: int = 1
    high: int = 1
    chance: float = 1.0
    pick: str = "uniform"
    exponent: float = 1.0
    span: tuple[int, int] | None = None
    owner_is_subject: bool = True

    @property
    def subject_type(self) -> str:
        return self.owner if self.owner_is_subject else self.other

    @property
    def object_type(self) -> str:
        return self.other if self.owner_is_subject else self.owner


@dataclass(frozen=True)
class QuestionTemplate:
    """Natural phrasings of one relation path asked from a ``topic`` entity type; ``{}`` is the topic label."""

    relations: tuple[str, ...]
    topic: str
    phrasings: tuple[str, ...]

    @property
    def hop(self) -> int:
        return len(self.relations)


@dataclass(frozen=True)
class Domain:
    """A vocabulary: entity types, relations, question templates, and the type whose count sets the size."""

    name: str
    unit: str
    types: tuple[EntityType, ...]
    relations: tuple[Relation, ...]
    templates: tuple[QuestionTemplate, ...]

    def type(self, name: str) -> EntityType:
        for t in self.types:
            if t.name == name:
                return t
        raise KeyError(name)


def _years() -> tuple[str, ...]:
    return tuple(str(y) for y in range(LAST_YEAR, FIRST_YEAR - 1, -1))  # index 0 = the most recent year


def _templates(table: str) -> tuple[QuestionTemplate, ...]:
    """A domain's question templates, one a line: ``relation path | topic entity type | phrasing | phrasing ...``."""
    rows = [[cell.strip() for cell in line.split("|")] for line in table.strip().splitlines()]
    return tuple(QuestionTemplate(tuple(path.split()), topic, tuple(phrasings)) for path, topic, *phrasings in rows)


MOVIE = Domain(
    name="movie",
    unit="film",
    types=(
        EntityType("film", _film_title, per_unit=1.0, duplicates=True),
        EntityType("person", _person_name, per_unit=0.9, duplicates=True),
        EntityType("city", _city_name, per_unit=0.02),
        EntityType("genre", fixed=tuple(GENRES)),
        EntityType("year", fixed=_years()),
        EntityType("country", _country_name, count=60),
        EntityType("language", _language_name, count=45),
    ),
    relations=(
        Relation("directed_by", "film", "person", pick="zipf", exponent=0.7),
        Relation("written_by", "film", "person", 1, 2, pick="zipf", exponent=0.7),
        Relation("starred_actors", "film", "person", 2, 4, pick="zipf", exponent=0.8),
        Relation("release_year", "film", "year", pick="ranked", exponent=0.8, span=(0, 96)),
        Relation("has_genre", "film", "genre", 1, 3, pick="ranked", exponent=1.0),
        Relation("in_language", "film", "language", pick="ranked", exponent=1.1),
        Relation("produced_in", "film", "country", pick="ranked", exponent=1.0),
        Relation("born_in", "person", "city", pick="zipf", exponent=0.9),
        Relation("birth_year", "person", "year", pick="uniform", span=(20, 126)),
        Relation("located_in", "city", "country", pick="ranked", exponent=1.0),
    ),
    templates=_templates("""
        directed_by | film | who directed [{}] | who is the director of [{}]
        written_by | film | who wrote [{}] | who was the writer of [{}]
        starred_actors | film | who starred in [{}] | who acted in [{}]
        release_year | film | when was [{}] released | what year did [{}] come out
        has_genre | film | what genre is [{}] | what kind of film is [{}]
        in_language | film | what language is [{}] in
        produced_in | film | which country was [{}] made in
        ^directed_by | person | which films did [{}] direct | what movies were directed by [{}]
        ^starred_actors | person | which films did [{}] star in | what movies did [{}] act in
        ^written_by | person | which films did [{}] write
        born_in | person | where was [{}] born
        birth_year | person | when was [{}] born | what year was [{}] born
        located_in | city | which country is [{}] in
        directed_by born_in | film | where was the director of [{}] born
        starred_actors born_in | film | where were the actors of [{}] born
        written_by born_in | film | where was the writer of [{}] born
        directed_by birth_year | film | when was the director of [{}] born
        directed_by ^directed_by | film | what other films did the director of [{}] direct
        ^starred_actors directed_by | person | who directed the films starring [{}]
        ^directed_by release_year | person | when were the films directed by [{}] released
        ^directed_by has_genre | person | what genres are the films directed by [{}]
        ^directed_by starred_actors | person | who acted in the films directed by [{}]
        ^starred_actors starred_actors | person | who starred alongside [{}]
        born_in located_in | person | which country was [{}] born in
        directed_by born_in located_in | film | in which country was the director of [{}] born
        starred_actors born_in located_in | film | which countries are the actors of [{}] from
        directed_by ^directed_by has_genre | film | what genres are the other films by the director of [{}]
    """),
)

COMPANY = Domain(
    name="company",
    unit="company",
    types=(
        EntityType("company", _company_name, per_unit=1.0, duplicates=True),
        EntityType("person", _person_name, per_unit=1.5, duplicates=True),
        EntityType("city", _city_name, per_unit=0.03),
        EntityType("university", _university_name, per_unit=0.004),
        EntityType("industry", fixed=tuple(INDUSTRIES)),
        EntityType("year", fixed=_years()),
        EntityType("country", _country_name, count=60),
    ),
    relations=(
        Relation("founded_by", "company", "person", 1, 3, pick="zipf", exponent=0.7),
        Relation("headquartered_in", "company", "city", pick="zipf", exponent=0.9),
        Relation("in_industry", "company", "industry", 1, 2, pick="ranked", exponent=1.0),
        Relation("founded_in", "company", "year", pick="ranked", exponent=0.5),
        Relation("subsidiary_of", "company", "company", chance=0.3, pick="zipf", exponent=0.9),
        Relation("ceo_of", "company", "person", pick="zipf", exponent=0.6, owner_is_subject=False),
        Relation("works_for", "person", "company", pick="zipf", exponent=0.9),
        Relation("born_in", "person", "city", pick="zipf", exponent=0.9),
        Relation("educated_at", "person", "university", chance=0.7, pick="zipf", exponent=0.8),
        Relation("located_in", "city", "country", pick="ranked", exponent=1.0),
        Relation("campus_in", "university", "city", pick="zipf", exponent=0.9),
    ),
    templates=_templates("""
        founded_by | company | who founded [{}] | who are the founders of [{}]
        headquartered_in | company | where is [{}] headquartered | in which city is [{}] based
        in_industry | company | what industry is [{}] in
        founded_in | company | when was [{}] founded | what year was [{}] founded
        subsidiary_of | company | which company owns [{}] | what is the parent company of [{}]
        ^subsidiary_of | company | which companies does [{}] own
        ^ceo_of | company | who is the CEO of [{}] | who runs [{}]
        ceo_of | person | which company is [{}] the CEO of
        ^founded_by | person | which companies did [{}] found
        works_for | person | which company does [{}] work for | who does [{}] work for
        born_in | person | where was [{}] born
        educated_at | person | where did [{}] study
        located_in | city | which country is [{}] in
        subsidiary_of founded_by | company | who founded the company that owns [{}]
        subsidiary_of headquartered_in | company | where is the parent company of [{}] headquartered
        ^ceo_of born_in | company | where was the CEO of [{}] born
        ^ceo_of educated_at | company | where did the CEO of [{}] study
        founded_by educated_at | company | where did the founders of [{}] study
        headquartered_in located_in | company | in which country is [{}] headquartered
        works_for headquartered_in | person | in which city is the company [{}] works for headquartered
        ^founded_by in_industry | person | what industries are the companies founded by [{}] in
        born_in located_in | person | which country was [{}] born in
        subsidiary_of founded_by born_in | company | where was the founder of the company that owns [{}] born
        ^ceo_of born_in located_in | company | in which country was the CEO of [{}] born
        works_for subsidiary_of founded_by | person | who founded the parent company of the company [{}] works for
    """),
)

DOMAINS: dict[str, Domain] = {MOVIE.name: MOVIE, COMPANY.name: COMPANY}


# --------------------------------------------------------------------------------------------- the generator


def _coprime_stride(n: int, salt: int) -> int:
    stride = (_hash(salt, 0xA5A5) % max(n - 1, 1)) + 1
    while math.gcd(stride, n) != 1:
        stride += 1
    return stride


@dataclass
class GenerationReport:
    """What :meth:`SyntheticKG.write` produced."""

    triples: int = 0
    entities: dict[str, int] = field(default_factory=dict)
    questions: dict[int, int] = field(default_factory=dict)
    seconds: float = 0.0


class SyntheticKG:
    """A synthetic KG of one :class:`Domain`, sized by a target triple count and fixed by ``seed``.

    Entities are ``(type index, number)`` pairs; ids, labels and edges are computed, not stored. Iterating
    :meth:`edges` twice yields the same edges in the same order.
    """

    def __init__(self, domain: Domain | str, *, triples: int, seed: int = 0) -> None:
        self.domain = DOMAINS[domain] if isinstance(domain, str) else domain
        if triples < 1000:
            raise ValueError(f"triples must be at least 1000, got {triples}")
        self.seed = seed
        self.target_triples = triples
        self.type_index = {t.name: i for i, t in enumerate(self.domain.types)}
        per_unit = self._triples_per_unit()
        fixed = sum(len(t.fixed) or t.count for t in self.domain.types if not t.per_unit)
        units = max(10, round((triples - fixed * 2) / per_unit))
        self.counts: list[int] = [
            len(t.fixed) if t.fixed else (t.count if t.count else max(3, round(t.per_unit * units)))
            for t in self.domain.types
        ]
        self._strides = {
            r.name: _coprime_stride(self.counts[self.type_index[r.other]], _hash(seed, i + 1))
            for i, r in enumerate(self.domain.relations)
        }
        self._offsets = {
            r.name: _hash(seed, i + 101) % self.counts[self.type_index[r.other]]
            for i, r in enumerate(self.domain.relations)
        }
        self._relation_iris = {r.name: f"<{relation_iri(r.name)}>" for r in self.domain.relations}
        self._iri_prefix = [f"<{entity_iri(t.name + '_')}" for t in self.domain.types]

    # ---------------------------------------------------------------- size
    def _triples_per_unit(self) -> float:
        """Expected triples (labels included) per unit entity."""
        total = 0.0
        for t in self.domain.types:
            if t.per_unit:
                total += t.per_unit  # its label
        for r in self.domain.relations:
            owner = self.domain.type(r.owner)
            if owner.per_unit:
                total += owner.per_unit * r.chance * (r.low + r.high) / 2
        return total

    # ---------------------------------------------------------------- ids and labels
    def iri(self, node: tuple[int, int]) -> str:
        """The N-Triples form of an entity: ``<https://kg-agent.dev/entity/film_12>``."""
        return f"{self._iri_prefix[node[0]]}{node[1]}>"

    def entity_id(self, node: tuple[int, int]) -> str:
        """The entity's id in a :class:`~kg_agent.kg.KnowledgeGraph` (its IRI)."""
        return self.iri(node)[1:-1]

    def label(self, node: tuple[int, int]) -> str:
        kind, number = node
        etype = self.domain.types[kind]
        if etype.fixed:
            return etype.fixed[number]
        h = _hash(self.seed, kind + 7, number)
        if etype.duplicates and number > 0 and (h & 0xFFFF) < DUPLICATE_LABEL_RATE * 0x10000:
            return self.label((kind, (h >> 16) % number))  # a namesake of an earlier entity
        name = etype.namer(_Namer(h >> 16))
        return name

    def nodes(self, type_name: str) -> Iterator[tuple[int, int]]:
        kind = self.type_index[type_name]
        for number in range(self.counts[kind]):
            yield (kind, number)

    # ---------------------------------------------------------------- edges
    def _picker(self, relation: Relation, rng: random.Random) -> Callable[[], int]:
        n = self.counts[self.type_index[relation.other]]
        lo, hi = relation.span if relation.span else (0, n)
        hi = min(hi, n)
        size = hi - lo
        if relation.pick == "uniform":
            return lambda: lo + int(rng.random() * size)
        s = relation.exponent
        top = float(size + 1)
        if abs(s - 1.0) < 1e-9:
            def draw() -> int:
                return min(int(top ** rng.random()) - 1, size - 1)
        else:
            a = top ** (1.0 - s) - 1.0
            inv = 1.0 / (1.0 - s)

            def draw() -> int:
                return min(int((a * rng.random() + 1.0) ** inv) - 1, size - 1)
        if relation.pick == "ranked":
            return lambda: lo + draw()
        stride, offset = self._strides[relation.name], self._offsets[relation.name]
        return lambda: (draw() * stride + offset) % n

    def popular(self, relation: str, rank: int = 0) -> tuple[int, int]:
        """The entity at popularity ``rank`` (0 = most popular) among ``relation``'s targets."""
        r = next(x for x in self.domain.relations if x.name == relation)
        kind = self.type_index[r.other]
        if r.pick == "zipf":
            return (kind, (rank * self._strides[r.name] + self._offsets[r.name]) % self.counts[kind])
        return (kind, (r.span[0] if r.span else 0) + rank)

    def _owner_plan(self, rng: random.Random) -> list[tuple[str, list[tuple[Relation, Callable[[], int]]]]]:
        plan = []
        for etype in self.domain.types:
            rels = [r for r in self.domain.relations if r.owner == etype.name]
            if rels:
                plan.append((etype.name, [(r, self._picker(r, rng)) for r in rels]))
        return plan

    def edges(self, *, with_labels: bool = False) -> Iterator[Fact]:
        """Every fact ``(subject, relation, object)``; with ``with_labels``, also ``(node, None, None)`` before
        each entity's facts (every entity once, owners just before the facts they own)."""
        rng = random.Random(self.seed)
        plan = self._owner_plan(rng)
        owners = {name for name, _ in plan}
        if with_labels:
            for etype in self.domain.types:
                if etype.name not in owners:
                    for node in self.nodes(etype.name):
                        yield node, None, None
        for type_name, rels in plan:
            kind = self.type_index[type_name]
            for number in range(self.counts[kind]):
                node = (kind, number)
                if with_labels:
                    yield node, None, None
                for relation, pick in rels:
                    if relation.chance < 1.0 and rng.random() >= relation.chance:
                        continue
                    want = relation.low if relation.low == relation.high else rng.randint(relation.low, relation.high)
                    other_kind = self.type_index[relation.other]
                    chosen: list[int] = []
                    for _ in range(want * 4):
                        target = pick()
                        if target in chosen or (other_kind == kind and target == number):
                            continue
                        chosen.append(target)
                        if len(chosen) == want:
                            break
                    for target in chosen:
                        if relation.owner_is_subject:
                            yield node, relation.name, (other_kind, target)
                        else:
                            yield (other_kind, target), relation.name, node

    # ---------------------------------------------------------------- writing
    def write_ntriples(self, path: str | Path, *, on_fact: Callable[[tuple[int, int], str, tuple[int, int]], None] | None = None,
                       on_label: Callable[[tuple[int, int], str], None] | None = None) -> int:
        """Stream the graph to ``path`` (written as ``path.partial`` and renamed when complete). Returns the
        number of triples. ``on_fact`` / ``on_label`` see every fact / label as it is written."""
        path = Path(path)
        partial = path.with_name(path.name + ".partial")
        count = 0
        iris = self._relation_iris
        label_of = self.label
        iri = self.iri
        with partial.open("w", encoding="utf-8", newline="\n") as out:
            for name, rel_iri in iris.items():
                out.write(f'{rel_iri} {RDFS_LABEL} "{name}" .\n')
                count += 1
            buffer: list[str] = []
            for s, relation, o in self.edges(with_labels=True):
                if relation is None:
                    text = label_of(s)
                    if on_label is not None:
                        on_label(s, text)
                    buffer.append(f'{iri(s)} {RDFS_LABEL} "{_escape(text)}" .\n')
                else:
                    if on_fact is not None:
                        on_fact(s, relation, o)
                    buffer.append(f"{iri(s)} {iris[relation]} {iri(o)} .\n")
                count += 1
                if len(buffer) >= 20000:
                    out.writelines(buffer)
                    buffer.clear()
            out.writelines(buffer)
        os.replace(partial, path)
        return count

    # ---------------------------------------------------------------- questions
    def _topic_candidates(self, template: QuestionTemplate, n: int, rng: random.Random) -> list[tuple[int, int]]:
        """Topic entities for a template: uniform over its type, or (when the first hop walks into the topic
        from the side that owns the relation) drawn by that relation's popularity, as users ask about
        people who have films."""
        first = template.relations[0]
        relation = next(r for r in self.domain.relations if r.name == base_relation(first))
        forward = not first.startswith("^")
        topic_is_owner = forward == relation.owner_is_subject
        kind = self.type_index[template.topic]
        if topic_is_owner or relation.pick != "zipf":
            return [(kind, rng.randrange(self.counts[kind])) for _ in range(n)]
        pick = self._picker(relation, rng)
        return [(kind, pick()) for _ in range(n)]

    def _collect(self, nodes: set[tuple[int, int]], needed: set[str],
                 adjacency: dict[tuple[tuple[int, int], str], set[tuple[int, int]]],
                 facts: Iterator | None = None) -> None:
        """Keep the edges of ``nodes`` along the (possibly ``^``) relations in ``needed``."""
        forward = {r for r in needed if not r.startswith("^")}
        backward = {r[1:] for r in needed if r.startswith("^")}
        for s, relation, o in facts if facts is not None else self.edges():
            if relation in forward and s in nodes:
                adjacency.setdefault((s, relation), set()).add(o)
            if relation in backward and o in nodes:
                adjacency.setdefault((o, "^" + relation), set()).add(s)

    def _ends(self, start: tuple[int, int], relations: Sequence[str],
              adjacency: dict[tuple[tuple[int, int], str], set[tuple[int, int]]]) -> set[tuple[int, int]]:
        """The ends of every path from ``start`` along ``relations`` that never returns to ``start``."""
        frontier = {start}
        for relation in relations:
            nxt: set[tuple[int, int]] = set()
            for node in frontier:
                nxt |= adjacency.get((node, relation), set())
            nxt.discard(start)
            frontier = nxt
            if not frontier:
                break
        return frontier

    def write(self, out_dir: str | Path, *, questions_per_hop: int = 100, three_hop: int | None = None,
              max_answers: int = 100, progress: Callable[[str], None] | None = None) -> GenerationReport:
        """Write ``kg.nt``, ``questions.jsonl`` and ``meta.json`` into ``out_dir``.

        ``questions_per_hop`` 1-hop and 2-hop questions (fewer when the graph is too small to give that
        many), ``three_hop`` 3-hop ones (default a quarter of ``questions_per_hop``), spread evenly over the
        templates of each hop. Questions with more than ``max_answers`` gold answers are skipped.
        """
        began = time.perf_counter()
        say = progress or (lambda _text: None)
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        wanted = {1: questions_per_hop, 2: questions_per_hop,
                  3: three_hop if three_hop is not None else max(1, questions_per_hop // 4)}
        rng = random.Random(_hash(self.seed, 0xC0FFEE))
        by_hop: dict[int, list[QuestionTemplate]] = {}
        for template in self.domain.templates:
            by_hop.setdefault(template.hop, []).append(template)
        candidates: dict[QuestionTemplate, list[tuple[int, int]]] = {}
        for hop, templates in by_hop.items():
            per_template = math.ceil(wanted.get(hop, 0) / len(templates)) if wanted.get(hop) else 0
            for template in templates:
                candidates[template] = self._topic_candidates(template, per_template * 3 + 5, rng) if per_template else []
        topics = {node for nodes in candidates.values() for node in nodes}
        topic_labels = {self.label(node) for node in topics}
        label_counts: dict[str, int] = {}
        adjacency: dict[tuple[tuple[int, int], str], set[tuple[int, int]]] = {}
        needed = [{t.relations[level] for t in candidates if t.hop > level} for level in range(3)]
        first_forward = {r for r in needed[0] if not r.startswith("^")}
        first_backward = {r[1:] for r in needed[0] if r.startswith("^")}
        watched = {p: None for p in (self.popular(r.name) for r in self.domain.relations)}
        degrees: dict[tuple[tuple[int, int], str], int] = {}

        def on_fact(s, relation, o) -> None:
            if relation in first_forward and s in topics:
                adjacency.setdefault((s, relation), set()).add(o)
            if relation in first_backward and o in topics:
                adjacency.setdefault((o, "^" + relation), set()).add(s)
            if o in watched:
                key = (o, "^" + relation)
                degrees[key] = degrees.get(key, 0) + 1

        def on_label(node, text) -> None:
            if text in topic_labels:
                label_counts[text] = label_counts.get(text, 0) + 1

        say(f"writing {out / 'kg.nt'}")
        triples = self.write_ntriples(out / "kg.nt", on_fact=on_fact, on_label=on_label)
        frontier = {(t, node): {node} for t, nodes in candidates.items() for node in nodes}
        for level in (1, 2):
            if not needed[level]:
                break
            reached: set[tuple[int, int]] = set()
            for (template, _node), nodes in list(frontier.items()):
                if template.hop <= level:
                    continue
                step: set[tuple[int, int]] = set()
                for n in nodes:
                    step |= adjacency.get((n, template.relations[level - 1]), set())
                frontier[(template, _node)] = step
                reached |= step
            say(f"collecting hop-{level + 1} edges of {len(reached)} entities")
            self._collect(reached, needed[level], adjacency)

        records: list[dict] = []
        counts: dict[int, int] = {}
        for hop, templates in sorted(by_hop.items()):
            quota = wanted.get(hop, 0)
            pools = {t: list(dict.fromkeys(candidates[t])) for t in templates}
            made = 0
            seen_topics: set[tuple[QuestionTemplate, tuple[int, int]]] = set()
            while made < quota and any(pools.values()):
                for template in templates:
                    if made >= quota:
                        break
                    while pools[template]:
                        node = pools[template].pop(0)
                        topic_label = self.label(node)
                        if label_counts.get(topic_label, 0) != 1 or (template, node) in seen_topics:
                            continue
                        ends = self._ends(node, template.relations, adjacency)
                        if not ends or len(ends) > max_answers:
                            continue
                        seen_topics.add((template, node))
                        answers = sorted({self.label(e) for e in ends})
                        phrasing = template.phrasings[len(records) % len(template.phrasings)]
                        raw = phrasing.format(topic_label)
                        records.append({
                            "id": f"synthetic-{self.domain.name}-{hop}hop-{made}",
                            "question": raw.replace("[", "").replace("]", ""),
                            "answers": answers,
                            "topic_entities": [topic_label],
                            "hop": hop,
                            "qtype": "_".join(template.relations).replace("^", "inv-"),
                            "raw": raw,
                            "relations": list(template.relations),
                            "topic_ids": [self.entity_id(node)],
                            "answer_ids": sorted(self.entity_id(e) for e in ends),
                            "dataset": f"synthetic-{self.domain.name}",
                        })
                        made += 1
                        break
            counts[hop] = made
        with (out / "questions.jsonl").open("w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")

        entities = {t.name: self.counts[i] for i, t in enumerate(self.domain.types)}
        hubs = [
            {"entity": self.entity_id(node), "label": self.label(node), "relation": rel, "in_edges": degree}
            for (node, rel), degree in sorted(degrees.items(), key=lambda kv: -kv[1])
        ]
        meta = {
            "domain": self.domain.name, "seed": self.seed, "target_triples": self.target_triples,
            "triples": triples, "entities": entities, "questions": counts, "max_answers": max_answers,
            "hubs": hubs,
        }
        (out / "meta.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        report = GenerationReport(triples=triples, entities=entities, questions=counts,
                                  seconds=time.perf_counter() - began)
        say(f"{triples} triples, questions {counts}, {report.seconds:.1f} s")
        return report


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def generate(domain: str, out_dir: str | Path, *, triples: int, seed: int = 0, questions_per_hop: int = 100,
             three_hop: int | None = None, max_answers: int = 100,
             progress: Callable[[str], None] | None = None) -> GenerationReport:
    """Generate a synthetic KG and its questions into ``out_dir`` (see :meth:`SyntheticKG.write`)."""
    return SyntheticKG(domain, triples=triples, seed=seed).write(
        out_dir, questions_per_hop=questions_per_hop, three_hop=three_hop, max_answers=max_answers,
        progress=progress)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kg_agent.eval.synthetic",
        description="Write a synthetic KG (DIR/kg.nt), questions with gold answers (DIR/questions.jsonl, "
        "for 'kg-agent eval jsonl') and a summary with its hubs (DIR/meta.json).")
    parser.add_argument("--domain", choices=sorted(DOMAINS), default="movie")
    parser.add_argument("--triples", type=int, default=200_000, help="target size in triples (default 200000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--questions", type=int, default=100, metavar="N", help="1-hop and 2-hop questions each")
    parser.add_argument("--three-hop", type=int, default=None, metavar="N", help="3-hop questions (default N/4)")
    parser.add_argument("--max-answers", type=int, default=100, help="skip questions with more gold answers")
    parser.add_argument("--out", required=True, help="output folder")
    args = parser.parse_args(argv)
    try:
        generate(args.domain, args.out, triples=args.triples, seed=args.seed, questions_per_hop=args.questions,
                 three_hop=args.three_hop, max_answers=args.max_answers,
                 progress=lambda text: print(text, file=sys.stderr, flush=True))
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
