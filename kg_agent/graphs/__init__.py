"""One LangGraph ``StateGraph`` factory per method. Each returns an uncompiled graph.

``create_graph(method, kg, **options)`` builds one by name; ``METHODS`` lists the names (see :mod:`.registry`).

Names are imported on first use, so ``kg_agent.graphs.state`` can be imported by lower layers cheaply.
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what type checkers read; at run time each name is imported on first use (below)
    from kg_agent.graphs.registry import METHODS, create_graph
    from kg_agent.graphs.rog import create_rog_graph
    from kg_agent.graphs.tog import create_tog_graph
    from kg_agent.graphs.tog2 import create_tog2_graph
    from kg_agent.graphs.tog_i import create_tog_i_graph
    from kg_agent.langchain.rog_context import with_rog_context
    from kg_agent.tools.rog.reasoning_paths import rog_reasoning_paths

_EXPORTS = {
    "create_graph": "kg_agent.graphs.registry",
    "METHODS": "kg_agent.graphs.registry",
    "create_rog_graph": "kg_agent.graphs.rog",
    "rog_reasoning_paths": "kg_agent.tools.rog.reasoning_paths",
    "with_rog_context": "kg_agent.langchain.rog_context",
    "create_tog_graph": "kg_agent.graphs.tog",
    "create_tog_i_graph": "kg_agent.graphs.tog_i",
    "create_tog2_graph": "kg_agent.graphs.tog2",
}

__all__ = ["create_graph", "METHODS", "create_rog_graph", "rog_reasoning_paths", "with_rog_context", "create_tog_graph",
           "create_tog_i_graph", "create_tog2_graph"]


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'kg_agent.graphs' has no attribute {name!r}")
