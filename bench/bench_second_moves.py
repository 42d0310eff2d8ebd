"""A player's second move, timed as the player meets it: `wordle-dp next
OPENER:PATTERN` as a whole process (start-up, book, answer), for the commonest
feedback classes of some openers, with the packaged book and its moves file, and
with `--baseline`, interleaved, the same book without its moves (what the command
did before the moves existed: a search per class).

usage: python bench/bench_second_moves.py [--lists nyt] [--mode easy]
       [--openers tarse,salet,crane] [--classes 20] [--top 5] [--baseline]
Prints one line per command (wall and CPU seconds, children's rusage) and a
summary per setting: median, p95 and max of wall and CPU; with the machine, the
date and the load. Only openers whose moves are in the file are timed.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver.book import Book  # noqa: E402
from solver.feedback import to_text  # noqa: E402
from solver.moves import moves_path  # noqa: E402
from solver.table import get_table  # noqa: E402
from solver.words import WordLists  # noqa: E402


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """(wall, CPU of the child, its stdout's 'best' line) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    best = next((x for x in r.stdout.splitlines() if x.startswith("best")), "?")
    return wall, cpu, best


def summary(name: str, xs: list[tuple[float, float]]) -> str:
    def q(v: list[float]) -> str:
        v = sorted(v)
        p95 = v[min(len(v) - 1, int(np.ceil(0.95 * len(v))) - 1)]
        return f"median {statistics.median(v):.2f} p95 {p95:.2f} max {v[-1]:.2f}"

    return (f"{name}: {len(xs)} commands; wall {q([w for w, _ in xs])}; "
            f"CPU {q([c for _, c in xs])} s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lists", default="nyt")
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--openers", default="tarse,salet,crane")
    ap.add_argument("--classes", type=int, default=20, help="the N commonest classes each")
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--baseline", action="store_true",
                    help="also time each command with the book but without its moves")
    a = ap.parse_args()
    lists = WordLists.load(lists=a.lists, quiet=True)
    book = Book.find(lists, a.mode, 6)
    if book is None or book.moves is None:
        sys.exit(f"no book with moves for {a.lists} {a.mode}")
    table, _ = get_table(lists, "numpy")
    exe = shutil.which("wordle-dp") or sys.exit("wordle-dp is not on PATH")
    have = set(book.moves.openers())
    openers = [w for w in a.openers.split(",") if w in have]
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"{time.strftime('%Y-%m-%d %H:%M')}; load {os.getloadavg()[0]:.1f}; lists "
          f"{a.lists}, {a.mode}, top {a.top}; openers {','.join(openers)} "
          f"(moves for {len(have)} openers in {Path(book.moves.path).name})")
    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / Path(book.path).name  # the book alone: no moves beside it
        shutil.copy(book.path, bare)
        assert not moves_path(bare).exists()
        runs: dict[str, list[tuple[float, float]]] = {"moves": [], "baseline": []}
        for w in openers:
            pats, sizes = np.unique(table[lists.guess_index[w]], return_counts=True)
            green = 3 ** lists.length - 1
            order = [int(pats[k]) for k in np.argsort(-sizes, kind="stable")
                     if int(pats[k]) != green][: a.classes]
            for p in order:
                pos = f"{w}:{to_text(p, lists.length)}"
                base = [exe, "next", pos, "--lists", a.lists, "--mode", a.mode,
                        "--top", str(a.top)]
                settings = [("moves", [*base, "--book", book.path])]
                if a.baseline:
                    settings.append(("baseline", [*base, "--book", str(bare)]))
                for name, cmd in settings:
                    wall, cpu, best = timed(cmd)
                    runs[name].append((wall, cpu))
                    print(f"{name:8s} {pos:14s} wall {wall:6.2f} s  CPU {cpu:6.2f} s  {best}",
                          flush=True)
    for name, xs in runs.items():
        if xs:
            print(summary(name, xs))
    print(f"# load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
