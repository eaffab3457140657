"""Answers of the kind asked, and no answer where the KG has no relation for what is asked (issue 46 items 1-2):
a literal's datatype says what it is (``xsd:integer`` downloads are no release date), and a question whose asked
relation no walk ends in is abstained on, with the reason; on the Gutenberg cut of tests/fixtures/realkgs (README)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.tools.shared.answer_checks import ABSTAINED, final_answers
from kg_agent.tools.shared.answer_types import NUMBER, TIME, ObjectKinds, literal_kind
from kg_agent.tools.shared.path_scoring import RelationPathScorer

CATALOGUE = Path(__file__).parent / "fixtures" / "realkgs" / "catalogue.nt"
XSD = "http://www.w3.org/2001/XMLSchema#"


def typed(value: str, datatype: str) -> dict:
    return {"answer": value, "entity_id": f'"{value}"^^<{XSD}{datatype}>', "score": 1.0, "grounded": True, "paths": []}


def test_a_literal_is_a_time_or_a_number_by_its_datatype():
    assert literal_kind(f'"2008-06-27"^^<{XSD}date>') == TIME and literal_kind(f'"-0027"^^<{XSD}gYear>') == TIME
    assert literal_kind(f'"858"^^<{XSD}integer>') == NUMBER and literal_kind(f'"45.75"^^<{XSD}decimal>') == NUMBER
    assert literal_kind('"858"') == literal_kind('"Horror"@en') == literal_kind("http://x/858") == ""


def test_a_relation_of_integers_is_no_time_though_some_look_like_years():
    counts = ["858", "15680", "101", "17"]
    kinds = ObjectKinds.of(counts, [[]] * 4, nodes=[f'"{c}"^^<{XSD}integer>' for c in counts])
    assert kinds.time == 0.0 and kinds.number == 1.0
    years = ["1812", "1870"]  # a year of birth typed xsd:integer is still a year
    assert ObjectKinds.of(years, [[]] * 2, nodes=[f'"{y}"^^<{XSD}integer>' for y in years]).time == 1.0
    bc = ObjectKinds.of(["-0063-09-23"], [[]], nodes=[f'"-0063-09-23"^^<{XSD}date>'])  # no shape rule reads it
    assert bc.time == 1.0


def test_a_time_asked_drops_the_number_reached_beside_it():
    answers = [typed("15680", "integer"), typed("2008-06-27", "date")]
    checked = final_answers("When was Alice's Adventures in Wonderland released?", answers)
    assert [a["answer"] for a in checked.answers] == ["2008-06-27"] and checked.stop_reason == ""


def test_only_numbers_reached_for_a_time_is_an_abstention_unless_best_effort():
    question = "When was Alice's Adventures in Wonderland released?"
    checked = final_answers(question, [typed("15680", "integer")])
    assert checked.answers == [] and checked.stop_reason == ABSTAINED
    assert "asks for a time" in checked.warnings[0] and "'15680'" in checked.warnings[0]
    kept = final_answers(question, [typed("15680", "integer")], policy="best_effort")
    assert [(a["answer"], a["grounded"]) for a in kept.answers] == [("15680", False)]


def test_a_quantity_asked_drops_a_date():
    checked = final_answers("How heavy is the coin?", [typed("1990-01-01", "date"), typed("3.9", "decimal")])
    assert [a["answer"] for a in checked.answers] == ["3.9"]


@pytest.fixture(scope="module")
def catalogue():
    return open_kg(CATALOGUE)


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_when_released_is_answered_by_the_date_not_the_download_count(catalogue, factory):
    result = factory(catalogue).compile().invoke(
        {"question": "When was Frankenstein; Or, The Modern Prometheus released on Project Gutenberg?"})
    assert [a["answer"] for a in result["answers"]][:1] == ["1993-10-01"]
    assert "8874" not in [a["answer"] for a in result["answers"]]


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_a_relation_the_kg_lacks_is_abstained_on_with_the_reason(catalogue, factory):
    app = factory(catalogue).compile()
    isbn = app.invoke({"question": "What is the ISBN of Dracula?"})
    assert isbn["answers"] == [] and isbn["stop_reason"] == ABSTAINED
    assert any("the knowledge graph has no relation for 'isbn'" in w for w in isbn["warnings"]), isbn["warnings"]
    kept = app.invoke({"question": "What is the ISBN of Dracula?"}, context={"when_unsupported": "best_effort"})
    assert kept["answers"] and kept["stop_reason"] != ABSTAINED


def test_a_relation_the_kg_has_but_the_entity_lacks_is_not_answered_by_the_kind_alone(catalogue):
    # the KG has an illustrator relation (``ill``, at another book), not at the asked one: "who" is not answered by
    # the creator, whose persons fit "who" but whom no word of the question names
    found = RelationPathScorer().asked_paths("Who illustrated [ENT]?", [("creator",), ("publisher",)], kg=catalogue)
    assert found.asked == frozenset() and "'ill' for 'illustrated'" in found.reason
    wrote = RelationPathScorer().asked_paths("Who wrote [ENT]?", [("creator",), ("publisher",)], kg=catalogue)
    assert wrote.asked == {("creator",)} and wrote.reason is None


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph])
def test_relations_named_otherwise_are_still_answered(catalogue, factory):
    app = factory(catalogue).compile()
    assert [a["answer"] for a in app.invoke({"question": "Who wrote Dracula?"})["answers"]][:1] == ["Stoker, Bram"]
    released = app.invoke({"question": "When was Dracula released?"})
    assert [a["answer"] for a in released["answers"]][:1] == ["1995-10-01"]


# ------------------------------------------------------------------ prose is no thing
ONTOLOGY = Path(__file__).parent / "fixtures" / "realkgs" / "ontology.nt"


def test_prose_and_sentences_are_told_from_names():
    from kg_agent.tools.shared.answer_types import is_prose
    assert is_prose("A gene from nuclear sequence.") and is_prose("x" * 81)
    assert not is_prose("Twain, Mark") and not is_prose("The Adventures of Tom Sawyer") and not is_prose("Jr.")


def _prose_answer(relation: str) -> dict:
    text = "A region (or regions) that includes all of the sequence elements necessary to encode a functional transcript."
    step = {"head": {"id": "http://x/gene", "label": "gene"}, "relation": relation, "tail": {"id": f'"{text}"', "label": text}}
    return {"answer": text, "entity_id": f'"{text}"', "score": 1.0, "grounded": True, "paths": [{"steps": [step]}]}


def test_a_thing_asked_for_is_never_a_definition_reached():
    """A definition a walk reaches is a text, not a laboratory: abstained with the reason (best effort: kept,
    flagged); asked for by its relation's name ("which definition"), it is the answer."""
    checked = final_answers("Which laboratory first described gene?", [_prose_answer("definition")])
    assert checked.answers == [] and checked.stop_reason == ABSTAINED
    assert any("are prose, not a laboratory" in w for w in checked.warnings)
    kept = final_answers("Which laboratory first described gene?", [_prose_answer("definition")], policy="best_effort")
    assert [a["grounded"] for a in kept.answers] == [False]
    assert final_answers("Which definition does gene have?", [_prose_answer("definition")]).answers
    assert final_answers("What does gene mean?", [_prose_answer("definition")]).answers  # no thing asked for


