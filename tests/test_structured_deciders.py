"""Structured output for the LLM deciders (issue 14, Deliver 1), over HTTP against the local OpenAI-compatible server:
json_schema and function calling asked for each decision's schema, the mode counted per node in ``usage``, a
server that refuses json_schema (as llama.cpp's does) falling back to the text prompt, and structured values
validated like text replies."""

from __future__ import annotations

import json

import pytest
from langchain_openai import ChatOpenAI

from kg_agent.graphs import create_graph
from kg_agent.kg import open_kg
from kg_agent.kg.types import Entity
from kg_agent.llm.scripted import ScriptedChatModel
from kg_agent.steps import decided
from kg_agent.tools.prompts import prompt_node
from kg_agent.tools.shared.decider import MAX_ENUM_VALUES, structured_mode
from kg_agent.tools.tog.prune_relations import LLMRelationPruner, ScoredOutcome
from kg_agent.tools.tog2.topic_prune import LLMTopicPruner
from tests.llm_responders import well_behaved
from tests.openai_server import OpenAICompatibleServer

QUESTION = "who directed [Forrest Gump]"
ANSWER = "Robert Zemeckis"


def listed(prompt: str, label: str) -> list[str]:
    return [n.strip() for n in prompt.rsplit(label, 1)[1].splitlines()[0].split(";") if n.strip()]


def structured_reply(prompt: str, schema: dict | None) -> dict:
    """What a model bound to the decision's schema sends: the well-behaved decision as a JSON document."""
    node = prompt_node(prompt)
    if node == "prune_relations":
        relations = listed(prompt, "Relations:")
        return {"items": [{"name": "directed_by" if "directed_by" in relations else relations[0], "score": 1.0}]}
    if node == "prune_entities":
        return {"items": [{"name": name, "score": 1.0 if name == ANSWER else 0.0} for name in listed(prompt, "Entites:")]}
    if node == "verify":
        found = ANSWER in prompt
        return {"sufficient": found, "answer": ANSWER if found else None}
    if node == "plan":
        return {"paths": ["directed_by"]}
    return {"answers": [ANSWER]}


@pytest.fixture(scope="module")
def kg():
    return open_kg()


def chat(server: OpenAICompatibleServer) -> ChatOpenAI:
    return ChatOpenAI(base_url=server.base_url, api_key="test", model="test-model", temperature=0, max_retries=0)


def modes(result: dict) -> dict[str, dict[str, int]]:
    return {node: counts["modes"] for node, counts in result["usage"]["by_node"].items() if "modes" in counts}


@pytest.mark.parametrize("mode", ["json_schema", "function_calling", "json_mode"])
@pytest.mark.parametrize("method", ["tog", "rog"])
def test_each_decision_asks_for_its_schema_and_records_the_mode(kg, method, mode):
    with OpenAICompatibleServer(responder=well_behaved(), structured_responder=structured_reply) as server:
        result = create_graph(method, kg, model=chat(server), structured_output=mode).compile().invoke({"question": QUESTION})
        requests = server.chat_requests
    assert [a["answer"] for a in result["answers"]][:1] == [ANSWER] and result["answers"][0]["grounded"]
    assert not any("fell back" in w for w in result["warnings"])
    if mode == "function_calling":
        assert all(r.tool_choice and r.response_format is None for r in requests)
    else:
        assert {r.response_format for r in requests} == {"json_object" if mode == "json_mode" else "json_schema"}
    recorded = modes(result)
    assert recorded and all(counts == {mode: result["usage"]["by_node"][node]["calls"]} for node, counts in recorded.items())
    assert sum(sum(c.values()) for c in recorded.values()) == len(requests) == result["usage"]["calls"]


def test_a_server_that_refuses_json_schema_gets_the_text_prompt_and_the_refusal_is_recorded(kg):
    def refuse(prompt: str, schema: dict | None):
        raise ValueError("response_format json_schema is not supported")  # the test server answers 500, as llama.cpp does

    with OpenAICompatibleServer(responder=well_behaved(), structured_responder=refuse) as server:
        app = create_graph("tog", kg, model=chat(server), structured_output="json_schema").compile()
        result = app.invoke({"question": QUESTION})
        requests = server.chat_requests
    assert result["answers"][0]["answer"] == ANSWER and result["stop_reason"] == "verified"
    refusals = [w for w in result["warnings"] if "structured output (json_schema) failed" in w]
    assert refusals and all(w.endswith("asking with the text prompt") for w in refusals)
    for node, counts in modes(result).items():  # one refused structured call per node, then text only
        assert counts["json_schema"] == 1 and counts["text"] >= 1, node
    assert [r.response_format for r in requests].count("json_schema") == len(modes(result))
    assert result["usage"]["errors"] == len(modes(result))


