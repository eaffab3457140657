"""A small, real OpenAI-compatible HTTP server for tests (standard library only).

It listens on ``127.0.0.1`` on a free port and implements what chat clients use:

* ``POST /v1/chat/completions`` - a proper ``chat.completion`` JSON reply (or, with
  ``"stream": true``, server-sent ``chat.completion.chunk`` events ending in ``data: [DONE]``, with
  a final usage chunk when ``stream_options.include_usage`` is set);
* ``GET /v1/models`` - the served model.

Replies come from a ``responder(prompt_text) -> str`` callable or from a queue of ``responses``
(``prompt_text`` is the request's message contents joined by blank lines). Token usage is counted
in whitespace-separated words (``len(text.split())``), on purpose *not* the ``len // 4`` estimate of
:mod:`kg_agent.llm.usage`, so tests can tell server-reported usage from estimates.

Failures on demand, consumed one per request, in order::

    server.fail_next(2, "429", retry_after=0.01)   # rate limited, with Retry-After
    server.fail_next(1, "500")                      # internal server error (with retry-after-ms)
    server.fail_next(1, "timeout", delay=2.0)       # sleep past the client's timeout, then reply
    server.fail_next(1, "truncated")                # Content-Length larger than the body sent
    server.fail_next(1, "non_json")                 # 200 with an HTML body

Structured output and tool calls, as OpenAI's Chat Completions API does them:

* ``response_format: {"type": "json_schema", "json_schema": {"name", "schema", "strict"}}`` or
  ``{"type": "json_object"}``: the reply content is a JSON document. A responder (or a queued response, or the
  optional ``structured_responder(prompt_text, schema)``, ``schema`` being ``None`` for ``json_object``) may return
  a ``dict``/``list``, which is serialised; a ``str`` is sent as it is.
* ``tools`` + ``tool_choice`` (``"auto"``, ``"none"``, ``"required"`` or ``{"type": "function", "function":
  {"name": ...}}``): the responder may return a :class:`ToolCallReply` or a list of them; the reply then has
  ``message.tool_calls``, ``content: null`` and ``finish_reason: "tool_calls"`` (streamed as tool-call deltas:
  index, id and name first, then argument fragments). When ``tool_choice`` forces one function (by name, or
  ``"required"`` with a single tool) a ``dict`` reply becomes that function's arguments.
* Requests OpenAI refuses are refused with a 400 ``invalid_request_error`` naming the ``param``: a ``tool_choice``
  naming a function not in ``tools``, a ``tool_choice`` without ``tools``, a ``json_schema`` without ``name`` or
  ``schema``, an unknown ``response_format`` type.
* **Guarantee violations.** With ``strict: true`` (on the ``json_schema`` or on a function tool) OpenAI
  guarantees the reply matches the schema. The server checks a reply against the basic JSON-Schema subset
  (type, properties, required, items, enum, additionalProperties, anyOf, ``$ref`` into ``$defs``); a reply that
  breaks the guarantee (or a ``json_object`` reply that is not JSON, a forced tool call the responder did not
  make, a call to a tool not offered, a tool call under ``tool_choice: "none"``) is *not* sent: the server answers 500 ``server_error`` whose message
  says what the responder did wrong. A real model can not break these guarantees, so a test scripting such a
  reply has a bug, and a 500 is what OpenAI returns when its own side fails.

**Enums are enforced.** A schema sent in any form (``json_schema`` strict or not, a function tool's ``parameters``,
llama.cpp's ``json_object`` ``schema``) lists the values a field may take in its ``enum``s; a scripted reply naming
anything else is a test bug (a model asked with the KG's candidates cannot name another), so it is not sent either:
500 ``server_error`` as above.

**Dialects.** ``dialect="openai"`` (the default) is OpenAI's API: a ``json_object`` response format carrying a
``schema`` is refused (400). ``dialect="llama.cpp"`` is llama-cpp-python's server (``python -m llama_cpp.server``):
``GET /v1/models`` says ``owned_by: "me"``, a ``json_object`` response format may carry a ``schema`` that the reply
must match (the server turns it into a grammar, so a reply breaking it is a test bug), and a ``json_schema`` response
format is refused with 500 (its request model allows only ``text`` and ``json_object``; it answers 500, not 400:
tests/test_real_llm_structured.py). ``dialect="ollama"`` is Ollama's OpenAI-compatible API: its ``GET /v1/models``
says ``owned_by`` the model's namespace (``"library"`` for the models of Ollama's own registry) and it takes OpenAI's
``json_schema`` response format, which it decodes under the schema (Ollama's ``openai/openai.go``: ``ToListCompletion``,
``ResponseFormat.JsonSchema``).

Malformed structured replies on demand, consumed one per chat request in order (like ``fail_next``; they are
sent as they are, bypassing the strict check, as a model without constrained decoding would send them)::

    server.malform_next(1, "prose")         # the JSON wrapped in prose and a ```json fence
    server.malform_next(1, "wrong_schema")  # valid JSON that does not match the schema
    server.malform_next(1, "length")        # JSON cut in half, finish_reason "length"
    server.malform_next(1, "empty")         # an empty reply ("" content, or "" tool-call arguments)

For a tool-call reply the malformation applies to the call's ``arguments`` string.

Every request is recorded in :attr:`OpenAICompatibleServer.requests`; :attr:`RecordedRequest.response_format`
says which mode it asked for.

Usage::

    with OpenAICompatibleServer(responder=lambda prompt: "Tom Hanks") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from kg_agent.tools.shared.decider import forget_endpoint_mode

FAILURE_MODES = ("429", "500", "timeout", "truncated", "non_json")
MALFORMED_MODES = ("prose", "wrong_schema", "length", "empty")
#: A ``wrong_schema`` reply: valid JSON whose only key no schema here asks for.
WRONG_SCHEMA_DOCUMENT = {"unexpected_key": ["not", "what", "the", "schema", "asks", "for"]}


@dataclass(frozen=True)
class ToolCallReply:
    """A tool call for the server to answer with: a function ``name`` and its ``arguments``.

    ``arguments`` is a ``dict`` (serialised to JSON) or a ``str`` sent verbatim (to script broken arguments).
    """

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)

    @property
    def arguments_json(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


Reply = str | dict | list | ToolCallReply


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    body: dict[str, Any] | None
    raw_body: bytes
    received_at: float = field(default_factory=time.monotonic)

    @property
    def prompt_text(self) -> str:
        return prompt_text_of(self.body or {})

    @property
    def response_format(self) -> str | None:
        """The ``response_format`` type asked for (``"json_schema"``, ``"json_object"``, ``"text"``) or ``None``."""
        response_format = (self.body or {}).get("response_format")
        return response_format.get("type") if isinstance(response_format, dict) else None

    @property
    def json_schema(self) -> dict[str, Any] | None:
        """The ``response_format.json_schema`` object (``name``, ``schema``, ``strict``) when one was sent."""
        response_format = (self.body or {}).get("response_format")
        value = response_format.get("json_schema") if isinstance(response_format, dict) else None
        return value if isinstance(value, dict) else None

    @property
    def tool_names(self) -> list[str]:
        """Names of the function tools offered, in order."""
        return [name for name, _ in _function_tools((self.body or {}).get("tools"))]

    @property
    def tool_choice(self) -> str | dict[str, Any] | None:
        return (self.body or {}).get("tool_choice")


@dataclass(frozen=True)
class Failure:
    mode: str
    retry_after: float = 0.01
    delay: float = 5.0


def prompt_text_of(body: dict[str, Any]) -> str:
    """The request's message contents (string or text parts) joined by blank lines."""
    parts: list[str] = []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.append("".join(p.get("text", "") for p in content if isinstance(p, dict)))
    return "\n\n".join(parts)


