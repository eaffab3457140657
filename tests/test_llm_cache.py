"""Optional caching of LLM replies in SQLite: re-running an evaluation asks the model nothing again.

The model is a real ``ChatOpenAI`` talking HTTP to the local OpenAI-compatible test server, which counts
the requests it receives."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

import pytest
from langchain_core.globals import get_llm_cache, set_llm_cache

from kg_agent.eval import Question
from kg_agent.eval.runner import evaluate, load_results
from kg_agent.llm import SQLiteLLMCache, UsageTracker, call_llm_reply, disable_llm_cache, enable_llm_cache, llm_cache, resolve_chat_model

try:
    from llm_responders import well_behaved
    from openai_server import OpenAICompatibleServer
except ImportError:  # tests/ imported as a package
    from tests.llm_responders import well_behaved
    from tests.openai_server import OpenAICompatibleServer

API_KEY = "sk-test-local"
QUESTIONS = [
    Question(id="q0", question="who directed [Forrest Gump]", answers=["Robert Zemeckis"], topic_entities=["Forrest Gump"]),
    Question(id="q1", question="who directed [Cast Away]", answers=["Robert Zemeckis"], topic_entities=["Cast Away"]),
    Question(id="q2", question="who directed [Back to the Future]", answers=["Robert Zemeckis"],
             topic_entities=["Back to the Future"]),
]


@pytest.fixture(autouse=True)
def no_global_cache() -> Iterator[None]:
    previous = get_llm_cache()
    set_llm_cache(None)
    yield
    set_llm_cache(previous)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAICompatibleServer]:
    for variable in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_API_KEY", "OPENAI_ORG_ID", "OPENAI_ORGANIZATION"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    with OpenAICompatibleServer(responder=well_behaved(), api_key=API_KEY) as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        yield running


def model(name: str = "test-model"):
    return resolve_chat_model(f"openai:{name}", timeout=5.0, max_retries=0)


def test_cache_hit_makes_no_request_and_spends_no_tokens(server, tmp_path):
    with llm_cache(tmp_path / "cache.sqlite") as cache:
        first = call_llm_reply(model(), "Who directed Forrest Gump?", node="answer")
        assert len(server.chat_requests) == 1 and not first.cached and first.total_tokens > 0
        tracker = UsageTracker()
        second = call_llm_reply(model(), "Who directed Forrest Gump?", node="answer", tracker=tracker)
        assert len(server.chat_requests) == 1  # answered from the cache
        assert second.text == first.text and second.cached and second.total_tokens == 0
        assert tracker.as_dict()["cached_calls"] == 1 and tracker.as_dict()["total_tokens"] == 0
        # another prompt or another model is a miss
        call_llm_reply(model(), "Who directed Cast Away?", node="answer")
        call_llm_reply(model("other-model"), "Who directed Forrest Gump?", node="answer")
        assert len(server.chat_requests) == 3 and len(cache) == 3 and cache.hits == 1
    assert get_llm_cache() is None  # the block restores the previous (no) cache


def test_cache_file_survives_the_process_and_stores_json(server, tmp_path):
    path = tmp_path / "cache.sqlite"
    cache = enable_llm_cache(path)
    try:
        call_llm_reply(model(), "Who directed Big?", node="answer")
    finally:
        disable_llm_cache()
    assert get_llm_cache() is None
    with sqlite3.connect(path) as db:
        [(value,)] = db.execute("SELECT value FROM llm_cache").fetchall()
    assert json.loads(value)[0]["message"]["data"]["content"]  # JSON, not a pickle
    with llm_cache(path):  # a new connection to the same file (as a later run would open)
        call_llm_reply(model(), "Who directed Big?", node="answer")
    assert len(server.chat_requests) == 1


def test_rerunning_an_evaluation_makes_no_requests(server, kg, tmp_path):
    cache_path = tmp_path / "llm.sqlite"
    with llm_cache(cache_path):
        first = evaluate(QUESTIONS, method="tog", kg=kg, model=model(), progress=False, out=tmp_path / "first.json")
    requests = len(server.chat_requests)
    assert requests > 0 and first["errors"] == 0 and first["llm"]["calls"] == requests
    with llm_cache(cache_path):
        second = evaluate(QUESTIONS, method="tog", kg=kg, model=model(), progress=False, workers=3,
                          out=tmp_path / "second.json")
    assert len(server.chat_requests) == requests  # not one request more
    assert [r["predicted"] for r in second["per_question"]] == [r["predicted"] for r in first["per_question"]]
    assert second["llm"]["calls"] == first["llm"]["calls"] == second["llm"]["cached_calls"]
    assert second["llm"]["prompt_tokens"] == 0 and second["llm"]["completion_tokens"] == 0


def test_cli_eval_llm_cache_flag(server, tmp_path):
    from kg_agent.cli import main

    file = tmp_path / "questions.jsonl"
    file.write_text("".join(json.dumps({"id": q.id, "question": q.question, "answers": q.answers,
                                        "topic_entities": q.topic_entities}) + "\n" for q in QUESTIONS))
    cache = tmp_path / "cache" / "llm.sqlite"

    def run(out: str) -> dict:
        code = main(["eval", "jsonl", "--questions", str(file), "--method", "rog", "--model", "openai:test-model",
                     "--llm-cache", str(cache), "--no-progress", "--out", str(tmp_path / out)])
        assert code == 0
        return load_results(tmp_path / out)

    first = run("first.json")
    requests = len(server.chat_requests)
    assert requests == 2 * len(QUESTIONS) and first["config"]["llm_cache"] == str(cache)
    second = run("second.json")
    assert len(server.chat_requests) == requests
    assert second["llm"]["cached_calls"] == requests
    assert [r["predicted"] for r in second["per_question"]] == [r["predicted"] for r in first["per_question"]]
    assert get_llm_cache() is None  # the command does not leave a cache behind


def test_unusable_cache_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "not-a-db.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(ValueError, match="cannot use .* as an LLM cache"):
        SQLiteLLMCache(bad)
