"""Cosines of any embedding model read on the bundled MiniLM's scale, so the offline deciders' thresholds keep
their meaning whatever ``embeddings=`` a user passes.

The deciders' cosine thresholds were set on all-MiniLM-L6-v2 ("films" is 0.45-0.55 from "directed by", "wrote"
0.73 from "written by": :mod:`~kg_agent.tools.shared.path_scoring`). Another model spreads its cosines
differently: some sit everything close together (OpenAI's ``text-embedding-ada-002`` gives unrelated texts
cosines of about 0.7), some far apart. A fixed threshold then calls every pair related, or none.

:func:`scale_for` calibrates a model against MiniLM once per process: both embed the same texts, generic English
words from the bundled tokenizer's vocabulary (no data set's words) and simple variants of them ("the <word>",
"<word>s", two words together), and the model's cosine at each quantile of all their pairs is mapped to MiniLM's
cosine at the same quantile (a monotone, piecewise-linear map). Rankings are unchanged; a threshold means "as
related as MiniLM's 0.7". The bundled MiniLM itself gets the identity, exactly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Protocol

import numpy as np
from langchain_core.embeddings import Embeddings


class TextMatrix(Protocol):
    """What gives unit vectors of texts itself (:class:`~kg_agent.tools.shared.similarity.TextVectors`, whose
    vectors are kept in its vector files)."""

    def matrix(self, texts: list[str]) -> np.ndarray: ...


#: How many vocabulary words the calibration embeds (each model embeds them and ~2.5 variants each, ~1,000 texts).
CALIBRATION_WORDS = 300
_SORTED = np.sort(np.concatenate([np.linspace(0.0, 0.9, 46), 1.0 - np.geomspace(0.1, 1e-4, 61), [1.0]]))
#: The quantiles matched: evenly to 0.9, then ever closer to 1, where the deciders' thresholds lie (MiniLM's
#: 0.45-0.78 are about the top 2 % of pairs of unrelated words). Each value once, as ``np.unique`` gives them
#: (``np.unique`` itself imports ``numpy.ma``: ~10 CPU-ms of every process's start-up).
QUANTILES = _SORTED[np.concatenate([[True], _SORTED[1:] != _SORTED[:-1]])]


@dataclass(frozen=True)
class CosineScale:
    """A monotone map from one model's cosines to the reference model's (``model`` -> ``reference`` at matching
    quantiles, linear between); ``identity`` for the reference model itself."""

    model: tuple[float, ...] = ()
    reference: tuple[float, ...] = ()

    @property
    def identity(self) -> bool:
        return not self.model

    def __call__(self, cosines):
        """``cosines`` (a number or an array) on the reference scale; the same object back for the identity."""
        if self.identity:
            return cosines
        mapped = np.interp(cosines, self.model, self.reference)
        return float(mapped) if np.ndim(cosines) == 0 else mapped.astype(np.asarray(cosines).dtype, copy=False)


IDENTITY = CosineScale()


@lru_cache(maxsize=1)
def calibration_texts() -> tuple[str, ...]:
    """Generic English texts, the same for every model: :data:`CALIBRATION_WORDS` whole words of 4-10 letters taken
    at an even stride from the bundled WordPiece vocabulary, each also as "the <word>" and "<word>s", and
    consecutive pairs of them as two-word phrases."""
    tokenizer = resources.files("kg_agent").joinpath("data", "minilm", "tokenizer.json")
    vocabulary = json.loads(tokenizer.read_text(encoding="utf-8"))["model"]["vocab"]
    words = sorted((i, w) for w, i in vocabulary.items() if w.isalpha() and w.isascii() and 4 <= len(w) <= 10)
    step = max(1, len(words) // CALIBRATION_WORDS)
    chosen = [w for _, w in words[::step]][:CALIBRATION_WORDS]
    phrases = [f"{a} {b}" for a, b in zip(chosen[::2], chosen[1::2])]
    return tuple(dict.fromkeys([*chosen, *(f"the {w}" for w in chosen), *(f"{w}s" for w in chosen), *phrases]))


def unit_vectors(vectors) -> np.ndarray:
    """Each row scaled to length 1 (a zero row stays zero)."""
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=-1, keepdims=True)
    return array / np.where(norms == 0, 1, norms)


def pair_cosines(model: Embeddings | TextMatrix, texts: tuple[str, ...]) -> np.ndarray:
    """The cosines of every pair of ``texts`` under ``model`` (upper triangle, fixed order); a
    :class:`~kg_agent.tools.shared.similarity.TextVectors` reads and keeps its vectors in the attached vector files,
    so a later process embeds nothing."""
    matrix = model.matrix(list(texts)) if hasattr(model, "matrix") else unit_vectors(model.embed_documents(list(texts)))
    vectors = np.asarray(matrix, dtype=np.float64)
    return (vectors @ vectors.T)[np.triu_indices(len(texts), k=1)]


def fit_scale(embeddings: Embeddings | TextMatrix, reference: Embeddings | TextMatrix,
              texts: tuple[str, ...] | None = None) -> CosineScale:
    """The map from ``embeddings``' cosines to ``reference``'s, matched at :data:`QUANTILES` of all pairs of
    ``texts`` (default :func:`calibration_texts`), extended to -1 and 1 at the ends."""
    texts = texts or calibration_texts()
    model = np.quantile(pair_cosines(embeddings, texts), QUANTILES)
    target = np.quantile(pair_cosines(reference, texts), QUANTILES)
    model = np.maximum.accumulate(model)  # np.interp needs increasing x: drop ties (plateaus) at their first value
    keep = np.concatenate([[True], np.diff(model) > 1e-9])
    model, target = model[keep], target[keep]
    xs = [min(-1.0, float(model[0]) - 1e-6), *model.tolist(), max(1.0, float(model[-1]) + 1e-6)]
    ys = [-1.0, *target.tolist(), 1.0]
    return CosineScale(tuple(xs), tuple(ys))
