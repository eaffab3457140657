"""The node tools and whole method graphs as LangChain tools: behaviour on the sample KG, a tool-calling
agent driven by a scripted chat model, and LangChain's own standard tool suites (langchain-tests)."""

from __future__ import annotations

import asyncio
import functools
import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool
from langchain_tests.integration_tests import ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests
from pydantic import BaseModel

from kg_agent.graphs import create_rog_graph, create_tog_graph
from kg_agent.kg import NO_ENTITY_MESSAGE, open_kg
from kg_agent.langchain.lookup_tools import NeighboursTool, RetrieveTool, SearchEntitiesTool
from kg_agent.langchain.step_tools import AnswerTool, PlanTool
from kg_agent.llm.scripted import ScriptedChatModel
from kg_agent.tools import as_tool, kg_tools
from kg_agent.tools.lookups import paths_from_texts
from kg_agent.tools.prompts import prompt_node

QUESTION = "who directed the films that [Tom Hanks] starred in"
ZEMECKIS_PATH = "Tom Hanks -> ^starred_actors -> Forrest Gump -> directed_by -> Robert Zemeckis"
ALL_TOOLS = ["search_entities", "entity_relations", "neighbours", "plan", "retrieve", "prune_relations",
             "prune_entities", "verify", "answer"]


@functools.lru_cache(maxsize=1)
def sample_kg():
    return open_kg()  # the bundled sample movie KG (shared: the tools only read it)


@functools.lru_cache(maxsize=1)
def rog_tool():
    return as_tool(create_rog_graph(sample_kg()))


@pytest.fixture(scope="module")
def kg():
    return sample_kg()


@pytest.fixture(scope="module")
def tools(kg) -> dict[str, BaseTool]:
    return {tool.name: tool for tool in kg_tools(kg)}


def tool_call(tool: BaseTool, args: dict, call_id: str = "call-1") -> ToolMessage:
    return tool.invoke({"name": tool.name, "args": args, "id": call_id, "type": "tool_call"})


# ------------------------------------------------------------------------------------------------ kg_tools
def test_kg_tools_gives_every_node_tool_with_a_schema_and_a_usable_description(kg):
    tools = kg_tools(kg)
    assert [t.name for t in tools] == ALL_TOOLS
    for tool in tools:
        assert isinstance(tool, BaseTool)
        assert issubclass(tool.args_schema, BaseModel)
        assert tool.tool_call_schema.model_json_schema()["properties"], tool.name
        assert len(tool.description) > 80, tool.name
    by_name = {t.name: t for t in tools}
    for name in ("entity_relations", "neighbours", "plan", "retrieve"):
        assert "^" in by_name[name].description  # the inverse notation is explained
    assert "->" in by_name["retrieve"].description and "->" in by_name["answer"].description


def test_kg_tools_include_picks_tools_and_rejects_unknown_names(kg):
    assert [t.name for t in kg_tools(kg, include=["neighbours", "answer"])] == ["neighbours", "answer"]
    with pytest.raises(ValueError, match="unknown tool name.*'nope'"):
        kg_tools(kg, include=["neighbours", "nope"])


# ------------------------------------------------------------------------------------------------ lookups
def test_neighbours_follow_an_inverse_relation(tools):
    result = tools["neighbours"].invoke({"entity": "Tom Hanks", "relation": "^starred_actors"})
    labels = [n["label"] for n in result["neighbours"]]
    assert "Forrest Gump" in labels
    assert result["count"] == 31 and len(labels) == 20
    assert result["note"] == "showing the first 20 of 31 entities"
    assert json.loads(json.dumps(result)) == result  # JSON-serialisable


def test_neighbours_forward_relation_and_small_limit(tools):
    result = tools["neighbours"].invoke({"entity": "Forrest Gump", "relation": "directed_by"})
    assert [n["label"] for n in result["neighbours"]] == ["Robert Zemeckis"]
    assert "note" not in result
    capped = tools["neighbours"].invoke({"entity": "Tom Hanks", "relation": "^starred_actors", "limit": 3})
    assert len(capped["neighbours"]) == 3 and "3 of 31" in capped["note"]


