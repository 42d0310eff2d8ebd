"""The `wordle-dp` command: a thin layer over the Python API.

One module per command group (`solve`: table/solve/best; `cluster`: run/query/
export/merge; `book`: book build/show; `game`: next/tree/play/simulate/score/
compare). Every user error (a
`WordleDPError`: bad word list, unknown word, bad option, unusable store) is one
line on stderr starting with 'wordle-dp: error:' and exit status 2, never a
traceback.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys

# The solver never calls BLAS: OpenBLAS's thread pool would only cost start-up
# (about 0.04 s of CPU per process, and per MPI rank). Set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .. import __version__  # noqa: E402
from ..errors import UsageError, WordleDPError, check_environment  # noqa: E402
from . import book, cluster, game, solve, web  # noqa: E402
from .common import EXIT_USAGE, Parser, launcher_rank  # noqa: E402
from .flags import error_line  # noqa: E402

__all__ = ["UsageError", "build_parser", "main"]

GROUPS = (solve, cluster, book, game, web)


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="wordle-dp",
        description="Exact Wordle solver: for an opening guess, the minimum total number of "
        "guesses over all possible answers with perfect play afterwards (average = total / "
        "answers), under a guess cap, in easy, hard or strict mode.",
        epilog="examples:\n"
        "  wordle-dp solve salet                 exact value of SALET (7920 = 3.421 avg)\n"
        "  wordle-dp solve salet --mode hard     NYT hard mode (8122)\n"
        "  wordle-dp solve crane trace --json    one JSON object per line\n"
        "  wordle-dp best --answers small.txt    best opener with proof\n"
        "  wordle-dp table                       build/load the pattern table\n"
        "  wordle-dp next salet:BBBBB            optimal next guess (609 = 2.756 more)\n"
        "  wordle-dp play                        play with the optimal guess suggested\n"
        "run 'wordle-dp COMMAND --help' for each command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"wordle-dp {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    for group in GROUPS:
        group.register(sub)
    return p


def _exit_code(code) -> int:
    return code if isinstance(code, int) else (0 if code is None else EXIT_USAGE)


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit status (argparse's exits included)."""
    try:
        check_environment()  # before any command imports numba
        parser = build_parser()
        args = parser.parse_args(argv)
    except WordleDPError as exc:
        if launcher_rank() == 0:  # under mpiexec every rank would say the same
            print(f"wordle-dp: error: {error_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help, --version, or a parse error already printed
        return _exit_code(exc.code)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from .interrupt import OWN_SIGNALS, watching

    try:
        if args.command in OWN_SIGNALS:
            rc = args.func(args)
        else:
            with watching():  # Ctrl-C stops a compiled search too (cli/interrupt.py)
                rc = args.func(args)
        sys.stdout.flush()  # a full disk behind stdout shows here, not at exit
        return rc
    except WordleDPError as exc:
        print(f"wordle-dp: error: {error_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        from ..progress import end_open_line

        # not '...salet 7920^Cwordle-dp: interrupted' or 'q quits): ^Cwordle-dp: ...'
        end_open_line(interrupted=True)
        print("wordle-dp: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into head
        return 0
    except OSError as exc:
        if exc.errno not in _MACHINE_ERRNOS:
            raise
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"wordle-dp: error: cannot write: {exc.strerror}{where}", file=sys.stderr)
        return EXIT_USAGE


# failures of the machine, not of the program: a full or read-only disk, an I/O error
_MACHINE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS}
