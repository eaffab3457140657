"""The optional persistent SPARQL cache (``open_sparql(url, cache_path=...)``, ``--kg-cache``): a second run
over the same cache file answers without sending a single query to the endpoint (tests/sparql_server.py, a
real SPARQL endpoint that records every query it receives)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from kg_agent.eval import Question
from kg_agent.eval.runner import evaluate, load_results
from kg_agent.graphs import create_rog_graph
from kg_agent.kg import KGError, entity_iri, open_kg, open_sparql

try:
    from sparql_server import SparqlServer, store_from_graph
except ImportError:  # tests/ imported as a package
    from tests.sparql_server import SparqlServer, store_from_graph

E = lambda name: str(entity_iri(name))  # noqa: E731
QUESTION = "who directed the films that [Tom Hanks] starred in"
QUESTIONS = [
    ("who directed [Forrest Gump]", "Forrest Gump", ["Robert Zemeckis"]),
    ("who directed [Big]", "Big", ["Penny Marshall"]),
    ("who directed [Cast Away]", "Cast Away", ["Robert Zemeckis"]),
]


@pytest.fixture(scope="module")
def memory(kg):
    return kg  # the bundled sample movie KG, in memory


@pytest.fixture()
def server(memory):
    with SparqlServer(store_from_graph(memory.graph)) as srv:
        yield srv


def _rog(kg) -> dict:
    return create_rog_graph(kg).compile().invoke({"question": QUESTION})


def _answers(state: dict) -> list:
    return [(a["answer"], a["paths"]) for a in state["answers"]]


def test_second_graph_on_the_same_cache_answers_rog_offline(server, tmp_path):
    cache = tmp_path / "kg-cache.sqlite"
    with open_sparql(server.url, cache_path=cache) as first_kg:
        first = _rog(first_kg)
    assert first["answers"] and len(server.queries) > 0
    before = len(server.queries)
    with open_sparql(server.url, cache_path=cache) as second_kg:
        second = _rog(second_kg)
        assert second_kg.cache_info()["requests"] == 0
    assert len(server.queries) == before  # nothing reached the endpoint
    assert _answers(second) == _answers(first)
    assert second["paths"] == first["paths"]


def test_cached_views_equal_the_endpoint_and_memory(server, memory, tmp_path):
    cache = tmp_path / "kg-cache.sqlite"
    hanks, big = E("Tom Hanks"), E("Big")
    with open_sparql(server.url, cache_path=cache, batch_size=2) as kg:
        kg.prefetch([hanks, big, E("Forrest Gump")])  # batched path fills the file too
        kg.prefetch_labels([E("Penny Marshall"), E("no such entity")])
        relations = kg.relation_names()
    before = len(server.queries)
    with open_sparql(server.url, cache_path=cache) as kg:
        for entity in (hanks, big, E("Forrest Gump")):
            assert {r: list(v) for r, v in kg.edges(entity).items()} == dict(memory.edges(entity))
            assert kg.label(entity) == memory.label(entity)
        assert kg.label(E("Penny Marshall")) == "Penny Marshall"
        assert kg.label(E("no such entity"), default=None) is None  # "no label" is cached as well
        assert kg.relation_names() == relations == memory.relation_names()
        assert kg.relation_iri("directed_by") == memory.relation_iri("directed_by")
    assert len(server.queries) == before


def test_cache_is_keyed_by_endpoint_and_default_graph(server, tmp_path):
    cache = tmp_path / "kg-cache.sqlite"
    with open_sparql(server.url, cache_path=cache) as kg:
        assert kg.relations(E("Big"))
    before = len(server.queries)
    with open_sparql(server.url, cache_path=cache, default_graph="urn:x-other") as other:
        other.relations(E("Big"))  # another scope: asked again (the test server ignores default-graph-uri)
    asked = server.queries[before:]
    assert len([q for q in asked if "<https://kg-agent.dev/entity/Big>" in q]) == 1
    assert len(asked) == 3  # and the relations with their names, and the sample of text literals names are found in
    rows = sqlite3.connect(cache).execute("SELECT scope, kind, key, value FROM sparql_cache").fetchall()
    assert {scope for scope, *_ in rows} == {f"{server.url} ", f"{server.url} urn:x-other"}
    [(value,)] = [(v,) for scope, kind, key, v in rows if kind == "edges" and key == E("Big") and scope.endswith(" ")]
    assert "https://kg-agent.dev/relation/directed_by" in json.loads(value)  # JSON, relations by IRI


def _questions() -> list[Question]:
    return [Question(id=f"q{i}", question=text, answers=gold, topic_entities=[E(topic)])
            for i, (text, topic, gold) in enumerate(QUESTIONS)]


def _neighbourhood_queries(server) -> list[str]:
    return [q for q in server.queries if "UNION" in q]


def test_evaluate_rerun_sends_no_neighbourhood_queries(server, tmp_path):
    cache = tmp_path / "kg-cache.sqlite"
    first = evaluate(_questions(), method="rog", kg=open_sparql(server.url, cache_path=cache), progress=False)
    assert _neighbourhood_queries(server) and first["errors"] == 0
    before = len(server.queries)
    second = evaluate(_questions(), method="rog", kg=open_sparql(server.url, cache_path=cache), progress=False,
                      workers=3)
    assert len(server.queries) == before
    assert [r["predicted"] for r in second["per_question"]] == [r["predicted"] for r in first["per_question"]]


def test_cli_eval_kg_cache_flag(server, tmp_path):
    from kg_agent.cli import main

    file = tmp_path / "questions.jsonl"
    file.write_text("".join(json.dumps({"id": q.id, "question": q.question, "answers": q.answers,
                                        "topic_entities": q.topic_entities}) + "\n" for q in _questions()))
    cache = tmp_path / "cache" / "kg.sqlite"

    def run(out: str) -> dict:
        code = main(["eval", "jsonl", "--questions", str(file), "--kg", server.url, "--kg-cache", str(cache),
                     "--method", "rog", "--model", "none", "--no-progress", "--out", str(tmp_path / out)])
        assert code == 0
        return load_results(tmp_path / out)

    first = run("first.json")
    fetched = len(_neighbourhood_queries(server))
    assert fetched > 0 and cache.exists() and first["errors"] == 0
    second = run("second.json")
    assert len(_neighbourhood_queries(server)) == fetched
    assert [r["predicted"] for r in second["per_question"]] == [r["predicted"] for r in first["per_question"]]


def test_cli_ask_kg_cache_flag(server, tmp_path, capsys):
    from kg_agent.cli import main

    cache = tmp_path / "kg.sqlite"
    assert main(["ask", "who directed [Big]", "--kg", server.url, "--kg-cache", str(cache), "--model", "none"]) == 0
    before = len(server.queries)
    assert main(["ask", "who directed [Big]", "--kg", server.url, "--kg-cache", str(cache), "--model", "none"]) == 0
    assert len(server.queries) == before
    assert "Penny Marshall" in capsys.readouterr().out


def test_corrupt_cache_file_is_a_clear_error_and_left_alone(server, tmp_path):
    bad = tmp_path / "kg-cache.sqlite"
    junk = b"this is not a database" * 100
    bad.write_bytes(junk)
    with pytest.raises(KGError, match="is not a usable SPARQL cache .*delete it"):
        open_sparql(server.url, cache_path=bad)
    assert bad.read_bytes() == junk  # never deleted or rewritten behind the user's back
    assert server.queries == []


def test_cache_path_needs_an_endpoint(tmp_path):
    with pytest.raises(ValueError, match="not an http"):
        open_kg(None, cache_path=tmp_path / "kg.sqlite")
