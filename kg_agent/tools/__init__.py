"""One module per node (link, plan, retrieve, answer, ...); ``kg_tools`` / ``as_tool`` give them as LangChain tools."""

_LAZY = {"kg_tools": "kg_agent.tools.langchain_tools", "as_tool": "kg_agent.tools.langchain_tools"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'kg_agent.tools' has no attribute {name!r}")
