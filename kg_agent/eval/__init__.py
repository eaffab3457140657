"""Evaluation datasets and metrics for KGQA benchmarks (MetaQA, WebQSP/CWQ in RoG format, 2Wiki), and
synthetic KGs of any size with gold-answered questions (:mod:`kg_agent.eval.synthetic`).

Self-contained: imports no other kg_agent subpackage (the modules not imported here, ``runner`` and
``synthetic``, use :mod:`kg_agent.kg`).
"""

from kg_agent.eval.datasets import (
    DATASET_KINDS,
    DatasetFormatError,
    Question,
    load_dataset,
    load_jsonl,
    load_metaqa,
    load_rog_jsonl,
    load_twowiki,
    read_line_indices,
    sample_questions,
    split_lines,
)
from kg_agent.eval.metrics import (
    aggregate,
    exact_match,
    hits_at_1,
    normalize_answer,
    precision_recall_f1,
    rog_eval_acc,
    rog_eval_f1,
    rog_eval_hit,
    rog_extract_topk_prediction,
    rog_match,
    rog_normalize,
    rog_scores,
    score_question,
    strict_scores,
    tog_clean_results,
    tog_exact_match,
    tog_scores,
)

__all__ = [
    "DATASET_KINDS",
    "DatasetFormatError",
    "Question",
    "aggregate",
    "exact_match",
    "hits_at_1",
    "load_dataset",
    "load_jsonl",
    "load_metaqa",
    "load_rog_jsonl",
    "load_twowiki",
    "normalize_answer",
    "precision_recall_f1",
    "read_line_indices",
    "rog_eval_acc",
    "rog_eval_f1",
    "rog_eval_hit",
    "rog_extract_topk_prediction",
    "rog_match",
    "rog_normalize",
    "rog_scores",
    "sample_questions",
    "score_question",
    "split_lines",
    "strict_scores",
    "tog_clean_results",
    "tog_exact_match",
    "tog_scores",
]
