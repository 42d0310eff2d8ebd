"""Benchmark the exact search: whole `wordle-dp solve` commands, one per opener.

Each opener runs in a fresh process (as a user would run it), so the wall time
includes start-up and the table load; peak RSS is the child's max RSS. Run it
once before measuring so numba's cache and the table cache are warm.

    python bench/bench_search.py salet crate --mode easy
    python bench/bench_search.py salet --mode hard --baseline HEAD~1   # A/B in one run

--baseline REV checks out REV in a temporary git worktree and runs the same
commands there, interleaved with the current tree, so both see the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_one(tree: Path, opener: str, extra: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_NUM_THREADS="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver", "solve", opener, "--json", *extra],
        cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    out = proc.stdout.read()  # output is a line or two: no pipe can fill up
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own CPU time and peak RSS
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if code != 0:
        raise SystemExit(f"{opener}: exit {code}: {err.strip()}")
    r = json.loads(out.strip().splitlines()[-1])
    r["wall"] = wall
    r["cpu_total"] = usage.ru_utime + usage.ru_stime
    r["rss_mb"] = usage.ru_maxrss / 1024
    return r


def fmt(tag: str, r: dict) -> str:
    nps = r["nodes"] / r["seconds"] if r["seconds"] else 0
    return (f"{tag:9s} {r['opener']:6s} {r['status']:10s} {r['total']!s:>6s} "
            f"wall {r['wall']:7.2f} s  solve {r['seconds']:7.2f} s  cpu {r['cpu_total']:7.2f} s  "
            f"nodes {r['nodes']:>9d}  {nps:>9.0f} nodes/s  rss<={r['rss_mb']:.0f} MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("openers", nargs="+")
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--max-guesses", default="6")
    ap.add_argument("--answers")
    ap.add_argument("--guesses")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--baseline", metavar="REV", help="also run git revision REV")
    ap.add_argument("--json", action="store_true", help="one JSON line per run")
    args = ap.parse_args()
    extra = ["--mode", args.mode, "--max-guesses", args.max_guesses]
    if args.answers:
        extra += ["--answers", str(Path(args.answers).resolve())]
    if args.guesses:
        extra += ["--guesses", str(Path(args.guesses).resolve())]

    trees = [("current", ROOT)]
    tmp = None
    if args.baseline:
        tmp = tempfile.mkdtemp(prefix="wdp-baseline-")
        subprocess.run(["git", "worktree", "add", "--detach", tmp, args.baseline],
                       cwd=ROOT, check=True, capture_output=True)
        trees.append((args.baseline, Path(tmp)))
        for _, tree in trees:  # warm numba's cache in each tree
            run_one(tree, args.openers[0], extra)
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cpus, python {platform.python_version()}; "
          f"mode {args.mode}, cap {args.max_guesses}", flush=True)
    try:
        for opener in args.openers:
            for _ in range(args.repeat):
                for tag, tree in trees:
                    r = run_one(tree, opener, extra)
                    print(json.dumps({"tree": tag, **r}) if args.json else fmt(tag, r),
                          flush=True)
    finally:
        if tmp:
            subprocess.run(["git", "worktree", "remove", "--force", tmp], cwd=ROOT,
                           capture_output=True)


if __name__ == "__main__":
    main()
