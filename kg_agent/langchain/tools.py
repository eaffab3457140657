"""The node tools as LangChain tools, for any tool-calling agent.

:func:`kg_tools` returns ready :class:`~langchain_core.tools.BaseTool` objects over one knowledge graph:

* lookups: ``search_entities`` (text -> entities), ``entity_relations`` (entity -> its relations),
  ``neighbours`` (entity + relation -> entities);
* RoG: ``plan`` (question -> top-K relation paths), ``retrieve`` (entity or question + relation path ->
  reasoning paths, RoG's Algorithm 1), ``answer`` (question + reasoning paths -> answers);
* ToG: ``prune_relations``, ``prune_entities``, ``verify``.

Each one wraps the node function or decider the method graphs use (offline by default, an LLM decider
when ``model=`` is given), reads the KG and never writes to it, and returns a short JSON-serialisable
dict (lists are capped, and a ``note`` says when). A relation walked backwards is written ``^relation``
in arguments and results alike. Bad input (an unknown entity or relation, a path that is not in the KG)
comes back as an error message the agent can act on (naming the closest labels or the relations that
do exist), not as an exception that stops the agent.

:func:`as_tool` wraps a whole method graph (RoG, ToG, ...) as one tool taking a question, so an agent
can delegate whole questions::

    from kg_agent.graphs import create_rog_graph
    from kg_agent.tools import as_tool, kg_tools

    tools = [*kg_tools(kg), as_tool(create_rog_graph(kg))]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.langchain.base import DeciderTool, KGTool
from kg_agent.langchain.lookup_tools import EntityRelationsTool, NeighboursTool, RetrieveTool, SearchEntitiesTool
from kg_agent.langchain.step_tools import AnswerTool, PlanTool, PruneEntitiesTool, PruneRelationsTool, VerifyTool
from kg_agent.tools.rog.plan import Planner

# ---------------------------------------------------------------------------------------------- factory
TOOL_CLASSES: dict[str, type[KGTool]] = {
    "search_entities": SearchEntitiesTool,
    "entity_relations": EntityRelationsTool,
    "neighbours": NeighboursTool,
    "plan": PlanTool,
    "retrieve": RetrieveTool,
    "prune_relations": PruneRelationsTool,
    "prune_entities": PruneEntitiesTool,
    "verify": VerifyTool,
    "answer": AnswerTool,
}


def kg_tools(
    kg: KnowledgeGraph,
    *,
    model: BaseChatModel | str | None = None,
    planner: Planner | None = None,
    include: Iterable[str] | None = None,
) -> list[BaseTool]:
    """The node tools over ``kg``, ready for a tool-calling agent (see the module docstring).

    Args:
        kg: the knowledge graph (only read).
        model: a chat model (or ``"openai:gpt-4o-mini"``) for the deciding tools (plan, prune_relations,
            prune_entities, verify, answer); each falls back to its offline twin. ``None``: all offline.
        planner: the planner of the ``plan`` tool (e.g. an ``ExemplarPlanner``); default: LLM planner with
            a model, else the offline similarity planner.
        include: tool names to return (default all): ``search_entities``, ``entity_relations``,
            ``neighbours``, ``plan``, ``retrieve``, ``prune_relations``, ``prune_entities``, ``verify``, ``answer``.

    Example::

        tools = kg_tools(open_kg())
        neighbours = {t.name: t for t in tools}["neighbours"]
        neighbours.invoke({"entity": "Tom Hanks", "relation": "^starred_actors"})
    """
    if isinstance(model, str):
        from kg_agent.llm.models import resolve_chat_model

        model = resolve_chat_model(model)
    names = list(TOOL_CLASSES) if include is None else list(dict.fromkeys(include))
    unknown = [n for n in names if n not in TOOL_CLASSES]
    if unknown:
        raise ValueError(f"unknown tool name(s) {unknown}; choose from {list(TOOL_CLASSES)}")
    tools: list[BaseTool] = []
    for name in names:
        cls = TOOL_CLASSES[name]
        kwargs: dict[str, Any] = {"kg": kg}
        if issubclass(cls, DeciderTool):
            kwargs["model"] = model
        if cls is PlanTool:
            kwargs["planner"] = planner
        tools.append(cls(**kwargs))
    return tools


