"""Per-opener and per-class CPU costs on a stratified random sample of openers: the
input of bench/sim_schedule.py (issue 23).

The sample: the guess list's openers are ranked by the sum of the squared sizes of
their first-feedback classes (the cheap cost predictor a run falls back on), cut
into --strata equal strata (deciles by default), and --per-stratum openers are
drawn from each with one seeded generator. Equal strata and equal draws make the
sample self-weighting: every opener of the list had the same chance, and a mean
over the sample estimates the mean over the list, with less variance than a plain
random sample because the strata follow the cost. The openers are measured in
round-robin order over the strata, so any prefix of the record file is a balanced
sample too (a run that did not finish still gives an unbiased projection).

Each opener gets a fresh Solver (an empty memo, as a fresh rank), and every
first-feedback class is valued alone with Solver.class_value, smallest first as
`solve` does, timed in CPU seconds (time.process_time). All classes are valued,
also after an infeasible one (`solve` stops there: the 'stop' field says where),
so the simulation can cost a split opener's wasted work too. The unsplit cost of
an opener is the sum of its classes up to and including 'stop'.

With --after-bundle, only the openers that a run bundles with others (openers
sharing their most expensive class, so given to one rank back to back: the second
finds that class in the memo the first left; solver/run/work.bundles_of) are
measured, each after the first other opener of its bundle was solved whole in the
same Solver, and the record notes that opener ('after', 'after_cpu') and the size of
the opener's bundle in runs of 16 to 4096 ranks ('bundle'). sim_schedule.py
--after-easy/--after-hard turns these into what a run pays.

One JSON line per opener is appended to --record as soon as it is done; a rerun
skips the openers already there (resumable; run it under nice):

    nice -n 15 .venv/bin/python bench/bench_class_costs.py --mode easy \\
        --record /tmp/costs-easy.jsonl
    nice -n 15 .venv/bin/python bench/bench_class_costs.py --mode hard \\
        --record /tmp/costs-hard.jsonl
    nice -n 15 .venv/bin/python bench/bench_class_costs.py --mode easy \\
        --after-bundle --record /tmp/after-easy.jsonl
    .venv/bin/python bench/bench_class_costs.py --list     # the sample, in order

Today's NYT lists (`--lists nyt`, 14 855 openers) cost minutes an opener in hard
mode, so their 500-opener samples are measured over several sessions into records
kept in the repository (bench/records/, resumed by the same command). Half of
today's hard openers are infeasible, and valuing their classes after the first
infeasible one cost minutes each (motte: 0.04 s to its stop, 230 s for all), so
those records stop there (--stop-at-infeasible), e.g.

    nice -n 10 .venv/bin/python bench/bench_class_costs.py --lists nyt --mode hard \\
        --seed 52112903 --stop-at-infeasible \\
        --record bench/records/costs-nyt-hard-52112903.jsonl
    .venv/bin/python bench/sim_schedule.py --lists nyt \\
        --hard bench/records/costs-nyt-hard-52112903.jsonl --ranks 16,1024
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver.feedback import all_green  # noqa: E402
from solver.run import fallback_estimate  # noqa: E402

SEED = 20262323  # issue 23's sample; no other bench/ script draws with it
STRATA = 10
PER_STRATUM = 50
# the run sizes whose bundles --after-bundle records (the first: whose partner it uses)
BUNDLE_RANKS = (16, 64, 256, 1024, 4096)


def strata_of(table: np.ndarray, strata: int) -> list[np.ndarray]:
    """The guess list cut into `strata` equal strata by predicted cost (the sum of
    squared class sizes), cheapest first, ties by index."""
    pred = np.array([fallback_estimate(table, i) for i in range(table.shape[0])])
    return np.array_split(np.lexsort((np.arange(len(pred)), pred)), strata)


def stratified_sample(table: np.ndarray, strata: int, per: int, seed: int) -> list[int]:
    """Guess indices: `per` from each of `strata` equal strata by predicted cost,
    listed round-robin over the strata."""
    rng = np.random.default_rng(seed)
    picks = []
    for part in strata_of(table, strata):
        picks.append([int(i) for i in rng.choice(part, size=per, replace=False)])
    return [picks[s][k] for k in range(per) for s in range(strata)]


def measure(solver, lists, gid: int, stop_early: bool = False) -> dict:
    """Every non-green class of opener gid valued alone, smallest first (`stop_early`:
    none after the first that is not exact, as `solve` stops there; each is recorded
    with status "skipped" and no CPU)."""
    word = lists.guesses[gid]
    row = solver.table[gid]
    pats, counts = np.unique(row, return_counts=True)
    # solve's order: largest first (ties by pattern), reversed
    cls = sorted(((int(c), int(p)) for p, c in zip(pats, counts, strict=True)
                  if p != all_green(lists.length)), key=lambda cp: -cp[0])[::-1]
    out, stop, total, depth, status = [], None, len(lists.answers), 1, "exact"
    for size, p in cls:
        if stop_early and stop is not None:
            out.append([p, size, "skipped", None, 0.0, 0])
            continue
        n0 = solver.stats["nodes"]
        c0 = time.process_time()
        st, tot, dep, _g = solver.class_value(word, p)
        cpu = time.process_time() - c0
        out.append([p, size, st, tot, round(cpu, 4), solver.stats["nodes"] - n0])
        if stop is None:
            if st == "exact":
                total += tot
                depth = max(depth, dep)
            else:
                stop, status, total, depth = len(out) - 1, st, None, None
    return {"opener": word, "index": gid, "status": status, "total": total, "depth": depth,
            "stop": stop, "cpu": round(sum(c[4] for c in out[: (len(out) if stop is None
                                                                  else stop + 1)]), 4),
            "cpu_all": round(sum(c[4] for c in out), 4), "classes": out}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--max-guesses", type=int, default=6)
    ap.add_argument("--lists", default="original", metavar="NAME",
                    help="built-in lists by name (wordle-dp lists; default original)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--strata", type=int, default=STRATA)
    ap.add_argument("--per-stratum", type=int, default=PER_STRATUM)
    ap.add_argument("--record", help="JSON lines file (appended; resumable)")
    ap.add_argument("--limit", type=int, help="stop after this many openers")
    ap.add_argument("--workers", type=int, default=1, help="processes measuring openers "
                    "side by side, each taking the next opener of the sample (default 1)")
    ap.add_argument("--stop-at-infeasible", action="store_true", help="value no class "
                    "after an opener's first one that is not exact (solve's cost, all an "
                    "unsplit run pays; a split run's waste on them is then not measured)")
    ap.add_argument("--list", action="store_true", help="print the sample and stop")
    ap.add_argument("--openers", help="comma-separated openers instead of the sample "
                    "(e.g. the known worst, qajaq)")
    ap.add_argument("--after-bundle", action="store_true", help="measure the openers "
                    "that a run bundles (openers sharing their most expensive class, "
                    "given to one rank back to back) after another of their bundle, in "
                    "the same Solver, as the run values all but the first; the others "
                    "are skipped (their fresh cost stands); records the bundle sizes at "
                    f"{', '.join(map(str, BUNDLE_RANKS))} ranks")
    args = ap.parse_args()
    if args.workers < 1:
        ap.error("--workers needs at least 1")

    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    from solver import Solver
    from solver.table import get_table
    from solver.words import WordLists

    lists = WordLists.load(quiet=True, lists=args.lists)
    table, _ = get_table(lists, "numpy", None)
    sample = stratified_sample(table, args.strata, args.per_stratum, args.seed)
    if args.openers:
        sample = [lists.guess_id(w.strip()) for w in args.openers.split(",") if w.strip()]
    if args.list:
        print(" ".join(lists.guesses[i] for i in sample))
        return
    done = set()
    if args.record and Path(args.record).exists():
        for line in Path(args.record).read_text().splitlines():
            try:
                done.add(json.loads(line)["opener"])
            except (ValueError, KeyError):
                pass  # a line cut by a kill: measured again
    todo = [i for i in sample if lists.guesses[i] not in done]
    bundles: dict[int, dict[int, list[int]]] = {}
    if args.after_bundle:
        bundles = run_bundles(table, args.mode, 3**lists.length)
        todo = [i for i in todo if i in bundles[BUNDLE_RANKS[0]]]
    todo = todo[: args.limit]
    print(f"# {platform.node()}, load {os.getloadavg()[0]:.1f}; lists {args.lists}, mode "
          f"{args.mode}, cap "
          f"{args.max_guesses}, seed {args.seed}, {args.strata}x{args.per_stratum}; "
          f"{len(done)} done, {len(todo)} to go", flush=True)
    # warm-up: numba's compiled code (or the compiled module) and the table, untimed
    warm = "salet" if "salet" in lists.guess_index else lists.guesses[0]
    Solver(lists, mode=args.mode, max_guesses=args.max_guesses, table=table).solve(warm)
    job = partial(_measure_one, lists, table, args.mode, args.max_guesses, bundles,
                  args.lists, args.stop_at_infeasible)
    if args.workers == 1:
        _report(map(job, todo), len(todo), args.record)
        return
    # forked after the warm-up: every worker has the table and numba's compiled code
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        _report(pool.imap_unordered(job, todo), len(todo), args.record)


def _code_version() -> str:
    """The checkout's commit (with "+dirty" for local edits), so that records measured
    by different code can be told apart in one file."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short=8", "HEAD"], cwd=root,
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "solver"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


