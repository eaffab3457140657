""""How many <unit> <adjective>" asks for a measure, not a count: never answer it by counting things.

English asks for one thing's measure in its unit by "how many" and a measure adjective after the unit ("how many
**pages long** is [X]", "how many **years old** was [X]", "how many **metres tall** is [X]":
:data:`~kg_agent.text.UNIT_MEASURE_ADJECTIVES`, then an auxiliary). The answer is a number the KG states of the
thing (a page count, a length, an age). When the walks reached things instead (the documents answering [X], its
creators), counting them says how many things there are, not how long [X] is: the method abstains, saying the KG
gives no such number on the walks. Answered by numbers (a duration for "how many seconds long"), nothing is judged
here. English grammar only; no word of a domain.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kg_agent.text import AUXILIARIES, UNIT_MEASURE_ADJECTIVES

_UNIT_MEASURE = re.compile(r"\bhow\s+many\s+([a-z]+)\s+(" + "|".join(sorted(UNIT_MEASURE_ADJECTIVES)) + r")\s+("
                           + "|".join(sorted(AUXILIARIES)) + r")\b", re.IGNORECASE)


def unit_measure(question: str) -> str:
    """The unit and adjective of "how many <unit> <adjective> <auxiliary> ..." ("pages long" for "how many pages long
    is [X]"), or "" when the question asks for no measure so."""
    match = _UNIT_MEASURE.search(question)
    return f"{match.group(1).lower()} {match.group(2).lower()}" if match else ""


def counted_for_a_measure(question: str, answers: Sequence[dict]) -> tuple[list[dict], str] | None:
    """No answer and why, when the question asks for a measure by its unit (:func:`unit_measure`) and the answers
    are things to count; None otherwise (no such question, or no answers)."""
    measure = unit_measure(question)
    if not measure or not answers:
        return None
    shown = ", ".join(repr(str(a.get("answer")))[:60] for a in answers[:3])
    return [], (f"the question asks for a measure ('{measure}'), a number the knowledge graph states of one thing; "
                f"the walks reach things ({shown}), and counting them measures nothing")
