"""Opening and loading knowledge graphs, one job per module.

* :mod:`~kg_agent.kg.loading.open_kg`: :func:`open_kg` picks the loader and the backend from its argument;
* :mod:`~kg_agent.kg.loading.plain_triples`: MetaQA, RoG JSONL and 2Wiki files of plain-name triples, and a KG file's
  format;
* :mod:`~kg_agent.kg.loading.rdf_parsing`: RDF files parsed into rdflib (strict or lenient, errors naming the line);
* :mod:`~kg_agent.kg.loading.in_memory`: a file loaded into an in-memory KG;
* :mod:`~kg_agent.kg.loading.oxigraph_build`, :mod:`~kg_agent.kg.loading.oxigraph_index_pass`,
  :mod:`~kg_agent.kg.loading.oxigraph_open`: an Oxigraph store on disk built once (bulk load beside the index
  pass) and reopened;
* :mod:`~kg_agent.kg.loading.sparql_endpoint`: a remote SPARQL endpoint;
* :mod:`~kg_agent.kg.loading.samples`: the bundled sample KG and documents.

The public names are exported by :mod:`kg_agent.kg`.
"""