CODE = _code_version()


def _report(results, n: int, record: str | None) -> None:
    """Print each opener's line and append its record as soon as it is done."""
    for k, r in enumerate(results):
        print(f"{k + 1}/{n} {r['opener']} {r['status']} {r['total']} cpu "
              f"{r['cpu']:.2f} s (all classes {r['cpu_all']:.2f} s)", flush=True)
        if record:
            with open(record, "a") as f:
                f.write(json.dumps(r) + "\n")


def run_bundles(table: np.ndarray, mode: str, n_p: int) -> dict[int, dict[int, list[int]]]:
    """ranks -> opener -> its bundle, as a run of the whole list on that many ranks
    (each solving) forms them: the cost model with the big classes' spreads, the
    openers it splits (--split auto) left out (solver.run.work.bundles_of)."""
    from solver.run.costs import CostModel, spreads_of
    from solver.run.split import plan
    from solver.run.work import bundles_of
    from solver.variant import Variant

    every = range(table.shape[0])
    variant = Variant(next(n for n in range(3, 11) if 3**n == n_p), mode)
    model = CostModel(variant, table, spreads_of(table, n_p, every))
    costs = {i: model.of_opener(i) for i in every}
    out = {}
    for ranks in BUNDLE_RANKS:
        split = plan(costs, ranks, "auto", set(), share=sum(costs.values()) / ranks)
        whole = sorted((i for i in costs if i not in split), key=lambda i: (-costs[i], i))
        out[ranks] = bundles_of(table, costs, whole, variant, ranks)
    return out


