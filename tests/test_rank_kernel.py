"""The ranking of a position's guesses in one compiled loop (Solver.rank_values: node
with d == 0), and by counting where every total is a count (two guesses left, or
two candidates at most: analysis._counted), against the Python branch and bound
they replaced (one guess_value per guess): the same guesses with the same exact
totals in the same order, for several k (one of them more than the guesses) and with
the best guess left out as `next` asks, in every mode, at caps 4 and 6, at 4-6
letters (6 letters run numba's jit: two-byte patterns). tests/test_game_api.py
checks the ranking against brute force."""

from __future__ import annotations

import random

import numpy as np
import pytest

from solver import Solver
from solver.game import analysis
from solver.game.analysis import ranked_guesses
from solver.game.position import Position
from tests.game_helpers import small_lists
from tests.test_wins import stem_lists

MODES = ("easy", "hard", "strict")


def _lists(length: int):
    if length == 5:  # real words
        return small_lists(70, n_answers=70, n_guesses=50)
    return stem_lists(41 + length, length, stems=5, variants=9, n_guesses=20)


def _positions(solver: Solver, rng: random.Random, count: int) -> list[Position]:
    """Positions after one guess, and after two."""
    lists = solver.lists
    start = Position.start(lists, solver.mode, solver.max_guesses)
    out = []
    for word in rng.sample(lists.guesses, count):
        row = solver.table[lists.guess_index[word], start.members]
        for p in sorted(set(row.tolist()) - {solver.variant.all_green}):
            pos = start.play(word, p)
            out.append(pos)
            if len(pos.members) < 3:
                continue
            legal = [lists.guesses[i] for i in np.flatnonzero(pos.legal())]
            second = rng.choice(legal)
            row2 = solver.table[lists.guess_index[second], pos.members]
            for q in sorted(set(row2.tolist()) - {solver.variant.all_green}):
                out.append(pos.play(second, q))
    return out


def _ranked(solver: Solver, pos: Position, k: int, slow: bool = False):
    """ranked_guesses; `slow`: every total searched (with a solver whose
    ranks_in_kernel says no: the Python loop)."""
    analysis.COUNTED = not slow
    try:
        return [(c.guess, c.total, c.status) for c in ranked_guesses(solver, pos, k)]
    finally:
        analysis.COUNTED = True


@pytest.mark.parametrize("length", (4, 5, 6))
@pytest.mark.parametrize("mode", MODES)
def test_the_compiled_ranking_matches_the_python_one(mode, length):
    lists = _lists(length)
    rng = random.Random(length)
    checked = kernel = counted = 0
    for cap in (4, 6):
        fast, slow = Solver(lists, mode, cap), Solver(lists, mode, cap)
        slow.ranks_in_kernel = lambda left, n: False  # the Python loop, guess by guess
        for pos in _positions(fast, rng, 5):
            n = len(pos.members)
            kernel += fast.ranks_in_kernel(pos.budget, n)
            counted += n <= 2 or pos.budget <= 2
            for k in (1, 3, 9, len(lists.guesses) + 5):  # (the last: more than there are)
                want = _ranked(slow, pos, k, slow=True)
                assert _ranked(fast, pos, k) == want, (str(pos), k)
            checked += 1
    assert kernel >= 10 and counted >= 10, (checked, kernel, counted)


def test_a_ranking_with_no_feasible_guess_is_empty():
    """Where no guess meets the cap, both loops list nothing (every class of a guess
    proven infeasible, none valued)."""
    lists = stem_lists(3, 5, stems=3, variants=9, n_guesses=6)
    fast, slow = Solver(lists, "easy", 3), Solver(lists, "easy", 3)
    slow.ranks_in_kernel = lambda left, n: False
    pos = Position.start(lists, "easy", 3)
    assert fast.ranks_in_kernel(pos.budget, len(pos.members))
    assert fast.set_value(pos.members, 3)[0] is None  # the case: nothing within 3
    assert _ranked(fast, pos, 5) == _ranked(slow, pos, 5, slow=True) == []


def test_the_rankings_progress_counts_only_the_guesses_it_still_searches(monkeypatch):
    """progress(done, of) of the compiled ranking, every 8 guesses: `of` is the
    guesses searched so far plus those still under the k-th total, so it never
    grows, `done` stays under it, and it falls well below the guesses passed to the
    loop once the k-th total rules some out (the loop then ends without visiting
    them). The ranking is the same as without progress."""
    monkeypatch.setattr(analysis, "PROGRESS_EVERY", 8)
    lists = small_lists(70, n_answers=70, n_guesses=50)
    shrank = 0
    for mode in ("easy", "hard"):
        solver = Solver(lists, mode, 6)
        for pos in _positions(solver, random.Random(5), 3):
            if not solver.ranks_in_kernel(pos.budget, len(pos.members)):
                continue
            seen: list[tuple[int, int]] = []
            got = [(c.guess, c.total) for c in
                   ranked_guesses(solver, pos, 3, progress=lambda d, n, s=seen: s.append((d, n)))]
            assert got == [(c.guess, c.total) for c in ranked_guesses(solver, pos, 3)]
            assert seen and seen[0][0] == 0 and all(d < n for d, n in seen), str(pos)
            ofs = [n for _d, n in seen]
            assert ofs == sorted(ofs, reverse=True), (str(pos), seen)  # never grows
            assert ofs[0] <= int(np.count_nonzero(pos.legal()))
            shrank += len(seen) >= 2 and 2 * ofs[-1] < ofs[0]
    assert shrank >= 3
