"""The RDF-style generator of ``benchmarks/rdf_styles.py`` (issue 23) and its fixtures in ``tests/fixtures/styles``.

The generator must be deterministic (same bytes in every process, whatever ``PYTHONHASHSEED``), the committed fixtures
must be exactly what it writes, every style's KG must parse with rdflib, and every question's answers must be what the
KG itself says: following the question's ``gold_paths`` from its topic, read here with rdflib, independently of the
generator, reaches nodes whose display names are the ``answer_names``. Each style must also really be written the way
it claims (no ``rdfs:label`` in schema.org, awards only through statements in Wikidata, unnamed mediators in Freebase ...).
"""

from __future__ import annotations

import filecmp
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import FOAF, RDFS, SKOS
from rdflib.util import from_n3

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "rdf_styles.py"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "styles"
STYLES = ("plain", "dbpedia", "wikidata", "schemaorg", "skos", "freebase", "typed")
SCHEMA, SCHEMA_HTTPS = "http://schema.org/", "https://schema.org/"
FREEBASE = "http://rdf.freebase.com/ns/"
XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_DATE, XSD_DATETIME = URIRef(XSD + "date"), URIRef(XSD + "dateTime")
NAME_PREDICATES = (RDFS.label, SKOS.prefLabel, URIRef(SCHEMA + "name"), URIRef(SCHEMA_HTTPS + "name"), FOAF.name,
                   URIRef(FREEBASE + "type.object.name"))


