"""Benchmark `wordle-dp run` over MPI: openers per minute and parallel efficiency.

    .venv/bin/python bench/bench_run.py                       # 1, 2, 3 ranks, all openers
    .venv/bin/python bench/bench_run.py --openers 2000 --ranks 1,3
    .venv/bin/python bench/bench_run.py --append BENCHMARKS.md

Problem (default): the first 200 answers of ../shared/wordlists/answers.txt (game
order) against data/guesses.txt, easy mode, cap 6. Every rank count starts from
an empty store (so each pays its numba compile and table load once per rank).
With N ranks, rank 0 only coordinates when N > 1, so N ranks have max(1, N-1)
solving ranks; efficiency = speedup over 1 rank / solving ranks.

Reported per rank count: wall time of the whole command, openers/min over that
wall time, the steady rate (openers/min between the first and the last result,
i.e. without start-up), store write cost from the run summary, and whether the
table equals the 1-rank table.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver import store as S  # noqa: E402
from solver.words import WordLists, read_words  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--answers", default=str(ROOT.parent / "shared" / "wordlists" /
                                             "answers.txt"))
    ap.add_argument("--n-answers", type=int, default=200, help="first N answers (200)")
    ap.add_argument("--guesses", default=str(ROOT / "data" / "guesses.txt"))
    ap.add_argument("--openers", type=int, default=0,
                    help="value only N openers, spread evenly over the guess list (0: all)")
    ap.add_argument("--ranks", default="1,2,3", help="rank counts to run (1,2,3)")
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--workdir", help="keep the stores here (default: a temp folder)")
    ap.add_argument("--append", metavar="MD", help="append the results to this markdown file")
    args = ap.parse_args()

    tmp = Path(args.workdir or tempfile.mkdtemp(prefix="bench-run-"))
    tmp.mkdir(parents=True, exist_ok=True)
    answers = read_words(args.answers)[: args.n_answers]
    a_file = tmp / "answers.txt"
    a_file.write_text("\n".join(answers) + "\n")
    lists = WordLists.load(a_file, args.guesses, quiet=True)
    n_all = len(lists.guesses)
    opener_args: list[str] = []
    if args.openers and args.openers < n_all:
        idx = np.linspace(0, n_all - 1, args.openers).round().astype(int)
        o_file = tmp / "openers.txt"
        o_file.write_text("\n".join(lists.guesses[i] for i in sorted(set(idx))) + "\n")
        opener_args = ["--openers", str(o_file)]
    n_open = args.openers if opener_args else n_all

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env["NUMBA_NUM_THREADS"] = "1"
    env.setdefault("WORDLE_DP_CACHE", str(tmp / "cache"))
    mpiexec = Path(sys.executable).parent / "mpiexec"
    rows = []
    ref = None
    for n in [int(x) for x in args.ranks.split(",")]:
        store = tmp / f"ranks{n}.zarr"
        if store.exists():
            import shutil

            shutil.rmtree(store)
        cmd = [str(mpiexec), "-n", str(n), sys.executable, "-m", "solver", "run", "--store",
               str(store), "--answers", str(a_file), "--guesses", args.guesses, "--mode",
               args.mode, "--progress-seconds", "60", *opener_args]
        print(f"# {n} rank(s): {' '.join(cmd[3:])}", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            print(p.stderr, file=sys.stderr)
            return 1
        snap = S.Store.open(store).snapshot()
        done = snap.status != S.PENDING
        fin = np.sort(snap.fields["finished_at"][done])
        steady = (len(fin) - 1) / (fin[-1] - fin[0]) * 60 if len(fin) > 1 else float("nan")
        w = re.search(r"store writes: (\d+) batch\(es\), ([\d.]+) s .*?([\d.]+) ms per opener"
                      r"\) vs ([\d.]+) s of solving", p.stderr)
        table = (snap.status.copy(), snap.fields["total"].copy())
        same = None
        if ref is None:
            ref = table
        else:
            same = bool((ref[0] == table[0]).all() and (ref[1] == table[1]).all())
        best = snap.best(1)
        rows.append(dict(ranks=n, solvers=max(1, n - 1), wall=wall, done=int(done.sum()),
                         rate=done.sum() / wall * 60, steady=steady,
                         writes=w.group(2) if w else "?", ms=w.group(3) if w else "?",
                         cpu=w.group(4) if w else "?", same=same,
                         best=f"{best[0]['opener']} {best[0]['total']}" if best else "-"))
        print(f"  {rows[-1]}", file=sys.stderr, flush=True)

    base = rows[0]
    lines = [
        f"Problem: first {len(answers)} answers of {Path(args.answers).name} (game order) x "
        f"{n_all} guesses ({Path(args.guesses).name}), {args.mode}, cap 6; {n_open} openers. "
        f"Machine: {os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}; `{' '.join(['bench/bench_run.py'] + sys.argv[1:])}`"
        f" on {time.strftime('%Y-%m-%d')}.",
        "",
        "| ranks | solving ranks | wall s | openers/min (wall) | openers/min (steady) | "
        "speedup | efficiency | store writes s (ms/opener) | solve CPU s | same table | best |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        sp = r["rate"] / base["rate"] if base["ranks"] == 1 else float("nan")
        eff = sp / r["solvers"]
        same = "ref" if r["same"] is None else ("yes" if r["same"] else "NO")
        lines.append(
            f"| {r['ranks']} | {r['solvers']} | {r['wall']:.1f} | {r['rate']:.0f} | "
            f"{r['steady']:.0f} | {sp:.2f} | {eff:.2f} | {r['writes']} ({r['ms']}) | "
            f"{r['cpu']} | {same} | {r['best']} |")
    text = "\n".join(lines)
    print(text)
    if args.append:
        with open(args.append, "a") as f:
            f.write("\n" + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
