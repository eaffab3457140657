"""A wall-clock deadline for the knowledge-graph reads of one call: a read still going when it passes stops.

A Python thread cannot be killed, so a call its caller stopped (an MCP tool call past ``--tool-timeout``) would read
on to its end. Inside :func:`reads_until`, the backends' long reads check the deadline as they go (Oxigraph: every
row of a query and every edge of a neighbourhood read) and raise :class:`ReadStopped` once it has passed, so the
work ends within a row of it. The deadline is a context variable: it follows the call into LangGraph's and anyio's
worker threads, which copy the context.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from kg_agent.kg.errors import KGQueryError

_deadline: ContextVar[float | None] = ContextVar("kg_read_deadline", default=None)


class ReadStopped(KGQueryError):
    """A knowledge-graph read was stopped at its caller's deadline."""


@contextmanager
def reads_until(deadline: float | None) -> Iterator[None]:
    """Knowledge-graph reads inside the block stop at ``deadline`` (``time.monotonic()`` seconds; ``None``: never)."""
    token = _deadline.set(deadline)
    try:
        yield
    finally:
        _deadline.reset(token)


def read_deadline() -> float | None:
    """The deadline of the reads of the current context (``time.monotonic()`` seconds), if any."""
    return _deadline.get()


def check_deadline(deadline: float | None, what: str) -> None:
    """Raise :class:`ReadStopped` if ``deadline`` (from :func:`read_deadline`) has passed."""
    if deadline is not None and time.monotonic() > deadline:
        raise ReadStopped(f"{what}: stopped at the call's deadline")
