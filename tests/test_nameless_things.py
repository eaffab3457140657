"""A nameless IRI whose local name reads as no name (an outside gazetteer's record number the KG points at and never
describes) is no answer on any method or backend: the method abstains, saying that only things the KG does not name
were reached; a nameless page with a readable local name is still answered by its IRI
(kg_agent/kg/nameless.py, kg_agent/tools/shared/answer_checks.py). Fixture: an invented herbarium
(tests/fixtures/herbarium/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.kg.nameless import Nameless, reads_as_a_name
from kg_agent.tools.shared.answer_checks import ABSTAINED, ONLY_NAMELESS, final_answers

SPECIMENS = Path(__file__).parent / "fixtures" / "herbarium" / "specimens.ttl"
GAZETTEER_RECORD = "http://gazetteer.example.org/3017382/"
BIOGRAPHY = "http://pages.example.org/wiki/Marta_Oliveira"


@pytest.fixture(scope="module")
def herbarium():
    return open_kg(SPECIMENS)


@pytest.fixture(scope="module")
def herbarium_store(tmp_path_factory):
    return open_kg(SPECIMENS, backend="oxigraph", store_path=tmp_path_factory.mktemp("herbarium") / "store")


@pytest.fixture(params=["memory", "oxigraph"])
def kg(request, herbarium, herbarium_store):
    return herbarium if request.param == "memory" else herbarium_store


@pytest.mark.parametrize("iri, readable", [
    (GAZETTEER_RECORD, False), ("http://gazetteer.example.org/3017382", False), ("http://ids.example.org/Q42", False),
    ("http://ids.example.org/rec#a1b2c3", False), (BIOGRAPHY, True), ("http://files.example.org/sheet.pdf", True),
])
def test_an_iri_reads_as_a_name_only_when_its_local_name_holds_a_word(iri, readable):
    assert reads_as_a_name(iri) is readable


def test_a_nameless_record_number_is_unnamed_and_a_readable_page_a_page(kg):
    nameless = Nameless.among(kg, [GAZETTEER_RECORD, BIOGRAPHY])
    assert nameless.unnamed == {GAZETTEER_RECORD} and nameless.pages == {BIOGRAPHY} and not nameless.statements


def record(answer, entity_id):
    return {"answer": answer, "entity_id": entity_id, "score": 1.0, "grounded": True, "paths": []}


def test_only_a_nameless_record_number_reached_abstains_with_a_plain_reason(kg):
    checked = final_answers("In which country was Sheet 1041 collected?", [record("3017382", GAZETTEER_RECORD)], kg=kg)
    assert checked.answers == [] and checked.stop_reason == ABSTAINED
    assert ONLY_NAMELESS in checked.warnings[0] and "only things the KG does not name were reached" in ONLY_NAMELESS


def test_best_effort_keeps_a_nameless_record_number_flagged_ungrounded(kg):
    checked = final_answers("q", [record("3017382", GAZETTEER_RECORD)], kg=kg, policy="best_effort")
    assert [a["grounded"] for a in checked.answers] == [False] and ONLY_NAMELESS in checked.warnings[0]


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_no_method_answers_an_iri_the_kg_does_not_name(kg, factory):
    result = factory(kg).compile().invoke({"question": "What is the collecting country of [Sheet 1041]?"})
    assert all(a.get("entity_id") != GAZETTEER_RECORD and a["answer"] != GAZETTEER_RECORD for a in result["answers"])
    assert result["answers"] == [] and result["stop_reason"] == ABSTAINED
    assert any("only things the KG does not name were reached" in w for w in result["warnings"])


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph])
def test_a_readable_nameless_page_is_still_answered_by_its_iri(kg, factory):
    result = factory(kg).compile().invoke({"question": "What is the biography of [Marta Oliveira]?"})
    assert [a["answer"] for a in result["answers"]] == [BIOGRAPHY]
