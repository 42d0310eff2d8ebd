"""The command line's names of the library's parameters.

The library's errors name parameters (`errors.Param`: 'memo_mb must be a number above
0'); the CLI prints them with its flags ('--memo-mb must be ...'), here and only here.
"""

from __future__ import annotations

from ..errors import Hint, WordleDPError, one_line

# a parameter whose flag is not its name in dashes (memo_mb: --memo-mb)
FLAGS: dict[str, str] = {"answers_file": "--answers", "guesses_file": "--guesses"}


def flag(param: str) -> str:
    """The flag of the library's parameter `param`."""
    return FLAGS.get(param, "--" + param.replace("_", "-"))


# the CLI's words for the library's hints (errors.Hint: key -> text, formatted with
# the hint's values)
HINTS: dict[str, str] = {
    "repair": "run 'wordle-dp repair --store {path}' to re-mark the openers in the damaged "
              "parts as pending (readable results are kept), then resume",
    "builtin_lists": "; see 'wordle-dp lists'",
    "opener_search": " (wordle-dp run --store S); pass --store S with its results, or an "
                     "opening book (wordle-dp book build, then --book FILE), or choose the "
                     "first guess yourself (a position like {example}, or --opener)",
    "worst_opener_search": " (wordle-dp run --objective worst --store S); pass --store S "
                           "with its results, or choose the first guess yourself (a "
                           "position like salet:BBBBB)",
    "boards_heuristics": "for heuristics use 'simulate --boards {boards}'",
}


def hint(h: Hint) -> str:
    """A library hint in the CLI's words (its own where HINTS has none)."""
    text = HINTS.get(h.key)
    return str(h) if text is None else text.format(**h.values)


def run_report():
    """The lines of a run (run.text.TextReport) on stderr, naming its parameters as
    flags ('rerun with --retry-failed')."""
    import sys

    from ..run.text import TextReport

    return TextReport(sys.stderr, flag)


def error_line(exc: BaseException) -> str:
    """A user error's message as the CLI prints it: one line, parameters as flags."""
    return one_line(exc.rendered(flag, hint) if isinstance(exc, WordleDPError) else exc)
