"""RoG's plans that stop inside a fact give way to the next plan the question asks for (issue 46).

A KG that joins things through statement nodes with IRIs of their own (``[activity] -had_participation->
[participation] -had_participant_person-> [person]``, the participation named nowhere) lets a one-hop plan from a
person stop at the statement nodes: ``^had_participant_person`` reaches only participations, steps inside facts,
never answers (:func:`~kg_agent.tools.shared.answer_checks.statement_ends`). When no other walk steps on through them
(:func:`~kg_agent.tools.shared.answer_checks.walks_to_named`), such a plan answers nothing: its walks leave, and the
plans that reach named things answer ("who asked questions together with [X]": ``^creator -> creator``) -- but only
plans the relation-path scorer found the question asks for (a positive score; RoG's answerer keeps only the best
plan when its score is not positive, :class:`~kg_agent.tools.rog.answer.VoteAnswerer`), so that a question the KG
answers only through the statements still abstains, saying why, instead of taking a plan no word of it names
(``type``, whose classes are no answer to "who ... together with [X]" either). The shape is read from the data
(nameless IRIs with facts of their own, :class:`~kg_agent.kg.nameless.Nameless`); nothing names a data set's
relations. RoG's answer step leaves a count's plans as they are: "how many performances were given at [X]" counts
the statement nodes themselves (:func:`~kg_agent.tools.shared.answer_checks.counted_statements`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from kg_agent.kg.walks import Walk


def without_plans_of_statements(walks: Sequence[dict], statements: set[str], plans: Sequence[dict],
                                class_relations: Collection[str] = ()) -> list[dict]:
    """The walks without those of a plan every walk of which ends at one of ``statements``, when another plan with a
    positive score (``plans``: RoG's, best first, each with its ``score``) reaches a named thing over a last relation
    that is no class predicate (``class_relations``: ``type``; a class is a kind of thing, not one the walk was after);
    all of them otherwise (module docstring)."""
    by_plan: dict[int, list[dict]] = {}
    for walk in walks:
        if isinstance(walk.get("plan"), int) and walk.get("steps"):
            by_plan.setdefault(walk["plan"], []).append(walk)
    stopped = {plan for plan, found in by_plan.items() if all(Walk.end_of(w)["id"] in statements for w in found)}

    def asked(plan: int) -> bool:
        if by_plan[plan][0]["steps"][-1].get("relation") in class_relations:
            return False
        score = plans[plan].get("score") if 0 <= plan < len(plans) and isinstance(plans[plan], dict) else None
        return isinstance(score, (int, float)) and score > 0

    answering = [plan for plan in by_plan if plan not in stopped and asked(plan)]
    if not stopped or not answering:
        return list(walks)
    return [w for w in walks if w.get("plan") not in stopped]
