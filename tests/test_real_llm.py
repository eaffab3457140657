"""Every method against a real chat model: SmolLM2-135M-Instruct served by llama.cpp (tests/local_llm.py).

The model is weak, so these tests check what must hold whatever it replies: the run completes; every decider
either used the model's reply or recorded why it fell back to its offline twin; the tokens kg-agent counts are the
tokens the server reported. Skipped with the reason when the local model is not installed
(``scripts/install_local_llm.sh`` installs it; CI does).
"""

from __future__ import annotations

import re

import httpx
import pytest

from kg_agent.graphs import create_rog_graph, create_tog2_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import open_kg, sample_documents_path

try:
    from local_llm import MODEL_ALIAS, LocalLlamaServer, UsageCountingTransport
except ImportError:  # tests/ imported as a package
    from tests.local_llm import MODEL_ALIAS, LocalLlamaServer, UsageCountingTransport

pytestmark = [pytest.mark.real_llm, pytest.mark.server]

QUESTION = "who directed [Forrest Gump]"
#: Replies are capped so a rambling model cannot stall a test (llama.cpp reads ``max_tokens``, not
#: ``max_completion_tokens``, which langchain-openai sends for ``max_tokens=``).
MAX_REPLY_TOKENS = 128


#: Seconds per request: generous, the model shares two cores with everything else running.
REQUEST_TIMEOUT = 600


def counted_chat_model(server: LocalLlamaServer, *, max_tokens: int = MAX_REPLY_TOKENS, **options):
    """ChatOpenAI on the local server, its replies capped, no SDK resends, and a transport counting the server's usage."""
    from langchain_openai import ChatOpenAI

    transport = UsageCountingTransport()
    model = ChatOpenAI(
        base_url=server.base_url, api_key="sk-local", model=MODEL_ALIAS, temperature=0, timeout=REQUEST_TIMEOUT,
        max_retries=0, extra_body={"max_tokens": max_tokens},
        http_client=httpx.Client(transport=transport, timeout=REQUEST_TIMEOUT), **options,
    )
    return model, transport


@pytest.fixture
def counted_model(local_server: LocalLlamaServer):
    return counted_chat_model(local_server)


@pytest.fixture
def short_counted_model(local_server: LocalLlamaServer):
    """Replies capped at 48 tokens, for the tests that make several calls."""
    return counted_chat_model(local_server, max_tokens=48)


@pytest.fixture(scope="module")
def kg():
    return open_kg()


def _fallback_reasons(warnings: list[str]) -> dict[str, list[str]]:
    """Node -> the warnings it wrote before or with a "fell back" warning."""
    by_node: dict[str, list[str]] = {}
    for warning in warnings:
        match = re.match(r"([a-z_0-9]+): ", warning)
        if match:
            by_node.setdefault(match.group(1), []).append(warning)
    return by_node


FACTORIES = {
    "rog": lambda kg, model: create_rog_graph(kg, model=model),
    "tog": lambda kg, model: create_tog_graph(kg, model=model, depth=2),
    "tog-i": lambda kg, model: create_tog_i_graph(kg, model=model, depth=2),
    "tog2": lambda kg, model: create_tog2_graph(kg, model=model, documents=sample_documents_path(), depth=1),
}


def assert_usage_is_the_servers(usage: dict, transport: UsageCountingTransport) -> None:
    """Every HTTP request the client sent is a counted call, and the tokens are the server's own numbers."""
    assert transport.requests > 0
    assert usage["calls"] == transport.requests
    assert usage["estimated_calls"] == 0
    assert usage["prompt_tokens"] == transport.prompt_tokens
    assert usage["completion_tokens"] == transport.completion_tokens


def assert_fallbacks_explained(warnings: list[str]) -> None:
    """A decider that fell back to its offline twin said why (the reply it could not use, or the error)."""
    for node, node_warnings in _fallback_reasons(warnings).items():
        fell_back = [w for w in node_warnings if "fell back" in w]
        if fell_back:
            reasons = [w for w in node_warnings if "fell back" not in w]
            assert reasons or any("because" in w or "(" in w for w in fell_back), (node, node_warnings)


def assert_run_accounted(result: dict, transport: UsageCountingTransport) -> None:
    """What must hold after any method run against the real model, whatever it replied."""
    assert result.get("stop_reason"), "the run must say why it stopped"
    assert isinstance(result.get("answers"), list)
    assert_usage_is_the_servers(result["usage"], transport)
    assert_fallbacks_explained(result.get("warnings") or [])
    # Each answer says whether a retrieved path or chunk supports it.
    for answer in result["answers"]:
        assert isinstance(answer.get("grounded"), bool)


