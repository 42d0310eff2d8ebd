"""Predict the finish time of a whole-table run (issue 23, goal 3): a simulation of
`wordle-dp run`'s scheduling, fed with the per-opener and per-class CPU costs
that bench/bench_class_costs.py measured on its stratified sample.

The population: the sample stands for the whole guess list. The list is cut into
the same strata by predicted cost as the sample was drawn from (bench_class_costs),
and every opener of a stratum is played by one of the stratum's measured openers
(each measured opener about 26 times for 500 of 12972). A sample cannot show the
very worst openers of the list (one in 12972), which alone can set the finish
time on many ranks: openers measured on purpose (--known-easy/--known-hard, e.g.
qajaq) are put in once each, in place of a stand-in. Bootstrap: the measured
openers of each stratum are drawn again with replacement (--boot times), the
population rebuilt and the simulation run again; the interval is the 2.5-97.5 %
range.

The simulated run is the code's own schedule: N ranks, every one solving (rank 0
coordinates in a thread beside its own solving, as the run does since issue 31:
its measured share of the CPU was 0.3 %, so it is not charged to rank 0's units;
figures of earlier rounds were simulated with N-1 solving ranks). Units go out most
expensive first by the same predicted cost
(solver/run/costs.py; --model spread, the run's, or size alone). Without
splitting every opener is one unit of its measured cost (its classes up to the
first infeasible one, as `solve` stops there). With --split auto, openers above
SPLIT_SHARE of a rank's fair share go out as classes, planned by split.plan and make_units: the head
unit first (stopping at an infeasible class), the big classes once it is back
(hard mode; at once in easy mode, coordinator.gate_heads);
a class that settles the opener drops its queued siblings (those in flight run to
their end). A class in parts gets its quick bound first; with --probe-easy /
--probe-hard (bench/bench_probe.py records) the bound a run would find, whose
total sizes the parts again as the run does (without, nothing is resized). One
part costs the class whole; n parts the measured inflation (--parts-record)
scaled linearly in n. Each rank pays --startup seconds first. Rank 0 answers one message at
a time and spends --coord-ms per result in it (bench/bench_coordinator.py
measures it), so a worker waits for it when it is busy. Memo reuse across openers:
only within the run's bundles (openers sharing their most expensive class, given to
one rank back to back; split.affinity), and only with --after-easy/--after-hard
(bench_class_costs.py --after-bundle records), as each member's expected cost, each
still its own unit; elsewhere each cost is a fresh solver's. Not modelled: a job's
queueing.

Efficiency = the sample's serial CPU (the sum of whole-opener costs) / (N x
makespan): what fraction of the N cores' time went into solving.

    .venv/bin/python bench/sim_schedule.py --easy /tmp/costs-easy.jsonl \\
        --hard /tmp/costs-hard.jsonl --known-easy /tmp/costs-easy-known.jsonl \\
        --probe-easy /tmp/probe-easy.jsonl --probe-hard /tmp/probe-hard.jsonl \\
        --parts-record /tmp/parts-easy.jsonl --boot 20
"""

from __future__ import annotations

import argparse
import copy
import heapq
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import solver.run.split as split_rules  # noqa: E402
from solver.run.costs import CostModel, class_cost, spreads_of  # noqa: E402
from solver.run.split import (  # noqa: E402
    PART_SHARE,
    SPLIT_SHARE,
    ClassResult,
    PartResult,
    decisive,
    plan,
)
from solver.run.units import Part, Whole  # noqa: E402
from solver.run.work import Work, gate_heads  # noqa: E402
from solver.store import FAILED, STATUS_CODES  # noqa: E402
from solver.variant import Variant  # noqa: E402

RANKS = (16, 64, 256, 1024, 4096)


