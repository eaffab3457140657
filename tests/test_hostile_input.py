"""Bad input cannot change a query, crash a parser or write to the knowledge graph (property-based, hypothesis).

* Every query builder of the SPARQL backend (an entity's neighbours and relations, labels, batched
  prefetches, bound raw queries) is fed ids and values with quotes, angle brackets, braces, newlines,
  unicode and 100 kB strings, against a real SPARQL endpoint (tests/sparql_server.py, Oxigraph): nothing
  but a clean error (``ValueError`` / ``KGError``) or an answer, and every query that reaches the endpoint
  parses with rdflib's SPARQL parser, is read-only, and binds each term as exactly one IRI or literal —
  the one given.
* Label search and entity linking take the same hostile text as questions (no crash, only KG entities, fast
  on 100 kB).
* The raw-SPARQL path (``kg.query``) refuses updates and ``SERVICE`` written in any case, with any
  whitespace or comments between the words, and with ``\\u`` escapes; a string literal saying "DROP ALL"
  is only a string.
* The LLM reply parsers (``kg_agent.llm.parsing`` and the deciders' own) return an empty result or a value
  on garbage, never raise; whole method graphs run on a model that answers garbage.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rdflib import Literal, URIRef
from rdflib.plugins.sparql.algebra import translateQuery, traverse
from rdflib.plugins.sparql.parser import parseQuery
from rdflib.plugins.sparql.parserutils import CompValue

from kg_agent.kg import KGError, ReadOnlyViolation, check_read_only, link_entities, open_sparql, search_entities, sparql_literal
from kg_agent.kg.terms import ENTITY_NS, key_term
from kg_agent.llm import ScriptedChatModel, parsing

try:
    from sparql_server import SparqlServer, store_from_graph
except ImportError:  # tests/ imported as a package
    from tests.sparql_server import SparqlServer, store_from_graph


def cases(n: int):
    return settings(max_examples=n, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])


# ----------------------------------------------------------------------------------------------- strategies
SPECIAL = list('\\"\'\n\r\t\x0b\x0c {}<>[]()#?$;.,:^`|@=!~*+&%-_/') + ["\x00", "\u2028", "\u202e", "\ufeff", "\u00a0",
                                                                       "é", "東", "🎬", "\U0010ffff", "u", "U", "0", "A", "f"]
INJECTIONS = [
    '"} ; DROP ALL ; #', "'> } ; CLEAR DEFAULT #", "> } SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } #",
    '" . ?s ?p ?o } INSERT DATA { <http://x/s> <http://x/p> "pwned" } #', "\\u0022 } DROP ALL #", "\\\"",
    "?n } UNION { ?s ?p ?o", "<http://evil/>", "}}}}{{{{", "\"\"\"", "'''", "# comment\n}", "\\U0001F3AC",
    "%3E%20%7D", "&#x3E;", "\r\n}\r\n",
]
hostile_text = st.one_of(
    st.text(alphabet=st.sampled_from(SPECIAL), max_size=40),
    st.text(max_size=40),  # any code point but surrogates
    st.lists(st.sampled_from(INJECTIONS) | st.text(max_size=5), min_size=1, max_size=6).map("".join),
)
huge_text = st.tuples(st.text(alphabet=st.sampled_from(SPECIAL + list("abc xyz")), min_size=1, max_size=12),
                      st.integers(min_value=5_000, max_value=12_000)).map(lambda t: (t[0] * t[1])[:100_000])
any_text = st.one_of(hostile_text, hostile_text, hostile_text, huge_text)
hostile_ids = st.one_of(
    hostile_text,
    hostile_text.map(lambda t: ENTITY_NS + t),
    hostile_text.map(lambda t: '"' + t),
    hostile_text.map(lambda t: "_:" + t),
    st.sampled_from(["https://kg-agent.dev/entity/Tom%20Hanks", "https://kg-agent.dev/entity/Big"]),
)


# ----------------------------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def endpoint(kg):
    with SparqlServer(store_from_graph(kg.graph)) as server:
        yield server


@pytest.fixture(scope="module")
def remote(endpoint):
    return open_sparql(endpoint.url, timeout=30.0, cache_size=64, batch_size=7)


def values_terms(query: str) -> list:
    """Every term a query binds in ``VALUES`` (rdflib's parser and algebra); fails when it does not parse."""
    algebra = translateQuery(parseQuery(query)).algebra
    terms: list = []

    def visit(node):
        if isinstance(node, CompValue) and node.name == "values":
            terms.extend(value for row in node.res for value in row.values())

    traverse(algebra, visitPost=visit)
    return terms


def expected_term(entity_id: str):
    """The term an id stands for, or None when it cannot be put into a query (a clean error is expected)."""
    try:
        term = key_term(entity_id)
        if isinstance(term, URIRef):
            from kg_agent.kg import sparql_iri

            sparql_iri(term)
        return term
    except ValueError:
        return None


def assert_safe_queries(queries: list[str], allowed_terms: set) -> None:
    for query in queries:
        check_read_only(query)  # a single read query, no SERVICE
        for term in values_terms(query):
            assert term in allowed_terms, (term, query[:300])


# ----------------------------------------------------------------------------------------------- SPARQL backend
@cases(300)
@given(ids=st.lists(hostile_ids, min_size=1, max_size=4), relation=hostile_text)
def test_remote_query_builders_bind_exactly_the_given_terms(remote, endpoint, ids, relation):
    remote.relation_names()  # the relations' names: asked once per client, from the endpoint's own predicates
    before = len(endpoint.queries)
    triples_before = len(endpoint.store)
    calls: list[Callable] = [
        lambda i: remote.neighbors(i, relation), remote.relations, lambda i: remote.label(i, default=None),
        remote.has_entity, remote.edges,
    ]
    for entity_id in ids:
        for call in calls:
            try:
                call(entity_id)
            except (ValueError, KGError):
                pass
    for batch in (remote.prefetch, remote.prefetch_labels):
        try:
            batch(ids)
        except (ValueError, KGError):
            pass
    allowed = {expected_term(i) for i in ids} - {None}
    allowed |= {URIRef(p) for p in remote.naming.name_predicates}  # the label and alias predicates asked for
    assert_safe_queries(endpoint.queries[before:], allowed)
    assert len(endpoint.store) == triples_before


@cases(40)
@given(entity_id=huge_text.map(lambda t: ENTITY_NS + re.sub(r'[\x00-\x20<>"{}|^`\\]', "_", t)))
def test_remote_builders_with_100kb_ids(remote, endpoint, entity_id):
    before = len(endpoint.queries)
    try:
        assert remote.neighbors(entity_id, "directed_by") == []
    except KGError as exc:  # Oxigraph checks RFC 3987 (refuses e.g. "[" in a path): a clean error naming the endpoint
        assert remote.name in str(exc) and "400" in str(exc)
    queries = endpoint.queries[before:]
    assert queries and all(len(q) > 5_000 for q in queries)  # POSTed whole, not cut
    assert_safe_queries(queries, {URIRef(entity_id)})


@cases(200)
@given(value=any_text, lang=st.sampled_from([None, "en", "de-CH"]))
def test_remote_bound_queries_bind_one_literal(remote, endpoint, value, lang):
    literal = Literal(value, lang=lang)
    before = len(endpoint.queries)
    try:
        rows = list(remote.query("SELECT ?s WHERE { ?s ?p ?o }", bindings={"o": literal}))
    except (ValueError, KGError) as exc:
        pytest.fail(f"a literal could not be bound: {exc}")
    [query] = endpoint.queries[before:]
    check_read_only(query)
    assert values_terms(query) == [literal]
    assert all(isinstance(row[0], URIRef) for row in rows)


@cases(300)
@given(text=any_text)
def test_label_search_and_lookups_on_hostile_text(kg, text):
    for found in (kg.find_entities(text), search_entities(kg, text, limit=5)):
        assert all(kg.has_entity(e.id) for e in found)
    assert kg.neighbors(text, "directed_by") == [] or kg.has_entity(text)
    assert kg.relations(text) == [] or kg.has_entity(text)


@cases(300)
@given(question=any_text)
def test_entity_linking_on_hostile_questions(kg, question):
    result = link_entities(kg, question)
    assert all(kg.has_entity(e.id) for e in result.entities)
    assert result.found or result.message


def test_linking_work_is_bounded_on_long_questions(kg):
    from kg_agent.kg.linking import MAX_BRACKETS, MAX_FUZZY_TOKENS

    # the fuzzy pass (typos) reads the start of a question only: a typo after MAX_FUZZY_TOKENS words is not looked for
    assert [e.label for e in link_entities(kg, "films with Tom Hanx").entities][0] == "Tom Hanks"
    late_typo = "zzz " * MAX_FUZZY_TOKENS + "films with Tom Hanx " + "zzz " * 25_000
    assert not link_entities(kg, late_typo).found
    # exact mentions are found anywhere, and only the first MAX_BRACKETS bracketed mentions are looked up
    assert "Tom Hanks" in [e.label for e in link_entities(kg, "zzz " * 25_000 + "Tom Hanks").entities]
    many = "".join(f"[x{i}] " for i in range(MAX_BRACKETS)) + "[Big] " + "[y] " * 20_000
    assert not link_entities(kg, many).found


@cases(100)
@given(prefix=hostile_text, suffix=hostile_text)
def test_linking_finds_the_bracketed_entity_whatever_surrounds_it(kg, prefix, suffix):
    assume("[" not in prefix + suffix and "]" not in prefix + suffix)
    result = link_entities(kg, f"{prefix} [Tom Hanks] {suffix}")
    assert "Tom Hanks" in [e.label for e in result.entities]


# ----------------------------------------------------------------------------------------------- raw SPARQL
UPDATES = [
    "INSERT DATA { <http://x/s> <http://x/p> 1 }",
    "DELETE DATA { <http://x/s> <http://x/p> 1 }",
    "DELETE WHERE { ?s ?p ?o }",
    "DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
    "INSERT { ?s <http://x/p> 1 } WHERE { ?s ?p ?o }",
    "WITH <http://x/g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
    "LOAD <http://127.0.0.1:9/evil.ttl>",
    "LOAD SILENT <http://127.0.0.1:9/evil.ttl> INTO GRAPH <http://x/g>",
    "CLEAR ALL", "CLEAR DEFAULT", "CLEAR GRAPH <http://x/g>", "DROP ALL", "DROP SILENT GRAPH <http://x/g>",
    "CREATE GRAPH <http://x/g>", "ADD DEFAULT TO <http://x/g>", "MOVE DEFAULT TO <http://x/g>",
    "COPY <http://x/g> TO DEFAULT",
]
SERVICES = [
    "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
    "SELECT * WHERE { SERVICE SILENT <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
    "SELECT * WHERE { ?s ?p ?o OPTIONAL { SERVICE <http://127.0.0.1:9/sparql> { ?s ?q ?v } } }",
    "SELECT * WHERE { { ?s ?p ?o } UNION { SERVICE ?endpoint { ?s ?p ?o } } }",
    "SELECT * WHERE { { SELECT ?s WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } } } }",
    "ASK { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
    "CONSTRUCT { ?s ?p ?o } WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
]
KEYWORDS = re.compile(r"\b(INSERT|DELETE|DATA|WHERE|WITH|LOAD|SILENT|INTO|GRAPH|CLEAR|ALL|DEFAULT|DROP|CREATE|ADD|MOVE|COPY|TO|"
                      r"SERVICE|SELECT|ASK|CONSTRUCT|OPTIONAL|UNION)\b")
GAPS = [" ", "\t", "\n", "\r\n", "  ", " # a comment\n", "#\n", "\n#SELECT * WHERE { ?s ?p ?o }\n"]


@st.composite
def disguised(draw, templates: list[str]) -> str:
    """A refused query with its keywords in random case or \\u-escaped, random whitespace and comments between
    the words, optionally behind a PREFIX or after a harmless SELECT and a ';'."""
    query = draw(st.sampled_from(templates))

    def letter(ch: str) -> str:
        form = draw(st.sampled_from(["lower", "upper", "u", "U"]))
        if form == "u":
            return f"\\u{ord(ch):04{draw(st.sampled_from(['X', 'x']))}}"
        if form == "U":
            return f"\\U{ord(ch):08X}"
        return ch.lower() if form == "lower" else ch.upper()

    query = KEYWORDS.sub(lambda m: "".join(letter(c) for c in m.group(0)), query)
    query = re.sub(r" ", lambda m: draw(st.sampled_from(GAPS)), query)
    lead = draw(st.sampled_from(["", "PREFIX ex: <http://example.org/>\n", "BASE <http://example.org/> ",
                                 "SELECT * WHERE { ?s ?p ?o } ;\n", "# just a read\n"]))
    return lead + query


@cases(700)
@given(query=disguised(UPDATES))
def test_raw_sparql_refuses_disguised_updates(kg, query):
    size = len(kg)
    with pytest.raises(ReadOnlyViolation):
        kg.query(query)
    assert len(kg) == size


@cases(500)
@given(query=disguised(SERVICES))
def test_raw_sparql_refuses_disguised_service(kg, query):
    with pytest.raises(ReadOnlyViolation):
        kg.query(query)


@cases(100)
@given(query=st.one_of(disguised(UPDATES), disguised(SERVICES)))
def test_refused_queries_never_reach_the_endpoint(remote, endpoint, query):
    before = len(endpoint.queries)
    with pytest.raises(ReadOnlyViolation):
        remote.query(query)
    assert len(endpoint.queries) == before


@cases(500)
@given(value=any_text)
def test_keywords_inside_literals_are_only_strings(kg, value):
    query = f"SELECT ?s WHERE {{ ?s ?p {sparql_literal(value)} }}"
    check_read_only(query)
    assert list(kg.query(query)) == list(kg.query("SELECT ?s WHERE { ?s ?p ?o }", bindings={"o": Literal(value)}))


def test_escaped_hash_in_a_prefixed_name_does_not_hide_service(kg):
    # '#' after a PN_LOCAL_ESC backslash is part of a name for some parsers, a comment for others
    query = "PREFIX ex: <http://example.org/>\nSELECT * WHERE { ?s ex:a\\#b ?o . SERVICE <http://127.0.0.1:9/sparql> { ?x ?y ?z } }"
    with pytest.raises(ReadOnlyViolation):
        kg.query(query)


# ----------------------------------------------------------------------------------------------- LLM reply parsers
from kg_agent.tools.tog.answer import parse_tog_answers  # noqa: E402
from kg_agent.tools.tog.instructions import parse_instructions  # noqa: E402
from kg_agent.tools.tog.prune_entities import parse_score_list  # noqa: E402
from kg_agent.tools.tog2.clue_query import _parse_clue_lines  # noqa: E402
from kg_agent.tools.tog2.examine import _parse_examine, find_dates  # noqa: E402
from kg_agent.tools.tog2.prune_relations import _sections  # noqa: E402

structured_garbage = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), hostile_text),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(hostile_text, children, max_size=4)),
    max_leaves=12,
).map(repr)
replies = st.one_of(
    any_text,
    structured_garbage,
    st.lists(st.sampled_from(["<PATH>", "</PATH>", "<SEP>", "{", "}", "[", "]", "(Score:", ")", "Score: 0.",
                              "1.", "\n", "```json", "```", "Yes", "No", '"', "answer is", ":", ",", "->", "^",
                              "0.5", "1e308", "-1", "nan", "%", "/0", "{{", "}}", "\\"]) | hostile_text,
             max_size=30).map("".join),
    st.integers(min_value=1, max_value=3000).map(lambda n: "[" * n + "]" * (n // 2)),
    st.integers(min_value=1, max_value=3000).map(lambda n: '{"a": ' * n),
    st.integers(min_value=1, max_value=3000).map(lambda n: "*" * n),  # markdown bold marks run wild
)
candidate_lists = st.lists(st.one_of(hostile_text, st.sampled_from(["directed_by", "^starred_actors", "film.film.genre"])),
                           max_size=6)


@pytest.mark.parametrize("line", ["*" * 3000, "a" + "*" * 3000 + "b", "1*" * 1500, "* " * 1500 + "x", "- 1. " * 600])
def test_reply_line_parsers_read_runs_of_bullets_and_bold_marks_once(line):
    # The ToG-2 parsers' line patterns split such a run every way between bullets, bold marks and the name: 200
    # '*' took 1.4 s, 3000 would take hours (a garbage reply hung a CI run in test_tog2_on_garbage_replies)
    assert _sections(line, ["Forrest Gump", "a"]) == {}
    assert _parse_clue_lines(line) == {}
    assert _sections(line + ": directed_by", ["Forrest Gump"]) == {}
    assert _sections("** Forrest Gump **: directed_by", ["Forrest Gump"]) == {0: "\ndirected_by"}


@cases(800)
@given(reply=replies, candidates=candidate_lists)
def test_llm_parsers_never_raise(reply, candidates):
    paths = parsing.parse_relation_paths(reply)
    assert all(isinstance(p, list) and all(isinstance(r, str) and r for r in p) for p in paths)
    answers = parsing.parse_answer_list(reply)
    assert all(isinstance(a, str) and a for a in answers)
    scored = parsing.parse_scored_items(reply, candidates)
    assert all(name in candidates and score >= 0 for name, score in scored.items)
    if scored.items:
        assert abs(sum(score for _, score in scored.items) - 1.0) < 1e-6
    decision, braced = parsing.parse_yes_no(reply)
    assert decision in (True, False, None) and (braced is None or isinstance(braced, str))
    obj = parsing.parse_json_object(reply)
    assert obj is None or isinstance(obj, dict)


@cases(800)
@given(reply=replies, count=st.integers(min_value=0, max_value=5))
def test_decider_reply_parsers_never_raise(reply, count):
    assert all(isinstance(a, str) for a in parse_tog_answers(reply))
    scores = parse_score_list(reply, count)
    assert scores is None or len(scores) == count
    instructions = parse_instructions(reply, max(1, count))
    assert instructions is None or len(instructions[0]) <= max(1, count)
    assert isinstance(_parse_clue_lines(reply), dict)
    examined = _parse_examine(reply)
    assert examined is None or examined[0] in (True, False)
    assert isinstance(find_dates(reply), list)


def test_parsers_reject_non_text():
    for value in (None, 42, b"bytes", ["a"], {"answers": ["x"]}):
        assert parsing.parse_relation_paths(value) == []
        assert parsing.parse_answer_list(value) == []
        assert parsing.parse_yes_no(value) == (None, None)
        assert parsing.parse_json_object(value) is None
        assert parsing.parse_scored_items(value, ["a"]).items == []


# ----------------------------------------------------------------------------------------------- whole graphs
def garbage_model(data) -> ScriptedChatModel:
    """A model answering garbage drawn before the run: ToG asks calls concurrently, so drawing in the calls would make
    hypothesis see a different number of draws from one run of the same example to the next (a flaky strategy)."""
    script = itertools.cycle(data.draw(st.lists(replies, min_size=1, max_size=12)))
    lock = threading.Lock()

    def reply(prompt: str) -> str:
        with lock:
            return next(script)

    return ScriptedChatModel(responder=reply)


STOP_REASONS = {"answered", "no_answer", "no_question", "no_topic_entity", "verified", "max_depth", "no_relations", "no_candidates",
                "budget", "abstained"}


def assert_says_what_it_knows(result: dict, *, reasons: tuple[str, ...] = ("answer:",)) -> None:
    """A result after garbage replies: a known stop reason; every answer either supported by the paths or chunks it
    cites (their text names it) or flagged ``grounded: False`` with a warning saying so; every model failure or
    fallback named in ``warnings``."""
    assert result["stop_reason"] in STOP_REASONS, result["stop_reason"]
    warnings = result.get("warnings") or []
    for answer in result["answers"]:
        assert isinstance(answer["answer"], str) and answer["answer"].strip()
        cited = [p["text"] for p in answer.get("paths") or []] + [c["text"] for c in answer.get("chunks") or []]
        if answer["grounded"]:
            assert any(answer["answer"].casefold() in text.casefold() for text in cited), (answer, cited)
        else:
            assert any(w.startswith(reasons) for w in warnings), (answer, warnings)
    usage = result.get("usage") or {}
    failed_or_unused = int(usage.get("errors") or 0)
    if failed_or_unused:
        assert any("the model call failed" in w or "fell back" in w for w in warnings), warnings


@cases(60)
@given(data=st.data(), question=st.one_of(hostile_text, hostile_text.map(lambda t: t + " [Tom Hanks]")))
def test_rog_on_hostile_questions_and_garbage_replies(kg, data, question):
    from kg_agent.graphs import create_rog_graph

    model = garbage_model(data)
    result = create_rog_graph(kg, model=model).compile().invoke({"question": question})
    assert_says_what_it_knows(result)
    offline = create_rog_graph(kg).compile().invoke({"question": question})
    assert_says_what_it_knows(offline)
    assert all(a["grounded"] and a["paths"] for a in offline["answers"])  # offline answers are path ends
    if "[Tom Hanks]" not in question and not offline["topic_entities"]:
        assert offline["stop_reason"] in {"no_question", "no_topic_entity", "no_answer"} and not offline["answers"]


@cases(25)
@given(data=st.data())
def test_tog_and_tog_i_on_garbage_replies(kg, data):
    from kg_agent.graphs import create_tog_graph, create_tog_i_graph

    for factory in (create_tog_graph, create_tog_i_graph):
        model = garbage_model(data)
        result = factory(kg, model=model, width=2, depth=2).compile().invoke(
            {"question": "who starred in films directed by [Robert Zemeckis]"})
        assert_says_what_it_knows(result)
        assert [e["label"] for e in result["topic_entities"]] == ["Robert Zemeckis"]


@cases(8)
@given(data=st.data())
def test_tog2_on_garbage_replies(kg, data):
    from kg_agent.graphs import create_tog2_graph

    model = garbage_model(data)
    result = create_tog2_graph(kg, model=model, depth=2).compile().invoke({"question": "who directed [Forrest Gump]"})
    assert_says_what_it_knows(result, reasons=("examine:", "answer:"))
    assert [e["label"] for e in result["topic_entities"]] == ["Forrest Gump"]
