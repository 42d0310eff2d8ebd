"""An opener taken back under a cutoff (a run's steal, split.py): its rank stops
after some classes and hands back those and a lower bound of the others
(Solver.solve's on_class and on_bounds); rank 0's Work sends each class out with a
budget and combines what comes back. On random sub-lists of the real 4-, 5- and
6-letter lists (classes above the 16 answers the search values outright as a fact,
so that a solve under a cutoff searches classes and can be taken back), in every
mode under caps 6 and 4, and at cutoffs around each opener's value, the verdict is
solve's: exact at the opener's value (solve without a cutoff, itself checked
against brute force in test_search_crosscheck) below the cutoff, a lower bound
between the cutoff and the value at or over it. Two orders: each class valued
before the next goes out (the tightest budgets: solve's own status), and every
class out at once, valued in reverse (budgets set before any other class came
back: still sound, and exact only at the value)."""

from __future__ import annotations

import random

import pytest

from solver import Solver
from solver.run.split import ClassResult, class_status_code
from solver.run.units import Classes
from solver.run.work import Work
from solver.search.engine import Stopped
from solver.store import EXACT, INFEASIBLE, LOWER_BOUND, STATUS_NAMES
from solver.table import build_numpy
from solver.variant import Variant
from solver.words import WordLists


def _sub(length: int, seed: int, n_answers: int, n_guesses: int) -> WordLists:
    """A random sub-list of the real lists of that length (every answer a guess)."""
    full = WordLists.load(length=length, quiet=True)
    r = random.Random(seed)
    a = sorted(r.sample(list(full.answers), min(n_answers, len(full.answers))))
    g = sorted(set(a) | set(r.sample(list(full.guesses), n_guesses)))
    return WordLists(a, g)

def _cut_short(s: Solver, opener: str, cutoff: int, after: int):
    """solve(opener, cutoff) stopped as its `after`-th class is valued (a steal):
    (the classes valued, the bounds told), or None if it ended first."""
    gid, valued, bounds = s.lists.guess_id(opener), [], {}

    def keep(p, status, total, depth, second) -> None:
        valued.append(ClassResult(gid, p, class_status_code(status), total, depth,
                                  s.lists.guess_index[second]))
        if len(valued) == after:
            raise Stopped("taken back")

    try:
        s.solve(opener, cutoff=cutoff, on_class=keep, on_bounds=bounds.update)
    except Stopped:
        return valued, bounds
    return None


def _split(lists, table, mode: str, cap: int, opener: str, cutoff: int, valued, bounds,
           at_once: bool):
    """The Work's record of the opener split with what the stolen solve handed
    back, each class valued in a fresh Solver (as on another rank)."""
    gid = lists.guess_id(opener)
    work = Work(Variant.of(lists, mode, cap), len(lists.answers), table)
    done = work.add_split(gid, {c.pattern: c for c in valued}, 1.0, stolen=True,
                          cutoff=cutoff, bounds=bounds)
    out: list = []
    while done is None:
        units = []
        while len(work):
            units += work.pop()
            if not at_once:
                break
        assert units and all(isinstance(u, Classes) and len(u.budgets) == len(u.patterns)
                             for u in units), units
        jobs = [(p, b) for u in units for p, b in zip(u.patterns, u.budgets, strict=True)]
        for p, b in reversed(jobs) if at_once else jobs:
            fresh = Solver(lists, mode=mode, max_guesses=cap, table=table)
            st, total, depth, second = fresh.class_value(opener, p, budget=b)
            out.append((p, b, st))
            cr = ClassResult(gid, p, class_status_code(st), -1 if total is None else total,
                             -1 if depth is None else depth,
                             -1 if second is None else lists.guess_index[second])
            got = work.on_class(cr, None)
            if got is not None:
                assert done is None
                done = got
    return done[0], out


@pytest.mark.parametrize("mode", ["easy", "hard", "strict"])
def test_an_opener_taken_back_under_a_cutoff_keeps_solves_verdict(mode):
    stolen = 0
    for length in (4, 5, 6):
        for cap in (6, 4):
            lists = _sub(length, 100 * length + cap, 200, 300)
            table = build_numpy(lists)
            stolen += _check(lists, table, mode, cap)
    # not an empty check: most solves under a cutoff are settled by bounds alone,
    # but many search a class (and so can be taken back)
    assert stolen >= 40, stolen


