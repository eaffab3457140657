"""Real-world RDF as it is (issue 23): one invented movie/people domain written the way DBpedia, Wikidata, schema.org,
SKOS and Freebase publish data, the same questions asked of each, and a runner that scores offline RoG, ToG and ToG-I
on every style and backend.

    python benchmarks/rdf_styles.py generate --out /tmp/styles           # the seven styles: 40 films, 60 people
    python benchmarks/rdf_styles.py metaqa --out /tmp/styles             # MetaQA's KB rewritten (KG_AGENT_DATA)
    python benchmarks/rdf_styles.py run --out /tmp/styles                # generate, load, evaluate: one Markdown table
    python benchmarks/rdf_styles.py run --out /tmp/styles --styles '' --metaqa --methods rog   # MetaQA rewrites only
    python benchmarks/rdf_styles.py fixtures                             # tests/fixtures/styles (12 films, 20 people)

The domain (:func:`build_domain`, everything a function of ``--seed``, ``--films`` and ``--people``): films with
directors, writers, actors, genres, release dates, a language, a running time, a budget, a rating and a tagline
(English, German and French titles; an English alternative title); people with a birthplace, a birth date, maybe a
spouse and awards (with a year); genres, languages, places and awards with names in three languages. It is written
in seven styles (:data:`STYLES`), each a folder with the KG file, questions and ``meta.json``:

* ``plain`` (``kg.ttl``): the reference, MetaQA-like. Readable IRIs, one ``rdfs:label "..."@en`` per entity, relation
  IRIs whose last segment reads like the question (``directed_by``, ``starred_actors``, ``release_year`` ...),
  release years as entities.
* ``dbpedia`` (``kg.ttl``): ``dbr:`` resources, ``dbo:`` camelCase relations (``dbo:director``, ``dbo:starring``)
  with their ontology labels (``dbo:director rdfs:label "film director"@en``), ``rdfs:label`` in @en, @de and @fr
  (translated film titles; a tenth of the films and people have no @en label), some people named by ``foaf:name``
  only, ``dbo:abstract`` texts, ``dbo:releaseDate`` dates, both ``dbo:language`` (a resource, "English language")
  and, on every other film, ``dbp:language "English"@en``; classes with labels; the ontology's ``rdfs:domain`` and
  ``rdfs:range`` of each property (``dbo:starring rdfs:range dbo:Actor``); ``owl:sameAs`` to unnamed IRIs.
* ``wikidata`` (``kg.ttl``): ``wd:Q…`` items, truthy ``wdt:P57``-style claims, the property entities in the file
  (``wd:P57 rdfs:label "director"@en``, ``wikibase:directClaim wdt:P57``, ``schema:description``, aliases),
  ``skos:altLabel`` aliases, labels in en/de/fr, ``schema:description``s, ``P577`` as ``xsd:dateTime``, ``P26`` both
  ways, and awards only through statement nodes (``p:P166`` -> statement -> ``ps:P166``, qualifier ``pq:P585``).
* ``schemaorg`` (``kg.ttl``): opaque ``ex:film000`` / ``ex:person000`` IRIs, ``schema:name`` only (no
  ``rdfs:label``; http://schema.org/ names on even-numbered entities, https://schema.org/ on odd ones),
  ``schema:alternateName`` aliases, genres as text, awards as blank nodes with a name.
* ``skos`` (``kg.ttl``): opaque concept IRIs, ``skos:prefLabel`` in en/de/fr and ``skos:altLabel`` only, every concept
  ``skos:inScheme`` one scheme; relations named as in ``plain``.
* ``freebase`` (``kg.nt``): ``ns:m.0…`` mids, ``ns:type.object.name`` names (@en, and @de for translated titles),
  ``ns:common.topic.alias``, dotted relations (``ns:film.film.directed_by``), unnamed mediator nodes for casts
  (``film.film.starring`` -> ``m.…`` -> ``film.performance.actor``, with a named character on half of them), marriages
  (``people.person.spouse_s`` -> ``m.…`` -> ``people.marriage.spouse``, both spouses) and awards
  (``award.award_winner.awards_won`` -> ``m.…`` -> ``award.award_honor.award``), plus some inverse relations.
* ``typed`` (``kg.ttl``): ``plain`` with typed literal values, asked about: release dates (``xsd:date``), running
  times (``xsd:integer``), budgets and ratings (``xsd:decimal``), taglines (``@en``) and birth dates.

Questions (``questions.jsonl``: the topic in brackets; ``questions_plain.jsonl``: the same without them;
``questions_alias.jsonl`` in the styles with aliases: the topic in brackets, named by an alias), in the generic JSONL
format ``kg-agent eval jsonl`` reads, with no ``topic_entities``: the method links the topic itself. 18 templates (12
one-hop, 6 two-hop; ``typed`` adds 5 about literal values), ``--per-template`` topics each (default 2: 36 questions a
style, 46 in ``typed``), chosen on the abstract domain (1 to 4 answers), so every style asks the same questions
(``qid``) about the same things; a topic is named by its display name in the style (a film with no English title by its
German one). Answers are computed from the style's own triples along ``gold_paths`` (predicate IRIs, ``^`` =
backwards, walked without revisiting a node): the display name of each end (``en``, then untagged, then the other
languages in tag order), and a date literal also as its date and its year (a UTC date-time also with ``+00:00`` for
``Z``, as rdflib writes it). ``answer_names`` are the display names alone.

``metaqa`` rewrites MetaQA's KB (``KG_AGENT_DATA``, default ``../shared/data``; skipped with a message when absent)
into N-Triples with opaque entity IRIs: ``metaqa_labels`` (readable relation IRIs, untagged labels: the RDF
reference), ``metaqa_opaque_properties`` (relations ``ex:P1`` ... with ``rdfs:label "directed by"@en``) and
``metaqa_multilingual`` (@en labels plus @de/@fr ones: films ``"X (Film)"@de`` and ``"X (film)"@fr``, others the same
text; 15 % of the entities have no @en label, only @de and @fr with the English text), each with the same seeded
sample of ``--metaqa-sample`` 1-hop and as many 2-hop dev questions (from the ``*_some_gold_reachable`` lines), bracketed
and plain, in the same JSONL format. ``run --metaqa`` also evaluates MetaQA's own ``kb.txt`` (``metaqa_kb``).

``run`` generates into ``--out``, loads each KG into an Oxigraph store with ``kg-agent load`` (timed), runs ``kg-agent
eval jsonl`` (offline: ``--model none``) for each method on each backend over the bracketed and plain question files
at once, and prints one Markdown table: style x backend x method -> strict Hits@1 per variant and the seconds the
eval process took (loading included). ``report.md`` in ``--out`` has the table, the commands and a few wrong answers
per run; ``rows.json`` every number; ``<style>/results/<backend>-<method>.json`` each eval's results file. ``--code DIR``
runs another checkout's ``kg-agent`` (e.g. a commit exported with ``git archive``) on the same files, for a before and
after. Time: 42 eval processes and 7 loads, mostly start-up and loading (issue 23 item 6 targets 3 s each). On HEAD
``bf4c38b`` with 2 cores shared (load average 4-8) a style that answers took 5-6 minutes with the defaults, one where
nothing links seconds; ``--jobs 2`` runs two (style, backend) pairs at once (for an idle machine), ``--methods rog``
takes about a fifth of the time.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "styles"
STYLES = ("plain", "dbpedia", "wikidata", "schemaorg", "skos", "freebase", "typed")
METAQA_STYLES = ("metaqa_kb", "metaqa_labels", "metaqa_opaque_properties", "metaqa_multilingual")
VARIANTS = ("bracketed", "plain", "alias")
QUESTION_FILES = {"bracketed": "questions.jsonl", "plain": "questions_plain.jsonl", "alias": "questions_alias.jsonl"}

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
OWL = "http://www.w3.org/2002/07/owl#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
FOAF = "http://xmlns.com/foaf/0.1/"
SCHEMA = "http://schema.org/"
SCHEMA_HTTPS = "https://schema.org/"
FREEBASE = "http://rdf.freebase.com/ns/"

#: Predicates whose literals name their subject, in every style (the tests read names with these).
NAME_PREDICATES = (RDFS + "label", SKOS + "prefLabel", SCHEMA + "name", SCHEMA_HTTPS + "name", FOAF + "name",
                   FREEBASE + "type.object.name")

# --------------------------------------------------------------------------------------------- vocabulary

FIRST_NAMES = ("Mara", "Tobias", "Ilse", "Jonah", "Celeste", "Anders", "Priya", "Mateo", "Solveig", "Hugo", "Amara",
               "Felix", "Noor", "Dmitri", "Lena", "Oskar", "Beatriz", "Kenji", "Yara", "Emil", "Greta", "Rafael",
               "Ingrid", "Tomasz", "Odile", "Lucan", "Sabine", "Idris", "Maren", "Cyprian", "Vera", "Jules", "Halima",
               "Bastian", "Clio", "Niamh")
LAST_NAMES = ("Ellison", "Varga", "Lindqvist", "Okafor", "Marchetti", "Brandt", "Castellanos", "Novak", "Haverkamp",
              "Delacroix", "Sato", "Whitcombe", "Abernathy", "Kowalczyk", "Ferreira", "Quist", "Renard", "Bjørnstad",
              "Oyelaran", "Tanaka", "Moreau", "Hollis", "Strand", "Petrov", "Zamora", "Galloway", "Fairweather",
              "Dunmore", "Achterberg", "Lévesque", "Müller", "Iwasaki")
MIDDLE_NAMES = ("Anne", "Louis", "Marie", "James", "Elise", "Paul", "Rose", "Henrik", "Jean", "Alma", "Leon", "Ines")
CHARACTER_TITLES = ("Inspector", "Captain", "Doctor", "Sister", "Professor", "Agent", "Judge", "Mayor")
CHARACTER_NAMES = ("Vale", "Rook", "Finch", "Marlow", "Crane", "Hale", "Pike", "Wren", "Thorne", "Blythe")

# (English, German weak-declension form, French masculine, French feminine, English synonym for the alternative title)
ADJECTIVES = (
    ("Silent", "stille", "silencieux", "silencieuse", "Quiet"),
    ("Broken", "zerbrochene", "brisé", "brisée", "Shattered"),
    ("Hidden", "verborgene", "caché", "cachée", "Secret"),
    ("Last", "letzte", "dernier", "dernière", "Final"),
    ("Long", "lange", "long", "longue", "Endless"),
    ("Dark", "dunkle", "sombre", "sombre", "Shadowed"),
    ("Burning", "brennende", "ardent", "ardente", "Blazing"),
    ("Cold", "kalte", "froid", "froide", "Frozen"),
    ("Lost", "verlorene", "perdu", "perdue", "Missing"),
    ("Crimson", "rote", "rouge", "rouge", "Scarlet"),
    ("Wild", "wilde", "sauvage", "sauvage", "Untamed"),
    ("Distant", "ferne", "lointain", "lointaine", "Faraway"),
)
# (English, German, German article, French, French gender)
NOUNS = (
    ("Harbor", "Hafen", "Der", "port", "m"), ("River", "Fluss", "Der", "fleuve", "m"),
    ("Garden", "Garten", "Der", "jardin", "m"), ("Mirror", "Spiegel", "Der", "miroir", "m"),
    ("Letter", "Brief", "Der", "lettre", "f"), ("Season", "Jahreszeit", "Die", "saison", "f"),
    ("Station", "Bahnhof", "Der", "gare", "f"), ("Island", "Insel", "Die", "île", "f"),
    ("Road", "Straße", "Die", "route", "f"), ("Promise", "Versprechen", "Das", "promesse", "f"),
    ("Voyage", "Reise", "Die", "voyage", "m"), ("Signal", "Signal", "Das", "signal", "m"),
    ("Orchard", "Obstgarten", "Der", "verger", "m"), ("Lantern", "Laterne", "Die", "lanterne", "f"),
    ("Bridge", "Brücke", "Die", "pont", "m"), ("Tide", "Flut", "Die", "marée", "f"),
    ("Frontier", "Grenze", "Die", "frontière", "f"), ("Compass", "Kompass", "Der", "boussole", "f"),
    ("Winter", "Winter", "Der", "hiver", "m"), ("Meadow", "Wiese", "Die", "prairie", "f"),
)
TAGLINES = ("Every {} keeps a secret.", "Nobody leaves the {} unchanged.", "The {} remembers everything.",
            "One {} to end it all.", "Beyond the {} lies the truth.")


@dataclass(frozen=True)
class Named:
    """A genre, language, place or award: its names, and the ids real vocabularies give it."""

    en: str
    de: str
    fr: str
    dbpedia: str = ""  # DBpedia's English label when it differs ("Drama film", "English language")
    wikidata_label: str = ""  # Wikidata's English label when it differs ("drama film")
    qid: str = ""  # a real Wikidata id where one is well known (classes, languages, genres)
    freebase: str = ""  # Freebase's name when it differs ("English Language")


GENRES = (
    Named("Drama", "Drama", "drame", "Drama film", "drama film", "Q130232"),
    Named("Comedy", "Komödie", "comédie", "Comedy film", "comedy film", "Q157443"),
    Named("Thriller", "Thriller", "thriller", "Thriller film", "thriller film", "Q2484376"),
    Named("Documentary", "Dokumentarfilm", "documentaire", "Documentary film", "documentary film", "Q93204"),
    Named("Western", "Western", "western", "Western film", "Western film", "Q172980"),
    Named("Romance", "Liebesfilm", "film romantique", "Romance film", "romance film", "Q1054574"),
    Named("Science Fiction", "Science-Fiction-Film", "science-fiction", "Science fiction film", "science fiction film",
          "Q471839"),
    Named("Animation", "Animationsfilm", "animation", "Animated film", "animated film", "Q202866"),
)
LANGUAGES = (
    Named("English", "Englisch", "anglais", "English language", "", "Q1860", "English Language"),
    Named("French", "Französisch", "français", "French language", "", "Q150", "French"),
    Named("German", "Deutsch", "allemand", "German language", "", "Q188", "German Language"),
    Named("Spanish", "Spanisch", "espagnol", "Spanish language", "", "Q1321", "Spanish Language"),
    Named("Italian", "Italienisch", "italien", "Italian language", "", "Q652", "Italian"),
    Named("Japanese", "Japanisch", "japonais", "Japanese language", "", "Q5287", "Japanese Language"),
)
PLACES = (
    Named("Lyon", "Lyon", "Lyon"), Named("Porto", "Porto", "Porto"), Named("Leeds", "Leeds", "Leeds"),
    Named("Graz", "Graz", "Graz"), Named("Tampere", "Tampere", "Tampere"), Named("Kraków", "Krakau", "Cracovie"),
    Named("Zurich", "Zürich", "Zurich"), Named("Bruges", "Brügge", "Bruges"), Named("Gothenburg", "Göteborg", "Göteborg"),
    Named("Seville", "Sevilla", "Séville"), Named("Munich", "München", "Munich"), Named("Naples", "Neapel", "Naples"),
    Named("Cologne", "Köln", "Cologne"), Named("Venice", "Venedig", "Venise"), Named("Lisbon", "Lissabon", "Lisbonne"),
    Named("Warsaw", "Warschau", "Varsovie"), Named("Prague", "Prag", "Prague"), Named("Vienna", "Wien", "Vienne"),
    Named("Copenhagen", "Kopenhagen", "Copenhague"), Named("Antwerp", "Antwerpen", "Anvers"),
)
AWARDS = (
    Named("Golden Reel Award", "Goldene Filmrolle", "Prix de la Bobine d'or"),
    Named("Silver Screen Prize", "Preis der Silbernen Leinwand", "Prix de l'Écran d'argent"),
    Named("Aurora Film Award", "Aurora-Filmpreis", "Prix Aurora du cinéma"),
    Named("Meridian Prize", "Meridian-Preis", "Prix Méridien"),
    Named("Critics' Circle Award", "Preis des Kritikerkreises", "Prix du Cercle des critiques"),
    Named("Kestrel Award", "Turmfalken-Preis", "Prix Crécerelle"),
    Named("Northern Star Award", "Nordstern-Preis", "Prix de l'Étoile du Nord"),
    Named("Ember Award", "Glut-Preis", "Prix Braise"),
)

# --------------------------------------------------------------------------------------------- the domain


@dataclass
class Film:
    index: int
    title: str
    title_de: str
    title_fr: str
    alias: str
    year: int
    date: str
    runtime: int
    budget: str
    rating: str
    tagline: str
    directors: list[int] = field(default_factory=list)
    writers: list[int] = field(default_factory=list)
    actors: list[int] = field(default_factory=list)
    genres: list[int] = field(default_factory=list)
    language: int = 0
    no_english: bool = False  # in dbpedia and skos: no @en title, only the German one (in @de and @fr)


@dataclass
class Person:
    index: int
    name: str
    alias: str
    birthplace: int
    birth_date: str
    spouse: int | None = None
    awards: list[tuple[int, int]] = field(default_factory=list)  # (award, year)
    no_english: bool = False  # in dbpedia and skos: labels in @de and @fr only (the same text)
    foaf_only: bool = False  # in dbpedia: foaf:name, no rdfs:label


@dataclass
class Domain:
    seed: int
    films: list[Film]
    people: list[Person]
    places: int  # how many of PLACES are used

    def relation(self, kind: str, index: int, step: str) -> list[tuple[str, int]]:
        """The abstract objects one step leads to: ``("film", i)``, ``("person", i)``, ``("genre", i)`` ...; literal
        values are ``("value", i)`` (one per subject)."""
        backwards = step.startswith("^")
        name = step.lstrip("^")
        if backwards:
            if kind != "person" or name not in {"director", "writer", "actor"}:
                raise ValueError(f"no abstract inverse {step} from {kind}")
            return [("film", f.index) for f in self.films if index in getattr(f, name + "s")]
        if kind == "film":
            film = self.films[index]
            if name in {"director", "writer", "actor"}:
                return [("person", p) for p in getattr(film, name + "s")]
            if name == "genre":
                return [("genre", g) for g in film.genres]
            if name == "language":
                return [("language", film.language)]
            if name in FILM_VALUES:
                return [("value", index)]
        if kind == "person":
            person = self.people[index]
            if name == "birthplace":
                return [("place", person.birthplace)]
            if name == "spouse":
                return [("person", person.spouse)] if person.spouse is not None else []
            if name == "award":
                return [("award", a) for a in dict.fromkeys(a for a, _ in person.awards)]
            if name == "birth_date":
                return [("value", index)]
        raise ValueError(f"no abstract relation {step} from {kind}")

    def answers(self, kind: str, index: int, steps: Sequence[str]) -> set[tuple[str, int]]:
        """The ends of the abstract relation path, never the topic itself."""
        frontier = {(kind, index)}
        for step in steps:
            frontier = {obj for k, i in frontier for obj in self.relation(k, i, step)}
        frontier.discard((kind, index))
        return frontier


FILM_VALUES = ("release", "runtime", "budget", "rating", "tagline")


def _french_title(adjective: tuple, noun: tuple) -> str:
    _, _, masculine, feminine, _ = adjective
    _, _, _, noun_fr, gender = noun
    article = "L'" if noun_fr[0] in "aeiouhîé" else ("Le " if gender == "m" else "La ")
    return f"{article}{noun_fr} {masculine if gender == 'm' else feminine}"


def build_domain(seed: int = 0, films: int = 40, people: int = 60) -> Domain:
    """The invented domain: a function of its three arguments only."""
    if films < 6 or people < 12:
        raise ValueError("the domain needs at least 6 films and 12 people")
    if films > len(ADJECTIVES) * len(NOUNS) or people > len(FIRST_NAMES) * len(LAST_NAMES):
        raise ValueError("too many films or people for the name lists")
    rng = random.Random(seed)
    places = min(len(PLACES), max(5, people // 3))

    names = [(f, last) for f in FIRST_NAMES for last in LAST_NAMES]
    rng.shuffle(names)
    persons = []
    for index, (first, last) in enumerate(names[:people]):
        year = rng.randint(1928, 1992)
        persons.append(Person(index, f"{first} {last}", f"{first} {rng.choice(MIDDLE_NAMES)} {last}",
                              rng.randrange(places), f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"))

    combos = [(a, n) for a in range(len(ADJECTIVES)) for n in range(len(NOUNS))]
    rng.shuffle(combos)
    film_list = []
    taglines: set[str] = set()
    for index, (a, n) in enumerate(combos[:films]):
        adjective, noun = ADJECTIVES[a], NOUNS[n]
        year = rng.randint(1952, 2021)
        tagline = ""
        for k in range(len(TAGLINES)):
            tagline = TAGLINES[(index + k) % len(TAGLINES)].format(noun[0].lower())
            if tagline not in taglines:
                break
        taglines.add(tagline)
        translated = rng.random() < 0.6
        title = f"The {adjective[0]} {noun[0]}"
        film_list.append(Film(
            index=index, title=title,
            title_de=f"{noun[2]} {adjective[1]} {noun[1]}" if translated else title,
            title_fr=_french_title(adjective, noun) if translated else title,
            alias=f"The {adjective[4]} {noun[0]}", year=year,
            date=f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", runtime=rng.randint(78, 172),
            budget=f"{rng.randint(2, 240)}.{rng.randint(1, 9)}", rating=f"{rng.randint(3, 8)}.{rng.randint(1, 9)}",
            tagline=tagline))
    translated_films = [f for f in film_list if f.title_de != f.title]
    for film in rng.sample(translated_films, max(1, films // 10)) if translated_films else []:
        film.no_english = True

    order = list(range(people))
    rng.shuffle(order)
    n_directors = max(3, round(films * 0.3))
    n_writers = max(2, round(films * 0.25))
    directors, writers, actors = order[:n_directors], order[n_directors:n_directors + n_writers], order[n_directors + n_writers:]
    film_order = list(range(films))
    rng.shuffle(film_order)
    for k, f in enumerate(film_order):
        film = film_list[f]
        film.directors = [directors[k % n_directors]]
        if k % 13 == 12:  # a co-directed film now and then
            film.directors.append(directors[(k + 1) % n_directors])
        film.writers = [film.directors[0]] if rng.random() < 0.3 else [rng.choice(writers)]
        if rng.random() < 0.25:
            film.writers.append(rng.choice([w for w in writers if w not in film.writers]))
        film.genres = rng.sample(range(len(GENRES)), 2 if rng.random() < 0.35 else 1)
        film.language = 0 if rng.random() < 0.5 else rng.randrange(1, len(LANGUAGES))
    deck: list[int] = []
    for film in film_list:
        cast: list[int] = []
        while len(cast) < 3:
            if not deck:
                deck = list(actors)
                rng.shuffle(deck)
            actor = deck.pop()
            if actor not in cast:
                cast.append(actor)
        if rng.random() < 0.2:  # a director's cameo in someone else's film
            cameo = rng.choice([d for d in directors if d not in film.directors])
            cast.append(cameo)
        film.actors = cast

    spouses = rng.sample(order, 2 * (people // 5))
    for a, b in zip(spouses[0::2], spouses[1::2]):
        persons[a].spouse, persons[b].spouse = b, a
    winners = list(directors) + rng.sample([p for p in order if p not in directors], people // 5)
    for p in winners:
        first = rng.randrange(len(AWARDS))
        persons[p].awards.append((first, rng.randint(1965, 2023)))
        if rng.random() < 0.3:
            second = rng.choice([a for a in range(len(AWARDS)) if a != first])
            persons[p].awards.append((second, rng.randint(1965, 2023)))
    for p in rng.sample(order, max(1, people // 10)):
        persons[p].no_english = True
    for p in rng.sample([p for p in order if not persons[p].no_english], max(1, people // 7)):
        persons[p].foaf_only = True
    return Domain(seed, film_list, persons, places)


# --------------------------------------------------------------------------------------------- questions


@dataclass(frozen=True)
class Template:
    qid: str
    kind: str  # the topic's kind: "film" or "person"
    steps: tuple[str, ...]  # abstract relations; "^" = backwards
    text: str  # with "[{}]" where the topic's name goes
    styles: tuple[str, ...] = ()  # only these styles (default: all)

    @property
    def hop(self) -> int:
        return len(self.steps)


TEMPLATES = (
    Template("film_director", "film", ("director",), "who directed [{}]"),
    Template("film_writer", "film", ("writer",), "who wrote [{}]"),
    Template("film_actor", "film", ("actor",), "who acted in [{}]"),
    Template("film_genre", "film", ("genre",), "what genre is [{}]"),
    Template("film_release", "film", ("release",), "when was [{}] released"),
    Template("film_language", "film", ("language",), "what language is [{}] in"),
    Template("person_directed", "person", ("^director",), "what films did [{}] direct"),
    Template("person_wrote", "person", ("^writer",), "what films did [{}] write"),
    Template("person_acted", "person", ("^actor",), "what films did [{}] act in"),
    Template("person_birthplace", "person", ("birthplace",), "where was [{}] born"),
    Template("person_spouse", "person", ("spouse",), "who is [{}] married to"),
    Template("person_award", "person", ("award",), "what awards did [{}] win"),
    Template("actor_film_director", "person", ("^actor", "director"), "who directed the films that [{}] acted in"),
    Template("director_film_genre", "person", ("^director", "genre"), "what genres are the films directed by [{}]"),
    Template("writer_film_language", "person", ("^writer", "language"), "what languages are the films written by [{}] in"),
    Template("film_director_birthplace", "film", ("director", "birthplace"), "where was the director of [{}] born"),
    Template("film_director_spouse", "film", ("director", "spouse"), "who is the spouse of the director of [{}]"),
    Template("film_director_award", "film", ("director", "award"), "what awards did the director of [{}] win"),
    Template("film_runtime", "film", ("runtime",), "what is the running time of [{}]", ("typed",)),
    Template("film_budget", "film", ("budget",), "what was the budget of [{}]", ("typed",)),
    Template("film_rating", "film", ("rating",), "what is the rating of [{}]", ("typed",)),
    Template("film_tagline", "film", ("tagline",), "what is the tagline of [{}]", ("typed",)),
    Template("person_birth_date", "person", ("birth_date",), "when was [{}] born", ("typed",)),
)


def choose_topics(domain: Domain, per_template: int, max_answers: int = 4) -> list[tuple[Template, int]]:
    """``per_template`` topics for each template with 1 to ``max_answers`` abstract answers, in a seeded order per
    template (so adding a template changes no other template's topics)."""
    chosen = []
    for template in TEMPLATES:
        pool = list(range(len(domain.films) if template.kind == "film" else len(domain.people)))
        random.Random(f"{domain.seed}/{template.qid}").shuffle(pool)
        found = 0
        for index in pool:
            if found == per_template:
                break
            if 1 <= len(domain.answers(template.kind, index, template.steps)) <= max_answers:
                chosen.append((template, index))
                found += 1
    return chosen


# --------------------------------------------------------------------------------------------- RDF terms and files


@dataclass(frozen=True)
class Term:
    kind: str  # "iri", "blank" or "literal"
    value: str
    lang: str = ""
    datatype: str = ""

    @property
    def nt(self) -> str:
        if self.kind == "iri":
            return f"<{self.value}>"
        if self.kind == "blank":
            return f"_:{self.value}"
        text = '"' + _escape(self.value) + '"'
        if self.lang:
            return f"{text}@{self.lang}"
        return f"{text}^^<{self.datatype}>" if self.datatype else text


def iri(value: str) -> Term:
    return Term("iri", value)


def blank(label: str) -> Term:
    return Term("blank", label)


def lit(value: str, lang: str = "", datatype: str = "") -> Term:
    return Term("literal", value, lang, datatype)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


def slug(name: str) -> str:
    """An IRI path segment from a name, DBpedia-like: spaces to underscores, reserved characters percent-encoded."""
    return quote(name.replace(" ", "_"), safe="_-.~()!,;:@&=+$*'")


_LOCAL = re.compile(r"^[A-Za-z0-9_]([A-Za-z0-9_-]*)$")


class StyleGraph:
    """The triples of one style in the order they were added, with the names and aliases each node was given."""

    def __init__(self, prefixes: dict[str, str]) -> None:
        self.prefixes = prefixes
        self.triples: list[tuple[Term, Term, Term]] = []
        self.names: dict[Term, list[tuple[str, str]]] = defaultdict(list)  # node -> [(text, lang)]
        self.aliases: dict[Term, list[str]] = defaultdict(list)
        self.out: dict[Term, list[tuple[str, Term]]] = defaultdict(list)
        self.into: dict[Term, list[tuple[str, Term]]] = defaultdict(list)

    def add(self, s: Term, p: str, o: Term) -> None:
        self.triples.append((s, iri(p), o))
        self.out[s].append((p, o))
        self.into[o].append((p, s))

    def name(self, s: Term, p: str, text: str, lang: str = "") -> None:
        self.add(s, p, lit(text, lang))
        self.names[s].append((text, lang))

    def alias(self, s: Term, p: str, text: str, lang: str = "en") -> None:
        self.add(s, p, lit(text, lang))
        self.aliases[s].append(text)

    def display(self, node: Term) -> str | None:
        """The display name: an English one, else an untagged one, else the first in language-tag order."""
        return display_name(self.names.get(node, []))

    def follow(self, start: Term, path: Sequence[str]) -> set[Term]:
        """Ends of ``path`` from ``start`` along paths that visit no node twice."""
        walks = [(start, (start,))]
        for step in path:
            backwards = step.startswith("^")
            predicate = step.lstrip("^")
            edges = self.into if backwards else self.out
            walks = [(o, seen + (o,)) for node, seen in walks for p, o in edges.get(node, []) if p == predicate and o not in seen]
        return {node for node, _ in walks}

    def turtle(self) -> str:
        lines = [f"@prefix {prefix}: <{namespace}> ." for prefix, namespace in self.prefixes.items()]
        lines.append("")
        by_subject: dict[Term, list[tuple[Term, Term]]] = defaultdict(list)
        for s, p, o in self.triples:
            by_subject[s].append((p, o))
        for s, pairs in by_subject.items():
            body = " ;\n    ".join(f"{self._ttl(p)} {self._ttl(o)}" for p, o in pairs)
            lines.append(f"{self._ttl(s)} {body} .")
        return "\n".join(lines) + "\n"

    def ntriples(self) -> str:
        return "".join(f"{s.nt} {p.nt} {o.nt} .\n" for s, p, o in self.triples)

    def _ttl(self, term: Term) -> str:
        if term.kind == "iri":
            if term.value == RDF + "type":
                return "a"
            return self._prefixed(term.value) or term.nt
        if term.kind == "literal" and term.datatype:
            return '"' + _escape(term.value) + '"^^' + (self._prefixed(term.datatype) or f"<{term.datatype}>")
        return term.nt

    def _prefixed(self, value: str) -> str | None:
        for prefix, namespace in sorted(self.prefixes.items(), key=lambda kv: -len(kv[1])):
            if value.startswith(namespace) and _LOCAL.match(value[len(namespace):]):
                return f"{prefix}:{value[len(namespace):]}"
        return None


def display_name(names: Iterable[tuple[str, str]]) -> str | None:
    """An English name, else an untagged one, else the first in language-tag order (ties: the order given)."""
    ranked = sorted(enumerate(names), key=lambda item: (item[1][1] != "en", item[1][1] != "", item[1][1].lower(), item[0]))
    return ranked[0][1][0] if ranked else None


def literal_answers(term: Term) -> list[str]:
    """A literal answer as written, a UTC date-time also with ``+00:00`` for ``Z`` (as rdflib rewrites it), and a date or
    date-time also as its date and its year."""
    forms = [term.value]
    if term.datatype == XSD + "dateTime" and term.value.endswith("Z"):
        forms.append(term.value[:-1] + "+00:00")
    if term.datatype in {XSD + "date", XSD + "dateTime"}:
        forms += [term.value[:10], term.value[:4]]
    return list(dict.fromkeys(forms))


# --------------------------------------------------------------------------------------------- the styles


class Style:
    """One way of writing the domain: the triples, the name of each abstract object, and the predicate paths each
    abstract relation takes (alternatives where the style has several)."""

    name = ""
    kg_file = "kg.ttl"
    prefixes: dict[str, str] = {}
    paths: dict[str, list[list[str]]] = {}

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.graph = StyleGraph(dict(self.prefixes))
        self.nodes: dict[tuple[str, int], Term] = {}
        self.build()

    def build(self) -> None:
        raise NotImplementedError

    def node(self, kind: str, index: int) -> Term:
        return self.nodes[(kind, index)]

    def topic_name(self, kind: str, index: int) -> str:
        name = self.graph.display(self.node(kind, index))
        assert name, (self.name, kind, index)
        return name

    def topic_alias(self, kind: str, index: int) -> str | None:
        aliases = self.graph.aliases.get(self.node(kind, index))
        return aliases[0] if aliases else None

    def relation_paths(self, steps: Sequence[str]) -> list[list[str]]:
        """Every predicate path the abstract relation path can take in this style."""
        options = []
        for step in steps:
            forward = self.paths[step.lstrip("^")]
            options.append([_inverse(p) for p in forward] if step.startswith("^") else forward)
        return [[s for part in combo for s in part] for combo in itertools.product(*options)]

    def text(self) -> str:
        return self.graph.ntriples() if self.kg_file.endswith(".nt") else self.graph.turtle()


def _inverse(path: list[str]) -> list[str]:
    return [step[1:] if step.startswith("^") else "^" + step for step in reversed(path)]


class PlainStyle(Style):
    """MetaQA-like, the reference: readable IRIs, one ``rdfs:label``@en each, relation names that read like questions."""

    name = "plain"
    base = "http://example.org/movies/"
    prefixes = {"rdfs": RDFS, "xsd": XSD, "res": base + "resource/", "rel": base + "relation/"}
    label_predicate = RDFS + "label"
    release = "release_year"

    @classmethod
    def rel(cls, name: str) -> str:
        return cls.base + "relation/" + name

    @property
    def paths(self) -> dict[str, list[list[str]]]:  # type: ignore[override]
        r = self.rel
        return {"director": [[r("directed_by")]], "writer": [[r("written_by")]], "actor": [[r("starred_actors")]],
                "genre": [[r("has_genre")]], "language": [[r("in_language")]], "release": [[r(self.release)]],
                "birthplace": [[r("born_in")]], "spouse": [[r("spouse")], ["^" + r("spouse")]], "award": [[r("won_award")]],
                "runtime": [[r("running_time")]], "budget": [[r("budget")]], "rating": [[r("rating")]],
                "tagline": [[r("tagline")]], "birth_date": [[r("birth_date")]]}

    def entity(self, kind: str, index: int, names: dict[str, str]) -> Term:
        """A resource with its labels (``names``: language -> text)."""
        node = iri(self.base + "resource/" + slug(names.get("en") or next(iter(names.values()))))
        self.nodes[(kind, index)] = node
        for lang, text in names.items():
            self.graph.name(node, self.label_predicate, text, lang)
        return node

    def film_names(self, film: Film) -> dict[str, str]:
        return {"en": film.title}

    def person_names(self, person: Person) -> dict[str, str]:
        return {"en": person.name}

    def thing_names(self, thing: Named) -> dict[str, str]:
        return {"en": thing.en}

    def build(self) -> None:
        d, g, r = self.domain, self.graph, self.rel
        for kind, things in (("genre", GENRES), ("language", LANGUAGES), ("place", PLACES[:d.places]), ("award", AWARDS)):
            for index, thing in enumerate(things):
                self.entity(kind, index, self.thing_names(thing))
        for person in d.people:
            self.entity("person", person.index, self.person_names(person))
        for film in d.films:
            self.entity("film", film.index, self.film_names(film))
        years: dict[int, Term] = {}
        for film in d.films:
            node = self.node("film", film.index)
            for p in film.directors:
                g.add(node, r("directed_by"), self.node("person", p))
            for p in film.writers:
                g.add(node, r("written_by"), self.node("person", p))
            for p in film.actors:
                g.add(node, r("starred_actors"), self.node("person", p))
            for x in film.genres:
                g.add(node, r("has_genre"), self.node("genre", x))
            g.add(node, r("in_language"), self.node("language", film.language))
            self.film_values(film, node, years)
        for person in d.people:
            node = self.node("person", person.index)
            g.add(node, r("born_in"), self.node("place", person.birthplace))
            if person.spouse is not None and person.spouse > person.index:
                g.add(node, r("spouse"), self.node("person", person.spouse))
            for award in dict.fromkeys(a for a, _ in person.awards):
                g.add(node, r("won_award"), self.node("award", award))
            self.person_values(person, node)

    def film_values(self, film: Film, node: Term, years: dict[int, Term]) -> None:
        year = years.get(film.year)
        if year is None:
            year = years[film.year] = self.entity("year", film.year, {"en": str(film.year)})
        self.graph.add(node, self.rel("release_year"), year)

    def person_values(self, person: Person, node: Term) -> None:
        pass


class TypedStyle(PlainStyle):
    """Plain, with typed literal values: dates, integers, decimals and tagged strings."""

    name = "typed"
    release = "release_date"

    def film_values(self, film: Film, node: Term, years: dict[int, Term]) -> None:
        g, r = self.graph, self.rel
        g.add(node, r("release_date"), lit(film.date, datatype=XSD + "date"))
        g.add(node, r("running_time"), lit(str(film.runtime), datatype=XSD + "integer"))
        g.add(node, r("budget"), lit(film.budget, datatype=XSD + "decimal"))
        g.add(node, r("rating"), lit(film.rating, datatype=XSD + "decimal"))
        g.add(node, r("tagline"), lit(film.tagline, "en"))

    def person_values(self, person: Person, node: Term) -> None:
        self.graph.add(node, self.rel("birth_date"), lit(person.birth_date, datatype=XSD + "date"))


class SkosStyle(PlainStyle):
    """Opaque concept IRIs named by ``skos:prefLabel`` (en, de, fr) and ``skos:altLabel``; relations as in plain."""

    name = "skos"
    base = "http://example.org/thesaurus/"
    prefixes = {"skos": SKOS, "xsd": XSD, "c": base + "concept/", "rel": base + "relation/"}
    label_predicate = SKOS + "prefLabel"

    def build(self) -> None:
        self.scheme = iri(self.base + "scheme")
        self.graph.add(self.scheme, RDF + "type", iri(SKOS + "ConceptScheme"))
        self.graph.add(self.scheme, SKOS + "prefLabel", lit("Film thesaurus", "en"))
        self.counter = 0
        super().build()

    def entity(self, kind: str, index: int, names: dict[str, str]) -> Term:
        self.counter += 1
        node = iri(f"{self.base}concept/c{self.counter:04d}")
        self.nodes[(kind, index)] = node
        self.graph.add(node, RDF + "type", iri(SKOS + "Concept"))
        for lang, text in names.items():
            self.graph.name(node, SKOS + "prefLabel", text, lang)
        alias = {"film": lambda: self.domain.films[index].alias, "person": lambda: self.domain.people[index].alias}.get(kind)
        if alias:
            self.graph.alias(node, SKOS + "altLabel", alias(), "en")
        self.graph.add(node, SKOS + "inScheme", self.scheme)
        return node

    def film_names(self, film: Film) -> dict[str, str]:
        if film.no_english:
            return {"de": film.title_de, "fr": film.title_de}
        return {"en": film.title, "de": film.title_de, "fr": film.title_fr}

    def person_names(self, person: Person) -> dict[str, str]:
        if person.no_english:
            return {"de": person.name, "fr": person.name}
        return {"en": person.name, "de": person.name}

    def thing_names(self, thing: Named) -> dict[str, str]:
        return {"en": thing.en, "de": thing.de, "fr": thing.fr}


class DBpediaStyle(Style):
    """``dbr:``/``dbo:``/``dbp:``: ontology labels, domains and ranges, labels in three languages (some without @en),
    ``foaf:name`` only, abstracts, literal-valued ``dbp:language``, classes, ``owl:sameAs``."""

    name = "dbpedia"
    prefixes = {"rdfs": RDFS, "xsd": XSD, "owl": OWL, "foaf": FOAF, "dbr": "http://dbpedia.org/resource/",
                "dbo": "http://dbpedia.org/ontology/", "dbp": "http://dbpedia.org/property/", "wd": "http://www.wikidata.org/entity/"}
    DBO, DBP, DBR = "http://dbpedia.org/ontology/", "http://dbpedia.org/property/", "http://dbpedia.org/resource/"
    paths = {"director": [[DBO + "director"]], "writer": [[DBO + "writer"]], "actor": [[DBO + "starring"]],
             "genre": [[DBO + "genre"]], "language": [[DBO + "language"], [DBP + "language"]], "release": [[DBO + "releaseDate"]],
             "birthplace": [[DBO + "birthPlace"]], "spouse": [[DBO + "spouse"], ["^" + DBO + "spouse"]], "award": [[DBO + "award"]]}
    ONTOLOGY = (("director", "film director", "Regisseur"), ("writer", "writer", "Autor"), ("starring", "starring", "Darsteller"),
                ("genre", "genre", "Genre"), ("releaseDate", "release date", "Veröffentlichungsdatum"),
                ("language", "language", "Sprache"), ("birthPlace", "birth place", "Geburtsort"), ("spouse", "spouse", "Ehepartner"),
                ("award", "award", "Auszeichnung"), ("abstract", "has abstract", "Zusammenfassung"))
    # the ontology's domain and range of each property, as the DBpedia ontology declares them (mappings.dbpedia.org:
    # OntologyProperty:Starring has domain Work and range Actor); a class name, or an XSD / RDF datatype
    SCHEMA = {"director": ("Film", "Person"), "writer": ("Work", "Person"), "starring": ("Work", "Actor"),
              "genre": (None, "Genre"), "releaseDate": (None, "xsd:date"), "language": (None, "Language"),
              "birthPlace": ("Person", "Place"), "spouse": ("Person", "Person"), "award": (None, "Award"),
              "abstract": (None, "rdf:langString")}
    CLASSES = (("Film", "film", "Film"), ("Person", "person", "Person"), ("Work", "work", "Werk"),
               ("Actor", "actor", "Schauspieler"), ("Genre", "genre", "Genre"), ("Language", "language", "Sprache"),
               ("Place", "place", "Ort"), ("Award", "award", "Auszeichnung"))

    def resource(self, kind: str, index: int, title: str) -> Term:
        node = iri(self.DBR + slug(title))
        self.nodes[(kind, index)] = node
        return node

    def build(self) -> None:
        d, g, o = self.domain, self.graph, self.DBO
        label = RDFS + "label"
        datatypes = {"xsd": XSD, "rdf": RDF}
        for local, en, de in self.ONTOLOGY:
            prop = iri(o + local)
            g.add(prop, RDF + "type", iri(OWL + ("DatatypeProperty" if local in {"releaseDate", "abstract"} else "ObjectProperty")))
            g.name(prop, label, en, "en")
            g.name(prop, label, de, "de")
            domain, range_ = self.SCHEMA[local]
            if domain:
                g.add(prop, RDFS + "domain", iri(o + domain))
            prefix, _, name = range_.rpartition(":")
            g.add(prop, RDFS + "range", iri(datatypes[prefix] + name if prefix else o + name))
        for cls, en, de in self.CLASSES:
            g.add(iri(o + cls), RDF + "type", iri(OWL + "Class"))
            g.name(iri(o + cls), label, en, "en")
            g.name(iri(o + cls), label, de, "de")
        for kind, things in (("genre", GENRES), ("language", LANGUAGES), ("place", PLACES[:d.places]), ("award", AWARDS)):
            for index, thing in enumerate(things):
                en = thing.dbpedia or thing.en
                node = self.resource(kind, index, en)
                g.name(node, label, en, "en")
                g.name(node, label, thing.de, "de")
                g.name(node, label, thing.fr, "fr")
        for person in d.people:
            node = self.resource("person", person.index, person.name)
            g.add(node, RDF + "type", iri(o + "Person"))
            if person.foaf_only:
                g.name(node, FOAF + "name", person.name, "en")
            elif person.no_english:
                g.name(node, label, person.name, "de")
                g.name(node, label, person.name, "fr")
            else:
                for lang in ("en", "de", "fr"):
                    g.name(node, label, person.name, lang)
                if person.index % 2 == 0:
                    g.name(node, FOAF + "name", person.name, "en")
        for film in d.films:
            node = self.resource("film", film.index, film.title_de if film.no_english else film.title)
            g.add(node, RDF + "type", iri(o + "Film"))
            if film.no_english:
                g.name(node, label, film.title_de, "de")
                g.name(node, label, film.title_de, "fr")
            else:
                g.name(node, label, film.title, "en")
                g.name(node, label, film.title_de, "de")
                g.name(node, label, film.title_fr, "fr")
        for film in d.films:
            node = self.node("film", film.index)
            people = self.domain.people
            for p in film.directors:
                g.add(node, o + "director", self.node("person", p))
            for p in film.writers:
                g.add(node, o + "writer", self.node("person", p))
            for p in film.actors:
                g.add(node, o + "starring", self.node("person", p))
            for x in film.genres:
                g.add(node, o + "genre", self.node("genre", x))
            g.add(node, o + "releaseDate", lit(film.date, datatype=XSD + "date"))
            g.add(node, o + "language", self.node("language", film.language))
            if film.index % 2 == 0:
                g.add(node, self.DBP + "language", lit(LANGUAGES[film.language].en, "en"))
            genre = GENRES[film.genres[0]].en.lower()
            title = film.title_de if film.no_english else film.title
            abstract = (f"{title} is a {film.year} {genre} film directed by "
                        f"{' and '.join(people[p].name for p in film.directors)} and starring "
                        f"{', '.join(people[p].name for p in film.actors)}.")
            g.add(node, o + "abstract", lit(abstract, "en"))
            if film.index % 7 == 3:
                g.add(node, self.DBP + "caption", lit("", "en"))
            g.add(node, OWL + "sameAs", iri(f"http://www.wikidata.org/entity/Q{900000 + film.index * 37}"))
        for person in d.people:
            node = self.node("person", person.index)
            g.add(node, o + "birthPlace", self.node("place", person.birthplace))
            if person.spouse is not None and person.spouse > person.index:
                g.add(node, o + "spouse", self.node("person", person.spouse))
            for award in dict.fromkeys(a for a, _ in person.awards):
                g.add(node, o + "award", self.node("award", award))
            place = PLACES[person.birthplace].en
            g.add(node, o + "abstract", lit(f"{person.name} (born {person.birth_date[:4]} in {place}) works in film.", "en"))


class WikidataStyle(Style):
    """``wd:Q…`` items with truthy ``wdt:`` claims, the property entities, aliases, descriptions, awards as statements."""

    name = "wikidata"
    WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
    P, PS, PQ = "http://www.wikidata.org/prop/", "http://www.wikidata.org/prop/statement/", "http://www.wikidata.org/prop/qualifier/"
    WDS, WIKIBASE = "http://www.wikidata.org/entity/statement/", "http://wikiba.se/ontology#"
    prefixes = {"rdfs": RDFS, "xsd": XSD, "skos": SKOS, "schema": SCHEMA, "wikibase": WIKIBASE, "wd": WD, "wdt": WDT,
                "p": P, "ps": PS, "pq": PQ, "wds": WDS}
    paths = {"director": [[WDT + "P57"]], "writer": [[WDT + "P58"]], "actor": [[WDT + "P161"]], "genre": [[WDT + "P136"]],
             "language": [[WDT + "P364"]], "release": [[WDT + "P577"]], "birthplace": [[WDT + "P19"]],
             "spouse": [[WDT + "P26"]], "award": [[P + "P166", PS + "P166"]]}
    # (id, English label, German label, French label, description, aliases)
    PROPERTIES = (
        ("P31", "instance of", "ist ein(e)", "nature de l'élément", "that class of which this subject is a particular example", ("is a",)),
        ("P57", "director", "Regisseur", "réalisateur", "director(s) of film, TV-series, stageplay, video game or similar",
         ("directed by", "film director")),
        ("P58", "screenwriter", "Drehbuchautor", "scénariste", "person(s) who wrote the script for subject item",
         ("written by", "writer")),
        ("P161", "cast member", "Darsteller", "distribution", "actor in the subject production", ("starring", "actor", "stars")),
        ("P136", "genre", "Genre", "genre", "creative work's genre or an artist's field of work", ("type of film",)),
        ("P577", "publication date", "Veröffentlichungsdatum", "date de publication",
         "date or point in time when a work was first published or released", ("release date", "released")),
        ("P364", "original language of film or TV show", "Originalsprache", "langue originale de l'œuvre",
         "language in which a film or a performance work was originally created", ("original language",)),
        ("P19", "place of birth", "Geburtsort", "lieu de naissance", "most specific known birth location of a person",
         ("birthplace", "born in")),
        ("P26", "spouse", "Ehepartner", "conjoint", "the subject has the object as their spouse (husband, wife, partner, etc.)",
         ("married to", "husband", "wife")),
        ("P166", "award received", "Auszeichnung", "distinction reçue", "award or recognition received by a person, organization",
         ("award won", "won")),
        ("P585", "point in time", "Zeitpunkt", "date", "date something took place, or a statement was true", ("date", "year")),
    )

    def __init__(self, domain: Domain) -> None:
        self.rng = random.Random(f"{domain.seed}/wikidata")
        self.used: set[int] = set()
        super().__init__(domain)

    def qid(self) -> str:
        while True:
            number = self.rng.randrange(10_000, 99_999_999)
            if number not in self.used:
                self.used.add(number)
                return f"Q{number}"

    def item(self, kind: str, index: int, names: dict[str, str], description: str, qid: str = "",
             aliases: Sequence[str] = ()) -> Term:
        if qid:
            self.used.add(int(qid[1:]))
        node = iri(self.WD + (qid or self.qid()))
        self.nodes[(kind, index)] = node
        for lang, text in names.items():
            self.graph.name(node, RDFS + "label", text, lang)
        for alias in aliases:
            self.graph.alias(node, SKOS + "altLabel", alias, "en")
        self.graph.add(node, SCHEMA + "description", lit(description, "en"))
        return node

    def build(self) -> None:
        d, g = self.domain, self.graph
        for pid, en, de, fr, description, aliases in self.PROPERTIES:
            prop = iri(self.WD + pid)
            g.add(prop, RDF + "type", iri(self.WIKIBASE + "Property"))
            g.name(prop, RDFS + "label", en, "en")
            g.name(prop, RDFS + "label", de, "de")
            g.name(prop, RDFS + "label", fr, "fr")
            g.add(prop, SCHEMA + "description", lit(description, "en"))
            for alias in aliases:
                g.alias(prop, SKOS + "altLabel", alias, "en")
            g.add(prop, self.WIKIBASE + "directClaim", iri(self.WDT + pid))
            g.add(prop, self.WIKIBASE + "claim", iri(self.P + pid))
            g.add(prop, self.WIKIBASE + "statementProperty", iri(self.PS + pid))
            g.add(prop, self.WIKIBASE + "qualifier", iri(self.PQ + pid))
        film_class = self.item("class", 0, {"en": "film", "de": "Film", "fr": "film"},
                               "sequence of images that give the impression of movement", "Q11424", ("movie",))
        human = self.item("class", 1, {"en": "human", "de": "Mensch", "fr": "être humain"},
                          "any member of Homo sapiens", "Q5", ("person",))
        for kind, things in (("genre", GENRES), ("language", LANGUAGES), ("place", PLACES[:d.places]), ("award", AWARDS)):
            for index, thing in enumerate(things):
                description = {"genre": "film genre", "language": "language", "place": "city in Europe", "award": "film award"}[kind]
                self.item(kind, index, {"en": thing.wikidata_label or thing.en, "de": thing.de, "fr": thing.fr}, description,
                          thing.qid)
        for person in d.people:
            node = self.item("person", person.index, {"en": person.name, "de": person.name, "fr": person.name},
                             "film professional", aliases=(person.alias,))
            g.add(node, self.WDT + "P31", human)
        for film in d.films:
            node = self.item("film", film.index, {"en": film.title, "de": film.title_de, "fr": film.title_fr},
                             f"{film.year} film", aliases=(film.alias,))
            g.add(node, self.WDT + "P31", film_class)
        for film in d.films:
            node = self.node("film", film.index)
            for pid, people in (("P57", film.directors), ("P58", film.writers), ("P161", film.actors)):
                for p in people:
                    g.add(node, self.WDT + pid, self.node("person", p))
            for x in film.genres:
                g.add(node, self.WDT + "P136", self.node("genre", x))
            g.add(node, self.WDT + "P577", lit(film.date + "T00:00:00Z", datatype=XSD + "dateTime"))
            g.add(node, self.WDT + "P364", self.node("language", film.language))
        for person in d.people:
            node = self.node("person", person.index)
            g.add(node, self.WDT + "P19", self.node("place", person.birthplace))
            if person.spouse is not None:
                g.add(node, self.WDT + "P26", self.node("person", person.spouse))
            for award, year in person.awards:
                qid = node.value.rsplit("/", 1)[1]
                digest = hashlib.sha256(f"{qid}/P166/{award}/{year}".encode()).hexdigest()
                statement = iri(f"{self.WDS}{qid}-{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}")
                g.add(node, self.P + "P166", statement)
                g.add(statement, RDF + "type", iri(self.WIKIBASE + "Statement"))
                g.add(statement, self.WIKIBASE + "rank", iri(self.WIKIBASE + "NormalRank"))
                g.add(statement, self.PS + "P166", self.node("award", award))
                g.add(statement, self.PQ + "P585", lit(f"{year}-01-01T00:00:00Z", datatype=XSD + "dateTime"))


class SchemaOrgStyle(Style):
    """Opaque IRIs named by ``schema:name`` (http or https), ``schema:alternateName``, awards as named blank nodes."""

    name = "schemaorg"
    EX = "http://example.org/data/"
    prefixes = {"xsd": XSD, "schema": SCHEMA, "schema1": SCHEMA_HTTPS, "ex": EX}
    paths = {"director": [[SCHEMA + "director"]], "writer": [[SCHEMA + "author"]], "actor": [[SCHEMA + "actor"]],
             "genre": [[SCHEMA + "genre"]], "language": [[SCHEMA + "inLanguage"]], "release": [[SCHEMA + "datePublished"]],
             "birthplace": [[SCHEMA + "birthPlace"]], "spouse": [[SCHEMA + "spouse"], ["^" + SCHEMA + "spouse"]],
             "award": [[SCHEMA + "award"]]}

    def thing(self, kind: str, index: int, local: str, cls: str, name: str, alias: str | None = None) -> Term:
        node = iri(self.EX + local)
        self.nodes[(kind, index)] = node
        namespace = SCHEMA if index % 2 == 0 else SCHEMA_HTTPS
        self.graph.add(node, RDF + "type", iri(namespace + cls))
        self.graph.name(node, namespace + "name", name)
        if alias:
            self.graph.alias(node, namespace + "alternateName", alias, "")
        return node

    def build(self) -> None:
        d, g, s = self.domain, self.graph, SCHEMA
        for index, language in enumerate(LANGUAGES):
            self.thing("language", index, f"language{index}", "Language", language.en)
        for index, place in enumerate(PLACES[:d.places]):
            self.thing("place", index, f"place{index:02d}", "Place", place.en)
        for person in d.people:
            self.thing("person", person.index, f"person{person.index:03d}", "Person", person.name, person.alias)
        for film in d.films:
            self.thing("film", film.index, f"film{film.index:03d}", "Movie", film.title, film.alias)
        for film in d.films:
            node = self.node("film", film.index)
            for p in film.directors:
                g.add(node, s + "director", self.node("person", p))
            for p in film.writers:
                g.add(node, s + "author", self.node("person", p))
            for p in film.actors:
                g.add(node, s + "actor", self.node("person", p))
            for x in film.genres:
                g.add(node, s + "genre", lit(GENRES[x].en))
            g.add(node, s + "datePublished", lit(film.date, datatype=XSD + "date"))
            g.add(node, s + "inLanguage", self.node("language", film.language))
            g.add(node, s + "description", lit(f"A {film.year} film. {film.tagline}", "en"))
            if film.index % 3 == 0:
                rating = blank(f"rating{film.index}")
                g.add(node, s + "aggregateRating", rating)
                g.add(rating, RDF + "type", iri(s + "AggregateRating"))
                g.add(rating, s + "ratingValue", lit(film.rating, datatype=XSD + "decimal"))
        for person in d.people:
            node = self.node("person", person.index)
            g.add(node, s + "birthPlace", self.node("place", person.birthplace))
            g.add(node, s + "birthDate", lit(person.birth_date, datatype=XSD + "date"))
            if person.spouse is not None and person.spouse > person.index:
                g.add(node, s + "spouse", self.node("person", person.spouse))
            for award, year in person.awards:
                prize = blank(f"award{person.index}x{award}y{year}")
                g.add(node, s + "award", prize)
                g.name(prize, s + "name", AWARDS[award].en)
                g.add(prize, s + "dateReceived", lit(str(year), datatype=XSD + "gYear"))


class FreebaseStyle(Style):
    """Mids named by ``type.object.name``, dotted relations, unnamed mediator nodes (casts, marriages, awards)."""

    name = "freebase"
    kg_file = "kg.nt"
    NS = FREEBASE
    prefixes = {"ns": NS}
    _F = NS + "film."
    paths = {"director": [[_F + "film.directed_by"], ["^" + _F + "director.film"]], "writer": [[_F + "film.written_by"]],
             "actor": [[_F + "film.starring", _F + "performance.actor"], ["^" + _F + "performance.film", _F + "performance.actor"]],
             "genre": [[_F + "film.genre"]], "language": [[_F + "film.language"]], "release": [[_F + "film.initial_release_date"]],
             "birthplace": [[NS + "people.person.place_of_birth"]],
             "spouse": [[NS + "people.person.spouse_s", NS + "people.marriage.spouse"]],
             "award": [[NS + "award.award_winner.awards_won", NS + "award.award_honor.award"]]}
    ALPHABET = "0123456789bcdfghjklmnpqrstvwxyz_"

    def __init__(self, domain: Domain) -> None:
        self.rng = random.Random(f"{domain.seed}/freebase")
        self.used: set[str] = set()
        super().__init__(domain)

    def mid(self) -> Term:
        while True:
            mid = "m.0" + "".join(self.rng.choice(self.ALPHABET) for _ in range(self.rng.choice((4, 5, 6))))
            if mid not in self.used:
                self.used.add(mid)
                return iri(self.NS + mid)

    def topic(self, kind: str, index: int, fb_type: str, names: dict[str, str], alias: str | None = None) -> Term:
        node = self.mid()
        self.nodes[(kind, index)] = node
        self.graph.add(node, self.NS + "type.object.type", iri(self.NS + fb_type))
        for lang, text in names.items():
            self.graph.name(node, self.NS + "type.object.name", text, lang)
        if alias:
            self.graph.alias(node, self.NS + "common.topic.alias", alias, "en")
        return node

    def build(self) -> None:
        d, g, ns = self.domain, self.graph, self.NS
        for fb_type, name in (("film.film", "Film"), ("people.person", "Person")):
            g.name(iri(ns + fb_type), ns + "type.object.name", name, "en")
        for kind, things, fb_type in (("genre", GENRES, "film.film_genre"), ("language", LANGUAGES, "language.human_language"),
                                      ("place", PLACES[:d.places], "location.location"), ("award", AWARDS, "award.award")):
            for index, thing in enumerate(things):
                self.topic(kind, index, fb_type, {"en": thing.freebase or thing.en})
        union = self.mid()
        g.name(union, ns + "type.object.name", "Marriage", "en")
        for person in d.people:
            self.topic("person", person.index, "people.person", {"en": person.name}, person.alias)
        for film in d.films:
            names = {"en": film.title}
            if film.title_de != film.title:
                names["de"] = film.title_de
            self.topic("film", film.index, "film.film", names, film.alias)
        characters = [f"{t} {n}" for t in CHARACTER_TITLES for n in CHARACTER_NAMES]
        self.rng.shuffle(characters)
        for film in d.films:
            node = self.node("film", film.index)
            for p in film.directors:
                g.add(node, ns + "film.film.directed_by", self.node("person", p))
                g.add(self.node("person", p), ns + "film.director.film", node)
            for p in film.writers:
                g.add(node, ns + "film.film.written_by", self.node("person", p))
            for k, p in enumerate(film.actors):
                performance = self.mid()
                actor = self.node("person", p)
                g.add(node, ns + "film.film.starring", performance)
                g.add(performance, ns + "film.performance.actor", actor)
                g.add(performance, ns + "film.performance.film", node)
                g.add(actor, ns + "film.actor.film", performance)
                if (film.index + k) % 2 == 0 and characters:
                    character = self.mid()
                    g.name(character, ns + "type.object.name", characters.pop(), "en")
                    g.add(performance, ns + "film.performance.character", character)
            for x in film.genres:
                g.add(node, ns + "film.film.genre", self.node("genre", x))
            g.add(node, ns + "film.film.initial_release_date", lit(film.date, datatype=XSD + "date"))
            g.add(node, ns + "film.film.language", self.node("language", film.language))
        for person in d.people:
            node = self.node("person", person.index)
            g.add(node, ns + "people.person.place_of_birth", self.node("place", person.birthplace))
            if person.spouse is not None and person.spouse > person.index:
                marriage = self.mid()
                partner = self.node("person", person.spouse)
                g.add(node, ns + "people.person.spouse_s", marriage)
                g.add(partner, ns + "people.person.spouse_s", marriage)
                g.add(marriage, ns + "people.marriage.spouse", node)
                g.add(marriage, ns + "people.marriage.spouse", partner)
                g.add(marriage, ns + "people.marriage.type_of_union", union)
            for award, year in person.awards:
                honor = self.mid()
                g.add(node, ns + "award.award_winner.awards_won", honor)
                g.add(honor, ns + "award.award_honor.award", self.node("award", award))
                g.add(honor, ns + "award.award_honor.award_winner", node)
                g.add(honor, ns + "award.award_honor.year", lit(str(year), datatype=XSD + "gYear"))


STYLE_CLASSES: dict[str, type[Style]] = {
    "plain": PlainStyle, "dbpedia": DBpediaStyle, "wikidata": WikidataStyle, "schemaorg": SchemaOrgStyle,
    "skos": SkosStyle, "freebase": FreebaseStyle, "typed": TypedStyle,
}
assert tuple(STYLE_CLASSES) == STYLES


# --------------------------------------------------------------------------------------------- writing a style


def style_questions(style: Style, topics: Sequence[tuple[Template, int]]) -> dict[str, list[dict]]:
    """The question records of every variant, answers computed from the style's own triples."""
    records: dict[str, list[dict]] = {variant: [] for variant in VARIANTS}
    counts: dict[str, int] = defaultdict(int)
    for template, index in topics:
        if template.styles and style.name not in template.styles:
            continue
        topic = style.node(template.kind, index)
        gold_paths, ends = [], set()
        for path in style.relation_paths(template.steps):
            reached = style.graph.follow(topic, path)
            if reached:
                gold_paths.append(path)
                ends |= reached
        if not ends:
            raise AssertionError(f"{style.name}: {template.qid} from {topic.nt} reaches nothing")
        names, answers = [], []
        for end in sorted(ends, key=lambda t: t.nt):
            if end.kind == "literal":
                names.append(end.value)
                answers += literal_answers(end)
            else:
                name = style.graph.display(end)
                if not name:
                    raise AssertionError(f"{style.name}: {template.qid} from {topic.nt} ends at the unnamed {end.nt}")
                names.append(name)
                answers.append(name)
        expected = len(style.domain.answers(template.kind, index, template.steps))
        if len(set(names)) != expected and not (template.steps[-1] == "language" and style.name == "dbpedia"):
            raise AssertionError(f"{style.name}: {template.qid} from {topic.nt}: {names} but {expected} abstract answers")
        counts[template.qid] += 1
        base = {
            "answers": list(dict.fromkeys(answers)),
            "answer_names": list(dict.fromkeys(names)),
            "hop": template.hop,
            "qtype": template.qid,
            "qid": f"{template.qid}-{counts[template.qid]}",
            "style": style.name,
            "topic_id": topic.nt,
            "gold_paths": gold_paths,
            "answer_ids": sorted(end.nt for end in ends),
        }
        display = style.topic_name(template.kind, index)
        alias = style.topic_alias(template.kind, index)
        for variant, name in (("bracketed", display), ("plain", display), ("alias", alias)):
            if name is None:
                continue
            text = template.text.format(name)
            if variant == "plain":
                text = text.replace("[", "").replace("]", "")
            records[variant].append({"id": f"{variant}/{style.name}/{base['qid']}", "question": text, "variant": variant,
                                     "topic": name, **base})
    return records


def write_jsonl(path: Path, records: Iterable[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def write_style(style: Style, topics: Sequence[tuple[Template, int]], folder: Path, settings: dict) -> dict:
    """The KG file, the question files and ``meta.json`` of one style."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / style.kg_file).write_text(style.text(), encoding="utf-8")
    records = style_questions(style, topics)
    files = {}
    for variant, items in records.items():
        path = folder / QUESTION_FILES[variant]
        if items:
            write_jsonl(path, items)
            files[variant] = path.name
        elif path.exists():
            path.unlink()
    meta = {"style": style.name, "kg": style.kg_file, "triples": len(style.graph.triples),
            "questions": {variant: len(items) for variant, items in records.items() if items}, "question_files": files,
            **settings}
    (folder / "meta.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return meta


def generate(out: Path, *, styles: Sequence[str] = STYLES, seed: int = 0, films: int = 40, people: int = 60,
             per_template: int = 2) -> list[dict]:
    domain = build_domain(seed, films, people)
    topics = choose_topics(domain, per_template)
    settings = {"seed": seed, "films": films, "people": people, "per_template": per_template}
    return [write_style(STYLE_CLASSES[name](domain), topics, out / name, settings) for name in styles]


#: What each style's fixture exercises (the README of ``tests/fixtures/styles``).
STYLE_SUMMARIES = {
    "plain": "the reference: readable IRIs, one `rdfs:label`@en each, relation names that read like the questions",
    "dbpedia": "`dbo:` camelCase relations with ontology labels, domains and ranges, `rdfs:label` @en/@de/@fr (some without @en), "
               "`foaf:name` only, "
               "`dbo:abstract`, `dbo:language` and `dbp:language` literals, an empty literal, classes",
    "wikidata": "`wd:Q…`/`wdt:P…`, property entities with labels, descriptions and `wikibase:directClaim`, `skos:altLabel`, "
                "awards only through statement nodes (`p:P166` -> `ps:P166`, `pq:P585`), `xsd:dateTime`",
    "schemaorg": "opaque IRIs, `schema:name` only (http and https), `schema:alternateName`, awards as named blank nodes, "
                 "genres as text",
    "skos": "opaque concept IRIs, `skos:prefLabel` @en/@de/@fr (some without @en) and `skos:altLabel` only, one scheme",
    "freebase": "N-Triples, mids, `type.object.name`, dotted relations, unnamed mediator nodes for casts, marriages and awards",
    "typed": "plain plus typed literal answers: `xsd:date`, `xsd:integer`, `xsd:decimal`, `@en` taglines",
}


def write_fixtures(folder: Path, *, seed: int = 0, films: int = 12, people: int = 20, per_template: int = 1) -> list[dict]:
    """The small styles for the tests, with a README saying how they were made."""
    for style in STYLES:
        shutil.rmtree(folder / style, ignore_errors=True)
    metas = generate(folder, seed=seed, films=films, people=people, per_template=per_template)
    options = "" if (seed, films, people, per_template) == (0, 12, 20, 1) else \
        f" --seed {seed} --films {films} --people {people} --per-template {per_template}"
    lines = ["# Real-world RDF style fixtures", "",
             f"The invented movie/people domain of `benchmarks/rdf_styles.py` (issue 23) in its seven styles, small ({films} "
             f"films, {people} people, {per_template} topic per question template), for tests that need the same facts "
             "written the ways DBpedia, Wikidata, schema.org, SKOS and Freebase write them. Generated, never edited: "
             f"`python benchmarks/rdf_styles.py fixtures{options}` rewrites this folder (deterministic; "
             "`tests/test_rdf_styles.py` checks the files are exactly what it writes). Each folder: the KG, "
             "`questions.jsonl` (topic in brackets), `questions_plain.jsonl` (none), `questions_alias.jsonl` (in brackets, "
             "named by an alias, where the style has aliases) in `kg-agent eval jsonl`'s format, with `gold_paths`, "
             "`topic_id`, `answer_ids` and `answer_names` (display names), and `meta.json`.", "",
             "| style | KG | triples | questions | what it exercises |", "|---|---|---:|---:|---|"]
    for meta in metas:
        lines.append(f"| `{meta['style']}` | `{meta['kg']}` | {meta['triples']} | {meta['questions']['bracketed']} | "
                     f"{STYLE_SUMMARIES[meta['style']]} |")
    (folder / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return metas


# --------------------------------------------------------------------------------------------- MetaQA rewritten


def data_root() -> Path:
    """The benchmark data folder: ``KG_AGENT_DATA``, default ``../shared/data`` beside the project."""
    return Path(os.environ.get("KG_AGENT_DATA", ROOT.parent / "shared" / "data")).resolve()


def _fraction(seed: int, text: str) -> float:
    return int.from_bytes(hashlib.sha256(f"{seed}\x00{text}".encode()).digest()[:8], "big") / 2**64


def rewrite_metaqa(out: Path, *, data: Path | None = None, seed: int = 0, sample: int = 100, no_english: float = 0.15) -> list[str]:
    """MetaQA's KB as ``metaqa_labels``, ``metaqa_opaque_properties`` and ``metaqa_multilingual`` (N-Triples), each with the
    same sampled 1-hop and 2-hop dev questions; returns the styles written (none when the data is absent)."""
    from kg_agent.eval.datasets import load_metaqa, sample_questions
    from kg_agent.kg.loading.plain_triples import iter_metaqa_triples

    data = data or data_root()
    kb = data / "metaqa" / "kb.txt"
    if not kb.is_file():
        print(f"rdf_styles: MetaQA not found at {kb} (set KG_AGENT_DATA to the shared data folder); skipping the MetaQA "
              "rewrites", file=sys.stderr)
        return []
    triples = list(iter_metaqa_triples(kb))
    entities: dict[str, str] = {}
    films: set[str] = set()
    for h, _, t in triples:
        films.add(h)
        for name in (h, t):
            if name not in entities:
                entities[name] = f"<http://example.org/metaqa/entity/E{len(entities) + 1}>"
    relations = sorted({r for _, r, _ in triples})
    readable = {r: f"<http://example.org/metaqa/relation/{r}>" for r in relations}
    opaque = {r: f"<http://example.org/metaqa/property/P{k}>" for k, r in enumerate(relations, 1)}
    label = f"<{RDFS}label>"

    def facts(predicates: dict[str, str]) -> Iterable[str]:
        for h, r, t in triples:
            yield f"{entities[h]} {predicates[r]} {entities[t]} .\n"

    def write(style: str, lines: Iterable[str]) -> None:
        folder = out / style
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / "kg.nt").open("w", encoding="utf-8") as handle:
            handle.writelines(lines)

    def plain_labels() -> Iterable[str]:
        for name, node in entities.items():
            yield f"{node} {label} {lit(name).nt} .\n"

    def property_labels() -> Iterable[str]:
        for r in relations:
            yield f"{opaque[r]} <{RDF}type> <{RDF}Property> .\n"
            yield f"{opaque[r]} {label} {lit(r.replace('_', ' '), 'en').nt} .\n"

    def multilingual_labels() -> Iterable[str]:
        for name, node in entities.items():
            if _fraction(seed, name) >= no_english:
                yield f"{node} {label} {lit(name, 'en').nt} .\n"
                de, fr = (f"{name} (Film)", f"{name} (film)") if name in films else (name, name)
            else:
                de = fr = name
            yield f"{node} {label} {lit(de, 'de').nt} .\n"
            yield f"{node} {label} {lit(fr, 'fr').nt} .\n"

    write("metaqa_labels", itertools.chain(plain_labels(), facts(readable)))
    write("metaqa_opaque_properties", itertools.chain(property_labels(), plain_labels(), facts(opaque)))
    write("metaqa_multilingual", itertools.chain(multilingual_labels(), facts(readable)))

    questions = []
    for hop in (1, 2):
        folder = data / "metaqa" / f"{hop}-hop"
        loaded = load_metaqa(folder / "qa_dev.txt", only_lines=folder / f"{hop}hop_dev_some_gold_reachable.idx", hop=hop)
        questions += sample_questions(loaded, sample, seed)
    records = {variant: [] for variant in ("bracketed", "plain")}
    for q in questions:
        base = {"answers": q.answers, "hop": q.hop, "qtype": q.qtype, "qid": q.id, "topic": q.topic_entities[0]}
        records["bracketed"].append({"id": f"bracketed/{q.id}", "question": q.extra["raw"], "variant": "bracketed", **base})
        records["plain"].append({"id": f"plain/{q.id}", "question": q.question, "variant": "plain", **base})
    written = []
    for style in ("metaqa_labels", "metaqa_opaque_properties", "metaqa_multilingual", "metaqa_kb"):
        folder = out / style
        folder.mkdir(parents=True, exist_ok=True)
        for variant, items in records.items():
            write_jsonl(folder / QUESTION_FILES[variant], items)
        kg = str(kb) if style == "metaqa_kb" else "kg.nt"
        meta = {"style": style, "kg": kg, "questions": {v: len(items) for v, items in records.items()},
                "question_files": {v: QUESTION_FILES[v] for v in records}, "seed": seed, "sample_per_hop": sample}
        (folder / "meta.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(style)
    return written


# --------------------------------------------------------------------------------------------- the runner


def kg_agent(*args: str) -> list[str]:
    """The ``kg-agent`` command of this interpreter's environment."""
    return [sys.executable, "-m", "kg_agent.cli", *args]


def _short(command: Sequence[str], out: Path) -> str:
    """A ``kg_agent(...)`` command as a user types it, the output folder as ``$OUT``."""
    return "kg-agent " + " ".join(command[3:]).replace(str(out), "$OUT")


def code_env(code: Path) -> dict[str, str]:
    """The environment that runs ``kg-agent`` from the checkout ``code`` (first on the path; run outside it), offline."""
    env = {k: v for k, v in os.environ.items() if k not in {"KG_AGENT_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"}}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(code), os.environ.get("PYTHONPATH", "")) if p)
    return env


def evaluate_backend(out: Path, style: str, backend: str, *, methods: Sequence[str], variants: Sequence[str], workers: int,
                     code: Path = ROOT) -> tuple[list[dict], list[str]]:
    """Every method over one style on one backend (Oxigraph: loaded first with ``kg-agent load``): the rows and the
    commands run."""
    folder = out / style
    env = code_env(code)
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    kg_file = Path(meta["kg"]) if Path(meta["kg"]).is_absolute() else folder / meta["kg"]
    files = [folder / meta["question_files"][v] for v in variants if v in meta["question_files"]]
    rows: list[dict] = []
    log: list[str] = []
    kg, load_seconds = str(kg_file), None
    if backend == "oxigraph":
        store = folder / "store"
        command = kg_agent("load", str(kg_file), "--store", str(store), "--overwrite")
        log.append(_short(command, out))
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, cwd=out, env=env)
        load_seconds = time.perf_counter() - start
        if done.returncode != 0:
            return [{"style": style, "backend": backend, "method": "-", "error": done.stderr.strip()[-300:]}], log
        kg = str(store)
    for method in methods:
        results = folder / "results" / f"{backend}-{method}.json"
        results.parent.mkdir(exist_ok=True)
        results.unlink(missing_ok=True)
        command = kg_agent("eval", "jsonl", *itertools.chain.from_iterable(("--questions", str(f)) for f in files), "--kg", kg,
                           "--method", method, "--model", "none", "--workers", str(workers), "--no-progress", "--out", str(results))
        log.append(_short(command, out))
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, cwd=out, env=env)
        seconds = time.perf_counter() - start
        row = {"style": style, "backend": backend, "method": method, "seconds": seconds, "load_seconds": load_seconds,
               "results": str(results.relative_to(out))}
        if done.returncode not in (0, 1) or not results.exists():
            row["error"] = (done.stderr.strip() or done.stdout.strip())[-300:]
        else:
            row.update(score_results(json.loads(results.read_text(encoding="utf-8"))))
        rows.append(row)
        print(format_row(row), file=sys.stderr, flush=True)
    return rows, log


