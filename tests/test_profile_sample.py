"""The KG profile measured by the load's index pass from the file (kg_agent/kg/loading/profile_sample.py), and the
label file built once with the names it finds (issue 48).

The KG is invented for these tests: a town's bakeries, named by ``ex:bakeryName`` (no known label predicate), their
breads labelled by ``rdfs:label``, with repeated triples, typed and escaped literals, a comment line and a blank
node, in N-Triples and in Turtle."""

from __future__ import annotations

import sqlite3

import pytest

from kg_agent.kg import build_oxigraph, open_oxigraph
from kg_agent.kg.naming import DEFAULT_NAMING
from kg_agent.kg.profile import KGProfile, measure_name_predicates, oxigraph_texts
from kg_agent.kg.store_folder import LABEL_INDEX_FILE, PROFILE_FILE, SIDECAR_DIR

EX = "http://example.org/bakery/"
NAME = f"<{EX}bakeryName>"
LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"
BAKERIES = ["Crumb and Co", "Rye Corner", "The Proving Drawer", "Oven Lane", "Golden Crust", "Sourdough Yard",
            "Flour Mill Café", "Baker Street Loaves"]


def _lines() -> list[str]:
    lines = ["# a town's bakeries (invented for this test)"]
    for number, name in enumerate(BAKERIES):
        bakery = f"<{EX}b{number}>"
        text = name.replace("é", "\\u00E9")  # an escape: read by Oxigraph's parser
        lines += [f'{bakery} {NAME} "{text}" .',
                  f"{bakery} <{EX}bakes> <{EX}bread{number % 3}> .",
                  f'{bakery} <{EX}opened> "{1990 + number}"^^<http://www.w3.org/2001/XMLSchema#integer> .',
                  f'{bakery} <{EX}motto> "Fresh bread every morning since {1990 + number}"@en .']
    lines += [f'{NAME} {LABEL} "bakery name"@en .', f'{NAME} {LABEL} "bakery name"@en .',  # a repeated triple
              f'<{EX}bread0> {LABEL} "rye loaf" .',
              f'<{EX}bread1> {LABEL} "baguette"^^<http://www.w3.org/2001/XMLSchema#string> .',
              f'<{EX}bread2> {LABEL} "pretzel"@de .', f'_:oven {NAME} "the old oven" .']
    return lines


def _write(tmp_path, suffix: str, lines: list[str]):
    path = tmp_path / f"bakeries.{suffix}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", ["nt", "ttl"])
def test_the_profile_read_by_the_pass_is_the_stores_whole_sample(tmp_path, suffix):
    # a file no longer than the sample: the pass's profile is what measuring the finished store's triples gave
    import pyoxigraph as ox

    store = build_oxigraph(_write(tmp_path, suffix, _lines()), tmp_path / "store")
    kept = KGProfile.load(store / SIDECAR_DIR / PROFILE_FILE)
    reader = ox.Store.read_only(str(store))
    measured = measure_name_predicates(oxigraph_texts(reader), DEFAULT_NAMING)
    del reader
    assert kept is not None and kept.label_predicates == (NAME[1:-1],) and not kept.alias_predicates
    assert (kept.label_predicates, kept.named_subjects, kept.alias_predicates, kept.aliased_subjects,
            kept.record_value_predicates) == (measured.label_predicates, measured.named_subjects,
                                              measured.alias_predicates, measured.aliased_subjects,
                                              measured.record_value_predicates)


@pytest.mark.parametrize("suffix", ["nt", "ttl"])
def test_the_label_file_is_built_once_with_the_names_the_profile_found(tmp_path, monkeypatch, suffix):
    from kg_agent.kg.loading import oxigraph_build

    built = []
    real = oxigraph_build.build_label_sqlite

    def counted(*args, **kwargs):
        built.append(kwargs.get("build"))
        return real(*args, **kwargs)

    monkeypatch.setattr(oxigraph_build, "build_label_sqlite", counted)
    lines = [line for line in _lines() if not line.startswith("_:")]  # no blank node: the labels come from the file
    store = build_oxigraph(_write(tmp_path, suffix, lines), tmp_path / "store")
    assert len(built) == 1
    with open_oxigraph(store) as kg:  # opened with the profile's names: the label file is the one it asks for
        assert [e.id for e in kg.find_entities("Flour Mill Café")] == [f"{EX}b6"]
        assert [e.id for e in kg.find_entities("rye loaf")] == [f"{EX}bread0"]
    with sqlite3.connect(store / SIDECAR_DIR / LABEL_INDEX_FILE) as db:
        nodes = list(dict.fromkeys(node for (node,) in db.execute("SELECT node FROM labels ORDER BY seq")))
    assert nodes[:len(BAKERIES)] == [f"{EX}b{n}" for n in range(len(BAKERIES))]  # in file order


def test_a_labelled_blank_node_still_takes_the_stores_names_once(tmp_path, monkeypatch):
    from kg_agent.kg.loading import oxigraph_build

    built = []
    real = oxigraph_build.build_label_sqlite
    monkeypatch.setattr(oxigraph_build, "build_label_sqlite",
                        lambda *args, **kwargs: built.append(1) or real(*args, **kwargs))
    store = build_oxigraph(_write(tmp_path, "nt", _lines()), tmp_path / "store")
    assert len(built) == 1
    with open_oxigraph(store) as kg:
        assert [e.id for e in kg.find_entities("Golden Crust")] == [f"{EX}b4"]
        assert [e.label for e in kg.find_entities("the old oven")] == ["the old oven"]


@pytest.mark.parametrize("suffix", ["nt", "ttl"])
def test_a_file_longer_than_the_sample_keeps_the_found_names_before_and_after_it_in_file_order(tmp_path, suffix):
    # the sample ends mid-file: the names it held are kept when it is read, the later ones as the pass meets them
    import pyoxigraph as ox

    from kg_agent.kg.loading.oxigraph_index_pass import index_triples
    from kg_agent.kg.relation_index import RelationIndexBuilder

    lines = [line for line in _lines() if not line.startswith(("#", "_:"))]
    fmt = ox.RdfFormat.N_TRIPLES if suffix == "nt" else ox.RdfFormat.TURTLE
    literals, _, _, profile = index_triples(RelationIndexBuilder(), ox, _write(tmp_path, suffix, lines), fmt,
                                            DEFAULT_NAMING, progress=False, sample=4 * 6)
    assert profile.label_predicates == (NAME[1:-1],) and not profile.alias_predicates  # six bakeries in the sample
    with literals:
        pairs = list(literals.pairs())
    assert pairs == [(f"{EX}b{n}", name) for n, name in enumerate(BAKERIES)] + [
        (NAME[1:-1], "bakery name"), (NAME[1:-1], "bakery name"), (f"{EX}bread0", "rye loaf"),
        (f"{EX}bread1", "baguette"), (f"{EX}bread2", "pretzel")]