def test_unknown_entity_names_the_closest_labels_instead_of_raising(tools):
    message = tools["neighbours"].invoke({"entity": "Tom Hankz", "relation": "^starred_actors"})
    assert isinstance(message, str)
    assert "'Tom Hankz' is not an entity of the knowledge graph" in message
    assert "'Tom Hanks'" in message and "search_entities" in message
    reply = tool_call(tools["entity_relations"], {"entity": "Tom Hankz"})
    assert isinstance(reply, ToolMessage) and reply.status == "error"
    assert "'Tom Hanks'" in reply.content


def test_relation_the_entity_lacks_lists_its_relations(tools):
    message = tools["neighbours"].invoke({"entity": "Tom Hanks", "relation": "starred_actors"})
    assert "Tom Hanks has no relation 'starred_actors'" in message
    assert "^starred_actors" in message and "backwards" in message


def test_bad_arguments_come_back_as_a_message(tools):
    reply = tool_call(tools["neighbours"], {"entity": "Tom Hanks"})
    assert reply.status == "error"
    assert reply.content.startswith("invalid arguments") and "relation" in reply.content


def test_search_entities_ranks_the_label_as_written_first(tools):
    result = tools["search_entities"].invoke({"text": "Tom Hanks"})
    first = result["entities"][0]
    assert first["label"] == "Tom Hanks" and "^starred_actors" in first["relations"]
    assert "tom hanks" in [e["label"] for e in result["entities"]]  # the tag, spelt the same way
    fuzzy = tools["search_entities"].invoke({"text": "Forest Gump"})
    assert "Forrest Gump" in [e["label"] for e in fuzzy["entities"]]
    none = tools["search_entities"].invoke({"text": "Zorblax Quux"})
    assert none["entities"] == [] and "not an entity" in none["note"]


def test_entity_relations_splits_outgoing_and_incoming(tools):
    film = tools["entity_relations"].invoke({"entity": "Forrest Gump"})
    assert film["outgoing"]["directed_by"] == 1 and film["outgoing"]["starred_actors"] == 2
    actor = tools["entity_relations"].invoke({"entity": "Tom Hanks"})
    assert actor["outgoing"] == {} and actor["incoming"]["^starred_actors"] == 31
    by_id = tools["entity_relations"].invoke({"entity": actor["entity"]["id"]})
    assert by_id["entity"] == actor["entity"]


# ------------------------------------------------------------------------------------------------ RoG tools
def test_plan_retrieve_answer_chain_of_tools(tools):
    plan = tools["plan"].invoke({"question": QUESTION})
    assert plan["topic_entities"][0]["label"] == "Tom Hanks"
    best = plan["plans"][0]
    assert best["relations"] == ["^starred_actors", "directed_by"] and len(plan["plans"]) == 3

    retrieved = tools["retrieve"].invoke({"entity": "Tom Hanks", "relations": best["relations"], "limit": 50})
    assert ZEMECKIS_PATH in retrieved["paths"]
    assert "Robert Zemeckis" in retrieved["answers"]
    assert retrieved["relation_path"] == "<PATH> ^starred_actors <SEP> directed_by </PATH>"
    assert retrieved["count"] == len(retrieved["paths"]) == 31  # Larry Crowne's director is Tom Hanks himself

    answered = tools["answer"].invoke({"question": QUESTION, "paths": retrieved["paths"]})
    names = {a["answer"]: a for a in answered["answers"]}
    assert names["Robert Zemeckis"]["grounded"] is True
    assert ZEMECKIS_PATH in names["Robert Zemeckis"]["paths"]


def test_plan_with_unknown_entities_says_why(tools):
    message = tools["plan"].invoke({"question": "who directed [Zorblax Quux]"})
    assert NO_ENTITY_MESSAGE in message
    given = tools["plan"].invoke({"question": "what did he star in", "topic_entities": ["Tom Hankz"]})
    assert "'Tom Hanks'" in given and "not an entity" in given
    ok = tools["plan"].invoke({"question": "what films did he star in", "topic_entities": ["Tom Hanks"], "k": 1})
    assert [e["label"] for e in ok["topic_entities"]] == ["Tom Hanks"] and len(ok["plans"]) == 1


