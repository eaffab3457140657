"""Entity documents for Think-on-Graph 2.0: link documents to KG entities and (re)use a document index.

A document (``{"title"|"entity", "text"}``) is about the KG entity its ``entity`` field names (an id or
a label), else the entity whose label equals its ``title`` (:meth:`KnowledgeGraph.find_entities`, case
and punctuation ignored; the best-connected one on ties). Documents that match no entity are stored
without one (they cannot be reached through the KG) and counted as *unlinked*.

:func:`ingest_documents` skips documents whose chunks are already in the index (same stable chunk ids),
so re-running an ingest over a persisted index embeds nothing twice. :func:`open_document_index` turns
what a user passes (an index, a persisted index folder, a JSONL file) into a :class:`DocumentIndex`; a JSONL file
is embedded once into a Chroma index in the user's cache folder (:mod:`kg_agent.user_cache`), kept per file content
and embedding model, which later runs and processes reuse.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from langchain_core.embeddings import Embeddings

from kg_agent.docs.index import (
    DEFAULT_CHUNK_OVERLAP,
    DEFAULT_CHUNK_SIZE,
    DEFAULT_COLLECTION,
    Document,
    DocumentIndex,
    chunk_id,
    chunk_text,
    load_documents_jsonl,
)
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.tools.shared.similarity import default_embeddings, embedding_model_key
from kg_agent.user_cache import user_cache_dir

logger = logging.getLogger(__name__)


def entity_for_document(kg: KnowledgeGraph, document: Document | Mapping[str, Any]) -> str | None:
    """The KG entity id a document is about (see the module docstring), or ``None``."""
    if not isinstance(document, Document):
        document = Document.from_mapping(document)
    for name in (document.entity, document.title):
        if not name:
            continue
        if kg.has_entity(name):
            return name
        found = kg.find_entities(name)
        if found:
            return found[0].id
    return None


@dataclass(frozen=True)
class IngestSummary:
    """What :func:`ingest_documents` did."""

    documents: int
    linked: int
    unlinked: int
    already_indexed: int
    ingested: int
    chunks_added: int
    chunks_total: int
    chunks_removed: int = 0


def _chunk_ids(index: DocumentIndex, document: Document) -> list[str]:
    pieces = chunk_text(document.text, chunk_size=index.chunk_size, chunk_overlap=index.chunk_overlap)
    return [chunk_id(document.entity, document.title, i, piece) for i, piece in enumerate(pieces)]


def ingest_documents(index: DocumentIndex, kg: KnowledgeGraph, documents: Iterable[Document | Mapping[str, Any]],
                     *, batch: int = 1000, prune: bool = False) -> IngestSummary:
    """Link documents to KG entities and ingest those whose chunks are not in ``index`` yet; with ``prune``, also
    remove the chunks none of ``documents`` has (a document now linked to another entity, or no longer in the
    set), so the index holds these documents as this KG links them."""
    linked_docs: list[Document] = []
    linked = unlinked = 0
    for raw in documents:
        document = raw if isinstance(raw, Document) else Document.from_mapping(raw)
        entity = entity_for_document(kg, document)
        if entity is None:
            unlinked += 1
        else:
            linked += 1
        linked_docs.append(Document(title=document.title, text=document.text, entity=entity, metadata=document.metadata))
    todo: list[Document] = []
    present = 0
    expected: set[str] = set()
    for start in range(0, len(linked_docs), batch):
        group = linked_docs[start:start + batch]
        ids = [_chunk_ids(index, d) for d in group]
        flat = [i for chunk_ids in ids for i in chunk_ids]
        expected.update(flat)
        existing = index.existing_ids(flat) if flat and index.count() else set()
        for document, chunk_ids in zip(group, ids):
            if chunk_ids and all(i in existing for i in chunk_ids):
                present += 1
            else:
                todo.append(document)
    stale = index.ids() - expected if prune and index.count() else set()
    if stale:
        index.delete_ids(stale)
    report = index.ingest(todo) if todo else None
    return IngestSummary(len(linked_docs), linked, unlinked, present, len(todo), report.chunks if report else 0,
                         index.count(), len(stale))


def _memory_collection_name(path: Path, embeddings: Embeddings | None) -> str:
    stat = path.stat()
    key = f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{type(embeddings).__qualname__ if embeddings else 'minilm'}"
    return "tog2_" + hashlib.sha1(key.encode()).hexdigest()[:16]


def document_cache_folder(path: Path, embeddings: Embeddings | None) -> Path | None:
    """Where the Chroma index of the document file at ``path`` is kept: ``<user cache>/documents/<key>``, the key a
    hash of the file's bytes, the embedding model and the chunking; ``None`` when the user's cache folder is turned
    off or the embeddings have no persistent name (:func:`~kg_agent.tools.shared.similarity.embedding_model_key`)."""
    folder = user_cache_dir()
    model = embedding_model_key(embeddings or default_embeddings())
    if folder is None or model is None:
        return None
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    digest.update(f"\0{model}\0{DEFAULT_CHUNK_SIZE}\0{DEFAULT_CHUNK_OVERLAP}".encode())
    return folder / "documents" / digest.hexdigest()[:32]


def _cached_document_index(kg: KnowledgeGraph, path: Path, embeddings: Embeddings | None,
                           collection: str | None) -> DocumentIndex | None:
    """The document file's index in the user's cache folder, brought up to date with ``kg``'s links (embedding only
    the documents it lacks: all of them the first time); ``None`` when there is no such folder or it cannot be used
    (a warning is logged)."""
    folder = document_cache_folder(path, embeddings)
    if folder is None:
        return None
    try:
        index = DocumentIndex(folder, collection=collection or DEFAULT_COLLECTION, embeddings=embeddings)
        ingest_documents(index, kg, load_documents_jsonl(path, skip_empty=True), prune=True)
    except Exception as exc:  # a cache that cannot be used (unwritable, corrupt): the documents are embedded as before
        logger.warning("%s: the document index cache at %s is not used (%s); the documents are embedded in memory",
                       path, folder, exc)
        return None
    return index


def open_document_index(kg: KnowledgeGraph, documents: DocumentIndex | str | Path, *, embeddings: Embeddings | None = None,
                        collection: str | None = None) -> DocumentIndex:
    """A :class:`DocumentIndex` from an index, a Chroma server URL, a persisted index folder or a JSONL file
    (embedded once into the user's cache folder, :func:`document_cache_folder`, and reused by later runs; in memory
    when that folder is turned off).

    A server URL names its collection in the query (``http://localhost:8000?collection=films``); without
    one, ``collection`` or the default collection is used. The collection must already hold the documents
    (ingest them with :func:`ingest_documents`); a missing or empty one raises ``ValueError`` (and a missing
    one is not created on the server).
    """
    if isinstance(documents, DocumentIndex):
        return documents
    if re.match(r"(?i)^https?://", str(documents)):
        parts = urlsplit(str(documents))
        named = dict(parse_qsl(parts.query)).get("collection")
        index = DocumentIndex.connect(urlunsplit(parts._replace(query="", fragment="")),
                                      collection=named or collection or DEFAULT_COLLECTION, embeddings=embeddings,
                                      create=False)
        if index.count() == 0:
            raise ValueError(f"the Chroma server at {documents} has no documents in collection "
                             f"{index.collection_name!r}; ingest them first (kg_agent.tools.tog2.documents.ingest_documents)")
        return index
    path = Path(documents)
    if path.is_dir():
        return DocumentIndex(path, collection=collection or DEFAULT_COLLECTION, embeddings=embeddings)
    if not path.exists():
        raise FileNotFoundError(f"documents not found: {path} (pass a document index folder or a JSONL file)")
    cached = _cached_document_index(kg, path, embeddings, collection)
    if cached is not None:
        return cached
    index = DocumentIndex.in_memory(collection=collection or _memory_collection_name(path, embeddings), embeddings=embeddings)
    ingest_documents(index, kg, load_documents_jsonl(path, skip_empty=True))
    return index


def _is_sample_kg(kg: KnowledgeGraph) -> bool:
    from kg_agent.kg.loading.samples import sample_kg_path

    try:
        return Path(str(kg.name)).resolve() == sample_kg_path().resolve()
    except (OSError, ValueError):
        return False


def resolve_documents(kg: KnowledgeGraph, documents, *, embeddings: Embeddings | None = None) -> tuple[DocumentIndex | None, list[str]]:
    """The document index to use and warnings: ``None`` means the bundled plots for the sample KG, else KG-only."""
    if documents is not None:
        return open_document_index(kg, documents, embeddings=embeddings), []
    if _is_sample_kg(kg):
        from kg_agent.kg.loading.samples import sample_documents_path

        return open_document_index(kg, sample_documents_path(), embeddings=embeddings), []
    return None, ["tog2: no documents given (documents=...); entities are ranked without document chunks (KG only)"]
