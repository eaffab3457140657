"""``warnings`` and ``usage`` are merged by the state's reducers: each node returns only its own warnings and the
usage of its own calls, the graph appends and adds them up, and the first node of a turn (``link``) starts them
afresh, so a thread kept by a checkpointer does not carry the last turn's along. A node function called outside a
graph is applied to a dict state with :func:`~kg_agent.tools.shared.updates.apply_update`, the same reducers."""

from __future__ import annotations

import typing

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Overwrite

from kg_agent.graphs import create_rog_graph, create_tog2_graph, create_tog_graph, create_tog_i_graph
from kg_agent.graphs.state import KGAnswerOutput, KGState, ToG2State, ToGState
from kg_agent.llm import ScriptedChatModel
from kg_agent.llm.usage import merge_usage
from kg_agent.tools.rog.plan import SimilarityPlanner, plan_node
from kg_agent.tools.shared.link import link_node
from kg_agent.tools.shared.updates import REDUCERS, apply_update, combined_updates

try:
    from llm_responders import well_behaved
except ImportError:  # tests/ imported as a package
    from tests.llm_responders import well_behaved

FACTORIES = {"rog": create_rog_graph, "tog": create_tog_graph, "tog_i": create_tog_i_graph, "tog2": create_tog2_graph}
UNKNOWN = "who directed [Qwzx Blorptastic]"
ONE_HOP = "who directed [Forrest Gump]"


def node_updates(app, question: str) -> list[tuple[str, dict]]:
    return [(node, update) for chunk in app.stream({"question": question}, stream_mode="updates")
            for node, update in chunk.items()]


@pytest.mark.parametrize("schema", [KGState, KGAnswerOutput, ToGState, ToG2State])
def test_the_state_declares_the_reducers_apply_update_uses(schema):
    hints = typing.get_type_hints(schema, include_extras=True)
    declared = {name: hint.__metadata__[0] for name, hint in hints.items() if hasattr(hint, "__metadata__")}
    assert declared == REDUCERS


def test_each_node_returns_only_its_own_warnings_and_the_state_holds_all_in_order(kg):
    app = create_rog_graph(kg).compile()
    updates = node_updates(app, UNKNOWN)
    assert [node for node, _ in updates] == ["link", "plan", "retrieve", "answer"]
    plan = dict(updates)["plan"]
    assert plan["warnings"] == ["plan: no topic entity, nothing to plan"]  # not the link step's again
    assert dict(updates)["answer"]["warnings"] == ["answer: no reasoning path, so no answer"]
    result = app.invoke({"question": UNKNOWN})
    assert result["warnings"] == ["link: no entity of the knowledge graph found in the question",
                                  "plan: no topic entity, nothing to plan", "answer: no reasoning path, so no answer"]


@pytest.mark.parametrize("method", ["tog", "rog"])
def test_each_node_returns_the_usage_of_its_own_calls_and_the_state_adds_them_up(kg, method):
    model = ScriptedChatModel(responder=well_behaved())
    app = FACTORIES[method](kg, model=model).compile()
    updates = node_updates(app, ONE_HOP)
    assert dict(updates)["link"]["usage"] == Overwrite({})  # the turn's first step starts it afresh
    with_calls = [(node, update["usage"]) for node, update in updates[1:] if update.get("usage", {}).get("calls")]
    assert len(with_calls) >= 2
    for node, usage in with_calls:
        assert set(usage["by_node"]) == {node}, (node, usage)  # this node's calls, none of the earlier nodes'
    result = app.invoke({"question": ONE_HOP})
    total: dict = {}
    for _, usage in with_calls:
        total = merge_usage(total, usage)
    assert result["usage"] == total and result["usage"]["calls"] == len(model.prompts) // 2


@pytest.mark.parametrize("method", list(FACTORIES))
def test_a_checkpointed_thread_starts_each_turns_warnings_and_usage_afresh(kg, method):
    model = ScriptedChatModel(responder=well_behaved())
    app = FACTORIES[method](kg, model=model).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": f"reducers-{method}"}}
    first = app.invoke({"question": UNKNOWN}, config)
    assert first["warnings"][0] == "link: no entity of the knowledge graph found in the question"
    second = app.invoke({"question": ONE_HOP}, config)
    fresh = FACTORIES[method](kg, model=ScriptedChatModel(responder=well_behaved())).compile().invoke({"question": ONE_HOP})
    assert not any("Qwzx" in w or "no topic entity" in w for w in second["warnings"]), second["warnings"]
    assert second["warnings"] == fresh["warnings"]
    assert second["usage"] == fresh["usage"] and second["usage"]["calls"] > 0


@pytest.mark.parametrize("method", ["rog", "tog2"])
def test_a_chat_thread_does_not_carry_the_last_turns_warnings(kg, method):
    app = FACTORIES[method](kg).compile(checkpointer=InMemorySaver())  # a thread as `langgraph dev` keeps it
    config = {"configurable": {"thread_id": f"reducers-chat-{method}"}}
    first = app.invoke({"messages": [HumanMessage(UNKNOWN)]}, config)
    assert any("Qwzx" in w or "no entity" in w for w in first["warnings"])
    second = app.invoke({"messages": [HumanMessage(ONE_HOP)]}, config)
    assert [m.type for m in second["messages"]] == ["human", "ai", "human", "ai"]
    assert second["messages"][-1].content.startswith("Robert Zemeckis")
    assert not any("Qwzx" in w or "no entity" in w for w in second["warnings"]), second["warnings"]


def test_apply_update_merges_a_direct_node_call_as_the_graph_does(kg):
    state = {"question": ONE_HOP, "warnings": ["old: last turn"], "usage": {"calls": 4}}
    state = apply_update(state, link_node(state, kg=kg))  # the turn's first step: warnings and usage start afresh
    assert state["warnings"] == [] and state["usage"] == {}
    state = apply_update({**state, "warnings": ["link: kept"]}, plan_node(state, planner=SimilarityPlanner(kg)))
    assert state["plans"] and state["warnings"][0] == "link: kept"  # the plan step's warnings come after


def test_combined_updates_keeps_the_turns_fresh_start():
    link = {"usage": Overwrite({}), "warnings": Overwrite(["link: a"])}
    combined = combined_updates(link, {"usage": {"kg_requests": 3}, "warnings": ["tog2: b"]})
    assert combined["usage"] == Overwrite({"kg_requests": 3})
    assert combined["warnings"] == Overwrite(["link: a", "tog2: b"])
    later = combined_updates({"usage": {"calls": 1}}, {"usage": {"calls": 1, "kg_requests": 2}})
    assert later == {"usage": {"calls": 2, "kg_requests": 2}}
    assert combined_updates({}, {"usage": {"kg_requests": 0}}) == {"usage": {"kg_requests": 0}}
