"""SPARQL safety: escaping functions (property tests) and read-only enforcement."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib import Literal, URIRef
from rdflib.plugins.sparql.parser import parseQuery

from kg_agent.kg import ReadOnlyViolation, check_read_only, entity_iri, load_kg, sparql_iri, sparql_literal

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text biased towards what breaks escaping: quotes, backslashes, \u-like sequences, newlines, braces.
HOSTILE = st.text(alphabet=st.sampled_from(list('\\"\'\n\r\t\b\f{}<>#?;uU0123456789abcdefAF xé東🎬')), max_size=40)
ANY_TEXT = st.text(max_size=60)  # any code point except surrogates

_OX = ox.Store()


def rdflib_value(literal_sparql: str) -> Literal:
    """The literal as rdflib's SPARQL parser reads it in a triple pattern's object position."""
    parsed = parseQuery(f"SELECT * WHERE {{ ?s ?p {literal_sparql} }}")
    obj = parsed[1]["where"]["part"][0]["triples"][0][2]
    return Literal(str(obj["string"]), lang=obj["lang"] if "lang" in obj else None)


def oxigraph_value(literal_sparql: str) -> ox.Literal:
    [row] = list(_OX.query(f"SELECT ?x WHERE {{ BIND({literal_sparql} AS ?x) }}"))
    return row["x"]


@FAST
@given(st.one_of(ANY_TEXT, HOSTILE))
def test_sparql_literal_round_trips_through_rdflib_parser(text):
    value = rdflib_value(sparql_literal(text))
    assert str(value) == text and value.language is None


@FAST
@given(st.one_of(ANY_TEXT, HOSTILE))
def test_sparql_literal_round_trips_through_oxigraph(text):
    value = oxigraph_value(sparql_literal(text))
    assert value.value == text


@settings(max_examples=100, deadline=None)
@given(HOSTILE, st.sampled_from(["en", "de-CH", "zh-Hant-TW"]))
def test_sparql_literal_with_language(text, lang):
    value = rdflib_value(sparql_literal(text, lang=lang))
    assert str(value) == text and value.language.lower() == lang.lower()


def test_sparql_literal_known_cases():
    assert sparql_literal('say "hi"\n') == '"say \\"hi\\"\\n"'
    for text in ["\\u0022", "C:\\Users\\udemy", "\\U0001F600", "a\\\\u0041b", "\\u00411234x"]:
        assert str(rdflib_value(sparql_literal(text))) == text
        assert oxigraph_value(sparql_literal(text)).value == text
    with pytest.raises(ValueError):
        sparql_literal("x", lang="en us")
    with pytest.raises(ValueError):
        sparql_literal("x", lang='en"} DROP ALL')


FORBIDDEN_IRI_CHARS = list('<>"{}|^`\\') + [chr(c) for c in range(0x21)]  # incl. space, tab, newlines


@FAST
@given(st.text(max_size=30), st.sampled_from(FORBIDDEN_IRI_CHARS), st.text(max_size=30))
def test_sparql_iri_rejects_breaking_characters(before, bad, after):
    with pytest.raises(ValueError):
        sparql_iri("http://example.org/" + before + bad + after)


IRI_SAFE = st.text(
    alphabet=st.characters(blacklist_characters=FORBIDDEN_IRI_CHARS, blacklist_categories=["Cs"]), max_size=40
)


@FAST
@given(IRI_SAFE)
def test_sparql_iri_accepts_and_round_trips_safe_iris(tail):
    iri = "http://example.org/" + tail
    rendered = sparql_iri(iri)
    assert rendered == f"<{iri}>"
    parsed = parseQuery(f"SELECT * WHERE {{ ?s ?p {rendered} }}")
    # (rdflib's grammar only: Oxigraph also validates RFC 3987, e.g. refuses U+FFF0, which is not escaping)
    assert parsed[1]["where"]["part"][0]["triples"][0][2] == URIRef(iri)


def test_sparql_iri_rejects_empty_and_project_iris_pass():
    with pytest.raises(ValueError):
        sparql_iri("")
    assert sparql_iri(entity_iri('Tom "The Bomb" <O\'Neil> {x}')).startswith("<https://kg-agent.dev/entity/")


# ----------------------------------------------------------------- read-only enforcement
REFUSED = {
    "insert data": "INSERT DATA { <http://a/s> <http://a/p> <http://a/o> }",
    "delete where": "DELETE WHERE { ?s ?p ?o }",
    "delete/insert": "DELETE { ?s ?p ?o } INSERT { ?s ?p 1 } WHERE { ?s ?p ?o }",
    "load": "LOAD <http://example.org/evil.ttl>",
    "clear": "CLEAR ALL",
    "clear graph": "clear graph <http://a/g>",
    "drop": "DROP DEFAULT",
    "create": "CREATE GRAPH <http://a/g>",
    "copy/move/add": "ADD DEFAULT TO <http://a/g>",
    "service": "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
    "service silent lowercase": "select * where { service silent <http://x/sparql> { ?s ?p ?o } }",
    "service escaped": "SELECT * WHERE { SERVIC\\u0045 <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
    "update after comment": "SELECT * WHERE { ?s ?p ?o } # just a read\n; DROP ALL",
    "update on line after comment": "# SELECT only\nINSERT DATA { <http://a/s> <http://a/p> 1 }",
    "multi statement": "SELECT * WHERE { ?s ?p ?o } ;\nINSERT DATA { <http://a/s> <http://a/p> 1 }",
    "update after string": 'SELECT * WHERE { ?s ?p "a \\" } ;" } ; DELETE WHERE { ?s ?p ?o }',
    "update after long string": 'SELECT * WHERE { ?s ?p """x"y""" } ; CLEAR ALL',
    "escaped update": "\\u0049NSERT DATA { <http://a/s> <http://a/p> 1 }",
    "bad escape": 'SELECT * WHERE { ?s ?p "\\U00110000" }',
    "not sparql": "this is not a query",
}