def test_who_and_where_are_never_answered_with_a_number_or_a_time():
    """A talk's ``orderInSession`` reached for "who chaired the session" is a number, no person."""
    order = {**typed("4", "integer"), "paths": [{"steps": [{"head": {"id": "http://x/talk", "label": "talk"},
                                                            "relation": "orderInSession", "tail": {"id": "4"}}]}]}
    checked = final_answers("Who chaired the session?", [order])
    assert checked.answers == [] and checked.stop_reason == ABSTAINED
    assert any("are a number, not a person" in w for w in checked.warnings)
    assert final_answers("Where was it held?", [typed("2004-11-08", "date")]).stop_reason == ABSTAINED
    assert final_answers("Which number did he wear?", [typed("4", "integer")]).answers  # a thing named "number"


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph])
def test_a_definition_asked_for_by_its_name_is_answered_and_a_laboratory_is_not(factory):
    kg = open_kg(ONTOLOGY)
    graph = factory(kg).compile()
    result = graph.invoke({"question": "Which laboratory first described gene?"})
    assert result["answers"] == [] and result["stop_reason"] == ABSTAINED
    [answer] = graph.invoke({"question": "What is the definition of gene?"})["answers"]
    assert answer["answer"].startswith("A region (or regions) that includes all of the sequence elements")


