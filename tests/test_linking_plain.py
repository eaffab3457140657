"""Linking plain questions (no brackets, issue 27): which n-gram names the topic entity, and which entity it is.

``tests/fixtures/kg/metaqa_plain_linking.txt`` is cut from MetaQA's ``kb.txt`` (see the README there): films whose
titles are common words (Philadelphia, Secretary, Primary, Hush, Hush!, Her) and tags spelt like relation words
("actors", "writer") or like a title ("philadelphia").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import entity_iri, kg_from_triples, link_entities, load_kg

E = lambda name: str(entity_iri(name))  # noqa: E731


@pytest.fixture(scope="module")
def kg(fixtures_dir: Path):
    return load_kg(fixtures_dir / "kg" / "metaqa_plain_linking.txt")


def ids(result) -> list[str]:
    return [e.id for e in result.entities]


def test_a_word_naming_a_relation_is_not_the_topic(kg):
    # the tags "actors" and "writer" are entities, but the question uses the words for starred_actors / written_by
    assert ids(link_entities(kg, "who are the actors in Philadelphia")) == [E("Philadelphia")]
    assert ids(link_entities(kg, "who is the writer of the film Secretary")) == [E("Secretary")]
    assert ids(link_entities(kg, "who's the writer of Her")) == [E("Her")]


def test_a_relation_word_still_links_when_nothing_else_does(kg):
    result = link_entities(kg, "which films are tagged writer")
    assert ids(result) == [E("writer")]


def test_the_label_written_as_in_the_question_wins(kg):
    # "primary" written in lower case is a word, not the film "Primary"; "Hush!" is written with its "!"
    result = link_entities(kg, "what is the primary language in Hush!")
    assert ids(result) == [E("Hush!")]
    # a cased question: the tag spelt in lower case, not the film, when the question writes it so
    assert ids(link_entities(kg, "what films has IMDb tagged with philadelphia")) == [E("philadelphia")]
    assert ids(link_entities(kg, "what films has IMDb tagged with Philadelphia")) == [E("Philadelphia")]
    # a question all in lower case says nothing by its case: both, the better connected first
    assert ids(link_entities(kg, "what films are tagged with philadelphia")) == [E("Philadelphia"), E("philadelphia")]


def test_a_capitalised_function_word_inside_the_question_is_a_name(kg):
    assert ids(link_entities(kg, "which words describe Her")) == [E("Her")]
    assert link_entities(kg, "which words describe her").entities == []


def test_the_result_says_which_mention_linked_to_what_with_a_score(kg):
    result = link_entities(kg, "who directed Secretary")
    item = result.linked[0]
    assert (item.mention, item.how) == ("secretary", "exact")
    assert item.to_dict()["mention"] == "secretary" and item.to_dict()["score"] > 1


def test_relations_that_fit_the_question_rank_twins():
    # two entities named alike (lower-case question: no case cue); the one whose relations the question names wins
    kg = kg_from_triples([
        ("mercury", "orbits", "sun"), ("mercury", "discovered_by", "nobody"),
        ("Mercury", "atomic_number", "80"), ("Mercury", "melting_point", "-38.8"), ("Mercury", "symbol", "Hg"),
    ])
    assert link_entities(kg, "what does mercury orbit").entities[0].id == E("mercury")
    assert link_entities(kg, "what is the melting point of mercury").entities[0].id == E("Mercury")


def test_several_mentions_link_several_entities():
    kg = kg_from_triples([
        ("Blind Shaft", "release_year", "2003"), ("The Mask of Fu Manchu", "release_year", "1932"),
        ("Blind Shaft", "directed_by", "Li Yang"), ("The Mask of Fu Manchu", "directed_by", "Charles Brabin"),
    ])
    # title case in the question against "of" in the label still counts as a name
    result = link_entities(kg, "Which film came out first, Blind Shaft or The Mask Of Fu Manchu?")
    assert set(ids(result)) == {E("Blind Shaft"), E("The Mask of Fu Manchu")}
    assert {item.mention for item in result.linked} == {"blind shaft", "the mask of fu manchu"}


def test_one_mistyped_or_inflected_word_links_fuzzily():
    kg = kg_from_triples([("Jamaica", "languages_spoken", "Jamaican English"), ("Jamaica", "capital", "Kingston")])
    result = link_entities(kg, "what does jamaican people speak")
    assert ids(result) == [E("Jamaica")] and result.linked[0].how == "fuzzy"
    assert result.linked[0].score < link_entities(kg, "what does jamaica speak").linked[0].score


def test_underscores_and_punctuation_are_spaces():
    kg = kg_from_triples([("frederica of mecklenburg-strelitz", "spouse", "ernest augustus i of hanover")])
    for question in ("which nationality is frederica_of_mecklenburg-strelitz 's couple ?",
                     "which nationality is Frederica of Mecklenburg Strelitz's couple?"):
        assert ids(link_entities(kg, question)) == [E("frederica of mecklenburg-strelitz")]


def test_partial_names():
    kg = kg_from_triples([
        ("Martin Luther", "religion", "Lutheranism"), ("Martin Luther King, Jr.", "place_of_death", "Memphis"),
        ("Harriet Francoeur Nevins", "spouse", "David Nevins Jr."), ("Government of Egypt", "country", "Egypt"),
        ("John Simpson", "directed", "Some Film"), ("Directed by John Ford", "release_year", "1971"),
    ])
    result = link_entities(kg, "what town was martin luther king assassinated in")
    assert ids(result) == [E("Martin Luther King, Jr.")]
    assert (result.linked[0].mention, result.linked[0].how) == ("martin luther king", "partial")
    assert ids(link_entities(kg, "Where was the husband of Harriet Nevins born?")) == [E("Harriet Francoeur Nevins")]
    # a partial name never cuts a name the question holds whole, and its words must be most of both
    assert ids(link_entities(kg, "what were the release years of the films directed by John Simpson")) == [E("John Simpson")]
    assert ids(link_entities(kg, "what kind government does egypt have")) == [E("Egypt")]


def test_an_oxigraph_store_links_as_memory_does(kg, fixtures_dir: Path, tmp_path: Path):
    from kg_agent.kg import build_oxigraph, open_oxigraph

    assert link_entities(kg, "what language is Secretry in").entities[0].id == E("Secretary")  # a typo, one word
    disk = open_oxigraph(build_oxigraph(fixtures_dir / "kg" / "metaqa_plain_linking.txt", tmp_path / "store"))
    try:
        for question in ("who are the actors in Philadelphia", "what is the primary language in Hush!",
                         "which words describe Her", "what films has IMDb tagged with philadelphia",
                         "what films are tagged with philadelphia", "who is the writer of the film Secretary",
                         "what language is Secretry in"):
            assert [(x.entity.id, x.mention, x.how) for x in link_entities(disk, question).linked] == \
                [(x.entity.id, x.mention, x.how) for x in link_entities(kg, question).linked], question
    finally:
        disk.close()


def test_the_state_and_every_surface_say_which_words_linked_to_which_entity(tmp_path):
    """Issue 27, item 1: "the result says which mention linked to what, with a score" - in the graph's state, the
    MCP ask result and the CLI's text; an entity given by id carries no mention."""
    import io

    from kg_agent.cli import print_result
    from kg_agent.graphs.registry import create_graph
    from kg_agent.kg import open_kg
    from kg_agent.mcp.results import ask_result
    from kg_agent.tools.shared.link import link_node

    sample = open_kg(None)
    state = link_node({"question": "who directed tom hanks movies"}, kg=sample)
    [hanks] = [e for e in state["topic_entities"] if e["label"] == "Tom Hanks"]
    assert hanks["mention"] == "tom hanks" and hanks["how"] == "exact" and hanks["score"] > 0
    given = link_node({"question": "who directed it", "topic_entities": [hanks["id"]]}, kg=sample)
    assert given["topic_entities"] == [{"id": hanks["id"], "label": "Tom Hanks"}]

    result = create_graph("rog", sample).compile().invoke({"question": "which films did tom hanks act in"})
    [linked] = [e for e in result["topic_entities"] if e["label"] == "Tom Hanks"]
    assert linked["mention"] == "tom hanks"
    out = io.StringIO()
    print_result(result, out=out)
    assert 'Tom Hanks (from "tom hanks", exact' in out.getvalue()
    [topic] = [e for e in ask_result(result, method="rog").topic_entities if e.label == "Tom Hanks"]
    assert topic.mention == "tom hanks" and topic.how == "exact" and topic.score == linked["score"]


