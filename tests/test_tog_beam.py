"""The offline ToG / ToG-I beam is path-aware (issue 16): chains are ranked by the shared relation-path scorer on
their whole relation path (with a look ahead), not by per-step weights multiplied greedily, and the verifier
weighs every explored chain. Small KGs shaped like the MetaQA and company-KG questions the greedy beam missed."""

from __future__ import annotations

import pytest

from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import kg_from_triples
from kg_agent.kg.types import Entity
from kg_agent.tools.tog.prune_entities import PathEntityScorer, SimilarityEntityScorer
from kg_agent.tools.tog.prune_relations import SimilarityRelationPruner

GRAPHS = {"tog": create_tog_graph, "tog-i": create_tog_i_graph}

# "what are the languages spoken in the movies starred by [King Kong] actors": the actors' other films mostly
# have no language; one film's only relation is its director (greedy: a single relation kept its whole weight).
MOVIES = kg_from_triples([
    ("King Kong", "starred_actors", "Naomi Watts"), ("King Kong", "starred_actors", "Jack Black"),
    ("King Kong", "directed_by", "Peter Jackson"), ("King Kong", "in_language", "English"),
    ("King Kong", "release_year", "2005"),
    ("Kung Fu Panda", "starred_actors", "Jack Black"), ("Kung Fu Panda", "directed_by", "Mark Osborne"),
    ("School of Rock", "starred_actors", "Jack Black"), ("School of Rock", "release_year", "2003"),
    ("School of Rock", "directed_by", "Richard Linklater"),
    ("Funny Games", "starred_actors", "Naomi Watts"), ("Funny Games", "in_language", "German"),
    ("Funny Games", "directed_by", "Michael Haneke"), ("Funny Games", "release_year", "2007"),
    ("Mark Osborne", "born_in", "Trenton"), ("Richard Linklater", "born_in", "Houston"),
])
KING_KONG_Q = "what are the languages spoken in the movies starred by [King Kong] actors"

# The company KG: "the company that owns [X]" is subsidiary_of, then founded_by; [X]'s founding year is a node
# whose single relation leads to other companies founded that year.
COMPANIES = kg_from_triples([
    ("Vrouzior Networks", "subsidiary_of", "Glouthabry Foods"), ("Vrouzior Networks", "founded_by", "Golai Stowaihai"),
    ("Vrouzior Networks", "founded_in", "2005"), ("Vrouzior Networks", "headquartered_in", "Bavroumfield"),
    ("Glouthabry Foods", "founded_by", "Traju Krythyzior"), ("Glouthabry Foods", "founded_in", "1999"),
    ("Glouthabry Foods", "headquartered_in", "Souvrundburg"),
    ("Dyvroulil Networks", "founded_in", "2005"), ("Choujou Partners", "founded_in", "2005"),
    ("Kovrox Foods", "founded_by", "Flujeax Husik"), ("Kovrox Foods", "founded_in", "2005"),
    ("Kovrox Foods", "headquartered_in", "Bavroumfield"),
    ("Flujeax Husik", "educated_at", "Fleaflouran State University"), ("Flujeax Husik", "born_in", "Jeatisdale"),
    ("Golai Stowaihai", "educated_at", "University of Zeagyzak"), ("Golai Stowaihai", "works_for", "Kunuz Industries"),
    ("Traju Krythyzior", "born_in", "Bavroumfield"), ("Bavroumfield", "located_in", "Zoupokland"),
    ("Jeatisdale", "located_in", "Zoupokland"), ("Souvrundburg", "located_in", "Zoupokland"),
])


def first_answer(graph: str, kg, question: str) -> dict:
    result = GRAPHS[graph](kg).compile().invoke({"question": question})
    assert result["answers"], result["warnings"]
    return result


@pytest.mark.parametrize("graph", ["tog", "tog-i"])
def test_three_hop_beam_keeps_the_chain_the_last_hop_can_leave(graph):
    result = first_answer(graph, MOVIES, KING_KONG_Q)
    assert result["answers"][0]["answer"] in {"German", "English"}
    assert result["stop_reason"] == "verified" and result["answers"][0]["grounded"]
    assert result["verification"]["relations"] == ["starred_actors", "^starred_actors", "in_language"]
    assert [t["relation"] for t in result["answers"][0]["paths"][0]["steps"]] == ["starred_actors", "^starred_actors",
                                                                                  "in_language"]


