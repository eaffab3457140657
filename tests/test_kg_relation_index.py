"""The schema-level relation index and the candidate relation paths grown from it (kg/relation_index.py)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from kg_agent.kg import build_oxigraph, entity_iri, load_kg, open_oxigraph
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.relation_index import RelationIndex, RelationIndexBuilder
from kg_agent.kg.relation_paths import walkable_relation_paths
from kg_agent.kg.types import inverse

E = lambda name: str(entity_iri(name))  # noqa: E731



def sampled_walkable_relation_paths(
    kg: KnowledgeGraph,
    starts: Iterable[str],
    *,
    max_hops: int = 3,
    max_paths: int = 2000,
    frontier_sample: int = 200,
) -> list[tuple[str, ...]]:
    """The candidate relation paths as they were computed before the relation index (the reference here).

    A step is added only if some entity reached so far has that relation (its first ``frontier_sample``
    entities in id order are inspected, which keeps hub entities cheap) and it reaches an entity other than
    where the step before began when it walks that step backwards. Every inspected entity's neighbourhood is
    read, batched on endpoints.
    """
    starts = list(dict.fromkeys(starts))
    found: list[tuple[str, ...]] = []
    layer: list[tuple[tuple[str, ...], list[tuple[str, ...]]]] = [((), [(s,) for s in starts])]
    for _hop in range(max_hops):
        next_layer = []
        for relations, partials in layer:
            options: dict[str, list[tuple[str, ...]]] = {}
            sample = partials[:frontier_sample]
            kg.prefetch(partial[-1] for partial in sample)
            for partial in sample:
                for rel, targets in kg.edges(partial[-1]).items():
                    back = bool(relations) and rel == inverse(relations[-1])  # not straight back (turns_back)
                    fresh = [partial + (t,) for t in targets if not (back and t == partial[-2])]
                    if fresh:
                        options.setdefault(rel, []).extend(fresh[:frontier_sample])
            for rel in sorted(options):
                sequence = relations + (rel,)
                found.append(sequence)
                next_layer.append((sequence, sorted(options[rel])[: frontier_sample * 4]))
                if len(found) >= max_paths:
                    return found
        layer = next_layer
    return found


def test_builder_counts_which_relation_follows_which():
    builder = RelationIndexBuilder()
    builder.add("film1", "dir", "ann")
    builder.add("film2", "dir", "ann")
    builder.add("film1", "star", "bob")
    index = builder.build()
    # arriving at a film over ^dir (from a director), the film has dir and star
    assert index.following("^dir") == {"dir": 2, "star": 1}
    # arriving at ann over dir, ann has only ^dir (back to the films)
    assert index.following("dir") == {"^dir": 1}
    assert index.following("star") == {"^star": 1}
    assert index.predicates() == ["dir", "star"] and index.triples == 3


def test_index_round_trips_and_a_broken_file_is_a_clear_error(tmp_path: Path):
    builder = RelationIndexBuilder()
    builder.add("a", "p", "b")
    path = tmp_path / "index.json"
    builder.build().save(path)
    assert RelationIndex.load(path).following("p") == {"^p": 1}
    path.write_text("{not json", encoding="utf-8")
    from kg_agent.kg import KGLoadError

    with pytest.raises(KGLoadError, match="not a usable relation index"):
        RelationIndex.load(path)


@pytest.fixture(scope="module")
def metaqa_slice(fixtures_dir: Path):
    return load_kg(fixtures_dir / "kg" / "metaqa_slice.txt")


@pytest.fixture(scope="module")
def metaqa_slice_store(fixtures_dir: Path, tmp_path_factory):
    target = tmp_path_factory.mktemp("ox") / "slice.oxigraph"
    build_oxigraph(fixtures_dir / "kg" / "metaqa_slice.txt", target)
    kg = open_oxigraph(target)
    yield kg
    kg.close()


def test_oxigraph_walks_and_candidates_equal_memory(metaqa_slice, metaqa_slice_store):
    memory, oxigraph = metaqa_slice, metaqa_slice_store
    assert oxigraph.relation_index() is not None
    starts = [E("Buddy Giovinazzo"), E("Combat Shock"), E("Makoto Shinkai")]
    for start in starts:
        assert walkable_relation_paths(oxigraph, [start]) == walkable_relation_paths(memory, [start]), start
        assert oxigraph.relations_at(start) == memory.relations_at(start)
    films = memory.neighbors(E("Buddy Giovinazzo"), "^directed_by")
    assert oxigraph.walk(films, "directed_by") == memory.walk(films, "directed_by")
    assert oxigraph.walk([E("Buddy Giovinazzo")], "^directed_by") == {E("Buddy Giovinazzo"): films}
    # directed_by then ^directed_by walks only when the director made another film
    assert oxigraph.walkable([E("Combat Shock")], ["directed_by", "^directed_by"]) == \
        memory.walkable([E("Combat Shock")], ["directed_by", "^directed_by"]) is True
    assert not oxigraph.walkable([E("Combat Shock")], ["no_such_relation"])


def test_candidates_on_metaqa_equal_todays_sampled_walk_where_it_is_complete(data_dir: Path):
    """Seeded MetaQA 2-hop dev topics: the index gives every candidate the sampled walk gives.

    Where they differ, the sampled walk missed a path through a hub (it inspects 200 frontier entities):
    every extra candidate is checked exhaustively to be walkable.
    """
    kg = load_kg(data_dir / "metaqa" / "kb.txt")
    lines = (data_dir / "metaqa" / "2-hop" / "qa_dev.txt").read_text(encoding="utf-8").splitlines()
    names = [re.search(r"\[([^\]]+)\]", line).group(1) for line in lines]
    random.Random(0).shuffle(names)
    equal = 0
    for name in names[:150]:
        starts = [e.id for e in kg.find_entities(name)][:1]
        today = sampled_walkable_relation_paths(kg, starts)
        indexed = walkable_relation_paths(kg, starts)
        assert set(today) <= set(indexed), name
        assert sorted(indexed, key=lambda p: (len(p), p)) == indexed
        for extra in set(indexed) - set(today):
            assert kg.store.walkable(starts, extra, budget=10**9), (name, extra)
        equal += today == indexed
    assert equal >= 120  # 150 minus the topics whose walk passes a sampled hub


def test_the_index_keeps_which_predicates_reach_literals_and_when_every_walk_goes_on(tmp_path: Path):
    builder = RelationIndexBuilder()
    builder.add("film1", "dir", "ann")
    builder.add("film2", "dir", "bob")
    builder.add("ann", "born", "city1")
    builder.add("bob", "born", "city2")
    builder.add("film1", "note", "", object_walks_on=False)  # a literal
    builder.add("film1", "note", "x")  # and a node
    builder.add("x", "born", "city1")
    index = builder.build()
    assert index.literal_objects == {"note"}
    assert index.repeated == {"^born", "note"}  # city1 is the birthplace of two; film1 has two notes
    assert index.always_follows("dir", "born")  # every director has a birthplace
    assert not index.always_follows("dir", "^dir")  # walking back must reach another film: not known from counts
    assert not index.always_follows("^dir", "dir")  # the same step back from a film
    assert not index.always_follows("^born", "dir")  # x was born somewhere and directed nothing
    assert not index.always_follows("note", "born")  # every node over note has born, but a note may be a literal
    # no director has a second film, so no walk goes from a film to its director and on to another of theirs;
    # city1 has two people born there, so one may go from a person to their birthplace and on to someone else
    assert index.never_follows("dir", "^dir") and not index.never_follows("born", "^born")
    assert index.never_follows("dir", "note") and not index.never_follows("^dir", "note")
    path = tmp_path / "index.json"
    index.save(path)
    assert RelationIndex.load(path).literal_objects == {"note"} and RelationIndex.load(path).repeated == index.repeated
    # an index saved before literal objects were kept, or built from nodes' relations, does not know them
    old = index.to_json()
    del old["literal_objects"], old["repeated"]
    path.write_text(__import__("json").dumps(old), encoding="utf-8")
    older = RelationIndex.load(path)
    assert older.literal_objects is None and older.repeated is None
    assert not older.always_follows("dir", "born") and not older.never_follows("dir", "^dir")
    signatures = RelationIndexBuilder()
    signatures.add_signature(["dir"])
    assert signatures.build().literal_objects is None and signatures.build().repeated is None


class CountedStore:
    """A pyoxigraph store whose SPARQL queries are counted."""

    def __init__(self, inner) -> None:
        self.inner, self.queries = inner, 0

    def query(self, *args, **kwargs):
        self.queries += 1
        return self.inner.query(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.inner, name)


@pytest.fixture
def railway(fixtures_dir: Path, tmp_path: Path):
    """A railway (stations on lines in cities, trains of an operator, depots one of them known only by a name) in
    memory and in an Oxigraph store whose queries are counted."""
    source = fixtures_dir / "kg" / "railway.nt"
    build_oxigraph(source, tmp_path / "railway")
    oxigraph = open_oxigraph(tmp_path / "railway")
    counted = oxigraph.store.store = CountedStore(oxigraph.store.store)
    yield load_kg(source), oxigraph, counted
    oxigraph.close()


def ask_each_candidate(kg: KnowledgeGraph, starts: list[str], *, max_hops: int = 3) -> list[tuple[str, ...]]:
    """The walkable relation paths with every candidate checked against the graph (no relation index shortcut)."""
    found: list[tuple[str, ...]] = []
    layer: list[tuple[str, ...]] = [()]
    fan_outs = kg.class_fan_outs()
    for _hop in range(max_hops):
        grown = [prefix + (rel,) for prefix in layer for rel in kg.store.extension_options(starts, prefix)
                 if not (prefix and rel in fan_outs) and kg.store.walkable(starts, prefix + (rel,))]
        found += grown
        layer = grown
    return found


def test_walkable_paths_read_what_every_walk_does_from_the_index_and_ask_the_rest(railway):
    memory, oxigraph, counted = railway
    rail = "http://example.org/rail/"
    nodes = sorted({key for key in memory.store.node_ids() if key.startswith(rail)})
    assert len(nodes) == 24
    asked = shortcut = 0
    for node in nodes:
        counted.queries = 0
        expected = ask_each_candidate(oxigraph, [node])
        asked += counted.queries
        counted.queries = 0
        assert walkable_relation_paths(oxigraph, [node]) == expected == walkable_relation_paths(memory, [node]), node
        shortcut += counted.queries
    assert shortcut < asked / 2, (shortcut, asked)
    # the trains whose depot is only a name: no walk goes on from it, though every depot node is in a city
    depot, in_city = rail + "depot", rail + "inCity"
    index = oxigraph.store.relation_index()
    assert depot in index.literal_objects and index.follows[depot][in_city] == index.nodes["^" + depot]
    assert ("depot", "inCity") not in walkable_relation_paths(oxigraph, [rail + "train3"])
    assert ("depot", "inCity") in walkable_relation_paths(oxigraph, [rail + "train0"])
    # a station on two lines: from a station of the other line, to its line, to that station, to its other line;
    # no station is in two cities, so none goes on from the stations of a city to another city
    assert rail + "onLine" in index.repeated and "^" + rail + "onLine" in index.repeated
    assert rail + "inCity" not in index.repeated
    assert ("onLine", "^onLine", "onLine") in walkable_relation_paths(oxigraph, [rail + "station1"])
    assert ("inCity", "^inCity", "inCity") not in walkable_relation_paths(oxigraph, [rail + "station1"])


def test_relations_at_a_hub_are_looked_up_per_predicate_and_equal_every_edge_read(railway, monkeypatch):
    from kg_agent.kg.stores import oxigraph as oxigraph_module

    memory, oxigraph, counted = railway
    rail = "http://example.org/rail/"
    nodes = sorted({key for key in memory.store.node_ids() if key.startswith(rail)})
    every = {node: oxigraph.relations_at(node) for node in nodes}
    assert every == {node: memory.relations_at(node) for node in nodes}
    assert every[rail + "line0"] == ["^onLine", "^servesLine", "opened", "operatedBy"]
    monkeypatch.setattr(oxigraph_module, "RELATIONS_READ", 2)  # a line's five stations and three trains: a hub
    oxigraph.store.clear()
    read = []
    lookups = oxigraph.store._predicates_of_hub
    monkeypatch.setattr(oxigraph.store, "_predicates_of_hub",
                        lambda *args, **kwargs: read.append(args[0]) or lookups(*args, **kwargs))
    counted.queries = 0
    assert {node: oxigraph.relations_at(node) for node in nodes} == every
    assert rail + "line0" in read and counted.queries == 0
