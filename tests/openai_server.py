"""A small, real OpenAI-compatible HTTP server for tests (standard library only).

It listens on ``127.0.0.1`` on a free port and implements what chat clients use:

* ``POST /v1/chat/completions`` - a proper ``chat.completion`` JSON reply (or, with
  ``"stream": true``, server-sent ``chat.completion.chunk`` events ending in ``data: [DONE]``, with
  a final usage chunk when ``stream_options.include_usage`` is set);
* ``GET /v1/models`` - the served model.

Replies come from a ``responder(prompt_text) -> str`` callable or from a queue of ``responses``
(``prompt_text`` is the request's message contents joined by blank lines). Token usage is counted
in whitespace-separated words (``len(text.split())``), on purpose *not* the ``len // 4`` estimate of
:mod:`kg_agent.llm.usage`, so tests can tell server-reported usage from estimates.

Failures on demand, consumed one per request, in order::

    server.fail_next(2, "429", retry_after=0.01)   # rate limited, with Retry-After
    server.fail_next(1, "500")                      # internal server error (with retry-after-ms)
    server.fail_next(1, "timeout", delay=2.0)       # sleep past the client's timeout, then reply
    server.fail_next(1, "truncated")                # Content-Length larger than the body sent
    server.fail_next(1, "non_json")                 # 200 with an HTML body

Every request is recorded in :attr:`OpenAICompatibleServer.requests`.

Usage::

    with OpenAICompatibleServer(responder=lambda prompt: "Tom Hanks") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
"""

from __future__ import annotations

import collections
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAILURE_MODES = ("429", "500", "timeout", "truncated", "non_json")


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    body: dict[str, Any] | None
    raw_body: bytes
    received_at: float = field(default_factory=time.monotonic)

    @property
    def prompt_text(self) -> str:
        return prompt_text_of(self.body or {})


@dataclass(frozen=True)
class Failure:
    mode: str
    retry_after: float = 0.01
    delay: float = 5.0


def prompt_text_of(body: dict[str, Any]) -> str:
    """The request's message contents (string or text parts) joined by blank lines."""
    parts: list[str] = []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.append("".join(p.get("text", "") for p in content if isinstance(p, dict)))
    return "\n\n".join(parts)


def count_words(text: str) -> int:
    return len(text.split())