CONFERENCE = """@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix ex: <http://example.org/> .
ex:iswc2004 rdfs:label "ISWC 2004" ; ex:chaired_by ex:frank ; ex:located_in ex:hiroshima .
ex:iswc2005 rdfs:label "ISWC 2005" ; ex:chaired_by ex:yolanda ; ex:located_in ex:galway .
ex:frank rdfs:label "Frank" . ex:yolanda rdfs:label "Yolanda" .
ex:hiroshima rdfs:label "Hiroshima" . ex:galway rdfs:label "Galway" .
"""


def test_where_is_never_answered_with_persons_nor_who_with_places(tmp_path):
    """Conference-shaped (names ours): the values of ``chaired_by`` are persons (an agent's "by"), those of
    ``located_in`` places; "where was [X] held" answered with its chair is abstained on, with the reason."""
    path = tmp_path / "conference.ttl"
    path.write_text(CONFERENCE, encoding="utf-8")
    kg = open_kg(path)

    def reached(relation: str, key: str, label: str) -> dict:
        step = {"head": {"id": "http://example.org/iswc2004", "label": "ISWC 2004"}, "relation": relation,
                "tail": {"id": key, "label": label}}
        return {"answer": label, "entity_id": key, "score": 1.0, "grounded": True, "paths": [{"steps": [step]}]}

    chair, city = reached("chaired_by", "http://example.org/frank", "Frank"), \
        reached("located_in", "http://example.org/hiroshima", "Hiroshima")
    checked = final_answers("Where was ISWC 2004 held?", [chair], kg=kg)
    assert checked.answers == [] and any("are persons, not a place" in w for w in checked.warnings)
    assert [a["answer"] for a in final_answers("Where was ISWC 2004 held?", [chair, city], kg=kg).answers] == ["Hiroshima"]
    assert final_answers("Who chaired ISWC 2004?", [city], kg=kg).stop_reason == ABSTAINED
    assert [a["answer"] for a in final_answers("Who chaired ISWC 2004?", [chair], kg=kg).answers] == ["Frank"]
    # a relation the question names in full is what it asks for, whatever its wh-word (PathQuestion's "who is the
    # place of death of ...")
    assert [a["answer"] for a in final_answers("Who is the location of ISWC 2004?", [city], kg=kg).answers] == ["Hiroshima"]


# ------------------------------------------------------------------ an orchestra's KG: kinds the KG has and lacks
ORCHESTRA = """@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <http://example.org/> .
ex:berlin a ex:Orchestra ; rdfs:label "Berlin Phil" ; ex:conductor ex:karajan ; ex:homepage <http://berlin.example/> .
ex:vienna a ex:Orchestra ; rdfs:label "Vienna Phil" ; ex:conductor ex:boehm .
ex:karajan a ex:Musician ; rdfs:label "Karajan" ; ex:homepage <http://karajan.example/> .
ex:boehm a ex:Musician ; rdfs:label "Boehm" .
ex:night a ex:Concert ; rdfs:label "Night Music" ; ex:year "1970" ; ex:performer ex:berlin ;
    ex:starts "1970-05-01T20:00:00"^^xsd:dateTime ; ex:ends "1970-05-01T22:00:00"^^xsd:dateTime .
ex:night_lp a ex:Recording ; rdfs:label "Night Music" ; ex:year "1971" ; ex:performer ex:berlin .
ex:moonlight a ex:Recording ; rdfs:label "Moonlight Sessions" ; ex:catalogue_number "DG-2531" ;
    ex:performer ex:vienna ; ex:year "1975" .
"""
EX = "http://example.org/"


@pytest.fixture(scope="module")
def orchestra(tmp_path_factory):
    path = tmp_path_factory.mktemp("orchestra") / "orchestra.ttl"
    path.write_text(ORCHESTRA, encoding="utf-8")
    return open_kg(path)


