"""``kg-agent ingest``: put entity documents into a persistent Chroma index, linked to KG entities.

    kg-agent ingest --docs plots.jsonl --kg kb.txt --index ./doc_index [--collection kg_agent_docs]

Each JSONL line is ``{"title"|"entity", "text", ...}``; a document is linked to the KG entity its
``entity`` (id or label) or its ``title`` names (labels compared case- and punctuation-insensitively).
Documents already in the index (same stable chunk ids) are not embedded again, so re-running is cheap.
The index is then used with ``kg-agent ask "..." --method tog2 --docs ./doc_index``.
"""

from __future__ import annotations

import argparse
import time


def register(subparsers) -> None:
    """Add the ``ingest`` sub-command to ``kg-agent``'s sub-parsers."""
    parser = subparsers.add_parser("ingest", help="ingest entity documents (JSONL) into a persistent document index for ToG-2")
    parser.add_argument("--docs", required=True, help="documents JSONL: one {title|entity, text} object per line")
    parser.add_argument("--kg", default=None, help="KG the documents are linked to (file, Oxigraph folder or SPARQL URL; "
                        "default: the bundled sample KG)")
    parser.add_argument("--backend", choices=("memory", "oxigraph"), default=None, help="how to open a KG file")
    parser.add_argument("--index", default="kg_agent_index", help="folder of the persistent Chroma index (default ./kg_agent_index)")
    parser.add_argument("--collection", default=None, help="Chroma collection name (default kg_agent_docs)")
    parser.set_defaults(handler=cmd_ingest)


def cmd_ingest(args: argparse.Namespace) -> int:
    from kg_agent.docs.index import DEFAULT_COLLECTION, DocumentIndex, load_documents_jsonl
    from kg_agent.kg import open_kg
    from kg_agent.tools.tog2.documents import ingest_documents

    start = time.perf_counter()
    kg = open_kg(args.kg, backend=args.backend)
    documents = load_documents_jsonl(args.docs, skip_empty=True)
    index = DocumentIndex(args.index, collection=args.collection or DEFAULT_COLLECTION)
    summary = ingest_documents(index, kg, documents)
    print(f"{summary.documents} documents read from {args.docs}: {summary.linked} linked to KG entities, "
          f"{summary.unlinked} unlinked (no entity with that title/label)")
    print(f"{summary.already_indexed} already in the index, {summary.ingested} ingested "
          f"({summary.chunks_added} chunks added); the index holds {summary.chunks_total} chunks")
    print(f"index: {args.index} (collection {index.collection_name}) in {time.perf_counter() - start:.1f} s; "
          f"use: kg-agent ask \"...\" --method tog2 --docs {args.index}" + (f" --kg {args.kg}" if args.kg else ""))
    return 0
