"""The one LLM-decider mechanism (kg_agent.tools.shared.decider): call, parse, one retry, the offline twin."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from kg_agent.llm.budget import QuestionBudget, question_allowance
from kg_agent.llm.errors import LLMCallError
from kg_agent.llm.scripted import ScriptedChatModel
from kg_agent.steps import ask_all
from kg_agent.tools.shared.decider import LLMDecision, fall_back


def numbers(reply: str):
    """A parser: the reply's integer, or None (with a note when the reply had text around it)."""
    words = reply.split()
    found = [int(w) for w in words if w.isdigit()]
    notes = ["pick: ignored the words around the number"] if found and len(words) > 1 else []
    return (found[0] if found else None), notes


@dataclass
class Picked:
    value: int
    warnings: list[str] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    budget_exhausted: bool = False


def test_a_usable_first_reply_is_one_call():
    model = ScriptedChatModel(["7"])
    asked = LLMDecision(model, "pick").ask("pick a number", numbers)
    assert (asked.value, asked.reply, asked.warnings) == (7, "7", [])
    assert asked.usage["calls"] == 1 and asked.usage["by_node"]["pick"]["calls"] == 1


def test_an_unusable_reply_is_retried_once_and_each_attempt_is_recorded():
    model = ScriptedChatModel(["no idea", "it is 4 I think"])
    asked = LLMDecision(model, "pick", what="number").ask("pick a number", numbers)
    assert asked.value == 4 and model.calls == 2
    assert asked.warnings == ["pick: attempt 1 gave no usable number (reply: 'no idea')",
                              "pick: ignored the words around the number"]
    assert asked.usage["calls"] == 2


def test_two_unusable_replies_decide_nothing_and_the_twin_answers_with_the_reason():
    model = ScriptedChatModel(["no idea", "still none"])
    asked = LLMDecision(model, "pick").ask("pick a number", numbers)
    assert asked.value is None and not asked.decided and model.calls == 2
    outcome = fall_back(asked, Picked(1, ["offline: picked the smallest"]), node="pick", to="the smallest number",
                        before=["pick: the prompt was cut"])
    assert outcome.value == 1
    assert outcome.warnings == [
        "pick: the prompt was cut",
        "pick: attempt 1 gave no usable reply (reply: 'no idea')",
        "pick: attempt 2 gave no usable reply (reply: 'still none')",
        "pick: fell back to the smallest number",
        "offline: picked the smallest",
    ]
    assert outcome.usage["calls"] == 2 and not outcome.budget_exhausted


def test_a_failed_call_is_not_retried_and_is_named():
    model = ScriptedChatModel([LLMCallError("HTTP 500 from the server")])
    asked = LLMDecision(model, "pick").ask("pick a number", numbers)
    assert asked.value is None and model.calls == 1
    assert asked.warnings == ["pick: the model call failed (LLMCallError: HTTP 500 from the server)"]
    assert asked.usage["errors"] == 1


def test_no_call_is_made_beyond_the_question_budget():
    model = ScriptedChatModel(["no idea", "5"])
    with question_allowance(QuestionBudget(max_llm_calls=1)):
        asked = LLMDecision(model, "pick").ask("pick a number", numbers)
    assert asked.value is None and model.calls == 1 and asked.budget_exhausted
    assert "max_llm_calls=1" in asked.warnings[-1] and asked.warnings[-1].startswith("pick: ")
    assert fall_back(asked, Picked(0), node="pick", to="zero").budget_exhausted

    none_left = ScriptedChatModel(["5"])
    with question_allowance(QuestionBudget(max_llm_calls=0)):
        assert LLMDecision(none_left, "pick").ask("pick", numbers).budget_exhausted and none_left.calls == 0


