"""The last check on every method's answers (kg_agent/tools/shared/answer_checks.py): unnamed statement nodes are
never answers (abstain, or best effort when asked), nameless pages are answered by their IRI, "how many" is counted
with its evidence; on fixtures cut from the report card's real KGs (tests/fixtures/realkgs/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.kg.terms import UNNAMED
from kg_agent.tools.shared.answer_checks import ABSTAINED, asks_how_many, final_answers

CATALOGUE = Path(__file__).parent / "fixtures" / "realkgs" / "catalogue.nt"
ONTOLOGY = Path(__file__).parent / "fixtures" / "realkgs" / "ontology.nt"


def record(answer, entity_id=None, grounded=True):
    return {"answer": answer, "entity_id": entity_id, "score": 1.0, "grounded": grounded, "paths": []}


def test_only_unnamed_nodes_reached_is_an_abstention_with_the_reason():
    checked = final_answers("what is the membership of x", [record(UNNAMED, "_:b1"), record(UNNAMED, "_:b2")])
    assert checked.answers == [] and checked.stop_reason == ABSTAINED
    assert "only unnamed statement nodes were reached" in checked.warnings[0]


def test_best_effort_keeps_unnamed_nodes_flagged_ungrounded():
    checked = final_answers("q", [record(UNNAMED, "_:b1")], policy="best_effort")
    assert [a["grounded"] for a in checked.answers] == [False] and checked.stop_reason == ""


def test_unnamed_nodes_are_dropped_beside_named_answers():
    checked = final_answers("q", [record(UNNAMED, "_:b1"), record("Horror", "_:b2")])
    assert [a["answer"] for a in checked.answers] == ["Horror"]


@pytest.mark.parametrize("question", ["How many books did she write?", "the number of mints in Phrygia", "HOW  MANY?"])
def test_count_questions_are_read_from_the_question(question):
    assert asks_how_many(question)


def test_how_many_counts_distinct_answers_with_the_counted_set_as_evidence():
    answers = [record("A", "http://x/a"), record("B", "http://x/b"), record("A", "http://x/a"),
               record("Horror", "_:s1"), record("Horror", "_:s2")]  # blank nodes count by their name
    [count] = final_answers("How many things?", answers).answers
    assert count["answer"] == "3" and sorted(count["counted"]) == ["A", "B", "Horror"] and count["grounded"]


def test_a_quantity_the_kg_states_is_kept_not_counted():
    assert [a["answer"] for a in final_answers("How many times was it downloaded?", [record("11758")]).answers] == ["11758"]


NUMISMATICS = """@prefix ex: <http://example.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:augustus rdfs:label "Augustus" ; ex:hasMembership ex:m1 ; ex:webpage <http://en.wikipedia.org/wiki/Augustus> .
ex:m1 ex:role ex:emperor ; ex:startDate "-0027" .
ex:augustus a ex:Person .
ex:emperor rdfs:label "Roman Emperor" .
"""


@pytest.fixture()
def numismatics(tmp_path):
    path = tmp_path / "augustus.ttl"
    path.write_text(NUMISMATICS, encoding="utf-8")
    return open_kg(path)


def test_a_nameless_iri_with_facts_is_a_statement_node_and_one_without_is_answered_by_its_iri(numismatics):
    page = "http://en.wikipedia.org/wiki/Augustus"
    checked = final_answers("q", [record("m1", "http://example.org/m1"), record("Augustus", page),
                                  record("Person", "http://example.org/Person")], kg=numismatics)
    assert [a["answer"] for a in checked.answers] == [page, "Person"]  # a nameless class keeps its IRI's name


MEMBERSHIP = """@prefix ex: <http://example.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:augustus rdfs:label "Augustus" ; ex:hasMembership ex:m1 .
ex:m1 ex:role ex:emperor ; ex:startDate "-0027" .
ex:emperor rdfs:label "Roman Emperor" .
"""


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_a_walk_goes_through_a_membership_node_to_what_it_joins(tmp_path, factory):
    path = tmp_path / "membership.ttl"
    path.write_text(MEMBERSHIP, encoding="utf-8")
    result = factory(open_kg(path)).compile().invoke({"question": "what is the membership of [Augustus]"})
    assert [a["answer"] for a in result["answers"]] == ["Roman Emperor"]
    assert "hasMembership -> m1 -> role -> Roman Emperor" in result["answers"][0]["paths"][0]["text"]


CHAINED_STATEMENTS = """@prefix ex: <http://example.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:augustus rdfs:label "Augustus" ; ex:hasMembership ex:m1 .
ex:m1 ex:next ex:m2 . ex:m2 ex:next ex:m3 . ex:m3 ex:next ex:m4 . ex:m4 ex:next ex:m1 .
"""


def test_reaching_only_statement_nodes_abstains_unless_a_run_asks_for_best_effort(tmp_path):
    path = tmp_path / "chained.ttl"
    path.write_text(CHAINED_STATEMENTS, encoding="utf-8")
    app = create_rog_graph(open_kg(path)).compile()
    question = {"question": "what is the membership of [Augustus]"}
    result = app.invoke(question)
    assert result["answers"] == [] and result["stop_reason"] == ABSTAINED
    assert any("only unnamed statement nodes" in w for w in result["warnings"])
    kept = app.invoke(question, context={"when_unsupported": "best_effort"})
    assert kept["answers"] and all((a["answer"], a["grounded"]) == (UNNAMED, False) for a in kept["answers"])


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph])
def test_a_method_never_answers_a_blank_shelf_node_and_counts_by_name(factory):
    kg = open_kg(CATALOGUE)
    app = factory(kg).compile()
    shelves = app.invoke({"question": "Which bookshelves is Dracula on?"})
    assert shelves["answers"] and all(a["answer"] != UNNAMED for a in shelves["answers"])
    assert {"Gothic Fiction", "Horror", "Movie Books"} <= {a["answer"] for a in shelves["answers"]}
    counted = app.invoke({"question": "How many bookshelves is Dracula on?"})
    [count] = counted["answers"]
    assert int(count["answer"]) == len(set(count["counted"])) >= 3


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_a_method_abstains_when_no_relation_of_the_kg_matches_what_is_asked(factory):
    app = factory(open_kg(ONTOLOGY)).compile()
    unanswerable = {"question": "What is the molecular weight of exon?"}
    result = app.invoke(unanswerable)
    assert result["answers"] == [] and result["stop_reason"] == ABSTAINED
    assert any("no relation of the knowledge graph matches what the question asks for" in w for w in result["warnings"])
    kept = app.invoke(unanswerable, context={"when_unsupported": "best_effort"})
    assert kept["answers"] and kept["stop_reason"] != ABSTAINED
    answerable = app.invoke({"question": "Which terms are direct subtypes of exon?"})
    assert answerable["stop_reason"] != ABSTAINED and answerable["answers"]


def test_the_cli_says_the_kg_does_not_say_and_exits_with_its_no_answer_status():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "kg_agent.cli", "ask", "What is the molecular weight of exon?",
                           "--kg", str(ONTOLOGY)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "no answer: the knowledge graph does not say: no relation of the knowledge graph matches" in done.stderr


def test_how_many_counts_every_node_the_last_step_reaches_not_only_what_the_beam_kept():
    kg = open_kg(CATALOGUE)
    [shelf] = [e for e in kg.find_entities("Best Books Ever Listings")][:1]
    beam = {"question": "How many books are on the [Best Books Ever Listings] bookshelf?"}
    result = create_tog_graph(kg, width=1).compile().invoke(beam)
    [count] = result["answers"]
    every_book = {node for e in kg.find_entities("Best Books Ever Listings") for node in kg.neighbors(e.id, "^bookshelf")}
    assert len(every_book) > 1 and count["answer"] == str(len(every_book)) and count["grounded"]


MEMBERSHIPS = Path(__file__).parent / "fixtures" / "realkgs" / "memberships.nt"


EMPEROR = {"id": "http://nomisma.org/id/roman_emperor", "label": "Roman Emperor"}
HELD = {"augustus": "348ddaf09df067abdbdd6ed4516a1f53", "tiberius": "d29f0bf574bbea77d5c6c614a466e364",
        "nero": "e6acaf0a1cab55cfcd08b3a9b977ff29"}


def membership(person):
    return {"id": f"http://nomisma.org/id/{person}#membership_{HELD[person]}", "label": UNNAMED}


def walk(*steps):
    text = " -> ".join([steps[0][0]["label"], *(f"{r} -> {t['label']}" for _, r, t in steps)])
    return {"steps": [{"head": h, "relation": r, "tail": t} for h, r, t in steps], "text": text}


def test_a_count_reaching_only_statement_nodes_counts_the_things_of_the_asked_class_behind_them():
    """Nomisma: a role is held through memberships (``[role] -^role-> membership``); "how many people" counts the
    persons (class foaf:Person: "people" read as "person") behind the memberships, not the memberships (unnamed) nor
    the organisation they also join."""
    kg = open_kg(MEMBERSHIPS)
    answers = [{**record(UNNAMED, membership(p)["id"]), "paths": [walk((EMPEROR, "^role", membership(p)))]}
               for p in HELD]
    [count] = final_answers("How many people held the role of Roman emperor?", answers, kg=kg).answers
    assert count["answer"] == "3" and sorted(count["counted"]) == ["Augustus", "Nero", "Tiberius"] and count["grounded"]
    assert all(len(p["steps"]) == 2 for p in count["paths"])  # each walk stepped on from its membership
    abstained = final_answers("How many coins held the role of Roman emperor?", answers, kg=kg)  # no class named
    assert abstained.answers == [] and abstained.stop_reason == ABSTAINED


def test_a_count_stepping_out_of_a_statement_node_counts_every_statement_the_step_before_reached():
    """A beam that kept one membership and its person counts every membership of the role, each through its step on."""
    from kg_agent.tools.shared.answer_checks import every_end_reached

    kg = open_kg(MEMBERSHIPS)
    augustus = {"id": "http://nomisma.org/id/augustus", "label": "Augustus"}
    kept = [{**record("Augustus", augustus["id"]),
             "paths": [walk((EMPEROR, "^role", membership("augustus")), (membership("augustus"), "^hasMembership", augustus))]}]
    assert sorted(a["answer"] for a in every_end_reached(kept, kg)) == ["Nero", "Tiberius"]


FORMATS = Path(__file__).parent / "fixtures" / "realkgs" / "formats.nt"
MOBY_DICK = "http://www.gutenberg.org/ebooks/15"


def stated(number, relation):
    step = {"head": {"id": MOBY_DICK, "label": "Moby Dick"}, "relation": relation,
            "tail": {"id": f'"{number}"', "label": number}}
    return {**record(number, f'"{number}"'), "paths": [{"steps": [step], "text": f"Moby Dick -> {relation} -> {number}"}]}


def test_how_many_things_of_a_class_counts_them_not_a_number_the_kg_states():
    """Gutenberg: Moby Dick states 858 ``downloads``; "how many downloadable files" names the class ``pgterms:file`` of
    what its ``hasFormat`` reaches: those are counted; "how many times" names no class, and the number stands."""
    kg = open_kg(FORMATS)
    checked = final_answers("How many downloadable files are listed for Moby Dick?", [stated("858", "downloads")], kg=kg)
    [count] = checked.answers
    assert count["answer"] == "3" and len(count["counted"]) == 3 and count["grounded"]
    assert "hasFormat" in count["paths"][0]["text"] and any("'files' names the class" in w for w in checked.warnings)
    kept = final_answers("How many times has Moby Dick been downloaded?", [stated("858", "downloads")], kg=kg)
    assert [a["answer"] for a in kept.answers] == ["858"]
