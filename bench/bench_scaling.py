"""Scaling of the product's workflows over MPI ranks (issue 31): wall time per step,
speed-up and efficiency against one rank, user and system CPU, peak memory per
rank, and rank 0's share.

Workloads, each from scratch into a fresh store, in each mode asked:
  sample  `run --no-cutoff` over a seeded random sample of openers (exact values);
  book    `book build` (the popular openers exactly, every opener under the cutoff
          that follows the 10 best, the book written from the store);
  best    `best --top 1`.

Every rank runs under /usr/bin/time, so each rank's wall, user and system CPU
and peak RSS are its own, start-up, imports and MPI_Finalize included. The steps
come from the command's own report: the run's wall, and for the book the scoring,
valuing and writing steps. Efficiency = T(1 rank) / (N x T(N ranks)) on the whole
command's wall time; rank 0's exclusive work is its set-up and planning before
the work goes out, and the book's scoring and writing, during which no other rank
can work: its seconds, their share of all CPU and of the wall time (the share of
the job the other ranks wait for it) are reported.

    python bench/bench_scaling.py --ranks 1,2 --workloads sample,book --modes easy,hard \\
        --out bench_scaling.json
    python bench/bench_scaling.py --report bench_scaling.json     # the markdown table

The numba kernels and the table cache are warmed first (one untimed solve), so
no rank compiles. Run it on a machine with at least as many cores as the most
ranks asked for, and nothing else running: the wall times are the figure.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261126
SAMPLE = 24


def mpiexec() -> Path:
    return Path(sys.executable).parent / "mpiexec"


def sample_openers(k: int, seed: int) -> list[str]:
    sys.path.insert(0, str(ROOT))
    from solver.words import WordLists

    words = sorted(WordLists.load(quiet=True).guesses)
    return random.Random(seed).sample(words, k)


def command(workload: str, mode: str, store: Path, out: Path, openers: list[str]
            ) -> list[str]:
    base = [sys.executable, "-m", "solver"]
    if workload == "sample":
        return [*base, "run", "--store", str(store), "--mode", mode, "--no-cutoff",
                "--openers", ",".join(openers), "--progress-seconds", "3600"]
    if workload == "book":
        return [*base, "book", "build", "--mode", mode, "--store", str(store), "--out",
                str(out)]
    if workload == "best":
        return [*base, "best", "--mode", mode, "--store", str(store)]
    raise ValueError(workload)


def run_case(workload: str, mode: str, ranks: int, openers: list[str], tmp: Path) -> dict:
    """One command on `ranks` ranks; every rank timed by /usr/bin/time."""
    store, out = tmp / f"{workload}-{mode}-{ranks}.zarr", tmp / f"{workload}-{mode}.npz"
    times = tmp / f"time-{workload}-{mode}-{ranks}"
    times.mkdir()
    cmd = command(workload, mode, store, out, openers)
    timed = ["/usr/bin/time", "-f", "%e %U %S %M", "-o"]
    if ranks == 1:
        argv = [*timed, str(times / "0"), *cmd]
    else:  # each rank writes its own figures (PMI_RANK: mpich's hydra)
        inner = shlex.join(timed) + f' "{times}/$PMI_RANK" ' + shlex.join(cmd)
        argv = [str(mpiexec()), "-n", str(ranks), "sh", "-c", inner]
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="1")
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=tmp, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"{workload} {mode} on {ranks} rank(s) failed:\n{p.stderr[-3000:]}")
    per_rank = []
    for r in range(ranks):
        e, u, s, m = (times / str(r)).read_text().split()[-4:]
        per_rank.append({"rank": r, "wall": float(e), "user": float(u), "sys": float(s),
                         "rss_mb": round(int(m) / 1024, 1)})
    row = {"workload": workload, "mode": mode, "ranks": ranks, "wall": round(wall, 2),
           "user": round(sum(x["user"] for x in per_rank), 2),
           "sys": round(sum(x["sys"] for x in per_rank), 2), "per_rank": per_rank,
           "load_before": round(load0, 2), "load_after": round(os.getloadavg()[0], 2),
           "steps": steps(p.stderr, workload)}
    return row


def steps(err: str, workload: str) -> dict:
    """The steps' wall times from the command's own report."""
    out = {}
    m = re.search(r"valued in (?:(\d+)m)?(\d+)s", err)
    if m:
        out["run"] = 60 * int(m.group(1) or 0) + int(m.group(2))
    m = re.search(r"([\d.]+) s of set-up and planning", err)
    if m:
        out["planning"] = float(m.group(1))
    m = re.search(r"scoring ([\d.]+) s, planning [\d.]+ s, valuing ([\d.]+) s on \d+ "
                  r"solving rank\(s\), writing ([\d.]+) s", err)
    if m:
        out.update(scoring=float(m.group(1)), run=float(m.group(2)),
                   writing=float(m.group(3)))
    return out


def report(rows: list[dict], machine: str) -> str:
    lines = [f"machine: {machine}", "",
             "| workload | mode | ranks | wall s | speed-up | efficiency | steps (s) | "
             "user s | sys s | sys % | peak RSS per rank (MB) | rank 0 CPU share | "
             "rank 0 alone: s, % of CPU, % of wall |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    base = {(r["workload"], r["mode"]): r["wall"] for r in rows if r["ranks"] == 1}
    for r in rows:
        t1 = base.get((r["workload"], r["mode"]))
        speed = t1 / r["wall"] if t1 else float("nan")
        cpu = r["user"] + r["sys"]
        rank0 = r["per_rank"][0]
        alone = sum(r["steps"].get(k, 0.0) for k in ("scoring", "planning", "writing"))
        st = ", ".join(f"{k} {v:g}" for k, v in r["steps"].items())
        rss = "/".join(f"{x['rss_mb']:.0f}" for x in r["per_rank"])
        lines.append(
            f"| {r['workload']} | {r['mode']} | {r['ranks']} | {r['wall']:.1f} | "
            f"{speed:.2f} | {100 * speed / r['ranks']:.0f} % | {st} | {r['user']:.1f} | "
            f"{r['sys']:.1f} | {100 * r['sys'] / cpu:.1f} | {rss} | "
            f"{100 * (rank0['user'] + rank0['sys']) / cpu:.0f} % | "
            f"{alone:.1f}, {100 * alone / cpu:.1f}, {100 * alone / r['wall']:.1f} |")
    return "\n".join(lines)


def machine() -> str:
    """The machine as the books' provenance names it (solver.book), with its host."""
    sys.path.insert(0, str(ROOT))
    from solver.book import _machine

    return f"{_machine()}, {platform.node()}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ranks", default=f"1,{os.cpu_count()}",
                    help="rank counts, comma-separated (default: 1 and every core)")
    ap.add_argument("--workloads", default="sample,book", help="sample, book, best")
    ap.add_argument("--modes", default="easy,hard")
    ap.add_argument("--sample", type=int, default=SAMPLE, help="openers of the sample")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", help="write the rows as JSON here (appended as they come)")
    ap.add_argument("--report", metavar="JSON", help="print the table of a saved run")
    a = ap.parse_args()
    if a.report:
        doc = json.loads(Path(a.report).read_text())
        print(report(doc["rows"], doc["machine"]))
        return
    openers = sample_openers(a.sample, a.seed)
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="1")
    for mode in a.modes.split(","):  # warm: numba's kernels and the table cache
        subprocess.run([sys.executable, "-m", "solver", "solve", "salet", "--quiet",
                        "--mode", mode], cwd=ROOT, env=env, check=True,
                       capture_output=True)
    doc = {"machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M"),
           "seed": a.seed, "sample": openers, "rows": []}
    with tempfile.TemporaryDirectory(prefix="bench-scaling-") as tmp:
        for workload in a.workloads.split(","):
            for mode in a.modes.split(","):
                for n in (int(x) for x in a.ranks.split(",")):
                    row = run_case(workload, mode, n, openers, Path(tmp))
                    doc["rows"].append(row)
                    print(json.dumps({k: v for k, v in row.items() if k != "per_rank"}),
                          flush=True)
                    if a.out:
                        Path(a.out).write_text(json.dumps(doc, indent=1))
    print(report(doc["rows"], doc["machine"]))


if __name__ == "__main__":
    main()
