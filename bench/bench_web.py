"""Web API timings on the default lists, through FastAPI's TestClient (the HTTP
layer included, no network): CPU and wall per request, response sizes.

    python bench/bench_web.py            # easy mode, cap 6

Each request runs on a fresh Service (cold memo) and then again (warm memo).
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastapi.testclient import TestClient  # noqa: E402

from solver.table import get_table  # noqa: E402
from solver.web.app import create_app  # noqa: E402
from solver.web.service import Service  # noqa: E402
from solver.words import WordLists  # noqa: E402

REQUESTS = [
    ("/api/next", {"position": "salet:BBBBB", "top": 5}),
    ("/api/next", {"position": "salet:BBBBB", "top": 5, "mode": "hard"}),
    ("/api/next", {"position": "salet:BBBBB,courd:BBBBB", "top": 5}),
    ("/api/strategy", {"opener": "salet"}),
    ("/api/strategy", {"opener": "salet", "mode": "hard"}),
]


def main() -> None:
    lists = WordLists.load(quiet=True)
    table, _ = get_table(lists, "numpy")
    svc = Service(lists, table=table)
    client = TestClient(create_app(svc))
    client.get("/api/next", params={"position": "crane:BBBBB", "top": 1})  # compile/load
    rows = []
    for path, params in REQUESTS:
        svc._solvers.clear()  # cold memo
        for memo in ("cold", "warm"):
            c0, t0 = time.process_time(), time.perf_counter()
            r = client.get(path, params=params)
            cpu, wall = time.process_time() - c0, time.perf_counter() - t0
            assert r.status_code == 200, r.text
            body = r.content
            rows.append({"request": f"{path} {json.dumps(params)}", "memo": memo,
                         "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
                         "bytes": len(body), "gzip_bytes": len(gzip.compress(body))})
    for r in rows:
        print(json.dumps(r))
    svc.close()


if __name__ == "__main__":
    main()
