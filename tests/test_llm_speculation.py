"""Speculative ToG and ToG-I (``speculate=True``), over HTTP against the local OpenAI-compatible server.

While the verifier decides, the next depth's relation pruning (or, at depth D, the answer's call) is asked in the
same batch. The results must be those of a run without speculation, sequential or concurrent, ``invoke`` or
``ainvoke``; the server must see the calls overlap; calls made unnecessary by a Yes are still counted; and the call
budget holds exactly.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

import pytest

from kg_agent.graphs import create_graph
from kg_agent.kg import open_kg
from kg_agent.tools.prompts import prompt_node
from tests.llm_responders import explorer
from tests.openai_server import OpenAICompatibleServer
from tests.test_llm_concurrency import QUESTION, chat_model, garbage_entity_scores, outcome

OPTIONS = {"tog": {"width": 3, "depth": 3}, "tog-i": {"max_instructions": 2, "depth": 2}}


class OverlapRecorder:
    """A responder that takes ``delay`` seconds per call and records which deciders' calls were served at once."""

    def __init__(self, respond: Callable[[str], str], delay: float = 0.05) -> None:
        self.respond = respond
        self.delay = delay
        self.together: set[frozenset] = set()
        self._running: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, prompt: str) -> str:
        node = prompt_node(prompt) or "?"
        with self._lock:
            self.together.update(frozenset((node, other)) for other in self._running)
            self._running.append(node)
        time.sleep(self.delay)
        with self._lock:
            self._running.remove(node)
        return self.respond(prompt)


def verifier_says(reply: str, respond: Callable[[str], str]) -> Callable[[str], str]:
    """``respond``, except that every verification gets ``reply``."""
    return lambda prompt: reply if prompt_node(prompt) == "verify" else respond(prompt)


@pytest.fixture(scope="module")
def kg():
    return open_kg()


def run(kg, respond: Callable[[str], str], method: str, *, speculate: bool, max_concurrency: int = 4,
        use_async: bool = False, text: str = QUESTION, **options) -> tuple[dict, int]:
    """The result and the chat requests the server got."""
    with OpenAICompatibleServer(responder=respond) as server:
        app = create_graph(method, kg, model=chat_model(server), max_concurrency=max_concurrency, speculate=speculate,
                           **{**OPTIONS[method], **options}).compile()
        question = {"question": text}
        result = asyncio.run(app.ainvoke(question)) if use_async else app.invoke(question)
        return result, len(server.chat_requests)


@pytest.mark.parametrize("method", ["tog", "tog-i"])
@pytest.mark.parametrize(("max_concurrency", "use_async"), [(1, False), (4, False), (4, True)])
def test_speculation_gives_the_results_of_a_run_without_it(kg, method, max_concurrency, use_async):
    plain, plain_requests = run(kg, explorer(), method, speculate=False, max_concurrency=max_concurrency, use_async=use_async)
    recorder = OverlapRecorder(explorer())
    ahead, ahead_requests = run(kg, recorder, method, speculate=True, max_concurrency=max_concurrency, use_async=use_async)
    assert plain["answers"] and plain["stop_reason"] == "max_depth"  # the explorer's verifier always says No
    assert outcome(ahead) == outcome(plain)  # answers, chains, output, stop reason, warnings, calls, tokens
    assert ahead["usage"] == plain["usage"]  # nothing was discarded
    assert ahead_requests == plain_requests == plain["usage"]["calls"]
    assert "speculated" not in ahead
    if max_concurrency > 1:  # the server served a verification together with the calls asked ahead
        assert frozenset(("verify", "prune_relations")) in recorder.together
        assert frozenset(("verify", "answer")) in recorder.together


@pytest.mark.parametrize("use_async", [False, True])
def test_entity_scoring_is_asked_ahead_when_the_next_relations_need_no_call(kg, use_async):
    # on this question, at one depth every beam entity has a single relation left: relation pruning needs no model
    # call, so the entity scoring after it is asked with the verification (not so for Tom Hanks' films since a chain
    # may come back to him by another relation: he wrote Larry Crowne)
    text = "who directed the films that [Meg Ryan] starred in"
    plain, plain_requests = run(kg, explorer(), "tog", speculate=False, use_async=use_async, text=text)
    recorder = OverlapRecorder(explorer())
    ahead, ahead_requests = run(kg, recorder, "tog", speculate=True, use_async=use_async, text=text)
    assert frozenset(("verify", "prune_entities")) in recorder.together
    assert outcome(ahead) == outcome(plain) and ahead["usage"] == plain["usage"]
    assert ahead_requests == plain_requests


