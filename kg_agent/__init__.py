"""kg-agent: knowledge-graph reasoning methods as LangGraph state machines (see README.md)."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what type checkers read; at run time imported on first use (below)
    from kg_agent.langchain.retriever import KGRetriever

__all__ = ["KGRetriever"]
_LAZY = {"KGRetriever": "kg_agent.langchain.retriever"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'kg_agent' has no attribute {name!r}")
