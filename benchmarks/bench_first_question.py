"""A process's first question on an Oxigraph store, profiled: what it computes before its first answer.

    python benchmarks/bench_first_question.py STORE "QUESTION" [--method rog] [--top 50]

Prints the wall and CPU seconds of opening the store and compiling the graph, of the first question (under
cProfile, whose table follows, sorted by cumulative time), of the same question again, and of the whole process with
its peak RSS. Run it in a new process each time (the first question is the point). Numbers: docs/benchmarks.md,
"First question at scale"."""

from __future__ import annotations

import argparse
import cProfile
import pstats
import resource
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("question")
    parser.add_argument("--method", default="rog")
    parser.add_argument("--top", type=int, default=50, help="rows of the profile printed")
    args = parser.parse_args()
    started, started_cpu = time.perf_counter(), time.process_time()
    from kg_agent.graphs.registry import create_graph
    from kg_agent.kg import open_oxigraph

    app = create_graph(args.method, open_oxigraph(args.store)).compile()
    print("open+compile wall %.2f cpu %.2f" % (time.perf_counter() - started, time.process_time() - started_cpu))
    profile = cProfile.Profile()
    wall, cpu = time.perf_counter(), time.process_time()
    profile.enable()
    result = app.invoke({"question": args.question})
    profile.disable()
    answers = [a["answer"] for a in result.get("answers") or []][:3]
    print("first question wall %.2f cpu %.2f" % (time.perf_counter() - wall, time.process_time() - cpu), answers)
    wall, cpu = time.perf_counter(), time.process_time()
    app.invoke({"question": args.question})
    print("same again wall %.2f cpu %.2f" % (time.perf_counter() - wall, time.process_time() - cpu))
    print("process total wall %.2f cpu %.2f maxrss %d MB" % (
        time.perf_counter() - started, time.process_time() - started_cpu,
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024))
    pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
