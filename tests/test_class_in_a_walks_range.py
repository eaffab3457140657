"""Which walks answer a type noun by their wider measured range (issue 46: count the things of the class the noun
names), on a shipping register (``tests/fixtures/fleet/harbour.ttl``, its README).

A walk whose last hop's range holds the class the noun names, though its usual class is another, answers the noun
only when every walk whose hop usually reaches the class walks it whole first
(``RelationPathScorer._reaching_named_class``; the festival series of ``tests/test_event_questions.py`` has that case:
``^isSubEventOf`` before ``^isSubEventOf, listedIn, ^listedIn``). Here a walk *beside* it usually reaches the class:
"how many tankers" at Port Rowan are the five registered there (``^registeredAt``, tankers), not also the two of
another port that called there (``^calledAt``, container ships mostly, some tankers). Reading ``^calledAt``'s range
too gives 7 with RoG and 2 with ToG.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import open_kg

HARBOUR = Path(__file__).parent / "fixtures" / "fleet" / "harbour.ttl"
REGISTERED = ["Amber Tide", "Grey Heron", "North Lantern", "Quiet Ember", "Salt Meridian"]


@pytest.fixture(scope="module")
def harbour():
    return open_kg(HARBOUR)


@pytest.mark.parametrize("create", [create_rog_graph, create_tog_graph, create_tog_i_graph])
@pytest.mark.parametrize("question", ["How many tankers does Port Rowan have?",
                                      "How many tankers are there at Port Rowan?"])
def test_a_walk_beside_one_that_usually_reaches_the_class_is_not_read_by_its_range(harbour, create, question):
    result = create(harbour).compile().invoke({"question": question})
    [answer] = result["answers"]
    assert answer["answer"] == "5"
    assert sorted(answer["counted"]) == REGISTERED
