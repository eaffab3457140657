"""Named role nodes are statements too (issue 45 item 2, issue 46): a node whose label names a role, repeated on
one node per fact ("Conductor" of each concert), joining a thing to the one who held the role, is recognised from
the data on every backend, walked through, never answered, and its label, when the question names it, selects the
walk ("who was the conductor of [X]": the holder of [X]'s "Conductor" node, not its soloist).

Fixture: ``tests/fixtures/roles/orchestra.ttl`` (concerts, their engagements labelled "Conductor", "Concertmaster",
"Soloist", the musicians who held them; genre tags of repeated labels that all point to one scheme).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.rog import create_rog_graph
from kg_agent.graphs.tog import create_tog_graph
from kg_agent.graphs.tog_i import create_tog_i_graph
from kg_agent.kg import build_oxigraph, load_kg, open_oxigraph, open_sparql
from kg_agent.kg.nameless import Nameless
from kg_agent.kg.role_nodes import role_nodes
from kg_agent.kg.types import Entity, Triple
from kg_agent.kg.walks import Walk
from kg_agent.tools.shared.answer_checks import final_answers
from kg_agent.tools.shared.answer_types import RelationObjectKinds
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.role_qualifiers import qualified_walks
from tests.sparql_server import SparqlServer, store_from_graph

ORCHESTRA = Path(__file__).resolve().parent / "fixtures" / "roles" / "orchestra.ttl"
EX = "http://example.org/orchestra/"


@pytest.fixture(scope="module")
def orchestra():
    return load_kg(ORCHESTRA)


def test_a_class_of_repeated_labels_joining_varying_things_is_a_role_class(orchestra):
    roles = role_nodes(orchestra)
    assert roles.is_role_class(EX + "Engagement")
    assert not roles.is_role_class(EX + "Musician")  # one label each: individuals
    assert not roles.is_role_class(EX + "Concert")
    # repeated labels ("Symphony"), but each tag joins its concert to the one scheme every tag points to: a value
    assert not roles.is_role_class(EX + "GenreTag")
    assert roles.among([EX + "spring_gala_conductor", EX + "ines", EX + "spring_gala", EX + "spring_gala_genre",
                        '"Harbour Hall, Lisbon"']) == {EX + "spring_gala_conductor"}
    assert roles.labels_reached_by("hasEngagement") == ("Concertmaster", "Conductor", "Soloist")
    assert roles.labels_reached_by("^performedBy") == ("Concertmaster", "Conductor", "Soloist")
    assert roles.labels_reached_by("genre") == ()
    # a class's members (``^type``) hold role nodes as they hold musicians: no relation to a role
    assert roles.labels_reached_by("^type") == ()


def test_role_nodes_are_found_alike_in_oxigraph_and_at_a_sparql_endpoint(orchestra, tmp_path):
    keys = [EX + "winter_serenade_soloist", EX + "lia", EX + "winter_serenade_genre"]
    with open_oxigraph(build_oxigraph(ORCHESTRA, tmp_path / "store")) as stored:
        assert role_nodes(stored).among(keys) == {EX + "winter_serenade_soloist"}
    with SparqlServer(store_from_graph(orchestra.graph)) as server:
        remote = open_sparql(server.url)
        assert role_nodes(remote).among(keys) == {EX + "winter_serenade_soloist"}
        assert role_nodes(remote).labels_reached_by("hasEngagement") == ("Concertmaster", "Conductor", "Soloist")


def test_a_role_node_is_a_statement_never_an_answer(orchestra):
    assert Nameless.among(orchestra, [EX + "autumn_premiere_soloist", EX + "clara"]).statements == {
        EX + "autumn_premiere_soloist"}
    answers = [{"answer": "Soloist", "entity_id": EX + "autumn_premiere_soloist", "grounded": True}]
    checked = final_answers("what engagements did the Autumn Premiere have", answers, kg=orchestra)
    assert checked.answers == [] and checked.stop_reason == "abstained"
    # the relation into role nodes is one into statement nodes for the scorer and the answer-type profile
    kinds = RelationObjectKinds(orchestra).kinds("hasEngagement")
    assert kinds.unnamed == 1.0 and kinds.role_labels == ("Concertmaster", "Conductor", "Soloist")


def _walk(kg, *keys_and_relations: str) -> dict:
    keys, relations = keys_and_relations[::2], keys_and_relations[1::2]
    nodes = [Entity(EX + key, kg.label(EX + key)) for key in keys]
    return Walk(nodes[0], tuple(Triple(h, r, t) for h, r, t in zip(nodes, relations, nodes[1:]))).to_dict()


def test_the_role_the_question_names_selects_the_walks_through_it(orchestra):
    walks = [_walk(orchestra, "spring_gala", "hasEngagement", f"spring_gala_{role}", "performedBy", who)
             for role, who in (("conductor", "ines"), ("concertmaster", "tomas"), ("soloist", "clara"))]
    kept = qualified_walks("Who was the conductor of the Spring Gala Concert?", walks, orchestra)
    assert [Walk.end_of(w)["label"] for w in kept] == ["Ines Valdera"]
    # "concertmaster" names the Concertmaster, not the conductor (every stem of the label is in the question)
    kept = qualified_walks("Who was concertmaster at the Spring Gala Concert?", walks, orchestra)
    assert [Walk.end_of(w)["label"] for w in kept] == ["Tomas Ribeira"]
    # no role named: every walk stays
    assert qualified_walks("Who performed at the Spring Gala Concert?", walks, orchestra) == walks


def test_the_planner_walks_through_the_role_node_the_question_names(orchestra):
    scorer = RelationPathScorer()
    paths = [("hasEngagement",), ("hasEngagement", "performedBy"), ("venue",), ("genre",)]
    scores = scorer.score("Who was the conductor of [ENT]?", paths, kg=orchestra)
    assert max(range(len(paths)), key=scores.__getitem__) == 1


@pytest.mark.parametrize("create", [create_rog_graph, create_tog_graph, create_tog_i_graph])
@pytest.mark.parametrize(("question", "gold"), [
    ("Who was the conductor of the Spring Gala Concert?", ["Ines Valdera"]),
    ("Who was the soloist at the Autumn Premiere?", ["Clara Monteverde"]),
    ("Who was the concertmaster of the Winter Serenade?", ["Joao Penafiel"]),
])
def test_every_method_answers_the_holder_of_the_named_role(orchestra, create, question, gold):
    result = create(orchestra).compile().invoke({"question": question})
    assert [a["answer"] for a in result["answers"]] == gold


LEAGUE = """@prefix ex: <http://example.org/league/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:s2021 a ex:Season ; rdfs:label "2021 season" ; ex:hasPart ex:s2021n, ex:s2021s .
ex:s2022 a ex:Season ; rdfs:label "2022 season" ; ex:hasPart ex:s2022n, ex:s2022s .
ex:s2023 a ex:Season ; rdfs:label "2023 season" ; ex:hasPart ex:s2023n, ex:s2023s .
ex:s2021n a ex:Division ; rdfs:label "North Division" ; ex:hasPart ex:harbour, ex:millers .
ex:s2021s a ex:Division ; rdfs:label "South Division" ; ex:hasPart ex:rovers, ex:vale .
ex:s2022n a ex:Division ; rdfs:label "North Division" ; ex:hasPart ex:wharf, ex:rangers .
ex:s2022s a ex:Division ; rdfs:label "South Division" ; ex:hasPart ex:albion, ex:city .
ex:s2023n a ex:Division ; rdfs:label "North Division" ; ex:hasPart ex:harbour, ex:wharf .
ex:s2023s a ex:Division ; rdfs:label "South Division" ; ex:hasPart ex:albion, ex:vale .
ex:harbour a ex:Club ; rdfs:label "Harbour FC" .
ex:millers a ex:Club ; rdfs:label "Millers United" .
ex:rovers a ex:Club ; rdfs:label "Rovers" .
ex:vale a ex:Club ; rdfs:label "Vale Athletic" .
ex:wharf a ex:Club ; rdfs:label "Wharf Town" .
ex:rangers a ex:Club ; rdfs:label "Rangers" .
ex:albion a ex:Club ; rdfs:label "Albion" .
ex:city a ex:Club ; rdfs:label "City" .
"""


def test_a_level_of_a_hierarchy_with_repeated_labels_is_no_role_class(tmp_path):
    # each season's "North Division" joins the season to its clubs, but by the relation that also leads into it:
    # a part of the season with parts of its own, a thing, not a statement (its clubs are no holders of it)
    path = tmp_path / "league.ttl"
    path.write_text(LEAGUE, encoding="utf-8")
    league = load_kg(path)
    assert not role_nodes(league).is_role_class("http://example.org/league/Division")


def test_a_large_class_is_sampled_in_an_oxigraph_store_without_reading_every_member(tmp_path):
    # a class of 1,000 members (more than ROLE_SAMPLE): its sample is read with LIMIT inside the engine, not counted
    # and read whole as a walk cut by id order is (99 s for a class of 6M members in a 104M-triple store)
    from kg_agent.kg.role_nodes import ROLE_SAMPLE

    lines = [f"<{EX}m{i:04d}> a <{EX}Musician> ; <http://www.w3.org/2000/01/rdf-schema#label> \"Player {i}\" ."
             for i in range(1000)]
    source = tmp_path / "players.ttl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with open_oxigraph(build_oxigraph(source, tmp_path / "store")) as stored:
        counted, walked = [], []
        inner_count, inner_walk = stored.store.count_batch, stored.store.walk_batch
        stored.store.count_batch = lambda *a, **k: counted.append(a) or inner_count(*a, **k)
        stored.store.walk_batch = lambda keys, relation, limit: walked.append(limit) or inner_walk(keys, relation, limit)
        fan_out = sorted(stored.class_fan_outs())[0]
        members = stored.sample_targets(EX + "Musician", fan_out, ROLE_SAMPLE)
        assert len(members) == ROLE_SAMPLE and members == sorted(members)
        assert all(m.startswith(EX + "m") for m in members)
        assert not counted and walked == [ROLE_SAMPLE]
        assert not role_nodes(stored).is_role_class(EX + "Musician")  # one label each: individuals
        assert not counted and all(limit is not None for limit in walked)
    # a class no larger than the sample gives the same members on every backend
    small = load_kg(ORCHESTRA)
    with open_oxigraph(build_oxigraph(ORCHESTRA, tmp_path / "orchestra")) as stored:
        for fan_out in small.class_fan_outs():
            assert small.sample_targets(EX + "Engagement", fan_out, ROLE_SAMPLE) == \
                stored.sample_targets(EX + "Engagement", fan_out, ROLE_SAMPLE)
