"""The method registry: one list of method names and one way to build a method's graph by name.

The CLI, the LangGraph server, the evaluation runner and the HTML view build graphs through
:func:`create_graph`; a new method is added here once.

Example::

    from kg_agent.graphs import METHODS, create_graph
    from kg_agent.kg import open_kg

    app = create_graph("tog", open_kg(), width=2).compile()
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from importlib import import_module
from typing import Any

from langgraph.graph import StateGraph

#: The methods, by their one spelling (``tog-i``, not ``tog_i``).
METHODS = ("rog", "tog", "tog-i", "tog2")

_FACTORIES = {
    "rog": ("kg_agent.graphs.rog", "create_rog_graph"),
    "tog": ("kg_agent.graphs.tog", "create_tog_graph"),
    "tog-i": ("kg_agent.graphs.tog_i", "create_tog_i_graph"),
    "tog2": ("kg_agent.graphs.tog2", "create_tog2_graph"),
}


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


def create_graph(method: str, kg, *, model=None, **options) -> StateGraph:
    """The uncompiled graph of ``method`` over ``kg``: ``create_<method>_graph(kg, model=model, **options)``.

    Args:
        method: one of :data:`METHODS` (``tog_i`` is read as ``tog-i``).
        kg: the knowledge graph.
        model: a chat model or a string such as ``"openai:gpt-4o-mini"``; ``None`` runs offline.
        options: the factory's keyword options (``planner``, ``exemplars``, ``k``, ``width``, ``depth``,
            ``documents``, ``max_llm_calls``, ``max_tokens``, ``max_seconds``, ...). An option the method does
            not take is a ``TypeError`` naming the ones it does (filter with :func:`options_for`).
    """
    factory = graph_factory(method)
    unknown = sorted(set(options) - method_options(method))
    if unknown:
        raise TypeError(f"method {method_name(method)!r} takes no option {', '.join(unknown)}; "
                        f"it takes: {', '.join(sorted(method_options(method) - {'model'}))}")
    return factory(kg, model=model, **options)
