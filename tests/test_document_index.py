"""DocumentIndex over a real Chroma collection, embedded with the real offline MiniLM model."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from kg_agent.docs import (
    Chunk,
    Document,
    DocumentIndex,
    DocumentIndexConnectionError,
    UnboundEmbeddingsError,
    chunk_text,
    load_documents_jsonl,
    load_metaqa_plots,
)
from kg_agent.docs.index import chunk_id

PROJECT_ROOT = Path(__file__).resolve().parent.parent

DOCUMENTS = [
    {"entity": "Q90", "title": "Paris", "text": "Paris is the capital and largest city of France. "
     "It is known for the Eiffel Tower and the Louvre museum."},
    {"entity": "Q64", "title": "Berlin", "text": "Berlin is the capital of Germany. "
     "The Brandenburg Gate stands in the city centre."},
    {"entity": "Q1339", "title": "Johann Sebastian Bach", "text": "Johann Sebastian Bach was a German "
     "composer of the Baroque period, famous for the Brandenburg Concertos and the Mass in B minor."},
    {"entity": "Q5582", "title": "Vincent van Gogh", "text": "Vincent van Gogh was a Dutch painter "
     "whose works include The Starry Night and Sunflowers."},
    {"title": "Kismet", "text": "hafiz a rascally beggar on the periphery of the court of baghdad "
     "schemes to marry his daughter to royalty"},
]


def unique_collection() -> str:
    """In-memory Chroma is shared per process: give each in-memory index its own collection."""
    return f"test_docs_{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="module")
def persisted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, DocumentIndex]:
    path = tmp_path_factory.mktemp("chroma")
    index = DocumentIndex(path, collection="kg_docs_test")
    index.ingest(DOCUMENTS)
    return path, index


# -- chunking -----------------------------------------------------------------------------


def test_chunk_text_windows_overlap_and_prefer_sentence_ends() -> None:
    assert chunk_text("one two three", chunk_size=10, chunk_overlap=2) == ["one two three"]
    assert chunk_text("   \n ", chunk_size=10, chunk_overlap=2) == []
    words = " ".join(str(number) for number in range(25))
    assert chunk_text(words, chunk_size=10, chunk_overlap=3) == [
        "0 1 2 3 4 5 6 7 8 9",
        "7 8 9 10 11 12 13 14 15 16",
        "14 15 16 17 18 19 20 21 22 23",
        "21 22 23 24",
    ]
    text = "Alpha beta gamma delta epsilon zeta. Eta theta iota kappa lambda. Mu nu xi omicron pi."
    chunks = chunk_text(text, chunk_size=8, chunk_overlap=3)
    assert chunks[0] == "Alpha beta gamma delta epsilon zeta."
    assert all(len(chunk.split()) <= 8 for chunk in chunks)
    assert chunks[-1].endswith("omicron pi.")
    with pytest.raises(ValueError):
        chunk_text("x", chunk_size=5, chunk_overlap=5)


def test_chunk_ids_are_stable_and_distinguish_documents() -> None:
    assert chunk_id("Q1", "T", 0, "text") == chunk_id("Q1", "T", 0, "text")
    assert chunk_id("Q1", "T", 0, "text") != chunk_id("Q2", "T", 0, "text")
    assert chunk_id("Q1", "T", 0, "text") != chunk_id("Q1", "T", 1, "text")


# -- ingest and search --------------------------------------------------------------------


def test_ingest_and_search(persisted: tuple[Path, DocumentIndex]) -> None:
    _, index = persisted
    assert index.count() == len(DOCUMENTS)
    results = index.search("Which city has the Eiffel Tower?", k=3)
    assert [chunk.rank for chunk in results] == [1, 2, 3]
    top = results[0]
    assert isinstance(top, Chunk)
    assert (top.entity, top.title) == ("Q90", "Paris")
    assert 0.3 < top.score <= 1.0
    assert results[0].score >= results[1].score >= results[2].score
    assert index.search("anything", k=50).__len__() == len(DOCUMENTS)


def test_search_restricted_to_entities(persisted: tuple[Path, DocumentIndex]) -> None:
    _, index = persisted
    results = index.search("Brandenburg", k=5, entities=["Q1339", "Q5582"])
    assert {chunk.entity for chunk in results} <= {"Q1339", "Q5582"}
    assert results[0].entity == "Q1339"  # Brandenburg Concertos, not the Berlin gate
    assert index.search("Brandenburg", entities=[]) == []
    assert index.search("Brandenburg", entities=["Q-unknown"]) == []


def test_chunks_for_entities_count_and_entities(persisted: tuple[Path, DocumentIndex]) -> None:
    _, index = persisted
    grouped = index.chunks_for_entities(["Q64", "Q-unknown"])
    assert list(grouped) == ["Q64", "Q-unknown"]
    assert grouped["Q-unknown"] == []
    (berlin,) = grouped["Q64"]
    assert berlin.title == "Berlin" and berlin.text.startswith("Berlin is") and berlin.score is None
    assert index.entities() == {"Q90", "Q64", "Q1339", "Q5582"}  # Kismet has no entity


def test_reingest_is_idempotent_and_a_killed_ingest_rerun_leaves_one_copy(tmp_path: Path) -> None:
    long_text = " ".join(f"Sentence {number} talks about item {number}." for number in range(60))
    documents = [*DOCUMENTS, {"entity": "Q-long", "title": "Long", "text": long_text}]
    index = DocumentIndex(tmp_path, chunk_size=40, chunk_overlap=8, upsert_batch_size=3)
    first = index.ingest(documents)
    assert first.chunks > len(documents) and first.batches > 1
    count = index.count()
    assert count == first.chunks
    assert index.ingest(documents).chunks == first.chunks
    assert index.count() == count

    killed = DocumentIndex(tmp_path / "killed", chunk_size=40, chunk_overlap=8, upsert_batch_size=3)
    killed.ingest(documents[:2])  # the run that died half way
    killed.ingest(documents)  # the re-run
    assert killed.count() == count
    assert set(killed.collection.get()["ids"]) == set(index.collection.get()["ids"])


def test_duplicate_documents_in_one_ingest_are_stored_once() -> None:
    index = DocumentIndex.in_memory(collection=unique_collection())
    report = index.ingest([DOCUMENTS[0], DOCUMENTS[0]])
    assert (report.documents, report.chunks, report.duplicate_chunks) == (2, 1, 1)
    assert index.count() == 1


def test_link_maps_titles_to_entities_and_metadata_is_kept() -> None:
    index = DocumentIndex.in_memory(collection=unique_collection())
    plots = [Document(title="kismet", text="a beggar in baghdad schemes", metadata={"source": "plots"}),
             Document(title="unknown film", text="nothing links here")]
    report = index.ingest(plots, link={"kismet": "Kismet"}.get)
    assert (report.linked_entities, report.unlinked_documents) == (1, 1)
    (chunk,) = index.chunks_for_entities(["Kismet"])["Kismet"]
    assert chunk.title == "kismet" and chunk.metadata == {"source": "plots"}


def test_clear_errors_for_bad_documents_and_queries() -> None:
    index = DocumentIndex.in_memory(collection=unique_collection())
    with pytest.raises(ValueError, match="empty text"):
        index.ingest([{"title": "Blank", "text": "  "}])
    with pytest.raises(ValueError, match="title"):
        index.ingest([{"text": "no title or entity"}])
    with pytest.raises(ValueError, match="reserved"):
        index.ingest([Document(title="T", text="t", metadata={"entity": "x"})])
    with pytest.raises(ValueError, match="empty"):
        index.search("   ")


def test_dead_server_url_is_named_in_the_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with pytest.raises(DocumentIndexConnectionError, match=url):
        DocumentIndex.connect(url, collection="kg_agent_docs")
    with pytest.raises(ValueError, match="URL"):
        DocumentIndex.connect("localhost:8000")


# -- persistence --------------------------------------------------------------------------


def test_reopen_in_a_new_process_without_passing_the_embedding_function(
    persisted: tuple[Path, DocumentIndex],
) -> None:
    path, _ = persisted
    script = f"""
