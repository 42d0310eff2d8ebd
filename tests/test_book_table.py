"""The table beside the book (`wordle-dp book table`, book/table.py): a table run's
store (no cutoff) written into the compact file, finished or not, and read into the
book, which then answers every opener the table holds ("from the table").

On small lists in every mode: a book (3 best proven, bounds elsewhere) and a table
run over part of the openers, then the whole; every table value against the brute
force of tests/brute.py; the book's exact values equal, its bounds never above;
solve, query and the strategy read the table; a store with a cutoff, a damaged
table and a foreign one are refused or left unused in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from solver import cli
from solver.book import Book, Table, table_path
from solver.errors import StoreError
from solver.store import EXACT, INFEASIBLE, LOWER_BOUND, ClassStore, Store
from tests.brute import brute_value
from tests.game_helpers import small_lists, write_lists

MODES = ("easy", "hard", "strict")
CAP = 4  # small enough that some openers are infeasible in hard and strict mode


@pytest.fixture(scope="module", params=MODES)
def made(request, tmp_path_factory):
    """(mode, lists, options, folder, book path, table store): a book, and a table
    run's store over the first 12 openers (a table still under way)."""
    mode = request.param
    d = tmp_path_factory.mktemp(f"table-{mode}")
    lists = small_lists(7, n_answers=16, n_guesses=30)
    a, g = write_lists(d, lists)
    opts = ["--answers", a, "--guesses", g, "--mode", mode, "--max-guesses", str(CAP),
            "--cache-dir", str(d / "cache")]
    book = str(d / "b.npz")
    assert cli.main(["book", "build", *opts, "--store", str(d / "b.zarr"), "--out", book,
                     "--top", "2", "--popular", "3", "--no-players", "--quiet"]) == 0
    store = str(d / "t.zarr")
    first = ",".join(lists.guesses[:12])
    assert cli.main(["run", *opts, "--store", store, "--openers", first, "--quiet"]) == 0
    return mode, lists, opts, d, book, store


