"""What a caller chooses for a method graph, declared once: :class:`GraphSettings` (when the graph is built) and
:class:`RunSettings` (its run-time part, for one run).

:class:`GraphSettings` holds what every method shares (model, embeddings, structured output, grounding, concurrency,
budgets), each field documented here once. Every factory takes its fields as keyword options
(``create_rog_graph(kg, model=..., grounding="strict")``) or as one object (``settings=GraphSettings(...)``), and
validates them through it (:func:`chosen_options`: a bad value is pydantic's ``ValidationError`` naming the field;
type checkers read the options from :class:`GraphOptions`, its fields as a ``TypedDict``);
both command lines generate their flags from it (:func:`add_settings_args`).

Every method graph takes ``RunSettings`` as its LangGraph *context schema*, so its fields travel with a run instead
of being fixed when the graph is built:

* in Python: ``app.invoke({"question": ...}, context={"grounding": "strict", "max_llm_calls": 4})``;
* through a LangGraph server (``langgraph dev``, LangGraph Platform):
  ``client.runs.wait(thread_id, "rog", input=..., context={"grounding": "strict"})``;
* through MCP: the ``ask`` tool's ``settings`` argument (an object with these fields);
* on the command line: ``--grounding``, ``--structured-output``, ``--max-llm-calls``, ... (:func:`add_settings_args`;
  there they set the graph's own values).

A setting left out (or ``None``) keeps what the graph was built with (the factory's keyword of the same name).
The budgets only tighten: a run's ``max_llm_calls``, ``max_tokens`` and ``max_seconds`` apply where they are
below the graph's own (a server's operator sets the ceiling with the factory or ``KG_AGENT_RUN_TIMEOUT``; a client
cannot raise it). ``grounding`` and ``structured_output`` replace the graph's. A setting that is not one of these,
or a value out of range, is refused before the run starts (pydantic's ``ValidationError`` naming the field).

While a node runs, :func:`current_run_settings` gives the run's settings to the code that needs them (the question
budget, the LLM deciders' structured mode, the answer step's grounding), in the node's worker threads too. A choice
made when the graph is built does not follow a run's grounding: the LLM planner and relation pruner keep the offline
top plan or relation beside the model's unless the graph was built with ``grounding="off"``.
"""

from __future__ import annotations

import argparse
import contextvars
import inspect
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

if TYPE_CHECKING:  # LangChain is imported with a graph's deciders, not with the settings (the CLI's flags)
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

#: What the model's answers become when no retrieved path supports them (:mod:`kg_agent.tools.shared.grounding`).
Grounding = Literal["prefer", "strict", "off"]
GROUNDING_POLICIES: tuple[str, ...] = get_args(Grounding)
DEFAULT_GROUNDING: Grounding = "prefer"

#: How the LLM deciders ask a chat model for a decision (:func:`kg_agent.tools.shared.decider.structured_mode`).
StructuredMode = Literal["auto", "json_schema", "function_calling", "json_mode", "json_object_schema", "text"]
STRUCTURED_MODES: tuple[str, ...] = get_args(StructuredMode)

#: What a method returns when no answer it found is one the question asks for (:mod:`kg_agent.tools.shared.answer_checks`).
WhenUnsupported = Literal["abstain", "best_effort"]

DEFAULT_MAX_CONCURRENCY = 4  # independent decisions of one step asked at once

_RUN_NOTE = " A run's value applies only below the graph's."


