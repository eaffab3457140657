"""Offline scoring shared by the offline deciders: cosine similarity of embedded short texts.

:class:`TextVectors` embeds texts once (relation names, path verbalisations, entity labels) and keeps
their unit vectors, so ranking candidates against a question is one matrix product.

Vectors also persist across processes in :class:`VectorFile` s: SQLite files keyed by embedding model and
text. Nothing is embedded ahead of use: a text is embedded the first time a decider scores it, once per model,
then read back from the files:

* the user's file, shared by every KG and process (:func:`user_vector_file_path`:
  ``$KG_AGENT_CACHE_DIR/vectors.sqlite``, by default ``~/.cache/kg-agent/vectors.sqlite``; ``KG_AGENT_CACHE_DIR``
  set empty turns it off), attached to every process on first use: a relation named alike in two KGs
  (``directed by``) is embedded once;
* one beside each Oxigraph store (``<store>/kg-agent/vectors.sqlite``, see :attr:`KnowledgeGraph.vector_cache_path`),
  which travels with the store; :func:`use_vector_file` attaches it (the method graphs do it for their KG).

Every :class:`TextVectors` reads the texts it lacks from the attached files before embedding them, and writes what
it embedded to them.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from kg_agent._sqlite import open_cache_database
from kg_agent.tools.shared.cosine_scale import IDENTITY, CosineScale, fit_scale, unit_vectors
from kg_agent.user_cache import user_cache_dir

logger = logging.getLogger(__name__)


def default_embeddings() -> Embeddings:
    """The bundled offline MiniLM embeddings (shared instance)."""
    from kg_agent.embeddings import default_embeddings as _default

    return _default()


def embedding_model_key(embeddings: Embeddings) -> str | None:
    """What names ``embeddings``' vectors in a :class:`VectorFile`; ``None`` (never persisted) when unknown.

    The bundled MiniLM is named by its model and weight file hash (checked at load); other embeddings by
    their class and ``model`` / ``model_name`` attribute.
    """
    from kg_agent.embeddings import MODEL_NAME, MODEL_SHA256, MiniLMEmbeddings

    if isinstance(embeddings, MiniLMEmbeddings):
        return f"{MODEL_NAME}@{MODEL_SHA256[:16]}"
    name = getattr(embeddings, "model", None) or getattr(embeddings, "model_name", None)
    return f"{type(embeddings).__qualname__}:{name}" if isinstance(name, str) and name else None


_VECTOR_SCHEMA = ("CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, text TEXT NOT NULL, vector BLOB NOT NULL, "
                  "PRIMARY KEY (model, text)) WITHOUT ROWID")


class VectorFile:
    """Unit vectors (float32) of texts in an SQLite file, keyed by embedding model and text; safe across
    threads and processes (WAL).

    Args:
        path: the file (created with its folder when missing).
        max_rows: vectors kept at most (about 1.6 KB each for MiniLM); texts beyond stay in memory only.
        timeout: seconds to wait for another process's write lock.
    """

    def __init__(self, path: str | Path, *, max_rows: int = 200_000, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.max_rows = max_rows
        self._lock = threading.Lock()
        self._connection = open_cache_database(self.path, _VECTOR_SCHEMA, timeout=timeout)
        self._rows = self._connection.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]

    def get(self, model: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those ``texts`` that have one."""
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(texts), 500):
                chunk = list(texts[start:start + 500])
                marks = ",".join("?" * len(chunk))
                rows = self._connection.execute(
                    f"SELECT text, vector FROM vectors WHERE model = ? AND text IN ({marks})", [model, *chunk])
                found.update((text, np.frombuffer(blob, dtype=np.float32)) for text, blob in rows)
        return found

    def put(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        """Store vectors (existing texts are kept; nothing is written once ``max_rows`` are held)."""
        with self._lock:
            room = self.max_rows - self._rows
            if room <= 0 or not vectors:
                return
            rows = [(model, text, np.asarray(v, dtype=np.float32).tobytes()) for text, v in list(vectors.items())[:room]]
            with self._connection:
                before = self._connection.total_changes
                self._connection.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?, ?)", rows)
                self._rows += self._connection.total_changes - before

    def __len__(self) -> int:
        return self._rows

    def close(self) -> None:
        with self._lock:
            self._connection.close()


_VECTOR_FILES: dict[Path, VectorFile] = {}
_UNUSABLE_FILES: set[Path] = set()
_VECTOR_FILES_LOCK = threading.Lock()


def user_vector_file_path() -> Path | None:
    """The vector file every KG and process of the user shares: ``vectors.sqlite`` in the user's cache folder
    (:func:`kg_agent.user_cache.user_cache_dir`); ``None`` when that is turned off."""
    folder = user_cache_dir()
    return folder / "vectors.sqlite" if folder is not None else None


def use_vector_file(path: str | Path | None) -> VectorFile | None:
    """Attach the vector file at ``path`` to every :class:`TextVectors` of the process (once per path).

    A file that cannot be opened or is not a vector file (a read-only folder, a corrupt file) is not used:
    vectors are then computed as without one, and a warning is logged. ``None`` does nothing.
    """
    if path is None:
        return None
    path = Path(path).resolve()
    with _VECTOR_FILES_LOCK:
        if path not in _VECTOR_FILES:
            if path in _UNUSABLE_FILES:
                return None
            try:
                _VECTOR_FILES[path] = VectorFile(path)
            except (sqlite3.Error, OSError) as exc:
                _UNUSABLE_FILES.add(path)
                logger.warning("%s: not used as a vector cache (%s); vectors are computed per process", path, exc)
                return None
        return _VECTOR_FILES[path]