def _check(lists, table, mode: str, cap: int) -> int:
    """Every opener of a few, at cutoffs around its value, taken back after its
    first and its second class; how many were taken back."""
    stolen = 0

    def solver() -> Solver:
        return Solver(lists, mode=mode, max_guesses=cap, table=table)

    for opener in random.Random(len(lists.answers) + cap).sample(lists.guesses, 6):
        whole0 = solver().solve(opener)
        assert whole0.status in ("exact", "infeasible")
        want = whole0.total if whole0.status == "exact" else None
        cutoffs = {x for x in (want - 3, want, want + 1)} if want is not None else {
            3 * len(lists.answers)}
        for cutoff in sorted(cutoffs):
            whole = solver().solve(opener, cutoff=cutoff)
            for after in (1, 2):
                cut = _cut_short(solver(), opener, cutoff, after)
                if cut is None:
                    continue
                stolen += 1
                valued, bounds = cut
                where = (f"mode={mode} cap={cap} length={lists.length} opener={opener} "
                         f"cutoff={cutoff} after={after} whole={whole.status} {whole.total}")
                # the bounds told are bounds: at most each class's value
                for p, b in bounds.items():
                    st, v, _d, _g = solver().class_value(opener, p)
                    assert st == "infeasible" or b <= v, (p, b, v, where)
                for at_once in (False, True):
                    rec, out = _split(lists, table, mode, cap, opener, cutoff, valued,
                                      bounds, at_once)
                    got = (STATUS_NAMES[rec.status], rec.total)
                    what = f"{where}\nat_once={at_once} got={got} classes={out}"
                    if want is None:
                        assert rec.status in (INFEASIBLE, LOWER_BOUND), what
                        assert rec.status == INFEASIBLE or rec.total >= cutoff, what
                    elif rec.status == EXACT:
                        assert rec.total == want, what
                    else:
                        assert rec.status == LOWER_BOUND, what
                        assert cutoff <= rec.total <= want, what
                    if not at_once:  # solve's own verdict
                        assert got[0] == whole.status, what
                        if whole.status == "exact":
                            assert rec.total == whole.total, what
    return stolen


def test_a_cutoff_split_sends_each_class_alone_with_the_budget_left():
    """Work under a cutoff: each class goes out alone, smallest first, in a chunk of
    its own (Work.alone), its budget the cutoff less len(answers) and what is known
    of every other class when it goes out; a class at its budget settles the
    opener as a lower bound at the cutoff or over, and its other classes are
    dropped. An exact split's classes are not held alone."""
    lists = _sub(5, 7, 200, 300)
    table = build_numpy(lists)
    n = len(lists.answers)
    work = Work(Variant.of(lists), n, table)
    green = Variant.of(lists).all_green
    gid = next(i for i in range(len(lists.guesses))
               if len(set(table[i].tolist()) - {green}) >= 4)
    # (size, pattern), smallest first, ties by pattern, highest first: solve's order
    classes = sorted(((int((table[gid] == p).sum()), p) for p in set(table[gid].tolist())
                      if p != green), key=lambda sp: (sp[0], -sp[1]))
    bounds = {p: 2 * c for c, p in classes}  # (one above 2c - 1: a told bound is used)
    cutoff = n + sum(bounds.values()) + 10
    assert work.add_split(gid, {}, 1.0, stolen=True, cutoff=cutoff, bounds=bounds) is None
    (_c1, p1), (_c2, p2) = classes[0], classes[1]
    [u] = work.pop()
    assert isinstance(u, Classes) and u.patterns == (p1,) and u.budgets == (bounds[p1] + 10,)
    assert work.alone(u)
    # p1 valued exactly 4 over its bound: the next class has 6 to spare
    assert work.on_class(ClassResult(gid, p1, EXACT, bounds[p1] + 4, 2, 0), None) is None
    [u] = work.pop()
    assert u.patterns == (p2,) and u.budgets == (bounds[p2] + 6,)
    rec, err = work.on_class(ClassResult(gid, p2, LOWER_BOUND, bounds[p2] + 6), None)
    assert err is None and (rec.status, rec.total) == (LOWER_BOUND, cutoff)
    assert len(work) == 0  # the opener's other classes are not valued
    exact = Work(Variant.of(lists), n, table)
    exact.add_split(gid, {}, 1.0, stolen=True)
    [u] = exact.pop()
    assert isinstance(u, Classes) and u.budgets == () and not exact.alone(u)
