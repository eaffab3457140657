"""Unanswerable questions are abstained from, with the reason (issue 46 item 1), on a shipping fleet
(``tests/fixtures/fleet/numbered_fleet.ttl``, its notes in ``numbered_fleet.md``): the shapes of the NASA space flight real KG in another domain.

* a number in a name is its identifier, not a typo: "Endeavour 18", where the KG names Endeavour 7, 8 and 9, links
  nothing (not exactly, not as a partial name "Endeavour 7 Ship Master", not as a typo of "Endeavour 8"), and the
  message says which numbers the KG has;
* a time question whose verb names no relation of the KG ("on what date did [X] **sink**") is not answered over a
  relation dating another event (``launched``), while "when did [X] die" is answered over ``deathDate``;
* a ship known only by a prose description gives no value that qualifies the other mention ("the ship master"):
  the answers reached from the role alone are every ship's masters, not this one's;
* "the alternate names of [X]" is answered by the fact named so, not by the code alias found.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.kg.linking import link_entities

FLEET = Path(__file__).parent / "fixtures" / "fleet" / "numbered_fleet.ttl"
EX = "http://example.org/fleet/"
METHODS = [create_rog_graph, create_tog_graph, create_tog_i_graph]


@pytest.fixture(scope="module")
def fleet():
    return open_kg(FLEET)


def linked(kg, question: str) -> list[str]:
    return [item.entity.id for item in link_entities(kg, question).linked]


def ask(create, kg, question: str) -> dict:
    return create(kg).compile().invoke({"question": question})


def answers(out: dict) -> list[str]:
    return sorted(a["answer"] for a in out["answers"])


def test_a_number_the_kg_names_only_otherwise_links_nothing_and_says_which_it_names(fleet):
    result = link_entities(fleet, "Who was the ship master of Endeavour 18?")
    assert result.linked == []
    assert "'endeavour 18'" in result.message and "'Endeavour 7'" in result.message
    # the numbers the KG has link as they are
    assert linked(fleet, "Who was the ship master of Endeavour 8?")[:1] == [EX + "endeavour8"]


def test_a_partial_or_misspelt_name_keeps_its_number(fleet):
    # "ship master of endeavour" shares three words with "Endeavour 7 Ship Master", but not its number
    assert EX + "endeavour7-master" not in linked(fleet, "Who was the ship master of Endeavour?")
    assert linked(fleet, "What is the tonnage of Endevour 18?") == []  # no typo of "Endeavour 8"
    assert linked(fleet, "What is the tonnage of Endevour 8?") == [EX + "endeavour8"]  # a typo with the same number


@pytest.mark.parametrize("create", METHODS)
def test_a_numbered_thing_the_kg_lacks_is_not_answered(fleet, create):
    out = ask(create, fleet, "Who was the ship master of Endeavour 18?")
    assert out["answers"] == [] and out["stop_reason"] == "no_topic_entity"
    assert any("'endeavour 18'" in w for w in out["warnings"])


@pytest.mark.parametrize("create", METHODS)
def test_a_time_of_an_event_the_kg_has_no_relation_for_is_not_another_events(fleet, create):
    out = ask(create, fleet, "On what date did Endeavour 7 sink?")
    assert out["answers"] == [] and out["stop_reason"] == "abstained"
    assert any("no relation for 'sink'" in w for w in out["warnings"])
    assert answers(ask(create, fleet, "When was Endeavour 7 launched?")) == ["1851-04-02"]
    assert answers(ask(create, fleet, "When did Mary Hale die?")) == ["1879-11-03"]


@pytest.mark.parametrize("create", METHODS)
def test_a_prose_description_does_not_let_the_other_mentions_answers_through(fleet, create):
    out = ask(create, fleet, "Who was the ship master of Endeavour 9?")
    assert out["answers"] == [] and out["stop_reason"] == "abstained"
    assert answers(ask(create, fleet, "Who was the ship master of Endeavour 8?"))[:1] == ["Erik Lindqvist"]


@pytest.mark.parametrize("create", METHODS)
def test_alternate_names_stated_as_a_fact_are_its_values_not_the_code_alias(fleet, create):
    found = answers(ask(create, fleet, "What are the alternate names of Endeavour 7?"))
    assert found and set(found) <= {"Old Faithful", "Seven Seas Trader"}
