"""A real OpenLink Virtuoso server for tests and benchmarks (Debian package ``virtuoso-opensource``).

:class:`VirtuosoServer` writes a ``virtuoso.ini`` into a temporary folder, starts ``virtuoso-t
+foreground`` on ``127.0.0.1`` with free ports and a fresh database in that folder, waits until the SQL
port and the SPARQL endpoint answer, bulk-loads N-Triples / Turtle files into named graphs with
Virtuoso's bulk loader (``ld_dir`` + ``rdf_loader_run()`` over ``isql``), and stops the server (SIGTERM,
Virtuoso's quick shutdown) when done::

    with VirtuosoServer() as server:
        graph = server.load(path_to_nt, "https://kg-agent.dev/graph/sample")
        kg = open_kg(server.endpoint(graph))     # .../sparql?default-graph-uri=<graph>

The SPARQL endpoint is queried as Virtuoso's anonymous ``SPARQL`` user, which may read but not update.
Every HTTP request is written to the server's ``HTTPLogFile`` (:meth:`VirtuosoServer.sparql_requests`), so tests can count
requests or check that one never reached the server.

:func:`virtuoso_binary` says where ``virtuoso-t`` is (``None`` when not installed); :func:`export_ntriples`
writes a :class:`~kg_agent.kg.KnowledgeGraph` as N-Triples for loading.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote, urlencode

#: Where Debian puts the server and its isql client (``isql-vt``; upstream builds call it ``isql``).
SERVER_NAMES = ("virtuoso-t",)
ISQL_NAMES = ("isql-vt", "isql-v")


class VirtuosoError(RuntimeError):
    """The server did not start, or a load or SQL statement failed."""


def virtuoso_binary() -> str | None:
    """The ``virtuoso-t`` executable, or ``None`` when Virtuoso is not installed."""
    override = os.environ.get("KG_AGENT_VIRTUOSO")
    if override:
        return override if Path(override).exists() else None
    for name in SERVER_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def isql_binary(server: str) -> str | None:
    for name in ISQL_NAMES:
        found = shutil.which(name)
        if found:
            return found
    beside = Path(server).with_name("isql")  # upstream layout: bin/virtuoso-t beside bin/isql
    if beside.exists():
        return str(beside)
    return None


def skip_reason() -> str | None:
    """Why Virtuoso tests cannot run here, or ``None`` when they can."""
    if not sys.platform.startswith("linux"):
        return f"Virtuoso integration tests run on Linux only (this is {sys.platform})"
    server = virtuoso_binary()
    if server is None:
        return ("virtuoso-t not found: install it with `apt-get install virtuoso-opensource` "
                "(.ci/run does) or set KG_AGENT_VIRTUOSO to the binary")
    if isql_binary(server) is None:
        return "virtuoso-t found but no isql client (isql-vt) beside it"
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def export_ntriples(kg, path: str | Path) -> Path:
    """Write a KnowledgeGraph's rdflib graph as N-Triples (what the bulk loader reads fastest)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    kg.graph.serialize(destination=str(path), format="nt", encoding="utf-8")
    return path


_INI = """\
[Database]
DatabaseFile       = {db}/virtuoso.db
ErrorLogFile       = {db}/virtuoso.log
LockFile           = {db}/virtuoso.lck
TransactionFile    = {db}/virtuoso.trx
xa_persistent_file = {db}/virtuoso.pxa
ErrorLogLevel      = 7
FileExtend         = 200
MaxCheckpointRemap = 2000
Striping           = 0
TempStorage        = TempDatabase

[TempDatabase]
DatabaseFile       = {db}/virtuoso-temp.db
TransactionFile    = {db}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping           = 0

[Parameters]
ServerPort           = 127.0.0.1:{sql_port}
DisableUnixSocket    = 1
DisableTcpSocket     = 0
MaxClientConnections = 10
CheckpointInterval   = 60
O_DIRECT             = 0
CaseMode             = 2
MaxStaticCursorRows  = 5000
AllowOSCalls         = 0
DirsAllowed          = ., {load}
NumberOfBuffers      = {buffers}
MaxDirtyBuffers      = {dirty}
ThreadsPerQuery      = 2
AsyncQueueMaxThreads = 4
MaxQueryMem          = 512M

[HTTPServer]
ServerPort           = 127.0.0.1:{http_port}
ServerRoot           = {www}
MaxClientConnections = 8
ServerThreads        = 8
MaxKeepAlives        = 8
KeepAliveTimeout     = 10
Charset              = UTF-8
EnabledGzipContent   = 0
HTTPLogFile          = {db}/http.log

[Client]
SQL_PREFETCH_ROWS  = 100
SQL_PREFETCH_BYTES = 16000
SQL_QUERY_TIMEOUT  = 0
SQL_TXN_TIMEOUT    = 0

[SPARQL]
ResultSetMaxRows           = {max_rows}
MaxQueryCostEstimationTime = 400
MaxQueryExecutionTime      = {max_seconds}
"""