class Opener:
    """One measured opener: whole cost, and its classes in solve's order."""

    def __init__(self, rec: dict, mode: str):
        self.word = rec["opener"]
        self.status = rec["status"]
        self.whole = float(rec["cpu"])
        # [pattern, size, status, total, cpu, nodes], smallest first (solve's order)
        self.classes = [(int(c[0]), int(c[1]), c[2], float(c[4])) for c in rec["classes"]]
        self.mode = mode
        self.spreads: dict[int, int] = {}  # pattern -> spread (costs.py), where known
        # pattern -> the quick bound's total (None: it found nothing), where measured
        self.quick: dict[int, int | None] = {}
        self.predict()
        self.stratum = -1
        # --after-*: its cost after another opener of its bundle (bench_class_costs
        # --after-bundle): whole, pattern -> cpu, and ranks -> its bundle's size
        self.after: dict | None = None
        self._at: dict[int, Opener] = {}  # ranks -> at(ranks), made once

    def at(self, ranks: int) -> Opener:
        """This opener as a run on `ranks` ranks pays for it on average: a bundle of k
        openers sharing their most expensive class goes to one rank back to back, the
        first pays it fresh and the k - 1 others after it (measured), so each member's
        expected cost is (fresh + (k - 1) after) / k. Itself where not measured so or
        not bundled there. The bundle sizes come from the nearest run size recorded."""
        if not self.after:
            return self
        if ranks not in self._at:
            sizes = self.after["bundle"]
            k = sizes[min(sizes, key=lambda r: (abs(math.log(r / ranks)), r))]
            o = self
            if k > 1:
                o = copy.copy(self)
                o.after, o._at = None, {}  # a cost already, not to be bundled again
                warm = self.after["classes"]
                o.whole = (self.whole + (k - 1) * self.after["whole"]) / k
                o.classes = [(p, sz, st, (c + (k - 1) * warm[p]) / k)
                             for p, sz, st, c in self.classes]
            self._at[ranks] = o
        return self._at[ranks]

    def predict(self) -> None:
        self.predicted = float(sum(class_cost(s, self.mode, self.spreads.get(p))
                                   for p, s, _st, _c in self.classes))


def add_quick(openers: list[Opener], path: str) -> None:
    """The quick bounds bench/bench_probe.py measured: what a run sees when one
    comes back (without a record, a quick bound finds 'something', which sizes
    nothing again)."""
    got = {}
    for line in Path(path).read_text().splitlines():
        r = json.loads(line)
        got[(r["opener"], int(r["pattern"]))] = None if r["quick"] is None else int(
            r["quick"][0])
    for o in openers:
        o.quick = {p: got[(o.word, p)] for p, *_x in o.classes if (o.word, p) in got}


def add_spreads(openers: list[Opener], name: str = "original") -> None:
    """The spreads of the openers' big classes, as a run computes them, and the
    predictions made with them (--model spread)."""
    from solver.table import get_table
    from solver.words import WordLists

    lists = WordLists.load(quiet=True, lists=name)
    table, _ = get_table(lists, "numpy", None)
    got = spreads_of(table, 3**lists.length, sorted({lists.guess_id(o.word) for o in openers}))
    for o in openers:
        o.spreads = got.get(lists.guess_id(o.word), {})
        o.predict()


def add_after(openers: list[Opener], path: str) -> int:
    """The costs bench_class_costs --after-bundle measured (each opener after another
    of its bundle, in one Solver); how many of `openers` it has."""
    got = {}
    for line in Path(path).read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            got[r["opener"]] = {"whole": float(r["cpu"]),
                                "classes": {int(c[0]): float(c[4]) for c in r["classes"]},
                                "bundle": {int(k): int(v) for k, v in r["bundle"].items()}}
    n = 0
    for o in openers:
        if o.word in got:
            o.after = got[o.word]
            n += 1
    return n


def load(path: str, mode: str) -> list[Opener]:
    rows = [json.loads(x) for x in Path(path).read_text().splitlines() if x.strip()]
    return [Opener(r, mode) for r in rows if r.get("mode", mode) == mode]


