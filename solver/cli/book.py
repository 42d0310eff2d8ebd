"""The opening book: `wordle-dp book build` and `wordle-dp book show`."""

from __future__ import annotations

import json
import sys

from ..errors import UsageError
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
    b.set_defaults(func=_no_action)


def _no_action(args) -> int:
    raise UsageError("book: give an action: build or show (wordle-dp book --help)")


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
                 args.quiet, players=not args.no_players)
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
    return 0
