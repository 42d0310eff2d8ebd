"""What the engine's results prove, and its memo under pressure.

* beam results are upper bounds or "not_found", never infeasible or a lower bound
  the search did not prove;
* the uncapped search's hidden depth limit is reported when it mattered;
* memo_store matches entries exactly as memo_find does (key, tag and set size);
* tainted entries are reused as lower bounds with fewer guesses left;
* a tiny memo (eviction all the time), duplicate removal off and many openers on
  one solver give the brute-force values.
"""

from __future__ import annotations

import numpy as np
import pytest
from brute import Brute
from test_search_crosscheck import (
    DEEP_CAPS,
    DEEP_SEEDS,
    SEEDS,
    _check,
    _lists,
    deep_instance,
    deep_reference,
    instance,
    reference,
)

from solver import Solver
from solver.search import engine
from solver.search import kernels as K
from solver.table import build_numpy
from solver.words import WordLists

# A small hard-mode instance (answers sharing _U_?Y-like shapes, few useful guesses)
# where the single most promising guess leads nowhere within 4 guesses, though other
# guesses do (found by scanning random small instances).
BEAM_ANSWERS = ["pushy", "dusky", "gully", "zesty", "fussy", "musty", "gassy", "testy",
                "gummy"]
BEAM_GUESSES = ["chirp", "yenta", "xebec", "imido", "night", "conne", "raked", "skran",
                "slaid", "lieve", "pacos", "goels", "state", "cuifs", "goner", "kubie",
                "hakas", "earls", "hunks", "narre"]


def _beam_solvers(beam: int | None):
    lists = WordLists.from_words(BEAM_ANSWERS, BEAM_GUESSES)
    return Solver(lists, mode="hard", max_guesses=4, table=build_numpy(lists), beam=beam)


def test_beam_failure_is_not_infeasible():
    brute = Brute(BEAM_ANSWERS, BEAM_GUESSES, "hard")
    exact = _beam_solvers(None)
    narrow = _beam_solvers(1)
    not_found = 0
    for opener in BEAM_GUESSES:
        want = brute.solve(opener, 4)
        r = exact.solve(opener)
        rb = narrow.solve(opener)
        where = f"{opener}: brute {want}, exact {r}, beam {rb}"
        assert rb.status in ("upper_bound", "not_found"), where
        if rb.status == "upper_bound":
            assert want is not None and rb.total >= want, where
        if rb.status == "not_found":
            assert rb.total is None and "beam" in rb.note, where
            not_found += want is not None
    # the instance is chosen so that the beam misses feasible openers (xebec: 28)
    assert not_found >= 1
    assert brute.solve("xebec", 4) is not None
    assert narrow.solve("xebec").status == "not_found"


def test_beam_with_cutoff_proves_no_lower_bound():
    brute = Brute(BEAM_ANSWERS, BEAM_GUESSES, "hard")
    narrow = _beam_solvers(1)
    for opener in BEAM_GUESSES:
        want = brute.solve(opener, 4)
        if want is None:
            continue
        lb = narrow.lower_bound(opener)
        for cut in (want, want + 1):
            r = narrow.solve(opener, cutoff=cut)
            where = f"{opener} cutoff {cut}: brute {want}, beam {r}"
            if r.status == "lower_bound":
                # only the opener's partition bound, which holds for any search
                assert r.total == lb >= cut, where
            else:
                assert r.status in ("upper_bound", "not_found"), where
                if r.status == "upper_bound":
                    assert want <= r.total < cut, where


def test_wide_beam_is_the_exact_value_as_an_upper_bound():
    brute = Brute(BEAM_ANSWERS, BEAM_GUESSES, "hard")
    wide = _beam_solvers(len(BEAM_GUESSES))
    for opener in BEAM_GUESSES:
        want = brute.solve(opener, 4)
        r = wide.solve(opener)
        if want is None:
            assert r.status in ("infeasible", "not_found"), r
        else:
            assert (r.status, r.total) == ("upper_bound", want), r


_FAMILY = ["fight", "light", "might", "night", "right", "sight", "tight", "wight"]


def test_uncapped_limit_reported_when_it_matters(monkeypatch):
    """The family chain needs 8 guesses; with the hidden limit at 5 the uncapped search
    must not claim 'infeasible' (or exact)."""
    lists = WordLists.from_words(_FAMILY, _FAMILY)
    table = build_numpy(lists)
    monkeypatch.setattr(engine, "UNCAPPED_DEPTH", 5)
    r = Solver(lists, max_guesses=0, table=table).solve("fight")
    assert (r.status, r.total) == ("not_found", None), r
    assert "limit of 5 guesses" in r.note, r
    monkeypatch.setattr(engine, "UNCAPPED_DEPTH", 9)
    r = Solver(lists, max_guesses=0, table=table).solve("fight")
    assert (r.status, r.total, r.note) == ("exact", 36, ""), r


def test_uncapped_limit_gives_an_upper_bound(monkeypatch):
    """Where a tight cap raises a finite value, a hidden limit that tight gives that
    total as an upper bound, not as the exact uncapped optimum."""
    checked = 0
    for seed in DEEP_SEEDS[:6]:
        inst = deep_instance(seed)
        for opener, values in deep_reference(seed).items():
            free = values[-1]
            for cap, v in zip(DEEP_CAPS[:-1], values[:-1], strict=True):
                if v is None or v == free:
                    continue
                monkeypatch.setattr(engine, "UNCAPPED_DEPTH", cap)
                lists = _lists(inst)
                r = Solver(lists, mode=inst.mode, max_guesses=0,
                           table=build_numpy(lists)).solve(opener)
                assert (r.status, r.total) == ("upper_bound", v), (cap, r, inst.describe())
                assert "limit" in r.note
                checked += 1
    assert checked >= 3


