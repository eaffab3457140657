"""Kinds a KG names only by the unlabelled IRIs of a type-like relation (kg_agent/tools/shared/kind_values.py): on
an invented court's records (tests/fixtures/court_records/README.md) every record is a ``court:Record``, and whether
it is a civil application or a judgment is said only by ``court:case_type -> .../APPL_CIVIL`` or ``.../JUDG_ON_APPL``.
"applications" and "judgments" are named by the KG (the one "named by the KG" test of the abstention rules,
kg_agent/tools/shared/named_by_kg.py), the answers of "which applications ..." are the applications only, and
"how many judgments are there in the data" counts the judgments."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph
from kg_agent.tools.shared.kind_values import KindValue, kind_values, paths_to_kind
from kg_agent.tools.shared.named_by_kg import kind_named
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.whole_graph import answer_over_whole_graph

RECORDS = Path(__file__).parent / "fixtures" / "court_records" / "court_records.ttl"
CASE_TYPE = "http://example.org/court/case-type/"
METHODS = [create_rog_graph, create_tog_graph, create_tog_i_graph]
DANA_APPLICATIONS = ["Boundary fence", "Loan repayment", "Noisy workshop", "Roof tiles", "Shared wall", "Stolen bicycle"]
DANA_JUDGMENTS = [f"Judgment in case C-{n:03d}" for n in (1, 5, 9, 13, 17)]


@pytest.fixture(scope="module")
def records():
    return open_kg(RECORDS)


@pytest.fixture(scope="module")
def records_store(tmp_path_factory):
    kg = open_oxigraph(build_oxigraph(RECORDS, tmp_path_factory.mktemp("court") / "store"))
    yield kg
    kg.close()


@pytest.fixture(scope="module", params=METHODS, ids=["rog", "tog", "tog-i"])
def app(request, records):
    return request.param(records).compile()


def test_the_kind_values_are_the_unlabelled_objects_of_a_type_like_relation(records):
    # heard_in is as type-like (44 records, 2 rooms) but its rooms are labelled things; a class predicate's are classes
    assert sorted((v.relation, v.value) for v in kind_values(records).every()) == [
        ("case_type", CASE_TYPE + "APPL_CIVIL"), ("case_type", CASE_TYPE + "JUDG_ON_APPL")]


@pytest.mark.parametrize(("noun", "local_names"), [
    ("applications", ["APPL_CIVIL"]),  # "APPL" abbreviates "application"; JUDG_ON_APPL is a judgment on one
    ("civil applications", ["APPL_CIVIL"]),
    ("judgments", ["JUDG_ON_APPL"]),
    ("judgment", ["JUDG_ON_APPL"]),
    ("hearings", []),
    ("rooms", []),
    ("appeals", []),  # "appl" opens no "appeal"
])
def test_a_noun_names_the_kind_values_its_local_name_opens_with(records, noun, local_names):
    assert [v.local_name for v in kind_values(records).named(noun)] == local_names


def test_a_local_names_head_is_before_its_first_function_word():
    assert KindValue("work_type", "http://example.org/t/ANSWER_TO_EP_QUESTION").head_words == ("answer",)
    assert KindValue("case_type", "http://example.org/t/APPL_CIVIL").head_words == ("appl", "civil")


def test_the_kg_names_a_kind_by_a_class_or_a_kind_value(records):
    def no_class(noun):
        return False

    assert kind_named("applications", records, no_class)
    assert not kind_named("hearings", records, no_class)
    assert kind_named("hearings", records, lambda noun: noun == "hearings")


def test_walks_judged_by_whether_their_values_can_be_of_the_kind(records):
    reaching, why = paths_to_kind("applications", [("^concerns",), ("type",)], records)
    assert reaching == {("^concerns",)} and not why
    reaching, why = paths_to_kind("applications", [("type",)], records)
    assert not reaching and "case_type APPL_CIVIL" in why
    assert paths_to_kind("hearings", [("type",)], records) == (frozenset(), "")


@pytest.mark.parametrize(("question", "answers"), [
    ("Which applications concern Dana Frost?", DANA_APPLICATIONS),
    ("Which judgments concern Dana Frost?", DANA_JUDGMENTS),
])
def test_the_answers_are_the_things_of_the_kind_asked(app, question, answers):
    found = [a["answer"] for a in app.invoke({"question": question})["answers"]]
    assert found and set(found) <= set(answers)  # ToG keeps its best few


@pytest.mark.parametrize("make", [create_tog_graph, create_tog_i_graph], ids=["tog", "tog-i"])
def test_a_noun_naming_a_kind_value_is_evidence_for_the_walks_reaching_it(records, make):
    # no word names ``concerns``: the noun alone asks for ``^concerns``, whose records have a ``case_type``; without
    # it the scorer scores the walk below zero and ToG's check abstains
    scorer = RelationPathScorer()
    assert scorer.score("Which judgments did [X] receive?", [("^concerns",)], kg=records)[0] > 0.0
    found = [a["answer"] for a in make(records).compile().invoke(
        {"question": "Which judgments did Dana Frost receive?"})["answers"]]
    assert found and set(found) <= set(DANA_JUDGMENTS)


@pytest.mark.parametrize(("question", "count"), [
    ("How many judgments concern Dana Frost?", str(len(DANA_JUDGMENTS))),
    ("How many applications concern Dana Frost?", str(len(DANA_APPLICATIONS))),
])
def test_a_count_counts_only_the_things_of_the_kind_asked(app, question, count):
    # ``^concerns`` from Dana reaches her applications and her judgments: a count of one kind counts that kind alone
    assert [a["answer"] for a in app.invoke({"question": question})["answers"]] == [count]


@pytest.mark.parametrize(("question", "count"), [
    ("How many civil applications are there in the data?", "24"),
    ("How many judgments are there in the data?", "20"),
])
def test_a_whole_kg_count_counts_the_things_of_the_kind(records, question, count):
    answers, what = answer_over_whole_graph(records, question)
    assert [a["answer"] for a in answers] == [count] and "case_type" in what


def test_the_same_on_an_oxigraph_store(records_store):
    assert [v.local_name for v in kind_values(records_store).named("applications")] == ["APPL_CIVIL"]
    app = create_rog_graph(records_store).compile()
    result = app.invoke({"question": "Which judgments concern Dana Frost?"})
    assert sorted(a["answer"] for a in result["answers"]) == DANA_JUDGMENTS
    answers, _ = answer_over_whole_graph(records_store, "How many judgments are there in the data?")
    assert [a["answer"] for a in answers] == ["20"]
