"""A deliberately simple brute-force reference for the exact search.

This module shares nothing with the engine except the feedback rule
(`solver.feedback.score`). It is plain recursive Python over frozensets with a dict
memo: no bounds, no pruning, no ordering heuristics. It is meant to be obviously
correct, not fast; use it on small instances only.

Problem (the contract the engine implements):

* A state is a set S of answers consistent with the feedback so far, the number b of
  guesses left (None: no cap) and, in hard mode, the constraint the history imposes.
* Guessing g costs 1 for every answer in S. If g is in S that answer is solved; every
  other answer continues in its feedback class with b - 1 guesses left.
* V(S, b) = min over allowed guesses of that cost; None (infeasible) when no guess
  solves every answer within b guesses. V(empty) = 0; V(S non-empty, b = 0) = None.
* The value of an opener is the cost of guessing it first in the full state; the
  opener is always allowed.

Modes:

* easy: any word of the guess list.
* hard (NYT): every green letter stays in place; every letter revealed green or
  yellow is reused at least as many times as it was revealed in one guess (max over
  the history). Grey letters may be reused. The constraint is kept in canonical form
  (greens by position, sorted minimum letter counts) and is part of the memo key.
* strict: every guess after the opener is a word of S.

The one shortcut: a guess that does not split S (every answer of S gives it the same
pattern and it is not itself in S) is skipped. Why that is safe: such a guess leaves
the same set S with one guess fewer and a constraint that is at least as tight (easy:
no constraint; strict: the allowed set is S itself, unchanged; hard: greens and minimum
counts only grow). Any strategy valid from (S, b - 1, tighter) is also valid from
(S, b, looser) with the same cost (each later constraint is the looser one combined
with the same feedback, hence still looser), so V(S, b, looser) <= V(S, b - 1, tighter)
and the skipped guess costs |S| + V(S, b - 1, tighter) > V(S, b, looser): it is never
optimal, and it is infeasible whenever the state is. Without a cap the skip is also what
makes the recursion finite (every remaining guess shrinks S or a class of it).

One normalisation follows from it: with non-splitting guesses skipped, a strategy for S
uses at most |S| guesses on any answer (a guess either is the only answer left, or
leaves classes of at most |S| - 1 answers), so V(S, b) = V(S, no cap) when b >= |S|.
The memo stores those states once, under "no cap".
"""

from __future__ import annotations

import functools
import sys

from solver.feedback import colours_of, score

Constraint = tuple[tuple[str, ...], tuple[tuple[str, int], ...]]
NO_CONSTRAINT: Constraint = (("",) * 5, ())  # five letters (no_constraint: any length)


def no_constraint(length: int) -> Constraint:
    return ("",) * length, ()
MODES = ("easy", "hard", "strict")


@functools.lru_cache(maxsize=1 << 20)
def hard_update(con: Constraint, guess: str, pattern: int) -> Constraint:
    """The hard-mode constraint after `guess` received `pattern`."""
    greens, counts = con
    colours = colours_of(pattern, len(guess))
    new_greens = tuple(
        guess[i] if colours[i] == 2 else greens[i] for i in range(len(guess))
    )
    need = dict(counts)
    revealed: dict[str, int] = {}
    for i in range(len(guess)):
        if colours[i] in (1, 2):
            revealed[guess[i]] = revealed.get(guess[i], 0) + 1
    for letter, n in revealed.items():
        need[letter] = max(need.get(letter, 0), n)
    return new_greens, tuple(sorted(need.items()))


def hard_allowed(con: Constraint, word: str) -> bool:
    """Whether `word` satisfies the hard-mode constraint."""
    greens, counts = con
    for i in range(len(word)):
        if greens[i] and word[i] != greens[i]:
            return False
    return all(word.count(letter) >= n for letter, n in counts)


