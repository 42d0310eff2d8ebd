"""Benchmark the pattern table: numpy build, cache load, and cupy build.

    .venv/bin/python bench/bench_table.py            # human-readable
    .venv/bin/python bench/bench_table.py --json     # one JSON object

Figures (seconds, best of N runs):
  numpy_build  solver.table.build_numpy on the lists (best of --build-runs, default 3)
  cache_load   solver.table.load of a cache file written to a temporary folder
               (best of --load-runs, default 5; the file is in the page cache)
  cupy_build   solver.table.build_cupy, after one untimed warm-up build so that CUDA
               context creation and kernel compilation are excluded (best of 3);
               null when no GPU is usable
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from solver import table  # noqa: E402
from solver.words import WordLists  # noqa: E402


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def best_of(n: int, fn) -> float:
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def machine() -> dict:
    return {
        "cpu": cpu_model(),
        "cores": usable_cores(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
    }


def run(lists: WordLists, build_runs: int, load_runs: int, gpu: bool) -> dict:
    reference = table.build_numpy(lists)  # also warms caches and allocator
    numpy_build = best_of(build_runs, lambda: table.build_numpy(lists))

    key = table.table_key(lists)
    with tempfile.TemporaryDirectory(prefix="wdp-bench-") as d:
        path = Path(d) / "table.bin"
        table.save(path, reference, key)
        size = path.stat().st_size
        loaded = table.load(path, key, reference.shape)
        if loaded is None or not np.array_equal(loaded, reference):
            raise SystemExit("cache round trip failed")
        cache_load = best_of(load_runs, lambda: table.load(path, key, reference.shape))

    cupy_build = None
    gpu_note = "skipped (--no-gpu)" if not gpu else None
    if gpu:
        try:
            table.build_cupy(lists)  # warm-up: CUDA context, kernel compilation
        except table.BackendError as exc:
            gpu_note = str(exc)
        else:
            if not np.array_equal(table.build_cupy(lists), reference):
                raise SystemExit("cupy table differs from numpy table")
            cupy_build = best_of(3, lambda: table.build_cupy(lists))
            gpu_note = "ok"

    return {
        "machine": machine(),
        "shape": list(reference.shape),
        "cache_file_bytes": size,
        "numpy_build_s": round(numpy_build, 4),
        "numpy_build_runs": build_runs,
        "cache_load_s": round(cache_load, 4),
        "cache_load_runs": load_runs,
        "cupy_build_s": None if cupy_build is None else round(cupy_build, 4),
        "cupy": gpu_note,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Benchmark the pattern table build and cache.")
    p.add_argument("--answers", metavar="FILE", help="answer list (default: data/answers.txt)")
    p.add_argument("--guesses", metavar="FILE", help="guess list (default: data/guesses.txt)")
    p.add_argument("--build-runs", type=int, default=3, metavar="N")
    p.add_argument("--load-runs", type=int, default=5, metavar="N")
    p.add_argument("--no-gpu", action="store_true", help="do not try the cupy backend")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)

    lists = WordLists.load(args.answers, args.guesses)
    r = run(lists, max(1, args.build_runs), max(1, args.load_runs), not args.no_gpu)
    if args.json:
        print(json.dumps(r))
        return 0
    m = r["machine"]
    print(f"machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, numpy {m['numpy']}")
    print(f"table:   {r['shape'][0]} x {r['shape'][1]} uint8, "
          f"cache file {r['cache_file_bytes'] / 2**20:.1f} MiB")
    print(f"numpy build (best of {r['numpy_build_runs']}): {r['numpy_build_s']:.3f} s")
    print(f"cache load  (best of {r['cache_load_runs']}): {r['cache_load_s']:.3f} s")
    if r["cupy_build_s"] is None:
        print(f"cupy build: n/a ({r['cupy']})")
    else:
        print(f"cupy build  (best of 3, warm): {r['cupy_build_s']:.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
