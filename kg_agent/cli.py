"""``kg-agent``: ask questions over a knowledge graph, load KGs, evaluate methods.

    kg-agent ask "what films did [Tom Hanks] star in"             # bundled sample KG, offline
    kg-agent ask "..." --kg ../shared/data/metaqa/kb.txt --model openai:gpt-4o-mini
    kg-agent load ../shared/data/metaqa/kb.txt --store kb.oxigraph  # build an Oxigraph store once
    kg-agent mcp --transport http --port 8765                     # the KG tools and methods for MCP clients
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Sequence

from kg_agent.graphs.registry import METHODS
from kg_agent.llm.models import add_model_request_args, resolve_model_args
from kg_agent.tools.shared.grounding import GROUNDING_POLICIES


def _add_kg_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kg", help="KG file (Turtle/N-Triples/..., MetaQA .txt, RoG/2Wiki .jsonl), Oxigraph store folder, "
                        "or SPARQL endpoint URL (default: the bundled sample movie KG)")
    parser.add_argument("--backend", choices=("memory", "oxigraph"), default=None,
                        help="for a KG file: keep it in memory (default) or bulk-load it once into an Oxigraph store beside it")
    parser.add_argument("--kg-cache", metavar="FILE", default=None,
                        help="for a SPARQL endpoint: keep fetched neighbourhoods and labels in this SQLite file across runs")


def _add_method_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--method", choices=METHODS, default="rog", help="reasoning method (default: rog)")
    parser.add_argument("--model", default=None,
                        help="chat model, e.g. openai:gpt-4o-mini; 'none' for offline (default: offline unless OPENAI_API_KEY is set)")
    add_model_request_args(parser)
    parser.add_argument("--planner", choices=("auto", "llm", "exemplar", "similarity"), default="auto", help="RoG planner")
    parser.add_argument("--train", action="append", default=[],
                        help="MetaQA-format or JSONL question file to build the exemplar planner from (repeatable)")
    parser.add_argument("--k", type=int, default=3, help="RoG: number of relation-path plans (default 3)")
    parser.add_argument("--width", type=int, default=3, help="ToG: beam width W (default 3)")
    parser.add_argument("--depth", type=int, default=3, help="ToG: maximum depth D (default 3)")
    parser.add_argument("--docs", help="ToG-2: document index folder, documents JSONL, or Chroma server URL (http://host:8000?collection=NAME)")
    parser.add_argument("--max-concurrency", type=int, default=None, metavar="N",
                        help="independent LLM calls of one step asked at once (default 4; 1: one after the other)")
    parser.add_argument("--structured-output", choices=("auto", "json_schema", "function_calling", "json_mode", "text"),
                        default=None, help="how the LLM deciders ask (default auto: json_schema on OpenAI's API, else text)")
    parser.add_argument("--speculate", action="store_true", default=None,
                        help="ToG/ToG-I: ask the next step's model calls while the verifier decides (faster with a slow "
                             "model, same answers; calls made unnecessary by a Yes are wasted but counted)")
    parser.add_argument("--grounding", choices=GROUNDING_POLICIES, default=None,
                        help="what model answers no retrieved path or chunk supports become: prefer (default: the "
                             "grounded offline answers replace them), strict (grounded answers only), off (kept, flagged)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kg-agent", description="Knowledge-graph reasoning (RoG, ToG, ToG-I, ToG-2) as LangGraph graphs")
    sub = parser.add_subparsers(dest="command", required=True)

    ask = sub.add_parser("ask", help="answer one question and show the reasoning paths")
    ask.add_argument("question")
    _add_kg_args(ask)
    _add_method_args(ask)
    ask.add_argument("--json", action="store_true", help="print the whole result state as JSON")
    ask.add_argument("--explain", action="store_true", help="RoG: use the explanation prompt")
    ask.add_argument("--html", metavar="PATH", help="also write a self-contained HTML page: the explored subgraph with "
                     "the answer's paths highlighted, and the method's state machine")

    load = sub.add_parser("load", help="load a KG file once into an Oxigraph store on disk")
    load.add_argument("source")
    load.add_argument("--store", required=True, help="folder for the Oxigraph store")
    load.add_argument("--overwrite", action="store_true")

    export = sub.add_parser("export-rog-data", help="write RoG's planning and reasoning instruction-tuning sets (JSONL)")
    export.add_argument("kind", choices=("metaqa", "rog-jsonl", "twowiki", "jsonl"), help="question file format")
    export.add_argument("--questions", required=True, help="question/answer file")
    _add_kg_args(export)
    export.add_argument("--out-dir", required=True, help="folder for planning.jsonl and reasoning.jsonl")
    export.add_argument("--max-hops", type=int, default=3)
    export.add_argument("--limit", type=int, default=None, help="only the first N questions")

    for extra in _extra_commands():
        extra(sub)
    return parser


def _extra_commands():
    """Sub-commands contributed by other modules (evaluation, ingest, ...), when present."""
    commands = []
    try:
        from kg_agent.eval.cli import register as register_eval

        commands.append(register_eval)
    except ImportError:
        pass
    try:
        from kg_agent.docs.cli import register as register_docs

        commands.append(register_docs)
    except ImportError:
        pass
    from kg_agent.mcp_server import register as register_mcp

    commands.append(register_mcp)
    return commands


def open_cli_kg(args: argparse.Namespace):
    from kg_agent.kg import open_kg

    return open_kg(args.kg, backend=args.backend, cache_path=getattr(args, "kg_cache", None))


def load_exemplars(files: Sequence[str]):
    """Training questions for the exemplar planner from MetaQA or JSONL question files."""
    from kg_agent.eval.datasets import load_dataset
    from kg_agent.tools.rog.plan import Exemplar

    exemplars = []
    for file in files:
        kind = "jsonl" if file.endswith(".jsonl") else "metaqa"
        for q in load_dataset(kind, file):
            exemplars.append(Exemplar(q.extra.get("raw", q.question), q.answers, q.topic_entities))
    return exemplars


#: CLI flags whose value is a factory option of another name.
OPTION_NAMES = {"docs": "documents"}
#: Factory options the CLI sets; ``None`` (flag not given) leaves the factory's default.
CLI_OPTIONS = ("planner", "k", "width", "depth", "docs", "explain", "grounding", "max_llm_calls", "max_tokens",
               "max_seconds", "max_concurrency", "structured_output", "speculate")


def graph_options(args: argparse.Namespace) -> dict:
    """The factory options the CLI flags set (by factory option name; unset flags left out)."""
    values = vars(args)
    return {OPTION_NAMES.get(flag, flag): values[flag] for flag in CLI_OPTIONS if values.get(flag) is not None}


def print_result(result: dict, *, out=None) -> None:
    out = out if out is not None else sys.stdout
    print(f"Question: {result.get('question', '')}", file=out)
    entities = ", ".join(e["label"] for e in result.get("topic_entities") or []) or "(none)"
    print(f"Topic entities: {entities}", file=out)
    plans = result.get("plans") or []
    if plans:
        print("Plans:", file=out)
        for plan in plans:
            print(f"  {plan['text']}  (score {plan['score']:.3f}, {plan['source']})", file=out)
    answers = result.get("answers") or []
    print("Answers:" if answers else "Answers: (none)", file=out)
    for answer in answers[:20]:
        flag = "" if answer.get("grounded", True) else "  [not supported by the knowledge graph]"
        print(f"  - {answer['answer']}{flag}", file=out)
        for path in answer.get("paths", [])[:2]:
            print(f"      {path['text']}", file=out)
    if len(answers) > 20:
        print(f"  ... {len(answers) - 20} more", file=out)
    warnings = result.get("warnings") or []
    for warning, count in Counter(warnings).items():  # each note once, in order, with how often it was made
        print(f"Note: {warning}" + (f"  (x{count})" if count > 1 else ""), file=out)
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
    kg = open_cli_kg(args)
    model = resolve_model_args(args)
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
        from kg_agent.view import write_html

        write_html(args.html, result, app=app, method=args.method)
        print(f"Reasoning view written to {args.html}", file=sys.stderr)
    return 0


def _jsonable(result: dict) -> dict:
    out = dict(result)
    if "messages" in out:
        out["messages"] = [{"type": m.type, "content": m.content} for m in out["messages"]]
    return out


def cmd_load(args: argparse.Namespace) -> int:
    import time

    from kg_agent.kg import build_oxigraph, open_oxigraph
    from kg_agent.kg.loaders import VECTOR_CACHE_FILE
    from kg_agent.tools.shared.relation_vectors import precompute_relation_vectors

    embedded: list[tuple[int, float]] = []

    def embed_relations(index, sidecar) -> None:  # beside the bulk load, into the store's vector file
        began = time.perf_counter()
        embedded.append((precompute_relation_vectors(index, sidecar / VECTOR_CACHE_FILE), time.perf_counter() - began))

    start = time.perf_counter()
    build_oxigraph(args.source, args.store, overwrite=args.overwrite, progress=sys.stderr.isatty(),
                   beside_load=embed_relations)
    seconds = time.perf_counter() - start
    with open_oxigraph(args.store) as kg:
        triples = len(kg)
    print(f"{args.store}: {triples:,} triples loaded in {seconds:.1f} s ({triples / max(seconds, 1e-9):,.0f} "
          f"triples/s); use --kg {args.store}")
    texts, embedding_seconds = embedded[0]
    if texts:
        print(f"{texts:,} relation texts embedded for the offline deciders in {embedding_seconds:.1f} s, beside the load")
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


def main(argv: Sequence[str] | None = None) -> int:
    from kg_agent.docs.index import DocumentIndexConnectionError
    from kg_agent.kg.errors import KGError
    from kg_agent.llm.errors import KGAgentLLMError

    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = {"ask": cmd_ask, "load": cmd_load, "export-rog-data": cmd_export_rog_data}
    handler = handlers.get(args.command) or getattr(args, "handler", None)
    try:
        return int(handler(args) or 0)
    except (KGError, KGAgentLLMError, ValueError, FileNotFoundError, DocumentIndexConnectionError) as exc:
        print(f"kg-agent: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("kg-agent: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
