"""Names held on label nodes (kg_agent/kg/label_nodes.py): ``entity -p-> node -q-> "literal"`` measured from the data,
the entity named by its preferred node's literal and aliased by the others, on memory and Oxigraph.

Fixtures (invented for these tests, see their READMEs): a museum object-type thesaurus in SKOS-XL
(tests/fixtures/object_types) and archive subject headings whose label nodes are in a made-up vocabulary
(tests/fixtures/subject_headings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph
from kg_agent.kg.label_nodes import SKOSXL, measure_label_nodes
from kg_agent.kg.naming import DEFAULT_CLASS_PREDICATES, LABEL_NAMES_GRAPH, LABEL_NODE_NAME
from kg_agent.kg.profile import KGProfile

FIXTURES = Path(__file__).parent / "fixtures"
OBJECT_TYPES = FIXTURES / "object_types" / "object_types.ttl"
HEADINGS = FIXTURES / "subject_headings" / "headings.ttl"
OT = "http://example.org/object-types/"
AH = "http://example.org/archive-headings/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def _open(path: Path, backend: str, tmp_path_factory) -> object:
    if backend == "memory":
        return open_kg(path)
    return open_oxigraph(build_oxigraph(path, tmp_path_factory.mktemp(path.stem) / "store"))


@pytest.fixture(scope="module", params=["memory", "oxigraph"])
def kgs(request, tmp_path_factory):
    """Both fixtures on one backend: ``(object types, headings)``."""
    return _open(OBJECT_TYPES, request.param, tmp_path_factory), _open(HEADINGS, request.param, tmp_path_factory)


# ---------------------------------------------------------------- the measurement
def _label_nodes(entities: int, *, holders_per_node: int = 1, variants: int = 0, other_facts: int = 0,
                 text: str = "Name {}") -> list[tuple[str, str, str, bool]]:
    triples = []
    for at in range(entities):
        for holder in range(holders_per_node):
            triples.append((f"ex:e{at}-{holder}" if holder else f"ex:e{at}", "ex:name", f"ex:n{at}", False))
        triples.append((f"ex:n{at}", "ex:text", text.format(at), True))
        for other in range(other_facts):
            triples.append((f"ex:n{at}", f"ex:fact{other}", f"ex:v{at}-{other}", False))
        for variant in range(variants):
            triples.append((f"ex:e{at}", "ex:other", f"ex:a{at}-{variant}", False))
            triples.append((f"ex:a{at}-{variant}", "ex:text", f"Other {at} {variant}", True))
    return triples


def test_label_nodes_in_a_made_up_vocabulary_are_found_with_the_preferred_one_held_once_per_entity():
    relations, on_nodes = measure_label_nodes(_label_nodes(8, variants=2), DEFAULT_CLASS_PREDICATES)
    assert [(r.holder, r.literal, r.preferred, r.entities) for r in relations] == [
        ("ex:name", "ex:text", True, 8), ("ex:other", "ex:text", False, 8)]
    assert on_nodes == ("ex:text",)


def test_a_value_node_held_by_many_things_is_no_label_node():
    """A country node with one name, held by every city of it, is a thing of its own."""
    assert measure_label_nodes(_label_nodes(8, holders_per_node=3), DEFAULT_CLASS_PREDICATES) == ((), ())


def test_a_node_with_facts_of_its_own_is_no_label_node():
    assert measure_label_nodes(_label_nodes(8, other_facts=3), DEFAULT_CLASS_PREDICATES) == ((), ())


def test_texts_on_nodes_qualified_by_a_named_thing_are_no_label_node_texts():
    """Identifiers in schemes (``place -identifiedBy-> node -text-> "C1"``, ``node -inScheme-> scheme``, the scheme
    named "FIPS country code", by a text or through its own name node) share the text predicate with the places' name
    nodes: each identifier says which scheme its code is of, so a walk must pass through it ("the FIPS code of X"), and
    the text predicate is no label-node text. With an unnamed value instead (a flag), the nodes are label nodes."""
    triples = _label_nodes(8)  # ex:name -> ex:n<i> -> "Name <i>": names
    for at in range(8):
        triples += [(f"ex:e{at}", "ex:identifiedBy", f"ex:id{at}", False), (f"ex:id{at}", "ex:text", f"C{at}", True),
                    (f"ex:id{at}", "ex:inScheme", f"ex:scheme{at % 2}", False)]
    named_schemes = [("ex:scheme0", "ex:text", "FIPS country code", True), ("ex:scheme1", "ex:text", "UN region code", True)]
    assert measure_label_nodes(triples + named_schemes, DEFAULT_CLASS_PREDICATES) == ((), ())
    scheme_name_nodes = [("ex:scheme0", "ex:name", "ex:s0", False), ("ex:s0", "ex:text", "FIPS country code", True),
                         ("ex:scheme1", "ex:name", "ex:s1", False), ("ex:s1", "ex:text", "UN region code", True)]
    assert measure_label_nodes(triples + scheme_name_nodes, DEFAULT_CLASS_PREDICATES) == ((), ())
    relations, _ = measure_label_nodes(triples, DEFAULT_CLASS_PREDICATES)  # a flag: an unnamed value
    assert {r.holder for r in relations} == {"ex:name", "ex:identifiedBy"}


def test_a_node_carrying_prose_is_no_label_node():
    assert measure_label_nodes(_label_nodes(8, text="{} " + "a long sentence of prose " * 6),
                               DEFAULT_CLASS_PREDICATES) == ((), ())


def test_the_profile_reads_skosxl_by_its_definitions_and_keeps_the_relations():
    kg = open_kg(OBJECT_TYPES)
    naming = kg.naming
    for predicate in ("prefLabel", "altLabel", "literalForm"):
        assert SKOSXL + predicate in naming.label_node_predicates
        assert not naming.is_fact(SKOSXL + predicate)
    assert OT + "usage" in naming.label_node_predicates  # a flag stated only on label nodes
    assert SKOSXL + "literalForm" not in naming.name_predicates  # label nodes are not named things
    profile = KGProfile(label_node_relations=((SKOSXL + "prefLabel", SKOSXL + "literalForm", True, 11),),
                        label_node_predicates=(SKOSXL + "literalForm",))
    assert KGProfile.from_dict(__import__("dataclasses").asdict(profile)) == profile
    assert any(line.startswith("label nodes: ") for line in profile.describe())


# ---------------------------------------------------------------- what a user sees, on both backends
def test_an_entity_is_named_by_its_preferred_label_node_and_aliased_by_the_others(kgs):
    object_types, headings = kgs
    assert object_types.label(OT + "c3") == "Windsor chair"
    assert set(object_types.labels(OT + "c3")) == {"Windsor chair", "Windsor chairs", "Chaise Windsor"}
    assert headings.label(AH + "h1") == "Maritime history"
    assert set(headings.labels(AH + "h1")) == {"Maritime history", "Seafaring history", "Maritime hist."}


def test_a_stores_own_sparql_reads_the_file_as_it_is_and_the_names_in_kg_agents_graph(tmp_path):
    """The names kg-agent states on the entities are kept in its own named graph of the store, never in the default
    graph a user's SPARQL over the store reads as the file has it."""
    import pyoxigraph as ox

    store = build_oxigraph(OBJECT_TYPES, tmp_path / "store")
    kg = open_oxigraph(store)
    assert kg.label(OT + "c3") == "Windsor chair"
    asked = f"SELECT ?name WHERE {{ <{OT}c3> <{LABEL_NODE_NAME}> ?name }}"
    assert list(kg.query(asked)) == []
    raw = ox.Store(str(store))
    named = {q.object.value for q in raw.quads_for_pattern(ox.NamedNode(OT + "c3"), ox.NamedNode(LABEL_NODE_NAME),
                                                           None, ox.NamedNode(LABEL_NAMES_GRAPH))}
    assert named == {"Windsor chair"}
    assert not list(raw.quads_for_pattern(None, ox.NamedNode(LABEL_NODE_NAME), None, ox.DefaultGraph()))


