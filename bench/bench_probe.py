"""Does a class's quick bound foretell its cost? (issue 23, goal 3)

A run sizes a class's parts by its predicted cost (split.class_cost, from the
class's size alone), and the heaviest hard classes ran up to 47 times that
prediction (deedy's class 3: 490 answers, 3.7 s predicted, 174 s measured). The
quick bound (Solver.class_part with parts = -QUICK) is the first thing a class
valued in parts computes anyway; this script times it on the classes of a
bench/bench_class_costs.py record whose measured or predicted cost is above
--min seconds, each in a fresh Solver (as a fresh rank), and appends one JSON line
per class to --record (resumable), so that the ratio of the class's measured cost
to its quick bound's can be compared with the ratio to its prediction:

    nice -n 10 .venv/bin/python bench/bench_probe.py --mode hard \\
        --costs checkpoints/bench/costs-hard.jsonl \\
        --record checkpoints/bench/probe-hard.jsonl
    .venv/bin/python bench/bench_probe.py --mode hard --costs ... --record ... --report
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

from solver.run.split import QUICK, class_cost  # noqa: E402
from solver.run.worker import QUICK_RETRY  # noqa: E402


def classes(costs: Path, mode: str, least: float) -> list[tuple[str, int, int, float]]:
    """(opener, pattern, size, measured CPU) of the record's classes measured or
    predicted above `least` seconds, the costliest first."""
    out = []
    for line in costs.read_text().splitlines():
        r = json.loads(line)
        for p, size, _st, _tot, cpu, _n in r["classes"]:
            if cpu > least or float(class_cost(size, mode)) > least:
                out.append((r["opener"], int(p), int(size), float(cpu)))
    return sorted(out, key=lambda c: -c[3])


def report(record: Path, costs: Path, mode: str, fit_openers: int) -> None:
    """Log error (measured over predicted) of the three models on the classes of
    SPREAD_MIN+ answers whose quick bound found a strategy: on the record's first
    `fit_openers` openers (what the constants were fitted on) and on the rest
    (openers measured after the fit: a holdout)."""
    from solver.run.costs import SPREAD_MIN, cost_after_quick, spreads_of
    from solver.table import get_table
    from solver.words import WordLists

    lists = WordLists.load(quiet=True)
    table, _ = get_table(lists, "numpy", None)
    rows = [json.loads(line) for line in costs.read_text().splitlines()]
    quick = {(r["opener"], r["pattern"]): r["quick"]
             for r in map(json.loads, record.read_text().splitlines())}
    for name, part in ((f"fit (first {fit_openers})", rows[:fit_openers]),
                       (f"holdout (last {len(rows) - fit_openers})", rows[fit_openers:])):
        ids = [lists.guess_id(r["opener"]) for r in part]
        spreads = spreads_of(table, 243, ids)
        err: dict[str, list[float]] = {"size": [], "spread": [], "quick bound": []}
        for r, g in zip(part, ids, strict=True):
            for p, size, _st, _tot, cpu, _n in r["classes"]:
                q = quick.get((r["opener"], p))
                if size < SPREAD_MIN or cpu <= 0 or not q:
                    continue
                k = spreads.get(g, {}).get(p)
                err["size"].append(np.log(cpu / float(class_cost(size, mode))))
                err["spread"].append(np.log(cpu / float(class_cost(size, mode, k))))
                err["quick bound"].append(np.log(cpu / cost_after_quick(size, q[0], mode)))
        print(f"{name}: {len(err['size'])} classes")
        for k, v in err.items() if err["size"] else ():
            e = np.array(v)
            print(f"  {k}: log error mean {e.mean():+.2f}, rms {np.sqrt((e**2).mean()):.2f}; "
                  f"worst {np.exp(e.max()):.1f}x under, {np.exp(-e.min()):.1f}x over")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--max-guesses", type=int, default=6)
    ap.add_argument("--costs", type=Path, help="a bench_class_costs.py record")
    ap.add_argument("--min", type=float, default=5.0, help="seconds (default 5)")
    ap.add_argument("--record", type=Path, required=True, help="JSON lines (appended)")
    ap.add_argument("--report", action="store_true", help="the models' errors and stop")
    ap.add_argument("--fit-openers", type=int, default=384,
                    help="openers of --costs the constants were fitted on (384 hard)")
    args = ap.parse_args()
    if args.report:
        report(args.record, args.costs, args.mode, args.fit_openers)
        return

    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    from solver import Solver
    from solver.table import get_table
    from solver.words import WordLists

    lists = WordLists.load(quiet=True)
    table, _ = get_table(lists, "numpy", None)
    done = set()
    if args.record.exists():
        for line in args.record.read_text().splitlines():
            try:
                r = json.loads(line)
                done.add((r["opener"], r["pattern"]))
            except (ValueError, KeyError):
                pass
    todo = [c for c in classes(args.costs, args.mode, args.min) if c[:2] not in done]
    print(f"# {platform.node()}, load {os.getloadavg()[0]:.1f}; mode {args.mode}, cap "
          f"{args.max_guesses}, quick {QUICK}; {len(done)} done, {len(todo)} to go",
          flush=True)
    Solver(lists, mode=args.mode, max_guesses=args.max_guesses, table=table).solve("salet")
    for k, (word, p, size, cpu) in enumerate(todo):
        s = Solver(lists, mode=args.mode, max_guesses=args.max_guesses, table=table)
        c0 = time.process_time()
        got = s.class_part(word, p, 0, -QUICK)
        if got is None:  # as the run's worker does: more candidates (QUICK_RETRY)
            got = s.class_part(word, p, 0, -QUICK * QUICK_RETRY)
        q = time.process_time() - c0
        r = {"opener": word, "pattern": p, "size": size, "cpu": cpu,
             "quick_cpu": round(q, 4), "quick": None if got is None else list(got),
             "mode": args.mode, "max_guesses": args.max_guesses,
             "load": round(os.getloadavg()[0], 2), "at": round(time.time())}
        print(f"{k + 1}/{len(todo)} {word} class {p} ({size}): class {cpu:.1f} s, "
              f"quick {q:.2f} s", flush=True)
        with open(args.record, "a") as f:
            f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
