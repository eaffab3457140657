"""Questions about the whole KG (kg_agent/tools/shared/whole_graph.py): "which author has the most books", "which is
the most downloaded book"; read from the KG's own relations and classes, answered by one aggregate query with its
evidence, through every method; on fixtures cut from the report card's real KGs (tests/fixtures/realkgs/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph, open_sparql
from kg_agent.kg.naming import make_naming
from kg_agent.tools.shared import whole_graph
from kg_agent.tools.shared.aggregates import MAX, MIN
from kg_agent.tools.shared.whole_graph import WholeGraphQuestion, answer_over_whole_graph, only_names_its_nouns, whole_graph_question
from tests.sparql_server import SparqlServer, store_from_file

CATALOGUE = Path(__file__).parent / "fixtures" / "realkgs" / "catalogue.nt"
ONTOLOGY = Path(__file__).parent / "fixtures" / "realkgs" / "ontology.nt"


@pytest.fixture(scope="module")
def catalogue():
    return open_kg(CATALOGUE)


@pytest.fixture(scope="module")
def ontology():
    return open_kg(ONTOLOGY)


@pytest.mark.parametrize(("question", "read"), [
    ("Which author has the most books in the catalogue?", WholeGraphQuestion(MAX, "author", "books")),
    ("Which region had the fewest mints?", WholeGraphQuestion(MIN, "region", "mints")),
    ("Who created the most terms?", WholeGraphQuestion(MAX, "", "terms", verb="created")),
    ("What is the most common subject heading among the books?", WholeGraphQuestion(MAX, "subject heading", "books")),
    ("Which is the most downloaded book?", WholeGraphQuestion(MAX, "book", attribute="downloaded")),
])
def test_the_question_is_read_by_its_grammar(question, read):
    assert whole_graph_question(question) == read


@pytest.mark.parametrize("question", ["Who wrote Moby Dick?", "What is the most?", "the most books"])
def test_other_questions_are_not_about_the_whole_graph(question):
    assert whole_graph_question(question) is None


def test_a_count_groups_the_relation_the_nouns_name_and_carries_its_evidence(catalogue):
    answers, what = answer_over_whole_graph(catalogue, "Which author has the most books in the catalogue?")
    assert [a["answer"] for a in answers] == ["Twain, Mark"] and "creator" in what
    assert answers[0]["compared"][:2] == [{"answer": "Twain, Mark", "value": "5"},
                                          {"answer": "Stevenson, Robert Louis", "value": "2"}]
    assert answers[0]["grounded"]


def test_blank_groups_of_one_name_count_as_one_thing(catalogue):
    # each book has its own blank "Children's Literature" shelf node (named by rdf:value): three books on it
    answers, _ = answer_over_whole_graph(catalogue, "Which bookshelf holds the most books?")
    assert "Children's Literature" in [a["answer"] for a in answers]
    assert {"answer": "Children's Literature", "value": "3"} in answers[0]["compared"]


@pytest.mark.parametrize(("question", "expected"), [
    ("Which is the most downloaded book?", "Alice's Adventures in Wonderland"),
    ("Which is the least downloaded book?", "A Tramp Abroad"),
])
def test_an_attribute_superlative_compares_the_relation_its_participle_names(catalogue, question, expected):
    answers, what = answer_over_whole_graph(catalogue, question)
    assert [a["answer"] for a in answers] == [expected] and "downloads" in what


def test_an_ontology_counts_its_subclass_relation(ontology):
    answers, _ = answer_over_whole_graph(ontology, "Which term has the most direct subtypes?")
    assert [a["answer"] for a in answers] == ["biological_region"]
    answers, _ = answer_over_whole_graph(ontology, "Which terms have the most exact synonyms?")
    assert [a["answer"] for a in answers] == ["miRNA"]


def test_nothing_the_kg_has_is_named_so_nothing_is_answered(catalogue):
    assert answer_over_whole_graph(catalogue, "Which museum holds the most coins?") is None


def test_a_mention_of_the_counted_or_asked_noun_is_no_topic_entity():
    assert only_names_its_nouns("Which bookshelf holds the most books?", ["bookshelf"])
    assert not only_names_its_nouns("Which bookshelf holds the most books by Mark Twain?", ["bookshelf", "Mark Twain"])
    assert not only_names_its_nouns("Who wrote Moby Dick?", ["Moby Dick"])


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_every_method_answers_a_whole_graph_question(catalogue, factory):
    app = factory(catalogue).compile()
    result = app.invoke({"question": "Which bookshelf holds the most books?"})  # "bookshelf" links the class Bookshelf
    assert "Children's Literature" in [a["answer"] for a in result["answers"]]
    assert result["stop_reason"] == "answered" and result["topic_entities"] == []
    assert any("whole knowledge graph" in w for w in result["warnings"])
    unanswerable = app.invoke({"question": "Which museum holds the most coins?"})
    assert unanswerable["answers"] == [] and unanswerable["stop_reason"] == "no_topic_entity"


def test_a_count_cut_at_its_bound_says_so_and_is_not_grounded(catalogue, monkeypatch):
    monkeypatch.setattr(whole_graph, "MAX_EDGES", 5)
    answers, what = answer_over_whole_graph(catalogue, "Which author has the most books in the catalogue?")
    assert "first 5 edges only" in what and not any(a["grounded"] for a in answers)


@pytest.mark.parametrize("backend", ["oxigraph", "sparql"])
def test_the_aggregate_query_answers_alike_on_a_store_and_an_endpoint(backend, tmp_path):
    if backend == "oxigraph":
        kg = open_oxigraph(build_oxigraph(CATALOGUE, tmp_path / "store"))
        server = None
    else:
        server = SparqlServer(store_from_file(CATALOGUE))
        server.__enter__()
        # an endpoint's names are not measured from its data (an open file's and a store's are): given here
        kg = open_sparql(server.url, naming=make_naming(label_predicates=[
            "http://www.w3.org/2000/01/rdf-schema#label", "http://purl.org/dc/terms/title",
            "http://www.gutenberg.org/2009/pgterms/name", "http://www.w3.org/1999/02/22-rdf-syntax-ns#value"]))
    try:
        answers, _ = answer_over_whole_graph(kg, "Which author has the most books in the catalogue?")
        assert [a["answer"] for a in answers] == ["Twain, Mark"]
        answers, _ = answer_over_whole_graph(kg, "Which bookshelf holds the most books?")
        assert "Children's Literature" in [a["answer"] for a in answers]  # blank shelves of one name count once
        assert {"answer": "Children's Literature", "value": "3"} in answers[0]["compared"]
    finally:
        kg.close()
        if server is not None:
            server.__exit__(None, None, None)


@pytest.mark.parametrize(("question", "read"), [
    ("How many mints are there?", WholeGraphQuestion(whole_graph.COUNT, counted_noun="mints")),
    ("How many terms are marked obsolete?", WholeGraphQuestion(whole_graph.COUNT, counted_noun="terms",
                                                               attribute="obsolete")),
])
def test_a_count_over_the_whole_graph_is_read_by_its_grammar(question, read):
    assert whole_graph_question(question) == read


@pytest.mark.parametrize("question", ["How many ebooks are in Frenchy?", "How many films are there by Ann Lee?",
                                      "How many books by Charles Dickens are in the catalogue?"])
def test_a_count_naming_a_thing_or_a_value_is_not_about_the_whole_graph(question):
    assert whole_graph_question(question) is None


def test_how_many_members_a_class_has(catalogue):
    [answer], what = answer_over_whole_graph(catalogue, "How many ebooks are there?")
    assert answer["answer"] == "10" and "ebook" in what and "Treasure Island" in answer["counted"]


OBSOLETE = """@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix ex: <http://example.org/so#> .
ex:a a owl:Class ; rdfs:label "ribozyme_old" ; owl:deprecated "true"^^xsd:boolean .
ex:b a owl:Class ; rdfs:label "snRNA_old" ; owl:deprecated "true"^^xsd:boolean .
ex:c a owl:Class ; rdfs:label "gene" ; owl:deprecated "false"^^xsd:boolean .
ex:d a owl:Class ; rdfs:label "exon" .
"""


def test_how_many_are_marked_so_counts_the_true_values_of_the_relation_the_word_names(tmp_path):
    path = tmp_path / "obsolete.ttl"
    path.write_text(OBSOLETE, encoding="utf-8")
    [answer], what = answer_over_whole_graph(open_kg(path), "How many terms are marked obsolete?")
    assert answer["answer"] == "2" and "deprecated" in what
    assert sorted(answer["counted"]) == ["ribozyme_old", "snRNA_old"]


def test_the_cli_shows_what_was_counted_or_compared(catalogue):
    import io

    from kg_agent.cli import print_result

    result = create_rog_graph(catalogue).compile().invoke({"question": "Which author has the most books in the catalogue?"})
    out = io.StringIO()
    print_result(result, out=out)
    text = out.getvalue()
    assert "  - Twain, Mark\n      counted books per author over creator" in text and "Twain, Mark 5" in text
    assert "Note: link: no entity named: a question about the whole knowledge graph" in text


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_with_a_model_a_whole_graph_question_spends_no_answer_call(catalogue, factory, monkeypatch):
    """The aggregate answers it: the answerer's model is not asked to answer from no paths (a real HTTP server)."""
    from kg_agent.llm import resolve_chat_model
    from kg_agent.tools.prompts import prompt_node
    from tests.llm_responders import well_behaved
    from tests.openai_server import OpenAICompatibleServer

    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with OpenAICompatibleServer(responder=well_behaved("Project Gutenberg", "publisher"), api_key="sk-test") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        model = resolve_chat_model("openai:test-model", timeout=5.0, max_retries=0)
        result = factory(catalogue, model=model).compile().invoke({"question": "Which bookshelf holds the most books?"})
        nodes = [prompt_node(r.prompt_text) for r in server.chat_requests]
    assert "Children's Literature" in [a["answer"] for a in result["answers"]]
    assert "answer" not in nodes, nodes


