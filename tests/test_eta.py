"""The run's ETA (solver/run/eta.py), a pure function: worked cases by hand."""

import pytest

from solver.run.eta import SplitLeft, eta
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


def test_split_openers_cost_their_classes_left_at_the_models_scale():
    """A split opener's classes left cost their predictions times what the classes
    of its kind valued so far took per predicted second: a run of one split opener
    (no opener valued whole, no mean) had shown 'ETA ?' until its end."""
    def split(left, scales):  # scales: opener -> its classes' CPU per predicted second
        return SplitLeft(left, {i: [10.0, 10.0 * x] for i, x in scales.items()},
                         lambda u: 10.0)  # each class unit predicted at 10 s

    one = {EXACT: [1, 0, 0.0], CUT: [0, 0, 0.0]}
    # no class valued yet: no scale, no ETA
    assert eta(one, [], kind_of, 2, 0.0, split({3: 100.0}, {})) == (float("inf"), False)
    # classes took half their predictions: 50 s of work over 2 solvers
    assert eta(one, [], kind_of, 2, 0.0, split({3: 100.0}, {3: 0.5})) == (25.0, True)
    # its classes in flight are among those 50 s: each has 5 s of it, less what it ran
    flying = [(98.0, [Classes(3, (1, 2))]), (99.0, [Part(3, 5, 0, 2, -1)])]
    assert eta(one, flying, kind_of, 2, 100.0, split({3: 100.0}, {3: 0.5})) == (
        pytest.approx((50 - 3) / 2), True)
    # one that outran its prediction (40 s against 5): as long again; alone on a rank
    # it sets the wall
    flying = [(60.0, [Classes(3, (1, 2))])]
    assert eta(one, flying, kind_of, 2, 100.0, split({3: 100.0}, {3: 0.5})) == (
        pytest.approx((50 - 5 + 40) / 2), True)
    assert eta(one, flying, kind_of, 8, 100.0, split({3: 100.0}, {3: 0.5})) == (
        pytest.approx(40.0), True)
    # beside openers valued whole: 3 exact left at a mean of 10 s, one of them split
    # with 30 predicted seconds left at twice the prediction: 2 * 10 + 60 over 2
    kinds = {EXACT: [3, 2, 20.0], CUT: [0, 0, 0.0]}
    assert eta(kinds, [], kind_of, 2, 0.0, split({1: 30.0}, {1: 2.0})) == (40.0, True)
    # before its first class is back it counts at its kind's mean: 30 s over 2
    assert eta(kinds, [], kind_of, 2, 0.0, split({1: 30.0}, {})) == (15.0, True)
    # a finished split opener's classes still give its kind's scale
    assert eta(kinds, [], kind_of, 2, 0.0, split({1: 30.0}, {7: 2.0})) == (40.0, True)


def test_each_kind_of_split_opener_has_its_own_scale():
    """Classes valued under a cutoff take a fraction of what exact ones do: each kind
    scales its own split openers' predictions, and a kind with no class valued yet
    counts its split openers at its mean."""
    def split(left, valued):
        return SplitLeft(left, valued, lambda u: 0.0)

    kinds = {EXACT: [1, 0, 0.0], CUT: [1, 0, 0.0]}
    # exact opener 2: 100 s predicted at 2x; opener 12 under a cutoff: 100 s at 0.01x
    both = split({2: 100.0, 12: 100.0}, {2: [5.0, 10.0], 12: [50.0, 0.5]})
    assert eta(kinds, [], kind_of, 1, 0.0, both) == (pytest.approx(201.0), True)
    # only the exact kind has a scale: the cutoff one is still without a mean
    half = split({2: 100.0, 12: 100.0}, {2: [5.0, 10.0]})
    assert eta(kinds, [], kind_of, 1, 0.0, half) == (pytest.approx(200.0), False)
