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
flags the answers ``grounded: False``. LLM calls per question stay within ToG's ``2·W·D + D + 1``
(:func:`tog_call_bound`), retries included: the limit is the question's :class:`~kg_agent.llm.budget.QuestionBudget`,
enforced where each model call is made, with one call kept for the answer (:func:`tog_budget`).

With ``speculate=True`` the verify node also asks the next step's model calls, which depend only on the beam (the
next depth's relation pruning) or on the chains (the answer after depth D): a verification and the step after it
take one round of calls instead of two (:mod:`kg_agent.tools.tog.speculate`).
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
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.llm.budget import QuestionBudget
from kg_agent.llm.models import resolve_chat_model
from kg_agent.settings import DEFAULT_GROUNDING, Grounding, StructuredMode
from kg_agent.steps import DEFAULT_MAX_CONCURRENCY, add_nodes
from kg_agent.tools.shared.grounding import check_policy
from kg_agent.tools.shared.question_budget import budgeted, timed
from kg_agent.tools.shared.scoring import DEFAULT_IGNORED_RELATIONS
from kg_agent.tools.tog.answer import ToGAnswerer, respond_steps
from kg_agent.tools.tog.deciders import ToGDeciders, make_tog_deciders
from kg_agent.tools.tog.prune_entities import DEFAULT_MAX_CANDIDATES, EntityScorer, prune_entities_steps
from kg_agent.tools.tog.prune_relations import DEFAULT_DEPTH, DEFAULT_WIDTH, RelationPruner, prune_relations_steps
from kg_agent.tools.tog.speculate import check_speculation, with_speculation
from kg_agent.tools.tog.start import start_node
from kg_agent.tools.tog.verify import Verifier, verify_and_decide


def tog_call_bound(width: int = DEFAULT_WIDTH, depth: int = DEFAULT_DEPTH) -> int:
    """ToG's bound on LLM calls per question: ``2·W·D + D + 1``."""
    return 2 * width * depth + depth + 1


#: Calls of a ToG-family question's budget kept for its answer (ToG's ``+ 1``), so it can answer after exploring
#: under a tight budget.
ANSWER_RESERVE = 1


def tog_budget(max_llm_calls: int | None, max_tokens: int | None, max_seconds: float | None) -> QuestionBudget:
    """A ToG-family question's budget: its limits, :data:`ANSWER_RESERVE` calls kept for the answer."""
    return QuestionBudget(max_llm_calls=max_llm_calls, max_tokens=max_tokens, max_seconds=max_seconds,
                          answer_reserve=ANSWER_RESERVE)


def _after_start(state: dict) -> Literal["prune_relations", "answer"]:
    return "prune_relations" if state.get("frontier") else "answer"


def _after_relations(state: dict) -> Literal["prune_entities", "answer"]:
    return "prune_entities" if state.get("candidate_relations") else "answer"


def _after_entities(state: dict) -> Literal["verify", "answer"]:
    return "verify" if state.get("frontier") and not state.get("stop_reason") else "answer"


def _after_verify(state: dict) -> Literal["prune_relations", "answer"]:
    return "answer" if state.get("stop_reason") else "prune_relations"


