"""Counts in words, the same everywhere: '1 guess', '2 guesses', '3,158 answers'."""

from __future__ import annotations


def counted(n: int, one: str, many: str | None = None) -> str:
    """`n` with its digits grouped and the noun that agrees with it."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"