@pytest.mark.parametrize("graph", ["tog", "tog-i"])
def test_founders_study_is_not_taken_by_the_founding_year(graph):
    result = first_answer(graph, COMPANIES, "where did the founders of [Kovrox Foods] study")
    assert result["answers"][0]["answer"] == "Fleaflouran State University"
    assert result["verification"]["relations"] == ["founded_by", "educated_at"]


@pytest.mark.parametrize("graph", ["tog", "tog-i"])
def test_the_company_that_owns_is_walked_before_founded_by(graph):
    # the topic is given, not bracketed: the beam's query masks its mention on every chain alike
    result = GRAPHS[graph](COMPANIES).compile().invoke({"question": "who founded the company that owns Vrouzior Networks",
                                                       "topic_entities": ["Vrouzior Networks"]})
    assert [a["answer"] for a in result["answers"]] == ["Traju Krythyzior"]
    assert result["verification"]["relations"] == ["subsidiary_of", "founded_by"]


def test_whole_path_pruner_scores_a_relation_by_its_best_completion():
    pruner = SimilarityRelationPruner(kg=COMPANIES, lookahead=2, max_hops=2)
    entity = COMPANIES.find_entities("Vrouzior Networks")[0]
    question = "who founded the company that owns [Vrouzior Networks]"
    outcome = pruner.score_relations(question, entity, COMPANIES.relations(entity.id), width=3)
    assert outcome.whole_path and pruner.scores_whole_paths
    assert outcome.items[0][0] == "subsidiary_of"  # through founded_by; alone it is below founded_by
    alone = pruner.similarities("who founded the company that owns [ENT]", (), ["subsidiary_of", "founded_by"])
    assert alone[0] < alone[1]
    # within max_hops: at the second hop nothing is looked past
    second = pruner.path_scores("who founded the company that owns [ENT]", entity, ("x",), ["founded_by"])
    assert second == pruner.similarities("who founded the company that owns [ENT]", ("x",), ["founded_by"])


def test_lookahead_needs_the_kg():
    with pytest.raises(ValueError, match="lookahead needs the kg"):
        SimilarityRelationPruner(lookahead=1)


def test_path_entity_scorer_ranks_a_film_with_a_language_first():
    scorer = PathEntityScorer(SimilarityRelationPruner(kg=MOVIES, lookahead=1, max_hops=3), text=SimilarityEntityScorer())
    jack = MOVIES.find_entities("Jack Black")[0]
    films = [Entity(i, MOVIES.label(i)) for i in MOVIES.neighbors(jack.id, "^starred_actors")]
    naomi = MOVIES.find_entities("Naomi Watts")[0]
    films += [Entity(i, MOVIES.label(i)) for i in MOVIES.neighbors(naomi.id, "^starred_actors")]
    question = "what are the languages spoken in the movies starred by [ENT] actors"
    outcome = scorer.score_entities(question, jack, "^starred_actors", films, prefix=("starred_actors",))
    ranked = [MOVIES.label(i) for i, _ in outcome.items]
    assert set(ranked[:2]) == {"King Kong", "Funny Games"}  # the films with a language
    assert dict(outcome.items)[MOVIES.find_entities("Kung Fu Panda")[0].id] < 0.5


def test_model_fallback_keeps_per_step_weights():
    """With a model, the offline fallbacks keep ToG's per-entity weights (the LLM path is unchanged)."""
    from kg_agent.llm.scripted import ScriptedChatModel
    from kg_agent.settings import GraphSettings
    from kg_agent.tools.tog.deciders import default_deciders

    deciders = default_deciders(MOVIES, GraphSettings(model=ScriptedChatModel(responder=lambda prompt: "{No}")))
    assert not deciders.relation_pruner.fallback.scores_whole_paths
    assert isinstance(deciders.entity_scorer.fallback, SimilarityEntityScorer)
    offline = default_deciders(MOVIES)
    assert offline.relation_pruner.scores_whole_paths and isinstance(offline.entity_scorer, PathEntityScorer)
