"""The opening book: `wordle-dp book build`, `show`, `moves`, `wins` and `table`."""

from __future__ import annotations

import json
import sys

from ..errors import UsageError, WordleDPError
from .common import (
    INT32_MAX,
    INT62_MAX,
    add_lists,
    add_problem,
    int_range,
    load_lists,
    path_arg,
    time_limit,
)
from .flags import run_report


def register(sub) -> None:
    """Add the book command (build, show) to the CLI's subparsers."""
    b = sub.add_parser(
        "book", help="the opening book: proven best openers shipped with the package",
        description="The opening book holds, for one problem, the K best openers with "
        "proof, the exact values of a few hundred popular openers and their best second "
        "guesses. The package ships books for the default lists (easy and hard, cap 6); "
        "'next -', 'play', 'query --book' and the web page start from them. 'book build' "
        "makes one with this engine (resumable; under mpiexec on all ranks), 'book show' "
        "says what a book holds and how it was built.",
    )
    bs = b.add_subparsers(dest="book_command", metavar="ACTION")
    build = bs.add_parser(
        "build", help="compute a book (resumable)",
        description="Build or resume a book in one run over a result store, then write "
        "it: the popular openers (the best by a one-step score, and the openers players "
        "use) are valued exactly, every other opener under a cutoff one past the K-th best "
        "exact value known so far: exact below it, a proven lower bound above it, so the "
        "K best are proven; rank 0 then writes the book from the store. Under mpiexec "
        "every rank values openers. Stopped (--time-limit, SIGTERM, a kill), the same "
        "command resumes where it stopped. Rebuilding the packaged books after a change "
        "to the engine: remove checkpoints/book-MODE-6.zarr and run 'wordle-dp book build "
        "--mode MODE' (with --lists NAME: book-NAME-MODE-6.zarr, and the book of those "
        "lists).",
    )
    add_lists(build)
    add_problem(build)
    build.add_argument("--store", type=path_arg, metavar="PATH",
                       help="the result store the work goes into (default: "
                       "checkpoints/book-MODE-CAP.zarr; book-LISTS-MODE-CAP.zarr for other "
                       "built-in lists)")
    build.add_argument("--out", type=path_arg, metavar="FILE",
                       help="the book file to write (default: the package's own book for "
                       "the built-in lists; needed for lists from files)")
    build.add_argument("--top", type=int_range(1, 1000), default=10, metavar="K",
                       help="prove the K best openers (default 10)")
    build.add_argument("--popular", type=int_range(0, INT32_MAX), default=280, metavar="N",
                       help="value exactly the N best openers by expected remaining answers, "
                       "besides the openers players use (default 280)")
    build.add_argument("--no-players", action="store_true",
                       help="leave the openers players use (adieu, audio, ouija, ...) out of "
                       "the popular ones valued exactly: they are valued under the cutoff "
                       "like every other opener. On today's NYT lists ouija and hello alone "
                       "took over 20 minutes of CPU each without finishing (easy mode)")
    build.add_argument("--cutoff", type=int_range(1, INT62_MAX), metavar="X",
                       help="the cutoff of step 2 (default: one past the K-th best popular "
                       "value)")
    build.add_argument("--time-limit", metavar="T",
                       help="stop after T (seconds or HH:MM:SS); the same command resumes")
    build.add_argument("--quiet", action="store_true", help="no progress on stderr")
    build.set_defaults(func=_cmd_build)

    show = bs.add_parser("show", help="what a book holds and how it was built",
                         description="Print a book's provenance and its proven best openers "
                         "(the packaged book for --mode/--max-guesses, or --book FILE).")
    add_lists(show)
    add_problem(show)
    show.add_argument("--book", type=path_arg, metavar="FILE", help="a book file")
    show.add_argument("--json", action="store_true", help="the book's provenance as JSON")
    show.set_defaults(func=_cmd_show)
    moves = bs.add_parser(
        "moves", help="compute the second moves of a book's openers (resumable)",
        description="For each chosen opener and each feedback it can get, compute the best "
        "second guess (exact total and worst case) and its K best alternatives (where no "
        "strategy solves every candidate within the cap, the best chance: the guesses that "
        "win the most), into the moves file beside the book: 'next OPENER:PATTERN', "
        "'play' and the web page then answer a player's second move from it without a "
        "search. Openers already in the "
        "file are skipped (the same command resumes). Under mpiexec every rank values "
        "classes. --time-limit stops it between classes; SIGTERM or SIGUSR1 (Slurm's "
        "stop) at once, and the class then in flight is valued again by the next call.")
    add_lists(moves)
    add_problem(moves)
    moves.add_argument("--book", type=path_arg, metavar="FILE",
                       help="the book whose openers and second guesses are used (default: "
                       "the packaged book of these lists, mode and cap)")
    moves.add_argument("--openers", metavar="W1,W2,...|popular",
                       help="which openers: words separated by commas, or popular: the "
                       "book's 10 best, the openers players use, then the book's other "
                       "popular openers (default: popular)")
    moves.add_argument("--alternatives", type=int_range(1, 64), default=8, metavar="K",
                       help="alternatives kept per feedback class (default 8)")
    moves.add_argument("--out", type=path_arg, metavar="FILE",
                       help="the moves file (default: beside the book, NAME.moves.npz)")
    moves.add_argument("--time-limit", metavar="T",
                       help="stop after T (seconds or HH:MM:SS); the same command resumes")
    moves.add_argument("--quiet", action="store_true", help="no progress on stderr")
    moves.set_defaults(func=_cmd_moves)
    wins = bs.add_parser(
        "wins", help="the most wins of a book's openers that cannot win every answer "
        "(resumable)",
        description="Value openers under the objective wins (the most answers won within "
        "the cap, then the fewest guesses summed over those) in one run over a result "
        "store, then write the values into the book: an opener that cannot win every "
        "answer is then infeasible there, with what it wins ('query --book', 'book "
        "show' and 'solve' show it at once). Resumable: stopped (--time-limit, SIGTERM), "
        "the values finished so far go into the book and the same command goes on. "
        "Under mpiexec every rank values openers. In hard mode on today's lists an "
        "opener takes from seconds to hours of CPU: crane about a minute, arise 16 "
        "minutes, soare hours (BENCHMARKS.md).")
    add_lists(wins)
    add_problem(wins)
    wins.add_argument("--book", type=path_arg, metavar="FILE",
                      help="the book to add them to (default: the packaged book of these "
                      "lists, mode and cap)")
    wins.add_argument("--openers", metavar="W1,W2,...|players",
                      help="which openers: words separated by commas, or players: the "
                      "openers players use that the book does not hold exactly (default)")
    wins.add_argument("--store", type=path_arg, metavar="PATH",
                      help="the result store the work goes into (default: "
                      "checkpoints/book-LISTS-MODE-CAP-wins.zarr)")
    wins.add_argument("--time-limit", metavar="T",
                      help="stop after T (seconds or HH:MM:SS); the same command resumes")
    wins.add_argument("--quiet", action="store_true", help="no progress on stderr")
    wins.set_defaults(func=_cmd_wins)
    table = bs.add_parser(
        "table", help="write the table file of a table run's store beside the book",
        description="Write the complete table of a problem (every opener exact or proven "
        "infeasible, from one run with no cutoff: 'wordle-dp run --store "
        "checkpoints/table-MODE-6.zarr') into the compact file beside the packaged book "
        "(NAME.table.npz). The book then shows the table's values: 'solve OPENER' answers "
        "every opener it holds at once ('from the table'), and so do 'query --book', "
        "'next -' and the web page. A run still under way writes what it has proven so "
        "far; the file says how much.")
    add_lists(table)
    add_problem(table)
    table.add_argument("--store", type=path_arg, metavar="PATH",
                       help="the table run's store (default: checkpoints/table-MODE-CAP.zarr; "
                       "table-LISTS-MODE-CAP.zarr for other built-in lists)")
    table.add_argument("--out", type=path_arg, metavar="FILE",
                       help="the table file (default: beside the packaged book, "
                       "NAME.table.npz)")
    table.set_defaults(func=_cmd_table)
    b.set_defaults(func=_no_action)