class OpenAICompatibleServer:
    """A threaded OpenAI-compatible chat server; use as a context manager.

    Args:
        responder: ``prompt_text -> reply``; used when the ``responses`` queue is empty.
        responses: replies returned in order, one per successful request.
        model: model name echoed back when the request names none.
        api_key: when set, requests must carry ``Authorization: Bearer <api_key>`` (else 401).
    """

    def __init__(
        self,
        responder: Callable[[str], str] | None = None,
        responses: Iterable[str] | None = None,
        *,
        model: str = "test-model",
        api_key: str | None = None,
    ) -> None:
        self.responder = responder
        self.model = model
        self.api_key = api_key
        self.requests: list[RecordedRequest] = []
        self._responses: collections.deque[str] = collections.deque(responses or [])
        self._failures: collections.deque[Failure] = collections.deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._httpd: _QuietThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- configuration --------------------------------------------------------------------
    def add_responses(self, *responses: str) -> None:
        with self._lock:
            self._responses.extend(responses)

    def fail_next(self, count: int = 1, mode: str = "500", *, retry_after: float = 0.01, delay: float = 5.0) -> None:
        """Make the next ``count`` chat requests fail with ``mode`` (one of :data:`FAILURE_MODES`)."""
        if mode not in FAILURE_MODES:
            raise ValueError(f"unknown failure mode {mode!r}; expected one of {FAILURE_MODES}")
        with self._lock:
            self._failures.extend(Failure(mode, retry_after, delay) for _ in range(count))

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """What to put in ``OPENAI_BASE_URL``: ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")]

    def start(self) -> "OpenAICompatibleServer":
        handler = type("BoundHandler", (_Handler,), {"server_state": self})
        self._httpd = _QuietThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="openai-test-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in "timeout" mode
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "OpenAICompatibleServer":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- used by the handler -----------------------------------------------------------------
    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_failure(self) -> Failure | None:
        with self._lock:
            return self._failures.popleft() if self._failures else None

    def _reply_for(self, prompt_text: str) -> str:
        with self._lock:
            if self._responses:
                return self._responses.popleft()
        if self.responder is None:
            raise LookupError("no scripted response left and no responder configured")
        return self.responder(prompt_text)

    def _next_id(self) -> str:
        return f"chatcmpl-test{next(self._ids):06d}"


class _QuietThreadingHTTPServer(ThreadingHTTPServer):
    """Does not print tracebacks when a client hangs up early (expected after a client timeout)."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server_state: OpenAICompatibleServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        return

    # -- helpers -----------------------------------------------------------------------------
    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_error(self, status: int, message: str, error_type: str, headers: dict[str, str] | None = None) -> None:
        self._send_json(status, {"error": {"message": message, "type": error_type, "param": None, "code": None}}, headers)

    def _lower_headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _authorized(self) -> bool:
        expected = self.server_state.api_key
        if expected is None:
            return True
        if self.headers.get("Authorization", "") == f"Bearer {expected}":
            return True
        self._send_error(401, "Incorrect API key provided.", "invalid_request_error")
        return False

    # -- routes ------------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        state = self.server_state
        state._record(RecordedRequest("GET", self.path, self._lower_headers(), None, b""))
        if not self._authorized():
            return
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": state.model, "object": "model", "owned_by": "test"}]})
        else:
            self._send_error(404, f"no route for GET {self.path}", "invalid_request_error")

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        state = self.server_state
        raw = self._read_body()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = None
        state._record(RecordedRequest("POST", self.path, self._lower_headers(), body, raw))
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_error(404, f"no route for POST {self.path}", "invalid_request_error")
            return
        if not self._authorized():
            return
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self._send_error(400, "request body must be a JSON object with a 'messages' list", "invalid_request_error")
            return
        failure = state._next_failure()
        if failure is not None and self._fail(failure):
            return
        prompt_text = prompt_text_of(body)
        try:
            reply = state._reply_for(prompt_text)
        except Exception as exc:  # a responder bug should be visible to the test, not hang it
            self._send_error(500, f"test server responder failed: {exc!r}", "server_error")
            return
        model = body.get("model") or state.model
        usage = {
            "prompt_tokens": count_words(prompt_text),
            "completion_tokens": count_words(reply),
            "total_tokens": count_words(prompt_text) + count_words(reply),
        }
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            self._stream(state._next_id(), model, reply, usage if include_usage else None)
            return
        self._send_json(
            200,
            {
                "id": state._next_id(),
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply, "refusal": None},
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ],
                "usage": usage,
                "system_fingerprint": "fp_test",
            },
        )

    def _fail(self, failure: Failure) -> bool:
        """Answer with ``failure``; False when the request should then be served normally."""
        if failure.mode == "429":
            self._send_error(
                429,
                "Rate limit reached for test-model (simulated).",
                "rate_limit_exceeded",
                {"Retry-After": f"{failure.retry_after:g}", "retry-after-ms": str(int(failure.retry_after * 1000))},
            )
            return True
        if failure.mode == "500":
            self._send_error(
                500,
                "The server had an error while processing your request (simulated).",
                "server_error",
                {"retry-after-ms": str(int(failure.retry_after * 1000))},
            )
            return True
        if failure.mode == "timeout":
            self.server_state._stopping.wait(failure.delay)
            return False  # reply late; the client has normally given up by then
        if failure.mode == "truncated":
            body = b'{"id": "chatcmpl-truncated", "object": "chat.completion", "choi'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body) + 500))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            self.close_connection = True
            return True
        if failure.mode == "non_json":
            body = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return True
        return False

    def _stream(self, completion_id: str, model: str, reply: str, usage: dict[str, int] | None) -> None:
        created = int(time.time())

        def chunk(delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
            return {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
            }

        events: list[dict[str, Any]] = [chunk({"role": "assistant", "content": ""}, None)]
        pieces = [piece for piece in reply.split(" ")]
        for index, piece in enumerate(pieces):
            events.append(chunk({"content": piece if index == 0 else " " + piece}, None))
        events.append(chunk({}, "stop"))
        if usage is not None:
            events.append(
                {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
                 "choices": [], "usage": usage}
            )
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for event in events:
            self.wfile.write(b"data: " + json.dumps(event).encode("utf-8") + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True
