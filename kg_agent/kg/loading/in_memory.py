"""A KG file loaded into memory (:func:`load_kg`: an rdflib graph with every edge indexed), or plain-name triples
given in Python (:func:`kg_from_triples`)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from rdflib import Graph

from kg_agent.kg.errors import KGLoadError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.label_nodes import add_graph_names, graph_triples, with_label_nodes
from kg_agent.kg.loading.plain_triples import PLAIN_FORMATS, NamedTriple, detect_format, iter_named_triples, named_triples_graph
from kg_agent.kg.loading.rdf_parsing import parse_rdf
from kg_agent.kg.naming import DEFAULT_NAMING, Naming
from kg_agent.kg.owl_restrictions import add_restriction_edges
from kg_agent.kg.profile import graph_texts, measure_name_predicates
from kg_agent.kg.stores.memory import MemoryGraphStore
from kg_agent.kg.terms import RelationNames

logger = logging.getLogger(__name__)


def load_kg(path: str | Path, *, format: str | None = None, question_ids: Iterable[str] | None = None,
            naming: Naming = DEFAULT_NAMING, discover_names: bool = True, lenient: bool = False) -> KnowledgeGraph:
    """Load a KG file into memory (format from the extension and content unless given); ``naming`` says which
    predicates name things and which languages are shown (:class:`~kg_agent.kg.naming.Naming`). With
    ``discover_names`` the predicates the data names its things with are found too (:mod:`kg_agent.kg.profile`)
    and read as labels after the naming's own. ``lenient``: skip bad lines (:func:`parse_rdf`). An ontology's class
    restrictions are read as the relation edges they state (:mod:`kg_agent.kg.owl_restrictions`)."""
    path = Path(path)
    if not path.exists():
        raise KGLoadError(f"{path}: no such file")
    fmt = format or detect_format(path)
    if fmt in PLAIN_FORMATS:
        graph = named_triples_graph(iter_named_triples(path, fmt, question_ids=question_ids))
    else:
        graph = parse_rdf(path, format=fmt, lenient=lenient)
        added = add_restriction_edges(graph)  # our own parse: the file is not changed
        if added:
            logger.info("%s: %d OWL class restrictions read as relation edges", path, added)
    if discover_names:
        profile = with_label_nodes(measure_name_predicates(graph_texts(graph), naming), graph_triples(graph), naming)
        added = add_graph_names(graph, profile)
        if added:
            logger.info("%s: %d names read from label nodes onto the things they name", path, added)
        naming = profile.naming(naming)
    return memory_kg(graph, name=str(path), naming=naming)


def kg_from_triples(triples: Iterable[NamedTriple], *, name: str = "knowledge graph") -> KnowledgeGraph:
    """An in-memory KG from plain ``(head, relation, tail)`` names."""
    return memory_kg(named_triples_graph(triples), name=name)


def memory_kg(graph: Graph, *, name: str, naming: Naming = DEFAULT_NAMING) -> KnowledgeGraph:
    """A KG over an in-memory rdflib graph (every edge indexed now)."""
    return KnowledgeGraph(MemoryGraphStore(graph, names=RelationNames(), name=name, naming=naming))
