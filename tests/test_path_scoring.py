"""The relation-path scorer every offline decider shares: each hop evidenced by the question, direction, order."""

from __future__ import annotations

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph
from kg_agent.kg import kg_from_triples
from kg_agent.kg.types import Entity
from kg_agent.tools.rog.plan import SimilarityPlanner
from kg_agent.tools.shared.path_scoring import QuestionParts, RelationPathScorer, word_match
from kg_agent.tools.tog.prune_relations import SimilarityRelationPruner
from kg_agent.tools.tog.verify import ScoreVerifier
from kg_agent.tools.tog2.frontier import new_frontier_item
from kg_agent.tools.tog2.prune_relations import SimilarityCombinedRelationPruner

# The shape of issue 16's example on a generated movie KG: one director, three actors, everyone born somewhere.
TELVEKZEN = "The Telvekzen Dentri Code"
TRIPLES = [
    (TELVEKZEN, "directed_by", "Orla Pennick"),
    (TELVEKZEN, "starred_actors", "Bram Ostlund"),
    (TELVEKZEN, "starred_actors", "Ciro Velaz"),
    (TELVEKZEN, "starred_actors", "Dana Quillet"),
    (TELVEKZEN, "release_year", "1987"),
    ("Orla Pennick", "born_in", "Vashmere"),
    ("Bram Ostlund", "born_in", "Port Ellery"),
    ("Ciro Velaz", "born_in", "Santa Mirela"),
    ("Dana Quillet", "born_in", "Kettering Vale"),
    ("Bram Ostlund", "nationality", "Ellerland"),
    ("The Quiet Harbour", "directed_by", "Orla Pennick"),
]
QUESTION = f"where was the director of [{TELVEKZEN}] born"


@pytest.fixture(scope="module")
def movie_kg():
    return kg_from_triples(TRIPLES, name="telvekzen")


@pytest.fixture(scope="module")
def scorer():
    return RelationPathScorer()


def telvekzen(kg) -> Entity:
    return kg.find_entities(TELVEKZEN)[0]


def test_a_path_with_an_unasked_hop_ranks_below_the_path_whose_every_hop_the_question_names(scorer):
    asked, unasked = scorer.score("where was the director of [ENT] born", [("directed_by", "born_in"), ("starred_actors", "born_in")])
    assert asked > unasked


def test_the_similarity_planner_puts_the_directors_birthplace_first(movie_kg):
    outcome = SimilarityPlanner(movie_kg).plan(QUESTION, [telvekzen(movie_kg)])
    assert outcome.plans[0].relations == ("directed_by", "born_in")
    result = create_rog_graph(movie_kg, planner=SimilarityPlanner(movie_kg)).compile().invoke({"question": QUESTION})
    assert [a["answer"] for a in result["answers"]][0] == "Vashmere"
    assert "Port Ellery" not in [a["answer"] for a in result["answers"]][:1]


@pytest.mark.parametrize(("question", "first"), [
    ("which films were directed by [ENT]", "^directed_by"),
    ("what films did [ENT] direct", "^directed_by"),
    ("who is the director of [ENT]", "directed_by"),
    ("who directed [ENT]", "directed_by"),
    ("who was born in [ENT]", "^born_in"),
    ("where was [ENT] born", "born_in"),
])
def test_the_first_hops_direction_follows_the_questions_wording(scorer, question, first):
    forward, backward = scorer.score(question, [(first.lstrip("^"),), ("^" + first.lstrip("^"),)])
    assert (backward > forward) == first.startswith("^"), (question, forward, backward)


def test_a_question_that_names_a_later_relation_is_not_answered_by_the_shorter_path(scorer):
    two_hop, one_hop = scorer.score("when were the films directed by [ENT] released", [("^directed_by", "release_year"), ("^directed_by",)])
    assert two_hop > one_hop


def test_a_round_trip_needs_the_question_to_ask_for_one(scorer):
    same, plain = scorer.score("which films share the director of [ENT]", [("directed_by", "^directed_by"), ("directed_by",)])
    assert same > plain
    trip, direct = scorer.score("who directed [ENT]", [("directed_by", "^directed_by"), ("directed_by",)])
    assert direct > trip


def test_question_parts_mask_the_entity_and_find_round_trip_words():
    parts = QuestionParts.of("which movies share the screenwriter with [ENT]")
    assert "[ent]" not in " ".join(parts.phrases)
    assert parts.cue_positions == (2,) and parts.entity_positions == (6,)


def test_one_scorer_drives_the_planner_the_tog_pruner_and_verifier_and_the_tog2_pruner(movie_kg, scorer):
    """The four offline deciders take the same scorer and agree on the example: director first, then birthplace."""
    film = telvekzen(movie_kg)
    planner = SimilarityPlanner(movie_kg, scorer=scorer)
    pruner = SimilarityRelationPruner(scorer=scorer)
    verifier = ScoreVerifier(movie_kg, scorer=scorer)
    tog2 = SimilarityCombinedRelationPruner(scorer=scorer)
    assert planner.scorer is pruner.scorer is verifier._similarity.scorer is tog2.scorer is scorer

    assert planner.plan(QUESTION, [film]).plans[0].relations == ("directed_by", "born_in")
    first = pruner.score_relations(QUESTION, film, movie_kg.relations(film.id), width=1)
    assert [r for r, _ in first.items] == ["directed_by"]
    director = movie_kg.find_entities("Orla Pennick")[0]
    then = pruner.score_relations(QUESTION, director, movie_kg.relations(director.id), width=1, prefix=("directed_by",))
    assert [r for r, _ in then.items] == ["born_in"]
    chosen = tog2.choose_one(QUESTION, new_frontier_item(film), sorted(movie_kg.relations(film.id)), width=1)
    assert [r for r, _ in chosen] == ["directed_by"]

    result = create_tog_graph(movie_kg, relation_pruner=pruner, verifier=verifier).compile().invoke(
        {"question": QUESTION, "topic_entities": [film.id]})
    assert [a["answer"] for a in result["answers"]][0] == "Vashmere"


def test_a_relation_words_root_inside_a_longer_question_word_evidences_it(scorer):
    """"screenwriter" names ``written_by`` (its root *writ* inside the longer word), as "writer" would."""
    assert word_match("written", "screenwriter") == 0.8 and word_match("written", "writer") == 1.0
    assert word_match("by", "abyss") == 0.0  # a short word is no root
    written, directed = scorer.score("which movies share the screenwriter with [ENT]",
                                     [("written_by", "^written_by"), ("directed_by", "^directed_by")])
    assert written > directed
