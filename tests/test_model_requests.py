"""What a model built by ``resolve_chat_model`` sends, over real HTTP (tests/openai_server.py) and to the real
local model: the reply cap in the body in the field each server honours, the timeout, and every HTTP attempt
counted in ``usage`` and held inside the call budgets (no resend the SDK makes behind the counters)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

import pytest

from kg_agent.cli import main as cli_main
from kg_agent.graphs import create_rog_graph, create_tog_graph
from kg_agent.llm import LLMCallError, UsageTracker, call_llm_reply, resolve_chat_model
from kg_agent.llm.models import DEFAULT_MAX_TOKENS, ModelConfigurationError

try:
    from llm_responders import well_behaved
    from openai_server import OpenAICompatibleServer
except ImportError:  # tests/ imported as a package
    from tests.llm_responders import well_behaved
    from tests.openai_server import OpenAICompatibleServer

QUESTION = "who directed [Forrest Gump]"
ANSWER = "Robert Zemeckis"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAICompatibleServer]:
    """The test server, named by the environment as the CLI and ``resolve_chat_model`` read it."""
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)
    with OpenAICompatibleServer(responder=well_behaved(ANSWER), api_key="sk-test-local") as running:
        environment = {"OPENAI_BASE_URL": running.base_url, "OPENAI_API_KEY": running.api_key, "NO_PROXY": "127.0.0.1"}
        for variable, value in environment.items():
            monkeypatch.setenv(variable, value)
        yield running


def bodies(server: OpenAICompatibleServer) -> list[dict]:
    return [request.body for request in server.chat_requests]


# ------------------------------------------------------------------------------------------------ the reply cap
def test_reply_cap_is_sent_as_max_tokens_and_max_completion_tokens(server):
    model = resolve_chat_model("openai:test-model", max_tokens=7)
    call_llm_reply(model, "Who directed Big?", node="answer")
    [body] = bodies(server)
    # llama.cpp's server reads max_tokens only; OpenAI's current field is max_completion_tokens
    assert body["max_tokens"] == 7 and body["max_completion_tokens"] == 7


def test_default_reply_cap_and_no_cap(server):
    call_llm_reply(resolve_chat_model("openai:test-model"), "Big?", node="answer")
    call_llm_reply(resolve_chat_model("openai:test-model", max_tokens=None), "Big?", node="answer")
    capped, uncapped = bodies(server)
    assert capped["max_tokens"] == capped["max_completion_tokens"] == DEFAULT_MAX_TOKENS
    assert "max_tokens" not in uncapped and "max_completion_tokens" not in uncapped


def test_openai_itself_gets_max_completion_tokens_only(monkeypatch):
    for variable in ("OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(variable, raising=False)
    model = resolve_chat_model("openai:o3-mini", api_key="sk-x", max_tokens=9)
    # OpenAI's reasoning models refuse max_tokens: no extra body field is added for api.openai.com
    assert model.max_tokens == 9 and not model.extra_body


@pytest.mark.parametrize(("option", "value"), [("timeout", 0), ("max_tokens", 0), ("max_retries", -1)])
def test_bad_request_options_are_refused(option, value):
    with pytest.raises(ModelConfigurationError, match=option):
        resolve_chat_model("openai:test-model", api_key="sk-x", **{option: value})


def test_cli_flags_set_the_timeout_and_the_reply_cap(server, capsys):
    code = cli_main(["ask", QUESTION, "--model", "openai:test-model", "--timeout", "9", "--max-reply-tokens", "11"])
    assert code == 0 and ANSWER in capsys.readouterr().out
    assert bodies(server) and all(b["max_tokens"] == 11 == b["max_completion_tokens"] for b in bodies(server))


def test_langgraph_server_graphs_take_the_reply_cap_from_the_environment(server, monkeypatch):
    from kg_agent import server as langgraph_server

    for variable, value in {"KG_AGENT_MODEL": "openai:test-model", "KG_AGENT_MAX_REPLY_TOKENS": "13",
                            "KG_AGENT_TIMEOUT": "9"}.items():
        monkeypatch.setenv(variable, value)
    result = langgraph_server.build_graph("rog").invoke({"question": QUESTION})
    assert [a["answer"] for a in result["answers"]] == [ANSWER]
    assert bodies(server) and all(b["max_tokens"] == 13 for b in bodies(server))
    monkeypatch.setenv("KG_AGENT_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="KG_AGENT_TIMEOUT must be a number"):
        langgraph_server.build_graph("rog")


def test_timeout_gives_up_and_is_not_resent(server):
    server.fail_next(1, "timeout", delay=3.0)
    tracker = UsageTracker()
    with pytest.raises(LLMCallError, match="Timeout"):
        call_llm_reply(resolve_chat_model("openai:test-model", timeout=0.3, max_retries=2), "Big?", node="plan",
                       tracker=tracker)
    # a resend would queue behind the abandoned request on a single-slot server: none is made
    assert len(server.chat_requests) == 1 and tracker.as_dict()["errors"] == 1


# ------------------------------------------------------------------------------------------------ every attempt counted
def test_tog_counts_every_request_when_the_first_attempt_fails(kg, server):
    server.fail_next(1, "500", retry_after=0.01)
    result = create_tog_graph(kg, model=resolve_chat_model("openai:test-model", max_retries=1)).compile().invoke(
        {"question": QUESTION})
    assert result["answers"][0]["answer"] == ANSWER
    usage = result["usage"]
    assert usage["errors"] == 1 and usage["calls"] + usage["errors"] == len(server.chat_requests)
    assert sum(n["calls"] + n["errors"] for n in usage["by_node"].values()) == len(server.chat_requests)


@pytest.mark.parametrize("max_llm_calls", [1, 2])  # (the 3rd failure would trip the circuit breaker)
def test_resends_stay_inside_max_llm_calls(kg, server, max_llm_calls):
    server.fail_next(1000, "500", retry_after=0.01)
    model = resolve_chat_model("openai:test-model", max_retries=5)
    result = create_rog_graph(kg, model=model, max_llm_calls=max_llm_calls).compile().invoke({"question": QUESTION})
    assert result["answers"]  # the offline deciders answered
    usage = result["usage"]
    assert usage["calls"] + usage["errors"] == len(server.chat_requests) == max_llm_calls
    assert any("budget" in w for w in result["warnings"])


# ------------------------------------------------------------------------------------------------ the real model
@pytest.mark.real_llm
@pytest.mark.server
def test_real_model_reply_is_cut_at_the_cap(local_server, monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    model = resolve_chat_model("openai:smollm2", base_url=local_server.base_url, api_key="sk-local", max_tokens=5)
    message = model.invoke("Write a long story about a dragon who learns to cook.")
    assert message.usage_metadata["output_tokens"] == 5
    assert message.response_metadata["finish_reason"] == "length"


# ------------------------------------------------------------------------------------------------ the CLI summary
GARBAGE_REPLY = "I am a small model and I like films."


def test_cli_summary_attributes_every_decision_to_the_fallback_when_the_model_gives_garbage(server, capsys):
    server.responder = lambda prompt: GARBAGE_REPLY
    question = "who starred in films directed by [Robert Zemeckis]"
    assert cli_main(["ask", question, "--method", "tog", "--model", "openai:test-model"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    # tokens were spent (the calls were made) ...
    calls = len(server.chat_requests)
    assert f"LLM: {calls} calls, " in out
    # ... but every decision came from the offline fallback, per node
    fallbacks: Counter[str] = Counter()
    for line in lines:
        if fell_back := re.match(r"Note: (\w+): fell back to .*?(?:  \(x(\d+)\))?$", line):
            fallbacks[fell_back.group(1)] += int(fell_back.group(2) or 1)
    assert set(fallbacks) == {"prune_relations", "prune_entities", "verify"}
    assert f"Decisions: 0 by the model, {sum(fallbacks.values())} by the offline fallback (no decision came from the model)" in lines
    for node, count in fallbacks.items():
        assert f"  {node}: 0 by the model, {count} by the fallback" in lines
    # each note printed once, with how often it was made
    notes = [line for line in lines if line.startswith("Note: ")]
    assert len(notes) == len(set(notes))
    assert f"Note: prune_relations: attempt 1 gave no usable reply (reply: {GARBAGE_REPLY!r})  (x4)" in lines


def test_cli_summary_counts_the_models_decisions(server, capsys):
    assert cli_main(["ask", QUESTION, "--method", "tog", "--model", "openai:test-model"]) == 0
    lines = capsys.readouterr().out.splitlines()
    calls = len(server.chat_requests)
    assert f"Decisions: {calls} by the model, 0 by the offline fallback" in lines
    assert "  prune_relations: 1 by the model, 0 by the fallback" in lines
    assert not [line for line in lines if line.startswith("Note: ")]
