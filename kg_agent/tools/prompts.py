"""Every LLM decider's prompt templates by node, and :func:`prompt_node`: which decider wrote a prompt.

A prompt is recognised by its template (every fixed piece of the template occurs in it, in order), not by its
opening words: ToG's verify and answer prompts open alike, and a reworded template still matches itself.
Scripted chat models and the local OpenAI-compatible test server use it to reply per decider.

    >>> from kg_agent.tools.tog.verify import VERIFY_PROMPT
    >>> prompt_node(VERIFY_PROMPT.format(question="who directed [Big]", triplets="Big, directed_by, Penny Marshall"))
    'verify'
"""

from __future__ import annotations

import string
from functools import lru_cache

from kg_agent.tools.rog.answer import EXPLANATION_PROMPT, REASONING_PROMPT
from kg_agent.tools.rog.plan import FEW_SHOT_PLANNING_PROMPT, PLANNING_PROMPT
from kg_agent.tools.tog.answer import ANSWER_PROMPT, NO_TRIPLES_PROMPT
from kg_agent.tools.tog.instructions import INSTRUCTION_PROMPT, INTEGRATE_PROMPT
from kg_agent.tools.tog.prune_entities import ENTITY_PROMPT
from kg_agent.tools.tog.prune_relations import RELATION_PROMPT
from kg_agent.tools.tog.verify import VERIFY_PROMPT
from kg_agent.tools.tog2.clue_query import CLUE_PROMPT
from kg_agent.tools.tog2.examine import EXAMINE_PROMPT
from kg_agent.tools.tog2.prune_relations import RELATION_PRUNE_PROMPT
from kg_agent.tools.tog2.topic_prune import TOPIC_PRUNE_PROMPT

#: (node, method, template) for every LLM decider; RoG's and ToG's answer steps are both node "answer".
DECIDER_PROMPTS: tuple[tuple[str, str, str], ...] = (
    ("plan", "rog", PLANNING_PROMPT),
    ("plan", "rog", FEW_SHOT_PLANNING_PROMPT),
    ("answer", "rog", REASONING_PROMPT),
    ("answer", "rog", EXPLANATION_PROMPT),
    ("prune_relations", "tog", RELATION_PROMPT),
    ("prune_entities", "tog", ENTITY_PROMPT),
    ("verify", "tog", VERIFY_PROMPT),
    ("answer", "tog", ANSWER_PROMPT),
    ("answer", "tog", NO_TRIPLES_PROMPT),
    ("instructions", "tog-i", INSTRUCTION_PROMPT),
    ("integrate", "tog-i", INTEGRATE_PROMPT),
    ("topic_prune", "tog2", TOPIC_PRUNE_PROMPT),
    ("clue_query", "tog2", CLUE_PROMPT),
    ("relation_prune", "tog2", RELATION_PRUNE_PROMPT),
    ("examine", "tog2", EXAMINE_PROMPT),
)


def _fixed_pieces(template: str) -> tuple[str, ...]:
    """The template's literal text between its ``{fields}`` (``{{`` read as ``{``), blank pieces left out."""
    return tuple(literal.strip() for literal, _, _, _ in string.Formatter().parse(template) if literal.strip())


@lru_cache(maxsize=1)
def _signatures() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    return tuple((node, method, _fixed_pieces(template)) for node, method, template in DECIDER_PROMPTS)


def _matches(prompt: str, pieces: tuple[str, ...]) -> bool:
    position = 0
    for piece in pieces:
        found = prompt.find(piece, position)
        if found < 0:
            return False
        position = found + len(piece)
    return True


def prompt_method(prompt: str) -> tuple[str, str] | None:
    """``(node, method)`` of the decider whose template wrote ``prompt`` (the most specific match), or ``None``."""
    best: tuple[int, str, str] | None = None
    for node, method, pieces in _signatures():
        if _matches(prompt, pieces):
            size = sum(len(p) for p in pieces)
            if best is None or size > best[0]:
                best = (size, node, method)
    return (best[1], best[2]) if best else None


def prompt_node(prompt: str) -> str | None:
    """The node whose decider wrote ``prompt`` (``"plan"``, ``"verify"``, ``"relation_prune"``, ...), or ``None``."""
    found = prompt_method(prompt)
    return found[0] if found else None
