"""Rank 0's cost per result (issue 23): the CPU that `wordle-dp run`'s coordinator
spends on each result a worker sends, store writes included, as
bench/sim_schedule.py's --coord-ms.

In one process, without MPI and without solving: a store for the default lists
(12972 openers) and the run's own Coordinator and Work queue are fed results as
workers would send them, at the pace of a full table (a flush every 5 s of the
run's clock is replayed as one flush per --per-flush results):

* whole openers: one Record each (the unsplit path);
* classes: every opener split (--split all), each class one ClassResult, a third
  of the openers left partly valued at each flush (so their classes are
  checkpointed), the rest completed within the batch.

Reported: CPU microseconds per result for each, with the share spent writing.

    .venv/bin/python bench/bench_coordinator.py
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver.run.config import RunConfig  # noqa: E402
from solver.run.coordinator import Coordinator  # noqa: E402
from solver.run.split import classes_of  # noqa: E402
from solver.run.work import Work  # noqa: E402
from solver.store import EXACT, ClassResult, ClassStore, Record, Store  # noqa: E402  # noqa: E402
from solver.variant import Variant  # noqa: E402


def _setup(tmp: Path, name: str):
    from solver.table import get_table
    from solver.words import WordLists

    lists = WordLists.load(quiet=True)
    table, _ = get_table(lists, "numpy", None)
    store, _ = Store.open_or_create(tmp / name, lists, "easy", 6)
    cfg = RunConfig(store=tmp / name, quiet=True, flush_seconds=1e9, flush_every=10**9,
                    progress_file=io.StringIO())
    return lists, table, store, cfg


def whole(tmp: Path, n: int, per_flush: int) -> tuple[float, float, int]:
    lists, table, store, cfg = _setup(tmp, "whole.zarr")
    n_p = 3**lists.length
    co = Coordinator(cfg, store, lists, Work(Variant.of(lists), len(lists.answers), table),
                     list(range(n)), 2, io.StringIO())
    second = np.arange(n_p, dtype=np.int32)
    c0 = time.process_time()
    w0 = store.flush_seconds
    for i in range(n):
        co.add_item(Record(i, EXACT, 8000 + i % 500, 5, 1.0, 1.0, 10, 1, time.time(),
                           second), None, {"nodes": i})
        if (i + 1) % per_flush == 0:
            co.flush()
    co.flush()
    return time.process_time() - c0, store.flush_seconds - w0, n


def classes(tmp: Path, n: int, per_flush: int) -> tuple[float, float, int]:
    lists, table, store, cfg = _setup(tmp, "classes.zarr")
    n_p = 3**lists.length
    work = Work(Variant.of(lists), len(lists.answers), table)
    for i in range(n):
        work.add_split(i, {}, 1.0)
    co = Coordinator(cfg, store, lists, work, list(range(n)), 2, io.StringIO(),
                     ClassStore(store.path, len(lists.guesses), n_p))
    results = []
    for i in range(n):
        for p, _s in classes_of(table[i], n_p):
            results.append(ClassResult(i, p, EXACT, 5, 2, 7, 0.01, 0.01, 3, 1))
    # deal them so that about a third of the openers straddle each flush
    c0 = time.process_time()
    w0 = store.flush_seconds
    for k, r in enumerate(results):
        co.add_item(r, None, {"nodes": k})
        if (k + 1) % per_flush == 0:
            co.flush()
    co.flush()
    return time.process_time() - c0, store.flush_seconds - w0, len(results)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--openers", type=int, default=3000)
    ap.add_argument("--per-flush", type=int, default=2000,
                    help="results per flush (2000: a 5 s flush at 400 results/s)")
    args = ap.parse_args()
    print(f"# {platform.node()}, load {os.getloadavg()[0]:.1f}, {args.openers} openers, "
          f"a flush every {args.per_flush} results", flush=True)
    with tempfile.TemporaryDirectory() as d:
        for name, f in (("whole openers", whole), ("classes", classes)):
            cpu, wall_w, n = f(Path(d), args.openers, args.per_flush)
            print(f"{name}: {n} results, {1e6 * cpu / n:.1f} us CPU each "
                  f"(store and checkpoint writes {1e6 * wall_w / n:.1f} us wall each)",
                  flush=True)
    print(f"# load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
