"""Quickstart: answer a question from the bundled sample movie KG with RoG, offline.

Shows the basic loop: open a knowledge graph, build Reasoning on Graphs (RoG) as a LangGraph graph,
invoke it, and read the answers with the reasoning paths that support them. No LLM and no network:
RoG's planner and answerer run their offline deciders.

Run from the project root (after `pip install -e .`):

    python cookbook/01_quickstart.py
    python cookbook/01_quickstart.py "what genres are the films [Meg Ryan] starred in"
"""

import sys

from kg_agent.graphs import create_rog_graph
from kg_agent.kg import open_kg

question = sys.argv[1] if len(sys.argv) > 1 else "who directed the films that [Tom Hanks] starred in"

kg = open_kg()  # the bundled sample: a slice of MetaQA's WikiMovies KB
print(f"Knowledge graph: {len(kg)} triples")

app = create_rog_graph(kg).compile()  # link -> plan -> retrieve -> answer
result = app.invoke({"question": question})  # [brackets] mark the topic entity (optional)

print(f"Question: {question}")
print("Relation-path plans:")
for plan in result["plans"]:
    print(f"  {plan['text']}  (score {plan['score']:.2f})")
print("Answers:")
for answer in result["answers"][:5]:
    print(f"  {answer['answer']}")
    print(f"    because {answer['paths'][0]['text']}")  # the reasoning path behind the answer
if len(result["answers"]) > 5:
    print(f"  ... and {len(result['answers']) - 5} more")