@pytest.mark.parametrize("use_async", [False, True])
def test_without_speculation_a_verification_never_overlaps_the_next_step(kg, use_async):
    recorder = OverlapRecorder(explorer())
    run(kg, recorder, "tog", speculate=False, use_async=use_async)
    assert frozenset(("prune_entities", "prune_entities")) in recorder.together  # concurrent within a step
    assert not any("verify" in pair and len(pair) == 2 for pair in recorder.together)


def test_relation_pruning_asked_ahead_of_a_yes_is_discarded_and_counted(kg):
    says_yes = verifier_says("{Yes}. The answer is {Tom Hanks}.", explorer())
    plain, plain_requests = run(kg, says_yes, "tog", speculate=False)
    ahead, ahead_requests = run(kg, says_yes, "tog", speculate=True)
    assert plain["stop_reason"] == ahead["stop_reason"] == "verified"
    assert plain["verification"]["depth"] == 1
    assert (plain["answers"], plain["chains"], plain["warnings"], plain["output"]) == \
           (ahead["answers"], ahead["chains"], ahead["warnings"], ahead["output"])
    discarded = ahead["usage"]["speculation"]
    assert discarded["discarded_calls"] > 0 and discarded["discarded_tokens"] > 0
    assert ahead_requests == plain_requests + discarded["discarded_calls"]  # every call the server got is counted
    assert ahead["usage"]["calls"] == ahead_requests
    assert ahead["usage"]["total_tokens"] == plain["usage"]["total_tokens"] + discarded["discarded_tokens"]
    extra = ahead["usage"]["by_node"]["prune_relations"]["calls"] - plain["usage"]["by_node"]["prune_relations"]["calls"]
    assert extra == discarded["discarded_calls"]  # counted under the decider that made them


@pytest.mark.parametrize(("verifier_reply", "discarded"), [("{Yes}. The answer is {Tom Hanks}.", 1),
                                                           ("{Yes}.", 0), ("{No}.", 0)])
def test_the_answer_call_asked_ahead_is_used_unless_the_verifier_answers(kg, verifier_reply, discarded):
    respond = verifier_says(verifier_reply, explorer())
    plain, plain_requests = run(kg, respond, "tog", speculate=False, depth=1)
    ahead, ahead_requests = run(kg, respond, "tog", speculate=True, depth=1)
    assert outcome(ahead)[:5] == outcome(plain)[:5]  # answers, chains, output, stop reason, warnings
    assert ahead_requests == plain_requests + discarded == ahead["usage"]["calls"]
    assert ahead["usage"].get("speculation", {}).get("discarded_calls", 0) == discarded


@pytest.mark.parametrize("respond", [explorer, lambda: garbage_entity_scores(explorer())], ids=["explorer", "garbage"])
@pytest.mark.parametrize("limit", [3, 6, 9, 12, 16, 22])
def test_the_call_budget_holds_and_speculation_changes_nothing_under_it(kg, respond, limit):
    # garbage replies are retried: with several calls of a step at once, which entity's retry gets the budget's
    # last call is a race that makes two runs without speculation differ too, so those run one call at a time
    at_once = 1 if respond is not explorer else 4
    plain, plain_requests = run(kg, respond(), "tog", speculate=False, max_llm_calls=limit, max_concurrency=at_once)
    ahead, ahead_requests = run(kg, respond(), "tog", speculate=True, max_llm_calls=limit, max_concurrency=at_once)
    assert ahead_requests <= limit and ahead_requests == ahead["usage"]["calls"] + ahead["usage"]["errors"]
    assert outcome(ahead) == outcome(plain)


def test_speculation_refuses_token_and_time_budgets(kg):
    for budget in ({"max_tokens": 1000}, {"max_seconds": 30.0}):
        with pytest.raises(ValueError, match="speculate=True cannot be combined with max_tokens or max_seconds"):
            create_graph("tog", kg, model=chat_model_for_nothing(), speculate=True, **budget)
    create_graph("tog", kg, speculate=True, max_llm_calls=5)  # a call budget is fine; offline: nothing to speculate


def chat_model_for_nothing():
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(base_url="http://127.0.0.1:9/v1", api_key="unused", model="unused", max_retries=0)


def test_the_cli_flag_reaches_the_tog_factories_only():
    from kg_agent.cli import build_parser, graph_options
    from kg_agent.graphs.registry import options_for

    args = build_parser().parse_args(["ask", "who directed [Forrest Gump]", "--method", "tog", "--speculate"])
    assert options_for("tog", graph_options(args))["speculate"] is True
    assert options_for("tog-i", graph_options(args))["speculate"] is True
    assert "speculate" not in options_for("rog", graph_options(args))
    plain = build_parser().parse_args(["ask", "who directed [Forrest Gump]", "--method", "tog"])
    assert "speculate" not in graph_options(plain)
