"""Constraints and conjunctions (issue 27 item 3): the answers satisfy every entity the question names and the type it
asks for, read from the KG's own classes; what the KG cannot check is said in ``warnings``.

Fixtures: ``tests/fixtures/constraints/football.ttl`` (clubs, players with a club and a position, cities; ``rdf:type``
classes with labels) and the style fixtures of issue 23 (``tests/fixtures/styles``), whose schema.org KG types films
``schema:Movie``. Every end-to-end question here is answered wrongly without the constraints (docs/benchmarks.md 13e).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import kg_from_triples, load_kg
from kg_agent.kg.types import Entity, Triple
from kg_agent.kg.walks import Walk
from kg_agent.text import name_phrase, same_word
from kg_agent.tools.shared.answer_classes import class_names
from kg_agent.tools.shared.constraints import constrain_walks, of_asked_type, reached_from_every_mention
from kg_agent.tools.shared.similarity import shared_text_vectors
from kg_agent.tools.tog.prune_entities import kept_triples
from kg_agent.tools.tog.prune_relations import kept_pairs

HERE = Path(__file__).resolve().parent
FOOTBALL = HERE / "fixtures" / "constraints" / "football.ttl"
STYLES = HERE / "fixtures" / "styles"
EX = "http://example.org/football/"


@pytest.fixture(scope="module")
def football():
    return load_kg(FOOTBALL)


def entity(kg, key: str) -> Entity:
    return Entity(EX + key, kg.label(EX + key))


def walk(kg, start: str, *hops: tuple[str, str], plan: int = 0) -> dict:
    """A walk dict from ``start`` over ``(relation, tail)`` hops, as retrieval writes them (tagged with its plan)."""
    steps, head = [], entity(kg, start)
    for relation, tail in hops:
        steps.append(Triple(head, relation, entity(kg, tail)))
        head = steps[-1].tail
    return Walk(entity(kg, start), tuple(steps), details={"plan": plan}).to_dict()


def ends(walks: list[dict]) -> list[str]:
    return sorted(Walk.end_of(w)["label"] for w in walks)


@pytest.mark.parametrize("create", [create_rog_graph, create_tog_graph, create_tog_i_graph])
def test_a_player_at_a_position_at_a_club_is_the_node_linking_both(football, create):
    question = "which player plays at the Forward position at Northport Rovers"
    result = create(football).compile().invoke({"question": question})
    assert [a["answer"] for a in result["answers"]] == ["Bruno Castell"]  # not the other forwards, nor a club
    said = result["answers"][0]["constraints"]
    assert "links" in said and "'forward'" in said and "'northport rovers'" in said and "football player" in said


def test_tog_i_explores_from_every_named_entity_from_its_first_round(football):
    """ToG-I's width starts at W = T = 1, but a question naming two things is explored from each: W = 2 in round 1,
    and the beam keeps a chain from each, both at the player they share."""
    result = create_tog_i_graph(football).compile().invoke(
        {"question": "which player plays at the Forward position at Northport Rovers"})
    assert result["round"] == 1 and result["width"] == 2
    first = [c["text"] for c in result["chains"] if c["depth"] == 1]
    assert sorted(first) == ["Forward -> ^position -> Bruno Castell", "Northport Rovers -> ^plays_for -> Bruno Castell"]
    assert not any("nothing was retrieved" in w for w in result["warnings"])


def test_the_beam_keeps_the_best_of_each_named_thing_and_first_what_both_reach(football):
    """Entity pruning's top W (:func:`kept_triples`): each mention's best triple is kept though another mention's
    triples score higher, and an entity reached from both ranks above better-scored ones reached from one."""
    topics = [{**entity(football, "northport").to_dict(), "mention": "Northport Rovers"},
              {**entity(football, "forward").to_dict(), "mention": "Forward"}]
    frontier = [Walk(entity(football, "northport")).to_dict(), Walk(entity(football, "forward")).to_dict()]

    def scored(chain: int, relation: str, tail: str, score: float) -> list:
        head = frontier[chain]["start"]
        return [score, chain, {"head": head, "relation": relation, "tail": entity(football, tail).to_dict()}, score, None]

    club = [scored(0, "^plays_for", p, s) for p, s in (("p1", 0.9), ("p3", 0.8), ("p2", 0.2))]
    position = [scored(1, "^position", p, s) for p, s in (("p4", 0.1), ("p5", 0.05))]
    kept = kept_triples(club + position, frontier, 2, topics)
    assert [(t[1], t[2]["tail"]["label"]) for t in kept] == [(0, "Aldo Brenner"), (1, "Dario Esposo")]
    both = kept_triples(club + position + [scored(1, "^position", "p2", 0.01)], frontier, 2, topics)
    assert [(t[1], t[2]["tail"]["label"]) for t in both] == [(0, "Bruno Castell"), (1, "Bruno Castell")]
    alone = kept_triples(club + position, frontier, 2, topics[:1])  # one thing named: the plain top W
    assert [t[2]["tail"]["label"] for t in alone] == ["Aldo Brenner", "Carlo Dimas"]


def test_relation_pruning_keeps_a_relation_for_each_named_thing(football):
    """Relation pruning's top W (:func:`kept_pairs`): the position's only relation is kept beside the club's best,
    though the club's second relation scores higher; with one thing named, the plain top W."""
    topics = [{**entity(football, "northport").to_dict(), "mention": "Northport Rovers"},
              {**entity(football, "forward").to_dict(), "mention": "Forward"}]
    frontier = [Walk(entity(football, "northport")).to_dict(), Walk(entity(football, "forward")).to_dict()]
    pairs = [{"chain": 0, "relation": "^plays_for", "score": 0.6}, {"chain": 0, "relation": "based_in", "score": 0.4},
             {"chain": 1, "relation": "^position", "score": 0.3}]
    scored = {"frontier": frontier, "pairs": pairs}
    assert [p["relation"] for p in kept_pairs(scored, 2, topics)] == ["^plays_for", "^position"]
    assert [p["relation"] for p in kept_pairs(scored, 2, topics[:1])] == ["^plays_for", "based_in"]


