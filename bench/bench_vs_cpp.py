"""Exact values of a few openers, this engine beside the C++ reference, on built-in lists.

For each mode: a strong opener (--strong) and the worst opener of a seeded random
sample of the guess list (--seed, --size), "worst" by the published exact values
(--published: Alex Selby's `word average total` files; in hard mode the worst
feasible opener, and the sample's first infeasible one too). Each opener is solved
exactly in a fresh process by both solvers, one after the other, so both see the
same load:

- ours: `wordle-dp solve W --lists NAME --mode M --quiet --json` (start-up, imports
  and the table load included);
- C++: `DIR/wordle -a GUESSES -h ANSWERS -w W` (`-H` in hard mode), a build of
  github.com/alex1770/wordle made outside the project.

CPU is user + system of the child (wait4); a child past --timeout CPU seconds is
stopped and recorded as '>T'. Both values are checked against the published ones,
or, without --published, against each other.

    python bench/bench_vs_cpp.py --cpp /tmp/ref/wordle --lists nyt \\
        --published ../shared/exact/selby/results_{mode}_nyt20230701

--openers measures given openers instead of the seeded pick (issue 34: the most
expensive openers of a sample, side by side):

    python bench/bench_vs_cpp.py --cpp /tmp/ref/wordle --lists original --modes easy \\
        --openers shush,jiffy,gabba --timeout 600
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver.words import builtin  # noqa: E402

INFEASIBLE = 10**9
_TICK = os.sysconf("SC_CLK_TCK")
_CPP_SCORE = re.compile(r"^First guess (\w+) +([ >])= +(\d+)", re.M)


def _proc_cpu(pid: int) -> float:
    """CPU seconds used so far by a running child (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def run(cmd: list[str], timeout: float, cwd: Path | None = None) -> tuple[str, float, float,
                                                                          bool]:
    """(stdout, CPU s, peak MB, timed out) of one child, stopped past `timeout` CPU s."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="1")
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL,
                                text=True, env=env)
        killed = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if _proc_cpu(proc.pid) > timeout:
                proc.kill()
                killed = True
            time.sleep(0.5)
        out.seek(0)
        return out.read(), usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, killed


def ours(lists: str, mode: str, opener: str, timeout: float) -> dict:
    text, cpu, mb, killed = run([sys.executable, "-m", "solver", "solve", opener, "--lists",
                                 lists, "--mode", mode, "--quiet", "--json"], timeout)
    r = json.loads(text.splitlines()[-1]) if text.strip() and not killed else {}
    total = r.get("total") if r.get("status") == "exact" else (
        INFEASIBLE if r.get("status") == "infeasible" else None)
    return {"total": total, "cpu": cpu, "mb": mb, "timed_out": killed}


def cpp(build: Path, lists: str, mode: str, opener: str, timeout: float) -> dict:
    b = builtin(lists)
    cmd = [str(build / "wordle"), "-a", str(b.resource("guesses")), "-h",
           str(b.resource("answers")), "-w", opener] + (["-H"] if mode == "hard" else [])
    text, cpu, mb, killed = run(cmd, timeout, cwd=build)
    m = _CPP_SCORE.search(text)
    total = int(m.group(3)) if m and m.group(2) == " " and not killed else None
    return {"total": total, "cpu": cpu, "mb": mb, "timed_out": killed}


def published(path: str) -> dict[str, int]:
    out = {}
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if parts:
            out[parts[0]] = int(parts[-1])
    return out


def pick(lists: str, mode: str, strong: str, seed: int, size: int,
         values: dict[str, int]) -> list[tuple[str, str]]:
    """(opener, why) to measure: the strong one, the sample's worst (feasible) one, and
    in hard mode the sample's first infeasible one."""
    words = sorted(Path(str(builtin(lists).resource("guesses"))).read_text().split())
    sample = random.Random(seed).sample(words, size)
    feasible = [w for w in sample if values[w] < INFEASIBLE]
    worst = max(feasible, key=lambda w: (values[w], w))
    rows = [(strong, "strong"), (worst, f"worst feasible of {size} (seed {seed})")]
    infeasible = sorted(w for w in sample if values[w] >= INFEASIBLE)
    if infeasible:
        rows.append((infeasible[0], f"first infeasible of the {size}"))
    return rows


def _cell(r: dict, timeout: float) -> str:
    if r["timed_out"]:
        return f">{timeout:.0f} s"
    return f"{r['cpu']:.1f} s, {r['mb']:.0f} MB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpp", type=Path, required=True, metavar="DIR",
                    help="build folder of github.com/alex1770/wordle (DIR/wordle)")
    ap.add_argument("--lists", default="nyt", help="built-in lists (default nyt)")
    ap.add_argument("--modes", default="easy,hard")
    ap.add_argument("--strong", default="tarse")
    ap.add_argument("--seed", type=int, default=20261126)
    ap.add_argument("--size", type=int, default=20)
    ap.add_argument("--published", metavar="PATTERN",
                    help="published exact values per mode, '{mode}' replaced (needed "
                    "without --openers)")
    ap.add_argument("--timeout", type=float, default=900.0, help="CPU s per run (900)")
    ap.add_argument("--only", help="comma-separated openers: measure only these")
    ap.add_argument("--openers", help="comma-separated openers to measure instead of "
                    "the strong one and the sample's worst, in this order")
    args = ap.parse_args()
    if not args.published and not args.openers:
        ap.error("--published is needed to pick the sample's worst opener")

    print(f"# {time.strftime('%Y-%m-%d %H:%M')} UTC, {platform.node()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; lists {args.lists}",
          flush=True)
    ours(args.lists, "easy", args.strong, args.timeout)  # warm numba and the table cache
    for mode in args.modes.split(","):
        values = published(args.published.format(mode=mode)) if args.published else {}
        rows = ([(w.strip(), "given") for w in args.openers.split(",") if w.strip()]
                if args.openers else
                pick(args.lists, mode, args.strong, args.seed, args.size, values))
        for opener, why in rows:
            if args.only and opener not in args.only.split(","):
                continue
            a = ours(args.lists, mode, opener, args.timeout)
            b = cpp(args.cpp, args.lists, mode, opener, args.timeout)
            done = [r["total"] for r in (a, b) if not r["timed_out"]]
            known = values.get(opener)
            # against the published value where there is one, else against each other
            ok = (all(t == known for t in done) if known is not None
                  else len(set(done)) <= 1)
            value = known if known is not None else next(iter(done), None)
            shown = "-" if value is None else "infeasible" if value >= INFEASIBLE else value
            ratio = (f"{a['cpu'] / b['cpu']:.3f}" if not (a["timed_out"] or b["timed_out"])
                     else "-")
            print(f"| {mode} | {opener} ({why}) | {shown} | {_cell(a, args.timeout)} | "
                  f"{_cell(b, args.timeout)} | {ratio} | {'agree' if ok else 'DISAGREE'} | "
                  f"load {os.getloadavg()[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
