"""A type noun names the answer's class, not another hop (kg_agent/tools/shared/path_scoring.py,
``RelationPathScorer._ending_in_named_class``): "which railway lines serve [X]" is answered by ``servedBy``, whose
ends the KG says are railway lines; ``servedBy, ^line`` walks on to the services on those lines, a hop only the
noun "lines" (which also spells the relation ``line``) evidences. A small railway (tests/fixtures/kg/railway_lines.ttl),
outside the domains the scorer was tuned on."""

from __future__ import annotations

import pytest

from kg_agent.graphs import create_rog_graph
from kg_agent.kg import open_kg
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from tests.conftest import FIXTURES

RAILWAY = FIXTURES / "kg" / "railway_lines.ttl"
QUESTION = "Which railway lines serve [ENT]?"


@pytest.fixture(scope="module")
def kg():
    graph = open_kg(RAILWAY)
    yield graph
    graph.close()


def test_the_hop_that_reaches_the_named_class_ranks_first(kg):
    paths = [("servedBy", "^line"), ("servedBy",), ("servedBy", "^servedBy")]
    ranked = RelationPathScorer().top(QUESTION, paths, 3, kg=kg)
    assert ranked[0][1] == ("servedBy",)


def test_rog_plans_the_one_hop_and_answers_the_lines(kg):
    result = create_rog_graph(kg).compile().invoke({"question": "Which railway lines serve Central Station?"})
    assert result["plans"][0]["relations"] == ["servedBy"]
    assert {a["answer"] for a in result["answers"]} == {"Red Line", "Blue Line"}