def test_retrieve_accepts_a_plan_string_and_a_question(tools):
    result = tools["retrieve"].invoke(
        {"question": QUESTION, "relations": "<PATH> ^starred_actors <SEP> directed_by </PATH>", "limit": 3}
    )
    assert result["start"][0] == "Tom Hanks"
    assert len(result["paths"]) == 3 and "showing the first 3 of 31 paths" in result["note"]
    arrows = tools["retrieve"].invoke({"entity": "Forrest Gump", "relations": "directed_by -> ^directed_by"})
    assert "Forrest Gump -> directed_by -> Robert Zemeckis -> ^directed_by -> The Polar Express" in arrows["paths"]
    assert "Forrest Gump" not in arrows["answers"]  # a path never returns to its start


def test_retrieve_explains_unknown_relations_and_dead_ends(tools):
    unknown = tools["retrieve"].invoke({"entity": "Tom Hanks", "relations": ["acted_in"]})
    assert "unknown relation(s) 'acted_in'" in unknown and "starred_actors" in unknown
    dead = tools["retrieve"].invoke({"entity": "Tom Hanks", "relations": ["^starred_actors", "^directed_by"]})
    assert dead["count"] == 0 and dead["paths"] == []
    assert "'^directed_by' leads to no new entity from the 31 entities reached by" in dead["note"]
    wrong_way = tools["retrieve"].invoke({"entity": "Tom Hanks", "relations": ["starred_actors"]})
    assert "'starred_actors' leads to no new entity from Tom Hanks" in wrong_way["note"]
    neither = tools["retrieve"].invoke({"relations": ["^starred_actors"]})
    assert "give the start" in neither


def test_answer_skips_paths_that_are_not_in_the_kg(tools):
    made_up = "Tom Hanks -> ^starred_actors -> Forrest Gump -> directed_by -> Steven Spielberg"
    result = tools["answer"].invoke({"question": QUESTION, "paths": [ZEMECKIS_PATH, made_up, "not a path ->"]})
    assert [a["answer"] for a in result["answers"]] == ["Robert Zemeckis"]
    assert any("Forrest Gump -> directed_by -> Steven Spielberg is not in the knowledge graph" in w for w in result["warnings"])
    assert any("not a reasoning path" in w for w in result["warnings"])
    empty = tools["answer"].invoke({"question": QUESTION, "paths": []})
    assert empty["answers"] == [] and "no reasoning path" in empty["warnings"][0]


def test_paths_from_texts_keeps_ids_and_relations(kg):
    paths, warnings = paths_from_texts(kg, [ZEMECKIS_PATH])
    assert warnings == []
    [path] = paths
    assert path["text"] == ZEMECKIS_PATH
    assert [s["relation"] for s in path["steps"]] == ["^starred_actors", "directed_by"]
    assert path["steps"][-1]["tail"]["id"] == kg.find_entities("Robert Zemeckis")[0].id


# ------------------------------------------------------------------------------------------------ ToG tools
def test_prune_relations_keeps_width_relations_with_scores(tools):
    result = tools["prune_relations"].invoke({"question": "who directed [Forrest Gump]", "entity": "Forrest Gump"})
    kept = [r["relation"] for r in result["relations"]]
    assert len(kept) == 3 and kept[0] == "directed_by"  # the relation ToG's own offline beam keeps first
    scores = [r["score"] for r in result["relations"]]
    assert scores == sorted(scores, reverse=True) and scores[0] == 1.0
    one = tools["prune_relations"].invoke({"question": "who directed [Forrest Gump]", "entity": "Forrest Gump", "width": 1})
    assert len(one["relations"]) == 1


def test_prune_entities_scores_the_tails_of_a_relation(tools, kg):
    result = tools["prune_entities"].invoke(
        {"question": "who starred in [Forrest Gump]", "entity": "Forrest Gump", "relation": "starred_actors", "width": 5}
    )
    cast = {kg.label(i) for i in kg.neighbors(kg.find_entities("Forrest Gump")[0].id, "starred_actors")}
    assert result["candidates"] == len(cast) == 2
    assert {e["label"] for e in result["entities"]} == cast
    assert max(e["score"] for e in result["entities"]) == 1.0
    assert all(p.startswith("Forrest Gump -> starred_actors -> ") for p in result["paths"])
    wrong = tools["prune_entities"].invoke({"question": "q", "entity": "Forrest Gump", "relation": "^starred_actors"})
    assert "Forrest Gump has no relation '^starred_actors'" in wrong