import json, chromadb
from chromadb.config import Settings
import kg_agent.docs  # registers kg_agent's embedding functions with Chroma
client = chromadb.PersistentClient(path={str(path)!r}, settings=Settings(anonymized_telemetry=False))
collection = client.get_collection("kg_docs_test")  # no embedding_function passed
raw = collection.query(query_texts=["Dutch painter of Sunflowers"], n_results=1)
index = kg_agent.docs.DocumentIndex({str(path)!r}, collection="kg_docs_test")
top = index.search("Dutch painter of Sunflowers", k=1)[0]
print(json.dumps({{"raw": raw["metadatas"][0][0]["entity"], "index": top.entity, "count": index.count()}}))
"""
    environment = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=environment, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    answer = json.loads(completed.stdout.strip().splitlines()[-1])
    assert answer == {"raw": "Q5582", "index": "Q5582", "count": len(DOCUMENTS)}


def test_reopen_in_the_same_process_keeps_the_minilm_function(persisted: tuple[Path, DocumentIndex]) -> None:
    path, _ = persisted
    reopened = DocumentIndex(path, collection="kg_docs_test")
    assert reopened.search("German composer", k=1)[0].entity == "Q1339"


# -- other LangChain embeddings -----------------------------------------------------------


def test_any_langchain_embeddings_can_back_the_index(tmp_path: Path) -> None:
    from langchain_core.embeddings import DeterministicFakeEmbedding

    fake = DeterministicFakeEmbedding(size=32)
    index = DocumentIndex(tmp_path, collection="fake_docs", embeddings=fake)
    index.ingest(DOCUMENTS)
    assert index.count() == len(DOCUMENTS)
    # deterministic fake vectors: the exact text of a chunk is its own nearest neighbour
    paris_text = DOCUMENTS[0]["text"]
    top = index.search(paris_text, k=1)[0]
    assert top.entity == "Q90" and top.score == pytest.approx(1.0, abs=1e-4)

    with pytest.raises(UnboundEmbeddingsError, match="DeterministicFakeEmbedding"):
        DocumentIndex(tmp_path, collection="fake_docs").search("anything")
    again = DocumentIndex(tmp_path, collection="fake_docs", embeddings=DeterministicFakeEmbedding(size=32))
    assert again.search(paris_text, k=1)[0].entity == "Q90"


# -- loaders ------------------------------------------------------------------------------


def test_load_documents_jsonl_and_metaqa_plots(tmp_path: Path) -> None:
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text(
        '{"doc_id": "d1", "title": "Paris", "text": "Paris is in France."}\n\n'
        '{"entity": "Q64", "text": "Berlin is in Germany."}\n',
        encoding="utf-8",
    )
    first, second = load_documents_jsonl(jsonl)
    assert (first.title, first.entity, dict(first.metadata)) == ("Paris", None, {"doc_id": "d1"})
    assert (second.title, second.entity) == ("Q64", "Q64")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"title": "Blank", "text": ""}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl:1"):
        load_documents_jsonl(bad)
    assert load_documents_jsonl(bad, skip_empty=True) == []

    plots = tmp_path / "plots.txt"
    plots.write_text("kismet|has_plot|hafiz a rascally beggar\nthe bride wore black|has_plot|julie kohler\n",
                     encoding="utf-8")
    loaded = load_metaqa_plots(plots)
    assert [(document.title, document.text) for document in loaded] == [
        ("kismet", "hafiz a rascally beggar"), ("the bride wore black", "julie kohler")]
    plots.write_text("no plot separator here\n", encoding="utf-8")
    with pytest.raises(ValueError, match="has_plot"):
        load_metaqa_plots(plots)


@pytest.mark.full_data
def test_loaders_read_the_shared_benchmark_files(data_dir: Path) -> None:
    paragraphs = load_documents_jsonl(data_dir / "twowiki" / "docs_context_paragraphs.jsonl")
    assert len(paragraphs) == 3301 and all(document.text for document in paragraphs)
    plots = load_metaqa_plots(data_dir / "metaqa" / "wikimovies_plots.txt")
    assert len(plots) == 17341
    index = DocumentIndex.in_memory(collection=unique_collection())
    index.ingest(paragraphs[:20])
    assert index.search(paragraphs[3].text, k=1)[0].title == paragraphs[3].title
