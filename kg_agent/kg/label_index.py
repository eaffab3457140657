"""Label lookups for entity linking: exact (normalized) labels, labels by word, words by prefix.

Two implementations of one interface:

* :class:`DictLabelIndex`: a dict ``{normalized label: [entity ids]}`` in RAM (memory backend, endpoints).
* :class:`SqliteLabelIndex`: the same lookups from an SQLite file (stdlib ``sqlite3``) beside an Oxigraph
  store (``<store>/kg-agent/labels.sqlite``), built at load, so millions of labels need no RAM and
  opening a store reads nothing. Its ``build`` entry must match the store's completion marker; a
  missing or stale file is rebuilt from the store (with a warning), or refused when it cannot be.

Labels are keyed by :func:`~kg_agent.kg.terms.label_key` (normalized, or the raw text of a label made only of
punctuation); words are the space-separated tokens of the key; "labels with a word"
come shortest first, then alphabetically, as :mod:`kg_agent.kg.linking` expects.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

from kg_agent.kg.errors import KGLoadError
from kg_agent.kg.terms import label_keys

#: The version of the keys :func:`~kg_agent.kg.terms.label_keys` gives a label (2: also its joined form, "iswc2005"
#: for "ISWC 2005"; 3: also its name less a qualifier in parentheses, "chicago" for "Chicago (band)"): a label file
#: built with other keys is rebuilt when its store is opened.
LABEL_KEYS_VERSION = 3


class DictLabelIndex(dict):
    """``{normalized label: [entity ids]}`` with the word lookups linking needs (token map built on first use)."""

    def __init__(self, pairs: Iterable[tuple[str, str]] = ()) -> None:
        super().__init__()
        for key, label in pairs:
            for indexed in label_keys(label):
                self.setdefault(indexed, []).append(key)
        for keyed in self.values():
            keyed[:] = list(dict.fromkeys(keyed))
        self._tokens: dict[str, list[str]] | None = None

    def _token_map(self) -> dict[str, list[str]]:
        if self._tokens is None:
            tokens: dict[str, list[str]] = {}
            for label in self:
                for token in set(label.split()):
                    tokens.setdefault(token, []).append(label)
            for listed in tokens.values():
                listed.sort(key=lambda label: (len(label), label))
            self._tokens = tokens
        return self._tokens

    def labels_with_word(self, word: str, *, limit: int) -> list[str]:
        return self._token_map().get(word, [])[:limit]

    def iter_labels_with_word(self, word: str) -> Iterator[str]:
        return iter(self._token_map().get(word, []))

    def words_with_prefix(self, prefix: str) -> list[str]:
        return [token for token in self._token_map() if token.startswith(prefix)]


_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE labels (norm TEXT NOT NULL, node TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE tokens (token TEXT NOT NULL, len INTEGER NOT NULL, norm TEXT NOT NULL, PRIMARY KEY (token, len, norm))
    WITHOUT ROWID;
"""
_LABELS_INDEX = "CREATE INDEX labels_by_norm ON labels (norm, seq);"


def build_label_sqlite(path: str | Path, pairs: Iterable[tuple[str, str]], *, build: str) -> Path:
    """Write the label file for ``(entity id, label)`` pairs; ``build`` ties it to one load of the store.

    The words of each key are split by SQLite itself (the key as a JSON array, ``json_each``, over the distinct
    keys read from their index): no Python row per word. The words are one table ordered by word (``WITHOUT
    ROWID``, filled in its order): each ``(word, length, key)`` is kept once, with no second copy in an index
    (files built before keep a table and an index; the lookups read both alike).
    """
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    connection = sqlite3.connect(partial)
    try:
        connection.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _SCHEMA)
        rows: list[tuple[str, str, int]] = []
        row = rows.append
        for seq, (key, label) in enumerate(pairs):
            keys = label_keys(label)
            if len(keys) == 1:  # most labels
                row((keys[0], key, seq))
            else:
                rows.extend([(indexed, key, seq) for indexed in keys])
            if len(rows) >= 100_000:
                connection.executemany("INSERT INTO labels VALUES (?, ?, ?)", rows)
                rows.clear()
        connection.executemany("INSERT INTO labels VALUES (?, ?, ?)", rows)
        connection.executescript(_LABELS_INDEX)
        try:
            connection.execute(_TOKENS_IN_SQL, (_CONTROL,))
            odd = connection.execute("SELECT DISTINCT norm FROM labels WHERE norm GLOB ?", (_CONTROL,)).fetchall()
        except sqlite3.OperationalError:  # a key JSON cannot hold after all (a NUL), or an SQLite built without
            # JSON (before 3.38 it was optional): every key's words in Python, as before
            connection.execute("DELETE FROM tokens")
            odd = connection.execute("SELECT DISTINCT norm FROM labels").fetchall()
        connection.executemany("INSERT OR IGNORE INTO tokens VALUES (?, ?, ?)",
                               [(word, len(norm), norm) for (norm,) in odd for word in set(norm.split())])
        connection.execute("INSERT INTO meta VALUES ('build', ?)", (build,))
        connection.commit()
    finally:
        connection.close()
    partial.replace(path)
    return path


