"""The engine's cheap facts and lower bounds against the brute force (tests/brute.py).

A bound is only useful if it is never above the true value: a refutation under a
cutoff (`solve(opener, cutoff=X)` -> lower_bound) is a proof only then. Checked here:

* `class_bound` (memo, separating member, class_lb by size, the one-guess look-ahead)
  on every feedback class of every opener of the cross-check's random instances, in
  every mode and cap: exact facts equal the brute value, bounds are at most it;
* `solve` under every cutoff from the partition bound up to the value: a lower bound
  in [cutoff, value], never above it, then the exact value once the cutoff passes it;
  infeasible openers are never reported feasible;
* the engine's bound on all the answers (kmax[0], the most classes any guess makes).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_search_crosscheck import SEEDS, _lists, _solver, brute, instance, reference

from solver.search import layout as K
from solver.search.layout import partition_bound

GREEN = 242  # all five letters green: 3**5 - 1

BOUND_SEEDS = [s for s in SEEDS if s % 5 == 2][:48]  # every kind, mode and cap


def _brute_classes(inst, opener):
    """The opener's non-green feedback classes in the brute force: (pattern, frozenset
    of brute answer indices, hard-mode constraint after the opener or None)."""
    b = brute(inst)
    g = b.guesses.index(opener)
    con = None
    if inst.mode == "hard":
        from brute import NO_CONSTRAINT

        con = NO_CONSTRAINT
    for p, cls in b.split(g, frozenset(range(len(inst.answers)))).items():
        if p != GREEN:
            yield p, cls, (b.update(con, opener, p) if con is not None else None)


@pytest.mark.parametrize("seed", BOUND_SEEDS, ids=[f"seed-{s}" for s in BOUND_SEEDS])
def test_class_facts_never_above_brute(seed):
    inst = instance(seed)
    b = brute(inst)
    s = _solver(inst, inst.cap)
    lists = _lists(inst)
    ids = {w: i for i, w in enumerate(lists.answers)}
    left = (inst.cap or s.depth_limit) - 1
    checked = 0
    for opener in inst.openers:
        gid = lists.guesses.index(opener)
        members = np.arange(len(lists.answers), dtype=np.int32)
        ours = {p: (m, c) for p, m, c in s._child_sets(gid, members, None)}
        for p, cls, con in _brute_classes(inst, opener):
            m, cons = ours[p]
            assert sorted(ids[inst.answers[a]] for a in cls) == sorted(m.tolist())
            want = b.value(cls, left if inst.cap else None, con)
            for deep in (False, True):
                v, fl, h = (int(x) for x in s._class_bound(m, left, cons, deep))
                where = f"opener={opener} class={sorted(cls)} deep={deep}\n{inst.describe()}"
                if fl & K.EXACT:
                    assert (None if v >= K.INF else v) == want, (v, want, where)
                    assert v >= K.INF or 1 <= h <= left, (h, where)
                elif want is not None:
                    assert v <= want, (v, want, where)
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("seed", BOUND_SEEDS, ids=[f"seed-{s}" for s in BOUND_SEEDS])
def test_every_cutoff_gives_a_true_bound(seed):
    """Cutoffs from the partition bound up to one past the value, on one solver (so
    that later solves meet the memo entries of earlier, cut-off ones)."""
    inst = instance(seed)
    s = _solver(inst, inst.cap)
    lists = _lists(inst)
    for opener in inst.openers:
        want = reference(seed)[opener][0]
        where = f"opener={opener}\n{inst.describe()}"
        gid = lists.guesses.index(opener)
        row = s.table[gid]
        sizes = np.bincount(row, minlength=243)
        sizes[GREEN] = 0
        lo = partition_bound(len(lists.answers), sizes[sizes > 0])
        if want is None:
            for cut in (lo, lo + 3, lo + 40, 10**6):
                r = s.solve(opener, cutoff=cut)
                assert r.status in ("infeasible", "lower_bound"), (cut, r, where)
                assert r.status == "infeasible" or r.total >= cut, (cut, r, where)
            continue
        assert lo <= want, where
        cuts = sorted({lo, want, want + 1, *np.linspace(lo, want, 7).astype(int).tolist()})
        for cut in cuts:
            r = s.solve(opener, cutoff=cut)
            if cut > want:
                assert (r.status, r.total) == ("exact", want), (cut, r, where)
            else:
                assert r.status == "lower_bound", (cut, r, where)
                assert cut <= r.total <= want, (cut, r, where)
        assert (s.solve(opener).status, s.solve(opener).total) == ("exact", want), where


def test_kmax_is_the_most_classes_of_any_guess():
    inst = instance(BOUND_SEEDS[0])
    s = _solver(inst, inst.cap)
    most = max(len(np.unique(row)) for row in s.table)
    assert int(s._ctx.kmax[0]) == most
    per = [len(np.unique(row)) for row in s.table]
    assert s._ctx.gclass.tolist() == per
    assert list(s._ctx.gclass[s._ctx.gorder]) == sorted(per, reverse=True)


def test_hard_openers_with_an_infeasible_small_class_are_labelled_infeasible():
    """Under a cutoff, hard mode values an opener's classes of up to EXACT_SMALL
    answers exactly before any look-ahead bound (easy mode puts the bounds first),
    so an opener one of whose small classes cannot be solved within the cap comes
    out 'infeasible', not merely bounded. Each small class is valued alone by a
    fresh solver (class_value); the full lists, hard mode, cutoff 8123."""
    import random

    from solver.search.engine import EXACT_SMALL, Solver

    s = Solver(mode="hard")
    alone = Solver(mode="hard")
    words = random.Random(34).sample(sorted(s.lists.guesses), 60)
    infeasible = 0
    for w in words:
        gid = s.lists.guesses.index(w)
        sizes = np.bincount(s.table[gid], minlength=243)
        small = [p for p in np.flatnonzero(sizes) if p != GREEN and sizes[p] <= EXACT_SMALL]
        if any(alone.class_value(w, int(p))[0] == "infeasible" for p in small):
            infeasible += 1
            assert s.solve(w, cutoff=8123).status == "infeasible", w
    assert infeasible >= 3  # the sample has some (about one hard opener in eight)