# ------------------------------------------------------------------ a name whose last word the question makes plural
ROLES = """@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix org: <http://www.w3.org/ns/org#> .
@prefix ex: <http://example.org/> .
ex:roman_emperor skos:prefLabel "Roman Emperor"@en .
ex:severan_dynasty skos:prefLabel "Severan Dynasty"@en .
ex:mint skos:prefLabel "Mint"@en .
ex:caracalla skos:prefLabel "Caracalla"@en ; org:memberOf ex:severan_dynasty ; org:role ex:roman_emperor .
ex:lugdunum skos:prefLabel "Lugdunum"@en ; org:role ex:mint .
"""


def test_a_name_of_several_words_is_found_with_its_last_word_in_the_plural(tmp_path):
    """Nomisma-shaped roles (names ours): "Roman emperors" is the role "Roman Emperor", after the exact names; a
    single plural word is no name ("mints" is not the thing "Mint")."""
    path = tmp_path / "roles.ttl"
    path.write_text(ROLES, encoding="utf-8")
    kg = load_kg(path)
    result = link_entities(kg, "Which members of the Severan dynasty were Roman emperors?")
    assert ids(result) == ["http://example.org/severan_dynasty", "http://example.org/roman_emperor"]
    assert "http://example.org/mint" not in ids(link_entities(kg, "Which mints did Caracalla use?"))