def count_words(text: str) -> int:
    return len(text.split())


#: The servers whose structured-output parameters the test server takes, and what its ``/v1/models`` says owns a model.
DIALECTS = {"openai": "test", "llama.cpp": "me", "ollama": "library"}


class OpenAICompatibleServer:
    """A threaded OpenAI-compatible chat server; use as a context manager.

    Args:
        responder: ``prompt_text -> reply``; used when the ``responses`` queue is empty. A reply is a ``str``, a
            ``dict``/``list`` (sent as a JSON document), a :class:`ToolCallReply` or a list of them.
        responses: replies returned in order, one per successful request.
        structured_responder: ``(prompt_text, schema) -> reply``; when set, used instead of ``responder`` for
            requests with a ``json_schema`` (``schema`` is its ``schema``) or ``json_object`` (``schema`` is
            llama.cpp's ``schema`` when sent, else ``None``) ``response_format``, and for requests whose ``tool_choice`` forces one function
            (``schema`` is that function's ``parameters``).
        model: model name echoed back when the request names none.
        api_key: when set, requests must carry ``Authorization: Bearer <api_key>`` (else 401).
        latency: seconds every chat completion takes before its reply is sent (a remote model's delay);
            :attr:`max_in_flight` records the most chat requests the server was serving at once.
        dialect: ``"openai"``, ``"llama.cpp"`` or ``"ollama"``: whose structured-output parameters the server takes
            and what its ``/v1/models`` says owns a model (see the module docstring).
        one_slot: serve one request at a time, ``GET /v1/models`` included, as llama-cpp-python's server does (its
            model lock: ``/v1/models`` waits for the generation in progress).
    """

    def __init__(
        self,
        responder: Callable[[str], Reply] | None = None,
        responses: Iterable[Reply] | None = None,
        *,
        structured_responder: Callable[[str, dict[str, Any] | None], Reply] | None = None,
        model: str = "test-model",
        api_key: str | None = None,
        latency: float = 0.0,
        dialect: str = "openai",
        one_slot: bool = False,
    ) -> None:
        if dialect not in DIALECTS:
            raise ValueError(f"dialect must be one of {', '.join(DIALECTS)}, not {dialect!r}")
        self.dialect = dialect
        self.responder = responder
        self.latency = latency
        self.in_flight = 0
        self.max_in_flight = 0
        self.structured_responder = structured_responder
        self.model = model
        self.api_key = api_key
        self.requests: list[RecordedRequest] = []
        self._responses: collections.deque[Reply] = collections.deque(responses or [])
        self._failures: collections.deque[Failure] = collections.deque()
        self._malformations: collections.deque[str] = collections.deque()
        self._lock = threading.Lock()
        self._slot = threading.Lock() if one_slot else contextlib.nullcontext()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._call_ids = itertools.count(1)
        self._httpd: _QuietThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- configuration --------------------------------------------------------------------
    def add_responses(self, *responses: Reply) -> None:
        with self._lock:
            self._responses.extend(responses)

    def fail_next(self, count: int = 1, mode: str = "500", *, retry_after: float = 0.01, delay: float = 5.0) -> None:
        """Make the next ``count`` chat requests fail with ``mode`` (one of :data:`FAILURE_MODES`)."""
        if mode not in FAILURE_MODES:
            raise ValueError(f"unknown failure mode {mode!r}; expected one of {FAILURE_MODES}")
        with self._lock:
            self._failures.extend(Failure(mode, retry_after, delay) for _ in range(count))

    def malform_next(self, count: int = 1, mode: str = "prose") -> None:
        """Make the next ``count`` chat replies malformed with ``mode`` (one of :data:`MALFORMED_MODES`)."""
        if mode not in MALFORMED_MODES:
            raise ValueError(f"unknown malformed mode {mode!r}; expected one of {MALFORMED_MODES}")
        with self._lock:
            self._malformations.extend(mode for _ in range(count))

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """What to put in ``OPENAI_BASE_URL``: ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")]

    def start(self) -> OpenAICompatibleServer:
        handler = type("BoundHandler", (_Handler,), {"server_state": self})
        self._httpd = _QuietThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="openai-test-server", daemon=True)
        self._thread.start()
        # a new server behind this URL, maybe of another dialect than the last one on this port: the library keeps
        # what a URL's server constrains for the process, so drop it, as for a server started before the process
        forget_endpoint_mode(self.base_url)
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in "timeout" mode
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> OpenAICompatibleServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- used by the handler -----------------------------------------------------------------
    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _next_failure(self) -> Failure | None:
        with self._lock:
            return self._failures.popleft() if self._failures else None

    def _next_malformation(self) -> str | None:
        with self._lock:
            return self._malformations.popleft() if self._malformations else None

    def _reply_for(self, prompt_text: str, request: _ChatRequest) -> Reply:
        with self._lock:
            if self._responses:
                return self._responses.popleft()
        if self.structured_responder is not None and request.structured_schema_known:
            return self.structured_responder(prompt_text, request.structured_schema)
        if self.responder is None:
            raise LookupError("no scripted response left and no responder configured")
        return self.responder(prompt_text)

    def _next_id(self) -> str:
        return f"chatcmpl-test{next(self._ids):06d}"

    def _next_call_id(self) -> str:
        return f"call_test{next(self._call_ids):06d}"


# -- structured output and tool calls ---------------------------------------------------------------------


class RequestRejected(ValueError):
    """A request OpenAI answers with 400 ``invalid_request_error`` (``status``: llama-cpp-python answers 500);
    ``param`` names the offending field."""

    def __init__(self, param: str, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.param = param
        self.status = status


class GuaranteeViolation(ValueError):
    """A scripted reply that breaks what the request was promised (strict schema, forced tool call)."""


@dataclass(frozen=True)
class _ChatRequest:
    """What a chat request asks for beyond plain text."""

    mode: str = "text"
    """``"text"``, ``"json_schema"`` or ``"json_object"``."""
    schema: dict[str, Any] | None = None
    strict: bool = False
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Function name -> its ``function`` object (``name``, ``parameters``, ``strict``...)."""
    tool_choice: str = "auto"
    """``"auto"``, ``"none"``, ``"required"`` or ``"function"`` (then :attr:`forced_tool` names it)."""
    forced_tool: str | None = None

    @property
    def structured_schema_known(self) -> bool:
        return self.mode in ("json_schema", "json_object") or self.forced_tool is not None

    @property
    def structured_schema(self) -> dict[str, Any] | None:
        if self.forced_tool is not None:
            return self.tools[self.forced_tool].get("parameters")
        return self.schema


