"""A real `wordle-dp serve` on the default lists and clients for it: used by the
scenario tests (tests/test_web_load.py) and the load benchmark (bench/load_web.py).

Every request goes to the loopback interface only; a client is told apart by its
source address (127.0.0.1, 127.0.0.2, ...: the server counts jobs per address).
Every loop here is bounded in count and time."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# bad openers whose easy-mode strategy takes a minute or more on 2 cores: "slow jobs"
SLOW_OPENERS = ("qajaq", "xylyl", "immix", "jujus", "pzazz", "yukky", "kudzu", "fuzzy",
                "vivid", "zizit")
# issue 33's everyday positions: one guess of a popular opener, from a few to 263
# candidates left (crane:BBBBB and trace:BBBBB rank their alternatives for seconds)
EVERYDAY = ("crane:BBBBB", "salet:BYBBB", "salet:BBBBB", "trace:BBBBB", "slate:BBYBB",
            "crate:BBYBB")


class Server:
    """`python -m solver serve --port 0 ...` in a subprocess; `.url`, `.stop()`."""

    def __init__(self, *args: str, env: dict | None = None, start_timeout: float = 120,
                 root: Path = ROOT, lists: str | None = "original"):
        """`root`: the source tree whose `solver` serves (another commit's, to compare);
        `lists`: the built-in lists served (the load scenarios and their figures are
        on the original ones); None: serve's default, the players' lists."""
        self.lists = lists
        named = ["--lists", lists] if lists else []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "solver", "serve", "--port", "0", *named, *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root,
            env={**os.environ, **(env or {}), "PYTHONPATH": str(root)})
        t0 = time.monotonic()
        line = self.proc.stdout.readline()
        if not line.startswith("wordle-dp: serving on "):
            self.proc.kill()
            raise RuntimeError(f"server did not start: {line!r} {self.proc.stderr.read()}")
        self.url = line.split()[3].rstrip("/")
        self.port = int(self.url.rsplit(":", 1)[1])
        self.started_in = time.monotonic() - t0

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> float:
        """Send `sig`; the seconds until the server exited."""
        t0 = time.monotonic()
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        return time.monotonic() - t0

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.stop()


def request(port: int, method: str, path: str, params: dict | None = None,
            body: dict | None = None, client: str = "127.0.0.1",
            timeout: float = 60) -> tuple[int, dict | None, float]:
    """(status, JSON body, seconds) of one request from source address `client`."""
    if params:
        path += "?" + urllib.parse.urlencode(params)
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                      source_address=(client, 0))
    try:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"content-type": "application/json"} if data else {}
        conn.request(method, path, body=data, headers=headers)
        r = conn.getresponse()
        raw = r.read()
        try:
            out = json.loads(raw)
        except ValueError:
            out = None
        return r.status, out, time.perf_counter() - t0
    finally:
        conn.close()


def abandon(port: int, path: str, params: dict, after: float) -> None:
    """Ask and hang up after `after` seconds without reading the answer."""

    try:
        request(port, "GET", path, params, timeout=after)
    except TimeoutError:
        pass


def cheap_positions(k: int, max_candidates: int = 25) -> list[str]:
    """`k` distinct one-guess positions after good openers with few candidates left
    (each answers in milliseconds with a warm solver)."""
    from solver.feedback import all_green, to_text
    from solver.table import get_table
    from solver.words import WordLists

    lists = WordLists.load(quiet=True)
    table, _ = get_table(lists, "numpy")
    out: list[str] = []
    for opener in ("crane", "salet", "slate", "trace", "crate", "roate"):
        row = table[lists.guess_index[opener]]
        codes, counts = np.unique(row, return_counts=True)
        for code, n in zip(codes, counts, strict=True):
            if code != all_green(5) and 2 <= n <= max_candidates:
                out.append(f"{opener}:{to_text(int(code), 5)}")
    if len(out) < k:
        raise ValueError(f"only {len(out)} cheap positions")
    step = len(out) / k
    return [out[int(i * step)] for i in range(k)]


def load(port: int, positions: list[str], concurrency: int = 10,
         timeout: float = 60, top: int | None = None) -> list[tuple[int, float]]:
    """GET /api/next for every position, `concurrency` at a time: (status, seconds).
    `top`: the alternatives asked for (None: the server's default, 5; the page asks
    for the next guess alone, top 0, then for its alternatives)."""
    def one(pos: str) -> tuple[int, float]:
        params = {"position": pos} if top is None else {"position": pos, "top": top}
        try:
            status, _body, secs = request(port, "GET", "/api/next", params, timeout=timeout)
        except TimeoutError:  # counted as status 0 after `timeout` seconds
            return 0, timeout
        return status, secs

    with ThreadPoolExecutor(concurrency) as ex:
        return list(ex.map(one, positions))


def summary(results: list[tuple[int, float]]) -> dict:
    secs = np.array([s for _st, s in results])
    return {"requests": len(results), "p50_s": round(float(np.percentile(secs, 50)), 3),
            "p95_s": round(float(np.percentile(secs, 95)), 3),
            "max_s": round(float(secs.max()), 3),
            "5xx": sum(1 for st, _s in results if st >= 500),
            "statuses": sorted({st for st, _s in results})}


def workers(port: int) -> dict:
    return request(port, "GET", "/api/workers")[1]


def wait_until(cond, timeout: float, every: float = 0.05) -> float | None:
    """Seconds until cond() held, or None after `timeout`."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if cond():
            return time.monotonic() - t0
        time.sleep(every)
    return None


def busy(port: int) -> int:
    return sum(1 for s in workers(port)["slots"] if s["busy"])


def strategy_job(port: int, opener: str, client: str = "127.0.0.1") -> tuple[int, dict]:
    status, body, _ = request(port, "POST", "/api/jobs",
                              body={"kind": "strategy", "opener": opener}, client=client)
    return status, body


def beside_slow_searches(port: int, positions=EVERYDAY, repeat: int = 5,
                         concurrency: int = 10, top: int | None = 0,
                         hang_up_after: float = 1.5) -> list[tuple[int, float]]:
    """Issue 33's scenario: a strategy search one client abandons (it hangs up
    after `hang_up_after` seconds) and two strategy jobs of another running or
    queued, then every position asked `repeat` times, `concurrency` at a time, by a
    third client. Returns the cheap requests' (status, seconds); the jobs are left
    running for the caller to cancel (cancel_all)."""
    import threading

    t = threading.Thread(target=abandon, args=(port, "/api/strategy",
                                               {"opener": SLOW_OPENERS[2]}, hang_up_after))
    t.start()
    for opener in SLOW_OPENERS[:2]:
        strategy_job(port, opener, client="127.0.0.3")
    wait_until(lambda: busy(port) >= 1, 10)
    try:
        return load(port, [p for _ in range(repeat) for p in positions], concurrency,
                    top=top)
    finally:
        t.join()


def cancel_all(port: int, upto: int = 200) -> None:
    """DELETE every job id the server may have given (j1 ... j<upto>)."""
    for j in range(1, upto):
        request(port, "DELETE", f"/api/jobs/j{j}")


def warm(port: int, k: int = 20) -> None:
    """Cheap requests until every worker process has started and answered (a slot
    reads its process's start only when it runs a task): measurements then start
    from a warm server."""
    load(port, cheap_positions(k + len(EVERYDAY) * 4)[-k:], concurrency=4, top=0)
