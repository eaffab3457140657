"""Walks read from what a wine-growing KG says (issues 45, 46), on ``tests/fixtures/vineyards/vineyards.ttl`` (invented
for the tests, its README): a type noun whose class name has two words, a relation whose name holds the name of its
objects' class, a wine's rating as a named node owned by the wine, and a question naming two things of which a walk
from one passes through the other.

* **The type noun with the word that names its class.** "Which **grape variety** is [X] a mutation of": the noun's
  class is *grape variety*, so "variety" (and "variety is") is the noun's as much as "grape": it names the answer,
  evidences no earlier hop (``vineyardForGrapeVariety`` out to a vineyard and back), and a last hop of the class
  explains it (``RelationPathScorer._ending_in_named_class``, ``_explained``).
* **The hop into a statement node from the question's entity.** "Which wine rated on the [Hundred Point Scale] has the
  highest score": the scale is a value of each rating node; the hop into the node (``^onScale``) is the fact the hop out
  (``^rating``) names, whatever words the question uses for the entity's role.
* **A hop the answer type's cue stands for has no place of its own.** "How many wines have the grape variety [Gamay]":
  the cue "wines" opens the question whatever the path, so its place is no evidence that a two-hop path reads in
  order (``RelationPathScorer._order``); the one hop ``^hasGrapeVariety`` that explains the question answers it.
* **A walk through another named thing is cut there.** "Which vineyards of [Gamay] are classified in the [Val Claire]
  appellation": a walk from Gamay to a vineyard, on to Val Claire and back to every vineyard of Val Claire reaches
  those from Val Claire, not from both; the vineyard before Val Claire is what links the two
  (:func:`kg_agent.tools.shared.constraints.reached_from_every_mention`).
* **A path's type term does not depend on the paths scored beside it** (ToG scores a few, RoG many).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.tools.shared.path_scoring import RelationPathScorer

VINEYARDS = Path(__file__).parent / "fixtures" / "vineyards" / "vineyards.ttl"


@pytest.fixture(scope="module")
def vineyards():
    return open_kg(VINEYARDS)


def _ask(kg, create, question: str) -> dict:
    return create(kg).compile().invoke({"question": question})


def test_the_word_that_names_the_class_with_the_type_noun_evidences_no_earlier_hop(vineyards):
    result = _ask(vineyards, create_rog_graph, "Which grape variety is Pinot Gris a mutation of?")
    assert result["answers"][0]["answer"] == "Pinot Noir"


def test_the_plan_for_a_two_word_type_noun_is_the_one_hop_its_relation_word_names(vineyards):
    result = _ask(vineyards, create_rog_graph, "Which grape variety is Pinot Gris a mutation of?")
    assert result["plans"][0]["relations"] == ["mutationOf"]


@pytest.mark.parametrize("create", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_the_hop_from_the_entity_into_a_statement_node_is_the_fact_the_hop_out_names(vineyards, create):
    result = _ask(vineyards, create, "Which wine rated on the Hundred Point Scale has the highest score?")
    first = result["answers"][0]
    assert first["answer"] == "Clos Amarante"  # 96 on that scale; not the one wine that names it as its usual scale
    assert "^onScale" in first["paths"][0]["text"]


@pytest.mark.parametrize("create", [create_tog_graph, create_tog_i_graph])
def test_a_hop_the_type_cue_stands_for_has_no_place_in_the_order_of_hops(vineyards, create):
    result = _ask(vineyards, create, "How many wines have the grape variety Gamay?")
    [answer] = result["answers"]
    assert answer["answer"] == "3"  # not the 4 wines of vineyards that grow Gamay among other varieties
    assert sorted(answer["counted"]) == ["Cuvee de l'Orme", "Domaine Ferrand", "Rose de Bois Joli"]


def test_the_one_hop_that_explains_the_question_is_planned_before_a_two_hop_one_read_from_the_cue(vineyards):
    result = _ask(vineyards, create_rog_graph, "How many wines have the grape variety Gamay?")
    assert result["plans"][0]["relations"] == ["^hasGrapeVariety"]


def test_a_walk_through_another_named_thing_is_cut_before_it(vineyards):
    result = _ask(vineyards, create_rog_graph, "Which vineyards of Gamay are classified in the Val Claire appellation?")
    # Gamay's vineyards in Val Claire; not Les Cailloux, of Val Claire but no Gamay
    assert sorted(a["answer"] for a in result["answers"]) == ["Bois Joli", "Champ du Puits", "Clair Ruisseau"]


@pytest.mark.parametrize("question, path, beside", [
    ("Which grape varieties does [ENT] grow?", ("vineyardForGrapeVariety",), ("vineyardForGrapeVariety", "^hasGrapeVariety")),
    ("How many grape varieties does [ENT] grow?", ("vineyardForGrapeVariety",), ("vineyardForGrapeVariety", "mutationOf")),
])
def test_a_paths_score_does_not_depend_on_the_paths_scored_beside_it(vineyards, question, path, beside):
    scorer = RelationPathScorer()
    alone = scorer.score(question, [path], kg=vineyards)[0]
    together = scorer.score(question, [path, beside], kg=vineyards)[0]
    assert alone == pytest.approx(together)


@pytest.mark.parametrize("longer", [
    ("mutationOf", "^vineyardForGrapeVariety"),  # on past the variety asked, on "variety is"
    ("^vineyardForGrapeVariety", "vineyardForGrapeVariety", "mutationOf"),  # out and back on "variety"
])
def test_the_second_word_of_a_two_word_type_noun_evidences_no_hop_before_the_last(vineyards, longer):
    scorer = RelationPathScorer()
    one, other = scorer.score("Which grape variety is [ENT] a mutation of?", [("mutationOf",), longer], kg=vineyards)
    assert other < one - 1.0  # a hop no word of the question asks for


def test_a_last_hop_of_the_class_a_two_word_type_noun_names_explains_both_words(vineyards):
    # "grape varieties" is explained by the varieties the hop reaches; "vineyard for" names the hop
    result = _ask(vineyards, create_rog_graph, "Which grape varieties is Les Cailloux a vineyard for?")
    assert result["plans"][0]["relations"] == ["vineyardForGrapeVariety"]
    assert sorted(a["answer"] for a in result["answers"]) == ["Meunier", "Pinot Gris", "Pinot Noir"]


@pytest.mark.parametrize("question, by_cue", [
    ("How many wines have the grape variety [ENT]?", True),  # the noun naming the answers: no place in the order
    ("In which year did [ENT] become [ENT]?", False),  # time of the event "become" names: a hop after the verb's
    ("Where was [ENT] bottled?", False),
])
def test_only_a_cue_naming_the_answers_themselves_has_no_place_in_the_order_of_hops(question, by_cue):
    import numpy as np

    from kg_agent.tools.shared.answer_types import TypeMatch
    from kg_agent.tools.shared.question_parts import QuestionParts

    parts = QuestionParts.of(question)
    evidence = np.zeros((2, len(parts.phrases)), dtype=np.float32)  # no phrase names either hop: the cue takes the last
    hops, _ = RelationPathScorer._assign(parts, ("r1", "r2"), evidence, TypeMatch(1.0, 1.0), evidence)
    assert hops[-1].by_cue is by_cue
