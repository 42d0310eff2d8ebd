"""solver.stops: every search made in a process can be stopped at once from another
thread (what the command line's Ctrl-C watcher does, cli/interrupt.py), including
the adversary's three-guess proof, a single compiled call of 15 s and more that
now looks at a stop flag; a stopped search proves nothing and records nothing."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from solver import Solver, stops
from solver.game.adversary import Adversary, AdversaryPosition
from solver.kernels.adversary_jit import win3
from solver.search import Stopped
from solver.table import get_table
from solver.words import WordLists
from tests.game_helpers import small_lists


def test_stop_all_reaches_every_search_made():
    lists = small_lists(3, n_answers=20, n_guesses=30)
    table, _ = get_table(lists, "numpy", None, use_cache=False)
    solver, adv = Solver(lists, mode="easy"), Adversary(lists, table)
    exact = solver.solve(lists.guesses[0]).total
    start = AdversaryPosition.start(adv)
    best = adv.analyse(start, limit=12).guesses
    stops.stop_all()
    with pytest.raises(Stopped):
        solver.solve(lists.guesses[0])
    with pytest.raises(Stopped):
        adv.analyse(start, limit=12)
    solver.clear_stop()
    adv.clear_stop()
    assert solver.solve(lists.guesses[0]).total == exact
    assert adv.analyse(start, limit=12).guesses == best


def test_the_three_guess_kernel_looks_at_its_stop_flag():
    lists = small_lists(5, n_answers=12, n_guesses=40)
    table, _ = get_table(lists, "numpy", None, use_cache=False)
    adv = Adversary(lists, table)
    members = np.arange(len(lists.answers), dtype=np.int32)
    go = win3(adv.table, members, adv.gids, adv.prio, adv.kmax, np.zeros(1, np.int64),
              np.zeros(1, np.int64))
    assert go != (-1, -1)  # a win within 3 guesses from these 12 answers
    stopped = win3(adv.table, members, adv.gids, adv.prio, adv.kmax,
                   np.zeros(1, np.int64), np.ones(1, np.int64))
    assert stopped == (-1, -1)


def test_a_stopped_three_guess_proof_records_no_failure():
    """After ALOES on today's lists the adversary keeps 222 answers, and proving that
    no win within 3 guesses exists is one kernel call of 15 s or more: stopped in
    the middle, it raises Stopped and does not remember the set as failed (it was
    not proved), so a later search does the proof again."""
    adv = Adversary(WordLists.load(lists="nyt"))  # today's lists, as next --adversary
    members = AdversaryPosition.parse("aloes", adv).members
    assert len(members) == 222
    timer = threading.Timer(0.5, adv.request_stop)
    timer.start()
    try:
        with pytest.raises(Stopped):
            adv.win(members, 3)
    finally:
        timer.cancel()
    assert (members.tobytes(), 3) not in adv.failed
