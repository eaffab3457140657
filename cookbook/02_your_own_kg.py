"""Your own knowledge graph from a Turtle file: load it, ask it, keep it in an Oxigraph store.

Shows that any RDF file works: entities keep their own IRIs, names come from `rdfs:label`, relation
names from the predicates' local names. The offline planner learns which relation paths answer which
kind of question from a few example questions (RoG's exemplar planner; no LLM, no fine-tuning).
Then the file is bulk-loaded once into an Oxigraph store on disk, which later runs reopen in
milliseconds instead of re-parsing (`kg-agent load my_kg.ttl --store my_kg.oxigraph` does the same).

Run from the project root:

    python cookbook/02_your_own_kg.py                      # cookbook/data/my_kg.ttl
    python cookbook/02_your_own_kg.py path/to/your.ttl "a question about [Some Entity]"
"""

import sys
import tempfile
from pathlib import Path

from kg_agent.graphs import create_rog_graph
from kg_agent.kg import build_oxigraph, open_kg, open_oxigraph
from kg_agent.tools.rog.exemplar import Exemplar

ttl = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "data" / "my_kg.ttl"
question = sys.argv[2] if len(sys.argv) > 2 else "where was the author of [Dune] born"

kg = open_kg(ttl)  # .ttl, .nt, .rdf, .jsonld ... parsed by rdflib into memory
print(f"{ttl.name}: {len(kg)} triples, relations: {', '.join(kg.relation_names())}")
dune = kg.find_entities("Dune")[0]
print(f"'Dune' is {dune.id} with relations {kg.relations(dune.id)}")

# A few example questions with their answers teach the offline planner (optional).
examples = [
    Exemplar("where was the author of [Neuromancer] born", ["Conway"]),
    Exemplar("who wrote [Children of Dune]", ["Frank Herbert"]),
    Exemplar("what books did [William Gibson] write", ["Neuromancer"]),
]


def ask(kg, question):
    result = create_rog_graph(kg, exemplars=examples).compile().invoke({"question": question})
    for answer in result["answers"]:
        print(f"  {answer['answer']}  ({answer['entity_id']})\n    because {answer['paths'][0]['text']}")


print(f"\nQuestion: {question}\nFrom the file, in memory:")
ask(kg, question)

with tempfile.TemporaryDirectory() as tmp:
    store = build_oxigraph(ttl, Path(tmp) / "my_kg.oxigraph")  # parse and bulk-load once
    on_disk = open_oxigraph(store)  # reopen: nothing is parsed again
    print(f"\nFrom the Oxigraph store {store.name} ({on_disk.backend}, {len(on_disk)} triples):")
    ask(on_disk, question)
    on_disk.close()
