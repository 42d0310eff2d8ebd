"""Scaling of the product's workflows over MPI ranks (issue 31): wall time per step,
speed-up and efficiency against one rank, user and system CPU, peak memory per
rank, and rank 0's share.

Workloads, each from scratch into a fresh store, in each mode asked:
  sample  `run --no-cutoff` over a seeded random sample of openers (exact values);
  book    `book build` (the popular openers exactly, every opener under the cutoff
          that follows the 10 best, the book written from the store);
  best    `best --top 1`;
  moves   `book moves` of the sample's first MOVES openers (every feedback class of
          each: its best second guess and 8 alternatives, into a fresh moves file;
          the ranks draw the classes of all openers, dearest first, from one queue).

Every rank runs under a small timer (the child's own rusage, as /usr/bin/time
reports it, which a bare node may not have), so each rank's wall, user and system
CPU and peak RSS are its own, start-up, imports and MPI_Finalize included. The steps
come from the command's own report: the run's wall, and for the book the scoring,
valuing and writing steps. Efficiency = T(1 rank) / (N x T(N ranks)) on the whole
command's wall time; rank 0's exclusive work is its set-up and planning before
the work goes out, and the book's scoring and writing, during which no other rank
can work: its seconds, their share of all CPU and of the wall time (the share of
the job the other ranks wait for it) are reported.

    python bench/bench_scaling.py --ranks 1,2 --workloads sample,book --modes easy,hard \\
        --out bench_scaling.json
    python bench/bench_scaling.py --report bench_scaling.json     # the markdown table

On a node lent for minutes, the small rank counts can run at the same time, each
group pinned to its own cores (`--together 1,2,4,8`: 15 cores busy, as in a
16-rank run, so no case gets an idle machine's turbo and caches to itself), and
the largest alone afterwards (`--ranks 16`). The report says which rows ran
together; `--report` takes several JSON files and merges their rows.

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
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT  # the tree whose code the commands run (--source: a baseline's worktree)
SEED = 20261126
SAMPLE = 24
MOVES = 6


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
    if workload == "moves":
        return [*base, "book", "moves", "--mode", mode, "--openers",
                ",".join(openers[:MOVES]), "--out", str(out), "--quiet"]
    raise ValueError(workload)


# Runs one rank's command and writes "wall user sys maxrss_kb" (the child's rusage,
# as /usr/bin/time -f "%e %U %S %M" gives it) to DIR/<rank>.
TIMER = """
import os, resource, subprocess, sys, time
rank = next((os.environ[v] for v in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK")
             if v in os.environ), "0")
t0 = time.perf_counter()
rc = subprocess.call(sys.argv[2:], close_fds=False)  # PMI talks over an inherited fd
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(os.path.join(sys.argv[1], rank), "w") as f:
    f.write(f"{wall:.2f} {ru.ru_utime:.2f} {ru.ru_stime:.2f} {ru.ru_maxrss}")
