"""Entity documents: offline embeddings and a Chroma-backed document index.

Importing this package registers kg_agent's embedding functions with Chroma, so collections
persisted by :class:`DocumentIndex` reopen (even through a plain ``chromadb`` client) without
passing the embedding function again.
"""

from kg_agent.docs.chroma_embedding import (
    LangChainEmbeddingFunction,
    MiniLMEmbeddingFunction,
    UnboundEmbeddingsError,
    as_chroma_embedding_function,
)
from kg_agent.docs.index import (
    Chunk,
    Document,
    DocumentIndex,
    DocumentIndexConnectionError,
    IngestReport,
    chunk_text,
    load_documents_jsonl,
    load_metaqa_plots,
)
from kg_agent.embeddings import (
    EMBEDDING_DIMENSION,
    MiniLMEmbeddings,
    ModelFileError,
    default_embeddings,
)

__all__ = [
    "EMBEDDING_DIMENSION",
    "Chunk",
    "Document",
    "DocumentIndex",
    "DocumentIndexConnectionError",
    "IngestReport",
    "LangChainEmbeddingFunction",
    "MiniLMEmbeddingFunction",
    "MiniLMEmbeddings",
    "ModelFileError",
    "UnboundEmbeddingsError",
    "as_chroma_embedding_function",
    "chunk_text",
    "default_embeddings",
    "load_documents_jsonl",
    "load_metaqa_plots",
]
