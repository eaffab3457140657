"""The paper steps, grouped by method: ``tools.rog`` (plan, retrieve, answer), ``tools.tog`` (ToG and ToG-I: start,
instructions, prune_relations, prune_entities, verify, answer), ``tools.tog2`` (topic_prune, clue_query,
prune_relations, prune_entities, examine, answer) and ``tools.shared`` (link, the decider kit, the offline scoring
kit, budgets, state updates). ``tools.lookups`` holds the read-only KG lookups every protocol shares.

``kg_tools`` and ``as_tool`` (the LangChain adapters, in :mod:`kg_agent.langchain`) are importable from here.
"""

_LAZY = {"kg_tools": "kg_agent.langchain.tools", "as_tool": "kg_agent.langchain.graph_tool"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'kg_agent.tools' has no attribute {name!r}")
