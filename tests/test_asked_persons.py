"""The kind a type noun asks for decides the last hop (kg_agent/tools/shared/path_scoring.py,
``asked_kind_penalty``; answer_types.AskedType.asks_persons): "which artists have pieces on the Summer Festival
programme" asks for persons, and the KG says a piece's ``composer`` is one (born, died), so RoG walks
``^programme, composer`` -- not the round trip back to the programmes, nor the pieces. An orchestra's season
(tests/fixtures/kg/concert_programmes.ttl), outside the domains the scorer was tuned on."""

from __future__ import annotations

import pytest

from kg_agent.graphs import create_rog_graph, create_tog_graph, create_tog_i_graph
from kg_agent.kg import open_kg
from kg_agent.tools.shared.answer_types import AskedType
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.question_parts import QuestionParts
from tests.conftest import FIXTURES

SEASON = FIXTURES / "kg" / "concert_programmes.ttl"
ORCHESTRA = "http://example.org/orchestra/"


@pytest.fixture(scope="module")
def kg():
    graph = open_kg(SEASON)
    yield graph
    graph.close()


def test_a_person_noun_asks_for_persons_a_thing_noun_does_not():
    assert QuestionParts.of("Which artists have pieces on the [ENT] programme?").asked.asks_persons
    assert QuestionParts.of("Who has pieces on the [ENT] programme?").asked.asks_persons
    assert not QuestionParts.of("Which pieces are on the [ENT] programme?").asked.asks_persons
    assert not AskedType().asks_persons


def test_the_path_to_persons_ranks_first_for_a_person_noun(kg):
    paths = [("^programme",), ("^programme", "programme"), ("^programme", "composer"), ("^programme", "publisher")]
    ranked = RelationPathScorer().top("Which artists have pieces on the [ENT] programme?", paths, 4, kg=kg)
    assert ranked[0][1] == ("^programme", "composer")


def test_a_walk_that_reaches_no_persons_is_not_held_back(kg):
    """The programmes and the publishers' names lead to no person: the rule does not apply, the scores are the
    plain ones."""
    paths = [("^programme", "programme"), ("^programme", "publisher")]
    question = "Which artists have pieces on the [ENT] programme?"
    assert RelationPathScorer().score(question, paths, kg=kg) == RelationPathScorer(asked_kind_penalty=0.0).score(
        question, paths, kg=kg)


def test_a_path_stopping_a_hop_short_of_persons_is_held_back_alone(kg):
    """ToG's verifier scores the walk so far on its own: the pieces, from which the KG reaches persons one hop on
    (``composer``), are held back without the longer path beside them."""
    question = "Which artists have pieces on the [ENT] programme?"
    held, plain = (RelationPathScorer(asked_kind_penalty=penalty).score(question, [("^programme",)], kg=kg)[0]
                   for penalty in (1.0, 0.0))
    assert held == pytest.approx(plain - 1.0)


@pytest.mark.parametrize("factory", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_every_method_answers_a_composer_of_the_pieces_on_the_programme(kg, factory):
    result = factory(kg).compile().invoke({"question": "Which artists have pieces on the Summer Festival programme?"})
    answers = [a["answer"] for a in result["answers"]]
    assert answers and set(answers) <= {"Antonio Vivaldi", "Johann Sebastian Bach", "Maurice Ravel"}
