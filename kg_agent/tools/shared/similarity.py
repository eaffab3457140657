"""Offline scoring shared by the offline deciders: cosine similarity of embedded short texts.

:class:`TextVectors` embeds texts once (relation names, path verbalisations, entity labels) and keeps
their unit vectors, so ranking candidates against a question is one matrix product.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
from langchain_core.embeddings import Embeddings


def default_embeddings() -> Embeddings:
    """The bundled offline MiniLM embeddings (shared instance)."""
    from kg_agent.docs.embeddings import default_embeddings as _default

    return _default()


def unit_vectors(vectors) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=-1, keepdims=True)
    return array / np.where(norms == 0, 1, norms)


class TextVectors:
    """Unit embeddings of short texts, computed once per text and kept (thread-safe)."""

    def __init__(self, embeddings: Embeddings | None = None, *, max_cached: int = 200_000) -> None:
        self.embeddings = embeddings or default_embeddings()
        self.max_cached = max_cached
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """``len(texts) x dim`` unit vectors."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            vectors = unit_vectors(self.embeddings.embed_documents(missing))
            with self._lock:
                if len(self._cache) + len(missing) > self.max_cached:
                    self._cache.clear()
                self._cache.update(zip(missing, vectors))
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        # one lookup per text: another thread may clear the cache between a membership test and a read
        cached = [self._cache.get(t) for t in texts]
        return np.stack([v if v is not None else unit_vectors(self.embeddings.embed_query(t)) for v, t in zip(cached, texts)])

    def query(self, text: str) -> np.ndarray:
        """The unit vector of a query text (not cached: questions rarely repeat)."""
        return unit_vectors(self.embeddings.embed_query(text))

    def rank(self, query: str, texts: Sequence[str]) -> list[float]:
        """Cosine similarity of ``query`` to each text."""
        if not texts:
            return []
        return [float(x) for x in self.matrix(texts) @ self.query(query)]
