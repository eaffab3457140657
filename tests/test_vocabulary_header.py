"""A vocabulary's header is no answer (issue 46 item 1): the node a KG types ``owl:Ontology`` ("Basin Gauging
Vocabulary Release 3.1"), which ``rdfs:isDefinedBy`` leads every term to, says which document defines the terms,
nothing of the things; an answer that is the header, or is reached only through it (every term reaches every
other through it), is left out, and with nothing else left the method abstains, saying why.

Fixture: ``tests/fixtures/gauges/river_basin.ttl`` (gauging stations; every term defined by the header).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import load_kg
from kg_agent.tools.shared.answer_checks import ONLY_THE_HEADER, final_answers

BASIN = Path(__file__).resolve().parent / "fixtures" / "gauges" / "river_basin.ttl"
EX = "http://example.org/basin/"


@pytest.fixture(scope="module")
def basin():
    return load_kg(BASIN)


def _answer(label: str, *nodes: tuple[str, str]) -> dict:
    steps = [{"head": {"id": h, "label": h}, "relation": r, "tail": {"id": t, "label": t}}
             for (h, _), (r, t) in zip(((EX + "oxmoor", ""), *nodes), nodes)]
    return {"answer": label, "entity_id": nodes[-1][1], "grounded": True, "paths": [{"steps": steps, "text": label}]}


def test_the_header_and_what_is_reached_through_it_are_no_answers(basin):
    header = _answer("Basin Gauging Vocabulary Release 3.1", ("isDefinedBy", EX + "vocab"))
    through = _answer("Gauge Keld Bridge", ("isDefinedBy", EX + "vocab"), ("^isDefinedBy", EX + "keld"))
    river = _answer("Wenning", ("onRiver", EX + "wenning"))
    checked = final_answers("Which river is Gauge Oxmoor on?", [header, through, river], kg=basin)
    assert [a["answer"] for a in checked.answers] == ["Wenning"]
    checked = final_answers("In which year was Gauge Oxmoor defined?", [header], kg=basin)
    assert checked.answers == [] and checked.stop_reason == "abstained" and ONLY_THE_HEADER in checked.warnings[-1]
    kept = final_answers("In which year was Gauge Oxmoor defined?", [header], kg=basin, policy="best_effort")
    assert [a["grounded"] for a in kept.answers] == [False]


@pytest.mark.parametrize("create", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_every_method_abstains_when_only_the_header_answers(basin, create):
    result = create(basin).compile().invoke({"question": "In which year was Gauge Oxmoor defined?"})
    assert result["answers"] == [] and result["stop_reason"] == "abstained"
