"""Answers that are not what the question asks of its entity (issue 46, "answers a user can trust"): a value read off
another thing a walk reached, a person for "where", a text for "who". Each is left out, and with nothing left the
method abstains with the reason.

Fixture: ``tests/fixtures/roles/sports_club.ttl`` (a club's seasons, their positions as named role nodes labelled
"Captain" / "Head Coach", the persons holding them, of the class ``Person``; each season's address and home ground).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.kg import load_kg
from kg_agent.tools.shared.answer_checks import ABSTAINED, attribute_of_another_thing, final_answers

CLUB = Path(__file__).resolve().parent / "fixtures" / "roles" / "sports_club.ttl"
EX = "http://example.org/club/"
MARTA = {"id": EX + "marta", "label": "Marta Lind"}
ELIN = {"id": EX + "elin", "label": "Elin Dahl"}
SEASON = {"id": EX + "s2021", "label": "2021 Season"}
CAPTAIN = {"id": EX + "s2021_captain", "label": "Captain"}
COACH = {"id": EX + "s2021_coach", "label": "Head Coach"}
ADDRESS = "Riverside Park, 1 Mill Lane, Gothenburg"


@pytest.fixture(scope="module")
def club():
    return load_kg(CLUB)


def literal(text):
    return {"id": f'"{text}"', "label": text}


def answer(*steps):
    """An answer record reached by one walk of ``(head, relation, tail)`` steps."""
    end = steps[-1][2]
    text = " -> ".join([steps[0][0]["label"], *(f"{r} -> {t['label']}" for _, r, t in steps)])
    return {"answer": end["label"], "entity_id": end["id"], "score": 1.0, "grounded": True,
            "paths": [{"steps": [{"head": h, "relation": r, "tail": t} for h, r, t in steps], "text": text}]}


def through_her_position():
    """Marta -> her 2021 captaincy (a role node) -> the 2021 season -> its address: the season's, not hers."""
    return answer((MARTA, "holdsPosition", CAPTAIN), (CAPTAIN, "positionAt", SEASON), (SEASON, "address", literal(ADDRESS)))


def test_a_value_read_off_the_thing_a_role_belongs_to_is_no_answer_about_the_role_holder(club):
    checked = final_answers("What is Marta Lind's address?", [through_her_position()], kg=club)
    assert checked.answers == [] and checked.stop_reason == ABSTAINED
    assert "'address' off another thing ('2021 Season')" in checked.warnings[0]


def test_best_effort_keeps_it_flagged_ungrounded(club):
    checked = final_answers("What is Marta Lind's address?", [through_her_position()], kg=club, policy="best_effort")
    assert [a["answer"] for a in checked.answers] == [ADDRESS] and checked.answers[0]["grounded"] is False


def test_a_value_of_another_thing_the_question_names_the_way_to_is_kept(club):
    """"the season in which [X] held a position": the question names the hops to the season, whose address it asks."""
    question = "What is the address of the season in which Marta Lind held the position?"
    assert attribute_of_another_thing(question, [through_her_position()], club) is None
    assert [a["answer"] for a in final_answers(question, [through_her_position()], kg=club).answers] == [ADDRESS]


def test_the_entitys_own_value_and_values_behind_its_role_nodes_are_kept(club):
    own = answer((ELIN, "phone", literal("+46 31 555 0101")))
    assert attribute_of_another_thing("What is Elin Dahl's phone number?", [own], club) is None
    # a value of the role node itself (a statement of the holder's fact) is the holder's
    of_role = answer((MARTA, "holdsPosition", CAPTAIN), (CAPTAIN, "label", literal("Captain")))
    assert attribute_of_another_thing("What is Marta Lind's position?", [of_role], club) is None


def test_a_position_of_a_class_too_small_to_measure_is_read_as_the_role_beside_it(club):
    """Marta's "Volunteer" node (its class has one member) is reached over the relations her captaincy is: a
    statement too, so the season's address read through it is no answer either."""
    volunteer = {"id": EX + "s2021_volunteer", "label": "Volunteer"}
    beside = answer((MARTA, "holdsPosition", volunteer), (volunteer, "positionAt", SEASON),
                    (SEASON, "address", literal(ADDRESS)))
    alone = attribute_of_another_thing("What is Marta Lind's address?", [beside], club)
    assert alone is None  # alone, nothing says the node is a statement
    kept, _ = attribute_of_another_thing("What is Marta Lind's address?", [beside, through_her_position()], club)
    assert kept == []


def test_a_value_of_a_thing_the_entity_reaches_directly_is_kept(club):
    """No statement between [X] and the thing: "the address of Elin Dahl's debut season" is not told from "Elin
    Dahl's address" by its walk, and is left to the relation checks."""
    season = {"id": EX + "s2023", "label": "2023 Season"}
    direct = answer((ELIN, "debutSeason", season), (season, "address", literal("Harbour Arena, 9 Quay Street, Gothenburg")))
    assert attribute_of_another_thing("What is Elin Dahl's address?", [direct], club) is None


def test_where_is_not_answered_by_things_of_a_person_class(club):
    """No relation names the holders persons ("by" endings, person nouns): their class does, ``Person``."""
    holders = [answer((SEASON, "^positionAt", role), (role, "^holdsPosition", person))
               for role, person in ((CAPTAIN, MARTA), (COACH, {"id": EX + "oskar", "label": "Oskar Berg"}))]
    checked = final_answers("Where was the 2021 Season played?", holders, kg=club)
    assert checked.answers == [] and checked.stop_reason == ABSTAINED
    assert "are persons, not a place" in checked.warnings[0]


def test_who_is_not_answered_by_a_text_no_word_names(club):
    ground = answer((SEASON, "homeGround", literal("Riverside Park")))
    checked = final_answers("Who led the 2021 Season?", [ground], kg=club)
    assert checked.answers == [] and checked.stop_reason == ABSTAINED
    assert "texts no word of the question names as a person's" in checked.warnings[0]
    # a text over a relation the question names stands ("who ... home ground" asks for the ground's name as given)
    kept = final_answers("Who is the home ground of the 2021 Season?", [ground], kg=club)
    assert [a["answer"] for a in kept.answers] == ["Riverside Park"]


def test_rog_abstains_rather_than_answer_a_role_holder_with_the_address_of_their_season(club):
    result = create_rog_graph(club).compile().invoke({"question": "What is Marta Lind's address?"})
    assert result["answers"] == [] and result["stop_reason"] == ABSTAINED, result["answers"]
