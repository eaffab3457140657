"""The questions a KG taught kept with the KG (issue 45 item 4): beside an Oxigraph store, in the user's cache for an
in-memory KG, reused by a second open and taught again for a changed KG; and the taught planner's votes re-ordering
only the scorer's leading plans of its top plan's hop count. Fixture: a railway (tests/fixtures/kg/railway.nt)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph, open_sparql
from kg_agent.kg.store_folder import SIDECAR_DIR, TAUGHT_FILE, foreign_files
from kg_agent.tools.rog.exemplar import Exemplar
from kg_agent.tools.rog.plan import SimilarityPlanner, TaughtPlanner
from kg_agent.tools.rog.taught_exemplars import teach_exemplars
from kg_agent.tools.rog.taught_store import kept_exemplars, kg_fingerprint, taught_file
from kg_agent.tools.shared.scoring import mask_mentions
from kg_agent.tools.shared.similarity import VectorFile, embedding_model_key, shared_text_vectors, use_vector_file
from tests.sparql_server import SparqlServer, store_from_graph

RAILWAY = Path(__file__).parent / "fixtures" / "kg" / "railway.nt"
RAIL = "http://example.org/rail/"


@pytest.fixture
def user_cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("KG_AGENT_CACHE_DIR", str(folder))
    return folder


def _mark_kept(path: Path) -> None:
    """Rewrite the kept file with one question of our own: an open that returns it read the file (did not teach)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["exemplars"][0]["question"] = "Kept, not taught again: [Ash Road]?"
    path.write_text(json.dumps(data), encoding="utf-8")


def test_an_in_memory_kg_keeps_its_taught_questions_in_the_user_cache_by_fingerprint(tmp_path, user_cache):
    kg = open_kg(RAILWAY)
    taught = kept_exemplars(kg)
    assert taught == teach_exemplars(kg) and taught
    path = taught_file(kg, kg_fingerprint(kg))
    assert path is not None and path.is_relative_to(user_cache) and path.exists()
    _mark_kept(path)
    again = kept_exemplars(open_kg(RAILWAY))  # a second open of the same file reads them
    assert again[0].question == "Kept, not taught again: [Ash Road]?" and again[1:] == taught[1:]
    assert again[0].relation_paths == taught[0].relation_paths  # paths come back as they were taught
    # a changed KG (a line renamed) has another fingerprint: it teaches again, from what it now says
    changed = tmp_path / "railway.nt"
    changed.write_text(RAILWAY.read_text(encoding="utf-8").replace('"Coast Line"', '"Coast Main Line"'), encoding="utf-8")
    changed_kg = open_kg(changed)
    assert kg_fingerprint(changed_kg) != kg_fingerprint(kg)
    retaught = kept_exemplars(changed_kg)
    assert retaught == teach_exemplars(changed_kg) and retaught != taught
    assert any("[Coast Main Line]" in e.question for e in retaught)
    # other teaching arguments are other questions, not the kept ones
    assert kept_exemplars(open_kg(RAILWAY), max_questions=5) == teach_exemplars(kg, max_questions=5)


def test_a_turned_off_user_cache_or_an_unreadable_file_teaches_in_the_process(tmp_path, monkeypatch, user_cache):
    kg = open_kg(RAILWAY)
    path = taught_file(kg, kg_fingerprint(kg))
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    assert kept_exemplars(kg) == teach_exemplars(kg)  # a broken file is taught over
    assert json.loads(path.read_text(encoding="utf-8"))["exemplars"]
    monkeypatch.setenv("KG_AGENT_CACHE_DIR", "")
    assert taught_file(kg, kg_fingerprint(kg)) is None and kept_exemplars(kg) == teach_exemplars(kg)


