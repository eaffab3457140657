"""What each structured-output mode does against a real local model: llama.cpp's server (tests/local_llm.py).

llama-cpp-python's OpenAI-compatible server differs from OpenAI in ways a decider must know about; these tests pin
them (the table in docs/structured_output.md is made from them). The model is weak, so the assertions are about
the protocol (is the reply a tool call, is it JSON, does it parse), never about the answer being right. Replies are
capped with ``max_tokens`` in ``extra_body`` (llama.cpp ignores ``max_completion_tokens``). Skipped with the reason
when the local model is not installed (``scripts/install_local_llm.sh``).
"""

from __future__ import annotations

import json

import httpx
import openai
import pytest
from langchain_core.exceptions import OutputParserException
from langchain_core.output_parsers import PydanticOutputParser
from pydantic import BaseModel

from kg_agent.steps import decided

try:
    from local_llm import MODEL_ALIAS, LocalLlamaServer
    from openai_server import schema_violations
except ImportError:  # tests/ imported as a package
    from tests.local_llm import MODEL_ALIAS, LocalLlamaServer
    from tests.openai_server import schema_violations

pytestmark = [pytest.mark.real_llm, pytest.mark.server]

MAX_REPLY_TOKENS = 32
QUESTION = "Who directed Forrest Gump? Reply in JSON with the key answer."


class Answer(BaseModel):
    """The answer to the question."""

    answer: str


@pytest.fixture
def model(local_server: LocalLlamaServer):
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        base_url=local_server.base_url, api_key="sk-local", model=MODEL_ALIAS, temperature=0, timeout=120,
        max_retries=0, extra_body={"max_tokens": MAX_REPLY_TOKENS},
    )


def test_json_schema_is_refused_by_llama_cpp(model):
    """llama-cpp-python validates ``response_format.type`` as 'text' | 'json_object' and answers 500 (not 400)."""
    with pytest.raises(openai.InternalServerError, match="Input should be 'text' or 'json_object'"):
        model.with_structured_output(Answer, method="json_schema").invoke(QUESTION)


def test_function_calling_is_a_forced_tool_call(model):
    """A named ``tool_choice`` is grammar-constrained: the reply is a call to the schema's tool, with its keys."""
    result = model.with_structured_output(Answer, method="function_calling", include_raw=True).invoke(QUESTION)

    raw = result["raw"]
    assert raw.response_metadata["finish_reason"] == "tool_calls"
    assert [call["name"] for call in raw.tool_calls] == ["Answer"]
    assert "function_call" in raw.additional_kwargs  # llama.cpp also sends the legacy field
    assert isinstance(result["parsed"], Answer), result


def test_function_calling_streaming_repeats_the_tool_name(model):
    """llama.cpp streams the function name in every tool-call delta; langchain concatenates the pieces."""
    with pytest.raises(OutputParserException, match="Unknown tool type: 'Answer(Answer)+'"):
        list(model.with_structured_output(Answer, method="function_calling").stream(QUESTION))


def test_json_mode_gives_json_but_not_the_schema(model):
    """``json_object`` without a schema only constrains the reply to JSON; the keys are the model's choice.

    The openai SDK parses the reply (langchain-openai sends ``response_format``), so a reply cut at max_tokens
    raises ``LengthFinishReasonError`` instead of reaching the JSON parser.
    """
    roomier = model.model_copy(update={"extra_body": {"max_tokens": 48}})
    try:
        result = roomier.with_structured_output(Answer, method="json_mode", include_raw=True).invoke(QUESTION)
    except openai.LengthFinishReasonError as cut:
        assert cut.completion.choices[0].finish_reason == "length"
        return
    assert isinstance(json.loads(result["raw"].content), dict)
    assert isinstance(result["parsed"], Answer) or isinstance(result["parsing_error"], OutputParserException)