def test_answers_reached_from_both_mentions_are_kept_and_none_in_common_is_unmet(football):
    topics = [{**entity(football, "northport").to_dict(), "mention": "Northport Rovers"},
              {**entity(football, "forward").to_dict(), "mention": "Forward"}]
    from_club = [walk(football, "northport", ("^plays_for", p)) for p in ("p1", "p2", "p3")]
    from_position = [walk(football, "forward", ("^position", p), plan=1) for p in ("p2", "p4", "p5")]
    both = reached_from_every_mention(topics, from_club + from_position)
    assert ends(both.walks) == ["Bruno Castell", "Bruno Castell"] and not both.warnings
    assert both.applied == {EX + "p2": "reached from 'northport rovers' and 'forward'"}
    apart = reached_from_every_mention(topics, from_club[:1] + from_position[1:])
    assert ends(apart.walks) == ["Aldo Brenner", "Dario Esposo", "Emil Farren"]  # kept: each mention's answers
    assert apart.unmet == "no answer is reached from both 'northport rovers' and 'forward'" and not apart.warnings
    silent = reached_from_every_mention(topics, from_club)
    assert ends(silent.walks) == ends(from_club) and "nothing was retrieved from 'forward'" in silent.warnings[0]


def test_entities_of_one_mention_or_given_ones_are_not_intersected(football):
    walks = [walk(football, "northport", ("^plays_for", "p1")), walk(football, "forward", ("^position", "p4"), plan=1)]
    same_mention = [{**entity(football, k).to_dict(), "mention": "forward"} for k in ("northport", "forward")]
    given = [entity(football, k).to_dict() for k in ("northport", "forward")]
    for topics in (same_mention, given):
        kept = reached_from_every_mention(topics, walks)
        assert kept.walks == walks and not kept.warnings


def test_the_type_noun_keeps_the_plans_reaching_its_class(football):
    topics = [{**entity(football, "northport").to_dict(), "mention": "Northport Rovers"}]
    players = [walk(football, "northport", ("^plays_for", p)) for p in ("p1", "p2")]
    city = [walk(football, "northport", ("based_in", "harbourton"), plan=1)]
    typed = of_asked_type("which city is Northport Rovers based in", topics, players + city, football)
    assert ends(typed.walks) == ["Harbourton"] and not typed.warnings
    assert typed.applied == {EX + "harbourton": "of class city (the question asks for 'city')"}
    players_first = of_asked_type("which players play for Northport Rovers", topics, players + city, football)
    assert ends(players_first.walks) == ["Aldo Brenner", "Bruno Castell"]


