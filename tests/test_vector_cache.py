"""The persistent text-vector cache: texts embedded when first scored, once per model, kept beside the KG store
(issue 12 item 5) and in the user's file shared by every KG (issue 48 item 1); reused by later processes. Nothing is
embedded at load. Real MiniLM, real Oxigraph stores, real subprocesses."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kg_agent.embeddings import MiniLMEmbeddings
from kg_agent.kg import build_oxigraph, open_oxigraph, sample_kg_path
from kg_agent.tools.shared.similarity import TextVectors, VectorFile, embedding_model_key, use_vector_file

# A process that answers questions with RoG's similarity planner over the store, with MiniLM behind an
# embeddings object that counts the texts it is asked to embed (queries apart: questions are not cached).
ASK = textwrap.dedent('''
    import json, sys
    from langchain_core.embeddings import Embeddings
    from kg_agent.embeddings import default_embeddings
    from kg_agent.graphs import create_rog_graph
    from kg_agent.kg import open_oxigraph

    class CountingEmbeddings(Embeddings):
        model = "all-MiniLM-L6-v2 (counted)"
        def __init__(self):
            self.inner, self.texts, self.seen = default_embeddings(), 0, []
        def embed_documents(self, texts):
            self.texts += len(texts)
            self.seen += texts
            return self.inner.embed_documents(texts)
        def embed_query(self, text):
            return self.inner.embed_query(text)

    embeddings = CountingEmbeddings()
    with open_oxigraph(sys.argv[1]) as kg:
        app = create_rog_graph(kg, planner="similarity", embeddings=embeddings).compile()
        answers = []
        for question in sys.argv[2:]:
            result = app.invoke({"question": question})
            answers.append(sorted(a["answer"] for a in result["answers"])[:3])
    print(json.dumps({"embedded": embeddings.texts, "answers": answers, "texts": embeddings.seen}))
''')

QUESTIONS = ["who directed the films that [Tom Hanks] starred in", "what genre is [Apollo 13]"]


def run_process(*args: str, user_cache: Path | None = None) -> dict:
    """ASK in a new process; ``user_cache``: the folder of the user's shared vector file (default: none used)."""
    env = {**os.environ, "KG_AGENT_CACHE_DIR": str(user_cache) if user_cache else ""}
    done = subprocess.run([sys.executable, "-c", ASK, *args], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[1], env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture()
def own_vector_files(monkeypatch):
    """The files this test attaches are detached after it (other tests of the session never see them)."""
    from kg_agent.tools.shared import similarity

    monkeypatch.setattr(similarity, "_VECTOR_FILES", {})


@pytest.fixture()
def store(tmp_path) -> Path:
    target = tmp_path / "sample.oxigraph"
    build_oxigraph(sample_kg_path(), target)
    return target


def test_a_second_process_reuses_the_vectors_of_the_first(store):
    first = run_process(str(store), *QUESTIONS)
    assert first["embedded"] > 20  # every candidate relation path of both questions
    assert (store / "kg-agent" / "vectors.sqlite").exists()
    second = run_process(str(store), *QUESTIONS)
    assert second == {"embedded": 0, "answers": first["answers"], "texts": []}  # same answers, nothing embedded again


def test_a_second_store_reuses_the_user_file_and_a_disabled_one_is_not_written(tmp_path):
    """Two stores of the same KG: the first question on the second embeds nothing, its texts are in the user's
    vector file (keyed by the embeddings' model); with ``KG_AGENT_CACHE_DIR`` empty no such file is used."""
    user_cache = tmp_path / "user-cache"
    first = run_process(str(build_oxigraph(sample_kg_path(), tmp_path / "a")), *QUESTIONS, user_cache=user_cache)
    assert first["embedded"] > 20
    with sqlite3.connect(user_cache / "vectors.sqlite") as db:
        models = {model for (model,) in db.execute("SELECT DISTINCT model FROM vectors")}
    # the user's model, and the bundled MiniLM's vectors of the texts it was calibrated on (tools/shared/cosine_scale.py)
    assert models == {"CountingEmbeddings:all-MiniLM-L6-v2 (counted)", embedding_model_key(MiniLMEmbeddings())}
    second = run_process(str(build_oxigraph(sample_kg_path(), tmp_path / "b")), *QUESTIONS, user_cache=user_cache)
    assert second == {"embedded": 0, "answers": first["answers"], "texts": []}
    alone = run_process(str(build_oxigraph(sample_kg_path(), tmp_path / "c")), *QUESTIONS)
    assert alone["embedded"] == first["embedded"] and alone["answers"] == first["answers"]


class CountingMiniLM:
    """Counts the texts given to MiniLM in this process (every embedding of the offline deciders goes through
    :meth:`MiniLMEmbeddings.embed_array`)."""

    def __init__(self, monkeypatch) -> None:
        from kg_agent.embeddings import MiniLMEmbeddings

        self.texts: list[str] = []
        embed_array = MiniLMEmbeddings.embed_array

        def counted(embeddings, texts):
            self.texts += list(texts)
            return embed_array(embeddings, texts)

        monkeypatch.setattr(MiniLMEmbeddings, "embed_array", counted)


def wikidata_file(tmp_path, films: int) -> Path:
    """A Wikidata-shaped Turtle file (``wdt:P57`` named "director" by its property's label), 4 triples a film."""
    lines = ["@prefix wd: <http://www.wikidata.org/entity/> .", "@prefix wdt: <http://www.wikidata.org/prop/direct/> .",
             "@prefix wikibase: <http://wikiba.se/ontology#> .",
             "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
             'wd:P57 rdfs:label "director"@en ; wikibase:directClaim wdt:P57 .',
             'wd:P161 rdfs:label "cast member"@en ; wikibase:directClaim wdt:P161 .']
    for film in range(films):
        lines += [f'wd:Q{film} rdfs:label "Film {film}"@en ; wdt:P57 wd:Q{1000 + film % 50} ; '
                  f"wdt:P161 wd:Q{2000 + film % 70} ."]
    lines += [f'wd:Q{person} rdfs:label "Person {person}"@en .' for person in (*range(1000, 1050), *range(2000, 2070))]
    (tmp_path / "wikidata.ttl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path / "wikidata.ttl"


@pytest.mark.parametrize("films", [40, 2000])
def test_kg_agent_load_embeds_nothing_and_the_first_question_what_it_scores(own_vector_files, monkeypatch, tmp_path,
                                                                            capsys, films):
    """``kg-agent load`` runs no embedding, small file or large (it used to embed every relation and relation path
    of the schema: 5,283 texts, 28.6 s for a 64.6k-triple file, issue 48); the first question embeds the texts it
    scores, named as the store names the relations ("the director of [ENT]", never the IRI's "P57")."""
    from kg_agent.cli import main
    from kg_agent.embeddings import MiniLMEmbeddings
    from kg_agent.graphs import create_rog_graph

    monkeypatch.setenv("KG_AGENT_CACHE_DIR", str(tmp_path / "user-cache"))
    counting = CountingMiniLM(monkeypatch)
    assert main(["load", str(wikidata_file(tmp_path, films)), "--store", str(tmp_path / "wd")]) == 0
    assert "embedded" not in capsys.readouterr().out
    assert counting.texts == []
    assert not (tmp_path / "user-cache").exists()
    with open_oxigraph(tmp_path / "wd") as kg:
        app = create_rog_graph(kg, planner="similarity", embeddings=MiniLMEmbeddings())  # no vectors of other tests
        app.compile().invoke({"question": "who is the director of [Film 7]"})
    assert "the director of [ENT]" in counting.texts and not [text for text in counting.texts if "P57" in text]
    with sqlite3.connect(tmp_path / "user-cache" / "vectors.sqlite") as db:
        stored = {text for (text,) in db.execute("SELECT text FROM vectors")}
    assert "the director of [ENT]" in stored


def test_vectors_from_the_file_equal_computed_ones(own_vector_files, tmp_path):
    from kg_agent.embeddings import default_embeddings

    texts = ["directed by", "the starred actors of [ENT]"]
    fresh = TextVectors(default_embeddings()).matrix(texts)
    attached = use_vector_file(tmp_path / "v.sqlite")
    TextVectors(default_embeddings()).matrix(texts)  # computes and stores
    stored = attached.get(TextVectors(default_embeddings()).model_key, texts)
    assert sorted(stored) == sorted(texts)
    assert all((stored[t] == fresh[i]).all() for i, t in enumerate(texts))


def test_a_full_file_keeps_what_it_has(tmp_path):
    import numpy as np

    small = VectorFile(tmp_path / "small.sqlite", max_rows=2)
    small.put("m", {"a": np.ones(3), "b": np.ones(3), "c": np.ones(3)})
    small.put("m", {"d": np.ones(3)})
    assert len(small) == 2 and sorted(small.get("m", ["a", "b", "c", "d"])) == ["a", "b"]


def test_an_unusable_file_is_not_used_and_says_so(own_vector_files, tmp_path, caplog):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a database at all" * 100)
    assert use_vector_file(bad) is None
    assert "not used as a vector cache" in caplog.text
    assert use_vector_file(None) is None


def test_a_memory_kg_has_no_vector_file_unless_given(kg, tmp_path):
    from kg_agent.kg import kg_from_triples

    assert kg.vector_cache_path is None
    assert kg_from_triples([("a", "r", "b")]).vector_cache_path is None
    with open_oxigraph(build_oxigraph(sample_kg_path(), tmp_path / "s")) as opened:
        assert opened.vector_cache_path == tmp_path / "s" / "kg-agent" / "vectors.sqlite"
