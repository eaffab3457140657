"""Offline ToG and ToG-I answer counts, lists and comparisons where the class the question's noun names is first
reached (issue 46 item 2), on a weather service's station network (tests/fixtures/kg/weather_stations.ttl): seven
coastal stations, more than the beam's W=3, each with a boolean flag named after its class (``automaticStation``),
which the offline verifier judges the better last hop for "how many weather stations ..."; and two capes written in
lower case that are both a station ("North Cape") and a gazetteer landmark ("north cape")."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.kg.walks import Walk
from kg_agent.tools.tog.answer import met_on_the_way
from kg_agent.tools.tog.start import prefer_exact_case

GRAPHS = {"tog": create_tog_graph, "tog-i": create_tog_i_graph}
STATIONS = Path(__file__).parent / "fixtures" / "kg" / "weather_stations.ttl"
COASTAL = {"North Cape", "South Cape", "Gull Rock", "Sandy Bay", "Harbour Light", "Pilot Point", "Seal Island"}


@pytest.fixture(scope="module")
def kg():
    return open_kg(STATIONS)


def run(graph: str, kg, question: str) -> dict:
    return GRAPHS[graph](kg).compile().invoke({"question": question})


@pytest.mark.parametrize("graph", ["tog", "tog-i"])
@pytest.mark.parametrize(("question", "count"), [
    ("How many weather stations are members of the coastal network?", "7"),
    ("How many weather stations does the coastal network have?", "7"),
    ("How many weather stations have the region highlands?", "6"),
])
def test_a_count_counts_every_thing_of_the_class_its_noun_names(graph, kg, question, count):
    # the count is of the stations the walk reaches, all of them, not the beam's three; the noun evidences no hop
    # past them (the flag ``automaticStation``, "station" in its name), and where the judged path still goes on
    # (``twinStation``, stations again) the answer is counted there, not past them
    result = run(graph, kg, question)
    assert [a["answer"] for a in result["answers"]] == [count], result["warnings"]
    relations = result["verification"]["relations"]
    assert relations[0] in ("^memberOfNetwork", "^inRegion") and "automaticStation" not in relations
    assert len(relations) == 1 or any("answered there, not past them" in w for w in result["warnings"])
    answer = result["answers"][0]
    assert len(answer["counted"]) == int(count) and answer["grounded"]
    assert {Walk.from_dict(p).relations[-1] for p in answer["paths"]} == {"^memberOfNetwork" if "coastal" in question
                                                                         else "^inRegion"}


@pytest.mark.parametrize("graph", ["tog", "tog-i"])
def test_which_things_of_a_class_are_answered_where_the_class_is_reached(graph, kg):
    result = run(graph, kg, "Which weather stations are members of the coastal network?")
    assert result["answers"] and {a["answer"] for a in result["answers"]} <= COASTAL, result["warnings"]
    assert result["stop_reason"] == "verified" and result["answers"][0]["grounded"]


@pytest.mark.parametrize("graph", ["tog", "tog-i"])
def test_a_lower_case_mention_keeps_the_labels_differing_only_in_case(graph, kg):
    # "the north cape": the station "North Cape" and the landmark "north cape"; only the station has a code,
    # and only the stations have elevations to compare
    code = run(graph, kg, "What is the WMO code of the north cape?")
    assert [a["answer"] for a in code["answers"]] == ["03002"], code["warnings"]
    higher = run(graph, kg, "Which is higher, the north cape or the south cape?")
    assert [a["answer"] for a in higher["answers"]] == ["South Cape"], higher["warnings"]
    assert {"North Cape", "north cape"} <= {e["label"] for e in higher["topic_entities"]}


def test_a_mention_written_with_capitals_keeps_the_label_written_so():
    station = {"id": "ex:station", "label": "North Cape", "mention": "North Cape"}
    landmark = {"id": "ex:landmark", "label": "north cape", "mention": "North Cape"}
    assert prefer_exact_case([landmark, station], "what is the code of [North Cape]") == [station]
    lower = [{**landmark, "mention": "north cape"}, {**station, "mention": "north cape"}]
    assert prefer_exact_case(lower, "what is the code of the north cape") == lower


def _chain(start: dict, *hops: tuple[str, dict]) -> dict:
    steps, head = [], start
    for relation, tail in hops:
        steps.append({"head": head, "relation": relation, "tail": tail})
        head = tail
    return {"start": start, "steps": steps, "score": 1.0, "depth": len(steps)}


def test_an_answer_passing_where_the_other_mention_ends_meets_it():
    # "at which mounting height is the anemometer installed at South Cape": the station's chain passes the mounting
    # (a statement node) that the anemometer's chain ends at; its end, the height, satisfies both mentions
    station = {"id": "ex:south_cape", "label": "South Cape", "mention": "south cape"}
    anemometer = {"id": "ex:anemometer", "label": "anemometer", "mention": "anemometer"}
    mounting, other = {"id": "_:m1", "label": "(unnamed)"}, {"id": "_:m2", "label": "(unnamed)"}
    height, low = {"id": '"12"', "label": "12"}, {"id": '"1.5"', "label": "1.5"}
    to_height = _chain(station, ("hasMounting", mounting), ("mountingHeight", height))
    to_low = _chain(station, ("hasMounting", other), ("mountingHeight", low))
    chains = [to_height, to_low, _chain(anemometer, ("^instrument", mounting))]
    answers = [{"answer": "12", "entity_id": height["id"], "paths": [to_height]},
               {"answer": "1.5", "entity_id": low["id"], "paths": [to_low]}]
    assert [a["answer"] for a in met_on_the_way([station, anemometer], chains, answers)] == ["12"]
    assert met_on_the_way([station], chains, answers) == []  # one mention: nothing to meet
    assert met_on_the_way([station, anemometer], chains[:2], answers) == []  # the anemometer's chain reaches nothing
    # a named node both reach is the meeting itself: the chain passing it on to another node does not answer
    named = {"id": "ex:gale_mast", "label": "Gale Mast"}
    past = _chain(station, ("hasMast", named), ("mastHeight", height))
    assert met_on_the_way([station, anemometer], [past, _chain(anemometer, ("^instrument", named))],
                          [{"answer": "12", "entity_id": height["id"], "paths": [past]}]) == []
