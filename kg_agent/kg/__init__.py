"""The knowledge-graph service: load, label search, relations, neighbours, path search, read-only SPARQL.

Names are imported on first use (:mod:`kg_agent.lazy_exports`).
"""

from typing import TYPE_CHECKING

from kg_agent.lazy_exports import lazy_exports

if TYPE_CHECKING:  # what type checkers read; at run time each name is imported on first use (below)
    from kg_agent.kg.errors import (
        KGError,
        KGLoadError,
        KGQueryError,
        ReadOnlyViolation,
        UnknownEntityError,
        UnknownRelationError,
    )
    from kg_agent.kg.graph import KnowledgeGraph
    from kg_agent.kg.linking import (
        NO_ENTITY_MESSAGE,
        LinkedEntity,
        LinkResult,
        closest_labels,
        link_entities,
        search_entities,
    )
    from kg_agent.kg.loading.in_memory import kg_from_triples, load_kg
    from kg_agent.kg.loading.open_kg import open_kg
    from kg_agent.kg.loading.oxigraph_build import build_oxigraph
    from kg_agent.kg.loading.oxigraph_open import open_oxigraph
    from kg_agent.kg.loading.rdf_parsing import parse_rdf
    from kg_agent.kg.loading.samples import sample_documents_path, sample_kg_path
    from kg_agent.kg.loading.sparql_endpoint import open_sparql
    from kg_agent.kg.paths import PathSearchResult, retrieve_many_paths, retrieve_paths, shortest_relation_paths
    from kg_agent.kg.sparql import check_read_only, sparql_iri, sparql_literal
    from kg_agent.kg.terms import entity_iri, normalize_label, relation_iri
    from kg_agent.kg.types import (
        INVERSE_PREFIX,
        Entity,
        Path,
        Triple,
        base_relation,
        inverse,
        is_inverse,
        relation_path_text,
    )

_EXPORTS = {
    "KGError": "kg_agent.kg.errors",
    "KGLoadError": "kg_agent.kg.errors",
    "KGQueryError": "kg_agent.kg.errors",
    "ReadOnlyViolation": "kg_agent.kg.errors",
    "UnknownEntityError": "kg_agent.kg.errors",
    "UnknownRelationError": "kg_agent.kg.errors",
    "KnowledgeGraph": "kg_agent.kg.graph",
    "NO_ENTITY_MESSAGE": "kg_agent.kg.linking",
    "LinkedEntity": "kg_agent.kg.linking",
    "LinkResult": "kg_agent.kg.linking",
    "closest_labels": "kg_agent.kg.linking",
    "link_entities": "kg_agent.kg.linking",
    "search_entities": "kg_agent.kg.linking",
    "build_oxigraph": "kg_agent.kg.loading.oxigraph_build",
    "kg_from_triples": "kg_agent.kg.loading.in_memory",
    "load_kg": "kg_agent.kg.loading.in_memory",
    "open_kg": "kg_agent.kg.loading.open_kg",
    "open_oxigraph": "kg_agent.kg.loading.oxigraph_open",
    "open_sparql": "kg_agent.kg.loading.sparql_endpoint",
    "parse_rdf": "kg_agent.kg.loading.rdf_parsing",
    "sample_documents_path": "kg_agent.kg.loading.samples",
    "sample_kg_path": "kg_agent.kg.loading.samples",
    "PathSearchResult": "kg_agent.kg.paths",
    "retrieve_many_paths": "kg_agent.kg.paths",
    "retrieve_paths": "kg_agent.kg.paths",
    "shortest_relation_paths": "kg_agent.kg.paths",
    "check_read_only": "kg_agent.kg.sparql",
    "sparql_iri": "kg_agent.kg.sparql",
    "sparql_literal": "kg_agent.kg.sparql",
    "entity_iri": "kg_agent.kg.terms",
    "normalize_label": "kg_agent.kg.terms",
    "relation_iri": "kg_agent.kg.terms",
    "INVERSE_PREFIX": "kg_agent.kg.types",
    "Entity": "kg_agent.kg.types",
    "Path": "kg_agent.kg.types",
    "Triple": "kg_agent.kg.types",
    "base_relation": "kg_agent.kg.types",
    "inverse": "kg_agent.kg.types",
    "is_inverse": "kg_agent.kg.types",
    "relation_path_text": "kg_agent.kg.types",
}

__all__ = [
    "KnowledgeGraph", "open_kg", "load_kg", "kg_from_triples", "build_oxigraph", "open_oxigraph", "open_sparql",
    "parse_rdf", "sample_kg_path", "sample_documents_path", "entity_iri", "relation_iri", "normalize_label",
    "link_entities", "search_entities", "LinkResult", "LinkedEntity", "closest_labels", "NO_ENTITY_MESSAGE",
    "retrieve_paths", "retrieve_many_paths", "shortest_relation_paths", "PathSearchResult",
    "check_read_only", "sparql_iri", "sparql_literal",
    "Entity", "Path", "Triple", "INVERSE_PREFIX", "inverse", "is_inverse", "base_relation", "relation_path_text",
    "KGError", "KGLoadError", "KGQueryError", "ReadOnlyViolation", "UnknownEntityError", "UnknownRelationError",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
