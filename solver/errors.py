"""Error types shared by every layer (the bottom of the dependency graph).

Every subclass of `WordleDPError` is a user error: the CLI prints its message as
one line, 'wordle-dp: error: ...', and exits with status 2. Anything else that
escapes is a bug.

The library speaks of its parameters, never of the command line's flags: a message
names a parameter as `Param("memo_mb")`, one of its parts, and reads 'memo_mb must be
a number above 0'; cli/ prints the same message with the flag, '--memo-mb must be a
number above 0' (`rendered`). Advice that only an interface can word (which command
to run next) is a `Hint`: the library's words, and a key by which cli/ finds its own
('run repair on the store' in the library, "run 'wordle-dp repair --store S'" in cli/).
"""

from __future__ import annotations

from collections.abc import Callable


class Param(str):
    """A parameter's name inside an error message (its flag on the command line)."""

    __slots__ = ()


class Hint(str):
    """Advice inside an error message: the library's words (its value), and a `key`
    with `values` by which an interface finds its own wording (cli/flags.HINTS)."""

    key: str
    values: dict[str, object]

    def __new__(cls, key: str, text: str, **values: object) -> Hint:
        h = super().__new__(cls, text)
        h.key, h.values = key, values
        return h


class WordleDPError(Exception):
    """A user error: bad input, a store that cannot be used, a missing backend.

    Made from one message, or from parts of one, some of them `Param`s."""

    def __init__(self, *parts: object) -> None:
        if parts and all(isinstance(p, str) for p in parts) and (len(parts) > 1 or any(
                isinstance(p, (Param, Hint)) for p in parts)):
            self.parts: tuple[str, ...] = parts  # type: ignore[assignment]
            super().__init__("".join(parts))  # type: ignore[arg-type]
        else:
            self.parts = ()
            super().__init__(*parts)

    def rendered(self, name: Callable[[str], str],
                 hint: Callable[[Hint], str] | None = None) -> str:
        """The message with each parameter written as `name(parameter)` and each
        hint as `hint(h)` (default: the library's words)."""
        if not self.parts:
            return str(self)
        return "".join(name(p) if isinstance(p, Param) else
                       hint(p) if isinstance(p, Hint) and hint is not None else p
                       for p in self.parts)


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


QUOTE_LIMIT = 40  # characters of user input an error message quotes at most


def quote(text: object, limit: int = QUOTE_LIMIT) -> str:
    """User input quoted for an error message, cut to `limit` characters.

    A word list with one 50 MB line must not put 50 MB on stderr.
    """
    s = str(text)
    if len(s) <= limit:
        return repr(s)
    return repr(s[:limit]) + f"... ({len(s)} characters)"


def one_line(message: object, limit: int = 1000) -> str:
    """An error message as one bounded line (newlines folded, long text cut)."""
    s = " ".join(str(message).split("\n"))
    s = s.replace("\r", " ")
    return s if len(s) <= limit else s[:limit] + f"... ({len(s)} characters)"


def check_environment(environ=None) -> None:
    """Refuse environment settings that would crash or warn at numba import.

    Called before anything imports numba (numba reads NUMBA_NUM_THREADS once, at
    import, and fails with a traceback on 0 or a negative value).
    """
    import os
    import re

    env = os.environ if environ is None else environ
    v = env.get("NUMBA_NUM_THREADS")
    if v is not None:  # numba warns with a traceback on '' or 'abc', fails on 0 or -1
        if not re.fullmatch(r"\+?\d{1,6}", v.strip()) or int(v.strip()) < 1:
            raise UsageError(
                f"environment variable NUMBA_NUM_THREADS={quote(v)} is not a positive "
                "integer (unset it, or set it to the number of threads, e.g. 1)"
            )
    v = env.get("WORDLE_DP_KERNELS")
    if v is not None and v.strip() not in ("", "auto", "jit"):
        raise UsageError(
            f"environment variable WORDLE_DP_KERNELS={quote(v)} must be auto (compiled "
            "kernels when they can be built, the default) or jit (numba's jit only)"
        )
