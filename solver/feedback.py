"""The Wordle feedback rule, its one-byte encoding and its text forms.

Rule (two passes): greens first; then, left to right, a non-green guess letter is
yellow while the answer still has unmatched copies of it, otherwise grey.

Encoding: position i (0-based) has weight 3**i; grey 0, yellow 1, green 2, so a
pattern is one byte in 0..242 and all-green is 242.
"""

from __future__ import annotations

from .errors import PatternError, quote

GREY, YELLOW, GREEN = 0, 1, 2
N_PATTERNS = 243
ALL_GREEN = 242
WEIGHTS = (1, 3, 9, 27, 81)

_GREY_CHARS = "BXx.-_0⬛⬜b"
_YELLOW_CHARS = "Yy1🟨"
_GREEN_CHARS = "Gg2🟩"
_CHAR_VALUE = {c: GREY for c in _GREY_CHARS}
_CHAR_VALUE.update({c: YELLOW for c in _YELLOW_CHARS})
_CHAR_VALUE.update({c: GREEN for c in _GREEN_CHARS})


def score(guess: str, answer: str) -> int:
    """Pattern code of `guess` against `answer` (the plain scalar rule)."""
    if len(guess) != 5 or len(answer) != 5:
        raise ValueError("guess and answer must have 5 letters")
    colours = [GREY] * 5
    unmatched: dict[str, int] = {}
    for i in range(5):
        if guess[i] == answer[i]:
            colours[i] = GREEN
        else:
            unmatched[answer[i]] = unmatched.get(answer[i], 0) + 1
    for i in range(5):
        if colours[i] != GREEN and unmatched.get(guess[i], 0) > 0:
            colours[i] = YELLOW
            unmatched[guess[i]] -= 1
    return sum(c * w for c, w in zip(colours, WEIGHTS, strict=True))


def colours_of(code: int) -> list[int]:
    """The five colours (0 grey, 1 yellow, 2 green) of a pattern code."""
    if not 0 <= code < N_PATTERNS:
        raise PatternError(f"pattern code {code} is outside 0..242")
    return [(code // w) % 3 for w in WEIGHTS]


def to_text(code: int) -> str:
    """Pattern code as G/Y/B letters, e.g. 56 -> 'GBBGB'."""
    return "".join("BYG"[c] for c in colours_of(code))


def to_squares(code: int) -> str:
    """Pattern code as coloured squares."""
    return "".join("⬛🟨🟩"[c] for c in colours_of(code))


def parse(text: str) -> int:
    """Read feedback typed by a person: G/Y/B (or X . - _ for grey), any case,
    the digits 2/1/0, or the squares; returns the pattern code."""
    s = text.strip()
    if len(s) != 5:
        raise PatternError(
            f"feedback {quote(text)} must have 5 marks (G green, Y yellow, B/X/. grey), "
            f"got {len(s)}"
        )
    code = 0
    for ch, w in zip(s, WEIGHTS, strict=True):
        if ch not in _CHAR_VALUE:
            raise PatternError(
                f"feedback {quote(text)}: {ch!r} is not a mark "
                "(use G/Y/B, X . - _ , 2/1/0 or squares)"
            )
        code += _CHAR_VALUE[ch] * w
    return code


def letter_counts(xp, answers):
    """(26, A) uint8: how many times each letter a..z occurs in each answer."""
    letters = xp.arange(26, dtype=xp.uint8)[:, None, None]
    return (answers[None, :, :] == letters).sum(axis=2, dtype=xp.uint8)


def pattern_rows(xp, guesses, answers, counts=None):
    """Vectorised rule over all pairs: guesses (G,5) and answers (A,5) uint8
    letter codes -> (G, A) uint8 pattern codes. `xp` is numpy or cupy; `counts` is
    `letter_counts(xp, answers)`, computed here when not given.

    A non-green guess letter c at position i is yellow iff the answer has more
    copies of c than are already taken, where taken = copies of c earlier in the
    guess (each is green or was served first) + greens of c later in the guess.
    Everything but the green masks depends on the guess alone, so this is a few
    whole-array operations per position instead of a 5x5 letter comparison.
    """
    if counts is None:
        counts = letter_counts(xp, answers)
    same = guesses[:, :, None] == guesses[:, None, :]  # (G, 5, 5): same letter at j and i
    green = [guesses[:, i, None] == answers[None, :, i] for i in range(5)]  # each (G, A)
    out = xp.zeros((guesses.shape[0], answers.shape[0]), dtype=xp.uint8)
    for i in range(5):
        taken = same[:, :i, i].sum(axis=1, dtype=xp.uint8)[:, None]  # (G, 1)
        for j in range(i + 1, 5):
            taken = taken + (green[j] & same[:, j, i, None])
        yellow = (counts[guesses[:, i]] > taken) & ~green[i]
        mark = green[i].view(xp.uint8) * xp.uint8(2) + yellow.view(xp.uint8)
        out += mark * xp.uint8(WEIGHTS[i])
    return out