def walked(*steps: tuple[str, str, str, str], value: str | None = None, datatype: str = "") -> dict:
    """An answer at the end of a walk of ``(head id, relation, tail id, tail label)`` steps (a literal: its value)."""
    path = [{"head": {"id": head if head.startswith(("http", '"')) else EX + head, "label": ""}, "relation": relation,
             "tail": {"id": tail, "label": label}} for head, relation, tail, label in steps]
    labels = {EX + "night": "Night Music", EX + "night_lp": "Night Music", EX + "moonlight": "Moonlight Sessions",
              EX + "berlin": "Berlin Phil", EX + "vienna": "Vienna Phil"}
    for step in path:
        step["head"]["label"] = labels.get(step["head"]["id"], step["head"]["id"])
    end = path[-1]["tail"]
    key = f'"{value}"^^<{XSD}{datatype}>' if value is not None and datatype else f'"{value}"' if value is not None else end["id"]
    return {"answer": end["label"], "entity_id": key, "score": 1.0, "grounded": True, "paths": [{"steps": path}]}


def test_a_kind_of_thing_the_kg_has_no_relation_nor_class_for_is_abstained_on(orchestra):
    """"Which prize": no relation of the KG is named so or near it, none of its classes (Orchestra, Musician,
    Concert, Recording) is: the year and the performer reached are no prize. "Which orchestra" names a class."""
    scorer = RelationPathScorer()
    found = scorer.asked_paths("Which prize did [ENT] win?", [("year",), ("catalogue_number",), ("performer",)],
                               kg=orchestra)
    assert found.asked == frozenset() and "no relation or class for 'prize'" in found.reason
    assert scorer.asked_paths("Which orchestra performed [ENT]?", [("performer",), ("year",)],
                              kg=orchestra).asked == {("performer",)}
    year = walked(("moonlight", "year", '"1975"', "1975"), value="1975")
    checked = final_answers("Which prize did Moonlight Sessions win?", [year], kg=orchestra)
    assert checked.answers == [] and checked.stop_reason == ABSTAINED
    assert any("no relation or class for 'prize'" in w for w in checked.warnings), checked.warnings
    kept = final_answers("Which prize did Moonlight Sessions win?", [year], kg=orchestra, policy="best_effort")
    assert [(a["answer"], a["grounded"]) for a in kept.answers] == [("1975", False)]


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph])
def test_pages_are_not_counted_from_a_catalogue_number(orchestra, factory):
    """"How many pages": the KG's ``homepage`` is what the noun names, and no walk from the recording ends in it;
    its catalogue number, reached instead, is not counted as one page."""
    result = factory(orchestra).compile().invoke({"question": "How many pages does Moonlight Sessions have?"})
    assert result["answers"] == [] and result["stop_reason"] == ABSTAINED, result["answers"]
    assert any("has 'homepage' for 'pages', but no walk" in w for w in result["warnings"]), result["warnings"]
    performed = factory(orchestra).compile().invoke({"question": "Which orchestra performed Moonlight Sessions?"})
    assert [a["answer"] for a in performed["answers"]] == ["Vienna Phil"]


def test_a_count_counts_what_the_entity_has_not_what_another_node_has(orchestra):
    """"How many pages does [a recording] have": its performer's homepage is the orchestra's page, no page of the
    recording; counting it says how many the orchestra has. Abstained with the reason; a first hop the question
    names ("the conductor of [X]") is counted through."""
    page = walked(("moonlight", "performer", EX + "vienna", "Vienna Phil"),
                  (EX + "vienna", "homepage", "http://vienna.example/", "http://vienna.example/"))
    checked = final_answers("How many pages does Moonlight Sessions have?", [page], kg=orchestra)
    assert checked.answers == [] and checked.stop_reason == ABSTAINED
    assert any("through 'performer', which no word of the question names" in w for w in checked.warnings)
    own = walked(("berlin", "homepage", "http://berlin.example/", "http://berlin.example/"))
    assert [a["answer"] for a in final_answers("How many pages does Berlin Phil have?", [own], kg=orchestra).answers] == ["1"]
    conductor = walked(("berlin", "conductor", EX + "karajan", "Karajan"),
                       (EX + "karajan", "homepage", "http://karajan.example/", "http://karajan.example/"))
    counted = final_answers("How many pages does the conductor of Berlin Phil have?", [conductor], kg=orchestra)
    assert [a["answer"] for a in counted.answers] == ["1"] and counted.stop_reason == ""


