"""Refuting openers under a cutoff, beside the C++ exact solver.

Draws a seeded random sample of openers from the guess list and values them under a
cutoff (`Solver.solve(w, cutoff=X)`: the exact value below X, else a proven lower
bound >= X), in easy and in hard mode, as one process per tree over the whole
sample (memo kept across openers, as in `wordle-dp run` and `best`). Each process
reports every opener's CPU time; the process's own CPU time (wait4) is the total.

With --cpp DIR (a build of github.com/alex1770/wordle: DIR/wordle), the same
openers go through it as one process (`wordle -a GUESSES -h ANSWERS -t FILE -b X`,
plus -H in hard mode), whose per-opener 'dCPU' lines are read the same way.
--baseline REV runs git revision REV of this project too (a temporary worktree).
The trees alternate, round after round (--rounds), so all see the same load.

    python bench/bench_cutoff.py --cpp /tmp/cref/wordle                   # 100 easy, 40 hard
    python bench/bench_cutoff.py --seed 7 --easy 200 --hard 0 --baseline HEAD~1
    python bench/bench_cutoff.py --cpp /tmp/cref/wordle --markdown >> BENCHMARKS.md
    python bench/bench_cutoff.py --lists nyt --easy 0 --cutoff-hard 11679 \
        --openers stole,split --baseline HEAD~1      # given openers, the NYT lists

Targets (issue 25): easy at most 0.5x the C++ time, hard at most 1x, and no opener
whose value passes the cutoff by 20 or more over 2 s (reported as 'slow refutations',
judged by the largest bound any of the solvers proved).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "solver" / "data"
SEED = 20261125
CUTOFF = {"easy": 7921, "hard": 8123}  # one past salet's value in each mode

_OURS = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from solver import Solver
from solver.words import WordLists
mode, cut, lists = sys.argv[2], int(sys.argv[3]), sys.argv[5]
s = Solver(WordLists.load(lists=lists, quiet=True), mode=mode)
s.solve("fuzzy", cutoff=cut)  # load the kernels (compiled or jit) before timing
for w in sys.argv[4].split(","):
    c0 = time.process_time()
    r = s.solve(w, cutoff=cut)
    print(json.dumps({"opener": w, "status": r.status, "total": r.total,
                      "cpu": round(time.process_time() - c0, 4)}), flush=True)
"""

_CPP_LINE = re.compile(r"First guess (\w+) ([ >])= +(\d+) .*dCPU = +([\d.]+)")


def sample(k: int, seed: int) -> list[str]:
    words = sorted((DATA / "guesses.txt").read_text().split())
    return random.Random(seed).sample(words, k)


def _run(cmd: list[str], cwd: Path | None = None) -> tuple[str, float]:
    """Run a command; (stdout, its CPU seconds: user + system)."""
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL,
                                text=True, env=dict(os.environ, NUMBA_NUM_THREADS="1"))
        _pid, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{cmd[0]} ... exited {os.waitstatus_to_exitcode(status)}")
        out.seek(0)
        return out.read(), usage.ru_utime + usage.ru_stime


def run_ours(tree: Path, mode: str, cut: int, openers: list[str],
             lists: str) -> tuple[dict, float]:
    text, cpu = _run([sys.executable, "-c", _OURS, str(tree), mode, str(cut),
                      ",".join(openers), lists], cwd=tree)
    rows = {}
    for line in text.splitlines():
        r = json.loads(line)
        rows[r["opener"]] = {"status": r["status"], "total": r["total"], "cpu": r["cpu"]}
    return rows, cpu


def run_cpp(cpp: Path, mode: str, cut: int, openers: list[str]) -> tuple[dict, float]:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(openers) + "\n")
    try:
        cmd = [str(cpp / "wordle"), "-a", str(DATA / "guesses.txt"), "-h",
               str(DATA / "answers.txt"), "-t", f.name, "-b", str(cut)]
        text, cpu = _run(cmd + (["-H"] if mode == "hard" else []), cwd=cpp)
    finally:
        os.unlink(f.name)
    rows = {}
    for m in _CPP_LINE.finditer(text):
        w, ge, total, dcpu = m.group(1), m.group(2), int(m.group(3)), float(m.group(4))
        status = "infeasible" if total >= 10**9 else ("lower_bound" if ge == ">" else "exact")
        rows[w] = {"status": status, "total": None if status == "infeasible" else total,
                   "cpu": dcpu}
    return rows, cpu


def _gap(r: dict, cut: int) -> float:
    """How far the proved value passes the cutoff (inf: infeasible)."""
    if r["status"] == "infeasible":
        return float("inf")
    return r["total"] - cut


