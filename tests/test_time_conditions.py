"""Conditions of time and adverb time superlatives (issue 46 item 2): "which lighthouses were completed in 1871",
"on 14 June 1871", "in March 1871", "which one was completed last" filter or rank a method's answers by the date the
KG gives each -- here two steps away, on an unnamed construction statement naming each its own engineer -- through
the relation the question's participle names ("completed"), not the direct inspection date; a condition no answer
meets is abstained on with a plain reason, never answered with the unfiltered set.

Grammar tests read English only (prepositions, month names, eras); the negatives are quantities ("in 3 parts"),
names with a year in them, and nouns after "first"/"last".

Fixture: ``tests/fixtures/lighthouse_register/register.ttl`` (invented for these tests, see its README).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.tools.shared.aggregates import MAX, MIN, Comparison, asked_comparison, literal_value, ranked
from kg_agent.tools.shared.answer_checks import final_answers
from kg_agent.tools.shared.time_phrases import asked_time, asked_time_adverb, read_period, time_text

REGISTER = Path(__file__).resolve().parent / "fixtures" / "lighthouse_register" / "register.ttl"
COAST = "the Saltmarsh Coast"
METHODS = {"rog": create_rog_graph, "tog": create_tog_graph, "tog-i": create_tog_i_graph}


# --- the grammar -------------------------------------------------------------------------------------------------

def _span(question: str) -> tuple[str, str] | None:
    found = asked_time(question)
    if found is None:
        return None
    return (time_text(found.low) if found.low is not None else "", time_text(found.high) if found.high is not None else "")


@pytest.mark.parametrize(("question", "span"), [
    ("Which craft were launched in 1965?", ("1965", "1966")),
    ("Which lighthouses were completed during 1871?", ("1871", "1872")),
    ("Which bridges opened in April 1961?", ("1961-04-01", "1961-05-01")),
    ("Which bridges opened in Sept. 1961?", ("1961-09-01", "1961-10-01")),
    ("Which ships were launched on 12 April 1961?", ("1961-04-12", "1961-04-13")),
    ("Which ships were launched on April 12, 1961?", ("1961-04-12", "1961-04-13")),
    ("Which ships were launched on the 12th of April 1961?", None),  # "the" before the day: not read
    ("Which ships were launched on 1961-04-12?", ("1961-04-12", "1961-04-13")),
    ("Which forts were built in 44 BC?", ("-0044", "-0043")),
    ("Which forts were built before 44 BC?", ("", "-0044")),
    ("Which forts were built after 20 BC?", ("-0019", "")),
    ("Which towers were built after 1958?", ("1959", "")),  # after the year: from its end
    ("Which towers were built since 1958?", ("1958", "")),
    ("Which towers were built until 1958?", ("", "1959")),
    ("Which towers were built between 1960 and 1965?", ("1960", "1966")),
    ("Which towers were built from 1960 to 1965?", ("1960", "1966")),
    ("Which towers were built in the 1960s?", ("1960", "1970")),
    ("Which towers were built in AD 79?", ("79", "80")),
])
def test_a_period_after_a_preposition_of_time_is_a_condition(question, span):
    assert _span(question) == span


@pytest.mark.parametrize("question", [
    "Which novel was published in 3 parts?",  # a quantity
    "Which kit comes in 1000 pieces?",
    "Which cargo was shipped in 1965 kg crates?",  # a noun after the number
    "Who directed Murder In 1965?",  # the preposition written as part of a title
    "Which essays are on 1984?",  # "on" a year: a subject, not a day
    "Which films were released in 12?",  # two digits: no year without its era
    "Which towers are in the old town?",
])
def test_numbers_that_are_no_date_in_context_are_no_condition(question):
    assert asked_time(question) is None


def test_a_date_inside_the_name_of_a_thing_mentioned_is_no_condition():
    assert asked_time("who acted in 1900", names=("1900",)) is None  # a film called "1900"
    assert asked_time("Which ships were launched in 1965?", names=("Saltmarsh Coast",)) is not None
    assert asked_comparison("who acted in 1900", names=("1900",)) is None


@pytest.mark.parametrize(("question", "superlative", "verb"), [
    ("Which craft was launched last?", "last", "launched"),
    ("Which company was founded first?", "first", "founded"),
    ("Which of these authors died earliest?", "earliest", "died"),
    ("Which album was released most recently?", "latest", "released"),
    ("Which bridge has been opened least recently?", "earliest", "opened"),
    ("Which lighthouse was built the earliest among them?", "earliest", "built"),
])
def test_a_time_superlative_after_a_verb_is_read_without_the(question, superlative, verb):
    adverb = asked_time_adverb(question)
    assert adverb is not None and (adverb.superlative, adverb.verb) == (superlative, verb)
    asked = asked_comparison(question)
    assert asked is not None and asked.extreme and asked.in_time
    assert asked.order == (MIN if superlative in ("first", "earliest") else MAX)


@pytest.mark.parametrize("question", [
    "What is the last name of the keeper?",  # a noun after it
    "Who wrote the first album?",
    "Who was the first?",  # no verb
    "Which laboratory first described the gene?",  # before the verb
    "Which keeper is last?",
])
def test_first_and_last_before_a_noun_or_without_a_verb_are_no_adverb(question):
    assert asked_time_adverb(question) is None


def test_which_was_launched_first_of_two_is_still_which_ofs():
    from kg_agent.tools.shared.which_of import asked_order

    assert asked_order("Which was completed first, Gull Point Light or Dunmere Light?") == (MIN, "completed", True)


def test_month_names_and_periods():
    days = [read_period(text) for text in ("12 April 1961", "April 12, 1961", "1961-04-12", "12th of April, 1961")]
    assert len({(day.start, day.end) for day in days if day is not None}) == 1 and None not in days
    may = read_period("May 1965")
    assert may is not None and may.start == literal_value("1965-05") and may.end == literal_value("1965-06")
    december = read_period("December 1965")
    assert december is not None and december.end == literal_value("1966-01")
    assert read_period("1965-13") is None


def test_keeps_tests_a_value_against_an_interval_a_bound_or_nothing():
    inside = Comparison(MIN, low=1871.0, high=1872.0)
    assert inside.keeps(literal_value("1871-12-31")) and not inside.keeps(literal_value("1872-01-01"))
    assert not inside.keeps(literal_value("1870-12-31"))
    assert Comparison(MAX, bound=1000, strict=True).keeps(1001) and not Comparison(MAX, bound=1000).keeps(1000)
    assert Comparison(MAX, bound=1000, strict=False).keeps(1000)
    assert Comparison(MAX, words="last").keeps(5)  # a superlative keeps any value: ranked() keeps the extreme


def test_ranked_filters_a_dict_of_values_by_an_interval():
    asked = Comparison(MIN, low=1871.0, high=1872.0)
    values, order, kept = ranked(asked, {"a": [1870.5, 1871.5], "b": [1873.0], "c": [1871.2]})
    assert kept == ["c", "a"] and values["a"] == 1871.5 and order[-1] == "b"


# --- over the register ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def register():
    return open_kg(REGISTER)


@pytest.fixture(scope="module")
def register_on_oxigraph(tmp_path_factory):
    return open_kg(REGISTER, backend="oxigraph", store_path=tmp_path_factory.mktemp("register") / "store")


def _record(key: str, name: str) -> dict:
    return {"answer": name, "entity_id": f"http://example.org/lighthouses/{key}", "score": 1.0, "grounded": True,
            "paths": []}


def _saltmarsh() -> list[dict]:
    return [_record(k, n) for k, n in (("gullpoint", "Gull Point Light"), ("reedhaven", "Reedhaven Light"),
                                       ("kestrel", "Kestrel Rock Light"), ("dunmere", "Dunmere Light"),
                                       ("harrow", "Harrow Sound Light"))]


@pytest.mark.parametrize("kg_name", ["register", "register_on_oxigraph"])
def test_the_answer_check_filters_by_the_date_on_each_answers_statement_node(kg_name, request):
    kg = request.getfixturevalue(kg_name)
    kept = final_answers("Which lighthouses were completed in 1871?", _saltmarsh(), kg=kg).answers
    assert [a["answer"] for a in kept] == ["Reedhaven Light", "Gull Point Light"]  # not 1870-12-31 nor 1872-01-01
    assert kept[0]["compared_by"] == "construction -> completed"  # the verb's relation, not the inspection date
    assert kept[0]["compared"][:2] == [{"answer": "Reedhaven Light", "value": "1871-03-02"},
                                       {"answer": "Gull Point Light", "value": "1871-06-14"}]
    [day] = final_answers("Which lighthouses were completed on 14 June 1871?", _saltmarsh(), kg=kg).answers
    assert day["answer"] == "Gull Point Light"
    [month] = final_answers("Which lighthouses were completed in March 1871?", _saltmarsh(), kg=kg).answers
    assert month["answer"] == "Reedhaven Light"
    [last] = final_answers("Which lighthouse was completed last?", _saltmarsh(), kg=kg).answers
    assert last["answer"] == "Harrow Sound Light" and last["compared_by"] == "construction -> completed"


def test_a_condition_no_answer_meets_is_abstained_on_with_the_reason(register):
    checked = final_answers("Which lighthouses were completed in 1950?", _saltmarsh(), kg=register)
    assert checked.answers == [] and checked.stop_reason == "abstained"
    assert "none of the 5 answers compared was completed in 1950 by the knowledge graph" in checked.warnings[0]
    kept = final_answers("Which lighthouses were completed in 1950?", _saltmarsh(), kg=register,
                         policy="best_effort").answers
    assert len(kept) == 5 and not any(a["grounded"] for a in kept)  # best effort: all, flagged ungrounded


def test_a_count_counts_only_the_answers_the_condition_keeps(register):
    [count] = final_answers("How many lighthouses were completed in 1871?", _saltmarsh(), kg=register).answers
    assert count["answer"] == "2" and sorted(count["counted"]) == ["Gull Point Light", "Reedhaven Light"]


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize(("question", "expected"), [
    (f"Which lighthouses of {COAST} were completed in 1871?", ["Reedhaven Light", "Gull Point Light"]),
    (f"Which lighthouses of {COAST} were completed on 14 June 1871?", ["Gull Point Light"]),
    (f"Which lighthouses of {COAST} were completed in March 1871?", ["Reedhaven Light"]),
    (f"Which lighthouse of {COAST} was completed last?", ["Harrow Sound Light"]),
    (f"Which lighthouses of {COAST} were completed in 1950?", []),
])
def test_every_method_applies_the_condition(register, method, question, expected):
    out = METHODS[method](register).compile().invoke({"question": question})
    assert [a["answer"] for a in out["answers"]] == expected
    if not expected:
        assert out["stop_reason"] == "abstained" and "completed in 1950" in " ".join(out["warnings"])
    else:
        assert all(a.get("compared_by") == "construction -> completed" for a in out["answers"])


@pytest.mark.parametrize("method", ["rog", "tog"])
def test_every_method_applies_the_condition_on_oxigraph(register_on_oxigraph, method):
    out = METHODS[method](register_on_oxigraph).compile().invoke(
        {"question": f"Which lighthouses of {COAST} were completed in 1871?"})
    assert [a["answer"] for a in out["answers"]] == ["Reedhaven Light", "Gull Point Light"]
    out = METHODS[method](register_on_oxigraph).compile().invoke(
        {"question": f"Which lighthouse of {COAST} was completed last?"})
    assert [a["answer"] for a in out["answers"]] == ["Harrow Sound Light"]


def test_a_date_reached_through_a_statement_node_stands_for_the_thing_before_it(register):
    """A walk "[coast] -> ^coast -> [lighthouse] -> construction -> [statement] -> completed -> date" answers the
    lighthouse; so does one entering the statement backwards (a record naming its lighthouse, as a launch names its
    craft): the date is the thing's whichever way the KG links the two."""
    from kg_agent.tools.shared.aggregates import AnswerRanker

    coast = {"id": "http://example.org/lighthouses/saltmarsh", "label": "Saltmarsh Coast"}
    light = {"id": "http://example.org/lighthouses/gullpoint", "label": "Gull Point Light"}
    record = {"id": "_:b0", "label": "(unnamed)"}
    date = {"id": '"1871-06-14"^^<http://www.w3.org/2001/XMLSchema#date>', "label": "1871-06-14"}
    for into in ("construction", "^lighthouse"):
        steps = [{"head": coast, "relation": "^coast", "tail": light}, {"head": light, "relation": into, "tail": record},
                 {"head": record, "relation": "completed", "tail": date}]
        answer = {"answer": "1871-06-14", "entity_id": date["id"], "grounded": True,
                  "paths": [{"text": "", "start": coast, "steps": steps}]}
        [owner] = AnswerRanker.owners("Which lighthouse was completed last?", [answer], register)
        assert (owner["answer"], owner["entity_id"]) == ("Gull Point Light", light["id"])
        assert [s["relation"] for s in owner["paths"][0]["steps"]] == ["^coast"]  # the walk ends at the answer
    # a question asking for the value itself keeps it
    assert AnswerRanker.owners("When was it completed last?", [answer], register) == [answer]


def test_a_number_answer_is_not_tested_against_a_date(register):
    """"How many visitors came to [X] in 2019" answered by a number the KG states: the number is no date, so the
    condition of time is not tested on it (nor the answer dropped)."""
    number = {"answer": "41200", "entity_id": '"41200"^^<http://www.w3.org/2001/XMLSchema#integer>', "score": 1.0,
              "grounded": True, "paths": []}
    kept = final_answers("How many visitors came to Gull Point Light in 2019?", [number], kg=register).answers
    assert [a["answer"] for a in kept] == ["41200"]
