"""Entity linking on the MetaQA slice: brackets, n-grams, fuzzy typos, and the no-match message."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import NO_ENTITY_MESSAGE, closest_labels, entity_iri, link_entities, load_kg

E = lambda name: str(entity_iri(name))  # noqa: E731


@pytest.fixture(scope="module")
def kg(fixtures_dir: Path):
    return load_kg(fixtures_dir / "kg" / "metaqa_slice.txt")


def test_brackets(kg):
    result = link_entities(kg, "what movies did [Temuera Morrison] act in")
    assert result.found and result.message is None
    assert [e.id for e in result.entities] == [E("Temuera Morrison")]
    assert result.linked[0].how == "bracket" and result.linked[0].mention == "Temuera Morrison"


def test_two_brackets(kg):
    result = link_entities(kg, "did [Combat Shock] and [Tracker] share a director")
    assert {e.id for e in result.entities} == {E("Combat Shock"), E("Tracker")}


def test_ngrams_without_brackets(kg):
    result = link_entities(kg, "who directed once were warriors?")
    assert result.entities[0].id == E("Once Were Warriors")
    assert result.linked[0].how == "exact"
    two = link_entities(kg, "Which films did Evelyn Venable make with the director of Combat Shock")
    assert {E("Evelyn Venable"), E("Combat Shock")} <= {e.id for e in two.entities}


def test_fuzzy_typo(kg):
    result = link_entities(kg, "what films did Temuera Morison act in")
    assert result.entities[0].id == E("Temuera Morrison")
    assert result.linked[0].how == "fuzzy" and result.linked[0].score < 2
    bracketed = link_entities(kg, "what films did [Temuera Morison] act in")
    assert bracketed.entities[0].id == E("Temuera Morrison") and bracketed.linked[0].how == "fuzzy"


def test_no_match_says_so_and_lists_closest_labels(kg):
    result = link_entities(kg, "who directed [Combat Shockwave Returns]")
    assert not result.found and result.entities == []
    assert result.message.startswith(NO_ENTITY_MESSAGE)
    assert NO_ENTITY_MESSAGE == "no entity of the knowledge graph found in the question"
    assert "Combat Shock" in result.closest
    assert "Combat Shock" in result.message
    nothing = link_entities(kg, "qqqq zzzz xxxx")
    assert not nothing.found and nothing.message.startswith(NO_ENTITY_MESSAGE)


def test_a_typo_in_a_short_word_still_gets_the_closest_label_in_every_interface():
    """ "Forest Gum": neither word shares a word or a 4-letter prefix with "Forrest Gump"; each is respelt from the
    KG's words sharing its first three letters. The hint is the linker's, so the API, MCP and the CLI give it alike."""
    from kg_agent.graphs import create_rog_graph
    from kg_agent.kg import open_kg

    sample = open_kg()
    result = link_entities(sample, "who directed [Forest Gum]")
    assert not result.found and result.closest[0] == "Forrest Gump"
    assert result.message == f"{NO_ENTITY_MESSAGE}; closest labels: Forrest Gump"
    state = create_rog_graph(sample).compile().invoke({"question": "who directed [Forest Gum]"})
    assert state["stop_reason"] == "no_topic_entity"
    assert any("closest labels: Forrest Gump" in w for w in state["warnings"])


def test_closest_labels(kg):
    assert closest_labels(kg, "Once Were Warrior")[0] == "Once Were Warriors"
    assert closest_labels(kg, "") == []


def test_the_class_list_is_one_request_over_the_class_predicates_the_kg_has(kg, fixtures_dir):
    """The KG's class list (KnowledgeGraph.classes) over a SPARQL endpoint: one query for a KG with classes (the same
    classes as in memory), none for a KG with no class predicate (the sample movie KG)."""
    from kg_agent.kg import load_kg, open_sparql
    from tests.sparql_server import SparqlServer, store_from_graph

    orchestra = load_kg(fixtures_dir / "kg" / "orchestra.ttl")
    for memory, requests in ((orchestra, 1), (kg, 0)):
        with SparqlServer(store_from_graph(memory.graph)) as server:
            remote = open_sparql(server.url)
            remote.relation_names()  # asked once per client, with the linking of any question
            before = remote.request_count()
            assert remote.classes() == memory.classes()
            assert remote.classes().ids and memory is orchestra or not remote.classes().ids
            remote.classes()  # kept per KG
            assert remote.request_count() - before == requests