def _function_tools(tools: Any) -> list[tuple[str, dict[str, Any]]]:
    """``(name, function object)`` of each well-formed function tool in ``tools``."""
    found = []
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            found.append((function["name"], function))
    return found


def parse_chat_request(body: dict[str, Any], *, dialect: str = "openai") -> _ChatRequest:
    """The structured-output / tool-call options of ``body``; raises :class:`RequestRejected` like OpenAI (or, with
    ``dialect="llama.cpp"``, like llama-cpp-python's server)."""
    mode, schema, strict = "text", None, False
    response_format = body.get("response_format")
    if response_format is not None:
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        if dialect == "llama.cpp" and kind not in ("text", "json_object"):
            raise RequestRejected("response_format.type", f"Input should be 'text' or 'json_object', not {kind!r}", status=500)
        if kind == "json_object" and "schema" in response_format:
            if dialect != "llama.cpp":
                raise RequestRejected("response_format.schema", "Unrecognized request argument supplied: response_format.schema")
            if not isinstance(response_format["schema"], dict):
                raise RequestRejected("response_format.schema", "response_format.schema must be a JSON schema object", status=422)
            schema = response_format["schema"]
        if kind not in ("text", "json_object", "json_schema"):
            raise RequestRejected(
                "response_format.type",
                f"Invalid value: {kind!r}. Supported values are: 'text', 'json_object', and 'json_schema'.",
            )
        mode = kind
        if kind == "json_schema":
            spec = response_format.get("json_schema")
            if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
                raise RequestRejected("response_format.json_schema.name", "Missing required parameter: 'response_format.json_schema.name'.")
            if not isinstance(spec.get("schema"), dict):
                raise RequestRejected("response_format.json_schema.schema", "Missing required parameter: 'response_format.json_schema.schema'.")
            schema, strict = spec["schema"], bool(spec.get("strict"))
    raw_tools = body.get("tools")
    if raw_tools is not None:
        if not isinstance(raw_tools, list) or not raw_tools:
            raise RequestRejected("tools", "Invalid 'tools': expected a non-empty array of tools.")
        for index, tool in enumerate(raw_tools):
            function = tool.get("function") if isinstance(tool, dict) else None
            if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(function, dict) or not isinstance(function.get("name"), str):
                raise RequestRejected(f"tools[{index}]", f"Invalid 'tools[{index}]': expected {{'type': 'function', 'function': {{'name': ...}}}}.")
    tools = dict(_function_tools(raw_tools))
    raw_choice = body.get("tool_choice")
    if raw_choice is not None and not tools:
        raise RequestRejected("tool_choice", "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.")
    tool_choice, forced = "auto", None
    if isinstance(raw_choice, str):
        if raw_choice not in ("auto", "none", "required"):
            raise RequestRejected("tool_choice", f"Invalid value: {raw_choice!r}. Supported values are: 'none', 'auto', and 'required'.")
        tool_choice = raw_choice
        if raw_choice == "required" and len(tools) == 1:
            forced = next(iter(tools))
    elif raw_choice is not None:
        name = ((raw_choice.get("function") or {}).get("name")) if isinstance(raw_choice, dict) else None
        if not isinstance(raw_choice, dict) or raw_choice.get("type") != "function" or not isinstance(name, str):
            raise RequestRejected("tool_choice", "Invalid 'tool_choice': expected a string or {'type': 'function', 'function': {'name': ...}}.")
        if name not in tools:
            raise RequestRejected("tool_choice", f"Invalid value for 'tool_choice': function {name!r} is not one of the functions in 'tools'.")
        tool_choice, forced = "function", name
    return _ChatRequest(mode, schema, strict, tools, tool_choice, forced)


