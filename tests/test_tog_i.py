"""ToG-I as a LangGraph graph: instructions, outer iterations with W = T, the shared ToG tools."""

from __future__ import annotations

import json

from kg_agent.graphs.tog import tog_call_bound
from kg_agent.graphs.tog_i import create_tog_i_graph, tog_i_call_bound
from kg_agent.kg import kg_from_triples
from kg_agent.llm.scripted import ScriptedChatModel
from kg_agent.tools.prompts import prompt_node
from kg_agent.tools.tog.instructions import parse_instructions
from tests.test_tog import FG_Q, LANG_Q, ZEMECKIS_Q, names, path_responder, reach


def with_instructions(responder, instructions, entities=(), *, prose=True):
    """Wrap a ToG responder: answer the instruction prompt with JSON (inside prose, like a chatty model)."""

    def respond(prompt: str) -> str:
        if prompt_node(prompt) == "instructions":
            body = json.dumps({"instructions": list(instructions), "topic_entities": list(entities)})
            return f"Sure! Here is my analysis:\n```json\n{body}\n```\nHope it helps." if prose else body
        if prompt_node(prompt) == "integrate":
            return "Combined: " + " ".join(instructions)
        return responder(prompt)

    return respond


# ------------------------------------------------------------------------------------------------ offline
def test_offline_one_hop_stops_in_the_first_round(kg):
    result = create_tog_i_graph(kg).compile().invoke({"question": FG_Q})
    assert names(result)[0] == "Robert Zemeckis" and result["answers"][0]["grounded"] is True
    assert result["stop_reason"] == "verified" and result["round"] == 1 and result["width"] == 1
    assert result["instructions"] == ["From Forrest Gump, follow 'directed by' (directed_by)."]
    assert all(c["round"] == 1 for c in result["chains"])
    assert result["usage"].get("calls", 0) == 0


def test_offline_two_hop(kg):
    question = "what genres are the films written by [Robert Zemeckis]"
    result = create_tog_i_graph(kg).compile().invoke({"question": question})
    assert result["stop_reason"] == "verified"
    assert len(result["instructions"]) == 2 and "written by (reverse)" in result["instructions"][0]
    assert names(result)[0] in reach(kg, "Robert Zemeckis", "^written_by", "has_genre")


def test_offline_three_hop(kg):
    result = create_tog_i_graph(kg).compile().invoke({"question": LANG_Q})
    assert result["stop_reason"] == "verified" and result["depth"] == 3
    assert names(result)[0] in reach(kg, "Forrest Gump", "directed_by", "^directed_by", "in_language")
    assert result["answers"][0]["paths"][0]["text"].startswith("Forrest Gump -> directed_by -> Robert Zemeckis -> ^directed_by -> ")


def test_stream_order(kg):
    updates = list(create_tog_i_graph(kg).compile().stream({"question": FG_Q}, stream_mode="updates"))
    assert [next(iter(u)) for u in updates] == ["link", "instructions", "integrate", "prune_relations",
                                                "prune_entities", "verify", "answer"]


# ------------------------------------------------------------------------------------------------ scripted
def test_scripted_easy_question_costs_fewer_calls_than_tog(kg):
    responder = with_instructions(path_responder(kg, "Forrest Gump", ("directed_by",)),
                                  ["Look for the director of Forrest Gump."], ["Forrest Gump"])
    model = ScriptedChatModel(responder=responder)
    result = create_tog_i_graph(kg, model=model).compile().invoke({"question": FG_Q})
    assert names(result) == ["Robert Zemeckis"] and result["stop_reason"] == "verified"
    assert result["round"] == 1 and result["width"] == 1 and result["guidance"] == "Look for the director of Forrest Gump."
    by_node = result["usage"]["by_node"]
    assert set(by_node) == {"instructions", "prune_relations", "verify"}  # one relation scored: no entity call
    assert model.calls == 3 < tog_call_bound(3, 3)
    relation_prompt = next(p for p in model.prompts if prompt_node(p) == "prune_relations")
    assert "Please retrieve 1 relations" in relation_prompt and "Guiding instructions: Look for the director" in relation_prompt


def test_second_round_integrates_instructions_and_widens(kg):
    rounds = {"verify": 0}

    def verify(prompt: str) -> str:
        rounds["verify"] += 1
        return "{Yes}. The answer is {Robert Zemeckis}." if rounds["verify"] > 3 else "{No}."

    responder = with_instructions(path_responder(kg, "Forrest Gump", ("directed_by",), verify=verify),
                                  ["Look at the film's credits.", "Find who directed it."])
    model = ScriptedChatModel(responder=responder)
    result = create_tog_i_graph(kg, model=model).compile().invoke({"question": FG_Q})
    assert result["stop_reason"] == "verified" and result["round"] == 2 and result["width"] == 2
    assert result["guidance"].startswith("Combined:")
    assert result["usage"]["by_node"]["integrate"]["calls"] == 1
    assert {c["round"] for c in result["chains"]} == {1, 2}
    assert names(result) == ["Robert Zemeckis"] and result["answers"][0]["grounded"] is True
    assert any(p.startswith("Please retrieve 2 relations") for p in model.prompts)
    assert model.calls <= tog_i_call_bound(3, 3)