ALLOWED = {
    "insert in string": 'SELECT ?s WHERE { ?s ?p "please insert data and drop all" }',
    "insert in long string": "SELECT ?s WHERE { ?s ?p '''DELETE WHERE { ?s ?p ?o }''' }",
    "keywords in comment": "# insert data, drop all, service\nSELECT ?s WHERE { ?s ?p ?o }",
    "keywords in iri": "SELECT ?s WHERE { ?s <http://example.org/insert/drop> ?o }",
    "variable named insert": "SELECT ?insert WHERE { ?insert ?p ?o }",
    "ask": "ASK { ?s ?p ?o }",
    "construct": "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } LIMIT 1",
    "describe": "DESCRIBE <http://example.org/x>",
}


@pytest.mark.parametrize("query", list(REFUSED.values()), ids=list(REFUSED))
def test_refused(query):
    with pytest.raises(ReadOnlyViolation):
        check_read_only(query)


@pytest.mark.parametrize("query", list(ALLOWED.values()), ids=list(ALLOWED))
def test_allowed(query):
    check_read_only(query)


@pytest.fixture()
def kg(fixtures_dir: Path):
    return load_kg(fixtures_dir / "kg" / "metaqa_slice.txt")


@pytest.mark.parametrize("query", [REFUSED[k] for k in ("insert data", "delete where", "clear", "drop",
                                                         "update after comment", "multi statement")])
def test_kg_query_refuses_before_reaching_the_store(kg, query):
    before = len(kg)
    with pytest.raises(ReadOnlyViolation):
        kg.query(query)
    assert len(kg) == before


def test_kg_query_runs_reads_with_bound_terms(kg):
    rows = list(kg.query(
        "SELECT ?d WHERE { ?f ?p ?d }",
        bindings={"f": entity_iri("Combat Shock"), "p": URIRef("https://kg-agent.dev/relation/directed_by")},
    ))
    assert [str(r[0]) for r in rows] == [str(entity_iri("Buddy Giovinazzo"))]
    found = list(kg.query('SELECT ?s WHERE { ?s ?p "please insert data" }'))
    assert found == []


def test_read_only_check_holds_in_many_threads_at_once():
    """rdflib's SPARQL grammar is not thread-safe: parsed from 8 threads at once, sound queries were refused at
    random ("missing 1 required positional argument"), and RoG's answer-type profile, sampled by such a query, was
    left empty for the process (the ToG/RoG concurrency tests' intermittent failures)."""
    from concurrent.futures import ThreadPoolExecutor

    from kg_agent.kg.sparql import check_read_only

    queries = [f"SELECT ?r ?x WHERE {{ {{ {{ SELECT DISTINCT ?x WHERE {{ ?y <http://e/p{i}> ?x }} LIMIT 8 }} BIND({i} AS ?r) }}"
               f" UNION {{ {{ SELECT DISTINCT ?x WHERE {{ ?x <http://e/q{i}> ?y }} LIMIT 8 }} BIND({i + 1} AS ?r) }} }}"
               for i in range(400)]

    def check(query: str) -> bool:
        check_read_only(query)
        return True

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(check, queries))
