"""ToG over a bound no end passes ("higher than 1500 feet", where the ends its judged path reaches are none of them
that high) stops without an answer instead of failing: before, comparing every end of the path indexed the first of
no ranked ends (IndexError, a traceback from ``kg-agent ask``). The KG is the report card's air-routes slice
(benchmarks/realkgs/air-routes-europe, committed; its names are under ``dtp:desc``, given as a label predicate as a
user would), the question its air-28."""

from __future__ import annotations

from pathlib import Path

from kg_agent.graphs import create_tog_graph
from kg_agent.kg import open_kg

KG = Path(__file__).resolve().parent.parent / "benchmarks" / "realkgs" / "air-routes-europe" / "air_routes_europe.nt"
DESC = "http://kelvinlawrence.net/air-routes/datatypeProperty/desc"


def test_tog_answers_nothing_rather_than_failing_when_no_end_passes_the_bound():
    kg = open_kg(KG, label_predicates=[DESC, "http://www.w3.org/2000/01/rdf-schema#label"])
    result = create_tog_graph(kg).compile().invoke({"question": "Which airports in Switzerland are higher than 1500 feet?"})
    # no traceback, and no airport below the bound is answered (the two above it are Bern and Gruyere)
    assert {a["answer"] for a in result["answers"]} <= {"Bern Belp Airport", "Gruyere Airport", "BRN", "GYZ"}