MINTS = Path(__file__).parent / "fixtures" / "realkgs" / "mints.nt"


@pytest.mark.parametrize(("question", "read"), [
    ("Which is the northernmost mint?", WholeGraphQuestion(MAX, "mint", attribute=whole_graph.LATITUDE)),
    ("Which mint is the westernmost?", WholeGraphQuestion(MIN, "mint", attribute=whole_graph.LONGITUDE)),
    ("What is the southernmost region?", WholeGraphQuestion(MIN, "region", attribute=whole_graph.LATITUDE)),
])
def test_a_compass_superlative_is_read_as_a_latitude_or_longitude(question, read):
    assert whole_graph_question(question) == read


@pytest.mark.parametrize(("question", "expected", "value"), [
    ("Which is the northernmost mint?", "Camulodunum", "51.8899"),
    ("Which is the southernmost mint?", "Ebora", "38.5708"),
    ("Which is the easternmost mint?", "Lugdunum", "4.81944"),
    ("Which is the westernmost mint?", "Ebora", "-7.90961"),
])
def test_a_compass_superlative_compares_the_coordinate_one_step_from_the_class_members(question, expected, value):
    """Nomisma's mints hold no latitude: their ``geo:location`` does (``geo:lat``, ``geo:long``); the mints are
    compared by it and answered with the compared values as evidence."""
    answers, what = answer_over_whole_graph(open_kg(MINTS), question)
    assert [a["answer"] for a in answers] == [expected]
    assert answers[0]["compared"][0] == {"answer": expected, "value": value}
    assert len(answers[0]["compared"]) == 4 and "through" in what


