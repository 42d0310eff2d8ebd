"""The engine's stop flag: another thread cuts a long search short (the kernels run
without the GIL and look at the flag on entry to every node), the search raises
Stopped instead of returning a value, and the solver, its memo emptied, gives
exact values again after clear_stop."""

from __future__ import annotations

import threading
import time

import pytest

from solver import Solver
from solver.search import Stopped
from tests.brute import Brute, no_constraint
from tests.game_helpers import small_lists


def test_a_long_solve_stops_within_moments_and_the_solver_stays_exact():
    """The stop is seen within moments: the process uses little CPU after it (CPU
    seconds, which a busy machine does not stretch as it does wall time; qajaq's
    search takes minutes of CPU)."""
    s = Solver(mode="hard")
    asked: list[float] = []

    def stop() -> None:
        asked.append(time.process_time())
        s.request_stop()

    timer = threading.Timer(0.5, stop)
    timer.start()
    with pytest.raises(Stopped):
        s.solve("qajaq")  # minutes of search
    assert asked and time.process_time() - asked[0] < 2.0
    with pytest.raises(Stopped):  # until cleared, every search stops at once
        s.solve("salet")
    s.clear_stop()
    r = s.solve("salet")
    assert (r.status, r.total) == ("exact", 8122)


@pytest.mark.parametrize("mode", ("easy", "hard"))
def test_values_after_a_stop_are_the_brute_forces(mode):
    lists = small_lists(7, n_answers=25, n_guesses=60)
    s = Solver(lists, mode=mode)
    s.request_stop()
    with pytest.raises(Stopped):
        s.solve(lists.guesses[0])
    s.clear_stop()
    brute = Brute(list(lists.answers), list(lists.guesses), mode)
    for w in lists.guesses[:12]:
        r = s.solve(w)
        assert (r.total if r.status == "exact" else None) == brute.solve(w, 6), w


@pytest.mark.parametrize("mode,cap", [("easy", 6), ("hard", 6), ("strict", 6), ("easy", 3),
                                      ("hard", 4)])
def test_a_solve_cut_short_keeps_the_classes_it_valued_and_they_are_the_brute_forces(
        mode, cap):
    """solve(on_class=...) tells each first-feedback class as it is valued: every one
    the brute force values within the cap, with an optimal second guess, summing to
    the opener's total. A stop requested after the second class ends the solve
    (Stopped) with exactly those two told, as an uninterrupted solve tells them."""
    lists = small_lists(11, n_answers=30, n_guesses=60)
    brute = Brute(list(lists.answers), list(lists.guesses), mode)
    everyone = frozenset(range(len(lists.answers)))
    cut = 0
    for w in lists.guesses[:8]:
        told: list[tuple] = []
        r = Solver(lists, mode=mode, max_guesses=cap).solve(
            w, on_class=lambda *c, told=told: told.append(c))
        g = brute.guesses.index(w)
        con = no_constraint(len(w)) if mode == "hard" else None
        for p, status, total, depth, second in told:
            cls = brute.split(g, everyone)[p]
            after = brute.update(con, w, p) if mode == "hard" else None
            assert status == "exact" and total == brute.value(cls, cap - 1, after), (w, p)
            assert brute.cost(brute.guesses.index(second), cls, cap - 1, after) == total
            assert 2 <= depth <= cap
        if r.status == "exact":
            assert len(told) == len(brute.split(g, everyone)) - (brute.green in brute.split(
                g, everyone))
            assert r.total == len(lists.answers) + sum(c[2] for c in told)
            assert r.depth == max(c[3] for c in told)
        else:  # the first infeasible class ends the solve, untold
            assert r.status == "infeasible" and brute.solve(w, cap) is None
        if len(told) <= 2:
            continue
        s = Solver(lists, mode=mode, max_guesses=cap)
        kept: list[tuple] = []

        def keep(*c, s=s, kept=kept) -> None:
            kept.append(c)
            if len(kept) == 2:
                s.request_stop()

        with pytest.raises(Stopped):
            s.solve(w, on_class=keep)
        assert kept == told[:2]
        cut += 1
    assert cut >= 3  # enough openers with more than two classes were cut short
