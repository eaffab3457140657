"""RoG's two instruction-tuning sets, built from question/answer data and a KG.

* planning: the planning prompt -> one ``<PATH> r1 <SEP> r2 </PATH>`` per relation path of Q(z)
  (the relation paths of the shortest KG paths from the question's entities to its answers);
* reasoning: the reasoning prompt with the paths retrieved along Q(z) -> the answers, one per line.

Users fine-tune their own planner / reasoner on these (RoG, Section 4.3 and Appendix A.9 prompts).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.linking import link_entities
from kg_agent.kg.paths import retrieve_paths, shortest_relation_paths
from kg_agent.kg.types import relation_path_text
from kg_agent.tools.rog.answer import REASONING_PROMPT
from kg_agent.tools.shared.link import resolve_given_entities

#: RoG's planning prompt as used for fine-tuning (no relation list: the tuned model learns the KG's relations).
RoG_PLANNING_PROMPT = "Please generate a valid relation path that can be helpful for answering the following question: {question}"


@dataclass
class ExportReport:
    questions: int = 0
    planning_examples: int = 0
    reasoning_examples: int = 0
    skipped: int = 0

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def export_rog_training_data(
    questions: Iterable,
    out_dir: str | Path,
    *,
    kg: KnowledgeGraph | None = None,
    kg_for_question: Callable[[object], KnowledgeGraph] | None = None,
    max_hops: int = 3,
    max_paths_per_example: int = 50,
) -> ExportReport:
    """Write ``planning.jsonl`` and ``reasoning.jsonl`` under ``out_dir``.

    ``questions`` are :class:`kg_agent.eval.datasets.Question` objects (question, answers,
    topic_entities). Questions whose entities or answers are not in the KG, or with no relation path
    between them within ``max_hops``, are skipped and counted.
    """
    if (kg is None) == (kg_for_question is None):
        raise ValueError("pass exactly one of kg= or kg_for_question=")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report = ExportReport()
    with (out / "planning.jsonl").open("w", encoding="utf-8") as planning, \
            (out / "reasoning.jsonl").open("w", encoding="utf-8") as reasoning:
        for q in questions:
            report.questions += 1
            graph = kg if kg is not None else kg_for_question(q)
            if q.topic_entities:
                starts, _ = resolve_given_entities(graph, list(q.topic_entities))
            else:
                starts = link_entities(graph, q.question).entities
            answers, _ = resolve_given_entities(graph, list(q.answers))
            relation_paths = shortest_relation_paths(graph, [e.id for e in starts], [e.id for e in answers], max_hops=max_hops)
            if not relation_paths:
                report.skipped += 1
                continue
            for relations in relation_paths:
                planning.write(json.dumps({"id": q.id, "instruction": RoG_PLANNING_PROMPT.format(question=q.question),
                                           "output": relation_path_text(relations)}, ensure_ascii=False) + "\n")
                report.planning_examples += 1
            texts: list[str] = []
            for relations in relation_paths:
                texts.extend(p.text() for p in retrieve_paths(graph, [e.id for e in starts], relations).paths
                             if p.end.id in {a.id for a in answers})
            texts = list(dict.fromkeys(texts))[:max_paths_per_example]
            reasoning.write(json.dumps({"id": q.id, "instruction": REASONING_PROMPT.format(paths="\n".join(texts), question=q.question),
                                        "output": "\n".join(q.answers)}, ensure_ascii=False) + "\n")
            report.reasoning_examples += 1
    return report
