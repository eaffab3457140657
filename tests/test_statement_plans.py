"""RoG's plans that stop at statement nodes give way to the next plan the question asks for
(kg_agent/tools/shared/statement_plans.py, issue 46): over a register of grant proposals whose submissions join each
applicant through a participation node with an IRI and no name (role "Coordinator" / "Partner"), "who wrote proposals
together with [X]" is planned ``^had_participant_person`` first, which reaches only participation nodes; the next plan
with a positive score (``^creator -> creator``) answers. A next plan over ``type`` (the class Person) or with no
positive score never does: the question is abstained on, saying why. On an invented register of a funder's grant
proposals (tests/fixtures/research_grants/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph

GRANTS = Path(__file__).parent / "fixtures" / "research_grants" / "grants_participations.ttl"


@pytest.fixture(scope="module")
def grants():
    return open_kg(GRANTS)


@pytest.fixture(scope="module")
def grants_store(tmp_path_factory):
    kg = open_oxigraph(build_oxigraph(GRANTS, tmp_path_factory.mktemp("grant-participations") / "store"))
    yield kg
    kg.close()


def test_a_plan_stopped_at_participation_nodes_gives_way_to_the_next_asked_plan(grants):
    result = create_rog_graph(grants).compile().invoke({"question": "Who wrote proposals together with Anouk Verlinde?"})
    assert [a["answer"] for a in result["answers"]] == ["Ilse Brandvold", "Tomasz Wierzba"]
    assert result["plans"][0]["relations"] == ["^had_participant_person"]


def test_the_same_on_an_oxigraph_store(grants_store):
    result = create_rog_graph(grants_store).compile().invoke(
        {"question": "Who wrote proposals together with Anouk Verlinde?"})
    assert [a["answer"] for a in result["answers"]] == ["Ilse Brandvold", "Tomasz Wierzba"]


def test_no_class_and_no_unasked_plan_takes_over(grants):
    result = create_rog_graph(grants).compile().invoke({"question": "Who wrote proposals with Oona Lindqvist?"})
    assert result["answers"] == [] and result["stop_reason"] == "abstained"  # next plan: ``type`` (the class Person)
    assert any("only unnamed statement nodes were reached" in w for w in result["warnings"])


def test_who_wrote_more_is_counted_over_the_relation_not_the_statement_nodes(grants):
    """"Who wrote more proposals, A or B" (no plan beyond the participation nodes scores) is counted over
    ``dcterms:creator`` (tools/shared/which_of.py): Ilse Brandvold created two proposals, Oona Lindqvist one."""
    result = create_rog_graph(grants).compile().invoke(
        {"question": "Who wrote more proposals, Ilse Brandvold or Oona Lindqvist?"})
    assert [a["answer"] for a in result["answers"]] == ["Ilse Brandvold"]
    assert all(a["grounded"] for a in result["answers"])


def test_which_plans_leave():
    from kg_agent.tools.shared.statement_plans import without_plans_of_statements

    def walk(plan: int, relation: str, end: str) -> dict:
        return {"plan": plan, "start": {"id": "x", "label": "X"},
                "steps": [{"head": {"id": "x", "label": "X"}, "relation": relation, "tail": {"id": end, "label": end}}]}

    stopped, named, typed = walk(0, "^part", "s1"), walk(1, "knows", "y"), walk(2, "type", "Person")
    plans = [{"score": 1.0}, {"score": 0.1}, {"score": 0.2}]
    assert without_plans_of_statements([stopped, named, typed], {"s1"}, plans, {"type"}) == [named, typed]
    assert without_plans_of_statements([stopped, typed], {"s1"}, plans, {"type"}) == [stopped, typed]
    unasked = [{"score": 1.0}, {"score": -0.1}, {"score": 0.2}]
    assert without_plans_of_statements([stopped, named], {"s1"}, unasked) == [stopped, named]
    assert without_plans_of_statements([named], {"s1"}, plans) == [named]
