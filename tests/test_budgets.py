"""Per-question budgets: LLM calls, tokens and wall time. When one is spent the graph stops exploring,
answers from what it found, and says so (``stop_reason="budget"``, a warning naming the limit)."""

from __future__ import annotations

import threading
import time

import pytest

from kg_agent.graphs import create_rog_graph, create_tog2_graph, create_tog_graph, create_tog_i_graph
from kg_agent.llm import BudgetExceeded, LLMUnavailable, QuestionBudget, ScriptedChatModel, call_llm
from kg_agent.llm.budget import question_allowance

try:
    from llm_responders import well_behaved
except ImportError:  # tests/ imported as a package
    from tests.llm_responders import well_behaved

TWO_HOPS = "who starred in films directed by [Robert Zemeckis]"
ONE_HOP = "who directed [Forrest Gump]"


def budget_warnings(result: dict) -> list[str]:
    return [w for w in result["warnings"] if "budget spent" in w]


class RecordingModel:
    """A ScriptedChatModel that records the usage the question had spent before each call."""

    def __init__(self, responder, *, delay: float = 0.0):
        self.starts: list[float] = []
        self.lock = threading.Lock()

        def respond(prompt: str) -> str:
            with self.lock:
                self.starts.append(time.time())
            if delay:
                time.sleep(delay)
            return responder(prompt)

        self.model = ScriptedChatModel(responder=respond)


# ------------------------------------------------------------------------------------------------ the budget itself
def test_question_budget_validates_and_reports_the_limit():
    with pytest.raises(ValueError, match="max_tokens"):
        QuestionBudget(max_tokens=-1)
    with pytest.raises(ValueError, match="max_seconds"):
        QuestionBudget(max_seconds=float("nan"))
    budget = QuestionBudget(max_llm_calls=2, max_tokens=100, max_seconds=5)
    assert budget.exhausted(calls=1, tokens=99, started_at=time.time()) is None
    assert "max_llm_calls=2" in budget.exhausted(calls=2, tokens=0, started_at=None)
    assert "max_tokens=100" in budget.exhausted(calls=0, tokens=100, started_at=None)
    assert "max_seconds=5" in budget.exhausted(calls=0, tokens=0, started_at=time.time() - 6)
    assert not QuestionBudget().limited and QuestionBudget().active  # the circuit breaker is on by default


def test_allowance_refuses_calls_beyond_the_budget_and_counts_what_the_state_spent():
    model = ScriptedChatModel(responder=lambda p: "ok")
    state = {"usage": {"calls": 1, "errors": 1, "total_tokens": 10}}
    with question_allowance(QuestionBudget(max_llm_calls=3), state) as allowance:
        assert call_llm(model, "hello", node="plan") == "ok"
        with pytest.raises(BudgetExceeded, match="max_llm_calls=3"):
            call_llm(model, "hello again", node="plan")
    assert model.calls == 1 and allowance.refusal is not None
    assert call_llm(model, "outside the block", node="plan") == "ok"  # no allowance outside a step


def test_circuit_breaker_after_failed_calls():
    model = ScriptedChatModel([RuntimeError("boom")] * 3 + ["fine"])
    with question_allowance(QuestionBudget(max_llm_errors=2)) as allowance:
        for _ in range(2):
            with pytest.raises(Exception, match="boom"):
                call_llm(model, "x", node="verify")
        with pytest.raises(LLMUnavailable, match="failed 2 times"):
            call_llm(model, "x", node="verify")
    assert model.calls == 2 and allowance.unavailable is not None


# ------------------------------------------------------------------------------------------------ ToG
def test_tog_token_budget_stops_exploring(kg):
    full = create_tog_graph(kg, model=ScriptedChatModel(responder=well_behaved("Tom Hanks", "^directed_by"))).compile()
    unlimited = full.invoke({"question": TWO_HOPS})
    assert unlimited["usage"]["calls"] >= 4
    limit = unlimited["usage"]["by_node"]["prune_relations"]["total_tokens"]  # spent after the first step or two
    app = create_tog_graph(kg, model=ScriptedChatModel(responder=well_behaved("Tom Hanks", "^directed_by")),
                           max_tokens=limit).compile()
    result = app.invoke({"question": TWO_HOPS})
    assert result["stop_reason"] == "budget"
    assert result["answers"], "answers from what was explored"
    assert budget_warnings(result) and "max_tokens" in budget_warnings(result)[0]
    assert result["usage"]["calls"] < unlimited["usage"]["calls"]
    assert result["chains"] and len(result["chains"]) <= len(unlimited["chains"])


