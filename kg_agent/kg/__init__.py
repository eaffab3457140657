"""The knowledge-graph service: load, label search, relations, neighbours, path search, read-only SPARQL."""

from kg_agent.kg.errors import KGError, KGLoadError, KGQueryError, ReadOnlyViolation, UnknownEntityError, UnknownRelationError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.linking import NO_ENTITY_MESSAGE, LinkedEntity, LinkResult, closest_labels, link_entities, search_entities
from kg_agent.kg.loaders import (
    build_oxigraph,
    kg_from_triples,
    load_kg,
    open_kg,
    open_oxigraph,
    open_sparql,
    parse_rdf,
    sample_documents_path,
    sample_kg_path,
)
from kg_agent.kg.paths import PathSearchResult, retrieve_many_paths, retrieve_paths, shortest_relation_paths
from kg_agent.kg.sparql import check_read_only, sparql_iri, sparql_literal
from kg_agent.kg.terms import entity_iri, normalize_label, relation_iri
from kg_agent.kg.types import INVERSE_PREFIX, Entity, Path, Triple, base_relation, inverse, is_inverse, relation_path_text

__all__ = [
    "KnowledgeGraph", "open_kg", "load_kg", "kg_from_triples", "build_oxigraph", "open_oxigraph", "open_sparql",
    "parse_rdf", "sample_kg_path", "sample_documents_path", "entity_iri", "relation_iri", "normalize_label",
    "link_entities", "search_entities", "LinkResult", "LinkedEntity", "closest_labels", "NO_ENTITY_MESSAGE",
    "retrieve_paths", "retrieve_many_paths", "shortest_relation_paths", "PathSearchResult",
    "check_read_only", "sparql_iri", "sparql_literal",
    "Entity", "Path", "Triple", "INVERSE_PREFIX", "inverse", "is_inverse", "base_relation", "relation_path_text",
    "KGError", "KGLoadError", "KGQueryError", "ReadOnlyViolation", "UnknownEntityError", "UnknownRelationError",
]
