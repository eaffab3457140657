"""Streaming: ``stream_mode="updates"`` names each node as it finishes; custom events (``stream_mode="custom"``)
announce plans, retrieved paths, pruning decisions, ranked document chunks and answers as they are made.

Each custom event is sent from inside a node, so it arrives just before that node's update, and its
payload is plain JSON that agrees with the update."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableLambda
from langgraph.graph import END, START, MessagesState, StateGraph

from kg_agent.graphs import create_rog_graph, create_tog2_graph, create_tog_graph, create_tog_i_graph
from kg_agent.tools.rog.plan import SimilarityPlanner, plan_node
from kg_agent.tools.shared.updates import emit

#: the node that sends each custom event, per method (ToG-2 names its nodes after the paper)
EVENT_NODES = {
    "rog": {"plan": "plan", "retrieve": "retrieve", "answer": "answer"},
    "tog": {"prune_relations": "prune_relations", "prune_entities": "prune_entities", "answer": "answer"},
    "tog_i": {"prune_relations": "prune_relations", "prune_entities": "prune_entities", "answer": "answer"},
    "tog2": {"prune_relations": "relation_prune", "prune_entities": "entity_prune", "answer": "finish"},
}
QUESTIONS = {
    "rog": "who directed the films that [Tom Hanks] starred in",
    "tog": "who directed [Forrest Gump]",
    "tog_i": "who directed [Forrest Gump]",
    "tog2": "what films did [Tom Hanks] star in",
}
FACTORIES = {"rog": create_rog_graph, "tog": create_tog_graph, "tog_i": create_tog_i_graph, "tog2": create_tog2_graph}


@pytest.fixture(scope="module")
def streams(kg):
    """One streamed run per method: the list of (mode, chunk) in arrival order."""
    out = {}
    for method, factory in FACTORIES.items():
        app = factory(kg).compile()
        out[method] = list(app.stream({"question": QUESTIONS[method]}, stream_mode=["updates", "custom"]))
    return out


def updates(stream) -> list[tuple[str, dict]]:
    return [(node, update) for mode, chunk in stream if mode == "updates" for node, update in chunk.items()]


def events(stream) -> list[dict]:
    return [chunk for mode, chunk in stream if mode == "custom"]


@pytest.mark.parametrize("method", list(FACTORIES))
def test_each_event_arrives_just_before_its_nodes_update(streams, method):
    stream = streams[method]
    assert events(stream), "no custom event was streamed"
    for index, (mode, chunk) in enumerate(stream):
        if mode != "custom":
            continue
        assert json.loads(json.dumps(chunk)) == chunk  # plain JSON
        following = next(c for m, c in stream[index + 1:] if m == "updates")
        assert list(following) == [EVENT_NODES[method][chunk["event"]]], chunk["event"]
    # ... and every run ends with its answer event, then the last node
    assert events(stream)[-1]["event"] == "answer"
    assert updates(stream)[-1][0] == EVENT_NODES[method]["answer"]


def test_rog_events_in_order_with_their_payloads(streams):
    stream = streams["rog"]
    assert [name for name, _ in updates(stream)] == ["link", "plan", "retrieve", "answer"]
    sequence = [f"{mode}:{chunk['event'] if mode == 'custom' else next(iter(chunk))}" for mode, chunk in stream]
    assert sequence == ["updates:link", "custom:plan", "updates:plan", "custom:retrieve", "updates:retrieve",
                        "custom:answer", "updates:answer"]
    plan, retrieve, answer = events(stream)
    done = dict(updates(stream))
    assert plan["plans"] == done["plan"]["plans"]
    assert plan["plans"][0]["relations"] == ["^starred_actors", "directed_by"]
    assert retrieve["count"] == len(done["retrieve"]["paths"]) > len(retrieve["paths"]) > 0
    assert retrieve["paths"] == [p["text"] for p in done["retrieve"]["paths"][: len(retrieve["paths"])]]
    assert answer["count"] == len(done["answer"]["answers"])
    assert answer["stop_reason"] == done["answer"]["stop_reason"] == "answered"
    first = done["answer"]["answers"][0]
    assert answer["answers"][0] == {k: first[k] for k in ("answer", "entity_id", "grounded", "score")}


@pytest.mark.parametrize("method", ["tog", "tog_i"])
def test_tog_pruning_events_name_what_was_kept(streams, method):
    stream = streams[method]
    relation_events = [e for e in events(stream) if e["event"] == "prune_relations"]
    entity_events = [e for e in events(stream) if e["event"] == "prune_entities"]
    assert [e["depth"] for e in relation_events] == list(range(1, len(relation_events) + 1))
    assert [e["depth"] for e in entity_events] == [e["depth"] for e in relation_events]
    candidates = [u for n, u in updates(stream) if n == "prune_relations"]
    for event, update in zip(relation_events, candidates):
        assert event["kept"] == [{"entity": p["entity"]["label"], "relation": p["relation"], "score": p["score"]}
                                 for p in update["candidate_relations"]]
    frontiers = [u for n, u in updates(stream) if n == "prune_entities"]
    for event, update in zip(entity_events, frontiers):
        assert event["kept"] == [{"chain": c["text"], "score": c["score"]} for c in update["frontier"]]
    assert {"entity": "Forrest Gump", "relation": "directed_by"}.items() <= relation_events[0]["kept"][0].items()
    assert entity_events[0]["kept"][0]["chain"] == "Forrest Gump -> directed_by -> Robert Zemeckis"
    assert events(stream)[-1]["answers"][0]["answer"] == "Robert Zemeckis"


def test_tog2_entity_prune_event_ranks_document_chunks(streams):
    stream = streams["tog2"]
    (update,) = [u for n, u in updates(stream) if n == "entity_prune"][:1]
    event = next(e for e in events(stream) if e["event"] == "prune_entities")
    assert event["kept"] == [{"entity": f["entity"]["label"], "score": f["score"]} for f in update["frontier"]]
    assert event["chunks"], "the sample films have plot summaries: some chunks must be ranked"
    assert [c["rank"] for c in event["chunks"]] == sorted(c["rank"] for c in event["chunks"])
    gathered = {d["id"]: d for d in update["documents"]}
    for chunk in event["chunks"]:
        assert chunk["id"] in gathered and gathered[chunk["id"]]["entity_label"] == chunk["entity"]
    kept_labels = {k["entity"] for k in event["kept"]}
    assert kept_labels & {c["entity"] for c in event["chunks"]}  # kept entities are those with the best chunks
    relation_event = next(e for e in events(stream) if e["event"] == "prune_relations")
    assert ("Tom Hanks", "^starred_actors") in [(k["entity"], k["relation"]) for k in relation_event["kept"]]


def test_updates_mode_alone_shows_each_node_and_no_custom_event(kg):
    app = create_tog_graph(kg).compile()
    chunks = list(app.stream({"question": QUESTIONS["tog"]}, stream_mode="updates"))
    nodes = [next(iter(chunk)) for chunk in chunks]
    assert nodes[0] == "link" and nodes[-1] == "answer"
    assert {"prune_relations", "prune_entities", "verify"} <= set(nodes)
    assert all(isinstance(chunk, dict) and "event" not in chunk for chunk in chunks)


def test_events_from_a_method_graph_inside_a_chatbot_carry_its_namespace(kg):
    parent = StateGraph(MessagesState)
    parent.add_node("kg", create_rog_graph(kg).compile())
    parent.add_edge(START, "kg")
    parent.add_edge("kg", END)
    app = parent.compile()
    stream = list(app.stream({"messages": [HumanMessage(QUESTIONS["rog"])]}, stream_mode=["updates", "custom"],
                             subgraphs=True))
    custom = [(namespace, chunk["event"]) for namespace, mode, chunk in stream if mode == "custom"]
    assert [event for _, event in custom] == ["plan", "retrieve", "answer"]
    assert all(len(namespace) == 1 and namespace[0].startswith("kg:") for namespace, _ in custom)
    assert [next(iter(chunk)) for namespace, mode, chunk in stream if mode == "updates" and not namespace] == ["kg"]


def test_emit_outside_a_graph_run_does_nothing(kg):
    emit("plan", plans=[])  # no runnable context at all
    assert RunnableLambda(lambda x: emit("plan", plans=[]) or x + 1).invoke(1) == 2  # a context, but no graph run
    state = {"question": QUESTIONS["rog"], "topic_entities": [{"id": str(kg.find_entities("Tom Hanks")[0].id),
                                                                "label": "Tom Hanks"}]}
    update = plan_node(state, planner=SimilarityPlanner(kg))  # a node function called directly
    assert update["plans"]
