"""A deliberately plain brute force against the adversary (Absurdle), for the tests.

It shares nothing with solver.game.adversary but the feedback rule
(`solver.feedback.score`) and the documented tie rule, written out again here:
the adversary keeps the largest class of the answers by feedback; ties go to the
feedback with the fewest greens, then the fewest yellows, then the lowest code.

value(S) = 1 when S is one answer (guess it), else 1 + min over the guesses g
that shrink S of value(kept class). A guess that leaves S whole cannot help (the
same set with a guess spent), so the recursion only meets smaller sets and ends.
"""

from __future__ import annotations

import functools

from solver.feedback import score


class BruteAdversary:
    def __init__(self, answers: list[str], guesses: list[str]):
        self.answers = list(answers)
        self.guesses = list(guesses) + [a for a in answers if a not in set(guesses)]
        self.length = len(answers[0])

    def _key(self, code: int, size: int) -> tuple:
        digits = [(code // 3**i) % 3 for i in range(self.length)]
        return (-size, digits.count(2), digits.count(1), code)

    def kept(self, guess: str, s: frozenset) -> tuple[int, frozenset]:
        classes: dict[int, set] = {}
        for a in s:
            classes.setdefault(score(guess, a), set()).add(a)
        code = min(classes, key=lambda c: self._key(c, len(classes[c])))
        return code, frozenset(classes[code])

    @functools.cache  # noqa: B019 (one object per test)
    def value(self, s: frozenset) -> int:
        if len(s) == 1:
            return 1
        best = None
        for g in self.guesses:
            _c, rest = self.kept(g, s)
            if len(rest) < len(s):
                v = 1 + self.value(rest)
                best = v if best is None else min(best, v)
        return best

    def opener_value(self, opener: str) -> int:
        s = frozenset(self.answers)
        if s == {opener}:
            return 1
        _c, rest = self.kept(opener, s)
        if rest == s:
            return 1 + self.value(s)
        return 1 + self.value(rest)
