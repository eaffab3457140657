"""The noun a question asks for, followed by a relative clause with no "that" ("What was the first recording the
Fjord Singers released?"), is not a noun in apposition to the name after it ("the recording The Fjord Singers"), on an
invented choir-recordings KG (``tests/fixtures/choir_recordings``, its README), on memory and Oxigraph: the mention
links the choir, not the recording labelled "The Fjord Singers (recording)" nor one whose label holds both words
("The Fjord Singers' Second Recording").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import open_kg
from kg_agent.kg.linking import link_entities
from kg_agent.kg.qualified_names import asks_for_noun, qualifier_named, words_beside

CHOIRS = Path(__file__).parent / "fixtures" / "choir_recordings" / "choir_recordings.ttl"
CH = "http://example.org/choir/"


@pytest.fixture(scope="module")
def choirs():
    return open_kg(CHOIRS)


@pytest.fixture(scope="module")
def choirs_store(tmp_path_factory):
    return open_kg(CHOIRS, backend="oxigraph", store_path=tmp_path_factory.mktemp("choirs") / "store")


@pytest.fixture(params=["memory", "oxigraph"])
def kg(request, choirs, choirs_store):
    return choirs if request.param == "memory" else choirs_store


def linked(kg, question: str) -> list[str]:
    return [item.entity.id for item in link_entities(kg, question).linked]


@pytest.mark.parametrize("question", [
    "What was the first recording the Fjord Singers released?",
    "What was the last recording the Fjord Singers released?",
    "Which recording the Fjord Singers released was conducted by Oskar Lind?",
    # in lower case the recording's name is not told by its case: only the words beside it say what it is
    "what was the first recording the fjord singers released",
])
def test_the_asked_noun_before_a_relative_clause_names_no_qualifier(kg, question):
    assert linked(kg, question)[:1] == [CH + "The_Fjord_Singers"]


def test_a_noun_in_apposition_still_names_the_qualifier(kg):
    assert linked(kg, "Who conducted the recording The Fjord Singers?")[:1] == [CH + "The_Fjord_Singers_recording"]
    assert linked(kg, "who conducted the recording the fjord singers")[:1] == [CH + "The_Fjord_Singers_recording"]
    assert linked(kg, "Who conducts the Fjord Singers?")[:1] == [CH + "The_Fjord_Singers"]


def test_the_asked_noun_is_read_from_english_grammar_alone():
    tokens = "what was the first recording the fjord singers released".split()
    assert asks_for_noun(tokens, 5, 8) and words_beside(tokens, 5, 8) == []
    assert not qualifier_named("recording", tokens, 5, 8)
    tokens = "which recording the fjord singers made first".split()
    assert asks_for_noun(tokens, 2, 5)
    # apposition: no WH word or ordinal before the noun, or no clause after the name
    assert not asks_for_noun("who conducted the recording the fjord singers".split(), 4, 7)
    assert not asks_for_noun("what was the first recording the fjord singers".split(), 5, 8)
    assert not asks_for_noun("what was the first recording the fjord singers in 1980".split(), 5, 8)
    assert qualifier_named("band", "when did the band chicago form".split(), 4, 5)
    assert not asks_for_noun("who wrote the fjord singers first".split(), 2, 5)  # "wrote" is no noun "who" determines
