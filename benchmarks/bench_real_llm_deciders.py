"""How often a real small chat model's replies are usable, per decider: SmolLM2-135M-Instruct (llama.cpp).

    nice python benchmarks/bench_real_llm_deciders.py --n 2 --out FILE.json
    python benchmarks/bench_real_llm_deciders.py --table FILE.json     # the markdown table of docs/real_llm.md

Starts the local model's OpenAI-compatible server (tests/local_llm.py: ``python -m llama_cpp.server`` on
127.0.0.1; ``scripts/install_local_llm.sh`` installs it) and runs RoG (with the paper's planning prompt and with
the few-shot one, :data:`~kg_agent.tools.rog.plan.FEW_SHOT_PLANNING_PROMPT`), ToG, ToG-I and ToG-2 on the first
``n`` questions of ``benchmarks/sample_kg_questions.txt`` over the bundled sample KG (ToG-2 with the bundled
plot summaries). Every decision of every LLM decider (one :meth:`LLMDecision.ask` / ``aask``) is counted under
its node as: parsed on the first attempt, parsed on the retry, or fell back to the offline twin, with the kind
of reason (no usable reply, the reply cut off at ``max_tokens``, a failed call, a refused call). The decisions
are read from the :class:`~kg_agent.tools.shared.decider.Asked` each ask returns (with the structured-output
modes the attempts used, when the decider kit records them); the benchmark only watches them. Each method's calls
and tokens are checked against what the server reported.

Replies are capped with ``max_tokens`` in the request body (llama.cpp ignores ``max_completion_tokens``, which
langchain-openai sends for ``max_tokens=``); the SDK does not resend (``max_retries=0``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg_agent.tools.shared.decider import Asked, LLMDecision  # noqa: E402

QUESTIONS_FILE = ROOT / "benchmarks" / "sample_kg_questions.txt"
METHODS = ("rog", "rog-few-shot", "tog", "tog-i", "tog2")
EXAMPLES_PER_NODE = 3


def fallback_kind(asked: Asked, max_tokens: int) -> str:
    """Why a decision fell back, as a short kind shared by many decisions."""
    if asked.budget_exhausted:
        return "call refused by the budget"
    for warning in asked.warnings:
        if "the model call failed" in warning:
            return "call failed (timeout)" if re.search(r"time(d)? ?out", warning, re.IGNORECASE) else "call failed"
    calls = max(1, int(asked.usage.get("calls") or 0))
    if not asked.reply.strip():
        return "empty reply"
    if int(asked.usage.get("completion_tokens") or 0) >= calls * (max_tokens - 1):  # llama.cpp may stop one short
        return "reply cut off at max_tokens"
    notes = " ".join(asked.warnings)
    if "is not in the knowledge graph" in notes:
        return "relations not in the KG"
    if "cannot be walked" in notes:
        return "relations not walkable there"
    return "no usable reply (format)"


class DecisionLog:
    """Per node: decisions, parsed on the first attempt, parsed on the retry, fell back (by kind), examples."""

    def __init__(self, max_tokens: int) -> None:
        self.max_tokens = max_tokens
        self.nodes: dict[str, dict] = defaultdict(lambda: {
            "decisions": 0, "calls": 0, "parsed_first": 0, "parsed_retry": 0, "fell_back": 0,
            "fallback_kinds": Counter(), "modes": Counter(), "unusable_replies": [],
        })

    def record(self, node: str, asked: Asked) -> None:
        row = self.nodes[node]
        calls = int(asked.usage.get("calls") or 0) + int(asked.usage.get("errors") or 0)  # failed calls are errors
        row["decisions"] += 1
        row["calls"] += calls
        row["modes"].update(((asked.usage.get("by_node") or {}).get(node) or {}).get("modes") or {})  # text / structured
        if asked.decided:
            row["parsed_first" if calls <= 1 else "parsed_retry"] += 1
            return
        row["fell_back"] += 1
        row["fallback_kinds"][fallback_kind(asked, self.max_tokens)] += 1
        if len(row["unusable_replies"]) < EXAMPLES_PER_NODE and asked.reply:
            row["unusable_replies"].append(asked.reply[:200])

    @contextmanager
    def watching(self):
        """Record every :meth:`LLMDecision.ask` / ``aask`` made inside the block."""
        ask, aask = LLMDecision.ask, LLMDecision.aask
        log = self

        def watched_ask(self, *args, **kwargs):
            asked = ask(self, *args, **kwargs)
            log.record(self.node, asked)
            return asked

        async def watched_aask(self, *args, **kwargs):
            asked = await aask(self, *args, **kwargs)
            log.record(self.node, asked)
            return asked

        LLMDecision.ask, LLMDecision.aask = watched_ask, watched_aask
        try:
            yield self
        finally:
            LLMDecision.ask, LLMDecision.aask = ask, aask

    def as_dict(self) -> dict:
        table = {}
        for node, row in sorted(self.nodes.items()):
            decisions = row["decisions"] or 1
            table[node] = {
                **{k: v for k, v in row.items() if k not in {"fallback_kinds", "modes"}},
                "fallback_kinds": dict(row["fallback_kinds"].most_common()),
                "modes": dict(row["modes"]),
                "parsed_rate": round((row["parsed_first"] + row["parsed_retry"]) / decisions, 3),
                "fallback_rate": round(row["fell_back"] / decisions, 3),
            }
        return table


def method_factories(kg, model, *, depth: int, grounding: str = "prefer") -> dict[str, Callable[[], object]]:
    from kg_agent.graphs import create_rog_graph, create_tog2_graph, create_tog_graph, create_tog_i_graph
    from kg_agent.kg import sample_documents_path
    from kg_agent.tools.rog.plan import FEW_SHOT_PLANNING_PROMPT, LLMPlanner, SimilarityPlanner

    def few_shot_rog():
        planner = LLMPlanner(kg, model, fallback=SimilarityPlanner(kg), prompt=FEW_SHOT_PLANNING_PROMPT)
        return create_rog_graph(kg, model=model, planner=planner, grounding=grounding)

    return {
        "rog": lambda: create_rog_graph(kg, model=model, grounding=grounding),
        "rog-few-shot": few_shot_rog,
        "tog": lambda: create_tog_graph(kg, model=model, depth=depth, grounding=grounding),
        "tog-i": lambda: create_tog_i_graph(kg, model=model, depth=depth, grounding=grounding),
        "tog2": lambda: create_tog2_graph(kg, model=model, documents=sample_documents_path(), depth=depth,
                                          grounding=grounding),
    }


def run_method(graph, questions: list[str], transport, log: DecisionLog, *, done: Callable[[dict], None]) -> dict:
    """Run one compiled graph on every question; calls/tokens vs the server, time, stop reasons. ``done`` gets the
    figures so far after each question."""
    seconds: list[float] = []
    calls = prompt_tokens = completion_tokens = 0
    stop_reasons: Counter = Counter()
    grounded_answers = 0
    transport.reset()
    with log.watching():
        for question in questions:
            started = time.perf_counter()
            result = graph.invoke({"question": question})
            seconds.append(time.perf_counter() - started)
            usage = result.get("usage") or {}
            calls += int(usage.get("calls") or 0)
            prompt_tokens += int(usage.get("prompt_tokens") or 0)
            completion_tokens += int(usage.get("completion_tokens") or 0)
            stop_reasons[str(result.get("stop_reason"))] += 1
            answers = result.get("answers") or []
            grounded_answers += bool(answers and answers[0].get("grounded"))
            print(f"  {time.perf_counter() - started:6.1f} s  {usage.get('calls', 0)} calls  {question}", flush=True)
            figures = {
                "questions": len(seconds),
                "seconds_per_question": round(sum(seconds) / len(seconds), 2),
                "calls": calls,
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "server_requests": transport.requests,
                "server_prompt_tokens": transport.prompt_tokens,
                "server_completion_tokens": transport.completion_tokens,
                "usage_matches_server": (calls, prompt_tokens, completion_tokens)
                == (transport.requests, transport.prompt_tokens, transport.completion_tokens),
                "first_answer_grounded": grounded_answers,
                "stop_reasons": dict(stop_reasons),
                "deciders": log.as_dict(),
            }
            done(figures)
    return figures


def markdown_table(results: dict) -> str:
    """One row per (method, decider): decisions, parsed first / on retry, fell back and why."""
    lines = [
        "| method | decider | decisions | calls | parsed 1st try | parsed on retry | fell back | fallback reasons |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for method, run in results["methods"].items():
        for node, row in run["deciders"].items():
            kinds = ", ".join(f"{kind} ({count})" for kind, count in row["fallback_kinds"].items()) or "-"
            lines.append(f"| {method} | {node} | {row['decisions']} | {row['calls']} | {row['parsed_first']} | "
                         f"{row['parsed_retry']} | {row['fell_back']} | {kinds} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=3, help="questions per method (from sample_kg_questions.txt)")
    parser.add_argument("--methods", default=",".join(METHODS), help=f"comma-separated, of {', '.join(METHODS)}")
    parser.add_argument("--depth", type=int, default=1, help="ToG / ToG-I / ToG-2 depth")
    parser.add_argument("--max-tokens", type=int, default=128, help="reply cap sent as max_tokens in the body")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per HTTP request")
    parser.add_argument("--grounding", choices=("prefer", "strict", "off"), default="prefer",
                        help="every method's grounding policy (strict: RoG's answer names a path end, under the grammar)")
    parser.add_argument("--out", type=Path, help="write the results as JSON")
    parser.add_argument("--table", type=Path, help="print the decider table of a results JSON written by --out, and exit")
    args = parser.parse_args()
    if args.table:
        print(markdown_table(json.loads(args.table.read_text())))
        return
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        parser.error(f"unknown method(s) {unknown}; choose from {METHODS}")

    import httpx
    from langchain_openai import ChatOpenAI

    from kg_agent.kg import open_kg
    from tests.local_llm import MODEL_ALIAS, LocalLlamaServer, UsageCountingTransport, missing_reason

    reason = missing_reason()
    if reason:
        sys.exit(reason)
    questions = [q for q in QUESTIONS_FILE.read_text().splitlines() if q.strip()][: args.n]
    kg = open_kg()
    results: dict = {
        "model": "SmolLM2-135M-Instruct.Q4_1 (llama.cpp server)",
        "questions": questions,
        "max_tokens": args.max_tokens,
        "depth": args.depth,
        "grounding": args.grounding,
        "load_before": os.getloadavg(),
        "methods": {},
    }
    with LocalLlamaServer() as server:
        transport = UsageCountingTransport()
        model = ChatOpenAI(
            base_url=server.base_url, api_key="sk-local", model=MODEL_ALIAS, temperature=0, timeout=args.timeout,
            max_retries=0, extra_body={"max_tokens": args.max_tokens},
            http_client=httpx.Client(transport=transport, timeout=args.timeout),
        )
        factories = method_factories(kg, model, depth=args.depth, grounding=args.grounding)

        def save(method: str, figures: dict) -> None:  # after each question: an interrupted run keeps what it did
            results["methods"][method] = figures
            if args.out:
                args.out.write_text(json.dumps(results, indent=2) + "\n")

        for method in methods:
            print(f"{method}:", flush=True)
            graph = factories[method]().compile()
            run_method(graph, questions, transport, DecisionLog(args.max_tokens),
                       done=lambda figures, m=method: save(m, figures))
    results["load_after"] = os.getloadavg()
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(markdown_table(results))


if __name__ == "__main__":
    main()