def test_tog_time_budget_refuses_calls_after_the_deadline(kg):
    unlimited = RecordingModel(well_behaved("Tom Hanks", "^directed_by"))
    create_tog_graph(kg, model=unlimited.model).compile().invoke({"question": TWO_HOPS})
    assert len(unlimited.starts) > 2
    recording = RecordingModel(well_behaved("Tom Hanks", "^directed_by"), delay=0.25)
    app = create_tog_graph(kg, model=recording.model, max_seconds=0.3).compile()
    result = app.invoke({"question": TWO_HOPS})
    assert result["stop_reason"] == "budget" and result["answers"]
    assert any("max_seconds=0.3" in w for w in result["warnings"])
    # a call starts only while time is left: each takes 0.25 s, so at most two fit in 0.3 s
    assert len(recording.starts) <= 2


def test_tog_zero_time_budget_explores_one_level_offline(kg):
    model = ScriptedChatModel(responder=well_behaved())
    result = create_tog_graph(kg, model=model, max_seconds=0).compile().invoke({"question": TWO_HOPS})
    assert model.calls == 0 and result["usage"].get("calls", 0) == 0
    assert result["stop_reason"] == "budget" and result["depth"] == 1 and result["answers"]
    # each decider fell back to its offline twin, saying why
    assert "prune_relations: time budget spent" in result["warnings"][0]
    assert any(w.startswith("prune_relations: fell back to the similarity pruner") for w in result["warnings"])
    assert any(w.startswith("answer: time budget spent") for w in result["warnings"])


def test_tog_offline_time_budget(kg):
    result = create_tog_graph(kg, max_seconds=0).compile().invoke({"question": TWO_HOPS})
    assert result["stop_reason"] == "budget" and result["depth"] == 1 and result["answers"]
    unlimited = create_tog_graph(kg).compile().invoke({"question": TWO_HOPS})
    assert unlimited["depth"] == 2 and unlimited["stop_reason"] == "verified"


def test_tog_i_time_budget(kg):
    result = create_tog_i_graph(kg, max_seconds=0).compile().invoke({"question": TWO_HOPS})
    assert result["stop_reason"] == "budget" and result["answers"] and budget_warnings(result)


class GreedyRelationPruner:
    """A custom ToG relation pruner that ignores the question's budget: it asks its model up to 50 times per
    decision and stops only when a call is refused; ``reports``: whether its outcome's usage says so."""

    name = "greedy"

    def __init__(self, model, *, reports: bool = True):
        self.model = model
        self.reports = reports

    def score_relations(self, question, entity, relations, *, width, prefix=(), guidance=""):
        from kg_agent.llm import UsageTracker
        from kg_agent.tools.tog.prune_relations import ScoredOutcome

        tracker = UsageTracker()
        for _ in range(50):
            try:
                call_llm(self.model, f"Relations of {entity.label}: {'; '.join(relations)}", node="prune_relations",
                         tracker=tracker)
            except BudgetExceeded:
                break
        kept = list(relations)[:width]
        usage = tracker.as_dict() if self.reports else {}
        return ScoredOutcome([(r, 1 / len(kept)) for r in kept], usage=usage, source=self.name)


@pytest.mark.parametrize("reports", [True, False], ids=["reporting", "silent"])
@pytest.mark.parametrize("create", [create_tog_graph, create_tog_i_graph], ids=["tog", "tog-i"])
def test_a_custom_decider_that_ignores_the_budget_cannot_exceed_max_llm_calls(kg, create, reports):
    greedy = ScriptedChatModel(responder=lambda prompt: "1. {directed_by (Score: 1.0)}")
    model = ScriptedChatModel(responder=well_behaved("Tom Hanks", "^directed_by"))
    pruner = GreedyRelationPruner(greedy, reports=reports)
    app = create(kg, model=model, relation_pruner=pruner, max_llm_calls=6).compile()
    result = app.invoke({"question": TWO_HOPS})
    assert greedy.calls >= 1 and greedy.calls + model.calls <= 6
    assert result["usage"]["calls"] == greedy.calls + model.calls  # a silent decider's calls are counted for it
    assert result["usage"]["by_node"]["prune_relations"]["calls"] == greedy.calls
    assert result["stop_reason"] == "budget" and any("max_llm_calls=6" in w for w in result["warnings"])
    # the call kept for the answer: after exploring under the tight budget, the answer still asks the model
    assert result["usage"]["by_node"]["answer"]["calls"] == 1 and result["answers"]


