"""Think-on-Graph (ToG; Sun et al., ICLR 2024) as a LangGraph state machine.

    link -> [ prune_relations -> prune_entities -> verify ] x depth 1..D -> answer
                  (no relation)      (no candidate)   (Yes / depth D / budget)

The beam holds at most ``W`` chains. At each depth every chain's last entity gets one relation-pruning
call (``W`` relations scored), the global top-``W`` (chain, relation) pairs get one entity-scoring call
each, the global top-``W`` triples (relation score x entity score) extend the chains, and one verification
call asks whether the triples so far answer the question. A Yes answers from the triples (the verifier's
braced answer is reused); otherwise the answer step uses the triples plus the model's own knowledge and
flags the answers ``grounded: False``. LLM calls per question stay within ToG's ``2·W·D + D + 1``
(:func:`tog_call_bound`), retries included: the limit is enforced per question.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Literal, Sequence

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph

from kg_agent.graphs.state import KGQuestionInput, ToGState
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.llm.budget import QuestionBudget
from kg_agent.llm.models import resolve_chat_model
from kg_agent.tools.budget import budgeted, timed
from kg_agent.tools.link import link_node, reply_message
from kg_agent.tools.prune_entities import (
    DEFAULT_MAX_CANDIDATES,
    EntityScorer,
    LLMEntityScorer,
    SimilarityEntityScorer,
    new_chain,
    prune_entities_node,
)
from kg_agent.tools.prune_relations import (
    DEFAULT_DEPTH,
    DEFAULT_IGNORED_RELATIONS,
    DEFAULT_WIDTH,
    LLMRelationPruner,
    RelationPruner,
    SimilarityRelationPruner,
    prune_relations_node,
    remaining_calls,
)
from kg_agent.tools.tog_answer import ChainAnswerer, LLMToGAnswerer, ToGAnswerer, tog_answer_node
from kg_agent.tools.verify import LLMVerifier, ScoreVerifier, Verifier, verify_node


def tog_call_bound(width: int = DEFAULT_WIDTH, depth: int = DEFAULT_DEPTH) -> int:
    """ToG's bound on LLM calls per question: ``2·W·D + D + 1``."""
    return 2 * width * depth + depth + 1


@dataclass
class ToGDeciders:
    """The four decisions of a ToG-family graph, LLM-backed or offline."""

    relation_pruner: RelationPruner
    entity_scorer: EntityScorer
    verifier: Verifier
    answerer: ToGAnswerer
    uses_llm: bool


def make_tog_deciders(
    kg: KnowledgeGraph,
    *,
    model: BaseChatModel | None = None,
    relation_pruner: RelationPruner | None = None,
    entity_scorer: EntityScorer | None = None,
    verifier: Verifier | None = None,
    answerer: ToGAnswerer | None = None,
    embeddings: Embeddings | None = None,
    ignored_relations: Sequence[str] = DEFAULT_IGNORED_RELATIONS,
    verify_margin: float = 0.0,
) -> ToGDeciders:
    """The deciders: LLM ones (each falling back to its offline twin) when a model is given, else offline."""
    offline_relations = SimilarityRelationPruner(embeddings=embeddings)
    offline_entities = SimilarityEntityScorer(embeddings=embeddings)
    offline_verifier = ScoreVerifier(kg, embeddings=embeddings, margin=verify_margin, ignored_relations=ignored_relations)
    offline_answerer = ChainAnswerer()
    if model is None:
        return ToGDeciders(relation_pruner or offline_relations, entity_scorer or offline_entities,
                           verifier or offline_verifier, answerer or offline_answerer, False)
    return ToGDeciders(
        relation_pruner or LLMRelationPruner(model, fallback=offline_relations),
        entity_scorer or LLMEntityScorer(model, fallback=offline_entities),
        verifier or LLMVerifier(model, fallback=offline_verifier),
        answerer or LLMToGAnswerer(model, fallback=offline_answerer),
        True,
    )


# ---------------------------------------------------------------------------------------------- nodes
def prefer_exact_case(entities: list[dict], question: str) -> list[dict]:
    """Of topic entities whose labels differ only in case ("Robert Zemeckis", the tag "robert zemeckis"),
    keep the one written as in the question: a beam of W chains has no room for near-duplicates."""
    kept: dict[str, dict] = {}
    for entity in entities:
        key = entity["label"].casefold()
        current = kept.get(key)
        if current is None or (entity["label"] in question and current["label"] not in question):
            kept[key] = entity
    return [e for e in entities if kept.get(e["label"].casefold()) is e]


