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
old books stay valid, and a moves file is filled class by class, the biggest
classes first (resumable, `build`), and usable while partial: a class it lacks is
searched as before.

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
from .feedback import to_text
from .progress import fmt_duration
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
    costs = [_cost(u) for u in units]
    order = sorted(range(len(units)), key=lambda i: (-costs[i], i))
    if counter is None:
        owner = _assign(costs, size)
        for i in order:
            if owner[i] == rank:
                yield units[i]
        return
    while (i := counter.draw()) < len(order):
        yield units[order[i]]


def _cost(unit: tuple[int, int, int]) -> float:
    """A class's predicted cost, for the deal and the ETA: its size to the power 1.5."""
    return float(unit[2]) ** 1.5


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


# ---- the classes valued so far, one file a rank ---------------------------------------
# Each rank appends every class it values to its own part file beside the moves file
# (`out.part-R`, a JSON line a class, flushed at once), and rank 0 merges the parts into
# the moves file when the ranks are done or stopped, and first thing on the next call
# (after a kill). So the ranks never wait for each other between classes, and a kill
# loses only the classes in flight.

def _part(out: Path, rank: int) -> Path:
    return out.with_name(f"{out.name}.part-{rank}")


def _parts(out: Path) -> list[Path]:
    return sorted(out.parent.glob(f"{out.name}.part-*"))


def _flight(out: Path, rank: int) -> Path:
    """Rank `rank`'s class in flight (`[opener, pattern, size, wall start]`): the
    progress line names the one that has run longest, as no model of a class's cost
    foresees its dearest classes."""
    return out.with_name(f"{out.name}.flight-{rank}")


def _mark(path: Path, value: list) -> None:
    """Write `value` to `path` whole (the reporter never reads half of it)."""
    tmp = path.with_name("." + path.name)  # (not matched by the readers' glob)
    tmp.write_text(json.dumps(value))
    os.replace(tmp, path)


def _in_flight(out: Path) -> list[tuple[int, int, int, float]]:
    """The classes in flight on every rank (a file being rewritten is skipped)."""
    found = []
    for path in out.parent.glob(f"{out.name}.flight-*"):
        try:
            g, p, c, t = json.loads(path.read_text())
            found.append((int(g), int(p), int(c), float(t)))
        except (OSError, ValueError, TypeError):
            continue
    return found


def _append(f, row: tuple, cpu: float) -> None:
    f.write(json.dumps([*row[:5], [list(a) for a in row[5]], row[6], list(row[7]),
                        round(cpu, 6)]) + "\n")
    f.flush()


def _read_parts(out: Path) -> tuple[list[tuple], float]:
    """The rows in the part files beside `out` and their CPU seconds (a line cut
    short by a kill is skipped: its class is valued again)."""
    rows, cpu = [], 0.0
    for path in _parts(out):
        for line in path.read_text().splitlines():
            try:
                v = json.loads(line)
                row = (*(int(x) for x in v[:5]), [(int(g), int(t)) for g, t in v[5]],
                       int(v[6]), [int(x) for x in v[7]])
            except (ValueError, TypeError, IndexError):
                continue
            rows.append(row)
            cpu += float(v[8])
    return rows, cpu


