"""Cluster commands of the CLI: run, query, export, merge (see slurm/README.md)."""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

from ..errors import StoreError, UsageError, WordleDPError, WordListError
from ..output import check_output
from ..output import write_atomically as _write_atomically
from ..status import Status
from ..variant import MODES
from .common import (
    INT32_MAX,
    INT62_MAX,
    PARTS_MAX,
    SECONDS_MAX,
    add_lists,
    add_objective,
    add_problem,
    float_range,
    int_range,
    load_lists,
    memo_mb,
    parts_arg,
    path_arg,
    run_problem,
    time_limit,
)
from .flags import run_report

DEFAULT_TOP = 10


def register(sub) -> None:
    """Add run/query/export/merge to the CLI's subparsers."""
    r = sub.add_parser(
        "run", help="value many openers into a result store (MPI, resumable)",
        description="Value openers with the exact engine into a Zarr result store. Launch "
        "with 'mpiexec -n N wordle-dp run ...' or srun: rank 0 coordinates and writes, the "
        "other ranks solve, most expensive openers first. The same command on an existing "
        "store resumes it; finished openers are never recomputed. --time-limit, SIGUSR1 "
        "or SIGTERM stop it cleanly (exit 0, resumable).",
    )
    r.add_argument("--store", required=True, type=path_arg, metavar="PATH",
                   help="result store (a folder, e.g. checkpoints/NAME.zarr)")
    r.add_argument("--openers", default="all", metavar="all|@FILE|W1,W2,...",
                   help="which openers to value: all (default), words separated by commas, "
                   "or a file of words named @FILE (or a path containing '/' or ending in "
                   "'.txt'); a bare word is always a word, never a file")
    add_lists(r)
    add_problem(r)
    add_objective(r)
    r.add_argument("--cutoff", type=int_range(1, INT62_MAX), metavar="X",
                   help="openers whose total cannot be below X (a total number of guesses "
                   "over all answers, e.g. 7921) are stored as lower_bound: much faster, "
                   "only the better openers get exact values")
    r.add_argument("--no-cutoff", action="store_true",
                   help="value the chosen openers exactly, even in a store made with "
                   "--cutoff (whose cutoff stays as it was for later runs)")
    r.add_argument("--time-limit", metavar="T",
                   help="stop handing out work after T (seconds or HH:MM:SS)")
    r.add_argument("--retry-failed", action="store_true",
                   help="queue openers whose solve failed in an earlier run again")
    r.add_argument("--shard", metavar="I/N",
                   help="take only slice I of N of the openers (job arrays; each slice "
                   "needs its own --store, combine them with 'wordle-dp merge')")
    r.add_argument("--memo-mb", type=memo_mb, metavar="MB",
                   help="transposition table of each solving rank (default: half of the "
                   "node's memory shared by its ranks, less 250 MB each, from 75 to 1024; "
                   "the node's memory is the least of the machine's, its cgroup limit and "
                   "Slurm's --mem)")
    r.add_argument("--split", choices=("auto", "all", "off"), default="auto",
                   help="value an expensive opener as its first-feedback classes on "
                   "several ranks, each class checkpointed in the store: auto splits "
                   "openers predicted above a solving rank's fair share of the run; "
                   "all splits every one; off none, and takes no opener back when the "
                   "queue runs dry. Under --cutoff only openers taken back are split, "
                   "each class with the budget the others leave it (default: auto)")
    r.add_argument("--parts", type=parts_arg, default=None, metavar="N|auto",
                   help="value a big first-feedback class of a split opener in N parts "
                   "on several ranks: a quick upper bound first (the best of a few "
                   "second guesses), then each part's second guesses refuted against it "
                   "or beating it; the class's value is the least, exact as whole. auto "
                   "(the default) does it for classes predicted above half a rank's fair "
                   "share, so that one class (qajaq's all-grey one: minutes) does not "
                   "set the finish time, and sizes the parts by what the quick bound "
                   "found (a class near its share gets one first); 0 never; "
                   f"N (2-{PARTS_MAX}) every class of more than two answers (tests, "
                   "benchmarks). Parts are not "
                   "checkpointed: a stop loses the classes whose parts are in flight")
    seconds = float_range(0.0, SECONDS_MAX)
    r.add_argument("--grace", type=seconds, default=60.0, metavar="S",
                   help="after a stop, wait up to S seconds for openers in flight "
                   "(default 60)")
    r.add_argument("--flush-seconds", type=seconds, default=5.0, metavar="S",
                   help="write buffered results at least every S seconds (default 5)")
    r.add_argument("--progress-seconds", type=seconds, default=30.0, metavar="S",
                   help="progress line interval on stderr (default 30)")
    r.add_argument("--quiet", action="store_true", help="no progress on stderr")
    r.set_defaults(func=_cmd_run)

    q = sub.add_parser(
        "query", help="values, ranks and progress from a result store or the book",
        description="Read a result store (read-only; safe while a run is writing it) or "
        "an opening book. With WORDs: their value, average, status and rank among "
        "finished openers. Without: the best openers so far. The run's progress goes "
        "first (stderr with --csv/--json). A rank is shown only where it is proven "
        "(the opener's total is below every stored lower bound).",
    )
    _add_results(q)
    q.add_argument("words", nargs="*", metavar="WORD", help="openers to look up")
    q.add_argument("--top", type=int_range(1, INT32_MAX), metavar="K",
                   help=f"the K best openers (default {DEFAULT_TOP} when no WORD is given)")
    q.add_argument("--progress", action="store_true",
                   help="only the run's progress (one JSON object with --json)")
    q.add_argument("--plot", type=path_arg, metavar="FILE.png", help="distribution of the finished "
                   "openers' values, the best marked")
    fmt = q.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="CSV rows on stdout")
    fmt.add_argument("--json", action="store_true", help="one JSON object per line")
    q.set_defaults(func=_cmd_query)

    e = sub.add_parser("export", help="the whole table of a result store or the book as CSV "
                       "or Parquet",
                       description="Write every opener of a store (finished or not) or of "
                       "an opening book (with the table beside it: every opener it holds "
                       "exact) as CSV and/or Parquet (one row per opener, the same columns; "
                       "Parquet keeps the types and needs the analysis extra: pip install -e "
                       "'.[analysis]'). For xarray, see solver.dataset.open_dataset.")
    _add_results(e)
    e.add_argument("--csv", type=path_arg, metavar="FILE",
                   help="CSV file ('-': stdout); written to a temporary file and "
                   "renamed, never inside the store")
    e.add_argument("--parquet", type=path_arg, metavar="FILE.parquet",
                   help="Parquet file, written the same way")
    e.set_defaults(func=_cmd_export)

    rp = sub.add_parser(
        "repair", help="make a damaged result store usable again",
        description="Check a result store and fix what is damaged: openers whose results "
        "are unreadable (missing or garbage chunks, bad status codes) are re-marked pending "
        "so that the next run values them again; every readable result is kept. The word "
        "arrays are rebuilt from --answers/--guesses (default: the original lists), which "
        "must be the lists the store was made with. Damaged root attributes cannot be "
        "repaired. Never run it while a run writes the store (it takes the writer lock).",
    )
    rp.add_argument("--store", required=True, type=path_arg, metavar="PATH",
                    help="result store to repair")
    add_lists(rp)
    rp.set_defaults(func=_cmd_repair)

    m = sub.add_parser(
        "merge", help="combine result stores of one problem (job-array slices)",
        description="Copy the finished openers of INPUT stores into OUTPUT (created if "
        "missing). All stores must be for the same lists, mode and cap.",
    )
    m.add_argument("--store", required=True, type=path_arg, metavar="OUTPUT",
                   help="store to merge into")
    m.add_argument("inputs", nargs="+", type=path_arg, metavar="INPUT", help="stores to copy from")
    m.set_defaults(func=_cmd_merge)


