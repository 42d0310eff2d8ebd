"""The hard-mode constraint of a history, in Python (the kernels' own is rules.py):
greens in place and the least copies of each revealed letter; the guesses it
allows. The game's positions and the objectives worst and wins use it."""

from __future__ import annotations

import numpy as np

from ..feedback import colours_of
from ..variant import Mode
from ..words import WordLists, encode_words

Constraint = tuple[np.ndarray, np.ndarray]  # greens uint8[L] (255: none), min counts uint8[26]


def no_constraint(length: int) -> Constraint:
    return np.full(length, 255, np.uint8), np.zeros(26, np.uint8)


def constraint_after(cons: Constraint, guess: str, pattern: int) -> Constraint:
    """NYT hard mode: greens stay in place; each letter revealed green or yellow is
    reused at least as often as it was revealed in one guess (max over the history)."""
    greens, mins = cons[0].copy(), cons[1].copy()
    cols = colours_of(pattern, len(guess))
    for i, (ch, col) in enumerate(zip(guess, cols, strict=True)):
        if col == 2:
            greens[i] = ord(ch) - 97
    for ch in set(guess):
        seen = sum(1 for g, col in zip(guess, cols, strict=True) if g == ch and col)
        c = ord(ch) - 97
        mins[c] = max(mins[c], seen)
    return greens, mins


_LETTERS: dict[int, tuple[object, np.ndarray]] = {}


def guess_letters(lists: WordLists) -> np.ndarray:
    """encode_words(lists.guesses), cached per lists object."""
    hit = _LETTERS.get(id(lists))
    if hit is None or hit[0] is not lists:
        hit = (lists, encode_words(lists.guesses))
        _LETTERS[id(lists)] = hit
    return hit[1]


def legal_mask(lists: WordLists, mode: Mode, cons: Constraint | None,
               members: np.ndarray, first: bool) -> np.ndarray:
    """bool [n_guesses]: the guesses allowed now (strict: the candidates, except
    for the opener, which is always free, as in the engine)."""
    n_g = len(lists.guesses)
    if mode == Mode.STRICT and not first:
        mask = np.zeros(n_g, bool)
        mask[lists.answer_guess_ids[members]] = True
        return mask
    if mode == Mode.HARD and cons is not None:
        letters = guess_letters(lists)
        greens, mins = cons
        mask = np.ones(n_g, bool)
        for i in range(len(greens)):
            if greens[i] != 255:
                mask &= letters[:, i] == greens[i]
        for c in np.flatnonzero(mins):
            mask &= (letters == c).sum(axis=1) >= mins[c]
        return mask
    return np.ones(n_g, bool)
