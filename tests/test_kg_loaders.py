"""Loaders: MetaQA lines, RoG JSONL, 2Wiki triples, Turtle / N-Triples; errors name file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import RDFS

from kg_agent.kg import KGLoadError, build_oxigraph, entity_iri, kg_from_triples, load_kg, open_kg, open_oxigraph, relation_iri
from kg_agent.kg.loading.plain_triples import detect_format
from kg_agent.kg.terms import ENTITY_NS, RELATION_NS

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"


@pytest.fixture(scope="module")
def kg_dir(fixtures_dir: Path) -> Path:
    return fixtures_dir / "kg"


def _plain_triples(kg):
    return {(s, p, o) for s, p, o in kg.graph if p != RDFS.label}


def test_metaqa_names_become_project_iris_with_labels(kg_dir):
    path = kg_dir / "metaqa_slice.txt"
    lines = [line.split("|") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    kg = load_kg(path)
    assert kg.backend == "memory" and str(path) in kg.name
    # every line is one fact between project IRIs
    expected = {(entity_iri(h), relation_iri(r), entity_iri(t)) for h, r, t in lines}
    assert _plain_triples(kg) == expected
    combat = str(entity_iri("Combat Shock"))
    assert combat == ENTITY_NS + "Combat%20Shock"
    assert kg.label(combat) == "Combat Shock"
    assert (URIRef(combat), RDFS.label, Literal("Combat Shock")) in kg.graph
    assert kg.relation_names() == sorted({r for _, r, _ in lines})
    assert kg.relation_iri("^directed_by") == RELATION_NS + "directed_by"


def test_plain_names_with_reserved_characters_are_percent_encoded():
    kg = kg_from_triples([("AC/DC: Live? #1", "rel with space", '"Quoted" <name>')])
    [band] = kg.find_entities("AC/DC: Live? #1")
    assert band.label == "AC/DC: Live? #1"
    assert band.id == ENTITY_NS + "AC%2FDC%3A%20Live%3F%20%231"
    [target] = kg.neighbors(band.id, "rel with space")
    assert kg.label(target) == '"Quoted" <name>'
    assert kg.relation_names() == ["rel with space"]


def test_rog_jsonl_loads_all_or_selected_questions(kg_dir):
    path = kg_dir / "webqsp_slice.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert detect_format(path) == "rog-jsonl"
    everything = load_kg(path)
    expected = {(entity_iri(h), relation_iri(r), entity_iri(t)) for rec in records for h, r, t in rec["graph"]}
    assert _plain_triples(everything) == expected
    nixon_only = load_kg(path, question_ids=["WebQTest-9"])
    nixon_graph = next(rec["graph"] for rec in records if rec["id"] == "WebQTest-9")
    assert _plain_triples(nixon_only) == {(entity_iri(h), relation_iri(r), entity_iri(t)) for h, r, t in nixon_graph}
    assert nixon_only.find_entities("Richard Nixon") and not nixon_only.find_entities("Jamaica")
    # an unnamed Freebase node (a mediator) has no label: it shows as "(unnamed)"
    assert nixon_only.label(str(entity_iri("m.02h98gq"))) == "(unnamed)"  # a mediator node names nothing


def test_twowiki_relations_are_labels_with_spaces(kg_dir):
    path = kg_dir / "twowiki_slice.jsonl"
    assert detect_format(path) == "twowiki"
    kg = load_kg(path)
    [mathew] = kg.find_entities("Sir James Charles Mathew")
    assert [kg.label(n) for n in kg.neighbors(mathew.id, "place of burial")] == ["Cork"]
    assert "place of burial" in kg.relation_names()
    [film] = kg.find_entities('I Cannot Say "Farewell"')
    assert film.label == 'I Cannot Say "Farewell"'
    assert [kg.label(n) for n in kg.neighbors(film.id, "director")] == ["Boris Durov"]


@pytest.mark.parametrize("name", ["labels.ttl", "labels.nt"])
def test_rdf_iris_are_kept_as_they_are(kg_dir, name):
    kg = load_kg(kg_dir / name)
    charles = WD + "Q5079445"
    assert kg.label(charles) == "Charles James Mathew"
    assert kg.neighbors(charles, "P22") == [WD + "Q18120934"]
    assert kg.neighbors(WD + "Q18120934", "^P22") == [charles]
    assert kg.neighbors(WD + "Q18120934", "P119") == [WD + "Q36647"]
    assert kg.relation_iri("P119") == WDT + "P119"
    assert [e.id for e in kg.find_entities("Cork")] == [WD + "Q36647"]
    assert not any(e.startswith(ENTITY_NS) for e in kg.entity_ids())


def test_turtle_alt_labels_are_listed(kg_dir):
    kg = load_kg(kg_dir / "labels.ttl")
    assert kg.labels(WD + "Q18120934") == ["Sir James Charles Mathew", "James Charles Mathew"]


def test_broken_turtle_names_file_and_line(kg_dir):
    with pytest.raises(KGLoadError) as err:
        load_kg(kg_dir / "broken.ttl")
    assert f"{kg_dir / 'broken.ttl'}:7:" in str(err.value)


def test_broken_turtle_in_oxigraph_build_names_file_and_line(kg_dir, tmp_path):
    with pytest.raises(KGLoadError) as err:
        build_oxigraph(kg_dir / "broken.ttl", tmp_path / "store")
    assert f"{kg_dir / 'broken.ttl'}:7:" in str(err.value)
    assert not (tmp_path / "store").exists() and not (tmp_path / "store.partial").exists()


def test_bad_metaqa_line_names_file_and_line(tmp_path):
    path = tmp_path / "kb.txt"
    path.write_text("A|directed_by|B\n\nC|starred_actors|D\nonly|two\nE|r|F\n", encoding="utf-8")
    with pytest.raises(KGLoadError) as err:
        load_kg(path)
    assert f"{path}:4:" in str(err.value) and "only|two" in str(err.value)


def test_empty_metaqa_field_is_an_error(tmp_path):
    path = tmp_path / "kb.txt"
    path.write_text("A|directed_by|B\nA| |B\n", encoding="utf-8")
    with pytest.raises(KGLoadError, match=r"kb\.txt:2:"):
        load_kg(path)


def test_bad_jsonl_line_names_file_and_line(tmp_path):
    path = tmp_path / "graph.jsonl"
    good = json.dumps({"id": "q1", "graph": [["a", "r", "b"]]})
    path.write_text(good + "\n" + good + "\n{not json\n", encoding="utf-8")
    with pytest.raises(KGLoadError) as err:
        load_kg(path)
    assert f"{path}:3:" in str(err.value) and "JSON" in str(err.value)


def test_bad_rog_triple_names_file_and_line(tmp_path):
    path = tmp_path / "graph.jsonl"
    rows = [{"id": "q1", "graph": [["a", "r", "b"]]}, {"id": "q2", "graph": [["a", "r"]]}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    with pytest.raises(KGLoadError, match=r"graph\.jsonl:2:"):
        load_kg(path)


def test_twowiki_missing_field_names_file_and_line(tmp_path):
    path = tmp_path / "triples.jsonl"
    rows = [{"subject": "a", "relation": "r", "object": "b"}, {"subject": "a", "relation": "r", "obj": "b"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    with pytest.raises(KGLoadError, match=r"triples\.jsonl:2: missing field 'object'"):
        load_kg(path)


def test_missing_and_unknown_files(tmp_path):
    with pytest.raises(KGLoadError, match="no such file"):
        load_kg(tmp_path / "absent.ttl")
    odd = tmp_path / "graph.xyz"
    odd.write_text("x", encoding="utf-8")
    with pytest.raises(KGLoadError, match="unknown KG format"):
        load_kg(odd)


def test_open_kg_picks_backend(kg_dir, tmp_path):
    memory = open_kg(kg_dir / "metaqa_slice.txt")
    assert memory.backend == "memory"
    store = tmp_path / "slice.oxigraph"
    disk = open_kg(kg_dir / "metaqa_slice.txt", backend="oxigraph", store_path=store)
    try:
        assert disk.backend == "oxigraph" and store.is_dir()
    finally:
        disk.close()
    reopened = open_kg(store)
    try:
        assert reopened.backend == "oxigraph"
        assert reopened.neighbors(str(entity_iri("Tracker")), "starred_actors") == memory.neighbors(
            str(entity_iri("Tracker")), "starred_actors"
        )
    finally:
        reopened.close()
    with pytest.raises(ValueError):
        open_kg(kg_dir / "metaqa_slice.txt", backend="nosuch")


def test_broken_ntriples_in_oxigraph_build_names_the_line_and_leaves_no_store(tmp_path):
    source = tmp_path / "broken.nt"
    good = "<http://example.org/a> <http://example.org/p> <http://example.org/b> .\n"
    source.write_text(good * 3 + '<http://example.org/a> <http://example.org/p> "open literal .\n' + good,
                      encoding="utf-8")
    target = tmp_path / "store"
    with pytest.raises(KGLoadError, match=r"broken\.nt:4: cannot parse as nt"):
        build_oxigraph(source, target)
    assert not target.exists() and not (tmp_path / "store.partial").exists()


def test_a_broken_label_line_is_the_bulk_loaders_error_naming_the_line(tmp_path):
    # the label file is built from the file beside the bulk load: a bad label must still be reported by line
    source = tmp_path / "broken.nt"
    good = "<http://example.org/a> <http://example.org/p> <http://example.org/b> .\n"
    label = "<http://example.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "
    source.write_text(good * 2 + label + '"A" .\n' + label + '"unclosed .\n' + good, encoding="utf-8")
    with pytest.raises(KGLoadError, match=r"broken\.nt:4: cannot parse as nt"):
        build_oxigraph(source, tmp_path / "store")
    assert not (tmp_path / "store").exists() and not (tmp_path / "store.partial").exists()


def test_labels_read_from_the_file_are_the_stores_labels(tmp_path):
    from kg_agent.kg.naming import DEFAULT_NAMING
    from kg_agent.kg.store_folder import LABEL_INDEX_FILE, SIDECAR_DIR
    from kg_agent.kg.stores.oxigraph import store_names

    source = tmp_path / "labels.nt"
    label = "<http://www.w3.org/2000/01/rdf-schema#label>"
    source.write_text(
        f'<http://example.org/a> {label} "Caf\\u00E9 \\"Nord\\""@fr .\n'
        f'<http://example.org/a> {label} "Caf\\u00E9 \\"Nord\\""@fr .\n'  # a repeated triple: one label
        f'_:b1 {label} "a blank node" .\n'
        f'<http://example.org/b> {label} "B"^^<http://www.w3.org/2001/XMLSchema#string> .\n'
        "<http://example.org/a> <http://example.org/p> <http://example.org/b> .\n", encoding="utf-8")
    target = build_oxigraph(source, tmp_path / "store")
    import sqlite3

    import pyoxigraph as ox

    with sqlite3.connect(target / SIDECAR_DIR / LABEL_INDEX_FILE) as db:
        from_file = sorted(db.execute("SELECT node, norm FROM labels"))
    from kg_agent.kg.terms import normalize_label

    store = ox.Store.read_only(str(target))
    from_store = sorted((node, normalize_label(text)) for node, text in store_names(store, DEFAULT_NAMING))
    del store
    assert len(from_file) == 3 and from_file == from_store  # a labelled blank node: the labels come from the store
    assert ("http://example.org/a", normalize_label('Café "Nord"')) in from_file
    source.write_text("\n".join(line for line in source.read_text(encoding="utf-8").splitlines()
                                if not line.startswith("_:")) + "\n", encoding="utf-8")
    target = build_oxigraph(source, tmp_path / "store", overwrite=True)
    with sqlite3.connect(target / SIDECAR_DIR / LABEL_INDEX_FILE) as db:
        read = sorted(db.execute("SELECT node, norm FROM labels"))  # read from the file, in the load's index pass
    # the pass keeps names on disk, not a set in RAM: a repeated triple may give its row twice; lookups read distinct
    assert sorted(set(read)) == from_file[1:]
    with open_oxigraph(target) as kg:
        assert [e.id for e in kg.find_entities('Café "Nord"')] == ["http://example.org/a"]


def test_a_store_whose_load_did_not_finish_is_refused(kg_dir, tmp_path):
    from kg_agent.kg import open_oxigraph
    from kg_agent.kg.store_folder import COMPLETE_MARKER, SIDECAR_DIR

    target = build_oxigraph(kg_dir / "metaqa_slice.txt", tmp_path / "store")
    with open_oxigraph(target) as kg:
        assert len(kg) > 0 and kg.relation_index() is not None
    (target / SIDECAR_DIR / COMPLETE_MARKER).unlink()  # as if the load stopped before its last step
    with pytest.raises(KGLoadError, match="not completely loaded"):
        open_oxigraph(target)
    (tmp_path / "not-a-store").mkdir()
    with pytest.raises(KGLoadError, match="not an Oxigraph store"):
        open_oxigraph(tmp_path / "not-a-store")


def test_kg_agent_load_reports_the_count_and_time(kg_dir, tmp_path, capsys):
    from kg_agent.cli import main

    assert main(["load", str(kg_dir / "metaqa_slice.txt"), "--store", str(tmp_path / "store")]) == 0
    out = capsys.readouterr().out
    assert "467 triples loaded in" in out and f"use --kg {tmp_path / 'store'}" in out
    assert (tmp_path / "store" / "kg-agent" / "relation_index.json").exists()


def test_a_missing_or_stale_label_index_is_rebuilt_with_a_warning(kg_dir, tmp_path):
    from kg_agent.kg import open_oxigraph
    from kg_agent.kg.label_index import build_label_sqlite
    from kg_agent.kg.store_folder import LABEL_INDEX_FILE, SIDECAR_DIR

    target = build_oxigraph(kg_dir / "metaqa_slice.txt", tmp_path / "store")
    labels = target / SIDECAR_DIR / LABEL_INDEX_FILE
    labels.unlink()
    with pytest.warns(UserWarning, match="missing; rebuilding it"), open_oxigraph(target) as kg:
        assert [e.label for e in kg.find_entities("combat shock")] == ["Combat Shock"]
    build_label_sqlite(labels, [("urn:x", "Stale Label")], build="an older load")
    with pytest.warns(UserWarning, match="stale"), open_oxigraph(target) as kg:
        assert kg.find_entities("Stale Label") == [] and kg.find_entities("Combat Shock")
    with open_oxigraph(target) as kg:  # rebuilt once, then used as it is
        assert kg.find_entities("Combat Shock")


def test_the_ntriples_line_pass_gives_the_parsers_relation_index(tmp_path):
    # the N-Triples index pass splits lines (no parser objects); the same triples as Turtle go through
    # Oxigraph's parser: the same nodes, relations and counts either way, whatever the spacing
    from kg_agent.kg.relation_index import RelationIndex
    from kg_agent.kg.store_folder import RELATION_INDEX_FILE, SIDECAR_DIR

    label = "<http://www.w3.org/2000/01/rdf-schema#label>"
    lines = [
        "<http://example.org/a> <http://example.org/p> <http://example.org/b> .",
        "<http://example.org/b>\t<http://example.org/p>\t<http://example.org/c>\t.",
        '<http://example.org/c> <http://example.org/says> "the end." .',  # a literal ending with a dot
        '<http://example.org/c> <http://example.org/says> "the end."@en.',
        '<http://example.org/a> <http://example.org/n> "1"^^<http://www.w3.org/2001/XMLSchema#integer>  .',
        "_:x <http://example.org/p> <http://example.org/a> .",
        "<http://example.org/b> <http://example.org/q> _:x .",
        "# a comment line",
        f'<http://example.org/a> {label} "A" .',
        "<http://example.org/c> <http://example.org/p> <http://example.org/a> .   ",
        '<http://example.org/b> <http://example.org/says> ""@en .',  # an empty literal: no value
    ]
    nt, ttl = tmp_path / "kg.nt", tmp_path / "kg.ttl"
    nt.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ttl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from_lines = RelationIndex.load(build_oxigraph(nt, tmp_path / "nt") / SIDECAR_DIR / RELATION_INDEX_FILE)
    from_parser = RelationIndex.load(build_oxigraph(ttl, tmp_path / "ttl") / SIDECAR_DIR / RELATION_INDEX_FILE)
    assert from_lines.to_json() == from_parser.to_json()
    assert from_lines.triples == 10 and from_lines.nodes["http://example.org/says"] == 1  # c; b says nothing
    assert "^http://example.org/says" not in from_lines.nodes  # no path goes on from a literal


def test_the_ntriples_line_pass_reads_names_as_the_parser_does(tmp_path):
    # the line pass reads a name line without escapes itself and gives one with an escape or a '#' to Oxigraph's
    # parser: the same (entity, name) pairs in file order and the same relation-naming literals as the parser gives
    # for the same triples as Turtle
    import pyoxigraph as ox

    from kg_agent.kg.loading.oxigraph_index_pass import index_triples
    from kg_agent.kg.naming import DEFAULT_NAMING
    from kg_agent.kg.relation_index import RelationIndexBuilder

    label, alias = "<http://www.w3.org/2000/01/rdf-schema#label>", "<http://www.w3.org/2004/02/skos/core#altLabel>"
    lines = [
        "<http://example.org/a> <http://example.org/p> <http://example.org/b> .",
        f'<http://example.org/p> {label} "directed by"@EN-GB .',
        f'<http://example.org/p> {alias} "director"@de.',
        f'<http://example.org/a> {label} "Straße \\"Nord\\" \\u00e9" .',  # escapes
        f'<http://example.org/a> {label} "C# and F#"@en .',
        f'<http://example.org/b> {label} "2001"^^<http://www.w3.org/2001/XMLSchema#string> .',
        f"<http://example.org/b> {label} <http://example.org/not-a-literal> .",
        f'<http://example.org/b> {label} "B" . # a comment with a " quote',
        f'_:x {label} "blank"@fr .',
        f'<http://example.org/\\u00e9> {label} "é" .',
        f'<http://example.org/b> {label} ""@en .',
    ]
    read = {}
    for suffix, fmt in (("nt", ox.RdfFormat.N_TRIPLES), ("ttl", ox.RdfFormat.TURTLE)):
        path = tmp_path / f"kg.{suffix}"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        literals, links, naming, _ = index_triples(RelationIndexBuilder(), ox, path, fmt, DEFAULT_NAMING, progress=False)
        names: dict = {entity: [] for entity in naming}
        with literals:
            read[suffix] = list(literals.pairs(names)), literals.blank, links, names
    assert read["nt"] == read["ttl"]
    labels, blank, _, names = read["nt"]
    assert blank  # _:x is named
    assert ("http://example.org/a", 'Straße "Nord" é') in labels and ("http://example.org/a", "C# and F#") in labels
    assert ("http://example.org/é", "é") in labels and ("http://example.org/b", "B") in labels
    assert names["http://example.org/p"] == [("http://www.w3.org/2000/01/rdf-schema#label", "directed by", "en-gb"),
                                             ("http://www.w3.org/2004/02/skos/core#altLabel", "director", "de")]


@pytest.mark.parametrize("suffix", ["nt", "ttl"])
def test_the_index_pass_keeps_names_on_disk_in_batches_and_reads_them_back_in_file_order(tmp_path, monkeypatch,
                                                                                        suffix):
    # the pass's name literals go to a temporary file in batches (a 100M-triple file has ~27M): batches of 2 give
    # the same literals, in the same order, as one batch, read back as often as asked; closing deletes the file
    import pyoxigraph as ox

    from kg_agent.kg.loading.oxigraph_index_pass import SpilledNames, index_triples
    from kg_agent.kg.naming import DEFAULT_NAMING
    from kg_agent.kg.relation_index import RelationIndexBuilder

    label = "<http://www.w3.org/2000/01/rdf-schema#label>"
    lines = [f'<http://example.org/e{n}> {label} "name {n}"@en .' for n in range(7)]
    lines += ["<http://example.org/e1> <http://example.org/p> <http://example.org/e2> .",
              f'<http://example.org/e1> {label} "name 1"@en .',  # repeated: kept twice
              f'<http://example.org/p> {label} "knows \\"well\\""@en .']
    path = tmp_path / f"kg.{suffix}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    fmt = ox.RdfFormat.N_TRIPLES if suffix == "nt" else ox.RdfFormat.TURTLE
    read = {}
    for batch in (SpilledNames.BATCH, 2):
        monkeypatch.setattr(SpilledNames, "BATCH", batch)
        literals, _, naming, _ = index_triples(RelationIndexBuilder(), ox, path, fmt, DEFAULT_NAMING, progress=False)
        names: dict = {entity: [] for entity in naming}
        with literals:
            read[batch] = list(literals), list(literals.pairs(names)), names, literals.blank
            assert list(literals.pairs()) == read[batch][1]  # read back as often as asked
            spilled = literals._file.seek(0, 2)
        assert literals._file.closed
        assert (spilled > 0) == (batch == 2)
    assert read[2] == read[SpilledNames.BATCH]
    literals, pairs, names, blank = read[2]
    assert pairs == [(f"http://example.org/e{n}", f"name {n}") for n in range(7)] + [
        ("http://example.org/e1", "name 1"), ("http://example.org/p", 'knows "well"')]
    # the relation-naming entity's literals, collected while the names were read back (p is a predicate)
    assert {entity: found for entity, found in names.items() if found} == {
        "http://example.org/p": [(label[1:-1], 'knows "well"', "en")]} and not blank


def test_beside_load_gets_the_relation_index_during_the_load_and_its_error_fails_it(kg_dir, tmp_path):
    from kg_agent.kg import open_oxigraph

    seen = []

    def record(index, sidecar, names):
        seen.append((index.triples, sidecar.parent.name, (sidecar / "complete.json").exists()))

    target = build_oxigraph(kg_dir / "metaqa_slice.txt", tmp_path / "store", beside_load=record)
    with open_oxigraph(target) as kg:
        assert seen == [(len(kg), "store.partial", False)]  # before the store was complete

    def fail(index, sidecar, names):
        raise RuntimeError("embedding failed")

    with pytest.raises(RuntimeError, match="embedding failed"):
        build_oxigraph(kg_dir / "metaqa_slice.txt", tmp_path / "other", beside_load=fail)
    assert not (tmp_path / "other").exists() and not (tmp_path / "other.partial").exists()


@pytest.mark.parametrize("style", ["plain", "typed", "skos", "freebase", "schemaorg", "dbpedia", "wikidata"])
@pytest.mark.parametrize("suffix", ["ttl", "nt"])
def test_beside_load_names_relations_as_the_finished_store_does(tmp_path, style, suffix):
    """The index pass reads what names the relations (the properties' labels and aliases, Wikibase's property links,
    the classes of their values) from the file, so what is embedded beside the load is named as the opened store names it, in every style of
    ``tests/fixtures/styles`` and through both index passes (N-Triples lines, Oxigraph's parser)."""
    import pyoxigraph as ox

    from kg_agent.kg import open_oxigraph

    given = next((Path(__file__).resolve().parent / "fixtures" / "styles" / style).glob("kg.*"))  # freebase: kg.nt
    source = tmp_path / f"kg.{suffix}"
    formats = {"ttl": ox.RdfFormat.TURTLE, "nt": ox.RdfFormat.N_TRIPLES}
    ox.serialize(ox.parse(path=given, format=formats[given.suffix[1:]]), output=source, format=formats[suffix])
    seen = []
    target = build_oxigraph(source, tmp_path / "store", beside_load=lambda index, sidecar, names: seen.append(names))
    with open_oxigraph(target) as kg:
        store = kg.store.names
        assert seen[0].names() == store.names()
        assert {name: seen[0].iri(name) for name in store.names()} == {name: store.iri(name) for name in store.names()}
        assert seen[0].schema_nodes == store.schema_nodes
        assert seen[0].alias_texts == store.alias_texts
    if style == "wikidata":
        assert "director" in store.names() and store.alias_texts
    if style == "dbpedia":  # the class of its values (rdfs:range dbo:Actor) names starring
        assert store.alias_texts["http://dbpedia.org/ontology/starring"] == ("actor",)
        assert "http://dbpedia.org/ontology/Actor" in store.schema_nodes


# ---------------------------------------------------------------- parsing: every format linear, UTF-8 errors with the fix
LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"
XSD_INT = "<http://www.w3.org/2001/XMLSchema#integer>"

SAME_GRAPH = {
    "kg.nt": f'''<http://e.org/a> {LABEL} "A \\"quoted\\" \\u00E9" .
<http://e.org/a> <http://e.org/p> <http://e.org/b> .
<http://e.org/a> <http://e.org/n> "7"^^{XSD_INT} .
<http://e.org/a> <http://e.org/t> "chat"@fr .
_:x <http://e.org/p> <http://e.org/a> .
<http://e.org/b> <http://e.org/q> _:x .
''',
    "kg.ttl": f'''@prefix e: <http://e.org/> .
e:a {LABEL} "A \\"quoted\\" é" ; e:p e:b ; e:n 7 ; e:t "chat"@fr .
[] e:p e:a .
e:b e:q [ e:r """multi
line""" ] .
<relative> e:p e:a .
''',
    "kg.nq": '''<http://e.org/a> <http://e.org/p> <http://e.org/b> .
<http://e.org/a> <http://e.org/p> <http://e.org/c> <http://e.org/graph> .
''',
    "kg.trig": '''@prefix e: <http://e.org/> .
e:a e:p e:b .
e:graph { e:a e:p e:c . }
''',
    "kg.n3": '''@prefix e: <http://e.org/> .
e:a e:p e:b ; e:n 1.5 .
''',
    "kg.rdf": '''<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e.org/">
  <rdf:Description rdf:about="http://e.org/a"><e:p rdf:resource="http://e.org/b"/><e:t xml:lang="fr">chat</e:t>
    <e:q><rdf:Description><e:r>inner</e:r></rdf:Description></e:q></rdf:Description>
</rdf:RDF>
''',
    "kg.jsonld": '''{"@context": {"e": "http://e.org/", "p": {"@id": "http://e.org/p", "@type": "@id"}},
 "@id": "http://e.org/a", "p": "http://e.org/b", "e:t": {"@value": "chat", "@language": "fr"}, "e:n": 3}
''',
}


@pytest.mark.parametrize("name", sorted(SAME_GRAPH))
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # rdflib's own quad parsers, the reference
def test_every_format_read_by_oxigraph_gives_rdflibs_graph(tmp_path, name):
    from rdflib import Graph
    from rdflib.compare import isomorphic

    from kg_agent.kg.loading.rdf_parsing import parse_rdf

    path = tmp_path / name
    path.write_text(SAME_GRAPH[name], encoding="utf-8")
    ours = parse_rdf(path)
    reference = Graph()
    if path.suffix in (".nq", ".trig"):  # rdflib's own parser, every graph: a quad file's KG is their union
        from rdflib import Dataset

        dataset = Dataset()
        dataset.parse(str(path))
        for subject, predicate, obj, _graph in dataset.quads():
            reference.add((subject, predicate, obj))
        assert URIRef("http://e.org/c") in set(ours.objects())  # a named graph's triples are the KG's
    else:
        reference.parse(str(path))
    assert len(ours) == len(reference) and isomorphic(ours, reference)


def test_a_5_mb_literal_loads_and_is_answered_in_ci_time(tmp_path):
    # rdflib's N-Triples parser is quadratic in line length: 1 MB took 8 s, 5 MB minutes
    import os
    import subprocess
    import sys

    plot = "word " * 1_000_000
    path = tmp_path / "film.nt"
    path.write_text(f'<http://e.org/film> {LABEL} "Long Film" .\n<http://e.org/ann> {LABEL} "Ann Lee" .\n'
                    "<http://e.org/film> <http://e.org/directed_by> <http://e.org/ann> .\n"
                    f'<http://e.org/film> <http://e.org/plot> "{plot}" .\n', encoding="utf-8")
    kg = open_kg(path)
    assert [str(o) for o in kg.graph.objects(URIRef("http://e.org/film"), URIRef("http://e.org/plot"))] == [plot]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "KG_AGENT_MODEL")}
    done = subprocess.run([sys.executable, "-m", "kg_agent.cli", "ask", "what is the plot of [Long Film]", "--kg", str(path),
                           "--model", "none"], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    answers = done.stdout.split("Answers:", 1)[1]
    assert answers.startswith("\n  - word word word"), done.stdout[:2000]


LATIN1 = {
    "kb.nt": '<http://e.org/a> <http://e.org/p> "ok" .\n<http://e.org/a> <http://e.org/p> "Caf\xe9" .\n',
    "kb.ttl": '@prefix e: <http://e.org/> .\ne:a e:p "ok" .\ne:a e:p "Caf\xe9" .\n',
    "kb.txt": "A|directed_by|B\nCaf\xe9|starred_actors|D\n",
    "kb.jsonl": '{"id": "q1", "graph": [["a", "r", "b"]]}\n{"id": "q2", "graph": [["Caf\xe9", "r", "b"]]}\n',
}


@pytest.mark.parametrize("name", sorted(LATIN1))
def test_a_latin1_file_is_refused_with_its_line_and_the_fix(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(LATIN1[name].encode("latin-1"))
    line = 3 if name == "kb.ttl" else 2
    for load in (lambda: open_kg(path), lambda: build_oxigraph(path, tmp_path / "store")):
        with pytest.raises(KGLoadError) as err:
            load()
        message = str(err.value)
        assert message.startswith(f"{path}:{line}: byte 0xE9 at column "), message
        assert "not UTF-8" in message and "re-save it as UTF-8" in message and "iconv -f latin1 -t utf-8" in message
        assert not (tmp_path / "store").exists() and not (tmp_path / "store.partial").exists()


def test_broken_ntriples_in_memory_names_the_line(tmp_path):
    path = tmp_path / "broken.nt"
    good = "<http://e.org/a> <http://e.org/p> <http://e.org/b> .\n"
    path.write_text(good * 4 + '<http://e.org/a> <http://e.org/p> "open .\n' + good, encoding="utf-8")
    with pytest.raises(KGLoadError, match=r"broken\.nt:5: cannot parse as nt: column \d+: "):
        open_kg(path)


def test_a_remote_json_ld_context_is_not_fetched(tmp_path):
    path = tmp_path / "kg.jsonld"
    path.write_text('{"@context": "http://127.0.0.1:9/context.jsonld", "@id": "http://e.org/a", "name": "A"}', encoding="utf-8")
    with pytest.raises(KGLoadError, match=r"kg\.jsonld:.*remote JSON-LD @context, which kg-agent does not fetch"):
        open_kg(path)


def test_a_label_file_of_the_earlier_layout_answers_as_the_new_one(tmp_path):
    # the label file's words are now one table ordered by word (WITHOUT ROWID, no second copy in an index); a file
    # written before (a tokens table and its index) is read by the same lookups: an old store opens as it was
    import sqlite3

    from kg_agent.kg.label_index import SqliteLabelIndex, build_label_sqlite
    from kg_agent.kg.terms import label_keys

    pairs = [("urn:ward-7", "Ward 7"), ("urn:ward-7b", "Ward 7B"), ("urn:east", "East Wing Ward"),
             ("urn:night", "Night Ward"), ("urn:night", "Night Ward"), ("urn:smith", "Smith, Anna"),
             ("urn:dollar", "$"), ("urn:ctl", "Ward\x01 Annex"), ("urn:quote", 'The "Quiet" Ward \\ West')]
    new = build_label_sqlite(tmp_path / "new.sqlite", pairs, build="b")
    old = tmp_path / "old.sqlite"
    with sqlite3.connect(old) as db:  # the layout of files built before, as they were written
        db.executescript("""
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE labels (norm TEXT NOT NULL, node TEXT NOT NULL, seq INTEGER NOT NULL);
            CREATE TABLE tokens (token TEXT NOT NULL, len INTEGER NOT NULL, norm TEXT NOT NULL);
            INSERT INTO meta VALUES ('build', 'b');""")
        db.executemany("INSERT INTO labels VALUES (?, ?, ?)",
                       [(key, node, seq) for seq, (node, text) in enumerate(pairs) for key in label_keys(text)])
        db.execute("CREATE INDEX labels_by_norm ON labels (norm, seq)")
        db.executemany("INSERT INTO tokens VALUES (?, ?, ?)",
                       [(word, len(norm), norm) for (norm,) in db.execute("SELECT DISTINCT norm FROM labels")
                        for word in norm.split()])
        db.execute("CREATE INDEX tokens_by_token ON tokens (token, len, norm)")
    with sqlite3.connect(new) as db:
        assert db.execute("SELECT name FROM sqlite_master WHERE name = 'tokens_by_token'").fetchone() is None
    indexes = [SqliteLabelIndex(new, build="b"), SqliteLabelIndex(old, build="b")]
    try:
        answers = [(len(index), index.get("ward 7"), index.get("ward7"), index.get("anna smith"), index.get("$"),
                    index.get("night ward"), index.labels_with_word("ward", limit=3),
                    list(index.iter_labels_with_word("ward")), sorted(index.words_with_prefix("w")),
                    index.labels_with_word("quiet", limit=5), "east wing ward" in index, "nowhere" in index)
                   for index in indexes]
    finally:
        for index in indexes:
            index.close()
    assert answers[0] == answers[1]
    assert answers[0][1] == ["urn:ward-7"] and answers[0][5] == ["urn:night"]
    assert answers[0][6] == ["ward 7", "ward 7b", "night ward"]  # shortest first, then alphabetically
    assert answers[0][7] == ["ward 7", "ward 7b", "night ward", "ward annex", "east wing ward", "the quiet ward west"]
    assert answers[0][8] == ["ward", "ward7", "ward7b", "west", "wing"]