def report(mode: str, cut: int, openers: list[str], results: dict[str, list], md: bool):
    """Print one mode's figures: per tree its median total CPU over the rounds, the
    sum of per-opener CPU, the slowest openers and the slow refutations."""
    lines = []
    totals = {}
    # the value passes the cutoff by at least the largest gap any tree proved
    gap = {w: max(_gap(runs[-1][0][w], cut) for runs in results.values()) for w in openers}
    for tag, runs in results.items():
        cpus = [cpu for _rows, cpu in runs]
        rows = runs[-1][0]
        per = sum(r["cpu"] for r in rows.values())
        slow = sorted(rows, key=lambda w: -rows[w]["cpu"])[:5]
        bad = [w for w in openers if gap[w] >= 20 and rows[w]["cpu"] > 2.0]
        totals[tag] = statistics.median(cpus)
        lines.append((tag, statistics.median(cpus), per, slow, rows, bad))
    ref = totals.get("C++")
    if md:
        print(f"\n| {mode}, {len(openers)} openers, cutoff {cut} | process CPU s "
              "(median of rounds) | sum per opener | x C++ | slowest | slow refutations |")
        print("|---|---:|---:|---:|---|---:|")
    for tag, cpu, per, slow, rows, bad in lines:
        ratio = f"{cpu / ref:.2f}" if ref else "-"
        worst = ", ".join(f"{w} {rows[w]['cpu']:.2f}" for w in slow[:3])
        if md:
            print(f"| {tag} | {cpu:.1f} | {per:.1f} | {ratio} | {worst} | {len(bad)} |")
        else:
            print(f"{mode:4s} {tag:10s} process {cpu:7.1f} s CPU, per-opener sum {per:7.1f} s, "
                  f"x C++ {ratio}; slowest {worst}; slow refutations {len(bad)}"
                  + (f" ({', '.join(bad[:8])})" if bad else ""))
    # every tree must agree on what it proved: exact values equal, bounds never above
    # another tree's exact value, infeasible only where no tree found a value
    for w in openers:
        seen = {tag: runs[-1][0][w] for tag, runs in results.items()}
        exact = {r["total"] for r in seen.values() if r["status"] == "exact"}
        if len(exact) > 1 or any(r["status"] == "lower_bound" and exact and r["total"] >
                                 min(exact) for r in seen.values()) or (
                exact and any(r["status"] == "infeasible" for r in seen.values())):
            print(f"DISAGREEMENT {mode} {w}: {seen}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--easy", type=int, default=100, help="easy openers (default 100)")
    ap.add_argument("--hard", type=int, default=40, help="hard openers (default 40)")
    ap.add_argument("--cutoff-easy", type=int, default=CUTOFF["easy"])
    ap.add_argument("--cutoff-hard", type=int, default=CUTOFF["hard"])
    ap.add_argument("--cpp", type=Path, metavar="DIR", help="C++ reference build folder")
    ap.add_argument("--baseline", metavar="REV", help="also run git revision REV")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--lists", default="original",
                    help="built-in list pair for our solver (default original; the C++ "
                         "reference always reads the original lists)")
    ap.add_argument("--openers", help="comma-separated openers instead of a seeded sample "
                                      "(the same in each mode run)")
    ap.add_argument("--markdown", action="store_true", help="tables for BENCHMARKS.md")
    args = ap.parse_args()
    if args.cpp and args.lists != "original":
        ap.error("--cpp reads the original lists only")

    trees = [("current", ROOT)]
    tmp = None
    if args.baseline:
        tmp = tempfile.mkdtemp(prefix="wdp-baseline-")
        subprocess.run(["git", "worktree", "add", "--detach", tmp, args.baseline],
                       cwd=ROOT, check=True, capture_output=True)
        trees.append((args.baseline, Path(tmp)))
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip()
    # one untimed run per tree first: a baseline's fresh worktree compiles the kernels
    # (about 100 s), which would otherwise land in its first process's CPU
    for _tag, tree in trees:
        run_ours(tree, "easy", args.cutoff_easy, ["salet"], args.lists)
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} {platform.node()}, {os.cpu_count()} cpus, "
          f"python {platform.python_version()}, load {os.getloadavg()[0]:.2f}; HEAD {head}; "
          f"seed {args.seed}; rounds {args.rounds}", flush=True)
    try:
        for mode, k, cut in (("easy", args.easy, args.cutoff_easy),
                             ("hard", args.hard, args.cutoff_hard)):
            if k <= 0:
                continue
            openers = (args.openers.split(",")[:k] if args.openers
                       else sample(k, args.seed + (mode == "hard")))
            print(f"# {mode}: {len(openers)} openers, cutoff {cut}: {' '.join(openers)}",
                  flush=True)
            results: dict[str, list] = {tag: [] for tag, _ in trees}
            if args.cpp:
                results["C++"] = []
            for _ in range(args.rounds):
                for tag, tree in trees:
                    results[tag].append(run_ours(tree, mode, cut, openers, args.lists))
                if args.cpp:
                    results["C++"].append(run_cpp(args.cpp, mode, cut, openers))
            report(mode, cut, openers, results, args.markdown)
        print(f"# load {os.getloadavg()[0]:.2f} at the end", flush=True)
    finally:
        if tmp:
            subprocess.run(["git", "worktree", "remove", "--force", tmp], cwd=ROOT,
                           capture_output=True)


if __name__ == "__main__":
    main()