def test_a_structured_value_naming_an_unknown_relation_is_rejected_like_a_text_reply(kg):
    """JSON mode sends no schema, so nothing stops a model naming a relation the KG lacks (under a schema with the
    candidates as an enum it could not: the test server refuses to send such a reply)."""
    def made_up(prompt: str, schema: dict | None) -> dict:
        if prompt_node(prompt) == "prune_relations":
            return {"items": [{"name": "invented_relation", "score": 1.0}]}
        return structured_reply(prompt, schema)

    with OpenAICompatibleServer(responder=well_behaved(), structured_responder=made_up) as server:
        result = create_graph("tog", kg, model=chat(server), structured_output="json_mode", depth=1).compile().invoke(
            {"question": QUESTION})
        retry = next(r for r in server.chat_requests if r.response_format is None and "Relations:" in r.prompt_text)
    warnings = "\n".join(result["warnings"])
    assert "invented_relation" in warnings and "attempt 1 gave no usable reply" in warnings
    assert "Your previous reply could not be used" in retry.prompt_text and "invented_relation" in retry.prompt_text
    assert modes(result)["prune_relations"] == {"json_mode": 1, "text": 1}
    assert result["answers"][0]["answer"] == ANSWER


def test_a_structured_reply_that_breaks_the_schema_is_retried_in_text(kg):
    with OpenAICompatibleServer(responder=well_behaved(), structured_responder=structured_reply) as server:
        server.malform_next(1, "wrong_schema")
        result = create_graph("rog", kg, model=chat(server), structured_output="json_schema").compile().invoke(
            {"question": QUESTION})
    warnings = "\n".join(result["warnings"])
    assert "plan: the structured reply does not match the RelationPaths schema" in warnings
    assert modes(result)["plan"] == {"json_schema": 1, "text": 1}
    assert result["answers"][0]["answer"] == ANSWER


def test_auto_mode_is_json_schema_on_openais_api_only():
    assert structured_mode(ChatOpenAI(api_key="x", model="gpt-4o-mini")) == "json_schema"
    assert structured_mode(ChatOpenAI(api_key="x", model="m", base_url="http://127.0.0.1:8080/v1")) == "text"
    assert structured_mode(ScriptedChatModel(["x"])) == "text"
    assert structured_mode(ScriptedChatModel(["x"]), "function_calling") == "function_calling"
    with pytest.raises(ValueError, match="structured_output must be one of"):
        structured_mode(ScriptedChatModel(["x"]), "xml")
    with OpenAICompatibleServer(responder=well_behaved()) as openai_like:  # says nothing of a grammar: text prompts
        assert structured_mode(chat(openai_like)) == "text"


