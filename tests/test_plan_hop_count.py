"""Issue 27 item 2 (and issue 23's planning misses): the offline scorer never walks one hop too far on a word that
an earlier hop already explains, nor on the question's type noun read inside a long property label.

* "what films did [X] direct" on Wikidata- and DBpedia-shaped KGs walked on from the films to their language
  (``original language of film or TV show`` holds "films"), their genre (the alias "type of film") or their
  director (``dbo:director``, labelled "film director"): the type noun names the *subject* of such a hop, or
  only modifies its name while its objects are persons.
* "what films did [X] write", for a director who wrote one film, planned ``^director -> screenwriter``: the type noun
  evidenced the first hop by its alias "film director"; the type noun names the answer, where the path ends.
* "who wrote the screenplay of [X]" on a Wikidata-shaped KG (``screenwriter`` with the alias "writer") planned
  ``screenwriter -> ^screenwriter``: "wrote" and "screenplay of" name the one relation once, and the second hop
  paid for itself with "wrote" (the other films of the writer).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg_agent.kg import load_kg
from kg_agent.tools.rog.plan import SimilarityPlanner
from kg_agent.tools.shared.answer_types import AskedType, noun_only_modifies, object_name_words, subject_qualifier
from kg_agent.tools.shared.question_parts import NO_RELATION_WORDS, QuestionParts

STYLES = Path(__file__).resolve().parent / "fixtures" / "styles"


def _style_questions(style: str, qtypes: set[str]) -> list[dict]:
    lines = (STYLES / style / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [q for q in map(json.loads, filter(str.strip, lines)) if q["qtype"] in qtypes]


def _top_plan(kg, question: str, topic_id: str) -> tuple[str, ...]:
    [topic] = [e for e in kg.find_entities(question.split("[")[1].split("]")[0]) if e.id == topic_id.strip("<>")]
    return SimilarityPlanner(kg).plan(question, [topic]).plans[0].relations


#: the gold relation of each question, as the KG names it (by its property's label)
GOLD = {"wikidata": {"person_directed": "^director", "person_wrote": "^screenwriter", "person_acted": "^cast_member"},
        "dbpedia": {"person_directed": "^film_director", "person_wrote": "^writer", "person_acted": "^starring"}}


@pytest.mark.parametrize("style", sorted(GOLD))
def test_what_films_did_x_direct_write_act_in_stops_at_the_films(style):
    kg = load_kg(next((STYLES / style).glob("kg.*")))
    questions = _style_questions(style, set(GOLD[style]))
    assert len(questions) == 3
    for q in questions:
        assert _top_plan(kg, q["question"], q["topic_id"]) == (GOLD[style][q["qtype"]],), q["question"]


WIKIDATA_FILMS = """\
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix wikibase: <http://wikiba.se/ontology#> .
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .

wd:P57 a wikibase:Property ; rdfs:label "director"@en ; skos:altLabel "directed by"@en , "film director"@en ;
    wikibase:directClaim wdt:P57 .
wd:P58 a wikibase:Property ; rdfs:label "screenwriter"@en ; skos:altLabel "written by"@en , "writer"@en ;
    wikibase:directClaim wdt:P58 .
wd:P136 a wikibase:Property ; rdfs:label "genre"@en ; skos:altLabel "type of film"@en ;
    wikibase:directClaim wdt:P136 .
wd:P364 a wikibase:Property ; rdfs:label "original language of film or TV show"@en ;
    skos:altLabel "original language"@en ; wikibase:directClaim wdt:P364 .
wd:P19 a wikibase:Property ; rdfs:label "place of birth"@en ; wikibase:directClaim wdt:P19 .

