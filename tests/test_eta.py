"""The run's ETA (solver/run/eta.py), a pure function: worked cases by hand."""

import pytest

from solver.run.eta import eta
from solver.run.units import Classes, Part, Whole

EXACT, CUT = True, False


def kind_of(i: int) -> bool:
    return i < 10  # openers 0-9 exact, the rest under a cutoff


def test_nothing_valued_has_no_scale():
    assert eta({EXACT: [5, 0, 0.0], CUT: [3, 0, 0.0]}, [], kind_of, 2, 0.0) == (
        float("inf"), False)


def test_each_kind_weighs_by_its_own_mean():
    # exact: 3 left at 10 s; cut: 8 left at 0.5 s: 34 s of work over 2 solvers
    assert eta({EXACT: [3, 2, 20.0], CUT: [8, 4, 2.0]}, [], kind_of, 2, 0.0) == (17.0, True)
    # never less than one queued opener: one exact left, many solvers
    assert eta({EXACT: [1, 2, 20.0], CUT: [0, 4, 2.0]}, [], kind_of, 100, 0.0) == (10.0, True)


def test_a_kind_without_a_mean_makes_a_lower_bound():
    wall, whole = eta({EXACT: [2, 1, 4.0], CUT: [50, 0, 0.0]}, [], kind_of, 1, 0.0)
    assert (wall, whole) == (8.0, False)
    assert eta({EXACT: [0, 1, 4.0], CUT: [5, 0, 0.0]}, [], kind_of, 1, 0.0) == (
        float("inf"), False)


def test_units_in_flight_count_what_they_have_left():
    kinds = {EXACT: [2, 2, 20.0], CUT: [0, 1, 1.0]}  # mean 10 s
    # one just sent: 10 s left of it; the other queued exact one 10 s: 20 s / 2
    assert eta(kinds, [(100.0, [Whole(1)])], kind_of, 2, 100.0) == (10.0, True)
    # 4 s into it: 6 s left
    assert eta(kinds, [(96.0, [Whole(1)])], kind_of, 2, 100.0) == pytest.approx((10.0, True))
    # 30 s into it (outlived its mean): as long again, and it sets the wall
    wall, whole = eta(kinds, [(70.0, [Whole(1)])], kind_of, 2, 100.0)
    assert whole and wall == pytest.approx(30.0)
    # classes and parts cost nothing here (their opener counts with those left),
    # but the time they have run does
    wall, _ = eta(kinds, [(95.0, [Classes(1, (3, 4)), Part(1, 5, 0, 2, -1)])], kind_of, 2,
                  100.0)
    assert wall == pytest.approx(12.5)  # (20 + 5) / 2
