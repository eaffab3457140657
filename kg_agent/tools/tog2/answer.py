"""ToG-2's last step: answer from what was explored when the exploration ran dry, and the chat reply."""

from __future__ import annotations

from kg_agent.steps import decide
from kg_agent.tools.shared.grounding import NO_GROUNDED_ANSWER
from kg_agent.tools.shared.link import with_chat_reply
from kg_agent.tools.shared.updates import apply_update, emit_answers
from kg_agent.tools.tog2.examine import Examiner


def answer_steps(state: dict, *, examiner: Examiner, top_l: int):
    """Graph node (as steps): answer from what was explored when the exploration ran dry; add the chat reply."""
    update: dict = {}
    if not state.get("answers") and state.get("stop_reason") in {"no_relations", "no_candidates", "budget"} and state.get("chains"):
        frontier = [c for c in state["chains"] if c.get("depth") == max(x.get("depth", 0) for x in state["chains"])]
        references = (state.get("documents") or [])[:top_l]
        outcome = yield decide(examiner.examine, state["question"], frontier, state["chains"], references, last_round=True)
        update.update(answers=outcome.answers, output=outcome.output or state.get("output", ""),
                      warnings=outcome.warnings, usage=outcome.usage)
        if outcome.sufficient and not outcome.answers:  # grounding="strict" withheld the model's answers
            update["stop_reason"] = NO_GROUNDED_ANSWER
    if not state.get("stop_reason"):
        update["stop_reason"] = "no_answer"
    answered = apply_update(state, update)
    emit_answers(answered.get("answers") or [], answered.get("stop_reason") or "")
    return with_chat_reply(state, update, name="tog2")
