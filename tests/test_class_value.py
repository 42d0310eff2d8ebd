"""Solver.class_value: an opener's first-feedback classes valued one at a time add
up to what `solve` finds for the opener, on the brute-force cross-check instances
(every kind, mode and cap) and under a beam; each class's second guess achieves
the class's value."""

from __future__ import annotations

import numpy as np
import pytest
from test_search_crosscheck import N_INSTANCES, _lists, instance, reference

from solver import Solver
from solver.feedback import all_green
from solver.run.split import ClassResult, class_status_code, combine, least_part
from solver.store import STATUS_NAMES
from solver.table import build_numpy

SEEDS = list(range(0, N_INSTANCES, 5))  # 72 instances: every (kind, mode, cap) once


def _split_value(s: Solver, opener: str):
    """(status, total, depth, {pattern: (class total, second guess)}) from the
    classes alone, each in a fresh Solver (as on another rank)."""
    gid = s.lists.guess_id(opener)
    pats = sorted(set(np.unique(s.table[gid]).tolist()) - {all_green(s.lists.length)})
    results, seconds = [], {}
    for p in pats:
        fresh = Solver(s.lists, mode=s.mode, max_guesses=s.max_guesses, table=s.table,
                       beam=s.beam)
        st, total, depth, second = fresh.class_value(opener, p)
        assert (total is None) == (st in ("infeasible", "not_found")), (st, total)
        assert (depth is None) == (second is None) == (total is None)
        results.append(ClassResult(gid, p, class_status_code(st),
                                   -1 if total is None else total,
                                   -1 if depth is None else depth,
                                   -1 if second is None else s.lists.guess_index[second]))
        if second is not None:
            seconds[p] = (total, second)
    code, total, depth = combine(len(s.lists.answers), results)
    name = "not_found" if STATUS_NAMES[code] == "failed" else STATUS_NAMES[code]
    return name, (None if total < 0 else total), (None if depth < 0 else depth), seconds


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"seed-{s}")
def test_classes_add_up_to_the_opener(seed):
    inst = instance(seed)
    lists = _lists(inst)
    table = build_numpy(lists)
    ref = reference(seed)
    for opener in inst.openers:
        s = Solver(lists, mode=inst.mode, max_guesses=inst.cap, table=table)
        whole = s.solve(opener)
        status, total, depth, seconds = _split_value(s, opener)
        where = f"opener={opener}\n{inst.describe()}"
        assert (status, total) == (whole.status, whole.total), where
        want = ref[opener][0]
        if status == "exact":
            assert total == want, where
            assert depth == whole.depth, where
            # each second guess achieves its class's value
            gid = lists.guess_id(opener)
            members = np.arange(len(lists.answers), dtype=np.int32)
            left = s.depth_limit - 1  # after the opener
            for p, (value, g) in seconds.items():
                m = members[table[gid] == p]
                if len(m) == 1:
                    assert g == lists.answers[int(m[0])], where
                    continue
                cons = None
                if inst.mode == "hard":
                    cons = s._constraint_after(None, gid, p)
                got, st = s.guess_value(lists.guess_id(g), m, left, cons)
                assert (st, got) == ("exact", value), (p, g, where)
        elif status == "infeasible":
            assert want is None, where


def test_beam_classes_are_labelled_like_the_opener():
    inst = instance(0)
    lists = _lists(inst)
    table = build_numpy(lists)
    seen = set()
    for beam in (1, 2, 3):
        for opener in lists.guesses[:12]:
            s = Solver(lists, mode="easy", max_guesses=4, table=table, beam=beam)
            whole = s.solve(opener)
            status, total, _depth, _sec = _split_value(s, opener)
            assert (status, total) == (whole.status, whole.total), (beam, opener)
            seen.add(status)
    assert "upper_bound" in seen  # a beam never claims exact


def test_class_value_refuses_what_is_not_a_class():
    inst = instance(1)
    lists = _lists(inst)
    s = Solver(lists, mode=inst.mode, max_guesses=inst.cap, table=build_numpy(lists))
    opener = inst.openers[0]
    gid = lists.guess_id(opener)
    present = set(np.unique(s.table[gid]).tolist())
    missing = next(p for p in range(3**lists.length) if p not in present)
    for p in (all_green(lists.length), missing):
        with pytest.raises(ValueError, match="no feedback class"):
            s.class_value(opener, p)


LENGTH_SEEDS = list(range(0, 90, 5))  # test_search_lengths' instances: 3..10 letters