def strata_of(openers: list[Opener], strata: int, name: str = "original") -> list[int]:
    """Set each measured opener's stratum (bench_class_costs' cut of the guess list);
    the strata's sizes."""
    from bench_class_costs import strata_of as cut

    from solver.table import get_table
    from solver.words import WordLists

    lists = WordLists.load(quiet=True, lists=name)
    table, _ = get_table(lists, "numpy", None)
    parts = cut(table, strata)
    where = {lists.guesses[int(i)]: h for h, part in enumerate(parts) for i in part}
    for o in openers:
        o.stratum = where[o.word]
    return [len(p) for p in parts]


def population(openers: list[Opener], sizes: list[int], rng: np.random.Generator | None,
               known: list[Opener] = ()) -> list[Opener]:
    """The whole list played by measured openers, stratum by stratum (rng: a
    bootstrap draw within each stratum; None: the sample as it is). `known`:
    openers measured on purpose (the known worst), each in the population once,
    in place of one stand-in of its stratum."""
    out = []
    for h, n_h in enumerate(sizes):
        members = [o for o in openers if o.stratum == h]
        mine = [o for o in known if o.stratum == h]
        if not members:
            out.extend(mine)
            continue
        if rng is not None:
            members = [members[i] for i in rng.integers(0, len(members), len(members))]
        k, extra = divmod(n_h - len(mine), len(members))
        for j, o in enumerate(members):
            out.extend([o] * (k + (1 if j < extra else 0)))
        out.extend(mine)
    return out


class _Rows:
    """Stands in for the pattern table: population index -> a row with the
    opener's class sizes (all Work reads of it)."""

    def __init__(self, pop: list[Opener]):
        self.pop = pop

    def __getitem__(self, i: int) -> np.ndarray:
        o = self.pop[i]
        return np.repeat(np.array([p for p, *_x in o.classes], np.uint8),
                         [s for _p, s, *_x in o.classes])


class PartsModel:
    """What valuing one class in parts costs (run --parts; bench/bench_parts.py
    measures it on a big class): the quick bound, `quick` of the class's whole cost;
    the parts together `inflation` times it (each part repeats the root's scans and
    loses the memo of the others' second guesses), split evenly."""

    def __init__(self, path: str | None, measured: list[Opener] = ()):
        """`measured`: openers whose classes bench_class_costs timed, for the whole
        class's cost of records made with --no-whole."""
        self.quick, self.inflation, self.source = 0.005, 1.8, "default"
        self.measured_parts = 16
        if path:
            rows = [json.loads(x) for x in Path(path).read_text().splitlines() if x.strip()]
            for r in rows:
                for o in measured:
                    if "whole_cpu" not in r and o.word == r["opener"]:
                        r["whole_cpu"] = next((c for p, _s, _st, c in o.classes
                                               if p == r["pattern"]), None)
            rows = [r for r in rows if r.get("part_cpu") and r.get("whole_cpu")]
            if rows:
                whole = sum(r["whole_cpu"] for r in rows)
                self.quick = sum(r["quick_cpu"] for r in rows) / whole
                self.inflation = sum(sum(r["part_cpu"]) for r in rows) / whole
                self.measured_parts = round(np.mean([r["parts"] for r in rows]))
                self.source = ", ".join(f"{r['opener']} ({r['parts']} parts)" for r in rows)

    def cost(self, n: int) -> float:
        """The parts' total over the whole class's cost, for n parts: 1 for one part
        (the class searched once, against its quick bound), the measured inflation
        at the measured number of parts, linear in n between (an assumption: only
        16 parts were measured)."""
        k = max(1, self.measured_parts - 1)
        return 1.0 + (self.inflation - 1.0) * (n - 1) / k