def start_node(state: dict, *, kg: KnowledgeGraph) -> dict:
    """``link``, then the beam: one empty chain per topic entity."""
    update = link_node(state, kg=kg)
    update["topic_entities"] = prefer_exact_case(update["topic_entities"], update.get("question", ""))
    update.update({
        "depth": 0,
        "frontier": [new_chain(e) for e in update["topic_entities"]],
        "candidate_relations": [],
        "verification": {},
        "instructions": [],
        "guidance": "",
        "round": 0,
    })
    return update


def verify_and_decide(state: dict, *, verifier: Verifier, max_depth: int, max_llm_calls: int | None, uses_llm: bool) -> dict:
    """``verify``, then the stop reason: ``verified``, ``max_depth``, ``budget`` or '' (explore on)."""
    update = verify_node(state, verifier=verifier, max_llm_calls=max_llm_calls)
    merged = {**state, **update}
    if update["verification"]["sufficient"]:
        stop = "verified"
    elif int(state.get("depth") or 0) >= max_depth:
        stop = "max_depth"
    elif uses_llm and remaining_calls(merged, max_llm_calls, reserve=1) == 0:
        stop = "budget"
        update["warnings"] = [*update["warnings"], "verify: the LLM call budget is spent; exploration stops"]
    else:
        stop = ""
    update["stop_reason"] = stop
    return update


def format_tog_reply(state: dict) -> str:
    """A short chat reply: the answers and the chain behind the first one."""
    answers = state.get("answers") or []
    if not answers:
        return "I could not find an answer in the knowledge graph."
    names = ", ".join(a["answer"] for a in answers[:10]) + (" ..." if len(answers) > 10 else "")
    first = answers[0]
    because = f"\nBecause: {first['paths'][0]['text']}" if first.get("paths") else ""
    flag = "" if first.get("grounded", True) else "\n(not confirmed by the knowledge graph)"
    return names + because + flag


def respond_node(state: dict, *, answerer: ToGAnswerer, max_llm_calls: int | None = None, name: str = "tog") -> dict:
    update = tog_answer_node(state, answerer=answerer, max_llm_calls=max_llm_calls)
    if state.get("messages"):
        merged = {**state, **update}
        update["messages"] = [reply_message(format_tog_reply(merged), merged, name=name)]
    return update


def _after_start(state: dict) -> Literal["prune_relations", "answer"]:
    return "prune_relations" if state.get("frontier") else "answer"


def _after_relations(state: dict) -> Literal["prune_entities", "answer"]:
    return "prune_entities" if state.get("candidate_relations") else "answer"


def _after_entities(state: dict) -> Literal["verify", "answer"]:
    return "verify" if state.get("frontier") and not state.get("stop_reason") else "answer"


def _after_verify(state: dict) -> Literal["prune_relations", "answer"]:
    return "answer" if state.get("stop_reason") else "prune_relations"


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
    embeddings: Embeddings | None = None,
) -> StateGraph:
    """Create Think-on-Graph's graph. Returns an **uncompiled** ``StateGraph``.

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
        verify_margin: the offline verifier's bias towards stopping (see :class:`~kg_agent.tools.verify.ScoreVerifier`).
        embeddings: LangChain embeddings for the offline deciders (default: bundled MiniLM).

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
    )
    limit = tog_call_bound(width, depth) if max_llm_calls == "auto" else max_llm_calls
    budget = QuestionBudget(max_tokens=max_tokens, max_seconds=max_seconds)

    graph = StateGraph(ToGState, input_schema=KGQuestionInput)
    graph.add_node("link", timed(partial(start_node, kg=kg), budget))
    graph.add_node("prune_relations", budgeted(partial(prune_relations_node, kg=kg, pruner=deciders.relation_pruner, width=width,
                                              ignored_relations=tuple(ignored_relations), max_llm_calls=limit),
                                              budget, step="prune_relations", stop_update={"candidate_relations": []}))
    graph.add_node("prune_entities", budgeted(partial(prune_entities_node, kg=kg, scorer=deciders.entity_scorer, width=width,
                                             max_candidates=max_candidates, max_llm_calls=limit), budget, step="prune_entities"))
    graph.add_node("verify", budgeted(partial(verify_and_decide, verifier=deciders.verifier, max_depth=depth, max_llm_calls=limit,
                                     uses_llm=deciders.uses_llm), budget, step="verify"))
    graph.add_node("answer", budgeted(partial(respond_node, answerer=deciders.answerer, max_llm_calls=limit, name="tog"),
                                      budget, step="answer", explore=False))
    graph.add_edge(START, "link")
    graph.add_conditional_edges("link", _after_start)
    graph.add_conditional_edges("prune_relations", _after_relations)
    graph.add_conditional_edges("prune_entities", _after_entities)
    graph.add_conditional_edges("verify", _after_verify)
    graph.add_edge("answer", END)
    return graph