def run_config(args):
    """The run the options of `run` ask for: the problem, the run's options and
    its pace, checked (run.check_config: the checks a run makes again on rank 0,
    here before anything starts)."""
    from ..run import RunConfig, RunOptions, Tuning, check_config, parse_shard

    tl = time_limit(args.time_limit)
    try:
        shard = None if args.shard is None else parse_shard(args.shard)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    cfg = RunConfig(
        args.store, run_problem(args),
        RunOptions(openers=args.openers, cutoff=args.cutoff, no_cutoff=args.no_cutoff,
                   time_limit=tl, retry_failed=args.retry_failed, quiet=args.quiet,
                   shard=shard, memo_mb=args.memo_mb, split=args.split, parts=args.parts),
        Tuning(grace=args.grace, flush_seconds=args.flush_seconds,
               progress_seconds=args.progress_seconds, report=run_report()))
    check_config(cfg)
    return cfg


def _cmd_run(args) -> int:
    from ..run import run

    cfg = run_config(args)
    try:
        summary = run(cfg)
    except WordleDPError:  # its message as it is (parameters as flags)
        raise
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return summary.exit_code


def _fmt_row(row: dict, answers: int | None = None) -> str:
    """One opener of a store or a book in a line (`answers`: how many there are)."""
    st = row["status"]
    of = "" if answers is None else f" of {answers}"
    w, wt = row.get("wins"), row.get("wins_total")
    if st == Status.INFEASIBLE and w is not None and wt is not None:  # a book's most wins
        value = f"wins {w}{of}, total {wt} over those ({wt / max(w, 1):.4f} avg)"
    elif row["total"] is None:
        value = str(st)  # infeasible, pending, failed
    else:
        rel = {Status.LOWER_BOUND: ">= ", Status.UPPER_BOUND: "<= "}.get(st, "")
        value = f"{rel}{row['total']} ({rel}{row['average']:.4f} avg)"
        if row.get("objective") == "wins" and w is not None:
            avg = "" if row["average"] is None else f" ({row['average']:.4f} avg over those)"
            value = f"wins {w}{of}, total {row['total']}{avg}"
        elif row.get("objective") == "worst" and row["depth"] is not None:
            value = f"within {row['depth']} guesses, {value}"
    rank = f"#{row['rank']}" if row["rank"] else "-"
    extra = ""
    if row["cpu_seconds"] is not None:
        where = f", rank {row['mpi_rank']}" if row["mpi_rank"] is not None else ""
        extra = f"  [{row['cpu_seconds']:.2f} s{where}]"
    return f"{rank:>6}  {row['opener']}  {st:<11} {value}{extra}"


