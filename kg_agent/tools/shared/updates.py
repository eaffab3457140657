"""Helpers every node uses to build its state update (kept below the graphs layer, so tools can import them)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kg_agent.llm.usage import merge_usage


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


def answer_update(state: dict, outcome: Any, stop: str = "") -> dict:
    """An answer step's update from its answerer's ``outcome`` (``answers``, ``output``, ``stop_reason``, ``warnings``,
    ``usage``): the stop reason is the outcome's, else ``stop``, else ``answered`` / ``no_answer``; emits the
    ``answer`` stream event."""
    stop = outcome.stop_reason or stop or ("answered" if outcome.answers else "no_answer")
    emit_answers(outcome.answers, stop)
    return {
        "answers": outcome.answers,
        "output": outcome.output,
        "stop_reason": stop,
        "warnings": add_warnings(state, outcome.warnings),
        "usage": add_usage(state, outcome.usage),
    }


def add_warnings(state: dict, *messages: str | Iterable[str]) -> list[str]:
    """The state's warnings with new ones appended (for a node's return value)."""
    out = list(state.get("warnings") or [])
    for message in messages:
        if isinstance(message, str):
            out.append(message)
        else:
            out.extend(message)
    return out


def add_usage(state: dict, delta: dict | None) -> dict:
    """The state's LLM usage plus one node's usage (for a node's return value)."""
    return merge_usage(state.get("usage") or {}, delta or {})


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
