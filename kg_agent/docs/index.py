"""A document index over a Chroma collection: entity documents, chunked, embedded and searchable.

Documents are texts about knowledge-graph entities (Wikipedia paragraphs, movie plots). Each is
cut into overlapping word windows (:func:`chunk_text`), and every chunk is stored in Chroma with
its entity id and title as metadata, under a *stable* id (a sha256 of entity, title, chunk index
and chunk text). Ingest is an upsert, so re-ingesting the same documents — or re-running an
ingest that was killed half way — leaves exactly one copy of every chunk.

Search is cosine similarity (the collection is created in Chroma's ``cosine`` space) and can be
restricted to a set of entities, which is how the graph-reasoning methods retrieve text about
the entities they are exploring.

Three ways to reach Chroma::

    DocumentIndex("/path/to/index")                         # embedded, persisted on disk
    DocumentIndex.in_memory(collection="scratch_docs")      # embedded, in memory
    DocumentIndex.connect("http://localhost:8000", collection="kg_agent_docs")  # Chroma server

The embedding model defaults to the offline all-MiniLM-L6-v2 (:mod:`kg_agent.embeddings`);
any LangChain ``Embeddings`` may be passed instead.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import chromadb
import httpx
from chromadb.api import ClientAPI
from chromadb.api.types import Documents, EmbeddingFunction
from chromadb.config import Settings
from chromadb.errors import InternalError as ChromaInternalError
from chromadb.errors import NotFoundError
from langchain_core.embeddings import Embeddings

from kg_agent.docs.chroma_embedding import as_chroma_embedding_function
from kg_agent.text_files import jsonl_objects

__all__ = [
    "Chunk",
    "Document",
    "DocumentIndex",
    "DocumentIndexConnectionError",
    "DocumentIndexDamaged",
    "IngestReport",
    "MetadataValue",
    "chunk_text",
    "load_documents_jsonl",
    "load_metaqa_plots",
]

#: Scalar types Chroma accepts as metadata values.
MetadataValue = str | int | float | bool
#: Metadata keys the index writes itself; a document's own metadata may not use them.
RESERVED_METADATA_KEYS = frozenset({"entity", "title", "chunk_index", "document_key"})

DEFAULT_COLLECTION = "kg_agent_docs"
DEFAULT_CHUNK_SIZE = 150
DEFAULT_CHUNK_OVERLAP = 30
DEFAULT_UPSERT_BATCH_SIZE = 256
#: Entities per ``where``-filtered ``get`` call in :meth:`DocumentIndex.chunks_for_entities`.
_ENTITY_FILTER_BATCH = 500


def chroma_settings() -> Settings:
    """Chroma client settings used throughout kg_agent (telemetry off)."""
    return Settings(anonymized_telemetry=False)


class DocumentIndexConnectionError(ConnectionError):
    """The Chroma server at a URL could not be reached, or stopped answering."""


class DocumentIndexDamaged(ValueError):
    """A persistent index whose database cannot be read or written: damaged, not a Chroma index, or on a full disk.
    The message names the file and what to do."""


def damaged_index_error(path: Path, error: Exception) -> DocumentIndexDamaged:
    """The plain error for a Chroma database error of the persistent index at ``path``."""
    database = path / "chroma.sqlite3"
    reason = re.sub(r"^.*error returned from database: (\(code: \d+\) )?", "", " ".join(str(error).split()))[:200]
    if "full" in reason or "No space left" in reason:
        return DocumentIndexDamaged(f"{database}: the disk is full ({reason}); free some space and run the ingest "
                                    "again (chunks an earlier ingest wrote are kept and not embedded twice)")
    return DocumentIndexDamaged(f"{database}: the document index is damaged or is not a Chroma index ({reason}); "
                                f"delete the folder {path} and rebuild it with `kg-agent ingest --docs FILE --index {path}`")


def _names_the_server(method: Callable) -> Callable:
    """Turn a dropped connection to a Chroma server inside ``method`` into :class:`DocumentIndexConnectionError`
    naming the server, instead of httpx's bare "Connection refused"; and a persistent index's database error
    into :class:`DocumentIndexDamaged` naming its file."""

    @functools.wraps(method)
    def wrapper(self: DocumentIndex, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except httpx.TransportError as error:
            where = f"the Chroma server at {self.server_url}" if self.server_url else "the Chroma server"
            raise DocumentIndexConnectionError(f"{where} stopped answering ({method.__name__}): {error}") from error
        except ChromaInternalError as error:
            if self.path is None:
                raise
            raise damaged_index_error(self.path, error) from error

    return wrapper


@dataclass(frozen=True)
class Document:
    """A text about one knowledge-graph entity.

    Attributes:
        title: the document's title (e.g. the Wikipedia page or movie title).
        text: the document's text; must not be blank.
        entity: the KG entity id the document describes, if known.
        metadata: extra scalar metadata stored with every chunk.
    """

    title: str
    text: str
    entity: str | None = None
    metadata: Mapping[str, MetadataValue] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, record: Mapping[str, Any]) -> Document:
        """Build from a dict with ``text`` and ``title`` and/or ``entity``; other scalar keys
        (and a nested ``metadata`` dict) become metadata."""
        if "text" not in record:
            raise ValueError(f"document has no 'text': {_preview(record)}")
        entity = record.get("entity")
        title = record.get("title")
        if title is None and entity is None:
            raise ValueError(f"document needs a 'title' or an 'entity': {_preview(record)}")
        metadata: dict[str, MetadataValue] = {}
        for key, value in record.items():
            if key in {"text", "title", "entity", "metadata"}:
                continue
            if isinstance(value, MetadataValue):
                metadata[key] = value
        nested = record.get("metadata")
        if isinstance(nested, Mapping):
            metadata.update(nested)
        return cls(
            title=str(title if title is not None else entity),
            text=record["text"],
            entity=None if entity is None else str(entity),
            metadata=metadata,
        )


@dataclass(frozen=True)
class Chunk:
    """A stored piece of a document.

    Attributes:
        id: stable chunk id (sha256-based).
        entity: the KG entity id of its document, or ``None``.
        title: its document's title.
        text: the chunk text.
        score: cosine similarity to the query (``None`` when not from a search).
        rank: 1-based position in the result list it came in.
        chunk_index: 0-based position of the chunk in its document.
        metadata: the document's extra metadata.
    """

    id: str
    entity: str | None
    title: str
    text: str
    score: float | None
    rank: int
    chunk_index: int = 0
    metadata: Mapping[str, MetadataValue] = field(default_factory=dict)


@dataclass(frozen=True)
class IngestReport:
    """What :meth:`DocumentIndex.ingest` did.

    Attributes:
        documents: documents read.
        chunks: distinct chunks upserted.
        duplicate_chunks: chunks skipped because an identical chunk (same id) came earlier in
            the same ingest.
        batches: upsert calls made.
        linked_entities: documents whose entity came from the ``link`` callable.
        unlinked_documents: documents left without an entity.
    """

    documents: int
    chunks: int
    duplicate_chunks: int
    batches: int
    linked_entities: int
    unlinked_documents: int


def _preview(value: object, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_WORD = re.compile(r"\S+")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*$")


def chunk_text(text: str, *, chunk_size: int = DEFAULT_CHUNK_SIZE, chunk_overlap: int = DEFAULT_CHUNK_OVERLAP) -> list[str]:
    """Cut ``text`` into windows of at most ``chunk_size`` words overlapping by ~``chunk_overlap``.

    A window ends at the last sentence end inside it when that keeps at least half the window;
    otherwise it is cut at ``chunk_size`` words (texts without punctuation, like the MetaQA
    plots, are cut by words). The next window starts ``chunk_overlap`` words back, moved
    forward to a sentence start if one is in the overlap. Whitespace is normalised to single
    spaces. A text of at most ``chunk_size`` words is one chunk.
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    if not 0 <= chunk_overlap < chunk_size:
        raise ValueError(f"chunk_overlap must be in [0, chunk_size), got {chunk_overlap}")
    words = _WORD.findall(text)
    if not words:
        return []
    sentence_ends = [bool(_SENTENCE_END.search(word)) for word in words]
    chunks: list[str] = []
    start = 0
    while True:
        end = min(start + chunk_size, len(words))
        if end < len(words):
            min_end = start + max(1, chunk_size // 2)
            for candidate in range(end, min_end - 1, -1):
                if sentence_ends[candidate - 1]:
                    end = candidate
                    break
        chunks.append(" ".join(words[start:end]))
        if end >= len(words):
            return chunks
        next_start = max(end - chunk_overlap, start + 1)
        for candidate in range(next_start, end):
            if sentence_ends[candidate - 1]:
                next_start = candidate
                break
        start = next_start


def chunk_id(entity: str | None, title: str, chunk_index: int, text: str) -> str:
    """Stable id of a chunk: sha256 over entity, title, chunk index and chunk text (32 hex)."""
    key = "\x1f".join((entity or "", title, str(chunk_index), text))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


class DocumentIndex:
    """Entity documents in a Chroma collection, searchable by cosine similarity.

    Args:
        path: directory of an embedded persistent Chroma database; ``None`` (and no ``client``)
            means an in-memory database. Note that Chroma shares one in-memory database per
            process, so in-memory indexes need distinct ``collection`` names to stay apart.
        collection: collection name (3-512 characters of ``[a-zA-Z0-9._-]``).
        embeddings: any LangChain ``Embeddings`` (or Chroma embedding function); default: the
            offline all-MiniLM-L6-v2. When ``None`` and the collection already exists, the
            embedding function persisted in its configuration is used.
        client: an existing Chroma client to use instead of ``path``.
        chunk_size: maximum words per chunk.
        chunk_overlap: words shared by consecutive chunks of a document.
        upsert_batch_size: chunks per upsert call (capped by the client's maximum batch size).
        create: make the collection when it does not exist (default); ``False`` raises ``ValueError`` instead.
        server_url: the Chroma server ``client`` talks to, named in errors (set by :meth:`connect`).
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        collection: str = DEFAULT_COLLECTION,
        embeddings: Embeddings | EmbeddingFunction[Documents] | None = None,
        client: ClientAPI | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
        upsert_batch_size: int = DEFAULT_UPSERT_BATCH_SIZE,
        create: bool = True,
        server_url: str | None = None,
    ) -> None:
        chunk_text("probe", chunk_size=chunk_size, chunk_overlap=chunk_overlap)  # validates sizes
        if upsert_batch_size < 1:
            raise ValueError(f"upsert_batch_size must be >= 1, got {upsert_batch_size}")
        if client is not None and path is not None:
            raise ValueError("pass either path or client, not both")
        if client is None:
            if path is None:
                client = chromadb.EphemeralClient(settings=chroma_settings())
            else:
                Path(path).mkdir(parents=True, exist_ok=True)
                try:
                    client = chromadb.PersistentClient(path=str(path), settings=chroma_settings())
                except ChromaInternalError as error:
                    raise damaged_index_error(Path(path), error) from error
        self.client: ClientAPI = client
        self.server_url: str | None = server_url
        self.path: Path | None = Path(path) if path is not None else None
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.upsert_batch_size = upsert_batch_size
        try:
            self.collection = self._open_collection(collection, embeddings, create=create)
        except ChromaInternalError as error:
            if self.path is None:
                raise
            raise damaged_index_error(self.path, error) from error

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def in_memory(
        cls,
        *,
        collection: str = DEFAULT_COLLECTION,
        embeddings: Embeddings | EmbeddingFunction[Documents] | None = None,
        **options: Any,
    ) -> DocumentIndex:
        """An index in Chroma's in-process memory (gone when the process ends)."""
        return cls(None, collection=collection, embeddings=embeddings, **options)

    @classmethod
    def connect(
        cls,
        url: str,
        *,
        collection: str = DEFAULT_COLLECTION,
        embeddings: Embeddings | EmbeddingFunction[Documents] | None = None,
        headers: Mapping[str, str] | None = None,
        **options: Any,
    ) -> DocumentIndex:
        """An index in a running Chroma server, e.g. ``connect("http://localhost:8000")``.

        Raises:
            DocumentIndexConnectionError: the server at ``url`` does not answer.
        """
        parts = urlsplit(url)
        if parts.scheme not in {"http", "https"} or not parts.hostname:
            raise ValueError(f"expected a Chroma server URL like http://host:8000, got {url!r}")
        ssl = parts.scheme == "https"
        port = parts.port or (443 if ssl else 8000)
        try:
            client = chromadb.HttpClient(
                host=parts.hostname,
                port=port,
                ssl=ssl,
                headers=dict(headers or {}),
                settings=chroma_settings(),
            )
            client.heartbeat()
        except Exception as error:  # chromadb raises ValueError/httpx errors for a dead server
            raise DocumentIndexConnectionError(
                f"cannot reach the Chroma server at {url}: {error}"
            ) from error
        return cls(None, client=client, collection=collection, embeddings=embeddings, server_url=url, **options)

    def _open_collection(
        self, name: str, embeddings: Embeddings | EmbeddingFunction[Documents] | None, *, create: bool = True
    ) -> Any:
        if embeddings is None or not create:
            try:
                existing = self.client.get_collection(name)
            except NotFoundError:
                existing = None
            except ValueError as error:  # older chromadb versions raise ValueError
                if "does not exist" not in str(error):
                    raise
                existing = None
            if existing is None and not create:
                raise ValueError(f"there is no collection {name!r} in {self.server_url or self.path or 'this Chroma client'}")
            if existing is not None and embeddings is None:
                persisted_function = existing.configuration.get("embedding_function")
                if persisted_function is None:
                    raise ValueError(
                        f"collection {name!r} has no persisted embedding function kg_agent can "
                        "rebuild; pass embeddings= explicitly"
                    )
                self._check_cosine_space(existing)
                return self.client.get_collection(name, embedding_function=persisted_function)
        embedding_function = as_chroma_embedding_function(embeddings)
        collection = self.client.get_or_create_collection(
            name,
            configuration={"hnsw": {"space": "cosine"}},
            embedding_function=embedding_function,
        )
        self._check_cosine_space(collection)
        self._check_same_embeddings(collection, embedding_function)
        return collection

    @staticmethod
    def _check_cosine_space(collection: Any) -> None:
        hnsw = collection.configuration_json.get("hnsw") or {}
        spann = collection.configuration_json.get("spann") or {}
        space = hnsw.get("space") or spann.get("space") or (collection.metadata or {}).get("hnsw:space")
        if space not in (None, "cosine"):
            raise ValueError(
                f"collection {collection.name!r} uses the {space!r} distance; DocumentIndex needs "
                "'cosine' (use another collection name)"
            )

    @staticmethod
    def _check_same_embeddings(collection: Any, embedding_function: EmbeddingFunction[Documents]) -> None:
        persisted = collection.configuration_json.get("embedding_function") or {}
        if persisted.get("type") != "known" or persisted.get("name") != embedding_function.name():
            return  # Chroma itself rejects a different registered name
        persisted_class = (persisted.get("config") or {}).get("embeddings_class")
        current_class = embedding_function.get_config().get("embeddings_class")
        if persisted_class and current_class and persisted_class != current_class:
            raise ValueError(
                f"collection {collection.name!r} was embedded with {persisted_class}, not "
                f"{current_class}; use the same embeddings or another collection name"
            )

    @property
    def collection_name(self) -> str:
        return str(self.collection.name)

    def __repr__(self) -> str:
        where = f"path={str(self.path)!r}" if self.path is not None else f"client={type(self.client).__name__}"
        return f"{type(self).__name__}({where}, collection={self.collection_name!r})"

    # -- ingest ----------------------------------------------------------------------------

    @_names_the_server
    def ingest(
        self,
        documents: Iterable[Mapping[str, Any] | Document],
        *,
        link: Callable[[str], str | None] | None = None,
    ) -> IngestReport:
        """Chunk, embed and upsert documents; idempotent.

        Args:
            documents: :class:`Document` objects or dicts (see :meth:`Document.from_mapping`).
            link: maps a title to a KG entity id, for documents without an ``entity``.

        Raises:
            ValueError: a document has blank text, or metadata that Chroma cannot store.
        """
        maximum_batch = self.upsert_batch_size
        try:
            maximum_batch = min(maximum_batch, int(self.client.get_max_batch_size()))
        except Exception:  # not every client type reports a maximum
            pass
        documents_read = chunks_written = duplicates = batches = linked = unlinked = 0
        seen_ids: set[str] = set()
        pending_ids: list[str] = []
        pending_texts: list[str] = []
        pending_metadata: list[dict[str, MetadataValue]] = []

        def flush() -> None:
            nonlocal batches
            if pending_ids:
                self.collection.upsert(ids=pending_ids, documents=pending_texts, metadatas=pending_metadata)
                batches += 1
                pending_ids.clear()
                pending_texts.clear()
                pending_metadata.clear()

        for position, raw in enumerate(documents):
            document = raw if isinstance(raw, Document) else Document.from_mapping(raw)
            documents_read += 1
            if not isinstance(document.text, str) or not document.text.strip():
                raise ValueError(
                    f"document #{position} (title {document.title!r}) has empty text"
                )
            entity = document.entity
            if entity is None and link is not None:
                entity = link(document.title)
                if entity is not None:
                    linked += 1
            if entity is None:
                unlinked += 1
            base_metadata = self._chunk_metadata(document, entity, position)
            pieces = chunk_text(document.text, chunk_size=self.chunk_size, chunk_overlap=self.chunk_overlap)
            for chunk_index, piece in enumerate(pieces):
                identifier = chunk_id(entity, document.title, chunk_index, piece)
                if identifier in seen_ids:
                    duplicates += 1
                    continue
                seen_ids.add(identifier)
                pending_ids.append(identifier)
                pending_texts.append(piece)
                pending_metadata.append({**base_metadata, "chunk_index": chunk_index})
                chunks_written += 1
                if len(pending_ids) >= maximum_batch:
                    flush()
        flush()
        return IngestReport(
            documents=documents_read,
            chunks=chunks_written,
            duplicate_chunks=duplicates,
            batches=batches,
            linked_entities=linked,
            unlinked_documents=unlinked,
        )

    @staticmethod
    def _chunk_metadata(document: Document, entity: str | None, position: int) -> dict[str, MetadataValue]:
        metadata: dict[str, MetadataValue] = {}
        for key, value in document.metadata.items():
            if key in RESERVED_METADATA_KEYS:
                raise ValueError(
                    f"document #{position} (title {document.title!r}) uses the reserved metadata key {key!r}"
                )
            if not isinstance(value, MetadataValue):
                raise ValueError(
                    f"document #{position} (title {document.title!r}): metadata {key!r} must be "
                    f"str, int, float or bool, got {type(value).__name__}"
                )
            metadata[key] = value
        metadata["title"] = document.title
        metadata["document_key"] = entity if entity is not None else document.title
        if entity is not None:
            metadata["entity"] = entity
        return metadata

    # -- reading ---------------------------------------------------------------------------

    @_names_the_server
    def search(self, query: str, *, k: int = 5, entities: Collection[str] | None = None) -> list[Chunk]:
        """The ``k`` chunks most similar to ``query``, best first.

        Args:
            query: the search text; must not be blank.
            k: number of chunks to return (fewer if the index holds fewer).
            entities: only chunks of documents about these entity ids (an empty collection
                gives no results).
        """
        if not query.strip():
            raise ValueError("search query is empty")
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        where: dict[str, Any] | None = None
        if entities is not None:
            entity_list = sorted({str(entity) for entity in entities})
            if not entity_list:
                return []
            where = {"entity": {"$in": entity_list}}
        if self.collection.count() == 0:
            return []
        result = self.collection.query(
            query_texts=[query],
            n_results=k,
            where=where,
            include=["documents", "metadatas", "distances"],
        )
        ids = result["ids"][0]
        texts = (result.get("documents") or [[]])[0]
        metadatas = (result.get("metadatas") or [[]])[0]
        distances = (result.get("distances") or [[]])[0]
        return [
            self._chunk(identifier, text, metadata, score=1.0 - float(distance), rank=rank)
            for rank, (identifier, text, metadata, distance) in enumerate(
                zip(ids, texts, metadatas, distances, strict=True), start=1
            )
        ]

    @_names_the_server
    def chunks_for_entities(self, entities: Iterable[str]) -> dict[str, list[Chunk]]:
        """All chunks of the given entities, per entity, in document order (``score`` is None,
        ``rank`` is the 1-based position in the entity's list). Entities without chunks map to []."""
        return {entity: [chunk for chunk, _ in rows] for entity, rows in self._entity_chunks(entities, vectors=False).items()}

    @_names_the_server
    def chunk_vectors_for_entities(self, entities: Iterable[str]) -> dict[str, list[tuple[Chunk, Any]]]:
        """As :meth:`chunks_for_entities`, each chunk with its stored embedding (a sequence of floats)."""
        return self._entity_chunks(entities, vectors=True)

    def _entity_chunks(self, entities: Iterable[str], *, vectors: bool) -> dict[str, list[tuple[Chunk, Any]]]:
        wanted = list(dict.fromkeys(str(entity) for entity in entities))
        include = ["documents", "metadatas", *(["embeddings"] if vectors else [])]
        found: dict[str, list[tuple[str, int, str, str, Mapping[str, Any], Any]]] = {entity: [] for entity in wanted}
        for start in range(0, len(wanted), _ENTITY_FILTER_BATCH):
            batch = wanted[start : start + _ENTITY_FILTER_BATCH]
            result = self.collection.get(where={"entity": {"$in": batch}}, include=include)
            stored = result.get("embeddings") if vectors else None
            for row, (identifier, text, metadata) in enumerate(zip(
                result["ids"], result["documents"] or [], result["metadatas"] or [], strict=True
            )):
                entity = str(metadata["entity"])
                found[entity].append((str(metadata.get("title", "")), int(metadata.get("chunk_index", 0)), identifier,
                                      text, metadata, None if stored is None else stored[row]))
        grouped: dict[str, list[tuple[Chunk, Any]]] = {}
        for entity, rows in found.items():
            rows.sort(key=lambda row: (row[0], row[1], row[2]))
            grouped[entity] = [
                (self._chunk(identifier, text, metadata, score=None, rank=rank), vector)
                for rank, (_, _, identifier, text, metadata, vector) in enumerate(rows, start=1)
            ]
        return grouped

    @_names_the_server
    def existing_ids(self, ids: Iterable[str]) -> set[str]:
        """The chunk ids among ``ids`` that the collection holds."""
        ids = list(dict.fromkeys(ids))
        return set(self.collection.get(ids=ids, include=[])["ids"]) if ids else set()

    @_names_the_server
    def ids(self) -> set[str]:
        """Every chunk id the collection holds."""
        found: set[str] = set()
        page = 5000
        while True:
            batch = self.collection.get(include=[], limit=page, offset=len(found))["ids"]
            found.update(batch)
            if len(batch) < page:
                return found

    @_names_the_server
    def delete_ids(self, ids: Iterable[str]) -> None:
        """Remove the chunks with these ids."""
        wanted = list(dict.fromkeys(ids))
        for start in range(0, len(wanted), _ENTITY_FILTER_BATCH):
            self.collection.delete(ids=wanted[start : start + _ENTITY_FILTER_BATCH])

    @_names_the_server
    def count(self) -> int:
        """Number of chunks stored."""
        return int(self.collection.count())

    @_names_the_server
    def entities(self) -> set[str]:
        """The entity ids that have at least one chunk."""
        found: set[str] = set()
        page = 5000
        offset = 0
        while True:
            result = self.collection.get(include=["metadatas"], limit=page, offset=offset)
            metadatas = result["metadatas"] or []
            for metadata in metadatas:
                entity = metadata.get("entity")
                if entity is not None:
                    found.add(str(entity))
            if len(metadatas) < page:
                return found
            offset += page

    @_names_the_server
    def delete_entities(self, entities: Iterable[str]) -> None:
        """Remove every chunk of the given entities (e.g. before re-ingesting changed texts)."""
        wanted = list(dict.fromkeys(str(entity) for entity in entities))
        for start in range(0, len(wanted), _ENTITY_FILTER_BATCH):
            self.collection.delete(where={"entity": {"$in": wanted[start : start + _ENTITY_FILTER_BATCH]}})

    @staticmethod
    def _chunk(
        identifier: str, text: str, metadata: Mapping[str, Any] | None, *, score: float | None, rank: int
    ) -> Chunk:
        metadata = dict(metadata or {})
        entity = metadata.pop("entity", None)
        title = metadata.pop("title", "")
        chunk_index = metadata.pop("chunk_index", 0)
        metadata.pop("document_key", None)
        return Chunk(
            id=identifier,
            entity=None if entity is None else str(entity),
            title=str(title),
            text=text,
            score=score,
            rank=rank,
            chunk_index=int(chunk_index),
            metadata=metadata,
        )


# -- loaders ---------------------------------------------------------------------------------


def _iter_documents_jsonl(path: Path, *, skip_empty: bool) -> Iterator[Document]:
    for line_number, record in jsonl_objects(path):
        text = record.get("text")
        if not isinstance(text, str) or not text.strip():
            if skip_empty:
                continue
            raise ValueError(f"{path}:{line_number}: document has empty or missing 'text'")
        try:
            yield Document.from_mapping(record)
        except ValueError as error:
            raise ValueError(f"{path}:{line_number}: {error}") from error


def load_documents_jsonl(path: str | Path, *, skip_empty: bool = False) -> list[Document]:
    """Read documents from JSONL: one ``{"title"|"entity", "text", ...}`` object per line.

    Extra scalar fields (e.g. ``doc_id`` in 2WikiMultihopQA's ``docs_context_paragraphs.jsonl``)
    become chunk metadata. Blank text is an error naming the line unless ``skip_empty``.
    """
    return list(_iter_documents_jsonl(Path(path), skip_empty=skip_empty))


def load_metaqa_plots(path: str | Path, *, skip_empty: bool = False) -> list[Document]:
    """Read WikiMovies plot summaries, one ``title|has_plot|text`` line each.

    Titles are lower-cased upstream; link them to KG entities case-insensitively (e.g. with
    ``ingest(..., link=...)``). Titles may repeat (different films, same title).
    """
    path = Path(path)
    documents: list[Document] = []
    with path.open(encoding="utf-8") as stream:
        for line_number, line in enumerate(stream, start=1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            parts = line.split("|", 2)
            if len(parts) != 3 or parts[1] != "has_plot":
                raise ValueError(f"{path}:{line_number}: expected 'title|has_plot|text', got {_preview(line)}")
            title, _, text = parts
            if not text.strip():
                if skip_empty:
                    continue
                raise ValueError(f"{path}:{line_number}: plot of {title!r} is empty")
            documents.append(Document(title=title.strip(), text=text.strip()))
    return documents
