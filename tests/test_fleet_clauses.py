"""Relative clauses and "both A and B" with a class noun (issue 46 items 3-4), on
``tests/fixtures/constraints/fleet.ttl``: a shipping fleet's vessels, their tenders, the fleets they serve and the
registries they are entered in, each with a call sign (shaped as QUDT writes units: benchmarks/realkgs/qudt-units)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import load_kg
from kg_agent.tools.shared.question_parts import QuestionParts

FLEET = Path(__file__).resolve().parent / "fixtures" / "constraints" / "fleet.ttl"


@pytest.fixture(scope="module")
def fleet():
    return load_kg(FLEET)


def test_a_noun_completing_a_relational_noun_heads_its_relative_clause():
    parts = QuestionParts.of("What is the call sign of the vessel that [ENT] is a tender of?")
    assert parts.clause_heads == {parts.tokens.index("vessel"): (parts.tokens.index("vessel") + 2, len(parts.tokens) - 1)}
    # the type noun names the answer; a clause after a noun that completes no relational noun is left alone
    assert QuestionParts.of("Which vessels that [ENT] serves are registered?").clause_heads == {}
    assert QuestionParts.of("the films that share actors with [ENT] were in which genres").clause_heads == {}


@pytest.mark.parametrize("method", ["rog", "tog", "tog-i"])
def test_the_noun_heading_a_relative_clause_names_what_the_clause_reaches_not_a_hop_of_its_own(fleet, method):
    # "vessel" names what tenderOf reaches (a vessel), not the hop vesselForFleet after it: the call sign asked is
    # the vessel's, not its fleets'
    from kg_agent.graphs.registry import create_graph

    app = create_graph(method, fleet).compile()
    result = app.invoke({"question": "What is the call sign of the vessel that Lifeboat Seven is a tender of?"})
    assert [a["answer"] for a in result["answers"]] == ["LXAU"]