def is_instance_of(value: Any, module: str, name: str) -> bool:
    """Whether ``value`` is an instance of ``module.name``, without importing ``module``: no object is an instance of
    a class that was never imported."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(value, getattr(loaded, name))


def check_policy(grounding: Any) -> Grounding:
    """``grounding`` when it is a policy; a ``ValueError`` naming the choices otherwise."""
    if grounding not in GROUNDING_POLICIES:
        raise ValueError(f"unknown grounding policy {grounding!r}: use one of {', '.join(GROUNDING_POLICIES)}")
    return grounding


class GraphSettings(BaseModel):
    """What every method graph is built with (each factory's shared keyword options, documented here once)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # model and embeddings are LangChain objects, checked by _langchain_kinds without importing LangChain here
    model: Any = Field(
        default=None,
        description='the chat model: a LangChain chat model or a name such as "openai:gpt-4o-mini" (OPENAI_BASE_URL '
                    "and OPENAI_API_KEY honoured); none: every decision is made offline")
    embeddings: Any = Field(
        default=None, description="LangChain embeddings for the offline deciders (default: the bundled MiniLM)")
    structured_output: StructuredMode = Field(
        default="auto",
        description='how the LLM deciders ask the chat model: "auto" (what the endpoint constrains), "json_schema", '
                    '"function_calling", "json_mode", "json_object_schema" or "text" (the papers\' prompts)')
    grounding: Grounding = Field(
        default=DEFAULT_GROUNDING,
        description='what answers no retrieved path (or cited chunk) supports become: "prefer" (the offline answers '
                    'replace them, with a warning; the default), "strict" (only supported answers, else none and '
                    'stop_reason "no_grounded_answer") or "off" (kept, flagged ungrounded)')
    when_unsupported: WhenUnsupported = Field(
        default="abstain",
        description='what a method returns when what it reached is not what the question asks for (only unnamed '
                    'statement nodes; no answer reached from every thing the question names): "abstain" (no answer, '
                    'stop_reason "abstained" and the reason in warnings; the default) or "best_effort" (those answers, '
                    'flagged ungrounded, or the answers reached from each, with a warning)')
    max_concurrency: int = Field(
        default=DEFAULT_MAX_CONCURRENCY, ge=1,
        description="independent LLM calls of one step asked at once (default 4; 1: one after the other); invoke "
                    "runs them in a thread pool, ainvoke/astream with the model's async calls")
    max_llm_calls: int | Literal["auto"] | None = Field(
        default="auto",
        description='at most this many LLM calls per question; "auto" (the default): the method\'s own bound (ToG '
                    "and ToG-I: the paper's, RoG and ToG-2: none); none: no limit. Past it the offline deciders "
                    'decide, exploration stops and stop_reason is "budget"')
    max_tokens: int | None = Field(
        default=None, ge=0, description="at most this many prompt + completion tokens per question (default: none)")
    max_seconds: float | None = Field(
        default=None, ge=0, allow_inf_nan=False,
        description="seconds per question: past them no model call is made, exploration stops and the answer uses "
                    "what was found (default: none)")
    ask_when_ambiguous: bool = Field(
        default=False,
        description="when several entities fit a mention of the question equally well, stop the run with LangGraph's "
                    "interrupt showing them (label, classes, a fact telling each apart) and go on with the one the "
                    'user resumes with, Command(resume={"id": ...}); needs a checkpointer (default: off, the linker '
                    "keeps them all; kg_agent.tools.shared.ambiguity)")

    @field_validator("model", "embeddings")
    @classmethod
    def _langchain_kinds(cls, value: Any, info: Any) -> Any:
        if info.field_name == "model":
            if value is None or isinstance(value, str) or is_instance_of(value, "langchain_core.language_models",
                                                                          "BaseChatModel"):
                return value
            raise ValueError(f"model must be a LangChain chat model, a model name or None, not {type(value).__name__}")
        if value is None or is_instance_of(value, "langchain_core.embeddings", "Embeddings"):
            return value
        raise ValueError(f"embeddings must be LangChain embeddings or None, not {type(value).__name__}")

    @field_validator("grounding", mode="before")
    @classmethod
    def _known_policy(cls, value: Any) -> Any:
        return check_policy(value)

    @field_validator("max_llm_calls")
    @classmethod
    def _not_negative(cls, value: Any) -> Any:
        if isinstance(value, int) and value < 0:
            raise ValueError("max_llm_calls must be >= 0")
        return value

    def chat_model(self) -> BaseChatModel | None:
        """:attr:`model` as a chat model (a name resolved: :func:`kg_agent.llm.models.resolve_chat_model`)."""
        if isinstance(self.model, str):
            from kg_agent.llm.models import resolve_chat_model

            return resolve_chat_model(self.model)
        return self.model

    def resolved(self) -> GraphSettings:
        """These settings with :attr:`model` as a chat model (a name resolved once, for the graph's deciders)."""
        return self.model_copy(update={"model": self.chat_model()}) if isinstance(self.model, str) else self

    def call_limit(self, auto: int | None = None) -> int | None:
        """:attr:`max_llm_calls`, ``"auto"`` read as ``auto`` (the method's own bound)."""
        return auto if self.max_llm_calls == "auto" else self.max_llm_calls


class GraphOptions(TypedDict, total=False):
    """:class:`GraphSettings`' fields as a factory's keyword options, for type checkers: every factory declares
    ``**options: Unpack[GraphOptions]`` (ToG and ToG-I a subclass adding their own), so
    ``create_rog_graph(kg, model="openai:gpt-4o-mini", grounding="strict")`` type-checks and a misspelt option or a
    wrong type does not. Each field is typed as in :class:`GraphSettings`, where it is documented, but ``model`` and
    ``embeddings``, which :class:`GraphSettings` holds as ``Any`` and checks without importing LangChain: here they
    have their LangChain types. A test keeps the two equal (tests/test_typing.py)."""

    model: BaseChatModel | str | None
    embeddings: Embeddings | None
    structured_output: StructuredMode
    grounding: Grounding
    when_unsupported: WhenUnsupported
    max_concurrency: int
    max_llm_calls: int | Literal["auto"] | None
    max_tokens: int | None
    max_seconds: float | None
    ask_when_ambiguous: bool


def _described(name: str, note: str = "") -> str:
    """A :class:`GraphSettings` field's description (the one place it is written), for a field sharing its meaning."""
    return f"{GraphSettings.model_fields[name].description}{note}"


class RunSettings(BaseModel):
    """Settings of one run of a method graph (its LangGraph context); ``None`` keeps the graph's own
    (:class:`GraphSettings` documents each)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    grounding: Grounding | None = Field(default=None, description=_described("grounding"))
    structured_output: StructuredMode | None = Field(default=None, description=_described("structured_output"))
    when_unsupported: WhenUnsupported | None = Field(default=None, description=_described("when_unsupported"))
    max_llm_calls: int | None = Field(default=None, ge=0, description=_described("max_llm_calls", _RUN_NOTE))
    max_tokens: int | None = Field(default=None, ge=0, description=_described("max_tokens", _RUN_NOTE))
    max_seconds: float | None = Field(default=None, ge=0, allow_inf_nan=False,
                                      description=_described("max_seconds", _RUN_NOTE))


#: The settings of no run: everything as the graph was built.
BUILT = RunSettings()

_current: contextvars.ContextVar[RunSettings] = contextvars.ContextVar("kg_agent_run_settings", default=BUILT)


def current_run_settings() -> RunSettings:
    """The settings of the run whose node is executing (:data:`BUILT` outside a run)."""
    return _current.get()


def run_settings_of(context: Any) -> RunSettings:
    """A run's LangGraph context as :class:`RunSettings` (``None`` is :data:`BUILT`; a mapping is validated)."""
    if context is None:
        return BUILT
    if isinstance(context, RunSettings):
        return context
    if isinstance(context, Mapping):
        return RunSettings(**context)
    raise TypeError(f"a run's context must be RunSettings or a mapping of its fields, not {type(context).__name__}")


@contextmanager
def using_run_settings(settings: RunSettings) -> Iterator[RunSettings]:
    """Make ``settings`` :func:`current_run_settings` inside the block (and in contexts copied from it)."""
    token = _current.set(settings)
    try:
        yield settings
    finally:
        _current.reset(token)


def tightened(built: float | None, run: float | None) -> float | None:
    """A limit of the run: the lower of the graph's and the run's (``None``: no limit)."""
    if run is None:
        return built
    return run if built is None else min(built, run)


# ---------------------------------------------------------------------------------------------- factories
F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M", bound=BaseModel)


def takes_options(**groups: type[BaseModel]) -> Callable[[F], F]:
    """Show a factory's options, as :func:`chosen_options` reads them, to the registry, the CLIs and ``help()``.

    A factory declares, once, what type checkers read: ``def create_x_graph(kg, *, width=3, settings:
    GraphSettings | None = None, **options: Unpack[GraphOptions])`` (``GraphOptions``: the :class:`TypedDict` of
    :class:`GraphSettings`' fields), and builds its settings with :func:`chosen_options`.
    ``@takes_options(settings=GraphSettings)`` over it writes each options model's fields into its signature as
    keyword options, before the whole-instance keyword (``create_x_graph(kg, *, width=3, model=None, ...,
    settings=None)``: what :func:`~kg_agent.graphs.registry.method_options` and ``inspect.signature`` read), and
    their descriptions, written once in the model, into its docstring. It returns the factory itself."""

    def decorate(factory: F) -> F:
        signature = inspect.signature(factory)
        own = [p for name, p in signature.parameters.items()
               if name not in groups and p.kind is not inspect.Parameter.VAR_KEYWORD]
        shared = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=field.default,
                                    annotation=field.annotation)
                  for model in groups.values() for name, field in model.model_fields.items()]
        whole = [inspect.Parameter(group, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=f"{model.__name__} | None")
                 for group, model in groups.items()]
        factory.__signature__ = signature.replace(parameters=[*own[:1], *shared, *own[1:], *whole])  # type: ignore[attr-defined]
        factory.__doc__ = "\n\n".join([(factory.__doc__ or "").rstrip(),
                                        *(options_doc(model, group) for group, model in groups.items())])
        return factory

    return decorate


