"""What a player's second move costs to compute: `book moves` for given openers (every
class of each: its best second guess and K alternatives) and `next POSITION --top K`
for given positions, each in a fresh process, CPU of the child (user + system,
wait4).

usage: python bench/bench_moves.py [--lists nyt] [--mode easy] [--openers carne,parte]
       [--positions abaca:BBBBB] [--top 8] [--no-book] [--baseline REV]

--baseline REV: each item also in git revision REV (a temporary worktree, given this
checkout's compiled kernels), alternated item by item, then the CPU ratio current /
baseline per item and its geometric mean, and whether the outputs are the same (the
moves files' arrays; next's text). The moves go to temporary files, so openers the
shipped file holds are computed too. Each tree's kernels are compiled first, untimed
(`python -m solver.aot`): a tree with an edited kernel would otherwise pay the build
(a minute or more of CPU) inside its first item.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def child(tree: Path, cmd: list[str]) -> tuple[str, float]:
    """(stdout, CPU seconds) of `python -m solver CMD` run from `tree`."""
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_NUM_THREADS="1")
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([sys.executable, "-m", "solver", *cmd], cwd=tree, stdout=out,
                                stderr=subprocess.DEVNULL, text=True, env=env)
        _pid, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        text = out.read()
    if status != 0:
        raise SystemExit(f"{tree}: wordle-dp {' '.join(cmd)} failed ({status})")
    return text, usage.ru_utime + usage.ru_stime


def moves(tree: Path, opener: str, args, where: Path) -> tuple[dict, float]:
    out = where / f"{tree.name}-{opener}.moves.npz"
    out.unlink(missing_ok=True)
    _text, cpu = child(tree, ["book", "moves", "--lists", args.lists, "--mode", args.mode,
                              "--openers", opener, "--out", str(out), "--quiet"])
    with np.load(out) as z:
        arrays = {k: z[k] for k in z.files if k != "info"}
    return arrays, cpu


def next_move(tree: Path, position: str, args) -> tuple[str, float]:
    return child(tree, ["next", position, "--lists", args.lists, "--mode", args.mode,
                        "--top", str(args.top), *(["--no-book"] if args.no_book else [])])


def same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    return a == b


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lists", default="nyt")
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--openers", default="", help="comma-separated: book moves of each")
    ap.add_argument("--positions", default="", help="comma-separated: next of each")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--no-book", action="store_true",
                    help="next without the book and its moves file: the search itself")
    ap.add_argument("--baseline", metavar="REV", help="also run git revision REV, interleaved")
    args = ap.parse_args()
    items = [("moves", w) for w in args.openers.split(",") if w] + [
        ("next", p) for p in args.positions.split(",") if p]
    if not items:
        ap.error("give --openers or --positions")
    where = Path(tempfile.mkdtemp(prefix="wdp-moves-"))
    trees = [("current", ROOT)]
    if args.baseline:
        base = where / "baseline"
        subprocess.run(["git", "worktree", "add", "--detach", str(base), args.baseline],
                       cwd=ROOT, check=True, capture_output=True)
        for so in ROOT.glob("solver/*/__pycache__/*.so"):  # compiled kernels: no build
            dst = base / so.relative_to(ROOT)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(so, dst)
        trees.append((args.baseline, base))
    print(f"# {platform.node()}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M')} "
          f"UTC, load {os.getloadavg()[0]:.1f}; {args.lists} {args.mode}, top {args.top}"
          + (f"; current against {args.baseline}, alternated" if args.baseline else ""),
          flush=True)
    try:
        for _tag, tree in trees:  # untimed: each tree's compiled kernels, built or found
            subprocess.run([sys.executable, "-m", "solver.aot"], cwd=tree, check=True,
                           capture_output=True, env=dict(os.environ, PYTHONPATH=str(tree)))
        ratios, agree = [], True
        for kind, item in items:
            got = {}
            for tag, tree in trees:
                out, cpu = (moves(tree, item, args, where) if kind == "moves"
                            else next_move(tree, item, args))
                got[tag] = (out, cpu)
                print(f"{tag:>10} {kind} {item}: CPU {cpu:.1f} s", flush=True)
            if args.baseline:
                (a, ca), (b, cb) = got["current"], got[args.baseline]
                ratios.append(ca / cb)
                agree &= same(a, b)
                print(f"{'':>10} ratio {ca / cb:.3f}, output "
                      f"{'the same' if same(a, b) else 'DIFFERENT'}", flush=True)
        if ratios:
            print(f"# load {os.getloadavg()[0]:.1f} at the end; outputs "
                  f"{'all the same' if agree else 'DIFFER'}; current / baseline CPU: "
                  f"geometric mean {statistics.geometric_mean(ratios):.3f} over "
                  f"{len(ratios)} items")
    finally:
        if args.baseline:
            subprocess.run(["git", "worktree", "remove", "--force", str(where / "baseline")],
                           cwd=ROOT, capture_output=True)
        shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    main()