def test_only_the_answer_may_use_the_answer_reserve():
    with question_allowance(QuestionBudget(max_llm_calls=3, answer_reserve=1)):
        picker = ScriptedChatModel(responder=lambda prompt: "no idea")
        picked = LLMDecision(picker, "pick").ask("pick", numbers)  # both attempts fit beside the reserve
        again = LLMDecision(picker, "pick").ask("pick", numbers)
        answerer = ScriptedChatModel(["7"])
        answered = LLMDecision(answerer, "answer").ask("answer", numbers)
    assert picker.calls == 2 and not picked.budget_exhausted and again.budget_exhausted
    assert "1 kept for the answer" in again.warnings[-1]
    assert answered.value == 7 and answerer.calls == 1


def test_async_ask_decides_as_the_sync_one():
    replies = ["no idea", "it is 4 I think"]
    sync = LLMDecision(ScriptedChatModel(list(replies)), "pick").ask("pick a number", numbers)
    asynchronous = asyncio.run(LLMDecision(ScriptedChatModel(list(replies)), "pick").aask("pick a number", numbers))
    assert (asynchronous.value, asynchronous.reply, asynchronous.warnings) == (sync.value, sync.reply, sync.warnings)
    assert asynchronous.usage == sync.usage


def test_independent_decisions_run_concurrently_within_the_bound_in_input_order():
    running = {"now": 0, "most": 0}

    async def request(n: int):
        running["now"] += 1
        running["most"] = max(running["most"], running["now"])
        await asyncio.sleep(0.01 * (5 - n))  # later requests finish first
        running["now"] -= 1
        return n

    results = asyncio.run(ask_all([lambda n=n: request(n) for n in range(5)], max_concurrency=2))
    assert results == [0, 1, 2, 3, 4] and running["most"] == 2
    with pytest.raises(ValueError, match="max_concurrency"):
        asyncio.run(ask_all([], max_concurrency=0))


def test_each_decider_prompt_is_recognised_by_its_template_not_its_opening_words():
    import string

    from kg_agent.tools.prompts import DECIDER_PROMPTS, prompt_method, prompt_node

    for node, method, template in DECIDER_PROMPTS:
        fields = {name: "Forrest Gump" for _, name, _, _ in string.Formatter().parse(template) if name}
        assert prompt_method(template.format(**fields)) == (node, method)
    # ToG's verify and answer prompts open with the same sentence
    from kg_agent.tools.tog.answer import ANSWER_PROMPT
    from kg_agent.tools.tog.verify import VERIFY_PROMPT

    assert VERIFY_PROMPT[:60] == ANSWER_PROMPT[:60]
    assert prompt_node(VERIFY_PROMPT.format(question="q", triplets="t")) == "verify"
    assert prompt_node(ANSWER_PROMPT.format(question="q", triplets="t")) == "answer"
    assert prompt_node("Please retrieve the weather") is None


def test_the_retry_says_what_was_wrong_and_shows_the_format():
    model = ScriptedChatModel(["no idea", "4"])
    decision = LLMDecision(model, "pick", what="number", reply_format="7")
    asked = decision.ask("pick a number", numbers)
    assert asked.value == 4 and model.calls == 2
    first, retry = model.prompts
    assert first == "pick a number" and retry != first and retry.startswith("pick a number")
    assert "Your previous reply could not be used: it gave no usable number." in retry
    assert retry.endswith("Reply exactly in this format:\n7")


def test_the_retry_of_an_empty_reply_says_it_was_empty_and_gives_the_parser_notes():
    def parse(reply: str):
        return None, ([f"pick: {reply.strip()!r} is not a number"] if reply.strip() else [])

    model = ScriptedChatModel(["", "seven", "x"])
    asked = LLMDecision(model, "pick").ask([("system", "You pick numbers."), ("human", "pick one")], parse)
    assert asked.value is None and model.calls == 2
    assert "could not be used: it was empty." in model.prompts[1]
    assert model.prompts[1].startswith("You pick numbers.")  # a chat prompt keeps its messages, the note comes last