def chosen_options(model: type[M], given: M | Mapping[str, Any] | None, options: Mapping[str, Any]) -> M:
    """The options of ``model`` a factory was called with: ``given`` (its whole-instance keyword: an instance, a
    mapping of fields, or ``None``) with the keyword ``options`` among ``model``'s fields replacing its fields,
    validated (pydantic's ``ValidationError`` naming a bad one). Keywords of no field are left for the factory's
    other groups (:func:`refuse_unknown_options`)."""
    if isinstance(given, Mapping):
        given = model(**given)
    base = {name: getattr(given, name) for name in model.model_fields if name in given.model_fields_set} \
        if given is not None else {}
    fields = {name: value for name, value in options.items() if name in model.model_fields}
    return model(**{**base, **fields}) if fields or given is None else given


def refuse_unknown_options(factory: str, options: Mapping[str, Any], *models: type[BaseModel]) -> None:
    """A ``TypeError`` (as Python raises for an unknown keyword) for ``options`` that are no field of ``models``."""
    unknown = sorted(name for name in options if not any(name in model.model_fields for model in models))
    if unknown:
        raise TypeError(f"{factory}() got an unexpected keyword argument {unknown[0]!r}")


def options_doc(model: type[BaseModel], group: str) -> str:
    """The ``Args`` lines of an options model's fields (for a factory's docstring; ``group``: the keyword taking a
    whole instance)."""
    header = f"Options of :class:`~{model.__module__}.{model.__name__}` (also as one object: ``{group}=``):"
    if model is GraphSettings:
        header += (" the graph's own ``grounding``, ``structured_output`` and budgets; a run may choose others through "
                   "its LangGraph context (:class:`~kg_agent.settings.RunSettings`; budgets only tighter).")
    lines = textwrap.wrap(header, 116, initial_indent="    ", subsequent_indent="    ")
    for name, field in model.model_fields.items():
        lines += textwrap.wrap(f"{name}: {field.description}.", 116, initial_indent="        ",
                               subsequent_indent="            ")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- command lines
