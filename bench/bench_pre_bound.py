"""The look-ahead bounds' sizes (engine.PRE_BOUND) tried side by side, in one process:
each random opener solved once per setting, the settings in turn, each in a fresh
Solver (an empty memo), so every setting sees the same load; CPU seconds per solve
(time.process_time) and every value compared.

A setting is SET/CLASS: from sets of SET answers up, a guess's open classes of CLASS
answers or more get the bound before any is searched; `never` turns it off. This is
how the sizes in engine.PRE_BOUND were chosen (BENCHMARKS.md, issue 34):

    python bench/bench_pre_bound.py --mode strict --seed 9203 --openers 30 \\
        never 700/10 300/10 150/10
    python bench/bench_pre_bound.py --mode easy --seed 8131 --openers 9 \\
        --min-grey 650 never 700/10 800/10

--min-grey N draws only openers whose all-grey class has N answers or more (the
bad openers, where the bounds matter).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver.search.engine import NEVER  # noqa: E402


def setting(text: str) -> tuple[int, int]:
    """'never' or SET/CLASS -> (set size, class size)."""
    if text == "never":
        return NEVER, NEVER
    try:
        a, b = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give SET/CLASS (e.g. 700/10) or "
                                         "never") from None
    return a, b


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("settings", nargs="+", type=setting, help="SET/CLASS or never")
    ap.add_argument("--mode", default="easy", choices=("easy", "hard", "strict"))
    ap.add_argument("--seed", type=int, required=True, help="draws the openers")
    ap.add_argument("--openers", type=int, default=16, help="how many (default 16)")
    ap.add_argument("--min-grey", type=int, default=0,
                    help="only openers whose all-grey class has this many answers")
    args = ap.parse_args()

    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    from solver import Solver
    from solver.search import layout as K
    from solver.table import get_table
    from solver.words import WordLists

    lists = WordLists.load(quiet=True)
    table, _ = get_table(lists, "numpy", None)
    grey = (table == 0).sum(axis=1)
    pool = [w for i, w in enumerate(lists.guesses) if grey[i] >= args.min_grey]
    openers = random.Random(args.seed).sample(pool, args.openers)
    print(f"# {platform.node()}, load {os.getloadavg()[0]:.1f}; mode {args.mode}, seed "
          f"{args.seed}, settings {' '.join(sys.argv[1:])}", flush=True)
    Solver(lists, mode=args.mode, max_guesses=6, table=table).solve("salet")  # warm
    totals = [0.0] * len(args.settings)
    differ = 0
    for word in openers:
        cells, values = [], set()
        for k, (pre_set, pre_class) in enumerate(args.settings):
            s = Solver(lists, mode=args.mode, max_guesses=6, table=table)
            s._ctx.params[K.P_PRE_SET] = pre_set
            s._ctx.params[K.P_PRE_CLASS] = pre_class
            t0 = time.process_time()
            r = s.solve(word)
            cpu = time.process_time() - t0
            totals[k] += cpu
            values.add((r.status, r.total))
            cells.append(f"{cpu:.2f}")
        differ += len(values) > 1
        print(f"{word} grey {grey[lists.guess_id(word)]}: " + " ".join(cells)
              + ("" if len(values) == 1 else f"  VALUES DIFFER {sorted(values, key=str)}"),
              flush=True)
    print("total " + " ".join(f"{t:.1f}" for t in totals) + f" s; load "
          f"{os.getloadavg()[0]:.1f}; {differ} opener(s) with differing values", flush=True)
    if differ:
        sys.exit(1)


if __name__ == "__main__":
    main()
