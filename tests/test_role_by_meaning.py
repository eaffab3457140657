"""One-hop "who" questions through role nodes (issue 46, one-hop questions): "who performed the operation [X]" is asked
for by the wh-word -- the path whose last hop reaches persons (``hasRole -> heldBy``), not a relation that merely
exists at [X] (its ``room``) -- and of [X]'s role nodes ("Surgeon", "Anaesthetist", "Scrub Nurse"), none spelt by the
question, the one it means is chosen by meaning (its label with its class's name, "Surgeon (Operator)").

Fixture: ``tests/fixtures/roles/operating_list.ttl`` (a hospital's operating list: operations, their role nodes, the
staff holding them, a literal room).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import load_kg
from kg_agent.kg.types import Entity
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.role_qualifiers import named_roles

OPERATING_LIST = Path(__file__).resolve().parent / "fixtures" / "roles" / "operating_list.ttl"
EX = "http://example.org/theatre/"
HERNIA = Entity(EX + "hernia-june-5", "Hernia Repair of June 5")
ROLES = {EX + "hernia-june-5-surgeon": "Surgeon", EX + "hernia-june-5-anaesthetist": "Anaesthetist",
         EX + "hernia-june-5-scrub-nurse": "Scrub Nurse"}


@pytest.fixture(scope="module")
def operating_list():
    return load_kg(OPERATING_LIST)


def test_who_is_answered_by_the_last_hop_that_reaches_persons(operating_list):
    # no word of the question names a relation; "who" asks for persons, which only hasRole -> heldBy reaches (the
    # room is a text; the role nodes are statements)
    paths = [("room",), ("hasRole",), ("type",), ("hasRole", "heldBy"), ("hasRole", "type")]
    scores = RelationPathScorer().score('Who performed the operation "[ENT]"?', paths, kg=operating_list)
    assert max(range(len(paths)), key=scores.__getitem__) == 3


def test_where_is_answered_by_the_relation_the_kg_names_a_place(operating_list):
    # the location is a text no relation at it says is a place; the relation's name says so ("hasLocation")
    paths = [("hasLocation",), ("room",), ("hasRole", "heldBy"), ("hasRole", "^holdsRole")]
    scores = RelationPathScorer().score('Where was the operation "[ENT]" held?', paths, kg=operating_list)
    assert max(range(len(paths)), key=scores.__getitem__) == 0


def test_a_role_the_question_means_but_does_not_spell_is_chosen_by_meaning(operating_list):
    roles, chosen = named_roles('Who performed the operation "Hernia Repair of June 5"?', ROLES, [HERNIA],
                                operating_list)
    assert roles == set(ROLES)
    assert chosen == {EX + "hernia-june-5-surgeon"}
    # a label the question spells still decides, whatever is nearest in meaning
    _, chosen = named_roles('Who was the scrub nurse of "Hernia Repair of June 5"?', ROLES, [HERNIA], operating_list)
    assert chosen == {EX + "hernia-june-5-scrub-nurse"}


def test_roles_that_read_alike_are_all_kept(operating_list):
    # two roles of about the same meaning: neither clears the other by the margin, so none is chosen
    roles = {EX + "hernia-june-5-anaesthetist": "Anaesthetist", EX + "tonsils-june-9-anaesthetist": "Anaesthetist"}
    assert named_roles('Who performed the operation "Hernia Repair of June 5"?', roles, [HERNIA], operating_list)[1] \
        == set()


@pytest.mark.parametrize("create", [create_rog_graph, create_tog_graph, create_tog_i_graph])
@pytest.mark.parametrize(("question", "gold"), [
    ('Who performed the operation "Hernia Repair of June 5"?', ["Rosa Mendes"]),
    ('Who performed the operation "Knee Arthroscopy of June 3"?', ["Omar Haddad"]),
    ('In which room was the operation "Hernia Repair of June 5"?', ["Theatre 3"]),
    # "held" spells heldBy / holdsRole, whose holders are persons; "where" asks for the relation the KG names a place
    ('Where was the operation "Hernia Repair of June 5" held?', ["West Wing"]),
])
def test_every_method_answers_the_holder_of_the_role_meant(operating_list, create, question, gold):
    result = create(operating_list).compile().invoke({"question": question})
    assert [a["answer"] for a in result["answers"]] == gold