wd:Q1 rdfs:label "The Distant Zanello"@en ; wdt:P58 wd:Q10 ; wdt:P57 wd:Q11 ; wdt:P136 wd:Q20 ; wdt:P364 wd:Q30 .
wd:Q2 rdfs:label "The Burning Mobricor"@en ; wdt:P58 wd:Q10 ; wdt:P57 wd:Q12 ; wdt:P136 wd:Q21 ; wdt:P364 wd:Q31 .
wd:Q3 rdfs:label "The Wild Delquita"@en ; wdt:P58 wd:Q10 ; wdt:P57 wd:Q11 ; wdt:P136 wd:Q20 ; wdt:P364 wd:Q30 .
wd:Q4 rdfs:label "The Broken Yoshihar"@en ; wdt:P58 wd:Q12 ; wdt:P57 wd:Q12 ; wdt:P136 wd:Q21 ; wdt:P364 wd:Q31 .
wd:Q5 rdfs:label "The Lost Frontier"@en ; wdt:P58 wd:Q11 ; wdt:P57 wd:Q12 ; wdt:P136 wd:Q21 ; wdt:P364 wd:Q30 .
wd:Q10 rdfs:label "Yusuf Xahukel"@en ; wdt:P19 wd:Q40 .
wd:Q11 rdfs:label "Kenji Kinlolan"@en ; wdt:P19 wd:Q41 .
wd:Q12 rdfs:label "Elena Tanorta"@en ; wdt:P19 wd:Q40 .
wd:Q20 rdfs:label "drama film"@en .
wd:Q21 rdfs:label "comedy film"@en .
wd:Q30 rdfs:label "English"@en .
wd:Q31 rdfs:label "Japanese"@en .
wd:Q40 rdfs:label "Porto"@en .
wd:Q41 rdfs:label "Lima"@en .
"""



@pytest.fixture(scope="module")
def films(tmp_path_factory):
    path = tmp_path_factory.mktemp("wikidata_films") / "kg.ttl"
    path.write_text(WIKIDATA_FILMS, encoding="utf-8")
    return load_kg(path)


@pytest.mark.parametrize(("question", "topic", "gold"), [
    # "wrote" restates "screenplay of": one hop, not on to the writer's other films
    ("who wrote the screenplay of [The Distant Zanello]", "The Distant Zanello", ("screenwriter",)),
    ("who wrote the screenplay of The Distant Zanello", "The Distant Zanello", ("screenwriter",)),
    # the type noun "films" is the subject of "original language of film or TV show" and of "type of film", and
    # only modifies "film director", whose objects are persons
    ("what films did [Kenji Kinlolan] direct", "Kenji Kinlolan", ("^director",)),
    ("what films did [Yusuf Xahukel] write", "Yusuf Xahukel", ("^screenwriter",)),
    # the type noun names the answer, not an earlier hop: a director who wrote one film is not read as
    # ``^director`` ("film director" holds "films") -> ``screenwriter``
    ("what films did [Kenji Kinlolan] write", "Kenji Kinlolan", ("^screenwriter",)),
])
def test_a_wikidata_shaped_plan_stops_where_the_question_does(films, question, topic, gold):
    [entity] = films.find_entities(topic)
    assert SimilarityPlanner(films).plan(question, [entity]).plans[0].relations == gold


def test_the_type_noun_names_the_head_of_a_label_not_its_subject_or_modifier():
    assert subject_qualifier("original language of film or TV show".split()) == "of film or tv show".split()
    assert subject_qualifier("type of film".split()) == ["of", "film"]
    assert subject_qualifier("member of sports team".split()) == []  # the subject is the member, the object the team
    assert subject_qualifier("part of".split()) == []
    assert object_name_words("original_language_of_film_or_TV_show") == ["original", "language"]
    assert object_name_words("place_of_birth") == ["place"]
    assert object_name_words("member_of_sports_team") == ["member", "sports", "team"]
    films = QuestionParts.of("what films did [ENT] direct").asked
    assert not films.named_by("original_language_of_film_or_TV_show")
    assert AskedType.of(("what", "languages"), NO_RELATION_WORDS).named_by("original_language_of_film_or_TV_show")
    assert noun_only_modifies("films", ["film director"])
    assert not noun_only_modifies("films", ["director"])
    assert not noun_only_modifies("monks", ["monks"])


def test_a_word_after_what_that_is_no_qualifier_word_keeps_the_whole_name():
    """"what killed [X] 's other half": "killed" stands where a type noun would and evidences ``cause of death`` by
    "death", which is no word of the noun: the name is read whole (PathQuestion, ToG)."""
    from kg_agent.tools.shared.path_scoring import RelationPathScorer

    parts = QuestionParts.of("what killed the [ENT] 's other half ?")
    killed = parts.phrases.index("killed")
    assert RelationPathScorer().relation_evidence(parts, ["cause_of_death"])[0, killed] > 0.2


def test_the_class_of_a_relations_values_names_it_in_the_plan(tmp_path):
    """"who acted in [X]" on the DBpedia style fixture: no word of the question names ``dbo:starring`` ("starring")
    more than ``dbo:director`` ("film director") or ``dbo:writer``, and the plan was the director. The ontology says
    ``dbo:starring rdfs:range dbo:Actor``: the values' class, "actor", names starring as an alias would. Without the
    range triple the plan is not starring: the range is what decides it."""
    path = next((STYLES / "dbpedia").glob("kg.*"))
    [q] = _style_questions("dbpedia", {"film_actor"})
    assert _top_plan(load_kg(path), q["question"], q["topic_id"]) == ("starring",)
    text = path.read_text(encoding="utf-8")
    without = tmp_path / "no_ranges.ttl"
    without.write_text(text.replace("rdfs:range dbo:Actor", "rdfs:range dbo:Person"), encoding="utf-8")
    assert text != without.read_text(encoding="utf-8")
    assert _top_plan(load_kg(without), q["question"], q["topic_id"]) != ("starring",)


def test_a_property_description_tells_relations_apart_where_no_name_does(tmp_path):
    """The Wikidata style fixture without its aliases: "who acted in [X]" names none of ``cast member``,
    ``director``, ``screenwriter``; P161's description, "actor in the subject production", evidences cast member
    (weighed below a name, so it only decides where names give nothing). Without that description the plan is
    another relation."""
    import re

    text = next((STYLES / "wikidata").glob("kg.*")).read_text(encoding="utf-8")
    unaliased = re.sub(r'    skos:altLabel "[^"]*"@en ;\n', "", text)
    described, undescribed = tmp_path / "described.ttl", tmp_path / "undescribed.ttl"
    described.write_text(unaliased, encoding="utf-8")
    cut = unaliased.replace('    schema:description "actor in the subject production"@en ;\n', "")
    assert "altLabel" not in unaliased and cut != unaliased
    undescribed.write_text(cut, encoding="utf-8")
    [q] = _style_questions("wikidata", {"film_actor"})
    assert _top_plan(load_kg(described), q["question"], q["topic_id"]) == ("cast_member",)
    assert _top_plan(load_kg(undescribed), q["question"], q["topic_id"]) != ("cast_member",)


def test_a_participle_before_by_is_a_relation_the_plan_explains():
    """"what languages are the films written by [X] in" on the DBpedia style fixture, whose ``dbo:director`` is
    labelled "film director": "films" named ``film director`` as well as "written" named ``writer``, and the plan
    walked ``^film_director -> language`` (the films Kenji Hollis directed, not wrote). A participle with its agent
    after it ("written by") names a relation the path must explain, as a relational noun does."""
    kg = load_kg(next((STYLES / "dbpedia").glob("kg.*")))
    [q] = _style_questions("dbpedia", {"writer_film_language"})
    assert _top_plan(kg, q["question"], q["topic_id"])[0] == "^writer"
    parts = QuestionParts.of("what languages are the films written by [ENT] in")
    assert [t for i, t in enumerate(parts.tokens) if parts.agent_participle(i)] == ["written"]
    assert not any(QuestionParts.of("which films by [ENT]").agent_participle(i) for i in range(3))