def test_verify_decides_from_paths(tools):
    done = tools["verify"].invoke({"question": "who directed [Forrest Gump]", "paths": ["Forrest Gump -> directed_by -> Robert Zemeckis"]})
    assert done == {"sufficient": True, "answer": "Robert Zemeckis"}
    more = tools["verify"].invoke({"question": "who directed [Forrest Gump]", "paths": ["Forrest Gump -> starred_actors -> Tom Hanks"]})
    assert more["sufficient"] is False and more["answer"] is None
    bogus = tools["verify"].invoke({"question": "who directed [Forrest Gump]", "paths": ["Forrest Gump -> directed_by -> Tom Hanks"]})
    assert "no usable reasoning path" in bogus and "is not in the knowledge graph" in bogus


# ------------------------------------------------------------------------------------------------ deciders
def test_model_given_makes_the_deciding_tools_ask_it(kg):
    def respond(prompt: str) -> str:
        if prompt_node(prompt) == "plan":
            return "<PATH> ^starred_actors <SEP> directed_by </PATH>"
        return "['Robert Zemeckis', 'Stanley Kubrick']"

    model = ScriptedChatModel(responder=respond)
    tools = {t.name: t for t in kg_tools(kg, model=model, include=["plan", "answer"])}
    plan = tools["plan"].invoke({"question": QUESTION, "k": 1})
    assert plan["plans"] == [{"relations": ["^starred_actors", "directed_by"], "score": 1.0, "planner": "llm"}]
    answered = tools["answer"].invoke({"question": QUESTION, "paths": [ZEMECKIS_PATH]})
    grounded = {a["answer"]: a["grounded"] for a in answered["answers"]}
    assert grounded == {"Robert Zemeckis": True, "Stanley Kubrick": False}
    assert model.calls == 2


def test_a_given_planner_is_used(kg):
    from kg_agent.tools.rog.exemplar import Exemplar
    from kg_agent.tools.rog.plan import ExemplarPlanner

    planner = ExemplarPlanner(kg).fit([Exemplar("what films did [Meg Ryan] act in", ["Sleepless in Seattle", "You've Got Mail"])])
    [plan_tool] = kg_tools(kg, planner=planner, include=["plan"])
    result = plan_tool.invoke({"question": "what films did [Tom Hanks] act in", "k": 1})
    assert result["plans"][0]["planner"] == "exemplar"
    assert plan_tool.decider() is planner


def test_tools_never_write_to_the_kg(kg, tools):
    before = set(kg.graph)
    for name, args in [
        ("search_entities", {"text": "Tom"}), ("entity_relations", {"entity": "Tom Hanks"}),
        ("neighbours", {"entity": "Tom Hanks", "relation": "^starred_actors"}), ("plan", {"question": QUESTION}),
        ("retrieve", {"entity": "Tom Hanks", "relations": ["^starred_actors"]}),
        ("prune_relations", {"question": QUESTION, "entity": "Tom Hanks"}),
        ("prune_entities", {"question": QUESTION, "entity": "Tom Hanks", "relation": "^starred_actors"}),
        ("verify", {"question": QUESTION, "paths": [ZEMECKIS_PATH]}), ("answer", {"question": QUESTION, "paths": [ZEMECKIS_PATH]}),
    ]:
        result = tools[name].invoke(args)
        assert isinstance(result, dict), (name, result)
        json.dumps(result)
    assert set(kg.graph) == before


def test_tools_run_async(tools):
    async def both():
        return await asyncio.gather(
            tools["neighbours"].ainvoke({"entity": "Tom Hanks", "relation": "^starred_actors"}),
            tools["retrieve"].ainvoke({"entity": "Tom Hanks", "relations": ["^starred_actors", "directed_by"]}),
        )

    neighbours, retrieved = asyncio.run(both())
    assert neighbours["count"] == 31 and retrieved["count"] == 31


# ------------------------------------------------------------------------------------------------ as_tool
def test_as_tool_answers_a_whole_question_with_paths(kg):
    tool = as_tool(create_rog_graph(kg))
    assert tool.name == "answer_from_knowledge_graph"
    assert list(tool.tool_call_schema.model_json_schema()["properties"]) == ["question"]
    text = tool.invoke({"question": QUESTION})
    assert text.startswith("Answers (")
    assert f"- Robert Zemeckis: {ZEMECKIS_PATH}" in text.splitlines()
    reply = tool_call(tool, {"question": QUESTION})
    assert reply.content == text
    artifact = {a["answer"]: a for a in reply.artifact["answers"]}
    assert ZEMECKIS_PATH in artifact["Robert Zemeckis"]["paths"]
    assert reply.artifact["stop_reason"] == "answered"


