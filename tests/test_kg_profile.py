"""Naming learned from the data (kg_agent/kg/profile.py), names written surname first, lenient loading of a published
dump with bad lines, and an ontology's terms as entities; fixtures cut from the report card's real KGs
(tests/fixtures/realkgs/README.md), outside the movie domain."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph
from kg_agent.kg import open_kg
from kg_agent.kg.errors import KGLoadError
from kg_agent.kg.loading.rdf_parsing import SkippedLinesWarning
from kg_agent.kg.profile import KGProfile
from kg_agent.kg.store_folder import PROFILE_FILE, SIDECAR_DIR

FIXTURES = Path(__file__).parent / "fixtures" / "realkgs"
CATALOGUE = FIXTURES / "catalogue.nt"
PG_NAME = "http://www.gutenberg.org/2009/pgterms/name"
PG_ALIAS = "http://www.gutenberg.org/2009/pgterms/alias"
RDF_VALUE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#value"
TWAIN = "http://www.gutenberg.org/2009/agents/53"


def test_the_predicates_a_catalogue_names_its_people_and_shelves_with_are_found_from_the_data():
    kg = open_kg(CATALOGUE)
    assert PG_NAME in kg.naming.label_predicates and RDF_VALUE in kg.naming.label_predicates
    assert PG_ALIAS not in kg.naming.label_predicates  # an alias beside a name names nothing new
    assert [e.id for e in kg.find_entities("Twain, Mark")] == [TWAIN]
    assert kg.label(TWAIN) == "Twain, Mark"
    assert {e.label for e in kg.find_entities("Horror")} == {"Horror"}  # a blank shelf node named by rdf:value


def test_a_name_written_surname_first_is_found_in_reading_order():
    kg = open_kg(CATALOGUE)
    assert [e.id for e in kg.find_entities("Mark Twain")] == [TWAIN]
    assert [e.label for e in kg.find_entities("Mary Wollstonecraft Shelley")] == ["Shelley, Mary Wollstonecraft"]


def test_label_predicates_given_by_the_caller_replace_the_measurement():
    kg = open_kg(CATALOGUE, label_predicates=["http://purl.org/dc/terms/title"])
    assert kg.naming.label_predicates == ("http://purl.org/dc/terms/title",)
    assert kg.find_entities("Twain, Mark") == []


def test_an_oxigraph_store_keeps_its_profile_and_names_alike(tmp_path):
    store = tmp_path / "catalogue.oxigraph"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the label file the load wrote is the one the found names ask for: no rebuild
        kg = open_kg(CATALOGUE, backend="oxigraph", store_path=store)
    profile = KGProfile.load(store / SIDECAR_DIR / PROFILE_FILE)
    assert profile is not None and PG_NAME in profile.label_predicates
    assert [e.id for e in kg.find_entities("Mark Twain")] == [TWAIN]
    memory = open_kg(CATALOGUE)
    assert kg.naming.label_predicates == memory.naming.label_predicates
    assert kg.label(TWAIN) == memory.label(TWAIN)


def test_a_bad_line_stops_a_strict_load_named_and_a_lenient_one_skips_it_and_says_where():
    bad = FIXTURES / "bad_lines.nt"
    with pytest.raises(KGLoadError, match=r"bad_lines.nt:2: cannot parse"):
        open_kg(bad)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kg = open_kg(bad, lenient=True)
    [warning] = [w for w in caught if issubclass(w.category, SkippedLinesWarning)]
    assert "skipped 2 bad lines" in str(warning.message) and "line 2" in str(warning.message) and "line 4" in str(warning.message)
    assert [e.label for e in kg.find_entities("Coropissus")] == ["Coropissus"]
    assert [e.label for e in kg.find_entities("Tralles")] == ["Tralles"]
    assert "Mint" in {kg.label(c) for c in kg.classes_of(["http://nomisma.org/id/coropissus"])["http://nomisma.org/id/coropissus"]}


def test_a_lenient_load_into_oxigraph_skips_the_bad_lines_too(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedLinesWarning)
        kg = open_kg(FIXTURES / "bad_lines.nt", backend="oxigraph", store_path=tmp_path / "s", lenient=True)
    assert len(kg) == 3


def test_an_ontologys_terms_are_entities_and_its_hierarchy_is_walked():
    kg = open_kg(FIXTURES / "ontology.nt")
    [gene] = kg.find_entities("gene")
    assert gene.id == "http://purl.obolibrary.org/obo/SO_0000704" and kg.is_entity(gene.id)
    result = create_rog_graph(kg).compile().invoke({"question": "Which terms are direct subtypes of exon?"})
    answers = [a["answer"] for a in result["answers"]]
    assert {"coding_exon", "interior_exon", "exon_of_single_exon_gene"} <= set(answers[:4])


def test_the_profile_reads_a_sample_of_the_triples_not_all():
    from rdflib import Graph, Literal, URIRef

    from kg_agent.kg.profile import graph_texts

    graph = Graph()
    for i in range(10):
        graph.add((URIRef(f"http://example.org/{i}"), URIRef("http://example.org/name"), Literal(f"thing {i}")))
    assert len(list(graph_texts(graph, sample=4))) == 4
    assert len(list(graph_texts(graph))) == 10


def test_a_sparql_endpoint_is_profiled_with_one_request_when_opened_and_kept_in_its_cache(tmp_path):
    import pyoxigraph as ox

    from tests.sparql_server import SparqlServer, store_from_file

    with SparqlServer(store_from_file(CATALOGUE, ox.RdfFormat.N_TRIPLES)) as server:
        cache = tmp_path / "kg-cache.sqlite"
        kg = open_kg(server.url, cache_path=cache)
        assert PG_NAME in kg.naming.label_predicates and PG_ALIAS in kg.naming.alias_predicates
        assert [e.id for e in kg.find_entities("Twain, Mark")] == [TWAIN]
        assert [e.id for e in kg.find_entities("Samuel Langhorne Clemens")] == [TWAIN]  # by its alias
        assert "alias" in kg.relations(TWAIN)  # a fact too
        sampled = [q for q in server.queries if "isLiteral(?o)" in q and "LIMIT 10000" in q]
        assert len(sampled) == 1
        again = open_kg(server.url, cache_path=cache)  # a later process: the profile is read from the cache
        assert again.naming.label_predicates == kg.naming.label_predicates
        assert again.naming.alias_predicates == kg.naming.alias_predicates
        assert [q for q in server.queries if "isLiteral(?o)" in q and "LIMIT 10000" in q] == sampled
        given = open_kg(server.url, label_predicates=[PG_NAME])  # given predicates: nothing is measured
        assert given.naming.label_predicates == (PG_NAME,)
        assert len([q for q in server.queries if "isLiteral(?o)" in q and "LIMIT 10000" in q]) == 1


def test_an_endpoint_that_cannot_be_profiled_opens_with_the_known_label_predicates(caplog):
    import logging

    with caplog.at_level(logging.WARNING):
        kg = open_kg("http://127.0.0.1:9/sparql", timeout=2)  # port 9 (discard): nothing listens
    assert PG_NAME not in kg.naming.label_predicates
    assert "were not measured" in caplog.text


# ---------------------------------------------------------------- aliases found from the data, catalogue names
ONTOLOGY = FIXTURES / "ontology.nt"
NAMESAKES = FIXTURES / "namesakes.nt"
EXACT_SYNONYM = "http://www.geneontology.org/formats/oboInOwl#hasExactSynonym"
DC_TITLE = "http://purl.org/dc/terms/title"
DC_ALTERNATIVE = "http://purl.org/dc/terms/alternative"
STEVENSON = "http://www.gutenberg.org/2009/agents/35"
BOOK_ABOUT_STEVENSON = "http://www.gutenberg.org/ebooks/333"


def test_the_predicates_a_kg_gives_its_things_other_names_with_are_found_from_the_data():
    catalogue = open_kg(CATALOGUE)
    assert PG_ALIAS in catalogue.naming.alias_predicates and PG_ALIAS not in catalogue.naming.label_predicates
    # "Clemens, Samuel Langhorne" is one of Twain's pgterms:alias texts: found, in reading order too
    assert [e.id for e in catalogue.find_entities("Samuel Langhorne Clemens")] == [TWAIN]
    assert catalogue.label(TWAIN) == "Twain, Mark"  # an alias is shown only where there is no label
    assert "alias" in catalogue.relations(TWAIN)  # and it stays a fact: "what other names is Mark Twain known by"
    ontology = open_kg(ONTOLOGY)
    assert EXACT_SYNONYM in ontology.naming.alias_predicates
    assert [e.label for e in ontology.find_entities("three prime coding exon")] == ["three_prime_coding_exon"]
    # the definitions (long texts) and the rdf:type classes are no aliases
    assert not any("IAO_0000115" in p for p in ontology.naming.alias_predicates)


def test_alias_predicates_found_are_kept_with_an_oxigraph_store_and_its_label_file(tmp_path):
    store = tmp_path / "catalogue.oxigraph"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the label file the load wrote holds the aliases: no rebuild
        kg = open_kg(CATALOGUE, backend="oxigraph", store_path=store)
    profile = KGProfile.load(store / SIDECAR_DIR / PROFILE_FILE)
    assert profile is not None and profile.alias_predicates == (PG_ALIAS,)
    assert any(line.startswith("aliases: " + PG_ALIAS) for line in profile.describe())
    assert [e.id for e in kg.find_entities("Samuel Langhorne Clemens")] == [TWAIN]
    assert "alias" in kg.relations(TWAIN)
    assert kg.naming.alias_predicates == open_kg(CATALOGUE).naming.alias_predicates


def test_alias_predicates_given_by_the_caller_replace_the_found_ones():
    kg = open_kg(CATALOGUE, alias_predicates=["http://www.w3.org/2004/02/skos/core#altLabel"])
    assert kg.naming.alias_predicates == ("http://www.w3.org/2004/02/skos/core#altLabel",)
    assert kg.find_entities("Samuel Langhorne Clemens") == []


def test_a_mention_that_is_one_things_label_and_anothers_alias_links_the_labelled_thing_first():
    from kg_agent.kg.linking import link_entities

    # ebook 232 is titled "The Georgics"; ebook 231, "Georgicon", has it as its dcterms:alternative
    kg = open_kg(NAMESAKES, label_predicates=[DC_TITLE, PG_NAME, RDF_VALUE], alias_predicates=[DC_ALTERNATIVE, PG_ALIAS])
    assert {e.id for e in kg.find_entities("The Georgics")} == {"http://www.gutenberg.org/ebooks/231",
                                                                 "http://www.gutenberg.org/ebooks/232"}
    for question in ("Who wrote The Georgics?", "Who wrote the Georgics?"):  # the second writes neither as the KG
        linked = link_entities(kg, question).entities
        assert linked[0].id == "http://www.gutenberg.org/ebooks/232"
        assert "http://www.gutenberg.org/ebooks/231" not in [e.id for e in linked]
    # found by its alias alone, it is linked
    assert link_entities(kg, "Who wrote Georgica. English?").entities[0].id == "http://www.gutenberg.org/ebooks/232"


def test_a_person_a_catalogue_names_surname_first_is_linked_beside_a_book_titled_with_the_name_in_reading_order():
    from kg_agent.kg.linking import link_entities

    # ebook 333 is titled "Robert Louis Stevenson"; the man is "Stevenson, Robert Louis": the question writes both
    # names as the KG does, so neither drops the other
    kg = open_kg(NAMESAKES, label_predicates=[DC_TITLE, PG_NAME, RDF_VALUE])
    linked = [e.id for e in link_entities(kg, "Which books by Robert Louis Stevenson are on the Children's "
                                               "Literature bookshelf?").entities]
    assert STEVENSON in linked and BOOK_ABOUT_STEVENSON in linked


def test_cross_references_name_nothing():
    """OBO-shaped axiom nodes (the Sequence Ontology reifies its definitions' references on blank ``owl:Axiom``
    nodes) carry ``hasDbXref`` identifiers, one each: short, new, apart, yet no names."""
    from kg_agent.kg.naming import Naming
    from kg_agent.kg.profile import measure_name_predicates
    xref = "http://www.geneontology.org/formats/oboInOwl#hasDbXref"
    texts = [(f"_:axiom{i}", xref, f"PMID:{11081512 + i}", "") for i in range(20)]
    texts += [(f"_:shelf{i}", RDF_VALUE, f"Shelf number {i}", "") for i in range(20)]
    profile = measure_name_predicates(texts, Naming())
    assert profile.label_predicates == (RDF_VALUE,)


def test_a_value_several_named_things_share_is_no_other_name_of_one():
    """Volcanoes labelled "<name>, <country>" (invented for the test) with their country also as text: it shares a
    word with each label, as other names do, but "Italy" on four volcanoes (six countries for twelve) tells none of them apart; their local
    names, one each, are other names."""
    from kg_agent.kg.naming import RDFS, Naming
    from kg_agent.kg.profile import measure_name_predicates
    base = "http://example.org/volcanoes/"
    volcanoes = [("etna", "Etna", "Italy", "Mongibello"), ("vesuvius", "Vesuvius", "Italy", "Vesuvio"),
                 ("stromboli", "Stromboli", "Italy", "Iddu"), ("vulcano", "Vulcano", "Italy", "Vurcanu"),
                 ("hekla", "Hekla", "Iceland", "Heklufjall"), ("katla", "Katla", "Iceland", "Kötlujökull"),
                 ("fuji", "Fuji", "Japan", "Fujisan"), ("aso", "Aso", "Japan", "Asosan"),
                 ("villarrica", "Villarrica", "Chile", "Rucapillán"), ("osorno", "Osorno", "Chile", "Purarrauca"),
                 ("merapi", "Merapi", "Indonesia", "Gunung Merapi"), ("colima", "Colima", "Mexico", "Volcán de Fuego")]
    texts = []
    for key, name, country, local in volcanoes:
        texts += [(base + key, RDFS + "label", f"{name}, {country}", ""), (base + key, base + "country", country, ""),
                  (base + key, base + "localName", f"{local} ({name})", "")]
    assert measure_name_predicates(texts, Naming()).alias_predicates == (base + "localName",)


def test_a_kg_that_labels_things_by_codes_gives_their_names_elsewhere(tmp_path):
    """Observatories labelled by their codes (invented for the test: "MKO"), their names only in a description
    property no vocabulary marks as a name: the names share no word with the codes, but each code abbreviates its
    name (its letters in order), so the property gives other names and the observatory is found by its name."""
    import rdflib

    from kg_agent.kg.naming import RDFS, Naming
    from kg_agent.kg.profile import measure_name_predicates
    base = "http://example.org/observatories/"
    sites = [("MKO", "Mauna Kea Observatory"), ("LPO", "La Palma Observatory"), ("PAR", "Paranal Observatory"),
             ("KPNO", "Kitt Peak National Observatory"), ("SSO", "Siding Spring Observatory"),
             ("CTIO", "Cerro Tololo Inter-American Observatory"), ("JBO", "Jodrell Bank Observatory")]
    texts = []
    for code, name in sites:
        texts += [(base + code, RDFS + "label", code, ""), (base + code, base + "desc", name, "")]
    assert measure_name_predicates(texts, Naming()).alias_predicates == (base + "desc",)
    graph = rdflib.Graph()
    for subject, predicate, text, _ in texts:
        graph.add((rdflib.URIRef(subject), rdflib.URIRef(predicate), rdflib.Literal(text)))
        graph.add((rdflib.URIRef(subject), rdflib.URIRef(base + "altitude"), rdflib.Literal(4200)))
    graph.serialize(tmp_path / "observatories.nt", format="nt", encoding="utf-8")
    kg = open_kg(tmp_path / "observatories.nt")
    assert [e.id for e in kg.find_entities("Kitt Peak National Observatory")] == [base + "KPNO"]
