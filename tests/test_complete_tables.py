"""The complete tables of the original lists (issue 48), while their resumable runs
fill checkpoints/table-MODE-6.zarr in the repository: every opener valued so far
against every independent source that has it.

- Selby's published exact values (../shared/exact/selby: the easy top 105 and 3593
  more, the hard top 101): equal;
- the packaged opening book: its exact values equal, its lower bounds never above;
- a fresh engine in this process, on a seeded sample of the stored openers: equal.

An exact table is never a lower bound: a run for the table has no cutoff. The module
skips a mode whose store is absent (it leaves the repository when the table ships)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from solver import Solver
from solver.book import Book
from solver.store import EXACT, INFEASIBLE, LOWER_BOUND, PENDING, Store
from solver.words import WordLists

ROOT = Path(__file__).resolve().parents[1]
SELBY = ROOT.parent / "shared" / "exact" / "selby"
PUBLISHED = {"easy": ("normal.top105.proven", "normal.some3593.proven"),
             "hard": ("hard.top101.proven",)}
SAMPLE = 3  # openers re-solved from scratch per mode, among the cheapest stored ones
MAX_CPU = 2.0  # seconds: the most a re-solved opener took in the run


def _store(mode: str) -> Store:
    path = ROOT / "checkpoints" / f"table-{mode}-6.zarr"
    if not path.is_dir():
        pytest.skip(f"no table store {path.name} in this checkout")
    return Store.open(path, read_only=True)


def _valued(store: Store) -> dict[str, tuple[int, int]]:
    snap = store.snapshot()
    total = snap.fields["total"]
    return {store.words[int(i)]: (int(snap.status[i]), int(total[i]))
            for i in np.flatnonzero(snap.status != PENDING)}


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_the_table_is_for_the_original_lists_with_no_cutoff(mode):
    store = _store(mode)
    lists = WordLists.load(lists="original", quiet=True)
    p = store.problem
    assert (p.answers_sha256, p.guesses_sha256) == (lists.answers_sha256,
                                                    lists.guesses_sha256)
    assert (p.mode, p.max_guesses, store.cutoff) == (mode, 6, None)
    valued = _valued(store)
    assert all(st in (EXACT, INFEASIBLE) for st, _ in valued.values())


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_every_stored_value_equals_the_published_ones(mode):
    store = _store(mode)
    valued = _valued(store)
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
    store = _store(mode)
    lists = WordLists.load(lists="original", quiet=True)
    book = Book.find(lists, mode, 6)
    assert book is not None
    for w, (st, total) in _valued(store).items():
        i = book.index_of(w)
        if book.status_codes[i] == EXACT:
            assert (st, total) == (EXACT, int(book.total[i])), w
        elif book.status_codes[i] == INFEASIBLE:
            assert st == INFEASIBLE, w
        elif book.status_codes[i] == LOWER_BOUND:
            assert st == INFEASIBLE or total >= int(book.total[i]), w


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_a_sample_recomputed_from_scratch(mode):
    store = _store(mode)
    snap = store.snapshot()
    cpu = snap.fields["cpu_seconds"]
    done = [int(i) for i in np.flatnonzero(snap.status != PENDING)]
    if not done:
        pytest.skip("nothing valued yet")
    cheap = sorted((i for i in done if cpu[i] < MAX_CPU), key=lambda i: (cpu[i], i))[:50]
    if not cheap:
        pytest.skip(f"no stored opener took under {MAX_CPU} s of CPU yet")
    pick = random.Random(f"tables-{mode}").sample(cheap, min(SAMPLE, len(cheap)))
    s = Solver(WordLists.load(lists="original", quiet=True), mode=mode, max_guesses=6)
    for i in pick:
        r = s.solve(store.words[i])
        want = "exact" if snap.status[i] == EXACT else "infeasible"
        assert r.status == want, store.words[i]
        if want == "exact":
            assert r.total == int(snap.fields["total"][i]), store.words[i]
