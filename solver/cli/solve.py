"""Commands on one problem: lists, table, solve, best."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import UsageError, WordleDPError
from ..table import get_table
from .common import (
    INT32_MAX,
    SECONDS_MAX,
    add_backend,
    add_lists,
    add_memo,
    add_objective,
    add_problem,
    float_range,
    int_range,
    load_lists,
    make_solver,
    memo_mb,
    path_arg,
    print_result,
    run_problem,
    time_limit,
)
from .flags import run_report


def _cmd_table(args) -> int:
    lists = load_lists(args)
    table, info = get_table(lists, args.backend, args.cache_dir, use_cache=not args.no_cache)
    if info.rebuilt_reason:
        print(f"note: {info.rebuilt_reason}; table rebuilt", file=sys.stderr)
    row = {
        "backend": info.backend,
        "shape": list(table.shape),
        "dtype": table.dtype.name,
        "seconds": round(info.seconds, 4),
        "cache": str(info.path) if info.path else None,
        "answers_sha256": lists.answers_sha256,
        "guesses_sha256": lists.guesses_sha256,
    }
    if args.json:
        print(json.dumps(row))
    else:
        how = "loaded from cache" if info.backend == "cache" else f"built with {info.backend}"
        print(f"pattern table {table.shape[0]} guesses x {table.shape[1]} answers "
              f"({table.dtype.name}), "
              f"{how} in {info.seconds:.3f} s")
        print(f"cache: {row['cache'] or '(not cached)'}")
    return 0


def _cmd_solve(args) -> int:
    from . import variants

    if args.adversary:
        return variants.solve_adversary(args)
    from . import boards

    if boards.wanted(args):
        return boards.solve_boards(args)
    lists = load_lists(args)
    for w in args.words:
        lists.guess_id(w)  # validate every opener before any long work
    if args.objective != "expected" and args.beam:
        raise UsageError(f"--beam and --objective {args.objective} exclude each other (a "
                         "beam proves no cap infeasible)")
    if args.book and (args.objective == "worst" or args.beam):
        raise UsageError("--book holds the values of the expected objective and the most "
                         "wins: not with --objective worst or --beam")
    if args.objective == "wins":
        return _solve_wins(args, lists)
    book = None  # the book's exact values are answered at once (--no-book recomputes)
    if args.objective == "expected" and not args.beam and not args.no_book:
        from .book import load_book

        book = load_book(args, lists)
    solver = None
    for w in args.words:
        r = book.result(w) if book is not None else None
        if r is None:
            if solver is None:  # made only when something must be searched
                solver = make_solver(args, lists, args.words)
                if args.objective == "worst":
                    from ..search.worst import WorstSolver

                    solver = WorstSolver(solver)
            r = solver.solve(w, progress=None if args.quiet else sys.stderr)
        print_result(r, args.json)
    return 0


def _solve_wins(args, lists) -> int:
    """solve --objective wins: the most answers won within the cap after each opener,
    then the fewest guesses summed over those (search/wins.py)."""
    from ..search.wins import WinsSolver

    book = None  # the book's values under wins are answered at once (--no-book searches)
    if not args.no_book:
        from .book import load_book

        book = load_book(args, lists)
    solver = None
    for w in args.words:
        r = book.wins_result(w) if book is not None else None
        if r is None:
            if solver is None:  # made only when something must be searched
                solver = WinsSolver(make_solver(args, lists, args.words))
            r = solver.solve(w, progress=None if args.quiet else sys.stderr)
        print_result(r, args.json)
    return 0


def _cmd_best(args) -> int:
    from ..run import RunConfig, RunOptions, Tuning, check_config
    from ..run.best import best
    from ..run.mpi import mpi

    lists = load_lists(args, quiet=True)
    tl = time_limit(args.time_limit)
    comm = mpi()[0]
    if comm is None or comm.Get_rank() == 0:  # the table, built once with --backend
        get_table(lists, args.backend, args.cache_dir)
    store = args.store or default_best_store(args, lists)
    cfg = RunConfig(store, run_problem(args),
                    RunOptions(time_limit=tl, quiet=args.quiet, memo_mb=args.memo_mb),
                    Tuning(grace=args.grace, report=run_report()))
    check_config(cfg)
    try:
        found = best(cfg, args.top)
    except WordleDPError:  # its message as it is (parameters as flags)
        raise
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if found is None:  # another rank, or stopped (the run said how to resume)
        return 0
    for r in found.results:
        print_result(r, args.json)
    if not args.quiet:
        s = found.summary
        print(f"proved in {s.wall_seconds:.1f} s on {s.solvers} solving rank(s) "
              f"({found.cpu_seconds:.1f} s CPU in all, store {store})", file=sys.stderr)
    return 0


def default_best_store(args, lists) -> str:
    """best's store when --store is not given: one per problem, so that the same
    command resumes it (checkpoints/best-MODE-CAP-LISTS.zarr, LISTS the built-in
    lists' name, or the list files' sha256 prefixes)."""
    from ..words import builtin

    if args.answers or args.guesses:
        name = f"lists-{lists.answers_sha256[:8]}-{lists.guesses_sha256[:8]}"
    else:
        name = builtin(args.lists, lists.length).name
    return f"checkpoints/best-{args.mode}-{args.max_guesses}-{name}.zarr"


def _cmd_lists(args) -> int:
    from ..variant import n_patterns
    from ..words import BUILTIN, WordLists

    rows = []
    for b in BUILTIN.values():
        lists = WordLists.load(lists=b.name, quiet=True)
        rows.append({"name": b.name, "length": b.length, "answers": len(lists.answers),
                     "guesses": len(lists.guesses), "patterns": n_patterns(b.length),
                     "answers_sha256": lists.answers_sha256,
                     "guesses_sha256": lists.guesses_sha256, "about": b.about})
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0
    w = max(len(str(r["name"])) for r in rows)
    print(f"{'name':{w}s} {'letters':>7s} {'answers':>8s} {'guesses':>8s} {'patterns':>8s}  about")
    for r in rows:
        print(f"{r['name']:{w}s} {r['length']:7d} {r['answers']:8d} {r['guesses']:8d} "
              f"{r['patterns']:8d}  {str(r['about']).split(':')[0]}")
    print("choose with --lists NAME or --length N; custom lists of 3 to 10 letters with "
          "--answers/--guesses (provenance: data/README.md)")
    return 0


def register(sub) -> None:
    """Add lists/table/solve/best to the CLI's subparsers."""
    ls = sub.add_parser(
        "lists", help="the built-in word lists",
        description="The word lists shipped with the package: their names (for --lists), "
        "word lengths (for --length), sizes, pattern counts (3^letters) and sha256.",
    )
    ls.add_argument("--json", action="store_true", help="one JSON object per list")
    ls.set_defaults(func=_cmd_lists)
    t = sub.add_parser(
        "table", help="build or load the pattern table",
        description="Build (or load from cache) the feedback table of every guess against "
        "every answer (one pattern code per pair: uint8 up to 5 letters, uint16 for 6 to "
        "10), and print which backend made it, its shape and type, the time taken and the "
        "cache file.",
    )
    add_lists(t)
    add_backend(t)
    t.add_argument("--no-cache", action="store_true", help="build without reading or "
                   "writing the cache")
    t.add_argument("--json", action="store_true", help="print one JSON object")
    t.set_defaults(func=_cmd_table)

    s = sub.add_parser(
        "solve", help="exact value of one or more openers",
        description="Compute, for each opening guess, the exact minimum total number of "
        "guesses over all answers (status 'exact'), or prove that no strategy meets the "
        "guess cap ('infeasible'). With --beam the search is restricted: the value is "
        "only an 'upper_bound', or 'not_found' when no strategy was found within the beam "
        "(which proves nothing about the opener).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="output fields (--json): opener, status, total, answers, average, depth, "
        "seconds, nodes, mode, max_guesses (and note, when there is one; source: book for "
        "a value read from the opening book; objective under "
        "--objective worst, where depth is the fewest guesses that solve every answer and "
        "total the smallest total within them; wins under --objective wins: the answers "
        "won within the cap, total then the guesses summed over those and average "
        "total/wins)",
    )
    s.add_argument("words", nargs="+", metavar="WORD", help="opening guess(es)")
    add_lists(s)
    add_problem(s)
    add_backend(s)
    add_memo(s, by_opener=True)
    add_objective(s)
    from .boards import add_boards
    from .variants import add_adversary

    add_boards(s, "the exact expected number of guesses to solve every board after each "
               "opener, on small lists (else refused, saying why)")

    add_adversary(s, "the fewest guesses that beat it after each opener, and a winning "
                  "line (exact)")
    s.add_argument("--beam", type=int_range(1, INT32_MAX), metavar="N",
                   help="only the N most promising guesses per position: fast, reported "
                   "as upper_bound (or not_found), never exact")
    s.add_argument("--book", type=path_arg, metavar="FILE",
                   help="an opening book whose exact values are answered at once (default: "
                   "the packaged book of the lists, mode and cap)")
    s.add_argument("--no-book", action="store_true",
                   help="search every opener, even one the book holds")
    s.add_argument("--json", action="store_true", help="one JSON object per line")
    s.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    s.set_defaults(func=_cmd_solve)

    b = sub.add_parser(
        "best", help="best opener(s) with proof (MPI, resumable)",
        description="Find the K best openers with proof: every other opener is shown to "
        "have a lower bound above the K-th best value (branch and bound across openers: "
        "the openers most likely to be good are valued first, and every other one "
        "under a cutoff one past the K-th best exact total found so far, most by cheap "
        "bounds alone). It is a run into a result store: under 'mpiexec -n N' (or srun) "
        "every rank solves; --time-limit, SIGUSR1 or SIGTERM stop it cleanly (exit 0) "
        "and the same command resumes it, and answers at once once finished. On the "
        "default lists, easy mode, --top 1 takes about 8 minutes of one core (hard "
        "mode about 5); the packaged opening book already holds the 10 best of both "
        "modes (wordle-dp book show). A progress line with an ETA goes to stderr.",
    )
    add_lists(b)
    add_problem(b)
    add_backend(b)
    b.add_argument("--top", type=int_range(1, INT32_MAX), default=1, metavar="K",
                   help="how many (default 1)")
    b.add_argument("--store", type=path_arg, metavar="PATH",
                   help="the result store the work goes into (default: "
                   "checkpoints/best-MODE-CAP-LISTS.zarr, so that the same command resumes)")
    b.add_argument("--time-limit", metavar="T",
                   help="stop after T (seconds or HH:MM:SS); the same command resumes")
    b.add_argument("--grace", type=float_range(0.0, SECONDS_MAX), default=60.0,
                   metavar="S", help="after a stop, wait up to S seconds for openers being "
                   "valued, then cut them short (default 60)")
    b.add_argument("--memo-mb", type=memo_mb, metavar="MB",
                   help="transposition table of each solving rank (default: as for run)")
    b.add_argument("--json", action="store_true", help="one JSON object per line")
    b.add_argument("--quiet", action="store_true", help="no progress on stderr")
    b.set_defaults(func=_cmd_best)

