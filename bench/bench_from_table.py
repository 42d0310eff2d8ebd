"""An opener's value from the table beside the book, timed as the user meets it:
`wordle-dp solve OPENER --lists original` as a whole process (start-up, the book and
its table read, the answer), for openers the shipped table holds and the book does
not; with `--baseline K`, interleaved, the first K of them searched (`--no-book`),
as every opener beyond the book's was before the table.

Also the cost of reading the book: with and without its table, and with a
synthetic table the size of the complete one (every opener of the guess list, each
with as many class rows as its table row has classes), so that the answer's time
when the table is complete is known before it is.

usage: python bench/bench_from_table.py [--mode easy] [--openers 20] [--seed 48]
       [--baseline 2]
Prints one line per command (wall and CPU seconds, children's rusage) and a summary
per setting (median, p95, max), with the machine, the date and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver.book import Book, book_path, table_path  # noqa: E402
from solver.table import get_table  # noqa: E402
from solver.variant import pattern_dtype  # noqa: E402
from solver.words import WordLists  # noqa: E402


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=str(ROOT))).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def summary(name: str, rows: list[tuple[float, float]]) -> str:
    if not rows:
        return f"{name}: none"
    walls = sorted(w for w, _c in rows)
    cpus = sorted(c for _w, c in rows)
    p95 = walls[min(len(walls) - 1, int(round(0.95 * (len(walls) - 1))))]
    return (f"{name}: {len(rows)} commands; wall median {statistics.median(walls):.2f} s, "
            f"p95 {p95:.2f} s, max {walls[-1]:.2f} s; CPU median "
            f"{statistics.median(cpus):.2f} s, max {cpus[-1]:.2f} s")


def synthetic_full(src: Path, lists, mode: str, out: Path) -> None:
    """A table file of the complete table's size: every opener exact, with one class
    row per non-green class of its table row (values made up: only the size counts)."""
    table, _ = get_table(lists, "numpy", None)
    g, n_p = len(lists.guesses), 3**lists.length
    with np.load(src, allow_pickle=False) as z:
        info = json.loads(str(z["info"]))
    counts = np.array([int((np.bincount(table[i], minlength=n_p)[:-1] > 0).sum())
                       for i in range(g)], np.int32)
    rows = int(counts.sum())
    rng = np.random.default_rng(0)
    info.update(valued=g, exact=g, complete=True)
    with open(out, "wb") as f:
        np.savez_compressed(
            f, info=np.array(json.dumps(info)), index=np.arange(g, dtype=np.uint16),
            status=np.ones(g, np.uint8), total=rng.integers(7900, 9500, g).astype(np.int32),
            depth=np.full(g, 6, np.int8), cpu=rng.random(g).astype(np.float32),
            counts=counts, pattern=rng.integers(0, n_p - 1, rows).astype(pattern_dtype(5)),
            guess=rng.integers(0, g, rows).astype(np.uint16),
            class_total=rng.integers(1, 3000, rows).astype(np.int32))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--openers", type=int, default=20, help="openers timed from the table")
    ap.add_argument("--seed", type=int, default=48)
    ap.add_argument("--baseline", type=int, default=0, metavar="K",
                    help="also search the first K of them (--no-book), interleaved")
    a = ap.parse_args()
    lists = WordLists.load(lists="original", quiet=True)
    path = book_path(a.mode, 6)
    own = Book.read(path, lists, table=False)
    view = Book.read(path, lists)
    if view.table is None:
        raise SystemExit(f"no table beside {path}")
    held = [int(i) for i in view.table.index if own.status_codes[i] != 1]
    pick = [lists.guesses[i] for i in random.Random(a.seed).sample(held, min(a.openers,
                                                                           len(held)))]
    print(f"# {platform.node()}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M')}, "
          f"load {os.getloadavg()[0]:.2f}; {view.table.describe()}")

    def reads(book: Path, table: bool, n: int = 5) -> float:
        best = float("inf")
        for _ in range(n):
            t0 = time.perf_counter()
            Book.read(book, lists, table=table)
            best = min(best, time.perf_counter() - t0)
        return best

    with tempfile.TemporaryDirectory() as tmp:
        full = Path(tmp) / path.name
        full.write_bytes(path.read_bytes())
        synthetic_full(table_path(path), lists, a.mode, table_path(full))
        size = table_path(full).stat().st_size
        print(f"reading the book (best of 5): alone {reads(path, False) * 1000:.0f} ms, with "
              f"its table {reads(path, True) * 1000:.0f} ms, with a complete table "
              f"({size / 1e6:.1f} MB, synthetic) {reads(full, True) * 1000:.0f} ms")
    base = [sys.executable, "-m", "solver", "solve", "--lists", "original", "--mode", a.mode]
    got: dict[str, list[tuple[float, float]]] = {"from the table": [], "searched": []}
    for k, w in enumerate(pick):
        wall, cpu, out = timed([*base, w])
        assert "from the table" in out, out
        got["from the table"].append((wall, cpu))
        print(f"{w}: {wall:.2f} s wall, {cpu:.2f} s CPU: {out.strip()}")
        if k < a.baseline:
            wall, cpu, out = timed([*base, w, "--no-book"])
            got["searched"].append((wall, cpu))
            print(f"{w} --no-book: {wall:.2f} s wall, {cpu:.2f} s CPU: {out.strip()}")
    for name, rows in got.items():
        print(summary(name, rows))
    print(f"# load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
