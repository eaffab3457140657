"""An acronym of the question names the relation whose values are identifiers of its scheme ("the WE accession of
[X]": ``id`` = "WE:0000123"), even when lower-cased it spells an English function word ("we", "so"); an acronym no
relation's values carry changes nothing. Fixture: a weather-event ontology written here the way OBO ontologies
write their terms (an ``id`` CURIE, a textual definition, a parent term), made up for this test."""
from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph
from kg_agent.kg import kg_from_triples, open_kg
from kg_agent.kg.linking import link_entities
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.question_parts import QuestionParts, acronyms_in

TERMS = {
    "hailstorm": ("WE:0000123", "A storm of ice pellets falling from a convective cloud.", "convective_storm"),
    "squall_line": ("WE:0000131", "A line of thunderstorms along a cold front.", "convective_storm"),
    "convective_storm": ("WE:0000100", "A storm driven by the vertical motion of air.", "weather_event"),
    "freezing_fog": ("WE:0000207", "Fog of supercooled droplets that freeze on contact.", "fog_event"),
    "fog_event": ("WE:0000200", "An event of water droplets suspended near the ground.", "weather_event"),
    "weather_event": ("WE:0000001", "A state of the atmosphere at a place and time.", "event"),
}
TRIPLES = [triple for term, (curie, text, parent) in TERMS.items()
           for triple in ((term, "id", curie), (term, "definition", text), (term, "subClassOf", parent))]
PATHS = [("definition",), ("id",), ("subClassOf",)]


@pytest.fixture(scope="module")
def weather():
    return kg_from_triples(TRIPLES, name="weather events")


def test_an_acronym_is_a_capitalised_word_of_a_question_not_written_all_in_capitals():
    assert acronyms_in("What is the WE accession of [ENT]?") == {"we"}
    assert acronyms_in("WHAT IS THE WE ACCESSION OF [ENT]?") == frozenset()
    assert acronyms_in("What is the We accession of [ENT]?") == frozenset()


def test_the_acronym_of_the_values_scheme_names_the_identifier_relation(weather):
    scorer = RelationPathScorer()
    question = "What is the WE accession of [ENT]?"
    scores = scorer.score(question, PATHS, kg=weather)
    assert PATHS[scores.index(max(scores))] == ("id",)
    assert ("id",) in scorer.asked_paths(question, PATHS, kg=weather).asked


def test_a_scheme_acronym_is_a_content_word_though_it_spells_a_function_word(weather):
    plain = QuestionParts.of("What is the WE accession of [ENT]?")
    read = QuestionParts.of("What is the WE accession of [ENT]?", frozenset({"we"}))
    assert "we" not in plain.content_words and "we" in read.content_words


def test_an_acronym_no_relation_s_values_carry_changes_nothing(weather):
    scorer = RelationPathScorer()
    assert (scorer.score("What is the SO accession of [ENT]?", PATHS, kg=weather)
            == scorer.score("What is the so accession of [ENT]?", PATHS, kg=weather))
    assert (scorer.asked_paths("What is the SO accession of [ENT]?", PATHS, kg=weather)
            == scorer.asked_paths("What is the so accession of [ENT]?", PATHS, kg=weather))


FIXTURE = Path(__file__).parent / "fixtures" / "linking" / "weather_events.ttl"


@pytest.fixture(scope="module")
def weather_file():
    return open_kg(FIXTURE)


def test_a_relational_noun_named_only_by_an_alias_is_no_second_thing_the_question_is_about(weather_file):
    """"the WE accession of hailstorm": *station_record* is also called "accession", but the question asks for
    hailstorm's accession; a term the question names by its label there stays a thing it is about."""
    linked = link_entities(weather_file, "What is the WE accession of hailstorm?").entities
    assert [e.label for e in linked] == ["hailstorm"]
    named = link_entities(weather_file, "What is the station_record of hailstorm?").entities
    assert {e.label for e in named} == {"hailstorm", "station_record"}


def test_rog_answers_the_acronym_s_identifier(weather_file):
    out = create_rog_graph(weather_file).compile().invoke({"question": "What is the WE accession of hailstorm?"})
    assert [a["answer"] for a in out["answers"]] == ["WE:0000123"]
