"""Think-on-Graph (ToG; Sun et al., ICLR 2024) as a LangGraph state machine.

    link -> [ prune_relations -> prune_entities -> verify ] x depth 1..D -> answer
                  (no relation)      (no candidate)   (Yes / depth D / budget)

    speculate=True:  verify(d) + prune_relations(d+1)'s calls    verify(D) + answer's call
                     (asked together; the next step takes the replies, or they are discarded; when
                     prune_relations(d+1) needs no call, prune_entities(d+1)'s calls are asked instead)

The beam holds at most ``W`` chains. At each depth every chain's last entity gets one relation-pruning
call (``W`` relations scored), the global top-``W`` (chain, relation) pairs get one entity-scoring call
each, the global top-``W`` triples (relation score x entity score) extend the chains, and one verification
call asks whether the triples so far answer the question. A Yes answers from the triples (the verifier's
braced answer is reused); otherwise the answer step uses the triples plus the model's own knowledge and
flags the answers ``grounded: False``. With a model, when none of its answers is grounded on a chain the question
asks for, grounding ``"prefer"`` and ``"strict"`` answer with the graph's own run without a model
(:class:`~kg_agent.graphs.kg_state_graph.OfflineMethod`: no model call, no budget). LLM calls per question stay
within ToG's ``2·W·D + D + 1`` (:func:`tog_call_bound`), retries included: the limit is the question's
:class:`~kg_agent.llm.budget.QuestionBudget`, enforced where each model call is made, with one call kept for the
answer (:func:`tog_budget`).

With ``speculate=True`` the verify node also asks the next step's model calls, which depend only on the beam (the
next depth's relation pruning) or on the chains (the answer after depth D): a verification and the step after it
take one round of calls instead of two (:mod:`kg_agent.tools.tog.speculate`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Literal, Unpack

from langgraph.graph import END, START, StateGraph

from kg_agent.graphs.kg_state_graph import KGStateGraph, OfflineMethod, question_budget, wired_graph
from kg_agent.graphs.state import KGQuestionInput, ToGRunState, ToGState
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.llm.budget import QuestionBudget
from kg_agent.settings import GraphSettings, WhenUnsupported, chosen_options, refuse_unknown_options, takes_options
from kg_agent.tools.shared.question_budget import budgeted, timed
from kg_agent.tools.tog.answer import respond_steps
from kg_agent.tools.tog.deciders import ToGDeciders, ToGGraphOptions, ToGOptions, default_deciders
from kg_agent.tools.tog.prune_entities import prune_entities_steps
from kg_agent.tools.tog.prune_relations import DEFAULT_DEPTH, DEFAULT_WIDTH, prune_relations_steps
from kg_agent.tools.tog.speculate import check_speculation, with_speculation
from kg_agent.tools.tog.start import start_node
from kg_agent.tools.tog.verify import verify_and_decide

#: The options that make a ToG-family graph its offline run (:class:`OfflineMethod`): no model, and so no budget (it
#: makes no call), and the library's offline deciders instead of any a caller gave (which may ask a model).
OFFLINE_RUN: ToGGraphOptions = {"model": None, "max_llm_calls": None, "max_tokens": None, "max_seconds": None,
                                "relation_pruner": None, "entity_scorer": None, "verifier": None, "answerer": None,
                                "ask_when_ambiguous": False}


def tog_call_bound(width: int = DEFAULT_WIDTH, depth: int = DEFAULT_DEPTH) -> int:
    """ToG's bound on LLM calls per question: ``2·W·D + D + 1``."""
    return 2 * width * depth + depth + 1


#: Calls of a ToG-family question's budget kept for its answer (ToG's ``+ 1``), so it can answer after exploring
#: under a tight budget.
ANSWER_RESERVE = 1


def tog_family_graph(kg: KnowledgeGraph, settings: GraphSettings, exploration: ToGOptions, *, name: str,
                     width: int | None, auto_calls: int, edges: dict, offline_graph: Callable[[], StateGraph],
                     first_nodes: Callable[[QuestionBudget], dict] = lambda budget: {}) -> KGStateGraph:
    """The graph of ToG (``name`` ``"tog"``) or ToG-I (``"tog-i"``): ``first_nodes`` (of the question's budget: what
    runs between linking and the exploration), the exploration (:func:`exploration_nodes`) and ``edges``. The
    deciders are :func:`~kg_agent.tools.tog.deciders.default_deciders`; the question's budget keeps
    :data:`ANSWER_RESERVE` calls for the answer (``max_llm_calls="auto"``: ``auto_calls``). ``offline_graph`` builds
    the same graph without a model: with a model, its grounded answers replace the model's when none of those ends
    an explored chain the question asks for (grounding ``"prefer"`` and ``"strict"``; :class:`OfflineMethod`)."""
    settings = settings.resolved()
    offline_run = OfflineMethod(name, offline_graph) if settings.model is not None else None
    deciders = default_deciders(kg, settings, exploration, offline_run=offline_run)
    budget = question_budget(settings, auto_calls=auto_calls, answer_reserve=ANSWER_RESERVE)
    link = partial(start_node, kg=kg, ask_when_ambiguous=settings.ask_when_ambiguous)
    nodes = {"link": timed(link, budget), **first_nodes(budget),
             **exploration_nodes(kg, deciders, budget, width=width, options=exploration, name=name,
                                 when_unsupported=settings.when_unsupported)}
    return wired_graph(ToGRunState, kg, settings, nodes, edges, input_schema=KGQuestionInput, output_schema=ToGState)


