"""Relative clauses and "both A and B" with a class noun (issue 46 items 3-4), on
``tests/fixtures/constraints/fleet.ttl``: a shipping fleet's vessels, their tenders, the fleets they serve and the
registries they are entered in, each with a call sign (shaped as QUDT writes units: benchmarks/realkgs/qudt-units)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import load_kg
from kg_agent.tools.shared.question_parts import QuestionParts

FLEET = Path(__file__).resolve().parent / "fixtures" / "constraints" / "fleet.ttl"


@pytest.fixture(scope="module")
def fleet():
    return load_kg(FLEET)


def test_a_noun_completing_a_relational_noun_heads_its_relative_clause():
    parts = QuestionParts.of("What is the call sign of the vessel that [ENT] is a tender of?")
    assert parts.clause_heads == {parts.tokens.index("vessel"): (parts.tokens.index("vessel") + 2, len(parts.tokens) - 1)}
    # the type noun names the answer; a clause after a noun that completes no relational noun is left alone
    assert QuestionParts.of("Which vessels that [ENT] serves are registered?").clause_heads == {}
    assert QuestionParts.of("the films that share actors with [ENT] were in which genres").clause_heads == {}


@pytest.mark.parametrize("method", ["rog", "tog", "tog-i"])
def test_the_noun_heading_a_relative_clause_names_what_the_clause_reaches_not_a_hop_of_its_own(fleet, method):
    # "vessel" names what tenderOf reaches (a vessel), not the hop vesselForFleet after it: the call sign asked is
    # the vessel's, not its fleets'
    from kg_agent.graphs.registry import create_graph

    app = create_graph(method, fleet).compile()
    result = app.invoke({"question": "What is the call sign of the vessel that Lifeboat Seven is a tender of?"})
    assert [a["answer"] for a in result["answers"]] == ["LXAU"]


QUESTION = "Which vessels of the nordic line are registered in both liberia and the Marshall Islands?"


def test_a_name_in_lower_case_coordinated_with_a_linked_one_of_its_class_links(fleet):
    # a cased question ("Marshall Islands") writes "liberia" in lower case: coordinated with a registry, it is one;
    # "nordic line", in lower case and coordinated with nothing, stays a word of the question
    from kg_agent.kg.linking import link_entities

    assert sorted(item.entity.label for item in link_entities(fleet, QUESTION).linked) == ["Liberia", "Marshall Islands"]


def test_a_topic_entity_is_masked_where_it_was_linked_not_where_its_label_comes_closest():
    from kg_agent.tools.shared.scoring import mask_topic_mentions

    topic = [{"id": "x", "label": "Liberian Registry of Shipping", "mention": "liberian"}]
    assert (mask_topic_mentions("Which vessels of shipping lines are entered in both the liberian and the Panama registry?",
                                topic)
            == "Which vessels of shipping lines are entered in both the [ENT] and the Panama registry?")
    # a bracketed mention is masked whole, whatever its label
    topic = [{"id": "x", "label": "Sea Star Jr.", "mention": "Sea Star Jr", "how": "bracket"}]
    assert mask_topic_mentions("which tenders does [Sea Star Jr] carry", topic) == "which tenders does [ENT] carry"


def test_the_of_phrase_after_the_type_noun_is_its_complement():
    from kg_agent.tools.shared.constraints import noun_complement

    topic = [{"id": "l", "label": "Liberia", "mention": "liberia"},
             {"id": "m", "label": "Marshall Islands", "mention": "marshall islands"}]
    assert noun_complement(QUESTION, topic) == ("nordic", "line")
    # a linked entity after "of" is a thing the question is about, not a complement
    assert noun_complement("Which vessels of Liberia are tankers?", topic) == ()


@pytest.mark.parametrize("method", ["rog", "tog", "tog-i"])
def test_both_a_and_b_with_a_complement_keeps_the_things_of_both_joined_to_what_the_complement_names(fleet, method):
    # Aurora and Dunlin: Nordic Line's, registered in both; Borealis (Liberia only), Egret (Marshall Islands only),
    # Cormorant (Cape Line's) are not
    from kg_agent.graphs.registry import create_graph

    app = create_graph(method, fleet).compile()
    result = app.invoke({"question": QUESTION})
    assert sorted(a["answer"] for a in result["answers"]) == ["Aurora", "Dunlin"]
