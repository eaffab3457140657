"""LLM faults end to end: RoG and ToG graphs with a real ``ChatOpenAI`` talking HTTP to the local
OpenAI-compatible test server, made to fail on purpose (429, 5xx, timeouts, broken HTTP replies,
cut-off or non-JSON model output). The graphs retry where the client does, then fall back to their
offline deciders; the result says why in ``warnings`` and counts the failed calls in ``usage``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph
from kg_agent.llm import resolve_chat_model
from kg_agent.tools.tog.prune_entities import SimilarityEntityScorer
from kg_agent.tools.tog.prune_relations import SimilarityRelationPruner

try:
    from llm_responders import well_behaved
    from openai_server import OpenAICompatibleServer
except ImportError:  # tests/ imported as a package
    from tests.llm_responders import well_behaved
    from tests.openai_server import OpenAICompatibleServer

API_KEY = "sk-test-local"
QUESTION = "who directed [Forrest Gump]"
ANSWER = "Robert Zemeckis"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAICompatibleServer]:
    for variable in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_API_KEY", "OPENAI_ORG_ID", "OPENAI_ORGANIZATION"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    with OpenAICompatibleServer(responder=well_behaved(ANSWER), api_key=API_KEY) as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        yield running


def chat_model(*, timeout: float = 5.0, max_retries: int = 1):
    return resolve_chat_model("openai:test-model", timeout=timeout, max_retries=max_retries)


def names(result: dict) -> list[str]:
    return [a["answer"] for a in result["answers"]]


def failures(result: dict, node: str) -> list[str]:
    return [w for w in result["warnings"] if w.startswith(f"{node}: the model call failed")]


@pytest.fixture(scope="module")
def offline_rog(kg) -> dict:
    return create_rog_graph(kg).compile().invoke({"question": QUESTION})


# ------------------------------------------------------------------------------------------------ RoG
def test_rog_healthy_model(kg, server):
    result = create_rog_graph(kg, model=chat_model()).compile().invoke({"question": QUESTION})
    assert names(result) == [ANSWER] and result["answers"][0]["grounded"] is True
    assert result["plans"][0]["relations"] == ["directed_by"] and result["plans"][0]["source"] == "llm"
    assert result["usage"]["calls"] == 2 and result["usage"]["errors"] == 0
    assert not [w for w in result["warnings"] if "failed" in w or "fell back" in w]


def test_rog_rate_limit_then_success_is_retried(kg, server):
    server.fail_next(1, "429", retry_after=0.01)
    result = create_rog_graph(kg, model=chat_model(max_retries=1)).compile().invoke({"question": QUESTION})
    assert names(result) == [ANSWER] and result["stop_reason"] == "answered"
    assert len(server.chat_requests) == 3  # 429, then the plan, then the answer
    # every HTTP attempt is counted: the 429 as an error of the plan node, then the two calls
    assert result["usage"]["calls"] == 2 and result["usage"]["errors"] == 1
    assert result["usage"]["by_node"]["plan"] == {**result["usage"]["by_node"]["plan"], "calls": 1, "errors": 1}
    assert not [w for w in result["warnings"] if "failed" in w or "fell back" in w]


@pytest.mark.parametrize(("mode", "timeout", "reason"), [
    ("500", 5.0, "Error code: 500"),
    ("timeout", 0.3, "Timeout"),
    ("truncated", 5.0, "LLMCallError"),
    ("non_json", 5.0, "LLMCallError"),
])
def test_rog_persistent_failure_falls_back_offline(kg, server, offline_rog, mode, timeout, reason):
    server.fail_next(1000, mode, retry_after=0.01, delay=2.0)
    result = create_rog_graph(kg, model=chat_model(timeout=timeout, max_retries=1)).compile().invoke({"question": QUESTION})
    # the documented fallback: the offline planner and the vote answerer, with the same answers as offline RoG
    assert names(result) == names(offline_rog) and result["answers"]
    assert result["stop_reason"] == "answered"
    assert [p["source"] for p in result["plans"]] == [p["source"] for p in offline_rog["plans"]]
    [plan_failure] = failures(result, "plan")
    assert "LLMCallError" in plan_failure and reason in plan_failure, plan_failure
    [answer_failure] = failures(result, "answer")
    assert "plan: fell back to the similarity planner" in result["warnings"]
    assert "answer: fell back to vote answers" in result["warnings"]
    usage = result["usage"]
    # every HTTP attempt is counted; a timeout or a 200 that is not JSON is never resent
    assert usage["calls"] == 0 and usage["errors"] == len(server.chat_requests)
    if mode in ("timeout", "non_json"):  # plan and answer: one request each
        assert usage["by_node"]["plan"]["errors"] == usage["by_node"]["answer"]["errors"] == 1
        assert reason in answer_failure
    else:  # the plan's request and its resend (max_retries=1), then the answer's first request: the
        # question's third failure trips the circuit breaker (max_llm_errors=3), so no resend is made
        assert usage["by_node"]["plan"]["errors"] == 2 and usage["by_node"]["answer"]["errors"] == 1
        assert "LLMUnavailable" in answer_failure and "max_llm_errors=3" in answer_failure


@pytest.mark.parametrize("reply", ['{"answers": ["Robert Zem', "<html><body>502 Bad Gateway</body>", ""])
def test_rog_unusable_model_output_is_retried_then_falls_back(kg, server, offline_rog, reply):
    server.responder = lambda prompt: reply
    result = create_rog_graph(kg, model=chat_model()).compile().invoke({"question": QUESTION})
    assert "plan: attempt 2 gave no usable relation path" in " ".join(result["warnings"])
    assert "plan: fell back to the similarity planner" in result["warnings"]
    assert result["usage"]["by_node"]["plan"]["calls"] == 2 and result["usage"]["errors"] == 0
    if reply.startswith("<html>"):  # one line of text is an answer, but no path supports it: the path votes replace it
        assert names(result) == names(offline_rog) and all(a["grounded"] for a in result["answers"])
        assert any(w.startswith("answer: the model's answers ('<html><body>502 Bad Gateway</body>') are not supported")
                   for w in result["warnings"])
    else:  # cut-off JSON and empty replies are unusable: retried, then the offline answers
        assert names(result) == names(offline_rog)
        assert "answer: attempt 2 gave no usable answer" in " ".join(result["warnings"])
        assert "answer: fell back to vote answers" in result["warnings"]


# ------------------------------------------------------------------------------------------------ ToG
def test_tog_rate_limit_then_success_is_retried(kg, server):
    clean = create_tog_graph(kg, model=chat_model()).compile().invoke({"question": QUESTION})
    assert names(clean)[0] == ANSWER and clean["stop_reason"] == "verified"
    requests = len(server.chat_requests)
    server.fail_next(2, "429", retry_after=0.01)
    result = create_tog_graph(kg, model=chat_model(max_retries=2)).compile().invoke({"question": QUESTION})
    assert names(result) == names(clean) and result["stop_reason"] == "verified"
    assert len(server.chat_requests) - requests == clean["usage"]["calls"] + 2
    assert result["usage"]["calls"] == clean["usage"]["calls"] and result["usage"]["errors"] == 2


def test_tog_persistent_server_errors_fall_back_and_stop_calling(kg, server):
    question = "who starred in films directed by [Robert Zemeckis]"  # two hops: many decisions
    # a model's fallbacks keep ToG's per-step weights (offline ToG without a model scores whole chains instead)
    per_step = {"relation_pruner": SimilarityRelationPruner(kg=kg), "entity_scorer": SimilarityEntityScorer()}
    offline = create_tog_graph(kg, **per_step).compile().invoke({"question": question})
    server.fail_next(1000, "500", retry_after=0.01)
    result = create_tog_graph(kg, model=chat_model(max_retries=1), max_concurrency=1).compile().invoke({"question": question})
    # the fallback deciders explore as offline ToG with them does (the answer step reuses the offline verifier's answer)
    assert [c["text"] for c in result["chains"]] == [c["text"] for c in offline["chains"]]
    assert names(result)[0] == names(offline)[0] and result["stop_reason"] == offline["stop_reason"]
    usage = result["usage"]
    # the circuit breaker: after 3 failed requests (resends included) the question stops calling the model
    # (one call at a time here: with max_concurrency > 1, calls already in flight when it trips still finish)
    assert usage["calls"] == 0 and usage["errors"] == 3
    assert len(server.chat_requests) == 3  # every request counted: no uncounted SDK resend
    failed = [w for w in result["warnings"] if "the model call failed" in w]
    assert len(failed) > 3
    assert "Error code: 500" in failed[0]  # the first decision: its request and its resend failed
    assert all("Error code: 500" in w or ("LLMUnavailable" in w and "failed 3 times" in w) for w in failed)
    assert sum("LLMUnavailable" in w for w in failed) >= len(failed) - 2


def test_tog_timeouts_cost_a_bounded_number_of_calls(kg, server):
    server.fail_next(1000, "timeout", delay=2.0)
    result = create_tog_graph(kg, model=chat_model(timeout=0.3, max_retries=0)).compile().invoke({"question": QUESTION})
    assert result["answers"] and result["usage"]["errors"] == 3
    assert len(server.chat_requests) == 3
    assert any("Timeout" in w for w in result["warnings"])


def test_tog_cut_off_model_output_falls_back(kg, server):
    offline = create_tog_graph(kg).compile().invoke({"question": QUESTION})
    server.responder = lambda prompt: '{"relations": [{"relation": "direct'
    result = create_tog_graph(kg, model=chat_model()).compile().invoke({"question": QUESTION})
    assert names(result) == names(offline)
    assert result["usage"]["errors"] == 0 and result["usage"]["calls"] > 0
    assert any("gave no usable reply" in w for w in result["warnings"])
