"""Reasoning on Graphs (RoG; Luo et al., ICLR 2024) as a LangGraph state machine.

    link entities -> plan (top-K relation paths) -> retrieve (Algorithm 1) -> answer (from the paths)

The planner and the answerer are chosen once here; the nodes do not know whether an LLM or an offline
decider runs behind them.
"""

from __future__ import annotations

from functools import partial
from typing import Iterable, Literal

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph

from kg_agent.graphs.state import KGQuestionInput, RoGState
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.paths import DEFAULT_MAX_PATHS
from kg_agent.llm.budget import QuestionBudget
from kg_agent.llm.models import resolve_chat_model
from kg_agent.tools.answer import Answerer, LLMAnswerer, VoteAnswerer, answer_node
from kg_agent.tools.budget import budgeted, timed
from kg_agent.tools.link import link_node, reply_message
from kg_agent.tools.plan import DEFAULT_K, Exemplar, ExemplarPlanner, LLMPlanner, Planner, SimilarityPlanner, plan_node
from kg_agent.tools.retrieve import retrieve_node

PlannerChoice = Literal["auto", "llm", "exemplar", "similarity"]


def make_planner(
    kg: KnowledgeGraph,
    *,
    planner: PlannerChoice | Planner = "auto",
    model: BaseChatModel | None = None,
    exemplars: Iterable[Exemplar] | None = None,
    embeddings: Embeddings | None = None,
    max_hops: int = 3,
) -> Planner:
    """Build the planner a RoG graph uses.

    ``"auto"``: the LLM planner when a model is given (falling back to the offline one), else the
    exemplar planner when training questions are given, else the similarity planner.
    """
    if not isinstance(planner, str):
        return planner
    offline: Planner
    if exemplars is not None and planner in {"auto", "exemplar", "llm"}:
        offline = ExemplarPlanner(kg, embeddings=embeddings, max_hops=max_hops).fit(exemplars)
    elif planner == "exemplar":
        raise ValueError("the exemplar planner needs training questions: pass exemplars=[Exemplar(question, answers), ...]")
    else:
        offline = SimilarityPlanner(kg, embeddings=embeddings, max_hops=max_hops)
    if planner == "llm" or (planner == "auto" and model is not None):
        if model is None:
            raise ValueError("planner='llm' needs a chat model (model=...)")
        return LLMPlanner(kg, model, fallback=offline, embeddings=embeddings, max_hops=max_hops)
    if planner not in {"auto", "exemplar", "similarity"}:
        raise ValueError(f"unknown planner {planner!r}: use 'auto', 'llm', 'exemplar', 'similarity' or a Planner")
    return offline


def _respond(state: dict, *, answerer: Answerer) -> dict:
    update = answer_node(state, answerer=answerer)
    if state.get("messages"):
        merged = {**state, **update}
        update["messages"] = [reply_message(format_reply(merged), merged, name="rog")]
    return update


def format_reply(state: dict) -> str:
    """A short chat reply: the answers and the reasoning path behind the first one."""
    answers = state.get("answers") or []
    if not answers:
        reasons = [w for w in state.get("warnings") or [] if w.startswith(("link:", "answer:"))]
        return "I could not find an answer in the knowledge graph." + (f" ({reasons[-1]})" if reasons else "")
    names = ", ".join(a["answer"] for a in answers[:10]) + (" ..." if len(answers) > 10 else "")
    first = answers[0]
    because = f"\nBecause: {first['paths'][0]['text']}" if first.get("paths") else ""
    return names + because


