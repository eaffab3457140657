"""Concurrency: 8 threads answering 200 questions against ONE KnowledgeGraph (RoG, offline) — and ToG-2
against ONE DocumentIndex of the sample plots — give exactly the answers of a sequential run.

The concurrent run goes first, on cold caches (a fresh KG, graph and planner), so the threads race to fill
the label index, the linker's token index, the planner's embedding cache and the KG's neighbourhoods."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest

from kg_agent.graphs import create_rog_graph, create_tog2_graph
from kg_agent.kg import open_kg, sample_documents_path
from kg_agent.tools.tog2.documents import open_document_index

THREADS = 8
TEMPLATES = (
    ("directed_by", "who directed [{}]"),
    ("^starred_actors", "what films did [{}] act in"),
    ("release_year", "when was [{}] released"),
    ("^directed_by", "who starred in films directed by [{}]"),
    ("written_by", "who wrote [{}]"),
    ("has_genre", "what genre is [{}]"),
)


def sample_questions(kg, count: int) -> list[str]:
    """``count`` questions from the sample KG's entities, round-robin over the templates (deterministic)."""
    per_template: list[list[str]] = []
    for relation, template in TEMPLATES:
        heads = sorted({kg.label(e) for e in kg.entity_ids() if kg.neighbors(e, relation)})
        per_template.append([template.format(label) for label in heads if "[" not in label and "]" not in label])
    questions: list[str] = []
    position = 0
    while len(questions) < count:
        for candidates in per_template:
            if position < len(candidates) and len(questions) < count:
                questions.append(candidates[position])
        position += 1
    return questions


def signature(result: dict) -> tuple:
    """Everything a user sees of an answer: answers (ids, scores, grounding, paths), plans, stop reason, warnings."""
    answers = tuple((a["answer"], a.get("entity_id"), a.get("score"), a.get("grounded"),
                     tuple(p["text"] for p in a.get("paths") or []),
                     tuple(c.get("id") or c.get("text") for c in a.get("chunks") or []))
                    for a in result.get("answers") or [])
    plans = tuple(p["text"] for p in result.get("plans") or [])
    paths = tuple(p["text"] for p in result.get("paths") or [])
    return answers, plans, paths, result.get("stop_reason"), tuple(result.get("warnings") or [])


def run_concurrently(app, questions: list[str]) -> list[tuple]:
    start = Barrier(THREADS)

    def warm_start(_):
        start.wait()  # every thread begins at once, on cold caches

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        list(pool.map(warm_start, range(THREADS)))
        return list(pool.map(lambda q: signature(app.invoke({"question": q})), questions))


@pytest.fixture(scope="module")
def questions() -> list[str]:
    qs = sample_questions(open_kg(), 200)
    assert len(qs) == len(set(qs)) == 200
    return qs


def test_rog_200_questions_8_threads_equal_sequential(questions):
    kg = open_kg()
    concurrent = run_concurrently(create_rog_graph(kg).compile(), questions)

    fresh = open_kg()
    app = create_rog_graph(fresh).compile()
    sequential = [signature(app.invoke({"question": q})) for q in questions]

    assert sum(1 for s in sequential if s[0]) >= 150, "most questions have answers"
    mismatches = [(q, c, s) for q, c, s in zip(questions, concurrent, sequential) if c != s]
    assert not mismatches, mismatches[:3]
    # and again on the now warm KG and graph
    assert run_concurrently(app, questions) == sequential


def test_tog2_questions_8_threads_one_document_index_equal_sequential(questions):
    kg = open_kg()
    index = open_document_index(kg, sample_documents_path())
    subset = [q for q in questions if q.startswith(("who directed", "when was", "who wrote"))][:40]
    concurrent = run_concurrently(create_tog2_graph(kg, documents=index).compile(), subset)
    app = create_tog2_graph(kg, documents=index).compile()
    sequential = [signature(app.invoke({"question": q})) for q in subset]
    assert sum(1 for s in sequential if s[0]) >= 30
    mismatches = [(q, c, s) for q, c, s in zip(subset, concurrent, sequential) if c != s]
    assert not mismatches, mismatches[:3]


@pytest.fixture(scope="module")
def oxigraph_store(tmp_path_factory):
    from kg_agent.kg import build_oxigraph, sample_kg_path

    return build_oxigraph(sample_kg_path(), tmp_path_factory.mktemp("oxigraph") / "store")


@pytest.mark.parametrize("backend", ["oxigraph", "sparql"])
def test_rog_on_lazy_backends_with_a_small_cache_8_threads_equal_sequential(questions, oxigraph_store, backend):
    """The disk and remote backends cache neighbourhoods and labels in a bounded LRU: with room for 40
    entities the threads evict each other's entries all the time."""
    from kg_agent.kg import open_oxigraph, open_sparql

    try:
        from sparql_server import SparqlServer, store_from_graph
    except ImportError:  # tests/ imported as a package
        from tests.sparql_server import SparqlServer, store_from_graph

    subset = questions[:120]
    memory = open_kg()
    app = create_rog_graph(memory).compile()
    expected = [signature(app.invoke({"question": q})) for q in subset]
    if backend == "oxigraph":
        kg = open_oxigraph(oxigraph_store, cache_size=40)
        concurrent = run_concurrently(create_rog_graph(kg).compile(), subset)
    else:
        with SparqlServer(store_from_graph(memory.graph)) as server:
            kg = open_sparql(server.url, cache_size=40, timeout=30)
            concurrent = run_concurrently(create_rog_graph(kg).compile(), subset)
    mismatches = [(q, c, s) for q, c, s in zip(subset, concurrent, expected) if c != s]
    assert not mismatches, mismatches[:3]
    assert kg.cache_info()["entities"] <= 40
