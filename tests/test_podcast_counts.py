"""Count, compare, rank (issue 46 item 2) where the KG says the unit and the relation's own name is hidden:

* a property labelled with a sibling property's name (``pod:host rdfs:label "title"`` beside ``pod:title``, a label
  block copied and left unedited) is named by its local name, ``host``, on every backend: else "hosts" names no
  relation and "the show with the most hosts" counts something else;
* "which has more / fewer <noun>, A or B" counts what the relation the noun names reaches from each when the KG writes
  no such number, and answers the thing with the two counts as evidence;
* a bound said in a unit of time ("shorter than **a** minute", "longer than 35 minutes") is converted to the unit the
  compared relation's description states ("expressed in seconds").

Fixture: ``tests/fixtures/podcasts/podcasts.ttl`` (invented: shows, their hosts of a class named ``Person``, episodes
with a runtime in seconds and an air date; see its README).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import load_kg, open_kg
from kg_agent.tools.shared.aggregates import MAX, MIN, asked_comparison
from kg_agent.tools.shared.whole_graph import answer_over_whole_graph

PODCASTS = Path(__file__).resolve().parent / "fixtures" / "podcasts" / "podcasts.ttl"
POD = "http://example.org/podcasts/"
METHODS = {"rog": create_rog_graph, "tog": create_tog_graph, "tog-i": create_tog_i_graph}


@pytest.fixture(scope="module")
def podcasts():
    return load_kg(PODCASTS)


@pytest.fixture(scope="module")
def podcasts_on_oxigraph(tmp_path_factory):
    return open_kg(PODCASTS, backend="oxigraph", store_path=tmp_path_factory.mktemp("podcasts") / "store")


@pytest.mark.parametrize("kg_name", ["podcasts", "podcasts_on_oxigraph"])
def test_a_label_copied_from_a_sibling_property_does_not_name_the_relation(kg_name, request):
    kg = request.getfixturevalue(kg_name)
    assert "host" in kg.edges(POD + "morning_tide")
    assert kg.relation_iri("host") == POD + "host"
    assert kg.relation_iri("title") == POD + "title"
    assert kg.relation_iri("runtime") == POD + "runtime"  # a label that is its own name stays


def test_only_a_label_naming_a_sibling_of_the_same_namespace_is_a_copy():
    from kg_agent.kg.terms import sibling_copied_labels

    labels = {POD + "host": "title", POD + "title": "title", POD + "runtime": "run time",
              "http://example.org/other/host": "runtime"}
    assert sibling_copied_labels(labels, [POD + "title", POD + "runtime", POD + "host"]) == {POD + "host"}


def test_the_show_with_the_most_hosts_counts_the_host_relation(podcasts):
    answers, what = answer_over_whole_graph(podcasts, "Which show has the most hosts?")
    assert [a["answer"] for a in answers] == ["Morning Tide"]
    assert "over host" in what


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize(("question", "expected", "counts"), [
    ("Which has more hosts, Morning Tide or Night Owls?", "Morning Tide", ["4", "2"]),
    ("Which has fewer hosts, Garden Hour or Night Owls?", "Night Owls", ["2", "3"]),
    ("Which of Garden Hour and Morning Tide has more episodes?", "Garden Hour", ["8", "3"]),
])
def test_which_has_more_of_a_noun_counts_what_the_noun_names(podcasts, method, question, expected, counts):
    out = METHODS[method](podcasts).compile().invoke({"question": question})
    assert [a["answer"] for a in out["answers"]] == [expected]
    answer = out["answers"][0]
    assert [c["value"] for c in answer["compared"]] == counts
    assert answer["paths"] and answer["grounded"]


def test_an_article_before_a_unit_is_the_number_one():
    asked = asked_comparison("Which episodes of Morning Tide are shorter than a minute?")
    assert (asked.order, asked.bound, asked.unit, asked.phrase) == (MIN, 1.0, "minute", "shorter than a minute")
    assert asked_comparison("Which episodes run longer than an hour?").bound == 1.0
    assert asked_comparison("Which shows have more than a few hosts?") is None  # "a" before no unit is no number
    assert asked_comparison("Which episodes are longer than 35 minutes?").order == MAX


def test_a_bound_in_a_unit_of_time_is_converted_to_the_unit_the_relation_states(podcasts):
    from kg_agent.tools.shared.measured_relations import unit_scale

    assert unit_scale("minute", "runtime", podcasts) == 60.0
    assert unit_scale("hours", "runtime", podcasts) == 3600.0
    assert unit_scale("feet", "runtime", podcasts) == 1.0  # no unit of time: nothing converted
    assert unit_scale("minute", "aired", podcasts) == 1.0  # the relation states no unit


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize(("question", "expected"), [
    ("Which episodes of Morning Tide are shorter than a minute?", ["Low Water"]),
    ("Which episodes of Morning Tide are longer than a minute?", ["Harbour Bells", "Spring Tide"]),
    ("Which episodes of Night Owls are longer than 35 minutes?", ["Last Tram Home", "Moth Lanterns"]),
])
def test_every_method_compares_a_duration_in_the_relations_unit(podcasts, method, question, expected):
    out = METHODS[method](podcasts).compile().invoke({"question": question})
    assert sorted(a["answer"] for a in out["answers"]) == expected
    assert all(a.get("compared_by") == "runtime" for a in out["answers"])


def test_a_noun_naming_no_relation_counts_nothing(podcasts):
    from kg_agent.tools.shared.which_of import which_of_answered

    linked = [{"id": POD + "morning_tide", "mention": "morning tide", "label": "Morning Tide"},
              {"id": POD + "night_owls", "mention": "night owls", "label": "Night Owls"}]
    found = which_of_answered("Which has more hosts, Morning Tide or Night Owls?", linked, podcasts)
    assert found is not None and found[0][0]["compared_by"] == "number of host"
    assert which_of_answered("Which has more awards, Morning Tide or Night Owls?", linked, podcasts) is None
