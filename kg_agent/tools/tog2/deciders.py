"""The four decisions of ToG-2 (topic prune, clue query, relation prune, examine), chosen once: LLM ones (each
falling back to its offline twin) when a model is given, else offline."""

from __future__ import annotations

from dataclasses import dataclass

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.settings import GraphSettings
from kg_agent.tools.tog2.clue_query import ClueWriter, LLMClueWriter, TemplateClueWriter
from kg_agent.tools.tog2.examine import Examiner, ExtractiveExaminer, LLMExaminer
from kg_agent.tools.tog2.prune_relations import (
    CombinedRelationPruner,
    LLMCombinedRelationPruner,
    SimilarityCombinedRelationPruner,
)
from kg_agent.tools.tog2.topic_prune import LLMTopicPruner, SimilarityTopicPruner, TopicPruner


@dataclass
class ToG2Deciders:
    """ToG-2's four decisions, LLM-backed or offline."""

    topic_pruner: TopicPruner
    clue_writer: ClueWriter
    relation_pruner: CombinedRelationPruner
    examiner: Examiner


def default_deciders(
    kg: KnowledgeGraph,
    settings: GraphSettings | None = None,
    *,
    topic_pruner: TopicPruner | None = None,
    clue_writer: ClueWriter | None = None,
    relation_pruner: CombinedRelationPruner | None = None,
    examiner: Examiner | None = None,
) -> ToG2Deciders:
    """The deciders: LLM ones (each falling back to its offline twin, asking in ``settings.structured_output`` mode;
    the examiner under ``settings.grounding``) when ``settings`` has a model, else offline; one given explicitly is
    used as is."""
    settings = (settings or GraphSettings()).resolved()
    model, embeddings, mode = settings.model, settings.embeddings, settings.structured_output
    offline_topic = SimilarityTopicPruner(kg, embeddings=embeddings)
    offline_clue = TemplateClueWriter(kg, embeddings=embeddings)
    offline_relation = SimilarityCombinedRelationPruner(kg=kg, embeddings=embeddings)
    offline_examiner = ExtractiveExaminer(kg, embeddings=embeddings)
    if model is not None:
        topic_pruner = topic_pruner or LLMTopicPruner(kg, model, fallback=offline_topic, structured_output=mode)
        clue_writer = clue_writer or LLMClueWriter(model, fallback=offline_clue, structured_output=mode)
        relation_pruner = relation_pruner or LLMCombinedRelationPruner(model, fallback=offline_relation,
                                                                       structured_output=mode, kg=kg)
        examiner = examiner or LLMExaminer(model, fallback=offline_examiner, structured_output=mode,
                                           grounding=settings.grounding)
    return ToG2Deciders(topic_pruner or offline_topic, clue_writer or offline_clue, relation_pruner or offline_relation,
                        examiner or offline_examiner)
