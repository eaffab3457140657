"""A remote SPARQL endpoint as the knowledge graph (Oxigraph, Fuseki, Virtuoso, GraphDB, ...).

Shows that the methods run unchanged over a KG they never load: `open_kg(url)` wraps the endpoint
(read-only: updates and SERVICE clauses are refused), and every neighbour or label lookup becomes a
batched, templated SPARQL query over HTTP (SPARQL 1.1 Protocol), cached per entity.

Run from the project root with the endpoint's query URL as argument or in KG_AGENT_SPARQL_URL:

    python cookbook/03_remote_sparql.py http://localhost:7878/query "what films did [Tom Hanks] star in"

Without an endpoint it prints how to start one over the bundled sample KG and exits.
"""

import os
import sys

from kg_agent.graphs import create_rog_graph
from kg_agent.kg import open_kg

HOW_TO = """No SPARQL endpoint given (pass its URL as the first argument or set KG_AGENT_SPARQL_URL).
To serve the bundled sample movie KG with Oxigraph's server (pip install oxigraph):

    python -c "from kg_agent.kg import open_kg; open_kg().graph.serialize('movies.nt', format='nt')"
    oxigraph load --location movies-db --file movies.nt
    oxigraph serve-read-only --location movies-db      # listens on localhost:7878

then run:  python cookbook/03_remote_sparql.py http://localhost:7878/query"""

url = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("KG_AGENT_SPARQL_URL")
if not url:
    print(HOW_TO)
    sys.exit(0)
question = sys.argv[2] if len(sys.argv) > 2 else "who directed the films that [Tom Hanks] starred in"

kg = open_kg(url, timeout=30)  # an http(s) URL opens a SPARQL endpoint
print(f"Endpoint {url}: {len(kg)} triples ({kg.backend} backend)")

app = create_rog_graph(kg).compile()
result = app.invoke({"question": question})

print(f"Question: {question}")
for answer in result["answers"][:5]:
    print(f"  {answer['answer']}\n    because {answer['paths'][0]['text']}")
for warning in result["warnings"]:
    print(f"Note: {warning}")
print(f"SPARQL queries sent to the endpoint: {kg.cache_info()['requests']}")