def load_generator():
    spec = importlib.util.spec_from_file_location("rdf_styles", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["rdf_styles"] = module
    spec.loader.exec_module(module)
    return module


def generate(out: Path, *args: str, hash_seed: str = "0") -> None:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run([sys.executable, str(SCRIPT), "generate", "--out", str(out), *args], capture_output=True, text=True,
                          env=env, cwd=out.parent, timeout=120)
    assert done.returncode == 0, done.stderr


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_the_generator_writes_the_same_bytes_in_every_process(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    generate(first, hash_seed="1")
    generate(second, hash_seed="2")
    names = files_under(first)
    assert names == files_under(second)
    for style in STYLES:
        assert f"{style}/meta.json" in names and f"{style}/questions.jsonl" in names
    _, mismatch, errors = filecmp.cmpfiles(first, second, names, shallow=False)
    assert (mismatch, errors) == ([], [])
    meta = json.loads((first / "dbpedia" / "meta.json").read_text(encoding="utf-8"))
    assert (meta["films"], meta["people"], meta["questions"]["bracketed"]) == (40, 60, 36)


def test_another_seed_writes_another_domain(tmp_path):
    generate(tmp_path / "seed0", "--styles", "plain", "--films", "12", "--people", "20")
    generate(tmp_path / "seed1", "--styles", "plain", "--films", "12", "--people", "20", "--seed", "1")
    assert (tmp_path / "seed0/plain/kg.ttl").read_bytes() != (tmp_path / "seed1/plain/kg.ttl").read_bytes()


def test_the_fixtures_are_exactly_what_the_generator_writes(tmp_path):
    generator = load_generator()
    generator.write_fixtures(tmp_path)
    names = files_under(tmp_path)
    assert names == files_under(FIXTURES), "regenerate with: python benchmarks/rdf_styles.py fixtures"
    _, mismatch, errors = filecmp.cmpfiles(tmp_path, FIXTURES, names, shallow=False)
    assert (mismatch, errors) == ([], []), "regenerate with: python benchmarks/rdf_styles.py fixtures"


# --------------------------------------------------------------------------------------------- each style's fixture


def parse(style: str) -> tuple[Graph, dict, dict[str, list[dict]]]:
    folder = FIXTURES / style
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    graph = Graph()
    graph.parse(folder / meta["kg"], format="nt" if meta["kg"].endswith(".nt") else "turtle")
    questions = {variant: [json.loads(line) for line in (folder / name).read_text(encoding="utf-8").splitlines()]
                 for variant, name in meta["question_files"].items()}
    return graph, meta, questions


def display_name(graph: Graph, node) -> str | None:
    """English first, then untagged, then the other languages in tag order."""
    names = [o for p in NAME_PREDICATES for o in graph.objects(node, p) if isinstance(o, Literal)]
    names.sort(key=lambda o: (o.language != "en", bool(o.language), o.language or "", str(o)))
    return str(names[0]) if names else None


def follow(graph: Graph, start, path: list[str]) -> set:
    walks = [(start, (start,))]
    for step in path:
        predicate = URIRef(step.lstrip("^"))
        if step.startswith("^"):
            walks = [(s, seen + (s,)) for node, seen in walks for s in graph.subjects(predicate, node) if s not in seen]
        else:
            walks = [(o, seen + (o,)) for node, seen in walks for o in graph.objects(node, predicate) if o not in seen]
    return {node for node, _ in walks}


def answer_forms(graph: Graph, node) -> tuple[str | None, list[str]]:
    """A node's display name and every answer string accepted for it."""
    if isinstance(node, Literal):
        text = str(node)
        forms = [text]
        if node.datatype == XSD_DATETIME and text.endswith("+00:00"):  # rdflib writes a parsed "...Z" this way
            text = text[:-6] + "Z"
            forms.append(text)
        if node.datatype in (XSD_DATE, XSD_DATETIME):
            forms += [text[:10], text[:4]]
        return text, forms
    name = display_name(graph, node)
    return name, [name] if name else []


@pytest.mark.parametrize("style", STYLES)
def test_each_style_parses_and_its_answers_are_what_the_kg_says(style):
    graph, meta, questions = parse(style)
    assert len(graph) == meta["triples"]
    assert set(questions) >= {"bracketed", "plain"}
    bracketed = questions["bracketed"]
    assert 18 <= len(bracketed) <= 30
    assert {q["hop"] for q in bracketed} == {1, 2}
    for variant, records in questions.items():
        assert [q["qid"] for q in records] == [q["qid"] for q in bracketed], variant
        for q in records:
            assert q["topic"] in q["question"]
            assert ("[" + q["topic"] + "]" in q["question"]) == (variant != "plain"), q["question"]
            assert "topic_entities" not in q, "the method must link the topic itself"
    for q in bracketed:
        topic = from_n3(q["topic_id"])
        assert isinstance(topic, URIRef) and (topic, None, None) in graph
        assert display_name(graph, topic) == q["topic"]
        ends = set()
        for path in q["gold_paths"]:
            reached = follow(graph, topic, path)
            assert reached, (q["id"], path)
            ends |= reached
        names, forms = set(), set()
        for end in ends:
            name, accepted = answer_forms(graph, end)
            assert name, f"{q['id']}: the answer {end!r} has no name"
            assert not isinstance(end, Literal) or str(end), f"{q['id']}: an empty literal is an answer"
            names.add(name)
            forms.update(accepted)
        assert names == set(q["answer_names"]), q["id"]
        assert forms == set(q["answers"]), q["id"]
        ids = {from_n3(i) for i in q["answer_ids"] if not i.startswith("_:")}
        assert ids == {end for end in ends if not isinstance(end, BNode)}, q["id"]
    for q in questions.get("alias", []):
        topic = from_n3(q["topic_id"])
        aliases = {str(o) for p in (SKOS.altLabel, URIRef(SCHEMA + "alternateName"), URIRef(SCHEMA_HTTPS + "alternateName"),
                                    URIRef(FREEBASE + "common.topic.alias")) for o in graph.objects(topic, p)}
        assert q["topic"] in aliases and q["topic"] != display_name(graph, topic)


def predicates(graph: Graph) -> set[str]:
    return {str(p) for p in graph.predicates()}


def test_each_style_is_written_the_way_it_claims():
    graphs = {style: parse(style)[0] for style in STYLES}

    plain = graphs["plain"]
    assert all(o.language == "en" for o in plain.objects(None, RDFS.label))
    assert all(len(list(plain.objects(s, RDFS.label))) == 1 for s in plain.subjects(RDFS.label, None))

    dbpedia = graphs["dbpedia"]
    dbo = "http://dbpedia.org/ontology/"
    labelled = set(dbpedia.subjects(RDFS.label, None))
    assert {o.language for o in dbpedia.objects(None, RDFS.label)} == {"en", "de", "fr"}
    assert any(not any(o.language == "en" for o in dbpedia.objects(s, RDFS.label)) for s in labelled)
    assert any(s not in labelled for s in dbpedia.subjects(FOAF.name, None))
    assert str(dbpedia.value(URIRef(dbo + "director"), RDFS.label)) in {"film director", "Regisseur"}
    assert {dbo + "language", "http://dbpedia.org/property/language", dbo + "abstract"} <= predicates(dbpedia)
    assert Literal("", lang="en") in set(dbpedia.objects())

    wikidata = graphs["wikidata"]
    wd, wdt = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
    assert wikidata.value(URIRef(wd + "P57"), URIRef("http://wikiba.se/ontology#directClaim")) == URIRef(wdt + "P57")
    assert Literal("director", lang="en") in set(wikidata.objects(URIRef(wd + "P57"), RDFS.label))
    assert wdt + "P166" not in predicates(wikidata)
    assert {"http://www.wikidata.org/prop/P166", "http://www.wikidata.org/prop/statement/P166",
            "http://www.wikidata.org/prop/qualifier/P585", str(SKOS.altLabel)} <= predicates(wikidata)

    schemaorg = graphs["schemaorg"]
    names = predicates(schemaorg)
    assert str(RDFS.label) not in names and {SCHEMA + "name", SCHEMA_HTTPS + "name"} <= names
    assert all(str(s).startswith("http://example.org/data/") or isinstance(s, BNode) for s in schemaorg.subjects())
    awards = list(schemaorg.objects(None, URIRef(SCHEMA + "award")))
    assert awards and all(isinstance(a, BNode) and schemaorg.value(a, URIRef(SCHEMA + "name")) for a in awards)

    skos = graphs["skos"]
    assert not {str(RDFS.label), SCHEMA + "name", str(FOAF.name)} & predicates(skos)
    assert {o.language for o in skos.objects(None, SKOS.prefLabel)} == {"en", "de", "fr"}

    freebase = graphs["freebase"]
    starring = list(freebase.objects(None, URIRef(FREEBASE + "film.film.starring")))
    assert starring and all(display_name(freebase, m) is None for m in starring)
    assert all(p.startswith(FREEBASE) or p.startswith("http://www.w3.org/") for p in predicates(freebase))

    typed = graphs["typed"]
    datatypes = {o.datatype for o in typed.objects() if isinstance(o, Literal)}
    assert {XSD_DATE, URIRef(XSD + "integer"), URIRef(XSD + "decimal")} <= datatypes
    tagline = URIRef("http://example.org/movies/relation/tagline")
    assert all(o.language == "en" for o in typed.objects(None, tagline)) and list(typed.objects(None, tagline))
