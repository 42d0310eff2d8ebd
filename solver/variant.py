"""The game being played, in one small object that every layer takes.

A `Variant` says what a value means: the word length (from the lists), hence the
number of feedback patterns (3**length) and the narrowest integer that holds one;
the rules (easy, hard or strict); the guess cap; and the variants still to come
(boards, the adversary, the objective), so that no layer assumes 5 letters or 243
patterns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MIN_LENGTH, MAX_LENGTH = 3, 10
MODES = ("easy", "hard", "strict")
OBJECTIVES = ("expected", "worst", "wins")


def n_patterns(length: int) -> int:
    """Feedback patterns of a word of `length` letters: 3 colours a letter."""
    return 3**length


def pattern_dtype(length: int) -> np.dtype:
    """The narrowest unsigned integer that holds every pattern code: one byte up to
    5 letters (243 patterns), two bytes up to 10 (59049)."""
    return np.dtype(np.uint8) if n_patterns(length) <= 256 else np.dtype(np.uint16)


@dataclass(frozen=True)
class Variant:
    """One game: `length` letters, `mode`, at most `max_guesses` guesses (0: no
    cap), `boards` boards played at once, against a fixed answer or an
    `adversary`, judged by `objective` (the expected number of guesses, the
    worst case first, or the most answers won within the cap first)."""

    length: int = 5
    mode: str = "easy"
    max_guesses: int = 6
    boards: int = 1
    adversary: bool = False
    objective: str = "expected"

    def __post_init__(self) -> None:
        if not MIN_LENGTH <= self.length <= MAX_LENGTH:
            raise ValueError(f"word length {self.length} is outside {MIN_LENGTH}..{MAX_LENGTH}")
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r} (easy, hard or strict)")
        if self.max_guesses < 0:
            raise ValueError("max_guesses must be >= 0 (0 = no cap)")
        if self.boards < 1:
            raise ValueError("boards must be >= 1")
        if self.objective not in OBJECTIVES:
            raise ValueError(f"unknown objective {self.objective!r} (expected, worst or "
                             "wins)")

    @classmethod
    def of(cls, lists, mode: str = "easy", max_guesses: int = 6, **kw) -> Variant:
        """The variant played on `lists` (their word length)."""
        return cls(lists.length, mode, max_guesses, **kw)

    @property
    def n_patterns(self) -> int:
        return n_patterns(self.length)

    @property
    def all_green(self) -> int:
        """The code of the pattern that solves: every letter green."""
        return self.n_patterns - 1

    @property
    def pattern_dtype(self) -> np.dtype:
        return pattern_dtype(self.length)

    def describe(self) -> str:
        cap = f"max {self.max_guesses}" if self.max_guesses else "no cap"
        return f"{self.length} letters, {self.mode}, {cap}"
