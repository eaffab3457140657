"""ToG-I (progressively instructed Think-on-Graph) as a LangGraph state machine.

    link -> instructions -> integrate (T=1) -> [ prune_relations -> prune_entities -> verify ] x depth 1..D
                               ^                                                       |
                               +------ T < n: integrate i_1..i_{T+1}, W = T+1 <---------+  (no Yes by depth D)
    verify Yes -> answer (from the triples);   all n instructions used without Yes -> answer (own knowledge, flagged)
    speculate=True: verify(d) + prune_relations(d+1)'s calls, verify(D) of the last round + the answer's call

Instruction generation yields up to ``n`` (3) instructions, shallow to deep, and suggested topic entities.
Outer iteration T integrates the accumulated instructions into one guidance I'_T and restarts the
exploration from the topic entities with width ``W = T`` (ToG-I §3.2): relation pruning and entity
scoring are guided by I'_T, triple scores are products of relation and entity scores, and verification runs
after each new layer of triples. Easy questions stop in T=1 with W=1 — fewer calls than ToG's fixed W=3.
The tools are ToG's (:mod:`kg_agent.tools.tog.prune_relations` ...); only the wiring and two nodes differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Literal

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph

from kg_agent.graphs.kg_state_graph import KGStateGraph
from kg_agent.graphs.state import KGQuestionInput, ToGRunState, ToGState
from kg_agent.graphs.tog import exploration_nodes, tog_budget
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.llm.models import resolve_chat_model
from kg_agent.settings import DEFAULT_GROUNDING, Grounding, StructuredMode
from kg_agent.steps import DEFAULT_MAX_CONCURRENCY, add_nodes
from kg_agent.tools.shared.grounding import check_policy
from kg_agent.tools.shared.question_budget import budgeted, timed
from kg_agent.tools.shared.scoring import DEFAULT_IGNORED_RELATIONS
from kg_agent.tools.tog.answer import ToGAnswerer
from kg_agent.tools.tog.deciders import make_tog_deciders
from kg_agent.tools.tog.instructions import (
    DEFAULT_MAX_INSTRUCTIONS,
    InstructionGenerator,
    InstructionIntegrator,
    instructions_steps,
    integrate_steps,
    make_instruction_deciders,
)
from kg_agent.tools.tog.prune_entities import DEFAULT_MAX_CANDIDATES, EntityScorer
from kg_agent.tools.tog.prune_relations import DEFAULT_DEPTH, RelationPruner
from kg_agent.tools.tog.start import start_node
from kg_agent.tools.tog.verify import Verifier


def tog_i_call_bound(max_instructions: int = DEFAULT_MAX_INSTRUCTIONS, depth: int = DEFAULT_DEPTH, width: int | None = None) -> int:
    """LLM calls per question at most: 1 (instructions) + sum over T of [1 integration if T >= 2 + D·(2·W_T + 1)] + 1 (answer)."""
    total = 2
    for t in range(1, max_instructions + 1):
        w = t if width is None else min(t, width)
        total += (1 if t >= 2 else 0) + depth * (2 * w + 1)
    return total


def _rounds(state: dict) -> int:
    return max(1, len(state.get("instructions") or []))


def _after_integrate(state: dict) -> Literal["prune_relations", "answer"]:
    return "prune_relations" if state.get("frontier") else "answer"


def _next_round(state: dict) -> Literal["integrate", "answer"]:
    if state.get("stop_reason") in {"budget", "verified"}:
        return "answer"
    return "integrate" if int(state.get("round") or 0) < _rounds(state) else "answer"


def _after_relations(state: dict) -> Literal["prune_entities", "integrate", "answer"]:
    return "prune_entities" if state.get("candidate_relations") else _next_round(state)


def _after_entities(state: dict) -> Literal["verify", "integrate", "answer"]:
    return "verify" if state.get("frontier") and not state.get("stop_reason") else _next_round(state)


def _after_verify(state: dict) -> Literal["prune_relations", "integrate", "answer"]:
    return _next_round(state) if state.get("stop_reason") else "prune_relations"


def create_tog_i_graph(
    kg: KnowledgeGraph,
    *,
    model: BaseChatModel | str | None = None,
    max_instructions: int = DEFAULT_MAX_INSTRUCTIONS,
    depth: int = DEFAULT_DEPTH,
    width: int | None = None,
    instruction_generator: InstructionGenerator | None = None,
    integrator: InstructionIntegrator | None = None,
    relation_pruner: RelationPruner | None = None,
    entity_scorer: EntityScorer | None = None,
    verifier: Verifier | None = None,
    answerer: ToGAnswerer | None = None,
    ignored_relations: Sequence[str] = DEFAULT_IGNORED_RELATIONS,
    max_candidates: int = DEFAULT_MAX_CANDIDATES,
    max_llm_calls: int | None | Literal["auto"] = "auto",
    max_tokens: int | None = None,
    max_seconds: float | None = None,
    verify_margin: float = 0.0,
    grounding: Grounding = DEFAULT_GROUNDING,
    embeddings: Embeddings | None = None,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    structured_output: StructuredMode = "auto",
    speculate: bool = False,
) -> StateGraph:
    """Create ToG-I's graph. Returns an **uncompiled** ``StateGraph``.
    Its ``grounding``, ``structured_output`` and budgets are the graph's own: a run may choose others through its
    LangGraph context (:class:`~kg_agent.settings.RunSettings`; budgets only tighter).

    Args:
        kg: the knowledge graph to reason over.
        model: a LangChain chat model (or ``"openai:gpt-4o-mini"``); ``None`` runs fully offline.
        max_instructions: n, the most instructions generated and outer iterations run (ToG-I: 3).
        depth: maximum exploration depth D per outer iteration (ToG-I: 3).
        width: an upper bound on the growing width W = T (``None``: W = T as in the paper).
        instruction_generator, integrator, relation_pruner, entity_scorer, verifier, answerer: override a decision.
        ignored_relations: ``fnmatch`` patterns of bookkeeping relations never explored.
        max_candidates: candidate tail entities scored per (entity, relation).
        max_llm_calls: LLM calls allowed per question; ``"auto"`` = :func:`tog_i_call_bound`; ``None``: no limit.
        max_tokens, max_seconds: per-question caps on LLM tokens and wall time (``None``: none); when one is
            reached, exploration stops and the answer uses what was found (``stop_reason="budget"``).
        verify_margin: the offline verifier's bias towards stopping.
        grounding: what a model answer no explored chain ends in becomes: ``"prefer"`` (default; the offline
            chain answers replace it, with a warning, and ``output`` keeps the reply), ``"strict"`` (grounded
            answers only, else none and ``stop_reason="no_grounded_answer"``; unverified answers are withheld)
            or ``"off"`` (kept as given, flagged ``grounded: False``). See :mod:`kg_agent.tools.shared.grounding`.
        embeddings: LangChain embeddings for the offline deciders (default: bundled MiniLM).
        max_concurrency: independent LLM calls of one step asked at once (relation pruning: one per beam chain;
            entity scoring: one per kept (chain, relation)); 1 asks them one after the other. ``invoke`` runs
            them in a thread pool, ``ainvoke``/``astream`` with the model's async calls. The call budget is the
            same either way.
        structured_output: how the LLM deciders ask (:class:`~kg_agent.settings.RunSettings` lists the modes;
            ``"auto"`` picks what the endpoint constrains, :func:`~kg_agent.tools.shared.decider.structured_mode`).
        speculate: ask the next step's model calls while the verifier decides, as ToG does (see
            :func:`~kg_agent.graphs.tog.create_tog_graph` and :mod:`kg_agent.tools.tog.speculate`): the next depth's
            relation pruning, and the answer's call at depth D of the last round.

    Example::

        from kg_agent.kg import open_kg
        from kg_agent.graphs import create_tog_i_graph

        app = create_tog_i_graph(open_kg()).compile()
        result = app.invoke({"question": "who starred in films directed by [Robert Zemeckis]"})
        result["instructions"], result["round"], result["answers"][0]["answer"], result["stop_reason"]
    """
    if max_instructions < 1 or depth < 1 or (width is not None and width < 1):
        raise ValueError("max_instructions, depth and width must be >= 1")
    chat_model = resolve_chat_model(model) if isinstance(model, str) else model
    deciders = make_tog_deciders(
        kg, model=chat_model, relation_pruner=relation_pruner, entity_scorer=entity_scorer, verifier=verifier,
        answerer=answerer, embeddings=embeddings, ignored_relations=ignored_relations, verify_margin=verify_margin,
        structured_output=structured_output, grounding=check_policy(grounding), depth=depth,
    )
    instruction_generator, integrator = make_instruction_deciders(
        kg, model=chat_model, generator=instruction_generator, integrator=integrator, embeddings=embeddings,
        ignored_relations=ignored_relations, structured_output=structured_output)
    limit = tog_i_call_bound(max_instructions, depth, width) if max_llm_calls == "auto" else max_llm_calls
    budget = tog_budget(limit, max_tokens, max_seconds)

    graph = KGStateGraph(ToGRunState, kg=kg, input_schema=KGQuestionInput, output_schema=ToGState)
    add_nodes(graph, {
        "link": timed(partial(start_node, kg=kg), budget),
        "instructions": budgeted(partial(instructions_steps, kg=kg, generator=instruction_generator,
                                 max_instructions=max_instructions), budget,
                                 step="instructions", explore=False),
        "integrate": budgeted(partial(integrate_steps, integrator=integrator, max_width=width),
                              budget, step="integrate", explore=False),
        **exploration_nodes(kg, deciders, budget, width=None, depth=depth, ignored_relations=ignored_relations,
                            max_candidates=max_candidates, speculate=speculate, name="tog-i"),
    }, max_concurrency=max_concurrency)
    graph.add_edge(START, "link")
    graph.add_edge("link", "instructions")
    graph.add_edge("instructions", "integrate")
    graph.add_conditional_edges("integrate", _after_integrate)
    graph.add_conditional_edges("prune_relations", _after_relations)
    graph.add_conditional_edges("prune_entities", _after_entities)
    graph.add_conditional_edges("verify", _after_verify)
    graph.add_edge("answer", END)
    return graph
