"""Heuristic strategies against a plain-Python re-implementation of their
documented rule, and simulated games checked move by move."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from solver.feedback import score
from solver.game import Position
from solver.game.simulate import simulate
from solver.game.strategies import HEURISTICS, make_strategy, strategy_names
from tests.brute import NO_CONSTRAINT, hard_allowed, hard_update
from tests.game_helpers import small_solver

GREEN = 242  # all five letters green: 3**5 - 1


def plain_choice(solver, pos: Position, measure: str, larger: bool, cand_only: bool) -> str:
    """The documented rule, from the feedback rule alone."""
    lists = solver.lists
    cands = pos.candidates
    if len(cands) == 1:
        return cands[0]
    allowed = [lists.guesses[i] for i in np.flatnonzero(pos.legal())]
    if cand_only:
        allowed = [w for w in allowed if w in cands]
    n = len(cands)
    best = None
    for idx, w in enumerate(lists.guesses):
        if w not in allowed:
            continue
        sizes: dict[int, int] = {}
        for a in cands:
            p = score(w, a)
            sizes[p] = sizes.get(p, 0) + 1
        hit = GREEN in sizes
        if len(sizes) == 1 and not hit:
            continue  # cannot split
        c = list(sizes.values())
        value = {
            "entropy": -sum(k / n * math.log2(k / n) for k in c),
            "expected": sum(k * k for k in c) / n,
            "eliminations": n - sum(k * k for k in c) / n + hit / n,
            "worst": max(c),
            "patterns": len(c),
            "letters": sum(sum(ch in a for a in cands) for ch in set(w)),
        }[measure]
        key = (round(-value if larger else value, 9), not hit, idx)
        if best is None or key < best[0]:
            best = (key, w)
    return best[1]


@pytest.mark.parametrize("seed", range(6))
def test_heuristics_follow_their_documented_rule(seed):
    rng = random.Random(seed)
    mode = ("easy", "hard", "strict")[seed % 3]
    solver = small_solver(seed + 40, mode=mode, n_answers=30, n_guesses=60)
    lists = solver.lists
    answer = rng.choice(lists.answers)
    pos = Position.start(lists, mode)
    first = rng.choice(lists.guesses)
    if score(first, answer) != GREEN:
        pos = pos.play(first, score(first, answer))
    for name, (measure, larger) in HEURISTICS.items():
        for cand in (False, True):
            s = make_strategy(name + ("-cand" if cand else ""), solver)
            got = lists.guesses[s.choose(pos)]
            assert got == plain_choice(solver, pos, measure, larger, cand), (name, cand)


@pytest.mark.parametrize("mode", ["easy", "hard", "strict"])
def test_simulated_games_are_legal_and_end_solved(mode):
    solver = small_solver(50, mode=mode, n_answers=30, n_guesses=60)
    lists = solver.lists
    opener = lists.guesses[0]
    for name in strategy_names():
        sim = simulate(solver, make_strategy(name, solver, seed=1), opener)
        assert sorted(sim.games) == sorted(lists.answers)
        for answer, steps in sim.games.items():
            assert steps[0][0] == opener and steps[-1] == (answer, GREEN)
            con = NO_CONSTRAINT
            left = set(lists.answers)
            for i, (g, p) in enumerate(steps):
                assert p == score(g, answer)
                if mode == "hard":
                    assert hard_allowed(con, g), (name, answer, steps)
                    con = hard_update(con, g, p)
                if mode == "strict" and i > 0:
                    assert g in left, (name, answer, steps)
                left = {a for a in left if score(g, a) == p}
        if name == "optimal":
            assert sim.total == solver.solve(opener).total
        assert sim.total == sum(len(s) for s in sim.games.values())
        assert sum(sim.histogram.values()) == len(lists.answers)


def test_random_strategy_is_seeded():
    solver = small_solver(51, n_answers=30, n_guesses=60)
    op = solver.lists.guesses[0]
    a = simulate(solver, make_strategy("random", solver, seed=5), op).games
    b = simulate(solver, make_strategy("random", solver, seed=5), op).games
    assert a == b
