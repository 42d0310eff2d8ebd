"""A deliberately plain brute force for several boards, for the tests.

It shares nothing with solver.game.boards or boards_exact but the feedback rule
(`solver.feedback.score`). A state is the explicit set of answer tuples still
possible (one answer per board, all different) and the set of boards solved; a
guess costs 1 for every tuple and splits the tuples by the feedback of every open
board; a board whose feedback is all green is solved.

    V(T, solved, b) = |T| + min over guesses of sum over classes of V(class, ...)

with V = 0 once every board is solved and None (infeasible) when b guesses do not
suffice. As in tests/brute.py, a guess that leaves T in one class and solves no
board is skipped (the opener excepted): it leaves the same state with a guess
fewer. `lex` minimises the pair (total, height), the worst case breaking ties in the
total.
"""

from __future__ import annotations

import sys
from itertools import permutations

from solver.feedback import score


class BruteBoards:
    def __init__(self, answers: list[str], guesses: list[str], boards: int):
        self.answers = list(answers)
        self.guesses = list(guesses) + [a for a in answers if a not in set(guesses)]
        self.k = boards
        self.green = 3 ** len(answers[0]) - 1
        self.memo: dict = {}
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    def all_tuples(self) -> frozenset:
        return frozenset(permutations(self.answers, self.k))

    def split(self, g: str, tuples: frozenset, solved: frozenset) -> dict:
        out: dict = {}
        for t in tuples:
            key = tuple(None if i in solved else score(g, t[i]) for i in range(self.k))
            out.setdefault(key, set()).add(t)
        return out

    def lex(self, tuples: frozenset, solved: frozenset, b: int):
        """(total, height) of the best strategy, or None."""
        if len(solved) == self.k:
            return (0, 0)
        if b <= 0:
            return None
        key = (tuples, solved, b)
        if key in self.memo:
            return self.memo[key]
        best = None
        for g in self.guesses:
            v = self.lex_guess(g, tuples, solved, b)
            if v is not None and (best is None or v < best):
                best = v
        self.memo[key] = best
        return best

    def lex_guess(self, g: str, tuples: frozenset, solved: frozenset, b: int,
                  skip: bool = True):
        if b <= 0:
            return None
        parts = self.split(g, tuples, solved)
        if skip and len(parts) == 1:
            (codes,) = parts
            if all(c != self.green for c in codes if c is not None):
                return None  # nothing learnt, nothing solved
        total, height = len(tuples), 1
        for codes, cls in parts.items():
            now = solved | {i for i, c in enumerate(codes) if c == self.green}
            v = self.lex(frozenset(cls), frozenset(now), b - 1)
            if v is None:
                return None
            total += v[0]
            height = max(height, 1 + v[1])
        return total, height

    def opener(self, g: str, cap: int):
        """(total, height) of opener g (always allowed, useful or not) with `cap`
        guesses, or None."""
        return self.lex_guess(g, self.all_tuples(), frozenset(), cap, skip=False)
