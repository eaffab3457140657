"""The two decisions of a RoG graph (planner, answerer), chosen once: by the graph and by the LangChain step tools."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.settings import GraphSettings
from kg_agent.tools.rog.answer import Answerer, LLMAnswerer, VoteAnswerer
from kg_agent.tools.rog.exemplar import Exemplar
from kg_agent.tools.rog.plan import Planner, PlannerChoice, make_planner
from kg_agent.tools.shared.path_scoring import RelationPathScorer


@dataclass
class RoGDeciders:
    """The two decisions of a RoG graph, LLM-backed or offline."""

    planner: Planner
    answerer: Answerer


def default_deciders(
    kg: KnowledgeGraph,
    settings: GraphSettings | None = None,
    *,
    planner: PlannerChoice | Planner = "auto",
    exemplars: Iterable[Exemplar] | None = None,
    answerer: Answerer | None = None,
    max_hops: int = 3,
    max_prompt_paths: int = 100,
    max_answers: int = 100,
    explain: bool = False,
) -> RoGDeciders:
    """The planner (:func:`~kg_agent.tools.rog.plan.make_planner`) and the answerer: with ``settings``' model the LLM
    answerer (its offline twin, the path votes, scoring plans as the planner does), else the votes; a given
    ``answerer`` is used as it is. The options are :func:`~kg_agent.graphs.rog.create_rog_graph`'s."""
    settings = (settings or GraphSettings()).resolved()
    model, embeddings, grounding = settings.model, settings.embeddings, settings.grounding
    chosen_planner = make_planner(kg, planner=planner, model=model, exemplars=exemplars, embeddings=embeddings,
                                  max_hops=max_hops, structured_output=settings.structured_output,
                                  keep_offline_plan=grounding != "off")
    if answerer is None:
        plan_scorer = RelationPathScorer(embeddings=embeddings)
        answerer = (
            LLMAnswerer(model, explain=explain, max_prompt_paths=max_prompt_paths, max_answers=max_answers,
                        structured_output=settings.structured_output, grounding=grounding, plan_scorer=plan_scorer,
                        kg=kg)
            if model is not None
            else VoteAnswerer(plan_scorer=plan_scorer, kg=kg, max_answers=max_answers)
        )
    return RoGDeciders(chosen_planner, answerer)
