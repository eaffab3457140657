"""Ranking and comparing answers by a number or date the KG gives each (kg_agent/tools/shared/aggregates.py, called
from the answer check): the relation compared is the one the question's words name, never a word list of relation
names; on the Gutenberg catalogue fixture (tests/fixtures/realkgs/README.md) and a small numismatics KG with BC dates."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph
from kg_agent.kg import open_kg
from kg_agent.tools.shared.aggregates import asked_comparison, literal_value
from kg_agent.tools.shared.answer_checks import final_answers

CATALOGUE = Path(__file__).parent / "fixtures" / "realkgs" / "catalogue.nt"
AGENTS = {"190": "Stoker, Bram", "61": "Shelley, Mary Wollstonecraft", "35": "Stevenson, Robert Louis",
          "37155": "Kemble, E. W. (Edward Windsor)", "53": "Twain, Mark", "7": "Carroll, Lewis"}


def record(answer, entity_id=None):
    return {"answer": answer, "entity_id": entity_id, "score": 1.0, "grounded": True, "paths": []}


@pytest.fixture(scope="module")
def catalogue():
    return open_kg(CATALOGUE)


def authors():
    return [record(name, f"http://www.gutenberg.org/2009/agents/{key}") for key, name in AGENTS.items()]


def test_the_earliest_born_is_ranked_by_the_birth_date_not_the_death_date(catalogue):
    [first] = final_answers("Who is the earliest-born of these authors?", authors(), kg=catalogue).answers
    assert first["answer"] == "Shelley, Mary Wollstonecraft" and first["compared_by"] == "birthdate"
    assert first["compared"][0] == {"answer": "Shelley, Mary Wollstonecraft", "value": "1797"}
    assert [c["value"] for c in first["compared"]] == ["1797", "1832", "1835", "1847", "1850", "1861"]


def test_the_one_who_died_last_is_ranked_by_the_death_date(catalogue):
    [last] = final_answers("Which of these authors died the latest?", authors(), kg=catalogue).answers
    assert (last["answer"], last["compared_by"]) == ("Kemble, E. W. (Edward Windsor)", "deathdate")


def test_born_before_a_year_keeps_those_born_earlier(catalogue):
    kept = final_answers("Which of these authors were born before 1840?", authors(), kg=catalogue).answers
    assert {a["answer"] for a in kept} == {"Shelley, Mary Wollstonecraft", "Carroll, Lewis", "Twain, Mark"}


def test_a_question_that_compares_nothing_keeps_its_answers(catalogue):
    assert len(final_answers("Who wrote these books?", authors(), kg=catalogue).answers) == len(AGENTS)


def test_a_superlative_no_relation_of_the_answers_names_ranks_nothing(catalogue):
    books = [record(title, f"http://www.gutenberg.org/ebooks/{key}") for key, title in
             (("345", "Dracula"), ("84", "Frankenstein; Or, The Modern Prometheus"))]  # both have downloads, issued
    kept = final_answers("Which of these books has the most readers among children?", books, kg=catalogue).answers
    assert [a["answer"] for a in kept] == ["Dracula", "Frankenstein; Or, The Modern Prometheus"]
    assert all("compared" not in a for a in kept)


def test_a_method_ranks_the_books_it_reached_by_their_downloads(catalogue):
    app = create_rog_graph(catalogue).compile()
    [top] = app.invoke({"question": "Which book on the Gothic Fiction bookshelf is the most downloaded?"})["answers"]
    assert top["answer"] == "Dracula" and top["compared_by"] == "downloads"
    assert top["compared"] == [{"answer": "Dracula", "value": "11758"},
                               {"answer": "Frankenstein; Or, The Modern Prometheus", "value": "8874"}]
    fewer = app.invoke({"question": "Which books on the Gothic Fiction bookshelf have fewer than 10000 downloads?"})
    assert [a["answer"] for a in fewer["answers"]] == ["Frankenstein; Or, The Modern Prometheus"]


EMPERORS = """@prefix ex: <http://example.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:augustus rdfs:label "Augustus" ; ex:birthDate "-0063-09-23"^^xsd:date ; ex:coinsStruck 120 .
ex:tiberius rdfs:label "Tiberius" ; ex:birthDate "-0042-11-16"^^xsd:date ; ex:coinsStruck 80 .
ex:claudius rdfs:label "Claudius" ; ex:birthDate "-0010"^^xsd:gYear ; ex:coinsStruck 95 .
ex:nero rdfs:label "Nero" ; ex:birthDate "0037-12-15"^^xsd:date ; ex:coinsStruck 150 .
"""


@pytest.fixture()
def emperors(tmp_path):
    path = tmp_path / "emperors.ttl"
    path.write_text(EMPERORS, encoding="utf-8")
    return open_kg(path)


def rulers():
    return [record(name, f"http://example.org/{name.lower()}") for name in ("Augustus", "Tiberius", "Claudius", "Nero")]


def test_bc_dates_compare_before_ad_ones(emperors):
    assert [a["answer"] for a in final_answers("Who is the oldest emperor by birth?", rulers(), kg=emperors).answers] \
        == ["Augustus"]
    assert [a["answer"] for a in final_answers("Who was born the latest?", rulers(), kg=emperors).answers] == ["Nero"]
    born = final_answers("Which emperors were born after 20 BC?", rulers(), kg=emperors).answers
    assert {a["answer"] for a in born} == {"Claudius", "Nero"}


def test_more_than_n_filters_by_the_number_the_question_names(emperors):
    kept = final_answers("Which emperors struck more than 90 coins?", rulers(), kg=emperors).answers
    assert [a["answer"] for a in kept] == ["Nero", "Augustus", "Claudius"]


@pytest.mark.parametrize(("question", "order", "bound"), [
    ("Who is the earliest-born author?", "min", None), ("Which is the most downloaded book?", "max", None),
    ("Which Roman emperor reigned the longest?", "max", None), ("books with more than 1,000 downloads", "max", 1000),
    ("born before 44 BC", "min", -44), ("Who is the best known author?", None, None), ("Who wrote it?", None, None),
    ("who starred in the movies whose writers also wrote The Last Kiss", None, None),  # a name, no superlative
])
def test_the_comparison_is_read_from_english_grammar(question, order, bound):
    asked = asked_comparison(question)
    assert (asked.order if asked else None, asked.bound if asked else None) == (order, bound)


def test_literal_values_read_numbers_and_bc_dates():
    assert literal_value('"-0027"^^<http://www.w3.org/2001/XMLSchema#gYear>') == -27
    assert literal_value('"-0063-09-23"^^<http://www.w3.org/2001/XMLSchema#date>') < -62
    assert literal_value('"1,000"') is None and literal_value('"Horror"') is None
