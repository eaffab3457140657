"""Who runs when: the MCP server's two pools of worker slots (cheap lookups, heavy calls) and each client's share of
them (:class:`CallScheduler`), a client being the authenticated token, else the connection (:func:`client_key`)."""

from collections.abc import Hashable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, Literal

import anyio

#: Heavy calls (``retrieve_paths``, ``ask``, the KG summary) running at once, all clients together; more wait their turn.
MAX_CONCURRENT_CALLS = 4


#: Lookups (``search_entities``, ``entity_relations``, ``neighbours``) running at once, apart from the heavy calls.
MAX_CONCURRENT_LOOKUPS = 4


#: Slots of each pool one client (:func:`client_key`) holds at once over HTTP; its further calls wait in its own queue.
MAX_CLIENT_CALLS = 2


#: The pool a tool call runs in: ``lookup`` (cheap, bounded by a ``limit``) or ``heavy`` (path walks, methods).
CallKind = Literal["lookup", "heavy"]


def client_key(ctx: Any) -> Hashable | None:
    """Who a tool call comes from, for :class:`CallScheduler`: the authenticated client (its bearer token's
    principal) when the server requires a token; else the connection: the ``Mcp-Session-Id`` of a handshake-era
    (2025-11-25 and earlier) streamable-HTTP session, or the HTTP connection (the client's address and port) of a
    2026-07-28 request, which carries no session. ``None`` over stdio (one client) and outside a request.
    ``ctx`` is the SDK's ``Context`` of the call (``None``: none)."""
    from mcp.server.mcpserver import authenticated_principal

    if ctx is None:
        return None
    try:
        request_context = ctx.request_context
    except ValueError:  # a Context outside a request
        return None
    principal = authenticated_principal(request_context)
    if principal is not None:
        return ("client", principal)
    request = request_context.request  # the HTTP request (Starlette's); None over stdio
    if request is None:
        return None
    session = request.headers.get("mcp-session-id")
    if session:
        return ("session", session)
    return ("connection", request.client.host, request.client.port) if request.client else None


class CallScheduler:
    """Who runs when (see the module docstring): a pool of worker slots per :data:`CallKind`, and in each pool
    at most ``client_calls`` slots per client (:func:`client_key`; ``None``: no per-client cap, for stdio's single
    client). A client's calls beyond its share wait on its own limiter, first come first served, holding no pool
    slot; a client's limiters are dropped when it has no call running or waiting."""

    def __init__(self, *, client_calls: int | None = MAX_CLIENT_CALLS) -> None:
        if client_calls is not None and client_calls < 1:
            raise ValueError(f"client_calls must be at least 1, not {client_calls!r}")
        self.pools: dict[str, anyio.CapacityLimiter] = {"lookup": anyio.CapacityLimiter(MAX_CONCURRENT_LOOKUPS),
                                                         "heavy": anyio.CapacityLimiter(MAX_CONCURRENT_CALLS)}
        self.client_calls = client_calls
        self._clients: dict[tuple[Hashable | None, str], anyio.CapacityLimiter] = {}

    @asynccontextmanager
    async def slot(self, client: Hashable | None, kind: CallKind):
        """Hold a slot of the ``kind`` pool for ``client``: first the client's turn, then a free slot. ``client``
        ``None``: a call from no known client (all such calls share one limiter)."""
        async with AsyncExitStack() as held:
            if self.client_calls is not None:
                key = (client, kind)
                own = self._clients.get(key)
                if own is None:
                    own = self._clients[key] = anyio.CapacityLimiter(self.client_calls)
                held.callback(self._forget_if_idle, key, own)
                await held.enter_async_context(own)
            await held.enter_async_context(self.pools[kind])
            yield

    def _forget_if_idle(self, key: tuple[Hashable | None, str], limiter: anyio.CapacityLimiter) -> None:
        """Drop a client's limiter once none of its calls runs or waits (connections come and go)."""
        if limiter.borrowed_tokens == 0 and limiter.statistics().tasks_waiting == 0 and self._clients.get(key) is limiter:
            del self._clients[key]

    def busy_reason(self, kind: CallKind) -> str:
        """Why a call of ``kind`` can wait: the caps, in words."""
        total = self.pools[kind].total_tokens
        if self.client_calls is None:
            return f"the server runs at most {total:g} such calls at once"
        return f"a client runs at most {self.client_calls} such calls at once, the server {total:g}"
