"""The one way kg-agent opens its SQLite cache files (the LLM reply cache and the SPARQL result cache)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def open_cache_database(path: Path, schema: str, *, timeout: float) -> sqlite3.Connection:
    """A connection to ``path`` (created with its folder when missing) holding ``schema``.

    Shared between threads (callers keep one lock around it) and processes (SQLite locking, WAL journal).
    Raises :class:`sqlite3.Error` when the file is not a usable database; the connection is then closed.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(str(path), timeout=timeout, check_same_thread=False)
    try:
        with connection:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute(schema)
    except sqlite3.Error:
        connection.close()
        raise
    return connection