def _emit(rows: list[dict], args, out=None, answers: int | None = None) -> None:
    out = out or sys.stdout
    from ..store import ROW_KEYS

    if args.json:
        for r in rows:
            print(json.dumps(r), file=out)
    elif args.csv:
        w = csv.DictWriter(out, fieldnames=list(ROW_KEYS), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r[k] is None else r[k]) for k in ROW_KEYS})
    else:
        for r in rows:
            print(_fmt_row(r, answers), file=out)


def _add_results(p) -> None:
    """The options naming what query and export read: --store, or --book with the
    lists, mode and cap of the packaged one."""
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--store", type=path_arg, metavar="PATH",
                     help="result store written by 'wordle-dp run'")
    src.add_argument("--book", nargs="?", const="", type=str, metavar="FILE",
                     help="an opening book: the packaged one for --mode/--max-guesses "
                     "(default lists) without FILE, else FILE ('wordle-dp book build'; "
                     "--answers/--guesses name its lists)")
    p.add_argument("--answers", type=path_arg, metavar="FILE", help="with --book FILE: its "
                   "answer list (default: the original answers)")
    p.add_argument("--guesses", type=path_arg, metavar="FILE", help="with --book FILE: its "
                   "guess list (default: the original guesses)")
    p.add_argument("--lists", metavar="NAME", help="with --book: built-in lists by name "
                   "('wordle-dp lists')")
    p.add_argument("--length", type=int_range(3, 10), metavar="N",
                   help="with --book: the built-in lists of N-letter words")
    p.add_argument("--mode", choices=MODES, default="easy",
                   help="with --book: which packaged book (default: easy)")
    p.add_argument("--max-guesses", type=int_range(0, 64), default=6, metavar="N",
                   help="with --book: which packaged book (default: 6)")


def _open_results(args):
    """The store or book that query and export read."""
    from ..store import Store

    if args.store is not None:
        return Store.open(args.store, read_only=True)
    from ..book import Book

    lists = load_lists(args, quiet=True)
    if args.book:
        return Book.read(args.book, lists)
    book = Book.find(lists, args.mode, args.max_guesses)
    if book is None:
        raise UsageError(f"no packaged opening book for {args.mode} mode with max "
                         f"{args.max_guesses} guesses (build one: wordle-dp book build)")
    return book


