"""ToG-2 against a real Chroma server (``chroma run`` from the installed chromadb) gives the embedded index's results.

The module starts ``chroma run --host 127.0.0.1 --port <free> --path <tmp>``, ingests the bundled plot
summaries through the HTTP client (``DocumentIndex.connect``), and runs ToG-2 offline with both indexes.
"""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from kg_agent.docs.index import DocumentIndex, DocumentIndexConnectionError, load_documents_jsonl
from kg_agent.graphs.tog2 import create_tog2_graph
from kg_agent.kg import entity_iri, sample_documents_path
from kg_agent.tools.tog2.documents import ingest_documents

pytestmark = pytest.mark.server  # starts a server process (pytest -m "not server" skips it)

QUESTIONS = [
    "who directed [Catch Me If You Can]",
    "what films did [Tom Hanks] star in",
    "who starred in films directed by [Robert Zemeckis]",
    "what genre is [Forrest Gump]",
    "who wrote the films directed by [Steven Spielberg]",
    "what language is [Toy Story] in",
]


def chroma_executable() -> str | None:
    beside = Path(sys.executable).with_name("chroma")  # the venv's console script
    return str(beside) if beside.exists() else shutil.which("chroma")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ChromaServer:
    """``chroma run`` on 127.0.0.1 with its data in ``path``; stopped with SIGTERM."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.log = path.parent / f"chroma-{self.port}.log"

    def __enter__(self) -> ChromaServer:
        executable = chroma_executable()
        if executable is None:
            pytest.skip("the chroma command of the chromadb package is not installed")
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [executable, "run", "--host", "127.0.0.1", "--port", str(self.port), "--path", str(self.path)],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"chroma run exited: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=2) as response:
                    if response.status == 200:
                        return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.2)
        self.__exit__()
        raise RuntimeError(f"chroma run did not answer within 60 s: {self.log.read_text(errors='replace')[-2000:]}")

    def __exit__(self, *exc) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


@pytest.fixture(scope="module")
def chroma(tmp_path_factory):
    with ChromaServer(tmp_path_factory.mktemp("chroma") / "data") as server:
        yield server


@pytest.fixture(scope="module")
def indexes(kg, chroma):
    """The same documents, ingested the same way, embedded in-process and in the Chroma server."""
    documents = load_documents_jsonl(sample_documents_path(), skip_empty=True)
    name = f"tog2_server_{uuid.uuid4().hex[:8]}"
    embedded = DocumentIndex.in_memory(collection=name)
    remote = DocumentIndex.connect(chroma.url, collection=name)
    first = ingest_documents(embedded, kg, documents)
    second = ingest_documents(remote, kg, documents)
    assert first == second and second.chunks_added > 0
    return embedded, remote


#: State keys that differ between any two runs (the messages list, the wall-clock start of the run).
VOLATILE = {"messages", "started_at"}


def _state(result: dict) -> dict:
    return json.loads(json.dumps({k: v for k, v in result.items() if k not in VOLATILE}, sort_keys=True))


def test_server_holds_the_same_chunks(indexes):
    embedded, remote = indexes
    assert remote.count() == embedded.count() > 0
    assert "HttpClient" in repr(remote) or "Client" in repr(remote)
    entities = sorted(embedded.entities())
    assert sorted(remote.entities()) == entities
    assert {e: [c.id for c in cs] for e, cs in remote.chunks_for_entities(entities).items()} == \
        {e: [c.id for c in cs] for e, cs in embedded.chunks_for_entities(entities).items()}
    hanks_films = [str(entity_iri(n)) for n in ("Forrest Gump", "Big", "Cast Away")]
    for query in ("a con man chased by the FBI", "a man stranded on an island"):
        want = embedded.search(query, k=5)
        got = remote.search(query, k=5)
        assert [c.id for c in got] == [c.id for c in want]
        assert [c.score for c in got] == pytest.approx([c.score for c in want], abs=1e-5)
        assert [c.id for c in remote.search(query, k=3, entities=hanks_films)] == \
            [c.id for c in embedded.search(query, k=3, entities=hanks_films)]


def test_tog2_same_answers_and_chunks_as_embedded(kg, indexes):
    embedded, remote = indexes
    on_embedded = create_tog2_graph(kg, documents=embedded).compile()
    on_server = create_tog2_graph(kg, documents=remote).compile()
    answered = 0
    for question in QUESTIONS:
        want = _state(on_embedded.invoke({"question": question}))
        got = _state(on_server.invoke({"question": question}))
        assert [a["answer"] for a in got["answers"]] == [a["answer"] for a in want["answers"]], question
        assert [d["id"] for d in got["documents"]] == [d["id"] for d in want["documents"]], question
        assert [d["id"] for d in got.get("references", [])] == [d["id"] for d in want.get("references", [])]
        assert got == want, question
        answered += bool(want["answers"])
    assert answered >= len(QUESTIONS) - 1
    catch_me = on_server.invoke({"question": QUESTIONS[0]})
    assert [a["answer"] for a in catch_me["answers"]] == ["Steven Spielberg"]
    assert catch_me["documents"][0]["entity"] == str(entity_iri("Catch Me If You Can"))


def test_reconnecting_reuses_the_server_collection(kg, chroma, indexes):
    _, remote = indexes
    again = DocumentIndex.connect(chroma.url, collection=remote.collection_name)  # no embeddings passed
    assert again.count() == remote.count()
    summary = ingest_documents(again, kg, load_documents_jsonl(sample_documents_path(), skip_empty=True))
    assert summary.ingested == 0 and summary.chunks_total == remote.count()  # nothing embedded twice


def test_dead_server_url_is_named(tmp_path):
    url = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(DocumentIndexConnectionError, match=url.replace(".", r"\.")):
        DocumentIndex.connect(url, collection="kg_agent_docs")


def test_tog2_and_the_cli_take_a_server_url_naming_the_collection(kg, chroma, indexes, capsys):
    from kg_agent import cli

    embedded, remote = indexes
    url = f"{chroma.url}?collection={remote.collection_name}"
    by_url = create_tog2_graph(kg, documents=url).compile().invoke({"question": QUESTIONS[0]})
    by_index = create_tog2_graph(kg, documents=embedded).compile().invoke({"question": QUESTIONS[0]})
    assert [a["answer"] for a in by_url["answers"]] == [a["answer"] for a in by_index["answers"]] == ["Steven Spielberg"]
    assert [d["id"] for d in by_url["documents"]] == [d["id"] for d in by_index["documents"]]
    assert cli.main(["ask", QUESTIONS[0], "--method", "tog2", "--model", "none", "--docs", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["answers"][0]["answer"] == "Steven Spielberg"


def test_a_server_url_with_an_empty_or_dead_collection_is_an_error_not_a_kg_only_run(kg, chroma, capsys, tmp_path):
    from kg_agent import cli

    with pytest.raises(ValueError, match=f"there is no collection 'never_ingested' in {chroma.url}".replace(".", r"\.")):
        create_tog2_graph(kg, documents=f"{chroma.url}?collection=never_ingested")
    with pytest.raises(ValueError, match="there is no collection 'never_ingested'"):  # it was not created
        DocumentIndex.connect(chroma.url, collection="never_ingested", create=False)
    DocumentIndex.connect(chroma.url, collection="made_empty")  # create=True, the default: an empty collection
    with pytest.raises(ValueError, match="no documents in collection 'made_empty'"):
        create_tog2_graph(kg, documents=f"{chroma.url}?collection=made_empty")
    dead = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(DocumentIndexConnectionError, match=dead.replace(".", r"\.")):
        create_tog2_graph(kg, documents=dead)
    assert cli.main(["ask", QUESTIONS[0], "--method", "tog2", "--model", "none", "--docs", dead]) == 2
    assert f"cannot reach the Chroma server at {dead}" in capsys.readouterr().err


def test_a_server_that_stops_answering_is_named_in_the_error(kg, tmp_path):
    documents = load_documents_jsonl(sample_documents_path(), skip_empty=True)
    with ChromaServer(tmp_path / "data") as server:
        index = DocumentIndex.connect(server.url, collection="stops_answering")
        ingest_documents(index, kg, documents)
        app = create_tog2_graph(kg, documents=index).compile()
        assert app.invoke({"question": QUESTIONS[0]})["answers"]
    server.process.wait(timeout=30)
    assert app.invoke({"question": QUESTIONS[0]})["answers"]  # its chunks are kept: no request needed
    named = f"the Chroma server at {server.url} stopped answering".replace(".", r"\.")
    for call in (index.count, lambda: index.search("a man stranded on an island", k=3), index.entities,
                 lambda: index.chunks_for_entities([str(entity_iri("Big"))]),
                 lambda: ingest_documents(index, kg, documents[:1]),
                 lambda: create_tog2_graph(kg, documents=index).compile().invoke({"question": QUESTIONS[0]})):
        with pytest.raises(DocumentIndexConnectionError, match=named):
            call()