def test_as_tool_async_compiled_graph_and_custom_name(kg):
    tool = as_tool(create_tog_graph(kg).compile(), name="ask_tog", description="Answer with Think-on-Graph.", max_answers=1)
    assert tool.name == "ask_tog" and tool.description == "Answer with Think-on-Graph."
    text = asyncio.run(tool.ainvoke({"question": "who directed [Forrest Gump]"}))
    assert text == "Answers (1):\n- Robert Zemeckis: Forrest Gump -> directed_by -> Robert Zemeckis"


def test_as_tool_explains_when_there_is_no_answer():
    tool = rog_tool()
    text = tool.invoke({"question": "who directed [Zorblax Quux]"})
    assert text.startswith("No answer found in the knowledge graph.")
    assert NO_ENTITY_MESSAGE in text
    reply = tool_call(tool, {"question": "   "})
    assert reply.status == "error" and "no question given" in reply.content


def test_as_tool_rejects_what_is_not_a_graph():
    with pytest.raises(TypeError, match="StateGraph or a compiled graph"):
        as_tool(object())


def test_as_tool_uses_a_fresh_thread_with_a_checkpointer(kg):
    from langgraph.checkpoint.memory import InMemorySaver

    tool = as_tool(create_rog_graph(kg).compile(checkpointer=InMemorySaver()))
    assert "Robert Zemeckis" in tool.invoke({"question": QUESTION})


# ------------------------------------------------------------------------------------------------ agents
def _react_agent(model, tools):
    import warnings

    from langgraph.prebuilt import create_react_agent

    with warnings.catch_warnings():  # moved to langchain.agents.create_agent; langchain is not a dependency
        warnings.simplefilter("ignore")
        return create_react_agent(model, tools)


