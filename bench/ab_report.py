"""Report an interleaved A/B record of bench_sample.py (--baseline REV --record FILE):
the openers both trees finished, whether their totals agree, and the CPU ratio
current / baseline with a bootstrap 95 % interval over openers (the ratio of the
sums, which is what a whole table pays; the geometric mean of the pairs as well).
Pairs where either tree hit --timeout are censored: counted, left out of the ratio.
Works on a record that is still being written, or one whose run was stopped: the
sample's order is random, so the finished pairs are a random sample too.

    python bench/ab_report.py checkpoints/bench/ab-easy-20261125.jsonl
    python bench/ab_report.py FILE --project 24.4   # scale an earlier projection

--costs BEFORE: the record is a bench_class_costs.py record instead, compared
opener by opener with BEFORE, an earlier record of the same sample (not
interleaved: the two ran at different times, under their own loads).

--project X prints X times the ratio and its interval: an earlier whole-table
projection (CPU-h) carried over to the current tree. It is labelled as such: it
assumes the ratio measured on this sample holds over the earlier sample's openers.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path

DRAWS = 2000


def cost_pairs(path: Path, before: Path) -> list[tuple[str, dict, dict]]:
    """The same from two bench_class_costs.py records (fields opener, cpu, status,
    total): the openers both measured."""
    def load(p: Path) -> dict[str, dict]:
        return {r["opener"]: r for r in map(json.loads, p.read_text().splitlines())}
    old = load(before)
    return [(o, r, old[o]) for o, r in load(path).items() if o in old]


def pairs(path: Path) -> list[tuple[str, dict, dict]]:
    """(opener, current row, baseline row) for every opener both trees finished."""
    cur: dict[str, dict] = {}
    base: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        (cur if r["tree"] == "current" else base)[r["opener"]] = r
    return [(o, cur[o], base[o]) for o in cur if o in base]


def ratio_interval(ps: list[tuple[str, dict, dict]], seed: int = 1) -> tuple[float, float, float]:
    """Sum of current CPU over sum of baseline CPU, and its bootstrap 95 % interval."""
    rng = random.Random(seed)
    cur = [p[1]["cpu"] for p in ps]
    base = [p[2]["cpu"] for p in ps]
    point = sum(cur) / sum(base)
    draws = []
    for _ in range(DRAWS):
        idx = [rng.randrange(len(ps)) for _ in ps]
        draws.append(sum(cur[i] for i in idx) / sum(base[i] for i in idx))
    draws.sort()
    return point, draws[int(0.025 * DRAWS)], draws[int(0.975 * DRAWS) - 1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("record", type=Path)
    ap.add_argument("--costs", type=Path, metavar="BEFORE",
                    help="compare bench_class_costs.py records: RECORD now, BEFORE then")
    ap.add_argument("--project", type=float, metavar="CPU_H",
                    help="an earlier whole-table projection to scale by the ratio")
    args = ap.parse_args()
    ps = cost_pairs(args.record, args.costs) if args.costs else pairs(args.record)
    if not ps:
        raise SystemExit(f"{args.record}: no opener finished by both trees yet")
    differ = [o for o, c, b in ps if (c["status"], c["total"]) != (b["status"], b["total"])]
    timeouts = [o for o, c, b in ps if "timeout" in (c["status"], b["status"])]
    timed = [p for p in ps if p[0] in timeouts]
    ps = [p for p in ps if p[0] not in timeouts]  # censored: no ratio to take
    if not ps:
        raise SystemExit("every finished pair timed out")
    point, lo, hi = ratio_interval(ps)
    geo = math.exp(sum(math.log(c["cpu"] / b["cpu"]) for _, c, b in ps) / len(ps))
    worst_c = max(ps, key=lambda p: p[1]["cpu"])
    worst_b = max(ps, key=lambda p: p[2]["cpu"])
    print(f"{len(ps) + len(timed)} openers finished by both trees; totals differ: "
          f"{differ or 'none'}; timeouts (left out of the ratio): {timeouts or 'none'}")
    print(f"CPU current / baseline: {point:.3f} (95 % {lo:.3f}-{hi:.3f}), "
          f"geometric mean of pairs {geo:.3f}")
    print(f"sums: current {sum(c['cpu'] for _, c, _ in ps):.1f} s, "
          f"baseline {sum(b['cpu'] for _, _, b in ps):.1f} s; worst current "
          f"{worst_c[0]} {worst_c[1]['cpu']:.1f} s, worst baseline {worst_b[0]} "
          f"{worst_b[2]['cpu']:.1f} s")
    if all("rss_mb" in c and "rss_mb" in b for _, c, b in ps):
        print(f"peak RSS, most: current {max(c['rss_mb'] for _, c, _ in ps):.0f} MB, "
              f"baseline {max(b['rss_mb'] for _, _, b in ps):.0f} MB")
    over = [sum(r["cpu"] > 60 for r in rows) for rows in
            ([c for _, c, _ in ps], [b for _, _, b in ps])]
    print(f"openers over 60 s: current {over[0]}, baseline {over[1]}")
    if args.project:
        print(f"earlier projection {args.project} CPU-h x ratio: {args.project * point:.1f} "
              f"(95 % {args.project * lo:.1f}-{args.project * hi:.1f}), carried over, "
              "not measured on the earlier sample")


if __name__ == "__main__":
    main()
