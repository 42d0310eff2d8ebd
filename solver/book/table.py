"""The complete table of a problem: every opener's proven value, shipped beside the
book (`easy-6.table.npz` next to `easy-6.npz`) and read into it (`Book.read`).

A table comes from one run with no cutoff over every opener (`wordle-dp run --store
checkpoints/table-MODE-6.zarr`): each opener it has finished is exact or proven
infeasible, never a bound. `write_table` turns that store into the compact file,
finished or not: the file says how many of the guess list's openers it holds
(`info['valued']`, `info['complete']`), so a table still being computed ships what
it has proven so far.

File: a compressed numpy archive of the openers it holds (index, status, total,
depth, cpu), each exact opener's best second guess per first-feedback class (counts,
pattern, guess, class_total: rows grouped by opener in `index` order, as in a book)
and `info`, a JSON document with the problem and the provenance.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import StoreError, UsageError
from ..moves import read_archive
from ..store import EXACT, INFEASIBLE, Problem, Store
from ..variant import pattern_dtype

FORMAT = "wordle-dp-table/1"
_ARRAYS = ("index", "status", "total", "depth", "cpu", "counts", "pattern", "guess",
           "class_total")


def table_path(book: str | Path) -> Path:
    """The table file beside the book file `book`."""
    p = Path(book)
    return p.with_name(p.name.removesuffix(".npz") + ".table.npz")


@dataclass
class Table:
    """A loaded table: the openers it holds and their values (see the module doc)."""

    info: dict
    index: np.ndarray  # int64 [N]: the openers held, ascending
    status: np.ndarray  # uint8 [N]: EXACT or INFEASIBLE
    total: np.ndarray  # int64 [N]
    depth: np.ndarray  # int16 [N]
    cpu: np.ndarray  # float64 [N]
    starts: np.ndarray  # int64 [N + 1]: the class rows of index[k] are starts[k]:starts[k+1]
    pattern: np.ndarray
    guess: np.ndarray
    class_total: np.ndarray
    path: str

    @property
    def complete(self) -> bool:
        return bool(self.info.get("complete"))

    @classmethod
    def read(cls, path: str | Path, problem: Problem) -> Table:
        """Read the table file at `path` for `problem` (a book's); StoreError (one
        line) when it is damaged or for another problem."""
        path = Path(path)
        info, a = read_archive(path, _ARRAYS, FORMAT, "table")
        theirs = Problem(info["answers_sha256"], info["guesses_sha256"],
                         int(info["n_answers"]), int(info["n_guesses"]), info["mode"],
                         int(info["max_guesses"]), int(info.get("word_length", 5)))
        if theirs.differences(problem):
            raise StoreError(f"the table {path} is for another problem ("
                             + "; ".join(theirs.differences(problem)) + ")")
        idx = a["index"].astype(np.int64)
        n, rows = len(idx), len(a["pattern"])
        counts = a["counts"].astype(np.int64)
        if (any(len(a[k]) != n for k in ("status", "total", "depth", "cpu", "counts"))
                or any(len(a[k]) != rows for k in ("guess", "class_total"))
                or int(counts.sum()) != rows
                or (n and (idx.min() < 0 or idx.max() >= problem.n_guesses
                           or (np.diff(idx) <= 0).any()))
                or not np.isin(a["status"], (EXACT, INFEASIBLE)).all()
                or (counts[a["status"] != EXACT] != 0).any()):
            raise StoreError(f"{path}: the table's arrays are damaged")
        starts = np.concatenate([[0], np.cumsum(counts)])
        return cls(info, idx, a["status"].astype(np.uint8), a["total"].astype(np.int64),
                   a["depth"].astype(np.int16), a["cpu"].astype(np.float64), starts,
                   a["pattern"], a["guess"], a["class_total"], str(path))

    def position(self, opener: int) -> int | None:
        """Where opener (a guess-list index) is in the table, or None."""
        k = int(np.searchsorted(self.index, opener))
        return k if k < len(self.index) and self.index[k] == opener else None

    def classes(self, opener: int) -> list[tuple[int, int, int]]:
        """The (pattern, second guess, class total) rows of an exact opener (empty
        for one the table does not hold exactly)."""
        k = self.position(opener)
        if k is None:
            return []
        s, e = int(self.starts[k]), int(self.starts[k + 1])
        return list(zip(self.pattern[s:e].tolist(), self.guess[s:e].tolist(),
                        self.class_total[s:e].tolist(), strict=True))

    def describe(self) -> str:
        """One line: how much of the problem the table holds, and its cost."""
        i = self.info
        held = ("every opener" if self.complete
                else f"{i['valued']} of {i['n_guesses']} openers so far")
        return (f"table {Path(self.path).name}: {held}, each exact or proven infeasible "
                f"(one run with no cutoff; {i['cpu_seconds'] / 3600:.2f} CPU-h, written "
                f"{i['written_at'][:10]})")


def problem_info(prob: Problem) -> dict:
    """The problem as a book's or a table's `info` records it."""
    return {"answers_sha256": prob.answers_sha256, "guesses_sha256": prob.guesses_sha256,
            "n_answers": prob.n_answers, "n_guesses": prob.n_guesses, "mode": prob.mode,
            "max_guesses": prob.max_guesses, "word_length": prob.length}


def class_rows(store: Store, exact, mend: str) -> list[list[tuple[int, int, int]]]:
    """The (pattern, second guess, class total) rows of each exact opener of
    `exact`, from the store's class checkpoint; UsageError (saying `mend`) when an
    opener's class values are not all there."""
    from ..store import ClassStore

    classes = ClassStore(store.path, len(store.words), store.problem.n_patterns)
    out = []
    for i in exact:
        got = classes.results(int(i))
        if not got or any(r.status != EXACT for r in got.values()):
            raise UsageError(f"{store.path} lacks the class values of "
                             f"{store.words[int(i)]}: {mend}")
        out.append([(p, r.second, r.total) for p, r in sorted(got.items())])
    return out


