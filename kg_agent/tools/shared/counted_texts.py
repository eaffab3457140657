"""A count of texts: "how many <noun>" answered by counting text literals the walks reach, which the noun must name.

A count counts things, or the values of the attribute the question names: "how many exact synonyms does
stop_codon have" counts the texts of ``hasExactSynonym``, which "synonyms" names. Texts of an attribute the counted
noun does not name are no count of it: "how many **grants** did [X] fund in 2016", walked to [X]'s
``fundingBodyType "gov"`` (which the verb "fund" evidences), counts one code, not grants. So when every answer to
count is a text literal (no number or date, no node) and the counted noun ("how many <noun> ...":
:func:`~kg_agent.tools.shared.answer_checks.counted_noun`) names none of the relations the walks last step over (as a
question asking only for it would: :meth:`~kg_agent.tools.shared.path_scoring.RelationPathScorer.named_hops` of "how
many <noun>"), the count abstains, saying so. A question whose noun is not read (none, or a list) is not judged.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.tools.shared.aggregates import literal_value


def _is_text(answer: dict) -> bool:
    key = str(answer.get("entity_id") or "")
    return key.startswith('"') and literal_value(key) is None


def texts_of_an_unnamed_attribute(question: str, answers: Sequence[dict], kg: KnowledgeGraph, scorer, noun: str
                                  ) -> tuple[list[dict], str] | None:
    """For a count (module docstring): ``([], why)`` when every answer is a text that the walks read over relations
    ``noun`` does not name; None otherwise (the count stands)."""
    if not noun or not answers or not all(_is_text(a) for a in answers):
        return None
    last = sorted({path["steps"][-1]["relation"] for a in answers for path in a.get("paths") or ()
                   if path.get("steps")})
    if not last or scorer.named_hops(f"how many {noun}", last, kg=kg):
        return None
    via = ", ".join(repr(r) for r in last)
    return [], (f"the question counts '{noun}', and the walks reach only texts of {via}, which '{noun}' does not "
                f"name")
