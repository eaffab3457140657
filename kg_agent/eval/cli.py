"""``kg-agent eval`` and ``kg-agent report``: run a method over benchmark questions, compare results files.

    kg-agent eval metaqa --questions ../shared/data/metaqa/2-hop/qa_dev.txt \\
        --only-lines ../shared/data/metaqa/2-hop/2hop_dev_some_gold_reachable.idx --sample 300 --seed 0 \\
        --kg ../shared/data/metaqa/kb.txt --method rog --out rog-2hop.json
    kg-agent eval rog-jsonl --questions ../shared/data/webqsp/rog_webqsp_18q.jsonl --method rog --out webqsp.json
    kg-agent report rog-*.json ceiling-*.json --png chart.png

Train/test disjointness: questions given with ``--train`` (or the train side of ``--split-train``) are used
only to build RoG's exemplar planner. Any evaluation question that is also a training question — the same
file and the same line — is dropped before the run, and the number dropped is printed.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from kg_agent.eval.datasets import DATASET_KINDS, Question, load_dataset, read_question_file, sample_questions, split_lines
from kg_agent.exit_status import ANSWERED, BAD_INPUT, EXIT_STATUS_HELP, NOTHING_ANSWERED, interrupts_end_the_command
from kg_agent.graphs.registry import add_method_args, graph_options
from kg_agent.kg.naming import add_file_args, add_naming_args, file_options, naming_options
from kg_agent.llm.models import resolve_model_args

__all__ = ["cmd_eval", "cmd_report", "format_table", "register", "write_chart"]

from kg_agent.eval.runner import METHODS as EVAL_METHODS  # noqa: E402
from kg_agent.settings import DEFAULT_GROUNDING  # noqa: E402


def register(subparsers) -> None:
    """Add the ``eval`` and ``report`` sub-commands to ``kg-agent``'s sub-parsers."""
    ev = subparsers.add_parser(
        "eval",
        help="evaluate a method on benchmark questions and write results.json",
        description="Run a method over benchmark questions and score it under the strict, rog_legacy and tog_em "
        "conventions (percent). Resumable: an existing --out file is continued. Training questions (--train, "
        "--split-train) only build the exemplar planner; evaluation questions on the same file line are dropped. "
        "Exit status 1: no question was answered at all (each question's reason is in --out). Ctrl-C keeps the "
        "finished questions in --out (run the same command again to resume).",
        epilog=EXIT_STATUS_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("kind", choices=DATASET_KINDS, help="question file format")
    ev.add_argument("--questions", action="append", required=True, metavar="FILE",
                    help="question file (repeatable, e.g. one per MetaQA hop)")
    ev.add_argument("--kg", help="KG file, Oxigraph store or SPARQL URL (rog-jsonl: default is each question's own "
                    "subgraph; otherwise default is the bundled sample movie KG)")
    ev.add_argument("--backend", choices=("memory", "oxigraph"), default=None, help="for a KG file (default memory)")
    ev.add_argument("--kg-timeout", type=float, default=30.0, metavar="SECONDS",
                    help="SPARQL endpoint: seconds each request may take; a question whose request fails or times out "
                    "is recorded with its error and the run goes on (default 30)")
    ev.add_argument("--kg-cache", metavar="FILE", default=None,
                    help="SPARQL endpoint: keep fetched neighbourhoods and labels in this SQLite file, so a re-run "
                    "sends no requests for them")
    add_naming_args(ev)
    add_file_args(ev)
    ev.add_argument("--only-lines", action="append", default=[], metavar="IDX",
                    help="MetaQA .idx file of 0-based lines to keep; once, or once per --questions in the same order")
    ev.add_argument("--sample", type=int, default=None, metavar="N",
                    help="evaluate a seeded random sample of N questions from each --questions file")
    ev.add_argument("--seed", type=int, default=0, help="seed for --sample, --train-sample and --split-train (default 0)")
    ev.add_argument("--leave-out", action="append", default=[], metavar="N:SEED", type=_sample_spec,
                    help="leave out of each --questions file the N questions that --sample N --seed SEED evaluates "
                    "(repeatable), before any --sample: report on the rest of a set whose samples were read while tuning")
    ev.add_argument("--train", action="append", default=[], metavar="FILE",
                    help="training questions for RoG's exemplar planner and, with --model, the examples of its LLM planner's "
                    "prompt (repeatable; same format as the questions, .jsonl files as generic JSONL)")
    ev.add_argument("--train-only-lines", action="append", default=[], metavar="IDX",
                    help="MetaQA .idx file for the --train files (once, or once per --train)")
    ev.add_argument("--train-sample", type=int, default=None, metavar="N",
                    help="use a seeded sample of N training questions per training file (or per split)")
    ev.add_argument("--split-train", type=float, default=None, metavar="FRACTION",
                    help="split each --questions file with split_lines(seed) and use the FRACTION side as training "
                    "questions, the rest for evaluation")
    ev.add_argument("--skip-unanswerable", action="store_true",
                    help="rog-jsonl: drop questions none of whose answers is a node of their own subgraph "
                    "(e.g. WebQTest-3, -31); the number dropped is printed and recorded")
    ev.add_argument("--method", choices=EVAL_METHODS, default="rog",
                    help="method (ceiling: MetaQA's gold relation path, an upper bound; default rog)")
    add_method_args(ev)
    ev.add_argument("--workers", type=int, default=1, help="questions run in parallel (threads; default 1)")
    ev.add_argument("--llm-cache", metavar="FILE", default=None,
                    help="cache chat-model replies in this SQLite file: a re-run asks the model nothing it was asked before")
    ev.add_argument("--save-every", type=int, default=25, metavar="N", help="write --out every N questions (default 25)")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    ev.add_argument("--out", required=True, help="results file (JSON); continued when it exists")
    ev.set_defaults(handler=cmd_eval)

    rep = subparsers.add_parser("report", help="compare results files: a table and a bar chart",
                                description="Print a comparison table of kg-agent eval results files (metrics in percent), "
                                "their per-hop breakdowns, and optionally write a PNG bar chart.")
    rep.add_argument("results", nargs="+", help="results.json files written by kg-agent eval")
    rep.add_argument("--png", help="write a bar chart (methods x metrics) to this PNG file")
    rep.add_argument("--markdown", action="store_true", help="print Markdown tables")
    rep.set_defaults(handler=cmd_report)


# --------------------------------------------------------------------------------------------- eval


def _sample_spec(text: str) -> tuple[int, int]:
    """``N:SEED`` as ``(N, SEED)``: a seeded sample (``--leave-out``)."""
    size, _, seed = text.partition(":")
    try:
        return int(size), int(seed)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected N:SEED (two integers, e.g. 100:0), got {text!r}") from None


def _aligned(values: list[str], files: list[str], option: str, files_option: str) -> list[str | None]:
    if not values:
        return [None] * len(files)
    if len(values) == 1:
        return values * len(files)
    if len(values) != len(files):
        raise ValueError(f"give {option} once, or once per {files_option} ({len(files)}), not {len(values)} times")
    return values


def _load(kind: str, file: str, only_lines: str | None, *, train: bool = False) -> list[Question]:
    if kind == "metaqa" and file.endswith(".jsonl"):
        kind = "jsonl"
    if only_lines is not None and kind != "metaqa":
        raise ValueError(f"--only-lines/--train-only-lines work with MetaQA files, not {kind}")
    kwargs = {"only_lines": only_lines} if only_lines is not None else {}
    questions = read_question_file(load_dataset, kind, file, option="--train" if train else "--questions", **kwargs)
    for q in questions:
        q.extra.setdefault("source_file", str(Path(file).resolve()))
    return questions


def _key(q: Question) -> tuple[str, int | None | str]:
    return (str(q.extra.get("source_file")), q.line if q.line is not None else q.id)


def _answer_in_subgraph(q: Question) -> bool:
    graph = q.extra.get("graph")
    if graph is None:
        raise ValueError("--skip-unanswerable needs questions with their own subgraph (rog-jsonl)")
    nodes = {name for h, _r, t in graph for name in (h, t)}
    return any(a in nodes for a in list(q.answers) + list(q.extra.get("a_entity") or []))


def _exemplars(train: list[Question]):
    from kg_agent.tools.rog.exemplar import Exemplar

    return [Exemplar(q.extra.get("raw", q.question), list(q.answers), list(q.topic_entities)) for q in train]


def build_question_sets(args: argparse.Namespace) -> tuple[list[Question], list[Question], dict[str, Any]]:
    """(evaluation questions, training questions, notes for the config) from the CLI options."""
    eval_qs: list[Question] = []
    train_qs: list[Question] = []
    notes: dict[str, Any] = {}
    for file, idx in zip(args.questions, _aligned(args.only_lines, args.questions, "--only-lines", "--questions")):
        questions = _load(args.kind, file, idx)
        if args.split_train is not None:
            train_part, test_part = split_lines(questions, args.split_train, seed=args.seed)
            if args.train_sample is not None:
                train_part = sample_questions(train_part, args.train_sample, seed=args.seed)
            train_qs.extend(train_part)
            questions = test_part
        if getattr(args, "skip_unanswerable", False):
            answerable = [q for q in questions if _answer_in_subgraph(q)]
            dropped = len(questions) - len(answerable)
            print(f"kg-agent eval: {file}: dropped {dropped} questions whose answers are not in their subgraph"
                  + (f" ({', '.join(q.id for q in questions if q not in answerable)})" if 0 < dropped <= 10 else ""))
            notes["dropped_unanswerable"] = notes.get("dropped_unanswerable", 0) + dropped
            questions = answerable
        read = {_key(q) for size, seed in getattr(args, "leave_out", ()) for q in sample_questions(questions, size, seed=seed)}
        questions = [q for q in questions if _key(q) not in read]
        if args.sample is not None:
            questions = sample_questions(questions, args.sample, seed=args.seed)
        eval_qs.extend(questions)
    if getattr(args, "leave_out", None):
        notes["left_out_samples"] = [f"{size}:{seed}" for size, seed in args.leave_out]
    for file, idx in zip(args.train, _aligned(args.train_only_lines, args.train, "--train-only-lines", "--train")):
        questions = _load(args.kind, file, idx, train=True)
        if args.train_sample is not None:
            questions = sample_questions(questions, args.train_sample, seed=args.seed)
        train_qs.extend(questions)
    if args.train_only_lines and not args.train:
        raise ValueError("--train-only-lines needs --train")
    if train_qs:
        train_keys = {_key(q) for q in train_qs}
        kept = [q for q in eval_qs if _key(q) not in train_keys]
        dropped = len(eval_qs) - len(kept)
        print(f"kg-agent eval: {len(train_qs)} training questions; dropped {dropped} evaluation questions that are "
              f"also training questions (same file and line); {len(kept)} left")
        notes["dropped_train_overlap"] = dropped
        eval_qs = kept
    return eval_qs, train_qs, notes


def cmd_eval(args: argparse.Namespace) -> int:
    if args.split_train is not None and not 0.0 < args.split_train < 1.0:
        raise ValueError(f"--split-train must be between 0 and 1, got {args.split_train}")
    if Path(args.out).is_dir():
        raise ValueError(f"--out {args.out} is a folder; give a results file, e.g. {Path(args.out) / 'results.json'}")
    out_existed = Path(args.out).exists()
    kept: list[str | None] = [f"{args.out} was left as it was" if out_existed else "nothing was written"]
    with interrupts_end_the_command("eval", lambda: kept[0]):
        return _run_eval(args, kept)


def _run_eval(args: argparse.Namespace, kept: list[str | None]) -> int:
    """``cmd_eval`` under Ctrl-C handling; ``kept[0]`` says what an interrupt keeps (``None``: the run says it)."""
    from kg_agent.eval.runner import MethodUnavailable, evaluate, kg_for_rog_question

    eval_qs, train_qs, notes = build_question_sets(args)
    if not eval_qs:
        raise ValueError("no evaluation questions left")
    if args.method == "ceiling" and not any(q.qtype for q in eval_qs):
        raise ValueError("--method ceiling follows MetaQA question types (qa_dev_qtype.txt beside the questions); "
                         "these questions have none")

    kg = None
    kg_for_question = None
    if args.kind == "rog-jsonl" and not args.kg:
        kg_for_question = kg_for_rog_question
        kg_name = "per-question subgraph"
    else:
        from kg_agent.kg import open_kg

        if not args.kg:
            print("kg-agent eval: no --kg given; using the bundled sample movie KG", file=sys.stderr)
        kg = open_kg(args.kg, backend=args.backend, timeout=getattr(args, "kg_timeout", 30.0),
                     cache_path=getattr(args, "kg_cache", None), **naming_options(args), **file_options(args))
        kg_name = args.kg or "bundled sample KG"

    model = None
    if args.method != "ceiling":
        model = resolve_model_args(args)
    exemplars = _exemplars(train_qs) if train_qs else None
    options = {"documents": None, "grounding": DEFAULT_GROUNDING, **graph_options(args)}
    config = {
        "kind": args.kind,
        "questions": list(args.questions),
        "only_lines": list(args.only_lines),
        "kg": kg_name,
        "sample": args.sample,
        "seed": args.seed,
        "train": list(args.train),
        "train_only_lines": list(args.train_only_lines),
        "train_sample": args.train_sample,
        "split_train": args.split_train,
        "train_questions": len(train_qs),
        "llm_cache": getattr(args, "llm_cache", None),
        **notes,
    }
    dataset = args.kind if args.kind != "rog-jsonl" else Path(args.questions[0]).stem
    if args.kind == "metaqa":
        dataset = "metaqa"
    from kg_agent.llm.cache import llm_cache

    try:
        with llm_cache(getattr(args, "llm_cache", None)):
            kept[0] = None  # evaluate() writes the finished questions to --out and says how many
            result = evaluate(eval_qs, method=args.method, kg=kg, kg_for_question=kg_for_question, model=model,
                              exemplars=exemplars, workers=args.workers, out=args.out, progress=not args.no_progress,
                              options=options, dataset=dataset, config=config, save_every=args.save_every)
    except MethodUnavailable as exc:
        print(f"kg-agent: error: {exc}", file=sys.stderr)
        return BAD_INPUT
    print(format_table([(args.out, result)]))
    if result.get("by_hop") and len(result["by_hop"]) > 1:
        print(format_table([(args.out, result)], by_hop=True))
    if result["errors"]:
        print(f"kg-agent eval: {result['errors']} questions failed with an error (see 'error' in {args.out}); "
              "they score 0", file=sys.stderr)
    print(f"results written to {args.out}")
    records = result.get("per_question") or []
    if any(record.get("predicted") for record in records):
        return ANSWERED
    why = Counter(_unanswered_reason(record) for record in records)
    print(f"kg-agent eval: no question was answered ({len(records)} questions: "
          + ", ".join(f"{count} {reason}" for reason, count in why.most_common()) + ")", file=sys.stderr)
    return NOTHING_ANSWERED


def _unanswered_reason(record: dict[str, Any]) -> str:
    """Why a results record has no answer, in a few words."""
    if record.get("error"):
        return "failed with an error"
    return {"no_topic_entity": "with no entity of the knowledge graph found", "budget": "stopped by the budget",
            "no_question": "empty", "no_grounded_answer": "with no answer the knowledge graph supports"}.get(
        str(record.get("stop_reason") or ""), "with no path to an answer")


# --------------------------------------------------------------------------------------------- report

COLUMNS = (
    ("file", None), ("method", None), ("dataset", None), ("model", None), ("n", None),
    ("H@1", ("strict", "hits@1")), ("F1", ("strict", "f1")), ("EM", ("strict", "exact_match")),
    ("RoG hit", ("rog_legacy", "hit")), ("RoG F1", ("rog_legacy", "f1")), ("ToG EM", ("tog_em", "em")),
    ("sel H@1", ("selective", "hits_at_1")), ("cover", ("selective", "coverage")),
    ("prec", ("selective", "answered_hits_at_1")), ("abstain", ("selective", "abstained")),
    ("seconds", None),
)
CHART_METRICS = (
    ("strict H@1", ("strict", "hits@1")), ("strict F1", ("strict", "f1")),
    ("RoG hit", ("rog_legacy", "hit")), ("RoG F1", ("rog_legacy", "f1")), ("ToG EM", ("tog_em", "em")),
)


def _metric(metrics: dict, path: tuple[str, str]) -> float | None:
    value = (metrics.get(path[0]) or {}).get(path[1])
    return float(value) if isinstance(value, (int, float)) else None


def _rows(results: list[tuple[str, dict]], by_hop: bool) -> list[list[str]]:
    rows = []
    for name, result in results:
        blocks = [(None, result.get("n"), result.get("metrics") or {})]
        if by_hop:
            blocks = [(hop, m.get("n"), m) for hop, m in sorted((result.get("by_hop") or {}).items(), key=lambda kv: kv[0])]
        for hop, n, metrics in blocks:
            row = []
            for column, path in COLUMNS:
                if path is not None:
                    value = _metric(metrics, path)
                    row.append("-" if value is None else f"{value:.1f}")
                elif column == "file":
                    row.append(Path(name).name + ("" if hop is None else f" [{hop}-hop]"))
                elif column == "n":
                    row.append(str(n if n is not None else "-"))
                elif column == "seconds":
                    row.append(f"{float(result.get('seconds') or 0):.1f}" if hop is None else "")
                else:
                    row.append(str(result.get(column, "-")))
            rows.append(row)
    return rows


def format_table(results: list[tuple[str, dict]], *, by_hop: bool = False, markdown: bool = False) -> str:
    """A comparison table (metrics in percent) of results documents; ``by_hop`` gives one row per hop."""
    header = [c for c, _ in COLUMNS]
    rows = _rows(results, by_hop)
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i < 4 else "---:" for i in range(len(header))) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    numeric = [i >= 4 for i in range(len(header))]

    def fmt(cells):
        return "  ".join(c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric)).rstrip()

    return "\n".join([fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def write_chart(results: list[tuple[str, dict]], path: str | Path) -> Path:
    """A grouped bar chart: one group per metric, one bar per results file (percent)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ValueError("--png needs matplotlib: pip install matplotlib") from exc

    labels = [f"{r.get('method')} / {r.get('dataset')} ({Path(name).stem})" for name, r in results]
    n_bars = max(1, len(results))
    width = 0.8 / n_bars
    fig, ax = plt.subplots(figsize=(max(6.0, 1.6 * len(CHART_METRICS) + 0.4 * n_bars), 4.5))
    for i, (_name, result) in enumerate(results):
        values = [_metric(result.get("metrics") or {}, p) or 0.0 for _, p in CHART_METRICS]
        xs = [m + (i - (n_bars - 1) / 2) * width for m in range(len(CHART_METRICS))]
        bars = ax.bar(xs, values, width=width, label=labels[i])
        if n_bars <= 6:
            ax.bar_label(bars, fmt="%.0f", fontsize=7, padding=1)
    ax.set_xticks(range(len(CHART_METRICS)), [m for m, _ in CHART_METRICS])
    ax.set_ylabel("percent")
    ax.set_ylim(0, 110)
    ax.set_title("kg-agent evaluation")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=1 if n_bars > 3 else n_bars)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", dpi=120)
    plt.close(fig)
    return path


def cmd_report(args: argparse.Namespace) -> int:
    from kg_agent.eval.runner import load_results

    results = [(name, load_results(name)) for name in args.results]
    print(format_table(results, markdown=args.markdown))
    with_hops = [(n, r) for n, r in results if r.get("by_hop")]
    if with_hops:
        print("\nBy hop:")
        print(format_table(with_hops, by_hop=True, markdown=args.markdown))
    errors = [(n, r["errors"]) for n, r in results if r.get("errors")]
    for name, count in errors:
        print(f"note: {name}: {count} questions failed with an error and score 0")
    if args.png:
        write_chart(results, args.png)
        print(f"chart written to {args.png}")
    return 0
