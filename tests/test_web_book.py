"""The web app with the opening book and at other word lengths: on the default lists
the page starts from the packaged book (the first move in milliseconds, the book in
the Results view with only its proven ranks, the Strategy view on the proven best
opener); on 6-letter lists the API and the board speak 6 letters."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from solver import Solver  # noqa: E402
from solver.book import Book, book_path  # noqa: E402
from solver.feedback import score, to_text  # noqa: E402
from solver.table import build_numpy  # noqa: E402
from solver.web.app import create_app  # noqa: E402
from solver.web.service import Service  # noqa: E402
from solver.words import WordLists  # noqa: E402


@pytest.fixture(scope="module")
def default_client():
    if not book_path("easy", 6).is_file():
        pytest.skip("no packaged easy book")
    lists = WordLists.load(quiet=True)
    svc = Service(lists, workers=1, quick_workers=1)
    yield TestClient(create_app(svc)), Book.find(lists, "easy", 6)
    svc.close()


def test_the_first_move_comes_from_the_book(default_client):
    client, book = default_client
    info = client.get("/api/info").json()
    books = [s for s in info["stores"] if s["kind"] == "book"]
    assert [(b["id"], b["mode"], b["proves_best"]) for b in books][:1] == [
        ("book-easy-6", "easy", True)]
    first = book.words[int(book.snapshot().order()[0])]
    assert info["default_opener"] == first
    r = client.get("/api/next", params={"position": "-", "top": 3})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["source"] == "book" and d["best"]["guess"] == first
    assert d["best"]["total"] == int(book.total[book.index_of(first)])
    assert len(d["alternatives"]) == 3
    assert "/" not in r.text.replace("\\/", "")  # no server path in the answer


def test_the_results_view_shows_the_book_with_proven_ranks(default_client):
    client, book = default_client
    s = client.get("/api/stores/book-easy-6").json()
    complete = book.table is not None and book.table.complete
    # a complete table proves every opener's rank; a book alone its top ones
    proven = len(book.words) if complete else book.info["top"]
    assert s["kind"] == "book" and s["proven_ranks"] == proven
    rows = client.get("/api/stores/book-easy-6/openers",
                      params={"status": "exact", "limit": 1000}).json()["rows"]
    ranked = [r for r in rows if r["rank"]]
    assert len(ranked) == min(proven, len(rows))
    if not complete:
        assert max(r["total"] for r in ranked) < min(r["total"] for r in rows
                                                     if not r["rank"])


def test_the_results_view_shows_the_table_beside_the_book(default_client):
    client, book = default_client
    s = client.get("/api/stores/book-easy-6").json()
    if book.table is None:
        assert s["table"] is None
        pytest.skip("no table beside the packaged easy book")
    t = s["table"]
    assert (t["valued"], t["complete"]) == (len(book.table.index), book.table.complete)
    own = Book.read(book.path, WordLists.load(quiet=True), table=False)
    word = next(book.words[int(i)] for i in book.table.index
                if own.status_codes[i] != 1 and book.status_codes[i] == 1)
    rows = client.get("/api/stores/book-easy-6/openers", params={"q": word}).json()["rows"]
    row = next(r for r in rows if r["opener"] == word)
    assert row["status"] == "exact" and row["total"] == int(book.total[book.index_of(word)])


def test_a_second_move_comes_from_the_books_moves_without_a_worker():
    """Today's lists: a second move the book's moves file holds is answered by the
    server itself (no job for a worker, no kernel), equal to the file."""
    lists = WordLists.load(lists="nyt", quiet=True)
    book = Book.find(lists, "easy", 6)
    if book is None or book.moves is None or not book.moves.openers():
        pytest.skip("no packaged moves for today's lists")
    moves = book.moves
    w = moves.openers()[0]
    g = lists.guess_index[w]
    rows = [int(p) for o, p in zip(moves.arrays["opener"], moves.arrays["pattern"],
                                   strict=True) if o == g]
    p = max(rows, key=lambda q: moves.lookup(g, q).total or -1)  # its dearest class
    move = moves.lookup(g, p)
    svc = Service(lists, workers=1, quick_workers=1)
    try:
        def no_worker(*_a, **_k):
            raise AssertionError("a worker was asked for what the moves file holds")

        svc.sched.submit = no_worker  # type: ignore[method-assign]
        client = TestClient(create_app(svc))
        r = client.get("/api/next", params={"position": f"{w}:{to_text(p, 5)}", "top": 3})
        assert r.status_code == 200, r.text
        d = r.json()
        assert d["source"] == "book"
        assert (d["best"]["guess"], d["best"]["total"], d["best"]["worst"]) == (
            move.best, move.total, move.worst)
        assert [(a["guess"], a["total"]) for a in d["alternatives"]] == list(
            move.alternatives[:3])
    finally:
        svc.close()


def _answer(client, path: str, params: dict) -> dict:
    """A GET's answer, following a 202 (past the request budget: a worker's first
    search compiles kernels, and the machine may be loaded) to its job's result."""
    import time

    r = client.get(path, params=params)
    assert r.status_code in (200, 202), r.text
    if r.status_code == 200:
        return r.json()
    job = r.json()["id"]
    for _ in range(1500):
        j = client.get(f"/api/jobs/{job}").json()
        if j["state"] in ("done", "error", "cancelled"):
            assert j["state"] == "done", j
            return j["result"]
        time.sleep(0.2)
    raise AssertionError(f"{path} {params}: no answer")


@pytest.fixture(scope="module")
def six(tmp_path_factory):
    real = WordLists.load(length=6, quiet=True)
    rng = random.Random(6)
    answers = sorted(rng.sample(real.answers, 40))
    guesses = sorted(set(rng.sample(real.guesses, 90)) | set(answers))
    lists = WordLists.from_words(answers, guesses)
    table = build_numpy(lists)
    svc = Service(lists, table=table, workers=1, quick_workers=1)
    yield TestClient(create_app(svc)), lists, table
    svc.close()


def test_six_letters_through_the_api(six):
    client, lists, table = six
    info = client.get("/api/info").json()
    assert info["length"] == 6
    opener, answer = lists.answers[0], lists.answers[5]
    pos = f"{opener}:{to_text(score(opener, answer), 6)}"
    d = _answer(client, "/api/next", {"position": pos, "top": 2})
    want = Solver(lists, table=table)
    members = [a for a in lists.answers if score(opener, a) == score(opener, answer)]
    assert d["candidates"] == len(members) and answer in d["words"]
    assert d["best"]["status"] == "exact"
    r = client.get("/api/next", params={"position": f"{opener}:BBBBB"})
    assert r.status_code == 400 and "must have 6 marks" in r.json()["error"]
    st = _answer(client, "/api/strategy", {"opener": opener})
    assert st["total"] == want.solve(opener).total, st
    assert all(len(step.split(":")[1]) == 6 for g in st["games"].values() for step in g)
