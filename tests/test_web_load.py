"""The web server stays responsive (issue 24): a real `wordle-dp serve` on the
default lists, real slow searches (strategies of bad openers take minutes), real
clients on the loopback interface told apart by source address.

Each scenario checks that cheap next-guess requests keep answering while slow work
runs, waits or is abandoned, and that cancelled work frees its worker at once. The
latency bound here is generous (CI machines are small and shared); the measured
figures are in BENCHMARKS.md (bench/load_web.py)."""

from __future__ import annotations

import re
import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from tests.web_load import (  # noqa: E402
    EVERYDAY,
    SLOW_OPENERS,
    Server,
    abandon,
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

P95_BOUND = 3.0  # seconds: the goal is 1 s on an idle 2-core machine (BENCHMARKS.md)
P95_GOAL = 1.0  # seconds: a player's next guess beside slow searches (issue 33)
# On a busy machine cheap requests are slow with or without slow jobs; what must hold
# is that slow jobs do not make them much slower than they are without any.
FREE_BOUND = 1.5  # seconds from a cancel (or a hang-up noticed) to a free worker


@pytest.fixture(scope="module")
def positions():
    return cheap_positions(100)


@pytest.fixture(scope="module")
def server():
    with Server("--workers", "2", "--request-seconds", "60") as s:
        yield s


@pytest.fixture(autouse=True)
def idle(server):
    """Every scenario starts and ends with no search running."""
    assert wait_until(lambda: busy(server.port) == 0, 30) is not None
    yield
    for j in range(1, 200):  # cancel whatever a failed scenario left behind
        request(server.port, "DELETE", f"/api/jobs/j{j}")
    assert wait_until(lambda: busy(server.port) == 0, 10) is not None


BASELINE: dict = {}


def _bound(server, positions) -> float:
    """The p95 bound for cheap requests: P95_BOUND, or on a machine too busy for it
    twice (plus 0.5 s) the p95 of cheap requests with no slow job at all, measured
    once (on positions the scenarios do not use: every answer is computed)."""
    if "p95" not in BASELINE:  # (the fixture's positions: a scenario passes a slice)
        s = summary(load(server.port, cheap_positions(100)[50:], concurrency=10))
        assert s["statuses"] == [200], s
        BASELINE["p95"] = s["p95_s"]
    return max(P95_BOUND, 2 * BASELINE["p95"] + 0.5)


def _cheap_ok(server, positions, k=30):
    bound = _bound(server, positions)
    res = load(server.port, positions[:k], concurrency=10)
    s = summary(res)
    assert s["statuses"] == [200], s
    assert s["p95_s"] <= bound, (s, BASELINE)
    return s


def test_two_slow_jobs_and_fifty_cheap_requests(server, positions):
    """The load test of issue 24: two slow strategy jobs running, 50 cheap
    next-guess requests 10 at a time; no 5xx, bounded memory, and every worker free
    within a second of the cancels."""
    bound = _bound(server, positions)
    ids = []
    for opener in SLOW_OPENERS[:2]:
        status, job = strategy_job(server.port, opener)
        assert status == 202, job
        ids.append(job["id"])
    assert wait_until(lambda: busy(server.port) == 2, 10) is not None
    res = load(server.port, positions[:50], concurrency=10)
    s = summary(res)
    assert s["requests"] == 50 and s["5xx"] == 0 and s["statuses"] == [200], s
    assert s["p95_s"] <= bound, (s, BASELINE)
    for jid in ids:  # still running: the cheap requests did not wait for them
        assert request(server.port, "GET", f"/api/jobs/{jid}")[1]["state"] == "running"
    state = workers(server.port)
    rss = [w["rss_bytes"] for w in state["slots"] if w["rss_bytes"]]
    assert rss and max(rss) < 1.5 * 2**30, state  # bounded: memo + table views
    for jid in ids:
        assert request(server.port, "DELETE", f"/api/jobs/{jid}")[1]["state"] == "cancelled"
    freed = wait_until(lambda: busy(server.port) == 0, 5)
    assert freed is not None and freed <= FREE_BOUND, freed


def test_abandoned_slow_request_stops_its_search(server, positions):
    """A client asks for a strategy that takes minutes and hangs up: the search stops
    within about a second, and nobody else waited for it meanwhile."""
    before = workers(server.port)["stats"]["killed"]
    t = threading.Thread(target=abandon, args=(server.port, "/api/strategy",
                                               {"opener": SLOW_OPENERS[2]}, 1.5))
    t.start()
    assert wait_until(lambda: busy(server.port) == 1, 5) is not None
    _cheap_ok(server, positions[::2], k=20)
    t.join()
    freed = wait_until(lambda: busy(server.port) == 0, 5)
    assert freed is not None and freed <= FREE_BOUND, freed
    assert workers(server.port)["stats"]["killed"] == before + 1


def test_nine_queued_slow_jobs_and_cancels(server, positions):
    """Three people submit nine slow jobs: a fourth... per client limit holds, the
    jobs wait their turn on the background workers, next-guess requests keep
    answering, and cancelling all nine frees every worker within a second."""
    clients = {"127.0.0.1": 4, "127.0.0.2": 3, "127.0.0.3": 2}
    ids = []
    openers = iter(SLOW_OPENERS)
    for client, n in clients.items():
        for _ in range(n):
            status, job = strategy_job(server.port, next(openers), client)
            assert status == 202, job
            ids.append(job["id"])
    status, body = strategy_job(server.port, SLOW_OPENERS[-1], "127.0.0.1")
    assert status == 429 and "4 jobs running or waiting" in body["error"], body
    def states():
        return [request(server.port, "GET", f"/api/jobs/{j}")[1]["state"] for j in ids]

    # the workers take their jobs from their own threads: on a loaded machine the
    # second may not have yet when the last job is submitted
    wait_until(lambda: states().count("running") == 2, 5)
    got = states()
    assert got.count("running") == 2 and got.count("queued") == 7, got
    _cheap_ok(server, positions[1::2], k=30)
    # a fourth person asks for one of the queued strategies: one shared computation
    shared = workers(server.port)["stats"]["shared"]
    status, job = strategy_job(server.port, SLOW_OPENERS[5], "127.0.0.4")
    assert status == 202 and workers(server.port)["stats"]["shared"] == shared + 1
    request(server.port, "DELETE", f"/api/jobs/{job['id']}")
    assert request(server.port, "GET", f"/api/jobs/{ids[5]}")[1]["state"] == "queued"
    for jid in ids:
        assert request(server.port, "DELETE", f"/api/jobs/{jid}")[0] == 200
    freed = wait_until(lambda: busy(server.port) == 0, 5)
    assert freed is not None and freed <= FREE_BOUND, freed
    assert all(request(server.port, "GET", f"/api/jobs/{j}")[1]["state"] == "cancelled"
               for j in ids)


def test_request_past_its_budget_becomes_a_job():
    """GET /api/strategy of a slow opener answers 202 with a job after the budget
    (4 s here), and the search goes on as that job until cancelled."""
    with Server("--workers", "1", "--request-seconds", "4") as server:
        _past_the_budget(server)


def _past_the_budget(server):
    status, body, secs = request(server.port, "GET", "/api/strategy",
                                 {"opener": SLOW_OPENERS[3]}, client="127.0.0.5")
    assert status == 202 and 3.5 <= secs <= 8, (status, secs)
    assert body["state"] == "running" and body["message"].startswith(
        "still computing after 4 s: poll /api/jobs/")
    assert busy(server.port) == 1
    # the same client asks again: one computation, a second job on it
    status, again, _ = request(server.port, "GET", "/api/strategy",
                               {"opener": SLOW_OPENERS[3]}, client="127.0.0.5")
    assert status == 202 and again["id"] != body["id"] and busy(server.port) == 1
    request(server.port, "DELETE", f"/api/jobs/{body['id']}")
    assert busy(server.port) == 1  # the other job still wants it
    request(server.port, "DELETE", f"/api/jobs/{again['id']}")
    freed = wait_until(lambda: busy(server.port) == 0, 5)
    assert freed is not None and freed <= FREE_BOUND


def test_no_server_path_in_any_answer(server):
    """Error answers and informational ones name lists and stores by name only."""
    absolute = re.compile(r"(?<![\w.:])/(?:[\w.-]+/)+[\w.-]*")
    bodies = [request(server.port, "GET", "/api/info")[1],
              request(server.port, "GET", "/api/stores")[1],
              request(server.port, "GET", "/api/next", {"position": "💩:BBBBB"})[1],
              request(server.port, "GET", "/api/next", {"position": "qqqqq:BBBBB"})[1],
              request(server.port, "GET", "/api/strategy", {"opener": "qqqqq"})[1],
              request(server.port, "POST", "/api/jobs", body={"kind": "strategy",
                                                              "opener": "💩"})[1]]
    text = repr(bodies)
    assert "guess list of the original lists" in text  # named, not the installed path
    assert not absolute.findall(text.replace("/api/", "")), absolute.findall(text)


def test_sigterm_cancels_everything_and_exits_within_seconds():
    """SIGTERM with searches running and waiting: exit in seconds, no worker left."""
    with Server("--workers", "1") as s:
        for opener in SLOW_OPENERS[:3]:
            assert strategy_job(s.port, opener)[0] == 202
        pids = []
        assert wait_until(lambda: busy(s.port) == 1, 10) is not None
        kids = open(f"/proc/{s.proc.pid}/task/{s.proc.pid}/children").read().split()
        pids = [int(k) for k in kids]
        secs = s.stop()
        assert s.proc.returncode == 0 and secs < 5, secs
        assert "server stopped" in s.proc.stderr.read()
    time.sleep(0.5)
    alive = [p for p in pids if _alive(p)]
    assert not alive, alive


def _nice(pid: int) -> int:
    """A process's niceness (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return "State:\tZ" not in f.read()
    except OSError:
        return False


def _everyday(slow: bool) -> dict:
    """Issue 33's everyday positions, 5 times each, 10 at a time, on a fresh server
    with the default split of two cores (one background worker), beside slow
    searches or not: the p95 etc. of a player's next guess (top 0)."""
    with Server("--workers", "1", "--request-seconds", "60") as server:
        warm(server.port)
        if slow:
            res = beside_slow_searches(server.port, EVERYDAY, repeat=5, concurrency=10, top=0)
        else:
            res = load(server.port, [p for _ in range(5) for p in EVERYDAY], 10, top=0)
        s = summary(res)
        cancel_all(server.port, 20)
        assert wait_until(lambda: busy(server.port) == 0, 5) is not None
    assert s["requests"] == 30 and s["statuses"] == [200], s
    return s


def test_background_searches_yield_the_cpu_after_a_restart():
    """A cancelled search's process is killed and a fresh one started: the next
    background search on it must be niced too (it ran at full priority, beside the
    quick answers, while its slot still named the killed process)."""
    with Server("--workers", "1") as server:
        _niced_after_restarts(server)


def _niced_after_restarts(server) -> None:
    warm(server.port)
    for opener in SLOW_OPENERS[:4]:
        status, job = strategy_job(server.port, opener)
        assert status == 202, job
        assert wait_until(lambda: busy(server.port) == 1, 10) is not None
        time.sleep(0.3)
        slot = next(w for w in workers(server.port)["slots"] if w["lane"] == "background")
        assert slot["pid"] and _nice(slot["pid"]) == 10, slot
        request(server.port, "DELETE", f"/api/jobs/{job['id']}")
        assert wait_until(lambda: busy(server.port) == 0, 5) is not None


def test_next_guesses_beside_slow_searches():
    """Issue 33: one strategy search abandoned and two strategy jobs running or
    queued, a player's next guess (what the page asks first: the guess alone) for
    six everyday positions answers within P95_GOAL at the 95th percentile; on a
    machine too busy for that, within twice the p95 of the same requests with no
    slow search plus 0.5 s (slow searches never hold every core, and cheap answers
    go first). bench/load_web.py --scenario issue33 measures it with and without the
    alternatives, and against another commit."""
    base = _everyday(slow=False)
    s = _everyday(slow=True)
    assert s["p95_s"] <= max(P95_GOAL, 2 * base["p95_s"] + 0.5), (s, base)
