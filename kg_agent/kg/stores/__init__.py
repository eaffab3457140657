"""Backends of :class:`~kg_agent.kg.graph.KnowledgeGraph`, one class each behind :class:`GraphStore`.

* :class:`~kg_agent.kg.stores.memory.MemoryGraphStore`: an rdflib graph in memory with every edge indexed.
* :class:`~kg_agent.kg.stores.oxigraph.OxigraphGraphStore`: an Oxigraph store on disk, read through
  pyoxigraph's own API (``quads_for_pattern``, ``query``), neighbourhoods cached per entity.
* :class:`~kg_agent.kg.stores.endpoint.EndpointGraphStore`: a SPARQL endpoint, read with templated,
  batched and paged queries, optionally backed by a persistent :class:`~kg_agent.kg.sparql_cache.SparqlCache`.
"""

from kg_agent.kg.stores.base import GraphStore, LazyGraphStore

__all__ = ["GraphStore", "LazyGraphStore"]
