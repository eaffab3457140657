"""The real OpenAI path: resolve_chat_model -> langchain-openai -> openai SDK -> HTTP -> local server."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from kg_agent.llm import (
    LLMCallError,
    ModelConfigurationError,
    ScriptedChatModel,
    UsageTracker,
    acall_llm,
    call_llm,
    call_llm_reply,
    default_model_from_env,
    describe_chat_model,
    resolve_chat_model,
)
from kg_agent.llm.usage import model_resends

try:
    from openai_server import OpenAICompatibleServer
except ImportError:  # tests/ imported as a package
    from tests.openai_server import OpenAICompatibleServer

API_KEY = "sk-test-local"


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for variable in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_API_KEY", "KG_AGENT_MODEL",
                     "LANGSMITH_GATEWAY", "LANGSMITH_GATEWAY_API_KEY", "OPENAI_ORG_ID", "OPENAI_ORGANIZATION"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    return monkeypatch


@pytest.fixture
def server(clean_env: pytest.MonkeyPatch) -> Iterator[OpenAICompatibleServer]:
    def responder(prompt: str) -> str:
        return "Tom Hanks" if "Big" in prompt else "I don't know"

    with OpenAICompatibleServer(responder=responder, api_key=API_KEY) as running:
        clean_env.setenv("OPENAI_BASE_URL", running.base_url)
        clean_env.setenv("OPENAI_API_KEY", API_KEY)
        yield running


def _free_closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# ------------------------------------------------------------------------------------------
# resolve_chat_model
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", [None, "none", "None", "offline", "  ", ""])
def test_offline_specs_give_none(spec: str | None) -> None:
    assert resolve_chat_model(spec) is None


def test_chat_model_passes_through() -> None:
    model = ScriptedChatModel(["x"])
    assert resolve_chat_model(model) is model


def test_missing_key_is_a_clear_error(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelConfigurationError, match="set OPENAI_API_KEY or pass --model none"):
        resolve_chat_model("openai:gpt-4o-mini")
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        resolve_chat_model("gpt-4o-mini")


def test_unknown_provider_is_a_clear_error(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="unknown model|cannot create chat model"):
        resolve_chat_model("nosuchprovider:some-model")
    with pytest.raises(ValueError):
        resolve_chat_model(42)  # type: ignore[arg-type]


def test_openai_settings_and_base_url_from_env(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("OPENAI_API_KEY", "sk-x")
    clean_env.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    model = resolve_chat_model("openai:my-model", temperature=0.3, timeout=7.0, max_retries=5)
    assert model is not None
    assert model.model_name == "my-model" and model.temperature == 0.3  # type: ignore[attr-defined]
    assert model.request_timeout == 7.0  # type: ignore[attr-defined]
    # the SDK resends nothing; call_llm makes the 5 resends, each one counted
    assert model.max_retries == 0 and model_resends(model) == 5  # type: ignore[attr-defined]
    assert model.openai_api_base == "http://127.0.0.1:9/v1"  # type: ignore[attr-defined]
    assert str(model.root_client.base_url).startswith("http://127.0.0.1:9/v1")  # type: ignore[attr-defined]
    assert describe_chat_model(model) == "openai:my-model"
    bare = resolve_chat_model("gpt-4o-mini")
    assert bare is not None and bare.model_name == "gpt-4o-mini"  # type: ignore[attr-defined]
    clean_env.delenv("OPENAI_BASE_URL")
    clean_env.setenv("OPENAI_API_BASE", "http://127.0.0.1:10/v1")
    assert resolve_chat_model("openai:m").openai_api_base == "http://127.0.0.1:10/v1"  # type: ignore[union-attr]


def test_default_model_from_env(clean_env: pytest.MonkeyPatch) -> None:
    assert default_model_from_env() is None
    clean_env.setenv("OPENAI_API_KEY", "sk-x")
    assert default_model_from_env() is None  # a key alone names no model: offline
    clean_env.setenv("KG_AGENT_MODEL", "gpt-4.1-nano")
    assert default_model_from_env() == "gpt-4.1-nano"  # as written, read as --model reads it
    clean_env.setenv("KG_AGENT_MODEL", "openai:local-llama")
    assert default_model_from_env() == "openai:local-llama"
    clean_env.setenv("KG_AGENT_MODEL", "none")
    assert default_model_from_env() is None
    clean_env.delenv("OPENAI_API_KEY")
    clean_env.setenv("KG_AGENT_MODEL", "openai:local-llama")
    assert default_model_from_env() == "openai:local-llama"  # named: its missing key is then a clear error


# ------------------------------------------------------------------------------------------
# Through the real client
# ------------------------------------------------------------------------------------------


def test_invoke_returns_text_and_server_usage(server: OpenAICompatibleServer) -> None:
    model = resolve_chat_model("openai:test-model", timeout=5.0, max_retries=0)
    tracker = UsageTracker()
    prompt = [SystemMessage("Answer briefly."), HumanMessage("Who starred in Big?")]
    reply = call_llm_reply(model, prompt, node="answer", tracker=tracker)
    assert reply.text == "Tom Hanks"
    # the server counts words: 2 + 4 prompt words, 2 completion words (not the len//4 estimate)
    assert (reply.prompt_tokens, reply.completion_tokens, reply.estimated) == (6, 2, False)
    assert tracker.as_dict()["by_node"]["answer"] == {
        "calls": 1, "errors": 0, "estimated_calls": 0, "cached_calls": 0, "prompt_tokens": 6, "completion_tokens": 2, "total_tokens": 8,
    }
    (request,) = server.chat_requests
    assert request.headers.get("authorization") == f"Bearer {API_KEY}"
    assert request.body is not None and request.body["model"] == "test-model"
    assert request.body["temperature"] == 0.0
    assert [m["role"] for m in request.body["messages"]] == ["system", "user"]


def test_async_invoke(server: OpenAICompatibleServer) -> None:
    model = resolve_chat_model("openai:test-model", timeout=5.0, max_retries=0)
    tracker = UsageTracker()
    assert asyncio.run(acall_llm(model, "Who starred in Big?", node="answer", tracker=tracker)) == "Tom Hanks"
    assert tracker.as_dict()["prompt_tokens"] == 4


def test_streaming(server: OpenAICompatibleServer) -> None:
    model = resolve_chat_model("openai:test-model", timeout=5.0, max_retries=0)
    chunks = list(model.stream("Who starred in Big?", stream_usage=True))  # type: ignore[union-attr]
    assert "".join(str(chunk.content) for chunk in chunks) == "Tom Hanks"
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert total.usage_metadata is not None and total.usage_metadata["output_tokens"] == 2
    assert server.chat_requests[-1].body["stream"] is True  # type: ignore[index]


def test_rate_limit_is_resent_and_counted(server: OpenAICompatibleServer) -> None:
    model = resolve_chat_model("openai:test-model", timeout=5.0, max_retries=2)
    server.fail_next(1, "429", retry_after=0.01)
    tracker = UsageTracker()
    started = time.monotonic()
    assert call_llm(model, "Who starred in Big?", node="answer", tracker=tracker) == "Tom Hanks"
    assert time.monotonic() - started < 3.0
    assert len(server.chat_requests) == 2  # one 429, one success
    assert tracker.as_dict()["calls"] == 1 and tracker.as_dict()["errors"] == 1  # both requests counted


def test_server_error_then_success_and_exhausted_retries(server: OpenAICompatibleServer) -> None:
    model = resolve_chat_model("openai:test-model", timeout=5.0, max_retries=1)
    server.fail_next(1, "500")
    assert call_llm(model, "Big?", node="answer") == "Tom Hanks"
    server.fail_next(2, "429", retry_after=0.01)
    tracker = UsageTracker()
    with pytest.raises(LLMCallError, match=r"node 'answer'.*openai:test-model.*RateLimit") as info:
        call_llm(model, "Big?", node="answer", tracker=tracker)
    assert info.value.__cause__ is not None
    assert tracker.as_dict()["errors"] == 2  # the request and its resend


def test_timeout_raises_within_the_timeout(server: OpenAICompatibleServer) -> None:
    model = resolve_chat_model("openai:test-model", timeout=0.3, max_retries=0)
    server.fail_next(1, "timeout", delay=3.0)
    started = time.monotonic()
    with pytest.raises(LLMCallError, match="Timeout|timed out"):
        call_llm(model, "Big?", node="answer")
    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize("mode", ["truncated", "non_json"])
def test_broken_replies_raise_clear_errors(server: OpenAICompatibleServer, mode: str) -> None:
    model = resolve_chat_model("openai:test-model", timeout=2.0, max_retries=0)
    server.fail_next(1, mode)
    with pytest.raises(LLMCallError, match="node 'answer'"):
        call_llm(model, "Big?", node="answer")


def test_wrong_api_key_is_reported(server: OpenAICompatibleServer, clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("OPENAI_API_KEY", "sk-wrong")
    model = resolve_chat_model("openai:test-model", timeout=2.0, max_retries=0)
    with pytest.raises(LLMCallError, match="AuthenticationError|401"):
        call_llm(model, "Big?", node="answer")


def test_dead_endpoint_raises_clear_error_quickly(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("OPENAI_API_KEY", API_KEY)
    clean_env.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{_free_closed_port()}/v1")
    model = resolve_chat_model("openai:test-model", timeout=2.0, max_retries=0)
    started = time.monotonic()
    with pytest.raises(LLMCallError, match="Connection"):
        call_llm(model, "anything", node="plan")
    assert time.monotonic() - started < 2.0


def test_server_scripted_queue_and_models_route(server: OpenAICompatibleServer) -> None:
    import json
    import urllib.request

    server.add_responses("<PATH> starred_actors </PATH>", "Meg Ryan")
    model = resolve_chat_model("openai:test-model", timeout=5.0, max_retries=0)
    assert call_llm(model, "plan", node="plan") == "<PATH> starred_actors </PATH>"
    assert call_llm(model, "answer", node="answer") == "Meg Ryan"
    assert call_llm(model, "Big", node="answer") == "Tom Hanks"  # queue empty -> responder
    request = urllib.request.Request(f"{server.base_url}/models", headers={"Authorization": f"Bearer {API_KEY}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        assert json.load(response)["data"][0]["id"] == "test-model"