def test_exhaustion_answers_from_own_knowledge_flagged(kg):
    responder = with_instructions(
        path_responder(kg, "Robert Zemeckis", ("^directed_by", "starred_actors"), verify=lambda p: "{No}.",
                       answer="From my own knowledge: {Tom Hanks}"),
        ["a", "b", "c"])
    model = ScriptedChatModel(responder=responder)
    result = create_tog_i_graph(kg, model=model, grounding="off").compile().invoke({"question": ZEMECKIS_Q})
    assert result["round"] == 3 and result["stop_reason"] == "max_depth"
    assert names(result) == ["Tom Hanks"] and result["answers"][0]["grounded"] is False
    assert model.calls <= tog_i_call_bound(3, 3)
    # "prefer" (the default): the model's own answer ends no explored chain, so ToG-I without a model answers, grounded
    preferred = create_tog_i_graph(kg, model=ScriptedChatModel(responder=responder)).compile().invoke({"question": ZEMECKIS_Q})
    assert preferred["answers"] and all(a["grounded"] for a in preferred["answers"])
    assert "Tom Hanks" not in names(preferred)
    assert names(preferred) == names(create_tog_i_graph(kg).compile().invoke({"question": ZEMECKIS_Q}))
    assert any("the answers are the grounded answers of offline tog-i" in w for w in preferred["warnings"])


def test_malformed_instructions_and_scores(kg):
    def respond(prompt: str) -> str:
        if prompt_node(prompt) == "instructions":
            return "Here are my thoughts:\n1. Find the director of the film.\n2) Then check their other films."
        if prompt_node(prompt) == "prune_relations":
            return "{directed_by (Score: 3)} and {unknown_rel (Score: 0.5)}"
        if prompt_node(prompt) == "integrate":
            return ""
        return "{Yes}. The answer is {Robert Zemeckis}"

    model = ScriptedChatModel(responder=respond)
    result = create_tog_i_graph(kg, model=model).compile().invoke({"question": FG_Q})
    assert result["instructions"] == ["Find the director of the film.", "Then check their other films."]
    assert names(result) == ["Robert Zemeckis"]
    assert any("unknown_rel" in w for w in result["warnings"])


def test_unusable_instructions_fall_back_offline(kg):
    model = ScriptedChatModel(responder=lambda p: "{No}." if "sufficient" in p else "hmm")
    result = create_tog_i_graph(kg, model=model, max_llm_calls=6).compile().invoke({"question": FG_Q})
    assert any("instructions: fell back to the path generator" in w for w in result["warnings"])
    assert result["instructions"][0].startswith("From Forrest Gump, follow")
    assert model.calls <= 6


def test_suggested_topic_entities_are_linked(kg):
    responder = with_instructions(path_responder(kg, "Forrest Gump", ("directed_by",)),
                                  ["Find the director of the film Forrest Gump."], ["Forrest Gump"])
    model = ScriptedChatModel(responder=responder)
    result = create_tog_i_graph(kg, model=model).compile().invoke({"question": "who directed the film about the running man"})
    assert [e["label"] for e in result["topic_entities"]][-1] == "Forrest Gump"
    assert names(result) == ["Robert Zemeckis"]


def test_call_bound_with_unusable_replies():
    cyclic = kg_from_triples([("Alpha", "knows", "Beta"), ("Beta", "knows", "Gamma"), ("Gamma", "likes", "Delta"),
                              ("Alpha", "likes", "Delta"), ("Delta", "knows", "Beta")])
    for depth in (1, 2, 3):
        model = ScriptedChatModel(responder=lambda p: "??")
        result = create_tog_i_graph(cyclic, model=model, depth=depth).compile().invoke({"question": "who does [Alpha] know"})
        assert model.calls <= tog_i_call_bound(3, depth)
        assert result["usage"]["calls"] == model.calls
    assert tog_i_call_bound(3, 3) == 2 + 3 * 3 + (1 + 3 * 5) + (1 + 3 * 7) == 49


def test_no_relations_goes_through_all_rounds_without_calls():
    small = kg_from_triples([("Lonely", "common.topic.notable_types", "Thing")])
    result = create_tog_i_graph(small).compile().invoke({"question": "who directed [Lonely]"})
    assert result["stop_reason"] == "no_relations" and result["answers"] == []


# ------------------------------------------------------------------------------------------------ full MetaQA
def test_real_metaqa_dev_questions(full_kg, data_dir):
    from kg_agent.eval.datasets import load_metaqa

    q1 = next(q for q in load_metaqa(data_dir / "metaqa" / "1-hop" / "qa_dev.txt") if q.qtype == "movie_to_director")
    result = create_tog_i_graph(full_kg).compile().invoke({"question": q1.extra["raw"]})
    assert names(result)[0] in q1.answers and result["round"] == 1
    q2 = load_metaqa(data_dir / "metaqa" / "2-hop" / "qa_dev.txt")[0]
    relations = ("^directed_by", "in_language")
    responder = with_instructions(path_responder(full_kg, q2.topic_entities[0], relations),
                                  ["Find the films directed by him.", "Find their languages."])
    model = ScriptedChatModel(responder=responder)
    result = create_tog_i_graph(full_kg, model=model).compile().invoke({"question": q2.extra["raw"]})
    assert result["stop_reason"] == "verified" and names(result)[0] in q2.answers
    assert model.calls <= tog_i_call_bound(3, 3)


def test_parse_instructions_forms():
    assert parse_instructions('{"instructions": ["a", "b", "c", "d"], "topic_entities": "X"}', 3) == (["a", "b", "c"], ["X"])
    assert parse_instructions("- first\n- second", 3) == (["first", "second"], [])
    assert parse_instructions("nothing useful", 3) is None