def test_json_object_with_a_schema_is_llama_cpps_json_schema(model):
    """llama.cpp's extension ``{"type": "json_object", "schema": ...}`` constrains the reply to the schema."""
    constrained = model.bind(response_format={"type": "json_object", "schema": Answer.model_json_schema()})

    message = constrained.invoke(QUESTION)

    if message.response_metadata["finish_reason"] == "stop":
        assert isinstance(PydanticOutputParser(pydantic_object=Answer).invoke(message), Answer)
    else:  # cut at max_tokens: still a prefix of the constrained document
        assert message.content.lstrip().startswith("{")


def test_required_tool_choice_is_not_enforced(model):
    """``tool_choice="required"`` is ignored: only a named tool_choice makes llama.cpp call a tool."""

    def lookup(entity: str) -> str:
        """Look an entity up in the knowledge graph."""
        return entity

    message = model.bind_tools([lookup], tool_choice="required").invoke("Look up Forrest Gump.")

    assert message.tool_calls == []
    assert message.content


def test_tool_choice_naming_an_unknown_function_is_a_500(local_server):
    """OpenAI answers 400 for this; llama-cpp-python answers 500 (so the openai SDK would retry it)."""
    client = openai.OpenAI(base_url=local_server.base_url, api_key="sk-local", max_retries=0, timeout=60)
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]

    with pytest.raises(openai.InternalServerError, match="Tool choice 'missing' not found in tools"):
        client.chat.completions.create(
            model=MODEL_ALIAS, messages=[{"role": "user", "content": "hi"}], tools=tools, max_tokens=4,
            tool_choice={"type": "function", "function": {"name": "missing"}},
        )


