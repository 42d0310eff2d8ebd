"""A game position: the guesses played so far with their feedback.

Text form: `salet:BBYBG,drone:YBBBG` (steps separated by commas or spaces; each
pattern in any form `solver.feedback.parse` reads), `-` or an empty string for the
start of a game. `str(position)` gives the canonical form back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import PatternError, UsageError, WordListError, quote
from ..feedback import parse as parse_pattern
from ..feedback import pattern_rows, to_text
from ..search.constraint import (  # noqa: F401 (the game's names for them)
    Constraint,
    constraint_after,
    guess_letters,
    legal_mask,
    no_constraint,
)
from ..search.engine import UNCAPPED_DEPTH as UNCAPPED  # the engine's depth for "no cap"
from ..variant import Mode, Variant, check_max_guesses, check_mode, check_objective
from ..words import WordLists, encode_words


def hard_violation(cons: Constraint, guess: str) -> str | None:
    """Why `guess` breaks the hard-mode constraint (None when it is legal)."""
    greens, mins = cons
    for i in range(len(greens)):
        if greens[i] != 255 and ord(guess[i]) - 97 != greens[i]:
            return f"position {i + 1} must be {chr(97 + greens[i]).upper()}"
    for c in range(26):
        if mins[c] and guess.count(chr(97 + c)) < mins[c]:
            times = "" if mins[c] == 1 else f" {mins[c]} times"
            return f"it must contain {chr(97 + c).upper()}{times}"
    return None


class NoFit(UsageError):
    """A step no answer of the list fits: the feedback is wrong, or the answer is
    missing from the list (`solver.game.wider` plays on with every allowed guess as a
    possible answer). `position` is the position before the step."""

    def __init__(self, position: Position, guess: str, pattern: int):
        self.position, self.guess, self.pattern = position, guess, pattern
        n = position.guesses_made + 1
        super().__init__(f"no answer in the list fits {position._with(guess, pattern)} "
                         f"(check the feedback of guess {n})")


@dataclass(frozen=True)
class Position:
    """History of (guess, pattern code); `members` are the ids of the answers still
    possible; `cons` the hard-mode constraint (None in the other modes); `objective`
    what the analysis optimises (Variant.objective: expected, worst first, or wins
    first: search/wins.py)."""

    lists: WordLists
    mode: Mode
    max_guesses: int
    history: tuple[tuple[str, int], ...]
    members: np.ndarray = field(repr=False, compare=False)
    cons: Constraint | None = field(repr=False, compare=False)
    objective: str = "expected"

    @classmethod
    def start(cls, lists: WordLists, mode: Mode = Mode.EASY, max_guesses: int = 6,
              objective: str = "expected") -> Position:
        check_mode(mode)
        check_max_guesses(max_guesses)
        check_objective(objective)
        cons = no_constraint(lists.length) if mode == Mode.HARD else None
        return cls(lists, mode, max_guesses, (),
                   np.arange(len(lists.answers), dtype=np.int32), cons, objective)

    @classmethod
    def parse(cls, text: str, lists: WordLists, mode: Mode = Mode.EASY,
              max_guesses: int = 6, objective: str = "expected") -> Position:
        """Read a position; UsageError/PatternError (one line) for unknown words,
        malformed patterns, illegal guesses, histories no answer fits, or more
        guesses than the cap."""
        pos = cls.start(lists, mode, max_guesses, objective)
        for word, code in cls.steps(text, lists.length, max_guesses):
            pos = pos.play(word, code)
        return pos

    @staticmethod
    def steps(text: str, length: int, max_guesses: int = 6) -> list[tuple[str, int]]:
        """The (word as typed, pattern code) steps of a position's text, read but not
        played (`parse` plays them); UsageError/PatternError for malformed text."""
        s = text.strip()
        if s in ("", "-"):
            return []
        steps = [t for t in re.split(r"[,\s]+", s) if t]
        if not steps:
            raise UsageError(f"position {quote(text)} has no step (give GUESS:PATTERN,... "
                             "or '-' for the start)")
        if max_guesses and len(steps) > max_guesses:
            raise UsageError(f"{len(steps)} guesses given: more than the cap of {max_guesses}")
        if not max_guesses and len(steps) >= UNCAPPED:
            raise UsageError(f"{len(steps)} guesses given: without a cap a position holds at "
                             f"most {UNCAPPED - 1} (the search's depth limit)")
        out = []
        for step in steps:
            word, sep, pat = step.partition(":")
            if not sep or not word or not pat:
                raise UsageError(f"position step {quote(step)} must be GUESS:PATTERN "
                                 "(e.g. salet:BBYBG)")
            try:
                out.append((word, parse_pattern(pat, length)))
            except PatternError as exc:
                raise PatternError(f"position step {quote(step)}: {exc}") from None
        return out

    def play(self, word: str, pattern: int) -> Position:
        """The position after guessing `word` and seeing `pattern`."""
        w = self._word(word)
        n = len(self.history) + 1
        if self.solved:
            raise UsageError(f"guess {n} ({w}): the game was already solved at guess "
                             f"{n - 1}")
        if self.max_guesses and n > self.max_guesses:
            raise UsageError(f"guess {n} ({w}): more guesses than the cap of "
                             f"{self.max_guesses}")
        if not self.max_guesses and n >= UNCAPPED:
            raise UsageError(f"guess {n} ({w}): without a cap a position holds at most "
                             f"{UNCAPPED - 1} guesses (the search's depth limit)")
        if self.mode == Mode.HARD and self.cons is not None:
            why = hard_violation(self.cons, w)
            if why:
                raise UsageError(f"guess {n} ({w}) is not allowed in hard mode: {why}")
        if self.mode == Mode.STRICT and self.history:
            if w not in self.candidates:
                raise UsageError(f"guess {n} ({w}) is not allowed in strict mode: it is "
                                 "not a possible answer any more")
        row = pattern_rows(np, encode_words([w]), encode_words(
            [self.lists.answers[i] for i in self.members]))[0]
        members = self.members[row == pattern]
        if len(members) == 0:
            raise NoFit(self, w, pattern)
        if self.max_guesses and n == self.max_guesses and pattern != self.variant.all_green:
            steps = str(self._with(w, pattern))
            raise UsageError(f"{steps}: all {self.max_guesses} guesses are used and the "
                             "game is not solved")
        cons = (constraint_after(self.cons, w, pattern)
                if self.mode == Mode.HARD and self.cons is not None else None)
        return Position(self.lists, self.mode, self.max_guesses,
                        self.history + ((w, pattern),), members, cons, self.objective)

    def _with(self, w: str, pattern: int) -> Position:
        """This position with one more step, unchecked (for messages)."""
        return Position(self.lists, self.mode, self.max_guesses,
                        self.history + ((w, pattern),), self.members, self.cons,
                        self.objective)

    # ---- views -------------------------------------------------------------------

    @property
    def variant(self) -> Variant:
        """The game this position belongs to (word length, mode, cap, objective)."""
        return Variant.of(self.lists, self.mode, self.max_guesses, objective=self.objective)

    @property
    def length(self) -> int:
        return self.lists.length

    def __str__(self) -> str:
        if not self.history:
            return "-"
        return ",".join(f"{g}:{to_text(p, self.length)}" for g, p in self.history)

    @property
    def solved(self) -> bool:
        return bool(self.history) and self.history[-1][1] == self.variant.all_green

    @property
    def candidates(self) -> list[str]:
        return [self.lists.answers[i] for i in self.members]

    @property
    def guesses_made(self) -> int:
        return len(self.history)

    @property
    def guesses_left(self) -> int | None:
        """None without a cap."""
        if not self.max_guesses:
            return None
        return self.max_guesses - len(self.history)

    @property
    def budget(self) -> int:
        """Guesses left as the engine counts them (a large depth without a cap)."""
        return (self.max_guesses or UNCAPPED) - len(self.history)

    def legal(self) -> np.ndarray:
        """bool [n_guesses]: guesses allowed now."""
        return legal_mask(self.lists, self.mode, self.cons, self.members, not self.history)

    def _word(self, word: str) -> str:
        """`word` as it is in the guess list (non-ASCII refused before case folding:
        the Kelvin sign lower-cases to 'k'); error quoting at most a few characters."""
        try:
            return self.lists.guesses[self.lists.guess_id(word)]
        except WordListError as exc:  # the game API's contract: UsageError
            raise UsageError(str(exc)) from None

    def check_guess(self, word: str) -> int:
        """Guess id of `word` if it may be played now, else UsageError saying why."""
        w = self._word(word)
        if self.mode == Mode.HARD and self.cons is not None:
            why = hard_violation(self.cons, w)
            if why:
                raise UsageError(f"{w} is not allowed in hard mode: {why}")
        if self.mode == Mode.STRICT and self.history and w not in self.candidates:
            raise UsageError(f"{w} is not allowed in strict mode: not a possible answer")
        return self.lists.guess_index[w]
