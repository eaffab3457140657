""""The ATCO code of [X]": a relational noun ("code") after a modifier that is a relation's whole name (``atco``)
asks for that relation, not the generic one the head noun names (``code``, which gives back the stop's own code)
(kg_agent/tools/shared/compound_heads.py, read by the relation path scorer). Fixture: tests/fixtures/bus_network
(invented)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.tools.shared.compound_heads import heads_of_named_modifiers
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.question_parts import QuestionParts

BUSES = Path(__file__).parent / "fixtures" / "bus_network" / "bus_network.nt"


def test_the_head_noun_after_a_relation_s_whole_name_is_that_hop_s():
    parts = QuestionParts.of("What is the ATCO code of [ENT]?")
    at = parts.tokens.index("atco")
    assert heads_of_named_modifiers(parts, ["atco"], [(at, at)]) == {at + 1: 0}
    assert heads_of_named_modifiers(parts, ["code"], [(at + 1, at + 2)]) == {}  # the head's own relation
    assert heads_of_named_modifiers(parts, ["atco_zone"], [(at, at)]) == {}  # a longer name is matched word by word


def test_the_scorer_prefers_the_modifier_s_relation():
    kg = open_kg(BUSES)
    scores = RelationPathScorer().score("What is the ATCO code of [ENT]?", [["code"], ["atco"]], kg=kg)
    assert scores[1] > scores[0]
    # the plain noun still asks for the relation it names
    scores = RelationPathScorer().score("What is the code of [ENT]?", [["code"], ["atco"]], kg=kg)
    assert scores[0] > scores[1]


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_every_method_answers_the_modifier_s_relation(factory):
    result = factory(open_kg(BUSES)).compile().invoke({"question": "What is the ATCO code of Karsby Bus Station?"})
    assert [a["answer"] for a in result["answers"]][:1] == ["0010KRB01"]
