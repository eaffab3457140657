"""The four decisions of ToG-2 (topic prune, clue query, relation prune, examine), chosen once: LLM ones (each
falling back to its offline twin) when a model is given, else offline."""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.settings import DEFAULT_GROUNDING, Grounding, StructuredMode
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


def make_tog2_deciders(
    kg: KnowledgeGraph,
    *,
    model: BaseChatModel | None = None,
    topic_pruner: TopicPruner | None = None,
    clue_writer: ClueWriter | None = None,
    relation_pruner: CombinedRelationPruner | None = None,
    examiner: Examiner | None = None,
    embeddings: Embeddings | None = None,
    structured_output: StructuredMode = "auto",
    grounding: Grounding = DEFAULT_GROUNDING,
) -> ToG2Deciders:
    """The deciders; one given explicitly is used as is (``structured_output``: the LLM deciders' mode, see
    :func:`~kg_agent.tools.shared.decider.structured_mode`; ``grounding``: the LLM examiner's grounding policy)."""
    chat_model = model
    offline_topic = SimilarityTopicPruner(kg, embeddings=embeddings)
    offline_clue = TemplateClueWriter(kg, embeddings=embeddings)
    offline_relation = SimilarityCombinedRelationPruner(kg=kg, embeddings=embeddings)
    offline_examiner = ExtractiveExaminer(kg, embeddings=embeddings)
    if chat_model is not None:
        topic_pruner = topic_pruner or LLMTopicPruner(kg, chat_model, fallback=offline_topic, structured_output=structured_output)
        clue_writer = clue_writer or LLMClueWriter(chat_model, fallback=offline_clue, structured_output=structured_output)
        relation_pruner = relation_pruner or LLMCombinedRelationPruner(chat_model, fallback=offline_relation,
                                                                       structured_output=structured_output)
        examiner = examiner or LLMExaminer(chat_model, fallback=offline_examiner, structured_output=structured_output,
                                           grounding=grounding)
    topic_pruner = topic_pruner or offline_topic
    clue_writer = clue_writer or offline_clue
    relation_pruner = relation_pruner or offline_relation
    examiner = examiner or offline_examiner
    return ToG2Deciders(topic_pruner, clue_writer, relation_pruner, examiner)
