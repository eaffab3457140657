"""The four decisions of a ToG-family graph (relation pruner, entity scorer, verifier, answerer), chosen once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.settings import DEFAULT_GROUNDING, Grounding, StructuredMode
from kg_agent.tools.shared.scoring import DEFAULT_IGNORED_RELATIONS
from kg_agent.tools.tog.answer import ChainAnswerer, LLMToGAnswerer, ToGAnswerer
from kg_agent.tools.tog.prune_entities import EntityScorer, LLMEntityScorer, PathEntityScorer, SimilarityEntityScorer
from kg_agent.tools.tog.prune_relations import DEFAULT_DEPTH, LLMRelationPruner, RelationPruner, SimilarityRelationPruner
from kg_agent.tools.tog.verify import LLMVerifier, ScoreVerifier, Verifier

#: Relations the offline beam's pruner looks past a candidate (as the offline verifier does).
BEAM_LOOKAHEAD = 2


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
    structured_output: StructuredMode = "auto",
    grounding: Grounding = DEFAULT_GROUNDING,
    depth: int = DEFAULT_DEPTH,
) -> ToGDeciders:
    """The deciders: LLM ones (each falling back to its offline twin, asking in ``structured_output`` mode, see
    :func:`~kg_agent.tools.shared.decider.structured_mode`) when a model is given, else offline.

    ``grounding`` is the answer step's grounding policy (:mod:`kg_agent.tools.shared.grounding`). Without a model
    the relation pruner scores whole chains with a look ahead of :data:`BEAM_LOOKAHEAD` relations within
    ``depth`` (the beam's D; :class:`SimilarityRelationPruner`) and the entity scorer weighs each tail by the best path
    through it (:class:`PathEntityScorer`), so the beam keeps the ``W`` chains whose relation paths best answer the
    question; a model's fallbacks keep ToG's per-step weights."""
    offline_relations = SimilarityRelationPruner(kg=kg, embeddings=embeddings)
    offline_entities = SimilarityEntityScorer(embeddings=embeddings)
    offline_verifier = ScoreVerifier(kg, embeddings=embeddings, margin=verify_margin, ignored_relations=ignored_relations)
    offline_answerer = ChainAnswerer(grounding=grounding, kg=kg)
    if model is None:
        beam_relations = SimilarityRelationPruner(kg=kg, embeddings=embeddings, lookahead=BEAM_LOOKAHEAD, max_hops=depth,
                                                  ignored_relations=ignored_relations)
        beam_entities = PathEntityScorer(beam_relations, text=offline_entities)
        return ToGDeciders(relation_pruner or beam_relations, entity_scorer or beam_entities,
                           verifier or offline_verifier, answerer or offline_answerer, False)
    return ToGDeciders(
        relation_pruner or LLMRelationPruner(model, fallback=offline_relations, structured_output=structured_output,
                                             keep_offline_top=grounding != "off"),
        entity_scorer or LLMEntityScorer(model, fallback=offline_entities, structured_output=structured_output),
        verifier or LLMVerifier(model, fallback=offline_verifier, structured_output=structured_output, grounding=grounding),
        answerer or LLMToGAnswerer(model, fallback=offline_answerer, structured_output=structured_output, grounding=grounding,
                                   chain_scorer=offline_relations.scorer, kg=kg,
                                   offline_verifier=offline_verifier),
        True,
    )
