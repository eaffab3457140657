"""RoG's Algorithm 1 (retrieve_paths) and Q(z) (shortest_relation_paths), hand-checked on the fixture slices."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import Path as KGPath
from kg_agent.kg import entity_iri, load_kg, relation_path_text, retrieve_paths, shortest_relation_paths

E = lambda name: str(entity_iri(name))  # noqa: E731


@pytest.fixture(scope="module")
def metaqa(fixtures_dir: Path):
    return load_kg(fixtures_dir / "kg" / "metaqa_slice.txt")


@pytest.fixture(scope="module")
def webqsp(fixtures_dir: Path):
    return load_kg(fixtures_dir / "kg" / "webqsp_slice.jsonl")


@pytest.fixture(scope="module")
def twowiki(fixtures_dir: Path):
    return load_kg(fixtures_dir / "kg" / "twowiki_slice.jsonl")


def labels(result):
    return {e.label for e in result.answers}


def test_one_hop_actor_to_movie_matches_metaqa_gold(metaqa):
    # 1-hop/qa_dev.txt line 1: "what movies did [Temuera Morrison] act in\tOnce Were Warriors|Tracker|River Queen"
    # qtype actor_to_movie -> ^starred_actors
    result = retrieve_paths(metaqa, [E("Temuera Morrison")], ["^starred_actors"])
    assert labels(result) == {"Once Were Warriors", "Tracker", "River Queen"}
    assert not result.truncated and result.relation_path == ("^starred_actors",)
    assert all(len(p) == 1 and p.start.label == "Temuera Morrison" for p in result.paths)


def test_two_hop_same_director_does_not_return_the_start_film(metaqa):
    # 2-hop/qa_dev.txt: "what are the movies that are directed by the same director of [Combat Shock]
    # \tLife Is Hot in Cracktown|The Theatre Bizarre" (movie_to_director_to_movie)
    result = retrieve_paths(metaqa, [E("Combat Shock")], ["directed_by", "^directed_by"])
    assert labels(result) == {"Life Is Hot in Cracktown", "The Theatre Bizarre"}
    assert [p.text() for p in result.paths] == [
        "Combat Shock -> directed_by -> Buddy Giovinazzo -> ^directed_by -> Life Is Hot in Cracktown",
        "Combat Shock -> directed_by -> Buddy Giovinazzo -> ^directed_by -> The Theatre Bizarre",
    ]
    # "the director of [The Place Promised in Our Early Days] also directed which films"
    shinkai = retrieve_paths(metaqa, [E("The Place Promised in Our Early Days")], ["directed_by", "^directed_by"])
    assert labels(shinkai) == {"Voices of a Distant Star", "The Garden of Words", "5 Centimeters Per Second"}


def test_path_value_object(metaqa):
    [path, _] = retrieve_paths(metaqa, [E("Combat Shock")], ["directed_by", "^directed_by"]).paths
    assert path.relations == ("directed_by", "^directed_by")
    assert [e.label for e in path.entities] == ["Combat Shock", "Buddy Giovinazzo", "Life Is Hot in Cracktown"]
    assert path.end.id == E("Life Is Hot in Cracktown") and len(path) == 2
    assert path.steps[1].text() == "Buddy Giovinazzo -> ^directed_by -> Life Is Hot in Cracktown"
    assert KGPath.from_dict(path.to_dict()) == path
    assert path.to_dict()["text"] == path.text()
    assert relation_path_text(path.relations) == "<PATH> directed_by <SEP> ^directed_by </PATH>"


def test_a_step_never_walks_the_step_before_back_to_where_it_began(metaqa):
    # r then ^r reaches the others: the films that share a director with Combat Shock are not Combat Shock
    shared = retrieve_paths(metaqa, [E("Combat Shock")], ["directed_by", "^directed_by"])
    assert labels(shared) == {"Life Is Hot in Cracktown", "The Theatre Bizarre"}
    # every other way back is walked, as the paper's Algorithm 1 walks it: Shinkai directed, wrote and starred in
    # Voices of a Distant Star, so the films its director starred in are that film
    result = retrieve_paths(metaqa, [E("Voices of a Distant Star")], ["directed_by", "^starred_actors"])
    assert [p.text() for p in result.paths] == [
        "Voices of a Distant Star -> directed_by -> Makoto Shinkai -> ^starred_actors -> Voices of a Distant Star"]
    three = retrieve_paths(metaqa, [E("Combat Shock")], ["directed_by", "^directed_by", "directed_by"])
    for path in three.paths:
        assert E("Combat Shock") not in [e.id for e in path.entities[1:]]
    # The Theatre Bizarre has six directors: its others (the third step walks the second backwards, so not back to
    # Giovinazzo); another relation may come back to him: he also wrote Life Is Hot in Cracktown
    assert labels(three) == {"David Gregory", "Douglas Buck", "Karim Hussain", "Richard Stanley", "Tom Savini"}
    writers = retrieve_paths(metaqa, [E("Combat Shock")], ["directed_by", "^directed_by", "written_by"])
    assert "Buddy Giovinazzo" in labels(writers)
    assert any(len({e.id for e in p.entities}) < len(p.entities) for p in writers.paths)


def test_max_paths_truncates_deterministically(metaqa):
    full = retrieve_paths(metaqa, [E("The Theatre Bizarre")], ["directed_by"])
    assert len(full.paths) == 6 and not full.truncated
    exact = retrieve_paths(metaqa, [E("The Theatre Bizarre")], ["directed_by"], max_paths=6)
    assert len(exact.paths) == 6 and not exact.truncated
    cut = retrieve_paths(metaqa, [E("The Theatre Bizarre")], ["directed_by"], max_paths=4)
    assert cut.truncated and cut.paths == full.paths[:4]
    cut2 = retrieve_paths(metaqa, [E("Combat Shock")], ["directed_by", "^directed_by"], max_paths=1)
    assert cut2.truncated and len(cut2.paths) == 1


def test_a_cut_with_relevance_keeps_the_best_scoring_paths_and_counts_the_dropped(metaqa):
    # The Theatre Bizarre has 6 directors; breadth-first order keeps the first 4 (Buddy Giovinazzo .. Karim
    # Hussain). Scored by a question about Tom Savini, the cut keeps his path first.
    bfs = retrieve_paths(metaqa, [E("The Theatre Bizarre")], ["directed_by"], max_paths=4)
    assert "Tom Savini" not in labels(bfs) and bfs.truncated and bfs.dropped == 2
    best = retrieve_paths(metaqa, [E("The Theatre Bizarre")], ["directed_by"], max_paths=4,
                          relevance=lambda entity: float("Savini" in entity.label))
    assert best.truncated and best.dropped == 2 and len(best.paths) == 4
    assert best.paths[0].end.label == "Tom Savini"
    # ties keep breadth-first order
    assert [p.end.label for p in best.paths[1:]] == ["Buddy Giovinazzo", "David Gregory", "Douglas Buck"]
    # an intermediate step keeps more than max_paths partial paths, so the best end is still reachable
    two_hop = retrieve_paths(metaqa, [E("Combat Shock")], ["directed_by", "^directed_by"], max_paths=1,
                             relevance=lambda entity: float(entity.label == "The Theatre Bizarre"))
    assert [p.end.label for p in two_hop.paths] == ["The Theatre Bizarre"] and two_hop.dropped == 1


def test_unknown_relation_or_entity_gives_no_paths(metaqa):
    for starts, rels in (([E("Combat Shock")], ["produced_by"]), ([E("Combat Shock")], ["directed_by", "nope"]),
                         ([E("No Such Film")], ["directed_by"]), ([], ["directed_by"])):
        result = retrieve_paths(metaqa, starts, rels)
        assert result.paths == [] and result.answers == [] and not result.truncated


def test_several_starts_are_deduplicated(metaqa):
    one = retrieve_paths(metaqa, [E("Tracker")], ["starred_actors"])
    twice = retrieve_paths(metaqa, [E("Tracker"), E("Tracker")], ["starred_actors"])
    assert one.paths == twice.paths
    both = retrieve_paths(metaqa, [E("Tracker"), E("Combat Shock")], ["directed_by"])
    assert {p.start.label for p in both.paths} == {"Tracker", "Combat Shock"}


def test_webqsp_spouse_through_marriage_node(webqsp):
    # Hand-checked in webqsp_slice.jsonl: Richard Nixon -people.person.spouse_s-> m.02h98gq
    # -people.marriage.spouse-> {Richard Nixon, Pat Nixon}: the marriage leads back to the start too (no step walks the
    # one before backwards); the answer step puts the question's own entity after the others
    result = retrieve_paths(webqsp, [E("Richard Nixon")], ["people.person.spouse_s", "people.marriage.spouse"])
    assert sorted(p.text() for p in result.paths) == [
        "Richard Nixon -> people.person.spouse_s -> (unnamed) -> people.marriage.spouse -> Pat Nixon",
        "Richard Nixon -> people.person.spouse_s -> (unnamed) -> people.marriage.spouse -> Richard Nixon"]
    jamaica = retrieve_paths(webqsp, [E("Jamaica")], ["location.country.languages_spoken"])
    assert labels(jamaica) == {"Jamaican English", "Jamaican Creole English Language"}
    inverse = retrieve_paths(webqsp, [E("Jamaica")], ["^language.human_language.countries_spoken_in"])
    assert labels(inverse) == labels(jamaica)


def test_shortest_relation_paths_on_fixtures(metaqa, twowiki, webqsp):
    # Giovinazzo directed and wrote both films: four 2-hop relation paths, alphabetical (equal counts)
    assert shortest_relation_paths(metaqa, [E("Combat Shock")], [E("Life Is Hot in Cracktown")]) == [
        ("directed_by", "^directed_by"), ("directed_by", "^written_by"),
        ("written_by", "^directed_by"), ("written_by", "^written_by")]
    assert shortest_relation_paths(metaqa, [E("Temuera Morrison")], [E("Tracker")]) == [("^starred_actors",)]
    assert shortest_relation_paths(twowiki, [E("Charles James Mathew")], [E("Cork")]) == [("father", "place of burial")]
    jamaica = shortest_relation_paths(webqsp, [E("Jamaica")], [E("Jamaican English"), E("Jamaican Creole English Language")])
    assert set(jamaica) == {("location.country.languages_spoken",), ("^language.human_language.countries_spoken_in",)}
    nixon = shortest_relation_paths(webqsp, [E("Richard Nixon")], [E("Pat Nixon")], max_hops=2)
    assert ("people.person.spouse_s", "people.marriage.spouse") in nixon
    assert all(len(rels) == 2 for rels in nixon)  # no 1-hop link between them in the slice


def test_shortest_relation_paths_counts_pairs_and_respects_limits(metaqa):
    films = [E("Voices of a Distant Star"), E("The Garden of Words")]
    ranked = shortest_relation_paths(metaqa, [E("The Place Promised in Our Early Days")], films)
    # used by both (start, target) pairs first
    assert ranked[0] == ("directed_by", "^directed_by")
    assert ("directed_by", "^starred_actors") in ranked  # Shinkai stars in Voices only
    assert ranked.index(("directed_by", "^starred_actors")) > ranked.index(("written_by", "^written_by"))
    assert shortest_relation_paths(metaqa, [E("Combat Shock")], [E("Life Is Hot in Cracktown")], max_hops=1) == []
    assert shortest_relation_paths(metaqa, [E("Combat Shock")], [E("Combat Shock")]) == []
    assert len(shortest_relation_paths(metaqa, [E("Combat Shock")], [E("Life Is Hot in Cracktown")],
                                       max_relation_paths=2)) == 2


def test_every_shortest_relation_path_reaches_its_target(metaqa):
    start, target = E("Once Were Warriors"), E("River Queen")
    rel_paths = shortest_relation_paths(metaqa, [start], [target])
    assert rel_paths
    for rels in rel_paths:
        assert target in {e.id for e in retrieve_paths(metaqa, [start], rels).answers}


def test_fast_constructors_build_the_same_frozen_objects():
    import dataclasses

    import pytest

    from kg_agent.kg.types import Entity, Path, Triple, new_entity, new_path, new_triple

    a, b = Entity("a", "A"), Entity("b", "B")
    fast = new_path(new_entity("a", "A"), (new_triple(new_entity("a", "A"), "r", new_entity("b", "B")),))
    slow = Path(a, (Triple(a, "r", b),))
    assert fast == slow and hash(fast) == hash(slow) and fast.text() == "A -> r -> B"
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.start = b  # type: ignore[misc]


def test_plans_sharing_a_prefix_walk_the_store_once_with_the_same_paths(metaqa, fixtures_dir: Path):
    from kg_agent.tools.rog.retrieve import retrieve_for_plans

    kg = load_kg(fixtures_dir / "kg" / "metaqa_slice.txt")  # its own store: the walks are counted
    store_walks: list[tuple[str, tuple[str, ...]]] = []
    walk = kg.store.walk

    def counted(keys, relation, *, limit=None):
        store_walks.append((relation, tuple(keys)))
        return walk(keys, relation, limit=limit)

    kg.store.walk = counted
    topic = [metaqa.entity(E("Combat Shock"))]
    plans = [{"relations": ["directed_by"]}, {"relations": ["directed_by", "^directed_by"]},
             {"relations": ["directed_by", "^directed_by", "directed_by"]}]
    paths, _ = retrieve_for_plans(kg, topic, plans, question="who directed [Combat Shock]")
    assert [relation for relation, _ in store_walks] == ["directed_by", "^directed_by", "directed_by"]
    separately = [path for index, plan in enumerate(plans)
                  for path in ({**p.to_dict(), "plan": index}
                               for p in retrieve_paths(metaqa, [E("Combat Shock")], plan["relations"],
                                                       relevance=lambda entity: 0.0).paths)]
    assert paths == separately and len({p["plan"] for p in paths}) == 3


@pytest.mark.parametrize("in_one_query", [True, False], ids=["one-query", "step-by-step"])
def test_a_step_with_more_entities_than_the_label_cache_fetches_each_label_once(metaqa, fixtures_dir: Path,
                                                                              tmp_path, in_one_query):
    # The labels of a step's entities are fetched in batches and used as fetched: before, they went through
    # the LRU label cache, and a hub's entities beyond its size were fetched again one query each. Oxigraph
    # answers a plan no cut applies to in one query, labels included; the step-by-step walk (a cut plan, a
    # blank-node start) fetches each step's labels in one query.
    from kg_agent.kg import build_oxigraph, open_oxigraph
    from kg_agent.kg.stores.base import CompletePaths

    store = build_oxigraph(fixtures_dir / "kg" / "metaqa_slice.txt", tmp_path / "store")
    plan = ["has_genre", "^has_genre"]  # a film's genres, then every film of those genres
    expected = retrieve_paths(metaqa, [E("Combat Shock")], plan)
    reached = {e.id for path in expected.paths for e in path.entities}
    assert len(reached) == 9
    with open_oxigraph(store, cache_size=2) as kg:
        fetched: list[int] = []
        fetch = kg.store.fetch_labels

        def counted(keys):
            fetched.append(len(keys))
            return fetch(keys)

        kg.store.fetch_labels = counted
        if not in_one_query:
            kg.store.complete_paths = lambda *args, **kwargs: CompletePaths({}, {})
        found = retrieve_paths(kg, [E("Combat Shock")], plan)
    assert [p.text() for p in found.paths] == [p.text() for p in expected.paths]
    if in_one_query:
        assert fetched == [1]  # the start's label; the others came with the paths
    else:
        assert sum(fetched) == len(reached) and len(fetched) == len(plan)  # one query per step