def _no_action(args) -> int:
    raise UsageError("book: give an action: build, show, moves, wins or table (wordle-dp book "
                     "--help)")


def _cmd_build(args) -> int:
    from ..book import build, default_store
    from ..output import check_output

    check_output("--out", args.out, ".npz")  # before the work: it may take hours
    if args.out is None and (args.answers or args.guesses):
        raise UsageError("a book for lists from files needs --out FILE (the packaged "
                         "books are for the built-in lists)")
    from ..words import builtin

    name = builtin(args.lists, args.length).name if args.lists or args.length else "original"
    tl = time_limit(args.time_limit)
    info = build(args.store or default_store(args.mode, args.max_guesses, name), args.out,
                 args.answers, args.guesses, args.mode, args.max_guesses, args.lists,
                 args.length, args.top, args.popular, args.cutoff, args.cache_dir, tl,
                 args.quiet, players=not args.no_players, report=run_report())
    if info is not None and not args.quiet:
        st = info["steps"]
        print(f"wrote the book: the {info['top']} best openers proven (number {args.top}: "
              f"{info['kth_total']}), {info['exact']} exact values, "
              f"{info['cpu_seconds'] / 3600:.2f} CPU-h in all; this build: scoring "
              f"{st['score_wall']:.1f} s, planning {st['plan_wall']:.1f} s, valuing "
              f"{st['run_wall']:.1f} s on {st['solvers']} solving rank(s), writing "
              f"{st['write_wall']:.1f} s",
              file=sys.stderr)
    return 0


