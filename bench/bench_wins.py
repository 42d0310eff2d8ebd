"""The objective wins on whole openers: CPU per opener, and where it goes.

usage: python bench/bench_wins.py [--lists nyt] [--mode hard] [--max-guesses 6]
       [--openers crane,slate] [--fresh] [--positions crane:BYYBY,...]
One line per opener: (wins, total), CPU and wall seconds, the CPU spent in the
engine's capped values of classes (Solver.set_value and _solve_set, called by the
wins search to value a class outright or prove it cannot be) against the wins
search's own, the sets searched by branch and bound, and the load average before
and after. Each opener on a fresh Solver with --fresh (its CPU alone), else one
Solver for all of them (what a run's rank does: the memo carries over). With
--positions, instead: the value under wins of each position one guess in (a
first-feedback class), each on a fresh Solver, and the same split of its CPU.

--baseline REV (with --positions): each position in a fresh process of this tree
and of git revision REV (a temporary worktree, given this checkout's compiled
kernels), alternated position by position, then the CPU ratio current / baseline
and whether the values agree. --timeout S stops a process after S seconds.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver import Solver  # noqa: E402
from solver.search.wins import WinsSolver  # noqa: E402
from solver.table import get_table  # noqa: E402
from solver.words import WordLists  # noqa: E402


class Clock:
    """CPU seconds spent inside wrapped methods (outermost calls only)."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.calls = 0
        self._depth = 0

    def wrap(self, obj, name: str) -> None:
        fn = getattr(obj, name)

        def timed(*a, **k):
            self._depth += 1
            c0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self.cpu += time.process_time() - c0
                    self.calls += 1

        setattr(obj, name, timed)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lists", default="nyt")
    ap.add_argument("--mode", default="hard")
    ap.add_argument("--max-guesses", type=int, default=6)
    ap.add_argument("--openers", default="crane,slate")
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--positions", default="")
    ap.add_argument("--module", default="solver.search.wins",
                    help="where WinsSearch comes from (--positions): another version of "
                    "wins.py copied into the package, to compare")
    ap.add_argument("--baseline", metavar="REV", help="also run git revision REV, interleaved")
    ap.add_argument("--timeout", type=float, default=None)
    args = ap.parse_args()
    if args.baseline:
        if not args.positions:
            ap.error("--baseline needs --positions")
        interleaved(args)
        return
    lists = WordLists.load(lists=args.lists, quiet=True)
    table, _ = get_table(lists, "numpy")
    print(f"# {platform.node()}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M')}, "
          f"{args.lists} {args.mode} max {args.max_guesses}, "
          f"{'a fresh solver each' if args.fresh else 'one solver'}", flush=True)
    if args.positions:
        positions(lists, table, args)
        return
    ws = None
    for w in args.openers.split(","):
        if ws is None or args.fresh:
            solver = Solver(lists, args.mode, args.max_guesses, table=table)
            engine = Clock()
            engine.wrap(solver, "set_value")
            engine.wrap(solver, "_solve_set")
            ws = WinsSolver(solver)
            searched = Clock()
            searched.wrap(ws.search, "_search")
        load0 = os.getloadavg()[0]
        e0, s0 = engine.cpu, searched.calls
        r = ws.solve(w)
        e = engine.cpu - e0
        print(f"{w}: wins {r.wins} of {r.answers}, total {r.total}; CPU {r.cpu_seconds:.1f} s "
              f"(engine {e:.1f} s, wins search {r.cpu_seconds - e:.1f} s, "
              f"{searched.calls - s0} sets searched), wall {r.seconds:.1f} s; load "
              f"{load0:.2f} -> {os.getloadavg()[0]:.2f}", flush=True)


def positions(lists, table, args) -> None:
    import importlib

    from solver.game import Position

    WinsSearch = importlib.import_module(args.module).WinsSearch  # noqa: N806

    for text in args.positions.split(","):
        solver = Solver(lists, args.mode, args.max_guesses, table=table)
        engine = Clock()
        engine.wrap(solver, "set_value")
        engine.wrap(solver, "_solve_set")
        pos = Position.parse(text, lists, args.mode, args.max_guesses)
        ws = WinsSearch(solver)
        load0 = os.getloadavg()[0]
        t0, c0 = time.perf_counter(), time.process_time()
        v = ws.set_value(pos.members, pos.budget, pos.cons)
        cpu = time.process_time() - c0
        print(f"{text}: {len(pos.members)} candidates, {pos.budget} guesses left: wins "
              f"{v.wins}, total {v.total}, guess {lists.guesses[v.guess]}; CPU {cpu:.1f} s "
              f"(engine {engine.cpu:.1f} s, wins search {cpu - engine.cpu:.1f} s), wall "
              f"{time.perf_counter() - t0:.1f} s; load {load0:.2f} -> "
              f"{os.getloadavg()[0]:.2f}", flush=True)


LINE = re.compile(r"wins (\d+), total (\d+), guess (\w+); CPU ([\d.]+) s")


def run_position(tree: Path, text: str, args) -> dict:
    """One position in a fresh process of `tree`'s own bench_wins.py."""
    cmd = [sys.executable, str(tree / "bench" / "bench_wins.py"), "--positions", text,
           "--lists", args.lists, "--mode", args.mode, "--max-guesses", str(args.max_guesses)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                             cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}).stdout
    except subprocess.TimeoutExpired:
        return {"position": text, "cpu": None}
    m = LINE.search(out)
    if m is None:
        raise SystemExit(f"no result from {tree} for {text}:\n{out}")
    return {"position": text, "wins": int(m[1]), "total": int(m[2]), "guess": m[3],
            "cpu": float(m[4])}


def interleaved(args) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="wdp-baseline-"))
    subprocess.run(["git", "worktree", "add", "--detach", str(tmp), args.baseline], cwd=ROOT,
                   check=True, capture_output=True)
    try:
        for so in ROOT.glob("solver/*/__pycache__/*.so"):  # compiled kernels: no build
            dst = tmp / so.relative_to(ROOT)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(so, dst)
        trees = [("current", ROOT), (args.baseline, tmp)]
        print(f"# {platform.node()}, {os.cpu_count()} cores, "
              f"{time.strftime('%Y-%m-%d %H:%M')}, load {os.getloadavg()[0]:.1f}; "
              f"{args.lists} {args.mode} max {args.max_guesses}; current against "
              f"{args.baseline}, alternated", flush=True)
        ratios, agree = [], True
        for text in args.positions.split(","):
            got = {}
            for tag, tree in trees:
                r = run_position(tree, text, args)
                got[tag] = r
                cpu = "timeout" if r["cpu"] is None else f"{r['cpu']:.1f} s"
                val = "" if r["cpu"] is None else f"wins {r['wins']}, total {r['total']}, " \
                    f"guess {r['guess']}; "
                print(f"{tag:>10} {text}: {val}CPU {cpu}", flush=True)
            a, b = got["current"], got[args.baseline]
            if a["cpu"] is not None and b["cpu"] is not None:
                ratios.append(a["cpu"] / b["cpu"])
                agree &= (a["wins"], a["total"]) == (b["wins"], b["total"])
        print(f"# load {os.getloadavg()[0]:.1f} at the end; values "
              f"{'agree' if agree else 'DIFFER'}", flush=True)
        if ratios:
            print(f"current / baseline CPU: geometric mean "
                  f"{statistics.geometric_mean(ratios):.3f} over {len(ratios)} positions")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tmp)], cwd=ROOT,
                       capture_output=True)


if __name__ == "__main__":
    main()