def _write(made, capsys) -> Path:
    _mode, _lists, opts, _d, book, store = made
    out = table_path(book)
    assert cli.main(["book", "table", *opts, "--store", store, "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().err
    return out


def test_a_partial_table_holds_what_its_run_proved(made, capsys):
    mode, lists, _opts, _d, book, store = made
    out = _write(made, capsys)
    s = Store.open(store)
    t = Table.read(out, s.problem)
    assert list(t.index) == list(range(12)) and not t.complete
    assert t.info["valued"] == 12 and t.info["n_guesses"] == len(lists.guesses)
    snap = s.snapshot()
    assert (t.total == snap.fields["total"][:12]).all()
    assert (t.status == snap.status[:12]).all()
    classes = ClassStore(s.path, len(s.words), s.problem.n_patterns)
    for k in np.flatnonzero(t.status == EXACT):
        got = classes.results(int(k))
        assert t.classes(int(k)) == [(p, r.second, r.total) for p, r in sorted(got.items())]
    for k in np.flatnonzero(t.status == INFEASIBLE):
        assert t.classes(int(k)) == []
    # every value against the brute force, infeasible as None
    for k in range(12):
        v = brute_value(lists.answers, lists.guesses, lists.guesses[k], mode, CAP)
        assert (None if t.status[k] == INFEASIBLE else int(t.total[k])) == v, lists.guesses[k]


def test_the_book_shows_the_tables_values(made, capsys):
    _mode, lists, opts, _d, book, _store = made
    _write(made, capsys)
    plain = Book.read(book, lists, table=False)
    b = Book.read(book, lists)
    assert plain.table is None and b.table is not None
    held = set(b.table.index.tolist())
    for i in range(len(lists.guesses)):
        if i not in held:  # the book's own, as it was
            assert (b.status_codes[i], b.total[i]) == (plain.status_codes[i], plain.total[i])
            assert b.source_of(i) == "book"
            continue
        assert b.source_of(i) == "table"
        st, tot = int(plain.status_codes[i]), int(plain.total[i])
        if st in (EXACT, INFEASIBLE):  # what both prove agrees
            assert st == b.status_codes[i]
            if st == EXACT:
                assert tot == b.total[i]
                assert plain.class_total(i, 0) == b.class_total(i, 0)
        elif st == LOWER_BOUND and b.status_codes[i] == EXACT:
            assert tot <= b.total[i]
        if b.status_codes[i] == EXACT:
            assert b.second_guesses(i) == {p: lists.guesses[g]
                                           for p, g, _v in b.table.classes(i)}
    assert f"with the table b.table.npz: 12 of {len(lists.guesses)} openers so far" in b.describe()


def test_solve_and_query_answer_from_the_table(made, capsys, monkeypatch):
    _mode, lists, opts, _d, book, _store = made
    _write(made, capsys)
    b = Book.read(book, lists)
    word = next(w for i, w in enumerate(lists.guesses)
                if b.source_of(i) == "table" and b.status_codes[i] == EXACT)
    import solver.cli.solve as S

    def no_solver(*_a, **_k):
        raise AssertionError("a solver was made for a value the table holds")

    monkeypatch.setattr(S, "Solver", no_solver, raising=False)
    assert cli.main(["solve", word, *opts, "--book", book]) == 0
    line = capsys.readouterr().out
    assert f"{word} exact: {int(b.total[lists.guess_index[word]])}" in line
    assert "from the table" in line
    assert cli.main(["solve", word, *opts, "--book", book, "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["source"] == "table"
    assert cli.main(["query", *opts[:-2], "--book", book, word]) == 0
    assert str(int(b.total[lists.guess_index[word]])) in capsys.readouterr().out
    csv = Path(book).with_name("all.csv")
    assert cli.main(["export", *opts[:-2], "--book", book, "--csv", str(csv)]) == 0
    rows = {r.split(",")[0]: r.split(",") for r in csv.read_text().splitlines()[1:]}
    assert len(rows) == len(lists.guesses)
    for i in b.table.index:  # every opener the table holds, with its value
        r = rows[lists.guesses[int(i)]]
        assert r[2] == ("exact" if b.status_codes[i] == EXACT else "infeasible")
        if r[2] == "exact":
            assert int(r[3]) == int(b.total[i])


def test_a_finished_table_is_complete(made, capsys):
    _mode, lists, opts, d, book, store = made
    part = Table.read(_write(made, capsys), Store.open(store).problem)
    done = d / "all.zarr"
    shutil.copytree(store, done)
    assert cli.main(["run", *opts, "--store", str(done), "--quiet"]) == 0
    out = d / "all.table.npz"
    assert cli.main(["book", "table", *opts, "--store", str(done), "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().err
    t = Table.read(out, Store.open(done).problem)
    assert t.complete and len(t.index) == len(lists.guesses)
    assert "every opener" in t.describe()
    # what the resumed run had already valued is the same
    assert (t.total[:12] == part.total).all() and (t.status[:12] == part.status).all()


def test_a_store_with_a_cutoff_is_not_a_table(made, capsys):
    _mode, _lists, opts, d, _book, _store = made
    rc = cli.main(["book", "table", *opts, "--store", str(d / "b.zarr"), "--out",
                   str(d / "x.table.npz")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert err.startswith("wordle-dp: error: ") and "cutoff" in err
    assert not (d / "x.table.npz").exists()


def test_a_damaged_or_foreign_table_is_not_used(made, capsys, tmp_path):
    mode, lists, opts, _d, book, _store = made
    out = _write(made, capsys)
    copy = tmp_path / "b.npz"
    shutil.copy(book, copy)
    (tmp_path / "b.table.npz").write_bytes(out.read_bytes()[:300])
    b = Book.read(copy, lists)
    assert b.table is None and (b.status_codes == Book.read(book, lists, False).status_codes).all()
    (tmp_path / "cut.npz").write_bytes(Path(book).read_bytes()[:300])  # a cut book
    with pytest.raises(StoreError, match="not a readable opening book"):
        Book.read(tmp_path / "cut.npz", lists)
    with pytest.raises(StoreError, match="not a readable table"):
        Table.read(tmp_path / "b.table.npz", b.problem)
    other = small_lists(8, n_answers=16, n_guesses=30)  # another problem
    shutil.copy(out, tmp_path / "b.table.npz")
    from solver.store import Problem

    with pytest.raises(StoreError, match="another problem"):
        Table.read(tmp_path / "b.table.npz", Problem.from_lists(other, mode, CAP))


def test_a_table_openers_second_move_shows_its_waits(made, capsys):
    """A class of an opener the table holds, with no moves file: the alternatives are
    counted as they are ranked, and the tie-break among equal totals after them is one
    search with nothing to count (the progress's `wait`, a line with the time on a
    terminal)."""
    from solver import Solver
    from solver.game import Position, analyse

    mode, lists, _opts, _d, book, _store = made
    _write(made, capsys)
    b = Book.read(book, lists)
    i = next(i for i in b.table.index.tolist() if b.status_codes[i] == EXACT)
    pattern, second, total = b.table.classes(i)[0]
    pos = Position.start(lists, mode, CAP).play(lists.guesses[i], pattern)
    seen: list = []

    class Recorder:
        def __call__(self, done: int, of: int) -> None:
            seen.append(("ranked", done, of))

        def wait(self, note: str):
            import contextlib

            seen.append(("wait", note))
            return contextlib.nullcontext()

    res = analyse(Solver(lists, mode, CAP), pos, top=2, store=b, progress=Recorder())
    assert res.source == "table" and res.best.total == total
    # the alternatives are ranked first, counted; the tie-break then reads their memo
    wait = seen.index(("wait", "the smallest worst case among guesses of that total"))
    assert wait > 0 and all(s[0] == "ranked" for s in seen[:wait])