def load_book(args, lists):
    """The book a command reads: --book FILE, else the packaged one for the problem
    (None when there is none)."""
    from ..book import Book

    if getattr(args, "book", None):
        return Book.read(args.book, lists)
    return Book.find(lists, args.mode, args.max_guesses)


def _cmd_show(args) -> int:
    lists = load_lists(args, quiet=True)
    book = load_book(args, lists)
    if book is None:
        raise UsageError(f"no opening book for these lists in {args.mode} mode with max "
                         f"{args.max_guesses} guesses; build one with 'wordle-dp book build'")
    if args.json:
        print(json.dumps(book.info))
        return 0
    print(book.describe())
    snap = book.snapshot()
    ranks = snap.ranks()
    n = book.problem.n_answers
    for i in snap.order()[: book.info["top"]]:  # the proven ones
        print(f"  #{ranks[i]:<3d} {book.words[i]}  {int(snap.fields['total'][i])} "
              f"({snap.fields['total'][i] / n:.4f} avg)")
    print(f"command: {book.info['command']}")
    lose = book.wins_order()
    if len(lose):
        assert book.wins is not None and book.wins_total is not None
        print(f"the most wins among the {len(lose)} openers the book holds that cannot win "
              f"every answer within {book.problem.max_guesses} guesses:")
        for i in lose[:10]:
            w, t = int(book.wins[i]), int(book.wins_total[i])
            print(f"  {book.words[i]}  wins {w} of {n}, total {t} ({t / w:.4f} avg over "
                  "those)")
        print(f"command: {book.info['wins']['command']}")
    return 0


def _cmd_table(args) -> int:
    from ..book import book_path, command_line, table_path, write_table
    from ..output import check_output
    from ..store import Problem, Store
    from ..words import builtin

    check_output("--out", args.out, ".npz")
    if args.out is None and (args.answers or args.guesses):
        raise UsageError("a table for lists from files needs --out FILE (the packaged "
                         "books are for the built-in lists)")
    lists = load_lists(args, quiet=True)
    name = builtin(args.lists, args.length).name if args.lists or args.length else "original"
    path = args.store or (f"checkpoints/table-{args.mode}-{args.max_guesses}.zarr"
                          if name == "original" else
                          f"checkpoints/table-{name}-{args.mode}-{args.max_guesses}.zarr")
    store = Store.open(path, read_only=True)
    store.check_problem(Problem.from_lists(lists, args.mode, args.max_guesses))
    out = args.out or table_path(book_path(args.mode, args.max_guesses, name))
    info = write_table(store, out, command_line())
    print(f"wrote {out}: {info['valued']} of {info['n_guesses']} openers "
          f"({info['exact']} exact, {info['valued'] - info['exact']} infeasible), "
          f"{info['cpu_seconds'] / 3600:.2f} CPU-h", file=sys.stderr)
    return 0