class VirtuosoServer:
    """A Virtuoso instance on ``127.0.0.1`` with its database in ``workdir`` (a new temporary folder by default).

    Args:
        workdir: folder for the database, logs and files to load; removed on :meth:`stop` when created here.
        result_set_max_rows: ``[SPARQL] ResultSetMaxRows`` — rows per SPARQL answer before Virtuoso cuts it.
        number_of_buffers, max_dirty_buffers: page buffers (8 kB each) and how many may be dirty.
        max_query_seconds: ``[SPARQL] MaxQueryExecutionTime``.
        startup_timeout: seconds to wait for the server to answer.
    """

    def __init__(
        self,
        workdir: str | Path | None = None,
        *,
        result_set_max_rows: int = 1_000_000,
        number_of_buffers: int = 20_000,
        max_dirty_buffers: int = 15_000,
        max_query_seconds: int = 120,
        startup_timeout: float = 120.0,
    ) -> None:
        reason = skip_reason()
        if reason:
            raise VirtuosoError(reason)
        self.binary = virtuoso_binary()
        self.isql = isql_binary(self.binary)
        self._own_dir = workdir is None
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="kg-agent-virtuoso-"))
        self.db_dir = self.workdir / "db"
        self.load_dir = self.workdir / "load"
        self.result_set_max_rows = result_set_max_rows
        self.number_of_buffers = number_of_buffers
        self.max_dirty_buffers = max_dirty_buffers
        self.max_query_seconds = max_query_seconds
        self.startup_timeout = startup_timeout
        self.sql_port = 0
        self.http_port = 0
        self.process: subprocess.Popen | None = None
        self.loaded: dict[str, int] = {}  # graph IRI -> triples loaded

    # ------------------------------------------------------------------ addresses
    @property
    def url(self) -> str:
        """The SPARQL endpoint (queries see every graph unless a default graph is given)."""
        return f"http://127.0.0.1:{self.http_port}/sparql"

    def endpoint(self, graph: str) -> str:
        """The endpoint URL with ``default-graph-uri`` set: queries see only ``graph``."""
        return f"{self.url}?{urlencode({'default-graph-uri': graph})}"

    @property
    def http_logs(self) -> list[Path]:
        """The HTTP request logs (Virtuoso adds the date to the ``HTTPLogFile`` name: ``httpDDMMYYYY.log``)."""
        return sorted(self.db_dir.glob("http*.log"), key=lambda p: p.stat().st_mtime)

    @property
    def error_log(self) -> Path:
        return self.db_dir / "virtuoso.log"

    def http_requests(self) -> list[str]:
        """The request lines the HTTP server has logged so far (``GET /sparql?... HTTP/1.1``)."""
        lines = []
        for log in self.http_logs:
            for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
                start = line.find('"')
                end = line.find('"', start + 1)
                if start >= 0 and end > start:
                    lines.append(line[start + 1:end])
        return lines

    def sparql_requests(self) -> list[str]:
        """Every logged request to ``/sparql`` (GET or POST), oldest first: its method and the query
        for a GET (the log does not hold POST bodies, so a POST shows as ``"POST"``)."""
        from urllib.parse import parse_qs, urlsplit

        found = []
        for request in self.http_requests():
            parts = request.split(" ")
            if len(parts) >= 2 and urlsplit(parts[1]).path == "/sparql":
                query = parse_qs(urlsplit(parts[1]).query).get("query", [""])[0]
                found.append(f"{parts[0]} {query}".strip())
        return found

    def settled_sparql_count(self, *, at_least: int = 0, timeout: float = 10.0, quiet: float = 0.5) -> int:
        """How many ``/sparql`` requests the log holds once it has stopped growing.

        Virtuoso appends to its HTTP log on its own schedule, so a request that has been answered may
        reach the log a moment later. This waits until the log holds at least ``at_least`` requests and
        has not grown for ``quiet`` seconds (or ``timeout`` has passed), then returns the count."""
        deadline = time.monotonic() + timeout
        count = len(self.sparql_requests())
        while True:
            time.sleep(quiet)
            now = len(self.sparql_requests())
            if (now == count and now >= at_least) or time.monotonic() > deadline:
                return now
            count = now

    # ------------------------------------------------------------------ lifecycle
    def _write_ini(self) -> Path:
        for folder in (self.db_dir, self.load_dir, self.workdir / "www"):
            folder.mkdir(parents=True, exist_ok=True)
        ini = self.workdir / "virtuoso.ini"
        ini.write_text(_INI.format(
            db=self.db_dir, load=self.load_dir, www=self.workdir / "www", sql_port=self.sql_port,
            http_port=self.http_port, buffers=self.number_of_buffers, dirty=self.max_dirty_buffers,
            max_rows=self.result_set_max_rows, max_seconds=self.max_query_seconds,
        ), encoding="utf-8")
        return ini

    def start(self) -> VirtuosoServer:
        last_error: Exception | None = None
        for _ in range(3):  # a free port can be taken between choosing it and binding it
            self.sql_port, self.http_port = free_port(), free_port()
            while self.http_port == self.sql_port:
                self.http_port = free_port()
            ini = self._write_ini()
            stdout = (self.workdir / "stdout.log").open("ab")
            try:
                self.process = subprocess.Popen(
                    [self.binary, "+foreground", "+configfile", str(ini)],
                    cwd=self.db_dir, stdout=stdout, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
            finally:
                stdout.close()
            try:
                self._wait_ready()
                return self
            except VirtuosoError as exc:
                last_error = exc
                self._terminate()
                if "address already in use" not in self._log_tail().lower():
                    break
        self._cleanup()
        raise last_error  # type: ignore[misc]

    def _log_tail(self, lines: int = 20) -> str:
        texts = []
        for path in (self.workdir / "stdout.log", self.error_log):
            if path.exists():
                texts.append("\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]))
        return "\n".join(texts)

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        probe = f"{self.url}?{urlencode({'query': 'ASK {}'})}"
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                raise VirtuosoError(f"virtuoso-t exited during start-up:\n{self._log_tail()}")
            try:
                request = urllib.request.Request(probe, headers={"Accept": "application/sparql-results+json"})
                with urllib.request.urlopen(request, timeout=5) as response:
                    if response.status == 200:
                        self.isql_exec("SELECT 1;")  # the SQL port answers too
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError, VirtuosoError):
                pass
            time.sleep(0.25)
        raise VirtuosoError(f"Virtuoso did not answer within {self.startup_timeout:.0f} s:\n{self._log_tail()}")

    def _terminate(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)  # Virtuoso: "Initiating quick shutdown"
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def _cleanup(self) -> None:
        if self._own_dir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def stop(self) -> None:
        self._terminate()
        self._cleanup()

    def __enter__(self) -> VirtuosoServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------ SQL and loading
    def isql_exec(self, sql: str, *, timeout: float = 600) -> str:
        """Run SQL statements as ``dba`` through the isql client; raises :class:`VirtuosoError` on an error."""
        completed = subprocess.run(
            [self.isql, f"127.0.0.1:{self.sql_port}", "dba", "dba", "VERBOSE=OFF", "BANNER=OFF",
             "PROMPT=OFF", "ECHO=OFF", "ERRORS=STDOUT", f"exec={sql}"],
            capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
        )
        output = completed.stdout + completed.stderr
        if completed.returncode != 0 or "*** Error" in output:
            raise VirtuosoError(f"isql failed ({completed.returncode}) running {sql[:200]!r}:\n{output.strip()[-2000:]}")
        return output

    def load(self, path: str | Path, graph: str, *, copy: bool = True) -> str:
        """Bulk-load an N-Triples / Turtle file (``.nt``, ``.ttl``, optionally ``.gz``) into ``graph``.

        The file is copied into the server's allowed load folder (``DirsAllowed``) unless ``copy`` is
        False and it is already there. Returns ``graph``.
        """
        path = Path(path)
        if not path.exists():
            raise VirtuosoError(f"{path}: no such file to load")
        target = self.load_dir / path.name
        if copy and path.resolve() != target.resolve():
            shutil.copyfile(path, target)
        elif not target.exists():
            raise VirtuosoError(f"{path} is not in the load folder {self.load_dir}")
        name = target.name.replace("'", "''")
        graph_sql = graph.replace("'", "''")
        self.isql_exec(
            f"ld_dir('{self.load_dir}', '{name}', '{graph_sql}'); rdf_loader_run(); checkpoint;"
        )
        errors = self.isql_exec(
            f"SELECT ll_file, ll_error FROM DB.DBA.LOAD_LIST WHERE ll_file LIKE '%/{name}' AND ll_error IS NOT NULL;"
        )
        if errors.strip():
            raise VirtuosoError(f"bulk load of {path} into <{graph}> failed:\n{errors.strip()}")
        self.loaded[graph] = self.count(graph)
        return graph

    def count(self, graph: str) -> int:
        """Triples in ``graph`` (read over SQL, as dba)."""
        output = self.isql_exec(f"SPARQL SELECT COUNT(*) FROM <{graph}> WHERE {{ ?s ?p ?o }};")
        numbers = [line.strip() for line in output.splitlines() if line.strip().isdigit()]
        if not numbers:
            raise VirtuosoError(f"could not read the triple count of <{graph}>:\n{output}")
        return int(numbers[-1])

    def sparql_get(self, query: str, *, graph: str | None = None, accept: str = "application/sparql-results+json",
                   timeout: float = 30) -> tuple[int, dict[str, str], bytes]:
        """A raw SPARQL protocol GET, bypassing kg-agent (status, headers, body)."""
        params = {"query": query}
        if graph:
            params["default-graph-uri"] = graph
        request = urllib.request.Request(f"{self.url}?{urlencode(params)}", headers={"Accept": accept})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers), exc.read()


def graph_iri(name: str) -> str:
    """A named-graph IRI in the project namespace."""
    return "https://kg-agent.dev/graph/" + quote(name, safe="")


__all__ = ["VirtuosoServer", "VirtuosoError", "virtuoso_binary", "skip_reason", "export_ntriples", "graph_iri", "free_port"]
