"""Questions about a thing's names as the KG writes them (kg_agent/tools/shared/name_questions.py): "what is X
called in German", "X's other names", "in how many languages is X named"; answered from the label and alias
literals with their language tags, on every backend, through every method; abstained, saying why, when the KG has no
such name. Fixture cut from Nomisma (tests/fixtures/realkgs/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph, open_sparql
from kg_agent.tools.shared.language_names import language_tag, tag_language
from kg_agent.tools.shared.name_questions import (
    IN_LANGUAGE,
    LANGUAGE_COUNT,
    OTHER_NAMES,
    OTHER_NAMES_COUNT,
    NameQuestion,
    name_question,
)
from tests.sparql_server import SparqlServer, store_from_file

NAMES = Path(__file__).parent / "fixtures" / "realkgs" / "names.nt"
SKOS = "http://www.w3.org/2004/02/skos/core#"
METHODS = [create_rog_graph, create_tog_graph, create_tog_i_graph]


@pytest.mark.parametrize(("name", "tag"), [
    ("German", "de"), ("german", "de"), ("Deutsch", "de"), ("español", "es"), ("Ancient Greek", "grc"),
    ("Latin", "la"), ("Norwegian Bokmål", "nb"),
    ("Roman", None), ("Jupiter", None), ("", None),  # "Roman" names Romany in some other language only
])
def test_a_language_is_known_by_its_english_name_or_its_own(name, tag):
    assert language_tag(name) == tag


def test_a_kgs_tags_are_read_in_any_form():
    assert [tag_language(t) for t in ("de", "de-AT", "DE", "ger", "deu", "", None)] == ["de"] * 5 + ["", ""]


@pytest.mark.parametrize(("question", "read"), [
    ("What is the denarius called in Spanish?", NameQuestion(IN_LANGUAGE, "es", "Spanish")),
    ("What is Jupiter called in German?", NameQuestion(IN_LANGUAGE, "de", "German")),
    ("What is the German name of Jupiter?", NameQuestion(IN_LANGUAGE, "de", "German")),
    ("How do you say denarius in Ancient Greek?", NameQuestion(IN_LANGUAGE, "grc", "Ancient Greek")),
    ("What is the Latin word for Jupiter?", NameQuestion(IN_LANGUAGE, "la", "Latin")),
    ("By what other name is Messalina known?", NameQuestion(OTHER_NAMES)),
    ("What other names is Mark Twain known by?", NameQuestion(OTHER_NAMES)),
    ("What are the aliases of Messalina in Latin?", NameQuestion(OTHER_NAMES, "la", "Latin")),
    ("In how many languages is Jupiter named?", NameQuestion(LANGUAGE_COUNT)),
    ("How many other names does Messalina have?", NameQuestion(OTHER_NAMES_COUNT)),
])
def test_the_question_is_read_by_its_grammar(question, read):
    assert name_question(question) == read


@pytest.mark.parametrize("question", [
    "Which ebooks are in French?", "How many ebooks are in French?", "How many languages are spoken in Gaul?",
    "What is the Roman name of Zeus?", "Who wrote Moby Dick?", "In which language is the ebook Moby Dick?",
    "What is the name of the mint?", "what is the name of the mint",  # "The" is a language of Laos: not here
    "What are the synonyms of the parent term of miRNA?", "What is the German name of the father of Jupiter?",
    "Which terms have the most exact synonyms?",  # names of a thing reached through another; a superlative
])
def test_other_questions_are_not_about_names(question):
    assert name_question(question) is None


def _on_backend(backend: str, path: Path, tmp_path_factory):
    """The KG file ``path`` opened on ``backend`` (memory, an Oxigraph store, a SPARQL endpoint), closed after."""
    server = None
    if backend == "memory":
        graph = open_kg(path)
    elif backend == "oxigraph":
        graph = open_oxigraph(build_oxigraph(path, tmp_path_factory.mktemp(path.stem) / "store"))
    else:
        server = SparqlServer(store_from_file(path))
        server.__enter__()
        graph = open_sparql(server.url)
    yield graph
    graph.close()
    if server is not None:
        server.__exit__(None, None, None)


@pytest.fixture(scope="module", params=["memory", "oxigraph", "sparql"])
def kg(request, tmp_path_factory):
    yield from _on_backend(request.param, NAMES, tmp_path_factory)


def _ask(kg, factory, question):
    return factory(kg).compile().invoke({"question": question})


@pytest.mark.parametrize("factory", METHODS)
def test_a_name_in_a_language_is_its_label_in_that_language_with_its_evidence(kg, factory):
    result = _ask(kg, factory, "What is the denarius called in Spanish?")
    assert [a["answer"] for a in result["answers"]] == ["Denario"] and result["stop_reason"] == "answered"
    [answer] = result["answers"]
    [step] = answer["paths"][0]["steps"]
    assert answer["grounded"] and step["head"]["id"] == "http://nomisma.org/id/denarius"  # not the nameless match
    assert step["predicate"] == SKOS + "prefLabel" and step["language"] == "es"
    assert [a["answer"] for a in _ask(kg, factory, "What is the German name of Jupiter?")["answers"]] == ["Jupiter"]


@pytest.mark.parametrize("factory", METHODS)
def test_other_names_are_the_aliases(kg, factory):
    result = _ask(kg, factory, "By what other name is Messalina known?")
    assert [a["answer"] for a in result["answers"]] == ["Valeria Messalina"]
    assert result["answers"][0]["paths"][0]["steps"][0]["predicate"] == SKOS + "altLabel"


@pytest.mark.parametrize("factory", METHODS)
def test_how_many_languages_counts_the_language_tags_of_the_labels(kg, factory):
    [answer] = _ask(kg, factory, "In how many languages is Jupiter named?")["answers"]
    assert answer["answer"] == "5" and answer["counted"] == ["de", "en", "es", "fr", "la"]


@pytest.mark.parametrize("factory", METHODS)
def test_how_many_other_names_counts_the_aliases(kg, factory):
    [answer] = _ask(kg, factory, "How many other names does Messalina have?")["answers"]
    assert answer["answer"] == "1" and answer["counted"] == ["Valeria Messalina"]


@pytest.mark.parametrize("factory", METHODS)
def test_no_name_in_the_asked_language_abstains_saying_so(kg, factory):
    result = _ask(kg, factory, "What is Messalina called in Italian?")
    assert result["answers"] == [] and result["stop_reason"] == "abstained"
    assert any("the KG has no Italian name for Messalina" in w for w in result["warnings"])


@pytest.mark.parametrize("factory", METHODS)
def test_with_a_model_the_names_found_are_its_evidence(factory, monkeypatch):
    """The answerer's model is asked with the names found as its reasoning paths, and its answer is checked against
    them (a real HTTP server); a count is computed, the model not asked to count."""
    from kg_agent.llm import resolve_chat_model
    from kg_agent.tools.prompts import prompt_node
    from tests.llm_responders import well_behaved
    from tests.openai_server import OpenAICompatibleServer

    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    kg = open_kg(NAMES)
    with OpenAICompatibleServer(responder=well_behaved("Denario", "prefLabel"), api_key="sk-test") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        model = resolve_chat_model("openai:test-model", timeout=5.0, max_retries=0)
        app = factory(kg, model=model).compile()
        result = app.invoke({"question": "What is the denarius called in Spanish?"})
        asked = [r.prompt_text for r in server.chat_requests if prompt_node(r.prompt_text) == "answer"]
        before = len(server.chat_requests)
        counted = app.invoke({"question": "In how many languages is Jupiter named?"})
        counting = [r.prompt_text for r in server.chat_requests[before:] if prompt_node(r.prompt_text) == "answer"]
    assert [a["answer"] for a in result["answers"]] == ["Denario"] and result["answers"][0]["grounded"]
    assert asked and "Denario" in asked[-1] and "prefLabel" in asked[-1]
    assert any("the model answered from them" in w for w in result["warnings"])
    assert [a["answer"] for a in counted["answers"]] == ["5"] and not counting


# ------------------------------------------------------------------ descriptions asked for by their predicate's name
ONTOLOGY = Path(__file__).parent / "fixtures" / "realkgs" / "ontology.nt"


@pytest.fixture(scope="module", params=["memory", "oxigraph", "sparql"])
def ontology(request, tmp_path_factory):
    yield from _on_backend(request.param, ONTOLOGY, tmp_path_factory)


@pytest.mark.parametrize("factory", METHODS)
def test_a_description_asked_for_by_its_predicates_name_is_read_from_the_thing(ontology, factory):
    """``rdfs:comment`` is a description (never walked); "the comment on [X]" asks for it by its name."""
    for question in ("What is the comment on the term gene?", "What is gene's comment?"):
        result = _ask(ontology, factory, question)
        [answer] = result["answers"]
        assert answer["answer"].startswith("This term is mapped to MGED.") and result["stop_reason"] == "answered"
        [step] = answer["paths"][0]["steps"]
        assert step["head"]["id"] == "http://purl.obolibrary.org/obo/SO_0000704"
        assert step["predicate"] == "http://www.w3.org/2000/01/rdf-schema#comment"


def test_a_description_word_that_is_not_the_noun_asked_for_is_no_description_question():
    from kg_agent.tools.shared.name_questions import description_asked
    kg = open_kg(ONTOLOGY)
    assert description_asked(kg, "What is the comment on gene?") == "http://www.w3.org/2000/01/rdf-schema#comment"
    for question in ("Which references support the comment on gene?", "What is the comment on the parent of gene?",
                     "What is the parent term of gene?", "Who commented on gene?"):
        assert description_asked(kg, question) is None, question
