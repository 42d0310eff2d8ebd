"""The first answer of a fresh install (issue 48, part 3): each case runs with empty
caches (a new NUMBA_CACHE_DIR and WORDLE_DP_CACHE: no numba cache, no compiled
kernel module, no pattern table), in a folder outside the checkout, and reports
its wall and CPU (the command's, children included).

    python bench/bench_cold_start.py                       # this environment
    python bench/bench_cold_start.py --python /tmp/v/bin/python   # a fresh venv
    python bench/bench_cold_start.py --source /tmp/old      # another tree's code
    python bench/bench_cold_start.py --no-shipped           # as a wheel without kernels

Cases: `next salet:BBBBB --lists original` (a second move: the book's guess, the
search's alternatives), `next -` (the book's first move) and `serve`'s first move
(the server started, then GET /api/next?position=-&top=5 as the page asks it; wall
from the start, CPU of the server and its workers). `--no-shipped` points
$WORDLE_DP_KERNEL_DIR at an empty folder, so the kernels a wheel ships are not
used (what a checkout, or a wheel built without them, does). Not a test: the
figures depend on the machine and its load (BENCHMARKS.md: cold start).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

CASES = {
    "next-salet": ["next", "salet:BBBBB", "--lists", "original"],
    "next-start": ["next", "-"],
}


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def _env(tmp: Path, args) -> dict[str, str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp / "numba"),
               WORDLE_DP_CACHE=str(tmp / "cache"), PYTHONUNBUFFERED="1")
    env.pop("WORDLE_DP_KERNELS", None)
    if args.source:
        env["PYTHONPATH"] = str(Path(args.source).resolve())
    else:
        env.pop("PYTHONPATH", None)
    if args.no_shipped:
        (tmp / "none").mkdir(exist_ok=True)
        env["WORDLE_DP_KERNEL_DIR"] = str(tmp / "none")
    return env


def run_cli(name: str, argv: list[str], args) -> dict:
    with tempfile.TemporaryDirectory(prefix="wordle-dp-cold-") as d:
        tmp = Path(d)
        c0, t0 = _children_cpu(), time.perf_counter()
        p = subprocess.run([args.python, "-m", "solver", *argv], cwd=tmp, env=_env(tmp, args),
                           capture_output=True, text=True, timeout=args.timeout)
        wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    first = next((ln for ln in p.stdout.splitlines() if ln.startswith("best")), "")
    return {"case": name, "command": "wordle-dp " + " ".join(argv), "rc": p.returncode,
            "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
            "stderr": p.stderr.strip().splitlines()[:3], "answer": first.strip()}


def _tree_cpu(root: int) -> float:
    """utime + stime of `root` and its live descendants (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    stats = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                f = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(d.name)] = (int(f[1]), (int(f[11]) + int(f[12])) / tick)
    tree, grew = {root}, True
    while grew:
        new = {p for p, (pp, _) in stats.items() if pp in tree} - tree
        grew = bool(new)
        tree |= new
    return sum(stats[p][1] for p in tree if p in stats)


def _get(url: str, timeout: float) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def run_serve(args) -> dict:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="wordle-dp-cold-") as d:
        tmp = Path(d)
        log = open(tmp / "serve.log", "w+")
        t0 = time.perf_counter()
        p = subprocess.Popen([args.python, "-m", "solver", "serve", "--port", str(port)],
                             cwd=tmp, env=_env(tmp, args), stdout=log, stderr=subprocess.STDOUT)
        up = first = None
        status, cpu = 0, 0.0
        try:
            deadline = t0 + args.timeout
            while up is None and time.perf_counter() < deadline and p.poll() is None:
                try:
                    _get(f"{base}/api/info", 5)
                    up = time.perf_counter() - t0
                except (urllib.error.URLError, ConnectionError, TimeoutError):
                    time.sleep(0.2)
            if up is not None:
                status, body = _get(f"{base}/api/next?position=-&top=5", args.timeout)
                while status == 202 and time.perf_counter() < deadline:  # a job: poll it
                    time.sleep(0.5)
                    status, body = _get(f"{base}/api/jobs/{body['id']}", 30)
                    if body.get("state") == "done":
                        status, body = 200, body.get("result", body)
                first = time.perf_counter() - t0
            cpu = _tree_cpu(p.pid)
        finally:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            log.seek(0)
            lines = [ln for ln in log.read().splitlines() if "wordle-dp" in ln][:3]
            log.close()
    return {"case": "serve-first-move", "command": "wordle-dp serve; GET /api/next?position=-",
            "rc": status, "wall_s": None if first is None else round(first, 1),
            "server_up_s": None if up is None else round(up, 1), "cpu_s": round(cpu, 1),
            "stderr": lines}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable,
                    help="the interpreter of the install to measure (default: this one)")
    ap.add_argument("--source", help="put this tree first on PYTHONPATH (another commit's "
                    "code, e.g. a git worktree)")
    ap.add_argument("--no-shipped", action="store_true",
                    help="ignore the kernels a wheel ships ($WORDLE_DP_KERNEL_DIR empty)")
    ap.add_argument("--cases", default="next-salet,next-start,serve",
                    help="comma-separated: next-salet, next-start, serve")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per case")
    args = ap.parse_args()
    where = subprocess.run([args.python, "-c", "import solver; print(solver.__file__)"],
                           env=_env(Path(tempfile.gettempdir()), args), capture_output=True,
                           text=True, cwd=tempfile.gettempdir()).stdout.strip()
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} {platform.node()}, {os.cpu_count()} cpus "
          f"({_cpu_model()}), python {platform.python_version()}, load "
          f"{os.getloadavg()[0]:.2f}; solver from {where}"
          f"{'; shipped kernels ignored' if args.no_shipped else ''}", flush=True)
    for case in args.cases.split(","):
        load = os.getloadavg()[0]
        row = run_serve(args) if case == "serve" else run_cli(case, CASES[case], args)
        row["load"] = round(load, 2)
        print(json.dumps(row), flush=True)
    print(f"# load {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
