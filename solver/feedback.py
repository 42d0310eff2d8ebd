"""The Wordle feedback rule, its integer encoding and its text forms, for words of
any length L (3 to 10 letters; see solver.variant).

Rule (two passes): greens first; then, left to right, a non-green guess letter is
yellow while the answer still has unmatched copies of it, otherwise grey.

Encoding: position i (0-based) has weight 3**i; grey 0, yellow 1, green 2, so a
pattern is an integer in 0..3**L - 1 (one byte up to 5 letters: 0..242, two above)
and all-green is 3**L - 1. The codes and text forms need L, since a code alone does
not say how many letters it has.
"""

from __future__ import annotations

from .errors import PatternError, quote
from .variant import n_patterns

GREY, YELLOW, GREEN = 0, 1, 2

_GREY_CHARS = "BXx.-_0⬛⬜b"
_YELLOW_CHARS = "Yy1🟨"
_GREEN_CHARS = "Gg2🟩"
_CHAR_VALUE = {c: GREY for c in _GREY_CHARS}
_CHAR_VALUE.update({c: YELLOW for c in _YELLOW_CHARS})
_CHAR_VALUE.update({c: GREEN for c in _GREEN_CHARS})


def all_green(length: int) -> int:
    """The code of the pattern that solves a word of `length` letters."""
    return n_patterns(length) - 1


def score(guess: str, answer: str) -> int:
    """Pattern code of `guess` against `answer` (the plain scalar rule)."""
    n = len(guess)
    if len(answer) != n or n == 0:
        raise ValueError("guess and answer must have the same number of letters")
    colours = [GREY] * n
    unmatched: dict[str, int] = {}
    for i in range(n):
        if guess[i] == answer[i]:
            colours[i] = GREEN
        else:
            unmatched[answer[i]] = unmatched.get(answer[i], 0) + 1
    for i in range(n):
        if colours[i] != GREEN and unmatched.get(guess[i], 0) > 0:
            colours[i] = YELLOW
            unmatched[guess[i]] -= 1
    return sum(c * 3**i for i, c in enumerate(colours))


def colours_of(code: int, length: int) -> list[int]:
    """The colours (0 grey, 1 yellow, 2 green) of a pattern code, one per letter."""
    if not 0 <= code < n_patterns(length):
        raise PatternError(f"pattern code {code} is outside 0..{all_green(length)}")
    return [(code // 3**i) % 3 for i in range(length)]


def to_text(code: int, length: int) -> str:
    """Pattern code as G/Y/B letters, e.g. 56 -> 'GBBGB' (5 letters)."""
    return "".join("BYG"[c] for c in colours_of(code, length))


def to_squares(code: int, length: int) -> str:
    """Pattern code as coloured squares."""
    return "".join("⬛🟨🟩"[c] for c in colours_of(code, length))


def parse(text: str, length: int) -> int:
    """Read feedback typed by a person for a word of `length` letters: G/Y/B (or
    X . - _ for grey), any case, the digits 2/1/0, or the squares; returns the code."""
    s = text.strip()
    if len(s) != length:
        raise PatternError(
            f"feedback {quote(text)} must have {length} marks (G green, Y yellow, B/X/. "
            f"grey), got {len(s)}"
        )
    code = 0
    for i, ch in enumerate(s):
        if ch not in _CHAR_VALUE:
            raise PatternError(
                f"feedback {quote(text)}: {ch!r} is not a mark "
                "(use G/Y/B, X . - _ , 2/1/0 or squares)"
            )
        code += _CHAR_VALUE[ch] * 3**i
    return code


def letter_counts(xp, answers):
    """(26, A) uint8: how many times each letter a..z occurs in each answer."""
    letters = xp.arange(26, dtype=xp.uint8)[:, None, None]
    return (answers[None, :, :] == letters).sum(axis=2, dtype=xp.uint8)


def pattern_rows(xp, guesses, answers, counts=None):
    """Vectorised rule over all pairs: guesses (G, L) and answers (A, L) uint8
    letter codes -> (G, A) pattern codes, uint8 up to 5 letters, uint16 above (see
    variant.pattern_dtype). `xp` is numpy or cupy; `counts` is
    `letter_counts(xp, answers)`, computed here when not given.

    A non-green guess letter c at position i is yellow iff the answer has more
    copies of c than are already taken, where taken = copies of c earlier in the
    guess (each is green or was served first) + greens of c later in the guess.
    Everything but the green masks depends on the guess alone, so this is a few
    whole-array operations per position instead of an L x L letter comparison.
    """
    from .variant import pattern_dtype

    length = guesses.shape[1]
    dt = xp.dtype(pattern_dtype(length).name)
    if counts is None:
        counts = letter_counts(xp, answers)
    same = guesses[:, :, None] == guesses[:, None, :]  # (G, L, L): same letter at j and i
    green = [guesses[:, i, None] == answers[None, :, i] for i in range(length)]  # (G, A)
    out = xp.zeros((guesses.shape[0], answers.shape[0]), dtype=dt)
    for i in range(length):
        taken = same[:, :i, i].sum(axis=1, dtype=xp.uint8)[:, None]  # (G, 1)
        for j in range(i + 1, length):
            taken = taken + (green[j] & same[:, j, i, None])
        yellow = (counts[guesses[:, i]] > taken) & ~green[i]
        mark = green[i].view(xp.uint8).astype(dt, copy=False) * dt.type(2) + yellow.view(xp.uint8)
        out += mark * dt.type(3**i)
    return out