_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
}


#: How deep :func:`schema_violations` follows a schema (a ``$ref`` cycle would otherwise recurse forever).
MAX_SCHEMA_DEPTH = 64


def schema_violations(
    instance: Any, schema: dict[str, Any], *, root: dict[str, Any] | None = None, path: str = "$", depth: int = 0
) -> list[str]:
    """Where ``instance`` breaks ``schema``, as ``"<path>: <problem>"`` lines (empty when it conforms).

    The subset strict structured output relies on: ``type`` (one or a list), ``properties``, ``required``,
    ``additionalProperties`` (``false`` or a schema), ``items``, ``enum``, ``const``, ``anyOf``/``oneOf`` and
    ``$ref`` into ``#/$defs`` or ``#/definitions``. Other keywords are ignored. A schema followed deeper than
    :data:`MAX_SCHEMA_DEPTH` (a ``$ref`` cycle) is reported as a violation, not recursed into.
    """
    root = schema if root is None else root
    if not isinstance(schema, dict):
        return []
    if depth > MAX_SCHEMA_DEPTH:
        return [f"{path}: schema nested deeper than {MAX_SCHEMA_DEPTH} levels (a $ref cycle?)"]
    deeper = depth + 1
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target: Any = root
        for part in ref.removeprefix("#/").split("/") if ref.startswith("#/") else [None]:
            target = target.get(part) if isinstance(target, dict) and part is not None else None
        if not isinstance(target, dict):
            return [f"{path}: unresolvable $ref {ref!r}"]
        return schema_violations(instance, target, root=root, path=path, depth=deeper)
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        matches = (not schema_violations(instance, option, root=root, path=path, depth=deeper) for option in options or [])
        if isinstance(options, list) and options and not any(matches):
            return [f"{path}: matches none of the {key} alternatives"]
    types = schema.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        if not any(_JSON_TYPES.get(name, lambda value: True)(instance) for name in names):
            return [f"{path}: expected {' or '.join(map(str, names))}, got {type(instance).__name__}"]
    problems: list[str] = []
    if "enum" in schema and instance not in schema["enum"]:
        problems.append(f"{path}: {instance!r} is not one of {schema['enum']!r}")
    if "const" in schema and instance != schema["const"]:
        problems.append(f"{path}: {instance!r} is not {schema['const']!r}")
    if isinstance(instance, dict):
        properties = schema.get("properties") or {}
        for name in schema.get("required") or []:
            if name not in instance:
                problems.append(f"{path}: missing required property {name!r}")
        extra = schema.get("additionalProperties", True)
        for name, value in instance.items():
            if name in properties:
                problems.extend(schema_violations(value, properties[name], root=root, path=f"{path}.{name}", depth=deeper))
            elif extra is False:
                problems.append(f"{path}: unexpected property {name!r}")
            elif isinstance(extra, dict):
                problems.extend(schema_violations(value, extra, root=root, path=f"{path}.{name}", depth=deeper))
    if isinstance(instance, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(instance):
            problems.extend(schema_violations(item, schema["items"], root=root, path=f"{path}[{index}]", depth=deeper))
    return problems


@dataclass(frozen=True)
class _RenderedReply:
    """The assistant message to send: ``content`` or ``tool_calls`` (name, id, arguments string)."""

    content: str | None
    tool_calls: list[tuple[str, str, str]]
    finish_reason: str

    @property
    def completion_text(self) -> str:
        if self.content is not None:
            return self.content
        return " ".join(f"{name} {arguments}" for _, name, arguments in self.tool_calls)

    def message(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self.content, "refusal": None}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
                for call_id, name, arguments in self.tool_calls
            ]
        return message


