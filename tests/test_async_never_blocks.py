"""Under ``ainvoke`` (what ``langgraph dev`` and LangGraph Platform run) no method blocks the event loop.

LangGraph's server rejects a blocking call made on its event loop (it runs ``blockbuster``): a SPARQL request
there failed every question over an endpoint with "Blocking call to socket.socket.connect". The steps' own work
(SPARQL requests, embeddings, document search) now runs in worker threads (``arun_steps``). Here the same
detector LangGraph's server uses watches the loop while each method answers over a real SPARQL endpoint
(``tests/sparql_server.py``, the sample KG) with a scripted chat model, so model calls are asked too, and eight
questions asked at once answer as they do one after another. How free the loop stays is measured by
``benchmarks/bench_serving_concurrency.py`` (docs/benchmarks.md), not asserted here.
"""

from __future__ import annotations

import asyncio

import pytest
from blockbuster import BlockBuster

from kg_agent.graphs.registry import METHODS, create_graph
from kg_agent.kg import open_kg, open_sparql
from kg_agent.llm import ScriptedChatModel
from tests.sparql_server import SparqlServer, store_from_graph

QUESTIONS = ["who directed [Big]", "what films did [Tom Hanks] star in", "who wrote [Forrest Gump]",
             "what genre is [Catch Me If You Can]", "which films share the director of [Big]",
             "what language is [Cast Away] in", "when was [The Terminal] released", "who starred in [Splash]"]


@pytest.fixture(scope="module")
def endpoint():
    with SparqlServer(store_from_graph(open_kg().graph)) as server:
        yield server


@pytest.fixture
def watched_loop():
    """Every blocking call (socket, file, sleep, ...) made on the event loop raises, as under ``langgraph dev``."""
    blockbuster = BlockBuster(excluded_modules=[])
    blockbuster.activate()
    try:
        yield
    finally:
        blockbuster.deactivate()


def graph(method: str, kg, *, model=None):
    return create_graph(method, kg, model=model).compile()


@pytest.mark.parametrize("method", METHODS)
def test_no_method_blocks_the_event_loop_over_an_endpoint(endpoint, method, watched_loop):
    kg = open_sparql(endpoint.url, timeout=30)
    offline, with_model = graph(method, kg), graph(method, kg, model=ScriptedChatModel(responder=lambda _: "I do not know"))

    async def ask():
        return [await app.ainvoke({"question": "who directed [Big]"}) for app in (offline, with_model)]

    for result in asyncio.run(ask()):
        assert "Penny Marshall" in [a["answer"] for a in result["answers"]], result.get("warnings")
    assert kg.request_count() > 0  # the work reached the endpoint, from worker threads


def test_eight_concurrent_questions_over_an_endpoint_answer_as_one_after_another(endpoint, watched_loop):
    """Steps of different questions now interleave in worker threads: the answers must not change."""
    kg = open_sparql(endpoint.url, timeout=30, cache_size=16)  # a small cache: the threads evict each other's entries
    app = graph("tog", kg)

    async def concurrently():
        return await asyncio.gather(*(app.ainvoke({"question": q}) for q in QUESTIONS))

    async def sequentially():
        return [await app.ainvoke({"question": q}) for q in QUESTIONS]

    answers = [[[a["answer"] for a in r["answers"]] for r in results] for results in (asyncio.run(concurrently()),
                                                                                         asyncio.run(sequentially()))]
    assert answers[0] == answers[1] and all(answers[0])


def test_finding_what_a_chat_server_constrains_never_blocks_the_event_loop(endpoint, watched_loop):
    """Under ``structured_output="auto"`` the first decision asks an OpenAI-compatible server once what it constrains
    (``GET /v1/models``, a blocking request): under ``ainvoke`` that happens in a worker thread, so ToG with a chat
    model on llama.cpp's server answers behind ``langgraph dev`` instead of failing on its blocking-call check."""
    from kg_agent.tools.shared.decider import _endpoint_modes
    from tests.openai_server import OpenAICompatibleServer
    from tests.test_structured_deciders import ANSWER, QUESTION, chat, structured_reply, well_behaved

    _endpoint_modes.clear()  # as in a fresh server process
    with OpenAICompatibleServer(responder=well_behaved(), structured_responder=structured_reply, dialect="llama.cpp") as server:
        result = asyncio.run(graph("tog", open_kg(), model=chat(server)).ainvoke({"question": QUESTION}))
        probes = [r for r in server.requests if r.path.endswith("/models")]
    assert [a["answer"] for a in result["answers"]][:1] == [ANSWER], result.get("warnings")
    assert len(probes) == 1 and result["usage"]["by_node"]["prune_relations"]["modes"] == {"json_object_schema": 1}
