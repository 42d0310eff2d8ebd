"""The game being played, in one small object that every layer takes.

A `Variant` says what a value means: the word length (from the lists), hence the
number of feedback patterns (3**length) and the narrowest integer that holds one;
the rules (easy, hard or strict); the guess cap; and the variants still to come
(boards, the adversary, the objective), so that no layer assumes 5 letters or 243
patterns.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from .errors import Param, UsageError

MIN_LENGTH, MAX_LENGTH = 3, 10


class Mode(StrEnum):
    """The rules, the one list of them: easy (any guess), hard (NYT hard mode: the
    hints revealed must be used) and strict (every guess could be the answer). A str:
    `mode == "hard"`, JSON, Zarr attributes and the CLI's choices take it as is."""

    EASY = "easy"
    HARD = "hard"
    STRICT = "strict"

    def __repr__(self) -> str:  # as the plain name: messages quote it with !r
        return repr(self.value)


class Objective(StrEnum):
    """What a value ranks by, the one list of them: the expected number of guesses,
    the worst case first (search/worst.py), or the most answers won within the cap
    first (search/wins.py). A str, as Mode is."""

    EXPECTED = "expected"
    WORST = "worst"
    WINS = "wins"

    def __repr__(self) -> str:
        return repr(self.value)


# their names as plain strings, in order (argparse's choices, FastAPI's literals, the
# messages: a plain str has a plain repr)
MODES: tuple[str, ...] = tuple(m.value for m in Mode)
OBJECTIVES: tuple[str, ...] = tuple(o.value for o in Objective)


def check_mode(mode: object) -> Mode:
    """`mode` as a Mode; a UsageError naming the choices when it is none."""
    if mode not in MODES:
        raise UsageError(f"unknown mode {mode!r} ({', '.join(MODES[:-1])} or "
                         f"{MODES[-1]})")
    return Mode(mode)


def check_objective(objective: object) -> Objective:
    """`objective` as an Objective; a UsageError naming the choices when it is none."""
    if objective not in OBJECTIVES:
        raise UsageError(f"unknown objective {objective!r} ("
                         f"{', '.join(OBJECTIVES[:-1])} or {OBJECTIVES[-1]})")
    return Objective(objective)


def check_max_guesses(max_guesses: int) -> int:
    """The guess cap, checked: 0 (no cap) or more."""
    if max_guesses < 0:
        raise UsageError(Param("max_guesses"), " must be >= 0 (0 = no cap)")
    return max_guesses


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
    mode: Mode = Mode.EASY  # a Mode once made (a name is taken too)
    max_guesses: int = 6
    boards: int = 1
    adversary: bool = False
    objective: str = Objective.EXPECTED  # an Objective once made

    def __post_init__(self) -> None:
        if not MIN_LENGTH <= self.length <= MAX_LENGTH:
            raise ValueError(f"word length {self.length} is outside {MIN_LENGTH}..{MAX_LENGTH}")
        object.__setattr__(self, "mode", check_mode(self.mode))
        check_max_guesses(self.max_guesses)
        if self.boards < 1:
            raise ValueError("boards must be >= 1")
        object.__setattr__(self, "objective", check_objective(self.objective))

    @classmethod
    def of(cls, lists, mode: Mode = Mode.EASY, max_guesses: int = 6, **kw) -> Variant:
        """The variant played on `lists` (their word length)."""
        return cls(lists.length, mode, max_guesses, **kw)

    @classmethod
    def given(cls, lists, problem: Mode | str | Variant, max_guesses: int | None = None,
              **kw) -> Variant:
        """The variant that the solver, the store, the book and the service are given
        on `lists`: a whole Variant (it must be of their word length; no separate
        cap then), or a mode with `max_guesses` (default 6), as before."""
        if isinstance(problem, Variant):
            if problem.length != lists.length:
                raise ValueError(f"a variant of {problem.length} letters for lists of "
                                 f"{lists.length}")
            if (max_guesses is not None and max_guesses != problem.max_guesses) or any(
                    getattr(problem, k) != v for k, v in kw.items()):
                raise ValueError("a variant and other settings that differ from it")
            return problem
        return cls.of(lists, check_mode(problem), 6 if max_guesses is None else max_guesses,
                      **kw)

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
