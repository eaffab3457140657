"""The persistent text-vector cache: relation names and paths embedded once per KG store, reused by later
processes (issue 12 item 5). Real MiniLM, real Oxigraph stores, real subprocesses."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kg_agent.kg import build_oxigraph, open_oxigraph, sample_kg_path
from kg_agent.tools.shared.similarity import TextVectors, VectorFile, use_vector_file

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
    if sys.argv[2] == "precompute":
        from kg_agent.tools.shared.relation_vectors import precompute_relation_vectors
        with open_oxigraph(sys.argv[1]) as kg:
            stored = precompute_relation_vectors(kg.relation_index(), kg.vector_cache_path, embeddings=embeddings)
        print(json.dumps({"embedded": embeddings.texts, "stored": stored}))
        raise SystemExit
    with open_oxigraph(sys.argv[1]) as kg:
        app = create_rog_graph(kg, planner="similarity", embeddings=embeddings).compile()
        answers = []
        for question in sys.argv[2:]:
            result = app.invoke({"question": question})
            answers.append(sorted(a["answer"] for a in result["answers"])[:3])
    print(json.dumps({"embedded": embeddings.texts, "answers": answers, "texts": embeddings.seen}))
''')

QUESTIONS = ["who directed the films that [Tom Hanks] starred in", "what genre is [Apollo 13]"]


def run_process(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", ASK, *args], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[1])
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


def test_relation_vectors_computed_at_load_serve_the_first_question(store, tmp_path):
    precomputed = run_process(str(store), "precompute")
    assert precomputed["stored"] > 0 and precomputed["embedded"] == precomputed["stored"]
    with_names = run_process(str(store), "what genre is [Apollo 13]")
    without = run_process(str(build_oxigraph(sample_kg_path(), tmp_path / "plain")), "what genre is [Apollo 13]")
    # every candidate relation path (1 to 3 hops) was embedded at load: the first question embeds its own
    # phrases only, none of the paths' verbalisations ("the has genre of [ENT]")
    assert 0 < with_names["embedded"] < without["embedded"]
    assert not [text for text in with_names["texts"] if "[ENT]" in text]
    assert [text for text in without["texts"] if "[ENT]" in text]
    assert with_names["answers"] == without["answers"]


def test_kg_agent_load_embeds_the_relation_names(own_vector_files, tmp_path, capsys):
    from kg_agent.cli import main

    assert main(["load", str(sample_kg_path()), "--store", str(tmp_path / "loaded")]) == 0
    assert "relation texts embedded for the offline deciders" in capsys.readouterr().out
    with sqlite3.connect(tmp_path / "loaded" / "kg-agent" / "vectors.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] > 0


def test_kg_agent_load_of_a_small_file_embeds_nothing(own_vector_files, tmp_path, capsys):
    """A 300-triple file: its questions embed the few texts they need; the load does not spend seconds of MiniLM
    on every relation path of its schema (issue 23: 797 texts for 300 triples)."""
    from kg_agent.cli import main
    from kg_agent.tools.shared.relation_vectors import MIN_PRECOMPUTED_TRIPLES

    lines = [f"<http://e/f{i}> <http://r/p{i % 12}> <http://e/g{i % 40}> ." for i in range(300)]
    (tmp_path / "small.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert 300 < MIN_PRECOMPUTED_TRIPLES
    assert main(["load", str(tmp_path / "small.nt"), "--store", str(tmp_path / "small")]) == 0
    assert "relation texts embedded" not in capsys.readouterr().out
    vectors = tmp_path / "small" / "kg-agent" / "vectors.sqlite"
    if vectors.exists():
        with sqlite3.connect(vectors) as db:
            assert db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] == 0


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


@pytest.mark.parametrize("suffix", ["ttl", "nt"])
def test_kg_agent_load_embeds_relations_by_their_property_labels(own_vector_files, tmp_path, capsys, suffix):
    """A Wikidata-shaped file names ``wdt:P57`` "director" (its property's label, linked by ``wikibase:directClaim``):
    the texts the first question's planner embeds ("the director of [ENT]") are in the store's vector file after
    ``kg-agent load`` (issue 23: the first questions on a big Wikidata store embedded them), embedded once, beside the
    bulk load: the index pass reads the property labels from the file, so the IRIs' local names ("the P57 of
    [ENT]"), which nothing asks for, are not embedded too (issue 29: on a 2M-triple Wikidata-shaped file that second
    pass was 12 s after the load). Turtle and N-Triples go through different index passes."""
    from kg_agent.cli import main
    from kg_agent.kg.relation_paths import verbalize_relation_path
    from kg_agent.tools.shared.relation_vectors import MIN_PRECOMPUTED_TRIPLES

    lines = ["@prefix wd: <http://www.wikidata.org/entity/> .", "@prefix wdt: <http://www.wikidata.org/prop/direct/> .",
             "@prefix wikibase: <http://wikiba.se/ontology#> .",
             "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
             'wd:P57 rdfs:label "director"@en ; wikibase:directClaim wdt:P57 .',
             'wd:P161 rdfs:label "cast member"@en ; wikibase:directClaim wdt:P161 .']
    for film in range(400):
        lines += [f'wd:Q{film} rdfs:label "Film {film}"@en ; wdt:P57 wd:Q{1000 + film % 50} ; '
                  f"wdt:P161 wd:Q{2000 + film % 70} ."]
    lines += [f'wd:Q{person} rdfs:label "Person {person}"@en .' for person in (*range(1000, 1050), *range(2000, 2070))]
    (tmp_path / "wikidata.ttl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if suffix == "nt":
        import pyoxigraph as ox

        ox.serialize(ox.parse(path=tmp_path / "wikidata.ttl", format=ox.RdfFormat.TURTLE),
                     output=tmp_path / "wikidata.nt", format=ox.RdfFormat.N_TRIPLES)
    assert main(["load", str(tmp_path / f"wikidata.{suffix}"), "--store", str(tmp_path / "wd")]) == 0
    out = capsys.readouterr().out
    assert "relation texts embedded for the offline deciders" in out and "beside the load" in out, out
    with open_oxigraph(tmp_path / "wd") as kg:
        assert len(kg) > MIN_PRECOMPUTED_TRIPLES
        assert "director" in kg.store.names.names()
    with sqlite3.connect(tmp_path / "wd" / "kg-agent" / "vectors.sqlite") as db:
        stored = {text for (text,) in db.execute("SELECT text FROM vectors")}
    assert {verbalize_relation_path(("director",)), verbalize_relation_path(("^cast member", "director"))} <= stored
    assert verbalize_relation_path(("P57",)) not in stored
