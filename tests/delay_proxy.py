"""A loopback HTTP forwarder that adds a fixed delay to every request, as a remote endpoint's network does.

:class:`DelayProxy` listens on ``127.0.0.1`` on a free port, waits ``delay`` seconds, then forwards each request
(any method, path, query string, body and end-to-end headers) to ``upstream`` (a loopback ``http://`` URL) and
hands back the answer unchanged. Each request is handled in its own thread, so concurrent requests wait their
delays side by side, as they would on a real network::

    with DelayProxy("http://127.0.0.1:8890", delay=0.1) as proxy:
        kg = open_kg(proxy.url + "/sparql?default-graph-uri=...")   # every SPARQL request now takes 100 ms more

:attr:`DelayProxy.requests` counts the requests forwarded.
"""

from __future__ import annotations

import http.client
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

#: Headers that belong to one connection and are not forwarded (RFC 9110, section 7.6.1).
HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
              "transfer-encoding", "upgrade", "host", "content-length"}


class _Handler(BaseHTTPRequestHandler):
    server: _ProxyServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # quiet
        pass

    def _forward(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        time.sleep(self.server.delay)
        headers = {name: value for name, value in self.headers.items() if name.lower() not in HOP_BY_HOP}
        upstream = http.client.HTTPConnection(self.server.upstream_host, self.server.upstream_port,
                                              timeout=self.server.timeout)
        try:
            upstream.request(self.command, self.path, body=body, headers=headers)
            response = upstream.getresponse()
            payload = response.read()
            status, reason, answer_headers = response.status, response.reason, response.getheaders()
        except OSError as exc:
            status, reason, answer_headers = 502, "Bad Gateway", [("Content-Type", "text/plain")]
            payload = f"delay proxy: the upstream did not answer: {exc}".encode()
        finally:
            upstream.close()
        with self.server.lock:
            self.server.requests += 1
        self.send_response(status, reason)
        for name, value in answer_headers:
            if name.lower() not in HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = _forward


class _ProxyServer(ThreadingHTTPServer):
    daemon_threads = True
    #: listen backlog: socketserver's default of 5 drops the connections of a burst of concurrent requests, which
    #: the kernel retries after 1 s (a web server's backlog is in the hundreds: nginx 511, Virtuoso's listen() 128+)
    request_queue_size = 128

    def __init__(self, upstream: str, delay: float, timeout: float) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        parts = urlsplit(upstream)
        if parts.scheme != "http" or parts.hostname not in {"127.0.0.1", "localhost", "::1"}:
            raise ValueError(f"the delay proxy forwards to a loopback http:// address only, not {upstream!r}")
        self.upstream_host, self.upstream_port = parts.hostname, parts.port or 80
        self.delay, self.timeout = delay, timeout
        self.lock = threading.Lock()
        self.requests = 0


class DelayProxy:
    """Forwards ``127.0.0.1:<port>`` to ``upstream`` with ``delay`` seconds added to every request."""

    def __init__(self, upstream: str, *, delay: float = 0.1, timeout: float = 120.0) -> None:
        self._server = _ProxyServer(upstream, delay, timeout)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``: the upstream's paths and query strings go after it."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def requests(self) -> int:
        return self._server.requests

    def start(self) -> DelayProxy:
        self._thread = threading.Thread(target=self._server.serve_forever, name="delay-proxy", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> DelayProxy:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


__all__ = ["DelayProxy"]