def test_concurrent_decisions_share_the_question_budget():
    async def run() -> list:
        model = ScriptedChatModel(responder=lambda prompt: "no idea")
        with question_allowance(QuestionBudget(max_llm_calls=3)) as allowance:
            decisions = [lambda: LLMDecision(model, "pick").aask("pick", numbers) for _ in range(4)]
            asked = await ask_all(decisions, max_concurrency=4)
        return [model.calls, allowance.calls, sum(a.budget_exhausted for a in asked)]

    calls, counted, refused = asyncio.run(run())
    assert calls == counted == 3 and refused >= 1


# ---------------------------------------------------------------------------------------------- one method per decider
class FirstRelations:
    """A user's plain decider: its one method returns the outcome."""

    name = "first"

    def __init__(self):
        self.threads = set()

    def score_relations(self, question, entity, relations, *, width, prefix=(), guidance=""):
        import threading

        from kg_agent.tools.tog.prune_relations import ScoredOutcome

        self.threads.add(threading.current_thread().name)
        kept = sorted(relations)[:width]
        return ScoredOutcome([(r, 1 / len(kept)) for r in kept], source=self.name)


class AskingVerifier:
    """A user's decider written as steps: it asks a model through LLMDecision and returns the outcome."""

    name = "asking"

    def __init__(self, model):
        from kg_agent.tools.shared.decider import LLMDecision

        self.decision = LLMDecision(model, "verify")

    def verify(self, question, chains, *, depth):
        from kg_agent.tools.tog.verify import VerifyOutcome

        def parse(reply: str):
            word = reply.strip().lower()
            return ({"yes": True, "no": False}.get(word), [])

        asked = yield self.decision.request(f"Enough to answer {question}? Say yes or no.", parse)
        return VerifyOutcome(bool(asked.value), None, asked.reply, warnings=asked.warnings, usage=asked.usage, source=self.name)


def test_a_plain_custom_decider_runs_under_invoke_and_ainvoke():
    """The decider protocols have one method; a plain one (returning its outcome) runs on both paths, under
    ainvoke in a worker thread (never on the event loop), its outcome used as the graph's decision."""
    import asyncio

    from kg_agent.graphs import create_tog_graph
    from kg_agent.kg import open_kg

    kg = open_kg()
    pruner = FirstRelations()
    app = create_tog_graph(kg, relation_pruner=pruner, depth=1, width=1).compile()
    question = {"question": "who directed [Forrest Gump]"}
    sync = app.invoke(question)
    assert pruner.threads == {"MainThread"}
    concurrent = asyncio.run(app.ainvoke(question))
    assert [c["text"] for c in sync["chains"]] == [c["text"] for c in concurrent["chains"]]
    (gump,) = kg.find_entities("Forrest Gump")[:1]
    first_relation = sorted(kg.relations(gump.id))[0]
    from kg_agent.kg.walks import Walk

    assert sync["chains"] and all(Walk.from_dict(c).relations[0] == first_relation for c in sync["chains"])
    assert any(t.startswith("kg-agent-step") for t in pruner.threads - {"MainThread"})


def test_a_custom_decider_written_as_steps_asks_through_the_runtime():
    """A decider whose one method returns steps gets its model request run by the runtime (sync and async), and the
    call is counted in the state's usage; `decided` runs either kind outside a graph."""
    import asyncio

    from kg_agent.graphs import create_tog_graph
    from kg_agent.kg import open_kg
    from kg_agent.llm.scripted import ScriptedChatModel
    from kg_agent.steps import decided

    model = ScriptedChatModel(responder=lambda prompt: "yes")
    verifier = AskingVerifier(model)
    app = create_tog_graph(open_kg(), verifier=verifier, depth=2).compile()
    question = {"question": "who directed [Forrest Gump]"}
    for result in (app.invoke(question), asyncio.run(app.ainvoke(question))):
        assert result["stop_reason"] == "verified" and result["usage"]["by_node"]["verify"]["calls"] == 1
    assert decided(verifier.verify, "q", [], depth=1).sufficient
    assert decided(FirstRelations().score_relations, "q", None, ["b", "a"], width=1).items == [("a", 1.0)]
