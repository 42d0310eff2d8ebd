"""Pieces every command group shares: the parser class and the common options."""

from __future__ import annotations

import argparse
import json

from ..errors import UsageError
from ..table import BACKENDS, get_table
from ..words import WordLists

EXIT_USAGE = 2


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit status 2."""

    def error(self, message: str):  # one line, exit 2 (argparse prints usage too)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def add_lists(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("word lists")
    g.add_argument(
        "--answers", metavar="FILE", help="possible answers, one word per line "
        "(default: the 2315 original Wordle answers shipped with the package)"
    )
    g.add_argument(
        "--guesses", metavar="FILE", help="allowed guesses (default: the 12972 original "
        "allowed words, shipped with the package); answers missing from it are added"
    )
    g.add_argument(
        "--cache-dir", metavar="DIR", help="pattern-table cache folder "
        "(default: $WORDLE_DP_CACHE or ~/.cache/wordle-dp)"
    )


def add_problem(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("problem")
    g.add_argument(
        "--mode", choices=("easy", "hard", "strict"), default="easy",
        help="easy: any allowed guess; hard: NYT hard mode (greens kept, revealed letters "
        "reused); strict: every guess must still be a possible answer (default: easy)",
    )
    g.add_argument(
        "--max-guesses", type=int, default=6, metavar="N",
        help="every answer must be solved by guess N; 0 = no cap (default: 6)",
    )


def add_memo(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--memo-mb", type=float, default=75, metavar="MB",
        help="transposition table size; when full, entries for the smallest sets are "
        "evicted first (default: 75)",
    )


def add_backend(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend", choices=BACKENDS, default="auto",
        help="pattern-table builder: cupy on a CUDA GPU, numpy on the CPU; auto picks "
        "cupy when a GPU is usable (default: auto)",
    )


def load_lists(args) -> WordLists:
    return WordLists.load(args.answers, args.guesses)


def make_solver(args, lists: WordLists):
    from ..search import Solver
    from ..search.engine import memo_entries_for

    if args.max_guesses < 0:
        raise UsageError("--max-guesses must be >= 0 (0 = no cap)")
    if args.memo_mb <= 0:
        raise UsageError("--memo-mb must be > 0")
    table, _ = get_table(lists, args.backend, args.cache_dir)
    return Solver(
        lists, mode=args.mode, max_guesses=args.max_guesses, table=table,
        beam=getattr(args, "beam", None), memo_entries=memo_entries_for(args.memo_mb),
    )


def print_result(r, as_json: bool) -> None:
    if as_json:
        print(json.dumps(r.to_dict()), flush=True)
    else:
        print(r.describe(), flush=True)