def test_a_coordinate_is_named_by_the_relation_s_own_name():
    assert whole_graph.names_coordinate("lat", whole_graph.LATITUDE)
    assert whole_graph.names_coordinate("has latitude", whole_graph.LATITUDE)
    assert whole_graph.names_coordinate("long", whole_graph.LONGITUDE)
    assert not whole_graph.names_coordinate("latest date", whole_graph.LATITUDE)
    assert not whole_graph.names_coordinate("downloads", whole_graph.LONGITUDE)


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph])
def test_every_method_answers_a_compass_superlative(factory):
    result = factory(open_kg(MINTS)).compile().invoke({"question": "Which is the northernmost mint?"})
    assert [a["answer"] for a in result["answers"]] == ["Camulodunum"] and result["stop_reason"] == "answered"


@pytest.mark.parametrize(("question", "read"), [
    ("How many ebooks are in French?", WholeGraphQuestion(whole_graph.COUNT, counted_noun="ebooks", language="fr")),
    ("How many books are written in Ancient Greek?", WholeGraphQuestion(whole_graph.COUNT, counted_noun="books",
                                                                        language="grc")),
])
def test_a_count_of_the_things_in_a_language_is_read_by_its_grammar(question, read):
    assert whole_graph_question(question) == read


def test_a_count_in_a_language_counts_the_things_reaching_a_node_named_by_its_code(catalogue):
    """The catalogue writes a book's language as a blank node whose rdf:value is "en": "English" is read as its code."""
    [answer], what = answer_over_whole_graph(catalogue, "How many ebooks are in English?")
    assert answer["answer"] == "10" and "Treasure Island" in answer["counted"]
    assert "language" in what and "written en" in what
    assert answer_over_whole_graph(catalogue, "How many ebooks are in French?") is None  # none is: nothing counted