@pytest.mark.parametrize("seed", LENGTH_SEEDS, ids=lambda s: f"len-{s}")
def test_classes_add_up_to_the_opener_at_every_length(seed):
    """At 3, 4, 6, 7, 8 and 10 letters (uint16 tables above 5), every mode, under
    the instance's cap and caps 2 and 3 (where openers are infeasible): the classes
    valued alone, each in a fresh Solver, give the opener's status, total and depth
    as `solve` does, and the brute force's value."""
    from test_search_lengths import brute
    from test_search_lengths import instance as length_instance

    inst = length_instance(seed)
    lists = _lists(inst)
    assert lists.length == len(inst.answers[0]) != 5
    table = build_numpy(lists)
    b = brute(inst)
    seen = set()
    for cap in sorted({inst.cap, 2, 3}):
        for opener in inst.openers:
            s = Solver(lists, mode=inst.mode, max_guesses=cap, table=table)
            whole = s.solve(opener)
            status, total, depth, _seconds = _split_value(s, opener)
            where = f"opener={opener} cap={cap}\n{inst.describe()}"
            assert (status, total, depth) == (whole.status, whole.total, whole.depth), where
            assert total == b.solve(opener, cap), where  # None: infeasible under the cap
            seen.add(status)
    assert "exact" in seen


def _parts_value(s: Solver, opener: str, p: int, quick_k: int, parts: int):
    """A class valued in parts as run does it: the quick bound, then every part
    against it; (total, depth, second guess) of the least, or None (no quick bound)."""
    quick = s.class_part(opener, p, 0, -quick_k)
    if quick is None:
        return None
    found = [quick] + [s.class_part(opener, p, j, parts, below=quick[0])
                       for j in range(parts)]
    return least_part([f for f in found if f is not None])


@pytest.mark.parametrize("seed", list(range(0, N_INSTANCES, 9)), ids=lambda s: f"seed-{s}")
def test_a_class_in_parts_has_the_class_value(seed):
    """Every class of the instance's openers valued in parts (a quick bound from the
    search's first 1 or 3 candidates, then 1, 2, 3 or 7 parts of the second guesses
    against it) has class_value's total, and its second guess achieves it; the
    parts leave the memo right (class_value on the same solver afterwards agrees)."""
    inst = instance(seed)
    lists = _lists(inst)
    table = build_numpy(lists)
    ref = reference(seed)
    checked = 0
    for opener in inst.openers:
        gid = lists.guess_id(opener)
        pats = sorted(set(np.unique(table[gid]).tolist()) - {all_green(lists.length)})
        s = Solver(lists, mode=inst.mode, max_guesses=inst.cap, table=table)
        for k, (quick_k, parts) in enumerate([(1, 1), (1, 2), (3, 3), (1, 7)] * 3):
            if k >= len(pats):
                break
            p = pats[(k * 7) % len(pats)]
            fresh = Solver(lists, mode=inst.mode, max_guesses=inst.cap, table=table)
            st, total, _depth, _second = fresh.class_value(opener, p)
            got = _parts_value(s, opener, p, quick_k, parts)
            # and with no quick bound: every part finds its own best second guess
            alone = least_part([f for f in (s.class_part(opener, p, j, parts)
                                            for j in range(parts)) if f is not None])
            assert (alone is None) == (total is None), (alone, st, total)
            assert alone is None or alone[0] == total, (alone, total)
            where = f"opener={opener} p={p} quick={quick_k} parts={parts}\n{inst.describe()}"
            if got is None:  # no quick bound: run values the class whole
                assert st in ("infeasible", "exact", "upper_bound"), where
            else:
                assert st in ("exact", "upper_bound") and got[0] == total, (got, st, total, where)
                checked += 1
                m = np.arange(len(lists.answers), dtype=np.int32)[table[gid] == p]
                if len(m) > 1:
                    cons = s._constraint_after(None, gid, p) if inst.mode == "hard" else None
                    val, gst = s.guess_value(lists.guess_id(got[2]), m, s.depth_limit - 1, cons)
                    assert val == total, (got, val, gst, where)
            assert s.class_value(opener, p)[:2] == (st, total), where
        whole = s.solve(opener)
        if ref[opener][0] is not None and whole.status == "exact":
            assert whole.total == ref[opener][0]
    if inst.cap >= 4 or inst.cap == 0:
        assert checked > 0


