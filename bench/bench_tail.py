"""A run's tail, before and after: `wordle-dp run` of the same openers on N ranks,
this tree against git revision REV (--baseline, a temporary worktree), the trees
alternating round after round so that both see the same load.

Each run starts from an empty store. Reported per tree and round: the command's
wall time, its CPU (user + system of mpiexec and every rank, from the children's
rusage), how many openers were taken back when the queue ran dry (the run's "no
tail" line), and the table: every tree's exact values must agree, and a lower
bound must be at the cutoff or over and at most any exact value found for it.

    python bench/bench_tail.py --ranks 2 --mode easy --cutoff 7921 \\
        --openers "$(24 random openers),crate" --rounds 3 --baseline HEAD~1

The kernels are compiled once per tree first (an untimed one-opener run).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def mpiexec() -> str:
    here = Path(sys.executable).parent / "mpiexec"
    return str(here) if here.exists() else "mpiexec"


def one_run(tree: Path, ranks: int, args: list[str], store: Path) -> dict:
    """One `run` into a fresh store: wall, CPU, openers taken back, the table."""
    shutil.rmtree(store, ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_NUM_THREADS="1")
    cmd = [mpiexec(), "-n", str(ranks), sys.executable, "-m", "solver", "run",
           "--store", str(store), *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tree)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"bench_tail: {tree} failed:\n{p.stderr[-2000:]}")
    m = re.search(r"no tail: (\d+) opener", p.stderr)
    sys.path.insert(0, str(ROOT))
    from solver import store as S

    snap = S.Store.open(store).snapshot()
    done = np.flatnonzero(snap.status != S.PENDING)
    table = {int(i): (int(snap.status[i]), int(snap.fields["total"][i])) for i in done}
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "stolen": int(m.group(1)) if m else 0,
            "table": table}


def check(results: dict[str, list[dict]], cutoff: int | None) -> list[str]:
    """Disagreements between the runs' tables (none expected)."""
    from solver import store as S

    out: list[str] = []
    seen: dict[int, set] = {}
    for runs in results.values():
        for r in runs:
            for i, v in r["table"].items():
                seen.setdefault(i, set()).add(v)
    for i, vals in seen.items():
        exact = {t for s, t in vals if s == S.EXACT}
        if len(exact) > 1:
            out.append(f"opener {i}: exact values {sorted(exact)}")
        for s, t in vals:
            if s == S.LOWER_BOUND and (
                    (cutoff is not None and t < cutoff) or (exact and t > min(exact))):
                out.append(f"opener {i}: lower bound {t} against {sorted(exact)}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--cutoff", type=int, help="run --cutoff X (default: exact values)")
    ap.add_argument("--openers", required=True, help="comma-separated openers")
    ap.add_argument("--lists", default=None, help="built-in list pair (run --lists)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--baseline", metavar="REV", help="also run git revision REV")
    a = ap.parse_args()
    args = ["--mode", a.mode, "--openers", a.openers]  # (not quiet: its summary)
    args += ["--cutoff", str(a.cutoff)] if a.cutoff is not None else ["--no-cutoff"]
    if a.lists:
        args += ["--lists", a.lists]
    trees = [("current", ROOT)]
    tmp = None
    if a.baseline:
        tmp = tempfile.mkdtemp(prefix="wdp-baseline-")
        subprocess.run(["git", "worktree", "add", "--detach", tmp, a.baseline], cwd=ROOT,
                       check=True, capture_output=True)
        trees.append((a.baseline, Path(tmp)))
    work = Path(tempfile.mkdtemp(prefix="wdp-tail-"))
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip()
    try:
        warm = ["--mode", a.mode, "--openers", a.openers.split(",")[0], "--quiet",
                "--cutoff", "1"] + (["--lists", a.lists] if a.lists else [])
        for _tag, tree in trees:
            one_run(tree, 1, warm, work / "warm.zarr")
        print(f"# {time.strftime('%Y-%m-%d %H:%M')} {platform.node()}, {os.cpu_count()} "
              f"cpus, load {os.getloadavg()[0]:.2f}; HEAD {head}; {a.ranks} ranks, "
              f"{a.mode}, cutoff {a.cutoff}, {len(a.openers.split(','))} openers",
              flush=True)
        results: dict[str, list[dict]] = {tag: [] for tag, _ in trees}
        for k in range(a.rounds):
            for tag, tree in trees:
                r = one_run(tree, a.ranks, args, work / f"{k}.zarr")
                results[tag].append(r)
                print(f"round {k + 1} {tag}: wall {r['wall']:.1f} s, CPU {r['cpu']:.1f} s, "
                      f"taken back {r['stolen']}", flush=True)
        for tag, runs in results.items():
            walls = sorted(r["wall"] for r in runs)
            cpus = sorted(r["cpu"] for r in runs)
            print(f"{tag}: wall median {walls[len(walls) // 2]:.1f} s "
                  f"({', '.join(f'{w:.1f}' for w in walls)}), CPU median "
                  f"{cpus[len(cpus) // 2]:.1f} s")
        bad = check(results, a.cutoff)
        print("tables agree" if not bad else "DISAGREEMENT\n" + "\n".join(bad))
        print(f"# load {os.getloadavg()[0]:.2f} at the end", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if tmp:
            subprocess.run(["git", "worktree", "remove", "--force", tmp], cwd=ROOT,
                           capture_output=True)


if __name__ == "__main__":
    main()
