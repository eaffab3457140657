"""ToG-2 over your documents: knowledge-graph paths and your own texts, one answer with its source.

Think-on-Graph 2.0 walks the KG from the question's entities and, at each step, reads document chunks
about the entities it reaches: chunks rank the candidate entities, and an answer the KG lacks can be
read from a chunk, which the answer then cites. Here the KG is cookbook/data/my_kg.ttl (it knows
Frank Herbert's awards but not Ursula K. Le Guin's) and the documents are a few paragraphs of our own,
each linked to the KG entity it is about, in an in-memory Chroma `DocumentIndex` embedded with the
bundled offline MiniLM model. Everything runs offline (no LLM); pass `model=` for the LLM deciders.

Run from the project root:

    python cookbook/07_tog2_over_your_documents.py
"""

from pathlib import Path

from kg_agent.docs.index import DocumentIndex
from kg_agent.graphs import create_tog2_graph
from kg_agent.kg import open_kg

kg = open_kg(Path(__file__).parent / "data" / "my_kg.ttl")

documents = [  # {"title", "text"} (plus "entity" when you know its id) - e.g. wiki pages, notes, reports
    {"title": "Ursula K. Le Guin", "text": "Ursula Kroeber Le Guin (1929-2018) was an American author best known "
     "for the Earthsea fantasy series and the Hainish science fiction novels. She won the Hugo Award and the "
     "Nebula Award for The Left Hand of Darkness in 1970, and both again for The Dispossessed."},
    {"title": "Frank Herbert", "text": "Frank Herbert (1920-1986) was an American science fiction author, best "
     "known for the novel Dune and its five sequels. He first worked as a newspaper reporter and photographer."},
    {"title": "William Gibson", "text": "William Gibson is an American-Canadian writer who coined the term "
     "cyberspace in 1982. His first novel, Neuromancer, launched the cyberpunk genre."},
]


def link(title: str) -> str | None:
    """The KG entity a document is about: here, the entity whose label is the document's title."""
    found = kg.find_entities(title)
    return found[0].id if found else None


index = DocumentIndex.in_memory(collection="my_author_notes")  # or DocumentIndex("path/to/index") on disk,
# or DocumentIndex.connect("http://localhost:8000", collection=...) in a Chroma server (`chroma run`); a graph
# also takes that server as documents="http://localhost:8000?collection=my_author_notes" (CLI: --docs URL)
report = index.ingest(documents, link=link)  # chunked, embedded, upserted with stable ids (re-running is a no-op)
print(f"Indexed {report.documents} documents as {report.chunks} chunks, {report.linked_entities} linked to entities")

app = create_tog2_graph(kg, documents=index).compile()
for question in ["which prize was awarded to the author of [Dune]",
                 "which prize was awarded to the author of [A Wizard of Earthsea]"]:
    result = app.invoke({"question": question})
    print(f"\nQuestion: {question}")
    for answer in result["answers"]:
        print(f"Answer: {answer['answer']}")
        if answer.get("paths"):
            print(f"  from the KG: {answer['paths'][0]['text']}")
        for chunk in answer.get("chunks", [])[:1]:
            print(f"  from the document '{chunk['title']}': {chunk['text']}")
