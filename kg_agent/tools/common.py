"""Helpers every node uses to build its state update (kept below the graphs layer, so tools can import them)."""

from __future__ import annotations

from typing import Iterable

from kg_agent.llm.usage import merge_usage


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
