"""KG files of plain-name triples -- MetaQA ``head|relation|tail`` lines, RoG JSONL, 2Wiki triples -- read into
rdflib, and which format a KG file is in (:func:`detect_format`: one of these or an rdflib RDF format).

Plain names become IRIs in the project namespace with their ``rdfs:label`` kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from rdflib import Graph, Literal
from rdflib.namespace import RDFS
from rdflib.util import guess_format

from kg_agent.kg.errors import KGLoadError
from kg_agent.kg.stores.memory import new_graph
from kg_agent.kg.terms import entity_iri, is_generated_id, relation_iri
from kg_agent.text_files import jsonl_objects, utf8_lines

NamedTriple = tuple[str, str, str]


def iter_metaqa_triples(path: str | Path) -> Iterator[NamedTriple]:
    """``head|relation|tail`` lines (MetaQA ``kb.txt``). Blank lines are skipped."""
    path = Path(path)
    for number, line in utf8_lines(path, KGLoadError):
        line = line.rstrip("\n\r")
        if not line.strip():
            continue
        parts = line.split("|")
        if len(parts) != 3 or not all(p.strip() for p in parts):
            raise KGLoadError(f"{path}:{number}: expected 'head|relation|tail', got {line[:120]!r}")
        yield parts[0].strip(), parts[1].strip(), parts[2].strip()


def iter_rog_triples(path: str | Path, *, question_ids: Iterable[str] | None = None) -> Iterator[NamedTriple]:
    """Triples of RoG-format JSONL (``{"id", "graph": [[h, r, t], ...]}``), optionally of some questions only."""
    path = Path(path)
    wanted = set(question_ids) if question_ids is not None else None
    for number, record in jsonl_objects(path, KGLoadError):
        if wanted is not None and record.get("id") not in wanted:
            continue
        graph = record.get("graph")
        if not isinstance(graph, list):
            raise KGLoadError(f"{path}:{number}: no 'graph' list of [head, relation, tail] triples")
        yield from _checked_triples(graph, f"{path}:{number}")


def _checked_triples(rows: Iterable, where: str) -> Iterator[NamedTriple]:
    for row in rows:
        if not (isinstance(row, (list, tuple)) and len(row) == 3 and all(isinstance(x, str) and x for x in row)):
            raise KGLoadError(f"{where}: a triple must be [head, relation, tail] strings, got {str(row)[:120]}")
        yield row[0], row[1], row[2]


def iter_twowiki_triples(path: str | Path) -> Iterator[NamedTriple]:
    """2WikiMultihopQA evidence triples (``{"subject", "relation", "object", ...}`` per line)."""
    path = Path(path)
    for number, record in jsonl_objects(path, KGLoadError):
        try:
            row = (record["subject"], record["relation"], record["object"])
        except KeyError as exc:
            raise KGLoadError(f"{path}:{number}: missing field {exc.args[0]!r}") from None
        yield from _checked_triples([row], f"{path}:{number}")


def add_named_triples(graph: Graph, triples: Iterable[NamedTriple]) -> int:
    """Add plain-name triples to an rdflib graph as project IRIs with ``rdfs:label`` (none for a Freebase machine
    id such as ``m.0nf4wmg``: a mediator node, which names nothing); returns the count."""
    entities: dict[str, object] = {}
    relations: dict[str, object] = {}
    store_add = graph.add
    count = 0

    def node(name: str):
        iri = entities.get(name)
        if iri is None:
            iri = entities[name] = entity_iri(name)
            if not is_generated_id(str(iri)):  # a Freebase mediator (m.0nf4wmg) has no name
                store_add((iri, RDFS.label, Literal(name)))
        return iri

    for head, rel, tail in triples:
        predicate = relations.get(rel)
        if predicate is None:
            predicate = relations[rel] = relation_iri(rel)
            store_add((predicate, RDFS.label, Literal(rel)))
        store_add((node(head), predicate, node(tail)))
        count += 1
    return count


def named_triples_graph(triples: Iterable[NamedTriple]) -> Graph:
    graph = new_graph()
    add_named_triples(graph, triples)
    return graph


def detect_format(path: str | Path) -> str:
    """``metaqa``, ``rog-jsonl``, ``twowiki`` or an rdflib format name."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in {".jsonl", ".json"}:
        first = next((line for _, line in utf8_lines(path, KGLoadError) if line.strip()), "")
        try:
            record = json.loads(first) if first else {}
        except json.JSONDecodeError as exc:
            raise KGLoadError(f"{path}:1: not valid JSON: {exc.msg}") from exc
        if "graph" in record:
            return "rog-jsonl"
        if {"subject", "relation", "object"} <= set(record):
            return "twowiki"
        raise KGLoadError(f"{path}: JSONL with neither a 'graph' list (RoG) nor subject/relation/object fields")
    if suffix in {".txt", ".tsv", ".psv"}:
        return "metaqa"
    fmt = guess_format(str(path))
    if fmt is None:
        raise KGLoadError(f"{path}: unknown KG format (use .ttl/.nt/.rdf/.jsonld, MetaQA .txt, or RoG/2Wiki .jsonl)")
    return fmt


def iter_named_triples(path: str | Path, fmt: str, *, question_ids: Iterable[str] | None = None) -> Iterator[NamedTriple]:
    if fmt == "metaqa":
        return iter_metaqa_triples(path)
    if fmt == "rog-jsonl":
        return iter_rog_triples(path, question_ids=question_ids)
    if fmt == "twowiki":
        return iter_twowiki_triples(path)
    raise ValueError(f"{fmt!r} is not a plain-name triple format")


PLAIN_FORMATS = {"metaqa", "rog-jsonl", "twowiki"}
