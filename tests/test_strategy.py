"""The optimal strategy behind a value can be recovered and checked on its own.

A recovered tree is replayed with the plain feedback rule: every answer must be
solved, by a legal guess sequence (hard-mode rules checked with the brute-force
reference's constraint code), within the cap, and the guesses it uses must add up
to exactly the value the engine reported. That proves each exact value is achieved;
the brute-force cross-check proves it cannot be beaten.
"""

from __future__ import annotations

import random

import pytest

from solver import Solver
from solver.feedback import score
from solver.words import WordLists, read_words
from tests.brute import NO_CONSTRAINT, hard_allowed, hard_update

ANSWERS = read_words("data/answers.txt")
GUESSES = read_words("data/guesses.txt")


def replay(solver: Solver, opener: str, cap: int) -> int:
    """Walk the strategy for every answer; return the total guesses used."""
    tree = solver.strategy(opener)
    paths = tree.paths()
    assert sorted(paths) == sorted(solver.lists.answers)
    total = 0
    for answer, seq in paths.items():
        assert seq[0] == opener and seq[-1] == answer
        if cap:
            assert len(seq) <= cap, (answer, seq)
        node = tree
        con = NO_CONSTRAINT
        for i, guess in enumerate(seq):
            assert node.guess == guess
            if solver.mode == "hard" and i > 0:
                assert hard_allowed(con, guess), (answer, seq, guess)
            if solver.mode == "strict" and i > 0:
                assert guess in solver.lists.answers
            pattern = score(guess, answer)
            con = hard_update(con, guess, pattern)
            if guess != answer:
                node = node.children[pattern]
        total += len(seq)
    assert total == tree.total
    return total


@pytest.mark.parametrize("seed", range(24))
def test_recovered_strategy_achieves_the_value(seed):
    rng = random.Random(seed)
    mode = ("easy", "hard", "strict")[seed % 3]
    cap = (0, 3, 4, 6)[seed % 4]
    answers = rng.sample(ANSWERS, rng.randint(15, 60))
    guesses = rng.sample(GUESSES, rng.randint(30, 200))
    s = Solver(WordLists.from_words(answers, guesses), mode=mode, max_guesses=cap)
    for opener in rng.sample(s.lists.guesses, 3):
        r = s.solve(opener)
        if r.status == "infeasible":
            with pytest.raises(ValueError):
                s.strategy(opener)
            continue
        assert r.status == "exact"
        assert replay(s, opener, cap) == r.total
        assert s.strategy(opener).height == r.depth


def test_salet_tree_on_the_original_lists():
    s = Solver()
    r = s.solve("salet")
    assert replay(s, "salet", 6) == r.total == 7920
    seconds = s.second_guesses("salet")
    tree = s.strategy("salet")
    assert seconds == {p: c.guess for p, c in tree.children.items()}


def test_next_guess_follows_the_strategy():
    s = Solver(WordLists.from_words(ANSWERS[:200], GUESSES))
    tree = s.strategy("trace")
    pattern, child = max(tree.children.items(), key=lambda pc: pc[1].answers)
    guess, left = s.next_guess([("trace", pattern)])
    assert (guess, left) == (child.guess, child.answers)
    first = s.lists.answers[0]
    assert s.next_guess([(first, 242)]) == (first, 1)
    assert "trace" not in s.lists.answers
    assert s.next_guess([("trace", 242)]) == (None, 0)  # no answer agrees
