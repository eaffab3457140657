"""The one LLM-decider mechanism every LLM decider uses.

A decision by a chat model goes: prompt -> call -> parse -> validate -> one retry -> the offline twin.
:class:`LLMDecision` does the call, parse, validation and retry (:meth:`LLMDecision.ask`, or
:meth:`LLMDecision.aask` without a worker thread); :func:`fall_back` hands the decision to the offline twin and
records why. Each decider writes only its prompt, its parser (which validates: it returns ``None`` for a reply
that decides nothing, with notes saying what it ignored or repaired) and what it makes of the parsed value.

The reason and usage are recorded here, once: every attempt's failure (``"<node>: attempt 2 gave no usable
reply (reply: ...)"``, ``"<node>: the model call failed (...)"``, a refused call ``"<node>: <budget reason>"``)
and the ``"<node>: fell back to ..."`` line go to the outcome's ``warnings``; the calls and tokens of every
attempt to its ``usage``.

Why not LangChain's ``with_retry`` / ``with_fallbacks``: a retry here is caused by an unusable *reply*, not an
exception, must be counted against the question's call budget, and must leave its reason in ``warnings``;
``with_fallbacks`` would swallow that reason. The model is still any LangChain ``BaseChatModel`` (its own HTTP
retries included), and the calls go through :func:`kg_agent.llm.usage.call_llm`, which counts them per node.

A retry does not repeat the prompt: it says why the previous reply could not be used and, when the decision has
a ``reply_format``, shows the expected format (:func:`retry_prompt`).

**Structured output.** A decision with a ``schema`` (a :class:`DecisionSchema`) asks its first attempt in the mode
:func:`structured_mode` picks (OpenAI ``json_schema``, function calling, JSON mode) and reads the value back through
its text parser (:func:`parse_structured`), so both modes are validated alike; a refused structured request falls
back to the text prompt. The mode of every attempt is counted in ``usage["by_node"][node]["modes"]``.

**Schemas built from the KG.** A decision that picks names from the knowledge graph's candidates (the relations of
an entity, the entities a relation reaches) is asked with its candidates (``request(prompt, parse,
candidates=Candidates(names, rank=...))``): the schema sent for that call lists exactly those names as a JSON-schema
``enum`` (:meth:`DecisionSchema.with_candidates`), so a server that constrains decoding lets the model name nothing
the KG lacks. A decision about several subjects at once (ToG-2's relation prune: per topic entity, its relations) is
asked with :class:`CandidatesBySubject`: each subject's names are an ``enum`` of their own. The reply is still read
by the decider's lenient parser against the unconstrained schema. A list longer than a provider accepts
(:data:`MAX_ENUM_VALUES`, :data:`MAX_ENUM_CHARS`) is cut to its best names by the offline ranking (``rank``) and a
warning says so.

**Sync and async from one code path.** A decider that asks a model is written as steps (a generator yielding
``decision.request(prompt, parse)``), which :mod:`kg_agent.steps` drives with and without an event loop.

**No call limit here.** A decision makes its attempts; whether a call may be made is decided where it is made
(:func:`kg_agent.llm.usage.call_llm`), against the question's :class:`~kg_agent.llm.budget.QuestionBudget`, whose
allowance every concurrent decision of a step shares. A refused call (:class:`BudgetExceeded`) ends the decision
(``budget_exhausted``) and its decider falls back to its offline twin.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel, ValidationError

from kg_agent.llm.errors import BudgetExceeded, LLMCallError, LLMUnavailable
from kg_agent.llm.usage import (
    PromptInput,
    UsageTracker,
    acall_llm_reply,
    call_llm_reply,
    merge_usage,
)
from kg_agent.settings import STRUCTURED_MODES, StructuredMode, current_run_settings
from kg_agent.steps import advance

if TYPE_CHECKING:  # a chat model is imported with the model, not with an offline method (start-up)
    from langchain_core.language_models import BaseChatModel

T = TypeVar("T")
AnOutcome = TypeVar("AnOutcome", bound="Outcome")

#: What a parser returns: the decided value (``None``: the reply decides nothing) and notes (repairs, ignored names).
Parsed = tuple[Any, list[str]]
Parser = Callable[[str], Parsed]

DEFAULT_ATTEMPTS = 2  # the call and one retry
REPLY_EXCERPT = 120


@dataclass(kw_only=True)
class Outcome:
    """What every decision's outcome records beside the decision (keyword fields, shared by every decider's outcome:
    ``PlanOutcome``, ``ScoredOutcome``, ...): its ``warnings`` (repairs, cuts, fallbacks), the ``usage`` of the model
    calls made for it, and its ``source``, the name of the decider that decided."""

    warnings: list[str] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    source: str = ""


class Decider(Protocol):
    """What every decider has: a ``name`` (its outcomes' ``source``, named in fallback warnings). Each decision's
    protocol (``Planner``, ``RelationPruner``, ...) adds its one method, which returns the decision's :class:`Outcome`
    or steps giving it (:data:`kg_agent.steps.Decided`)."""

    name: str


@dataclass
class Asked(Generic[T]):
    """What :meth:`LLMDecision.ask` got: the parsed value (``None`` when no attempt gave a usable reply)."""

    value: T | None
    reply: str = ""
    warnings: list[str] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    budget_exhausted: bool = False

    @property
    def decided(self) -> bool:
        return self.value is not None


OPENAI_API_HOST = "api.openai.com"

# OpenAI's Structured Outputs limits on enums ("Supported schemas", "Objects have limitations on nesting and size",
# https://platform.openai.com/docs/guides/structured-outputs#supported-schemas): a schema may have at most 1000 enum
# values across all its enum properties, and when one string enum has more than 250 values their total length may
# not exceed 15,000 characters. The API enforced 500 values before (its 400 error: "Expected at most 500 enum values
# in total within a single schema when using structured outputs", https://community.openai.com/t/974416), so the
# smaller count is used: a schema that fits it fits both. (Looked up for issue 25; the docs corpus searched here did
# not hold the OpenAI page itself, the limits are quoted from it and the forum thread above.)
MAX_ENUM_VALUES = 500
MAX_ENUM_CHARS = 15_000
ENUM_CHARS_LIMITED_ABOVE = 250


def fitting_enum(ranked_names: Sequence[str]) -> list[str]:
    """The longest prefix of ``ranked_names`` (best first) that fits the enum limits (:data:`MAX_ENUM_VALUES`, and
    :data:`MAX_ENUM_CHARS` once more than :data:`ENUM_CHARS_LIMITED_ABOVE` values)."""
    kept: list[str] = []
    chars = 0
    for name in ranked_names:
        chars += len(name)
        if len(kept) == MAX_ENUM_VALUES or (len(kept) >= ENUM_CHARS_LIMITED_ABOVE and chars > MAX_ENUM_CHARS):
            break
        kept.append(name)
    return kept


@dataclass(frozen=True)
class Candidates:
    """The names a decision may choose from (the KG's own: an entity's relations, the entities a relation reaches).

    ``rank``: the offline ranking, best first (called only when the names exceed the enum limits, to choose which
    go into the schema). ``most``: how many names a reply lists at most (what the decision keeps, ToG's ``W``); a
    grammar server (``json_object_schema``) caps the reply's list at it, so a small model cannot score a long list
    of candidates past the token cap."""

    names: Sequence[str]
    rank: Callable[[], Sequence[str]] | None = None
    most: int | None = None

    def for_schema(self) -> tuple[list[str], str]:
        """The names the schema lists (all of them when they fit) and, when cut, a note saying so."""
        names = list(dict.fromkeys(self.names))
        if len(fitting_enum(names)) == len(names):
            return names, ""
        known = set(names)
        ranked = [n for n in dict.fromkeys(self.rank()) if n in known] if self.rank is not None else []
        listed = set(ranked)
        ranked += [n for n in names if n not in listed]
        kept = fitting_enum(ranked)
        how = "by the offline ranking" if self.rank is not None else "in the order given"
        return kept, (f"{len(names)} candidates exceed the structured-output enum limit ({MAX_ENUM_VALUES} values, "
                      f"{MAX_ENUM_CHARS} characters); the schema lists the first {len(kept)} {how}")


@dataclass(frozen=True)
class CandidatesBySubject:
    """The names a decision about several subjects may choose for each (ToG-2's relation prune: per topic entity,
    its relations): ``groups`` maps a subject (an entity's label) to its names.

    ``rank(subject)``: the offline ranking of that subject's names, best first (called only when all the names
    and subjects exceed the enum limits, to choose which go in); ``most``: how many names a reply lists at most
    per subject (a grammar server caps each list at it, see :class:`Candidates`)."""

    groups: Mapping[str, Sequence[str]]
    rank: Callable[[str], Sequence[str]] | None = None
    most: int | None = None

    def for_schema(self) -> tuple[dict[str, list[str]], str]:
        """Each subject's names the schema lists (all of them when they fit) and, when cut, a note saying so. A cut
        keeps every subject and takes the subjects' best names in turn (each one's best, then each one's second,
        ...), so no subject loses all its names to another's long list."""
        groups = {subject: list(dict.fromkeys(names)) for subject, names in self.groups.items()}
        total = sum(len(names) for names in groups.values())
        if len(fitting_enum([*groups, *(n for names in groups.values() for n in names)])) == len(groups) + total:
            return groups, ""
        ranked = {subject: self._ranked(subject, names) for subject, names in groups.items()}
        in_turn = [(subject, names[i]) for i in range(max(map(len, ranked.values()), default=0))
                   for subject, names in ranked.items() if i < len(names)]
        fitting = fitting_enum([*groups, *(name for _, name in in_turn)])
        kept = set(in_turn[:max(0, len(fitting) - len(groups))])
        listed = {subject: [n for n in ranked[subject] if (subject, n) in kept] for subject in groups}
        how = "by the offline ranking" if self.rank is not None else "in the order given"
        return listed, (f"{total} candidates of {len(groups)} subjects exceed the structured-output enum limit "
                        f"({MAX_ENUM_VALUES} values, {MAX_ENUM_CHARS} characters); the schema lists "
                        f"{sum(map(len, listed.values()))}, each subject's best in turn {how}")

    def _ranked(self, subject: str, names: list[str]) -> list[str]:
        known = set(names)
        ranked = [n for n in dict.fromkeys(self.rank(subject)) if n in known] if self.rank is not None else []
        listed = set(ranked)
        return ranked + [n for n in names if n not in listed]


#: When ``structured_output="auto"`` asks a grammar server (llama.cpp) for a decision's schema: with the KG's candidates
#: only, always, or never (:attr:`LLMDecision.grammar_under_auto`).
GrammarUnderAuto = Literal["candidates", "always", "never"]

#: What a decision may choose from the KG: one list of names, or a list per subject.
KGCandidates = Candidates | CandidatesBySubject


class DecisionSchema(BaseModel):
    """A decision as structured output. :meth:`as_reply` writes a value in the text format the decider's lenient
    parser reads, so a structured value is validated exactly like a text reply (unknown names rejected, ...)."""

    def as_reply(self) -> str:
        return self.model_dump_json()

    @classmethod
    def with_candidates(cls, names: Sequence[str] | Mapping[str, Sequence[str]]) -> type[DecisionSchema]:
        """This schema for one call whose names must be among ``names`` (a JSON-schema ``enum``; for a decision per
        subject, :class:`CandidatesBySubject`, each subject's names); a subclass, so it reads back like this one. A
        decision that names nothing from a list is returned unchanged."""
        return cls


#: What ``GET /v1/models`` says owns the model (``owned_by``) -> the strongest mode that server constrains:
#: llama-cpp-python's server (``"me"``) and llama.cpp's own (``"llamacpp"``) turn a ``json_object`` response format
#: carrying a ``schema`` into a grammar (``llama_cpp.llama_chat_format._grammar_for_response_format``);
#: vLLM (``"vllm"``) decodes ``json_schema`` with guided decoding; Ollama says its models' namespace (``"library"`` for
#: its own registry's, ``ToListCompletion`` in Ollama's ``openai/openai.go``) and decodes a ``json_schema`` response
#: format under the schema (its ``format``).
SERVER_MODES = {"me": "json_object_schema", "llamacpp": "json_object_schema", "vllm": "json_schema",
                "library": "json_schema"}
#: Seconds the probe waits when the model sets no timeout of its own. llama-cpp-python's server answers
#: ``/v1/models`` only between generations (its model lock), so a probe made while it serves another user waits
#: like a chat call would: a short timeout took a busy server for one that constrains nothing.
PROBE_TIMEOUT = 60.0
_endpoint_modes: dict[tuple[str, str], str] = {}
_endpoint_lock = threading.Lock()


def _api_key(model: Any) -> str:
    key = getattr(model, "openai_api_key", None)
    return key.get_secret_value() if hasattr(key, "get_secret_value") else str(key or "")


def _probe_timeout(model: Any) -> float:
    """The model's own request timeout (``ChatOpenAI(timeout=...)``) when it is a number, else :data:`PROBE_TIMEOUT`."""
    timeout = getattr(model, "request_timeout", None)
    return float(timeout) if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0 else PROBE_TIMEOUT


def endpoint_mode(base_url: str, *, api_key: str = "", timeout: float = PROBE_TIMEOUT) -> str:
    """The strongest constraining mode of the OpenAI-compatible server at ``base_url``, found by one
    ``GET {base_url}/models`` (no generation, no tokens, not a model call): the server named by its models'
    ``owned_by`` (:data:`SERVER_MODES`), else ``"text"`` (a server that does not say). What a server answered (a
    model list, an error status, a body that is not one) is kept for the process; a probe that got no answer (no
    connection, or none within ``timeout`` seconds) gives ``"text"`` for this call and is made again by the next."""
    key = (base_url.rstrip("/"), api_key)
    with _endpoint_lock:
        if key in _endpoint_modes:
            return _endpoint_modes[key]
    request = urllib.request.Request(f"{key[0]}/models", headers={"Authorization": f"Bearer {api_key}"} if api_key else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            body = reply.read()
    except urllib.error.HTTPError:  # the server answered, with an error status: it says nothing it constrains
        body = b""
    except OSError:  # no answer: refused, unreachable, or busy past the timeout
        return "text"
    try:
        owners = {str(m.get("owned_by")) for m in json.loads(body).get("data") or [] if isinstance(m, dict)}
    except (ValueError, AttributeError):
        owners = set()
    modes = [SERVER_MODES[o] for o in sorted(owners) if o in SERVER_MODES]
    mode = modes[0] if len(set(modes)) == 1 else "text"
    with _endpoint_lock:
        _endpoint_modes[key] = mode
    return mode


def forget_endpoint_mode(base_url: str) -> None:
    """Drop what :func:`endpoint_mode` kept for the server at ``base_url`` (under any API key): the next decision
    asks it again, since a server restarted behind the same URL may be another kind."""
    url = base_url.rstrip("/")
    with _endpoint_lock:
        for key in [k for k in _endpoint_modes if k[0] == url]:
            del _endpoint_modes[key]


def structured_mode(model: Any, requested: str = "auto") -> str:
    """The mode a decision asks in. ``"auto"``: ``json_schema`` for ``ChatOpenAI`` on OpenAI's own API (which
    guarantees the schema); for ``ChatOpenAI`` on another server, what that server constrains
    (:func:`endpoint_mode`: llama.cpp's ``json_object`` + ``schema`` grammar, vLLM's guided ``json_schema``), else
    ``text`` (scripted and other models, servers with nothing that constrains, get the papers' text prompts). Any
    other value is used as given (``json_object_schema``: ``response_format={"type": "json_object", "schema":
    ...}``, llama.cpp's way of asking for a schema)."""
    if requested not in STRUCTURED_MODES:
        raise ValueError(f"structured_output must be one of {', '.join(STRUCTURED_MODES)}, not {requested!r}")
    if requested != "auto":
        return requested
    if type(model).__name__ == "ChatOpenAI":
        endpoint = _other_endpoint(model)
        return "json_schema" if endpoint is None else endpoint_mode(endpoint, api_key=_api_key(model),
                                                                    timeout=_probe_timeout(model))
    return "text"


def _other_endpoint(model: Any) -> str | None:
    """The base URL a ``ChatOpenAI`` really calls (``OPENAI_BASE_URL`` included) when it is not OpenAI's own API."""
    client = getattr(model, "root_client", None)
    base_url = str(getattr(client, "base_url", None) or getattr(model, "openai_api_base", None) or "")
    return None if not base_url or OPENAI_API_HOST in base_url else base_url


def endpoint_mode_unknown(model: Any) -> bool:
    """True when :func:`structured_mode` (auto) would first ask ``model``'s server what it constrains (a blocking
    ``GET``, made once per endpoint and process)."""
    if type(model).__name__ != "ChatOpenAI" or (endpoint := _other_endpoint(model)) is None:
        return False
    with _endpoint_lock:
        return (endpoint.rstrip("/"), _api_key(model)) not in _endpoint_modes


def _structured_message(output: dict) -> Any:
    """``with_structured_output(..., include_raw=True)``'s output as the raw reply, its text the JSON document
    (the parsed value, else what the model sent), so the call is counted from the reply's own token usage."""
    raw, parsed = output["raw"], output.get("parsed")
    if isinstance(parsed, BaseModel):
        text = parsed.model_dump_json()
    elif parsed is not None:
        text = json.dumps(parsed)
    elif getattr(raw, "tool_calls", None):
        text = json.dumps(raw.tool_calls[0].get("args") or {})
    else:
        text = raw.text if isinstance(raw, BaseMessage) else str(raw or "")
    return raw.model_copy(update={"content": text, "tool_calls": []}) if isinstance(raw, BaseMessage) else text


def structured_caller(model: BaseChatModel, schema: type[BaseModel], mode: str, *, most: int | None = None) -> Any:
    """``model`` asking for ``schema`` in ``mode`` (``json_schema``, ``function_calling``, ``json_mode``,
    ``json_object_schema``), giving a reply message whose text is the JSON document. ``most``: see
    :func:`items_bounded_by_enums` (``json_object_schema`` only)."""
    if mode == "json_object_schema":  # not a LangChain method: the schema rides in the json_object response format
        response_format = {"type": "json_object", "schema": items_bounded_by_enums(schema.model_json_schema(), most=most)}
        if hasattr(model, "extra_body"):  # ChatOpenAI: in the body, past langchain-openai's parse path, whose SDK
            # call raises on a reply cut at the token cap and loses its usage; the model's own extra_body is kept
            return model.bind(extra_body={**(model.extra_body or {}), "response_format": response_format})
        return model.bind(response_format=response_format)
    return model.with_structured_output(schema, method=mode, include_raw=True) | RunnableLambda(_structured_message)


def items_bounded_by_enums(schema: dict, *, most: int | None = None) -> dict:
    """``schema`` with each array of names from an enum (or of objects naming one) limited to that many items, and
    to ``most`` when given (``maxItems``; an array of one object per subject, :class:`CandidatesBySubject`, to the
    number of subjects, ``most`` then bounding each subject's list), so a grammar-constrained model cannot repeat or list items until the
    token cap; and each required array non-empty (``minItems`` 1: an empty list decides nothing, every decider's
    parser rejects it, and SmolLM2 under the grammar answered ``{"answers": []}``). Only for grammar servers
    (llama.cpp): OpenAI's strict subset is kept as pydantic writes it."""
    definitions = schema.get("$defs") or {}

    def enum_size(node: dict) -> int:
        node = definitions.get(node.get("$ref", "").rsplit("/", 1)[-1], node) if "$ref" in node else node
        if isinstance(node.get("anyOf"), list):  # one object per subject (CandidatesBySubject): as many as subjects
            return sum(enum_size(branch) for branch in node["anyOf"] if isinstance(branch, dict))
        if isinstance(node.get("enum"), list):
            return len(node["enum"])
        return max((len(p["enum"]) for p in (node.get("properties") or {}).values() if isinstance(p.get("enum"), list)),
                   default=0)

    def bounded(node: Any) -> Any:
        if isinstance(node, list):
            return [bounded(item) for item in node]
        if not isinstance(node, dict):
            return node
        node = {key: bounded(value) for key, value in node.items()}
        for name in node.get("required") or []:
            field = (node.get("properties") or {}).get(name)
            if isinstance(field, dict) and field.get("type") == "array":
                field["minItems"] = max(1, field.get("minItems", 1))
        if node.get("type") == "array" and isinstance(node.get("items"), dict) and (size := enum_size(node["items"])):
            per_subject = "anyOf" in node["items"]  # one object per subject: as many as subjects, ``most`` is per list
            node["maxItems"] = min(size, node.get("maxItems", size), size if per_subject else most or size)
        return node

    return bounded(schema)


#: Modes whose prompt carries the schema (``json_mode`` sends none; ``json_object_schema`` servers constrain by it but
#: do not show it to the model). Under ``json_object_schema`` the prompt shows the decision's own schema, without the
#: candidates' enums: the grammar enforces them, and the prompt lists the candidates already (repeating them in the
#: schema cost RoG's strict answer with SmolLM2 about 200 prompt tokens a question).
PROMPTED_SCHEMA_MODES = ("json_mode", "json_object_schema")


def json_mode_prompt(prompt: PromptInput, schema: type[BaseModel]) -> PromptInput:
    """The prompt saying which JSON to write (``json_mode`` sends no schema; ``json_object_schema`` only constrains)."""
    note = f"Reply with one JSON object that matches this JSON schema:\n{json.dumps(schema.model_json_schema())}"
    if isinstance(prompt, str):
        return f"{prompt}\n\n{note}"
    messages = prompt.to_messages() if hasattr(prompt, "to_messages") else list(prompt)
    return [*messages, HumanMessage(note)]


def parse_structured(schema: type[DecisionSchema], parse: Parser, node: str, reply: str) -> Parsed:
    """A structured reply: validated by ``schema``, written back as text (:meth:`DecisionSchema.as_reply`) and read
    by the decider's own ``parse``."""
    try:
        value = schema.model_validate_json(reply)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'reply'}: {e['msg']}" for e in exc.errors()[:3])
        return None, [f"{node}: the structured reply does not match the {schema.__name__} schema ({problems})"]
    return parse(value.as_reply())


def retry_prompt(prompt: PromptInput, reason: str, reply_format: str) -> PromptInput:
    """``prompt`` plus what was wrong with the previous reply and, if known, the expected format."""
    note = f"Your previous reply could not be used: {reason}."
    if reply_format:
        note += f" Reply exactly in this format:\n{reply_format}"
    if isinstance(prompt, str):
        return f"{prompt}\n\n{note}"
    messages = prompt.to_messages() if hasattr(prompt, "to_messages") else list(prompt)
    return [*messages, HumanMessage(note)]


@dataclass(frozen=True)
class Ask:
    """One decision to ask (yielded by a decider's steps; :func:`kg_agent.steps.run_steps` / :func:`~kg_agent.steps.arun_steps` ask it)."""

    decision: LLMDecision
    prompt: PromptInput
    parse: Parser
    candidates: KGCandidates | None = None

    def run(self) -> Asked:
        return self.decision.ask(self.prompt, self.parse, candidates=self.candidates)

    async def arun(self) -> Asked:
        return await self.decision.aask(self.prompt, self.parse, candidates=self.candidates)


@dataclass(frozen=True)
class LLMDecision:
    """One decision of one node by a chat model.

    Args:
        model: any LangChain chat model.
        node: the node name the calls are counted under and the warnings start with.
        what: what a usable reply gives, for the warning of an unusable attempt ("relation path", "answer").
        attempts: calls per decision (the first and one retry).
        schema: the decision as a :class:`DecisionSchema`; with a structured mode the first attempt asks for it
            (:func:`structured_mode`), its value rendered back to the text format and validated by the same parser.
        reply_format: an example of a usable reply, shown to the model when it retries.
        structured_output: ``"auto"``, ``"json_schema"``, ``"function_calling"``, ``"json_mode"`` or ``"text"``
            (:func:`structured_mode`). A structured call the server refuses (a 400/500: llama.cpp's server
            refuses ``json_schema``) is recorded, the retry uses the text prompt, and this decision asks in text
            from then on. Each attempt's mode is counted in ``usage["by_node"][node]["modes"]``.
        grammar_under_auto: under ``"auto"``, when a grammar server (``json_object_schema``) constrains this decision
            (:data:`GrammarUnderAuto`): ``"candidates"`` (the default) when the call carries the KG's candidates,
            ``"always"``, or ``"never"``. Measured with SmolLM2 (docs/real_llm.md): a decision naming the KG's
            candidates parses far better under the grammar (ToG's pruning 0 -> 100 % on the first attempt, RoG's plan
            under the trie of walkable paths); so does ToG-2's examiner, free text in a JSON shape (``"always"``: 0 of
            2 on the first attempt in text, 2 of 2 under the grammar, fewer tokens); RoG's strict answer is written
            usably in text and its grammar's schema note costs more tokens than it saves (``"never"``: 2,732 + 314
            tokens for two questions in text, 2,882 + 302 under the grammar), so there the text prompt stays and the
            candidates' ``enum`` goes to servers that constrain without a prompted schema (OpenAI, vLLM) and to an
            explicit ``structured_output="json_object_schema"``.
    """

    model: BaseChatModel
    node: str
    what: str = "reply"
    attempts: int = DEFAULT_ATTEMPTS
    schema: type[DecisionSchema] | None = None
    reply_format: str = ""
    structured_output: StructuredMode = "auto"
    grammar_under_auto: GrammarUnderAuto = "candidates"
    _rejected_modes: set = field(default_factory=set, compare=False, repr=False)

    def request(self, prompt: PromptInput, parse: Parser, *, candidates: KGCandidates | None = None) -> Ask:
        """The decision as a step to yield (``asked = yield decision.request(prompt, parse)``); ``candidates``: the
        names this call may choose from, listed as an ``enum`` in the schema it sends."""
        return Ask(self, prompt, parse, candidates)

    def _failed_call(self, exc: Exception, warnings: list[str]) -> bool:
        """Record a failed call; True when it was refused by a budget."""
        if isinstance(exc, BudgetExceeded):
            warnings.append(f"{self.node}: {exc}")
            return True
        warnings.append(f"{self.node}: the model call failed ({type(exc).__name__}: {exc})")
        return False

    def _parsed(self, reply: str, parse: Parser, attempt: int, warnings: list[str]) -> tuple[Any, str]:
        """The parsed value (``None``: unusable) and, when unusable, why (for the retry)."""
        value, notes = parse(reply)
        warnings.extend(notes)
        if value is not None:
            return value, ""
        warnings.append(f"{self.node}: attempt {attempt} gave no usable {self.what} (reply: {reply[:REPLY_EXCERPT]!r})")
        reason = "it was empty" if not reply.strip() else f"it gave no usable {self.what}"
        return None, "; ".join([reason, *(n.split(": ", 1)[-1] for n in notes)])

    def _mode(self, candidates: KGCandidates | None = None) -> str:
        """This call's mode. Under ``"auto"`` a grammar server (``json_object_schema``) constrains the decision as its
        ``grammar_under_auto`` says; otherwise the text prompt is asked."""
        requested = current_run_settings().structured_output or self.structured_output  # the run's, else the decider's
        mode = structured_mode(self.model, requested) if self.schema is not None else "text"
        if mode == "json_object_schema" and requested == "auto" and not self._grammar_under_auto(candidates):
            mode = "text"
        return "text" if mode in self._rejected_modes else mode

    def _grammar_under_auto(self, candidates: KGCandidates | None) -> bool:
        return self.grammar_under_auto == "always" or (self.grammar_under_auto == "candidates" and candidates is not None)

    def _caller(self, mode: str, schema: type[DecisionSchema] | None, candidates: KGCandidates | None) -> Any:
        most = candidates.most if candidates is not None else None
        return self.model if mode == "text" else structured_caller(self.model, schema, mode, most=most)

    def _call_schema(self, mode: str, candidates: KGCandidates | None, warnings: list[str]) -> type[DecisionSchema] | None:
        """The schema sent for this call: the decision's, its names limited to ``candidates`` (cut to the enum limits)."""
        if mode == "text" or self.schema is None or candidates is None:
            return self.schema
        names, cut = candidates.for_schema()
        if cut:
            warnings.append(f"{self.node}: {cut}")
        return self.schema.with_candidates(names)

    def _structured_failed(self, mode: str, exc: Exception, warnings: list[str]) -> str:
        """Record a structured call that failed: a reply the client could not read as the schema (the retry asks
        in text), or a refused request (the retry and every later decision here ask in text)."""
        if type(exc.__cause__).__name__ == "LengthFinishReasonError":  # the openai SDK's: cut at the token cap
            warnings.append(f"{self.node}: the structured reply ({mode}) was cut at the token cap")
            return "it was cut at the token limit; reply shorter"
        if isinstance(exc.__cause__, ValidationError | json.JSONDecodeError):
            warnings.append(f"{self.node}: the structured reply does not match the {self.schema.__name__} schema "
                            f"({str(exc.__cause__).splitlines()[0]})")
            return f"it did not match the {self.schema.__name__} schema"
        self._rejected_modes.add(mode)
        if type(self.model).__name__ == "ChatOpenAI" and (endpoint := _other_endpoint(self.model)) is not None:
            forget_endpoint_mode(endpoint)  # what its server said may be stale
        warnings.append(f"{self.node}: structured output ({mode}) failed ({type(exc).__name__}: {exc}); "
                        "asking with the text prompt")
        return f"the {mode} request failed"

    def _parser(self, mode: str, parse: Parser) -> Parser:
        return parse if mode == "text" else functools.partial(parse_structured, self.schema, parse, self.node)

    def _asked(self, value: Any, reply: str, warnings: list[str], tracker: UsageTracker, modes: dict[str, int],
               exhausted: bool = False) -> Asked:
        usage = merge_usage(tracker.as_dict(), {"by_node": {self.node: {"modes": modes}}}) if modes else tracker.as_dict()
        return Asked(value, reply, warnings, usage, exhausted)

    def _dialogue(self, prompt: PromptInput, parse: Parser, candidates: KGCandidates | None = None):
        """The decision, written once for :meth:`ask` and :meth:`aask`: yields each call to make as
        ``(model, prompt, tracker)`` and is sent back the reply text or the exception; returns the :class:`Asked`.

        The first attempt asks in the structured mode (when the decision has one), a retry asks with the text
        prompt plus why the previous reply could not be used. A call the question's budget refuses ends it.
        """
        tracker, warnings, reply, modes = UsageTracker(), [], "", {}
        mode, current = self._mode(candidates), prompt
        schema = self._call_schema(mode, candidates, warnings)
        for attempt in range(1, self.attempts + 1):
            modes[mode] = modes.get(mode, 0) + 1
            shown = self.schema if mode == "json_object_schema" else schema  # see PROMPTED_SCHEMA_MODES
            sent = json_mode_prompt(current, shown) if mode in PROMPTED_SCHEMA_MODES else current
            outcome = yield self._caller(mode, schema, candidates), sent, tracker
            if isinstance(outcome, LLMCallError) and mode != "text" and not isinstance(outcome, LLMUnavailable):
                reason = self._structured_failed(mode, outcome, warnings)
            elif isinstance(outcome, Exception):  # a refused call, network, rate limit after the SDK's retries
                return self._asked(None, reply, warnings, tracker, modes, self._failed_call(outcome, warnings))
            else:
                reply = outcome
                value, reason = self._parsed(reply, self._parser(mode, parse), attempt, warnings)
                if value is not None:
                    return self._asked(value, reply, warnings, tracker, modes)
            mode, current = "text", retry_prompt(prompt, reason, self.reply_format)
        return self._asked(None, reply, warnings, tracker, modes)

    def ask(self, prompt: PromptInput, parse: Parser, *, candidates: KGCandidates | None = None) -> Asked:
        """Call, parse, and retry once (with a prompt saying what was wrong) when the reply is unusable.

        A call the question's budget refuses (:mod:`kg_agent.llm.budget`) is not made (``budget_exhausted``).
        """
        dialogue, outcome = self._dialogue(prompt, parse, candidates), None
        while not (step := advance(dialogue.send, outcome))[0]:
            outcome = _reply_or_failure(call_llm_reply, *step[1], node=self.node)
        return step[1]

    async def aask(self, prompt: PromptInput, parse: Parser, *, candidates: KGCandidates | None = None) -> Asked:
        """:meth:`ask` with the model's native async call (no worker thread)."""
        if self.schema is not None and self.structured_output == "auto" and endpoint_mode_unknown(self.model):
            # the first call to an OpenAI-compatible server asks it once what it constrains (a blocking GET), in a
            # worker thread: never on the event loop (langgraph dev refuses blocking calls there)
            await asyncio.to_thread(structured_mode, self.model, self.structured_output)
        dialogue, outcome = self._dialogue(prompt, parse, candidates), None
        while not (step := advance(dialogue.send, outcome))[0]:
            outcome = await _areply_or_failure(acall_llm_reply, *step[1], node=self.node)
        return step[1]


def _reply_or_failure(call: Callable[..., Any], model: Any, prompt: PromptInput, tracker: UsageTracker, *,
                      node: str) -> str | Exception:
    """The reply's text, or the exception the call raised (handed to the dialogue, which records it)."""
    try:
        return call(model, prompt, node=node, tracker=tracker).text
    except Exception as exc:
        return exc


async def _areply_or_failure(call: Callable[..., Awaitable[Any]], model: Any, prompt: PromptInput,
                             tracker: UsageTracker, *, node: str) -> str | Exception:
    """:func:`_reply_or_failure` of an async ``call``."""
    try:
        return (await call(model, prompt, node=node, tracker=tracker)).text
    except Exception as exc:
        return exc


class LLMDecider:
    """What every LLM decider shares: its name (``"llm"``), its chat ``model``, its :class:`LLMDecision` (``node``:
    what its calls are counted under; asked in ``structured_output`` mode; ``decision``: the rest of
    :class:`LLMDecision`'s fields) and the ``fallback`` it hands the decision to when the model gives none
    (:func:`fall_back`)."""

    name = "llm"

    def __init__(self, model: BaseChatModel, node: str, *, fallback: Any = None, structured_output: StructuredMode = "auto",
                 **decision: Any) -> None:
        self.model = model
        self.fallback = fallback
        self.decision = LLMDecision(model, node, structured_output=structured_output, **decision)


#: How many relation descriptions a prompt lists at most, and how long each may be.
MAX_DESCRIBED_RELATIONS = 30
MAX_DESCRIPTION_CHARS = 160


def relation_meanings(kg: Any, relations: Sequence[str]) -> str:
    """A prompt line saying what the KG says its relations mean (their properties' descriptions, ``rdfs:comment``,
    ``schema:description`` ...; :meth:`~kg_agent.kg.graph.KnowledgeGraph.relation_description`), or ``""`` when
    there is no ``kg`` or it describes none of them: ``"Relation meanings: cast_member: actor in the subject
    production; director: director(s) of film, TV-series ...\n"``. At most :data:`MAX_DESCRIBED_RELATIONS`, each cut
    to :data:`MAX_DESCRIPTION_CHARS`; a backend that cannot say gives none."""
    if kg is None:
        return ""
    described = []
    for relation in dict.fromkeys(relations):
        try:
            text = kg.relation_description(relation)
        except Exception:  # an unknown relation, a backend without descriptions: nothing to add
            text = None
        if text:
            if len(text) > MAX_DESCRIPTION_CHARS:
                text = text[:MAX_DESCRIPTION_CHARS - 3].rstrip() + "..."
            described.append(f"{relation}: {text}")
        if len(described) == MAX_DESCRIBED_RELATIONS:
            break
    return "Relation meanings: " + "; ".join(described) + "\n" if described else ""


def fall_back(asked: Asked, outcome: AnOutcome, *, node: str, to: str, before: Sequence[str] = ()) -> AnOutcome:
    """The offline twin's ``outcome`` with the LLM attempts' record in front: ``before`` (what the decider
    noted while writing the prompt), the attempts' warnings, ``"<node>: fell back to <to>"``, then the twin's
    own warnings; the attempts' usage; ``budget_exhausted`` when a call was refused. ``outcome`` is a
    dataclass with ``warnings`` and ``usage`` fields."""
    changes: dict[str, Any] = {
        "warnings": [*before, *asked.warnings, f"{node}: fell back to {to}", *getattr(outcome, "warnings", [])],
        "usage": merge_usage(asked.usage, outcome.usage) if getattr(outcome, "usage", None) else asked.usage,
    }
    names = {f.name for f in dataclasses.fields(outcome)}
    if "budget_exhausted" in names:
        changes["budget_exhausted"] = asked.budget_exhausted or bool(getattr(outcome, "budget_exhausted", False))
    return dataclasses.replace(outcome, **changes)
