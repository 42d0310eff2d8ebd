"""The result store: one Zarr 3 group holding the value of every opener.

Layout (every per-opener array is indexed by the guess index of the opener in the
problem's guess list)::

    status        uint8   [G]       0 pending, 1 exact, 2 infeasible, 3 lower_bound,
                                    4 upper_bound, 5 failed
    total         int64   [G]       total guesses over all answers (-1: none)
    depth         int16   [G]       worst-case number of guesses (-1: none)
    cpu_seconds   float64 [G]       CPU time of the solve on its rank
    wall_seconds  float64 [G]       wall time of the solve
    nodes         int64   [G]       search nodes reported by the engine
    rank          int32   [G]       MPI rank that solved it (-1: none)
    finished_at   float64 [G]       unix time the result reached rank 0 (NaN: none)
    selected      uint8   [G]       1 if some run was asked to value this opener
    second        int32   [G, 243] best second guess (guess index) per feedback
                                    pattern of the opener (-1: none / not known)
    words         uint8   [G, 5]    the guess list itself (letters 0..25), so the
                                    store can be read without the list files
    answer_ids    int32   [A]       guess index of each answer

Attributes: format, answers_sha256, guesses_sha256, n_answers, n_guesses, mode,
max_guesses, cutoff, solver_version, created_at, and 'run' (progress of the last
run, rewritten on every flush).

Crash safety. There is exactly one writer (rank 0 of a run). Results are buffered
and written in batches; within a batch every other array is written first and the
`status` array last. Zarr's LocalStore writes each chunk to a temporary file and
renames it, so a chunk file is always either the old or the new version. Hence,
after a kill -9 at any moment, an opener whose status is not pending has all of
its fields written. Readers must read `status` first (see `Snapshot`).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import StoreError

FORMAT = "wordle-dp-store/1"
N_PATTERNS = 243

PENDING, EXACT, INFEASIBLE, LOWER_BOUND, UPPER_BOUND, FAILED = range(6)
STATUS_NAMES = ("pending", "exact", "infeasible", "lower_bound", "upper_bound", "failed")
STATUS_CODES = {name: code for code, name in enumerate(STATUS_NAMES)}

# name -> (dtype, fill value); all 1-D over guesses
_FIELDS: dict[str, tuple[str, object]] = {
    "total": ("int64", -1),
    "depth": ("int16", -1),
    "cpu_seconds": ("float64", float("nan")),
    "wall_seconds": ("float64", float("nan")),
    "nodes": ("int64", -1),
    "rank": ("int32", -1),
    "finished_at": ("float64", float("nan")),
}
_SECOND_ROWS = 1024  # rows of the [G, 243] array per chunk file (~1 MB raw, compresses
# to a few kB): the writer rewrites whole chunks from its in-memory copy, so a batch
# costs at most n_guesses / 1024 small file writes and no reads


@dataclass(frozen=True)
class Problem:
    """What a store's numbers mean: two lists, the rules and the guess cap."""

    answers_sha256: str
    guesses_sha256: str
    n_answers: int
    n_guesses: int
    mode: str
    max_guesses: int

    @classmethod
    def from_lists(cls, lists, mode: str, max_guesses: int) -> Problem:
        return cls(
            lists.answers_sha256, lists.guesses_sha256, len(lists.answers),
            len(lists.guesses), mode, int(max_guesses),
        )

    def differences(self, other: Problem) -> list[str]:
        """What differs, phrased as 'what (store: self, requested: other)'."""
        out = []

        def lst(n, sha):
            return f"{n} words, sha256 {sha[:12]}"

        if self.answers_sha256 != other.answers_sha256 or self.n_answers != other.n_answers:
            out.append(f"answer list (store: {lst(self.n_answers, self.answers_sha256)}; "
                       f"requested: {lst(other.n_answers, other.answers_sha256)})")
        if self.guesses_sha256 != other.guesses_sha256 or self.n_guesses != other.n_guesses:
            out.append(f"guess list (store: {lst(self.n_guesses, self.guesses_sha256)}; "
                       f"requested: {lst(other.n_guesses, other.guesses_sha256)})")
        if self.mode != other.mode:
            out.append(f"mode (store: {self.mode}, requested: {other.mode})")
        if self.max_guesses != other.max_guesses:
            out.append(f"max_guesses (store: {self.max_guesses}, requested: "
                       f"{other.max_guesses})")
        return out


