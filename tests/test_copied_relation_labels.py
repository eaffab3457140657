"""A relation whose schema label is a copy of the name predicate's ("name" on ``:baker``, the block copied from
``:name``; met in the Stardog music data's ``:member``) is named by its IRI: the label hid the relation its IRI names,
so "who is the baker of ..." found no relation and abstained (tests/fixtures/bakeries, invented). A relation whose
IRI is an id keeps its label, whatever it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.kg import open_kg
from kg_agent.kg.terms import sibling_copied_labels

FIXTURE = Path(__file__).parent / "fixtures" / "bakeries" / "bakeries.ttl"
BAKERY = "http://example.org/bakery/"


def _open(backend: str, tmp_path: Path):
    if backend == "memory":
        return open_kg(FIXTURE)
    return open_kg(FIXTURE, backend="oxigraph", store_path=tmp_path / "store")


@pytest.mark.parametrize("backend", ["memory", "oxigraph"])
def test_a_relation_labelled_like_the_name_predicate_is_named_by_its_iri(tmp_path, backend):
    kg = _open(backend, tmp_path)
    assert "baker" in kg.relation_names()
    assert "name" not in kg.relation_names()
    assert kg.relation_iri("baker") == BAKERY + "baker"
    assert kg.relation_names()  # the other labels stand
    assert "shop_sign" in kg.relation_names()


@pytest.mark.parametrize("backend", ["memory", "oxigraph"])
@pytest.mark.parametrize("create", [create_rog_graph, create_tog_graph])
def test_the_relation_its_iri_names_answers(tmp_path, backend, create):
    kg = _open(backend, tmp_path)
    result = create(kg).compile().invoke({"question": "Who is the baker of Crumb and Crust?"})
    assert [answer["answer"] for answer in result["answers"]] == ["Lena Kral"]
    assert result["answers"][0]["grounded"]


def test_which_labels_are_copies():
    wdt = "http://www.wikidata.org/prop/direct/"
    # Wikidata's P2561 is labelled "name": no sibling of its namespace is called so, its label stands
    assert not sibling_copied_labels({wdt + "P2561": "name"}, [wdt + "P31", "http://xmlns.com/foaf/0.1/name"])
    predicates = [BAKERY + "name", BAKERY + "baker", BAKERY + "town"]
    assert sibling_copied_labels({BAKERY + "baker": "name"}, predicates) == {BAKERY + "baker"}
    assert not sibling_copied_labels({BAKERY + "name": "name"}, predicates)  # the name predicate's own label
    assert not sibling_copied_labels({BAKERY + "baker": "baker"}, predicates)
    # a label that collides across namespaces is no copy (dbo:language, dbp:language)
    assert not sibling_copied_labels({"http://dbpedia.org/property/language": "language"},
                                     ["http://dbpedia.org/ontology/language", "http://dbpedia.org/property/language"])