def _cmd_query(args) -> int:
    from ..store import EXACT, describe_progress

    store = _open_results(args)
    idx = [store.index_of(w) for w in args.words]  # validate first
    check_output("--plot", args.plot, ".png")
    snap = store.snapshot()
    prog = snap.progress()
    if args.progress:
        if args.json:
            print(json.dumps(prog))
        else:
            print(describe_progress(prog))
        return 0
    machine = args.json or args.csv
    p = store.problem
    where = (f"opening book {Path(store.path).name}" if getattr(store, "source", "") == "book"
             else store.path)
    header = (f"{where}: {p.n_answers} answers x {p.n_guesses} guesses, {p.mode}, "
              f"max {p.max_guesses or 'no cap'}, objective {p.objective}"
              + (f", cutoff {store.cutoff}" if store.cutoff is not None else ""))
    table = getattr(store, "table", None)
    if table is not None:  # a book read with its table: where most values come from
        header += f"; with the {table.describe()}"
    print(header, file=sys.stderr if machine else sys.stdout)
    print("progress: " + describe_progress(prog), file=sys.stderr if machine else sys.stdout)
    edge = snap.frontier()
    if math.isfinite(edge):  # finished, with lower bounds: say how far ranks are proven
        n = int(((snap.status == EXACT) & (snap.fields["total"] < edge)).sum())
        print(f"ranks: among the exact openers; the ranking is proven for the {n} best "
              f"(every other opener is at least {int(edge)})",
              file=sys.stderr if machine else sys.stdout)
    ranks = snap.ranks()
    rows = [snap.row(i, ranks) for i in idx]
    top = args.top if args.top is not None else (None if idx else DEFAULT_TOP)
    best = snap.best(top) if top else []
    if getattr(args, "plot", None):
        _plot_openers(args.plot, store, snap)
    if machine:
        _emit(rows + best, args)
        return 0
    _emit(rows, args, answers=p.n_answers)
    if top:
        print(f"best {len(best)} of {int(snap.finished_mask().sum())} finished"
              + (" (the most wins first)" if p.objective == "wins" else "") + ":")
        _emit(best, args, answers=p.n_answers)
        lose = store.wins_order() if callable(getattr(store, "wins_order", None)) else []
        if len(lose):  # a book: what the openers that cannot win every answer win
            print(f"the most wins among the {len(lose)} openers the book holds that cannot "
                  f"win every answer within {p.max_guesses} guesses (the other openers are "
                  "not valued for wins):")
            _emit([snap.row(int(i)) for i in lose[:top]], args, answers=p.n_answers)
    return 0


def _plot_openers(path, store, snap) -> None:
    from .. import plots

    order = snap.order()
    if len(order) == 0:
        raise UsageError("--plot: the store has no finished exact openers yet")
    avg = snap.fields["total"][order] / snap.n_answers
    p = store.problem
    plots.opener_values(avg, (store.words[int(order[0])], float(avg[0])), path,
                        f"{len(order)} openers, {p.n_answers} answers, {p.mode}, "
                        f"max {p.max_guesses or 'no cap'}", p.n_answers)


def _inside(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        return False


def _cmd_export(args) -> int:
    from ..store import ROW_KEYS

    if args.csv is None and args.parquet is None:
        raise UsageError("export needs --csv FILE and/or --parquet FILE.parquet")
    store = _open_results(args)
    outs = [(opt, v) for opt, v in (("--csv", args.csv), ("--parquet", args.parquet))
            if v is not None]
    for opt, value in outs:
        if value != "-" and _inside(Path(value), Path(store.path)):
            raise StoreError(f"{opt} {value} is inside the store it exports ({store.path}); "
                             "write it somewhere else")
    if args.parquet == "-":
        raise UsageError("--parquet -: Parquet is binary; name a file")
    check_output("--csv", args.csv)
    check_output("--parquet", args.parquet, ".parquet")
    if args.parquet is not None:
        from ..dataset import need

        need("pandas")  # refused before anything is written
        need("pyarrow")
    snap = store.snapshot()
    ranks = snap.ranks()

    def write(f) -> None:
        w = csv.DictWriter(f, fieldnames=list(ROW_KEYS), lineterminator="\n")
        w.writeheader()
        for i in range(len(snap.status)):
            r = snap.row(i, ranks)
            w.writerow({k: ("" if r[k] is None else r[k]) for k in ROW_KEYS})

    if args.csv == "-":
        write(sys.stdout)
    c = snap.counts()
    for opt, value in outs:
        if value == "-":
            continue
        try:
            if opt == "--csv":
                _write_atomically(Path(value), write)
            else:
                from ..dataset import write_parquet

                _write_atomically(Path(value), lambda f: write_parquet(store, f), binary=True)
        except OSError as exc:
            raise UsageError(f"cannot write {value}: {exc.strerror or exc}") from None
        print(f"wrote {len(snap.status)} openers ({c['pending']} pending) to {value}",
              file=sys.stderr)
    return 0


def _cmd_repair(args) -> int:
    from ..store import check_folder, repair

    check_folder(Path(args.store))  # before the lists: their notes would come first
    lists = None
    try:  # only needed when the word arrays are damaged
        lists = load_lists(args, quiet=True)
    except WordListError:
        if args.answers or args.guesses or args.lists or args.length:
            raise
    done = repair(args.store, lists)
    if not done:
        print(f"{args.store}: nothing to repair", file=sys.stderr)
    for line in done:
        print(f"{args.store}: {line}", file=sys.stderr)
    return 0


def _cmd_merge(args) -> int:
    from ..store import merge

    res = merge(args.store, args.inputs)
    c = res["counts"]
    print(f"merged {res['inputs']} store(s) into {args.store}: {res['copied']} opener(s) "
          "copied; now " + ", ".join(f"{v} {k}" for k, v in c.items() if v), file=sys.stderr)
    return 0