def test_an_oxigraph_store_keeps_its_taught_questions_and_their_vectors_in_its_folder(tmp_path, user_cache):
    store = build_oxigraph(RAILWAY, tmp_path / "store")
    kept = store / SIDECAR_DIR / TAUGHT_FILE
    assert not kept.exists()  # not made by the load: it stays as fast as it was
    kg = open_oxigraph(store)
    use_vector_file(kg.vector_cache_path)  # as the method graphs do for their KG
    planner = TaughtPlanner(kg)
    assert kept.exists() and not foreign_files(store)  # kg-agent's own file: an --overwrite may replace the folder
    assert not (user_cache / "taught").exists()
    taught = json.loads(kept.read_text(encoding="utf-8"))["exemplars"]
    assert len(planner.exemplars) == len(taught)
    # their embeddings are in the store's vector file, per embedding model
    texts = sorted({mask_mentions(e["question"]) for e in taught})
    model = embedding_model_key(shared_text_vectors().embeddings)
    assert set(VectorFile(kg.vector_cache_path).get(model, texts)) == set(texts)
    _mark_kept(kept)
    assert kept_exemplars(open_oxigraph(store))[0].question == "Kept, not taught again: [Ash Road]?"
    # loaded again: another build, taught again
    build_oxigraph(RAILWAY, store, overwrite=True)
    assert kept_exemplars(open_oxigraph(store)) == teach_exemplars(open_kg(RAILWAY))


def _plans(planner, question, entity):
    return [p.relations for p in planner.plan(question, [planner.similarity.kg.entity(RAIL + entity)], k=4).plans]


def test_taught_votes_reorder_the_scorers_leading_plans_of_its_top_hop_count_only(user_cache):
    kg = open_kg(RAILWAY)
    similarity = SimilarityPlanner(kg)
    # the scorer: two hops first, then three, then the one-hop prefix
    two_hops = "Which company operates the line of [Ash Road]?"
    assert [len(p.relations) for p in similarity.plan(two_hops, [kg.entity(RAIL + "station0")], k=4).plans][:3] == [2, 3, 1]
    # taught questions voting for the one-hop prefix (as MiniLM's nearest templates do) do not pull the plan there
    prefix_votes = [Exemplar(f"Which company operates the line of [{name}]?", [RAIL + "line0"], [RAIL + station], [("onLine",)])
                    for name, station in (("Birch Halt", "station1"), ("Cedar Cross", "station2"))]
    assert _plans(TaughtPlanner(kg, exemplars=prefix_votes), two_hops, "station0") == \
        [p.relations for p in similarity.plan(two_hops, [kg.entity(RAIL + "station0")], k=4).plans]
    # among the scorer's leading one-hop plans, the votes choose when they put a plan two places higher
    one_hop = "Which stations are on [Coast Line]?"
    scored = [p.relations for p in similarity.plan(one_hop, [kg.entity(RAIL + "line0")], k=4).plans]
    assert all(len(p) == 1 for p in scored) and scored[:3] == [("^onLine",), ("operatedBy",), ("opened",)]
    votes = [Exemplar("Which stations are on [Valley Line]?", [RAIL + "operator0"], [RAIL + "line1"], [("operatedBy",)]),
             Exemplar("Which stations are on [Valley Line] today?", ['"1902"'], [RAIL + "line1"], [("opened",)])]
    reordered = _plans(TaughtPlanner(kg, exemplars=votes), one_hop, "line0")
    assert reordered[0] == ("operatedBy",) and sorted(reordered) == sorted(scored)
    # one place higher is not enough: a plan voted second of two keeps the scorer's order
    assert _plans(TaughtPlanner(kg, exemplars=votes[:1] + [
        Exemplar("Which stations are on [Valley Line] today?", ['"x"'], [RAIL + "line1"], [("^onLine",)])]),
        one_hop, "line0")[:2] == scored[:2]


def test_a_kg_built_from_triples_is_named_by_all_its_triples_in_any_order():
    from kg_agent.kg import kg_from_triples

    triples = [("Ash Road", "on line", "Coast Line"), ("Birch Halt", "on line", "Valley Line")]
    assert kg_fingerprint(kg_from_triples(triples)) == kg_fingerprint(kg_from_triples(triples[::-1]))
    assert kg_fingerprint(kg_from_triples(triples)) != kg_fingerprint(kg_from_triples(triples[:1]))


def test_an_endpoint_keeps_its_taught_questions_in_the_user_cache(user_cache):
    with SparqlServer(store_from_graph(open_kg(RAILWAY).graph)) as server:
        endpoint = open_sparql(server.url)
        taught = kept_exemplars(endpoint)
        requests = endpoint.request_count()
        assert taught and any("[Coast Line]" in e.question for e in taught)
        path = taught_file(endpoint, kg_fingerprint(endpoint))
        assert path.is_relative_to(user_cache) and path.exists()
        _mark_kept(path)
        again = open_sparql(server.url)
        assert kept_exemplars(again)[0].question == "Kept, not taught again: [Ash Road]?"
        assert again.request_count() < requests  # the fingerprint's relation names, not the walks teaching asks for
