"""Native async and concurrent LLM calls (issue 14, Deliver 2), over HTTP against the local OpenAI-compatible server.

Each graph node is written once as steps (kg_agent.steps); ``invoke`` runs a step's independent
calls in a bounded thread pool, ``ainvoke`` with the model's async calls. With a deterministic model the
results must not depend on ``max_concurrency`` or on sync/async, and the call budget must hold exactly.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from langchain_openai import ChatOpenAI

from kg_agent.graphs import create_graph
from kg_agent.kg import open_kg
from tests.llm_responders import explorer
from tests.openai_server import OpenAICompatibleServer

QUESTION = "who starred in films directed by [Robert Zemeckis]"
OPTIONS = {
    "rog": {},
    "tog": {"width": 3, "depth": 2},
    "tog-i": {"max_instructions": 2, "depth": 2},
    "tog2": {"width": 2, "depth": 2},
}


@pytest.fixture(scope="module")
def kg():
    return open_kg()


@pytest.fixture()
def server():
    seen_threads: list[str] = []
    respond = explorer()

    def responder(prompt: str) -> str:
        seen_threads.extend(t.name for t in threading.enumerate())
        return respond(prompt)

    with OpenAICompatibleServer(responder=responder, latency=0.05) as running:
        running.seen_threads = seen_threads
        yield running


def chat_model(server: OpenAICompatibleServer) -> ChatOpenAI:
    return ChatOpenAI(base_url=server.base_url, api_key="test", model="test-model", temperature=0, max_retries=0)


def outcome(result: dict) -> tuple:
    """Everything a caller sees of a run, token counts included (the server counts words: deterministic)."""
    answers = tuple((a["answer"], a.get("grounded"), tuple(p["text"] for p in a.get("paths") or [])) for a in result["answers"])
    chains = tuple((c.get("text") or c.get("entity", {}).get("label"), c.get("score")) for c in result.get("chains") or [])
    usage = result["usage"]
    return (answers, chains, result.get("output"), result.get("stop_reason"), tuple(result["warnings"]),
            usage["calls"], usage["errors"], usage["total_tokens"])


def run(kg, server, method: str, *, max_concurrency: int, use_async: bool = False, **options) -> dict:
    app = create_graph(method, kg, model=chat_model(server), max_concurrency=max_concurrency,
                       **{**OPTIONS[method], **options}).compile()
    server.max_in_flight = 0
    if use_async:
        return asyncio.run(app.ainvoke({"question": QUESTION}))
    return app.invoke({"question": QUESTION})


@pytest.mark.parametrize("method", ["rog", "tog", "tog-i", "tog2"])
def test_concurrent_and_async_runs_give_the_sequential_answers(kg, server, method):
    sequential = run(kg, server, method, max_concurrency=1)
    assert server.max_in_flight == 1
    concurrent = run(kg, server, method, max_concurrency=4)
    overlapped = server.max_in_flight
    native = run(kg, server, method, max_concurrency=4, use_async=True)
    assert sequential["answers"] and sequential["usage"]["calls"] >= 2
    assert outcome(concurrent) == outcome(sequential)
    assert outcome(native) == outcome(sequential)
    if method in {"tog", "tog-i"}:  # several chains per depth: their calls overlap on the server
        assert overlapped > 1 and server.max_in_flight > 1


def test_the_async_path_uses_no_worker_thread_of_its_own(kg, server):
    run(kg, server, "tog", max_concurrency=4)
    assert any(name.startswith("kg-agent-decide") for name in server.seen_threads)  # invoke: the bounded pool
    server.seen_threads.clear()
    run(kg, server, "tog", max_concurrency=4, use_async=True)
    assert server.max_in_flight > 1
    assert not any(name.startswith("kg-agent-decide") for name in server.seen_threads)


def garbage_entity_scores(respond):
    """The explorer, except that every entity-scoring reply is unusable (so each scoring call is retried)."""

    def responder(prompt: str) -> str:
        return "I cannot say." if "Entites:" in prompt else respond(prompt)

    return responder


@pytest.mark.parametrize("use_async", [False, True])
@pytest.mark.parametrize("limit", [2, 4, 6])
def test_the_call_budget_holds_exactly_under_concurrency(kg, limit, use_async):
    with OpenAICompatibleServer(responder=garbage_entity_scores(explorer()), latency=0.05) as server:
        app = create_graph("tog", kg, model=chat_model(server), max_concurrency=4, max_llm_calls=limit,
                           width=3, depth=3).compile()
        question = {"question": QUESTION}
        result = asyncio.run(app.ainvoke(question)) if use_async else app.invoke(question)
        made = len(server.chat_requests)
    assert made <= limit
    assert result["usage"]["calls"] + result["usage"]["errors"] == made
    assert any("budget" in w for w in result["warnings"])
    assert result["answers"]  # the offline deciders finished the question