def build(lists, mode: Mode, max_guesses: int, openers: list[str], out: str | Path,
          book=None, k: int = ALTERNATIVES, time_limit: float | None = None,
          say=None, comm=None, cache_dir: str | None = None,
          say_every: float = 60.0) -> dict | None:
    """Compute the moves of `openers` into the moves file `out`, resuming it: openers
    already complete there are skipped, and so are the classes it has. `book` (a Book
    for the same problem, read without its moves): its stored second guesses are the
    ones kept, as `next` keeps them. The classes of every opener left form one queue,
    dearest first (the biggest classes, the feedback players get most, come first):
    under MPI (`comm`) every rank calls this and values the next class as it finishes
    one, with no barrier until the queue is empty, so no rank waits on another's
    long class. When `time_limit` seconds have passed, every rank stops after its
    class in flight; on SIGTERM or SIGUSR1 (Slurm's and mpiexec's stop) it stops at
    once, within a class (whose value is lost: the kill would follow). The classes
    valued are kept (part files, above), and the same call values the rest.
    `say(line)`: progress with an ETA every `say_every` seconds, and the outcome
    (rank 0). Returns the file's info on rank 0 when every opener is done, else None."""
    from .game.position import Position
    from .run.mpi import NodeCounter, Signals, pause_for_test, quiet_barrier, signals_reach
    from .search import Solver
    from .search.engine import Stopped
    from .table import get_table
    from .variant import Variant

    rank = comm.Get_rank() if comm is not None else 0
    size = comm.Get_size() if comm is not None else 1
    t0 = time.perf_counter()
    words = [w.strip().lower() for w in openers]
    for w in words:
        if w not in lists.guess_index:
            raise UsageError(f"opener {w!r} is not in the guess list")
    words = list(dict.fromkeys(words))
    out = Path(out)
    variant = Variant.of(lists, mode, max_guesses)
    table, _ = get_table(lists, "numpy", cache_dir)
    solver = Solver(lists, variant, table=table)
    start = Position.start(lists, mode, max_guesses)

    def classes(g: int) -> tuple[np.ndarray, np.ndarray]:  # g's patterns and sizes
        pats, counts = np.unique(table[g, start.members], return_counts=True)
        keep = pats != variant.all_green
        return pats[keep], counts[keep]

    def complete(rows: dict, g: int) -> bool:  # every class of opener g is in rows
        return all((g, int(p)) in rows for p in classes(g)[0])

    def merge(rows: dict, info: dict, new: list[tuple], cpu: float) -> dict:
        """Rank 0: `new` into the file (an opener is done once all its classes are
        in), the part files removed; the file's info."""
        from . import __version__

        for r in new:
            rows[(r[0], r[1])] = r
        done = [int(g) for g in info.get("openers", [])]
        # in the command's order (then any other opener the rows complete)
        for g in dict.fromkeys([*(lists.guess_index[w] for w in words), *(o for o, _p in rows)]):
            if g not in done and complete(rows, g):
                done.append(g)
        info = {
            "format": FORMAT, "answers_sha256": lists.answers_sha256,
            "guesses_sha256": lists.guesses_sha256, "n_answers": len(lists.answers),
            "n_guesses": len(lists.guesses), "mode": mode, "max_guesses": max_guesses,
            "alternatives": k, "openers": done,
            "book": None if book is None else Path(book.path).name,
            "cpu_seconds": float(info.get("cpu_seconds", 0.0)) + cpu,
            "solver_version": __version__,
            "command": " ".join(["wordle-dp", *sys.argv[1:]]),
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "written_on": f"{platform.machine()}, {os.cpu_count()} cores",
            "ranks": size,
        }
        Moves.write(out, info, [rows[key] for key in sorted(rows)], k)
        for path in _parts(out):
            path.unlink()
        return info

    rows, info = _load(out, lists, mode, max_guesses, k)
    left, cpu_left = _read_parts(out)  # what a killed run valued
    quiet_barrier(comm)  # every rank has read them before rank 0 merges them
    if left:
        if rank == 0:
            info = merge(rows, info, left, cpu_left)
            if say is not None:
                say(f"moves: {len(left)} classes valued by a run that ended without "
                    f"writing them, merged into {out.name}")
        else:
            for r in left:
                rows[(r[0], r[1])] = r
    if rank == 0:  # a killed run's marks of its classes in flight (not flying now)
        for path in out.parent.glob(f"{out.name}.flight-*"):
            path.unlink(missing_ok=True)
    quiet_barrier(comm)  # merged before any rank starts a part file again
    # (the same on every rank: the units are drawn by their place in one list)
    done = {int(g) for g in info.get("openers", [])} | {
        g for g in {o for o, _p in rows} if complete(rows, g)}
    # valued again first: classes whose best guess is among their alternatives
    # (written before the alternatives left out the tie-broken best: analysis.py),
    # and classes with no move that were written before the best chance (wins -1)
    units = [(o, p, int((table[o, start.members] == p).sum())) for (o, p), r in rows.items()
             if (r[2] >= 0 and r[2] in [g for g, _ in r[5]]) or (r[2] < 0 and r[6] < 0)]
    again = len(units)
    for w in words:
        g = lists.guess_index[w]
        if g not in done:
            units += [(g, int(p), int(c)) for p, c in zip(*classes(g), strict=True)
                      if (g, int(p)) not in rows]
    counter = NodeCounter.on_node(comm) if comm is not None and size > 1 else None
    signals = Signals().install()  # a stop signal sets a flag; it never kills a rank
    length = lists.length

    def name(g: int, p: int) -> str:  # as a position is written: opener:PATTERN
        return f"{lists.guesses[g]}:{to_text(p, length)}"

    reporter = _Reporter(out, units, say, say_every, name) if rank == 0 and say else None
    flight = _flight(out, rank)

    def stopping() -> bool:  # a stop signal, or the time limit passed
        return signals.received is not None or (
            time_limit is not None and time.perf_counter() - t0 > time_limit)

    mine = 0
    try:
        # a stop signal also cuts the class in flight short (signals_reach): the
        # scheduler's kill follows soon, and that class is lost either way
        with open(_part(out, rank), "a") as f, signals_reach(solver.request_stop):
            for g, p, c in _mine(units, rank, size, counter):
                if stopping():
                    if counter is not None:
                        counter.close(len(units))  # the other ranks draw no more
                    break
                _mark(flight, [g, p, c, time.time()])
                c1 = time.process_time()
                pos = start.play(lists.guesses[g], p)
                try:
                    move = class_move(solver, pos, k, book)
                except Stopped:
                    if counter is not None:
                        counter.close(len(units))
                    break
                _append(f, (g, p, *move), time.process_time() - c1)
                mine += 1
                if mine == 1:  # every rank, a class valued: a test may stop it here
                    pause_for_test("moves")
    finally:
        signals.restore()
        flight.unlink(missing_ok=True)
        if reporter is not None:
            reporter.stop()
    if counter is not None:
        counter.free()
    quiet_barrier(comm)  # every rank's classes are in its part file
    if rank != 0:
        return None
    new, cpu = _read_parts(out)
    if new or done - set(info.get("openers", [])):  # (rows that complete an unlisted opener)
        info = merge(rows, info, new, cpu)
    for path in _parts(out):  # (empty ones, when nothing was merged)
        path.unlink()
    finished = {int(g) for g in info.get("openers", [])}
    n_done = sum(lists.guess_index[w] in finished for w in words)
    if say is not None:
        what = f"{again} classes valued again, " if again else ""
        end = "" if n_done == len(words) else (
            f"; stopped, the {len(new)} classes valued kept")
        say(f"moves: {what}{n_done}/{len(words)} openers ({len(rows)} classes) in "
            f"{out.name}; {time.perf_counter() - t0:.0f} s{end}")
    return info if n_done == len(words) else None