def exploration_nodes(kg: KnowledgeGraph, deciders: ToGDeciders, budget: QuestionBudget, *, width: int | None,
                      depth: int, ignored_relations: Sequence[str], max_candidates: int, speculate: bool,
                      name: str) -> dict:
    """The nodes ToG and ToG-I share (``prune_relations``, ``prune_entities``, ``verify``, ``answer``) under
    ``budget``; ``width`` ``None`` reads it from the state (ToG-I's growing W). With ``speculate`` (and a model),
    ``verify`` asks the next step's calls ahead (:mod:`kg_agent.tools.tog.speculate`)."""
    steps = {
        "prune_relations": partial(prune_relations_steps, kg=kg, pruner=deciders.relation_pruner, width=width,
                                   ignored_relations=tuple(ignored_relations)),
        "prune_entities": partial(prune_entities_steps, kg=kg, scorer=deciders.entity_scorer, width=width,
                                  max_candidates=max_candidates),
        "verify": partial(verify_and_decide, verifier=deciders.verifier, max_depth=depth),
        "answer": partial(respond_steps, answerer=deciders.answerer, name=name),
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
def create_tog_graph(
    kg: KnowledgeGraph,
    *,
    model: BaseChatModel | str | None = None,
    width: int = DEFAULT_WIDTH,
    depth: int = DEFAULT_DEPTH,
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
    """Create Think-on-Graph's graph. Returns an **uncompiled** ``StateGraph``.
    Its ``grounding``, ``structured_output`` and budgets are the graph's own: a run may choose others through its
    LangGraph context (:class:`~kg_agent.settings.RunSettings`; budgets only tighter).

    Args:
        kg: the knowledge graph to reason over.
        model: a LangChain chat model (or ``"openai:gpt-4o-mini"``); ``None`` runs fully offline.
        width: beam width W (ToG: 3): relations kept per entity, (entity, relation) pairs and triples per depth.
        depth: maximum depth D (ToG: 3).
        relation_pruner, entity_scorer, verifier, answerer: override one decision (any object with the method).
        ignored_relations: ``fnmatch`` patterns of bookkeeping relations never explored.
        max_candidates: candidate tail entities scored per (entity, relation), first by label (a warning says so).
        max_llm_calls: LLM calls allowed per question; ``"auto"`` = ToG's bound ``2·W·D + D + 1``; ``None``: no limit.
        max_tokens, max_seconds: per-question caps on LLM tokens and wall time (``None``: none); when one is
            reached, exploration stops and the answer uses what was found (``stop_reason="budget"``, see
            :mod:`kg_agent.llm.budget`).
        verify_margin: the offline verifier's bias towards stopping (see :class:`~kg_agent.tools.tog.verify.ScoreVerifier`).
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
        speculate: ask the next step's model calls while the verifier decides (see the diagram above and
            :mod:`kg_agent.tools.tog.speculate`): faster with a slow model, the same answers, chains and warnings; the
            calls of a step the verifier makes unnecessary (it said Yes) are wasted but counted in ``usage`` and the
            call budget. Only when the calls left cover it; not with ``max_tokens`` / ``max_seconds``
            (``ValueError``); no effect without a model.

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
    if width < 1 or depth < 1:
        raise ValueError(f"width and depth must be >= 1 (got width={width}, depth={depth})")
    chat_model = resolve_chat_model(model) if isinstance(model, str) else model
    deciders = make_tog_deciders(
        kg, model=chat_model, relation_pruner=relation_pruner, entity_scorer=entity_scorer, verifier=verifier,
        answerer=answerer, embeddings=embeddings, ignored_relations=ignored_relations, verify_margin=verify_margin,
        structured_output=structured_output, grounding=check_policy(grounding), depth=depth,
    )
    limit = tog_call_bound(width, depth) if max_llm_calls == "auto" else max_llm_calls
    budget = tog_budget(limit, max_tokens, max_seconds)

    graph = KGStateGraph(ToGRunState, kg=kg, input_schema=KGQuestionInput, output_schema=ToGState)
    add_nodes(graph, {
        "link": timed(partial(start_node, kg=kg), budget),
        **exploration_nodes(kg, deciders, budget, width=width, depth=depth, ignored_relations=ignored_relations,
                            max_candidates=max_candidates, speculate=speculate, name="tog"),
    }, max_concurrency=max_concurrency)
    graph.add_edge(START, "link")
    graph.add_conditional_edges("link", _after_start)
    graph.add_conditional_edges("prune_relations", _after_relations)
    graph.add_conditional_edges("prune_entities", _after_entities)
    graph.add_conditional_edges("verify", _after_verify)
    graph.add_edge("answer", END)
    return graph
