"""Error types shared by every layer (the bottom of the dependency graph).

Every subclass of `WordleDPError` is a user error: the CLI prints its message as
one line, 'wordle-dp: error: ...', and exits with status 2. Anything else that
escapes is a bug.
"""

from __future__ import annotations


class WordleDPError(Exception):
    """A user error: bad input, a store that cannot be used, a missing backend."""


class UsageError(WordleDPError, ValueError):
    """Bad input detected after argument parsing (option values, positions, files)."""


class WordListError(WordleDPError, ValueError):
    """A word list that cannot be read or is malformed (message names file:line)."""


class PatternError(WordleDPError, ValueError):
    """Feedback text that cannot be read as a pattern."""


class BackendError(WordleDPError, RuntimeError):
    """A pattern-table backend that was asked for but is not usable."""


class StoreError(UsageError):
    """A result store that cannot be used for this request."""