def _small_solver() -> Solver:
    lists = WordLists.from_words(_FAMILY, _FAMILY)
    return Solver(lists, max_guesses=6, table=build_numpy(lists), memo_entries=16)


def test_memo_store_matches_the_set_size():
    """Two sets with the same key and tag but different sizes are different entries
    (memo_find checks the size, so memo_store must too)."""
    ctx = _small_solver()._ctx
    k1, k2 = np.uint64(12345 | 1), np.uint64(678)
    K.memo_store(ctx, k1, k2, 0, 9, True, 2, 0, 5)
    K.memo_store(ctx, k1, k2, 0, 11, True, 2, 0, 6)
    s5, s6 = K.memo_find(ctx, k1, k2, 0, 5), K.memo_find(ctx, k1, k2, 0, 6)
    assert s5 >= 0 and s6 >= 0 and s5 != s6
    assert (ctx.mval[s5], ctx.mval[s6]) == (9, 11)


def test_tainted_entries_bound_fewer_guesses():
    """A value found with b + 1 guesses left is a lower bound with b left, and
    'infeasible' with b + 1 left is infeasible with b left."""
    ctx = _small_solver()._ctx
    k1, k2 = np.uint64(999 | 1), np.uint64(5)
    assert K.memo_probe(ctx, k1, k2, 3, 7)[:2] == (0, 0)
    K.memo_store(ctx, k1, k2, 4, 40, False, 0, -1, 7)  # bound 40 with 4 guesses left
    v, fl, _, _ = K.memo_probe(ctx, k1, k2, 3, 7)
    assert (v, fl) == (40, K.TAINT)
    assert K.memo_probe(ctx, k1, k2, 4, 7)[:2] == (40, K.TAINT)
    assert K.memo_probe(ctx, k1, k2, 5, 7)[:2] == (0, 0)  # not for more guesses
    k3 = np.uint64(4243 | 1)
    K.memo_store(ctx, k3, k2, 4, K.INF, True, 0, -1, 7)
    assert K.memo_probe(ctx, k3, k2, 3, 7)[:2] == (K.INF, K.EXACT | K.TAINT)
    assert K.memo_probe(ctx, k3, k2, 5, 7)[:2] == (0, 0)


def test_stats_count_memo_hits():
    """memo_hits counts the memo's exact answers, most of which the quick pass over a
    guess's classes gets (`run` prints them as memo reuse across openers); a
    second solve of the same opener is answered from the memo."""
    s = Solver(WordLists.load(quiet=True))
    s.solve("rotte")
    first = s.stats
    assert 0 < first["memo_hits"] < first["memo_stores"] * 50, first
    s.solve("rotte")
    again = s.stats
    assert again["memo_hits"] > first["memo_hits"]
    assert again["memo_stores"] == first["memo_stores"]  # nothing left to store


STRESS_SEEDS = [s for s in SEEDS if s % 15 == 4]


@pytest.mark.parametrize("seed", STRESS_SEEDS, ids=[f"seed-{s}" for s in STRESS_SEEDS])
def test_tiny_memo_and_no_dedup_many_openers(seed):
    """16 memo entries (evictions on almost every store), duplicate removal off, every
    opener of the instance on one solver and then the listed ones again: the brute
    force's values."""
    inst = instance(seed)
    lists = _lists(inst)
    table = build_numpy(lists)
    tiny = Solver(lists, mode=inst.mode, max_guesses=inst.cap, table=table, memo_entries=16,
                  dedup=False)
    plain = Solver(lists, mode=inst.mode, max_guesses=inst.cap, table=table)
    for opener in lists.guesses:
        a, b = tiny.solve(opener), plain.solve(opener)
        assert (a.status, a.total) == (b.status, b.total), (opener, a, b)
    ref = reference(seed)
    for opener in inst.openers:
        _check(tiny.solve(opener), inst, opener, inst.cap, ref[opener][0])
    stats = tiny.stats
    assert stats["memo_entries"] == 16
    # more stores than slots: the eviction path ran
    assert stats["memo_stores"] <= 16 or stats["memo_evictions"] > 0, stats


def test_position_api_labels_like_solve(monkeypatch):
    """guess_value (a guess at a position) and set_value (a position's best) prove no
    more than solve does: a beam's miss is not_found, never infeasible, and a value
    that needed the hidden uncapped limit is not exact."""
    for beam in (None, 1):
        s = _beam_solvers(beam)
        everyone = np.arange(len(BEAM_ANSWERS), dtype=np.int32)
        for opener in BEAM_GUESSES:
            r = s.solve(opener)
            got = s.guess_value(s.lists.guess_id(opener), everyone, 4)
            assert got == (r.total, r.status), (beam, opener, got, r)
    assert _beam_solvers(1).guess_value(BEAM_GUESSES.index("xebec"),
                                        np.arange(len(BEAM_ANSWERS), dtype=np.int32),
                                        4) == (None, "not_found")
    lists = WordLists.from_words(_FAMILY, _FAMILY)
    table = build_numpy(lists)
    everyone = np.arange(len(_FAMILY), dtype=np.int32)
    for limit, want_guess, want_set in ((5, (None, "not_found"), (None, -1, "not_found")),
                                        (9, (36, "exact"), None)):
        monkeypatch.setattr(engine, "UNCAPPED_DEPTH", limit)
        s = Solver(lists, max_guesses=0, table=table)
        assert s.guess_value(lists.guess_id("fight"), everyone, limit) == want_guess
        total, g, status = s.set_value(everyone, limit)
        if want_set is not None:
            assert (total, g, status) == want_set
        else:
            assert status == "exact" and total == s.solve(lists.guesses[g]).total
