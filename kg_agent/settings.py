"""What a caller may choose for one run of a method graph, declared once: :class:`RunSettings`.

Every method graph takes ``RunSettings`` as its LangGraph *context schema*, so the settings travel with a run
instead of being fixed when the graph is built:

* in Python: ``app.invoke({"question": ...}, context={"grounding": "strict", "max_llm_calls": 4})``;
* through a LangGraph server (``langgraph dev``, LangGraph Platform):
  ``client.runs.wait(thread_id, "rog", input=..., context={"grounding": "strict"})``;
* through MCP: the ``ask`` tool's ``settings`` argument (an object with these fields);
* on the command line: ``--grounding``, ``--structured-output``, ``--max-llm-calls``, ... (:func:`add_run_settings_args`;
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
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError

#: What the model's answers become when no retrieved path supports them (:mod:`kg_agent.tools.shared.grounding`).
Grounding = Literal["prefer", "strict", "off"]
GROUNDING_POLICIES: tuple[str, ...] = get_args(Grounding)
DEFAULT_GROUNDING: Grounding = "prefer"

#: How the LLM deciders ask a chat model for a decision (:func:`kg_agent.tools.shared.decider.structured_mode`).
StructuredMode = Literal["auto", "json_schema", "function_calling", "json_mode", "json_object_schema", "text"]
STRUCTURED_MODES: tuple[str, ...] = get_args(StructuredMode)


class RunSettings(BaseModel):
    """Settings of one run of a method graph (its LangGraph context); ``None`` keeps the graph's own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    grounding: Grounding | None = Field(
        default=None,
        description='What answers no retrieved path supports become: "prefer" (the offline path answers replace '
                    'them, with a warning; the default), "strict" (only supported answers, else none) or "off" (kept, '
                    "flagged ungrounded).")
    structured_output: StructuredMode | None = Field(
        default=None,
        description='How the LLM deciders ask the chat model: "auto" (what the endpoint supports), "json_schema", '
                    '"function_calling", "json_mode", "json_object_schema" or "text" (the papers\' prompts); default '
                    '"auto".')
    max_llm_calls: int | None = Field(
        default=None, ge=0, description="At most this many LLM calls per question (default: none; ToG and ToG-I: the method's own "
                                            "bound). A run's value applies only below the graph's.")
    max_tokens: int | None = Field(
        default=None, ge=0, description="At most this many prompt + completion tokens per question (default: none). A run's "
                                            "value applies only below the graph's.")
    max_seconds: float | None = Field(
        default=None, ge=0, allow_inf_nan=False,
        description="Seconds per question: past them no model call is made, exploration stops and the answer uses "
                    "what was found (default: none). A run's value applies only below the graph's.")


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


def add_run_settings_args(parser: argparse.ArgumentParser) -> None:
    """One command-line flag per :class:`RunSettings` field (``--grounding``, ``--structured-output``,
    ``--max-llm-calls``, ``--max-tokens``, ``--max-seconds``): its help is the field's description, its choices or
    its type the field's, a bad value is refused in the field's words; a flag not given is ``None``."""
    for name, field in RunSettings.model_fields.items():
        kinds = [kind for kind in get_args(field.annotation) if kind is not type(None)]
        options: dict[str, Any] = {"default": None, "help": field.description}
        if kinds and get_origin(kinds[0]) is Literal:
            options["choices"] = get_args(kinds[0])
        else:
            options["type"] = _flag_value(name)
            options["metavar"] = "S" if name == "max_seconds" else "N"
        parser.add_argument("--" + name.replace("_", "-"), **options)


def _flag_value(name: str):
    def parse(text: str) -> Any:
        try:
            return getattr(RunSettings(**{name: text}), name)
        except ValidationError as exc:
            raise argparse.ArgumentTypeError(exc.errors()[0]["msg"].lower()) from None

    parse.__name__ = name
    return parse


def run_settings_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`RunSettings` fields a command line set (flags not given left out)."""
    values = vars(args)
    return {name: values[name] for name in RunSettings.model_fields if values.get(name) is not None}
