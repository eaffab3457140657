"""`kg-agent load` against Oxigraph's own bulk loader, run at the same time (issue 48 items 1 and 5: load at >= 0.9x
the bulk loader's speed).

    python benchmarks/bench_load_ratio.py FILE.nt --work DIR [--rounds 3] [--nice 10]

Each round starts two processes at the same moment, each in its own session (``setsid``: with the kernel's
autogroups each session gets an equal share of the processors, so on a busy machine both meet the same conditions
at once instead of minutes apart):

* ``python -c "Store(DIR).bulk_load(path=FILE, format=N_TRIPLES); flush()"``: what ``kg-agent load``'s own child
  does, and nothing else;
* ``kg-agent load FILE --store DIR`` (the kg-agent on ``PYTHONPATH``, or the installed one).

Printed per round and as medians: wall seconds of each whole process (from start to its exit), CPU seconds
(user + system, the process and the children it waited for, from ``wait4``), peak RSS of the largest process, and
the ratio bulk loader wall / ``kg-agent load`` wall (1.0: as fast as Oxigraph alone). The stores are deleted after
each round. Quote the load average beside the figures: on a saturated machine the ratio is set by the CPU each side
spends, not by how the load overlaps the bulk loader.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BULK_LOAD = """
import sys, pyoxigraph as ox
store = ox.Store(sys.argv[2])
store.bulk_load(path=sys.argv[1], format=ox.RdfFormat.N_TRIPLES)
store.flush()
"""


def one_round(file: Path, work: Path, nice: int) -> dict[str, tuple[float, float, float]]:
    """``{name: (wall s, CPU s, peak RSS MiB)}`` of the two loads started together."""
    stores = {"oxigraph bulk_load": work / "store.bulk", "kg-agent load": work / "store.kg-agent"}
    for store in stores.values():
        shutil.rmtree(store, ignore_errors=True)
    niced = ["nice", "-n", str(nice)] if nice else []
    commands = {"oxigraph bulk_load": [*niced, sys.executable, "-c", BULK_LOAD, str(file), str(stores["oxigraph bulk_load"])],
                "kg-agent load": [*niced, sys.executable, "-m", "kg_agent.cli", "load", str(file),
                                  "--store", str(stores["kg-agent load"])]}
    started, names = {}, {}
    for name, command in commands.items():
        with open(work / f"{name.split()[0]}.log", "a") as log:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        started[process.pid], names[process.pid] = time.perf_counter(), name
    results: dict[str, tuple[float, float, float]] = {}
    while len(results) < len(commands):
        pid, status, usage = os.wait4(-1, 0)
        if pid not in names:
            continue
        wall = time.perf_counter() - started[pid]
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{names[pid]} failed (exit {os.waitstatus_to_exitcode(status)}): see {work}")
        results[names[pid]] = (wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
    for store in stores.values():
        shutil.rmtree(store, ignore_errors=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, help="an N-Triples file")
    parser.add_argument("--work", type=Path, required=True, help="a folder for the two stores (deleted after each round)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--nice", type=int, default=10, help="niceness of both loads (0: none)")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    rounds = []
    for number in range(1, args.rounds + 1):
        load = os.getloadavg()[0]
        result = one_round(args.file.resolve(), args.work, args.nice)
        ratio = result["oxigraph bulk_load"][0] / result["kg-agent load"][0]
        rounds.append((result, ratio))
        print(f"round {number} (load average {load:.1f} at its start): " + "; ".join(
            f"{name} {wall:.1f} s wall, {cpu:.1f} CPU-s, {rss:.0f} MiB" for name, (wall, cpu, rss) in result.items())
            + f"; ratio {ratio:.2f}", flush=True)
    for name in ("oxigraph bulk_load", "kg-agent load"):
        print(f"median {name}: {statistics.median(r[name][0] for r, _ in rounds):.1f} s wall, "
              f"{statistics.median(r[name][1] for r, _ in rounds):.1f} CPU-s")
    print(f"median ratio (bulk loader wall / kg-agent load wall): {statistics.median(r for _, r in rounds):.2f}; "
          f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