def score_results(results: dict) -> dict:
    """Strict Hits@1 per question variant, and the wrong answers."""
    by_variant: dict[str, list[dict]] = defaultdict(list)
    for record in results.get("per_question") or []:
        by_variant[record["id"].split("/", 1)[0]].append(record)
    scores, wrong = {}, {}
    for variant, records in by_variant.items():
        hits = [r["scores"]["strict"]["hits_at_1"] for r in records]
        scores[variant] = {"n": len(records), "hits@1": 100 * sum(hits) / len(records)}
        wrong[variant] = [{"question": r["question"], "gold": r["gold"][:3], "predicted": r["predicted"][:3],
                           "stop_reason": r.get("stop_reason"), "error": r.get("error")}
                          for r in records if not r["scores"]["strict"]["hits_at_1"]]
    return {"scores": scores, "wrong": wrong}


def format_row(row: dict) -> str:
    if row.get("error"):
        return f"| {row['style']} | {row['backend']} | {row['method']} | error: {row['error'].splitlines()[-1][:120]} | | | |"
    scores = row["scores"]
    cells = [f"{scores[v]['hits@1']:.1f}" if v in scores else "-" for v in VARIANTS]
    n = max(s["n"] for s in scores.values())
    load = f"{row['load_seconds']:.0f} + " if row.get("load_seconds") is not None else ""
    return f"| {row['style']} | {row['backend']} | {row['method']} | {n} | " + " | ".join(cells) + f" | {load}{row['seconds']:.0f} |"


