"""What a proof of the best opener costs: refute a stratified random sample of
openers under a cutoff and project the whole list (issue 52, item 4).

To prove an opener best, every other opener must be shown to cost at least as
much: `Solver.solve(w, cutoff=X)` ends with a proven lower bound >= X, or with the
exact value where the opener beats X. This script times that refutation on a
sample drawn as bench_class_costs.py draws its own (the guess list cut into equal
strata by the sum of squared class sizes, the same number from each), so a mean
over the sample estimates the mean over the list. Each opener gets a fresh Solver
(an empty memo, as a fresh rank) and at most --timeout seconds of wall; one cut
short is recorded as censored, and the projection then counts its time limit, so
the projected total is a lower bound where any was cut short (the report says how
many).

The bighidden game (every allowed word may be the answer; Selby's LANTS tree,
52 896 on the original lists, is the best tree known):

    nice -n 5 .venv/bin/python bench/bench_refute.py \\
        --answers solver/data/guesses.txt --guesses solver/data/guesses.txt \\
        --cutoff 52896 --timeout 600 --record bench/records/refute-bighidden-S.jsonl
    .venv/bin/python bench/bench_refute.py --record R --report   # the projection

One JSON line per opener is appended to --record as soon as it is done; a rerun
skips the openers already there (resumable), and a second process with --reverse
measures the same sample from its other end into the same record.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_class_costs import _code_version, stratified_sample  # noqa: E402

SEED = 52400001  # this script's default sample; no other bench/ script draws with it


def refute(solver, word: str, cutoff: int, timeout: float) -> dict:
    """One opener under `cutoff`, cut short after `timeout` seconds of wall."""
    from solver.search import Stopped

    timer = threading.Timer(timeout, solver.request_stop)
    c0, t0 = time.process_time(), time.perf_counter()
    timer.start()
    try:
        r = solver.solve(word, cutoff=cutoff)
        out = {"status": str(r.status), "total": r.total, "nodes": int(r.nodes),
               "censored": False}
    except Stopped:  # cut short by the time limit
        solver.clear_stop()
        out = {"status": "cut_short", "total": None, "nodes": None, "censored": True}
    finally:
        timer.cancel()
    out["cpu"] = round(time.process_time() - c0, 3)
    out["wall"] = round(time.perf_counter() - t0, 3)
    return out


def report(rows: list[dict], n_openers: int, boot: int = 2000, seed: int = 1) -> None:
    """The projection of the whole list's refutation CPU, with a bootstrap 95 %
    interval that resamples within each stratum (over the whole sample, as a plain
    random one, where a stratum holds a single opener: it has no spread of its own)."""
    cpu = np.array([r["cpu"] for r in rows])
    strata = sorted({r["stratum"] for r in rows})
    by = [cpu[[i for i, r in enumerate(rows) if r["stratum"] == s]] for s in strata]
    rng = np.random.default_rng(seed)

    def proj(parts) -> float:
        return float(np.mean([p.mean() for p in parts])) * n_openers / 3600

    within = min(len(p) for p in by) >= 2
    if within:
        sims = [proj([rng.choice(p, size=len(p)) for p in by]) for _ in range(boot)]
    else:
        sims = [proj([rng.choice(cpu, size=len(cpu))]) for _ in range(boot)]
    lo, hi = np.percentile(sims, [2.5, 97.5])
    cens = sum(r["censored"] for r in rows)
    print(f"{len(rows)} openers in {len(strata)} strata; {cens} cut short at their time "
          f"limit (counted at it: the projection is then a lower bound)")
    print(f"projection over {n_openers} openers: {proj(by):.1f} CPU-h "
          f"(95 % {lo:.1f}-{hi:.1f}, resampled "
          f"{'within strata' if within else 'over the whole sample'}); "
          f"mean {cpu.mean():.1f} s, median "
          f"{np.median(cpu):.1f} s, max {cpu.max():.1f} s")
    for s, p in zip(strata, by, strict=True):
        print(f"  stratum {s}: {len(p)} openers, mean {p.mean():.1f} s, max {p.max():.1f} s")
    kinds: dict[str, int] = {}
    for r in rows:
        kinds[r["status"]] = kinds.get(r["status"], 0) + 1
    print("  statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--answers", help="answer list file (default: the original lists)")
    ap.add_argument("--guesses", help="guess list file")
    ap.add_argument("--lists", default="original", help="built-in lists, without files")
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--max-guesses", type=int, default=6)
    ap.add_argument("--cutoff", type=int, required=False)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds of wall each")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--strata", type=int, default=10)
    ap.add_argument("--per-stratum", type=int, default=5)
    ap.add_argument("--openers", help="comma-separated openers instead of the sample")
    ap.add_argument("--record", required=True, help="JSON lines, appended (resumable)")
    ap.add_argument("--report", action="store_true", help="only print the projection")
    ap.add_argument("--reverse", action="store_true",
                    help="measure the sample from its end (a second process on the same "
                         "record meets the first in the middle)")
    args = ap.parse_args()

    from solver import Solver
    from solver.table import get_table
    from solver.words import WordLists

    if args.answers:
        lists = WordLists.load(args.answers, args.guesses or args.answers, quiet=True)
    else:
        lists = WordLists.load(quiet=True, lists=args.lists)
    rec = Path(args.record)
    done = [json.loads(x) for x in rec.read_text().splitlines()] if rec.exists() else []
    if args.report:
        report(done, len(lists.guesses))
        return
    if args.cutoff is None:
        ap.error("--cutoff is needed to measure")
    table, _ = get_table(lists, "numpy", None)
    if args.openers:
        sample = [(lists.guess_id(w.strip()), -1) for w in args.openers.split(",")]
    else:
        ids = stratified_sample(table, args.strata, args.per_stratum, args.seed)
        # stratified_sample lists round-robin over the strata
        sample = [(g, k % args.strata) for k, g in enumerate(ids)]
    if args.reverse:
        sample = sample[::-1]
    seen = {r["opener"] for r in done}
    print(f"# {platform.node()}, load {os.getloadavg()[0]:.1f}; {len(lists.answers)} answers "
          f"x {len(lists.guesses)} guesses, {args.mode}, cap {args.max_guesses}, cutoff "
          f"{args.cutoff}, timeout {args.timeout:g} s; {len(sample)} openers, "
          f"{len(seen)} done", flush=True)
    code = _code_version()
    for gid, stratum in sample:
        word = lists.guesses[gid]
        # another process may share the record (--reverse): read it again
        done = [json.loads(x) for x in rec.read_text().splitlines()] if rec.exists() else []
        if word in {r["opener"] for r in done}:
            continue
        solver = Solver(lists, mode=args.mode, max_guesses=args.max_guesses, table=table)
        out = {"opener": word, "index": gid, "stratum": stratum, "cutoff": args.cutoff,
               "timeout": args.timeout, **refute(solver, word, args.cutoff, args.timeout),
               "load": round(os.getloadavg()[0], 2), "code": code}
        with rec.open("a") as f:
            f.write(json.dumps(out) + "\n")
        print(json.dumps(out), flush=True)
    report([json.loads(x) for x in rec.read_text().splitlines()], len(lists.guesses))


if __name__ == "__main__":
    main()
