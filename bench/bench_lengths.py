"""How the pattern table and the exact search grow with the word length.

For each built-in list (4 to 8 letters; 5 is the original lists): the full table's
size and build time, then, on a seeded sample of the same size at every length
(--answers answers, --guesses guesses; the sample keeps the length the only
thing that changes), the exact value of the best few openers by expected
remaining answers, easy mode: CPU time, nodes and peak memory per solve. Each
length runs in a fresh process so the memory figures do not mix.

    python bench/bench_lengths.py                       # 300 answers, 3000 guesses, 3 openers
    python bench/bench_lengths.py --answers 500 --openers 5 --mode hard
    python bench/bench_lengths.py --full                # also the full lists' tables
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, random, resource, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from solver import Solver
from solver.game.measures import SUMSQ, scan
from solver.table import build_numpy
from solver.words import WordLists
length, n_a, n_g, k, mode, seed, full = (int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
                                         int(sys.argv[5]), sys.argv[6], int(sys.argv[7]),
                                         sys.argv[8] == "1")
real = WordLists.load(length=length, quiet=True)
out = {"length": length, "patterns": 3**length}
if full:
    t0 = time.process_time()
    t = build_numpy(real)
    out.update(full_answers=len(real.answers), full_guesses=len(real.guesses),
               full_table_mb=round(t.nbytes / 2**20, 1),
               full_build_cpu=round(time.process_time() - t0, 2))
    del t
rng = random.Random(seed)
answers = sorted(rng.sample(real.answers, min(n_a, len(real.answers))))
guesses = sorted(set(rng.sample(real.guesses, min(n_g, len(real.guesses)))) | set(answers))
lists = WordLists.from_words(answers, guesses)
table = build_numpy(lists)
s = Solver(lists, mode=mode, table=table)
raw = scan(table, np.arange(len(answers), dtype=np.int32), np.arange(len(guesses)),
           s.variant.all_green)
best = np.lexsort((np.arange(len(guesses)), raw[:, SUMSQ]))[:k]
out.update(answers=len(answers), guesses=len(guesses), table_mb=round(table.nbytes / 2**20, 2),
           solves=[])
for g in best:
    w = guesses[int(g)]
    c0 = time.process_time()
    r = s.solve(w)
    out["solves"].append({"opener": w, "status": r.status, "total": r.total,
                          "average": None if r.total is None else round(r.total / len(answers), 4),
                          "cpu": round(time.process_time() - c0, 2), "nodes": r.nodes})
out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lengths", default="4,5,6,7,8")
    ap.add_argument("--answers", type=int, default=300)
    ap.add_argument("--guesses", type=int, default=3000)
    ap.add_argument("--openers", type=int, default=3)
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--seed", type=int, default=20261124)
    ap.add_argument("--full", action="store_true", help="also build each full table")
    args = ap.parse_args()
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} {platform.node()}, {os.cpu_count()} cpus, "
          f"load {os.getloadavg()[0]:.2f}; {args.answers} answers x {args.guesses} guesses "
          f"sampled (seed {args.seed}), {args.mode}, best {args.openers} openers by "
          "expected remaining", flush=True)
    print("| letters | patterns | full lists (answers x guesses) | full table | build CPU s "
          "| sample table | opener: exact total (avg), CPU s, nodes | peak RSS |")
    print("|---:|---:|---|---:|---:|---:|---|---:|")
    for length in (int(x) for x in args.lengths.split(",")):
        p = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), str(length),
                            str(args.answers), str(args.guesses), str(args.openers), args.mode,
                            str(args.seed), "1" if args.full else "0"],
                           capture_output=True, text=True, env=dict(os.environ,
                                                                    NUMBA_NUM_THREADS="1"))
        if p.returncode != 0:
            print(f"| {length} | failed: {p.stderr.strip().splitlines()[-1:]} |")
            continue
        r = json.loads(p.stdout.strip().splitlines()[-1])
        solves = "; ".join(f"{x['opener']}: {x['total']} ({x['average']}), {x['cpu']} s, "
                           f"{x['nodes']}" for x in r["solves"])
        full = (f"{r['full_answers']} x {r['full_guesses']} | {r['full_table_mb']} MB | "
                f"{r['full_build_cpu']}") if "full_answers" in r else "- | - | -"
        print(f"| {length} | {r['patterns']} | {full} | {r['table_mb']} MB | {solves} | "
              f"{r['peak_rss_mb']} MB |", flush=True)


if __name__ == "__main__":
    main()
