"""Cost of validating a result store on open (full-size lists, every opener written).

    python bench/bench_store_open.py [--repeat N]

Prints CPU and wall seconds of `Store.open` (validation: attributes, shapes, every
chunk read, status codes, word checksums) against a bare zarr open plus snapshot,
interleaved, so that the numbers come from the same machine load.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from solver import store as S  # noqa: E402
from solver.words import WordLists  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    lists = WordLists.load(quiet=True)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.zarr"
        st, _ = S.Store.open_or_create(path, lists, "easy", 6)
        st.write([S.Record(i, S.EXACT, total=8000 + i, second=np.full(243, i, np.int32))
                  for i in range(len(lists.guesses))])
        st.unlock()
        rows = {"validated open": [], "bare open + snapshot": []}
        for _ in range(args.repeat):
            for name in rows:
                c0, t0 = time.process_time(), time.perf_counter()
                if name == "validated open":
                    S.Store.open(path)
                else:
                    g = S.zarr_module().open_group(str(path), mode="r")
                    S.Store(g, path, True).snapshot()
                rows[name].append((time.process_time() - c0, time.perf_counter() - t0))
        print(f"{len(lists.guesses)} openers, {args.repeat} rounds, load {os.getloadavg()}")
        for name, v in rows.items():
            cpu, wall = np.median(np.array(v), axis=0)
            print(f"  {name:22s} median {cpu * 1000:7.1f} ms CPU {wall * 1000:7.1f} ms wall")


if __name__ == "__main__":
    main()
