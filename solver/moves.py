"""The book's second moves: a player's second guess answered from data.

For chosen openers (the book's popular ones and the openers players use), every
first-feedback class gets its best second guess with the exact total and worst case
that `next OPENER:PATTERN` prints, and the class's K best alternative guesses with
their exact totals: what `analysis.analyse(solver, position, top=k)` computes, for
any k <= K, computed once here instead of on every request (on today's NYT lists a
class can take 20-40 s of CPU). Lookups need no solver, no pattern table and no
kernel.

A moves file sits beside its book (`nyt-easy-6.npz` -> `nyt-easy-6.moves.npz`) and
is read with it (`Book.read`), so every reader of a book (the CLI, the page's
workers, `play`) answers from it. It is a sidecar, not part of the book's format:
old books stay valid, and a moves file is filled opener by opener (resumable,
`build`) and usable while partial: a class it lacks is searched as before.

File: a compressed numpy archive, one row per (opener, pattern): `opener` and
`best` (guess indices; best -1 when no strategy solves the class within the cap),
`pattern`, `total` (-1: infeasible), `worst` (the most further guesses, counting the
second, any answer needs under the tie-broken best strategy), `alt_guess` and
`alt_total` [rows, K] (-1 pads a class with fewer guesses), and `info`, a JSON
document with the problem and the provenance.

The best chance: where no strategy solves every candidate of a class within the cap
(hard mode on today's lists: crane, slate, ...), the row holds what `next` falls back
to (`analyse(..., fallback=True)`, the objective wins): `wins` (the most candidates a
strategy wins within the cap; -1 on every other row), `best` the guess that wins
them, `total` the guesses summed over those, `worst` -1, and the alternatives with
their own `alt_wins` [rows, K]. Files written before it have neither array: their
infeasible classes are valued again by the next `build`.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import StoreError, UsageError
from .variant import Mode

FORMAT = "wordle-dp-moves/1"
ALTERNATIVES = 8  # alternatives kept per class: `next --top K` up to this from data
_ARRAYS = ("opener", "pattern", "best", "total", "worst", "alt_guess", "alt_total")
_FALLBACK = ("wins", "alt_wins")  # the best chance's arrays (module doc), when present


def moves_path(book: str | Path) -> Path:
    """The moves file beside the book file `book`."""
    p = Path(book)
    return p.with_name(p.name.removesuffix(".npz") + ".moves.npz")


@dataclass(frozen=True)
class Move:
    """One class's second move: the best guess (None: no strategy solves the class
    within the cap) with its exact total and worst case, and the best alternatives
    as (guess, exact total), ranked as `analysis.ranked_guesses` ranks them."""

    best: str | None
    total: int | None
    worst: int | None
    alternatives: tuple[tuple[str, int], ...]
    # the best chance (module doc): the candidates `best` wins within the cap, and
    # each alternative's; None where the class is won outright (or not valued so)
    wins: int | None = None
    alt_wins: tuple[int, ...] = ()


@dataclass
class Moves:
    """A loaded moves file (see the module doc)."""

    info: dict
    words: list[str]
    arrays: dict[str, np.ndarray]
    path: str

    def __post_init__(self) -> None:
        a = self.arrays
        self._row = {(int(o), int(p)): i for i, (o, p) in enumerate(zip(a["opener"],
                                                                         a["pattern"],
                                                                         strict=True))}

    @property
    def alternatives(self) -> int:
        """How many alternatives each class has (K)."""
        return int(self.arrays["alt_guess"].shape[1])

    def openers(self) -> list[str]:
        """The openers whose every class is here."""
        return [self.words[int(g)] for g in self.info.get("openers", [])]

    def __len__(self) -> int:
        return len(self._row)

    def lookup(self, opener: int, pattern: int) -> Move | None:
        """The move after opener `opener` (a guess index) and feedback `pattern`, or
        None when the file does not have it."""
        i = self._row.get((int(opener), int(pattern)))
        if i is None:
            return None
        a, w = self.arrays, self.words
        best, total, worst = int(a["best"][i]), int(a["total"][i]), int(a["worst"][i])
        alts = tuple((w[int(g)], int(t)) for g, t in zip(a["alt_guess"][i], a["alt_total"][i],
                                                          strict=True) if g >= 0)
        wins = int(a["wins"][i]) if "wins" in a else -1
        if wins < 0:
            return Move(w[best] if best >= 0 else None, total if total >= 0 else None,
                        worst if worst >= 0 else None, alts)
        alt_wins = tuple(int(x) for x, g in zip(a["alt_wins"][i], a["alt_guess"][i],
                                                strict=True) if g >= 0)
        return Move(w[best] if best >= 0 else None, total if total >= 0 else None, None,
                    alts, wins, alt_wins)

    # ---- reading and writing ---------------------------------------------------------

    @classmethod
    def read(cls, path: str | Path, lists, mode: Mode, max_guesses: int) -> Moves:
        """Read a moves file for `lists`, `mode` and cap; StoreError (one line) when it
        is not one, is damaged, or belongs to another problem."""
        path = Path(path)
        info, arrays = read_archive(path, _ARRAYS, FORMAT, "moves file", _FALLBACK)
        diff = _differences(info, lists, mode, max_guesses)
        if diff:
            raise StoreError(f"the moves file {path} is for another problem ({diff})")
        m = len(arrays["opener"])
        g = len(lists.guesses)
        if any(len(arrays[k]) != m for k in arrays) or arrays["alt_guess"].shape != \
                arrays["alt_total"].shape or (m and (int(arrays["opener"].max()) >= g or int(
                    max(arrays["best"].max(), arrays["alt_guess"].max())) >= g)) or (
                ("wins" in arrays) != ("alt_wins" in arrays)) or (
                "alt_wins" in arrays and arrays["alt_wins"].shape != arrays["alt_guess"].shape):
            raise StoreError(f"{path}: arrays of the wrong shape for {g} guesses")
        return cls(info, list(lists.guesses), arrays, str(path))

    @staticmethod
    def write(path: str | Path, info: dict, rows: list[tuple], k: int) -> None:
        """Write `rows` (opener, pattern, best, total, worst, [(guess id, total)...],
        wins, [alternative's wins...]) to `path` atomically, in the narrowest types
        (wins -1 and no alternatives' wins where the class is won outright)."""
        m = len(rows)
        alt_g = np.full((m, k), -1, np.int32)
        alt_t = np.full((m, k), -1, np.int32)
        alt_w = np.full((m, k), -1, np.int32)
        for i, r in enumerate(rows):
            for j, (g, t) in enumerate(r[5][:k]):
                alt_g[i, j], alt_t[i, j] = g, t
            for j, x in enumerate(r[7][:k]):
                alt_w[i, j] = x
        col = [np.array([r[c] for r in rows], np.int64).reshape(m) for c in (0, 1, 2, 3, 4, 6)]
        wins = np.int16 if int(info["n_answers"]) < 2**15 else np.int32
        n_guess = int(info["n_guesses"])
        gid = np.int16 if n_guess < 2**15 else np.int32
        big = max([r[3] for r in rows] + [int(alt_t.max(initial=0))]) >= 2**15
        tot = np.int32 if big else np.int16
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f".{out.name}.tmp")
        with open(tmp, "wb") as f:
            np.savez_compressed(
                f, info=np.array(json.dumps(info, sort_keys=True)),
                opener=col[0].astype(gid),
                pattern=col[1].astype(np.uint8 if col[1].max(initial=0) < 256 else np.uint16),
                best=col[2].astype(gid), total=col[3].astype(tot),
                worst=col[4].astype(np.int8), alt_guess=alt_g.astype(gid),
                alt_total=alt_t.astype(tot), wins=col[5].astype(wins),
                alt_wins=alt_w.astype(wins))
        tmp.replace(out)


def read_archive(path: Path, names: tuple[str, ...], fmt: str,
                 what: str, optional: tuple[str, ...] = ()) -> tuple[dict, dict[str, np.ndarray]]:
    """(info, arrays) of a compressed archive of ours (a book, a moves file): its JSON
    `info` of format `fmt`, the arrays `names` and those of `optional` it has;
    StoreError (one line, naming `what` it should be) when it is missing, damaged or
    something else."""
    try:
        with np.load(path, allow_pickle=False) as z:
            info = json.loads(str(z["info"]))
            arrays = {k: np.asarray(z[k]) for k in (*names, *(o for o in optional
                                                                if o in z.files))}
    except FileNotFoundError:
        raise StoreError(f"no {what} at {path}") from None
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:  # truncated too
        raise StoreError(f"{path} is not a readable {what} ({exc})") from None
    if not isinstance(info, dict) or info.get("format") != fmt:
        raise StoreError(f"{path} is not a wordle-dp {what}")
    return info, arrays


def _differences(info: dict, lists, mode: Mode, max_guesses: int) -> str:
    diff = []
    if (info.get("answers_sha256"), info.get("guesses_sha256")) != (lists.answers_sha256,
                                                                    lists.guesses_sha256):
        diff.append("word lists")
    if info.get("mode") != mode:
        diff.append(f"mode {info.get('mode')}")
    if info.get("max_guesses") != max_guesses:
        diff.append(f"max_guesses {info.get('max_guesses')}")
    return "; ".join(diff)


# ------------------------------------------------------------------------ computing


def class_move(solver, position, k: int, store=None) -> tuple:
    """(best id, total, worst, [(guess id, total)...], wins, [alternative's wins...])
    of `position` (after one guess): exactly what `analyse(solver, position, top=k,
    store=store, fallback=True)` answers (a book as `store` gives its stored second
    guess, kept where the tie-break allows). Where no strategy solves the class, the
    best chance (wins >= 0, module doc); -1 for best, total and worst where not even
    that has a guess."""
    from .game.analysis import analyse

    res = analyse(solver, position, top=k, store=store, fallback=True)
    ids = solver.lists.guess_index
    b = res.best
    if b.total is None or b.guess is None:  # (valued: never again by `build`)
        return (-1, -1, -1, [], 0, [])
    alts = [a for a in res.alternatives if a.total is not None]
    pairs = [(ids[a.guess], int(a.total or 0)) for a in alts]
    if res.fallback_from:
        return (ids[b.guess], int(b.total), -1, pairs, int(b.wins or 0),
                [int(a.wins or 0) for a in alts])
    return (ids[b.guess], int(b.total), -1 if b.worst is None else int(b.worst), pairs,
            -1, [])


def _mine(units: list, rank: int, size: int, counter):
    """The units this rank values, dearest first (by a class's size to the power
    1.5). With a counter (the ranks on one node), each rank draws the next unit as it
    finishes one, so no rank waits while another still has several; otherwise they
    are dealt in advance to the least loaded rank."""
    costs = [float(c) ** 1.5 for _g, _p, c in units]
    if counter is None:
        for u, r in zip(units, _assign(costs, size), strict=True):
            if r == rank:
                yield u
        return
    order = sorted(range(len(units)), key=lambda i: (-costs[i], i))
    while (i := counter.draw()) < len(order):
        yield units[order[i]]


def _assign(costs: list[float], ranks: int) -> list[int]:
    """The rank of each unit: dearest first to the least loaded rank (the same on
    every rank: no messages)."""
    load = [0.0] * ranks
    owner = [0] * len(costs)
    for i in sorted(range(len(costs)), key=lambda i: (-costs[i], i)):
        r = min(range(ranks), key=lambda r: (load[r], r))
        owner[i] = r
        load[r] += costs[i]
    return owner


def build(lists, mode: Mode, max_guesses: int, openers: list[str], out: str | Path,
          book=None, k: int = ALTERNATIVES, time_limit: float | None = None,
          batch: int | None = None, say=None, comm=None,
          cache_dir: str | None = None) -> dict | None:
    """Compute the moves of `openers` into the moves file `out`, resuming it: openers
    already complete there are skipped. `book` (a Book for the same problem, read
    without its moves): its stored second guesses are the ones kept, as `next` keeps
    them. Under MPI (`comm`) every rank calls it: `batch` openers at a time (default:
    one a rank), their classes drawn by the ranks dearest first, rank 0 gathers and
    writes after each batch. When `time_limit` seconds have passed, and on SIGTERM or
    SIGUSR1 (Slurm's and mpiexec's stop), it stops after the class in flight on each
    rank, keeping the classes that batch valued (its openers are not done). The same
    call resumes, valuing only the classes the file lacks. `say(line)`: progress with
    an ETA (rank 0).
    Returns the file's info on rank 0 when every opener is done, else None."""
    from . import __version__
    from .game.position import Position
    from .run.mpi import NodeCounter, Signals, pause_for_test, quiet_barrier, quiet_bcast
    from .search import Solver
    from .table import get_table
    from .variant import Variant

    rank = comm.Get_rank() if comm is not None else 0
    size = comm.Get_size() if comm is not None else 1
    t0, c0 = time.perf_counter(), time.process_time()
    batch = batch or size
    words = [w.strip().lower() for w in openers]
    for w in words:
        if w not in lists.guess_index:
            raise UsageError(f"opener {w!r} is not in the guess list")
    words = list(dict.fromkeys(words))
    rows: dict[tuple[int, int], tuple] = {}
    info: dict = {}
    done: list[int] = []
    out = Path(out)
    if out.exists():
        old = Moves.read(out, lists, mode, max_guesses)
        if old.alternatives != k:
            raise UsageError(f"{out} keeps {old.alternatives} alternatives per class, not {k}")
        a = old.arrays
        for i in range(len(old)):
            alts = [(int(g), int(t)) for g, t in zip(a["alt_guess"][i], a["alt_total"][i],
                                                      strict=True) if g >= 0]
            wins = int(a["wins"][i]) if "wins" in a else -1
            alt_wins = [int(x) for x in a["alt_wins"][i][:len(alts)]] if wins >= 0 else []
            rows[(int(a["opener"][i]), int(a["pattern"][i]))] = (
                int(a["opener"][i]), int(a["pattern"][i]), int(a["best"][i]),
                int(a["total"][i]), int(a["worst"][i]), alts, wins, alt_wins)
        info = old.info
        done = [int(g) for g in info.get("openers", [])]
    todo = [w for w in words if lists.guess_index[w] not in done]
    variant = Variant.of(lists, mode, max_guesses)
    table, _ = get_table(lists, "numpy", cache_dir)
    solver = Solver(lists, variant, table=table)
    start = Position.start(lists, mode, max_guesses)
    cpu_before = float(info.get("cpu_seconds", 0.0))
    cpu_run = 0.0
    n_done0 = len(done)
    # valued again first: classes whose best guess is among their alternatives
    # (written before the alternatives left out the tie-broken best: analysis.py),
    # and classes with no move that were written before the best chance (wins -1)
    again = [(o, p, int((table[o, start.members] == p).sum())) for (o, p), r in rows.items()
             if (r[2] >= 0 and r[2] in [g for g, _ in r[5]]) or (r[2] < 0 and r[6] < 0)]
    batches: list[tuple[list[str], list[tuple[int, int, int]]]] = [([], again)] if again else []
    for b0 in range(0, len(todo), batch):
        units = []
        for w in todo[b0:b0 + batch]:
            g = lists.guess_index[w]
            pats = table[g, start.members]
            for p, count in zip(*np.unique(pats, return_counts=True), strict=True):
                # (a class the file has from a batch cut short is not valued again)
                if int(p) != variant.all_green and (g, int(p)) not in rows:
                    units.append((g, int(p), int(count)))
        batches.append((todo[b0:b0 + batch], units))
    counter = NodeCounter.on_node(comm) if comm is not None and size > 1 else None
    signals = Signals().install()  # a stop signal sets a flag; it never kills a rank

    def stopping() -> bool:  # a stop signal, or the time limit passed
        return signals.received is not None or (
            time_limit is not None and time.perf_counter() - t0 > time_limit)

    try:
        for bi, (these, units) in enumerate(batches):
            if counter is not None and rank == 0:
                counter.reset()  # every rank is past its draws (the barrier below)
            stop = stopping()
            if comm is not None and size > 1:  # rank 0 decides for every rank
                stop = quiet_bcast(comm, stop)
            if stop:
                break
            if bi > 0:  # a batch written, the next one started: every rank waits, or
                pause_for_test("moves")  # another could value the whole batch meanwhile
            mine = []
            c1 = time.process_time()
            cut = False
            for g, p, _c in _mine(units, rank, size, counter):
                # checked inside the batch too (one with a dear class can take an
                # hour): the batch is cut short (below)
                cut = stopping()
                if cut:
                    break
                pos = start.play(lists.guesses[g], p)
                mine.append((g, p, *class_move(solver, pos, k, book)))
            cpu = time.process_time() - c1
            if comm is not None and size > 1:
                quiet_barrier(comm)
                got = comm.gather((mine, cpu, cut), root=0)
                cut = quiet_bcast(comm, rank == 0 and any(c for _m, _c, c in got))
            else:
                got = [(mine, cpu, cut)]
            if rank == 0:
                # a batch cut short (a rank stopped part-way) keeps the classes its
                # ranks valued, but none of its openers is done: the same call
                # values the rest of their classes
                for part, c, _cut in got:
                    cpu_run += c
                    for r in part:
                        rows[(r[0], r[1])] = r
                if not cut:
                    done += [lists.guess_index[w] for w in these]
                info = {
                    "format": FORMAT, "answers_sha256": lists.answers_sha256,
                    "guesses_sha256": lists.guesses_sha256, "n_answers": len(lists.answers),
                    "n_guesses": len(lists.guesses), "mode": mode, "max_guesses": max_guesses,
                    "alternatives": k, "openers": done,
                    "book": None if book is None else Path(book.path).name,
                    "cpu_seconds": cpu_before + cpu_run, "solver_version": __version__,
                    "command": " ".join(["wordle-dp", *sys.argv[1:]]),
                    "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "written_on": f"{platform.machine()}, {os.cpu_count()} cores",
                    "ranks": size,
                }
                Moves.write(out, info, [rows[key] for key in sorted(rows)], k)
                if say is not None:
                    n = len(done) - n_done0
                    wall = time.perf_counter() - t0
                    left = len(todo) - n
                    eta = f", ETA {wall / n * left:.0f} s" if n else ""
                    what = f"{len(units)} classes valued again" if not these else (
                        f"{len(done)}/{len(done) + left} openers")
                    if cut:
                        kept = sum(len(part) for part, _c, _x in got)
                        say(f"moves: stopped in a batch; its {kept} classes valued so far "
                            f"are kept in {out.name}")
                    else:
                        say(f"moves: {what} ({len(rows)} classes) in {out.name}; {wall:.0f} s "
                            f"so far{eta}")
            if cut:
                break
    finally:
        signals.restore()
    if counter is not None:
        counter.free()
    if rank != 0:
        return None
    info["run_cpu_seconds"] = time.process_time() - c0
    finished = set(done)
    return info if all(lists.guess_index[w] in finished for w in words) else None