def _measure_one(lists, table: np.ndarray, mode: str, cap: int,
                 bundles: dict[int, dict[int, list[int]]], name: str, stop_early: bool,
                 gid: int) -> dict:
    """One opener in a fresh Solver (an empty memo, as a fresh rank), with its record's
    context fields; with `bundles` (--after-bundle) after the first other opener of its
    bundle at BUNDLE_RANKS[0] ranks, solved whole in that Solver."""
    from solver import Solver

    s = Solver(lists, mode=mode, max_guesses=cap, table=table)
    extra: dict = {}
    if bundles:
        partner = next(j for j in bundles[BUNDLE_RANKS[0]][gid] if j != gid)
        c0 = time.process_time()
        s.solve(lists.guesses[partner])
        extra = {"after": lists.guesses[partner],
                 "after_cpu": round(time.process_time() - c0, 4),
                 "bundle": {str(k): len(b[gid]) if gid in b else 1
                            for k, b in bundles.items()}}
    r = measure(s, lists, gid, stop_early)
    r.update(extra)
    r.update(lists=name, mode=mode, max_guesses=cap, predicted=fallback_estimate(table, gid),
             load=round(os.getloadavg()[0], 2), at=round(time.time()), code=CODE)
    return r


if __name__ == "__main__":
    main()
