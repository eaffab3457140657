"""A Wikidata-shaped KG at scale (issue 29): generate it, load it, and time offline kg-agent on its questions.

    python benchmarks/wikidata_scale.py generate --triples 2M --out /tmp/wd2m          # ~1 min
    python benchmarks/wikidata_scale.py load --out /tmp/wd2m                           # kg-agent load into an Oxigraph store
    python benchmarks/wikidata_scale.py run --out /tmp/wd2m --methods rog,tog          # one warm process per method

The KG is written as N-Triples, streamed (a 20M-triple file is never held in memory), seeded, in the shape a
Wikidata slice has:

* items ``wd:Q…`` with truthy claims ``wdt:P…``: films (instance of film, director, screenwriter, cast members,
  genres, original language, country of origin, publication date as ``xsd:dateTime``), people (instance of
  human, country of citizenship, place of birth), cities (country), countries, languages, genres, awards;
* the property entities ``wd:P…`` with labels in @en/@de/@fr, descriptions, aliases and ``wikibase:directClaim`` /
  ``claim`` / ``statementProperty`` / ``qualifier`` links (names from ``benchmarks/rdf_styles.py``);
* labels in @en/@de/@fr; a tenth of the films have no English label (only German and French titles);
  ``skos:altLabel`` aliases; ``schema:description`` strings on every item;
* awards only through statement nodes: ``person p:P166 statement``, ``statement ps:P166 award``,
  ``statement pq:P585 date``, ``statement rdf:type wikibase:Statement``;
* an instance-of class with about a million members at 20M triples (``wd:Q5``, human: every person).

Names are made from syllables by a bijection of the item's number, so every film title, German title, alias
and person name is unique and questions name their topic without brackets. Questions come from the KG's own
facts, 12 of each kind by default: ``one-hop`` (who directed / wrote / what genre / where was X born / what
language), ``two-hop`` (the directors of a person's films, the country a person was born in), ``statement``
(the award a person received), ``alias`` (a film asked by its alias) and ``non-english`` (a film with no English
label asked by its German title). Answers are the display labels kg-agent should show (English, else German).

``run`` answers every question offline (no model, zero-shot) in a fresh interpreter per method over the store:
the first question after opening it, then the others warm, and reports median / p90 seconds, Hits@1 (the first
answer is a gold one) per kind, the process's CPU seconds and Oxigraph SPARQL queries and pattern lookups per
question (median of the warm ones: what a busy machine's wall time hides) and the process's peak RSS. Numbers go to
docs/benchmarks.md with the command.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))

from benchmarks.rdf_styles import WikidataStyle  # noqa: E402  (the property entities' names)

WD, WDT, P, PS, PQ = (WikidataStyle.WD, WikidataStyle.WDT, WikidataStyle.P, WikidataStyle.PS, WikidataStyle.PQ)
WDS, WIKIBASE = WikidataStyle.WDS, WikidataStyle.WIKIBASE
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
ALT_LABEL = "http://www.w3.org/2004/02/skos/core#altLabel"
DESCRIPTION = "http://schema.org/description"
DATE_TIME = "http://www.w3.org/2001/XMLSchema#dateTime"

#: Properties beyond those of rdf_styles (id, English, German, French label, description, aliases).
MORE_PROPERTIES = (
    ("P27", "country of citizenship", "Staatsangehörigkeit", "pays de nationalité",
     "the object is a country that recognizes the subject as its citizen", ("citizenship", "nationality")),
    ("P495", "country of origin", "Ursprungsland", "pays d'origine", "country of origin of this item",
     ("origin country",)),
    ("P17", "country", "Staat", "pays", "sovereign state that this item is in", ("sovereign state",)),
)
PROPERTIES = WikidataStyle.PROPERTIES + MORE_PROPERTIES

SYLLABLES = ("ka", "lo", "mi", "ren", "ta", "vo", "shi", "ban", "del", "fi", "gor", "hu", "ja", "kel", "mar", "nor",
             "pa", "qui", "ros", "sa", "tor", "ul", "ve", "wen", "xa", "yo", "zan", "bri", "cor", "dun", "el", "fen",
             "gal", "har", "is", "jor", "kin", "lan", "mo", "nes")
FIRST_NAMES = ("Anna", "Boris", "Clara", "David", "Elena", "Felix", "Greta", "Hugo", "Ines", "Jonas", "Karin", "Luca",
               "Maria", "Nils", "Olga", "Pablo", "Quinn", "Rosa", "Stefan", "Tara", "Ugo", "Vera", "Walter", "Xenia",
               "Yusuf", "Zoe", "Amir", "Bea", "Carlos", "Dana", "Emil", "Frida", "Goran", "Hana", "Ivan", "Julia",
               "Kenji", "Lina", "Marco", "Nadia")
ADJECTIVES = (("Silent", "Stille", "Silencieux"), ("Broken", "Gebrochene", "Brisé"), ("Golden", "Goldene", "Doré"),
              ("Last", "Letzte", "Dernier"), ("Hidden", "Verborgene", "Caché"), ("Frozen", "Gefrorene", "Gelé"),
              ("Burning", "Brennende", "Brûlant"), ("Distant", "Ferne", "Lointain"), ("Crimson", "Purpurne", "Pourpre"),
              ("Wild", "Wilde", "Sauvage"), ("Endless", "Endlose", "Infini"), ("Secret", "Geheime", "Secret"))
GENRES = ("drama", "comedy", "thriller", "documentary", "western", "romance", "science fiction", "animation", "horror",
          "crime", "musical", "war", "adventure", "fantasy", "biography", "mystery", "family", "sport", "history",
          "noir")
LANGUAGES = ("English", "French", "German", "Spanish", "Italian", "Japanese", "Korean", "Hindi", "Portuguese",
             "Russian", "Swedish", "Danish", "Polish", "Czech", "Turkish", "Greek", "Dutch", "Finnish", "Norwegian",
             "Hungarian")
KINDS = ("one-hop", "two-hop", "statement", "alias", "non-english")


def word(number: int, syllables: int) -> str:
    """A pronounceable word made from ``number`` (a bijection for ``number < len(SYLLABLES) ** syllables``)."""
    parts = []
    for _ in range(syllables):
        number, digit = divmod(number, len(SYLLABLES))
        parts.append(SYLLABLES[digit])
    return "".join(parts).capitalize()


def scatter(index: int, size: int) -> int:
    """A permutation of ``range(size)`` (for a prime-free multiplier coprime with it), so neighbours differ."""
    multiplier = 2_654_435_761 % size or 1
    while _gcd(multiplier, size) != 1:
        multiplier += 1
    return (index * multiplier + 12345) % size


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


class Sizes:
    """How many items of each kind make about ``triples`` triples (about 24 triples a film, with its people)."""

    def __init__(self, triples: int) -> None:
        self.films = max(200, triples // 24)
        self.people = self.films * 3 // 2
        self.cities = max(50, self.people // 500)
        self.countries = 60
        self.awards = 40
        #: people's ids start above the films' (Q1000000 + films): Q5000000 up to 4M films (96M triples)
        self.person_base = max(5_000_000, -(-(1_000_000 + self.films) // 1_000_000) * 1_000_000)


class Writer:
    """N-Triples lines to a file, counted."""

    def __init__(self, path: Path) -> None:
        self.out = path.open("w", encoding="utf-8", buffering=1 << 20)
        self.count = 0

    def iri(self, s: str, p: str, o: str) -> None:
        self.out.write(f"<{s}> <{p}> <{o}> .\n")
        self.count += 1

    def text(self, s: str, p: str, text: str, lang: str) -> None:
        escaped = text.replace("\\", "\\\\").replace('"', '\\"')
        self.out.write(f'<{s}> <{p}> "{escaped}"@{lang} .\n')
        self.count += 1

    def typed(self, s: str, p: str, value: str, datatype: str) -> None:
        self.out.write(f'<{s}> <{p}> "{value}"^^<{datatype}> .\n')
        self.count += 1

    def close(self) -> None:
        self.out.close()


class Naming:
    """The names of every item, from its number alone (so questions need no second pass over the file)."""

    def __init__(self, sizes: Sizes) -> None:
        self.sizes = sizes
        self.word_space = len(SYLLABLES) ** 3  # 64,000 three-syllable words

    def film(self, index: int) -> dict[str, str]:
        """``en`` (absent for every tenth film), ``de``, ``fr`` titles and an ``alias``."""
        mixed = scatter(index, self.sizes.films)
        first, second = divmod(mixed, self.word_space)
        adjective = ADJECTIVES[(first + second) % len(ADJECTIVES)]
        noun = word(second, 3)
        extra = f" {word(first // len(ADJECTIVES), 2)}" if first >= len(ADJECTIVES) else ""
        names = {"de": f"Die {adjective[1]} {noun}{extra}", "fr": f"Le {noun}{extra} {adjective[2].lower()}",
                 "alias": f"{noun}{extra} ({adjective[0].lower()})"}
        if index % 10 != 3:
            names["en"] = f"The {adjective[0]} {noun}{extra}"
        return names

    def person(self, index: int) -> str:
        mixed = scatter(index, self.sizes.people)
        first, surname = divmod(mixed, self.word_space)
        given = FIRST_NAMES[(first + surname) % len(FIRST_NAMES)]
        middle = f" {word(first // len(FIRST_NAMES), 1)}." if first >= len(FIRST_NAMES) else ""
        return f"{given}{middle} {word(surname, 3)}"

    def city(self, index: int) -> str:
        return word(scatter(index, self.word_space), 3) + "burg"

    def country(self, index: int) -> str:
        return word(index * 37 % 1600, 2) + "ia"

    def award(self, index: int) -> str:
        return f"{word(index * 11 % 1600, 2)} Film Prize"

    def qid(self, kind: str, index: int) -> str:
        """Item ids by kind: films Q1000000+, people Q5000000+ (or the first million above the films when there are
        more than four million films), ... (Q5 human and Q11424 film are the classes)."""
        base = {"film": 1_000_000, "person": self.sizes.person_base, "city": 300_000, "country": 200_000,
                "award": 210_000, "genre": 220_000, "language": 230_000}[kind]
        return f"{WD}Q{base + index}"


def generate(out: Path, *, triples: int, seed: int = 0, per_kind: int = 12) -> dict:
    """Write ``out/kg.nt``, ``out/questions.jsonl`` and ``out/meta.json``; the meta record."""
    out.mkdir(parents=True, exist_ok=True)
    sizes, rng = Sizes(triples), random.Random(seed)
    names = Naming(sizes)
    w = Writer(out / "kg.nt")
    began = time.perf_counter()
    for pid, en, de, fr, description, aliases in PROPERTIES:
        prop = WD + pid
        w.iri(prop, RDF_TYPE, WIKIBASE + "Property")
        for lang, text in (("en", en), ("de", de), ("fr", fr)):
            w.text(prop, RDFS_LABEL, text, lang)
        w.text(prop, DESCRIPTION, description, "en")
        for alias in aliases:
            w.text(prop, ALT_LABEL, alias, "en")
        for link, namespace in (("directClaim", WDT), ("claim", P), ("statementProperty", PS), ("qualifier", PQ)):
            w.iri(prop, WIKIBASE + link, namespace + pid)

    def item(node: str, labels: dict[str, str], description: str, aliases=()) -> None:
        for lang in ("en", "de", "fr"):
            if lang in labels:
                w.text(node, RDFS_LABEL, labels[lang], lang)
        for alias in aliases:
            w.text(node, ALT_LABEL, alias, "en")
        w.text(node, DESCRIPTION, description, "en")

    human, film_class = WD + "Q5", WD + "Q11424"
    item(human, {"en": "human", "de": "Mensch", "fr": "être humain"}, "any member of Homo sapiens", ("person",))
    item(film_class, {"en": "film", "de": "Film", "fr": "film"}, "sequence of images that give the impression of movement",
         ("movie",))
    labels: dict[str, str] = {}  # the display label of every non-film, non-person item
    for index, genre in enumerate(GENRES):
        item(names.qid("genre", index), {"en": genre, "de": genre.capitalize(), "fr": genre}, "film genre")
        labels[names.qid("genre", index)] = genre
    for index, language in enumerate(LANGUAGES):
        item(names.qid("language", index), {"en": f"{language} language", "de": f"{language}e Sprache"}, "language")
        labels[names.qid("language", index)] = f"{language} language"
    for index in range(sizes.countries):
        name = names.country(index)
        item(names.qid("country", index), {"en": name, "de": name, "fr": name}, "sovereign state")
        labels[names.qid("country", index)] = name
    for index in range(sizes.awards):
        name = names.award(index)
        item(names.qid("award", index), {"en": name, "de": name}, "film award")
        labels[names.qid("award", index)] = name
    city_country = [rng.randrange(sizes.countries) for _ in range(sizes.cities)]
    for index in range(sizes.cities):
        name = names.city(index)
        item(names.qid("city", index), {"en": name, "de": name, "fr": name}, "city")
        w.iri(names.qid("city", index), WDT + "P17", names.qid("country", city_country[index]))
        labels[names.qid("city", index)] = name

    # people: citizenship, birthplace, awards by statements; the facts questions need are kept for a sample
    sample_people = set(rng.sample(range(sizes.people), min(sizes.people, 40 * per_kind)))
    person_facts: dict[int, dict] = {}
    for index in range(sizes.people):
        node, name = names.qid("person", index), names.person(index)
        item(node, {"en": name, "de": name}, "film professional", (f"{name.split()[-1]}, {name.split()[0]}",)
             if index % 5 == 0 else ())
        w.iri(node, WDT + "P31", human)
        birthplace = rng.randrange(sizes.cities)
        w.iri(node, WDT + "P19", names.qid("city", birthplace))
        w.iri(node, WDT + "P27", names.qid("country", city_country[birthplace]))
        awards = []
        if index % 5 == 1:
            award, year = rng.randrange(sizes.awards), rng.randrange(1950, 2024)
            statement = f"{WDS}Q{sizes.person_base + index}-P166-{award}"
            w.iri(node, P + "P166", statement)
            w.iri(statement, RDF_TYPE, WIKIBASE + "Statement")
            w.iri(statement, PS + "P166", names.qid("award", award))
            w.typed(statement, PQ + "P585", f"{year}-01-01T00:00:00Z", DATE_TIME)
            awards.append(award)
        if index in sample_people:
            person_facts[index] = {"birthplace": birthplace, "awards": awards, "films": []}

    # films: a director, a screenwriter, three cast members (people drawn with a popular few), genres, language
    sample_films = set(rng.sample(range(sizes.films), min(sizes.films, 40 * per_kind)))
    film_facts: dict[int, dict] = {}

    def someone() -> int:
        return rng.randrange(sizes.people // 20) if rng.random() < 0.3 else rng.randrange(sizes.people)

    for index in range(sizes.films):
        node, titles = names.qid("film", index), names.film(index)
        year = rng.randrange(1920, 2025)
        item(node, {lang: titles[lang] for lang in ("en", "de", "fr") if lang in titles}, f"{year} film",
             (titles["alias"],) if index % 3 == 0 else ())
        w.iri(node, WDT + "P31", film_class)
        director, writer, cast = someone(), someone(), {someone() for _ in range(3)}
        genres = sorted({rng.randrange(len(GENRES)) for _ in range(rng.choice((1, 1, 2)))})
        language, country = rng.randrange(len(LANGUAGES)), rng.randrange(sizes.countries)
        w.iri(node, WDT + "P57", names.qid("person", director))
        w.iri(node, WDT + "P58", names.qid("person", writer))
        for actor in sorted(cast):
            w.iri(node, WDT + "P161", names.qid("person", actor))
            if actor in person_facts:
                person_facts[actor]["films"].append((index, director, language))
        for genre in genres:
            w.iri(node, WDT + "P136", names.qid("genre", genre))
        w.iri(node, WDT + "P364", names.qid("language", language))
        w.iri(node, WDT + "P495", names.qid("country", country))
        w.typed(node, WDT + "P577", f"{year}-01-01T00:00:00Z", DATE_TIME)
        if index in sample_films:
            film_facts[index] = {"titles": titles, "director": director, "writer": writer, "genres": genres,
                                 "language": language}
    w.close()
    generated = time.perf_counter() - began

    def person_label(index: int) -> str:
        return names.person(index)

    questions: list[dict] = []

    def add(kind: str, question: str, answers: list[str], relations: list[str]) -> None:
        questions.append({"id": f"{kind}-{sum(q['kind'] == kind for q in questions)}", "kind": kind,
                          "question": question, "answers": sorted(set(answers)), "relations": relations})

    films = sorted(film_facts)
    english = [f for f in films if "en" in film_facts[f]["titles"]]
    one_hop = [
        lambda f: (f"who directed {film_facts[f]['titles']['en']}", [person_label(film_facts[f]["director"])], ["P57"]),
        lambda f: (f"who wrote the screenplay of {film_facts[f]['titles']['en']}", [person_label(film_facts[f]["writer"])],
                   ["P58"]),
        lambda f: (f"what genre is {film_facts[f]['titles']['en']}", [GENRES[g] for g in film_facts[f]["genres"]], ["P136"]),
        lambda f: (f"what language is {film_facts[f]['titles']['en']} in",
                   [labels[names.qid("language", film_facts[f]["language"])]], ["P364"]),
    ]
    for n in range(per_kind):
        add("one-hop", *one_hop[n % len(one_hop)](english[n]))
    people = sorted(person_facts)
    with_films = [p for p in people if person_facts[p]["films"]]
    for n in range(per_kind):
        if n % 2 == 0 and with_films:
            p = with_films[n // 2 % len(with_films)]
            add("two-hop", f"who directed the films starring {person_label(p)}",
                [person_label(d) for _, d, _ in person_facts[p]["films"]], ["^P161", "P57"])
        else:
            p = people[n]
            add("two-hop", f"which country was {person_label(p)} born in",
                [labels[names.qid("country", city_country[person_facts[p]["birthplace"]])]], ["P19", "P17"])
    awarded = [p for p in people if person_facts[p]["awards"]]
    for p in awarded[:per_kind]:
        add("statement", f"what award did {person_label(p)} receive",
            [labels[names.qid("award", a)] for a in person_facts[p]["awards"]], ["P166", "P166 statement"])
    aliased = [f for f in films if f % 3 == 0]
    for f in aliased[:per_kind]:
        add("alias", f"who directed {film_facts[f]['titles']['alias']}", [person_label(film_facts[f]["director"])], ["P57"])
    german = [f for f in films if "en" not in film_facts[f]["titles"]]
    for f in german[:per_kind]:
        add("non-english", f"who directed {film_facts[f]['titles']['de']}", [person_label(film_facts[f]["director"])],
            ["P57"])
    with (out / "questions.jsonl").open("w", encoding="utf-8") as handle:
        for record in questions:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    meta = {"triples": w.count, "seed": seed, "films": sizes.films, "people": sizes.people, "cities": sizes.cities,
            "questions": len(questions), "generate_s": round(generated, 1)}
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


def max_rss_mb(children: bool = False) -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
    return usage.ru_maxrss / 1024


def load(out: Path) -> dict:
    """``kg-agent load`` of ``out/kg.nt`` into ``out/store`` (replacing a store built before); wall time, rate, RSS."""
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "kg_agent.cli", "load", str(out / "kg.nt"), "--store",
                           str(out / "store"), "--overwrite"], capture_output=True, text=True, cwd=PROJECT)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    triples = json.loads((out / "meta.json").read_text())["triples"]
    record = {"load_s": round(seconds, 1), "triples_per_s": round(triples / seconds),
              "peak_rss_mb": round(max_rss_mb(children=True)), "output": done.stdout.strip()}
    print(json.dumps(record, indent=1))
    return record


WORKER = r'''
import json, resource, sys, time
began = time.perf_counter()
from kg_agent.graphs.registry import create_graph
from kg_agent.kg import open_oxigraph
store, method, path = sys.argv[1:4]
questions = [json.loads(line) for line in open(path, encoding="utf-8")]
kg = open_oxigraph(store)


class Counted:
    """The Oxigraph store with its SPARQL queries and pattern lookups counted."""

    def __init__(self, inner):
        self.inner, self.queries, self.lookups = inner, 0, 0

    def query(self, *args, **kwargs):
        self.queries += 1
        return self.inner.query(*args, **kwargs)

    def quads_for_pattern(self, *args, **kwargs):
        self.lookups += 1
        return self.inner.quads_for_pattern(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.inner, name)


counted = kg.store.store = Counted(kg.store.store)
app = create_graph(method, kg).compile()
opened = time.perf_counter() - began
for record in questions:
    start, cpu, queries, lookups = time.perf_counter(), time.process_time(), counted.queries, counted.lookups
    result = app.invoke({"question": record["question"]})
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    answers = [a["answer"] for a in result.get("answers") or []]
    print(json.dumps({"id": record["id"], "kind": record["kind"], "seconds": seconds, "cpu_s": cpu, "answers": answers[:5],
                      "queries": counted.queries - queries, "lookups": counted.lookups - lookups,
                      "topics": [e.get("label") for e in result.get("topic_entities") or []],
                      "plan": [p.get("text") for p in (result.get("plans") or [])[:1]] or [c.get("text") for c in (result.get("chains") or [])[:1]],
                      "hit": bool(answers) and answers[0].casefold() in {a.casefold() for a in record["answers"]}}), flush=True)
print(json.dumps({"opened_s": opened, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}), flush=True)
'''


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def run(out: Path, methods: list[str], *, limit: int | None = None) -> dict:
    """Each method in a fresh interpreter over ``out/store``: per question seconds and hit, then a summary."""
    questions = [json.loads(line) for line in (out / "questions.jsonl").open(encoding="utf-8")][:limit]
    path = out / "questions.run.jsonl"
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), encoding="utf-8")
    summary = {}
    for method in methods:
        done = subprocess.run([sys.executable, "-c", WORKER, str(out / "store"), method, str(path)], capture_output=True,
                              text=True, cwd=PROJECT)
        if done.returncode != 0:
            raise SystemExit(done.stderr[-3000:])
        rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        answered, tail = rows[:-1], rows[-1]
        warm = [r["seconds"] for r in answered[1:]]
        per_kind = {kind: round(100 * statistics.mean(r["hit"] for r in answered if r["kind"] == kind), 1)
                    for kind in KINDS if any(r["kind"] == kind for r in answered)}
        summary[method] = {"questions": len(answered), "first_s": round(answered[0]["seconds"], 2),
                           "opened_s": round(tail["opened_s"], 2),
                           "warm_median_s": round(statistics.median(warm), 3), "warm_p90_s": round(percentile(warm, 0.9), 3),
                           "warm_median_cpu_s": round(statistics.median(r["cpu_s"] for r in answered[1:]), 3),
                           "warm_p90_cpu_s": round(percentile([r["cpu_s"] for r in answered[1:]], 0.9), 3),
                           "warm_median_queries": statistics.median(r["queries"] for r in answered[1:]),
                           "warm_median_lookups": statistics.median(r["lookups"] for r in answered[1:]),
                           "hits_at_1": round(100 * statistics.mean(r["hit"] for r in answered), 1), "per_kind": per_kind,
                           "rss_mb": round(tail["rss_mb"])}
        (out / f"answers.{method}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in answered),
                                                    encoding="utf-8")
        print(json.dumps({method: summary[method]}, indent=1), flush=True)
    return summary


def parse_size(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1:], 1)
    return round(float(text[:-1] if scale != 1 else text) * scale)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--triples", default="2M")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--per-kind", type=int, default=12)
    g.add_argument("--out", type=Path, required=True)
    ld = sub.add_parser("load")
    ld.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--methods", default="rog")
    r.add_argument("--limit", type=int, default=None)
    args = parser.parse_args(argv)
    if args.command == "generate":
        print(json.dumps(generate(args.out, triples=parse_size(args.triples), seed=args.seed, per_kind=args.per_kind),
                         indent=1))
    elif args.command == "load":
        load(args.out)
    else:
        run(args.out, [m.strip() for m in args.methods.split(",") if m.strip()], limit=args.limit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