def test_linking_finds_the_entity_by_a_label_node_literal_not_the_label_node(kgs):
    object_types, headings = kgs
    assert [e.id for e in object_types.find_entities("Windsor chair")][:1] == [OT + "c3"]
    assert [e.id for e in object_types.find_entities("Hope chest")][:1] == [OT + "c6"]  # an alternative name
    assert [e.id for e in headings.find_entities("Whaling ports")][:1] == [AH + "h2"]
    for kg in (object_types, headings):
        found = {e.id for text in ("Windsor chair", "Whaling ports", "Seats") for e in kg.find_entities(text)}
        assert not any("/label/" in key or "/name/" in key for key in found)


def test_label_nodes_are_not_walked(kgs):
    object_types, headings = kgs
    relations = object_types.relations(OT + "c3")
    assert "prefLabel" not in relations and "altLabel" not in relations
    assert set(relations) >= {"broader", "madeOf"}
    label_node = "http://example.org/object-types/label/L6"  # Windsor chair's prefLabel node: only its class left
    assert set(object_types.relations(label_node)) <= {"type"}
    assert set(headings.relations(AH + "h2")) == {"partOf", "^subject"}
    assert headings.relations("http://example.org/archive-headings/name/n1") == []


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_every_method_answers_with_the_name_a_label_node_gives(factory, kgs):
    object_types, headings = kgs
    for kg, question, expected in (
            (headings, "Which heading is Whaling ports part of?", ["Maritime history"]),
            (object_types, "What is a Windsor chair made of?", ["Oak wood"]),
            (object_types, "What is the broader concept of Tankard?", ["Tableware"])):
        result = factory(kg).compile().invoke({"question": question})
        assert [a["answer"] for a in result["answers"]] == expected, question
