"""Load on a real `wordle-dp serve` (default lists, localhost only): latency of
cheap next-guess requests without and with slow strategy jobs running, memory of
each worker process, and how fast cancels free the workers (issue 24).

    python bench/load_web.py                 # 50 requests, 10 at a time, 2 slow jobs
    python bench/load_web.py --rounds 3      # repeat, each round on new positions
    python bench/load_web.py --scenario issue33 --rounds 3 [--base DIR]

issue33: the six everyday positions of issue 33 asked 5 times each, 10 at a time,
beside a strategy search one client abandons and two strategy jobs running or
queued; a fresh server (default workers) per round so that every position is
computed, and the player's next guess alone (top 0, what the page asks first) then
with its 5 alternatives (top 5, the API's default). --base DIR also runs the same
rounds, interleaved, on another source tree (e.g. `git archive <commit> | tar -x
-C DIR`), with top 5 only where its page asked for one request.

Prints one JSON object per measurement. Bounded: at most rounds x 2 x requests
requests, each with a 60 s timeout; the server is stopped at the end."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.web_load import (  # noqa: E402
    EVERYDAY,
    SLOW_OPENERS,
    Server,
    beside_slow_searches,
    busy,
    cancel_all,
    cheap_positions,
    load,
    request,
    strategy_job,
    summary,
    wait_until,
    warm,
    workers,
)


def pss_mb(pid: int | None) -> float | None:
    """Proportional set size: shared pages (the table block) split among sharers."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except (OSError, TypeError):
        return None
    return None


def issue33(rounds: int, base: str | None) -> None:
    """The scenario of issue 33 (module docstring), one JSON line per measurement."""
    trees = [("this tree", Path(__file__).resolve().parents[1])]
    if base:
        trees.append(("base", Path(base).resolve()))
    for r in range(rounds):
        for name, root in trees:
            for top in ((0, 5) if name == "this tree" else (5,)):
                with Server("--request-seconds", "60", root=root) as s:
                    warm(s.port)  # every worker has made its solver
                    res = beside_slow_searches(s.port, EVERYDAY, top=top)
                    print(json.dumps({"round": r, "tree": name, "top": top,
                                      "workers": workers(s.port)["workers"],
                                      "loadavg": [round(x, 2) for x in os.getloadavg()],
                                      **summary(res)}), flush=True)
                    cancel_all(s.port, 20)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=50)
    ap.add_argument("--concurrency", type=int, default=10)
    ap.add_argument("--slow", type=int, default=2, help="slow strategy jobs running")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scenario", choices=("issue24", "issue33"), default="issue24")
    ap.add_argument("--base", metavar="DIR", help="issue33: also another source tree")
    a = ap.parse_args()
    if a.scenario == "issue33":
        print(json.dumps({"machine": platform.machine(), "cpus": os.cpu_count(),
                          "date": time.strftime("%Y-%m-%d %H:%M"),
                          "loadavg_before": [round(x, 2) for x in os.getloadavg()]}))
        issue33(a.rounds, a.base)
        return
    positions = cheap_positions(2 * a.requests * a.rounds)
    print(json.dumps({"machine": platform.machine(), "cpus": os.cpu_count(),
                      "python": platform.python_version(),
                      "date": time.strftime("%Y-%m-%d %H:%M"),
                      "loadavg_before": [round(x, 2) for x in os.getloadavg()]}))
    with Server("--workers", str(a.workers)) as s:
        time.sleep(2)  # let the workers make their solvers
        for r in range(a.rounds):
            chunk = positions[2 * r * a.requests:(2 * r + 2) * a.requests]
            res = load(s.port, chunk[:a.requests], a.concurrency)
            print(json.dumps({"round": r, "slow_jobs": 0, **summary(res)}))
            ids = [strategy_job(s.port, o)[1]["id"] for o in SLOW_OPENERS[:a.slow]]
            wait_until(lambda: busy(s.port) >= a.slow, 10)
            res = load(s.port, chunk[a.requests:], a.concurrency)
            state = workers(s.port)
            print(json.dumps({"round": r, "slow_jobs": a.slow, **summary(res),
                              "worker_rss_mb": [round(w["rss_bytes"] / 2**20)
                                                for w in state["slots"] if w["rss_bytes"]],
                              "worker_pss_mb": [pss_mb(w["pid"]) for w in state["slots"]
                                                if w["pid"]],
                              "server_pss_mb": pss_mb(s.proc.pid)}))
            for jid in ids:
                request(s.port, "DELETE", f"/api/jobs/{jid}")
            freed = wait_until(lambda: busy(s.port) == 0, 10)
            print(json.dumps({"round": r, "cancel_to_free_s": round(freed, 3)
                              if freed is not None else None}))
        exit_s = s.stop()
    print(json.dumps({"sigterm_exit_s": round(exit_s, 3),
                      "loadavg_after": [round(x, 2) for x in os.getloadavg()]}))


if __name__ == "__main__":
    main()
