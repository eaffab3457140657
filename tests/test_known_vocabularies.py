"""Names a published vocabulary gives its properties, read for a KG that uses its IRIs without its labels
(kg_agent/kg/known_vocabularies.py): the Library of Congress's MARC relators (``marcrel:trl`` is "Translator"). A
small catalogue written here, shaped like Project Gutenberg's (people named by ``pgterms:name``, no labels for the
relator properties)."""

from __future__ import annotations

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph
from kg_agent.kg.known_vocabularies import published_names

CATALOGUE = """@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix pgterms: <http://www.gutenberg.org/2009/pgterms/> .
@prefix marcrel: <http://id.loc.gov/vocabulary/relators/> .
@prefix ex: <http://example.org/> .
ex:republic dcterms:title "The Republic" ; dcterms:creator ex:plato ; marcrel:trl ex:jowett .
ex:symposium dcterms:title "Symposium" ; dcterms:creator ex:plato ; marcrel:trl ex:jowett .
ex:faust dcterms:title "Faust" ; dcterms:creator ex:goethe ; marcrel:trl ex:taylor ; marcrel:ill ex:retzsch .
ex:plato pgterms:name "Plato" .
ex:goethe pgterms:name "Goethe, Johann Wolfgang von" .
ex:jowett pgterms:name "Jowett, Benjamin" .
ex:taylor pgterms:name "Taylor, Bayard" .
ex:retzsch pgterms:name "Retzsch, Moritz" .
"""


def test_the_relator_codes_have_the_library_of_congress_names():
    assert published_names("http://id.loc.gov/vocabulary/relators/trl") == ("translator",)
    assert published_names("http://id.loc.gov/vocabulary/relators/ill") == ("illustrator",)
    assert published_names("http://id.loc.gov/vocabulary/relators/voc") == ("vocalist",)
    assert published_names("http://id.loc.gov/vocabulary/relators/zzz") == ()
    assert published_names("http://example.org/trl") == ()


@pytest.fixture(scope="module", params=["memory", "oxigraph"])
def catalogue(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("catalogue") / "catalogue.ttl"
    path.write_text(CATALOGUE, encoding="utf-8")
    graph = open_kg(path) if request.param == "memory" else open_oxigraph(build_oxigraph(path, path.parent / "store"))
    yield graph
    graph.close()


def test_a_relator_is_named_by_its_published_name(catalogue):
    assert catalogue.relation_aliases("trl") == ("translator",)


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph])
def test_who_translated_is_answered_over_the_translator_relator(catalogue, factory):
    result = factory(catalogue).compile().invoke({"question": "Who translated Faust?"})
    assert [a["answer"] for a in result["answers"]] == ["Taylor, Bayard"]
    result = factory(catalogue).compile().invoke({"question": "Who illustrated Faust?"})
    assert [a["answer"] for a in result["answers"]] == ["Retzsch, Moritz"]
