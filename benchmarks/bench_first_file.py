"""A user's first file (issue 48 item 1): ``kg-agent load`` and the first answer, whole processes.

    python benchmarks/bench_first_file.py FILE QUESTION [FILE QUESTION ...] [--runs 3] [--work /tmp/first-file]

For each KG file: ``kg-agent load FILE --store DIR`` (``--runs`` times, each into a new folder; medians of wall and
CPU seconds, user + system of the command and the bulk loader it starts), then ``kg-agent ask QUESTION --kg DIR``
twice in new processes: with an empty user vector file (``KG_AGENT_CACHE_DIR``: the question embeds the texts it
scores) and again (they are read from that file). ``texts embedded`` is how many vectors the first question added
to the vector files (the store's and the user's). Nothing is embedded at load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cli_start import timed_runs  # noqa: E402


def stored_vectors(store: Path, cache: Path) -> set[tuple[str, str]]:
    """The (model, text) pairs the store's and the user's vector files hold."""
    found: set[tuple[str, str]] = set()
    for path in (store / "kg-agent" / "vectors.sqlite", cache / "vectors.sqlite"):
        if path.exists():
            with sqlite3.connect(path) as db:
                found.update(db.execute("SELECT model, text FROM vectors"))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", metavar="FILE QUESTION")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", default=None, help="folder for the stores (default: a new temporary folder)")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("give a question after each file")
    work = Path(args.work or tempfile.mkdtemp(prefix="kg-agent-first-file-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"{'file':40s} {'load wall':>9s} {'load CPU':>9s} {'ask 1st wall':>12s} {'CPU':>6s} {'texts embedded':>14s} "
          f"{'ask 2nd wall':>12s} {'CPU':>6s}")
    for number, (source, question) in enumerate(zip(args.pairs[::2], args.pairs[1::2])):
        store = work / f"store{number}"
        shutil.rmtree(store, ignore_errors=True)
        load = timed_runs(["sh", "-c", 'rm -rf "$1"; exec kg-agent load "$0" --store "$1" >/dev/null', source, str(store)],
                          args.runs, warmup=0)
        cache = work / f"cache{number}"
        shutil.rmtree(cache, ignore_errors=True)
        env = {**os.environ, "KG_AGENT_CACHE_DIR": str(cache)}
        ask = ["kg-agent", "ask", question, "--kg", str(store)]
        stored = stored_vectors(store, cache)
        first = timed_runs(ask, 1, env=env, warmup=0)
        embedded = len(stored_vectors(store, cache) - stored)
        second = timed_runs(ask, args.runs, env=env, warmup=0)
        print(f"{Path(source).name[:40]:40s} {load['wall']:9.2f} {load['cpu']:9.2f} {first['wall']:12.2f} "
              f"{first['cpu']:6.2f} {embedded:14,} {second['wall']:12.2f} {second['cpu']:6.2f}", flush=True)


if __name__ == "__main__":
    main()
