"""The method registry: one list of method names and one way to build a method's graph by name.

The CLI, the LangGraph server, the evaluation runner and the HTML view build graphs through
:func:`create_graph`; a new method is added here once.

Example::

    from kg_agent.graphs import METHODS, create_graph
    from kg_agent.kg import open_kg

    app = create_graph("tog", open_kg(), width=2).compile()
"""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

from kg_agent.settings import add_settings_args, settings_from_args

if TYPE_CHECKING:
    from kg_agent.graphs.kg_state_graph import KGStateGraph

#: The methods, by their one spelling (``tog-i``, not ``tog_i``).
METHODS = ("rog", "tog", "tog-i", "tog2")

_FACTORIES = {
    "rog": ("kg_agent.graphs.rog", "create_rog_graph"),
    "tog": ("kg_agent.graphs.tog", "create_tog_graph"),
    "tog-i": ("kg_agent.graphs.tog_i", "create_tog_i_graph"),
    "tog2": ("kg_agent.graphs.tog2", "create_tog2_graph"),
}

if TYPE_CHECKING:  # LangGraph is imported with a method's graph, not with the list of methods (the CLI's flags)
    pass


def method_name(name: str) -> str:
    """The registered spelling of a method name (``"ToG_I"`` -> ``"tog-i"``); a ``ValueError`` names the choices."""
    key = str(name).strip().lower().replace("_", "-")
    if key not in _FACTORIES:
        raise ValueError(f"unknown method {name!r}: use one of {', '.join(METHODS)}")
    return key


def graph_factory(method: str):
    """The ``create_*_graph`` function of ``method``."""
    module, attribute = _FACTORIES[method_name(method)]
    return getattr(import_module(module), attribute)


def method_options(method: str) -> frozenset[str]:
    """The keyword options ``method``'s factory takes (besides ``kg``)."""
    parameters = inspect.signature(graph_factory(method)).parameters
    return frozenset(name for name, p in parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY)


def options_for(method: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The subset of ``options`` that ``method`` takes (for callers holding options for every method, like the CLI)."""
    accepted = method_options(method)
    return {name: value for name, value in options.items() if name in accepted}


def create_graph(method: str, kg, *, model=None, **options) -> KGStateGraph:
    """The uncompiled graph of ``method`` over ``kg``: ``create_<method>_graph(kg, model=model, **options)``.

    Args:
        method: one of :data:`METHODS` (``tog_i`` is read as ``tog-i``).
        kg: the knowledge graph.
        model: a chat model or a string such as ``"openai:gpt-4o-mini"``; ``None`` runs offline.
        options: the factory's keyword options: those of :class:`~kg_agent.settings.GraphSettings` (or
            ``settings=GraphSettings(...)``), and the method's own (``planner``, ``exemplars``, ``k``, ``width``, ``depth``,
            ``documents``, ``max_llm_calls``, ``max_tokens``, ``max_seconds``, ...). An option the method does
            not take is a ``TypeError`` naming the ones it does (filter with :func:`options_for`).
    """
    factory = graph_factory(method)
    unknown = sorted(set(options) - method_options(method))
    if unknown:
        raise TypeError(f"method {method_name(method)!r} takes no option {', '.join(unknown)}; "
                        f"it takes: {', '.join(sorted(method_options(method) - {'model'}))}")
    if model is not None:  # else the model of ``settings=`` (a GraphSettings), if given
        options["model"] = model
    return factory(kg, **options)


# ---------------------------------------------------------------------------------------------- command lines
#: Command-line flags whose value is a factory option of another name.
OPTION_NAMES = {"docs": "documents"}
#: Method options the command lines set (besides :class:`~kg_agent.settings.GraphSettings`'); ``None`` (a flag not
#: given) leaves the factory's default. Each method takes those its factory has (:func:`options_for`).
METHOD_FLAGS = ("planner", "k", "width", "depth", "docs", "explain", "speculate")


def add_method_args(parser: argparse.ArgumentParser) -> None:
    """The flags of the graph a command builds, the same in ``kg-agent ask`` and ``kg-agent eval``: the methods'
    own options (:data:`METHOD_FLAGS`) and the settings every method shares, generated from
    :class:`~kg_agent.settings.GraphSettings` (:func:`~kg_agent.settings.add_settings_args`: ``--model``,
    ``--grounding``, ``--max-llm-calls``, ...), with ``--timeout`` and ``--max-reply-tokens`` for the model."""
    from kg_agent.llm.models import add_model_request_args

    add_settings_args(parser)
    add_model_request_args(parser)
    parser.add_argument("--planner", choices=("auto", "llm", "exemplar", "taught", "similarity"), default="auto", help="RoG planner")
    parser.add_argument("--k", type=int, default=3, help="RoG: number of relation-path plans (default 3)")
    parser.add_argument("--width", type=int, default=3, help="ToG: beam width W (default 3)")
    parser.add_argument("--depth", type=int, default=3, help="ToG: maximum depth D (default 3)")
    parser.add_argument("--docs", help="ToG-2: document index folder, documents JSONL, or Chroma server URL "
                                       "(http://host:8000?collection=NAME)")
    parser.add_argument("--explain", action="store_true", help="RoG: use the explanation prompt")
    parser.add_argument("--speculate", action="store_true", default=None,
                        help="ToG/ToG-I: ask the next step's model calls while the verifier decides (faster with a slow "
                             "model, same answers; calls made unnecessary by a Yes are wasted but counted)")


def graph_options(args: argparse.Namespace) -> dict[str, Any]:
    """The factory options a command line set (by factory option name; flags not given left out; ``--model`` is
    resolved by the command, :func:`kg_agent.llm.models.resolve_model_args`)."""
    values = vars(args)
    options = {OPTION_NAMES.get(flag, flag): values[flag] for flag in METHOD_FLAGS if values.get(flag) is not None}
    return options | settings_from_args(args)
