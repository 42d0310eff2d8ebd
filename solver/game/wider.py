"""Answers outside the lists: when the feedback a player enters rules out every
possible answer, the day's answer may simply be missing from the answer list (the
New York Times' editor picks words from a pool no list fully knows). The game then
goes on with the wider list: every allowed guess is a possible answer.

- `widen(position, guess, pattern)` -> `Position` after the step, on lists whose
  answers are the allowed guesses that fit every step so far (the guess list is
  unchanged); UsageError when no allowed guess fits either (the feedback is wrong).
- `parse(text, lists, ...)` -> `(Position, note)`: `Position.parse`, widening at the
  step no answer fits and playing the rest on; `note` is the one line to show the
  player (None when the answers were enough).
- `solver_for(position, like)` -> a `Solver` for a widened position's lists (its
  small table built in memory, not cached).
- `note(position)`: that one line.

Used by the terminal game (`play.Game`), `wordle-dp next`, and open to the web page.
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..feedback import pattern_rows
from ..variant import Mode
from ..words import WordLists
from .position import NoFit, Position, constraint_after, guess_letters

WIDER = "every allowed guess"  # the answers' source of the wider lists


def fitting_guesses(lists: WordLists, steps) -> list[str]:
    """The allowed guesses that give every (guess, pattern) of `steps`, in list order."""
    letters = guess_letters(lists)
    keep = np.ones(len(lists.guesses), bool)
    for word, pattern in steps:
        row = pattern_rows(np, letters[[lists.guess_index[word]]], letters[keep])[0]
        keep[np.flatnonzero(keep)[row != pattern]] = False
    return [lists.guesses[i] for i in np.flatnonzero(keep)]


def is_wide(lists: WordLists) -> bool:
    return lists.answers_source == WIDER


def widen(position: Position, guess: str, pattern: int) -> Position:
    """The position after `guess` showed `pattern`, with every allowed guess that fits
    the history as a possible answer. The guess must be legal at `position` (as
    `Position.play` checks before it finds that no answer fits)."""
    steps = position.history + ((guess, pattern),)
    lists = position.lists
    fits = fitting_guesses(lists, steps)
    n = len(steps)
    if not fits:
        raise UsageError(f"no answer in the list fits {position._with(guess, pattern)}, nor "
                         f"does any allowed word (check the feedback of guess {n})")
    cap = position.max_guesses
    if cap and n == cap and pattern != position.variant.all_green:
        raise UsageError(f"{position._with(guess, pattern)}: all {cap} guesses are used and "
                         "the game is not solved")
    wide = WordLists(fits, list(lists.guesses), WIDER, lists.guesses_source)
    cons = (constraint_after(position.cons, guess, pattern)
            if position.mode == Mode.HARD and position.cons is not None else None)
    return Position(wide, position.mode, cap, steps, np.arange(len(fits), dtype=np.int32),
                    cons, position.objective)


def note(position: Position) -> str:
    """One line for the player: the list had no answer that fits, and what now."""
    n = len(position.members)
    fit = "fits" if n == 1 else "fit"
    return (f"no answer in the list fits {position}: the answer may be missing from it, "
            f"so every allowed guess is now a possible answer ({n} {fit})")


def parse(text: str, lists: WordLists, mode: Mode = Mode.EASY, max_guesses: int = 6,
          objective: str = "expected") -> tuple[Position, str | None]:
    """`Position.parse`, going on with the wider list at the step no answer fits."""
    pos = Position.start(lists, mode, max_guesses, objective)
    said = None
    for word, code in Position.steps(text, lists.length, max_guesses):
        try:
            pos = pos.play(word, code)
        except NoFit as exc:
            pos = widen(exc.position, exc.guess, exc.pattern)
            said = note(pos)
    return pos, said


def solver_for(position: Position, like=None):
    """An engine for a widened position's lists, in its mode and cap; `like`: a solver
    whose memo size and beam to keep."""
    from ..search import Solver
    from ..table import build_numpy

    kw = {}
    if like is not None:
        kw = {"beam": like.beam, "memo_entries": like.stats["memo_entries"]}
    return Solver(position.lists, mode=position.mode, max_guesses=position.max_guesses,
                  table=build_numpy(position.lists), **kw)
