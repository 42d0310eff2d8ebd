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
from tests.brute import Brute
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
