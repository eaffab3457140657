"""The things a passive verb is said of, when the walk went one hop past them to the thing that carries the date.

"Which of [X]'s manuscripts **were reviewed** after May 2025?", "which of [X]'s questions **was answered** last?":
the question asks for manuscripts (questions), and the verb names a relation between two things of one kind, a review
``reviews`` its manuscript, an answer ``answers_to`` its question. The date of the reviewing is the review's, so a
walk that compares in time goes one hop further, ``[X] -> ^author -> manuscript -> ^reviews -> review``, and the
comparison keeps the reviews whose date meets the condition. The asked things are the ones the passive verb is said
of: the grammatical subject of "were reviewed" is the object of ``reviews``, the thing the walk's last hop comes from.

:func:`passive_objects` steps back over that hop, after the comparison, when all of these hold, read from English
grammar and the KG only:

* the question compares in time and asks for a thing ("which / what ...", not "when" or "how"), and the comparison's
  verb (:attr:`~kg_agent.tools.shared.aggregates.Comparison.verb`) is passive: a form of "be" right before it;
* every answer kept is reached by a walk whose last hop is a relation entered backwards (``^reviews``: the answer is
  its subject, the thing before is its object) that the verb names (the project's relation scorer,
  :meth:`~kg_agent.tools.shared.path_scoring.RelationPathScorer.named_hops`: "reviewed" names ``reviews``);
* the thing before is a named thing, not the one the walk starts from (the question's own entity), and it shares a
  class with the answer: the verb relates two things of one kind (document to document), so the other end is what
  the question's noun asks for, not something of another kind the verb happens to reach.

Otherwise the answers stand as they are. No word list: "be" and its forms are English's
(:data:`~kg_agent.text.BE_WORDS`), the relation is the KG's own, named by its own words.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import base_relation, is_inverse
from kg_agent.text import BE_NONFINITE, BE_WORDS
from kg_agent.text import words as text_words
from kg_agent.tools.shared.aggregates import asked_comparison, asks_a_value, asks_time, walk_starts
from kg_agent.tools.shared.path_scoring import RelationPathScorer

#: The warning said when the answers are the things the passive verb is said of.
PASSIVE_OBJECTS = ("the things the question's passive verb is said of, one hop before the things that carry the "
                   "compared date")
#: Answers read; more are left as they are.
MAX_ANSWERS = 200


def passive_objects(question: str, answers: Sequence[dict], kg: KnowledgeGraph | None,
                    scorer: RelationPathScorer) -> list[dict] | None:
    """The things the question's passive verb is said of, in place of the answers one hop past them (module
    docstring), each once, in the answers' order; None when the rule does not hold (the answers then stand)."""
    if kg is None or not answers or len(answers) > MAX_ANSWERS or asks_a_value(question):
        return None
    asked = asked_comparison(question, walk_starts(answers))
    if asked is None or not asks_time(asked) or not asked.verb or not passive_verb(question, asked.verb):
        return None
    steps = [_last_step(a) for a in answers]
    if any(s is None for s in steps):
        return None
    relations = sorted({base_relation(s["relation"]) for s in steps if s is not None})
    try:
        if set(relations) - scorer.named_hops(asked.verb, relations, kg=kg):
            return None
        ids = [str(a["entity_id"]) for a in answers] + [str(s["head"]["id"]) for s in steps if s is not None]
        classes = kg.classes_of(ids)
    except KGError:
        return None
    found: dict[str, dict] = {}
    for answer, step in zip(answers, steps):
        assert step is not None
        head = step["head"]
        if not set(classes.get(str(answer["entity_id"])) or ()) & set(classes.get(str(head["id"])) or ()):
            return None  # not two things of one kind
        paths = [{**p, "steps": p["steps"][:-1]} for p in answer.get("paths") or ()
                 if len(p.get("steps") or ()) > 1 and p["steps"][-1]["head"].get("id") == head["id"]]
        found.setdefault(str(head["id"]), {**{k: v for k, v in answer.items() if k not in ("compared", "compared_by")},
                                           "answer": head.get("label") or answer["answer"],
                                           "entity_id": head["id"], "paths": paths})
    return list(found.values())


def passive_verb(question: str, verb: str) -> bool:
    """Whether ``verb`` follows a form of "be" in the question ("were answered", "was reviewed", "been answered")."""
    said = text_words(question)
    return any(w == verb and i > 0 and said[i - 1] in BE_WORDS | BE_NONFINITE for i, w in enumerate(said))


def _last_step(answer: dict) -> dict | None:
    """The last step of a walk to the answer when it is a relation entered backwards from a named thing that is not
    the walk's start and the walk has a step before it; None otherwise."""
    key = answer.get("entity_id")
    if not key or str(key).startswith(('"', "_:")):
        return None
    for path in answer.get("paths") or ():
        steps: list[dict] = path.get("steps") or []
        if len(steps) < 2 or steps[-1].get("tail", {}).get("id") != key:
            continue
        last = steps[-1]
        head = last.get("head") or {}
        if not is_inverse(last["relation"]) or not head.get("label") or str(head.get("id", "")).startswith(('"', "_:")):
            continue
        if head.get("id") == steps[0]["head"].get("id"):
            continue
        return last
    return None