def _after_start(state: dict) -> Literal["prune_relations", "answer"]:
    return "prune_relations" if state.get("frontier") else "answer"


def _after_relations(state: dict) -> Literal["prune_entities", "answer"]:
    return "prune_entities" if state.get("candidate_relations") else "answer"


def _after_entities(state: dict) -> Literal["verify", "answer"]:
    return "verify" if state.get("frontier") and not state.get("stop_reason") else "answer"


def _after_verify(state: dict) -> Literal["prune_relations", "answer"]:
    return "answer" if state.get("stop_reason") else "prune_relations"


def exploration_nodes(kg: KnowledgeGraph, deciders: ToGDeciders, budget: QuestionBudget, *, width: int | None,
                      options: ToGOptions, name: str, when_unsupported: WhenUnsupported = "abstain") -> dict:
    """The nodes ToG and ToG-I share (``prune_relations``, ``prune_entities``, ``verify``, ``answer``) under
    ``budget``; ``width`` ``None`` reads it from the state (ToG-I's growing W). With ``options.speculate`` (and a
    model), ``verify`` asks the next step's calls ahead (:mod:`kg_agent.tools.tog.speculate`)."""
    depth, ignored_relations, max_candidates = options.depth, options.ignored_relations, options.max_candidates
    speculate = options.speculate
    steps: dict[str, Callable[..., Any]] = {
        "prune_relations": partial(prune_relations_steps, kg=kg, pruner=deciders.relation_pruner, width=width,
                                   ignored_relations=tuple(ignored_relations)),
        "prune_entities": partial(prune_entities_steps, kg=kg, scorer=deciders.entity_scorer, width=width,
                                  max_candidates=max_candidates),
        "verify": partial(verify_and_decide, verifier=deciders.verifier, max_depth=depth, kg=kg),
        "answer": partial(respond_steps, answerer=deciders.answerer, name=name, kg=kg, when_unsupported=when_unsupported,
                          chain_scorer=deciders.chain_scorer),
    }
    check_speculation(speculate, budget)
    if speculate and deciders.uses_llm:
        steps = with_speculation(steps, budget=budget, kg=kg, pruner=deciders.relation_pruner,
                                 scorer=deciders.entity_scorer, answerer=deciders.answerer, width=width,
                                 ignored_relations=ignored_relations, max_candidates=max_candidates)
    return {
        "prune_relations": budgeted(steps["prune_relations"], budget, step="prune_relations",
                                    stop_update={"candidate_relations": []}),
        "prune_entities": budgeted(steps["prune_entities"], budget, step="prune_entities"),
        "verify": budgeted(steps["verify"], budget, step="verify"),
        "answer": budgeted(steps["answer"], budget, step="answer", explore=False),
    }


# ---------------------------------------------------------------------------------------------- factory
@takes_options(settings=GraphSettings, exploration=ToGOptions)
def create_tog_graph(kg: KnowledgeGraph, *, width: int = DEFAULT_WIDTH, settings: GraphSettings | None = None,
                     exploration: ToGOptions | None = None, **options: Unpack[ToGGraphOptions]) -> KGStateGraph:
    """Create Think-on-Graph's graph. Returns an **uncompiled** ``StateGraph``.

    Args:
        kg: the knowledge graph to reason over.
        width: beam width W (ToG: 3): relations kept per entity, (entity, relation) pairs and triples per depth.
        max_llm_calls (below): ``"auto"`` is ToG's bound ``2·W·D + D + 1`` (:func:`tog_call_bound`); when a budget
            is reached, exploration stops and the answer uses what was found (``stop_reason="budget"``, see
            :mod:`kg_agent.llm.budget`).
        max_concurrency (below): relation pruning asks one call per beam chain, entity scoring one per kept
            (chain, relation), at most this many at once.

    The result carries ``answers`` (each with its supporting chains and ``grounded``), ``chains`` (every
    scored chain explored), ``stop_reason`` (``verified``, ``max_depth``, ``no_relations``,
    ``no_candidates``, ``budget``, ``no_topic_entity``) and ``usage`` per node.

    Example::

        from kg_agent.kg import open_kg
        from kg_agent.graphs import create_tog_graph

        kg = open_kg()  # the bundled sample movie KG
        app = create_tog_graph(kg).compile()
        result = app.invoke({"question": "who directed [Forrest Gump]"})
        result["answers"][0]["answer"], result["chains"][0]["text"], result["stop_reason"]
        # ('Robert Zemeckis', 'Forrest Gump -> directed_by -> Robert Zemeckis', 'verified')
    """
    if width < 1:
        raise ValueError(f"width must be >= 1 (got width={width})")
    refuse_unknown_options("create_tog_graph", options, GraphSettings, ToGOptions)
    settings, exploration = chosen_options(GraphSettings, settings, options), chosen_options(ToGOptions, exploration, options)
    return tog_family_graph(kg, settings, exploration, name="tog", width=width,
                            offline_graph=lambda: create_tog_graph(kg, settings=settings, exploration=exploration, width=width,
                                                                   **OFFLINE_RUN),
                            auto_calls=tog_call_bound(width, exploration.depth), edges={
                                START: "link", "link": _after_start, "prune_relations": _after_relations,
                                "prune_entities": _after_entities, "verify": _after_verify, "answer": END})
