"""ToG-2's document file embedded once (issue 48 item 3): ``open_document_index`` on a JSONL file builds a Chroma
index in the user's cache folder, per file content and embedding model; later processes reuse it and embed nothing;
a KG that links a document otherwise re-embeds that document only. Real MiniLM, real Chroma, real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Opens the documents over a KG of the given triples with MiniLM behind embeddings that count the texts they embed
# (queries apart), searches them and reports what the index holds.
OPEN = textwrap.dedent('''
    import json, sys
    from langchain_core.embeddings import Embeddings
    from kg_agent.embeddings import default_embeddings
    from kg_agent.kg import kg_from_triples
    from kg_agent.tools.tog2.documents import open_document_index

    class CountingEmbeddings(Embeddings):
        model = "all-MiniLM-L6-v2 (counted)"
        def __init__(self):
            self.inner, self.texts = default_embeddings(), 0
        def embed_documents(self, texts):
            self.texts += len(texts)
            return self.inner.embed_documents(texts)
        def embed_query(self, text):
            return self.inner.embed_query(text)

    kg = kg_from_triples([tuple(t) for t in json.loads(sys.argv[2])])
    embeddings = CountingEmbeddings()
    index = open_document_index(kg, sys.argv[1], embeddings=embeddings)
    hits = [chunk.id for chunk in index.search("a space mission goes wrong", k=3)]
    print(json.dumps({"embedded": embeddings.texts, "chunks": index.count(), "hits": hits,
                      "entities": sorted(index.entities())}))
''')

TRIPLES = [("Apollo 13", "directed_by", "Ron Howard"), ("Splash", "directed_by", "Ron Howard"),
           ("Big", "directed_by", "Penny Marshall")]
DOCUMENTS = [("Apollo 13", "An oxygen tank explodes on the way to the Moon and the crew must improvise to get home."),
             ("Splash", "A man falls in love with a mermaid in New York."),
             ("Big", "A boy wishes to be big and wakes up as a grown man."),
             ("Ron Howard", "An American director and former child actor."),
             ("Penny Marshall", "An American director and actress, star of a television comedy."),
             ("Nobody Here", "A paragraph about nothing the KG knows.")]


@pytest.fixture()
def documents(tmp_path) -> Path:
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"title": t, "text": x}) + "\n" for t, x in DOCUMENTS), encoding="utf-8")
    return path


def open_in_process(documents: Path, cache: Path | str, triples=TRIPLES) -> dict:
    env = {**os.environ, "KG_AGENT_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", OPEN, str(documents), json.dumps(triples)], capture_output=True,
                          text=True, timeout=300, cwd=Path(__file__).resolve().parents[1], env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_embeds_nothing_and_finds_the_same(documents, tmp_path):
    first = open_in_process(documents, tmp_path / "cache")
    assert first["embedded"] == len(DOCUMENTS) == first["chunks"]
    assert [path.name for path in (tmp_path / "cache" / "documents").iterdir()]  # one index, kept
    second = open_in_process(documents, tmp_path / "cache")
    assert second == {**first, "embedded": 0}
    in_memory = open_in_process(documents, "")  # the user's cache folder turned off: embedded in memory, as before
    assert in_memory == first


def test_changed_links_re_embed_those_documents_only_and_drop_their_old_chunks(documents, tmp_path):
    first = open_in_process(documents, tmp_path / "cache")
    assert len(first["entities"]) == 5
    without_big = [t for t in TRIPLES if t[0] != "Big"]  # Big and Penny Marshall are no longer KG entities
    second = open_in_process(documents, tmp_path / "cache", without_big)
    assert second["embedded"] == 2 and second["chunks"] == len(DOCUMENTS)  # their chunks, now unlinked, replaced
    assert len(second["entities"]) == 3
    assert second == {**open_in_process(documents, "", without_big), "embedded": 2}


def test_an_edited_file_gets_its_own_index(documents, tmp_path):
    open_in_process(documents, tmp_path / "cache")
    with documents.open("a", encoding="utf-8") as stream:
        stream.write(json.dumps({"title": "Splash", "text": "Tom Hanks and Daryl Hannah star."}) + "\n")
    again = open_in_process(documents, tmp_path / "cache")
    assert again["embedded"] == len(DOCUMENTS) + 1
    assert len(list((tmp_path / "cache" / "documents").iterdir())) == 2
