"""Reasoning on Graphs (RoG; Luo et al., ICLR 2024) as a LangGraph state machine.

    link entities -> plan (top-K relation paths) -> retrieve (Algorithm 1) -> answer (from the paths)

The planner and the answerer are chosen once here; the nodes do not know whether an LLM or an offline
decider runs behind them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, Unpack

from langgraph.graph import END, START

from kg_agent.graphs.kg_state_graph import KGStateGraph, Node, question_budget, wired_graph
from kg_agent.graphs.state import KGQuestionInput, RoGState
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.paths import DEFAULT_MAX_PATHS
from kg_agent.llm.budget import QuestionBudget
from kg_agent.settings import GraphOptions, GraphSettings, chosen_options, refuse_unknown_options, takes_options
from kg_agent.steps import steps_of
from kg_agent.tools.rog.answer import Answerer, path_use, respond_steps
from kg_agent.tools.rog.deciders import default_deciders
from kg_agent.tools.rog.exemplar import Exemplar
from kg_agent.tools.rog.plan import DEFAULT_K, Planner, PlannerChoice, plan_steps
from kg_agent.tools.rog.retrieve import retrieve_steps
from kg_agent.tools.shared.link import link_node
from kg_agent.tools.shared.question_budget import BUDGET_STOP, budgeted, run_budget, timed


@takes_options(settings=GraphSettings)
def create_rog_graph(
    kg: KnowledgeGraph,
    *,
    planner: PlannerChoice | Planner = "auto",
    exemplars: Iterable[Exemplar] | None = None,
    answerer: Answerer | None = None,
    k: int = DEFAULT_K,
    max_hops: int = 3,
    max_paths: int = DEFAULT_MAX_PATHS,
    max_prompt_paths: int = 100,
    max_answers: int = 100,
    explain: bool = False,
    settings: GraphSettings | None = None,
    **options: Unpack[GraphOptions],
) -> KGStateGraph:
    """Create RoG's graph: link -> plan -> retrieve -> answer. Returns an **uncompiled** ``StateGraph``.

    Args:
        kg: the knowledge graph to reason over.
        planner: ``"auto"``, ``"llm"``, ``"exemplar"``, ``"taught"`` (opt-in: the similarity planner re-ranked by
            questions the KG taught, see :class:`~kg_agent.tools.rog.plan.TaughtPlanner`), ``"similarity"`` or any
            :class:`Planner`.
        exemplars: training questions with answers, for the exemplar planner; with a model, the LLM planner's
            prompt also shows the three nearest of them with their relation paths.
        answerer: overrides the answer step (default: the LLM answerer with a model, else votes).
        k: number of relation-path plans (RoG's top-K, 3).
        max_hops: longest relation path planned.
        max_paths: cap on reasoning paths per plan (the result warns when it cuts). A plan whose answers are not
            kept beside the best plan's gets at most ``max_prompt_paths``, and the state keeps only the paths the
            answer step reads (:func:`~kg_agent.tools.rog.retrieve.paths_the_answer_uses`; a warning gives how many
            were found and kept); with a custom ``answerer``, every path is kept.
        max_prompt_paths: cap on paths put into the answer prompt (best plans first).
        max_answers: cap on answers (the result warns when it cuts).
        explain: use RoG's explanation prompt instead of the plain reasoning prompt.
        grounding (below): under ``"prefer"`` the LLM planner also keeps the offline planner's top plan, which
            ranks first in the path votes that replace ungrounded answers.
        max_llm_calls, max_tokens, max_seconds (below): a model call beyond them is not made: the planner or
            answerer falls back to its offline twin (plans by similarity or exemplars, answers by votes). Retrieval
            always runs; an answer step that begins after ``max_seconds`` says so in ``warnings``.

    Example::

        from kg_agent.kg import open_kg
        from kg_agent.graphs import create_rog_graph

        kg = open_kg()  # the bundled sample movie KG
        app = create_rog_graph(kg).compile()
        result = app.invoke({"question": "who directed the films that [Tom Hanks] starred in"})
        [a["answer"] for a in result["answers"]], result["paths"][0]["text"]
    """
    refuse_unknown_options("create_rog_graph", options, GraphSettings)
    settings = chosen_options(GraphSettings, settings, options).resolved()
    deciders = default_deciders(kg, settings, planner=planner, exemplars=exemplars, answerer=answerer, max_hops=max_hops,
                                max_prompt_paths=max_prompt_paths, max_answers=max_answers, explain=explain)
    budget = question_budget(settings)
    nodes: dict[str, Node] = {
        "link": timed(partial(link_node, kg=kg, ask_when_ambiguous=settings.ask_when_ambiguous), budget),
        "plan": budgeted(partial(plan_steps, planner=deciders.planner, k=k), budget, step="plan", explore=False),
        "retrieve": partial(retrieve_steps, kg=kg, max_paths=max_paths,
                            use=path_use(deciders.answerer, max_prompt_paths=max_prompt_paths)),
        "answer": noting_a_late_start(budgeted(partial(respond_steps, answerer=deciders.answerer, kg=kg,
                                                       when_unsupported=settings.when_unsupported), budget,
                                               step="answer", explore=False), budget),
    }
    return wired_graph(RoGState, kg, settings, nodes, {START: "link", "link": "plan", "plan": "retrieve",
                                                        "retrieve": "answer", "answer": END},
                       input_schema=KGQuestionInput)


def noting_a_late_start(node: Callable[[dict], Any], budget: QuestionBudget) -> Callable[[dict], Any]:
    """The answer step ``node``, warning when it begins after the question's ``max_seconds``: RoG skips no step at
    its deadline (offline it makes no model call a budget could refuse), so its answer then comes late, and a
    caller holding it to a deadline (a LangGraph server's run, an MCP ``ask``) is told. Nothing without a time
    limit (the graph's or the run's); nothing is added when the step's refused model call already set ``stop_reason="budget"``."""
    def run(state: dict):
        max_seconds = run_budget(budget).max_seconds
        started_at = state.get("started_at")
        elapsed = None if started_at is None else time.time() - float(started_at)
        update = yield from steps_of(node(state))
        if max_seconds is None:
            return update
        if elapsed is not None and elapsed >= max_seconds and update.get("stop_reason") != BUDGET_STOP:
            update["warnings"] = [*update.get("warnings", []),
                                  f"answer: the question's time budget was spent before the answer step "
                                  f"({elapsed:.2f} s of max_seconds={max_seconds:g}); answered late, from every path "
                                  "retrieved"]
        return update

    run.__name__ = getattr(node, "__name__", "answer")
    return run