def _tool_calls_of(reply: Reply) -> list[ToolCallReply] | None:
    if isinstance(reply, ToolCallReply):
        return [reply]
    if isinstance(reply, list) and reply and all(isinstance(item, ToolCallReply) for item in reply):
        return list(reply)
    return None


def _checked_tool_calls(calls: list[ToolCallReply], request: _ChatRequest) -> None:
    if not request.tools:
        raise GuaranteeViolation("the responder returned tool calls but the request offered no tools")
    if request.tool_choice == "none":
        raise GuaranteeViolation("the responder returned tool calls but tool_choice was 'none'")
    for call in calls:
        if call.name not in request.tools:
            raise GuaranteeViolation(f"the responder called {call.name!r}, which is not in tools {sorted(request.tools)}")
        if request.forced_tool is not None and call.name != request.forced_tool:
            raise GuaranteeViolation(f"tool_choice forces {request.forced_tool!r} but the responder called {call.name!r}")
        function = request.tools[call.name]
        try:
            sent_arguments = json.loads(call.arguments_json)
        except ValueError:
            sent_arguments = None
        wrong_names = enum_violations(sent_arguments, function.get("parameters") or {})
        if wrong_names:
            raise GuaranteeViolation(f"tool {call.name!r}: arguments outside the enums sent: {'; '.join(wrong_names)}")
        if function.get("strict"):
            try:
                arguments = json.loads(call.arguments_json)
            except ValueError:
                raise GuaranteeViolation(f"strict tool {call.name!r}: the responder's arguments are not JSON") from None
            problems = schema_violations(arguments, function.get("parameters") or {})
            if problems:
                raise GuaranteeViolation(f"strict tool {call.name!r}: arguments break its parameters schema: {'; '.join(problems)}")


