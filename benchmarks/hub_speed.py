"""Time per question on a DBpedia-shaped KG with hubs (issue 27, item 4): offline RoG, ToG and ToG-I, warm.

    python benchmarks/hub_speed.py [--methods rog,tog,tog-i] [--backends memory,oxigraph] [--people 1100] [--seed 0]
                                   [--out hub.json]

The KG is written as DBpedia publishes it (``dbr:`` resources with ``rdfs:label``@en, ``dbo:`` camelCase
relations with their ontology labels, ranges and domains): ``--people`` persons, every one ``dbo:birthPlace``
one of four countries (the largest, the United States, takes about 700 of 1,100: the hub of the issue, "an
entity with 700 triples of one relation"), with an occupation and sometimes a spouse; 240 films, each with a
director, three actors, a genre and ``dbo:country`` (the United States for about 60 %). It is written as Turtle and
loaded like a user's file: into memory (``load_kg``) and into an Oxigraph store (``build_oxigraph``); nothing is
downloaded.

The questions are plain (no brackets), one per template and topic, seeded: one-hop questions about a person
or a film (their walks from the topic reach the hub at the first or second step, so look-ahead and Algorithm 1
fan out over its 700 persons), two-hop ones through a person ("where was the director of <film> born", "what
films did the spouse of <person> act in"), and questions about the hub itself ("which films were made in the
United States"). Every method answers each question twice on the same KG, in one process: the first pass warms
the KG (relation names, kinds and classes) with other wording, the second ("warm", the question's text not seen
before in the process) is timed: wall and CPU time per question, mean, median and max, and strict Hits@1 of the
first answer.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from rdf_styles import ADJECTIVES, FIRST_NAMES, LAST_NAMES, NOUNS  # noqa: E402 (the styles' name lists)

COUNTRIES = (("United_States", "United States", 0.64), ("Canada", "Canada", 0.16), ("France", "France", 0.12),
             ("Japan", "Japan", 0.08))
OCCUPATIONS = ("Actor", "Screenwriter", "Film_producer", "Singer", "Painter", "Architect", "Novelist", "Composer")
GENRES = ("Drama", "Comedy", "Thriller", "Documentary", "Western", "Musical")
#: dbo properties with their ontology labels, domains and ranges (as mappings.dbpedia.org has them)
PROPERTIES = {
    "birthPlace": ("birth place", "Person", "Place"),
    "occupation": ("occupation", "Person", "PersonFunction"),
    "spouse": ("spouse", "Person", "Person"),
    "director": ("film director", "Film", "Person"),
    "starring": ("starring", "Work", "Actor"),
    "genre": ("genre", "Work", "Genre"),
    "country": ("country", "Film", "Country"),
}


def build(people: int, seed: int) -> tuple[str, list[dict]]:
    """The Turtle text and the questions (``question``, ``answers``) of the hub KG."""
    rng = random.Random(seed)
    names = [f"{first} {last}" for first in FIRST_NAMES for last in LAST_NAMES]
    rng.shuffle(names)
    names = names[:people]
    slug = {name: name.replace(" ", "_") for name in names}
    lines = ["@prefix dbr: <http://dbpedia.org/resource/> .", "@prefix dbo: <http://dbpedia.org/ontology/> .",
             "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .", ""]

    def label(node: str, text: str) -> None:
        lines.append(f'{node} rdfs:label "{text}"@en .')

    for prop, (text, domain, range_) in PROPERTIES.items():
        label(f"dbo:{prop}", text)
        lines.append(f"dbo:{prop} rdfs:domain dbo:{domain} ; rdfs:range dbo:{range_} .")
    for cls in sorted({c for _, d, r in PROPERTIES.values() for c in (d, r)}):
        label(f"dbo:{cls}", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", cls).lower())  # PersonFunction: "person function"
    for node, text, _ in COUNTRIES:
        label(f"dbr:{node}", text)
    for thing in (*OCCUPATIONS, *GENRES):
        label(f"dbr:{thing}", thing.replace("_", " "))

    born, spouse = {}, {}
    weights = [w for _, _, w in COUNTRIES]
    for name in names:
        node = f"dbr:{slug[name]}"
        label(node, name)
        lines.append(f"{node} a dbo:Person .")
        born[name] = rng.choices(COUNTRIES, weights)[0]
        lines.append(f"{node} dbo:birthPlace dbr:{born[name][0]} .")
        lines.append(f"{node} dbo:occupation dbr:{rng.choice(OCCUPATIONS)} .")
    for a, b in zip(names[0:people // 3:2], names[1:people // 3:2]):
        spouse[a], spouse[b] = b, a
        lines.append(f"dbr:{slug[a]} dbo:spouse dbr:{slug[b]} .")

    titles = [f"The {adjective[0]} {noun[0]}" for adjective in ADJECTIVES for noun in NOUNS]
    rng.shuffle(titles)
    films = []
    for n, title in enumerate(titles):
        node = f"dbr:Film_{n:03d}"
        label(node, title)
        director, *actors = rng.sample(names, 4)
        country = "United_States" if rng.random() < 0.6 else rng.choice(COUNTRIES[1:])[0]
        lines += [f"{node} a dbo:Film .", f"{node} dbo:director dbr:{slug[director]} .",
                  *(f"{node} dbo:starring dbr:{slug[a]} ." for a in actors),
                  f"{node} dbo:genre dbr:{rng.choice(GENRES)} .", f"{node} dbo:country dbr:{country} ."]
        films.append((title, director, actors, country))

    country_name = {node: text for node, text, _ in COUNTRIES}
    questions = []
    sample = rng.sample(films, 12)
    for title, director, actors, _country in sample[:4]:
        questions += [
            {"question": f"who directed {title}", "answers": [director]},
            {"question": f"where was the director of {title} born", "answers": [born[director][1]]},
            {"question": f"who starred in {title}", "answers": actors},
        ]
    for title, _director, actors, country in sample[4:8]:
        films_of = [t for t, d, a, _ in films if actors[0] in a]
        questions += [
            {"question": f"where was {actors[0]} born", "answers": [born[actors[0]][1]]},
            {"question": f"which films did {actors[0]} star in", "answers": films_of},
            {"question": f"which country is {title} from", "answers": [country_name[country]]},
        ]
    married = [name for name in names if name in spouse and any(spouse[name] in a for _, _, a, _ in films)][:4]
    for name in married:
        questions.append({"question": f"what films did the spouse of {name} act in",
                          "answers": [t for t, _, a, _ in films if spouse[name] in a]})
    questions.append({"question": "which films were made in Canada",
                      "answers": [t for t, _, _, c in films if c == "Canada"]})
    questions.append({"question": "who was born in Japan", "answers": [n for n in names if born[n][0] == "Japan"]})
    return "\n".join(lines) + "\n", questions


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--methods", default="rog,tog,tog-i")
    parser.add_argument("--backends", default="memory,oxigraph")
    parser.add_argument("--people", type=int, default=1100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out")
    args = parser.parse_args(argv)

    from kg_agent.kg import build_oxigraph, load_kg, open_oxigraph

    text, questions = build(args.people, args.seed)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "hub.ttl"
        path.write_text(text, encoding="utf-8")
        for backend in args.backends.split(","):
            kg = load_kg(path) if backend == "memory" else open_oxigraph(build_oxigraph(path, Path(folder) / "store"))
            report = run(kg, questions, args.methods.split(","), backend)
            report["hub_birthplaces"] = text.count("dbo:birthPlace dbr:United_States .")
            if args.out:
                out = Path(args.out)
                out.with_name(f"{out.stem}_{backend}{out.suffix}").write_text(json.dumps(report, indent=1) + "\n",
                                                                             encoding="utf-8")
    return 0


def run(kg, questions: list[dict], methods: list[str], backend: str) -> dict:
    """Each method's times and Hits@1 over the questions on ``kg`` (a warm-up question first)."""
    from kg_agent.eval.metrics import hits_at_1
    from kg_agent.graphs.registry import create_graph

    report = {"backend": backend, "triples": len(kg), "questions": len(questions), "methods": {}}
    print(f"{backend}: {len(kg)} triples, {len(questions)} questions")
    for method in methods:
        options = {"planner": "similarity"} if method == "rog" else {}
        app = create_graph(method, kg, **options).compile()
        app.invoke({"question": "what is Canada known for"})  # the process and the KG warmed by another question
        wall, cpu, hits, rows = [], [], [], []
        for q in questions:
            wall0, cpu0 = time.perf_counter(), time.process_time()
            state = app.invoke({"question": q["question"]})
            wall.append(time.perf_counter() - wall0)
            cpu.append(time.process_time() - cpu0)
            predicted = [a.get("answer") if isinstance(a, dict) else a for a in state.get("answers") or []]
            hits.append(hits_at_1(predicted[:1], q["answers"]))
            rows.append({"question": q["question"], "predicted": predicted[:5], "seconds": wall[-1]})
        summary = {"wall_mean": statistics.mean(wall), "wall_median": statistics.median(wall), "wall_max": max(wall),
                   "cpu_mean": statistics.mean(cpu), "hits@1": 100 * statistics.mean(hits), "per_question": rows}
        report["methods"][method] = summary
        print(f"  {method}: wall mean {summary['wall_mean']:.3f} s, median {summary['wall_median']:.3f} s, max "
              f"{summary['wall_max']:.3f} s; CPU mean {summary['cpu_mean']:.3f} s; Hits@1 {summary['hits@1']:.1f}")
    return report


if __name__ == "__main__":
    sys.exit(main())
