"""KnowledgeGraph queries on the MetaQA slice: traversal both ways, relations, labels, search, index upkeep."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import Literal
from rdflib.namespace import RDFS

from kg_agent.kg import Entity, UnknownEntityError, UnknownRelationError, entity_iri, load_kg, relation_iri, search_entities

E = lambda name: str(entity_iri(name))  # noqa: E731

SHINKAI_FILMS = ["5 Centimeters Per Second", "The Garden of Words", "The Place Promised in Our Early Days",
                 "Voices of a Distant Star"]


@pytest.fixture(scope="module")
def kg(fixtures_dir: Path):
    return load_kg(fixtures_dir / "kg" / "metaqa_slice.txt")


@pytest.fixture()
def fresh_kg(fixtures_dir: Path):
    return load_kg(fixtures_dir / "kg" / "metaqa_slice.txt")


def test_neighbors_both_directions(kg):
    assert kg.neighbors(E("Combat Shock"), "directed_by") == [E("Buddy Giovinazzo")]
    assert kg.neighbors(E("Combat Shock"), "^directed_by") == []
    # backwards: the films that list the director; sorted by id
    films = ["Combat Shock", "Life Is Hot in Cracktown", "The Theatre Bizarre"]
    assert kg.neighbors(E("Buddy Giovinazzo"), "^directed_by") == sorted(E(f) for f in films)
    assert kg.neighbors(E("Buddy Giovinazzo"), "directed_by") == []
    assert set(kg.neighbors(E("Temuera Morrison"), "^starred_actors")) == {
        E("Once Were Warriors"), E("Tracker"), E("River Queen")}
    for film in ("Once Were Warriors", "Tracker", "River Queen"):
        assert E("Temuera Morrison") in kg.neighbors(E(film), "starred_actors")


def test_neighbors_of_unknown_entity_or_relation_are_empty(kg):
    assert kg.neighbors(E("No Such Film"), "directed_by") == []
    assert kg.neighbors(E("Combat Shock"), "no_such_relation") == []


def test_neighbors_returns_a_copy(kg):
    got = kg.neighbors(E("Buddy Giovinazzo"), "^directed_by")
    got.clear()
    assert len(kg.neighbors(E("Buddy Giovinazzo"), "^directed_by")) == 3


def test_relations_by_direction(kg):
    assert kg.relations(E("Combat Shock"), direction="out") == ["directed_by", "has_genre", "written_by"]
    assert kg.relations(E("Combat Shock"), direction="in") == []
    assert kg.relations(E("Buddy Giovinazzo"), direction="out") == []
    assert kg.relations(E("Buddy Giovinazzo"), direction="in") == ["^directed_by", "^written_by"]
    # Makoto Shinkai also stars in one of his films
    assert kg.relations(E("Makoto Shinkai")) == ["^directed_by", "^starred_actors", "^written_by"]
    assert kg.relations(E("Voices of a Distant Star"), direction="both") == sorted(
        kg.relations(E("Voices of a Distant Star"), direction="out")
        + kg.relations(E("Voices of a Distant Star"), direction="in"))
    with pytest.raises(ValueError):
        kg.relations(E("Combat Shock"), direction="sideways")


def test_edges_match_neighbors(kg):
    edges = kg.edges(E("Makoto Shinkai"))
    assert set(edges) == {"^directed_by", "^starred_actors", "^written_by"}
    assert list(edges["^directed_by"]) == sorted(E(f) for f in SHINKAI_FILMS)
    assert list(edges["^starred_actors"]) == [E("Voices of a Distant Star")]


def test_labels_and_entities(kg):
    assert kg.label(E("Once Were Warriors")) == "Once Were Warriors"
    assert kg.labels(E("Once Were Warriors")) == ["Once Were Warriors"]
    assert kg.entity(E("Tracker")) == Entity(E("Tracker"), "Tracker")
    assert E("Tracker") in kg and kg.has_entity(E("Tracker"))
    assert E("Not There") not in kg
    with pytest.raises(UnknownEntityError, match="Not%20There"):
        kg.entity(E("Not There"))
    # no rdfs:label: the local name, percent-decoded
    assert kg.label(E("Not There")) == "Not There"
    assert kg.label(E("Not There"), default=None) is None


def test_relation_names_and_iris(kg):
    assert kg.relation_names() == sorted({
        "directed_by", "written_by", "starred_actors", "release_year", "in_language", "has_tags", "has_genre",
        "has_imdb_votes", "has_imdb_rating"} & set(kg.relation_names()))
    assert {"directed_by", "starred_actors", "has_tags"} <= set(kg.relation_names())
    assert kg.relation_iri("starred_actors") == str(relation_iri("starred_actors"))
    assert kg.relation_iri("^starred_actors") == str(relation_iri("starred_actors"))
    assert kg.has_relation("^directed_by") and not kg.has_relation("produced_by")
    with pytest.raises(UnknownRelationError):
        kg.relation_iri("produced_by")


def test_find_entities_ignores_case_and_punctuation_and_ranks_exact_spelling(kg):
    assert [e.id for e in kg.find_entities("combat   SHOCK!")] == [E("Combat Shock")]
    # a person and a tag spelt alike: the spelling as written comes first
    assert [e.label for e in kg.find_entities("Makoto Shinkai")] == ["Makoto Shinkai", "makoto shinkai"]
    assert [e.label for e in kg.find_entities("makoto shinkai")] == ["makoto shinkai", "Makoto Shinkai"]
    assert kg.find_entities("Nonexistent Film Title") == []


def test_search_exact_contained_and_fuzzy(kg):
    assert search_entities(kg, "Combat Shock")[0].label == "Combat Shock"
    found = [e.label for e in search_entities(kg, "Shinkai")]
    assert found[:2] == ["Makoto Shinkai", "makoto shinkai"]
    assert [e.label for e in search_entities(kg, "Combat Shok")][:1] == ["Combat Shock"]
    assert len(search_entities(kg, "the", limit=3)) <= 3
    assert search_entities(kg, "   ") == []


def test_index_follows_graph_add_and_remove(fresh_kg):
    kg = fresh_kg
    new_film = entity_iri("Giovinazzo Test Film")
    kg.label_index()  # built before the change: must follow it too
    kg.graph.add((new_film, relation_iri("directed_by"), entity_iri("Buddy Giovinazzo")))
    kg.graph.add((new_film, RDFS.label, Literal("Giovinazzo Test Film")))
    assert str(new_film) in kg.neighbors(E("Buddy Giovinazzo"), "^directed_by")
    assert kg.neighbors(str(new_film), "directed_by") == [E("Buddy Giovinazzo")]
    assert kg.neighbors(E("Buddy Giovinazzo"), "^directed_by") == sorted(kg.neighbors(E("Buddy Giovinazzo"), "^directed_by"))
    assert [e.id for e in kg.find_entities("giovinazzo test film")] == [str(new_film)]

    kg.graph.remove((new_film, relation_iri("directed_by"), entity_iri("Buddy Giovinazzo")))
    assert str(new_film) not in kg.neighbors(E("Buddy Giovinazzo"), "^directed_by")
    assert kg.neighbors(str(new_film), "directed_by") == []
    assert len(kg.neighbors(E("Buddy Giovinazzo"), "^directed_by")) == 3


def test_unlabelled_node_added_after_label_index_is_findable(fresh_kg):
    kg = fresh_kg
    kg.label_index()
    kg.graph.add((entity_iri("Brand New Film"), relation_iri("directed_by"), entity_iri("Buddy Giovinazzo")))
    assert [e.id for e in kg.find_entities("brand new film")] == [E("Brand New Film")]


def test_index_follows_wildcard_remove(fresh_kg):
    kg = fresh_kg
    kg.graph.remove((entity_iri("Combat Shock"), None, None))
    assert kg.neighbors(E("Buddy Giovinazzo"), "^directed_by") == sorted([E("Life Is Hot in Cracktown"),
                                                                         E("The Theatre Bizarre")])
    assert kg.relations(E("Combat Shock")) == []
    assert kg.find_entities("Combat Shock") == []


def test_hostile_labels_are_found(fixtures_dir):
    kg = load_kg(fixtures_dir / "kg" / "labels.ttl")
    hostile = {
        "http://example.org/hostile/quotes": "Tom \"The Bomb\" O'Neil",
        "http://example.org/hostile/angle": "Alpha > Beta <Gamma>",
        "http://example.org/hostile/newline": "First line\nsecond line",
        "http://example.org/hostile/brace": "Closing } brace } DROP ALL { ?s ?p ?o }",
        "http://example.org/hostile/unicode": "Zoë Ørsted – 東京 🎬",
        "http://example.org/hostile/backslash": "C:\\temp\\new \\ folder",
    }
    for iri, text in hostile.items():
        assert kg.label(iri) == text
        assert [e.id for e in kg.find_entities(text)] == [iri], text
        rows = list(kg.query("SELECT ?s WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l }",
                             bindings={"l": Literal(text)}))
        assert [str(r[0]) for r in rows] == [iri], text


def test_sample_ends_are_what_the_bounded_sparql_query_returns(kg):
    """The memory backend reads a relation's first distinct ends without parsing SPARQL; the query's rows, in order."""
    from kg_agent.kg.stores.base import GraphStore

    relations = kg.relation_names()
    assert len(relations) >= 8
    signed = [r for relation in relations for r in (relation, f"^{relation}")]
    for limit in (1, 3, 8):
        queried = GraphStore.sample_ends(kg.store, [(kg.relation_iri(r), r.startswith("^")) for r in signed], limit=limit)
        assert kg.sample_ends(signed, limit) == dict(zip(signed, queried))
        assert kg.sample_ends(signed, limit, per_query=5) == dict(zip(signed, queried))
    assert len(kg.sample_ends(["has_genre"], 3)["has_genre"]) == 3
    assert kg.sample_ends(["no_such_relation"], 8) == {"no_such_relation": []}


def test_the_memory_store_extends_each_prefix_as_walkable_judges_every_extension():
    # the memory store walks a prefix once for all its extensions; its answer is the base's (walkable() per
    # extension), the walk's budget included: a prefix of 260 x 260 walks exceeds it (every extension is then taken
    # to be walkable), a step that walks the one before backwards only to where that began is not one
    from kg_agent.kg import entity_iri, kg_from_triples
    from kg_agent.kg.stores.base import WALK_BUDGET, GraphStore

    triples = [("start", "has", f"hub{i}") for i in range(260)]
    triples += [(f"hub{i}", "holds", f"leaf{j}") for i in range(260) for j in range(260)]
    triples += [("leaf7", "back", "start"), ("start", "back_to", "x"), ("x", "returns", "start"),
                ("start", "loop", "y"), ("y", "loop", "z"), ("hub3", "holds", "start"), ("start", "ends", "w")]
    store = kg_from_triples(triples, name="walks").store
    assert 260 * 260 > WALK_BUDGET
    starts = [str(entity_iri("start")), str(entity_iri("nowhere"))]
    prefixes = [(), ("has",), ("has", "holds"), ("back_to",), ("loop",), ("ends",), ("^has",), ("back_to", "returns")]
    answer = store.walkable_extensions(starts, prefixes)
    assert answer == GraphStore.walkable_extensions(store, starts, prefixes)
    assert "back" in answer[("has", "holds")]  # over budget: taken to be walkable
    assert "^back_to" not in answer[("back_to",)]  # back over back_to: only to the start
    assert "returns" in answer[("back_to",)]  # another relation back to the start is a walk
    assert answer[("loop",)] == ["loop"] and answer[("ends",)] == []
