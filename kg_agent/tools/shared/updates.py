"""Helpers every node uses to build its state update (kept below the graphs layer, so tools can import them).

**Reducers.** A node returns only what it adds to the turn's ``warnings`` (its own, in order) and ``usage`` (its own
calls); the state's fields merge them (:data:`REDUCERS`: ``warnings`` by :func:`append_warnings`, ``usage`` by
:func:`~kg_agent.llm.usage.merge_usage`, ``messages`` by LangGraph's ``add_messages``). The first node of a turn
(``link``) starts them afresh with LangGraph's ``Overwrite``, so a thread kept by a checkpointer does not carry
the last turn's warnings along. A node function called directly, outside a graph, gives its update to
:func:`apply_update`, which merges it into a state dict exactly as the graph does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from langgraph.graph.message import add_messages
from langgraph.types import Overwrite

from kg_agent.llm.usage import merge_usage
from kg_agent.settings import WhenUnsupported
from kg_agent.tools.shared.answer_checks import ABSTAINED, final_answers, unsupported_policy
from kg_agent.tools.shared.data_description import answer_about_the_data
from kg_agent.tools.shared.dated_members import answer_dated_members
from kg_agent.tools.shared.literal_anchor import anchor_of_topics, anchored_answers
from kg_agent.tools.shared.literal_filter import literal_filtered
from kg_agent.tools.shared.name_questions import NamesAnswer, answer_from_names
from kg_agent.tools.shared.which_of import which_of_answered
from kg_agent.tools.shared.whole_graph import answer_over_whole_graph


def append_warnings(current: list[str] | None, new: list[str] | None) -> list[str]:
    """The ``warnings`` reducer: the state's warnings, then a node's new ones (in order)."""
    return [*(current or []), *(new or [])]


#: The state fields with a reducer, as :class:`~kg_agent.graphs.state.KGState` declares them.
REDUCERS: dict[str, Callable[[Any, Any], Any]] = {
    "messages": add_messages,
    "warnings": append_warnings,
    "usage": merge_usage,
}


def apply_update(state: Mapping[str, Any], update: Mapping[str, Any]) -> dict:
    """``state`` after a node's ``update``, merged as a method graph merges it: the fields of :data:`REDUCERS` through
    their reducer, an ``Overwrite`` replacing the value, the other fields replaced. For a node function called
    directly (``state = apply_update(state, plan_node(state, planner=...))``)."""
    merged = dict(state)
    for key, value in update.items():
        if isinstance(value, Overwrite):
            merged[key] = value.value
        elif key in REDUCERS:
            merged[key] = REDUCERS[key](merged.get(key) or [], value)  # each reducer reads an empty list as nothing
        else:
            merged[key] = value
    return merged


def combined_updates(first: Mapping[str, Any], then: Mapping[str, Any]) -> dict:
    """One node's update ``first`` with ``then`` added, as one update: a reducer field in both is reduced (and stays
    an ``Overwrite`` when ``first``'s is one, so the first node of a turn still starts it afresh), the others are
    ``then``'s. For what adds to a node's update (the KG requests it sent, ToG-2's start notes)."""
    combined = dict(first)
    for key, value in then.items():
        current = first.get(key)
        if key not in REDUCERS or current is None or isinstance(value, Overwrite):
            combined[key] = value
        elif isinstance(current, Overwrite):
            combined[key] = Overwrite(REDUCERS[key](current.value, value))
        else:
            combined[key] = REDUCERS[key](current, value)
    return combined


def pruned_update(kept: list, stop: str, scored: Mapping[str, Any], **fields: Any) -> dict:
    """A pruning step's update: ``fields``, then its scoring's (``scored``) ``warnings`` and ``usage``; and
    ``stop_reason=stop`` when nothing was ``kept`` (ToG's relation and entity pruning)."""
    update = {**fields, "warnings": scored["warnings"], "usage": scored["usage"]}
    if not kept:
        update["stop_reason"] = stop
    return update


def emit(event: str, **data) -> None:
    """Send a custom stream event ``{"event": event, **data}`` (``stream_mode="custom"``) from a graph node.

    Does nothing outside a LangGraph run (a node function called directly, or from a plain Runnable), and
    LangGraph drops it when the caller does not stream ``"custom"``. ``data`` must be JSON-serialisable.
    """
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except (RuntimeError, KeyError):  # no runnable context / a runnable context that is not a graph run
        return
    writer({"event": event, **data})


EMITTED_ANSWERS = 20  # answers named in the "answer" stream event (all are in the state)


def emit_answers(answers: list[dict], stop_reason: str = "") -> None:
    """The ``answer`` stream event: how many answers, the first few (answer, entity id, grounded, score), why it stopped."""
    keys = ("answer", "entity_id", "grounded", "score")
    emit("answer", count=len(answers), stop_reason=stop_reason,
         answers=[{k: a.get(k) for k in keys} for a in answers[:EMITTED_ANSWERS]])


def whole_graph_update(stop: str, question: str, kg: Any) -> dict | None:
    """The answer step's update for a question from which no entity was linked (``stop`` ``no_topic_entity``) that
    asks about the whole KG ("which author has the most books"), answered by
    :func:`~kg_agent.tools.shared.whole_graph.answer_over_whole_graph` with its evidence on the answers, or about the
    members of a class by a date ("which spacecraft were launched before 1958",
    :func:`~kg_agent.tools.shared.dated_members.answer_dated_members`; when the KG cannot answer that one, no answer
    and the reason); None for any other question (the answerer is asked: no model call is spent on a question
    answered here)."""
    if stop != "no_topic_entity" or kg is None or not question:
        return None
    whole = answer_over_whole_graph(kg, question)
    if whole is not None:
        answers, what = whole
        return _computed_update(answers, f"a question about the whole knowledge graph: {what}")
    dated = answer_dated_members(kg, question)
    if dated is None:
        about = answer_about_the_data(kg, question)
        return None if about is None else _computed_update(about[0], about[1])
    answers, what = dated
    if not answers:
        emit_answers([], ABSTAINED)
        return {"answers": [], "output": "", "stop_reason": ABSTAINED,
                "warnings": [f"answer: abstained: a question about the members of a class by a date: {what}"]}
    return _computed_update(answers, f"a question about the members of a class by a date: {what}")


def anchored_update(question: str, topic_entities: Any, kg: Any, *,
                    when_unsupported: WhenUnsupported = "abstain") -> dict | None:
    """The answer step's update for a question whose topic is the things holding a value the KG writes as a literal
    ("how many spacecraft does the agency Japan have", :mod:`~kg_agent.tools.shared.literal_anchor`): every one of
    them, each grounded by its own fact, counted, ranked or listed by the answer checks; None for any other question."""
    if kg is None or not question or not topic_entities:
        return None
    anchor = anchor_of_topics(kg, topic_entities)
    if anchor is None:
        return None
    checked = final_answers(question, anchored_answers(kg, anchor), kg=kg, policy=unsupported_policy(when_unsupported))
    if not checked.answers:
        stop = checked.stop_reason or ABSTAINED
        emit_answers([], stop)
        return {"answers": [], "output": "", "stop_reason": stop, "warnings": checked.warnings}
    cut = f" (the first {len(anchor.subjects):,} only)" if anchor.cut else ""
    things = "thing" if len(anchor.subjects) == 1 else "things"
    update = _computed_update(checked.answers, f"over the {len(anchor.subjects)} {things} whose {anchor.text}{cut}")
    update["warnings"] = [*update["warnings"], *checked.warnings]
    return update


def which_of_update(question: str, topic_entities: Any, kg: Any) -> dict | None:
    """The answer step's update for "which is <comparative>, A or B", answered by comparing a number the KG gives
    both (:func:`~kg_agent.tools.shared.which_of.which_of_answered`, with its evidence on the answer); None for any
    other question or when the KG gives them no number to compare (the question goes on as any other)."""
    if kg is None or not question or not topic_entities:
        return None
    found = which_of_answered(question, topic_entities, kg)
    if found is None:
        return None
    answers, what = found
    return _computed_update(answers, what)


def _computed_update(answers: list[dict], what: str) -> dict:
    """The answer step's update for ``answers`` computed over the KG (``what``: how, for the warning)."""
    emit_answers(answers, "answered")
    return {"answers": answers, "output": "\n".join(a["answer"] for a in answers), "stop_reason": "answered",
            "warnings": [f"answer: {what}"]}


def names_answered(question: str, topic_entities: Any, kg: Any) -> NamesAnswer | None:
    """What the KG's label and alias literals answer to a question about a linked thing's names ("what is X called in
    German", "X's other names", "in how many languages is X named";
    :func:`~kg_agent.tools.shared.name_questions.answer_from_names`); None for any other question."""
    if kg is None or not question or not topic_entities:
        return None
    return answer_from_names(kg, question, topic_entities)


def names_update(found: NamesAnswer, *, when_unsupported: WhenUnsupported = "abstain",
                 outcome: Any = None) -> dict | None:
    """The answer step's update for a question about names: the names ``found``, the evidence on the answers, or
    the answers of a model's ``outcome`` when it was asked with them as its evidence (checked as any answer, by
    :func:`answer_update`). When the KG has no such name, no answer (``stop_reason`` ``abstained``, the reason in
    ``warnings``), unless the run asks for ``"best_effort"`` (then None: the answerer is asked as for any question)."""
    said = f"answer: a question about names: {found.what}"
    if outcome is not None:
        outcome.warnings = [f"{said}; the model answered from them", *outcome.warnings]
        return answer_update(outcome, question="", when_unsupported=when_unsupported)
    if not found.answers:
        if unsupported_policy(when_unsupported) == "best_effort":
            return None
        emit_answers([], ABSTAINED)
        return {"answers": [], "output": "", "stop_reason": ABSTAINED, "warnings": [f"answer: abstained: {found.what}"]}
    emit_answers(found.answers, "answered")
    return {"answers": found.answers, "output": "\n".join(a["answer"] for a in found.answers), "stop_reason": "answered",
            "warnings": [said]}


def answer_update(outcome: Any, stop: str = "", *, question: str = "", when_unsupported: WhenUnsupported = "abstain",
                  kg: Any = None, as_given: bool = False, max_answers: int | None = None) -> dict:
    """An answer step's update from its answerer's ``outcome`` (``answers``, ``output``, ``stop_reason``, ``warnings``,
    ``usage``), its answers checked against what ``question`` asks for (:func:`~kg_agent.tools.shared.answer_checks.
    final_answers`: no unnamed node, "how many" counted; ``when_unsupported`` is the graph's, a run's context may
    override it): the stop reason is the check's, else the outcome's, else ``stop``, else ``answered`` /
    ``no_answer``; emits the ``answer`` stream event. ``max_answers``: the most answers shown, once the check has
    compared them all (a comparison is over every answer the answerer kept, :data:`~kg_agent.tools.shared.aggregates.
    MAX_COMPARED` at most)."""
    # a model's answers under grounding "off" are kept as given: what the checks would leave out stays, flagged
    # "which airports in London ...": the place is a literal the answers hold, a filter on them
    filtered = None if as_given else literal_filtered(question, outcome.answers, kg)
    checked = final_answers(question, filtered[0] if filtered else outcome.answers, kg=kg,
                            policy="best_effort" if as_given else unsupported_policy(when_unsupported))
    if filtered:
        checked.warnings = [f"answer: {filtered[1]}", *checked.warnings]
    answers = checked.answers
    if max_answers is not None and len(answers) > max_answers:
        checked.warnings = [*checked.warnings, f"answer: more answers than max_answers={max_answers}; kept the first "
                                               f"{max_answers}"]
        answers = answers[:max_answers]
    output = outcome.output
    if answers != outcome.answers and (not outcome.output or outcome.output == "\n".join(a["answer"] for a in outcome.answers)):
        output = "\n".join(a["answer"] for a in answers)  # an offline output: the answers listed
    stop = checked.stop_reason or outcome.stop_reason or stop or ("answered" if answers else "no_answer")
    emit_answers(answers, stop)
    return {
        "answers": answers,
        "output": output,
        "stop_reason": stop,
        "warnings": [*outcome.warnings, *checked.warnings],
        "usage": outcome.usage,
    }


def answer_record(
    answer: str,
    *,
    entity_id: str | None = None,
    score: float = 0.0,
    grounded: bool = True,
    paths: Iterable[dict] = (),
    chunks: Iterable[dict] = (),
    note: str | None = None,
) -> dict:
    """One answer with what supports it: ``grounded`` is False when no retrieved path or chunk supports it."""
    record = {
        "answer": answer,
        "entity_id": entity_id,
        "score": round(float(score), 6),
        "grounded": grounded,
        "paths": list(paths),
    }
    chunks = list(chunks)
    if chunks:
        record["chunks"] = chunks
    if note:
        record["note"] = note
    return record
