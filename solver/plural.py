"""Counts in words, the same everywhere: '1 guess', '2 guesses', '3,158 answers'."""

from __future__ import annotations


def counted(n: int, one: str, many: str | None = None) -> str:
    """`n` with its digits grouped and the noun that agrees with it."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def percent(k: int, n: int) -> str:
    """k of n as a player reads it: '83 %'; never '100 %' or '0 %' unless it is."""
    p = 100 * k / n
    text = f"{p:.0f}"
    if (text == "100" and k < n) or (text == "0" and k > 0):
        text = f"{p:.2f}" if 0.01 <= p <= 99.99 else f"{p:.4f}"
    return f"{text} %"
