"""kg-agent: knowledge-graph reasoning methods as LangGraph state machines (see README.md)."""

_LAZY = {"KGRetriever": "kg_agent.langchain.retriever"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'kg_agent' has no attribute {name!r}")
