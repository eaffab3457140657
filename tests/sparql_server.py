"""A small, real SPARQL 1.1 Protocol endpoint for tests (standard library HTTP + pyoxigraph).

It listens on ``127.0.0.1`` on a free port and answers ``/sparql``:

* ``GET /sparql?query=...``;
* ``POST /sparql`` with ``application/x-www-form-urlencoded`` (``query=...``) or
  ``application/sparql-query`` bodies.

SELECT and ASK results are SPARQL JSON results (``application/sparql-results+json``), CONSTRUCT and
DESCRIBE results N-Triples. Queries run against a :class:`pyoxigraph.Store`; updates are not served
(``update=`` gets 403). Every query received is recorded in :attr:`SparqlServer.queries`.

Usage::

    from rdflib import Graph
    store = store_from_graph(kg.graph)          # or store_from_file("kb.ttl")
    with SparqlServer(store) as server:
        remote = open_sparql(server.url)
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pyoxigraph as ox


def store_from_graph(graph) -> ox.Store:
    """An in-memory Oxigraph store holding an rdflib graph's triples (via N-Triples)."""
    store = ox.Store()
    data = graph.serialize(format="nt", encoding="utf-8")
    if data.strip():
        store.load(data, ox.RdfFormat.N_TRIPLES)
    return store


def store_from_file(path: str | Path, format: ox.RdfFormat = ox.RdfFormat.TURTLE) -> ox.Store:
    store = ox.Store()
    store.load(path=str(path), format=format)
    return store


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # keep test output quiet
        pass

    def _reply(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _run(self, params: dict[str, list[str]], body_query: str | None = None) -> None:
        if urlsplit(self.path).path.rstrip("/") != "/sparql":
            self._reply(404, b"not found", "text/plain")
            return
        if "update" in params:
            self._reply(403, b"updates are not served", "text/plain")
            return
        query = body_query if body_query is not None else (params.get("query") or [None])[0]
        if not query:
            self._reply(400, b"missing query", "text/plain")
            return
        self.server.owner.queries.append(query)
        try:
            result = self.server.owner.store.query(query)
        except (SyntaxError, ValueError, OSError) as exc:
            self._reply(400, f"bad query: {exc}".encode(), "text/plain")
            return
        if isinstance(result, (ox.QuerySolutions, ox.QueryBoolean)):
            fmt = ox.QueryResultsFormat.JSON
            self._reply(200, result.serialize(format=fmt), fmt.media_type)
        else:
            fmt = ox.RdfFormat.N_TRIPLES
            self._reply(200, result.serialize(format=fmt) or b"", fmt.media_type)

    def do_GET(self) -> None:  # noqa: N802
        self._run(parse_qs(urlsplit(self.path).query))

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8")
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        params = parse_qs(urlsplit(self.path).query)
        if content_type == "application/sparql-query":
            self._run(params, raw)
        elif content_type == "application/sparql-update":
            self._reply(403, b"updates are not served", "text/plain")
        else:
            params.update(parse_qs(raw))
            self._run(params)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: SparqlServer


class SparqlServer:
    """A SPARQL endpoint over ``store`` on ``127.0.0.1:<free port>``, served from a background thread."""

    def __init__(self, store: ox.Store, host: str = "127.0.0.1", port: int = 0) -> None:
        self.store = store
        self.queries: list[str] = []
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/sparql"

    def start(self) -> SparqlServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="sparql-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> SparqlServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
