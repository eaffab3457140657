"""A whole method graph (RoG, ToG, ...) as one LangChain tool taking a question: :func:`as_tool`."""

from __future__ import annotations

import uuid
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForToolRun, CallbackManagerForToolRun
from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict, Field

from kg_agent.langchain.base import validation_message
from kg_agent.tools.lookups import (
    INVERSE_NOTE,
    PATH_NOTE,
    KGToolError,
)


# ---------------------------------------------------------------------------------------------- as_tool
class QuestionInput(BaseModel):
    question: str = Field(
        description="The full question in natural language, e.g. 'who directed the films that [Tom Hanks] starred in' "
        "(square brackets around entity names are optional and help find them)."
    )


DEFAULT_AS_TOOL_DESCRIPTION = (
    "Answer a question from the knowledge graph. Input: the whole question in natural language. Returns the answers, "
    "each with a reasoning path from the knowledge graph that supports it. " + PATH_NOTE + " " + INVERSE_NOTE
)
_REASON_PREFIXES = ("link:", "plan:", "retrieve:", "answer:", "examine:")


def format_answers(result: dict, *, max_answers: int = 20, max_paths_per_answer: int = 1) -> str:
    """Compact text of a method graph's result: one line per answer with its supporting path(s)."""
    answers = result.get("answers") or []
    if not answers:
        reasons = [w for w in result.get("warnings") or [] if w.startswith(_REASON_PREFIXES)]
        why = (" Reason: " + " | ".join(reasons[-3:])) if reasons else ""
        return "No answer found in the knowledge graph." + why
    shown = answers[:max_answers]
    header = f"Answers ({len(answers)}" + (f", showing {len(shown)}" if len(shown) < len(answers) else "") + "):"
    lines = [header]
    for answer in shown:
        support = [p["text"] for p in (answer.get("paths") or [])[:max_paths_per_answer]]
        if not support:
            support = [" ".join(str(c.get("text", "")).split())[:200] for c in (answer.get("chunks") or [])[:max_paths_per_answer]]
        flag = "" if answer.get("grounded", True) else " (not supported by the knowledge graph)"
        lines.append(f"- {answer['answer']}{flag}" + (": " + " | ".join(support) if support else ""))
    return "\n".join(lines)


def _artifact(result: dict) -> dict:
    return {
        "answers": [
            {"answer": a["answer"], "entity_id": a.get("entity_id"), "grounded": a.get("grounded", True),
             "paths": [p["text"] for p in a.get("paths") or []]}
            for a in result.get("answers") or []
        ],
        "stop_reason": result.get("stop_reason", ""),
        "warnings": list(result.get("warnings") or []),
    }


class GraphTool(BaseTool):
    """A whole method graph as one tool: question in, answers with their reasoning paths out.

    The content is compact text for the model; the artifact (``ToolMessage.artifact``) holds every answer
    with all its path texts, the stop reason and the warnings.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = "answer_from_knowledge_graph"
    description: str = DEFAULT_AS_TOOL_DESCRIPTION
    args_schema: type[BaseModel] = QuestionInput
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    handle_tool_error: bool = True
    handle_validation_error: Any = validation_message
    graph: Any = Field(exclude=True)
    max_answers: int = 20
    max_paths_per_answer: int = 1

    def _input(self, question: str, run_manager) -> tuple[dict, dict]:
        question = (question or "").strip()
        if not question:
            raise KGToolError("no question given")
        config: dict = {}
        if run_manager is not None:
            config["callbacks"] = run_manager.get_child()
        if getattr(self.graph, "checkpointer", None):  # a graph compiled with memory needs a thread
            config["configurable"] = {"thread_id": f"kg-tool-{uuid.uuid4().hex}"}
        return {"question": question}, config

    def _output(self, result: dict) -> tuple[str, dict]:
        text = format_answers(result, max_answers=self.max_answers, max_paths_per_answer=self.max_paths_per_answer)
        return text, _artifact(result)

    def _run(self, question: str, run_manager: CallbackManagerForToolRun | None = None) -> tuple[str, dict]:
        state, config = self._input(question, run_manager)
        return self._output(self.graph.invoke(state, config or None))

    async def _arun(self, question: str, run_manager: AsyncCallbackManagerForToolRun | None = None) -> tuple[str, dict]:
        state, config = self._input(question, run_manager)
        return self._output(await self.graph.ainvoke(state, config or None))


def as_tool(
    graph: Any,
    *,
    name: str = "answer_from_knowledge_graph",
    description: str = DEFAULT_AS_TOOL_DESCRIPTION,
    max_answers: int = 20,
    max_paths_per_answer: int = 1,
) -> GraphTool:
    """A method graph (uncompiled ``StateGraph`` or compiled) as one tool taking ``question``.

    Returns the answers, each with its supporting path text (compact text for the model; the full list in
    the tool message's artifact). Sync and async (``ainvoke``).

    Example::

        tool = as_tool(create_rog_graph(kg))
        tool.invoke({"question": "who directed the films that [Tom Hanks] starred in"})
    """
    from langgraph.graph import StateGraph

    if isinstance(graph, StateGraph):
        graph = graph.compile()
    if not (hasattr(graph, "invoke") and hasattr(graph, "ainvoke")):
        raise TypeError(f"as_tool needs a StateGraph or a compiled graph (a Runnable), not {type(graph).__name__}")
    return GraphTool(graph=graph, name=name, description=description, max_answers=max_answers,
                     max_paths_per_answer=max_paths_per_answer)