# In the Sequence Ontology's form (realkgs/sequence-ontology/so.owl): classes restricted on object properties, two of
# them also transitive
RESTRICTIONS = """@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix so: <http://example.org/so#> .
so:has_quality a owl:ObjectProperty ; rdfs:label "has_quality" .
so:part_of a owl:ObjectProperty, owl:TransitiveProperty ; rdfs:label "part_of" .
so:derives_from a owl:ObjectProperty, owl:TransitiveProperty ; rdfs:label "derives_from" .
so:a a owl:Class ; rdfs:label "circular" .
so:b a owl:Class ; rdfs:label "linear" .
so:c a owl:Class ; rdfs:label "circular_plasmid" ;
  rdfs:subClassOf [ a owl:Restriction ; owl:onProperty so:has_quality ; owl:someValuesFrom so:a ] ,
                  [ a owl:Restriction ; owl:onProperty so:part_of ; owl:someValuesFrom so:b ] .
so:d a owl:Class ; rdfs:label "linear_plasmid" ;
  rdfs:subClassOf [ a owl:Restriction ; owl:onProperty so:has_quality ; owl:someValuesFrom so:b ] .
so:e a owl:Class ; rdfs:label "circular_chromosome" ;
  rdfs:subClassOf [ a owl:Restriction ; owl:onProperty so:has_quality ; owl:someValuesFrom so:a ] ,
                  [ a owl:Restriction ; owl:onProperty so:derives_from ; owl:someValuesFrom so:d ] .
"""


@pytest.mark.parametrize(("question", "read"), [
    ("Which relation is used most often in class restrictions?", WholeGraphQuestion(MAX, "relation", "class restrictions")),
    ("What subject occurs least frequently among the books?", WholeGraphQuestion(MIN, "subject", "books")),
])
def test_most_often_is_read_as_a_count_per_answer(question, read):
    assert whole_graph_question(question) == read


def test_the_answers_are_restricted_only_to_a_class_their_noun_names(tmp_path):
    """"relation" is closest to the name TransitiveProperty (cosine 0.50) but names no class as a type noun does: the
    properties are not restricted to the transitive ones, and has_quality, on three restrictions, is the answer."""
    path = tmp_path / "restrictions.ttl"
    path.write_text(RESTRICTIONS, encoding="utf-8")
    answers, what = answer_over_whole_graph(open_kg(path), "Which relation is used most often in class restrictions?")
    assert [a["answer"] for a in answers] == ["has_quality"] and "onProperty" in what
    assert answers[0]["compared"][0] == {"answer": "has_quality", "value": "3"}