def write_table(store: Store, out: str | Path, command: str) -> dict:
    """Write the table file of a table run's store to `out` (atomically): every
    opener it has valued, finished or not. The store must be a table's: no cutoff
    (a bound is not a table's value), every valued opener exact or infeasible, and
    each exact opener's class values in its class checkpoint (the run's workers
    keep them). Returns the file's info."""
    from .. import __version__

    if store.cutoff is not None:
        raise UsageError(f"{store.path} was run with a cutoff ({store.cutoff}): a table "
                         "holds every opener's exact value; run one with no cutoff")
    snap = store.snapshot()
    st = snap.status
    c = snap.counts()
    held = np.flatnonzero(np.isin(st, (EXACT, INFEASIBLE)))
    if c["failed"] or c.get("lower_bound") or c.get("upper_bound"):
        raise UsageError(f"{store.path} holds openers that are not exact or infeasible "
                         f"({c['failed']} failed, {c.get('lower_bound', 0)} lower bounds, "
                         f"{c.get('upper_bound', 0)} upper bounds): not a table's store")
    exact = held[st[held] == EXACT]
    per = dict(zip(exact.tolist(), class_rows(store, exact, "resume its run (it values "
                                              "them)"), strict=True))
    counts = [len(per.get(int(i), ())) for i in held]
    rows = [r for i in held for r in per.get(int(i), ())]
    prob = store.problem
    total, depth = snap.fields["total"], snap.fields["depth"]
    cpu = snap.fields["cpu_seconds"]
    runs = store.group.attrs.get("run", {}) or {}
    info = {
        "format": FORMAT, **problem_info(prob),
        "valued": int(len(held)), "exact": int((st[held] == EXACT).sum()),
        "complete": bool(len(held) == prob.n_guesses),
        "command": command, "solver_version": __version__, "store": str(store.path),
        "cpu_seconds": float(np.nansum(cpu[held])),
        "machines": runs.get("hosts") or ([runs["host"]] if runs.get("host") else []),
        "written_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    r = np.array(rows, dtype=np.int64).reshape(-1, 3)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    small = np.uint16 if prob.n_guesses < 2**16 else np.int32
    with open(tmp, "wb") as f:
        np.savez_compressed(
            f, info=np.array(json.dumps(info, sort_keys=True)),
            index=held.astype(small), status=st[held].astype(np.uint8),
            total=total[held].astype(np.int32), depth=depth[held].astype(np.int8),
            cpu=cpu[held].astype(np.float32), counts=np.array(counts, np.int32),
            pattern=r[:, 0].astype(pattern_dtype(prob.length)),
            guess=r[:, 1].astype(small), class_total=r[:, 2].astype(np.int32))
    tmp.replace(out)
    return info
