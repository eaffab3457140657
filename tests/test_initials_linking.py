"""A scheme or class the KG names by an acronym, named by the question in the words it stands for
(kg_agent/kg/linking.py ``_initials_candidates``, kg_agent/kg/terms.py ``initials_spans``, masked as linked by
kg_agent/tools/shared/scoring.py ``mask_mentions``): "the International Classification of Diseases code of Asthma"
is the code of Asthma in the scheme *ICD* (tests/fixtures/kg/hospital_codes.ttl: a hospital's conditions coded in
two schemes, as a library catalogue classifies its books under dcterms:LCC). Only acronym labels of nodes that
group many things are matched by initials, never every label."""

from __future__ import annotations

import pytest

from kg_agent.graphs import create_rog_graph
from kg_agent.kg import open_kg
from kg_agent.kg.linking import link_entities
from kg_agent.kg.terms import initials_spans, is_acronym
from kg_agent.kg.types import Entity
from kg_agent.tools.shared.scoring import mask_mentions
from tests.conftest import FIXTURES

HOSPITAL = "http://example.org/hospital/"
ICD_CODE = "What is the International Classification of Diseases code of Asthma?"


@pytest.fixture(scope="module")
def kg():
    graph = open_kg(FIXTURES / "kg" / "hospital_codes.ttl")
    yield graph
    graph.close()


def test_an_acronym_is_three_capital_letters_or_more():
    assert is_acronym("ICD") and is_acronym("LCSH")
    assert not is_acronym("MeSH") and not is_acronym("J45") and not is_acronym("HM") and not is_acronym("Gout")


def test_runs_begin_and_end_with_a_content_word():
    words = "the international classification of diseases code".split()
    spans = {(begin, end): letters for begin, end, letters in initials_spans(words, {"the", "of"})}
    assert spans[(1, 5)] == "icd"
    assert not any(begin == 0 or words[end - 1] == "of" for begin, end in spans)
    assert all(len(letters) >= 3 for letters in spans.values())  # any two words spell some two-letter code


def test_the_words_an_acronym_stands_for_link_the_scheme(kg):
    linked = {item.entity.id: item for item in link_entities(kg, ICD_CODE).linked}
    assert set(linked) == {HOSPITAL + "ICD", HOSPITAL + "asthma"}
    assert linked[HOSPITAL + "ICD"].mention == "international classification of diseases"
    assert linked[HOSPITAL + "ICD"].how == "initials"


def test_an_acronym_that_groups_nothing_is_not_named_by_initials(kg):
    """The ward "ICU" holds one condition: "intensive care unit" names nothing of the KG."""
    linked = [item.entity.id for item in link_entities(kg, "Which conditions are treated in the intensive care unit?").linked]
    assert HOSPITAL + "ward_icu" not in linked


def test_words_that_spell_no_acronym_of_the_kg_stay_words(kg):
    """"Medical Subject Headings" spells M-S-H; the KG writes its scheme "MeSH": nothing is linked by initials."""
    linked = link_entities(kg, "What is the Medical Subject Headings code of Gout?").linked
    assert [item.entity.id for item in linked] == [HOSPITAL + "gout"]


def test_the_mention_is_masked_as_linked():
    entities = [Entity(HOSPITAL + "ICD", "ICD"), Entity(HOSPITAL + "asthma", "Asthma")]
    assert mask_mentions(ICD_CODE, entities) == "What is the [ENT] code of [ENT]?"


def test_rog_answers_the_code_in_the_scheme_named(kg):
    result = create_rog_graph(kg).compile().invoke({"question": ICD_CODE})
    assert [a["answer"] for a in result["answers"]] == ["J45"]



def test_over_an_endpoint_the_acronym_nodes_are_read_in_one_batch(tmp_path):
    """Four more nodes labelled "ICD" (a physician's notes, grouping nothing) cost no more requests than none: the
    acronym nodes' edges are read together (KnowledgeGraph.bounded_edges_each), not one request per node; the links
    are memory's."""
    from rdflib import Graph, Literal, URIRef
    from rdflib.namespace import RDFS

    from kg_agent.kg import load_kg, open_sparql
    from tests.sparql_server import SparqlServer, store_from_graph

    plain = Graph().parse(FIXTURES / "kg" / "hospital_codes.ttl")
    # labelled: an endpoint's label index holds the nodes with a name literal (the fixture names ICD by its IRI)
    plain.add((URIRef(HOSPITAL + "ICD"), RDFS.label, Literal("ICD")))
    notes = Graph()
    notes += plain
    for n in range(4):
        note = URIRef(f"{HOSPITAL}note_{n}")
        notes.add((note, RDFS.label, Literal("ICD")))
        notes.add((URIRef(HOSPITAL + "dr_classification"), URIRef(HOSPITAL + "wrote"), note))
    sent = []
    for name, graph in (("plain", plain), ("notes", notes)):
        graph.serialize(tmp_path / f"{name}.nt", format="nt", encoding="utf-8")
        memory = load_kg(tmp_path / f"{name}.nt")
        with SparqlServer(store_from_graph(graph)) as server:
            remote = open_sparql(server.url)
            remote.label_index()  # linking by label reads the label index first (not what is counted)
            before = remote.request_count()
            linked = [(item.entity.id, item.how) for item in link_entities(remote, ICD_CODE).linked]
            sent.append(remote.request_count() - before)
        assert linked == [(item.entity.id, item.how) for item in link_entities(memory, ICD_CODE).linked], name
        assert (HOSPITAL + "ICD", "initials") in linked, name
    assert sent[1] == sent[0], sent
