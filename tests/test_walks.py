"""One walk record (:class:`~kg_agent.kg.walks.Walk`) for RoG's paths, ToG's and ToG-I's chains and ToG-2's frontier
items: one plain-JSON shape in the state, one text, one chat reply, whatever method took the walk."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage

from kg_agent.graphs import create_rog_graph, create_tog2_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg.types import Entity, Path, Triple
from kg_agent.kg.walks import Walk
from kg_agent.tools.shared.link import chat_reply_text

FACTORIES = {"rog": create_rog_graph, "tog": create_tog_graph, "tog_i": create_tog_i_graph, "tog2": create_tog2_graph}
QUESTION = "who directed [Forrest Gump]"
FORREST, ZEMECKIS = Entity("m:fg", "Forrest Gump"), Entity("p:rz", "Robert Zemeckis")
DIRECTED = Triple(FORREST, "directed_by", ZEMECKIS)


@pytest.fixture(scope="module")
def results(kg):
    return {method: factory(kg).compile().invoke({"messages": [HumanMessage(QUESTION)]})
            for method, factory in FACTORIES.items()}


def walks_of(result: dict) -> list[dict]:
    return [*(result.get("paths") or []), *(result.get("chains") or []),
            *(p for a in result.get("answers") or [] for p in a.get("paths") or [])]


def test_a_walk_is_plain_json_and_reads_back_as_itself():
    walk = Walk(FORREST, (DIRECTED,), score=0.5, scores=(0.5,), depth=1, round=2, details={"clue": "director"})
    data = walk.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data == {"text": "Forrest Gump -> directed_by -> Robert Zemeckis", "start": FORREST.to_dict(),
                    "steps": [DIRECTED.to_dict()], "score": 0.5, "scores": [0.5], "depth": 1, "round": 2,
                    "clue": "director"}
    assert Walk.from_dict(data) == walk
    assert Walk.of(Path(FORREST, (DIRECTED,))).to_dict() == Path(FORREST, (DIRECTED,)).to_dict()  # a bare path: its dict
    assert walk.end == ZEMECKIS and walk.relations == ("directed_by",) and walk.entity_ids == {"m:fg", "p:rz"}
    assert walk.denied("^directed_by") == "m:fg" and walk.denied("directed_by") is None and Walk(FORREST).denied("x") is None
    assert Walk(FORREST).end == FORREST and Walk(FORREST).text() == "Forrest Gump"


@pytest.mark.parametrize("method", list(FACTORIES))
def test_every_method_keeps_its_walks_in_the_one_shape(results, method):
    walks = walks_of(results[method])
    assert walks
    for data in walks:
        walk = Walk.from_dict(data)
        assert walk.to_dict() == data  # nothing a method writes falls outside the record
        assert data["text"] == walk.text() and "triples" not in data


def test_the_same_walk_is_rendered_alike_whatever_method_took_it(results):
    found = {}
    for method, result in results.items():
        [walk] = {Walk.from_dict(d).path for d in walks_of(result) if Walk.from_dict(d).relations == ("directed_by",)}
        found[method] = walk
    assert len(set(found.values())) == 1  # the same walk: start, steps
    texts = {method: Walk.of(path).text() for method, path in found.items()}
    assert set(texts.values()) == {"Forrest Gump -> directed_by -> Robert Zemeckis"}
    replies = {method: result["messages"][-1].content for method, result in results.items()}
    assert set(replies.values()) == {"Robert Zemeckis\nBecause: Forrest Gump -> directed_by -> Robert Zemeckis"}


def test_tog2_frontier_items_are_walks_ending_at_their_entity(kg):
    result = create_tog2_graph(kg).compile().invoke({"question": QUESTION})
    assert result["chains"]
    for item in result["chains"]:
        walk = Walk.from_dict(item)
        assert walk.end.to_dict() == item["entity"] and walk.depth == len(walk.steps)


def test_one_chat_reply_for_every_method():
    walk = Walk(FORREST, (DIRECTED,), score=0.9).to_dict()
    answer = {"answer": "Robert Zemeckis", "grounded": False, "paths": [walk]}
    assert chat_reply_text({"answers": [answer]}) == ("Robert Zemeckis\nBecause: Forrest Gump -> directed_by -> Robert "
                                                      "Zemeckis\n(not confirmed by the knowledge graph)")
    chunk = {"answer": "Robert Zemeckis", "chunks": [{"title": "Forrest Gump (film)", "text": "Directed by Zemeckis."}]}
    assert chat_reply_text({"answers": [chunk]}).endswith("Source: Forrest Gump (film): Directed by Zemeckis.")
    none = {"answers": [], "warnings": ["plan: x", "examine: no answer within the depth limit"]}
    assert chat_reply_text(none) == ("I could not find an answer in the knowledge graph. "
                                     "(examine: no answer within the depth limit)")


def test_the_end_of_a_walks_dict_reads_as_its_end():
    for walk in (Walk(FORREST), Walk(FORREST, (DIRECTED,), details={"plan": 0})):
        assert Walk.end_of(walk.to_dict()) == walk.end.to_dict()