#: The :class:`GraphSettings` fields a command line sets (embeddings are objects: Python only; ``ask_when_ambiguous``
#: needs a caller that resumes an interrupted run).
FLAG_SETTINGS = ("model", "structured_output", "grounding", "when_unsupported", "max_concurrency", "max_llm_calls", "max_tokens",
                 "max_seconds")
#: What a flag says beyond its field's description.
_FLAG_NOTES = {"model": ' ("none": offline); default: KG_AGENT_MODEL if set, else none (an API key in the '
                        "environment alone never selects a model)"}


def add_settings_args(parser: argparse.ArgumentParser) -> None:
    """One command-line flag per :class:`GraphSettings` field a command line sets (:data:`FLAG_SETTINGS`:
    ``--model``, ``--structured-output``, ``--grounding``, ``--max-concurrency``, ``--max-llm-calls``,
    ``--max-tokens``, ``--max-seconds``): its help is the field's description, its choices or its type the field's,
    a bad value is refused in the field's words; a flag not given is ``None`` (the factory's default)."""
    for name in FLAG_SETTINGS:
        field = GraphSettings.model_fields[name]
        kinds = [kind for kind in get_args(field.annotation) if kind is not type(None)]
        options: dict[str, Any] = {"default": None, "help": f"{field.description}{_FLAG_NOTES.get(name, '')}"}
        if name == "model":
            options["metavar"] = "MODEL"
        elif kinds and get_origin(kinds[0]) is Literal:
            options["choices"] = get_args(kinds[0])
        else:
            options["type"] = _flag_value(name)
            options["metavar"] = "S" if name == "max_seconds" else "N"
        parser.add_argument("--" + name.replace("_", "-"), **options)


def _flag_value(name: str) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            return getattr(GraphSettings.model_validate({name: text}), name)
        except ValidationError as exc:
            raise argparse.ArgumentTypeError(exc.errors()[0]["msg"].lower()) from None

    parse.__name__ = name
    return parse


def settings_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`GraphSettings` fields a command line set (flags not given left out; ``--model`` is resolved by
    the command, :func:`kg_agent.llm.models.resolve_model_args`)."""
    values = vars(args)
    return {name: values[name] for name in FLAG_SETTINGS if name != "model" and values.get(name) is not None}