def test_auto_mode_reads_the_url_the_client_calls(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert structured_mode(ChatOpenAI(api_key="x", model="m")) == "text"


# -- issue 25: schemas built from the KG's candidates ------------------------------------------------------------
def enums(schema: dict) -> list[list[str]]:
    """Every ``enum`` in a JSON schema, in document order."""
    found = [schema["enum"]] if isinstance(schema.get("enum"), list) else []
    for value in schema.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                found += enums(item)
    return found


def sent_schema(request) -> dict:
    """The schema a chat request carried (json_schema's, llama.cpp's json_object ``schema``, or a forced tool's)."""
    body = request.body
    if request.json_schema:
        return request.json_schema["schema"]
    if isinstance(body.get("response_format"), dict) and "schema" in body["response_format"]:
        return body["response_format"]["schema"]
    return next(t["function"]["parameters"] for t in body["tools"])


def starring_reply(prompt: str, schema: dict | None) -> dict:
    """A model following the cast of a film: ``starred_actors`` (else the first relation offered), the first actor."""
    node = prompt_node(prompt)
    if node == "prune_relations":
        relations = listed(prompt, "Relations:")
        return {"items": [{"name": "starred_actors" if "starred_actors" in relations else relations[0], "score": 1.0}]}
    if node == "prune_entities":
        names = listed(prompt, "Entites:")
        return {"items": [{"name": name, "score": 1.0 if i == 0 else 0.0} for i, name in enumerate(names)]}
    if node == "verify":
        return {"sufficient": True, "answer": None}
    return {"answers": ["Tom Hanks"]}


@pytest.mark.parametrize("mode", ["json_schema", "function_calling"])
def test_each_tog_name_decision_sends_exactly_its_candidates_as_an_enum(kg, mode):
    with OpenAICompatibleServer(responder=well_behaved(), structured_responder=starring_reply) as server:
        result = create_graph("tog", kg, model=chat(server), structured_output=mode).compile().invoke(
            {"question": "who starred in [Forrest Gump]"})
        requests = server.chat_requests
    assert not any("fell back" in w for w in result["warnings"])
    by_node = {"prune_relations": "Relations:", "prune_entities": "Entites:"}
    asked = [(prompt_node(r.prompt_text), r) for r in requests if prompt_node(r.prompt_text) in by_node]
    assert {node for node, _ in asked} == set(by_node)
    for node, request in asked:
        assert enums(sent_schema(request)) == [listed(request.prompt_text, by_node[node])], node
    others = [r for r in requests if prompt_node(r.prompt_text) not in by_node]
    assert others and all(enums(sent_schema(r)) == [] for r in others)  # verify / answer name nothing from a list


def test_tog2_topic_prune_sends_the_linked_entities_as_an_enum(kg):
    entities = [Entity("e:tom", "Tom Hanks"), Entity("e:fg", "Forrest Gump")]
    with OpenAICompatibleServer(structured_responder=lambda prompt, schema: {"keep": ["Forrest Gump"]}) as server:
        pruner = LLMTopicPruner(kg, chat(server), structured_output="json_schema")
        outcome = decided(pruner.prune, "which films starred [Tom Hanks] in [Forrest Gump]", entities)
        (request,) = server.chat_requests
    assert enums(sent_schema(request)) == [["Tom Hanks", "Forrest Gump"]]
    assert [e.label for e in outcome.kept] == ["Forrest Gump"]


class ReverseRanking:
    """An offline pruner ranking relations in reverse order (a deterministic ranking to check the cut by)."""

    name = "reverse"

    def score_relations(self, question, entity, relations, *, width, prefix=(), guidance=""):
        ranked = list(reversed(relations))[:width]
        return ScoredOutcome([(r, 1.0 / len(ranked)) for r in ranked], source=self.name)


@pytest.mark.parametrize(("count", "length", "kept"), [(MAX_ENUM_VALUES + 100, 12, MAX_ENUM_VALUES), (300, 60, 250)])
def test_an_oversize_candidate_list_is_cut_by_the_offline_ranking(count, length, kept):
    """600 short relations: the 500 values OpenAI accepts; 300 of 60 characters: at most 15,000 characters once more
    than 250 values. The offline ranking chooses which go in, and a warning says so."""
    relations = [f"relation_{i:03d}".ljust(length, "x") for i in range(count)]

    def first_offered(prompt: str, schema: dict) -> dict:
        return {"items": [{"name": enums(schema)[0][0], "score": 1.0}]}

    with OpenAICompatibleServer(structured_responder=first_offered) as server:
        pruner = LLMRelationPruner(chat(server), fallback=ReverseRanking(), structured_output="json_schema")
        outcome = decided(pruner.score_relations, "q", Entity("e:x", "X"), relations, width=3)
        (request,) = server.chat_requests
    assert enums(sent_schema(request)) == [list(reversed(relations))[:kept]]
    assert outcome.items == [(relations[-1], 1.0)] and outcome.source == "llm"
    assert any(f"{count} candidates exceed the structured-output enum limit" in w
               and f"the schema lists the first {kept} by the offline ranking" in w for w in outcome.warnings)


def test_auto_mode_on_a_llama_cpp_server_asks_with_its_json_object_schema(kg):
    """llama.cpp's server (``owned_by: "me"``) constrains decoding by a ``json_object`` response format's ``schema``:
    auto finds that once per endpoint and every decision that picks the KG's names asks that way, the names as enums;
    the free-form ones (verify, answer) keep their text prompts."""
    with OpenAICompatibleServer(responder=well_behaved(), structured_responder=structured_reply, dialect="llama.cpp") as server:
        model = chat(server)
        assert structured_mode(model) == "json_object_schema"
        result = create_graph("tog", kg, model=model).compile().invoke({"question": QUESTION})
        requests = server.chat_requests
    assert result["answers"][0]["answer"] == ANSWER and not any("fell back" in w for w in result["warnings"])
    picking = [r for r in requests if prompt_node(r.prompt_text) in ("prune_relations", "prune_entities")]
    assert picking and all(r.response_format == "json_object" and "schema" in r.body["response_format"] for r in picking)
    free_form = [r for r in requests if r not in picking]
    assert free_form and all(r.response_format is None for r in free_form)
    requests = picking
    relations = [r for r in requests if prompt_node(r.prompt_text) == "prune_relations"]
    assert relations and all(enums(sent_schema(r)) == [listed(r.prompt_text, "Relations:")] for r in relations)
    # a grammar server also caps the reply's list: at most W=3 relations (or as many as offered), and at least one
    assert requests and all(sent_schema(r)["properties"][name]["minItems"] == 1 for r in requests
                            for name in sent_schema(r)["required"] if sent_schema(r)["properties"][name].get("type") == "array")
    assert all(sent_schema(r)["properties"]["items"]["maxItems"] == min(3, len(listed(r.prompt_text, "Relations:")))
               for r in relations)
    recorded = modes(result)
    constrained = {"prune_relations", "prune_entities"}
    assert recorded and all(counts == {"json_object_schema" if node in constrained else "text":
                                       result["usage"]["by_node"][node]["calls"]} for node, counts in recorded.items())


def test_a_grammar_reply_cut_at_the_token_cap_is_counted_and_retried(kg):
    """A json_object_schema reply cut at the cap comes back as a reply (its tokens counted like every other call),
    unusable, and the retry asks in text; the mode is not taken as refused."""
    with OpenAICompatibleServer(responder=well_behaved(), structured_responder=structured_reply, dialect="llama.cpp") as server:
        server.malform_next(1, "length")
        graph = create_graph("tog", kg, model=chat(server)).compile()
        result = graph.invoke({"question": QUESTION})
        requests = list(server.chat_requests)
        again = graph.invoke({"question": QUESTION})  # the same deciders: the grammar mode was not given up
    assert result["answers"][0]["answer"] == ANSWER == again["answers"][0]["answer"]
    assert modes(result)["prune_relations"] == {"json_object_schema": 1, "text": 1}
    assert modes(again)["prune_relations"] == {"json_object_schema": 1}
    assert result["usage"]["calls"] == len(requests) and result["usage"]["errors"] == 0
    assert "prune_relations: attempt 1 gave no usable reply" in "\n".join(result["warnings"])


# -- grounding="strict": the answer names a retrieved path end, or "none" ----------------------------------------
HANKS_QUESTION = "who directed the films that [Tom Hanks] starred in"


def prompt_path_ends(prompt: str) -> list[str]:
    """The ends of the reasoning paths an answer prompt shows, in its order."""
    lines = prompt.split("Reasoning Paths:\n", 1)[1].split("\n\nQuestion:", 1)[0].splitlines()
    return list(dict.fromkeys(line.rsplit(" -> ", 1)[-1] for line in lines))


def directing_reply(answer=None):
    """A model planning the directors of the films starred in, answering ``answer(enum)`` (default: the first end)."""
    def respond(prompt: str, schema: dict | None) -> dict:
        if prompt_node(prompt) == "plan":
            return {"paths": ["^starred_actors <SEP> directed_by"]}
        return {"answers": [(answer or (lambda names: names[0]))(enums(schema)[0])]}

    return respond


@pytest.mark.parametrize("mode", ["json_schema", "function_calling"])
def test_a_strict_rog_answer_sends_the_path_ends_and_none_as_its_enum(kg, mode):
    with OpenAICompatibleServer(structured_responder=directing_reply()) as server:
        result = create_graph("rog", kg, model=chat(server), structured_output=mode, grounding="strict").compile().invoke(
            {"question": HANKS_QUESTION})
        (request,) = [r for r in server.chat_requests if prompt_node(r.prompt_text) == "answer"]
    ends = prompt_path_ends(request.prompt_text)
    assert len(ends) > 3 and "Penny Marshall" in ends
    assert enums(sent_schema(request)) == [[*ends, "none"]]
    assert [a["answer"] for a in result["answers"]] == [ends[0]] and result["answers"][0]["grounded"]
    assert modes(result) == {"plan": {mode: 1}, "answer": {mode: 1}}


def test_without_strict_grounding_the_rog_answer_names_anything(kg):
    with OpenAICompatibleServer(responder=well_behaved(), structured_responder=structured_reply) as server:
        create_graph("rog", kg, model=chat(server), structured_output="json_schema").compile().invoke({"question": QUESTION})
        (request,) = [r for r in server.chat_requests if prompt_node(r.prompt_text) == "answer"]
    assert enums(sent_schema(request)) == []


def test_a_strict_answer_of_none_is_a_decision_the_votes_replace(kg):
    with OpenAICompatibleServer(structured_responder=directing_reply(lambda names: "none")) as server:
        result = create_graph("rog", kg, model=chat(server), structured_output="json_schema", grounding="strict").compile(
            ).invoke({"question": HANKS_QUESTION})
    warnings = "\n".join(result["warnings"])
    assert "answer: the model answered that no path end answers the question" in warnings
    assert "attempt 1 gave no usable" not in warnings and modes(result)["answer"] == {"json_schema": 1}
    assert result["answers"] and all(a["grounded"] for a in result["answers"])
    assert "Penny Marshall" in {a["answer"] for a in result["answers"]}


def test_a_llama_cpp_strict_answer_gets_the_grammar_when_asked_for_and_the_text_prompt_under_auto(kg):
    """Asked for (``json_object_schema``), llama.cpp's grammar constrains a strict answer to the path ends, and the
    ends of a plan the question does not ask for (the films Tom Hanks directed) are not offered; the prompt shows
    the decision's schema without repeating the names. Under auto the answer keeps its text prompt there (SmolLM2
    writes it usably, and the grammar cost more tokens than it saved)."""
    def plans_two(prompt: str, schema: dict | None) -> dict:
        if prompt_node(prompt) == "plan":
            return {"paths": ["^starred_actors <SEP> directed_by", "^directed_by"]}
        return {"answers": ["Penny Marshall"]}

    def plans_two_in_text(prompt: str) -> str:
        if prompt_node(prompt) == "plan":
            return "<PATH> ^starred_actors <SEP> directed_by </PATH>\n<PATH> ^directed_by </PATH>"
        return '["Penny Marshall"]'

    answering, used = {}, {}
    for mode in ("json_object_schema", "auto"):
        with OpenAICompatibleServer(responder=plans_two_in_text, structured_responder=plans_two, dialect="llama.cpp") as server:
            result = create_graph("rog", kg, model=chat(server), grounding="strict", structured_output=mode).compile().invoke(
                {"question": HANKS_QUESTION})
            (answering[mode],) = [r for r in server.chat_requests if prompt_node(r.prompt_text) == "answer"]
        used[mode] = modes(result)
        assert [a["answer"] for a in result["answers"]][:1] == ["Penny Marshall"] and result["answers"][0]["grounded"]
    assert used == {"json_object_schema": {"plan": {"json_object_schema": 1}, "answer": {"json_object_schema": 1}},
                    "auto": {"plan": {"json_object_schema": 1}, "answer": {"text": 1}}}
    hanks_directed = {kg.label(f) for f in kg.neighbors(kg.find_entities("Tom Hanks")[0].id, "^directed_by")}
    ends = prompt_path_ends(answering["json_object_schema"].prompt_text)
    assert hanks_directed and hanks_directed <= set(ends)
    assert enums(sent_schema(answering["json_object_schema"])) == [[*(e for e in ends if e not in hanks_directed), "none"]]
    shown = answering["json_object_schema"].prompt_text.rsplit("matches this JSON schema:\n", 1)[1]
    assert json.loads(shown)["properties"]["answers"]["items"] == {"type": "string"} and "enum" not in shown
    assert answering["auto"].response_format is None


def test_an_oversize_list_of_path_ends_is_cut_by_the_offline_votes():
    """600 films, each directed by its own director but for the 40 directors of two films each: 560 path ends
    and "none", more than an enum may list. The votes rank the 40 first (after "none"); the order of the prompt
    would have left them out."""
    from kg_agent.kg import kg_from_triples
    from kg_agent.tools.rog.answer import LLMAnswerer

    triples = []
    for i in range(600):
        film = f"Film {i:03d}"
        triples += [(film, "starred_actors", "The Star"), (film, "directed_by", f"Director {i:03d}" if i < 520 else f"Zed {i % 40:02d}")]
    graph = kg_from_triples(triples)
    twice = {f"Zed {i:02d}" for i in range(40)}

    with OpenAICompatibleServer(structured_responder=directing_reply(lambda names: sorted(twice)[0])) as server:
        answerer = LLMAnswerer(chat(server), max_prompt_paths=1000, structured_output="json_schema", grounding="strict",
                               kg=graph)
        app = create_graph("rog", graph, model=chat(server), answerer=answerer, structured_output="json_schema",
                           max_paths=1000, grounding="off").compile()
        result = app.invoke({"question": "who directed the films [The Star] starred in"})
        (request,) = [r for r in server.chat_requests if prompt_node(r.prompt_text) == "answer"]
    ends = prompt_path_ends(request.prompt_text)
    assert len(ends) == 560 and not twice <= set(ends[:MAX_ENUM_VALUES - 1])  # the prompt's order would cut some
    (offered,) = enums(sent_schema(request))
    assert len(offered) == MAX_ENUM_VALUES and offered[0] == "none" and set(offered[1:41]) == twice
    assert any("561 candidates exceed the structured-output enum limit" in w and "by the offline ranking" in w
               for w in result["warnings"])
    assert [a["answer"] for a in result["answers"]] == ["Zed 00"]


# -- ToG-2's relation prune: one call, each topic entity with its own relations ------------------------------------
def entity_blocks(prompt: str) -> dict[str, list[str]]:
    """Each topic entity of a ToG-2 relation-prune prompt with the relations its block lists."""
    blocks = {}
    for block in prompt.split("Topic entity: ")[1:]:
        label = block.splitlines()[0]
        blocks[label] = [r.strip() for r in block.split("Relations: ", 1)[1].splitlines()[0].split(";")]
    return blocks


def per_entity_enums(schema: dict) -> dict[str, list[str]]:
    """Each choice of a relation-prune schema: its entity's enum -> the enum of its relations' names."""
    def resolved(node: dict) -> dict:  # a $ref into $defs (json_schema), or inline (function calling's tools)
        return schema["$defs"][node["$ref"].rsplit("/", 1)[-1]] if "$ref" in node else node

    out = {}
    for branch in schema["properties"]["choices"]["items"]["anyOf"]:
        choice = resolved(branch)
        (entity,) = choice["properties"]["entity"]["enum"]
        out[entity] = resolved(choice["properties"]["relations"]["items"])["properties"]["name"]["enum"]
    return out


def first_of_each(prompt: str, schema: dict) -> dict:
    """A model bound to the schema choosing the first relation offered to each entity."""
    return {"choices": [{"entity": entity, "relations": [{"name": names[0], "score": 1.0}]}
                        for entity, names in per_entity_enums(schema).items()]}


def tog2_frontier(kg, *names: str) -> tuple[list[dict], list[list[str]]]:
    from kg_agent.tools.tog2.frontier import new_frontier_item
    from kg_agent.tools.tog2.prune_relations import candidate_relations

    frontier = [new_frontier_item(kg.find_entities(name)[0]) for name in names]
    return frontier, [candidate_relations(kg, item) for item in frontier]


@pytest.mark.parametrize("mode", ["json_schema", "function_calling", "json_object_schema"])
def test_tog2_relation_prune_sends_each_topic_entitys_relations_as_its_own_enum(kg, mode):
    from kg_agent.tools.tog2.prune_relations import LLMCombinedRelationPruner

    frontier, candidates = tog2_frontier(kg, "Tom Hanks", "Forrest Gump")
    with OpenAICompatibleServer(structured_responder=first_of_each,
                                dialect="llama.cpp" if mode == "json_object_schema" else "openai") as server:
        pruner = LLMCombinedRelationPruner(chat(server), structured_output=mode)
        choice = decided(pruner.choose, "which films starred [Tom Hanks] in [Forrest Gump]", frontier, candidates, width=2)
        (request,) = server.chat_requests
    blocks = entity_blocks(request.prompt_text)
    assert set(blocks) == {"Tom Hanks", "Forrest Gump"} and all(len(r) > 2 for r in blocks.values())
    assert per_entity_enums(sent_schema(request)) == blocks
    assert choice.chosen == [[(blocks["Tom Hanks"][0], 1.0)], [(blocks["Forrest Gump"][0], 1.0)]]
    assert choice.usage["by_node"]["relation_prune"]["modes"] == {mode: 1}
    if mode == "json_object_schema":  # the grammar: one choice per entity, at most W relations each
        schema = sent_schema(request)
        assert schema["properties"]["choices"]["maxItems"] == 2
        assert all(d["properties"]["relations"]["maxItems"] == 2 for name, d in schema["$defs"].items()
                   if name.startswith("EntityRelations"))


def test_tog2_relation_prune_on_auto_gives_llama_cpp_the_grammar(kg):
    from kg_agent.tools.tog2.prune_relations import LLMCombinedRelationPruner

    frontier, candidates = tog2_frontier(kg, "Tom Hanks", "Forrest Gump")
    with OpenAICompatibleServer(structured_responder=first_of_each, dialect="llama.cpp") as server:
        choice = decided(LLMCombinedRelationPruner(chat(server)).choose, "who starred in [Forrest Gump]", frontier, candidates,
                                                                 width=2)
        (request,) = server.chat_requests
    assert request.body["response_format"]["type"] == "json_object"
    assert per_entity_enums(sent_schema(request)) == entity_blocks(request.prompt_text)
    assert choice.usage["by_node"]["relation_prune"]["modes"] == {"json_object_schema": 1}


class ReverseCombinedRanking:
    """An offline combined pruner ranking each entity's relations in reverse order."""

    name = "reverse"

    def choose(self, question, frontier, candidates, *, width):
        from kg_agent.tools.tog2.prune_relations import RelationChoice

        return RelationChoice([[(r, 1.0 / len(rels)) for r in list(reversed(rels))[:width]] for rels in candidates],
                              source=self.name)


def test_an_oversize_relation_prune_is_cut_by_rank_in_turn_per_entity():
    """Two topic entities with 300 relations each: 602 enum values (the entities' names count too), more than 500.
    Each entity keeps its best by the offline ranking, taken in turn, so both keep 249."""
    from kg_agent.tools.tog2.frontier import new_frontier_item
    from kg_agent.tools.tog2.prune_relations import LLMCombinedRelationPruner

    frontier = [new_frontier_item(Entity("e:a", "Alpha")), new_frontier_item(Entity("e:b", "Beta"))]
    candidates = [[f"a_relation_{i:03d}" for i in range(300)], [f"b_relation_{i:03d}" for i in range(300)]]
    with OpenAICompatibleServer(structured_responder=first_of_each) as server:
        pruner = LLMCombinedRelationPruner(chat(server), fallback=ReverseCombinedRanking(), max_listed_relations=300,
                                           structured_output="json_schema")
        choice = decided(pruner.choose, "q", frontier, candidates, width=3)
        (request,) = server.chat_requests
    offered = per_entity_enums(sent_schema(request))
    assert offered == {"Alpha": list(reversed(candidates[0]))[:249], "Beta": list(reversed(candidates[1]))[:249]}
    assert choice.chosen == [[("a_relation_299", 1.0)], [("b_relation_299", 1.0)]] and choice.source == "llm"
    assert any("600 candidates of 2 subjects exceed the structured-output enum limit" in w
               and "each subject's best in turn by the offline ranking" in w for w in choice.warnings)


@pytest.mark.parametrize("mode", ["json_schema", "function_calling", "auto"])
def test_a_strict_tog_verification_names_an_explored_chains_end(kg, mode):
    """Under grounding="strict" ToG's verifier may answer only the end of an explored chain it is shown (or none);
    auto gives llama.cpp the grammar for it (SmolLM2's strict ToG: 11 -> 7 calls, docs/real_llm.md)."""
    def cast(prompt: str, schema: dict | None) -> dict:
        if prompt_node(prompt) == "verify":
            return {"sufficient": True, "answer": "Tom Hanks"}
        return starring_reply(prompt, schema)

    with OpenAICompatibleServer(structured_responder=cast, dialect="llama.cpp" if mode == "auto" else "openai") as server:
        result = create_graph("tog", kg, model=chat(server), structured_output=mode, grounding="strict", depth=1).compile(
            ).invoke({"question": "who starred in [Forrest Gump]"})
        (request,) = [r for r in server.chat_requests if prompt_node(r.prompt_text) == "verify"]
    ends = list(dict.fromkeys(c["steps"][-1]["tail"]["label"] for c in result["chains"] if c.get("steps")))
    assert "Tom Hanks" in ends and len(ends) > 1
    assert enums(sent_schema(request)) == [ends]
    assert result["stop_reason"] == "verified" and [a["answer"] for a in result["answers"]] == ["Tom Hanks"]
    assert modes(result)["verify"] == {"json_object_schema" if mode == "auto" else mode: 1}


def test_without_strict_grounding_tog_verification_names_anything(kg):
    with OpenAICompatibleServer(responder=well_behaved(), structured_responder=structured_reply) as server:
        create_graph("tog", kg, model=chat(server), structured_output="json_schema", depth=1).compile().invoke(
            {"question": QUESTION})
        (request,) = [r for r in server.chat_requests if prompt_node(r.prompt_text) == "verify"]
    assert enums(sent_schema(request)) == []


# -- issue 25: RoG's plan under the trie of walkable paths, ToG-2's clue query and examiner, a busy server ---------
def walkable_paths(kg, starts: list[str]) -> list[str]:
    from kg_agent.kg.relation_paths import walkable_relation_paths
    from kg_agent.tools.shared.decision_schemas import path_choice

    return [path_choice(p) for p in walkable_relation_paths(kg, starts, max_hops=3)]


def planning_reply(path: str):
    def respond(prompt: str, schema: dict | None) -> dict:
        if prompt_node(prompt) == "plan":
            return {"paths": [path]}
        return {"answers": ["Penny Marshall"]}

    return respond


@pytest.mark.parametrize("mode", ["json_schema", "function_calling", "auto"])
def test_rog_plan_sends_every_walkable_relation_path_as_its_enum(kg, mode):
    """The plan's schema lists exactly the relation paths the KG can walk from the topic entities (GCR's trie, each
    path one name), so a constrained model cannot name a path the KG lacks; llama.cpp gets the grammar under auto,
    capped at k paths."""
    with OpenAICompatibleServer(responder=lambda prompt: '["Penny Marshall"]',
                                structured_responder=planning_reply("^starred_actors <SEP> directed_by"),
                                dialect="llama.cpp" if mode == "auto" else "openai") as server:
        result = create_graph("rog", kg, model=chat(server), structured_output=mode).compile().invoke(
            {"question": HANKS_QUESTION})
        (request,) = [r for r in server.chat_requests if prompt_node(r.prompt_text) == "plan"]
    walkable = walkable_paths(kg, [e["id"] for e in result["topic_entities"]])
    assert len(walkable) > 10 and "^starred_actors <SEP> directed_by" in walkable
    assert enums(sent_schema(request)) == [walkable]
    assert modes(result)["plan"] == {"json_object_schema" if mode == "auto" else mode: 1}
    if mode == "auto":
        assert sent_schema(request)["properties"]["paths"]["maxItems"] == 3
        assert sent_schema(request)["properties"]["paths"]["minItems"] == 1
    assert result["plans"][0]["relations"] == ["^starred_actors", "directed_by"]
    assert "Penny Marshall" in [a["answer"] for a in result["answers"]] and result["answers"][0]["grounded"]
    assert not any("attempt 1 gave no usable" in w for w in result["warnings"])


def test_rog_plan_candidates_are_ranked_by_the_offline_planner_for_an_oversize_trie(kg):
    """Past the enum limits the paths kept are the offline planner's best (asked only then)."""
    from kg_agent.tools.rog.plan import LLMPlanner, SimilarityPlanner
    from kg_agent.tools.shared.decision_schemas import path_choice

    hanks = kg.find_entities("Tom Hanks")[:1]
    offline = SimilarityPlanner(kg)
    planner = LLMPlanner(kg, ScriptedChatModel(["x"]), fallback=offline)
    walkable = walkable_paths(kg, [hanks[0].id])
    candidates = planner._walkable_paths(HANKS_QUESTION, hanks, [tuple(p.split(" <SEP> ")) for p in walkable],
                                         {r for p in walkable for r in p.split(" <SEP> ")}, k=3)
    assert list(candidates.names) == walkable and candidates.most == 3
    best = [path_choice(p.relations) for p in offline.plan(HANKS_QUESTION, hanks, k=5).plans]
    assert candidates.rank()[:5] == best and best[0] == "^starred_actors <SEP> directed_by"


@pytest.mark.parametrize("mode", ["json_schema", "auto"])
def test_tog2_clue_query_names_only_topic_entities(kg, mode):
    from kg_agent.tools.tog2.clue_query import LLMClueWriter, TemplateClueWriter

    def clues(prompt: str, schema: dict) -> dict:
        return {"clues": [{"entity": name, "query": "the films they directed"} for name in enums(schema)[0]]}

    entities = [kg.find_entities("Tom Hanks")[0], kg.find_entities("Forrest Gump")[0]]
    with OpenAICompatibleServer(structured_responder=clues, dialect="llama.cpp" if mode == "auto" else "openai") as server:
        writer = LLMClueWriter(chat(server), fallback=TemplateClueWriter(kg), structured_output=mode)
        outcome = decided(writer.write, "who directed [Forrest Gump]", entities)
        (request,) = server.chat_requests
    assert enums(sent_schema(request)) == [["Tom Hanks", "Forrest Gump"]]
    assert outcome.clues == {e.id: "the films they directed" for e in entities} and outcome.source == "llm"
    assert outcome.usage["by_node"]["clue_query"]["modes"] == {"json_object_schema" if mode == "auto" else mode: 1}
    if mode == "auto":  # the grammar: one clue per entity at most
        assert sent_schema(request)["properties"]["clues"]["maxItems"] == 2


def test_tog2_examiner_asks_a_llama_cpp_server_under_its_grammar_on_auto(kg):
    """The examiner's reply is free text in a JSON shape, which a small model writes usably only under a grammar:
    under auto llama.cpp constrains it though it names no KG candidates; other decisions without candidates do not."""
    from kg_agent.tools.tog2.examine import ExtractiveExaminer, LLMExaminer

    frontier, _ = tog2_frontier(kg, "Forrest Gump")
    with OpenAICompatibleServer(structured_responder=lambda prompt, schema: {"sufficient": False, "clue": "its director"},
                                dialect="llama.cpp") as server:
        examiner = LLMExaminer(chat(server), fallback=ExtractiveExaminer(kg))
        outcome = decided(examiner.examine, "who directed [Forrest Gump]", frontier, [], [], last_round=False)
        (request,) = server.chat_requests
    assert request.response_format == "json_object" and "sufficient" in sent_schema(request)["properties"]
    assert not outcome.sufficient and outcome.clue == "its director" and outcome.source == "llm"
    assert outcome.usage["by_node"]["examine"]["modes"] == {"json_object_schema": 1}


def test_a_llama_cpp_server_busy_with_another_users_generation_is_still_found_to_constrain():
    """llama-cpp-python's server answers ``/v1/models`` only between generations (its model lock): the probe waits
    like a chat call would, instead of taking a busy server for one that constrains nothing for the whole process."""
    import threading

    import httpx

    with OpenAICompatibleServer(responder=lambda prompt: "ok", dialect="llama.cpp", one_slot=True) as server:
        server.fail_next(1, "timeout", delay=3.0)  # another user's generation holds the model for 3 s
        other = threading.Thread(target=lambda: httpx.post(f"{server.base_url}/chat/completions", timeout=30, json={
            "model": "test-model", "messages": [{"role": "user", "content": "hi"}]}))
        other.start()
        while not server.in_flight:
            other.join(0.01)
        mode = structured_mode(chat(server))
        other.join()
    assert mode == "json_object_schema"


def test_a_probe_that_gets_no_answer_is_made_again():
    import socket

    from kg_agent.tools.shared.decider import _endpoint_modes, endpoint_mode

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/v1"  # bound, not listening: refused
        assert endpoint_mode(url, timeout=5) == "text"
    assert (url, "") not in _endpoint_modes
    with OpenAICompatibleServer(responder=lambda prompt: "ok", dialect="llama.cpp") as server:
        assert endpoint_mode(server.base_url) == "json_object_schema"
        assert _endpoint_modes[(server.base_url, "")] == "json_object_schema"


def test_a_server_refusing_what_its_url_was_found_to_constrain_is_asked_again(kg):
    """What a URL's server constrains is kept for the process; a server of another kind restarted behind that URL
    refuses the kept mode once (warned, asked in text), and the next graph asks the server again."""
    from kg_agent.tools.shared.decider import _endpoint_modes

    with OpenAICompatibleServer(responder=well_behaved(), structured_responder=structured_reply) as server:
        _endpoint_modes[(server.base_url, "test")] = "json_object_schema"  # said by a llama.cpp server before it
        first = create_graph("tog", kg, model=chat(server)).compile().invoke({"question": QUESTION})
        second = create_graph("tog", kg, model=chat(server)).compile().invoke({"question": QUESTION})
        probes = [r for r in server.requests if r.path.endswith("/models")]
    assert any("structured output (json_object_schema) failed" in w for w in first["warnings"])
    assert not any("structured output" in w for w in second["warnings"]), second["warnings"]
    assert len(probes) == 1 and (server.base_url, "test") in _endpoint_modes  # this server says it constrains nothing
    assert first["answers"][0]["answer"] == second["answers"][0]["answer"] == ANSWER


def test_auto_mode_on_ollama_asks_with_openais_json_schema(kg):
    """Ollama's ``/v1/models`` names its registry's namespace (``owned_by: "library"``) and it decodes OpenAI's
    ``json_schema`` under the schema: auto asks the KG's candidates that way."""
    with OpenAICompatibleServer(responder=well_behaved(), structured_responder=structured_reply, dialect="ollama") as server:
        model = chat(server)
        assert structured_mode(model) == "json_schema"
        result = create_graph("tog", kg, model=model).compile().invoke({"question": QUESTION})
        pruning = [r for r in server.chat_requests if prompt_node(r.prompt_text) == "prune_relations"]
    assert result["answers"][0]["answer"] == ANSWER
    assert pruning and all(r.response_format == "json_schema" and enums(sent_schema(r)) for r in pruning)


def test_tog_i_instructions_ask_a_llama_cpp_server_under_its_grammar_on_auto(kg):
    """ToG-I's instructions are free text in a JSON shape: under auto llama.cpp's grammar gives the shape."""
    from kg_agent.tools.tog.instructions import LLMInstructionGenerator

    reply = {"instructions": ["Find the director of Forrest Gump."], "topic_entities": ["Forrest Gump"]}
    with OpenAICompatibleServer(structured_responder=lambda prompt, schema: reply, dialect="llama.cpp") as server:
        outcome = decided(LLMInstructionGenerator(chat(server)).generate, QUESTION, kg.find_entities("Forrest Gump"))
        (request,) = server.chat_requests
    assert request.response_format == "json_object" and "instructions" in sent_schema(request)["properties"]
    assert outcome.instructions == ["Find the director of Forrest Gump."] and outcome.source == "llm"
    assert outcome.usage["by_node"]["instructions"]["modes"] == {"json_object_schema": 1}
