"""The opening book's builder: a book written from a finished result store of one
run (`write`), the whole build through an MPI run (`build`, behind `wordle-dp book
build`), and the most wins added from a run of that objective (`wins`, `add_wins`,
behind `wordle-dp book wins`). The file it writes: reader.py.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

from ..errors import Param, UsageError
from ..moves import read_archive
from ..store import (
    EXACT,
    INFEASIBLE,
    LOWER_BOUND,
    STATUS_NAMES,
    UPPER_BOUND,
    Problem,
    Snapshot,
    Store,
)
from ..variant import Mode, pattern_dtype
from .reader import _ARRAYS, _WINS_ARRAYS, DEFAULT_TOP, FORMAT, Book, book_path
from .table import class_rows, problem_info

POPULAR_SCORED = 280  # the best openers by a one-step score (expected remaining)

# Openers players are known to use, by our own reading of public Wordle discussion
# (newspaper columns, forums, solver write-ups): the common "vowel-heavy" and
# "common-letter" starts. Words missing from a guess list are skipped.
PLAYER_OPENERS = (
    "adieu", "audio", "raise", "arise", "irate", "crane", "slate", "trace", "crate",
    "stare", "soare", "roate", "salet", "tares", "lares", "raile", "later", "alert",
    "alter", "react", "arose", "stale", "least", "steal", "tears", "rates", "aster",
    "train", "ratio", "saint", "stain", "aisle", "heart", "earth", "house", "ouija",
    "media", "ocean", "canoe", "about", "other", "skate", "snare", "share", "spare",
    "great", "tread", "cares", "rinse", "roast", "toast", "heist", "plant", "chart",
    "crest", "slant", "store", "trice", "trade", "reast", "lance", "blast", "cloth",
    "pious", "fresh", "dealt", "point", "sport", "shine", "hello", "world", "words",
)


def popular_openers(lists, table: np.ndarray, mode: Mode = Mode.EASY, max_guesses: int = 6,
                    n_scored: int = POPULAR_SCORED, players: bool = True) -> list[str]:
    """The book's popular openers: the n_scored best by expected remaining answers
    after one guess (a one-step heuristic; ties by list order), then (`players`)
    the player openers of PLAYER_OPENERS that the guess list has. In that order, no
    repeats."""
    from ..game.measures import SUMSQ, scan
    from ..variant import Variant

    variant = Variant.of(lists, mode, max_guesses)
    members = np.arange(len(lists.answers), dtype=np.int32)
    gids = np.arange(len(lists.guesses), dtype=np.int64)
    raw = scan(table, members, gids, variant.all_green)
    order = np.lexsort((gids, raw[:, SUMSQ]))[:n_scored]
    words = [lists.guesses[int(g)] for g in order]
    if players:
        words += [w for w in PLAYER_OPENERS if w in lists.guess_index]
    return list(dict.fromkeys(words))


def add_wins(book: str | Path, store: Store, command: str) -> dict:
    """Write into the book file `book` (atomically) the values under the objective
    wins of every opener `store` holds exactly (a result store of a run of that
    objective, for the book's problem), beside those the book has already. An
    opener that wins fewer than every answer becomes infeasible in the book; one
    that wins them all must agree with the book (its exact total, or a lower bound
    at or below it) and is exact at its total. Returns info['wins']."""
    from .. import __version__

    path = Path(book)
    info, arrays = read_archive(path, _ARRAYS, FORMAT, "opening book")
    p = store.problem
    if p.objective != "wins":
        raise UsageError(f"{store.path} is a store of the objective {p.objective}, not wins")
    mine = Problem(info["answers_sha256"], info["guesses_sha256"], int(info["n_answers"]),
                   int(info["n_guesses"]), info["mode"], int(info["max_guesses"]),
                   int(info.get("word_length", 5)), "wins")
    if mine.differences(p):
        raise UsageError(f"{store.path} is for another problem than the book {path} ("
                         + "; ".join(mine.differences(p)) + ")")
    with np.load(path, allow_pickle=False) as z:
        old = {k: np.asarray(z[k]) for k in _WINS_ARRAYS} if "wins_index" in z.files \
            else {k: np.zeros(0) for k in _WINS_ARRAYS}
    snap = store.snapshot()
    got = np.flatnonzero(snap.status == EXACT)
    n = p.n_answers
    w = snap.fields["wins"][got].astype(np.int64)
    t = snap.fields["total"][got].astype(np.int64)
    status = arrays["status"].astype(np.uint8).copy()
    total = arrays["total"].astype(np.int64)  # (a copy)
    for i, wi, ti in zip(got.tolist(), w.tolist(), t.tolist(), strict=True):
        st = int(status[i])
        if wi == n and (st == INFEASIBLE or (st == EXACT and total[i] != ti) or (
                st in (LOWER_BOUND, UPPER_BOUND) and
                (total[i] > ti if st == LOWER_BOUND else total[i] < ti))):
            raise UsageError(f"{store.words[i]}: wins every answer at total {ti} in "
                             f"{store.path}, but the book has it {STATUS_NAMES[st]} "
                             f"{int(total[i])}: they are not of one engine")
        if wi < n and st == EXACT:
            raise UsageError(f"{store.words[i]}: wins {wi} of {n} in {store.path}, but the "
                             "book has it exact: they are not of one engine")
    # an exact opener wins every answer at its total: the book's own value says it.
    # One held as a bound that wins every answer is exact at its total (the least
    # total of a strategy that wins them all is the capped optimum), without second
    # guesses; one that does not is infeasible
    keep = status[got] != EXACT
    whole = got[(w == n) & keep]
    status[whole] = EXACT
    total[whole] = t[(w == n) & keep]
    status[got[w < n]] = INFEASIBLE
    merged = {int(i): (int(a), int(b), float(c)) for i, a, b, c in zip(
        old["wins_index"], old["wins"], old["wins_total"], old["wins_cpu"], strict=True)}
    cpu = snap.fields["cpu_seconds"][got]
    for i, a, b, c in zip(got[keep], w[keep], t[keep], cpu[keep], strict=True):
        merged[int(i)] = (int(a), int(b), float(c))
    idx = np.array(sorted(merged), dtype=np.int64)
    vals = np.array([merged[int(i)] for i in idx], dtype=np.float64).reshape(-1, 3)
    runs = store.group.attrs.get("run", {}) or {}
    before = info.get("wins") or {}
    winfo = {
        "openers": int(len(idx)),
        "cpu_seconds": float(vals[:, 2].sum()) if len(idx) else 0.0,
        "command": command,
        "store": str(store.path),
        "solver_version": __version__,
        "machines": sorted({*(before.get("machines") or []),
                            *(runs.get("hosts") or [str(runs.get("host", platform.node()))])}),
        "written_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "written_on": _machine(),
    }
    winfo["exact"] = int(before.get("exact", 0)) + int(len(whole))  # made exact by theirs
    info["wins"] = winfo
    arrays["status"] = status
    arrays["total"] = total.astype(arrays["total"].dtype)
    arrays.update(info=np.array(json.dumps(info, sort_keys=True)),
                  wins_index=idx.astype(np.int32), wins=vals[:, 0].astype(np.int32),
                  wins_total=vals[:, 1].astype(np.int32),
                  wins_cpu=vals[:, 2].astype(np.float32))
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays)  # type: ignore[arg-type]
    tmp.replace(path)
    return winfo


# ------------------------------------------------------------------------ writing


def proven_top(snap: Snapshot) -> int:
    """How many of the best exact openers a finished store proves best: those whose
    total is below every lower bound (and every pending opener's value is unknown,
    so none while any is pending or failed)."""
    return int(((snap.status == EXACT) & (snap.fields["total"] < snap.frontier())).sum())


def write(store: Store, out: str | Path, top: int, popular: list[str], command: str,
          steps: dict | None = None) -> dict:
    """Write the book of a finished store to `out` (atomically). The store must hold
    every opener (none pending or failed), prove the `top` best, have every popular
    opener exact or infeasible, and hold the class values of every exact opener in
    its class checkpoint (the run's workers keep them: no search here). `steps`:
    what the build measured (wall and CPU seconds of its steps), for the
    provenance. Returns the book's info."""

    snap = store.snapshot()
    st = snap.status
    c = snap.counts()
    if c["pending"] or c["failed"]:
        raise UsageError(f"{store.path} is not finished ({c['pending']} pending, "
                         f"{c['failed']} failed): resume the run first")
    proven = proven_top(snap)
    if proven < top:
        what = f"only the {proven} best openers" if proven else "none of the best openers"
        raise UsageError(f"{store.path} proves {what}, not {top}: run it again with a "
                         "higher ", Param("cutoff"), " (or none: one past the best exact "
                         "totals)")
    missing = [w for w in popular if st[store.index_of(w)] not in (EXACT, INFEASIBLE)]
    if missing:
        raise UsageError(f"{len(missing)} popular opener(s) are not exact in {store.path} "
                         f"(first {missing[0]}): value them with run ",
                         Param("no_cutoff"))
    total = snap.fields["total"]
    exact = np.flatnonzero(st == EXACT)
    rows = [(int(i), *r) for i, got in zip(exact, class_rows(
        store, exact, "build the book again (the same command values them)"), strict=True)
        for r in got]
    order = np.lexsort((exact, total[exact]))
    kth = int(total[exact[order[top - 1]]])
    prob = store.problem
    from .. import __version__

    runs = store.group.attrs.get("run", {}) or {}
    info = {
        "format": FORMAT, **problem_info(prob),
        "top": proven, "kth_total": kth, "cutoff": store.cutoff,
        "exact": int(len(exact)),
        "popular": popular,
        "command": command,
        "solver_version": __version__,
        "store": str(store.path),
        "cpu_seconds": float(np.nansum(snap.fields["cpu_seconds"])),
        "machines": runs.get("hosts") or [str(runs.get("host", platform.node()))],
        "ranks": runs.get("ranks"),
        "steps": steps or {},
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": platform.python_version(),
        "written_on": _machine(),
    }
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    table = np.array(rows, dtype=np.int64).reshape(-1, 4)
    with open(tmp, "wb") as f:
        # column by column in the narrowest types: compresses to half of [M, 4] int32
        np.savez_compressed(
            f, info=np.array(json.dumps(info, sort_keys=True)),
            status=st.astype(np.uint8), total=total.astype(np.int32),
            depth=snap.fields["depth"].astype(np.int8), exact=exact.astype(np.int32),
            cpu=snap.fields["cpu_seconds"][exact].astype(np.float32),
            counts=np.bincount(np.searchsorted(exact, table[:, 0]),
                               minlength=len(exact)).astype(np.int32),
            pattern=table[:, 1].astype(pattern_dtype(prob.length)),
            guess=table[:, 2].astype(np.uint16 if prob.n_guesses < 2**16 else np.int32),
            class_total=table[:, 3].astype(np.int32))
    tmp.replace(out)
    return info


def _machine() -> str:
    """This machine in words: CPU model and core count (Linux /proc/cpuinfo)."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def default_store(mode: Mode, max_guesses: int, lists: str = "original") -> str:
    """The result store of a book build: checkpoints/book-easy-6.zarr for the default
    lists, book-nyt-easy-6.zarr for others (named like book_path)."""
    name = f"{mode}-{max_guesses}.zarr"
    return f"checkpoints/book-{name}" if lists == "original" else f"checkpoints/book-{lists}-{name}"


def build(store: str | Path, out: str | Path | None = None, answers: str | None = None,
          guesses: str | None = None, mode: Mode = Mode.EASY, max_guesses: int = 6,
          lists_name: str | None = None, length: int | None = None,
          top: int = DEFAULT_TOP, n_scored: int = POPULAR_SCORED, cutoff: int | None = None,
          cache_dir: str | None = None, time_limit: float | None = None, quiet: bool = False,
          progress_file=None, command: str | None = None, players: bool = True,
          report=None) -> dict | None:
    """Build (or resume building) a book over the result store `store`, in two
    steps: (1) one run values every opener: the popular ones exactly, every other
    one under a cutoff one past the `top`-th best exact total known so far (or the
    fixed `cutoff`): exact below it, a proven lower bound above, so the `top` best
    are proven; the workers keep each exact opener's class values in the store as
    they value it; (2) rank 0 writes the book to `out` (default: the package's own
    book for the built-in lists, book_path) from the store, in about a second. Under MPI every
    rank calls it and the run uses them all; rank 0 returns the book's info, the
    others None. A stopped run (time limit, signal) returns None on every rank
    before writing: the same call resumes, and a finished store is never valued
    again. `players`: whether the openers players use (PLAYER_OPENERS) are among
    the popular ones valued exactly. `report`: the run's (run.Tuning.report)."""
    from ..run.mpi import Signals

    if top < 1:
        raise UsageError(Param("top"), " must be >= 1")
    signals = Signals().install()  # a stop while scoring or writing is not lost either
    try:
        return _build(store, out, answers, guesses, mode, max_guesses, lists_name, length,
                      top, n_scored, cutoff, cache_dir, time_limit, quiet, progress_file,
                      command, players, report)
    finally:
        signals.restore()


def _build(store, out, answers, guesses, mode, max_guesses, lists_name, length, top,
           n_scored, cutoff, cache_dir, time_limit, quiet, progress_file, command,
           players, report=None) -> dict | None:
    from ..run import RunConfig, run
    from ..run.mpi import quiet_barrier, quiet_bcast

    rank = _rank()
    popular: list[str] = []
    t0, c0 = time.perf_counter(), time.process_time()
    failed: BaseException | None = None
    if rank == 0:
        try:
            out, popular = _score(answers, guesses, lists_name, length, out, mode,
                                  max_guesses, n_scored, players, cache_dir)
        except BaseException as e:  # the others must hear of it, not wait for the run
            failed = e
    if quiet_bcast(_comm(), failed is not None):
        if failed is not None:
            raise failed
        return None
    scoring = (time.perf_counter() - t0, time.process_time() - c0)
    s = run(RunConfig(store=store, answers=answers, guesses=guesses, lists=lists_name,
                      length=length, cache_dir=cache_dir, mode=mode,
                      max_guesses=max_guesses, time_limit=time_limit, quiet=quiet,
                      progress_file=progress_file, openers="all", best=top,
                      exact=tuple(popular), cutoff=cutoff, fill_classes=True,
                      report=report))
    if s.state != "finished" or s.exit_code or rank != 0:
        quiet_barrier(_comm())  # the others wait asleep while rank 0 writes
        return None
    t1, c1 = time.perf_counter(), time.process_time()
    steps = {"ranks": s.ranks, "solvers": s.solvers,
             "score_wall": scoring[0], "score_cpu": scoring[1],
             "plan_wall": s.plan_seconds, "run_wall": s.wall_seconds,
             "run_cpu": s.solve_cpu_seconds}
    try:  # a write that fails (a store that proves too few) still frees the others
        _pause("writing")
        st = Store.open(store, read_only=True)
        assert out is not None  # rank 0 chose it above
        info = write(st, out, top, popular, command or command_line(), steps)
    finally:
        quiet_barrier(_comm())
    steps["write_wall"], steps["write_cpu"] = (time.perf_counter() - t1,
                                               time.process_time() - c1)
    info["steps"] = steps
    return info


def wins_openers(book: Book, lists) -> list[str]:
    """The openers `book wins` values by default: the player openers
    (PLAYER_OPENERS) of the guess list that the book does not hold exactly (an exact
    opener wins every answer at its total: nothing to search)."""
    return [w for w in PLAYER_OPENERS if w in lists.guess_index
            and book.status_codes[book.index_of(w)] != EXACT]


def wins(book: str | Path, store: str | Path, openers: list[str],
         answers: str | None = None, guesses: str | None = None, mode: Mode = Mode.EASY,
         max_guesses: int = 6, lists_name: str | None = None, length: int | None = None,
         cache_dir: str | None = None, time_limit: float | None = None,
         quiet: bool = False, progress_file=None, command: str | None = None,
         report=None) -> dict | None:
    """Value `openers` under the objective wins in one run into the result store
    `store` (resumable, every rank under MPI), then write every value the store
    holds into the book file `book` (add_wins) on rank 0, which returns
    info['wins']; the other ranks return None. A stopped run (time limit, signal)
    writes what it finished too: each value is exact on its own, and the same call
    resumes the rest; one that finished none leaves the book as it was (None)."""
    from ..run import RunConfig, run
    from ..run.mpi import Signals, quiet_barrier

    signals = Signals().install()
    try:
        s = run(RunConfig(store=store, answers=answers, guesses=guesses, lists=lists_name,
                          length=length, cache_dir=cache_dir, mode=mode,
                          max_guesses=max_guesses, objective="wins",
                          openers=",".join(openers), time_limit=time_limit, quiet=quiet,
                          progress_file=progress_file, report=report))
        if s.state == "refused":  # rank 0 raised the reason
            return None
        if s.exit_code or _rank() != 0:
            quiet_barrier(_comm())  # the others wait asleep while rank 0 writes
            return None
        try:
            st = Store.open(store, read_only=True)
            if not (st.status() == EXACT).any():  # stopped before any: the book as it was
                return None
            return add_wins(book, st, command or command_line())
        finally:
            quiet_barrier(_comm())
    finally:
        signals.restore()


def _score(answers, guesses, lists_name, length, out, mode, max_guesses, n_scored,
           players, cache_dir) -> tuple[str | Path, list[str]]:
    """Rank 0's first step: where the book goes, and the popular openers."""
    from ..table import get_table
    from ..words import WordLists

    lists = WordLists.load(answers, guesses, quiet=True, lists=lists_name, length=length)
    if out is None:
        if not lists.name:
            raise UsageError("a book for other lists needs ", Param("out"), " FILE")
        out = book_path(mode, max_guesses, lists.name)
    _pause("scoring")
    table, _ = get_table(lists, "numpy", cache_dir)
    return out, popular_openers(lists, table, mode, max_guesses, n_scored, players)


def _pause(step: str) -> None:
    from ..run.mpi import pause_for_test  # the run's modules load when a build runs

    pause_for_test(step)


def _comm():
    """The MPI communicator run() uses (None without MPI)."""
    from ..run.mpi import mpi

    return mpi()[0]


def _rank() -> int:
    """This process's MPI rank (0 without MPI), as run() sees it."""
    comm = _comm()
    return comm.Get_rank() if comm is not None else 0


def command_line() -> str:
    """The command as typed, for the provenance."""
    return " ".join(["wordle-dp", *sys.argv[1:]])
