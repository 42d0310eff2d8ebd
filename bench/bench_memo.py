"""Memo reuse across openers on one rank (issue 23, goal 2), in one process.

Part A, memo size: the same openers solved in the same order by solvers that
live through the whole sequence (as a run's rank does) with memos of 75 MB, 1 GB
and 4 GB (--sizes; the engine rounds each down to a power of two of 36-byte
entries: 75 MB -> 72 MiB, 1 GB -> 576 MiB, 4 GB -> 2.25 GiB), beside a fresh
75 MB solver per opener (no reuse). The four are interleaved opener by opener,
so all see the same load. Reported: CPU per configuration, memo hits, stores and
evictions, and peak RSS growth.

Part B, affinity: pairs of openers whose most expensive first-feedback class is
the same set of answers (easy mode: the same letters, so the same all-grey class,
or the like), solved by one long-lived solver in two orders: each pair back to
back ('together', what handing such openers to one rank does) or every first
member before every second member ('apart': the same rank, later), beside each
second member solved by a fresh solver ('fresh': another rank, what a run without
affinity mostly does). Reported: the CPU of the second members in each case.

The openers of part A are the first --size of bench/bench_class_costs.py's
stratified sample (seed 20262323), so their fresh cost is also on record there;
the pairs of part B are drawn with --seed from all pairs whose shared class is
predicted above --min-shared seconds.

    nice -n 15 .venv/bin/python bench/bench_memo.py --record /tmp/memo.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_class_costs import SEED as SAMPLE_SEED  # noqa: E402
from bench_class_costs import stratified_sample  # noqa: E402

from solver.run.split import class_cost, class_sizes  # noqa: E402

PAIR_SEED = 20262324


def _solve(s, word: str) -> dict:
    st0 = s.stats
    c0 = time.process_time()
    r = s.solve(word)
    cpu = time.process_time() - c0
    st1 = s.stats
    return {"opener": word, "total": r.total, "status": r.status, "cpu": round(cpu, 4),
            **{k: st1[k] - st0[k] for k in ("memo_hits", "memo_stores", "memo_evictions")}}


def shared_pairs(table: np.ndarray, mode: str, min_cost: float, n_patterns: int
                 ) -> list[tuple[int, int, float]]:
    """(a, b, predicted seconds of the class they share) for openers whose most
    expensive class is the same answer set (a hash of its members)."""
    rng = np.random.default_rng(1)
    z = rng.integers(0, 2**63 - 1, size=table.shape[1], dtype=np.int64).astype(np.uint64)
    by_key: dict[tuple[int, int], list[int]] = {}
    cost: dict[tuple[int, int], float] = {}
    for g in range(table.shape[0]):
        row = table[g]
        cnt = class_sizes(row, n_patterns)
        p = int(np.argmax(cnt))
        c = float(class_cost(cnt[p], mode))
        if c < min_cost:
            continue
        k = (int(z[row == p].sum(dtype=np.uint64)), int(cnt[p]))
        by_key.setdefault(k, []).append(g)
        cost[k] = c
    return [(v[0], v[1], cost[k]) for k, v in by_key.items() if len(v) >= 2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--size", type=int, default=30, help="openers in part A (30)")
    ap.add_argument("--sizes", default="75,1024,4096", help="memo MB of part A")
    ap.add_argument("--pairs", type=int, default=10, help="pairs in part B (10)")
    ap.add_argument("--pair-sizes", default="75,1024", help="memo MB of part B")
    ap.add_argument("--min-shared", type=float, default=1.0,
                    help="least predicted CPU seconds of the shared class (1.0)")
    ap.add_argument("--seed", type=int, default=PAIR_SEED)
    ap.add_argument("--parts", default="A,B")
    ap.add_argument("--record", help="JSON lines file (appended)")
    args = ap.parse_args()

    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    from solver import Solver
    from solver.search.engine import memo_entries_for
    from solver.table import get_table
    from solver.words import WordLists

    lists = WordLists.load(quiet=True)
    table, _ = get_table(lists, "numpy", None)
    rec = open(args.record, "a") if args.record else None  # noqa: SIM115

    def out(row: dict) -> None:
        row.update(mode=args.mode, load=round(os.getloadavg()[0], 2), at=round(time.time()))
        print(json.dumps(row), flush=True)
        if rec:
            rec.write(json.dumps(row) + "\n")
            rec.flush()

    def solver(mb: float) -> Solver:
        return Solver(lists, mode=args.mode, table=table, memo_entries=memo_entries_for(mb))

    print(f"# {platform.node()}, load {os.getloadavg()[0]:.1f}; mode {args.mode}", flush=True)
    solver(75).solve("salet")  # numba's cache warm
    if "A" in args.parts:
        words = [lists.guesses[i] for i in stratified_sample(table, 10, 50, SAMPLE_SEED)]
        words = words[: args.size]
        sizes = [float(x) for x in args.sizes.split(",")]
        warm = {mb: solver(mb) for mb in sizes}
        for k, w in enumerate(words):
            fresh = _solve(solver(75), w)
            out({"part": "A", "k": k, "memo_mb": 75, "fresh": True, **fresh})
            for mb, s in warm.items():
                out({"part": "A", "k": k, "memo_mb": mb, "fresh": False, **_solve(s, w),
                     "rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                                     / 1024, 1)})
    if "B" in args.parts:
        pairs = shared_pairs(table, args.mode, args.min_shared, 3**lists.length)
        print(f"# {len(pairs)} pairs share a most expensive class predicted above "
              f"{args.min_shared} s", flush=True)
        pick = random.Random(args.seed).sample(pairs, min(args.pairs, len(pairs)))
        together = [x for a, b, _c in pick for x in (a, b)]
        apart = [a for a, _b, _c in pick] + [b for _a, b, _c in pick]
        for _a, b, _c in pick:  # the second members alone: no reuse (another rank)
            out({"part": "B", "order": "fresh", "memo_mb": 75, "second": True,
                 **_solve(solver(75), lists.guesses[b])})
        for mb in (float(x) for x in args.pair_sizes.split(",")):
            for name, order in (("together", together), ("apart", apart)):
                s = solver(mb)
                for k, g in enumerate(order):
                    second = any(g == b for _a, b, _c in pick)
                    out({"part": "B", "order": name, "memo_mb": mb, "k": k,
                         "second": second, **_solve(s, lists.guesses[g])})
    if rec:
        rec.close()


if __name__ == "__main__":
    main()
