"""A name written without the article its label begins with (issue 45: "which **Beatles** albums" for the band
labelled "The Beatles"): English drops "the" before a name used as a modifier ("Ferrymen beers") or before a
possessive. A capitalised mention (a name, not the question's first word) is looked up with "the" before it, below
the exact form (:data:`~kg_agent.kg.linking.ARTICLE_QUALITY`), so it links the thing so labelled rather than a
fuzzy look-alike ("Merrymen Beer") or a longer name holding the word ("Ferrymen Stout").

Fixture: ``tests/fixtures/breweries/breweries.ttl`` (invented, see its README).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import open_kg
from kg_agent.kg.linking import link_entities

BREWERIES = Path(__file__).resolve().parent / "fixtures" / "breweries" / "breweries.ttl"
FERRYMEN = "http://example.org/breweries/ferrymen"


@pytest.fixture(scope="module")
def breweries():
    return open_kg(BREWERIES)


@pytest.fixture(scope="module")
def breweries_on_oxigraph(tmp_path_factory):
    return open_kg(BREWERIES, backend="oxigraph", store_path=tmp_path_factory.mktemp("breweries") / "store")


@pytest.mark.parametrize("kg_name", ["breweries", "breweries_on_oxigraph"])
def test_a_capitalised_name_without_its_article_links_the_label_with_it(kg_name, request):
    kg = request.getfixturevalue(kg_name)
    linked = link_entities(kg, "Which Ferrymen beers came out in 2016?")
    assert [e.id for e in linked.entities] == [FERRYMEN]  # not the fuzzy "Merrymen Beer"


def test_the_article_written_still_links_by_the_whole_label(breweries):
    assert [e.id for e in link_entities(breweries, "Which breweries do the Ferrymen own?").entities] == [FERRYMEN]


def test_a_label_without_an_article_is_not_found_by_adding_one(breweries):
    """Only "the" + the mention is tried: "Quayside" is no "The Quayside", it links as before (the brewery's name)."""
    linked = link_entities(breweries, "Which beers did Quayside Brewery release?")
    assert [e.id for e in linked.entities] == ["http://example.org/breweries/quayside"]