def enum_violations(instance: Any, schema: dict[str, Any]) -> list[str]:
    """The :func:`schema_violations` of ``instance`` that are values outside an ``enum`` of ``schema``."""
    return [problem for problem in schema_violations(instance, schema) if " is not one of " in problem]


def _checked_content(content: str, request: _ChatRequest) -> None:
    if request.mode == "json_schema" and not request.strict and request.schema:
        try:
            document = json.loads(content)
        except ValueError:
            return  # not JSON: a non-strict reply may be anything but a value outside the enums sent
        wrong_names = enum_violations(document, request.schema)
        if wrong_names:
            raise GuaranteeViolation(f"json_schema: the responder's reply is outside the enums sent: {'; '.join(wrong_names)}")
    if request.mode == "json_object" or (request.mode == "json_schema" and request.strict):
        try:
            document = json.loads(content)
        except ValueError:
            raise GuaranteeViolation(f"response_format {request.mode}: the responder's reply is not JSON: {content[:80]!r}") from None
        if request.schema is not None and (request.mode == "json_object" or request.strict):
            problems = schema_violations(document, request.schema)
            if problems:
                raise GuaranteeViolation(f"{'strict ' if request.strict else ''}{request.mode}: the responder's reply breaks "
                                         f"the schema: {'; '.join(problems)}")