def _call(name: str, args: dict, call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


def test_scripted_model_binds_tools_and_streams_tool_calls(tools):
    call = _call("neighbours", {"entity": "Tom Hanks", "relation": "^starred_actors"}, "s1")
    bound = ScriptedChatModel([call, call]).bind_tools(list(tools.values()))
    assert bound.kwargs["tools"][2]["function"]["name"] == "neighbours"
    assert bound.invoke("hi").tool_calls == call.tool_calls
    chunks = list(bound.stream("hi"))
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    assert merged.tool_calls == call.tool_calls


def test_tool_calling_agent_explores_the_kg_with_the_node_tools(kg):
    model = ScriptedChatModel([
        _call("neighbours", {"entity": "Tom Hankz", "relation": "^starred_actors"}, "c1"),  # a typo: recoverable
        _call("search_entities", {"text": "Tom Hanks", "limit": 3}, "c2"),
        _call("neighbours", {"entity": "Tom Hanks", "relation": "^starred_actors", "limit": 40}, "c3"),
        _call("neighbours", {"entity": "Forrest Gump", "relation": "directed_by"}, "c4"),
        "Tom Hanks starred in Forrest Gump, which Robert Zemeckis directed.",
    ])
    agent = _react_agent(model, kg_tools(kg))
    result = agent.invoke({"messages": [HumanMessage("Who directed Forrest Gump, a Tom Hanks film?")]})
    replies = {m.tool_call_id: m for m in result["messages"] if isinstance(m, ToolMessage)}
    assert replies["c1"].status == "error" and "'Tom Hanks'" in replies["c1"].content
    assert json.loads(replies["c2"].content)["entities"][0]["label"] == "Tom Hanks"
    assert "Forrest Gump" in [n["label"] for n in json.loads(replies["c3"].content)["neighbours"]]
    assert json.loads(replies["c4"].content)["neighbours"][0]["label"] == "Robert Zemeckis"
    assert result["messages"][-1].content.endswith("Robert Zemeckis directed.")
    assert model.remaining == 0
    assert "Robert Zemeckis" in model.prompts[-1]  # the model saw the tool results


def test_tool_calling_agent_delegates_a_whole_question(kg):
    def respond(prompt: str):
        if "Answers (" in prompt:  # the tool's reply is in the conversation: answer from it
            line = next(line for line in prompt.splitlines() if line.startswith("- Robert Zemeckis"))
            return f"Among them Robert Zemeckis ({line.split(': ', 1)[1]})."
        return _call("answer_from_knowledge_graph", {"question": QUESTION}, "ask-1")

    model = ScriptedChatModel(responder=respond)
    agent = _react_agent(model, [rog_tool()])
    result = agent.invoke({"messages": [HumanMessage(QUESTION)]})
    [tool_reply] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert tool_reply.name == "answer_from_knowledge_graph" and tool_reply.status == "success"
    assert "Robert Zemeckis" in [a["answer"] for a in tool_reply.artifact["answers"]]
    assert result["messages"][-1].content == f"Among them Robert Zemeckis ({ZEMECKIS_PATH})."


# ------------------------------------------------------------------------------------------------ langchain-tests
def async_suite(cls):
    """The standard suites' async tests need pytest-asyncio's mark (strict mode); on their sync tests it is a no-op."""
    cls = pytest.mark.asyncio(cls)
    return pytest.mark.filterwarnings("ignore:The test <Function .* is marked with '@pytest.mark.asyncio'")(cls)


class _NeighboursParams:
    @property
    def tool_constructor(self):
        return NeighboursTool

    @property
    def tool_constructor_params(self) -> dict:
        return {"kg": sample_kg()}

    @property
    def tool_invoke_params_example(self) -> dict:
        return {"entity": "Tom Hanks", "relation": "^starred_actors"}


class _SearchParams:
    @property
    def tool_constructor(self):
        return SearchEntitiesTool

    @property
    def tool_constructor_params(self) -> dict:
        return {"kg": sample_kg()}

    @property
    def tool_invoke_params_example(self) -> dict:
        return {"text": "Forrest Gump", "limit": 3}


class _PlanParams:
    @property
    def tool_constructor(self):
        return PlanTool

    @property
    def tool_constructor_params(self) -> dict:
        return {"kg": sample_kg()}

    @property
    def tool_invoke_params_example(self) -> dict:
        return {"question": QUESTION}


class _RetrieveParams:
    @property
    def tool_constructor(self):
        return RetrieveTool

    @property
    def tool_constructor_params(self) -> dict:
        return {"kg": sample_kg()}

    @property
    def tool_invoke_params_example(self) -> dict:
        return {"entity": "Tom Hanks", "relations": ["^starred_actors", "directed_by"]}


class _AnswerParams:
    @property
    def tool_constructor(self):
        return AnswerTool

    @property
    def tool_constructor_params(self) -> dict:
        return {"kg": sample_kg()}

    @property
    def tool_invoke_params_example(self) -> dict:
        return {"question": QUESTION, "paths": [ZEMECKIS_PATH]}


class _GraphToolParams:
    @property
    def tool_constructor(self):
        return rog_tool()  # an instance: as_tool builds it

    @property
    def tool_invoke_params_example(self) -> dict:
        return {"question": QUESTION}


class TestNeighboursToolUnit(_NeighboursParams, ToolsUnitTests):
    pass


@async_suite
class TestNeighboursToolIntegration(_NeighboursParams, ToolsIntegrationTests):
    pass


class TestSearchEntitiesToolUnit(_SearchParams, ToolsUnitTests):
    pass


@async_suite
class TestSearchEntitiesToolIntegration(_SearchParams, ToolsIntegrationTests):
    pass


class TestPlanToolUnit(_PlanParams, ToolsUnitTests):
    pass


@async_suite
class TestPlanToolIntegration(_PlanParams, ToolsIntegrationTests):
    pass


class TestRetrieveToolUnit(_RetrieveParams, ToolsUnitTests):
    pass


@async_suite
class TestRetrieveToolIntegration(_RetrieveParams, ToolsIntegrationTests):
    pass


class TestAnswerToolUnit(_AnswerParams, ToolsUnitTests):
    pass


@async_suite
class TestAnswerToolIntegration(_AnswerParams, ToolsIntegrationTests):
    pass


class TestGraphToolUnit(_GraphToolParams, ToolsUnitTests):
    pass


@async_suite
class TestGraphToolIntegration(_GraphToolParams, ToolsIntegrationTests):
    pass
