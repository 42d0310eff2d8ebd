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
    .venv/bin/python bench/bench_probe.py --mode hard --record ... --report
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


def report(record: Path, mode: str) -> None:
    rows = [json.loads(line) for line in record.read_text().splitlines()]
    cpu = np.array([r["cpu"] for r in rows])
    pred = np.array([float(class_cost(r["size"], mode)) for r in rows])
    quick = np.array([r["quick_cpu"] for r in rows])
    for name, est in (("size prediction", pred), ("quick bound", quick)):
        ratio = cpu / np.maximum(est, 1e-4)
        # the scale that makes the sums agree, then the spread around it
        k = cpu.sum() / est.sum()
        spread = np.log10(cpu / np.maximum(k * est, 1e-4))
        print(f"{name}: {len(rows)} classes, scale {k:.3g}, measured/(scale x est) "
              f"median {10**np.median(spread):.2f}, 10-90 % "
              f"{10**np.percentile(spread, 10):.2f}-{10**np.percentile(spread, 90):.2f}, "
              f"worst {10**spread.max():.2f} ({rows[int(np.argmax(spread))]['opener']}), "
              f"ratio median {np.median(ratio):.3g}")
    print(f"quick bounds {quick.sum():.1f} s of the classes' {cpu.sum():.1f} s "
          f"({100 * quick.sum() / cpu.sum():.1f} %)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--max-guesses", type=int, default=6)
    ap.add_argument("--costs", type=Path, help="a bench_class_costs.py record")
    ap.add_argument("--min", type=float, default=5.0, help="seconds (default 5)")
    ap.add_argument("--record", type=Path, required=True, help="JSON lines (appended)")
    ap.add_argument("--report", action="store_true", help="summarise --record and stop")
    args = ap.parse_args()
    if args.report:
        report(args.record, args.mode)
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