def _malformed(payload: str, mode: str | None) -> tuple[str, str | None]:
    """``payload`` as ``mode`` malforms it, and the finish_reason that forces (``None``: unchanged)."""
    if mode == "prose":
        return f"Sure! Here is the JSON you asked for:\n```json\n{payload}\n```\nLet me know if you need anything else.", None
    if mode == "wrong_schema":
        return json.dumps(WRONG_SCHEMA_DOCUMENT), None
    if mode == "length":
        return payload[: max(1, len(payload) // 2)], "length"
    if mode == "empty":
        return "", None
    return payload, None


def render_reply(reply: Reply, request: _ChatRequest, *, malformation: str | None, next_call_id: Callable[[], str]) -> _RenderedReply:
    """The message for ``reply`` under ``request``; raises :class:`GuaranteeViolation` (unless malformed on demand)."""
    calls = _tool_calls_of(reply)
    if calls is None and request.forced_tool is not None and isinstance(reply, dict):
        calls = [ToolCallReply(request.forced_tool, reply)]
    if calls is None and request.tool_choice in ("required", "function"):
        raise GuaranteeViolation(f"tool_choice {request.tool_choice!r} requires a tool call but the responder replied {reply!r:.80}")
    if calls is not None:
        if malformation is None:
            _checked_tool_calls(calls, request)
        rendered, finish_reason = [], "tool_calls"
        for call in calls:
            arguments, forced_finish = _malformed(call.arguments_json, malformation)
            finish_reason = forced_finish or finish_reason
            rendered.append((next_call_id(), call.name, arguments))
        return _RenderedReply(None, rendered, finish_reason)
    if isinstance(reply, (dict, list)):
        content = json.dumps(reply)
    elif isinstance(reply, str):
        content = reply
    else:
        raise GuaranteeViolation(f"the responder returned {type(reply).__name__}, not a str, dict, list or ToolCallReply")
    if malformation is None:
        _checked_content(content, request)
    content, forced_finish = _malformed(content, malformation)
    return _RenderedReply(content, [], forced_finish or "stop")


class _QuietThreadingHTTPServer(ThreadingHTTPServer):
    """Does not print tracebacks when a client hangs up early (expected after a client timeout)."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server_state: OpenAICompatibleServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        return

    # -- helpers -----------------------------------------------------------------------------
    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_error(
        self, status: int, message: str, error_type: str, headers: dict[str, str] | None = None, *, param: str | None = None
    ) -> None:
        self._send_json(status, {"error": {"message": message, "type": error_type, "param": param, "code": None}}, headers)

    def _lower_headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _authorized(self) -> bool:
        expected = self.server_state.api_key
        if expected is None:
            return True
        if self.headers.get("Authorization", "") == f"Bearer {expected}":
            return True
        self._send_error(401, "Incorrect API key provided.", "invalid_request_error")
        return False

    # -- routes ------------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        state = self.server_state
        state._record(RecordedRequest("GET", self.path, self._lower_headers(), None, b""))
        if not self._authorized():
            return
        if self.path.rstrip("/").endswith("/models"):
            with state._slot:
                pass
            self._send_json(200, {"object": "list", "data": [{"id": state.model, "object": "model", "owned_by": DIALECTS[state.dialect]}]})
        else:
            self._send_error(404, f"no route for GET {self.path}", "invalid_request_error")

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        state = self.server_state
        raw = self._read_body()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = None
        state._record(RecordedRequest("POST", self.path, self._lower_headers(), body, raw))
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_error(404, f"no route for POST {self.path}", "invalid_request_error")
            return
        if not self._authorized():
            return
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self._send_error(400, "request body must be a JSON object with a 'messages' list", "invalid_request_error")
            return
        try:
            request = parse_chat_request(body, dialect=state.dialect)
        except RequestRejected as exc:
            self._send_error(exc.status, str(exc), "invalid_request_error", param=exc.param)
            return
        with state._slot:
            state._enter()
            self._serving = True
            try:
                time.sleep(state.latency)
                self._complete(state, body, request)
            finally:
                self._done_serving()

    def send_response(self, code: int, message: str | None = None) -> None:
        # A request stops counting as in flight when its reply starts: a client that waits for each reply before
        # its next request must never be seen with two in flight (the handler thread may still be writing)
        self._done_serving()
        super().send_response(code, message)

    def _done_serving(self) -> None:
        if getattr(self, "_serving", False):
            self._serving = False
            self.server_state._leave()

    def _complete(self, state: OpenAICompatibleServer, body: dict[str, Any], request: _ChatRequest) -> None:
        failure = state._next_failure()
        if failure is not None and self._fail(failure):
            return
        prompt_text = prompt_text_of(body)
        try:
            raw_reply = state._reply_for(prompt_text, request)
        except Exception as exc:  # a responder bug should be visible to the test, not hang it
            self._send_error(500, f"test server responder failed: {exc!r}", "server_error")
            return
        try:
            reply = render_reply(raw_reply, request, malformation=state._next_malformation(), next_call_id=state._next_call_id)
        except GuaranteeViolation as exc:
            self._send_error(500, f"test server: the scripted reply breaks the request's guarantee: {exc}", "server_error")
            return
        model = body.get("model") or state.model
        completion_tokens = count_words(reply.completion_text)
        usage = {
            "prompt_tokens": count_words(prompt_text),
            "completion_tokens": completion_tokens,
            "total_tokens": count_words(prompt_text) + completion_tokens,
        }
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            self._stream(state._next_id(), model, reply, usage if include_usage else None)
            return
        self._send_json(
            200,
            {
                "id": state._next_id(),
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": reply.message(),
                        "logprobs": None,
                        "finish_reason": reply.finish_reason,
                    }
                ],
                "usage": usage,
                "system_fingerprint": "fp_test",
            },
        )

    def _fail(self, failure: Failure) -> bool:
        """Answer with ``failure``; False when the request should then be served normally."""
        if failure.mode == "429":
            self._send_error(
                429,
                "Rate limit reached for test-model (simulated).",
                "rate_limit_exceeded",
                {"Retry-After": f"{failure.retry_after:g}", "retry-after-ms": str(int(failure.retry_after * 1000))},
            )
            return True
        if failure.mode == "500":
            self._send_error(
                500,
                "The server had an error while processing your request (simulated).",
                "server_error",
                {"retry-after-ms": str(int(failure.retry_after * 1000))},
            )
            return True
        if failure.mode == "timeout":
            self.server_state._stopping.wait(failure.delay)
            return False  # reply late; the client has normally given up by then
        if failure.mode == "truncated":
            body = b'{"id": "chatcmpl-truncated", "object": "chat.completion", "choi'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body) + 500))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            self.close_connection = True
            return True
        if failure.mode == "non_json":
            body = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return True
        return False

    def _stream(self, completion_id: str, model: str, reply: _RenderedReply, usage: dict[str, int] | None) -> None:
        created = int(time.time())

        def chunk(delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
            return {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
            }

        events: list[dict[str, Any]] = []
        if reply.content is not None:
            events.append(chunk({"role": "assistant", "content": ""}, None))
            for index, piece in enumerate(reply.content.split(" ")):
                events.append(chunk({"content": piece if index == 0 else " " + piece}, None))
        else:
            # As OpenAI streams tool calls: per call, a delta with index, id, type and name (empty arguments),
            # then deltas carrying only the index and a fragment of the arguments string.
            for position, (call_id, name, arguments) in enumerate(reply.tool_calls):
                opening = {"index": position, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
                delta: dict[str, Any] = {"tool_calls": [opening]}
                if position == 0:
                    delta = {"role": "assistant", "content": None, **delta}
                events.append(chunk(delta, None))
                for start in range(0, len(arguments), 8):
                    fragment = {"index": position, "function": {"arguments": arguments[start : start + 8]}}
                    events.append(chunk({"tool_calls": [fragment]}, None))
        events.append(chunk({}, reply.finish_reason))
        if usage is not None:
            events.append(
                {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
                 "choices": [], "usage": usage}
            )
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for event in events:
            self.wfile.write(b"data: " + json.dumps(event).encode("utf-8") + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True