def test_when_puts_the_finest_of_one_nodes_times_first(orchestra):
    """A concert's ``year`` (a plain "1970") and its start (``xsd:dateTime``): "when" is answered first by the
    moment; "in which year" keeps the order; times of different nodes are not reordered."""
    year = walked(("night", "year", '"1970"', "1970"), value="1970")
    starts = walked(("night", "starts", "", "1970-05-01T20:00:00"), value="1970-05-01T20:00:00", datatype="dateTime")
    ends = walked(("night", "ends", "", "1970-05-01T22:00:00"), value="1970-05-01T22:00:00", datatype="dateTime")
    when = final_answers("When did the concert start?", [year, starts, ends])
    assert [a["answer"] for a in when.answers] == ["1970-05-01T20:00:00", "1970-05-01T22:00:00", "1970"]
    which_year = final_answers("In which year did the concert take place?", [year, starts, ends])
    assert [a["answer"] for a in which_year.answers][0] == "1970"
    other = walked(("moonlight", "year", '"1975"', "1975"), value="1975")
    assert [a["answer"] for a in final_answers("When did it start?", [other, starts]).answers] == \
        ["1975", "1970-05-01T20:00:00"]


def test_the_kind_before_a_shared_name_picks_the_thing_of_that_kind(orchestra):
    """A concert and a recording are both called "Night Music": "the concert Night Music" is the concert (its class
    is named by the word before the name), so the recording's year is left out; without the word both stay."""
    concert_year = walked(("night", "year", '"1970"', "1970"), value="1970")
    record_year = walked(("night_lp", "year", '"1971"', "1971"), value="1971")
    answers = [record_year, concert_year]
    asked = final_answers("When did the concert Night Music take place?", answers, kg=orchestra)
    assert [a["answer"] for a in asked.answers] == ["1970"]
    recorded = final_answers("In which year was the recording Night Music made?", answers, kg=orchestra)
    assert [a["answer"] for a in recorded.answers] == ["1971"]
    assert len(final_answers("When was Night Music made?", answers, kg=orchestra).answers) == 2


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_the_recording_named_so_is_linked_not_the_concert_of_the_same_name(orchestra, factory):
    """Linking keeps, of the two things called "Night Music", the recording the word before the name asks about;
    its year answers, not the concert's."""
    result = factory(orchestra).compile().invoke({"question": "In which year was the recording Night Music released?"})
    assert [t["id"] for t in result["topic_entities"]] == [EX + "night_lp"]
    assert [a["answer"] for a in result["answers"]] == ["1971"]


def test_linking_keeps_every_thing_of_a_name_when_no_word_names_a_kind(orchestra):
    from kg_agent.kg.linking import link_entities
    from kg_agent.tools.shared.link import links_of_the_kind_named

    def linked(question: str) -> set[str]:
        return {e.id for e in links_of_the_kind_named(orchestra, question, link_entities(orchestra, question)).entities}

    assert linked("When was Night Music made?") == {EX + "night", EX + "night_lp"}
    assert linked("Who played on the recording Night Music?") == {EX + "night_lp"}


def test_a_superlative_answered_by_texts_with_nothing_to_compare_is_abstained_on(orchestra):
    """"The earliest-founded orchestra ..." reached only a catalogue number (a text, no number or date): nothing was
    compared, so it is no answer; a year (a value) or a thing is left to the ranker."""
    number = walked(("moonlight", "catalogue_number", '"DG-2531"', "DG-2531"), value="DG-2531")
    checked = final_answers("Which is the earliest-founded orchestra on Moonlight Sessions?", [number], kg=orchestra)
    assert checked.answers == [] and checked.stop_reason == ABSTAINED
    assert any("texts with no number or date to compare" in w for w in checked.warnings), checked.warnings
    assert final_answers("What is the catalogue number of Moonlight Sessions?", [number], kg=orchestra).answers
    orchestra_found = walked(("moonlight", "performer", EX + "vienna", "Vienna Phil"))
    assert final_answers("Which is the earliest-founded orchestra on Moonlight Sessions?", [orchestra_found],
                         kg=orchestra).answers
