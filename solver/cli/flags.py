"""The command line's names of the library's parameters.

The library's errors name parameters (`errors.Param`: 'memo_mb must be a number above
0'); the CLI prints them with its flags ('--memo-mb must be ...'), here and only here.
"""

from __future__ import annotations

from ..errors import WordleDPError, one_line

# a parameter whose flag is not its name in dashes (memo_mb: --memo-mb)
FLAGS: dict[str, str] = {"answers_file": "--answers", "guesses_file": "--guesses"}


def flag(param: str) -> str:
    """The flag of the library's parameter `param`."""
    return FLAGS.get(param, "--" + param.replace("_", "-"))


def run_report():
    """The lines of a run (run.text.TextReport) on stderr, naming its parameters as
    flags ('rerun with --retry-failed')."""
    import sys

    from ..run.text import TextReport

    return TextReport(sys.stderr, flag)


def error_line(exc: BaseException) -> str:
    """A user error's message as the CLI prints it: one line, parameters as flags."""
    return one_line(exc.rendered(flag) if isinstance(exc, WordleDPError) else exc)
