"""Exemplars taught by the KG (issue 45 item 4): questions worded from the KG's own relation paths and names, and the
exemplar planner fitted on them planning unseen questions. Fixture: Project Gutenberg's catalogue slice
(tests/fixtures/realkgs/catalogue.nt, see its README), a KG without training questions."""

from pathlib import Path

import pytest

from kg_agent.kg.loading.open_kg import open_kg
from kg_agent.tools.rog.plan import ExemplarPlanner, SimilarityPlanner, TaughtPlanner, make_planner
from kg_agent.tools.rog.taught_exemplars import teach_exemplars

CATALOGUE = Path(__file__).parent / "fixtures" / "realkgs" / "catalogue.nt"
TWAIN = "http://www.gutenberg.org/2009/agents/53"
HUCKLEBERRY_FINN = "http://www.gutenberg.org/ebooks/76"


@pytest.fixture(scope="module")
def kg():
    return open_kg(CATALOGUE)


@pytest.fixture(scope="module")
def taught(kg):
    return teach_exemplars(kg)


def test_taught_questions_are_worded_from_the_kgs_names_with_the_walks_answers(kg, taught):
    by_question = {e.question: e for e in taught}
    # backward over dcterms:creator from an agent named only by pgterms:name, the asked kind from the books' class
    books = by_question["Which ebook has creator [Twain, Mark]?"]
    assert books.relation_paths == (("^creator",),) and list(books.topic_entities) == [TWAIN]
    assert sorted(books.answers) == sorted(kg.neighbors(TWAIN, "^creator"))
    assert "What has creator [Twain, Mark]?" in by_question
    # forward, and two hops composed as a noun phrase
    assert by_question["Which agent is the creator of [Frankenstein; Or, The Modern Prometheus]?"].relation_paths == (("creator",),)
    two_hops = by_question["What is the birthdate of the creator of [Treasure Island]?"]
    assert two_hops.relation_paths == (("creator", "birthdate"),) and two_hops.answers == ['"1850"^^<http://www.w3.org/2001/XMLSchema#integer>']
    # the class predicate is not taught (every node has a class: it would vote everywhere), its class names the kind
    assert not any(r in {"rdf.type", "^rdf.type"} for e in taught for p in e.relation_paths for r in p)


def test_every_taught_path_walks_from_its_topic_entity_to_its_answers(kg, taught):
    for exemplar in taught:
        (path,) = exemplar.relation_paths
        reached = set(exemplar.topic_entities)
        for relation in path:
            reached = {end for node in reached for end in kg.neighbors(node, relation)}
        assert set(exemplar.answers) <= reached, exemplar


def test_teaching_is_deterministic_and_bounded_round_robin_over_relations(kg, taught):
    assert teach_exemplars(kg) == taught
    few = teach_exemplars(kg, max_questions=12)
    assert len(few) == 12
    assert len({e.relation_paths[0][0] for e in few}) == 12  # a cap takes one question per relation direction first
    assert len(teach_exemplars(kg, per_relation=1)) < len(taught)


@pytest.mark.parametrize(("question", "entity", "relations"), [
    ("Which ebooks were created by [Twain, Mark]?", TWAIN, ("^creator",)),
    ("List the books whose creator is [Twain, Mark]", TWAIN, ("^creator",)),
    ("Who wrote [Adventures of Huckleberry Finn]?", HUCKLEBERRY_FINN, ("creator",)),
    ("When was [Twain, Mark] born?", TWAIN, ("birthdate",)),
    ("Under which other names is [Twain, Mark] known?", TWAIN, ("alias",)),
    ("When did the author of [Treasure Island] die?", "http://www.gutenberg.org/ebooks/120", ("creator", "deathdate")),
])
def test_the_planner_fitted_on_taught_questions_plans_unseen_ones(kg, taught, question, entity, relations):
    planner = ExemplarPlanner(kg, walkable_only=True).fit(taught)
    assert not planner.skipped  # taught questions carry their paths: none needs the teacher
    assert planner.plan(question, [kg.entity(entity)]).plans[0].relations == relations


def test_the_taught_planner_reorders_the_similarity_planners_plans_only_not_their_hop_count(kg):
    planner = make_planner(kg, planner="taught")
    assert isinstance(planner, TaughtPlanner)
    entity = kg.entity(TWAIN)
    question = "List the books whose creator is [Twain, Mark]"
    plans = planner.plan(question, [entity]).plans
    similar = SimilarityPlanner(kg).plan(question, [entity]).plans
    assert similar[0].relations != ("^creator",)  # the hand scorer alone puts a longer path first
    assert sorted(plans, key=lambda p: p.relations) == sorted(similar, key=lambda p: p.relations)
    assert {p.source for p in plans} == {"similarity"}  # the answer checks read the scorer's scores as before
    # the votes (for the one-hop '^creator') do not change how many hops the scorer reads in the question (they pulled
    # MetaQA's and PathQuestion's two-hop questions to their one-hop prefix)
    assert len(plans[0].relations) == len(similar[0].relations) == 2