TABLE_HEADER = ("| style | backend | method | n | strict Hits@1 [bracketed] | plain (no brackets) | alias | seconds (load + eval) |\n"
                "|---|---|---|---:|---:|---:|---:|---:|")


def write_report(out: Path, rows: list[dict], log: list[str], examples: int) -> Path:
    made_by = " ".join(["python", "benchmarks/rdf_styles.py", *sys.argv[1:]]).replace(str(out), "$OUT")
    lines = ["# RDF styles: offline RoG, ToG, ToG-I per style and backend", "", f"`{made_by}` (OUT={out})", "", TABLE_HEADER]
    lines += [format_row(row) for row in rows]
    lines += ["", "## Commands", "", "```bash", *log, "```", "", "## Wrong answers (first per run, bracketed questions)", ""]
    for row in rows:
        wrong = (row.get("wrong") or {}).get("bracketed") or []
        if not wrong:
            continue
        lines.append(f"### {row['style']} / {row['backend']} / {row['method']}: {len(wrong)} wrong")
        for item in wrong[:examples]:
            predicted = ", ".join(item["predicted"]) or f"(nothing: {item['error'] or item['stop_reason']})"
            lines.append(f"- {item['question']} -> {predicted} (gold: {', '.join(item['gold'])})")
        lines.append("")
    path = out / "report.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(args: argparse.Namespace) -> int:
    out = Path(args.out).resolve()
    styles = [s for s in args.styles.split(",") if s]
    unknown = [s for s in styles if s not in STYLES]
    if unknown:
        raise SystemExit(f"rdf_styles: unknown style(s) {', '.join(unknown)}; expected some of {', '.join(STYLES)}")
    generate(out, styles=styles, seed=args.seed, films=args.films, people=args.people, per_template=args.per_template)
    if args.metaqa:
        styles += rewrite_metaqa(out, seed=args.seed, sample=args.metaqa_sample)
    rows, log = [], []
    started = time.perf_counter()
    print(TABLE_HEADER, file=sys.stderr)
    tasks = [(style, backend) for style in styles for backend in args.backends.split(",")]

    def task(item: tuple[str, str]) -> tuple[list[dict], list[str]]:
        return evaluate_backend(out, *item, methods=args.methods.split(","), variants=args.variants.split(","),
                                workers=args.workers, code=Path(args.code).resolve())

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for task_rows, task_log in pool.map(task, tasks):
            rows += task_rows
            log += task_log
    print(TABLE_HEADER)
    for row in rows:
        print(format_row(row))
    report = write_report(out, rows, log, args.examples)
    (out / "rows.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\n{len(rows)} runs in {time.perf_counter() - started:.0f} s; report: {report}")
    return 0 if all(not row.get("error") for row in rows) else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)

    def domain_options(p: argparse.ArgumentParser, films: int, people: int, per_template: int) -> None:
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--films", type=int, default=films)
        p.add_argument("--people", type=int, default=people)
        p.add_argument("--per-template", type=int, default=per_template,
                       help=f"topics per question template (default {per_template}; 4 for finer scores, twice the time)")

    g = commands.add_parser("generate", help="write the styles into a folder")
    g.add_argument("--out", required=True)
    g.add_argument("--styles", default=",".join(STYLES))
    domain_options(g, 40, 60, 2)
    m = commands.add_parser("metaqa", help="write MetaQA's KB rewritten, with sampled dev questions")
    m.add_argument("--out", required=True)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--metaqa-sample", type=int, default=100, help="questions per hop (1-hop and 2-hop)")
    f = commands.add_parser("fixtures", help=f"write the small styles for the tests into {FIXTURES.relative_to(ROOT)}")
    domain_options(f, 12, 20, 1)
    r = commands.add_parser("run", help="generate, load, evaluate and print the table")
    r.add_argument("--out", required=True, help="folder for the KGs, stores, results and report.md")
    r.add_argument("--styles", default=",".join(STYLES), help="comma-separated ('' for none)")
    r.add_argument("--metaqa", action="store_true", help="also the MetaQA rewrites and MetaQA's own kb.txt")
    r.add_argument("--metaqa-sample", type=int, default=100, help="MetaQA questions per hop (1-hop and 2-hop)")
    r.add_argument("--methods", default="rog,tog,tog-i", help="comma-separated kg-agent eval methods")
    r.add_argument("--backends", default="memory,oxigraph", help="memory (the file) and/or oxigraph (a kg-agent load store)")
    r.add_argument("--variants", default="bracketed,plain", help="question files: bracketed, plain, alias")
    r.add_argument("--workers", type=int, default=1, help="questions in parallel per eval")
    r.add_argument("--jobs", type=int, default=1, help="(style, backend) pairs evaluated at once, each one process at a time "
                   "(2 on an idle 2-core machine halves the time)")
    r.add_argument("--examples", type=int, default=4, help="wrong answers shown per run in report.md")
    r.add_argument("--code", default=str(ROOT), help="the kg-agent checkout to run (default: this one), e.g. an older commit "
                   "exported with `git archive`")
    domain_options(r, 40, 60, 2)
    args = parser.parse_args(argv)

    if args.command == "generate":
        for meta in generate(Path(args.out), styles=[s for s in args.styles.split(",") if s], seed=args.seed, films=args.films,
                             people=args.people, per_template=args.per_template):
            print(f"{args.out}/{meta['style']}: {meta['triples']} triples, questions {meta['questions']}")
        return 0
    if args.command == "metaqa":
        written = rewrite_metaqa(Path(args.out), seed=args.seed, sample=args.metaqa_sample)
        print("\n".join(f"{args.out}/{style}" for style in written))
        return 0 if written else 1
    if args.command == "fixtures":
        for meta in write_fixtures(FIXTURES, seed=args.seed, films=args.films, people=args.people, per_template=args.per_template):
            print(f"{FIXTURES.relative_to(ROOT)}/{meta['style']}: {meta['triples']} triples, questions {meta['questions']}")
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