class Brute:
    """Exact values by exhaustive recursion; one object per (answers, guesses, mode).

    The memo is keyed by (S, b, constraint) and shared by every opener and cap asked
    of the same object.
    """

    def __init__(self, answers: list[str], guesses: list[str], mode: str = "easy"):
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self.answers = list(answers)
        self.green = 3 ** len(self.answers[0]) - 1  # all letters green: solved
        known = set(guesses)
        # Every answer is a legal guess.
        self.guesses = list(guesses) + [w for w in answers if w not in known]
        self.mode = mode
        self.answer_of_guess = {}
        answer_index = {w: i for i, w in enumerate(self.answers)}
        for gi, w in enumerate(self.guesses):
            if w in answer_index:
                self.answer_of_guess[gi] = answer_index[w]
        self.guess_of_answer = {a: g for g, a in self.answer_of_guess.items()}
        # pattern[g][a] = score(guess g, answer a)
        self.pattern = [[score(g, a) for a in self.answers] for g in self.guesses]
        self.memo: dict = {}
        self._allowed: dict = {}  # hard mode: constraint -> allowed guess ids

    # -- the hard-mode rule (methods so that tests can swap in wrong variants) --------

    def update(self, con: Constraint, guess: str, pattern: int) -> Constraint:
        return hard_update(con, guess, pattern)

    def allowed(self, con: Constraint, word: str) -> bool:
        return hard_allowed(con, word)

    # -- the recursion ---------------------------------------------------------------

    def candidates(self, s: frozenset, con: Constraint | None) -> list[int]:
        if self.mode == "strict":
            return sorted(self.guess_of_answer[a] for a in s)
        if self.mode == "hard":
            if con not in self._allowed:
                self._allowed[con] = [
                    g for g, w in enumerate(self.guesses) if self.allowed(con, w)
                ]
            return self._allowed[con]
        return list(range(len(self.guesses)))

    def split(self, g: int, s: frozenset) -> dict[int, frozenset]:
        row = self.pattern[g]
        parts: dict[int, set] = {}
        for a in s:
            parts.setdefault(row[a], set()).add(a)
        return {p: frozenset(c) for p, c in parts.items()}

    def cost(self, g: int, s: frozenset, b: int | None, con, parts=None) -> int | None:
        """Total guesses over S when g is guessed now with b guesses left (g
        included); None if some answer cannot be solved within b."""
        if b is not None and b <= 0:
            return None
        if parts is None:
            parts = self.split(g, s)
        total = len(s)
        nb = None if b is None else b - 1
        for p, cls in parts.items():
            if p == self.green:
                continue  # g itself: solved by this guess
            ncon = self.update(con, self.guesses[g], p) if self.mode == "hard" else None
            v = self.value(cls, nb, ncon)
            if v is None:
                return None
            total += v
        return total

    def value(self, s: frozenset, b: int | None, con=None) -> int | None:
        """V(S, b): optimal total over S with b guesses left (None: no cap)."""
        if not s:
            return 0
        if b is not None and b <= 0:
            return None
        if b is not None and b >= len(s):
            b = None  # the cap cannot bind here (see module docstring)
        key = (s, b, con)
        if key in self.memo:
            return self.memo[key]
        best = None
        for g in self.candidates(s, con):
            parts = self.split(g, s)
            if len(parts) == 1 and self.green not in parts:
                continue  # does not split S: never optimal (see module docstring)
            c = self.cost(g, s, b, con, parts)
            if c is not None and (best is None or c < best):
                best = c
        self.memo[key] = best
        return best

    # -- public API ------------------------------------------------------------------

    def solve(self, opener: str, cap: int = 6) -> int | None:
        """Value of `opener` with at most `cap` guesses per answer (0: no cap)."""
        g = self.guesses.index(opener)
        s = frozenset(range(len(self.answers)))
        con = no_constraint(len(opener)) if self.mode == "hard" else None
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 10_000))
        try:
            return self.cost(g, s, cap if cap > 0 else None, con)
        finally:
            sys.setrecursionlimit(old)

    def best(self, cap: int = 6) -> tuple[int | None, list[str]]:
        """The best value over all openers and the openers achieving it."""
        vals = {w: self.solve(w, cap) for w in self.guesses}
        feasible = [v for v in vals.values() if v is not None]
        if not feasible:
            return None, []
        m = min(feasible)
        return m, [w for w, v in vals.items() if v == m]


def brute_value(answers: list[str], guesses: list[str], opener: str, mode: str = "easy",
                cap: int = 6) -> int | None:
    """One-shot convenience wrapper around `Brute`."""
    return Brute(answers, guesses, mode).solve(opener, cap)
