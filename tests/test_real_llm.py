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


@pytest.fixture
def counted_model(local_server: LocalLlamaServer):
    from langchain_openai import ChatOpenAI

    transport = UsageCountingTransport()
    model = ChatOpenAI(
        base_url=local_server.base_url, api_key="sk-local", model=MODEL_ALIAS, temperature=0, timeout=120,
        max_retries=0, extra_body={"max_tokens": MAX_REPLY_TOKENS},
        http_client=httpx.Client(transport=transport, timeout=120),
    )
    return model, transport


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


@pytest.mark.parametrize("method", list(FACTORIES))
def test_method_completes_with_counted_usage_and_explained_fallbacks(method, kg, counted_model):
    model, transport = counted_model
    result = FACTORIES[method](kg, model).compile().invoke({"question": QUESTION})

    assert result.get("stop_reason"), "the run must say why it stopped"
    assert isinstance(result.get("answers"), list)
    usage = result["usage"]
    # Every HTTP request the client sent is a counted call, and the tokens are the server's own numbers.
    assert transport.requests > 0
    assert usage["calls"] == transport.requests
    assert usage["estimated_calls"] == 0
    assert usage["prompt_tokens"] == transport.prompt_tokens
    assert usage["completion_tokens"] == transport.completion_tokens
    # A decider that fell back to its offline twin said why (the reply it could not use, or the error).
    notes = _fallback_reasons(result.get("warnings") or [])
    for node, warnings in notes.items():
        fell_back = [w for w in warnings if "fell back" in w]
        if fell_back:
            reasons = [w for w in warnings if "fell back" not in w]
            assert reasons or any("because" in w or "(" in w for w in fell_back), (node, warnings)
    # Each answer says whether a retrieved path or chunk supports it.
    for answer in result["answers"]:
        assert isinstance(answer.get("grounded"), bool)
