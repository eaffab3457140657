"""A word right before a noun that names a relation or class of the KG, which is also an entity's name, is read as
a modifier of that noun when its entity meets no other thing the question names (issue 45 item 3: linking's stop
words hold no data set's words, so "direct" in "direct dependencies" is looked up like any word). On
``tests/fixtures/linking/software_packages.ttl``: a software project's packages, one of them named "direct"."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import load_kg
from kg_agent.kg.linking import link_entities
from kg_agent.text import FUNCTION_WORDS

PACKAGES = Path(__file__).resolve().parent / "fixtures" / "linking" / "software_packages.ttl"


@pytest.fixture(scope="module")
def packages():
    return load_kg(PACKAGES)


def _linked(kg, question: str) -> list[str]:
    return sorted(item.entity.label for item in link_entities(kg, question).linked)


def test_linking_skips_english_function_words_only():
    # a data set's question words ("films", "starred") are looked up like any word: the KG says what they name
    assert not {"films", "movies", "starred", "directed", "genre", "tags", "direct"} & FUNCTION_WORDS


def test_a_name_before_a_relation_noun_meeting_no_other_mention_is_a_modifier(packages):
    # "dependencies" names dependsOn, which parser has; the package "direct" depends on sockets and shares nothing
    # with the parser: "direct" says which dependencies, and the result says how it was read
    result = link_entities(packages, "Which packages are direct dependencies of parser?")
    assert [item.entity.label for item in result.linked] == ["parser"]
    assert result.notes == ["'direct' read as a modifier of 'dependencies', not as a thing the question is about: the "
                            "thing of that name meets no other thing the question names"]
    assert _linked(packages, "How many direct dependencies does linter have?") == ["linter"]


def test_a_lone_mention_before_a_relation_noun_stays_the_topic(packages):
    assert _linked(packages, "What does direct depend on?") == ["direct"]


def test_a_name_before_a_relation_noun_that_meets_the_other_mention_stays_a_topic(packages):
    # Alice Moreau stands before "dependencies", which linter has, but she maintains linter: a real second topic
    assert _linked(packages, "Which Alice Moreau dependencies does linter have?") == ["Alice Moreau", "linter"]


def test_a_name_before_a_noun_no_other_mention_has_stays_a_topic(packages):
    # "packages" is the answers' class, said of no other mention: Chiara Conti's packages depend on no lexer, so the
    # question has no answer; it is not answered with every package depending on lexer
    assert _linked(packages, "Which Chiara Conti packages depend on lexer?") == ["Chiara Conti", "lexer"]


def test_a_member_of_the_class_the_noun_names_is_that_thing_not_a_modifier(packages):
    # "the direct package" names the package: it is kept although it meets Alice Moreau nowhere
    question = "Which packages that the direct package depends on are maintained by Alice Moreau?"
    assert _linked(packages, question) == ["Alice Moreau", "direct"]


@pytest.mark.parametrize("method", ["rog", "tog"])
def test_the_modified_question_is_answered_from_the_one_topic(packages, method):
    from kg_agent.graphs.registry import create_graph

    result = create_graph(method, packages).compile().invoke({"question": "Which packages are direct dependencies of parser?"})
    answers = {a["answer"] for a in result["answers"]}
    assert answers & {"lexer", "tokens"} and "sockets" not in answers
    assert any(w.startswith("link: 'direct' read as a modifier of 'dependencies'") for w in result["warnings"])


def test_a_real_two_topic_question_still_intersects(packages):
    from kg_agent.graphs.registry import create_graph

    app = create_graph("rog", packages).compile()
    result = app.invoke({"question": "Which Alice Moreau dependencies does linter have?"})
    # linter depends on lexer and parser, maintained by Alice Moreau, and on tokens, maintained by Bruno Silva
    assert sorted(a["answer"] for a in result["answers"]) == ["lexer", "parser"]
    result = app.invoke({"question": "Which Chiara Conti packages depend on lexer?"})
    assert result["answers"] == [] and result["stop_reason"] == "abstained"
