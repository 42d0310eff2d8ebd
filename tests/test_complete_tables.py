"""The complete tables of the original lists (issue 48): the table files shipped
beside the books (solver/data/book/MODE-6.table.npz) and, while their resumable runs
fill checkpoints/table-MODE-6.zarr in the repository, those stores: every opener
valued so far against every independent source that has it.

- the shipped file: every opener it holds equal to the store's (it is written from
  the store and may lag it);

- Selby's published exact values (../shared/exact/selby: 3593 easy openers, the
  top 105 among them, and the hard top 101): equal;
- the packaged opening book: its exact values equal, its lower bounds never above;
- a fresh engine in this process, on a seeded sample of the stored openers: equal.

An exact table is never a lower bound: a run for the table has no cutoff. The checks
read the store where it is (it leaves the repository when the table is complete) and
the shipped file for what the store lacks; a mode with neither is skipped."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from solver import Solver
from solver.book import Book, Table, book_path, table_path
from solver.store import EXACT, INFEASIBLE, LOWER_BOUND, PENDING, Problem, Store
from solver.words import WordLists

ROOT = Path(__file__).resolve().parents[1]
SELBY = ROOT.parent / "shared" / "exact" / "selby"
PUBLISHED = {"easy": ("normal.top105.proven", "normal.some3593.proven"),
             "hard": ("hard.top101.proven",)}
SAMPLE = 3  # openers re-solved from scratch per mode, among the cheapest stored ones
MAX_CPU = 2.0  # seconds: the most a re-solved opener took in the run


def _store(mode: str) -> Store | None:
    path = ROOT / "checkpoints" / f"table-{mode}-6.zarr"
    return Store.open(path, read_only=True) if path.is_dir() else None


def _file(mode: str) -> Table | None:
    path = table_path(book_path(mode, 6))
    if not path.is_file():
        return None
    lists = WordLists.load(lists="original", quiet=True)
    return Table.read(path, Problem.from_lists(lists, mode, 6))


def _stored(store: Store) -> dict[str, tuple[int, int, float]]:
    snap = store.snapshot()
    total, cpu = snap.fields["total"], snap.fields["cpu_seconds"]
    return {store.words[int(i)]: (int(snap.status[i]), int(total[i]), float(cpu[i]))
            for i in np.flatnonzero(snap.status != PENDING)}


def _shipped(table: Table) -> dict[str, tuple[int, int, float]]:
    words = WordLists.load(lists="original", quiet=True).guesses
    return {words[int(i)]: (int(s), int(t), float(c))
            for i, s, t, c in zip(table.index, table.status, table.total, table.cpu,
                                  strict=True)}


def _valued(mode: str) -> dict[str, tuple[int, int]]:
    """Every opener valued so far, by the store, else by the shipped file: (status,
    total). Skips the mode when there is neither."""
    return {w: (st, t) for w, (st, t, _c) in _values(mode).items()}


def _values(mode: str) -> dict[str, tuple[int, int, float]]:
    store, table = _store(mode), _file(mode)
    if store is None and table is None:
        pytest.skip(f"no table of {mode} mode in this checkout (store or file)")
    got = _shipped(table) if table is not None else {}
    if store is not None:
        got.update(_stored(store))
    return got


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_the_shipped_file_equals_its_store(mode):
    store, table = _store(mode), _file(mode)
    if store is None or table is None:
        pytest.skip("needs both the store and the shipped file")
    stored = _stored(store)
    for w, (st, total, _cpu) in _shipped(table).items():
        assert stored.get(w, (None, None, 0))[:2] == (st, total), w


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_the_table_is_for_the_original_lists_with_no_cutoff(mode):
    store = _store(mode)
    if store is None:
        pytest.skip(f"no table store of {mode} mode in this checkout")
    lists = WordLists.load(lists="original", quiet=True)
    p = store.problem
    assert (p.answers_sha256, p.guesses_sha256) == (lists.answers_sha256,
                                                    lists.guesses_sha256)
    assert (p.mode, p.max_guesses, store.cutoff) == (mode, 6, None)
    valued = _valued(mode)
    assert all(st in (EXACT, INFEASIBLE) for st, _ in valued.values())


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_every_stored_value_equals_the_published_ones(mode):
    valued = _valued(mode)
    files = [SELBY / f for f in PUBLISHED[mode] if (SELBY / f).is_file()]
    if not files:
        pytest.skip("../shared/exact is absent")
    both = 0
    for f in files:
        for line in f.read_text().splitlines():
            parts = line.split()
            if parts and parts[0] in valued:
                assert valued[parts[0]] == (EXACT, int(parts[-1])), parts[0]
                both += 1
    print(f"{mode}: {len(valued)} openers valued, {both} of them published")


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_every_stored_value_agrees_with_the_book(mode):
    valued = _valued(mode)
    lists = WordLists.load(lists="original", quiet=True)
    book = Book.read(book_path(mode, 6), lists, table=False)  # the book's own values
    for w, (st, total) in valued.items():
        i = book.index_of(w)
        if book.status_codes[i] == EXACT:
            assert (st, total) == (EXACT, int(book.total[i])), w
        elif book.status_codes[i] == INFEASIBLE:
            assert st == INFEASIBLE, w
        elif book.status_codes[i] == LOWER_BOUND:
            assert st == INFEASIBLE or total >= int(book.total[i]), w


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_a_sample_recomputed_from_scratch(mode):
    values = _values(mode)
    if not values:
        pytest.skip("nothing valued yet")
    cheap = sorted((w for w, v in values.items() if v[2] < MAX_CPU),
                   key=lambda w: (values[w][2], w))[:50]
    if not cheap:
        pytest.skip(f"no stored opener took under {MAX_CPU} s of CPU yet")
    pick = random.Random(f"tables-{mode}").sample(cheap, min(SAMPLE, len(cheap)))
    s = Solver(WordLists.load(lists="original", quiet=True), mode=mode, max_guesses=6)
    for w in pick:
        st, total, _cpu = values[w]
        r = s.solve(w)
        want = "exact" if st == EXACT else "infeasible"
        assert r.status == want, w
        if want == "exact":
            assert r.total == total, w


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_the_book_with_its_table_keeps_its_proven_best(mode):
    if _file(mode) is None:
        pytest.skip(f"no shipped table of {mode} mode")
    lists = WordLists.load(lists="original", quiet=True)
    own = Book.read(book_path(mode, 6), lists, table=False)
    view = Book.read(book_path(mode, 6), lists)
    assert view.table is not None
    top = own.info["top"]
    best = [own.words[int(i)] for i in own.snapshot().order()[:top]]
    assert [view.words[int(i)] for i in view.snapshot().order()[:top]] == best
    kth = int(own.total[own.index_of(best[-1])])
    # every other opener the table holds is no better than the k-th best (the
    # book's own top ones, cheap, come late in the table's run, dearest first)
    held = np.setdiff1d(view.table.index, [own.index_of(w) for w in best])
    assert (view.total[held][view.status_codes[held] == EXACT] >= kth).all()


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_a_complete_table_holds_every_opener_and_the_published_best(mode):
    """Once complete: every one of the 12 972 openers, each exact or infeasible, and
    its best totals are Selby's proven top ones, total for total (a tie at the
    edge of his list may name other words)."""
    table = _file(mode)
    if table is None or not table.complete:
        pytest.skip(f"the {mode} table is not complete yet")
    n = len(WordLists.load(lists="original", quiet=True).guesses)
    assert np.array_equal(table.index, np.arange(n))
    assert set(np.unique(table.status).tolist()) <= {EXACT, INFEASIBLE}
    top = SELBY / PUBLISHED[mode][0]
    if not top.is_file():
        pytest.skip("../shared/exact is absent")
    published = sorted(int(line.split()[-1]) for line in top.read_text().splitlines()
                       if line.strip())
    ours = np.sort(table.total[table.status == EXACT])[:len(published)]
    assert ours.tolist() == published
