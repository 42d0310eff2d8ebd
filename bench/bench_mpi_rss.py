"""Per-rank memory of an MPI run: `mpiexec -n N wordle-dp run` on a few openers.

Samples /proc/PID/smaps_rollup of every rank while the run lasts and reports each
rank's peak RSS, its peak private memory (USS: what the rank alone holds, so the
node-shared table is excluded) and its peak shared memory.

    python bench/bench_mpi_rss.py --ranks 3 --openers salet,crate,crane,trace
    python bench/bench_mpi_rss.py --tree /tmp/old-checkout      # another revision
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def rollup(pid: int) -> dict[str, int] | None:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None
    out = {}
    for line in text.splitlines()[1:]:
        key, _, rest = line.partition(":")
        out[key] = int(rest.split()[0])  # kB
    return out


def ranks_of(store: str) -> list[int]:
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"run" in cmd and store.encode() in cmd and any(b"python" in c for c in cmd[:1]):
            pids.append(int(d.name))
    return pids


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=3)
    ap.add_argument("--openers", default="salet,crate,crane,trace,slate,adieu")
    ap.add_argument("--tree", default=str(ROOT), help="checkout to run (default: this one)")
    args = ap.parse_args()
    mpiexec = Path(sys.executable).with_name("mpiexec")
    with tempfile.TemporaryDirectory(prefix="wdp-rss-") as tmp:
        store = str(Path(tmp) / "s.zarr")
        env = dict(os.environ, PYTHONPATH=args.tree, NUMBA_NUM_THREADS="1")
        proc = subprocess.Popen(
            [str(mpiexec), "-n", str(args.ranks), sys.executable, "-m", "solver", "run",
             "--store", store, "--openers", args.openers, "--quiet"],
            cwd=args.tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        peak: dict[int, dict[str, int]] = {}
        while proc.poll() is None:
            for pid in ranks_of(store):
                r = rollup(pid)
                if r is None:
                    continue
                uss = r.get("Private_Clean", 0) + r.get("Private_Dirty", 0)
                shared = r.get("Shared_Clean", 0) + r.get("Shared_Dirty", 0)
                p = peak.setdefault(pid, {"rss": 0, "uss": 0, "shared": 0})
                p["rss"] = max(p["rss"], r["Rss"])
                p["uss"] = max(p["uss"], uss)
                p["shared"] = max(p["shared"], shared)
            time.sleep(0.1)
        err = proc.stderr.read().decode()
        if proc.returncode:
            raise SystemExit(f"run failed ({proc.returncode}): {err[-2000:]}")
    print(f"# {args.ranks} ranks, openers {args.openers}, tree {args.tree}")
    for i, (pid, p) in enumerate(sorted(peak.items())):
        print(f"rank process {i} (pid {pid}): peak RSS {p['rss'] / 1024:.0f} MB, "
              f"private (USS) {p['uss'] / 1024:.0f} MB, shared {p['shared'] / 1024:.0f} MB")


if __name__ == "__main__":
    main()
