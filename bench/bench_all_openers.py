"""Every opener over a small answer list, in one process with one memo.

The workload of BENCHMARKS.md "Nothing slower elsewhere": all 12972 guesses as
openers over the first N answers of ../shared/wordlists/answers.txt (game order),
solved one after the other by one Solver (its memo kept across openers, as a
cluster rank keeps it). Prints the CPU time of the loop (kernels loaded and the
table built first), the best opener and the sum of all totals (a checksum: it
must not change between versions).

    python bench/bench_all_openers.py                  # this checkout, 200 answers
    python bench/bench_all_openers.py --tree OTHER     # another checkout, e.g. a worktree

Run two trees alternately to compare them under the same load.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, default=ROOT, help="checkout to import solver from")
    ap.add_argument("--answers", type=int, default=200, help="first N answers (game order)")
    ap.add_argument("--list", type=Path, default=ROOT.parent / "shared/wordlists/answers.txt",
                    help="answers in game order")
    args = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.path.insert(0, str(args.tree.resolve()))
    from solver.search.engine import Solver
    from solver.table import build_numpy
    from solver.words import WordLists

    full = WordLists.load()
    game = args.list.read_text().split()[: args.answers]
    lists = WordLists.from_words(game, list(full.guesses))
    table = build_numpy(lists)
    Solver(lists, table=table).solve("salet")  # kernels loaded, untimed
    solver = Solver(lists, table=table)
    c0 = time.process_time()
    totals = {w: solver.solve(w).total for w in lists.guesses}
    cpu = time.process_time() - c0
    best = min(totals, key=lambda w: (totals[w], w))
    print(f"{args.tree}: {len(totals)} openers x {len(game)} answers, cpu {cpu:.1f} s, "
          f"best {best} {totals[best]}, sum of totals {sum(totals.values())}")


if __name__ == "__main__":
    main()
