"""Usage accounting, budgets, the call path and the scripted chat model."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from typing import Annotated, TypedDict

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from kg_agent.llm import (
    BudgetExceeded,
    CallLimit,
    KGAgentLLMError,
    LLMCaller,
    LLMCallError,
    QuestionBudget,
    ScriptedChatModel,
    ScriptExhaustedError,
    UsageTracker,
    acall_llm,
    call_llm,
    call_llm_reply,
    empty_usage,
    estimate_tokens,
    merge_usage,
    question_allowance,
)

# ------------------------------------------------------------------------------------------
# UsageTracker / merge_usage
# ------------------------------------------------------------------------------------------


def test_tracker_counts_per_node() -> None:
    tracker = UsageTracker()
    tracker.record("plan", 100, 10)
    tracker.record("plan", 50, 5, estimated=True)
    tracker.record("answer", 30, 3)
    usage = tracker.as_dict()
    assert usage["calls"] == 3 and usage["prompt_tokens"] == 180 and usage["completion_tokens"] == 18
    assert usage["total_tokens"] == 198 and usage["estimated_calls"] == 1 and usage["errors"] == 0
    assert usage["by_node"]["plan"] == {
        "calls": 2, "errors": 0, "estimated_calls": 1, "cached_calls": 0, "prompt_tokens": 150, "completion_tokens": 15, "total_tokens": 165,
    }
    assert usage["by_node"]["answer"]["calls"] == 1
    assert tracker.calls == 3 and tracker.total_tokens == 198


def test_tracker_snapshot_is_a_copy() -> None:
    tracker = UsageTracker()
    tracker.record("plan", 1, 1)
    snapshot = tracker.as_dict()
    snapshot["by_node"]["plan"]["calls"] = 99
    assert tracker.as_dict()["by_node"]["plan"]["calls"] == 1


def test_tracker_is_thread_safe() -> None:
    tracker = UsageTracker()

    def work() -> None:
        for _ in range(500):
            tracker.record("node", 2, 1)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert tracker.as_dict()["calls"] == 4000 and tracker.as_dict()["total_tokens"] == 12000


def test_merge_usage_adds_counts_and_nodes() -> None:
    a = UsageTracker()
    a.record("plan", 10, 1)
    b = UsageTracker()
    b.record("plan", 5, 1)
    b.record("answer", 7, 2, estimated=True)
    merged = merge_usage(a.as_dict(), b.as_dict())
    assert merged["calls"] == 3 and merged["prompt_tokens"] == 22 and merged["estimated_calls"] == 1
    assert merged["by_node"]["plan"]["calls"] == 2 and merged["by_node"]["answer"]["completion_tokens"] == 2
    # inputs untouched, None and empty are neutral
    assert a.as_dict()["calls"] == 1
    assert merge_usage(None, a.as_dict()) == a.as_dict() == merge_usage(a.as_dict(), {})
    assert merge_usage(empty_usage(), None) == empty_usage()


def test_merge_usage_as_langgraph_reducer() -> None:
    from langgraph.graph import END, START, StateGraph

    class State(TypedDict):
        usage: Annotated[dict, merge_usage]

    model = ScriptedChatModel(responder=lambda prompt: "ok")

    def node(name: str):
        def run(state: State) -> dict:
            reply = call_llm_reply(model, f"prompt for {name}", node=name)
            return {"usage": reply.usage_dict()}

        return run

    graph = StateGraph(State)
    graph.add_node("plan", node("plan"))
    graph.add_node("answer", node("answer"))
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "answer")
    graph.add_edge("answer", END)
    result = graph.compile().invoke({"usage": empty_usage()})
    assert result["usage"]["calls"] == 2
    assert set(result["usage"]["by_node"]) == {"plan", "answer"}


def test_tracker_merge_from() -> None:
    tracker = UsageTracker()
    tracker.record("plan", 1, 1)
    other = UsageTracker()
    other.record("plan", 2, 2)
    other.record("verify", 3, 3)
    tracker.merge_from(other.as_dict())
    assert tracker.as_dict() == merge_usage(UsageTracker().as_dict(), tracker.as_dict())
    assert tracker.as_dict()["by_node"]["plan"]["total_tokens"] == 6 and tracker.calls == 3


# ------------------------------------------------------------------------------------------
# call_llm, token sources, budgets
# ------------------------------------------------------------------------------------------


def test_call_llm_uses_usage_metadata() -> None:
    model = ScriptedChatModel(["<PATH> starred_actors </PATH>"])
    tracker = UsageTracker()
    text = call_llm(model, "x" * 400, node="plan", tracker=tracker)
    assert text == "<PATH> starred_actors </PATH>"
    assert tracker.as_dict()["by_node"]["plan"] == {
        "calls": 1, "errors": 0, "estimated_calls": 0, "cached_calls": 0, "prompt_tokens": 100,
        "completion_tokens": len(text) // 4, "total_tokens": 100 + len(text) // 4,
    }


def test_call_llm_estimates_when_no_usage_metadata() -> None:
    model = _NoUsageModel(reply="twelve chars")
    tracker = UsageTracker()
    reply = call_llm_reply(model, "p" * 40, node="verify", tracker=tracker)
    assert reply.estimated and reply.prompt_tokens == 10 and reply.completion_tokens == 3
    assert tracker.as_dict()["estimated_calls"] == 1
    assert estimate_tokens("abcdefgh") == 2


class _NoUsageModel(BaseChatModel):
    """A chat model that reports no usage at all."""

    reply: str

    @property
    def _llm_type(self) -> str:
        return "no-usage"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
        from langchain_core.outputs import ChatGeneration, ChatResult

        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.reply))])


def test_call_llm_accepts_message_lists_and_content_blocks() -> None:
    model = ScriptedChatModel([AIMessage(content=[{"type": "text", "text": "Tom "}, {"type": "text", "text": "Hanks"}])])
    text = call_llm(model, [SystemMessage("You answer."), HumanMessage("Who?")], node="answer")
    assert text == "Tom Hanks"
    assert model.prompts == ["You answer.\n\nWho?"]


def test_budget_max_calls() -> None:
    model = ScriptedChatModel(responder=lambda prompt: "ok")
    with question_allowance(QuestionBudget(max_llm_calls=2)):
        call_llm(model, "a", node="plan")
        call_llm(model, "b", node="plan")
        with pytest.raises(BudgetExceeded, match="max_llm_calls=2") as info:
            call_llm(model, "c", node="plan")
    assert isinstance(info.value, KGAgentLLMError)
    assert model.calls == 2  # checked BEFORE the call


def test_budget_max_tokens() -> None:
    model = ScriptedChatModel(responder=lambda prompt: "y" * 40)
    tracker = UsageTracker()
    with question_allowance(QuestionBudget(max_tokens=50)):
        call_llm(model, "x" * 80, node="plan", tracker=tracker)  # 20 + 10 tokens
        call_llm(model, "x" * 80, node="plan", tracker=tracker)  # 60 used now
        with pytest.raises(BudgetExceeded, match="max_tokens=50"):
            call_llm(model, "x", node="plan", tracker=tracker)
    # no budget -> unlimited
    call_llm(model, "x", node="plan", tracker=tracker)
    assert model.calls == 3


def test_budget_zero_blocks_everything() -> None:
    with question_allowance(QuestionBudget(max_llm_calls=0)), pytest.raises(BudgetExceeded):
        call_llm(ScriptedChatModel(["ok"]), "a", node="plan")


def test_budget_respected_by_concurrent_calls() -> None:
    gate = threading.Barrier(6, timeout=5)

    def slow(prompt: str) -> str:
        time.sleep(0.05)  # keep calls in flight together
        return "ok"

    model = ScriptedChatModel(responder=slow)
    outcomes: list[str] = []
    lock = threading.Lock()

    def worker(context: contextvars.Context) -> None:
        gate.wait()
        try:
            context.run(call_llm, model, "q", node="n")
            result = "ok"
        except BudgetExceeded:
            result = "refused"
        with lock:
            outcomes.append(result)

    with question_allowance(QuestionBudget(max_llm_calls=3)):
        threads = [threading.Thread(target=worker, args=(contextvars.copy_context(),)) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("ok") == 3 and outcomes.count("refused") == 3


def test_deprecated_limits_warn_and_still_limit() -> None:
    model = ScriptedChatModel(responder=lambda prompt: "ok")
    with pytest.warns(DeprecationWarning, match="CallLimit"):
        limit = CallLimit(max_calls=2)
    assert limit == QuestionBudget(max_llm_calls=2, max_llm_errors=None)
    with pytest.warns(DeprecationWarning, match="UsageTracker"):
        tracker = UsageTracker(limit=limit)
    call_llm(model, "a", node="plan", tracker=tracker)
    call_llm(model, "b", node="plan", tracker=tracker)
    with pytest.raises(BudgetExceeded, match="max_llm_calls=2"):
        call_llm(model, "c", node="plan", tracker=tracker)
    other = UsageTracker()
    with pytest.warns(DeprecationWarning, match="limit= argument"):
        call_llm(model, "d", node="plan", tracker=other, limit=QuestionBudget(max_llm_calls=1))
    with pytest.warns(DeprecationWarning), pytest.raises(BudgetExceeded):
        call_llm(model, "e", node="plan", tracker=other, limit=QuestionBudget(max_llm_calls=1))
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="UsageTracker"):
        call_llm(model, "f", node="plan", limit=QuestionBudget(max_llm_calls=1))
    assert model.calls == 3
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError):
        CallLimit(max_calls=-1)


def test_model_failure_is_wrapped_and_counted() -> None:
    model = ScriptedChatModel([ConnectionError("socket closed"), "second try"])
    tracker = UsageTracker()
    with pytest.raises(LLMCallError, match="node 'plan'.*ConnectionError.*socket closed") as info:
        call_llm(model, "a", node="plan", tracker=tracker)
    assert isinstance(info.value.__cause__, ConnectionError)
    assert tracker.as_dict()["by_node"]["plan"]["errors"] == 1
    assert call_llm(model, "a", node="plan", tracker=tracker) == "second try"


def test_offline_model_gives_clear_error() -> None:
    with pytest.raises(KGAgentLLMError, match="offline"):
        call_llm(None, "a", node="plan")


def test_deprecated_llm_caller_and_async_path() -> None:
    model = ScriptedChatModel(["one", "two", "three"])
    with pytest.warns(DeprecationWarning, match="LLMCaller"):
        caller = LLMCaller(limit=QuestionBudget(max_llm_calls=2))
    assert caller.invoke(model, "a", node="plan") == "one"
    assert asyncio.run(caller.ainvoke(model, "b", node="answer")) == "two"
    with pytest.raises(BudgetExceeded):
        caller.invoke(model, "c", node="plan")
    assert caller.tracker.as_dict()["calls"] == 2
    other = UsageTracker()
    assert asyncio.run(acall_llm(model, "d", node="verify", tracker=other)) == "three"
    assert other.as_dict()["by_node"]["verify"]["calls"] == 1


# ------------------------------------------------------------------------------------------
# ScriptedChatModel
# ------------------------------------------------------------------------------------------


def test_scripted_model_in_order_and_exhaustion() -> None:
    model = ScriptedChatModel(["first", "second"])
    assert isinstance(model, BaseChatModel)
    assert model.invoke("p1").content == "first"
    assert model.invoke("p2").content == "second"
    assert model.remaining == 0
    with pytest.raises(ScriptExhaustedError, match="ran out of responses.*'p3'"):
        model.invoke("p3")
    assert model.prompts == ["p1", "p2", "p3"]


def test_scripted_model_usage_metadata() -> None:
    message = ScriptedChatModel(["abcdefgh"]).invoke("x" * 41)
    assert message.usage_metadata == {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}
    # a scripted AIMessage without usage gets the same estimate; one with usage keeps it
    filled = ScriptedChatModel([AIMessage(content="abcd")]).invoke("x" * 8)
    assert filled.usage_metadata == {"input_tokens": 2, "output_tokens": 1, "total_tokens": 3}
    kept = ScriptedChatModel(
        [AIMessage(content="abcd", usage_metadata={"input_tokens": 7, "output_tokens": 5, "total_tokens": 12})]
    ).invoke("x")
    assert kept.usage_metadata["input_tokens"] == 7


def test_scripted_model_responder_and_fallback() -> None:
    model = ScriptedChatModel(["scripted"], responder=lambda prompt: f"echo:{prompt}")
    assert model.invoke("a").content == "scripted"
    assert model.invoke("b").content == "echo:b"
    assert model.remaining == 0


def test_scripted_model_async_stream_and_batch() -> None:
    model = ScriptedChatModel(responder=lambda prompt: f"the answer to {prompt}")
    assert asyncio.run(model.ainvoke("q")).content == "the answer to q"
    chunks = list(model.stream("s"))
    assert "".join(chunk.content for chunk in chunks) == "the answer to s"
    assert len(chunks) > 1 and chunks[-1].usage_metadata is not None

    async def collect() -> str:
        return "".join([chunk.content async for chunk in model.astream("t")])

    assert asyncio.run(collect()) == "the answer to t"
    assert [m.content for m in model.batch(["x", "y"])] == ["the answer to x", "the answer to y"]
    assert sorted(model.prompts) == ["q", "s", "t", "x", "y"]


def test_scripted_model_needs_a_script() -> None:
    with pytest.raises(ValueError):
        ScriptedChatModel()
    with pytest.raises(TypeError):
        ScriptedChatModel("one string")  # type: ignore[arg-type]
