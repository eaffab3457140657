"""A type noun that names a class of statement nodes names no answer's class (kg_agent/kg/nameless.py,
``StatementClasses``; kg_agent/tools/shared/path_scoring.py, ``RelationPathScorer._ending_in_named_class``): "which
**crew members** of [X] held the rank of [Y]" names the class *Crew Member* of a fleet's crew-membership nodes,
which the KG gives no name and which join a sailor to a rank (as W3C ``org:Membership`` nodes join a person to a
role). ``^rank`` ends at those nodes, but the walk goes on through them to the sailors (``^rank, ^crewMembership``):
a walk to a statement node has not reached the answer's class, so the noun still evidences the hop past it.
A small shipping fleet (tests/fixtures/kg/fleet_crews.ttl), outside the domains the scorer was tuned on."""

from __future__ import annotations

import pytest

from kg_agent.graphs import create_rog_graph
from kg_agent.kg import open_kg
from kg_agent.kg.nameless import statement_classes
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from tests.conftest import FIXTURES

FLEET = FIXTURES / "kg" / "fleet_crews.ttl"
EX = "http://example.org/fleet/"


@pytest.fixture(scope="module")
def kg():
    graph = open_kg(FLEET)
    yield graph
    graph.close()


def test_a_class_of_nameless_nodes_with_facts_is_a_class_of_statements(kg):
    classes = statement_classes(kg)
    assert classes.holds(EX + "CrewMember")
    assert not classes.holds(EX + "Sailor")  # named: individuals
    assert not classes.holds(EX + "Rank")
    assert not classes.holds(EX + "NoSuchClass")  # no members: no statements


def test_the_walk_goes_through_the_statement_node_the_noun_names(kg):
    paths = [("^rank",), ("^rank", "^crewMembership"), ("^rank", "type"), ("^servedOn",), ("^servedOn", "crewMembership")]
    ranked = RelationPathScorer().top("Which crew members of the Northern Star held the rank of [ENT]?", paths, 5, kg=kg)
    assert ranked[0][1] == ("^rank", "^crewMembership")


def test_rog_plans_through_the_membership_and_answers_the_sailors(kg):
    result = create_rog_graph(kg).compile().invoke(
        {"question": "Which crew members of the Northern Star held the rank of Captain?"})
    assert result["plans"][0]["relations"] == ["^rank", "^crewMembership"]
    assert {a["answer"] for a in result["answers"]} == {"Ingrid Dahl", "Tomas Reyes"}
