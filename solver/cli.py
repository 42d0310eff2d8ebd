"""Command-line interface: a thin layer over the Python API.

Every user error (bad word list, unknown word, bad option) is one line on stderr
starting with 'wordle-dp: error:' and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from . import __version__
from .feedback import PatternError
from .table import BACKENDS, BackendError, get_table
from .words import WordListError, WordLists

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input detected after argument parsing."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints usage too)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _add_lists(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("word lists")
    g.add_argument(
        "--answers", metavar="FILE", help="possible answers, one word per line "
        "(default: the 2315 original Wordle answers in data/answers.txt)"
    )
    g.add_argument(
        "--guesses", metavar="FILE", help="allowed guesses (default: the 12972 original "
        "allowed words in data/guesses.txt); answers missing from it are added"
    )
    g.add_argument(
        "--cache-dir", metavar="DIR", help="pattern-table cache folder "
        "(default: $WORDLE_DP_CACHE or ~/.cache/wordle-dp)"
    )


def _add_problem(p: argparse.ArgumentParser) -> None:
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


def _add_memo(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--memo-mb", type=float, default=75, metavar="MB",
        help="transposition table size; when full, entries for the smallest sets are "
        "evicted first (default: 75)",
    )


def _add_backend(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend", choices=BACKENDS, default="auto",
        help="pattern-table builder: cupy on a CUDA GPU, numpy on the CPU; auto picks "
        "cupy when a GPU is usable (default: auto)",
    )


def _lists(args) -> WordLists:
    return WordLists.load(args.answers, args.guesses)


def _cmd_table(args) -> int:
    lists = _lists(args)
    table, info = get_table(lists, args.backend, args.cache_dir, use_cache=not args.no_cache)
    if info.rebuilt_reason:
        print(f"note: {info.rebuilt_reason}; table rebuilt", file=sys.stderr)
    row = {
        "backend": info.backend,
        "shape": list(table.shape),
        "seconds": round(info.seconds, 4),
        "cache": str(info.path) if info.path else None,
        "answers_sha256": lists.answers_sha256,
        "guesses_sha256": lists.guesses_sha256,
    }
    if args.json:
        print(json.dumps(row))
    else:
        how = "loaded from cache" if info.backend == "cache" else f"built with {info.backend}"
        print(f"pattern table {table.shape[0]} guesses x {table.shape[1]} answers (uint8), "
              f"{how} in {info.seconds:.3f} s")
        print(f"cache: {row['cache'] or '(not cached)'}")
    return 0


def _make_solver(args, lists: WordLists):
    from .search import Solver
    from .search.engine import memo_entries_for

    if args.max_guesses < 0:
        raise UsageError("--max-guesses must be >= 0 (0 = no cap)")
    if args.memo_mb <= 0:
        raise UsageError("--memo-mb must be > 0")
    table, _ = get_table(lists, args.backend, args.cache_dir)
    return Solver(
        lists, mode=args.mode, max_guesses=args.max_guesses, table=table,
        beam=getattr(args, "beam", None), memo_entries=memo_entries_for(args.memo_mb),
    )


def _print_result(r, as_json: bool) -> None:
    if as_json:
        print(json.dumps(r.to_dict()), flush=True)
    else:
        print(r.describe(), flush=True)


def _cmd_solve(args) -> int:
    lists = _lists(args)
    if args.beam is not None and args.beam < 1:
        raise UsageError("--beam must be >= 1")
    for w in args.words:
        lists.guess_id(w)  # validate every opener before any long work
    solver = _make_solver(args, lists)
    for w in args.words:
        _print_result(solver.solve(w, progress=None if args.quiet else sys.stderr), args.json)
    return 0


def _cmd_best(args) -> int:
    lists = _lists(args)
    if args.top < 1:
        raise UsageError("--top must be >= 1")
    solver = _make_solver(args, lists)
    t0 = time.perf_counter()
    results = solver.best(args.top, progress=None if args.quiet else sys.stderr)
    for r in results:
        _print_result(r, args.json)
    if not args.quiet:
        print(f"proved in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
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
        "run 'wordle-dp COMMAND --help' for each command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"wordle-dp {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    t = sub.add_parser(
        "table", help="build or load the pattern table",
        description="Build (or load from cache) the uint8 feedback table of every guess "
        "against every answer, and print which backend made it, its shape, the time taken "
        "and the cache file.",
    )
    _add_lists(t)
    _add_backend(t)
    t.add_argument("--no-cache", action="store_true", help="build without reading or "
                   "writing the cache")
    t.add_argument("--json", action="store_true", help="print one JSON object")
    t.set_defaults(func=_cmd_table)

    s = sub.add_parser(
        "solve", help="exact value of one or more openers",
        description="Compute, for each opening guess, the exact minimum total number of "
        "guesses over all answers (status 'exact'), or prove that no strategy meets the "
        "guess cap ('infeasible'). With --beam the search is restricted and the value is "
        "only an 'upper_bound'.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="output fields (--json): opener, status, total, answers, average, depth, "
        "seconds, nodes, mode, max_guesses",
    )
    s.add_argument("words", nargs="+", metavar="WORD", help="opening guess(es)")
    _add_lists(s)
    _add_problem(s)
    _add_backend(s)
    _add_memo(s)
    s.add_argument("--beam", type=int, metavar="N", help="only the N most promising guesses "
                   "per position: fast, reported as upper_bound, never exact")
    s.add_argument("--json", action="store_true", help="one JSON object per line")
    s.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    s.set_defaults(func=_cmd_solve)

    b = sub.add_parser(
        "best", help="best opener(s) with proof",
        description="Find the K best openers with proof: every other opener is shown to "
        "have a lower bound above the K-th best value (branch and bound across openers). "
        "Practical on small answer lists; on the full lists it is a cluster job "
        "(wordle-dp run --cutoff).",
    )
    _add_lists(b)
    _add_problem(b)
    _add_backend(b)
    _add_memo(b)
    b.add_argument("--top", type=int, default=1, metavar="K", help="how many (default 1)")
    b.add_argument("--json", action="store_true", help="one JSON object per line")
    b.add_argument("--quiet", action="store_true", help="no progress on stderr")
    b.set_defaults(func=_cmd_best)

    try:  # cluster commands (run/query/export) live in their own module
        from .cli_run import add_commands
    except ImportError:
        pass
    else:
        add_commands(sub, _add_lists, _add_problem, _Parser)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return args.func(args)
    except (WordListError, PatternError, BackendError, UsageError) as exc:
        print(f"wordle-dp: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("wordle-dp: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into head
        return 0
