"""``kg-agent``: ask questions over a knowledge graph, load KGs, evaluate methods.

    kg-agent ask "what films did [Tom Hanks] star in"             # bundled sample KG, offline
    kg-agent ask "..." --kg ../shared/data/metaqa/kb.txt --model openai:gpt-4o-mini
    kg-agent load ../shared/data/metaqa/kb.txt --store kb.oxigraph  # build an Oxigraph store once
    kg-agent mcp --transport http --port 8765                     # the KG tools and methods for MCP clients
    kg-agent ingest --docs plots.jsonl --kg kb.txt --index ./doc_index  # entity documents for ToG-2

A chat model is used only when one is named (``--model``, else ``KG_AGENT_MODEL``); otherwise every decision is
made offline, whatever API keys the environment holds. Exit status: :data:`kg_agent.exit_status.EXIT_STATUS_HELP`.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kg_agent.eval.datasets import read_question_file
from kg_agent.exit_status import (
    ANSWERED,
    BAD_INPUT,
    EXIT_STATUS_HELP,
    INTERRUPTED,
    NOTHING_ANSWERED,
    STORE_BUSY,
    interrupts_end_the_command,
)
from kg_agent.graphs.registry import METHODS, add_method_args, graph_options
from kg_agent.kg.naming import add_endpoint_args, add_file_args, add_naming_args, endpoint_options, file_options, naming_options
from kg_agent.llm.models import resolve_model_args

#: Texts longer than this are shown capped: in the text output always, in ``--json`` where they repeat.
LONG_TEXT_CHARS = 300


def _add_kg_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kg", help="KG file (Turtle/N-Triples/..., MetaQA .txt, RoG/2Wiki .jsonl), Oxigraph store folder, "
                        "or SPARQL endpoint URL (default: the bundled sample movie KG)")
    parser.add_argument("--backend", choices=("memory", "oxigraph"), default=None,
                        help="for a KG file: keep it in memory (default) or bulk-load it once into an Oxigraph store beside it")
    parser.add_argument("--kg-cache", metavar="FILE", default=None,
                        help="for a SPARQL endpoint: keep fetched neighbourhoods and labels in this SQLite file across runs")
    add_naming_args(parser)
    add_file_args(parser)
    add_endpoint_args(parser)


def _add_method_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--method", choices=METHODS, default="rog", help="reasoning method (default: rog)")
    parser.add_argument("--train", action="append", default=[],
                        help="MetaQA-format or JSONL question file to build the exemplar planner from (repeatable); with "
                        "--model, the LLM planner's prompt also shows the nearest training questions")
    add_method_args(parser)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kg-agent", description="Knowledge-graph reasoning (RoG, ToG, ToG-I, ToG-2) as LangGraph graphs",
                                     epilog=EXIT_STATUS_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    ask = sub.add_parser("ask", help="answer one question and show the reasoning paths",
                         description="Answer one question over a knowledge graph and show the reasoning paths.",
                         epilog=EXIT_STATUS_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    ask.add_argument("question")
    _add_kg_args(ask)
    _add_method_args(ask)
    ask.add_argument("--json", action="store_true",
                     help=f"print the whole result state as JSON; a text longer than {LONG_TEXT_CHARS} characters appears "
                     "in full once (a long answer in answers[].answer) and, where it repeats (path texts, ids, output), "
                     f"as its first {LONG_TEXT_CHARS} characters and '… (N characters; full text at answers[0].answer)'")
    ask.add_argument("--html", metavar="PATH", help="also write a self-contained HTML page: the explored subgraph with "
                     "the answer's paths highlighted, and the method's state machine")

    load = sub.add_parser("load", help="load a KG file once into an Oxigraph store on disk",
                          description="Load a KG file once into an Oxigraph store folder; ask over it with --kg DIR.",
                          epilog=LOAD_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    load.add_argument("source", help="KG file: Turtle, N-Triples, N-Quads, TriG, N3, RDF/XML, JSON-LD (UTF-8), "
                      "MetaQA .txt, RoG/2Wiki .jsonl")
    load.add_argument("--store", required=True, metavar="DIR", help="folder for the store: a new path or an empty folder")
    load.add_argument("--overwrite", action="store_true",
                      help="replace the store kg-agent built at DIR (never any other folder)")
    add_file_args(load)

    export = sub.add_parser("export-rog-data", help="write RoG's planning and reasoning instruction-tuning sets (JSONL)")
    export.add_argument("kind", choices=("metaqa", "rog-jsonl", "twowiki", "jsonl"), help="question file format")
    export.add_argument("--questions", required=True, help="question/answer file")
    _add_kg_args(export)
    export.add_argument("--out-dir", required=True, help="folder for planning.jsonl and reasoning.jsonl")
    export.add_argument("--max-hops", type=int, default=3)
    export.add_argument("--limit", type=int, default=None, help="only the first N questions")

    ingest = sub.add_parser("ingest", help="ingest entity documents (JSONL) into a persistent document index for ToG-2")
    ingest.add_argument("--docs", required=True, help="documents JSONL: one {title|entity, text} object per line")
    ingest.add_argument("--kg", default=None, help="KG the documents are linked to (file, Oxigraph folder or SPARQL URL; "
                        "default: the bundled sample KG)")
    ingest.add_argument("--backend", choices=("memory", "oxigraph"), default=None, help="how to open a KG file")
    ingest.add_argument("--index", default="kg_agent_index", help="folder of the persistent Chroma index (default ./kg_agent_index)")
    ingest.add_argument("--collection", default=None, help="Chroma collection name (default kg_agent_docs)")
    ingest.set_defaults(handler=cmd_ingest)

    for extra in _extra_commands():
        extra(sub)
    return parser


def _extra_commands():
    """Sub-commands contributed by other modules (evaluation, MCP), when present."""
    commands = []
    try:
        from kg_agent.eval.cli import register as register_eval

        commands.append(register_eval)
    except ImportError:
        pass
    commands.append(_register_mcp)
    return commands


def _register_mcp(subparsers) -> None:
    from kg_agent.mcp.flags import add_mcp_parser

    add_mcp_parser(subparsers).set_defaults(handler=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    """``kg-agent mcp``: the server and what it serves are imported now (:mod:`kg_agent.mcp`)."""
    from kg_agent.mcp.command import cmd_mcp as serve

    return serve(args)


def open_cli_kg(args: argparse.Namespace):
    from kg_agent.kg import open_kg

    return open_kg(args.kg, backend=args.backend, cache_path=getattr(args, "kg_cache", None), **naming_options(args),
                   **file_options(args), **endpoint_options(args))


def load_exemplars(files: Sequence[str]):
    """Training questions for the exemplar planner from MetaQA or JSONL question files."""
    from kg_agent.eval.datasets import load_dataset
    from kg_agent.tools.rog.exemplar import Exemplar

    exemplars = []
    for file in files:
        kind = "jsonl" if file.endswith(".jsonl") else "metaqa"
        for q in read_question_file(load_dataset, kind, file, option="--train"):
            exemplars.append(Exemplar(q.extra.get("raw", q.question), q.answers, q.topic_entities))
    return exemplars


def capped(text: str, *, where: str = "full text in --json") -> str:
    """``text``, or when longer than :data:`LONG_TEXT_CHARS` its start and ``… (N characters; <where>)``."""
    if len(text) <= LONG_TEXT_CHARS:
        return text
    return f"{text[:LONG_TEXT_CHARS]}… ({len(text):,} characters; {where})"


def linked_from(entity: dict) -> str:
    """`` (from "tom hanks", exact 0.95)`` for an entity linked from words of the question other than its label."""
    mention = entity.get("mention")
    if not mention or mention == entity.get("label"):
        return ""
    how = f", {entity['how']} {entity['score']:.2f}" if entity.get("how") and entity.get("score") is not None else ""
    return f' (from "{capped(mention)}"{how})'


#: Compared or counted things shown under an answer (``--json`` has them all).
EVIDENCE_SHOWN = 5


def print_evidence(answer: dict, out) -> None:
    """Under an answer, what a comparison compared (``compared``, by ``compared_by``) or a count counted (``counted``)."""
    compared = answer.get("compared") or []
    if compared:
        shown = ", ".join(f"{capped(str(item['answer']))} {item['value']}" for item in compared[:EVIDENCE_SHOWN])
        more = f", ... ({len(compared)} compared)" if len(compared) > EVIDENCE_SHOWN else ""
        print(f"      {capped(str(answer.get('compared_by') or 'compared'))}: {shown}{more}", file=out)
    counted = answer.get("counted") or []
    if counted:
        more = ", ..." if len(counted) > EVIDENCE_SHOWN or str(answer.get("answer")) != str(len(counted)) else ""
        print(f"      counted: {', '.join(capped(str(c)) for c in counted[:EVIDENCE_SHOWN])}{more}", file=out)


def print_result(result: dict, *, out=None) -> None:
    """The result as text: question, topic entities, plans, answers with up to two paths each, notes and model use.

    Every text longer than :data:`LONG_TEXT_CHARS` characters (a long literal as the answer, say) is shown capped;
    ``--json`` has it in full."""
    out = out if out is not None else sys.stdout
    print(f"Question: {capped(str(result.get('question', '')))}", file=out)
    entities = ", ".join(capped(e["label"]) + linked_from(e) for e in result.get("topic_entities") or []) or "(none)"
    print(f"Topic entities: {entities}", file=out)
    plans = result.get("plans") or []
    if plans:
        print("Plans:", file=out)
        for plan in plans:
            print(f"  {capped(plan['text'])}  (score {plan['score']:.3f}, {plan['source']})", file=out)
    answers = result.get("answers") or []
    print("Answers:" if answers else "Answers: (none)", file=out)
    for answer in answers[:20]:
        flag = "" if answer.get("grounded", True) else "  [not supported by the knowledge graph]"
        print(f"  - {capped(str(answer['answer']))}{flag}", file=out)
        for path in answer.get("paths", [])[:2]:
            print(f"      {capped(path['text'])}", file=out)
        print_evidence(answer, out)
    if len(answers) > 20:
        print(f"  ... {len(answers) - 20} more", file=out)
    warnings = result.get("warnings") or []
    for warning, count in Counter(warnings).items():  # each note once, in order, with how often it was made
        print(f"Note: {capped(str(warning))}" + (f"  (x{count})" if count > 1 else ""), file=out)
    usage = result.get("usage") or {}
    if not (usage.get("calls") or usage.get("errors")):
        print("LLM: none (offline)", file=out)
        return
    errors = f", {usage['errors']} failed" if usage.get("errors") else ""
    print(f"LLM: {usage.get('calls', 0)} calls{errors}, {usage.get('prompt_tokens', 0)} prompt + "
          f"{usage.get('completion_tokens', 0)} completion tokens", file=out)
    decisions = decision_sources(usage, warnings)
    if decisions:
        by_model = sum(model for model, _ in decisions.values())
        print(f"Decisions: {by_model} by the model, {sum(f for _, f in decisions.values())} by the offline fallback"
              + ("" if by_model else " (no decision came from the model)"), file=out)
        for node, (model, fallback) in decisions.items():
            print(f"  {node}: {model} by the model, {fallback} by the fallback", file=out)


_FELL_BACK = re.compile(r"^(\w+): fell back to ")
_UNUSABLE_ATTEMPT = re.compile(r"^(\w+): attempt \d+ gave no usable ")


def decision_sources(usage: dict, warnings: list[str]) -> dict[str, tuple[int, int]]:
    """Per node, how many decisions the model made and how many fell back to the offline twin.

    A decision falls back with a ``"<node>: fell back to ..."`` warning. Every completed call that did not give
    an unusable reply (``"<node>: attempt N gave no usable ..."``) gave the model's decision.
    """
    fallbacks = Counter(m.group(1) for w in warnings if (m := _FELL_BACK.match(w)))
    unusable = Counter(m.group(1) for w in warnings if (m := _UNUSABLE_ATTEMPT.match(w)))
    nodes = [*(usage.get("by_node") or {}), *(n for n in fallbacks if n not in (usage.get("by_node") or {}))]
    calls = {node: int(counts.get("calls", 0)) for node, counts in (usage.get("by_node") or {}).items()}
    return {node: (max(0, calls.get(node, 0) - unusable[node]), fallbacks[node]) for node in nodes}


def cmd_ask(args: argparse.Namespace) -> int:
    if not args.question.strip():
        raise ValueError("the question is empty")
    kept = ["no answer was given"]
    with interrupts_end_the_command("ask", lambda: kept[0]):
        with lasting_objects(getattr(args, "own_process", False)):
            model = resolve_model_args(args)
            kg = open_cli_kg(args)
            exemplars = load_exemplars(args.train) if args.train else None
            from kg_agent.graphs.registry import create_graph, options_for

            options = options_for(args.method, {**graph_options(args), "exemplars": exemplars})
            app = create_graph(args.method, kg, model=model, **options).compile()
        result = app.invoke({"question": args.question})
        if args.json:
            print(json.dumps(_jsonable(result), indent=2, ensure_ascii=False))
        else:
            print_result(result)
        if args.html:
            kept[0] = f"the result was printed; the reasoning view {args.html} may be missing or incomplete"
            from kg_agent.view import write_html

            write_html(args.html, result, app=app, method=args.method)
            print(f"Reasoning view written to {args.html}", file=sys.stderr)
    if result.get("answers"):
        return ANSWERED
    print(f"kg-agent ask: no answer: {why_unanswered(result, kg)}", file=sys.stderr)
    return NOTHING_ANSWERED


@contextmanager
def lasting_objects(own_process: bool) -> Iterator[None]:
    """A block that makes what lives until the process ends (the ~1,400 modules it imports, the KG, the compiled
    graph): when the command is the process (``own_process``), the garbage collector does not run in it, and what
    is alive at its end is kept out of the collector's later walks (``gc.freeze``). Those collections found nothing
    to free and cost ~0.3 CPU-s of a ``kg-agent ask``, most of it while Python exits; what the question makes
    afterwards is collected as before. A call of :func:`main` from other code (a test, a program) leaves its
    collector alone."""
    if not own_process:
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def why_unanswered(result: dict, kg) -> str:
    """Why ``result`` (a method graph's result state) has no answer, in plain words for the command line."""
    from kg_agent.kg.linking import NO_ENTITY_MESSAGE

    stop = str(result.get("stop_reason") or "")
    warnings = [str(w) for w in result.get("warnings") or []]
    if stop == "no_question":
        return "the question is empty"
    if stop == "no_topic_entity":
        if kg.backend != "sparql" and len(kg) == 0:  # an endpoint is not counted: that may take a long query
            return f"the knowledge graph {kg.name} is empty (no triples)"
        linking = next((w.removeprefix("link: ") for w in warnings if w.startswith(f"link: {NO_ENTITY_MESSAGE}")),
                       NO_ENTITY_MESSAGE)
        if "closest labels" not in linking:
            linking += "; no label of the knowledge graph is close to it"
        return capped(linking, where="cut short")
    if stop == "budget":
        spent = next((w for w in warnings if "budget spent" in w or "the model failed" in w), "")
        reason = re.sub(r"\bmax_\w+=", "at most ", spent.split(": ", 1)[-1].split(";")[0]) if spent else ""
        return "the budget ran out before an answer was found" + (f" ({reason})" if reason else "")
    if stop == "no_grounded_answer":
        return "no answer the model gave is supported by the knowledge graph (--grounding strict withholds them)"
    if stop == "abstained":
        reason = next((w.split("abstained: ", 1)[1] for w in warnings if "abstained: " in w), "")
        return capped(f"the knowledge graph does not say: {reason} (--when-unsupported best_effort answers anyway)",
                      where="cut short")
    entities = ", ".join(str(e.get("label")) for e in result.get("topic_entities") or [])
    return capped(f"no path in the knowledge graph led from {entities} to an answer", where="cut short")


def _jsonable(result: dict) -> dict:
    out = dict(result)
    if "messages" in out:
        out["messages"] = [{"type": m.type, "content": m.content} for m in out["messages"]]
    return long_texts_once(out)


def long_texts_once(document: dict, *, limit: int = LONG_TEXT_CHARS) -> dict:
    """``document`` (JSON data: a result state) with every text longer than ``limit`` characters in full once.

    The full copy is kept in the first ``answers[i].answer`` holding the text, else in the first entity ``label``,
    else in the first field holding it. Every other field that holds it (a path step's label, the verifier's
    answer), is built around it (a path's text, the offline ``output``) or is the id of a literal with that label
    shows its first ``limit`` characters and ``… (N characters; full text at answers[0].answer)``. A 5 MB literal
    answer thus adds 5 MB to the JSON, not nine times that.
    """
    found: list[tuple[tuple, str, Any]] = []  # (location, text, the dict or list holding it), in document order

    def collect(node: Any, location: tuple) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            if isinstance(value, str):
                if len(value) > limit:
                    found.append(((*location, key), value, node))
            else:
                collect(value, (*location, key))

    collect(document, ())
    if not found:
        return document

    def rank(location: tuple) -> int:
        return 0 if location[0] == "answers" and location[-1] == "answer" else 1 if location[-1] == "label" else 2

    homes: dict[str, tuple] = {}  # text -> location of its full copy
    for location, text, _ in sorted(found, key=lambda item: rank(item[0])):  # stable: document order within a rank
        if rank(location) < 2:
            homes.setdefault(text, location)
    names = sorted(homes, key=len, reverse=True)  # the long answers and labels, longest first
    shortened: dict[tuple, str] = {}
    for location, text, holder in found:
        home = homes.get(text)
        if home == location:
            continue
        if home is None and location[-1] in ("id", "entity_id") and isinstance(holder, dict):
            named = holder.get("label" if location[-1] == "id" else "answer")
            home = homes.get(named) if isinstance(named, str) else None  # a literal's id: its label, escaped
        if home is None:
            home = next((homes[name] for name in names if len(name) < len(text) and name in text), None)
        if home is None:
            homes[text] = location  # a long text no answer or label holds: this first copy is the full one
            continue
        shortened[location] = capped(text, where=f"full text at {_json_location(home)}")

    def rebuild(node: Any, location: tuple) -> Any:
        if isinstance(node, dict):
            return {key: shortened.get((*location, key)) or rebuild(value, (*location, key)) for key, value in node.items()}
        if isinstance(node, list):
            return [shortened.get((*location, index)) or rebuild(value, (*location, index)) for index, value in enumerate(node)]
        return node

    return rebuild(document, ())


def _json_location(location: tuple) -> str:
    """``("answers", 0, "answer")`` -> ``answers[0].answer``."""
    return "".join(f"[{part}]" if isinstance(part, int) else (f".{part}" if index else part)
                   for index, part in enumerate(location))


LOAD_HELP = """the store folder:
  DIR must be a new path or an empty folder. With --overwrite it may also be a store kg-agent built,
  which is replaced once the new one is complete. Anything else is refused, never deleted: a folder
  holding other files, a file, the input file or a folder holding it, the current folder or its parents.
  A store holding files kg-agent did not write is not replaced either: they are named, move them out first.
  A failed or interrupted load leaves the old store, if any, and every other file as they were.
  One load writes a store at a time (it holds DIR/kg-agent/write.lock until it ends, however it ends).

exit status:
  0    loaded
  2    bad input or usage: a missing, unreadable or non-UTF-8 file, a syntax error (its line is named),
       a refused DIR
  75   busy: another kg-agent load is writing DIR (its process id is named); nothing was changed,
       try again once it has ended
  130  interrupted (Ctrl-C): nothing was changed"""


def cmd_load(args: argparse.Namespace) -> int:
    """``kg-agent load``: build an Oxigraph store from a KG file (exit status in :data:`LOAD_HELP`)."""
    import time

    from kg_agent.kg import build_oxigraph, open_oxigraph
    from kg_agent.kg.loading.oxigraph_build import is_kg_agent_store
    from kg_agent.kg.profile import KGProfile
    from kg_agent.kg.store_folder import PROFILE_FILE, SIDECAR_DIR, StoreBusy

    had_store = False
    start = time.perf_counter()
    try:
        had_store = is_kg_agent_store(args.store)
        build_oxigraph(args.source, args.store, overwrite=args.overwrite, progress=sys.stderr.isatty(),
                       lenient=args.lenient)
    except StoreBusy as exc:
        print(f"kg-agent: error: {exc}", file=sys.stderr)
        return STORE_BUSY
    except KeyboardInterrupt:
        kept = f"the old store at {args.store} is kept" if had_store else f"no store was written at {args.store}"
        print(f"kg-agent: interrupted; nothing was changed ({kept})", file=sys.stderr)
        return INTERRUPTED
    except OSError as exc:  # a folder that cannot be written, a file that cannot be read
        print(f"kg-agent: error: {exc.filename or args.store}: {exc.strerror or exc}", file=sys.stderr)
        return BAD_INPUT
    seconds = time.perf_counter() - start
    with open_oxigraph(args.store) as kg:
        triples = len(kg)
    profile = KGProfile.load(Path(args.store) / SIDECAR_DIR / PROFILE_FILE)
    # a rate says something only when the triples, not starting up (the bulk loader), took the time
    rate = f" ({triples / seconds:,.0f} triples/s)" if seconds >= 1 and triples >= 100_000 else ""
    print(f"{args.store}: {triples:,} triples loaded in {seconds:.1f} s{rate}; use --kg {args.store}")
    for line in profile.describe() if profile is not None else ():
        print(line)
    return 0


def cmd_export_rog_data(args: argparse.Namespace) -> int:
    from kg_agent.eval.datasets import load_dataset
    from kg_agent.kg import kg_from_triples
    from kg_agent.tools.rog.training_data import export_rog_training_data

    questions = load_dataset(args.kind, args.questions)[: args.limit]
    if args.kind == "rog-jsonl" and not args.kg:
        report = export_rog_training_data(questions, args.out_dir, max_hops=args.max_hops,
                                          kg_for_question=lambda q: kg_from_triples(q.extra["graph"], name=q.id))
    else:
        report = export_rog_training_data(questions, args.out_dir, kg=open_cli_kg(args), max_hops=args.max_hops)
    print(f"{report.questions} questions: {report.planning_examples} planning and {report.reasoning_examples} reasoning "
          f"examples written to {args.out_dir} ({report.skipped} skipped: no relation path between their entities and answers)")
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    """``kg-agent ingest``: put entity documents into a persistent Chroma index, linked to KG entities.

    Each JSONL line is ``{"title"|"entity", "text", ...}``; a document is linked to the KG entity its ``entity`` (id
    or label) or its ``title`` names (labels compared case- and punctuation-insensitively). Documents already in the
    index (same stable chunk ids) are not embedded again, so re-running is cheap. The index is then used with
    ``kg-agent ask "..." --method tog2 --docs ./doc_index``.
    """
    from kg_agent.docs.index import DEFAULT_COLLECTION, DocumentIndex, load_documents_jsonl
    from kg_agent.kg import open_kg
    from kg_agent.tools.tog2.documents import ingest_documents

    start = time.perf_counter()
    kg = open_kg(args.kg, backend=args.backend)
    documents = load_documents_jsonl(args.docs, skip_empty=True)
    import os
    import shutil

    new_index = not os.path.lexists(args.index)
    try:
        index = DocumentIndex(args.index, collection=args.collection or DEFAULT_COLLECTION)
        summary = ingest_documents(index, kg, documents)
    except BaseException:
        if new_index:  # made by this ingest, which failed: leave no half-written index behind
            shutil.rmtree(args.index, ignore_errors=True)
        raise
    print(f"{summary.documents} documents read from {args.docs}: {summary.linked} linked to KG entities, "
          f"{summary.unlinked} unlinked (no entity with that title/label)")
    print(f"{summary.already_indexed} already in the index, {summary.ingested} ingested "
          f"({summary.chunks_added} chunks added); the index holds {summary.chunks_total} chunks")
    print(f"index: {args.index} (collection {index.collection_name}) in {time.perf_counter() - start:.1f} s; "
          f"use: kg-agent ask \"...\" --method tog2 --docs {args.index}" + (f" --kg {args.kg}" if args.kg else ""))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from kg_agent.kg.errors import KGError
    from kg_agent.llm.errors import KGAgentLLMError

    parser = build_parser()
    args = parser.parse_args(argv)
    args.own_process = argv is None  # the kg-agent program (or python -m kg_agent.cli), not a call from other code
    handlers = {"ask": cmd_ask, "load": cmd_load, "export-rog-data": cmd_export_rog_data}
    handler = handlers.get(args.command) or getattr(args, "handler", None)
    try:
        return int(handler(args) or 0)
    except UnicodeDecodeError as exc:  # a file read as UTF-8 that is not; the readers that know the file name say it
        print(f"kg-agent: error: a file is not UTF-8 text (byte 0x{exc.object[exc.start]:02X} at byte offset {exc.start}); "
              "re-save it as UTF-8", file=sys.stderr)
        return BAD_INPUT
    except (KGError, KGAgentLLMError, ValueError) as exc:
        print(f"kg-agent: error: {exc}", file=sys.stderr)
        return BAD_INPUT
    except OSError as exc:  # a file or folder that cannot be read or written: missing, a folder, permission denied;
        # a Chroma server that does not answer (DocumentIndexConnectionError, a ConnectionError: its message)
        print(f"kg-agent: error: {os_error_text(exc)}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        print("kg-agent: interrupted", file=sys.stderr)
        return INTERRUPTED


def os_error_text(exc: OSError) -> str:
    """An operating-system error in plain words: ``kb.ttl: Permission denied`` (not ``[Errno 13] ...``)."""
    if isinstance(exc, FileExistsError) and exc.filename is not None and Path(exc.filename).is_file():
        return f"{exc.filename} is a file, not a folder"
    if exc.strerror and exc.filename is not None:
        other = f" -> {exc.filename2}" if exc.filename2 is not None else ""
        return f"{exc.filename}{other}: {exc.strerror}"
    return exc.strerror or str(exc) or "a file could not be read or written"


if __name__ == "__main__":
    sys.exit(main())
