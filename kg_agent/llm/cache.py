"""Optional caching of chat-model replies in a SQLite file, so re-running an evaluation costs nothing.

LangChain chat models look every request up in the process-wide LLM cache
(``langchain_core.globals.set_llm_cache``) before calling the provider. :class:`SQLiteLLMCache` is such
a cache (a :class:`langchain_core.caches.BaseCache`) kept in one SQLite file; ``langchain_community``'s
``SQLiteCache`` does the same but is not a dependency of kg-agent. Entries are keyed by the exact
prompt (the serialised messages) and the model's settings (name, temperature, endpoint ...), so a
different prompt or model is a cache miss.

    from kg_agent.llm import enable_llm_cache
    enable_llm_cache("llm-cache.sqlite")          # every chat model of this process, from now on

    with llm_cache("llm-cache.sqlite"):           # only inside the block
        evaluate(questions, method="tog", kg=kg, model="openai:gpt-4o-mini")

or ``kg-agent eval ... --llm-cache llm-cache.sqlite``. A reply served from the cache is counted in the
question's usage as a call with no tokens (``cached_calls``); streamed calls are not cached (LangChain
caches ``invoke`` only). Only deterministic settings (``temperature=0``, the default here) make a
cached reply the reply the model would give again.

The file is safe to share between threads (one connection behind a lock) and processes (SQLite
locking, WAL journal). Values are stored as JSON (LangChain's message dicts), never pickled.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langchain_core.caches import BaseCache
from langchain_core.globals import get_llm_cache, set_llm_cache
from langchain_core.messages import message_to_dict, messages_from_dict
from langchain_core.outputs import ChatGeneration, Generation

from kg_agent._sqlite import open_cache_database
from kg_agent.llm.usage import CACHE_HIT_KEY

__all__ = ["SQLiteLLMCache", "disable_llm_cache", "enable_llm_cache", "llm_cache"]

_SCHEMA = """CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT PRIMARY KEY,
    llm_string TEXT NOT NULL,
    prompt TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL
)"""


def _key(prompt: str, llm_string: str) -> str:
    digest = hashlib.sha256()
    digest.update(llm_string.encode("utf-8", "surrogatepass"))
    digest.update(b"\x00")
    digest.update(prompt.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _encode(generations: Sequence[Generation]) -> str:
    items: list[dict[str, Any]] = []
    for generation in generations:
        info = generation.generation_info
        if isinstance(generation, ChatGeneration):
            items.append({"kind": "chat", "message": message_to_dict(generation.message), "generation_info": info})
        else:
            items.append({"kind": "text", "text": generation.text, "generation_info": info})
    return json.dumps(items, ensure_ascii=False, default=str)


def _decode(value: str) -> list[Generation]:
    generations: list[Generation] = []
    for item in json.loads(value):
        if item.get("kind") == "chat":
            [message] = messages_from_dict([item["message"]])
            message.response_metadata = {**(message.response_metadata or {}), CACHE_HIT_KEY: True}
            generations.append(ChatGeneration(message=message, generation_info=item.get("generation_info")))
        else:
            generations.append(Generation(text=item.get("text", ""), generation_info=item.get("generation_info")))
    return generations


class SQLiteLLMCache(BaseCache):
    """A LangChain LLM cache in a SQLite file (created with its folder when missing).

    Args:
        path: the database file.
        timeout: seconds to wait for another process's write lock.
    """

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self._connection = open_cache_database(self.path, _SCHEMA, timeout=timeout)
        except sqlite3.Error as exc:
            raise ValueError(f"cannot use {self.path} as an LLM cache: {exc}") from exc
        self.hits = 0
        self.misses = 0

    def lookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        with self._lock:
            row = self._connection.execute(
                "SELECT llm_string, prompt, value FROM llm_cache WHERE key = ?", (_key(prompt, llm_string),)
            ).fetchone()
            if row is None or row[0] != llm_string or row[1] != prompt:
                self.misses += 1
                return None
            self.hits += 1
        return _decode(row[2])

    def update(self, prompt: str, llm_string: str, return_val: Sequence[Generation]) -> None:
        value = _encode(return_val)
        with self._lock, self._connection:
            self._connection.execute(
                "INSERT OR REPLACE INTO llm_cache (key, llm_string, prompt, value, created) VALUES (?, ?, ?, ?, ?)",
                (_key(prompt, llm_string), llm_string, prompt, value, time.time()),
            )

    def clear(self, **kwargs: Any) -> None:
        with self._lock, self._connection:
            self._connection.execute("DELETE FROM llm_cache")

    def __len__(self) -> int:
        with self._lock:
            return int(self._connection.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def __repr__(self) -> str:
        return f"SQLiteLLMCache({str(self.path)!r})"


def enable_llm_cache(path: str | Path) -> SQLiteLLMCache:
    """Cache every chat model's replies of this process in the SQLite file ``path``; returns the cache."""
    cache = SQLiteLLMCache(path)
    set_llm_cache(cache)
    return cache


def disable_llm_cache() -> None:
    """Stop caching (closes the cache :func:`enable_llm_cache` opened)."""
    current = get_llm_cache()
    set_llm_cache(None)
    if isinstance(current, SQLiteLLMCache):
        current.close()


@contextmanager
def llm_cache(path: str | Path | None) -> Iterator[SQLiteLLMCache | None]:
    """Cache chat-model replies in ``path`` inside the block (``None``: no change); the previous cache is restored."""
    if path is None:
        yield None
        return
    previous = get_llm_cache()
    cache = SQLiteLLMCache(path)
    set_llm_cache(cache)
    try:
        yield cache
    finally:
        set_llm_cache(previous)
        cache.close()
