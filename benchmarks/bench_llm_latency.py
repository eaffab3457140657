"""Wall time per question with a slow remote model: each step's independent LLM calls asked one after the other
(``max_concurrency=1``) or concurrently (the default 4; ``invoke`` and native-async ``ainvoke``).

    python benchmarks/bench_llm_latency.py --out docs/bench_llm_latency.json

The model is the local OpenAI-compatible test server (``tests/openai_server.py``) reached through
``langchain-openai`` over HTTP; every completion takes ``--latency`` seconds (0.3) and the replies are the
deterministic ``explorer`` replies of ``tests/llm_responders.py`` (ToG's verifier always says No, so ToG explores
to depth D with a full beam: the most calls, and the case concurrency is for). Questions: the first ``--n`` of
``benchmarks/sample_kg_questions.txt`` on the bundled sample KG. For each method: mean seconds per question
sequential, concurrent (``invoke``) and concurrent async (``ainvoke``), for ToG and ToG-I also speculative
(``speculate=True``, concurrent, ``invoke`` and ``ainvoke``), calls and tokens per question (as the server counted
them), and whether every run gave the sequential answers. Speculation's cost, ``early_yes``: the same questions
with a verifier that says Yes at depth 1, so the relation pruning asked ahead is discarded (calls per question with
and without speculation, and how many were discarded).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from langchain_openai import ChatOpenAI  # noqa: E402

from kg_agent.graphs import METHODS, create_graph  # noqa: E402
from kg_agent.kg import open_kg  # noqa: E402
from kg_agent.tools.prompts import prompt_node  # noqa: E402
from tests.llm_responders import explorer  # noqa: E402
from tests.openai_server import OpenAICompatibleServer  # noqa: E402

SPECULATIVE = ("tog", "tog-i")  # the methods with speculate=True
OPTIONS = {"rog": {}, "tog": {"width": 3, "depth": 3}, "tog-i": {"max_instructions": 2, "depth": 2}, "tog2": {"width": 3, "depth": 3}}


def answers_of(result: dict) -> list[str]:
    return [a["answer"] for a in result.get("answers") or []]


def timed_runs(app, questions: list[str], *, use_async: bool) -> tuple[list[float], list[dict]]:
    """Seconds and result per question (``use_async``: ``ainvoke``, every question in one event loop)."""

    async def ask_async() -> tuple[list[float], list[dict]]:
        seconds, results = [], []
        for question in questions:
            started = time.perf_counter()
            results.append(await app.ainvoke({"question": question}))
            seconds.append(time.perf_counter() - started)
        return seconds, results

    if use_async:
        return asyncio.run(ask_async())
    seconds, results = [], []
    for question in questions:
        started = time.perf_counter()
        results.append(app.invoke({"question": question}))
        seconds.append(time.perf_counter() - started)
    return seconds, results


def calls_of(results: list[dict]) -> float:
    return round(statistics.mean(r["usage"]["calls"] + r["usage"]["errors"] for r in results), 2)


def bench_method(kg, server: OpenAICompatibleServer, method: str, questions: list[str], max_concurrency: int) -> dict:
    model = ChatOpenAI(base_url=server.base_url, api_key="bench", model="explorer", temperature=0, max_retries=0)

    def app(concurrency: int, **extra):
        return create_graph(method, kg, model=model, max_concurrency=concurrency, **OPTIONS[method], **extra).compile()

    app(1).invoke({"question": questions[0]})  # untimed: loads the embedding model and warms the KG's caches
    sequential_s, sequential = timed_runs(app(1), questions, use_async=False)
    concurrent_s, concurrent = timed_runs(app(max_concurrency), questions, use_async=False)
    async_s, native = timed_runs(app(max_concurrency), questions, use_async=True)
    runs = [sequential, concurrent, native]
    report = {
        "sequential_s": round(statistics.mean(sequential_s), 3),
        "concurrent_s": round(statistics.mean(concurrent_s), 3),
        "async_concurrent_s": round(statistics.mean(async_s), 3),
        "concurrent_ratio": round(statistics.mean(concurrent_s) / statistics.mean(sequential_s), 3),
    }
    if method in SPECULATIVE:
        speculative_s, speculative = timed_runs(app(max_concurrency, speculate=True), questions, use_async=False)
        async_speculative_s, native_speculative = timed_runs(app(max_concurrency, speculate=True), questions, use_async=True)
        runs += [speculative, native_speculative]
        report.update({
            "speculative_s": round(statistics.mean(speculative_s), 3),
            "async_speculative_s": round(statistics.mean(async_speculative_s), 3),
            "speculative_ratio": round(statistics.mean(speculative_s) / statistics.mean(sequential_s), 3),
            "speculative_calls": calls_of(speculative),
        })
    report.update({
        "calls": calls_of(sequential),
        "tokens": round(statistics.mean(r["usage"]["total_tokens"] for r in sequential), 1),
        "same_answers": all(len({tuple(answers_of(r)) for r in results}) == 1 for results in zip(*runs)),
    })
    return report


def bench_early_yes(kg, latency: float, method: str, questions: list[str], max_concurrency: int) -> dict:
    """Speculation's cost: the verifier says Yes at depth 1, so what was asked ahead is discarded."""
    respond = explorer()

    def says_yes(prompt: str) -> str:
        return "{Yes}. The answer is {Tom Hanks}." if prompt_node(prompt) == "verify" else respond(prompt)

    with OpenAICompatibleServer(responder=says_yes, latency=latency) as server:
        model = ChatOpenAI(base_url=server.base_url, api_key="bench", model="explorer", temperature=0, max_retries=0)
        plain_s, plain = timed_runs(create_graph(method, kg, model=model, max_concurrency=max_concurrency,
                                                 **OPTIONS[method]).compile(), questions, use_async=False)
        speculative_s, speculative = timed_runs(create_graph(method, kg, model=model, max_concurrency=max_concurrency,
                                                             speculate=True, **OPTIONS[method]).compile(),
                                                questions, use_async=False)
    return {
        "concurrent_s": round(statistics.mean(plain_s), 3),
        "speculative_s": round(statistics.mean(speculative_s), 3),
        "calls": calls_of(plain),
        "speculative_calls": calls_of(speculative),
        "discarded_calls": round(statistics.mean((r["usage"].get("speculation") or {}).get("discarded_calls", 0)
                                                 for r in speculative), 2),
        "same_answers": all(answers_of(a) == answers_of(b) for a, b in zip(plain, speculative)),
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5, help="questions per method (default 5)")
    parser.add_argument("--latency", type=float, default=0.3, help="seconds every completion takes (default 0.3)")
    parser.add_argument("--max-concurrency", type=int, default=4)
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args(argv)
    logging.getLogger("rdflib").setLevel(logging.ERROR)  # the sample KG's labels as IRIs: noise here
    questions = [q for q in (ROOT / "benchmarks" / "sample_kg_questions.txt").read_text().splitlines() if q.strip()][: args.n]
    kg = open_kg()
    report: dict = {}
    with OpenAICompatibleServer(responder=explorer(), latency=args.latency) as server:
        for method in args.methods:
            report[method] = bench_method(kg, server, method, questions, args.max_concurrency)
            print(method, json.dumps(report[method]), flush=True)
    for method in (m for m in args.methods if m in SPECULATIVE):
        report[method]["early_yes"] = bench_early_yes(kg, args.latency, method, questions, args.max_concurrency)
        print(method, "early yes", json.dumps(report[method]["early_yes"]), flush=True)
    report["setup"] = {"questions": len(questions), "latency_s": args.latency, "max_concurrency": args.max_concurrency,
                       "load_average": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    main()
