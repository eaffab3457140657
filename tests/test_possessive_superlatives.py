"""Superlatives after a possessive and "most recent" (issue 45): "which was [X]'s **most recent** beer", "what was
[X]'s **first** beer", "their latest beer" ask for the one of [X]'s things latest (earliest) by the date the KG gives
each, as "the latest beer of [X]" does. English grammar only: a superlative adjective follows a determiner, "the" or a
possessive ("'s", "their", "its" ...); "most recent" / "least recent" are the time superlatives "latest" /
"earliest" (so the KG's dates rank them, not any number the answers have).

Fixture: ``tests/fixtures/breweries/breweries.ttl`` (invented for these tests, see its README). The guild tests (issue 45,
music-04 on ToG) are in :mod:`tests.test_type_noun_classes`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.tools.shared.aggregates import MAX, MIN, asked_comparison, asks_time

BREWERIES = Path(__file__).resolve().parent / "fixtures" / "breweries" / "breweries.ttl"
METHODS = {"rog": create_rog_graph, "tog": create_tog_graph, "tog-i": create_tog_i_graph}


@pytest.mark.parametrize(("question", "order", "words"), [
    ("Which was Hopcliff Brewery's most recent beer?", MAX, "latest beer"),
    ("Which was Hopcliff Brewery\u2019s most recent beer?", MAX, "latest beer"),
    ("What was Hopcliff Brewery's first beer?", MIN, "first beer"),
    ("What was their latest beer?", MAX, "latest beer"),
    ("What is its least recent beer?", MIN, "earliest beer"),
    ("What is the most recent beer of Hopcliff Brewery?", MAX, "latest beer"),
])
def test_a_superlative_after_a_possessive_or_most_recent_is_a_time_superlative(question, order, words):
    asked = asked_comparison(question)
    assert asked is not None and asked.order == order and asked.words == words and asks_time(asked)


@pytest.mark.parametrize("question", [
    "Who is Hopcliff Brewery's most famous brewer?",  # a superlative, but of no time order
    "Which beer has the most hops?",
])
def test_most_before_another_adjective_is_no_time_order(question):
    asked = asked_comparison(question)
    assert asked is not None and not asks_time(asked)


def test_a_possessive_without_a_superlative_compares_nothing():
    assert asked_comparison("What is Hopcliff Brewery's pale beer?") is None
    assert asked_comparison("Which beers are their own?") is None


@pytest.fixture(scope="module")
def breweries():
    return open_kg(BREWERIES)


@pytest.fixture(scope="module")
def breweries_on_oxigraph(tmp_path_factory):
    return open_kg(BREWERIES, backend="oxigraph", store_path=tmp_path_factory.mktemp("breweries") / "store")


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize(("question", "expected"), [
    ("Which was Hopcliff Brewery's most recent beer?", ["Saltgrass Porter"]),
    ("What was Hopcliff Brewery's first beer?", ["Cliffside Pale"]),
    ("What is the most recent beer of Hopcliff Brewery?", ["Saltgrass Porter"]),
])
def test_every_method_ranks_the_things_by_their_dates(breweries, method, question, expected):
    out = METHODS[method](breweries).compile().invoke({"question": question})
    assert [a["answer"] for a in out["answers"]] == expected
    assert all(a.get("compared_by") == "released" for a in out["answers"])  # the date, not the strength


@pytest.mark.parametrize("method", ["rog", "tog"])
def test_every_method_ranks_the_things_by_their_dates_on_oxigraph(breweries_on_oxigraph, method):
    out = METHODS[method](breweries_on_oxigraph).compile().invoke(
        {"question": "Which was Hopcliff Brewery's most recent beer?"})
    assert [a["answer"] for a in out["answers"]] == ["Saltgrass Porter"]
