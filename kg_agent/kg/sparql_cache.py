"""Optional persistent cache of SPARQL results in a SQLite file, so re-running an evaluation costs nothing.

``open_sparql(url, cache_path="kg-cache.sqlite")`` (or ``kg-agent eval ... --kg-cache FILE``) keeps every
entity's fetched neighbourhood and label, the label index used for entity linking and the relation list
in one SQLite file. :class:`~kg_agent.kg.graph.KnowledgeGraph` looks entries up there before any
request to the endpoint and stores what it fetched; a second run over the same questions sends nothing.

Entries are keyed by the endpoint URL and default graph (the *scope*) plus the entity id, so one file can
serve several endpoints. Values are JSON (relations by predicate IRI, ``^`` for incoming edges), never
pickled. The file is safe to share between threads (one connection behind a lock) and processes (SQLite
locking, WAL journal). The cache never expires: delete the file when the KG behind the endpoint changes.

A file that is not a readable cache (corrupt, or not SQLite at all) raises :class:`KGError` naming it;
kg-agent never deletes or rewrites it on its own, since the path may be something else given by mistake.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kg_agent._sqlite import open_cache_database
from kg_agent.kg.errors import KGError

__all__ = ["SparqlCache"]

_SCHEMA = """CREATE TABLE IF NOT EXISTS sparql_cache (
    scope TEXT NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (scope, kind, key)
) WITHOUT ROWID"""

#: SQLite caps the number of ``?`` parameters per statement (999 in old builds).
_CHUNK = 500


class SparqlCache:
    """Per-entity SPARQL results of one endpoint (``scope``) in a SQLite file (created when missing).

    Kinds used by :class:`~kg_agent.kg.graph.KnowledgeGraph`: ``edges`` (an entity's neighbourhood),
    ``label`` (its display label, ``null`` when it has none), ``label_index`` and ``relations`` (key ``""``),
    ``extensions`` and ``complete_paths`` (a layer of candidate relation paths, a plan's node paths or
    ``null`` when a cut applies; keyed by the start ids, predicate IRIs and bounds as JSON).
    """

    def __init__(self, path: str | Path, scope: str, *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.scope = scope
        self._lock = threading.Lock()
        self.hits = self.misses = 0
        try:
            self._connection = open_cache_database(self.path, _SCHEMA, timeout=timeout)
        except sqlite3.Error as exc:
            raise self._error(exc) from exc

    def _error(self, exc: Exception) -> KGError:
        return KGError(f"{self.path} is not a usable SPARQL cache ({exc}); delete it or give another file")

    def get_many(self, kind: str, keys: Iterable[str]) -> dict[str, Any]:
        """``{key: value}`` for the keys held (missing keys are left out)."""
        keys = list(dict.fromkeys(keys))
        found: dict[str, Any] = {}
        try:
            with self._lock:
                for start in range(0, len(keys), _CHUNK):
                    chunk = keys[start:start + _CHUNK]
                    rows = self._connection.execute(
                        "SELECT key, value FROM sparql_cache WHERE scope = ? AND kind = ? AND key IN (%s)"
                        % ",".join("?" * len(chunk)), (self.scope, kind, *chunk)).fetchall()
                    for key, value in rows:
                        found[key] = json.loads(value)
                self.hits += len(found)
                self.misses += len(keys) - len(found)
        except (sqlite3.Error, ValueError) as exc:
            raise self._error(exc) from exc
        return found

    def get(self, kind: str, key: str = "") -> Any | None:
        return self.get_many(kind, [key]).get(key)

    def put_many(self, kind: str, items: dict[str, Any]) -> None:
        if not items:
            return
        rows = [(self.scope, kind, key, json.dumps(value, ensure_ascii=False)) for key, value in items.items()]
        try:
            with self._lock, self._connection:
                self._connection.executemany(
                    "INSERT OR REPLACE INTO sparql_cache (scope, kind, key, value) VALUES (?, ?, ?, ?)", rows)
        except sqlite3.Error as exc:
            raise self._error(exc) from exc

    def put(self, kind: str, key: str, value: Any) -> None:
        self.put_many(kind, {key: value})

    def drop_other_scopes(self) -> None:
        """Delete every entry of another scope (a file that serves one scope at a time: a store's measured facts,
        :mod:`~kg_agent.kg.measured_cache`)."""
        try:
            with self._lock, self._connection:
                self._connection.execute("DELETE FROM sparql_cache WHERE scope != ?", (self.scope,))
        except sqlite3.Error as exc:
            raise self._error(exc) from exc

    def __len__(self) -> int:
        with self._lock:
            return int(self._connection.execute(
                "SELECT COUNT(*) FROM sparql_cache WHERE scope = ?", (self.scope,)).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def __repr__(self) -> str:
        return f"SparqlCache({str(self.path)!r}, scope={self.scope!r})"
