"""A big first-feedback class valued in parts (issue 23): what each part costs, so
that bench/sim_schedule.py can place them and a run can size them.

For each opener, its biggest class is valued three ways, each in a fresh Solver
(an empty memo, as a fresh rank): whole (Solver.class_value; --no-whole skips it),
the quick bound (Solver.class_part with parts = -QUICK: the best of the search's
first candidate second guesses) and every one of --parts parts against that bound.
CPU seconds (time.process_time) of each go to --record as one JSON line per opener,
with the values, which must agree (the script stops with an error if not):

    nice -n 15 .venv/bin/python bench/bench_parts.py --openers qajaq --parts 16 \\
        --record checkpoints/bench/parts-easy.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--openers", required=True, help="comma-separated openers")
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--max-guesses", type=int, default=6)
    ap.add_argument("--parts", type=int, default=16)
    ap.add_argument("--quick", type=int, default=3, help="candidates of the quick bound")
    ap.add_argument("--no-whole", action="store_true", help="skip the whole class")
    ap.add_argument("--record", help="JSON lines file (appended)")
    args = ap.parse_args()

    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    from solver import Solver
    from solver.run.split import least_part
    from solver.table import get_table
    from solver.words import WordLists

    lists = WordLists.load(quiet=True)
    table, _ = get_table(lists, "numpy", None)

    def fresh():
        return Solver(lists, mode=args.mode, max_guesses=args.max_guesses, table=table)

    def timed(f):
        c0 = time.process_time()
        out = f()
        return out, round(time.process_time() - c0, 3)

    print(f"# {platform.node()}, load {os.getloadavg()[0]:.1f}; mode {args.mode}, cap "
          f"{args.max_guesses}, {args.parts} parts, quick {args.quick}", flush=True)
    fresh().solve("salet")  # warm the kernels
    for word in (w.strip() for w in args.openers.split(",") if w.strip()):
        row = table[lists.guess_id(word)]
        pats, counts = np.unique(row, return_counts=True)
        p = int(pats[np.argmax(counts)])
        r: dict = {"opener": word, "pattern": p, "size": int(counts.max()),
                   "mode": args.mode, "max_guesses": args.max_guesses,
                   "parts": args.parts, "quick": args.quick}
        if not args.no_whole:
            (st, total, _d, g), r["whole_cpu"] = timed(
                lambda w=word, p=p: fresh().class_value(w, p))
            r["whole"] = [st, total, g]
            print(f"{word} class {p} ({r['size']}): whole {st} {total} {g} "
                  f"{r['whole_cpu']} s", flush=True)
        quick, r["quick_cpu"] = timed(lambda w=word, p=p: fresh().class_part(w, p, 0, -args.quick))
        r["quick_value"] = None if quick is None else list(quick)
        print(f"  quick bound {quick} {r['quick_cpu']} s", flush=True)
        found, cpus = [] if quick is None else [quick], []
        # with no quick bound the parts go out without one, as a run sends them
        below = None if quick is None else quick[0]
        for j in range(args.parts):
            f, c = timed(lambda j=j, w=word, p=p, q=below: fresh().class_part(
                w, p, j, args.parts, below=q))
            cpus.append(c)
            if f is not None:
                found.append(f)
            print(f"  part {j}/{args.parts}: {f} {c} s", flush=True)
        best = least_part(found)
        r["part_cpu"] = cpus
        r["value"] = None if best is None else list(best)
        if best is not None and not args.no_whole and r["whole"][1] != best[0]:
            sys.exit(f"bench_parts: {word}: parts give {best[0]}, whole {r['whole'][1]}")
        r.update(load=round(os.getloadavg()[0], 2), at=round(time.time()))
        if cpus:
            print(f"  parts: sum {sum(cpus):.1f} s, max {max(cpus):.1f} s, value {best}",
                  flush=True)
        if args.record:
            with open(args.record, "a") as fh:
                fh.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
