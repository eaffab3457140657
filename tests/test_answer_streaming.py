"""Token streaming for chat apps: with ``stream_mode="messages"`` an app gets the answering model's tokens only.

The deciders' calls (plan, prune, verify, examine...) are tagged ``nostream`` by kg_agent.llm.usage, so LangGraph
does not stream them; the answer node's call is streamed. A real ``ChatOpenAI`` talks HTTP to
tests/openai_server.py, which streams ``chat.completion.chunk`` events and a usage chunk; the usage counted while
streaming is what the server reported, not an estimate."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from langchain_core.messages import AIMessageChunk

from kg_agent.graphs import create_rog_graph, create_tog_graph
from kg_agent.llm import resolve_chat_model

try:
    from llm_responders import prompt_node, well_behaved
    from openai_server import OpenAICompatibleServer, count_words
except ImportError:  # tests/ imported as a package
    from tests.llm_responders import prompt_node, well_behaved
    from tests.openai_server import OpenAICompatibleServer, count_words

QUESTION = "who directed [Forrest Gump]"
ANSWER_REPLY = "Based on the given knowledge triplets, the director is Robert Zemeckis. So the answer is {Robert Zemeckis}."


def unverifying(prompt: str) -> str:
    """ToG's deciders as a real model would answer them, except that the verifier never finds the chains
    sufficient: ToG explores to its depth and the answer node asks the model."""
    if prompt_node(prompt) == "verify":
        return "{No}. The triplets are not enough."
    if prompt_node(prompt) == "answer":
        return ANSWER_REPLY
    return well_behaved()(prompt)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAICompatibleServer]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with OpenAICompatibleServer(responder=unverifying) as running:
        yield running


def model_for(server: OpenAICompatibleServer):
    return resolve_chat_model("openai:test-model", base_url=server.base_url, api_key="sk-test")


def split_stream(stream) -> tuple[list[tuple[AIMessageChunk, dict]], dict]:
    """The ``messages`` chunks with their metadata, and the final state (the last ``values``)."""
    messages, final = [], {}
    for mode, chunk in stream:
        if mode == "messages":
            messages.append(chunk)
        else:
            final = chunk
    return messages, final


def assert_usage_is_what_the_server_reported(usage: dict, server: OpenAICompatibleServer, replies: list[str]) -> None:
    requests = server.chat_requests
    assert usage["calls"] == len(requests) and usage["estimated_calls"] == 0
    assert usage["prompt_tokens"] == sum(count_words(r.prompt_text) for r in requests)
    assert usage["completion_tokens"] == sum(count_words(reply) for reply in replies)
    assert all(r.body["stream"] is True and r.body["stream_options"] == {"include_usage": True} for r in requests)


def test_tog_streams_the_answer_nodes_tokens_only(kg, server):
    app = create_tog_graph(kg, model=model_for(server), depth=1).compile()
    messages, final = split_stream(app.stream({"question": QUESTION}, stream_mode=["messages", "values"]))
    nodes = {node for node, counts in final["usage"]["by_node"].items() if counts["calls"]}
    assert nodes == {"prune_relations", "verify", "answer"}  # the deciders called the model (one director: no entity call) ...
    # ... and the app saw the answering model's tokens only
    assert messages and {metadata["langgraph_node"] for _, metadata in messages} == {"answer"}
    assert "".join(str(chunk.content) for chunk, _ in messages) == ANSWER_REPLY
    assert [a["answer"] for a in final["answers"]] == ["Robert Zemeckis"]
    replies = [unverifying(r.prompt_text) for r in server.chat_requests]
    assert_usage_is_what_the_server_reported(final["usage"], server, replies)


def test_rog_streams_the_answer_only_async(kg, server):
    server.responder = well_behaved()
    app = create_rog_graph(kg, model=model_for(server)).compile()

    async def run():
        return [item async for item in app.astream({"question": QUESTION}, stream_mode=["messages", "values"])]

    messages, final = split_stream(asyncio.run(run()))
    assert final["usage"]["by_node"]["plan"]["calls"] == 1 and final["plans"][0]["source"] == "llm"
    assert {metadata["langgraph_node"] for _, metadata in messages} == {"answer"}
    assert "".join(str(chunk.content) for chunk, _ in messages) == '["Robert Zemeckis"]'
    replies = [well_behaved()(r.prompt_text) for r in server.chat_requests]
    assert_usage_is_what_the_server_reported(final["usage"], server, replies)


@pytest.mark.real_llm
@pytest.mark.server
def test_real_model_streams_the_answer_only(kg, local_server, monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    model = resolve_chat_model("openai:smollm2", base_url=local_server.base_url, api_key="sk-local", timeout=180,
                               max_tokens=48)
    app = create_rog_graph(kg, model=model, planner="llm").compile()
    messages, final = split_stream(app.stream({"question": QUESTION}, stream_mode=["messages", "values"]))
    usage = final["usage"]
    assert usage["by_node"]["plan"]["calls"] >= 1 and usage["by_node"]["answer"]["calls"] >= 1, final["warnings"]
    assert messages and {metadata["langgraph_node"] for _, metadata in messages} == {"answer"}
    # llama-cpp-python's server ignores stream_options.include_usage: its streams carry no usage, so every
    # streamed call is counted and flagged as an estimate (never passed off as reported)
    assert usage["estimated_calls"] == usage["calls"] > 0