def _load(out: Path, lists, mode: Mode, max_guesses: int, k: int) -> tuple[dict, dict]:
    """The rows of the moves file `out` by (opener, pattern), and its info (empty
    when there is no file)."""
    rows: dict[tuple[int, int], tuple] = {}
    if not out.exists():
        return rows, {}
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
    return rows, old.info


class _Reporter:
    """Rank 0's progress line while the ranks value classes: every `every` seconds,
    from a thread (rank 0 may be inside a class for an hour), the classes in the part
    files and the share of the predicted work they hold, with an ETA by that share,
    and the class that has been in flight longest (`name(opener, pattern)`), with its
    size and time: the model (size^1.5) cannot tell which classes are dear, so while
    one runs long the ETA only grows, and the line says why."""

    def __init__(self, out: Path, units: list, say, every: float, name):
        import threading

        self.out, self.say, self.every, self.name = out, say, every, name
        self.cost = {(g, p): _cost((g, p, c)) for g, p, c in units}
        self.total = sum(self.cost.values()) or 1.0
        self.t0 = time.perf_counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            rows, _cpu = _read_parts(self.out)
            work = sum(self.cost.get((r[0], r[1]), 0.0) for r in rows) / self.total
            el = time.perf_counter() - self.t0
            eta = (f", ETA about {fmt_duration(el * (1 - work) / work)}" if work > 0.01
                   else "")
            self.say(f"moves: {len(rows)}/{len(self.cost)} classes (about {100 * work:.0f} % "
                     f"of the work), {fmt_duration(el)} so far{eta}{self.longest()}")

    def longest(self) -> str:
        """'; in flight longest: OPENER:PATTERN (N candidates, T)', T of wall (as
        42s, 3m07s or 2h05m), or ''."""
        flying = _in_flight(self.out)
        if not flying:
            return ""
        g, p, c, t = min(flying, key=lambda f: f[3])
        return (f"; in flight longest: {self.name(g, p)} ({c} candidates, "
                f"{fmt_duration(max(0.0, time.time() - t))})")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