NUMBERED = """@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix ex: <http://example.org/> .
ex:chromosome rdfs:label "chromosome" .
ex:gene rdfs:label "gene" ; ex:part_of ex:chromosome .
ex:apollo rdfs:label "Apollo" .
ex:apollo13 rdfs:label "Apollo 13" ; ex:part_of ex:apollo .
"""


def test_a_name_with_a_number_the_kg_lacks_links_nothing(tmp_path):
    """Sequence-Ontology-shaped terms (names ours): "chromosome 7" is a numbered thing the KG does not name, not the
    term "chromosome"; nothing is linked and the message says so. A name holding its number links as it is, and a
    year after a name qualifies it (not checked here: it links)."""
    path = tmp_path / "numbered.ttl"
    path.write_text(NUMBERED, encoding="utf-8")
    kg = load_kg(path)
    result = link_entities(kg, "Which genes are located on chromosome 7?")
    assert ids(result) == [] and "'chromosome 7'" in result.message
    assert ids(link_entities(kg, "Which genes are part of the chromosome?")) == ["http://example.org/chromosome"]
    assert ids(link_entities(kg, "What is Apollo 13 part of?")) == ["http://example.org/apollo13"]
    assert ids(link_entities(kg, "What was Apollo in 1969?")) == ["http://example.org/apollo"]
    assert ids(link_entities(kg, "Which missions were part of Apollo 1969?")) == ["http://example.org/apollo"]


def test_a_misspelt_name_is_matched_without_the_question_words_after_it():
    # a railway, not a film: the fuzzy span keeps the words that spell the name, not "run" after it
    railway = kg_from_triples([("Kilimanjaro Express", "runs_between", "Dar es Salaam"),
                               ("Kilimanjaro Express", "operated_by", "Tanzania Railways")])
    result = link_entities(railway, "where does the Kilimanjro Expres run")
    assert ids(result) == [E("Kilimanjaro Express")]
    assert result.linked[0].how == "fuzzy" and result.linked[0].mention == "kilimanjro expres"