def test_a_type_the_kg_cannot_check_keeps_the_answers_with_a_warning(football):
    topics = [{**entity(football, "northport").to_dict(), "mention": "Northport Rovers"}]
    players = [walk(football, "northport", ("^plays_for", p)) for p in ("p1", "p2")]
    wrong_kind = of_asked_type("which stadiums does Northport Rovers have", topics, players, football)
    assert wrong_kind.walks == players and "no answer is of a class named so" in wrong_kind.warnings[0]
    assert "football player" in wrong_kind.warnings[0]
    untyped = kg_from_triples([("Northport", "has_player", "Aldo"), ("Northport", "based_in", "Harbourton")])
    walks = [Walk(Entity(untyped.find_entities("Northport")[0].id, "Northport"),
                  (Triple(Entity(untyped.find_entities("Northport")[0].id, "Northport"), "based_in",
                          Entity(untyped.find_entities("Harbourton")[0].id, "Harbourton")),)).to_dict()]
    unchecked = constrain_walks("which city is Northport based in", [], walks, untyped)
    assert unchecked.walks == walks and "gives the answers no class" in unchecked.warnings[0]
    assert constrain_walks("who plays for Northport", [], walks, untyped).warnings == []  # no type noun: nothing to check
    assert constrain_walks("", [{"bad": 1}, "x"], [], untyped).walks == []  # bad input answers, never crashes


def test_class_names_come_from_the_kg_and_a_modifier_does_not_name_a_class(football):
    names = class_names(football, shared_text_vectors(None))
    player, club = EX + "Player", EX + "Club"
    assert names.named("players", [player, club]) == {player}
    assert names.named("clubs", [player, club]) == {club}
    assert names.named("football", [player, club]) == frozenset()  # "football player" is a player, not football
    assert name_phrase("AggregateRating") == "aggregate rating"


def test_a_compound_class_name_is_named_by_its_last_part_only():
    """Project Gutenberg's class ``pgterms:ebook`` is what "which books" asks for (an ebook is a book); its
    ``pgterms:Bookshelf`` is not (a bookshelf is a shelf)."""
    kg = kg_from_triples([("Moby Dick", "bookshelf", "Best Books"), ("Moby Dick", "type", "ebook"),
                          ("Best Books", "type", "Bookshelf")])
    names = class_names(kg, shared_text_vectors(None))
    ebook, shelf = (kg.find_entities(name)[0].id for name in ("ebook", "Bookshelf"))
    assert names.named("books", [ebook, shelf]) == {ebook}
    assert same_word("genres", "genre") and same_word("industries", "industry")
    # a derivational ending makes another noun (session 13): a membership is not a member
    assert not same_word("members", "membership")
    assert not same_word("books", "bookshelf") and not same_word("films", "filmography")


def test_rog_and_tog_answer_films_for_what_films_on_schema_org():
    """``schema:Movie`` names "films": the writer's films, not the genres of their films (``^author -> genre``)."""
    kg = load_kg(STYLES / "schemaorg" / "kg.ttl")
    question = next(json.loads(line) for line in (STYLES / "schemaorg" / "questions.jsonl").read_text().splitlines()
                    if "what films did [Dmitri Dunmore] write" in line)
    for graph in (create_rog_graph(kg), create_tog_graph(kg)):
        result = graph.compile().invoke({"question": question["question"]})
        assert result["answers"][0]["answer"] in question["answers"], result["answers"][:3]


@pytest.mark.parametrize("backend", ["memory", "oxigraph"])
@pytest.mark.parametrize("create", [create_rog_graph, create_tog_graph])
def test_freebase_types_are_classes_the_type_noun_is_checked_against(create, backend, tmp_path):
    """Freebase writes a node's class with ``type.object.type`` (``ns:film.film``, named "Film" by
    ``type.object.name``): a default class predicate, so "what films ..." is checked on a Freebase extract too."""
    from kg_agent.kg import build_oxigraph, open_oxigraph

    source = STYLES / "freebase" / "kg.nt"
    with contextlib.ExitStack() as opened:
        kg = load_kg(source) if backend == "memory" else opened.enter_context(
            open_oxigraph(build_oxigraph(source, tmp_path / "store")))
        result = create(kg).compile().invoke({"question": "what films did Jonah Tanaka act in"})
    assert sorted(a["answer"] for a in result["answers"]) == ["The Dark Meadow", "The Last Tide", "The Silent Signal"]
    assert all("of class film" in a["constraints"] for a in result["answers"])
    assert not any("gives the answers no class" in w for w in result["warnings"])


