"""The KG's class list (KnowledgeGraph.classes): kept in the KG profile by the load's pass over the file, read from it
at question time, and the same on every backend (issue 48, a process's first question at 104M triples spent 20-57 s
in ``SELECT DISTINCT`` over every typing triple).

The fixture is a river basin: gauges, rivers and a reservoir typed by ``rdf:type``, a class IRI written with an
N-Triples escape, a class hierarchy (``rdfs:subClassOf``, whose terms are no class list's), and a blank class."""

from __future__ import annotations

import json

import pytest

from kg_agent.kg import build_oxigraph, load_kg, open_oxigraph
from kg_agent.kg.profile import MAX_CLASSES, KGProfile
from kg_agent.kg.store_folder import PROFILE_FILE, SIDECAR_DIR

RB = "http://example.org/basin#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"

BASIN_NT = f"""<{RB}Thornbeck> <{RDF_TYPE}> <{RB}River> .
<{RB}Thornbeck> <http://www.w3.org/2000/01/rdf-schema#label> "Thornbeck" .
<{RB}Thornbeck> <{RB}flowsInto> <{RB}Ouse> .
<{RB}Ouse> <{RDF_TYPE}> <{RB}River> .
<{RB}Ouse> <http://www.w3.org/2000/01/rdf-schema#label> "Ouse" .
<{RB}Skelton> <{RDF_TYPE}> <{RB}Gauge> .
<{RB}Skelton> <{RB}measures> <{RB}Ouse> .
<{RB}Skelton> <http://www.w3.org/2000/01/rdf-schema#label> "Skelton gauge" .
<{RB}Fewston> <{RDF_TYPE}> <{RB}R\\u00E9servoir> .
<{RB}Fewston> <{RB}feeds> <{RB}Thornbeck> .
<{RB}Fewston> <http://www.w3.org/2000/01/rdf-schema#label> "Fewston" .
<{RB}Gauge> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <{RB}Instrument> .
<{RB}Weir> <{RDF_TYPE}> _:structure .
"""

CLASSES = (f"{RB}Gauge", f"{RB}River", f"{RB}R\u00e9servoir")


@pytest.fixture
def basin(tmp_path):
    path = tmp_path / "basin.nt"
    path.write_text(BASIN_NT, encoding="utf-8")
    return path


def _no_queries(kg, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the class list was queried")
    monkeypatch.setattr(kg.store, "query", refuse)


def _counted_queries(kg, monkeypatch) -> list[str]:
    asked: list[str] = []
    query = kg.store.query

    def counted(sparql, **kwargs):
        asked.append(sparql)
        return query(sparql, **kwargs)
    monkeypatch.setattr(kg.store, "query", counted)
    return asked


def test_the_load_keeps_the_class_list_it_met_and_a_question_reads_it_without_a_query(basin, tmp_path, monkeypatch):
    store = build_oxigraph(basin, tmp_path / "basin.ox")
    profile = KGProfile.load(store / SIDECAR_DIR / PROFILE_FILE)
    assert profile is not None and sorted(profile.classes[RDF_TYPE]) == sorted(CLASSES)
    assert any(line.startswith("classes: 3 under ") for line in profile.describe())
    kg = open_oxigraph(store)
    _no_queries(kg, monkeypatch)
    assert kg.classes().ids == CLASSES and kg.classes().every == frozenset(CLASSES)
    assert load_kg(basin).classes() == kg.classes()  # memory asks its one query: the same list


def test_a_turtle_load_keeps_the_same_class_list(basin, tmp_path, monkeypatch):
    import rdflib

    turtle = tmp_path / "basin.ttl"
    rdflib.Graph().parse(basin, format="nt").serialize(turtle, format="turtle")
    kg = open_oxigraph(build_oxigraph(turtle, tmp_path / "turtle.ox"))
    _no_queries(kg, monkeypatch)
    assert kg.classes().ids == CLASSES


def test_a_store_loaded_before_the_profile_kept_classes_asks_once_and_keeps_them(basin, tmp_path, monkeypatch):
    store = build_oxigraph(basin, tmp_path / "basin.ox")
    path = store / SIDECAR_DIR / PROFILE_FILE
    older = json.loads(path.read_text(encoding="utf-8"))
    del older["classes"]  # as a load before this profile field wrote it
    path.write_text(json.dumps(older), encoding="utf-8")
    assert KGProfile.load(path).classes is None

    kg = open_oxigraph(store)
    asked = _counted_queries(kg, monkeypatch)
    assert kg.classes().ids == CLASSES and kg.classes().ids == CLASSES
    assert len(asked) == 1  # one query, once per graph
    assert sorted(KGProfile.load(path).classes[RDF_TYPE]) == sorted(CLASSES)  # kept in kg-agent's own folder

    again = open_oxigraph(store)
    _no_queries(again, monkeypatch)
    assert again.classes().ids == CLASSES


def test_a_kg_with_more_classes_than_kept_has_a_sample_and_no_every(tmp_path, monkeypatch):
    """A station network typing each station by its own class (more than MAX_CLASSES of them): the list is a sample
    of MAX_CLASSES, not complete, so no type noun is judged to name none of them; the same in memory and in a store."""
    path = tmp_path / "stations.nt"
    path.write_text("".join(f"<{RB}station{n}> <{RDF_TYPE}> <{RB}Kind{n}> .\n" for n in range(MAX_CLASSES + 5)),
                    encoding="utf-8")
    memory = load_kg(path)
    stored = open_oxigraph(build_oxigraph(path, tmp_path / "stations.ox"))
    _no_queries(stored, monkeypatch)
    for kg in (memory, stored):
        classes = kg.classes()
        assert len(classes.ids) == MAX_CLASSES and not classes.complete and classes.every is None


def test_a_kg_without_class_facts_has_an_empty_list_and_asks_nothing(tmp_path, monkeypatch):
    path = tmp_path / "flows.nt"
    path.write_text(f"<{RB}Thornbeck> <{RB}flowsInto> <{RB}Ouse> .\n", encoding="utf-8")
    for kg in (load_kg(path), open_oxigraph(build_oxigraph(path, tmp_path / "flows.ox"))):
        _no_queries(kg, monkeypatch)
        assert kg.classes().ids == () and kg.classes().every is None
