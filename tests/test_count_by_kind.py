"""Counts of things of a kind the KG names only by a kind value (issue 46 item 2): "who wrote more letters, A or B"
and "which member of the audience wrote the most letters", on an invented radio station's listener letters
(tests/fixtures/radio_letters/README.md). A letter is a letter only by ``item_kind -> .../LETTER_LISTENER``
(replies are ``REPLY_TO_LETTER``); each letter's ``creator`` holds its author and the desk it is addressed to; each
letter's writing has participation nodes whose role nodes ("Author") are never answers.

- "who <verb> more <noun>, A or B" (:mod:`kg_agent.tools.shared.which_of`): each one's distinct things of the kind
  the noun names, over the relations reaching them (``^creator``), compared; the counts are the evidence;
- "which <noun> <verb> the most <things>" (:mod:`kg_agent.tools.shared.whole_graph`): the things of the kind counted
  per group; an answer noun only closest to the class nearly every group is of (a "member" of the audience, a
  Person) leaves the two desks out; one group holding every letter (the station every letter is ``aired_by``) is the
  most only when the verb names its relation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph
from kg_agent.tools.shared.aggregates import MAX, MIN
from kg_agent.tools.shared.which_of import asked_order, counted_noun, which_of_answered
from kg_agent.tools.shared.whole_graph import answer_over_whole_graph

LETTERS = Path(__file__).parent / "fixtures" / "radio_letters" / "radio_letters.ttl"
EX = "http://example.org/radio/"
TOBIAS = {"id": EX + "listener1", "label": "Tobias Renn", "mention": "Tobias Renn"}
ILSE = {"id": EX + "listener2", "label": "Ilse Varga", "mention": "Ilse Varga"}
METHODS = [create_rog_graph, create_tog_graph, create_tog_i_graph]


@pytest.fixture(scope="module")
def letters():
    return open_kg(LETTERS)


@pytest.fixture(scope="module")
def letters_store(tmp_path_factory):
    kg = open_oxigraph(build_oxigraph(LETTERS, tmp_path_factory.mktemp("radio") / "store"))
    yield kg
    kg.close()


@pytest.mark.parametrize(("question", "order", "noun"), [
    ("Who asked more questions, Olivier Chastel or Cindy Franssen?", MAX, "questions"),
    ("Who wrote fewer letters, Tobias Renn or Ilse Varga?", MIN, "letters"),
    ("Which one wrote more letters, Tobias Renn or Ilse Varga?", MAX, "letters"),
    ("Which of Ilse Varga and Tobias Renn wrote more letters?", MAX, "letters"),
    ("Who did send more letters, Tobias Renn or Ilse Varga?", MAX, "letters"),
])
def test_who_did_more_is_read_from_english_grammar(question, order, noun):
    assert asked_order(question) == (order, noun, False)
    assert counted_noun(question) == noun


@pytest.mark.parametrize("question", [
    "Who is more famous, Tobias Renn or Ilse Varga?",  # an auxiliary is no verb: no count
    "Who wrote more letters than Tobias Renn?",  # no two things named
    "Who wrote more letters?",
])
def test_other_questions_are_no_count_comparison(question):
    assert counted_noun(question) == ""


@pytest.mark.parametrize(("question", "winner", "counts"), [
    ("Who wrote more letters, Tobias Renn or Ilse Varga?", "Tobias Renn", ["4", "3"]),
    ("Who wrote fewer letters, Tobias Renn or Ilse Varga?", "Ilse Varga", ["3", "4"]),
    ("Which of Ilse Varga and Tobias Renn wrote more letters?", "Tobias Renn", ["4", "3"]),
])
def test_each_ones_things_of_the_kind_are_counted(letters, question, winner, counts):
    answers, what = which_of_answered(question, [TOBIAS, ILSE], letters)
    assert [a["answer"] for a in answers] == [winner]
    assert [c["value"] for c in answers[0]["compared"]] == counts
    # the evidence: the winner's letters, each one step away over ^creator
    assert {s["relation"] for p in answers[0]["paths"] for s in p["steps"]} == {"^creator"}
    assert all(not t.startswith("Reply") for t in answers[0]["counted"]) and "^creator" in what


def test_every_method_answers_the_person_not_the_role_node(letters):
    for create in METHODS:
        result = create(letters).compile().invoke({"question": "Who wrote more letters, Tobias Renn or Ilse Varga?"})
        assert [a["answer"] for a in result["answers"]] == ["Tobias Renn"], create.__name__


def test_the_most_counts_things_of_the_kind_among_nearly_all_the_groups_class(letters):
    # the newsroom is a creator of 26 letters and Mara Quist of 6, but nearly every creator is a person, and a
    # "member" of the audience is closest to Person: the desks are left out
    answers, what = answer_over_whole_graph(letters, "Which member of the audience wrote the most letters?")
    assert [a["answer"] for a in answers] == ["Mara Quist"] and answers[0]["compared"][0]["value"] == "6"
    assert "item_kind is LETTER_LISTENER" in what


@pytest.mark.parametrize(("question", "gold", "count"), [
    ("Which organization wrote the most letters?", "Harbour FM Newsroom", "26"),  # its 13 replies are not letters
    ("Which organization wrote the most replies?", "Harbour FM Newsroom", "13"),
    # every letter is aired by the station: one group, the most only of the relation the verb names
    ("Which organization received the most letters?", "Harbour FM Newsroom", "26"),
    ("Which organization aired the most letters?", "Harbour FM", "40"),
])
def test_only_things_of_the_kind_are_counted_and_one_group_answers_only_its_verb(letters, question, gold, count):
    answers, _ = answer_over_whole_graph(letters, question)
    assert [a["answer"] for a in answers] == [gold] and answers[0]["compared"][0]["value"] == count


def test_the_same_on_an_oxigraph_store(letters_store):
    answers, _ = which_of_answered("Who wrote more letters, Tobias Renn or Ilse Varga?", [TOBIAS, ILSE], letters_store)
    assert [a["answer"] for a in answers] == ["Tobias Renn"]
    answers, _ = answer_over_whole_graph(letters_store, "Which member of the audience wrote the most letters?")
    assert [a["answer"] for a in answers] == ["Mara Quist"]
    answers, _ = answer_over_whole_graph(letters_store, "Which organization received the most letters?")
    assert [a["answer"] for a in answers] == ["Harbour FM Newsroom"]