def attached_vector_files() -> list[VectorFile]:
    """The files :class:`TextVectors` read and write: those :func:`use_vector_file` attached (a KG's own first),
    then the user's (:func:`user_vector_file_path`)."""
    user_file = use_vector_file(user_vector_file_path())
    with _VECTOR_FILES_LOCK:
        return sorted(_VECTOR_FILES.values(), key=lambda attached: attached is user_file)


def _from_files(model: str | None, texts: Iterable[str]) -> dict[str, np.ndarray]:
    texts = list(texts)
    found: dict[str, np.ndarray] = {}
    if model is None:
        return found
    for vector_file in attached_vector_files():
        try:
            found.update(vector_file.get(model, [t for t in texts if t not in found]))
        except sqlite3.Error as exc:
            logger.warning("%s: vector cache unreadable (%s)", vector_file.path, exc)
        if len(found) == len(texts):
            break
    return found


def _to_files(model: str | None, vectors: Mapping[str, np.ndarray]) -> None:
    if model is None:
        return
    for vector_file in attached_vector_files():
        try:
            vector_file.put(model, vectors)
        except sqlite3.Error as exc:
            logger.warning("%s: vector cache not written (%s)", vector_file.path, exc)


class TextVectors:
    """Unit embeddings of short texts, computed once per text and kept (thread-safe); also read from and
    written to the process's attached :class:`VectorFile` s."""

    def __init__(self, embeddings: Embeddings | None = None, *, max_cached: int = 200_000) -> None:
        self.embeddings = embeddings or default_embeddings()
        self.max_cached = max_cached
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self.model_key = embedding_model_key(self.embeddings)
        self._scale: CosineScale | None = None

    @property
    def scale(self) -> CosineScale:
        """The embeddings' cosines on the bundled MiniLM's scale (:mod:`~kg_agent.tools.shared.cosine_scale`):
        every cosine this object returns is read through it, so the deciders' thresholds mean the same for any
        model; the identity for MiniLM."""
        if self._scale is None:
            self._scale = scale_for(self)
        return self._scale

    def similarity(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """``len(rows) x len(columns)`` cosines of unit vectors (from :meth:`matrix` / :meth:`query`), on the
        MiniLM scale (:attr:`scale`)."""
        return self.scale(rows @ columns.T)

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """``len(texts) x dim`` unit vectors."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            found = _from_files(self.model_key, missing)
            todo = [t for t in missing if t not in found]
            if todo:
                computed = dict(zip(todo, unit_vectors(self.embeddings.embed_documents(todo))))
                _to_files(self.model_key, computed)
                found.update(computed)
            with self._lock:
                if len(self._cache) + len(found) > self.max_cached:
                    self._cache.clear()
                self._cache.update(found)
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        # one lookup per text: another thread may clear the cache between a membership test and a read
        cached = [self._cache.get(t) for t in texts]
        return np.stack([v if v is not None else unit_vectors(self.embeddings.embed_query(t)) for v, t in zip(cached, texts)])

    def query(self, text: str) -> np.ndarray:
        """The unit vector of a query text (not cached: questions rarely repeat)."""
        return unit_vectors(self.embeddings.embed_query(text))

    def cosines(self, query_vector: np.ndarray, texts: Sequence[str]) -> list[float]:
        """Cosine of each text with a unit ``query_vector``, summed in float64 row by row: a text's cosine is the
        same whichever texts it is compared with (a float32 matrix product's last bits depend on the rows around
        it), so scoring a subset of candidates gives each the score it has among all of them."""
        if not texts:
            return []
        return self.scale(np.multiply(self.matrix(texts), query_vector, dtype=np.float64).sum(axis=1)).tolist()

    def rank(self, query: str, texts: Sequence[str]) -> list[float]:
        """Cosine similarity of ``query`` to each text."""
        if not texts:
            return []
        return [float(x) for x in self.scale(self.matrix(texts) @ self.query(query))]


_SHARED_VECTORS: dict[int, TextVectors] = {}


def shared_text_vectors(embeddings: Embeddings | None = None) -> TextVectors:
    """One :class:`TextVectors` cache per embeddings object, shared by the offline deciders of every graph."""
    embeddings = embeddings or default_embeddings()
    vectors = _SHARED_VECTORS.get(id(embeddings))
    if vectors is None or vectors.embeddings is not embeddings:
        vectors = _SHARED_VECTORS[id(embeddings)] = TextVectors(embeddings)
    return vectors


_scales: dict[int | str, CosineScale] = {}
_scales_lock = threading.Lock()


def scale_for(vectors: TextVectors) -> CosineScale:
    """The :class:`~kg_agent.tools.shared.cosine_scale.CosineScale` of ``vectors``' embeddings against the bundled
    MiniLM, fitted once per process and model (its ``model_key``, else the embeddings object); the identity for MiniLM
    itself. A model that fails to embed the calibration texts keeps its raw cosines (logged)."""
    from kg_agent.embeddings import MiniLMEmbeddings  # onnxruntime: imported when first used

    embeddings, model_key = vectors.embeddings, vectors.model_key
    if isinstance(embeddings, MiniLMEmbeddings):
        return IDENTITY
    key: int | str = model_key or id(embeddings)
    with _scales_lock:
        if key in _scales:
            return _scales[key]
    try:
        scale = fit_scale(vectors, shared_text_vectors(None))
    except Exception as exc:  # a user's model or service: its failure must not stop the reasoning
        logger.warning("embeddings %s: not calibrated against MiniLM (%s: %s); raw cosines are used",
                       model_key or type(embeddings).__name__, type(exc).__name__, exc)
        scale = IDENTITY
    with _scales_lock:
        return _scales.setdefault(key, scale)
