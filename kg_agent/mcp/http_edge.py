"""The MCP server's streamable-HTTP edge (:func:`http_app`, :func:`serve_http`): the SDK's app behind a UTF-8 check
of request bodies, with DNS-rebinding protection on loopback and the SDK's closed-session tracebacks as INFO lines."""

import logging

import anyio

from kg_agent.mcp.access import is_loopback, loopback_security


class Utf8RequestBody:
    """ASGI middleware in front of the SDK's streamable-HTTP app: a POST body that is not UTF-8 gets HTTP 400 with a
    JSON-RPC parse error saying so and where (SDK 2 answers 400 too, but with a bare "Parse error" on 2026-07-28 and
    its JSON parser's words on the handshake era; SDK 1 answered 500). The body is read once and handed on
    unchanged; one over ``max_body_size`` bytes is handed on unchecked, for the SDK's own 413."""

    def __init__(self, app, *, max_body_size: int) -> None:
        self.app = app
        self.max_body_size = max_body_size

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        received: list[dict] = []
        size, complete = 0, False
        while size <= self.max_body_size and not complete:
            message = await receive()
            received.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            complete = not message.get("more_body", False)
        if complete and size <= self.max_body_size:
            body = b"".join(message.get("body", b"") for message in received)
            try:
                body.decode("utf-8")
            except UnicodeDecodeError as exc:
                from starlette.responses import JSONResponse

                reason = (f"Parse error: the request body is not valid UTF-8 (byte 0x{body[exc.start]:02x} at offset "
                          f"{exc.start}); send JSON encoded as UTF-8")
                refusal = JSONResponse({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": reason}},
                                       status_code=400)
                await refusal(scope, receive, send)
                return

        async def replay():
            return received.pop(0) if received else await receive()

        await self.app(scope, replay, send)


class ClosedSessionLog(logging.Filter):
    """For the SDK's ``mcp.server.streamable_http`` logger: its ERROR with a traceback when a client has closed its
    session's event stream ("Error in standalone SSE writer" with ``ClosedResourceError`` or
    ``BrokenResourceError``) becomes one INFO line, kept only when INFO is logged. Every other record passes as it is."""

    MESSAGE = "Error in standalone SSE writer"

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if record.msg != self.MESSAGE or not isinstance(error, anyio.ClosedResourceError | anyio.BrokenResourceError):
            return True
        record.levelno, record.levelname = logging.INFO, logging.getLevelName(logging.INFO)
        record.msg, record.args = "an MCP client closed its session's event stream", ()
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return logging.getLogger(record.name).isEnabledFor(logging.INFO)


def quiet_closed_sessions() -> None:
    """Put :class:`ClosedSessionLog` on the SDK's streamable-HTTP logger (once)."""
    logger = logging.getLogger("mcp.server.streamable_http")
    if not any(isinstance(f, ClosedSessionLog) for f in logger.filters):
        logger.addFilter(ClosedSessionLog())


def http_app(server, host: str = "127.0.0.1"):
    """``server``'s streamable-HTTP ASGI app (the SDK's Starlette app, ``/mcp``, both protocol eras) for listening on
    ``host``, behind :class:`Utf8RequestBody`, with the SDK's closed-session tracebacks turned into INFO lines
    (:class:`ClosedSessionLog`) and, on a loopback ``host``, DNS-rebinding protection (:func:`loopback_security`)."""
    from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

    quiet_closed_sessions()
    app = server.streamable_http_app(host=host, max_request_body_size=DEFAULT_MAX_REQUEST_BODY_SIZE,
                                     transport_security=loopback_security(host) if is_loopback(host) else None)
    return Utf8RequestBody(app, max_body_size=DEFAULT_MAX_REQUEST_BODY_SIZE)


async def serve_http(server, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve :func:`http_app` with uvicorn at ``host`` and ``port``, as ``MCPServer.run("streamable-http")`` does."""
    import uvicorn

    config = uvicorn.Config(http_app(server, host), host=host, port=port, log_level=server.settings.log_level.lower())
    await uvicorn.Server(config).serve()