#: Keys holding a control character, which JSON strings cannot: their words are split in Python
_CONTROL = "*[\x01-\x1f]*"
#: Each other key's words, from the key written as a JSON array (keys hold single spaces; quotes and backslashes
#: escaped)
_TOKENS_IN_SQL = """INSERT OR IGNORE INTO tokens SELECT words.value, length(keys.norm), keys.norm
FROM (SELECT DISTINCT norm FROM labels WHERE norm != '' AND norm NOT GLOB ?) AS keys,
json_each('["' || replace(replace(replace(keys.norm, '\\', '\\\\'), '"', '\\"'), ' ', '","') || '"]') AS words
ORDER BY 1, 2, 3"""


class SqliteLabelIndex:
    """The label lookups of :class:`DictLabelIndex`, answered by an SQLite file (read-only)."""

    def __init__(self, path: str | Path, *, build: str) -> None:
        self.path = Path(path)
        try:
            self._connection = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
            row = self._connection.execute("SELECT value FROM meta WHERE key = 'build'").fetchone()
        except sqlite3.Error as exc:
            raise KGLoadError(f"{self.path}: not a usable label index ({exc})") from exc
        if row is None or row[0] != build:
            self._connection.close()
            raise KGLoadError(f"{self.path}: the label index is stale (built for another load of the store)")
        self._lock = threading.Lock()

    def _rows(self, sql: str, args: tuple) -> list:
        with self._lock:
            return self._connection.execute(sql, args).fetchall()

    def get(self, norm: str, default=None) -> list[str] | None:
        found = [key for (key,) in self._rows("SELECT node FROM labels WHERE norm = ? ORDER BY seq", (norm,))]
        return list(dict.fromkeys(found)) if found else default

    def __getitem__(self, norm: str) -> list[str]:
        found = self.get(norm)
        if found is None:
            raise KeyError(norm)
        return found

    def __contains__(self, norm: object) -> bool:
        return bool(self._rows("SELECT 1 FROM labels WHERE norm = ? LIMIT 1", (norm,)))

    def __len__(self) -> int:
        return int(self._rows("SELECT COUNT(DISTINCT norm) FROM labels", ())[0][0])

    def labels_with_word(self, word: str, *, limit: int) -> list[str]:
        return [norm for (norm,) in self._rows(
            "SELECT DISTINCT norm FROM tokens WHERE token = ? ORDER BY len, norm LIMIT ?", (word, limit))]

    def iter_labels_with_word(self, word: str) -> Iterator[str]:
        offset, page = 0, 1000
        while True:
            rows = self._rows("SELECT DISTINCT norm FROM tokens WHERE token = ? ORDER BY len, norm LIMIT ? OFFSET ?",
                              (word, page, offset))
            yield from (norm for (norm,) in rows)
            if len(rows) < page:
                return
            offset += page

    def words_with_prefix(self, prefix: str) -> list[str]:
        # every token starting with the prefix: a range on the token index
        return [token for (token,) in self._rows(
            "SELECT DISTINCT token FROM tokens WHERE token >= ? AND token < ?", (prefix, prefix + "\U0010ffff"))]

    def close(self) -> None:
        self._connection.close()