sys.exit(rc)
"""


def start_case(workload: str, mode: str, ranks: int, openers: list[str], tmp: Path,
               cores: list[int] | None = None) -> dict:
    """Start one command on `ranks` ranks, every rank under the timer; pinned to
    `cores` when given (the ranks inherit the affinity)."""
    name = f"{workload}-{mode}-{ranks}" + (f"-at{cores[0]}" if cores else "")
    store, out, times = tmp / f"{name}.zarr", tmp / f"{name}.npz", tmp / f"time-{name}"
    times.mkdir()
    cmd = command(workload, mode, store, out, openers)
    timed = [sys.executable, "-c", TIMER, str(times)]
    argv = [*timed, *cmd] if ranks == 1 else [str(mpiexec()), "-n", str(ranks), *timed, *cmd]
    env = dict(os.environ, PYTHONPATH=str(SOURCE), NUMBA_NUM_THREADS="1")
    pin = (lambda: os.sched_setaffinity(0, cores)) if cores else None
    case = {"workload": workload, "mode": mode, "ranks": ranks, "times": times,
            "cores": cores, "load0": os.getloadavg()[0], "t0": time.perf_counter()}
    # output to files, not pipes: cases that run together are waited for by polling,
    # and a full pipe would stall a rank
    case["err"] = err = times / "stderr"
    with open(times / "stdout", "w") as o, open(err, "w") as e:
        case["proc"] = subprocess.Popen(argv, cwd=tmp, env=env, stdout=o, stderr=e,
                                        preexec_fn=pin)
    return case


def wait_all(cases: list[dict]) -> None:
    """Wait for started commands, noting when each one ended."""
    while any("end" not in c for c in cases):
        for c in cases:
            if "end" not in c and c["proc"].poll() is not None:
                c["end"] = time.perf_counter()
        time.sleep(0.02)


def finish_case(case: dict, together: list[int] | None = None) -> dict:
    """Wait for a started command and make its row."""
    wait_all([case])
    err = case["err"].read_text()
    wall = case["end"] - case["t0"]
    workload, mode, ranks, times = (case[k] for k in ("workload", "mode", "ranks", "times"))
    if case["proc"].returncode != 0:
        raise SystemExit(f"{workload} {mode} on {ranks} rank(s) failed:\n{err[-3000:]}")
    per_rank = []
    for r in range(ranks):
        e, u, s, m = (times / str(r)).read_text().split()[-4:]
        per_rank.append({"rank": r, "wall": float(e), "user": float(u), "sys": float(s),
                         "rss_mb": round(int(m) / 1024, 1)})
    row = {"workload": workload, "mode": mode, "ranks": ranks, "wall": round(wall, 2),
           "user": round(sum(x["user"] for x in per_rank), 2),
           "sys": round(sum(x["sys"] for x in per_rank), 2), "per_rank": per_rank,
           "load_before": round(case["load0"], 2),
           "load_after": round(os.getloadavg()[0], 2), "steps": steps(err, workload)}
    if together:
        row.update(together=together, cores=case["cores"])
    return row


def run_case(workload: str, mode: str, ranks: int, openers: list[str], tmp: Path) -> dict:
    """One command on `ranks` ranks, alone."""
    return finish_case(start_case(workload, mode, ranks, openers, tmp))


def run_together(workload: str, mode: str, counts: list[int], openers: list[str],
                 tmp: Path) -> list[dict]:
    """The rank counts at the same time, each on its own cores (0..sum-1)."""
    if sum(counts) > (os.cpu_count() or 1):
        raise SystemExit(f"--together {counts} needs {sum(counts)} cores; "
                         f"this machine has {os.cpu_count()}")
    cases, first = [], 0
    for n in counts:
        cases.append(start_case(workload, mode, n, openers, tmp,
                                list(range(first, first + n))))
        first += n
    wait_all(cases)
    return [finish_case(c, counts) for c in cases]


def cases(workload: str, mode: str, together: list[int], alone: list[int],
          openers: list[str], tmp: Path) -> Iterator[dict]:
    """The rows of one workload and mode: the together group, then each count alone."""
    if together:
        yield from run_together(workload, mode, together, openers, tmp)
    for n in alone:
        yield run_case(workload, mode, n, openers, tmp)


def steps(err: str, workload: str) -> dict:
    """The steps' wall times from the command's own report."""
    out: dict[str, float] = {}
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
        ranks = f"{r['ranks']}*" if r.get("together") else str(r["ranks"])
        speed = t1 / r["wall"] if t1 else float("nan")
        cpu = r["user"] + r["sys"]
        rank0 = r["per_rank"][0]
        alone = sum(r["steps"].get(k, 0.0) for k in ("scoring", "planning", "writing"))
        st = ", ".join(f"{k} {v:g}" for k, v in r["steps"].items())
        rss = "/".join(f"{x['rss_mb']:.0f}" for x in r["per_rank"])
        lines.append(
            f"| {r['workload']} | {r['mode']} | {ranks} | {r['wall']:.1f} | "
            f"{speed:.2f} | {100 * speed / r['ranks']:.0f} % | {st} | {r['user']:.1f} | "
            f"{r['sys']:.1f} | {100 * r['sys'] / cpu:.1f} | {rss} | "
            f"{100 * (rank0['user'] + rank0['sys']) / cpu:.0f} % | "
            f"{alone:.1f}, {100 * alone / cpu:.1f}, {100 * alone / r['wall']:.1f} |")
    tog = sorted({tuple(r["together"]) for r in rows if r.get("together")})
    for t in tog:
        lines.append(f"\n* ran at the same time, each on its own cores: ranks "
                     f"{', '.join(map(str, t))} ({sum(t)} cores busy)")
    return "\n".join(lines)


def machine() -> str:
    """The machine as the books' provenance names it (solver.book), with its host."""
    sys.path.insert(0, str(ROOT))
    from solver.book.builder import _machine

    return f"{_machine()}, {platform.node()}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ranks", default=f"1,{os.cpu_count()}",
                    help="rank counts, comma-separated, each run alone "
                         "(default: 1 and every core; '' for none)")
    ap.add_argument("--together", default="",
                    help="rank counts run at the same time, each group pinned to its "
                         "own cores, before the --ranks cases (e.g. 1,2,4,8)")
    ap.add_argument("--workloads", default="sample,book", help="sample, book, best, moves")
    ap.add_argument("--modes", default="easy,hard")
    ap.add_argument("--sample", type=int, default=SAMPLE, help="openers of the sample")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--openers", help="these openers (comma-separated) instead of a sample")
    ap.add_argument("--source", type=Path, default=ROOT,
                    help="run this tree's code (a worktree of the baseline; default: "
                         "this checkout)")
    ap.add_argument("--out", help="write the rows as JSON here (appended as they come)")
    ap.add_argument("--report", metavar="JSON", nargs="+",
                    help="print the table of saved runs (rows merged)")
    a = ap.parse_args()
    if a.report:
        docs = [json.loads(Path(f).read_text()) for f in a.report]
        print(report([r for d in docs for r in d["rows"]], docs[0]["machine"]))
        return
    global SOURCE
    SOURCE = a.source.resolve()
    openers = a.openers.split(",") if a.openers else sample_openers(a.sample, a.seed)
    env = dict(os.environ, PYTHONPATH=str(SOURCE), NUMBA_NUM_THREADS="1")
    for mode in a.modes.split(","):  # warm: numba's kernels and the table cache (a
        # capped search of a sample opener: the book would answer salet with neither)
        subprocess.run([sys.executable, "-m", "solver", "solve", openers[0], "--quiet",
                        "--no-book", "--max-guesses", "2", "--mode", mode], cwd=SOURCE,
                       env=env, check=True, capture_output=True)
    doc = {"machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M"),
           "seed": a.seed, "sample": openers, "source": str(SOURCE), "rows": []}
    with tempfile.TemporaryDirectory(prefix="bench-scaling-") as tmp:
        for workload in a.workloads.split(","):
            for mode in a.modes.split(","):
                together = [int(x) for x in a.together.split(",") if x]
                alone = [int(x) for x in a.ranks.split(",") if x]
                for row in cases(workload, mode, together, alone, openers, Path(tmp)):
                    doc["rows"].append(row)  # saved as each finishes: a cut run keeps them
                    print(json.dumps({k: v for k, v in row.items() if k != "per_rank"}),
                          flush=True)
                    if a.out:
                        Path(a.out).write_text(json.dumps(doc, indent=1))
    print(report(doc["rows"], doc["machine"]))


if __name__ == "__main__":
    main()