# ------------------------------------------------------------------------------------------------ ToG-2
def test_tog2_call_budget(kg):
    unlimited = create_tog2_graph(kg, model=ScriptedChatModel(responder=lambda p: "I am not sure.")).compile()
    free = unlimited.invoke({"question": ONE_HOP})
    assert free["usage"]["calls"] > 3
    model = ScriptedChatModel(responder=lambda p: "I am not sure.")
    result = create_tog2_graph(kg, model=model, max_llm_calls=3).compile().invoke({"question": ONE_HOP})
    assert model.calls == 3 and result["usage"]["calls"] == 3
    assert result["stop_reason"] == "budget" and result["answers"]
    assert any("max_llm_calls=3" in w for w in result["warnings"])


def test_tog2_time_budget(kg):
    result = create_tog2_graph(kg, max_seconds=0).compile().invoke({"question": TWO_HOPS})
    assert result["stop_reason"] == "budget" and result["answers"] and budget_warnings(result)
    assert result["depth"] == 1


# ------------------------------------------------------------------------------------------------ RoG
def test_rog_token_budget_keeps_the_answer_offline(kg):
    model = ScriptedChatModel(responder=well_behaved())
    free = create_rog_graph(kg, model=model).compile().invoke({"question": ONE_HOP})
    plan_tokens = free["usage"]["by_node"]["plan"]["total_tokens"]
    model = ScriptedChatModel(responder=well_behaved())
    result = create_rog_graph(kg, model=model, max_tokens=plan_tokens).compile().invoke({"question": ONE_HOP})
    assert model.calls == 1 and result["plans"][0]["source"] == "llm"
    assert result["stop_reason"] == "budget"
    assert [a["answer"] for a in result["answers"]] == ["Robert Zemeckis"]  # votes over the planned paths
    assert "answer: fell back to vote answers" in result["warnings"]
    assert any(w.startswith("answer: ") and "max_tokens" in w for w in result["warnings"])  # the refused call, named


def test_rog_call_and_time_budgets(kg):
    model = ScriptedChatModel(responder=well_behaved())
    result = create_rog_graph(kg, model=model, max_llm_calls=0).compile().invoke({"question": ONE_HOP})
    assert model.calls == 0 and result["stop_reason"] == "budget" and result["answers"]
    model = ScriptedChatModel(responder=well_behaved())
    result = create_rog_graph(kg, model=model, max_seconds=0).compile().invoke({"question": ONE_HOP})
    assert model.calls == 0 and result["stop_reason"] == "budget" and result["answers"]
    assert any("max_seconds=0" in w for w in result["warnings"])


def test_unlimited_graphs_do_not_stamp_or_stop(kg):
    result = create_rog_graph(kg).compile().invoke({"question": ONE_HOP})
    assert result["stop_reason"] == "answered"


def test_cli_eval_budget_flags(tmp_path):
    import json

    from kg_agent.cli import main
    from kg_agent.eval.runner import load_results

    file = tmp_path / "questions.jsonl"
    file.write_text(json.dumps({"id": "q0", "question": TWO_HOPS, "answers": ["Tom Hanks"]}) + "\n")
    out = tmp_path / "results.json"
    assert main(["eval", "jsonl", "--questions", str(file), "--method", "tog", "--model", "none", "--max-seconds", "0",
                 "--no-progress", "--out", str(out)]) == 0
    result = load_results(out)
    [record] = result["per_question"]
    assert record["stop_reason"] == "budget" and record["error"] is None and record["predicted"]
    assert result["config"]["max_seconds"] == 0
