"""RoG's planner and retrieval in front of an unmodified chat model (RoG's Table 4 set-up): :func:`with_rog_context`."""

from __future__ import annotations

from collections.abc import Iterable

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.tools.rog.answer import path_lines
from kg_agent.tools.rog.exemplar import Exemplar
from kg_agent.tools.rog.plan import DEFAULT_K, Planner, PlannerChoice, make_planner
from kg_agent.tools.rog.reasoning_paths import rog_reasoning_paths

CONTEXT_PREAMBLE = (
    "Reasoning paths retrieved from the knowledge graph for the user's question "
    "(entity -> relation -> entity; a relation starting with ^ is read backwards). "
    "Answer from them when they are relevant, and say when they are not enough:\n"
)


def with_rog_context(
    chat_model: BaseChatModel,
    kg: KnowledgeGraph,
    *,
    planner: PlannerChoice | Planner = "auto",
    exemplars: Iterable[Exemplar] | None = None,
    k: int = DEFAULT_K,
    max_prompt_paths: int = 50,
    embeddings: Embeddings | None = None,
):
    """Put RoG's planner and retrieval in front of an unmodified chat model (RoG's Table 4 set-up).

    Returns a Runnable that takes what the chat model takes (a string, a list of messages or ``(role, text)``
    pairs, a prompt value), puts the reasoning paths retrieved for the last human message in the system message
    and calls the model. The chat keeps one system message, first (strict chat templates refuse any other
    place): the paths are appended to a leading system message, or one is added at the front.
    The planner is offline by default (``"auto"`` without a model): the wrapped model is only asked once.

    Example::

        chain = with_rog_context(ChatOpenAI(model="gpt-4o-mini"), kg)
        chain.invoke("who directed the films that [Tom Hanks] starred in")
    """
    from langchain_core.messages import HumanMessage, convert_to_messages
    from langchain_core.runnables import RunnableLambda

    chosen = make_planner(kg, planner=planner, exemplars=exemplars, embeddings=embeddings)

    def add_reasoning_paths(value):
        if isinstance(value, str):
            messages = [HumanMessage(content=value)]
        elif hasattr(value, "to_messages"):  # a PromptValue
            messages = value.to_messages()
        else:
            messages = convert_to_messages(value)
        state = rog_reasoning_paths(kg, messages, planner=chosen, k=k)
        lines, _ = path_lines(state.get("paths") or [], max_prompt_paths)
        return with_system_text(messages, CONTEXT_PREAMBLE + ("\n".join(lines) if lines else "(none found)"))

    return (RunnableLambda(add_reasoning_paths) | chat_model).with_config(run_name="rog_context")


def with_system_text(messages: list[BaseMessage], text: str) -> list[BaseMessage]:
    """``messages`` with ``text`` at the end of the leading system message, or in a new system message in front."""
    from langchain_core.messages import SystemMessage

    if messages and messages[0].type == "system":
        first = messages[0]
        content = (f"{first.content}\n\n{text}" if isinstance(first.content, str)
                   else [*first.content, {"type": "text", "text": text}])
        return [first.model_copy(update={"content": content}), *messages[1:]]
    return [SystemMessage(content=text), *messages]
