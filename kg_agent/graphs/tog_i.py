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
after each new layer of triples. Easy questions stop in T=1 with W=1 — fewer calls than ToG's fixed W=3. A question
naming more things than T ("a player at the Forward position at Northport Rovers": its topic entities' mentions) is
explored from each from round 1: W is their number, and the beam keeps a chain from each, an entity reached from
all of them first (:func:`~kg_agent.tools.shared.constraints.shared_among_mentions`).
The tools are ToG's (:mod:`kg_agent.tools.tog.prune_relations` ...); only the wiring and two nodes differ.
"""

from __future__ import annotations

from functools import partial
from typing import Literal, Unpack

from langgraph.graph import END, START

from kg_agent.graphs.kg_state_graph import KGStateGraph
from kg_agent.graphs.tog import OFFLINE_RUN, tog_family_graph
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.settings import GraphSettings, chosen_options, refuse_unknown_options, takes_options
from kg_agent.tools.shared.question_budget import budgeted
from kg_agent.tools.tog.deciders import ToGGraphOptions, ToGOptions, instruction_deciders
from kg_agent.tools.tog.instructions import (
    DEFAULT_MAX_INSTRUCTIONS,
    InstructionGenerator,
    InstructionIntegrator,
    instructions_steps,
    integrate_steps,
)
from kg_agent.tools.tog.prune_relations import DEFAULT_DEPTH


def tog_i_call_bound(max_instructions: int = DEFAULT_MAX_INSTRUCTIONS, depth: int = DEFAULT_DEPTH, width: int | None = None) -> int:
    """LLM calls per question at most: 1 (instructions) + sum over T of [1 integration if T >= 2 + D·(2·W_T + 1)] + 1 (answer),
    with W_T = T (a question naming more things than T widens W_T to their number: then ``"auto"`` may stop it on the
    budget in a later round, ``stop_reason="budget"``)."""
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


@takes_options(settings=GraphSettings, exploration=ToGOptions)
def create_tog_i_graph(
    kg: KnowledgeGraph,
    *,
    max_instructions: int = DEFAULT_MAX_INSTRUCTIONS,
    width: int | None = None,
    instruction_generator: InstructionGenerator | None = None,
    integrator: InstructionIntegrator | None = None,
    settings: GraphSettings | None = None,
    exploration: ToGOptions | None = None,
    **options: Unpack[ToGGraphOptions],
) -> KGStateGraph:
    """Create ToG-I's graph. Returns an **uncompiled** ``StateGraph``.

    Args:
        kg: the knowledge graph to reason over.
        max_instructions: n, the most instructions generated and outer iterations run (ToG-I: 3).
        width: an upper bound on the growing width W = T (``None``: W = T as in the paper, or the number of things
            the question names when more).
        instruction_generator, integrator: override ToG-I's own two decisions.
        depth (below): maximum exploration depth D per outer iteration (ToG-I: 3).
        max_llm_calls (below): ``"auto"`` is :func:`tog_i_call_bound`.
        speculate (below): as ToG's (:func:`~kg_agent.graphs.tog.create_tog_graph`): the next depth's relation
            pruning, and the answer's call at depth D of the last round.

    Example::

        from kg_agent.kg import open_kg
        from kg_agent.graphs import create_tog_i_graph

        app = create_tog_i_graph(open_kg()).compile()
        result = app.invoke({"question": "who starred in films directed by [Robert Zemeckis]"})
        result["instructions"], result["round"], result["answers"][0]["answer"], result["stop_reason"]
    """
    if max_instructions < 1 or (width is not None and width < 1):
        raise ValueError("max_instructions and width must be >= 1")
    refuse_unknown_options("create_tog_i_graph", options, GraphSettings, ToGOptions)
    built, exploration = chosen_options(GraphSettings, settings, options), chosen_options(ToGOptions, exploration, options)

    def offline_graph() -> KGStateGraph:
        return create_tog_i_graph(kg, settings=built, exploration=exploration, max_instructions=max_instructions,
                                  width=width, **OFFLINE_RUN)

    settings = built.resolved()
    generator, integrator = instruction_deciders(kg, settings, exploration, generator=instruction_generator,
                                                 integrator=integrator)

    def instruction_nodes(budget) -> dict:
        return {
            "instructions": budgeted(partial(instructions_steps, kg=kg, generator=generator,
                                             max_instructions=max_instructions), budget, step="instructions",
                                     explore=False),
            "integrate": budgeted(partial(integrate_steps, integrator=integrator, max_width=width), budget,
                                  step="integrate", explore=False),
        }

    return tog_family_graph(
        kg, settings, exploration, name="tog-i", width=None, first_nodes=instruction_nodes, offline_graph=offline_graph,
        auto_calls=tog_i_call_bound(max_instructions, exploration.depth, width),
        edges={START: "link", "link": "instructions", "instructions": "integrate", "integrate": _after_integrate,
               "prune_relations": _after_relations, "prune_entities": _after_entities, "verify": _after_verify,
               "answer": END})
