"""Asking the user which entity a mention means (``ask_when_ambiguous``): on tests/fixtures/kg/ambiguous.ttl, two
cities are labelled "Paris". With the setting, "[Paris]" interrupts the run (LangGraph ``interrupt``) with both
candidates, their class and the fact telling them apart; ``Command(resume={"id": ...})`` goes on with the one
chosen; a resume naming no candidate is refused and the question can be answered again. Off (the default), the
linker keeps both and the run does not stop."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from pydantic import ValidationError

from kg_agent.graphs import create_graph
from kg_agent.kg import open_kg
from tests.conftest import PROJECT_ROOT

FRANCE, TEXAS = "https://example.org/geo/paris_fr", "https://example.org/geo/paris_tx"
QUESTION = "which country is [Paris] in"


@pytest.fixture(scope="module")
def kg():
    return open_kg(str(PROJECT_ROOT / "tests" / "fixtures" / "kg" / "ambiguous.ttl"))


def asking_app(kg, method="rog"):
    return create_graph(method, kg, ask_when_ambiguous=True).compile(checkpointer=InMemorySaver())


def answers(result) -> list[str]:
    return [a["answer"] for a in result["answers"]]


@pytest.mark.parametrize("method", ["rog", "tog", "tog2"])
def test_an_ambiguous_mention_interrupts_and_resumes_with_the_choice(kg, method):
    app = asking_app(kg, method)
    config = {"configurable": {"thread_id": f"paris-{method}"}}
    first = app.invoke({"question": QUESTION}, config)
    (asked,) = first["__interrupt__"]
    assert asked.value["mention"] == "Paris" and asked.value["question"] == QUESTION
    assert asked.value["candidates"] == [
        {"id": FRANCE, "label": "Paris", "classes": ["city"], "fact": "country -> France"},
        {"id": TEXAS, "label": "Paris", "classes": ["city"], "fact": "country -> United States"}]
    assert asked.response_schema["properties"]["id"]["enum"] == [FRANCE, TEXAS]  # a typed answer form
    result = app.invoke(Command(resume={"id": TEXAS}), config)
    assert [e["id"] for e in result["topic_entities"]] == [TEXAS]
    assert answers(result)[0] == "United States"


def test_a_resume_naming_no_candidate_is_refused_and_can_be_answered_again(kg):
    app = asking_app(kg)
    config = {"configurable": {"thread_id": "paris-wrong"}}
    app.invoke({"question": QUESTION}, config)
    with pytest.raises(ValidationError):
        app.invoke(Command(resume={"id": "https://example.org/geo/lyon"}), config)
    result = app.invoke(Command(resume={"id": FRANCE}), config)
    assert answers(result)[0] == "France"


def test_off_by_default_both_are_kept_and_nothing_stops(kg):
    result = create_graph("rog", kg).compile().invoke({"question": QUESTION})
    assert "__interrupt__" not in result
    assert {e["id"] for e in result["topic_entities"]} == {FRANCE, TEXAS}
    assert set(answers(result)) == {"France", "United States"}


def test_a_mention_one_entity_fits_best_does_not_ask(kg):
    result = asking_app(kg).invoke({"question": "which country is [Lyon] in"}, {"configurable": {"thread_id": "lyon"}})
    assert "__interrupt__" not in result and answers(result) == ["France"]
