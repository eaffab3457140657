"""Comparisons of a measure (issue 46 item 2, "count, compare, rank"): the relation compared is the one the
comparison's English words name -- a dimension adjective or a unit ("higher than 7000 **feet**": the relation named
for an elevation, ``elev``, not a count of trails or beds), the superlative's own word among relations named equally
well ("the **longest** trail": ``longest``, not ``trails``), a number said as a word ("more than **one** trail"), and
the noun after "more" in "which has more trails, A or B"; "only one trail" (one value exactly). A place written
after "in" that the KG writes as a literal on the answers ("resorts **in Brennwald**": ``town "Brennwald"``) filters
them; "the most" linked to a thing is a whole-graph question's grammar.

Fixture: ``tests/fixtures/ski_resorts/resorts.ttl`` (invented: resorts with an elevation in feet as a plain integer under
an abbreviated name, a count of trails, the longest trail's length, beds as a decoy number; regions hold their resorts
from the region's side; a town is a plain string; a resorts association "MRV" every resort is a member of).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import load_kg, open_kg
from kg_agent.kg.linking import link_entities
from kg_agent.text import dimension_of
from kg_agent.tools.shared.aggregates import MAX, MIN, asked_comparison
from kg_agent.tools.shared.literal_filter import filter_mentions, literal_filtered, place_phrases
from kg_agent.tools.shared.measured_relations import dimension_relations, named_by_adjective, named_outright
from kg_agent.tools.shared.which_of import asked_order
from kg_agent.tools.shared.whole_graph import only_names_its_nouns

RESORTS = Path(__file__).resolve().parent / "fixtures" / "ski_resorts" / "resorts.ttl"
RESORT = "http://example.org/resorts/"
METHODS = {"rog": create_rog_graph, "tog": create_tog_graph, "tog-i": create_tog_i_graph}


@pytest.fixture(scope="module")
def resorts():
    return load_kg(RESORTS)


def test_a_bound_keeps_its_adjective_and_unit_and_reads_number_words():
    asked = asked_comparison("Which resorts are higher than 7000 feet?")
    assert (asked.order, asked.bound, asked.adjective, asked.unit, asked.phrase) == (
        MAX, 7000.0, "higher", "feet", "higher than 7000")
    asked = asked_comparison("Which resorts have more than one trail?")
    assert (asked.order, asked.bound, asked.unit) == (MAX, 1.0, "trail")
    assert asked_comparison("Which bridges are shorter than 200 m?").order == MIN
    assert asked_comparison("Which lakes are deeper than 30 metres?").order == MAX
    assert asked_comparison("Who lived in chapter 5?") is None  # a word in -er is no comparative of a dimension
    assert asked_comparison("Which tenants pay more than tenants do?") is None


def test_dimension_words_are_general_english():
    assert dimension_of("higher") == dimension_of("lowest") == ("height", "elevation", "altitude")
    assert dimension_of("heavier") == ("weight", "mass")
    assert dimension_of("more") == dimension_of("larger") == ()


def test_the_relation_holding_the_dimension_is_read_from_its_name(resorts):
    relations = ["beds", "elev", "longest", "trails"]
    assert dimension_relations("higher", "feet", relations, resorts) == ["elev"]
    assert dimension_relations("more", "feet", relations, resorts) == ["elev"]  # a length unit: elevation is one
    assert dimension_relations("more", "trails", relations, resorts) == []
    assert named_by_adjective("longest", ["longest", "trails"]) == ["longest"]
    assert named_outright("Which resorts have more than one trail?", ["trails"])
    assert not named_outright("Which resorts are higher than 7000 feet?", ["trails", "beds"])


def test_which_has_more_of_a_noun_compares_the_relation_the_noun_names():
    assert asked_order("Which has more trails, Edelweiss Resort or Larch Resort?") == (MAX, "trails", False)
    assert asked_order("Which has fewer trails, Edelweiss Resort or Larch Resort?") == (MIN, "trails", False)
    assert asked_order("Which of Edelweiss Resort and Larch Resort has more trails?") == (MAX, "trails", False)
    assert asked_order("Which is higher, Edelweiss Resort or Larch Resort?") == (MAX, "higher", False)


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize(("question", "expected", "by"), [
    ("Which resorts in Valdoria are higher than 7000 feet?", {"Edelweiss Resort", "Marmot Resort"}, "elev"),
    ("Which resorts in Valdoria have more than one trail?", {"Edelweiss Resort", "Larch Resort"}, "trails"),
    ("Which resort in Valdoria has the longest trail?", {"Gamsbock Resort"}, "longest"),
    ("Which has more trails, Edelweiss Resort or Larch Resort?", {"Edelweiss Resort"}, "trails"),
    ("Which has fewer trails, Edelweiss Resort or Larch Resort?", {"Larch Resort"}, "trails"),
])
def test_every_method_compares_by_the_relation_the_measure_names(resorts, method, question, expected, by):
    out = METHODS[method](resorts).compile().invoke({"question": question})
    assert {a["answer"] for a in out["answers"]} == expected
    assert all(a.get("compared_by") == by for a in out["answers"])


def test_only_or_exactly_a_number_keeps_that_value():
    asked = asked_comparison("How many resorts in Valdoria have only one trail?")
    assert (asked.low, asked.unit, asked.phrase) == (1.0, "trail", "only one")
    assert [asked.keeps(v) for v in (0, 1, 2)] == [False, True, False]
    assert asked_comparison("Which resort is the only one in Valdoria?") is None  # "the only one" is no count


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize(("question", "expected"), [
    ("How many resorts in Valdoria have only one trail?", ["2"]),
    ("Which resorts in Valdoria have only one trail?", ["Gamsbock Resort", "Marmot Resort"]),
])
def test_every_method_keeps_the_answers_with_exactly_that_count(resorts, method, question, expected):
    out = METHODS[method](resorts).compile().invoke({"question": question})
    assert sorted(a["answer"] for a in out["answers"]) == expected


def test_the_superlative_word_linked_to_a_thing_is_the_whole_graph_questions_grammar():
    assert only_names_its_nouns("Which region has the most resorts?", ["most"])
    assert not only_names_its_nouns("Which region has the most resorts?", ["Valdoria"])


def test_a_place_after_in_is_read_from_capitalised_words():
    assert place_phrases("Which resorts in Brennwald have a trail to Marmot Resort?") == ["Brennwald"]
    assert place_phrases("Which resorts in New Brennwald Valley are open?") == ["New Brennwald Valley"]
    assert place_phrases("which resorts in brennwald are open?") == []


@pytest.fixture(scope="module")
def resorts_on_oxigraph(tmp_path_factory):
    return open_kg(RESORTS, backend="oxigraph", store_path=tmp_path_factory.mktemp("resorts") / "store")


@pytest.mark.parametrize("kg_name", ["resorts", "resorts_on_oxigraph"])
def test_things_named_after_a_place_they_hold_as_a_value_are_a_filter_not_a_topic(kg_name, request):
    resorts = request.getfixturevalue(kg_name)
    linked = [{"id": RESORT + "edelweiss", "mention": "brennwald"}, {"id": RESORT + "gamsbock", "mention": "brennwald"},
              {"id": RESORT + "marmot", "mention": "marmot resort"}]
    question = "Which resorts in Brennwald have a trail to Marmot Resort?"
    assert filter_mentions(resorts, question, linked) == {"brennwald"}
    assert filter_mentions(resorts, question, linked[:2]) == set()  # the only mention: the things in it are the topic
    assert filter_mentions(resorts, "Which resorts in Oberfeld have a trail to Marmot Resort?", linked) == set()
    # a literal one thing holds is its name, not a value shared: "Mosta" on the region is no filter
    assert filter_mentions(resorts, "Which resorts in Mosta have a trail to Falcon Resort?",
                           [{"id": RESORT + "mosta", "mention": "mosta"}, {"id": RESORT + "falcon", "mention": "falcon resort"}]
                           ) == set()
    answers = [{"answer": n, "entity_id": RESORT + k} for k, n in (("edelweiss", "Edelweiss Resort"), ("larch", "Larch Resort"))]
    kept, said = literal_filtered("Which resorts in Brennwald have a trail to Marmot Resort?", answers, resorts)
    assert [a["answer"] for a in kept] == ["Edelweiss Resort"] and 'town is "Brennwald"' in said


@pytest.mark.parametrize("method", ["rog", "tog"])
@pytest.mark.parametrize(("question", "expected"), [
    ("Which resorts in Brennwald have a trail to Marmot Resort?", ["Edelweiss Resort"]),
    ("Which resorts in Oberfeld have a trail to Marmot Resort?", ["Larch Resort"]),
])
def test_the_answers_holding_the_place_as_a_literal_are_kept(resorts, method, question, expected):
    out = METHODS[method](resorts).compile().invoke({"question": question})
    assert [a["answer"] for a in out["answers"]] == expected
    assert any("whose town is" in w for w in out["warnings"])


def test_how_many_is_no_acronym(resorts):
    # "many resorts in valdoria" spells MRV, the association every resort is a member of: an amount word begins no name
    linked = link_entities(resorts, "How many resorts in Valdoria have only one trail?").linked
    assert [item.entity.label for item in linked] == ["Valdoria"]
    assert [i.entity.label for i in link_entities(resorts, "Which resorts are members of the MRV?").linked] == ["MRV"]