def test_what_films_did_an_actor_act_in_on_wikidata_reads_the_instance_of_film(tmp_path):
    """Wikidata's 40-film domain (``benchmarks/rdf_styles.py``): "what films did [X] act in" walked
    ``^cast member -> cast member -> ^director`` ("films" in the alias "film director"); the films' ``instance of``
    *film* now evidences ``^cast member`` (docs/benchmarks.md 13d "left", 13e)."""
    script = HERE.parent / "benchmarks" / "rdf_styles.py"
    subprocess.run([sys.executable, str(script), "generate", "--out", str(tmp_path), "--styles", "wikidata"],
                   check=True, capture_output=True, env={"PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin"})
    kg = load_kg(tmp_path / "wikidata" / "kg.ttl")
    questions = [json.loads(line) for line in (tmp_path / "wikidata" / "questions.jsonl").read_text().splitlines()
                 if " act in" in line]
    assert len(questions) == 2
    app = create_rog_graph(kg).compile()
    for question in questions:
        answers = [a["answer"] for a in app.invoke({"question": question["question"]})["answers"]]
        assert answers and answers[0] in question["answers"], (question["question"], answers[:3])


def test_classes_of_reads_the_same_on_memory_and_oxigraph(football, tmp_path):
    from kg_agent.kg import build_oxigraph, open_oxigraph

    keys = [EX + k for k in ("p1", "northport", "harbourton", "forward")] + ['"a literal"', EX + "nothing"]
    want = {EX + "p1": [EX + "Player"], EX + "northport": [EX + "Club"], EX + "harbourton": [EX + "City"],
            EX + "forward": [EX + "Position"]}
    assert football.classes_of(keys) == want
    with open_oxigraph(build_oxigraph(FOOTBALL, tmp_path / "store")) as stored:
        assert stored.classes_of(keys) == want


DYNASTY = """@prefix ex: <http://example.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:dynasty rdfs:label "Julio-Claudian Dynasty" .
ex:Membership rdfs:label "Membership" . ex:Person rdfs:label "Person" .
ex:augustus rdfs:label "Augustus" ; a ex:Person ; ex:memberOf ex:dynasty ; ex:hasMembership ex:m1 .
ex:tiberius rdfs:label "Tiberius" ; a ex:Person ; ex:memberOf ex:dynasty ; ex:hasMembership ex:m2 .
ex:m1 a ex:Membership ; ex:role ex:emperor . ex:m2 a ex:Membership ; ex:role ex:emperor .
ex:emperor rdfs:label "Roman Emperor" .
"""


def test_a_statement_nodes_class_is_no_answers_type(tmp_path):
    # Nomisma's shape: "how many members" names the class of the membership statements (members ~ Membership); those
    # nodes are steps inside a fact, never answers, so their class does not make the named members' plan drop out
    path = tmp_path / "dynasty.ttl"
    path.write_text(DYNASTY, encoding="utf-8")
    kg = load_kg(path)
    ex = "http://example.org/"
    topics = [{"id": ex + "dynasty", "label": "Julio-Claudian Dynasty", "mention": "Julio-Claudian dynasty"}]

    def node(key: str) -> Entity:
        return Entity(ex + key, kg.label(ex + key))

    def walk_over(*hops: tuple[str, str], plan: int) -> dict:
        steps, head = [], node("dynasty")
        for relation, tail in hops:
            steps.append(Triple(head, relation, node(tail)))
            head = steps[-1].tail
        return Walk(node("dynasty"), tuple(steps), details={"plan": plan}).to_dict()

    members = [walk_over(("^memberOf", m), plan=0) for m in ("augustus", "tiberius")]
    memberships = [walk_over(("^memberOf", "augustus"), ("hasMembership", "m1"), plan=1)]
    typed = of_asked_type("How many members of the Julio-Claudian dynasty are recorded?", topics,
                          members + memberships, kg)
    assert ends(typed.walks)[:2] == ["Augustus", "Tiberius"]
