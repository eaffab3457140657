"""KGGroundingMiddleware in LangChain v1 agents (``langchain.agents.create_agent``), with a scripted chat model whose
replies are what a model writes (sentences, a wrong place, a tool call): the reasoning paths reach the model's
system message, grounded replies are kept, ungrounded ones are flagged or replaced by the policy, follow-ups link
through the checked reply, and the async path runs too. The books KG is cookbook/data/my_kg.ttl (no movies)."""

from __future__ import annotations

import asyncio

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from kg_agent.kg import open_kg
from kg_agent.langchain.middleware import KGGroundingMiddleware
from kg_agent.llm.scripted import ScriptedChatModel
from tests.conftest import PROJECT_ROOT

BORN = "where was the author of [Neuromancer] born"
GIBSON_PATH = "Neuromancer -> author -> William Gibson -> place_of_birth -> Conway"


@pytest.fixture(scope="module")
def books():
    return open_kg(str(PROJECT_ROOT / "cookbook" / "data" / "my_kg.ttl"))


def ask(kg, replies, question, *, tools=(), **options):
    model = ScriptedChatModel(replies)
    agent = create_agent(model, tools=list(tools), system_prompt="Answer in one sentence.",
                         middleware=[KGGroundingMiddleware(kg, **options)])
    state = agent.invoke({"messages": [{"role": "user", "content": question}]})
    return state, model


def check_of(state):
    return state["messages"][-1].response_metadata["kg_agent"]["grounding"]


def test_answers_from_the_sample_kg_with_the_paths_in_the_system_message():
    kg = open_kg()  # the bundled sample (movie) KG
    state, model = ask(kg, ["Forrest Gump was directed by Robert Zemeckis."], "who directed [Forrest Gump]")
    prompt = model.prompts[0]
    assert prompt.startswith("Answer in one sentence.\n\nReasoning paths retrieved from the knowledge graph")
    assert "Forrest Gump -> directed_by -> Robert Zemeckis" in prompt
    reply = state["messages"][-1]
    assert reply.text == "Forrest Gump was directed by Robert Zemeckis."  # grounded: kept as written
    assert check_of(state)["checked"] == [{"answer": "Robert Zemeckis", "grounded": True}]
    assert check_of(state)["replaced"] is False
    report = state["kg_grounding"]
    assert [a["answer"] for a in report["answers"]] == ["Robert Zemeckis"]
    assert report["answers"][0]["paths"][0]["text"] == "Forrest Gump -> directed_by -> Robert Zemeckis"
    assert reply.response_metadata["kg_agent"]["answers"][0]["label"] == "Robert Zemeckis"
    assert [m.type for m in state["messages"]] == ["human", "ai"]  # the paths were not added to the conversation


def test_a_wrong_place_is_replaced_by_the_kgs_answer_under_prefer(books):
    state, _ = ask(books, ["William Gibson was born in Vancouver."], BORN)
    reply = state["messages"][-1]
    assert reply.text == f"Conway\nBecause: {GIBSON_PATH}"
    check = check_of(state)
    assert check["replaced"] is True and check["output"] == "William Gibson was born in Vancouver."
    # the author the sentence names is on a path, but the question does not ask for him: no grounding
    assert check["checked"] == [{"answer": "William Gibson was born in Vancouver", "grounded": False}]
    assert any("not supported by any retrieved path" in w for w in check["warnings"])


def test_off_keeps_the_ungrounded_reply_and_flags_it(books):
    state, _ = ask(books, ["William Gibson was born in Vancouver."], BORN, grounding="off")
    assert state["messages"][-1].text == "William Gibson was born in Vancouver."
    check = check_of(state)
    assert check["replaced"] is False and check["checked"][0]["grounded"] is False
    assert state["kg_grounding"]["answers"][0]["grounded"] is False


def test_strict_leaves_out_the_ungrounded_part_of_a_reply(books):
    reply = "William Gibson was born in Conway, South Carolina."
    prefer, _ = ask(books, [reply], BORN)
    assert prefer["messages"][-1].text == reply  # a grounded answer first: kept, the rest flagged
    assert check_of(prefer)["checked"] == [{"answer": "Conway", "grounded": True},
                                           {"answer": "South Carolina", "grounded": False}]
    strict, _ = ask(books, [reply], BORN, grounding="strict")
    assert strict["messages"][-1].text == f"Conway\nBecause: {GIBSON_PATH}"
    assert check_of(strict)["replaced"] is True


def test_strict_withholds_a_reply_when_the_kg_supports_nothing(books):
    state, model = ask(books, ["Isaac Asimov wrote Foundation."], "who wrote [Foundation]", grounding="strict")
    assert "(none found)" in model.prompts[0]
    assert state["messages"][-1].text.startswith("I could not find an answer in the knowledge graph.")
    assert state["kg_grounding"]["answers"] == []


def test_a_tool_call_is_not_checked_the_final_reply_is(books):
    @tool
    def word_count(text: str) -> int:
        """How many words a text has."""
        return len(text.split())

    calls = AIMessage(content="", tool_calls=[{"name": "word_count", "args": {"text": "Conway"}, "id": "call-1"}])
    state, model = ask(books, [calls, "He was born in Conway."], BORN, tools=[word_count])
    assert [m.type for m in state["messages"]] == ["human", "ai", "tool", "ai"]
    assert state["messages"][1].tool_calls and "kg_agent" not in state["messages"][1].response_metadata
    assert check_of(state)["checked"] == [{"answer": "Conway", "grounded": True}]
    assert all(GIBSON_PATH in prompt for prompt in model.prompts)  # both calls saw the paths, retrieved once


def test_a_follow_up_links_the_previous_answer(books):
    model = ScriptedChatModel(["Dune was written by Frank Herbert.", "He was born in Tacoma."])
    agent = create_agent(model, middleware=[KGGroundingMiddleware(books)])
    state = agent.invoke({"messages": [{"role": "user", "content": "who wrote [Dune]"}]})
    assert check_of(state)["checked"] == [{"answer": "Frank Herbert", "grounded": True}]
    state = agent.invoke({"messages": [*state["messages"], {"role": "user", "content": "and where was he born?"}]})
    assert "Frank Herbert -> place_of_birth -> Tacoma" in model.prompts[1]
    assert check_of(state)["checked"] == [{"answer": "Tacoma", "grounded": True}]


def test_ainvoke_runs_the_same_check(books):
    model = ScriptedChatModel(["William Gibson was born in Vancouver."])
    agent = create_agent(model, middleware=[KGGroundingMiddleware(books)])
    state = asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": BORN}]}))
    assert state["messages"][-1].text.startswith("Conway\n")


def test_an_unknown_policy_is_refused(books):
    with pytest.raises(ValueError, match="unknown grounding policy 'loose'"):
        KGGroundingMiddleware(books, grounding="loose")
