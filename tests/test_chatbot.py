"""The method graphs inside a chatbot: a node of a parent ``StateGraph(MessagesState)``, threads kept by a
checkpointer (in memory and SQLite), follow-up questions that lean on the previous turn's answers.

The parent's state is only ``messages``: what carries a turn's entities to the next is the reply itself
(``response_metadata["kg_agent"]``, see :func:`kg_agent.tools.shared.link.reply_message`). Everything runs offline
over the bundled sample KG.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, MessagesState, StateGraph

from kg_agent.graphs import create_rog_graph, create_tog2_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import entity_iri, open_kg

FACTORIES = {"rog": create_rog_graph, "tog": create_tog_graph, "tog_i": create_tog_i_graph, "tog2": create_tog2_graph}
FIRST = "what did [Winston Groom] write"
FOLLOW_UP = "and who directed it?"
THIRD = "and what else did he direct?"


@pytest.fixture(scope="module")
def method_apps(kg):
    """Each method graph compiled once, without a checkpointer: the parent's checkpointer is the one that counts."""
    return {name: factory(kg).compile() for name, factory in FACTORIES.items()}


def chatbot(method_app, checkpointer):
    """The smallest chatbot: every user message goes to the KG method graph, added as a subgraph node."""
    parent = StateGraph(MessagesState)
    parent.add_node("kg", method_app)
    parent.add_edge(START, "kg")
    parent.add_edge("kg", END)
    return parent.compile(checkpointer=checkpointer)


def iri(label: str) -> str:
    return str(entity_iri(label))


def kg_metadata(message) -> dict:
    assert isinstance(message, AIMessage), message
    return message.response_metadata["kg_agent"]


def labels(items) -> list[str]:
    return [item["label"] for item in items]


def assert_two_turn_thread(app, config) -> None:
    first = app.invoke({"messages": [HumanMessage(FIRST)]}, config)
    reply = first["messages"][-1]
    assert reply.content.startswith("Forrest Gump")
    assert labels(kg_metadata(reply)["answers"]) == ["Forrest Gump"]
    assert labels(kg_metadata(reply)["topic_entities"]) == ["Winston Groom"]

    second = app.invoke({"messages": [HumanMessage(FOLLOW_UP)]}, config)
    assert [m.type for m in second["messages"]] == ["human", "ai", "human", "ai"]
    assert second["messages"][2].content == FOLLOW_UP  # the user's words are kept as they were
    meta = kg_metadata(second["messages"][-1])
    # the follow-up had no entity of its own: the previous turn's answer became its topic entity
    assert meta["topic_entities"] == [{"id": iri("Forrest Gump"), "label": "Forrest Gump"}]
    assert meta["answers"][0] == {"id": iri("Robert Zemeckis"), "label": "Robert Zemeckis"}
    assert second["messages"][-1].content.startswith("Robert Zemeckis")


@pytest.mark.parametrize("method", list(FACTORIES))
def test_subgraph_follow_up_with_in_memory_checkpointer(method_apps, method):
    app = chatbot(method_apps[method], InMemorySaver())
    assert_two_turn_thread(app, {"configurable": {"thread_id": f"memory-{method}"}})


@pytest.mark.parametrize("method", list(FACTORIES))
def test_subgraph_follow_up_with_sqlite_checkpointer(method_apps, method, tmp_path):
    with SqliteSaver.from_conn_string(str(tmp_path / "chat.sqlite")) as saver:
        app = chatbot(method_apps[method], saver)
        assert_two_turn_thread(app, {"configurable": {"thread_id": f"sqlite-{method}"}})
    # what was written is really in the database file
    with sqlite3.connect(tmp_path / "chat.sqlite") as db:
        threads = {row[0] for row in db.execute("SELECT DISTINCT thread_id FROM checkpoints")}
    assert f"sqlite-{method}" in threads


def test_sqlite_thread_survives_reopening(tmp_path, kg):
    """Two turns, the saver closed; then a new saver, a new KG and a new graph on the same file go on with the thread."""
    path = str(tmp_path / "chat.sqlite")
    config = {"configurable": {"thread_id": "reopened"}}
    with SqliteSaver.from_conn_string(path) as saver:
        assert_two_turn_thread(chatbot(create_tog_graph(kg).compile(), saver), config)

    with SqliteSaver.from_conn_string(path) as saver:  # as a restarted process would
        app = chatbot(create_tog_graph(open_kg()).compile(), saver)
        before = app.get_state(config).values["messages"]
        assert [m.content for m in before if m.type == "human"] == [FIRST, FOLLOW_UP]
        assert kg_metadata(before[-1])["answers"][0]["label"] == "Robert Zemeckis"

        third = app.invoke({"messages": [HumanMessage(THIRD)]}, config)
    assert len(third["messages"]) == 6
    meta = kg_metadata(third["messages"][-1])
    assert labels(meta["topic_entities"]) == ["Robert Zemeckis"]
    directed = {str(i) for i in kg.neighbors(iri("Robert Zemeckis"), "^directed_by")}
    assert meta["answers"] and {a["id"] for a in meta["answers"]} <= directed


