"""A question asking for a thing by a word no relation, class or value of the KG names is abstained on, saying which
word (kg_agent/tools/shared/unnamed_things.py): "what **cultivar** is [X] grown from" over a KG of teas with no
cultivars reached the estate that grows [X] ("grown" names ``grown at``), and "who **photographed** the **label** of
[X]" the tea's grower. Questions naming the KG's things by other words ("which **plantation** grows [X]", a
**proprietor** for an ``owner``) are still answered. On an invented register of tea estates
(tests/fixtures/tea_estates/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph
from kg_agent.tools.shared.unnamed_things import asked_words

TEAS = Path(__file__).parent / "fixtures" / "tea_estates" / "teas.ttl"
METHODS = [create_rog_graph, create_tog_graph, create_tog_i_graph]


@pytest.fixture(scope="module")
def teas():
    return open_kg(TEAS)


@pytest.fixture(scope="module")
def teas_store(tmp_path_factory):
    kg = open_oxigraph(build_oxigraph(TEAS, tmp_path_factory.mktemp("teas") / "store"))
    yield kg
    kg.close()


@pytest.fixture(scope="module", params=METHODS, ids=["rog", "tog", "tog-i"])
def app(request, teas):
    return request.param(teas).compile()


@pytest.mark.parametrize(("question", "words"), [
    ("What cultivar is [ENT] grown from?", ("cultivar",)),
    ("Which estate grows [ENT]?", ()),  # the noun's phrase goes on: "estate grows"
    ("Which estates are in [ENT]?", ("estates",)),
    ("What kind of tea is [ENT]?", ()),  # a word for a kind: the noun is after "of"
    ("How many estates are in [ENT]?", ()),  # a count
    ("Who photographed the label of [ENT]?", ("photographed", "label")),
    ("Who filmed the promotional video for [ENT]?", ("filmed", "video")),  # a compound, joined by "for"
    ("Who photographed the label of the box of [ENT]?", ()),  # not the entity's own thing
    ("Who is the owner of [ENT]?", ()),  # no verb of its own
    ("When was [ENT] picked?", ()),
])
def test_the_words_a_thing_is_asked_for_by(question, words):
    assert asked_words(question) == words


@pytest.mark.parametrize(("question", "word"), [
    ("What cultivar is Silver Mist grown from?", "cultivar"),
    ("Who photographed the label of Silver Mist?", "photographed the label"),
    ("Who filmed the promotional video for Silver Mist?", "filmed the video"),
])
def test_a_thing_asked_for_by_a_word_the_kg_names_nowhere_is_abstained_on_with_the_word(app, question, word):
    result = app.invoke({"question": question})
    assert result["answers"] == [] and result["stop_reason"] == "abstained"
    assert any(f"the knowledge graph has no relation for {word!r}" in w for w in result["warnings"])


@pytest.mark.parametrize(("question", "answer"), [
    ("Which plantation grows Silver Mist?", "Jade Hill Estate"),  # "plantation": no class, relation or value's word
    ("Which proprietor owns Jade Hill Estate?", "Mira Holt"),
    ("Which estate grows Silver Mist?", "Jade Hill Estate"),
    ("What region is Jade Hill Estate in?", "North Valley"),
    ("Which tea is Silver Mist blended with?", "Amber Dew"),
])
def test_things_the_kg_names_by_other_words_are_still_answered(app, question, answer):
    result = app.invoke({"question": question})
    assert [a["answer"] for a in result["answers"]][:1] == [answer]


def test_the_same_on_an_oxigraph_store(teas_store):
    app = create_rog_graph(teas_store).compile()
    abstained = app.invoke({"question": "What cultivar is Silver Mist grown from?"})
    assert abstained["answers"] == [] and abstained["stop_reason"] == "abstained"
    answered = app.invoke({"question": "Which proprietor owns Jade Hill Estate?"})
    assert [a["answer"] for a in answered["answers"]] == ["Mira Holt"]


def test_best_effort_keeps_the_answers_flagged_ungrounded(teas):
    app = create_rog_graph(teas).compile()
    result = app.invoke({"question": "What cultivar is Silver Mist grown from?"}, context={"when_unsupported": "best_effort"})
    assert result["answers"] and not any(a["grounded"] for a in result["answers"])


# "which <noun> <verb>ed the ... [X]": the noun heads its phrase, a past-tense verb and its object follow. On an
# invented journal's manuscripts and reviews (tests/fixtures/journal_manuscripts/README.md).
JOURNAL = Path(__file__).parent / "fixtures" / "journal_manuscripts" / "journal.ttl"


@pytest.mark.parametrize(("question", "words"), [
    ("Which committee discussed the manuscript [ENT]?", ("committee",)),
    ("Which committee reviewed [ENT]?", ("committee",)),
    ("Which board won the [ENT]?", ()),  # an irregular past is not read: "won" could be anything
    ("Which research track papers are in [ENT]?", ()),  # a compound goes on
    ("Which committee discussed manuscripts about [ENT]?", ()),  # no article or entity after the verb
])
def test_a_noun_followed_by_a_past_tense_verb_heads_its_phrase(question, words):
    assert asked_words(question) == words


@pytest.fixture(scope="module")
def journal():
    return open_kg(JOURNAL)


@pytest.fixture(scope="module")
def journal_store(tmp_path_factory):
    kg = open_oxigraph(build_oxigraph(JOURNAL, tmp_path_factory.mktemp("journal") / "store"))
    yield kg
    kg.close()


@pytest.mark.parametrize("method", METHODS, ids=["rog", "tog", "tog-i"])
def test_which_noun_verbed_the_thing_is_abstained_on_when_the_kg_names_no_such_noun(journal, method):
    result = method(journal).compile().invoke(
        {"question": "Which committee discussed the manuscript 'Tidal mixing in shallow estuaries'?"})
    assert result["answers"] == [] and result["stop_reason"] == "abstained"
    assert any("the knowledge graph has no relation for 'committee'" in w for w in result["warnings"])


@pytest.mark.parametrize("method", METHODS, ids=["rog", "tog", "tog-i"])
def test_which_noun_verbed_the_thing_is_answered_when_the_kg_names_the_noun(journal, method):
    result = method(journal).compile().invoke(
        {"question": "Which editor handled the manuscript 'Tidal mixing in shallow estuaries'?"})
    assert [a["answer"] for a in result["answers"]][:1] == ["Paul Orsk"]


def test_which_noun_verbed_the_thing_the_same_on_an_oxigraph_store(journal_store):
    app = create_rog_graph(journal_store).compile()
    result = app.invoke({"question": "Which committee discussed the manuscript 'Tidal mixing in shallow estuaries'?"})
    assert result["answers"] == [] and result["stop_reason"] == "abstained"
    answered = app.invoke({"question": "Which editor handled the manuscript 'Tidal mixing in shallow estuaries'?"})
    assert [a["answer"] for a in answered["answers"]][:1] == ["Paul Orsk"]