def simulate(pop: list[Opener], ranks: int, mode: str, split: str, coord: float,
             startup: float, share: float = SPLIT_SHARE, parts: int | None = 0,
             parts_model: PartsModel | None = None) -> dict:
    """Makespan of one run of `pop` on `ranks` ranks, scheduled by the run's own
    Work queue (solver/run/coordinator.py; see the module docstring). `parts`: run
    --parts (None auto, 0 never), costed by `parts_model`."""
    workers = ranks  # rank 0 solves too (run/loop.py's worker thread)
    costs = {i: o.predicted for i, o in enumerate(pop)}
    chosen = plan(costs, workers, split, set(), share) if ranks > 1 else set()
    # the samples are of the default 5-letter lists
    rows = _Rows(pop)
    variant = Variant(5, mode)
    model = CostModel(variant, rows, {i: o.spreads for i, o in enumerate(pop) if o.spreads})
    work = Work(variant, 0, rows, parts, sum(costs.values()) / workers, workers,
                costs=model, gate=gate_heads(variant))
    pm = parts_model or PartsModel(None)
    n_parts = 0
    for i in sorted(costs, key=lambda i: (-costs[i], i)):
        if i in chosen:
            work.add_split(i, {}, costs[i])
        else:
            work.push(Whole(i), costs[i])
    cls = {}  # population index -> pattern -> (status code, cpu)

    def classes(i: int) -> dict:
        if i not in cls:
            # "skipped" (bench_class_costs --stop-at-infeasible): not valued, so a
            # split run's work on it is not counted (as if exact at no cost)
            cls[i] = {p: (FAILED if st == "not_found" else STATUS_CODES[
                "exact" if st == "skipped" else st], c) for p, _s, st, c in pop[i].classes}
        return cls[i]

    def cost_of(unit) -> tuple[float, list]:
        """(busy seconds, the class or part results sent) of one unit."""
        nonlocal n_parts
        i = unit.index
        if isinstance(unit, Whole):
            return pop[i].whole, []
        if isinstance(unit, Part):  # a part of a class (or its quick bound)
            n_parts += 1
            pats = (unit.pattern,)
            code, c = classes(i)[pats[0]]
            part, n = unit.part, unit.parts
            found = None if code != STATUS_CODES["exact"] else (1, 1, 0, False)
            if pats[0] in pop[i].quick:  # what the quick bound found, measured
                t = pop[i].quick[pats[0]]
                found = None if t is None or found is None else (t, 1, 0, False)
            if n < 0:  # the quick bound: finds nothing on a class that is not exact
                return c * pm.quick, [PartResult(i, pats[0], part, n, found)]
            # a part finds the value where the quick bound found nothing (one of them)
            got = (1, 1, 0, False) if (code == STATUS_CODES["exact"] and part == 0
                                       and pop[i].quick.get(pats[0], 0) is None) else None
            return c * pm.cost(n) / n, [PartResult(i, pats[0], part, n, got)]
        t, out = 0.0, []
        for p in unit.patterns:
            code, c = classes(i)[p]
            t += c
            out.append(ClassResult(i, p, code, 1, 1, 0, c))
            if decisive(out[-1]):
                break  # the worker stops the unit there
        return t, out

    # events: a worker's message reaches rank 0: (time, seq, worker, results)
    events: list[tuple[float, int, int, list]] = [(startup, w, w, []) for w in range(workers)]
    heapq.heapify(events)
    eseq = workers
    coord_free = 0.0
    idle: list[int] = []
    busy = end = largest = 0.0
    while events:
        t, _s, w, results = heapq.heappop(events)
        coord_free = max(t, coord_free) + coord * max(1, len(results))  # rank 0's turn
        end = max(end, t)
        for r in results:
            if isinstance(r, PartResult):
                r, _err = work.on_part(r, None)
                if r is None:
                    continue
            work.on_class(r, None)
        idle.append(w)
        while idle and len(work):
            cost, res = cost_of(work.pop()[0])  # no bundles here
            busy += cost
            largest = max(largest, cost)
            heapq.heappush(events, (coord_free + cost, eseq, idle.pop(0), res))
            eseq += 1
    serial = sum(o.whole for o in pop)
    return {"makespan": end, "serial": serial, "busy": busy,
            "efficiency": serial / (ranks * end) if end > 0 else math.nan,
            "split": len(chosen), "largest": largest, "parts": n_parts}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--easy", help="bench_class_costs.py records, easy mode")
    ap.add_argument("--hard", help="bench_class_costs.py records, hard mode")
    ap.add_argument("--known-easy", help="records of openers measured on purpose (the "
                    "known worst), each in the table once")
    ap.add_argument("--known-hard", help="the same, hard mode")
    ap.add_argument("--ranks", default=",".join(map(str, RANKS)))
    ap.add_argument("--coord-ms", type=float, default=0.25,
                    help="rank 0's time per result, ms (bench_coordinator.py)")
    ap.add_argument("--startup", type=float, default=1.0, help="seconds per rank first")
    ap.add_argument("--boot", type=int, default=100, help="bootstrap draws (100)")
    ap.add_argument("--strata", type=int, default=10)
    ap.add_argument("--lists", default="original", metavar="NAME",
                    help="the built-in lists the records were measured on (default original)")
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--parts-record", help="bench_parts.py records: the cost of a class "
                    "valued in parts (default: quick bound 0.5 %%, parts 1.8x the whole)")
    ap.add_argument("--split-share", type=float, default=SPLIT_SHARE,
                    help="split openers predicted above this part of a rank's share "
                    "(default: the run's, SPLIT_SHARE)")
    ap.add_argument("--part-share", type=float, default=PART_SHARE,
                    help="classes in parts above this part of a rank's share (default: "
                    "the run's, PART_SHARE)")
    ap.add_argument("--model", choices=("spread", "size"), default="spread",
                    help="the cost model the run plans with (solver/run/costs.py): size "
                    "and spread of the big classes (the run's), or size alone")
    ap.add_argument("--probe-easy", help="bench_probe.py records: the quick bounds of "
                    "the big classes, easy mode")
    ap.add_argument("--probe-hard", help="the same, hard mode")
    ap.add_argument("--after-easy", help="bench_class_costs.py --after-bundle records: "
                    "the cost of an opener after another of its bundle, easy mode (the "
                    "run's memo reuse within bundles; without, every opener costs what "
                    "a fresh solver pays)")
    ap.add_argument("--after-hard", help="the same, hard mode")
    ap.add_argument("--json", help="write every figure here too")
    args = ap.parse_args()

    ranks = [int(x) for x in args.ranks.split(",")]
    out = {}
    pm = PartsModel(args.parts_record, [o for k in ("known_easy", "known_hard")
                                           if getattr(args, k) for o in load(
                                               getattr(args, k), k.split("_")[1])])
    split_rules.PART_SHARE = args.part_share  # parts_for reads it
    print(f"cost model: {args.model}; split share {args.split_share}, part share "
          f"{args.part_share}, coordinator "
          f"{args.coord_ms} ms per result, start-up "
          f"{args.startup} s per rank, {args.boot} bootstrap draws; a class in parts: "
          f"quick bound {100 * pm.quick:.2f} % of it, parts {pm.inflation:.2f}x it "
          f"({pm.source})")
    for mode, path in (("easy", args.easy), ("hard", args.hard)):
        if not path:
            continue
        openers = load(path, mode)
        known = load(getattr(args, f"known_{mode}"), mode) if getattr(
            args, f"known_{mode}") else []
        sizes = strata_of(openers + known, args.strata, args.lists)
        if args.model == "spread":
            add_spreads(openers + known, args.lists)
        if getattr(args, f"probe_{mode}"):
            add_quick(openers + known, getattr(args, f"probe_{mode}"))
        after = getattr(args, f"after_{mode}")
        n_after = add_after(openers + known, after) if after else 0
        base = population(openers, sizes, None, known)
        rng = np.random.default_rng(args.seed)
        boots = [population(openers, sizes, rng, known) for _ in range(args.boot)]
        cpu_h = sum(o.whole for o in base) / 3600
        draws = [sum(o.whole for o in p) / 3600 for p in boots]
        lo, hi = np.percentile(draws, [2.5, 97.5]) if draws else (math.nan, math.nan)
        bundled = {}
        for n in ranks if after else []:
            d = [sum(o.at(n).whole for o in p) / 3600 for p in boots]
            bundled[n] = (sum(o.at(n).whole for o in base) / 3600,
                          *(np.percentile(d, [2.5, 97.5]) if d else (math.nan, math.nan)))
        worst = max(openers + known, key=lambda o: o.whole)
        whole = sorted(o.whole for o in openers)
        heavy = sorted(openers, key=lambda o: -o.whole)[:15]
        big = sum(max(c for *_x, c in o.classes) for o in heavy) / sum(o.whole for o in heavy)
        print(f"\n{mode}: {len(openers)} openers measured"
              + (f" + {', '.join(o.word for o in known)} on purpose" if known else "")
              + f", table {len(base)} openers: "
              f"{cpu_h:.1f} CPU-h (95 % {lo:.1f}-{hi:.1f}); mean {np.mean(whole):.2f} s, "
              f"median {np.median(whole):.2f} s, sample's worst {whole[-1]:.1f} s; "
              f"{sum(o.status != 'exact' for o in openers)} not exact; the 15 heaviest spend "
              f"{100 * big:.0f} % in their biggest class; worst {worst.word} "
              f"{worst.whole:.1f} s, its biggest class "
              f"{max(c for *_x, c in worst.classes):.1f} s")
        if after:
            print(f"bundles ({after}: {n_after} of the measured openers after another of "
                  "their bundle): the table as a run pays it, "
                  + "; ".join(f"{n} ranks {v:.1f} CPU-h (95 % {a:.1f}-{b:.1f})"
                              for n, (v, a, b) in bundled.items())
                  + ". The schedule below costs each bundled opener so, as its own unit.")
        print("| ranks | split | makespan min | 95 % | efficiency | 95 % | openers split "
              "| parts | largest unit s |")
        print("|---|---|---|---|---|---|---|---|---|")
        rows = []
        for n in ranks:
            for split, parts in (("off", 0), ("auto", 0), ("auto", None)):
                r = simulate([o.at(n) for o in base], n, mode, split,
                             args.coord_ms / 1000, args.startup, args.split_share, parts, pm)
                b = [simulate([o.at(n) for o in p], n, mode, split, args.coord_ms / 1000,
                              args.startup, args.split_share, parts, pm) for p in boots]
                if split != "off":
                    split = f"{split}, parts {'auto' if parts is None else 'off'}"
                m = np.percentile([x["makespan"] for x in b], [2.5, 97.5]) / 60 if b else \
                    (math.nan, math.nan)
                e = np.percentile([x["efficiency"] for x in b], [2.5, 97.5]) if b else \
                    (math.nan, math.nan)
                rows.append({"ranks": n, "split": split, **r, "makespan_ci": list(m * 60),
                             "efficiency_ci": list(e)})
                print(f"| {n} | {split} | {r['makespan'] / 60:.1f} | {m[0]:.1f}-{m[1]:.1f} | "
                      f"{100 * r['efficiency']:.0f} % | {100 * e[0]:.0f}-{100 * e[1]:.0f} % | "
                      f"{r['split']} | {r['parts']} | {r['largest']:.0f} |", flush=True)
        out[mode] = {"measured": len(openers), "cpu_hours": cpu_h, "cpu_hours_ci": [lo, hi],
                     "rows": rows,
                     "bundled_cpu_hours": {str(n): [float(x) for x in v]
                                           for n, v in bundled.items()}}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
