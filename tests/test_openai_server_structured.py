"""Structured output and tool calls over real HTTP: tests/openai_server.py driven by langchain-openai.

Every test goes through the real client stack (``ChatOpenAI`` -> the ``openai`` SDK -> httpx -> the stdlib test
server) and asserts both what the client parsed and what the server recorded. The malformed-reply tests pin what
langchain-openai actually does with each kind of bad structured reply, so a decider built on top knows which
failures raise and which come back as a silent ``None``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import openai
import pytest
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.tools import tool
from pydantic import BaseModel, Field, ValidationError

try:
    from openai_server import OpenAICompatibleServer, ToolCallReply, schema_violations
except ImportError:  # tests/ imported as a package
    from tests.openai_server import (
        OpenAICompatibleServer,
        ToolCallReply,
        schema_violations,
    )

langchain_openai = pytest.importorskip("langchain_openai")


class Answer(BaseModel):
    """The answer to the question, with a confidence from 0 to 10."""

    answer: str = Field(description="the answer entity")
    confidence: int


class Plan(BaseModel):
    """Relation paths that answer the question."""

    paths: list[list[str]]
    answer: Answer | None = None


ANSWER = {"answer": "Robert Zemeckis", "confidence": 9}


@tool
def lookup_entity(name: str) -> str:
    """Look an entity up in the knowledge graph."""
    return name


@tool
def neighbours(entity: str, relation: str) -> list[str]:
    """The entities ``relation`` leads to from ``entity``."""
    return [entity, relation]


@pytest.fixture
def server() -> Iterator[OpenAICompatibleServer]:
    with OpenAICompatibleServer(responder=lambda prompt: ANSWER) as running:
        yield running


def chat(server: OpenAICompatibleServer, **options):
    return langchain_openai.ChatOpenAI(
        base_url=server.base_url, api_key="sk-test", model="test-model", max_retries=0, timeout=10, **options
    )


# -- response_format: json_schema ------------------------------------------------------------------------


def test_json_schema_sync_parses_the_document_and_records_the_schema(server):
    result = chat(server).with_structured_output(Answer, method="json_schema").invoke("who directed Forrest Gump?")

    assert result == Answer(answer="Robert Zemeckis", confidence=9)
    (request,) = server.chat_requests
    assert request.response_format == "json_schema"
    assert request.json_schema["name"] == "Answer"
    assert request.json_schema["schema"]["required"] == ["answer", "confidence"]
    assert request.tool_names == [] and request.tool_choice is None


def test_json_schema_strict_with_nested_models_async(server):
    plan = {"paths": [["film.directed_by"]], "answer": ANSWER}
    server.responder = lambda prompt: plan

    async def run():
        model = chat(server).with_structured_output(Plan, method="json_schema", strict=True)
        return await model.ainvoke("plan it")

    result = asyncio.run(run())

    assert result == Plan(paths=[["film.directed_by"]], answer=Answer(**ANSWER))
    (request,) = server.chat_requests
    assert request.json_schema["strict"] is True
    assert "$defs" in request.json_schema["schema"]  # the nested model travels as a $ref, validated by the server


def test_json_schema_streaming_yields_the_parsed_document(server):
    chunks = list(chat(server).with_structured_output(Answer, method="json_schema").stream("q"))

    assert chunks[-1] == Answer(**ANSWER)
    (request,) = server.chat_requests
    assert request.body["stream"] is True and request.response_format == "json_schema"


def test_structured_responder_gets_the_prompt_and_the_schema(server):
    seen = []

    def structured(prompt, schema):
        seen.append((prompt, schema))
        return {"answer": prompt.upper(), "confidence": len(schema["properties"])}

    server.structured_responder = structured
    server.responder = lambda prompt: "plain text is for requests without a structured mode"

    result = chat(server).with_structured_output(Answer, method="json_schema").invoke("zemeckis")
    plain = chat(server).invoke("hello")

    assert result == Answer(answer="ZEMECKIS", confidence=2)
    assert seen[0][1]["title"] == "Answer"
    assert plain.content == "plain text is for requests without a structured mode"


def test_strict_schema_violation_is_a_500_not_a_reply(server):
    server.responder = lambda prompt: {"answer": "Robert Zemeckis", "confidence": "very"}

    with pytest.raises(openai.InternalServerError, match=r"confidence: expected integer"):
        chat(server).with_structured_output(Answer, method="json_schema", strict=True).invoke("q")


def test_non_strict_schema_is_not_enforced(server):
    """A pydantic class always goes out strict (the openai SDK sets it); a dict schema may go out non-strict."""
    server.responder = lambda prompt: {"answer": "Robert Zemeckis", "confidence": "very"}
    schema = {"title": "Answer", "description": "The answer.", **Answer.model_json_schema()}

    result = chat(server).with_structured_output(schema, method="json_schema", strict=False).invoke("q")

    assert result == {"answer": "Robert Zemeckis", "confidence": "very"}  # sent and returned unchecked
    assert server.chat_requests[0].json_schema["strict"] is False
    with pytest.raises(openai.InternalServerError):
        chat(server).with_structured_output(Answer, method="json_schema", strict=False).invoke("q")
    assert server.chat_requests[1].json_schema["strict"] is True


# -- response_format: json_object -------------------------------------------------------------------------


def test_json_mode_sends_json_object_and_parses_with_the_pydantic_parser(server):
    seen = []
    server.structured_responder = lambda prompt, schema: seen.append(schema) or ANSWER

    result = chat(server).with_structured_output(Answer, method="json_mode").invoke("reply in JSON")

    assert result == Answer(**ANSWER)
    assert seen == [None]  # json_object carries no schema
    assert server.chat_requests[0].response_format == "json_object"


def test_json_mode_with_a_prose_reply_breaks_the_json_guarantee(server):
    server.responder = lambda prompt: "Robert Zemeckis"

    with pytest.raises(openai.InternalServerError, match="not JSON"):
        chat(server).with_structured_output(Answer, method="json_mode").invoke("q")


# -- tools ------------------------------------------------------------------------------------------------


def test_function_calling_forces_the_tool_and_parses_its_arguments(server):
    result = chat(server).with_structured_output(Answer, method="function_calling").invoke("q")

    assert result == Answer(**ANSWER)
    (request,) = server.chat_requests
    assert request.tool_names == ["Answer"]
    assert request.tool_choice == {"type": "function", "function": {"name": "Answer"}}
    assert request.response_format is None


def test_function_calling_streaming_assembles_argument_fragments(server):
    chunks = list(chat(server).with_structured_output(Answer, method="function_calling").stream("q"))

    assert chunks[-1] == Answer(**ANSWER)
    assert server.chat_requests[0].body["stream"] is True


def test_tool_call_reply_has_openais_shape(server):
    server.responder = lambda prompt: [
        ToolCallReply("lookup_entity", {"name": "Forrest Gump"}),
        ToolCallReply("neighbours", {"entity": "Forrest Gump", "relation": "directed_by"}),
    ]
    client = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
    tools = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in ("lookup_entity", "neighbours")]

    completion = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}], tools=tools)

    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    calls = choice.message.tool_calls
    assert [call.type for call in calls] == ["function", "function"]
    assert all(call.id.startswith("call_") for call in calls) and calls[0].id != calls[1].id
    assert [json.loads(call.function.arguments) for call in calls] == [
        {"name": "Forrest Gump"},
        {"entity": "Forrest Gump", "relation": "directed_by"},
    ]


def test_bind_tools_auto_returns_tool_calls_and_text(server):
    model = chat(server).bind_tools([lookup_entity, neighbours], tool_choice="auto")
    server.add_responses(ToolCallReply("neighbours", {"entity": "Forrest Gump", "relation": "directed_by"}), "No tool needed.")

    called = model.invoke("who directed Forrest Gump?")
    answered = model.invoke("hi")

    assert isinstance(called, AIMessage) and called.content == ""
    assert [(c["name"], c["args"]) for c in called.tool_calls] == [("neighbours", {"entity": "Forrest Gump", "relation": "directed_by"})]
    assert called.response_metadata["finish_reason"] == "tool_calls"
    assert answered.content == "No tool needed." and answered.tool_calls == []
    assert server.chat_requests[0].tool_names == ["lookup_entity", "neighbours"]
    assert server.chat_requests[0].tool_choice == "auto"


def test_bind_tools_async_streaming_tool_call_deltas(server):
    server.responder = lambda prompt: [
        ToolCallReply("lookup_entity", {"name": "Forrest Gump"}),
        ToolCallReply("neighbours", {"entity": "Forrest Gump", "relation": "directed_by"}),
    ]
    model = chat(server).bind_tools([lookup_entity, neighbours], tool_choice="required")

    async def run():
        return [chunk async for chunk in model.astream("go")]

    chunks = asyncio.run(run())

    # one opening delta per call (index, id, name) then argument fragments carrying only the index
    fragments = [c for chunk in chunks for c in chunk.tool_call_chunks]
    assert [f["name"] for f in fragments if f["id"]] == ["lookup_entity", "neighbours"]
    assert all(f["name"] is None and f["id"] is None for f in fragments if not f["id"])
    assert len(fragments) > 4
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    assert isinstance(merged, AIMessageChunk)
    assert [(c["name"], c["args"]) for c in merged.tool_calls] == [
        ("lookup_entity", {"name": "Forrest Gump"}),
        ("neighbours", {"entity": "Forrest Gump", "relation": "directed_by"}),
    ]
    assert merged.response_metadata["finish_reason"] == "tool_calls"
    assert server.chat_requests[0].tool_choice == "required"


def test_named_tool_choice_turns_a_dict_reply_into_that_call(server):
    server.responder = lambda prompt: {"name": "Forrest Gump"}

    reply = chat(server).bind_tools([lookup_entity, neighbours], tool_choice="lookup_entity").invoke("go")

    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("lookup_entity", {"name": "Forrest Gump"})]
    assert server.chat_requests[0].tool_choice == {"type": "function", "function": {"name": "lookup_entity"}}


def test_tool_choice_none_answers_in_text_and_refuses_scripted_calls(server):
    model = chat(server).bind_tools([lookup_entity], tool_choice="none")
    server.add_responses("Robert Zemeckis", ToolCallReply("lookup_entity", {"name": "x"}))

    assert model.invoke("q").content == "Robert Zemeckis"
    with pytest.raises(openai.InternalServerError, match="tool_choice was 'none'"):
        model.invoke("q")


def test_required_tool_choice_with_a_text_reply_breaks_the_guarantee(server):
    server.responder = lambda prompt: "I would rather chat."

    with pytest.raises(openai.InternalServerError, match="requires a tool call"):
        chat(server).bind_tools([lookup_entity, neighbours], tool_choice="required").invoke("q")


def test_strict_tool_arguments_are_checked(server):
    server.responder = lambda prompt: {"answer": 42}

    with pytest.raises(openai.InternalServerError, match=r"strict tool 'Answer'.*missing required property 'confidence'"):
        chat(server).with_structured_output(Answer, method="function_calling", strict=True).invoke("q")
    assert server.chat_requests[0].body["tools"][0]["function"]["strict"] is True


def test_call_to_a_tool_not_offered_breaks_the_guarantee(server):
    server.responder = lambda prompt: ToolCallReply("drop_table", {})

    with pytest.raises(openai.InternalServerError, match="'drop_table', which is not in tools"):
        chat(server).bind_tools([lookup_entity]).invoke("q")


# -- requests OpenAI refuses ------------------------------------------------------------------------------


def test_tool_choice_naming_an_unknown_function_is_a_400(server):
    with pytest.raises(openai.BadRequestError) as caught:
        chat(server).bind(
            tools=[{"type": "function", "function": {"name": "lookup_entity", "parameters": {"type": "object"}}}],
            tool_choice={"type": "function", "function": {"name": "delete_everything"}},
        ).invoke("q")

    assert caught.value.status_code == 400
    assert caught.value.body["param"] == "tool_choice"
    assert "delete_everything" in caught.value.body["message"]
    assert server.chat_requests[0].tool_names == ["lookup_entity"]


@pytest.mark.parametrize(
    ("options", "param"),
    [
        ({"tool_choice": "required"}, "tool_choice"),
        ({"response_format": {"type": "json_schema", "json_schema": {"schema": {}}}}, "response_format.json_schema.name"),
        ({"response_format": {"type": "yaml"}}, "response_format.type"),
        ({"response_format": "json"}, "response_format.type"),
        ({"tools": [], "tool_choice": "auto"}, "tools"),
        ({"tools": [{"type": "function", "function": {"name": "f"}}], "tool_choice": "sometimes"}, "tool_choice"),
        ({"tools": [{"type": "function"}]}, "tools[0]"),
        ({"tools": [lookup_entity.name], "tool_choice": "auto"}, "tools[0]"),
    ],
)
def test_malformed_structured_requests_are_400s(server, options, param):
    client = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)

    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}], **options)

    assert caught.value.body["param"] == param


# -- malformed replies on demand --------------------------------------------------------------------------


def test_malform_next_rejects_unknown_modes(server):
    with pytest.raises(ValueError, match="unknown malformed mode"):
        server.malform_next(1, "gibberish")


def test_malformations_are_consumed_one_per_request(server):
    model = chat(server).with_structured_output(Answer, method="json_mode")
    server.malform_next(1, "empty")
    server.malform_next(1, "wrong_schema")

    with pytest.raises(OutputParserException, match="Invalid json output"):
        model.invoke("q")
    with pytest.raises(OutputParserException, match="Failed to parse Answer"):
        model.invoke("q")
    assert model.invoke("q") == Answer(**ANSWER)


def test_json_schema_malformed_replies(server):
    """json_schema is parsed by the openai SDK: every malformation raises, none is returned as a value."""
    model = chat(server).with_structured_output(Answer, method="json_schema", strict=True)

    server.malform_next(1, "prose")  # sent as is: the strict check is bypassed for malformed replies
    with pytest.raises(ValidationError, match="Invalid JSON"):
        model.invoke("q")
    assert server.chat_requests[-1].json_schema["strict"] is True

    server.malform_next(1, "wrong_schema")
    with pytest.raises(ValidationError, match="Field required"):
        model.invoke("q")

    server.malform_next(1, "length")
    with pytest.raises(openai.LengthFinishReasonError):
        model.invoke("q")

    server.malform_next(1, "empty")
    with pytest.raises(ValueError, match="does not have a 'parsed' field"):
        model.invoke("q")


def test_json_schema_malformed_reply_with_include_raw(server):
    model = chat(server).with_structured_output(Answer, method="json_schema", include_raw=True)

    server.malform_next(1, "empty")
    result = model.invoke("q")
    assert result["parsed"] is None and isinstance(result["parsing_error"], ValueError)
    assert result["raw"].content == ""

    server.malform_next(1, "length")  # the SDK raises before langchain's include_raw can catch it
    with pytest.raises(openai.LengthFinishReasonError):
        model.invoke("q")


def test_function_calling_malformed_arguments_can_come_back_as_none(server):
    """Unparseable tool arguments become ``invalid_tool_calls``: the structured result is a silent ``None``."""
    model = chat(server).with_structured_output(Answer, method="function_calling")
    raw_model = chat(server).with_structured_output(Answer, method="function_calling", include_raw=True)

    server.malform_next(1, "prose")
    assert model.invoke("q") is None

    server.malform_next(1, "length")
    result = raw_model.invoke("q")
    assert result["parsed"] is None and result["parsing_error"] is None
    assert result["raw"].response_metadata["finish_reason"] == "length"
    (invalid,) = result["raw"].invalid_tool_calls
    assert invalid["name"] == "Answer"
    assert invalid["args"] == json.dumps(ANSWER)[: len(json.dumps(ANSWER)) // 2]

    server.malform_next(1, "wrong_schema")
    with pytest.raises(ValidationError, match="Field required"):
        model.invoke("q")

    server.malform_next(1, "empty")  # "" arguments are read as {} by langchain-openai
    with pytest.raises(ValidationError, match="Field required"):
        model.invoke("q")


def test_json_mode_prose_around_a_fenced_document_is_recovered(server):
    server.malform_next(1, "prose")

    result = chat(server).with_structured_output(Answer, method="json_mode", include_raw=True).invoke("q")

    assert result["raw"].content.startswith("Sure! Here is the JSON")
    assert result["parsed"] == Answer(**ANSWER)


def test_json_mode_length_raises(server):
    server.malform_next(1, "length")

    with pytest.raises(openai.LengthFinishReasonError):
        chat(server).with_structured_output(Answer, method="json_mode").invoke("q")


def test_malformed_streaming_json_schema(server):
    server.malform_next(1, "prose")

    with pytest.raises(ValueError, match="expected value"):
        list(chat(server).with_structured_output(Answer, method="json_schema").stream("q"))


def test_malformed_usage_counts_what_was_sent(server):
    server.malform_next(1, "empty")

    raw = chat(server).with_structured_output(Answer, method="json_mode", include_raw=True).invoke("one two three")["raw"]

    assert raw.usage_metadata["input_tokens"] == 3
    assert raw.usage_metadata["output_tokens"] == 0


# -- the schema checker ----------------------------------------------------------------------------------


def test_schema_violations_covers_the_strict_subset():
    schema = Plan.model_json_schema()

    assert schema_violations({"paths": [["a", "b"]], "answer": ANSWER}, schema) == []
    assert schema_violations({"paths": [["a"]], "answer": None}, schema) == []
    assert schema_violations({"paths": [["a", 1]]}, schema) == ["$.paths[0][1]: expected string, got int"]
    assert schema_violations({"paths": [], "answer": {"answer": "x"}}, schema) == ["$.answer: matches none of the anyOf alternatives"]
    assert schema_violations({}, schema) == ["$: missing required property 'paths'"]
    closed = {"type": "object", "properties": {"kind": {"enum": ["a", "b"]}}, "additionalProperties": False}
    assert schema_violations({"kind": "c", "extra": 1}, closed) == ["$.kind: 'c' is not one of ['a', 'b']", "$: unexpected property 'extra'"]
    assert schema_violations(True, {"type": "integer"}) == ["$: expected integer, got bool"]
    assert schema_violations(1, {"$ref": "#/$defs/Missing"}) == ["$: unresolvable $ref '#/$defs/Missing'"]
    cyclic = {"$defs": {"Node": {"$ref": "#/$defs/Node"}}, "$ref": "#/$defs/Node"}
    (problem,) = schema_violations({"a": 1}, cyclic)
    assert "deeper than" in problem


def test_a_cyclic_strict_schema_is_a_500_not_a_hang(server):
    client = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0, timeout=10)
    cyclic = {"$defs": {"Node": {"$ref": "#/$defs/Node"}}, "$ref": "#/$defs/Node"}
    response_format = {"type": "json_schema", "json_schema": {"name": "Node", "schema": cyclic, "strict": True}}

    with pytest.raises(openai.InternalServerError, match="deeper than"):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}], response_format=response_format)


# -- enums (issue 25): a reply outside the names sent is a test bug ---------------------------------------

PICK = {"title": "Pick", "description": "A relation from the list.", "type": "object",
        "properties": {"name": {"type": "string", "enum": ["directed_by", "starred_actors"]}}, "required": ["name"]}


def test_a_non_strict_schema_still_has_its_enums_enforced(server):
    server.responder = lambda prompt: {"name": "invented_relation"}
    with pytest.raises(openai.InternalServerError, match=r"outside the enums sent.*invented_relation"):
        chat(server).with_structured_output(PICK, method="json_schema", strict=False).invoke("q")
    server.responder = lambda prompt: {"name": "directed_by"}
    assert chat(server).with_structured_output(PICK, method="json_schema", strict=False).invoke("q") == {"name": "directed_by"}


def test_tool_arguments_outside_the_enums_sent_are_a_500(server):
    server.responder = lambda prompt: ToolCallReply("Pick", {"name": "invented_relation"})
    with pytest.raises(openai.InternalServerError, match=r"outside the enums sent"):
        chat(server).with_structured_output(PICK, method="function_calling").invoke("q")


def test_openai_refuses_a_schema_inside_json_object(server):
    with pytest.raises(openai.BadRequestError, match=r"response_format.schema"):
        chat(server).bind(response_format={"type": "json_object", "schema": PICK}).invoke("q")
    assert server.chat_requests[0].response_format == "json_object"


def test_the_llama_cpp_dialect_enforces_a_json_object_schema_and_refuses_json_schema():
    with OpenAICompatibleServer(responder=lambda prompt: {"name": "starred_actors"}, dialect="llama.cpp") as llama:
        reply = chat(llama).bind(response_format={"type": "json_object", "schema": PICK}).invoke("q")
        assert json.loads(reply.content) == {"name": "starred_actors"}
        llama.responder = lambda prompt: {"name": "invented_relation"}
        with pytest.raises(openai.InternalServerError, match=r"json_object: the responder's reply breaks the schema.*invented"):
            chat(llama).bind(response_format={"type": "json_object", "schema": PICK}).invoke("q")
        with pytest.raises(openai.InternalServerError, match="Input should be 'text' or 'json_object'"):
            chat(llama).with_structured_output(PICK, method="json_schema").invoke("q")
        models = chat(llama).root_client.models.list()
    assert [m.owned_by for m in models.data] == ["me"]
