"""How the relation-path scorer reads hierarchies and relation names that English words say more than once: the W3C
hierarchy properties named per direction (naming.HIERARCHY_NAMES), "<noun> of" relations, a noun before a
participle, and three-letter English prefixes. Fixtures outside the movie domain: tests/fixtures/realkgs/ontology.nt
(the Sequence Ontology, see its README) and small thesaurus / ontology graphs written here."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import open_kg
from kg_agent.kg.linking import link_entities
from kg_agent.text import word_match
from kg_agent.tools.rog.plan import SimilarityPlanner
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.relation_words import meaning_words
from kg_agent.tools.shared.scoring import mask_mentions

ONTOLOGY = Path(__file__).parent / "fixtures" / "realkgs" / "ontology.nt"

# A thesaurus of regions (SKOS), names of our own.
THESAURUS = """@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix ex: <http://example.org/region/> .
ex:gallia skos:prefLabel "Gallia" .
ex:lugdunensis skos:prefLabel "Gallia Lugdunensis" ; skos:broader ex:gallia .
ex:aquitania skos:prefLabel "Aquitania" ; skos:broader ex:gallia .
ex:belgica skos:prefLabel "Gallia Belgica" ; skos:broader ex:gallia .
ex:treveri skos:prefLabel "Treveri" ; skos:broader ex:belgica .
"""

# Terms of an ontology in subsets, some replaced by others (OBO's shape: obo:IAO_0100001 "term replaced by").
SUBSETS = """@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix ex: <http://example.org/onto/> .
ex:in_subset rdfs:label "in_subset" .
ex:term_replaced_by rdfs:label "term_replaced_by" .
ex:core rdfs:label "CORE" .
""" + "".join(f"""ex:t{i} rdfs:label "term_{i}" ; ex:in_subset ex:core .
ex:old{i} rdfs:label "old_term_{i}" ; ex:term_replaced_by ex:t{i} .
""" for i in range(6))


def top_plan(kg, question: str) -> tuple[str, ...]:
    entities = link_entities(kg, question).entities[:1]
    return SimilarityPlanner(kg).plan(question, entities, k=1).plans[0].relations


@pytest.fixture(scope="module")
def ontology():
    return open_kg(ONTOLOGY)


@pytest.fixture(scope="module")
def thesaurus(tmp_path_factory):
    path = tmp_path_factory.mktemp("kg") / "regions.ttl"
    path.write_text(THESAURUS, encoding="utf-8")
    return open_kg(path)


def scores(kg, question: str, *paths: tuple[str, ...]) -> list[float]:
    entities = link_entities(kg, question).entities[:1]
    return RelationPathScorer().score(mask_mentions(question, entities), list(paths), kg=kg)


def test_the_parent_term_is_the_superclass(ontology):
    # "parent" names rdfs:subClassOf walked forward (its superclass), though the KG never says so; and not backwards,
    # though embeddings put "parent" close to "child class" and "someone's parent" close to either "sub class of"
    up, down = scores(ontology, "What are the synonyms of the parent term of miRNA?",
                      ("subClassOf", "hasExactSynonym"), ("^subClassOf", "hasExactSynonym"))
    assert up > down + 0.1


def test_the_subtypes_a_term_has_are_its_subclasses(ontology):
    # "subClassOf" is a "<noun> of" relation: "subtypes does gene have" asks for the things that are subclasses of gene
    assert top_plan(ontology, "How many direct subtypes does gene have?") == ("^subClassOf",)
    assert top_plan(ontology, "Which terms are subtypes of exon?") == ("^subClassOf",)


@pytest.mark.parametrize(("question", "right", "wrong"), [
    ("What is the parent concept of Treveri?", ("broader",), ("^broader",)),
    ("Which narrower concepts does Gallia have?", ("^broader",), ("broader",)),
])
def test_a_thesaurus_hierarchy_is_read_by_its_direction(thesaurus, question, right, wrong):
    assert top_plan(thesaurus, question)[0] == right[0]
    up, down = scores(thesaurus, question, right, wrong)
    assert up > down + 0.1


def test_a_noun_before_a_participle_names_a_side_not_the_relation(tmp_path):
    path = tmp_path / "subsets.ttl"
    path.write_text(SUBSETS, encoding="utf-8")
    kg = open_kg(path)
    # "terms" asks for the members: no hop further through ``term_replaced_by`` to the terms they replaced
    assert top_plan(kg, "How many terms are in the CORE subset?") == ("^in_subset",)
    assert meaning_words(["term", "replaced", "by"]) == ["replaced", "by"]
    assert meaning_words(["directed", "by"]) == ["directed", "by"]
    assert meaning_words(["place", "of", "birth"]) == ["place", "of", "birth"]


def test_an_english_prefix_is_no_shared_root():
    assert word_match("subtypes", "subset") == 0.0 and word_match("prequel", "premiere") == 0.0
    assert word_match("acted", "actors") == 0.8  # a shared three-letter root still counts
    assert word_match("sub", "subtypes") == 1.0  # one word whole


# ------------------------------------------------------------------ relations whose values are prose
def test_a_relation_whose_values_are_prose_is_asked_for_by_its_name_only():
    """The definitions (``obo:IAO_0000115``, named "definition") are prose: "the parent term of gene" asks for
    gene's superclass and no more, although "term" sits close to "definition" for an embedding; "the definition of
    gene" still asks for it."""
    kg = open_kg(ONTOLOGY)
    planner = SimilarityPlanner(kg)
    for question, best in [("What is the parent term of gene?", ["subClassOf"]),
                           ("What is the definition of gene?", ["definition"])]:
        entities = link_entities(kg, question).entities[:1]
        plans = planner.plan(question, entities, k=3).plans
        assert [name.rsplit("/", 1)[-1] for name in plans[0].relations] == best, (question, plans)


def test_three_shared_letters_are_a_root_only_before_an_english_ending():
    assert word_match("part", "parent") == 0.0 and word_match("parent", "part") == 0.0
    assert word_match("match", "material") == 0.0  # "mat|ch" is a word of its own, not an ending
    assert word_match("acts", "acting") > 0 and word_match("acted", "actors") > 0  # an ending, not another word


def test_the_ontology_languages_own_terms_are_no_answer():
    """``rdf:type owl:Class`` says how the ontology models exon's subtypes, not what they are: "the subtypes of the
    subtypes" walks the hierarchy twice, not to ``owl:Class``."""
    kg = open_kg(ONTOLOGY)
    question = "Which terms are subtypes of the subtypes of exon?"
    plans = SimilarityPlanner(kg).plan(question, link_entities(kg, question).entities[:1], k=3).plans
    assert list(plans[0].relations) == ["^subClassOf", "^subClassOf"], plans
