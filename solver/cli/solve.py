"""Commands on one problem: lists, table, solve, best."""

from __future__ import annotations

import argparse
import json
import sys
import time

from ..errors import UsageError
from ..progress import Progress
from ..table import get_table
from .common import (
    INT32_MAX,
    add_backend,
    add_lists,
    add_memo,
    add_objective,
    add_problem,
    int_range,
    load_lists,
    make_solver,
    print_result,
)


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
    if args.objective == "worst" and args.beam:
        raise UsageError("--beam and --objective worst exclude each other (a beam proves "
                         "no cap infeasible)")
    solver = make_solver(args, lists, args.words)
    if args.objective == "worst":
        from ..game.objective import WorstSolver

        solver = WorstSolver(solver)
    for w in args.words:
        print_result(solver.solve(w, progress=None if args.quiet else sys.stderr), args.json)
    return 0


def _cmd_best(args) -> int:
    lists = load_lists(args)
    if args.top < 1:
        raise UsageError("--top must be >= 1")
    solver = make_solver(args, lists)
    t0 = time.perf_counter()
    c0 = time.process_time()
    progress = Progress("best", None if args.quiet else sys.stderr, "openers")
    results = solver.best(args.top, progress=progress)
    progress.done()
    for r in results:
        print_result(r, args.json)
    if not args.quiet:
        print(f"proved in {time.perf_counter() - t0:.1f} s ({time.process_time() - c0:.1f} s "
              "CPU)", file=sys.stderr)
    return 0


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
    print(f"{'name':9s} {'letters':>7s} {'answers':>8s} {'guesses':>8s} {'patterns':>8s}  about")
    for r in rows:
        print(f"{r['name']:9s} {r['length']:7d} {r['answers']:8d} {r['guesses']:8d} "
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
        "seconds, nodes, mode, max_guesses (and note, when there is one; objective under "
        "--objective worst, where depth is the fewest guesses that solve every answer and "
        "total the smallest total within them)",
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
    s.add_argument("--json", action="store_true", help="one JSON object per line")
    s.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    s.set_defaults(func=_cmd_solve)

    b = sub.add_parser(
        "best", help="best opener(s) with proof",
        description="Find the K best openers with proof: every other opener is shown to "
        "have a lower bound above the K-th best value (branch and bound across openers: "
        "the openers most likely to be good are solved first, and the others are refuted "
        "under the cutoff that sets, most by cheap bounds alone). On the default lists, "
        "easy mode, --top 1 takes about 15 minutes of one core (hard mode about 7); "
        "the packaged opening book already holds the 10 best of both modes "
        "(wordle-dp book show). A progress line with an ETA goes to stderr. "
        "It is not resumable: for long proofs use "
        "'wordle-dp run --cutoff X --store S' (resumable, any number of MPI ranks), "
        "which keeps the exact value of every opener below X and a proven lower bound "
        "of every other one.",
    )
    add_lists(b)
    add_problem(b)
    add_backend(b)
    add_memo(b)
    b.add_argument("--top", type=int_range(1, INT32_MAX), default=1, metavar="K",
                   help="how many (default 1)")
    b.add_argument("--json", action="store_true", help="one JSON object per line")
    b.add_argument("--quiet", action="store_true", help="no progress on stderr")
    b.set_defaults(func=_cmd_best)

