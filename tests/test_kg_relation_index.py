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