@pytest.mark.parametrize("method", list(FACTORIES))
def test_method_completes_with_counted_usage_and_explained_fallbacks(method, kg, counted_model):
    model, transport = counted_model
    result = FACTORIES[method](kg, model).compile().invoke({"question": QUESTION})

    assert_run_accounted(result, transport)


def test_with_rog_context_asks_the_model_once_with_the_paths(kg, short_counted_model):
    """RoG's offline planner and retrieval in front of the real model: one request, the server's usage on the reply."""
    from kg_agent.graphs import with_rog_context

    model, transport = short_counted_model
    reply = with_rog_context(model, kg, max_prompt_paths=5).invoke(QUESTION)

    assert isinstance(reply.content, str)
    assert transport.requests == 1
    assert reply.usage_metadata["input_tokens"] == transport.prompt_tokens
    assert reply.usage_metadata["output_tokens"] == transport.completion_tokens
    # the reasoning paths went into the prompt: far more than the question's own dozen tokens
    assert transport.prompt_tokens > 50


def test_kg_tools_deciders_parse_or_explain_their_fallback(kg, short_counted_model):
    """The deciding tools with the real model: each returns its result, decided by the model or by the offline twin
    with the reason in its warnings; the model's usage is the server's."""
    from langchain_core.callbacks import get_usage_metadata_callback

    from kg_agent.tools import kg_tools

    model, transport = short_counted_model
    tools = {tool.name: tool for tool in kg_tools(kg, model=model)}
    with get_usage_metadata_callback() as usage:
        planned = tools["plan"].invoke({"question": QUESTION})
        paths = tools["retrieve"].invoke({"question": QUESTION, "relations": ["directed_by"]})["paths"]
        pruned = tools["prune_relations"].invoke({"question": QUESTION, "entity": "Forrest Gump", "width": 2})
        verified = tools["verify"].invoke({"question": QUESTION, "paths": paths})
        answered = tools["answer"].invoke({"question": QUESTION, "paths": paths})

    assert planned["plans"], planned
    if any(plan["planner"] != "llm" for plan in planned["plans"]):
        assert any(w.startswith("plan: ") for w in planned.get("warnings", [])), planned
    assert pruned["relations"], pruned
    assert isinstance(verified["sufficient"], bool)
    assert answered["answers"], answered
    for result in (planned, pruned, verified, answered):
        assert_fallbacks_explained(result.get("warnings", []))
    reported = list(usage.usage_metadata.values())
    assert transport.requests >= 4  # at least one request per deciding tool
    assert sum(u["input_tokens"] for u in reported) == transport.prompt_tokens
    assert sum(u["output_tokens"] for u in reported) == transport.completion_tokens


def test_streaming_updates_reports_each_node_and_counts_usage(kg, short_counted_model):
    model, transport = short_counted_model
    app = create_rog_graph(kg, model=model).compile()
    nodes: list[str] = []
    final: dict = {}
    for mode, chunk in app.stream({"question": QUESTION}, stream_mode=["updates", "values"]):
        if mode == "updates":
            nodes.extend(chunk)
        else:
            final = chunk

    assert {"plan", "retrieve", "answer"} <= set(nodes)
    assert_run_accounted(final, transport)


def test_streaming_messages_counts_every_request_and_flags_unreported_tokens(kg, local_server):
    """``stream_mode="messages"`` makes the model stream; llama.cpp's server reports no usage for a streamed reply
    (it ignores ``stream_options``), so those calls must be counted and flagged as estimates, never passed off as
    the server's numbers. Calls that were not streamed carry the server's exact tokens."""
    model, transport = counted_chat_model(local_server, max_tokens=48, stream_usage=True)
    app = create_rog_graph(kg, model=model).compile()
    streamed_nodes: set[str] = set()
    final: dict = {}
    for mode, chunk in app.stream({"question": QUESTION}, stream_mode=["messages", "values"]):
        if mode == "messages":
            message, metadata = chunk
            assert isinstance(message.content, str)
            streamed_nodes.add(metadata["langgraph_node"])
        else:
            final = chunk

    assert final.get("stop_reason")
    usage = final["usage"]
    assert usage["calls"] == transport.requests > 0
    assert usage["estimated_calls"] == transport.unreported
    if transport.unreported == 0:
        assert_usage_is_the_servers(usage, transport)
    assert_fallbacks_explained(final.get("warnings") or [])
    assert streamed_nodes <= {"plan", "answer"}
