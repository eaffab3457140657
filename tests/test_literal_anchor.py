"""Values the KG writes as plain literals, not nodes (issues 45 and 46), on ``tests/fixtures/volcanoes/volcanoes.ttl``
(invented; see its README): "the country Chile" anchors a question on the volcanoes holding ``v:country "Chile"``
(:mod:`kg_agent.tools.shared.literal_anchor`), and an eruption node carrying ``v:eruptionstyle`` (a value the
eruptions share, so no name of theirs: :mod:`kg_agent.kg.record_values`) answers "which eruption style" with that
value, one step on (:mod:`kg_agent.tools.shared.statement_names`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import load_kg
from kg_agent.tools.shared.literal_anchor import ANCHORED, anchor_for_question, literal_anchor
from kg_agent.tools.shared.statement_names import names_the_asked_phrase

VOLCANOES = Path(__file__).resolve().parent / "fixtures" / "volcanoes" / "volcanoes.ttl"
V = "http://example.org/volcano/"
METHODS = ["rog", "tog", "tog-i"]


@pytest.fixture(scope="module")
def volcanoes():
    return load_kg(VOLCANOES)


@pytest.fixture(scope="module")
def volcanoes_oxigraph(tmp_path_factory):
    from kg_agent.kg import build_oxigraph, open_oxigraph

    store = open_oxigraph(build_oxigraph(VOLCANOES, tmp_path_factory.mktemp("volcanoes") / "store"))
    yield store
    store.close()


def _ask(kg, method: str, question: str) -> dict:
    from kg_agent.graphs.registry import create_graph

    return create_graph(method, kg).compile().invoke({"question": question})


def test_a_value_after_the_relation_that_holds_it_anchors_on_its_holders(volcanoes):
    anchor = literal_anchor(volcanoes, "How many volcanoes have the country Chile?")
    assert anchor is not None and anchor.text == "country = Chile" and anchor.value == '"Chile"'
    assert sorted(anchor.subjects) == [V + "ojos", V + "osorno", V + "villarrica"]
    # a form of "be" between the relation's name and its value
    assert literal_anchor(volcanoes, "Which volcanoes' status is dormant?").text == "status = dormant"


def test_a_value_held_under_several_relations_is_anchored_under_the_one_named(volcanoes):
    # "Japan" is Fuji's country and an observatory's seat
    assert literal_anchor(volcanoes, "How many volcanoes have the country Japan?").subjects == (V + "fuji",)
    assert literal_anchor(volcanoes, "Which observatories have the seat Japan?").subjects == (V + "jma",)


def test_no_anchor_for_a_value_no_relation_named_holds(volcanoes):
    assert literal_anchor(volcanoes, "How many volcanoes have the status extinct?") is None
    assert literal_anchor(volcanoes, "How many volcanoes have the elevation Chile?") is None
    assert literal_anchor(volcanoes, "What is the capital of Chile?") is None  # a name, after no relation's name


def test_an_anchor_of_other_things_than_those_asked_for_is_not_used(volcanoes):
    # the seat "Chile" is an observatory's, and the question asks for volcanoes
    assert literal_anchor(volcanoes, "Which volcanoes have the seat Chile?") is not None
    assert anchor_for_question(volcanoes, "Which volcanoes have the seat Chile?") is None


@pytest.mark.parametrize("method", METHODS)
def test_a_count_over_an_anchor_though_the_value_is_also_an_entitys_name(volcanoes, method):
    # a region is named "Chile" too; no volcano points to it
    result = _ask(volcanoes, method, "How many volcanoes have the country Chile?")
    [answer] = result["answers"]
    assert answer["answer"] == "3" and answer["grounded"]
    assert sorted(answer["counted"]) == ["Ojos del Salado", "Osorno", "Villarrica"]
    assert {p["text"] for p in answer["paths"]} >= {"Chile -> ^country -> Villarrica"}
    assert {t["how"] for t in result["topic_entities"]} == {ANCHORED}
    assert V + "chile" not in {t["id"] for t in result["topic_entities"]}


@pytest.mark.parametrize("method", METHODS)
def test_a_superlative_over_an_anchor_reads_numbers_written_as_strings(volcanoes, method):
    result = _ask(volcanoes, method, "Which volcano with the country Chile has the highest elevation?")
    assert [a["answer"] for a in result["answers"]] == ["Ojos del Salado"]
    assert result["answers"][0]["compared"][0] == {"answer": "Ojos del Salado", "value": "6893"}


@pytest.mark.parametrize("method", METHODS)
def test_a_list_over_an_anchor(volcanoes, method):
    result = _ask(volcanoes, method, "Which volcanoes have the status dormant?")
    assert sorted(a["answer"] for a in result["answers"]) == ["Fuji", "Lanín", "Ojos del Salado", "Osorno"]


@pytest.mark.parametrize("method", METHODS)
def test_a_value_no_relation_holds_answers_nothing(volcanoes, method):
    result = _ask(volcanoes, method, "How many volcanoes have the status extinct?")
    assert result["answers"] == [] and ANCHORED not in {t.get("how") for t in result["topic_entities"]}


def test_an_entity_named_as_the_value_is_linked_when_no_relation_is_named_beside_it(volcanoes):
    result = _ask(volcanoes, "rog", "What is the capital of Chile?")
    assert [t["id"] for t in result["topic_entities"]] == [V + "chile"]
    assert [a["answer"] for a in result["answers"]] == ["Santiago"]


def test_anchors_read_alike_from_an_oxigraph_store(volcanoes_oxigraph):
    anchor = literal_anchor(volcanoes_oxigraph, "How many volcanoes have the country Chile?")
    assert anchor is not None and sorted(anchor.subjects) == [V + "ojos", V + "osorno", V + "villarrica"]
    for method in METHODS:
        result = _ask(volcanoes_oxigraph, method, "Which volcano with the country Chile has the highest elevation?")
        assert [a["answer"] for a in result["answers"]] == ["Ojos del Salado"]
        assert _ask(volcanoes_oxigraph, method, "How many volcanoes have the country Chile?")["answers"][0]["answer"] == "3"


def test_anchors_read_alike_over_a_sparql_endpoint(volcanoes):
    from kg_agent.kg import open_sparql
    from tests.sparql_server import SparqlServer, store_from_graph

    with SparqlServer(store_from_graph(volcanoes.graph)) as server:
        remote = open_sparql(server.url)
        anchor = literal_anchor(remote, "How many volcanoes have the country Chile?")
        assert anchor is not None and sorted(anchor.subjects) == [V + "ojos", V + "osorno", V + "villarrica"]


# ---------------------------------------------------------------------------------------------- statement names

def test_the_asked_phrase_names_a_predicate_by_its_words_or_run_together():
    assert names_the_asked_phrase("Which eruption style did Etna have?", V + "eruptionstyle")
    assert names_the_asked_phrase("Which eruption styles did Etna have?", V + "eruption_style")
    assert names_the_asked_phrase("Which eruption style did Etna have?", V + "eruptionStyle")
    assert not names_the_asked_phrase("Which eruptions did Etna have?", V + "eruptionstyle")
    assert not names_the_asked_phrase("Which eruption style did Etna have?", V + "eruption")


def test_the_eruptions_are_statement_nodes_whose_repeated_style_is_no_name(volcanoes):
    """The styles repeat (5 texts on 12 eruptions): a value of the eruptions, not their name (kg/record_values.py)."""
    from kg_agent.kg.nameless import Nameless

    assert V + "eruptionstyle" not in volcanoes.naming.label_predicates
    assert V + "eruptionstyle" in volcanoes.naming.record_value_predicates
    assert Nameless.among(volcanoes, [V + "eruption4"]).statements == {V + "eruption4"}


@pytest.mark.parametrize("method", METHODS)
def test_a_statement_node_named_by_the_asked_predicate_answers_its_name(volcanoes, method):
    result = _ask(volcanoes, method, "Which eruption style did Etna have?")  # ToG-I's beam may keep one eruption
    assert result["answers"] and {a["answer"] for a in result["answers"]} <= {"Effusive", "Hawaiian", "Strombolian"}
    [path] = result["answers"][0]["paths"][:1]
    assert [s["relation"] for s in path["steps"]] == ["eruption", "eruptionstyle"]
    assert all(a["grounded"] for a in result["answers"])


def test_a_statement_node_is_no_answer_when_its_naming_predicate_is_not_asked_for(volcanoes):
    from kg_agent.tools.shared.statement_names import walks_to_asked_names

    etna = {"id": V + "etna", "label": "Etna"}
    walk = {"text": "Etna -> eruption -> Effusive", "start": etna,
            "steps": [{"head": etna, "relation": "eruption", "tail": {"id": V + "eruption4", "label": "Effusive"}}]}
    assert walks_to_asked_names("Which eruptions did Etna have?", [walk], volcanoes) == [walk]
    [stepped] = walks_to_asked_names("Which eruption style did Etna have?", [walk], volcanoes)
    assert stepped["steps"][-1]["tail"] == {"id": '"Effusive"', "label": "Effusive"}
