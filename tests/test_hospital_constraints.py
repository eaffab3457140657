"""Counts, superlatives and constraints on a KG whose members come in lists and whose kinds are literals (issue 46
items 2 and 4), on ``tests/fixtures/constraints/hospital.ttl``: a hospital's surgeons, patients and operations, written
as ISWC's conference data writes papers and authors (benchmarks/realkgs/iswc-conferences/ORIGIN.md "Shape")."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import load_kg
from kg_agent.tools.shared.aggregates import MAX
from kg_agent.tools.shared.whole_graph import WholeGraphQuestion, answer_over_whole_graph, whole_graph_question

HOSPITAL = Path(__file__).resolve().parent / "fixtures" / "constraints" / "hospital.ttl"


@pytest.fixture(scope="module")
def hospital():
    return load_kg(HOSPITAL)


def test_a_participle_after_the_counted_noun_names_the_relation_counted():
    assert whole_graph_question("Which hospital has the most people affiliated with it?") == WholeGraphQuestion(
        MAX, "hospital", "people", relation_words="affiliated")


def test_the_most_people_affiliated_counts_over_the_affiliation_not_another_relation_of_people(hospital):
    # City General treats four patients (persons too), St Mary has three surgeons affiliated with it
    answers, what = answer_over_whole_graph(hospital, "Which hospital has the most people affiliated with it?")
    assert [a["answer"] for a in answers] == ["St Mary Hospital"] and "affiliation" in what
    answers, what = answer_over_whole_graph(hospital, "Which hospital has the most people treated?")
    assert [a["answer"] for a in answers] == ["City General Hospital"] and "treatedAt" in what


EX = "http://example.org/hospital/"


def test_a_container_and_a_collection_are_read_as_their_members_in_order(hospital):
    from kg_agent.kg.containers import list_members

    seq = list_members(hospital, EX + "op-1-surgeons")
    assert [steps[-1][1] for steps in seq] == [EX + "ana-ruiz", EX + "ben-okafor", EX + "chen-li"]
    [rota] = hospital.neighbors(EX + "night-rota", "onCall")  # ( chen-li dara-walsh ): rdf:first / rdf:rest cells
    assert [steps[-1][1] for steps in list_members(hospital, rota)] == [EX + "chen-li", EX + "dara-walsh"]
    assert list_members(hospital, EX + "op-1") is None


@pytest.mark.parametrize("method", ["rog", "tog", "tog-i"])
def test_a_count_of_members_counts_the_things_not_the_list_node_nor_the_string_naming_them(hospital, method):
    from kg_agent.graphs.registry import create_graph

    app = create_graph(method, hospital).compile()
    result = app.invoke({"question": 'How many surgeons does the operation "Heart Valve Repair of March 3" have?'})
    [answer] = result["answers"]
    assert answer["answer"] == "3"
    assert sorted(answer["counted"]) == ["Ana Ruiz", "Ben Okafor", "Chen Li"]


@pytest.mark.parametrize("method", ["rog", "tog", "tog-i"])
def test_a_walk_into_a_collection_reaches_its_members(hospital, method):
    from kg_agent.graphs.registry import create_graph

    app = create_graph(method, hospital).compile()
    result = app.invoke({"question": "Who is on call on the Night Rota?"})
    assert sorted(a["answer"] for a in result["answers"]) == ["Chen Li", "Dara Walsh"]


def test_the_noun_phrase_after_which_is_read_with_its_modifiers():
    from kg_agent.tools.shared.constraints import asked_type

    topic = [{"id": EX + "ana-ruiz", "label": "Ana Ruiz", "mention": "ana ruiz"}]
    asked = asked_type("Which emergency operations did Ana Ruiz perform?", topic)
    assert asked.noun_phrase == ("emergency", "operations")
    assert asked_type("What operations did Ana Ruiz perform?", topic).noun_phrase == ("operations",)
    # one reader: after "what was the first" and "which other" the noun phrase is the type noun's, as is the phrase
    assert asked_type("What was the first emergency operation?", topic).noun_phrase == ("emergency", "operation")
    assert asked_type("Which other surgeons did Ana Ruiz train?", topic).noun_phrase == ("surgeons",)
    assert asked_type("How many scheduled operations did Ana Ruiz perform?", topic).phrase == "scheduled operations"
    # a round-trip cue is the verb, not a modifier: no answer's kind is read for "surgeons share"
    assert asked_type("Which surgeons share operations with Ana Ruiz?", topic).noun_phrase == ("surgeons",)


@pytest.mark.parametrize("method", ["rog", "tog", "tog-i"])
def test_a_modifier_naming_a_literal_kind_of_the_answers_keeps_those_of_that_kind(hospital, method):
    from kg_agent.graphs.registry import create_graph

    app = create_graph(method, hospital).compile()
    result = app.invoke({"question": "Which emergency operations had Ana Ruiz as surgeon?"})
    # op-2 is her elective operation: its category "Elective Operation" is not what "emergency operations" names
    assert sorted(a["answer"] for a in result["answers"]) == ["Appendectomy of May 21", "Heart Valve Repair of March 3"]
    assert all("Emergency Operation" in a["constraints"] for a in result["answers"])
    every = app.invoke({"question": "Which operations had Ana Ruiz as surgeon?"})  # no modifier: no kind kept
    assert every["answers"] and not any("category" in (a.get("constraints") or "") for a in every["answers"])


def test_a_name_written_with_an_initial_under_another_iri_sharing_a_neighbour_is_linked_too(hospital):
    from kg_agent.kg.linking import link_entities

    linked = link_entities(hospital, "Which operations had both Ana Ruiz and Dara Walsh as surgeons?").linked
    by_mention = {}
    for item in linked:
        by_mention.setdefault(item.mention, set()).add(item.entity.id)
    assert by_mention["dara walsh"] == {EX + "dara-walsh", EX + "dara-m-walsh"}  # both at City General
    alone = link_entities(hospital, "Which hospital is Ben Okafor affiliated with?").linked
    assert {item.entity.id for item in alone} == {EX + "ben-okafor"}  # "Ben T. Okafor" shares no neighbour with him


@pytest.mark.parametrize("method", ["rog", "tog"])
def test_things_shared_by_two_people_meet_on_either_iri_of_one_of_them(hospital, method):
    from kg_agent.graphs.registry import create_graph

    app = create_graph(method, hospital).compile()
    result = app.invoke({"question": "Which operations had both Ana Ruiz and Dara Walsh as surgeons?"})
    both = {"Hip Fracture Repair of June 2", "Knee Replacement of April 9"}  # Dara Walsh's, Dara M. Walsh's
    answers = {a["answer"] for a in result["answers"]}
    assert answers == both if method == "rog" else answers and answers <= both  # ToG answers its explored ends


def test_a_walk_up_from_a_member_to_its_list_does_not_reach_the_members_fellows(hospital):
    from kg_agent.kg.containers import walks_into_lists
    from kg_agent.kg.types import Entity, Triple
    from kg_agent.kg.walks import Walk

    chen, seq = Entity(EX + "chen-li", "Chen Li"), Entity(EX + "op-1-surgeons", "op-1-surgeons")
    up = Walk(chen, (Triple(chen, "^_3", seq),)).to_dict()  # "the surgeon list Chen Li is third on"
    assert walks_into_lists([up], hospital) == [up]  # not Ana Ruiz and Ben Okafor, who are on it too
    down = Walk(Entity(EX + "op-1", "Heart Valve Repair of March 3"),
                (Triple(Entity(EX + "op-1", "Heart Valve Repair of March 3"), "surgeonList", seq),)).to_dict()
    assert [w["text"].rsplit(" -> ", 1)[-1] for w in walks_into_lists([down], hospital)] == [
        "Ana Ruiz", "Ben Okafor", "Chen Li"]


def test_lists_read_alike_from_an_oxigraph_store(tmp_path_factory):
    from kg_agent.graphs.registry import create_graph
    from kg_agent.kg import build_oxigraph, open_oxigraph
    from kg_agent.kg.containers import list_members

    store = open_oxigraph(build_oxigraph(HOSPITAL, tmp_path_factory.mktemp("hospital") / "store"))
    try:
        assert [s[-1][1] for s in list_members(store, EX + "op-2-surgeons")] == [EX + "ana-ruiz", EX + "dara-walsh"]
        result = create_graph("rog", store).compile().invoke({"question": "Who is on call on the Night Rota?"})
        assert sorted(a["answer"] for a in result["answers"]) == ["Chen Li", "Dara Walsh"]
    finally:
        store.close()


def test_over_an_endpoint_lists_are_stepped_into_and_a_kg_without_lists_is_not_read_for_them(hospital, kg):
    """A walk to the surgeon list reaches its members over a SPARQL endpoint as in memory; over a KG with no membership
    property (the sample movie KG) the walks' ends are not read for lists: no request."""
    from kg_agent.kg import entity_iri, open_sparql
    from kg_agent.kg.containers import walks_into_lists
    from kg_agent.kg.types import Entity, Triple
    from kg_agent.kg.walks import Walk
    from tests.sparql_server import SparqlServer, store_from_graph

    op = Entity(EX + "op-1", "Heart Valve Repair of March 3")
    down = Walk(op, (Triple(op, "surgeonList", Entity(EX + "op-1-surgeons", "op-1-surgeons")),)).to_dict()
    with SparqlServer(store_from_graph(hospital.graph)) as server:
        remote = open_sparql(server.url)
        assert walks_into_lists([down], remote) == walks_into_lists([down], hospital)
        assert len(walks_into_lists([down], remote)) == 3
    film = Entity(str(entity_iri("Forrest Gump")), "Forrest Gump")
    walk = Walk(film, (Triple(film, "directed_by", Entity(str(entity_iri("Robert Zemeckis")), "Robert Zemeckis")),))
    with SparqlServer(store_from_graph(kg.graph)) as server:
        remote = open_sparql(server.url)
        remote.relation_names()  # asked once per client, with the linking of any question
        before = remote.request_count()
        assert walks_into_lists([walk.to_dict()], remote) == [walk.to_dict()]
        assert remote.request_count() == before
