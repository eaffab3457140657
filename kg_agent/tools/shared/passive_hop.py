"""The hop a passive verb names, walked on from answers whose own dates meet no condition of the question.

"Which questions asked by [X] **were answered** in March 2022?", "which of [X]'s manuscripts **were reviewed** after
May 2025?": the walk reaches the right things (the questions, the manuscripts), but the date of the answering is not
theirs: it is the answer's, the thing the verb relates them to (an answer ``answers_to`` its question). Compared over
their own dates (the asking, the submission), none meets the condition and the check would abstain.
:mod:`~kg_agent.tools.shared.passive_objects` steps back from the answer to the question when the walk went that hop;
this module walks the hop when the walk stopped before it.

:func:`passive_hop_ends` gives, for each answer, the things one hop on over a relation entered backwards that the
question's passive verb names (the answer is its object, as the grammatical subject of a passive verb is the object
of the active one), each record's walks extended by that step, when all of these hold (read from English grammar and
the KG only):

* the question compares in time and asks for a thing, and its comparison's verb is passive (a form of "be" right
  before it): the rule :func:`~kg_agent.tools.shared.passive_objects.passive_objects` reads;
* the answers are named things, and the relation is one the verb names
  (:meth:`~kg_agent.tools.shared.path_scoring.RelationPathScorer.named_hops`: "answered" names ``answers_to``);
* the thing one hop on shares a class with the answer: the verb relates two things of one kind (document to
  document), as :mod:`~kg_agent.tools.shared.passive_objects` asks, so the hop is the verb's event, not something
  else the verb happens to name.

The caller compares over those ends and, when some meet the condition, steps back to the things the verb is said of
(:func:`~kg_agent.tools.shared.passive_objects.passive_objects`). No word list: the relation is the KG's own, named by
its own words.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import base_relation, is_inverse
from kg_agent.tools.shared.aggregates import asked_comparison, asks_a_value, asks_time, walk_starts
from kg_agent.tools.shared.passive_objects import MAX_ANSWERS, passive_verb
from kg_agent.tools.shared.path_scoring import RelationPathScorer

#: The most things one hop on read per answer (the events of one thing: its answers, its reviews).
MAX_EVENTS = 20


def passive_hop_ends(question: str, answers: Sequence[dict], kg: KnowledgeGraph | None,
                     scorer: RelationPathScorer) -> list[dict] | None:
    """The things one hop on from the answers over a relation the question's passive verb names, entered backwards
    (module docstring), each an answer record whose walks end with that step; None when the rule does not hold."""
    if kg is None or not answers or len(answers) > MAX_ANSWERS or asks_a_value(question):
        return None
    asked = asked_comparison(question, walk_starts(answers))
    if asked is None or not asks_time(asked) or not asked.verb or not passive_verb(question, asked.verb):
        return None
    ids = [str(a.get("entity_id") or "") for a in answers]
    if any(not i or i.startswith(('"', "_:")) for i in ids):
        return None
    try:
        edges = {i: kg.edges(i) for i in dict.fromkeys(ids)}
        backwards = sorted({r for e in edges.values() for r in e if is_inverse(r)})
        named = {r for r in backwards if base_relation(r) in scorer.named_hops(asked.verb, [base_relation(r)], kg=kg)}
        if not named:
            return None
        ends = {i: [t for r in sorted(named) for t in list(edges[i].get(r) or ())[:MAX_EVENTS]] for i in edges}
        classes = kg.classes_of(list(dict.fromkeys([*ids, *(t for ts in ends.values() for t in ts)])))
    except KGError:
        return None
    found: list[dict] = []
    for answer in answers:
        key = str(answer["entity_id"])
        own = set(classes.get(key) or ())
        for relation in sorted(named):
            for tail in list(edges[key].get(relation) or ())[:MAX_EVENTS]:
                if tail.startswith(('"', "_:")) or not own & set(classes.get(tail) or ()):
                    continue
                label = kg.label(tail) or ""
                if not label:
                    continue
                step = {"head": {"id": key, "label": answer.get("answer") or ""}, "relation": relation,
                        "tail": {"id": tail, "label": label}}
                paths = [{**p, "steps": [*(p.get("steps") or ()), step]} for p in answer.get("paths") or ()
                         if (p.get("steps") or [{}])[-1].get("tail", {}).get("id") == key]
                found.append({**{k: v for k, v in answer.items() if k not in ("compared", "compared_by")},
                              "answer": label, "entity_id": tail, "paths": paths})
    return found or None