@dataclass
class Record:
    """One finished opener, as buffered by the writer."""

    index: int
    status: int
    total: int = -1
    depth: int = -1
    cpu_seconds: float = float("nan")
    wall_seconds: float = float("nan")
    nodes: int = -1
    rank: int = -1
    finished_at: float = float("nan")
    second: np.ndarray | None = None  # int32 [243] or None


def _zarr():
    import zarr

    return zarr


def decode_words(codes: np.ndarray) -> list[str]:
    letters = (np.asarray(codes, dtype=np.uint8) + ord("a")).astype(np.uint8)
    return [bytes(row).decode("ascii") for row in letters]


class Store:
    """A result store opened for writing (one writer) or reading."""

    def __init__(self, group, path: Path, read_only: bool):
        self.group = group
        self.path = path
        self.read_only = read_only
        a = group.attrs
        if a.get("format") != FORMAT:
            raise StoreError(f"{path} is not a wordle-dp result store")
        self.problem = Problem(
            a["answers_sha256"], a["guesses_sha256"], int(a["n_answers"]),
            int(a["n_guesses"]), a["mode"], int(a["max_guesses"]),
        )
        self.cutoff = a.get("cutoff")
        self.solver_version = a.get("solver_version")
        self._words: list[str] | None = None
        self._index: dict[str, int] | None = None
        self.flushes = 0
        self.flush_seconds = 0.0
        self.flushed_records = 0
        self._mirror: dict[str, np.ndarray] | None = None  # the writer's copy

    # ---- opening -------------------------------------------------------------------

    @classmethod
    def create(cls, path, lists, mode: str, max_guesses: int, cutoff=None,
               solver_version: str | None = None) -> Store:
        """Create a new empty store for a problem (every opener pending)."""
        zarr = _zarr()
        path = Path(path)
        g_n, a_n = len(lists.guesses), len(lists.answers)
        from .words import encode_words

        group = zarr.open_group(str(path), mode="w-", zarr_format=3)
        group.create_array("status", shape=(g_n,), chunks=(g_n,), dtype="uint8", fill_value=0)
        group.create_array("selected", shape=(g_n,), chunks=(g_n,), dtype="uint8",
                           fill_value=0)
        for name, (dtype, fill) in _FIELDS.items():
            group.create_array(name, shape=(g_n,), chunks=(g_n,), dtype=dtype, fill_value=fill)
        group.create_array("second", shape=(g_n, N_PATTERNS), chunks=(_SECOND_ROWS, N_PATTERNS),
                           dtype="int32", fill_value=-1)
        w = group.create_array("words", shape=(g_n, 5), chunks=(g_n, 5), dtype="uint8")
        w[...] = encode_words(lists.guesses)
        aid = group.create_array("answer_ids", shape=(a_n,), chunks=(a_n,), dtype="int32")
        aid[...] = lists.answer_guess_ids
        prob = Problem.from_lists(lists, mode, max_guesses)
        attrs = {
            "format": FORMAT,
            "answers_sha256": prob.answers_sha256,
            "guesses_sha256": prob.guesses_sha256,
            "n_answers": prob.n_answers,
            "n_guesses": prob.n_guesses,
            "mode": prob.mode,
            "max_guesses": prob.max_guesses,
            "cutoff": cutoff,
            "solver_version": solver_version,
            "created_at": time.time(),
            "answers_source": str(lists.answers_source),
            "guesses_source": str(lists.guesses_source),
            "run": {},
        }
        group.attrs.update(attrs)  # last: a store without 'format' is not a store
        return cls(group, path, read_only=False)

    @classmethod
    def open(cls, path, read_only: bool = True) -> Store:
        zarr = _zarr()
        path = Path(path)
        if not path.exists():
            raise StoreError(f"no result store at {path}")
        try:
            group = zarr.open_group(str(path), mode="r" if read_only else "r+", zarr_format=3)
        except Exception as exc:  # FileNotFoundError, GroupNotFoundError, bad json...
            raise StoreError(f"cannot open result store {path}: {exc}") from None
        return cls(group, path, read_only)

    @classmethod
    def open_or_create(cls, path, lists, mode: str, max_guesses: int, cutoff=None,
                       solver_version: str | None = None) -> tuple[Store, bool]:
        """Open an existing store after checking it is for this problem, else create.

        Returns (store, created). A store for another problem definition raises a
        one-line user error.
        """
        path = Path(path)
        if path.exists() and (path / "zarr.json").exists():
            st = cls.open(path, read_only=False)
            st.check_problem(Problem.from_lists(lists, mode, max_guesses))
            st.lock()
            if st.words != list(lists.guesses):
                raise StoreError(f"{path} holds another guess list")
            if cutoff is not None and st.cutoff is not None and float(cutoff) != float(
                st.cutoff
            ):
                raise StoreError(
                    f"{path} was made with --cutoff {st.cutoff}, not {cutoff}: its lower "
                    "bounds would mean something else; use another store"
                )
            if cutoff is not None and st.cutoff is None and st.count_status()[LOWER_BOUND]:
                raise StoreError(f"{path} was made without --cutoff")
            if cutoff is not None and st.cutoff is None:
                st.group.attrs["cutoff"] = cutoff
                st.cutoff = cutoff
            return st, False
        if path.exists() and any(path.iterdir()):
            raise StoreError(f"{path} exists and is not a wordle-dp result store")
        st = cls.create(path, lists, mode, max_guesses, cutoff, solver_version)
        st.lock()
        return st, True

    def lock(self) -> None:
        """Claim the store for this process: a second writer is refused.

        An flock on <store>/writer.lock, held until the process ends (a kill -9
        releases it too). Works on local file systems; on network file systems
        without flock it is a no-op, so start only one run per store there.
        """
        import fcntl

        f = open(self.path / "writer.lock", "a+")
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            who = f.read().strip() or "another process"
            f.close()
            raise StoreError(f"{self.path} is being written by {who}; only one run "
                               "may write a store at a time") from None
        except OSError:  # no flock here (some network file systems)
            return
        f.seek(0)
        f.truncate()
        f.write(f"pid {os.getpid()} on {os.uname().nodename}\n")
        f.flush()
        self._lock_file = f  # keep it open (and locked) while the store is in use

    def unlock(self) -> None:
        f = getattr(self, "_lock_file", None)
        if f is not None:
            f.close()
            self._lock_file = None

    def check_problem(self, prob: Problem) -> None:
        diff = self.problem.differences(prob)
        if diff:
            raise StoreError(
                f"{self.path} holds results for another problem: different "
                + "; ".join(diff) + " (use another --store, or the same lists/--mode/"
                "--max-guesses as the run that made it)"
            )

    # ---- reading -------------------------------------------------------------------

    @property
    def words(self) -> list[str]:
        if self._words is None:
            self._words = decode_words(self.group["words"][...])
        return self._words

    def index_of(self, word: str) -> int:
        if self._index is None:
            self._index = {w: i for i, w in enumerate(self.words)}
        w = word.strip().lower()
        if w not in self._index:
            raise StoreError(f"{word!r} is not in the store's guess list")
        return self._index[w]

    @property
    def answers(self) -> list[str]:
        ids = self.group["answer_ids"][...]
        words = self.words
        return [words[i] for i in ids]

    def status(self) -> np.ndarray:
        return np.asarray(self.group["status"][...])

    def count_status(self) -> np.ndarray:
        return np.bincount(self.status(), minlength=len(STATUS_NAMES))

    def snapshot(self) -> Snapshot:
        """All per-opener fields, consistent with `status` (status is read first)."""
        status = self.status()
        fields = {name: np.asarray(self.group[name][...]) for name in _FIELDS}
        selected = np.asarray(self.group["selected"][...])
        return Snapshot(self, status, fields, selected, dict(self.group.attrs.get("run", {})))

    def second_guesses(self, index: int) -> dict[int, str]:
        """Best second guess per feedback pattern of one opener (pattern code -> word)."""
        row = np.asarray(self.group["second"][index])
        words = self.words
        return {int(p): words[int(g)] for p, g in enumerate(row) if g >= 0}

    # ---- writing -------------------------------------------------------------------

    def mark_selected(self, indices) -> None:
        sel = np.asarray(self.group["selected"][...])
        sel[np.asarray(list(indices), dtype=np.int64)] = 1
        self.group["selected"][...] = sel

    def set_attrs(self, **kw) -> None:
        self.group.attrs.update(kw)

    def _load_mirror(self) -> dict[str, np.ndarray]:
        if self._mirror is None:
            names = ("status", *_FIELDS, "second")
            self._mirror = {n: np.array(self.group[n][...]) for n in names}
        return self._mirror

    def write(self, records: list[Record], run_info: dict | None = None) -> float:
        """Write a batch of finished openers; `status` last. Returns the seconds taken.

        The writer keeps a copy of every array in memory (the store has one writer),
        so a batch is pure writes: each 1-D array in one chunk, and the touched
        row-blocks of `second`.
        """
        if self.read_only:
            raise RuntimeError("store opened read-only")
        if not records:
            return 0.0
        t0 = time.perf_counter()
        m = self._load_mirror()
        idx = np.array([r.index for r in records], dtype=np.int64)
        for name, (dtype, _fill) in _FIELDS.items():
            m[name][idx] = np.array([getattr(r, name) for r in records], dtype=dtype)
            self.group[name][...] = m[name]
        sec = m["second"]
        for r in records:
            sec[r.index] = -1 if r.second is None else r.second
        arr = self.group["second"]
        for c in np.unique(idx // _SECOND_ROWS):
            lo, hi = int(c) * _SECOND_ROWS, min((int(c) + 1) * _SECOND_ROWS, len(sec))
            arr[lo:hi] = sec[lo:hi]
        m["status"][idx] = np.array([r.status for r in records], dtype=np.uint8)
        self.group["status"][...] = m["status"]  # LAST: makes the batch visible
        if run_info is not None:
            self.group.attrs["run"] = run_info
        dt = time.perf_counter() - t0
        self.flushes += 1
        self.flush_seconds += dt
        self.flushed_records += len(records)
        return dt


@dataclass
class Snapshot:
    """A consistent read of a store: every non-pending opener has valid fields."""

    store: Store
    status: np.ndarray
    fields: dict[str, np.ndarray]
    selected: np.ndarray
    run: dict

    @property
    def n_answers(self) -> int:
        return self.store.problem.n_answers

    def finished_mask(self) -> np.ndarray:
        return (self.status != PENDING) & (self.status != FAILED)

    def counts(self) -> dict[str, int]:
        c = np.bincount(self.status, minlength=len(STATUS_NAMES))
        return {name: int(c[i]) for i, name in enumerate(STATUS_NAMES)}

    def progress(self) -> dict:
        counts = self.counts()
        selected = int(self.selected.sum())
        done = int(((self.status != PENDING) & (self.selected == 1)).sum())
        best = self.best(1)
        return {
            "store": str(self.store.path),
            "openers": len(self.status),
            "selected": selected,
            "done": done,
            "remaining": selected - done,
            "counts": counts,
            "best": best[0] if best else None,
            "run": self.run,
        }

    def ranks(self) -> np.ndarray:
        """Competition rank (1 = best) of each exact/upper-bound opener by total; 0 else.

        Rank r means r-1 finished openers have a strictly smaller total; ties share a
        rank. Lower bounds (cut off by --cutoff) and infeasible openers get no rank.
        """
        total = self.fields["total"]
        ok = (self.status == EXACT) | (self.status == UPPER_BOUND)
        out = np.zeros(len(total), dtype=np.int64)
        vals = np.sort(total[ok])
        out[ok] = np.searchsorted(vals, total[ok], side="left") + 1
        return out

    def row(self, i: int, ranks: np.ndarray | None = None) -> dict:
        st = int(self.status[i])
        f = self.fields
        total = int(f["total"][i]) if st not in (PENDING, FAILED, INFEASIBLE) else None
        if total is not None and total < 0:
            total = None
        done = st != PENDING

        def num(name, cast):
            v = f[name][i]
            if not done or (isinstance(v, float | np.floating) and np.isnan(v)) or v == -1:
                return None
            return cast(v)

        r = int(ranks[i]) if ranks is not None and ranks[i] > 0 else None
        return {
            "opener": self.store.words[i],
            "index": int(i),
            "status": STATUS_NAMES[st],
            "total": total,
            "average": None if total is None else round(total / self.n_answers, 6),
            "rank": r,
            "depth": num("depth", int),
            "cpu_seconds": None if num("cpu_seconds", float) is None
            else round(float(f["cpu_seconds"][i]), 4),
            "wall_seconds": None if num("wall_seconds", float) is None
            else round(float(f["wall_seconds"][i]), 4),
            "nodes": num("nodes", int),
            "mpi_rank": num("rank", int),
            "finished_at": None if num("finished_at", float) is None
            else round(float(f["finished_at"][i]), 3),
        }

    def order(self) -> np.ndarray:
        """Indices of exact/upper-bound openers, best (smallest total) first."""
        total = self.fields["total"]
        ok = np.flatnonzero((self.status == EXACT) | (self.status == UPPER_BOUND))
        return ok[np.lexsort((ok, total[ok]))]

    def best(self, k: int) -> list[dict]:
        ranks = self.ranks()
        return [self.row(int(i), ranks) for i in self.order()[:k]]


FIELDS = tuple(_FIELDS)
ROW_KEYS = ("opener", "index", "status", "total", "average", "rank", "depth", "cpu_seconds",
            "wall_seconds", "nodes", "mpi_rank", "finished_at")


def describe_progress(p: dict) -> str:
    c = p["counts"]
    parts = [f"{p['done']}/{p['selected']} selected openers done"
             f" ({p['openers']} in the guess list)"]
    extra = [f"{c[n]} {n}" for n in STATUS_NAMES[1:] if c[n]]
    if extra:
        parts.append(", ".join(extra))
    if p["best"]:
        b = p["best"]
        parts.append(f"best {b['opener']} {b['total']} ({b['average']:.4f} avg)")
    run = p.get("run") or {}
    if run.get("state"):
        when = run.get("updated_at")
        age = f", updated {time.time() - when:.0f} s ago" if when else ""
        parts.append(f"run {run['state']}{age}")
    return "; ".join(parts)


def merge(out_path, in_paths, quiet: bool = False) -> dict:
    """Merge stores of the same problem into `out_path` (created from the first one).

    An opener takes the first finished result found (exact/infeasible/bounds before
    failed); pending ones stay pending. Returns counts.
    """
    ins = [Store.open(p, read_only=True) for p in in_paths]
    if not ins:
        raise StoreError("merge needs at least one input store")
    first = ins[0]
    for s in ins[1:]:
        first.check_problem(s.problem)
        if s.words != first.words:
            raise StoreError(f"{s.path} holds another guess list")
    out_path = Path(out_path)
    from .words import WordLists

    lists = WordLists(first.answers, first.words, first.group.attrs.get("answers_source", ""),
                      first.group.attrs.get("guesses_source", ""))
    cutoffs = {s.cutoff for s in ins}
    if len(cutoffs) > 1:
        raise StoreError(f"input stores have different cutoffs: {sorted(map(str, cutoffs))}")
    out, _ = Store.open_or_create(out_path, lists, first.problem.mode,
                                  first.problem.max_guesses, first.cutoff,
                                  first.solver_version)
    cur = out.snapshot()
    status = cur.status.copy()
    records: list[Record] = []
    taken: set[int] = set()
    selected = cur.selected.copy()
    for s in ins:
        snap = s.snapshot()
        selected |= snap.selected
        good = (snap.status != PENDING) & (snap.status != FAILED)
        want = good & ((status == PENDING) | (status == FAILED))
        want |= (snap.status == FAILED) & (status == PENDING)
        idx = np.flatnonzero(want)
        if len(idx):
            second = np.asarray(s.group["second"].get_orthogonal_selection(
                (idx, slice(None))))
        for k, i in enumerate(idx):
            rec = Record(int(i), int(snap.status[i]),
                         **{n: snap.fields[n][i].item() for n in _FIELDS},
                         second=second[k])
            records.append(rec)
            status[i] = snap.status[i]
            taken.add(int(i))
    out.group["selected"][...] = selected
    for start in range(0, len(records), 4096):
        out.write(records[start:start + 4096])
    out.set_attrs(run={"state": "merged", "updated_at": time.time(),
                       "inputs": [str(p) for p in in_paths]})
    return {"inputs": len(ins), "copied": len(taken), "counts": out.snapshot().counts()}


def dumps_row(row: dict) -> str:
    return json.dumps(row)
