"""Think-on-Graph 2.0 (ToG-2; Ma et al., 2024) as a LangGraph state machine: KG-guided retrieval over documents.

    link -> topic prune -> clue queries -> topic documents
         -> [ relation prune (all topic entities, one call) -> entity prune (document chunks) -> examine ]*
         -> finish

Initialisation (§3.1): entities linked from the question; *topic prune* keeps the good starting points;
a *clue query* per topic entity. Each iteration (§3.2): *relation prune* chooses up to ``W`` relations for
every topic entity in one model call (the "relation prune combination"); *entity prune* scores the
candidate entities' document chunks against ``[question, clue query, triple]`` and keeps the top-``W``
entities by ``sum s x exp(-alpha x rank)`` over their chunks in the global top-``K``; *examine & reason*
reads the question, clue queries, triple paths and top-``L`` chunks and either answers or writes a
supplementary clue query that the next round's chunk scoring uses. At most ``depth`` iterations.

Every decision has an LLM decider (used when a model is given; retried once, falling back offline with
the reason in ``warnings``) and an offline one (embedding similarity; an extractive examine rule).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Unpack

from langgraph.graph import END, START

from kg_agent.graphs.kg_state_graph import KGStateGraph, Node, question_budget, wired_graph
from kg_agent.graphs.state import KGQuestionInput, ToG2State
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.settings import GraphOptions, GraphSettings, chosen_options, refuse_unknown_options, takes_options
from kg_agent.tools.shared.question_budget import budgeted, timed
from kg_agent.tools.tog2.answer import answer_steps
from kg_agent.tools.tog2.clue_query import ClueWriter, clue_query_steps
from kg_agent.tools.tog2.deciders import default_deciders
from kg_agent.tools.tog2.examine import DEFAULT_TOP_L, Examiner, examine_steps
from kg_agent.tools.tog2.prune_entities import (
    DEFAULT_ALPHA,
    DEFAULT_MAX_CANDIDATES,
    DEFAULT_TOP_K_CHUNKS,
    ChunkScorer,
    prune_entities_node,
    topic_documents_node,
)
from kg_agent.tools.tog2.prune_relations import (
    CombinedRelationPruner,
    prune_relations_steps,
)
from kg_agent.tools.tog2.start import start_node
from kg_agent.tools.tog2.topic_prune import TopicPruner, topic_prune_steps

DEFAULT_WIDTH = 3  # W (ToG-2 §3.2; authors' code --width 3)
DEFAULT_DEPTH = 3  # maximum iterations (authors' code --depth 3)

if TYPE_CHECKING:  # Chroma (a second of imports) is loaded only when a ToG-2 graph is built
    from kg_agent.docs.index import DocumentIndex


def _after_link(state: dict) -> Literal["topic_prune", "finish"]:
    return "topic_prune" if state.get("topic_entities") else "finish"


def _after_relation_prune(state: dict) -> Literal["entity_prune", "finish"]:
    return "finish" if state.get("stop_reason") else "entity_prune"


def _after_entity_prune(state: dict) -> Literal["examine", "finish"]:
    return "finish" if state.get("stop_reason") else "examine"


def _after_examine(state: dict) -> Literal["relation_prune", "finish"]:
    return "finish" if state.get("stop_reason") else "relation_prune"


@takes_options(settings=GraphSettings)
def create_tog2_graph(
    kg: KnowledgeGraph,
    *,
    documents: DocumentIndex | str | Path | None = None,
    width: int = DEFAULT_WIDTH,
    depth: int = DEFAULT_DEPTH,
    top_k_chunks: int = DEFAULT_TOP_K_CHUNKS,
    alpha: float = DEFAULT_ALPHA,
    top_l: int = DEFAULT_TOP_L,
    max_candidates: int = DEFAULT_MAX_CANDIDATES,
    topic_pruner: TopicPruner | None = None,
    clue_writer: ClueWriter | None = None,
    relation_pruner: CombinedRelationPruner | None = None,
    examiner: Examiner | None = None,
    settings: GraphSettings | None = None,
    **options: Unpack[GraphOptions],
) -> KGStateGraph:
    """Create ToG-2's graph. Returns an **uncompiled** ``StateGraph``.

    Args:
        kg: the knowledge graph to explore.
        documents: the entity documents: a :class:`DocumentIndex`, a Chroma server URL
            (``http://host:8000?collection=NAME``), a persisted index folder, or a JSONL
            file (``{"title"|"entity", "text"}``, linked to entities by label) ingested into an in-memory
            index. ``None``: the bundled plot summaries with the bundled sample KG, else KG-only (warning).
        width: ``W``, relations kept per topic entity and entities kept per iteration (paper §3.2; 3).
        depth: maximum number of iterations (3, as in the authors' code).
        top_k_chunks: ``K``, the global top chunks that score entities (paper §3.2 names it; the authors'
            code uses 10).
        alpha: ``alpha`` of the chunk weight ``exp(-alpha x rank)`` (paper §3.2; authors' code: 0.8).
        top_l: ``L <= K`` chunks given to the examine step (paper §3.2; authors' ``num_sents_for_reasoning`` 10).
        max_candidates: candidate entities scored per (entity, relation); more are cut with a warning.
        embeddings (below): also for ingesting a JSONL file. Chunks are scored with the document index's own
            embeddings.
        topic_pruner, clue_writer, relation_pruner, examiner: override a decider.
        grounding (below): a model answer that no triple path ends in and no cited chunk states is ungrounded;
            under ``"prefer"`` the offline examiner decides instead.
        max_llm_calls, max_tokens, max_seconds (below): when one is reached, exploration stops and the examine step
            answers from the entities and chunks found so far (``stop_reason="budget"``).

    Example::

        from kg_agent.kg import open_kg
        from kg_agent.graphs import create_tog2_graph

        kg = open_kg()  # the bundled sample movie KG; its plot summaries are used as documents
        app = create_tog2_graph(kg).compile()
        result = app.invoke({"question": "who directed [Catch Me If You Can]"})
        [a["answer"] for a in result["answers"]], result["references"][0]["text"]
    """
    if width < 1 or depth < 1 or top_k_chunks < 1 or top_l < 1:
        raise ValueError("width, depth, top_k_chunks and top_l must be >= 1")
    if top_l > top_k_chunks:
        raise ValueError(f"top_l (L={top_l}) must not exceed top_k_chunks (K={top_k_chunks}), as in the paper")
    refuse_unknown_options("create_tog2_graph", options, GraphSettings)
    settings = chosen_options(GraphSettings, settings, options).resolved()
    from kg_agent.tools.tog2.documents import resolve_documents

    index, notes = resolve_documents(kg, documents, embeddings=settings.embeddings)
    scorer = ChunkScorer(index)
    deciders = default_deciders(kg, settings, topic_pruner=topic_pruner, clue_writer=clue_writer,
                                relation_pruner=relation_pruner, examiner=examiner)
    budget = question_budget(settings)
    nodes: dict[str, Node] = {
        "link": timed(partial(start_node, kg=kg, notes=notes, ask_when_ambiguous=settings.ask_when_ambiguous), budget),
        "topic_prune": budgeted(partial(topic_prune_steps, pruner=deciders.topic_pruner), budget, step="topic_prune", explore=False),
        "clue_query": budgeted(partial(clue_query_steps, writer=deciders.clue_writer), budget, step="clue_query", explore=False),
        "topic_documents": partial(topic_documents_node, scorer=scorer, top_k=top_k_chunks),
        "relation_prune": budgeted(partial(prune_relations_steps, kg=kg, pruner=deciders.relation_pruner, width=width),
                                   budget, step="relation_prune"),
        "entity_prune": budgeted(partial(prune_entities_node, kg=kg, scorer=scorer, width=width, top_k=top_k_chunks,
                                         alpha=alpha, max_candidates=max_candidates), budget, step="entity_prune"),
        "examine": budgeted(partial(examine_steps, examiner=deciders.examiner, depth=depth, top_l=top_l), budget,
                            step="examine", explore=False),
        "finish": budgeted(partial(answer_steps, examiner=deciders.examiner, top_l=top_l), budget, step="finish", explore=False),
    }
    return wired_graph(ToG2State, kg, settings, nodes, {
        START: "link", "link": _after_link, "topic_prune": "clue_query", "clue_query": "topic_documents",
        "topic_documents": "relation_prune", "relation_prune": _after_relation_prune, "entity_prune": _after_entity_prune,
        "examine": _after_examine, "finish": END}, input_schema=KGQuestionInput)
