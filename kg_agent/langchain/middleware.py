"""Grounding middleware for LangChain v1 agents (``langchain.agents.create_agent``): :class:`KGGroundingMiddleware`.

Around every model call of the agent:

* **before** (``before_model``): for the conversation's last user message (once per message; the result is kept
  in the agent's state), RoG links the question's entities, plans relation paths and retrieves the reasoning paths
  (:func:`~kg_agent.tools.rog.reasoning_paths.rog_reasoning_paths`, then the question's constraints as RoG's answer
  step applies them: :func:`~kg_agent.tools.shared.constraints.constrain_walks`);
* **the call** (``wrap_model_call``): the paths go into the model's system message, after the agent's own system
  prompt (:data:`~kg_agent.langchain.rog_context.CONTEXT_PREAMBLE`, as :func:`with_rog_context` does); the
  conversation itself is left as it is;
* **after** (``after_model``): a final reply (one without tool calls) is checked against the paths shown by RoG's
  grounding check (:func:`~kg_agent.tools.rog.answer.check_answers`: the answers it names, or the path-end names
  its sentences mention) and the grounding policy decides (:mod:`kg_agent.tools.shared.grounding`):

  - ``"prefer"`` (default): a reply naming a grounded answer is kept; one naming none is **replaced** by RoG's
    offline answers from the same paths (its path votes) with the path behind the first, when there are any;
    else it is kept, flagged;
  - ``"strict"``: a reply naming any ungrounded answer is replaced by the grounded answers only (the offline ones
    when it names none; with none at all, a reply saying no answer is supported);
  - ``"off"``: the reply is kept as the model wrote it, flagged.

  Every checked reply carries the check in ``response_metadata["kg_agent"]["grounding"]``: ``checked`` (each
  answer the reply named, with ``grounded``), ``warnings``, ``replaced`` and ``output`` (the model's own reply).
  Beside it, ``answers`` and ``topic_entities`` are what a follow-up question's link step reads ("and where was
  he born?"). The agent's state holds the last check as ``kg_grounding``, with each answer's record and the paths
  that support it.

The middleware never writes to the KG, and retrieval runs offline (no model call) unless a model is given for RoG's
planner (``planner="llm"``, ``model=``). Under ``ainvoke``/``astream`` the retrieval and the check run in a worker
thread, so the event loop is not blocked.

Example::

    from langchain.agents import create_agent
    from kg_agent.kg import open_kg
    from kg_agent.langchain.middleware import KGGroundingMiddleware

    agent = create_agent("openai:gpt-4o-mini", middleware=[KGGroundingMiddleware(open_kg())])
    agent.invoke({"messages": [{"role": "user", "content": "who directed [Forrest Gump]"}]})
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Annotated, Any, NotRequired, cast

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain.agents.middleware.types import PrivateStateAttr
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, SystemMessage
from langchain_core.runnables.config import run_in_executor
from langgraph.runtime import Runtime

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.paths import DEFAULT_MAX_PATHS
from kg_agent.langchain.rog_context import CONTEXT_PREAMBLE, with_system_text
from kg_agent.llm.parsing import parse_answer_list
from kg_agent.settings import DEFAULT_GROUNDING, Grounding, check_policy
from kg_agent.tools.rog.answer import VoteAnswerer, check_answers, path_lines, unasked_plans
from kg_agent.tools.rog.exemplar import Exemplar
from kg_agent.tools.rog.plan import DEFAULT_K, Planner, PlannerChoice, make_planner
from kg_agent.tools.rog.reasoning_paths import rog_reasoning_paths
from kg_agent.tools.shared.constraints import constrain_walks
from kg_agent.tools.shared.link import METADATA_KEY, chat_reply_text, question_from_state
from kg_agent.tools.shared.path_scoring import RelationPathScorer

NO_PATHS_FOUND = "(none found)"


class KGGroundingState(AgentState):
    """The agent's state with what the middleware keeps: the reasoning paths of the current question
    (``kg_context``, private to the middleware) and the check of the last reply (``kg_grounding``)."""

    kg_context: NotRequired[Annotated[dict, PrivateStateAttr]]
    kg_grounding: NotRequired[dict]


class KGGroundingMiddleware(AgentMiddleware[KGGroundingState, Any]):
    """RoG's reasoning paths in the agent's model context, and its replies checked against them (module docstring).

    Args:
        kg: the knowledge graph (any backend: memory, Oxigraph, a SPARQL endpoint); only read.
        grounding: the policy for a reply that names an answer no path shown supports: ``"prefer"``, ``"strict"``
            or ``"off"`` (:class:`~kg_agent.settings.GraphSettings`).
        planner: RoG's planner (``"auto"``: offline without ``model``; ``"llm"`` with ``model``; any
            :class:`~kg_agent.tools.rog.plan.Planner`).
        model: a chat model for the LLM planner only (the agent's own model answers).
        exemplars: training questions for the exemplar planner.
        embeddings: embeddings for the offline deciders (default: the bundled MiniLM).
        k: RoG's number of relation-path plans.
        max_paths: cap on reasoning paths per plan.
        max_prompt_paths: cap on paths put into the model's context (best plans first); the reply is checked
            against those.
    """

    state_schema = KGGroundingState

    def __init__(self, kg: KnowledgeGraph, *, grounding: Grounding = DEFAULT_GROUNDING,
                 planner: PlannerChoice | Planner = "auto", model: BaseChatModel | None = None,
                 exemplars: Iterable[Exemplar] | None = None, embeddings: Embeddings | None = None,
                 k: int = DEFAULT_K, max_paths: int = DEFAULT_MAX_PATHS, max_prompt_paths: int = 50) -> None:
        super().__init__()
        self.kg = kg
        self.grounding = check_policy(grounding)
        self.planner = make_planner(kg, planner=planner, model=model, exemplars=exemplars, embeddings=embeddings)
        self.k = k
        self.max_paths = max_paths
        self.max_prompt_paths = max_prompt_paths
        self.plan_scorer = RelationPathScorer(embeddings=embeddings)
        self.votes = VoteAnswerer(plan_scorer=self.plan_scorer, kg=kg)

    # ------------------------------------------------------------------------------------------ before the call
    def before_model(self, state: KGGroundingState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Retrieve the reasoning paths of the last user message, unless the state holds them already."""
        question = question_from_state({"messages": state["messages"]})
        held = state.get("kg_context")
        if not question or (held and held.get("asked") == question):
            return None
        return {"kg_context": self.retrieve(state["messages"], asked=question)}

    async def abefore_model(self, state: KGGroundingState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return await run_in_executor(None, self.before_model, state, runtime)

    def retrieve(self, messages: list, *, asked: str) -> dict:
        """RoG's link -> plan -> retrieve for the conversation, cut to what the model is shown: ``asked`` (the user's
        message), ``question`` (as linked: a follow-up with its entities in brackets), ``topic_entities``,
        ``plans``, ``paths`` (those put into the context) and ``warnings``."""
        found = rog_reasoning_paths(self.kg, messages, planner=self.planner, k=self.k, max_paths=self.max_paths)
        question, topics = found.get("question") or asked, found.get("topic_entities") or []
        constrained = constrain_walks(question, topics, found.get("paths") or [], self.kg)
        lines, _ = path_lines(constrained.walks, self.max_prompt_paths)
        shown = set(lines)
        paths = [p for p in constrained.walks if p["text"] in shown]
        return {"asked": asked, "question": question, "topic_entities": topics, "plans": found.get("plans") or [],
                "paths": paths, "warnings": [*(found.get("warnings") or []), *constrained.warnings]}

    # ------------------------------------------------------------------------------------------ the call
    def wrap_model_call(self, request: ModelRequest[Any],
                        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]) -> ModelResponse[Any]:
        return handler(self.with_paths(request))

    async def awrap_model_call(self, request: ModelRequest[Any],
                               handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]]) -> ModelResponse[Any]:
        return await handler(self.with_paths(request))

    def with_paths(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """The request with the current question's reasoning paths at the end of its system message."""
        context = cast("dict | None", request.state.get("kg_context"))
        if not context:
            return request
        lines, _ = path_lines(context["paths"], self.max_prompt_paths)
        text = CONTEXT_PREAMBLE + ("\n".join(lines) if lines else NO_PATHS_FOUND)
        system = with_system_text([request.system_message] if request.system_message else [], text)[0]
        assert isinstance(system, SystemMessage)
        return request.override(system_message=system)

    # ------------------------------------------------------------------------------------------ after the call
    def after_model(self, state: KGGroundingState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Check a final reply against the paths shown; replace or flag it (the policy, module docstring)."""
        reply = state["messages"][-1] if state["messages"] else None
        context = state.get("kg_context")
        if not isinstance(reply, AIMessage) or reply.tool_calls or not context:
            return None
        report = self.check(reply.text, context)
        answers = report["answers"]
        metadata = {**reply.response_metadata, METADATA_KEY: {
            "method": "rog",
            "answers": [{"id": a["entity_id"], "label": a["answer"]} for a in answers if a.get("entity_id")],
            "topic_entities": [{"id": e["id"], "label": e["label"]} for e in context["topic_entities"]],
            "grounding": {key: report[key] for key in ("checked", "warnings", "replaced", "output")}}}
        content = chat_reply_text(report) if report["replaced"] else reply.content
        checked = reply.model_copy(update={"content": content, "response_metadata": metadata})
        return {"messages": [checked], "kg_grounding": report}

    async def aafter_model(self, state: KGGroundingState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return await run_in_executor(None, self.after_model, state, runtime)

    def check(self, reply: str, context: dict) -> dict:
        """RoG's grounding check of ``reply`` against the paths of ``context`` (:meth:`retrieve`), settled by the
        policy: ``answers`` (what the reply answers now, each an answer record), ``checked`` (each answer the
        model named, with ``grounded``), ``warnings``, ``replaced`` (the reply is replaced) and ``output`` (the
        model's own reply)."""
        question, paths, plans = context["question"], context["paths"], context["plans"]
        unasked = unasked_plans(question, paths, plans, scorer=self.plan_scorer, model_source=None,
                                kg=self.kg)
        checked = check_answers(parse_answer_list(reply) or [reply], question, paths, plans, policy=self.grounding,
                                fallback=self.votes, unasked=unasked)
        settled = checked.settled
        left_out = self.grounding == "strict" and any(not a["grounded"] for a in checked.answers)
        return {"answers": settled.answers, "checked": [{"answer": a["answer"], "grounded": a["grounded"]}
                                                         for a in checked.answers],
                "warnings": [*context["warnings"], *checked.warnings, *settled.warnings],
                "replaced": settled.replaced or left_out, "output": reply}