@pytest.mark.parametrize("seed", list(range(0, 90, 15)), ids=lambda s: f"len-{s}")
def test_a_class_in_parts_at_other_lengths(seed):
    from test_search_lengths import instance as length_instance

    inst = length_instance(seed)
    lists = _lists(inst)
    table = build_numpy(lists)
    for opener in inst.openers:
        gid = lists.guess_id(opener)
        pats = sorted(set(np.unique(table[gid]).tolist()) - {all_green(lists.length)})
        s = Solver(lists, mode=inst.mode, max_guesses=inst.cap, table=table)
        for p in pats[:: max(1, len(pats) // 4)]:
            st, total, _d, _g = Solver(lists, mode=inst.mode, max_guesses=inst.cap,
                                       table=table).class_value(opener, p)
            got = _parts_value(s, opener, p, 1, 3)
            if got is not None:
                assert got[0] == total, (opener, p, inst.describe())


def test_class_part_refuses_a_beam_and_a_bad_part():
    inst = instance(0)
    lists = _lists(inst)
    table = build_numpy(lists)
    opener = inst.openers[0]
    p = next(iter(set(np.unique(table[lists.guess_id(opener)]).tolist())
                  - {all_green(lists.length)}))
    with pytest.raises(ValueError, match="beam"):
        Solver(lists, mode="easy", max_guesses=4, table=table, beam=2).class_part(
            opener, p, 0, 2, below=99)
    s = Solver(lists, mode="easy", max_guesses=4, table=table)
    for part, parts in ((2, 2), (-1, 3), (0, 0)):
        with pytest.raises(ValueError, match="part"):
            s.class_part(opener, p, part, parts, below=99)


@pytest.mark.parametrize("seed", SEEDS[::2], ids=lambda s: f"seed-{s}")
def test_a_budget_values_a_class_only_below_it(seed):
    """class_value(budget=b), as a class of an opener under a run's cutoff would be
    valued alone: exact below b, else a lower bound at or over b that is no more
    than the class's value; a budget of the value plus one finds the value, in a
    fresh Solver and after lower budgets in the same one (the memo's bounds)."""
    inst = instance(seed)
    lists = _lists(inst)
    table = build_numpy(lists)

    def fresh() -> Solver:
        return Solver(lists, mode=inst.mode, max_guesses=inst.cap, table=table)

    for opener in inst.openers[:2]:
        gid = lists.guess_id(opener)
        pats = sorted(set(np.unique(table[gid]).tolist()) - {all_green(lists.length)})
        for p in pats:
            where = f"opener={opener} pattern={p}\n{inst.describe()}"
            st, v, depth, _g = fresh().class_value(opener, p)
            if st == "infeasible":
                for b in (1, 5, 50):
                    got = fresh().class_value(opener, p, budget=b)
                    assert got[0] == "infeasible" or (got[0] == "lower_bound"
                                                      and got[1] >= b), (b, got, where)
                continue
            assert st == "exact", where
            s = fresh()
            for b in sorted({max(1, v - 4), max(1, v - 1), v}):
                got = s.class_value(opener, p, budget=b)
                assert got[0] in ("lower_bound", "exact"), (b, got, where)
                assert got[1] == v if got[0] == "exact" else b <= got[1] <= v, (b, got, where)
                assert fresh().class_value(opener, p, budget=b)[0] in ("lower_bound",
                                                                       "exact"), where
            at_v = fresh().class_value(opener, p, budget=v)
            assert at_v[1] == v, where
            if v > 2 * int(np.count_nonzero(table[gid] == p)) - 1:
                # no member separates the class (that costs 2n - 1): it must be searched,
                # and with nothing under the budget the search proves only a bound
                assert at_v[0] == "lower_bound", (at_v, where)
            assert s.class_value(opener, p, budget=v + 1)[:3] == ("exact", v, depth), where
            assert fresh().class_value(opener, p, budget=v + 1)[:3] == ("exact", v, depth), where


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_a_budget_on_a_big_class_of_the_default_lists(mode):
    """salet's all-grey class (no member separates it, so it must be searched):
    under a budget of its value it comes back as a lower bound of exactly that
    value, and one more finds the value, as without a budget."""
    from solver.words import WordLists

    lists = WordLists.load(quiet=True)
    table = build_numpy(lists)
    grey = 0  # the all-grey pattern (grey is colour 0 at every position: solver/feedback.py)
    n = int(np.count_nonzero(table[lists.guess_id("salet")] == grey))
    st, v, depth, _g = Solver(lists, mode=mode, table=table).class_value("salet", grey)
    assert st == "exact" and v > 2 * n - 1, (st, v, n)
    got = Solver(lists, mode=mode, table=table).class_value("salet", grey, budget=v)
    assert got == ("lower_bound", v, None, None)
    low = Solver(lists, mode=mode, table=table).class_value("salet", grey, budget=v - 30)
    assert low[0] == "lower_bound" and v - 30 <= low[1] <= v, low
    s = Solver(lists, mode=mode, table=table)
    s.class_value("salet", grey, budget=v)
    assert s.class_value("salet", grey, budget=v + 1)[:3] == ("exact", v, depth)