# -- issue 25: ToG with the real model under llama.cpp's schema grammar -------------------------------------------
class RecordingTransport(httpx.HTTPTransport):
    """The real transport, keeping each chat request's body and the server's reply body."""

    def __init__(self) -> None:
        super().__init__()
        self.exchanges: list[tuple[dict, dict]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        body = response.read()
        if request.url.path.endswith("/chat/completions"):
            self.exchanges.append((json.loads(request.content), json.loads(body)))
        dropped = {"content-encoding", "content-length", "transfer-encoding"}
        headers = [(k, v) for k, v in response.headers.items() if k.lower() not in dropped]
        return httpx.Response(response.status_code, headers=headers, content=body, request=request)


def candidates_listed(prompt: str, label: str) -> list[str]:
    return [n.strip() for n in prompt.rsplit(label, 1)[1].splitlines()[0].split(";") if n.strip()]


def test_tog_with_the_real_model_names_only_the_kgs_candidates(local_server):
    """Auto mode finds llama.cpp's ``json_object`` + ``schema`` grammar; each relation-pruning and entity-scoring
    decision is asked with its candidates as an enum, every reply parses and names only candidates. (A 135M model
    proves the protocol and the constraint, not accuracy.)"""
    from langchain_openai import ChatOpenAI

    from kg_agent.graphs import create_graph
    from kg_agent.kg import open_kg
    from kg_agent.tools.shared.decider import structured_mode

    transport = RecordingTransport()
    model = ChatOpenAI(base_url=local_server.base_url, api_key="sk-local", model=MODEL_ALIAS, temperature=0, timeout=600,
                       max_retries=0, extra_body={"max_tokens": 256}, http_client=httpx.Client(transport=transport, timeout=600))
    assert structured_mode(model) == "json_object_schema"

    result = create_graph("tog", open_kg(), model=model, depth=2).compile().invoke({"question": "who directed [Forrest Gump]"})

    labels = {"prune_relations": "Relations:", "prune_entities": "Entites:"}
    named = []
    for body, reply in transport.exchanges:
        prompt = "\n\n".join(str(m.get("content") or "") for m in body["messages"])
        node = next((n for n, label in labels.items() if label in prompt), None)
        if node is None or "schema" not in (body.get("response_format") or {}):
            continue
        offered = candidates_listed(prompt, labels[node])
        schema = body["response_format"]["schema"]
        assert json.dumps(schema).count('"enum"') == 1 and offered == schema["$defs"]["ScoredName"]["properties"]["name"]["enum"]
        choice = reply["choices"][0]
        assert choice["finish_reason"] == "stop", (node, choice)
        document = json.loads(choice["message"]["content"])
        assert not schema_violations(document, schema), (node, document)
        assert document["items"] and {item["name"] for item in document["items"]} <= set(offered)
        named.append(node)
    assert set(named) == set(labels)
    by_node = result["usage"]["by_node"]
    for node in labels:
        assert by_node[node]["modes"].get("json_object_schema") == by_node[node]["calls"], by_node[node]
    warnings = "\n".join(result["warnings"])
    assert not any(f"{node}: attempt 1" in warnings or f"{node}: fell back" in warnings for node in labels), warnings


def recorded_model(local_server, transport: RecordingTransport):
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(base_url=local_server.base_url, api_key="sk-local", model=MODEL_ALIAS, temperature=0, timeout=600,
                      max_retries=0, extra_body={"max_tokens": 256}, http_client=httpx.Client(transport=transport, timeout=600))


def test_tog2_relation_prune_with_the_real_model_names_each_entitys_own_relations(local_server):
    """One call for two topic entities under the grammar: the reply matches the schema (one choice per entity, each
    an enum of its label with the relations its block lists) and names only each entity's own relations."""
    from kg_agent.kg import open_kg
    from kg_agent.tools.tog2.frontier import new_frontier_item
    from kg_agent.tools.tog2.prune_relations import LLMCombinedRelationPruner, candidate_relations

    kg = open_kg()
    frontier = [new_frontier_item(kg.find_entities(name)[0]) for name in ("Tom Hanks", "Forrest Gump")]
    candidates = [candidate_relations(kg, item) for item in frontier]
    transport = RecordingTransport()
    pruner = LLMCombinedRelationPruner(recorded_model(local_server, transport))
    choice = decided(pruner.choose, "which films starred [Tom Hanks] in [Forrest Gump]", frontier, candidates, width=2)

    ((body, reply),) = transport.exchanges
    schema = body["response_format"]["schema"]
    assert body["response_format"]["type"] == "json_object"
    assert reply["choices"][0]["finish_reason"] == "stop", reply["choices"][0]
    document = json.loads(reply["choices"][0]["message"]["content"])
    assert not schema_violations(document, schema), document
    for picked in document["choices"]:
        index = ["Tom Hanks", "Forrest Gump"].index(picked["entity"])
        assert {r["name"] for r in picked["relations"]} <= set(candidates[index])
    assert choice.usage["by_node"]["relation_prune"]["modes"] == {"json_object_schema": 1}
    assert choice.source == "llm" and not any("fell back" in w for w in choice.warnings), choice.warnings


def test_rog_strict_answer_with_the_real_model_names_a_path_end_or_none(local_server):
    """Under grounding="strict" RoG's answer asked under the grammar (``json_object_schema``; auto keeps its text
    prompt on llama.cpp, see ``LLMDecision.grammar_under_auto``) has the path ends (and "none") as its enum: the reply
    parses on the first call and every answer it gives is a retrieved path end."""
    from kg_agent.graphs import create_graph
    from kg_agent.kg import open_kg
    from kg_agent.tools.rog.answer import LLMAnswerer

    transport = RecordingTransport()
    kg, model = open_kg(), recorded_model(local_server, transport)
    answerer = LLMAnswerer(model, structured_output="json_object_schema", grounding="strict", kg=kg)
    result = create_graph("rog", kg, model=model, grounding="strict", answerer=answerer).compile().invoke(
        {"question": "who directed the films that [Tom Hanks] starred in"})

    (body, reply), = [(b, r) for b, r in transport.exchanges
                      if "answers" in (b.get("response_format") or {}).get("schema", {}).get("properties", {})]
    offered = body["response_format"]["schema"]["properties"]["answers"]["items"]["enum"]
    assert offered[-1] == "none" and len(offered) > 2
    assert reply["choices"][0]["finish_reason"] == "stop", reply["choices"][0]
    document = json.loads(reply["choices"][0]["message"]["content"])
    assert document["answers"] and set(document["answers"]) <= set(offered)
    assert result["usage"]["by_node"]["answer"]["modes"] == {"json_object_schema": 1}
    assert result["usage"]["by_node"]["plan"]["modes"] == {"json_object_schema": 1}
    assert all(a["grounded"] for a in result["answers"])


def test_rog_plan_with_the_real_model_names_only_walkable_paths(local_server):
    """Under auto RoG's plan is asked under llama.cpp's grammar with every relation path walkable from the topic
    entities as the enum (GCR's trie): the reply stops before the cap, parses on the first call and names only paths
    the KG can walk, so no plan is dropped or mapped."""
    from kg_agent.graphs import create_graph
    from kg_agent.kg import open_kg
    from kg_agent.kg.relation_paths import walkable_relation_paths
    from kg_agent.tools.shared.decision_schemas import path_choice

    transport = RecordingTransport()
    kg = open_kg()
    result = create_graph("rog", kg, model=recorded_model(local_server, transport)).compile().invoke(
        {"question": "who directed the films that [Tom Hanks] starred in"})

    (body, reply), = [(b, r) for b, r in transport.exchanges
                      if "paths" in (b.get("response_format") or {}).get("schema", {}).get("properties", {})]
    walkable = [path_choice(p) for p in walkable_relation_paths(kg, [e["id"] for e in result["topic_entities"]])]
    schema = body["response_format"]["schema"]
    assert schema["properties"]["paths"]["items"]["enum"] == walkable
    assert reply["choices"][0]["finish_reason"] == "stop", reply["choices"][0]
    document = json.loads(reply["choices"][0]["message"]["content"])
    assert not schema_violations(document, schema) and document["paths"] and set(document["paths"]) <= set(walkable)
    assert result["usage"]["by_node"]["plan"]["modes"] == {"json_object_schema": 1}
    warnings = "\n".join(result["warnings"])
    assert "plan: attempt 1" not in warnings and "plan: fell back" not in warnings and "plan: dropped" not in warnings
    model_plans = [p for p in result["plans"] if p["source"] == "llm"]
    assert model_plans and {" <SEP> ".join(p["relations"]) for p in model_plans} <= set(walkable)


def test_tog2_with_the_real_model_parses_every_decision_on_the_first_call(local_server):
    """Under auto every ToG-2 decision with the real model is asked under llama.cpp's grammar: the topic prune and
    the clue query name only topic entities, the examiner's free text comes in its JSON shape; none is retried or
    falls back."""
    from kg_agent.graphs import create_tog2_graph
    from kg_agent.kg import open_kg, sample_documents_path

    transport = RecordingTransport()
    kg = open_kg()
    result = create_tog2_graph(kg, model=recorded_model(local_server, transport), documents=sample_documents_path(),
                               depth=1).compile().invoke({"question": "what movies did [Keanu Reeves] act in"})

    by_node = result["usage"]["by_node"]
    assert {"topic_prune", "clue_query", "examine"} <= set(by_node)
    for node, counts in by_node.items():
        assert counts["modes"] == {"json_object_schema": counts["calls"]}, (node, counts)
    for body, reply in transport.exchanges:
        assert reply["choices"][0]["finish_reason"] == "stop", reply["choices"][0]
        assert not schema_violations(json.loads(reply["choices"][0]["message"]["content"]), body["response_format"]["schema"])
    clue = next(json.loads(r["choices"][0]["message"]["content"]) for b, r in transport.exchanges
                if "clues" in b["response_format"]["schema"]["properties"])
    topics = {e["label"] for e in result["topic_entities"]}
    assert clue["clues"] and {c["entity"] for c in clue["clues"]} <= topics
    warnings = "\n".join(result["warnings"])
    assert "attempt 1 gave no usable" not in warnings and "fell back" not in warnings, warnings