def _cmd_moves(args) -> int:
    import dataclasses
    from pathlib import Path

    from .. import moves
    from ..book import PLAYER_OPENERS
    from ..output import check_output
    from ..run.mpi import limit_threads, mpi

    check_output("--out", args.out, ".npz")  # before the work: it may take hours
    lists = load_lists(args, quiet=True)
    book = load_book(args, lists)
    if book is None and (args.out is None or args.openers in (None, "popular")):
        raise UsageError(f"no opening book for these lists in {args.mode} mode with max "
                         f"{args.max_guesses} guesses: give --openers W1,W2,... and --out "
                         "FILE (or --book FILE)")
    if args.openers in (None, "popular"):
        assert book is not None
        snap = book.snapshot()
        top = [book.words[int(i)] for i in snap.order()[: book.info["top"]]]
        words = top + [w for w in PLAYER_OPENERS if w in lists.guess_index] + list(
            book.info.get("popular", []))
        words = list(dict.fromkeys(words))
    else:
        words = [w for w in (t.strip() for t in args.openers.split(",")) if w]
        if not words:
            raise UsageError("--openers: give at least one word")
    words = [lists.guesses[lists.guess_id(w)] for w in words]  # bad words: one line
    out = args.out or moves.moves_path(book.path)  # type: ignore[union-attr]
    if Path(out).exists():  # a foreign or damaged file: refused before any work
        moves.Moves.read(out, lists, args.mode, args.max_guesses)
    comm, _ = mpi()
    if comm is not None and comm.Get_size() > 1:
        limit_threads()
    else:
        comm = None
    rank = comm.Get_rank() if comm is not None else 0

    def say(line: str) -> None:
        if not args.quiet:
            print(f"wordle-dp: {line}", file=sys.stderr, flush=True)

    if rank == 0:
        say(f"second moves of {len(words)} opener(s) into {out} ({args.mode}, max "
            f"{args.max_guesses}, {args.alternatives} alternatives a class)")
    plain = None if book is None else dataclasses.replace(book, moves=None)
    info = moves.build(lists, args.mode, args.max_guesses, words, out, plain,
                       args.alternatives, time_limit(args.time_limit), say=say, comm=comm,
                       cache_dir=args.cache_dir)
    if rank == 0:
        if info is None:
            say("stopped before every opener was done: the same command resumes")
        else:
            say(f"wrote {out}: {len(info['openers'])} openers, "
                f"{info['cpu_seconds'] / 3600:.2f} CPU-h in all")
    return 0


def _cmd_wins(args) -> int:
    from .. import book as B

    lists = load_lists(args, quiet=True)
    book = load_book(args, lists)
    if book is None:
        raise UsageError(f"no opening book for these lists in {args.mode} mode with max "
                         f"{args.max_guesses} guesses: give --book FILE")
    if args.openers in (None, "players"):
        words = B.wins_openers(book, lists)
    else:
        words = [w for w in (t.strip() for t in args.openers.split(",")) if w]
    if not words:
        raise UsageError("--openers: no opener to value (the book holds every player "
                         "opener exactly)" if args.openers in (None, "players")
                         else "--openers: give at least one word")
    words = [lists.guesses[lists.guess_id(w)] for w in words]  # bad words: one line
    store = args.store
    if store is None:
        from ..words import builtin

        name = builtin(args.lists, args.length).name if args.lists or args.length \
            else "original"
        store = B.default_store(args.mode, args.max_guesses, name).replace(".zarr",
                                                                             "-wins.zarr")
    try:
        info = B.wins(book.path, store, words, args.answers, args.guesses, args.mode,
                      args.max_guesses, args.lists, args.length, args.cache_dir,
                      time_limit(args.time_limit), args.quiet, report=run_report())
    except WordleDPError:  # its message as it is (parameters as flags)
        raise
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if info is not None and not args.quiet:
        print(f"wordle-dp: wrote the most wins of {info['openers']} opener(s) into "
              f"{book.path} ({info['cpu_seconds'] / 3600:.2f} CPU-h in all)",
              file=sys.stderr)
    return 0