def test_method_graph_called_from_a_node_next_to_other_nodes(method_apps):
    """A chatbot that routes small talk elsewhere and calls the KG graph inside its own node: a follow-up
    after a small-talk turn still refers to the last KG answer."""

    def route(state: MessagesState) -> str:
        return "smalltalk" if state["messages"][-1].content.lower().startswith(("thanks", "hello")) else "ask_kg"

    def smalltalk(state: MessagesState) -> dict:
        return {"messages": [AIMessage("You're welcome!")]}

    def ask_kg(state: MessagesState) -> dict:
        result = method_apps["rog"].invoke({"messages": state["messages"]})
        return {"messages": result["messages"][-1:]}

    parent = StateGraph(MessagesState)
    parent.add_node("smalltalk", smalltalk)
    parent.add_node("ask_kg", ask_kg)
    parent.add_conditional_edges(START, route, ["smalltalk", "ask_kg"])
    parent.add_edge("smalltalk", END)
    parent.add_edge("ask_kg", END)
    app = parent.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "routed"}}

    app.invoke({"messages": [HumanMessage(FIRST)]}, config)
    thanks = app.invoke({"messages": [HumanMessage("thanks!")]}, config)
    assert thanks["messages"][-1].content == "You're welcome!"
    result = app.invoke({"messages": [HumanMessage(FOLLOW_UP)]}, config)
    assert len(result["messages"]) == 6
    meta = kg_metadata(result["messages"][-1])
    assert labels(meta["topic_entities"]) == ["Forrest Gump"]
    assert meta["answers"][0]["label"] == "Robert Zemeckis"


def test_method_graph_with_its_own_checkpointer_resolves_the_follow_up(kg):
    """Used directly as the chatbot (no parent), the graph's own state shows how the follow-up was read."""
    app = create_rog_graph(kg).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "direct"}}
    app.invoke({"messages": [HumanMessage(FIRST)]}, config)
    second = app.invoke({"messages": [HumanMessage(FOLLOW_UP)]}, config)
    assert second["question"] == "and who directed it? [Forrest Gump]"
    assert any("previous turn's entities: Forrest Gump" in w for w in second["warnings"])
    assert second["answers"][0]["answer"] == "Robert Zemeckis"
    assert second["answers"][0]["paths"][0]["text"] == "Forrest Gump -> directed_by -> Robert Zemeckis"


def test_a_question_with_its_own_entity_does_not_use_the_previous_turn(method_apps):
    app = chatbot(method_apps["rog"], InMemorySaver())
    config = {"configurable": {"thread_id": "fresh-entity"}}
    app.invoke({"messages": [HumanMessage(FIRST)]}, config)
    result = app.invoke({"messages": [HumanMessage("who wrote [Big]")]}, config)
    assert labels(kg_metadata(result["messages"][-1])["topic_entities"]) == ["Big"]


def test_follow_up_with_nothing_before_it_says_so(method_apps):
    app = chatbot(method_apps["tog"], InMemorySaver())
    result = app.invoke({"messages": [HumanMessage(FOLLOW_UP)]}, {"configurable": {"thread_id": "empty"}})
    reply = result["messages"][-1]
    assert reply.content.startswith("I could not find an answer")
    assert kg_metadata(reply) == {"method": "tog", "answers": [], "topic_entities": []}


def test_reply_metadata_is_plain_json(method_apps):
    result = chatbot(method_apps["tog2"], None).invoke({"messages": [HumanMessage(FIRST)]})
    meta = kg_metadata(result["messages"][-1])
    assert json.loads(json.dumps(meta)) == meta
    assert meta["method"] == "tog2"


@pytest.mark.parametrize("method", ["rog", "tog"])
def test_follow_up_in_a_chat_whose_replies_came_from_elsewhere_links_the_users_earlier_message(method_apps, method):
    """No reply carries entities (a plain chat model answered before): the user's earlier message is linked."""
    history = [HumanMessage("tell me about Big"),
               AIMessage("Big is a 1988 fantasy comedy in which a boy wakes up as an adult."),  # names 1988, comedy...
               HumanMessage("I mean the film"),  # no entity: skipped
               AIMessage("Yes, the film."),
               HumanMessage(FOLLOW_UP)]
    result = method_apps[method].invoke({"messages": history})
    assert labels(result["topic_entities"]) == ["Big"]  # from the user's words, not the reply's
    assert result["question"] == FOLLOW_UP + " [Big]"
    assert any("earlier message 'tell me about Big': Big" in w for w in result["warnings"])
    assert result["answers"][0]["answer"] == "Penny Marshall"


def test_only_the_current_question_is_left_out_of_the_earlier_messages(method_apps):
    """Two user messages in a row, no reply in between: the first one is still an earlier message."""
    result = method_apps["rog"].invoke({"messages": [HumanMessage("tell me about Big"), HumanMessage(FOLLOW_UP)]})
    assert labels(result["topic_entities"]) == ["Big"]
    alone = method_apps["rog"].invoke({"messages": [HumanMessage(FOLLOW_UP)]})
    assert alone["topic_entities"] == [] and alone["stop_reason"] == "no_topic_entity"