def create_rog_graph(
    kg: KnowledgeGraph,
    *,
    model: BaseChatModel | str | None = None,
    planner: PlannerChoice | Planner = "auto",
    exemplars: Iterable[Exemplar] | None = None,
    answerer: Answerer | None = None,
    k: int = DEFAULT_K,
    max_hops: int = 3,
    max_paths: int = DEFAULT_MAX_PATHS,
    max_prompt_paths: int = 100,
    explain: bool = False,
    embeddings: Embeddings | None = None,
    max_llm_calls: int | None = None,
    max_tokens: int | None = None,
    max_seconds: float | None = None,
) -> StateGraph:
    """Create RoG's graph: link -> plan -> retrieve -> answer. Returns an **uncompiled** ``StateGraph``.

    Args:
        kg: the knowledge graph to reason over.
        model: a LangChain chat model (or ``"openai:gpt-4o-mini"``); ``None`` runs fully offline.
        planner: ``"auto"``, ``"llm"``, ``"exemplar"``, ``"similarity"`` or any :class:`Planner`.
        exemplars: training questions with answers, for the exemplar planner.
        answerer: overrides the answer step (default: the LLM answerer with a model, else votes).
        k: number of relation-path plans (RoG's top-K, 3).
        max_hops: longest relation path planned.
        max_paths: cap on reasoning paths per plan (the result warns when it cuts).
        max_prompt_paths: cap on paths put into the answer prompt (best plans first).
        explain: use RoG's explanation prompt instead of the plain reasoning prompt.
        embeddings: LangChain embeddings for the offline deciders (default: bundled MiniLM).
        max_llm_calls, max_tokens, max_seconds: per-question caps on LLM calls, tokens and wall time (``None``:
            none). A model call beyond them is not made: the planner or answerer falls back to its offline
            twin (plans by similarity or exemplars, answers by votes), ``warnings`` name the limit and
            ``stop_reason`` is ``"budget"`` (see :mod:`kg_agent.llm.budget`). Retrieval always runs.

    Example::

        from kg_agent.kg import open_kg
        from kg_agent.graphs import create_rog_graph

        kg = open_kg()  # the bundled sample movie KG
        app = create_rog_graph(kg).compile()
        result = app.invoke({"question": "who directed the films that [Tom Hanks] starred in"})
        [a["answer"] for a in result["answers"]], result["paths"][0]["text"]
    """
    chat_model = resolve_chat_model(model) if isinstance(model, str) else model
    chosen_planner = make_planner(
        kg, planner=planner, model=chat_model, exemplars=exemplars, embeddings=embeddings, max_hops=max_hops
    )
    if answerer is None:
        answerer = (
            LLMAnswerer(chat_model, explain=explain, max_prompt_paths=max_prompt_paths)
            if chat_model is not None
            else VoteAnswerer()
        )

    budget = QuestionBudget(max_llm_calls=max_llm_calls, max_tokens=max_tokens, max_seconds=max_seconds)

    graph = StateGraph(RoGState, input_schema=KGQuestionInput)
    graph.add_node("link", timed(partial(link_node, kg=kg), budget))
    graph.add_node("plan", budgeted(partial(plan_node, planner=chosen_planner, k=k), budget, step="plan", explore=False))
    graph.add_node("retrieve", partial(retrieve_node, kg=kg, max_paths=max_paths))
    graph.add_node("answer", budgeted(partial(_respond, answerer=answerer), budget, step="answer", explore=False))
    graph.add_edge(START, "link")
    graph.add_edge("link", "plan")
    graph.add_edge("plan", "retrieve")
    graph.add_edge("retrieve", "answer")
    graph.add_edge("answer", END)
    return graph


# ---------------------------------------------------------------------------------------------- RoG Table 4
CONTEXT_PREAMBLE = (
    "Reasoning paths retrieved from the knowledge graph for the user's question "
    "(entity -> relation -> entity; a relation starting with ^ is read backwards). "
    "Answer from them when they are relevant, and say when they are not enough:\n"
)


def rog_reasoning_paths(
    kg: KnowledgeGraph,
    question_or_messages,
    *,
    planner: Planner,
    k: int = DEFAULT_K,
    max_paths: int = DEFAULT_MAX_PATHS,
) -> dict:
    """RoG's planning and retrieval without the answer step: the state after link -> plan -> retrieve."""
    if isinstance(question_or_messages, str):
        state: dict = {"question": question_or_messages}
    elif isinstance(question_or_messages, dict):
        state = dict(question_or_messages)
    else:
        state = {"messages": list(question_or_messages)}
    state.update(link_node(state, kg=kg))
    state.update(plan_node(state, planner=planner, k=k))
    state.update(retrieve_node(state, kg=kg, max_paths=max_paths))
    return state


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

    Returns a Runnable that takes what the chat model takes (a string or a list of messages), adds a
    system message with the reasoning paths retrieved for the last human message, and calls the model.
    The planner is offline by default (``"auto"`` without a model): the wrapped model is only asked once.

    Example::

        chain = with_rog_context(ChatOpenAI(model="gpt-4o-mini"), kg)
        chain.invoke("who directed the films that [Tom Hanks] starred in")
    """
    from langchain_core.messages import HumanMessage, SystemMessage
    from langchain_core.runnables import RunnableLambda

    from kg_agent.tools.answer import _path_lines

    chosen = make_planner(kg, planner=planner, exemplars=exemplars, embeddings=embeddings)

    def add_reasoning_paths(value):
        if isinstance(value, str):
            messages = [HumanMessage(content=value)]
        elif hasattr(value, "to_messages"):  # a PromptValue
            messages = value.to_messages()
        else:
            messages = list(value)
        state = rog_reasoning_paths(kg, messages, planner=chosen, k=k)
        lines, _ = _path_lines(state.get("paths") or [], max_prompt_paths)
        context = CONTEXT_PREAMBLE + ("\n".join(lines) if lines else "(none found)")
        last_human = max((i for i, m in enumerate(messages) if m.type == "human"), default=len(messages))
        return [*messages[:last_human], SystemMessage(content=context), *messages[last_human:]]

    return (RunnableLambda(add_reasoning_paths) | chat_model).with_config(run_name="rog_context")
