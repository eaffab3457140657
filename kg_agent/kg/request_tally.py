"""Requests to a remote knowledge graph counted per piece of work (a graph node, hence a question).

An endpoint store counts every request it sends in the process-wide :meth:`KnowledgeGraph.request_count`
and also in the innermost :func:`tally_requests` block of the current context, so questions answered
concurrently in other threads or tasks over the same KG do not count each other's requests.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class RequestTally:
    """The requests sent inside one :func:`tally_requests` block."""

    requests: int = 0


_CURRENT: ContextVar[RequestTally | None] = ContextVar("kg_agent_request_tally", default=None)


@contextmanager
def tally_requests() -> Iterator[RequestTally]:
    """Count the KG requests sent by this context (threads and tasks it starts copy the context) until exit."""
    tally = RequestTally()
    token = _CURRENT.set(tally)
    try:
        yield tally
    finally:
        _CURRENT.reset(token)


def note_request() -> None:
    """Called by a store for each request it sends."""
    tally = _CURRENT.get()
    if tally is not None:
        tally.requests += 1
