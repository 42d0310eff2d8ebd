"""The most wins in the opening book (`wordle-dp book wins`, book.add_wins): a book
built on small lists where most openers cannot win every answer within the cap
(hard mode, cap 5: 2 of 35 can), then given the values under the objective wins
of some openers; every value against the brute force of tests/test_wins.py, read
back by solve, query and book show; a resumed call keeps what the book had; books
without the arrays read as before, damaged ones are refused in one line."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from solver import cli
from solver.book import Book, add_wins
from solver.errors import StoreError, UsageError
from solver.store import EXACT, INFEASIBLE, LOWER_BOUND, Store
from tests.game_helpers import write_lists
from tests.test_wins import WinsBrute, stem_lists
from tests.test_wins import brute_no_constraint as start_con

CAP = 5


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """(lists, the list options, the book file, a folder) for hard mode at cap 5;
    a fixed cutoff of 66 leaves flbd (65) exact, hfdl (66) a lower bound and the 33
    others infeasible."""
    d = tmp_path_factory.mktemp("bookwins")
    lists = stem_lists(0, 4, variants=7, n_guesses=14)
    a, g = write_lists(d, lists)
    opts = ["--answers", a, "--guesses", g, "--mode", "hard", "--max-guesses", str(CAP),
            "--cache-dir", str(d / "cache")]
    path = str(d / "b.npz")
    assert cli.main(["book", "build", *opts, "--store", str(d / "b.zarr"), "--out", path,
                     "--top", "1", "--popular", "0", "--no-players", "--cutoff", "66",
                     "--quiet"]) == 0
    b = Book.read(path, lists)
    assert b.wins is None and b.info.get("wins") is None  # none yet
    st = {w: int(b.status_codes[b.index_of(w)]) for w in ("flbd", "hfdl", "fihb")}
    assert st == {"flbd": EXACT, "hfdl": LOWER_BOUND, "fihb": INFEASIBLE}
    return lists, opts, path, d


def _brute(lists) -> dict[str, tuple[int, int]]:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    brute = WinsBrute(lists.answers, lists.guesses, "hard")
    s = frozenset(range(len(lists.answers)))
    return {w: brute.wins_guess(brute.guesses.index(w), s, CAP, start_con(4))
            for w in lists.guesses}


def _tamper(src: str, dst: Path, lists, *changes: tuple[str, int, int]) -> str:
    """A copy of the book with some openers' status and total changed ((word, status,
    total) each), as another build could have left them."""
    with np.load(src) as z:
        arrays = {k: np.asarray(z[k]) for k in z.files}
    for word, status, total in changes:
        i = lists.guesses.index(word)
        arrays["status"][i] = status
        arrays["total"][i] = total
    with open(dst, "wb") as f:
        np.savez_compressed(f, **arrays)
    return str(dst)


def test_book_wins_values_match_brute_force(book, capsys):
    lists, opts, path, d = book
    want = _brute(lists)
    n = len(lists.answers)
    # a bound left by a cutoff on an opener that cannot win everything (as the NYT
    # hard book has crane's): the wins value proves it infeasible
    path = _tamper(path, d / "t.npz", lists, ("bifi", LOWER_BOUND, 66))
    store = str(d / "w.zarr")
    # stopped before any opener is valued: the book stays as it was
    before = Path(path).read_bytes()
    capsys.readouterr()
    assert cli.main(["book", "wins", *opts, "--book", path, "--store", store, "--openers",
                     "fihb", "--time-limit", "0"]) == 0
    assert "can be resumed" in capsys.readouterr().err
    assert Path(path).read_bytes() == before
    assert cli.main(["book", "wins", *opts, "--book", path, "--store", store, "--openers",
                     "fihb,bifi", "--quiet"]) == 0
    b = Book.read(path, lists)
    assert b.info["wins"]["openers"] == 2 and b.info["wins"]["command"].startswith("wordle-dp")
    # resumed with more openers: the first two are not valued again, and kept
    capsys.readouterr()
    assert cli.main(["book", "wins", *opts, "--book", path, "--store", store, "--openers",
                     "fihb,bifi,ecbj,eaia,flbd,hfdl"]) == 0
    err = capsys.readouterr().err
    assert "4 opener(s) to value" in err and "2 of 6 selected already" in err, err
    assert "wrote the most wins of 5 opener(s)" in err  # flbd is exact: not stored
    b = Book.read(path, lists)
    assert b.wins is not None and b.wins_total is not None
    for w in ("fihb", "bifi", "ecbj", "eaia", "flbd", "hfdl"):
        i = b.index_of(w)
        assert (int(b.wins[i]), int(b.wins_total[i])) == want[w], w
        r = b.wins_result(w)
        assert r is not None and (r.wins, r.total, r.source) == (*want[w], "book")
    status = {w: int(b.status_codes[b.index_of(w)]) for w in ("bifi", "hfdl", "flbd")}
    # hfdl, a bound of the build, wins every answer: exact at its total now
    assert status == {"bifi": INFEASIBLE, "hfdl": EXACT, "flbd": EXACT}
    assert want["hfdl"][0] == n and int(b.total[b.index_of("hfdl")]) == want["hfdl"][1]
    assert want["flbd"] == (n, int(b.total[b.index_of("flbd")]))
    r = b.result("hfdl")
    assert r is not None and (r.status, r.total, r.depth) == ("exact", want["hfdl"][1], None)
    assert b.info["wins"]["exact"] == 1 and "1 more exact by it" in b.describe()
    lose = [b.words[i] for i in b.wins_order()]
    assert lose == sorted(["fihb", "bifi", "ecbj", "eaia"],
                          key=lambda w: (-want[w][0], want[w][1], w))
    # not valued under wins: no value
    assert b.wins_result("ggab") is None
    # the commands read them at once
    capsys.readouterr()
    assert cli.main(["solve", "fihb", "flbd", *opts, "--book", path, "--objective", "wins",
                     "--json"]) == 0
    got = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["wins"], r["total"], r["source"]) for r in got] == [
        (*want["fihb"], "book"), (*want["flbd"], "book")]
    assert cli.main(["solve", "fihb", *opts, "--book", path]) == 0
    out = capsys.readouterr().out
    assert out.startswith("fihb infeasible: infeasible within 5 guesses")
    w, t = want["fihb"]
    assert f"the most wins: {w} of {n} (90 %), {t} guesses summed over those" in out
    assert cli.main(["query", *opts[:4], "--book", path, "--mode", "hard", "--max-guesses",
                     "5", "fihb", "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert f"fihb  infeasible  wins {w} of {n}, total {t} over those ({t / w:.4f} avg)" in out
    assert "the most wins among the 4 openers the book holds" in out
    assert cli.main(["query", *opts[:4], "--book", path, "--mode", "hard", "--max-guesses",
                     "5", "fihb", "--json"]) == 0
    row = json.loads(capsys.readouterr().out.splitlines()[0])
    # the row keeps the expected objective's fields (no total: infeasible) and
    # gives the most wins beside them
    assert (row["status"], row["objective"], row["total"], row["average"]) == (
        "infeasible", "expected", None, None)
    assert (row["wins"], row["wins_total"]) == (w, t)
    assert cli.main(["book", "show", *opts, "--book", path]) == 0
    out = capsys.readouterr().out
    assert "the most wins of 4 openers that cannot win every answer" in out
    first = lose[0]
    assert f"  {first}  wins {want[first][0]} of {n}, total {want[first][1]}" in out


def test_book_wins_refuses_what_does_not_fit(book, tmp_path):
    lists, opts, path, d = book
    store = d / "w2.zarr"
    assert cli.main(["run", *opts, "--store", str(store), "--objective", "wins", "--openers",
                     "fihb", "--quiet"]) == 0
    # the book says fihb is exact (another engine's book): refused, the book unchanged
    bad = _tamper(path, tmp_path / "bad.npz", lists, ("fihb", EXACT, 70))
    before = Path(bad).read_bytes()
    with pytest.raises(UsageError, match="fihb: wins 19 of 21 .* not of one engine"):
        add_wins(bad, Store.open(store), "test")
    assert Path(bad).read_bytes() == before
    # a store of another objective, or of another problem
    with pytest.raises(UsageError, match="objective expected, not wins"):
        add_wins(path, Store.open(d / "b.zarr"), "test")
    easy = tmp_path / "easy.zarr"
    assert cli.main(["run", *opts, "--mode", "easy", "--store", str(easy), "--objective",
                     "wins", "--openers", "fihb", "--quiet"]) == 0
    with pytest.raises(UsageError, match="mode"):
        add_wins(path, Store.open(easy), "test")
    # damaged arrays of the most wins: one line
    ok = tmp_path / "ok.npz"
    shutil.copy(path, ok)
    add_wins(ok, Store.open(store), "test")
    with np.load(ok) as z:
        arrays = {k: np.asarray(z[k]) for k in z.files}
    arrays["wins"] = arrays["wins"][:0]
    broken = tmp_path / "broken.npz"
    with open(broken, "wb") as f:
        np.savez_compressed(f, **arrays)
    with pytest.raises(StoreError, match="the arrays of the most wins are damaged"):
        Book.read(broken, lists)


def test_the_nyt_hard_book_agrees_with_the_published_table():
    """Every opener of today's hard book that the most wins values: one that loses an
    answer is infeasible in the published table of an independent solver
    (../shared/exact/selby), one that wins every answer has the published total."""
    from solver.words import WordLists

    table = (Path(__file__).resolve().parents[2] / "shared" / "exact" / "selby"
             / "results_hard_nyt20230701")
    if not table.is_file():
        pytest.skip(f"the published NYT tables {table.parent} are absent")
    published = {}
    for line in table.read_text().splitlines():
        w, _avg, total = line.split()
        published[w] = int(total)
    lists = WordLists.load(lists="nyt", quiet=True)
    b = Book.find(lists, "hard", 6)
    assert b is not None
    if b.wins is None:
        pytest.skip("the book holds no values of the most wins")
    assert b.wins_total is not None
    n = len(lists.answers)
    valued = np.flatnonzero(b.wins >= 0)
    for i in valued.tolist():
        w = b.words[i]
        if b.wins[i] < n:
            assert published[w] == 1_000_000_000, w
            assert b.status_codes[i] == INFEASIBLE and 0 < b.wins[i]
        else:
            assert published[w] == int(b.wins_total[i]) == int(b.total[i]), w
            assert b.status_codes[i] == EXACT
    assert (b.wins[valued] < n).any()
