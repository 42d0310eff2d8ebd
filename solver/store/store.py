"""The Store: a result store opened for writing (one writer, under a lock) or for
reading. Creating one, opening one (validated first: damage.inspect), bringing an
older layout up to date in place, reading it, and writing a batch of finished
openers with `status` last (the crash safety of the package docstring)."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import numpy as np

from ..errors import Param, StoreError, one_line, quote
from ..variant import Mode, Variant
from .damage import check_folder, damage_message, inspect
from .layout import (
    _MIRROR_MAX,
    ATTRS,
    DIMS,
    EVERY_CHUNK,
    FAILED,
    FORMAT,
    LIST_ARRAYS,
    LOWER_BOUND,
    PENDING,
    STATUS_NAMES,
    XARRAY_ARRAYS,
    Problem,
    Record,
    averages,
    decode_words,
    fields_of,
    layout,
    zarr_module,
)
from .snapshot import Snapshot


def _add_xarray_arrays(group, words: list[str], status: np.ndarray, total: np.ndarray,
                       n_answers: int, length: int, wins: np.ndarray | None = None) -> None:
    """The opener and pattern coordinates and the average array (every chunk)."""
    from ..feedback import to_text

    g_n, n_p = len(words), 3**length
    made = []
    for name, shape, dtype, fill in (("opener", g_n, str, ""), ("pattern", n_p, str, ""),
                                     ("average", g_n, "float64", float("nan"))):
        if name not in group:
            made.append(name)
            group.create_array(name, shape=(shape,), chunks=(shape,), dtype=dtype,
                               fill_value=fill, dimension_names=DIMS[name],
                               attributes=ATTRS.get(name))
    if "opener" in made:
        group["opener"][...] = np.array(words, dtype=object)
    if "pattern" in made:
        group["pattern"][...] = np.array([to_text(c, length) for c in range(n_p)], dtype=object)
    if "average" in made:
        group["average"][...] = averages(status, total, n_answers, wins)


def _name_dimensions(path: Path, name: str) -> bool:
    """Add dimension_names (and the attributes) to an array's zarr.json written
    without them; atomically, like every metadata write. True when it changed."""
    meta = path / name / "zarr.json"
    doc = json.loads(meta.read_text())
    if doc.get("dimension_names"):
        return False
    doc["dimension_names"] = list(DIMS[name])
    doc["attributes"] = {**ATTRS.get(name, {}), **(doc.get("attributes") or {})}
    tmp = meta.with_name(f".zarr.json.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=2))
    os.replace(tmp, meta)
    return True


def _given(lists, mode: Mode | Variant, max_guesses: int | None,
           objective: str | None) -> tuple[Mode, int, str]:
    """(mode, cap, objective) of the problem a store is made for: a Variant, or a mode
    with a cap and an objective (Variant.given checks either)."""
    v = Variant.given(lists, mode, max_guesses,
                      **({} if objective is None else {"objective": objective}))
    return v.mode, v.max_guesses, v.objective


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
            int(a["n_guesses"]), a["mode"], int(a["max_guesses"]), int(a.get("word_length", 5)),
            a.get("objective", "expected"),
        )
        self.cutoff = a.get("cutoff")
        self.solver_version = a.get("solver_version")
        self._words: list[str] | None = None
        self._index: dict[str, int] | None = None
        self.flushes = 0
        self.flush_seconds = 0.0
        self.flushed_records = 0
        self._mirror: dict[str, np.ndarray] | None = None  # the writer's copy
        self._lock_fd: int | None = None  # the store folder, flock-ed while writing
        self._average: bool | None = None  # whether the store has the average array

    # ---- opening -------------------------------------------------------------------

    @classmethod
    def create(cls, path, lists, mode: Mode | Variant, max_guesses: int | None = None,
               cutoff=None, solver_version: str | None = None,
               objective: str | None = None) -> Store:
        """Create a new empty store for a problem (every opener pending): `lists` and a
        Variant (its mode, cap and objective), or a mode, a cap and an objective.

        It is built in a temporary folder beside `path` and renamed into place when
        complete, so a kill during creation never leaves half a store at `path`.
        """
        mode, max_guesses, objective = _given(lists, mode, max_guesses, objective)
        zarr = zarr_module()
        path = Path(path)
        if path.exists() and any(path.iterdir()):
            raise StoreError(f"{path} exists and is not empty")
        g_n, a_n = len(lists.guesses), len(lists.answers)
        from ..words import encode_words

        final = path
        path = path.parent / f".{path.name}.creating-{os.getpid()}"
        shutil.rmtree(path, ignore_errors=True)
        try:
            group = cls._build(zarr, path, lists, mode, max_guesses, cutoff, solver_version,
                               g_n, a_n, encode_words, objective)
            os.replace(path, final)  # a folder may replace an empty folder
        except BaseException:
            shutil.rmtree(path, ignore_errors=True)
            raise
        group = zarr.open_group(str(final), mode="r+", zarr_format=3)
        return cls(group, final, read_only=False)

    @staticmethod
    def _build(zarr, path, lists, mode, max_guesses, cutoff, solver_version, g_n, a_n,
               encode_words, objective="expected"):
        group = zarr.open_group(str(path), mode="w-", zarr_format=3)
        spec = layout(g_n, a_n, lists.length, objective)
        for name, (shape, chunks, dtype, fill) in spec.items():
            group.create_array(name, shape=shape, chunks=chunks, dtype=dtype, fill_value=fill,
                               dimension_names=DIMS[name], attributes=ATTRS.get(name))
        group["words"][...] = encode_words(lists.guesses)
        group["answer_ids"][...] = lists.answer_guess_ids
        for name, (_shape, _chunks, dtype, fill) in spec.items():
            if name not in LIST_ARRAYS:  # every chunk on disk from the start
                group[name][...] = np.full(group[name].shape, fill, dtype=dtype)
        _add_xarray_arrays(group, list(lists.guesses), np.zeros(g_n, np.uint8),
                           np.full(g_n, -1, np.int64), a_n, lists.length)
        prob = Problem.from_lists(lists, mode, max_guesses, objective)
        attrs = {
            "format": FORMAT,
            "answers_sha256": prob.answers_sha256,
            "guesses_sha256": prob.guesses_sha256,
            "n_answers": prob.n_answers,
            "n_guesses": prob.n_guesses,
            "mode": prob.mode,
            "max_guesses": prob.max_guesses,
            "word_length": prob.length,
            "objective": prob.objective,
            "cutoff": cutoff,
            "solver_version": solver_version,
            "created_at": time.time(),
            "answers_source": str(lists.answers_source),
            "guesses_source": str(lists.guesses_source),
            "run": {},
            EVERY_CHUNK: True,
        }
        group.attrs.update(attrs)  # last: a store without 'format' is not a store
        return group

    @classmethod
    def open(cls, path, read_only: bool = True) -> Store:
        """Open a validated store; a damaged one raises StoreError saying what is
        wrong and how to recover."""
        zarr = zarr_module()
        path = Path(path)
        check_folder(path)
        _group, _attrs, damage = inspect(path)
        if damage:
            raise StoreError(*damage_message(path, damage))
        try:
            group = zarr.open_group(str(path), mode="r" if read_only else "r+", zarr_format=3)
        except Exception as exc:  # e.g. removed between the check and here
            raise StoreError(f"cannot open result store {path}: {one_line(exc, 200)}") from None
        return cls(group, path, read_only)

    @classmethod
    def open_or_create(cls, path, lists, mode: Mode | Variant, max_guesses: int | None = None,
                       cutoff=None, solver_version: str | None = None,
                       objective: str | None = None) -> tuple[Store, bool]:
        """Open an existing store after checking it is for this problem (`lists` and a
        Variant, or a mode, a cap and an objective, as `create`), else create.

        Returns (store, created). A store for another problem definition raises a
        one-line user error.
        """
        mode, max_guesses, objective = _given(lists, mode, max_guesses, objective)
        path = Path(path)
        try:  # os.lstat, not Path.exists(): a name too long is an error, not "missing"
            os.lstat(path)
            present = True
        except (FileNotFoundError, NotADirectoryError):
            present = False
        except OSError as exc:
            raise StoreError(f"cannot use {path} as a result store: "
                             f"{exc.strerror or exc}") from None
        if present:
            check_folder(path)
        if present and ((path / "zarr.json").exists() or (path / "status").exists()):
            st = cls.open(path, read_only=False)
            st.check_problem(Problem.from_lists(lists, mode, max_guesses, objective))
            st.lock()
            st.write_every_chunk()
            st.upgrade_layout()
            if st.words != list(lists.guesses):
                raise StoreError(f"{path} holds another guess list")
            if cutoff is not None and (st.cutoff is None or float(cutoff) != float(st.cutoff)):
                # every lower bound holds its own proven total, so a new cutoff
                # reuses them: those at or above it stay done, the others are
                # valued again (Store.todo)
                st.group.attrs["cutoff"] = cutoff
                st.cutoff = cutoff
            return st, False
        if path.exists() and any(path.iterdir()):
            raise StoreError(f"{path} exists and is not a wordle-dp result store")
        existed = path.exists()
        try:
            st = cls.create(path, lists, mode, max_guesses, cutoff, solver_version, objective)
            st.lock()
        except OSError as exc:
            if not existed:  # leave nothing half-made behind
                shutil.rmtree(path, ignore_errors=True)
            raise StoreError(f"cannot create result store {path}: "
                             f"{exc.strerror or one_line(exc, 200)}") from None
        return st, True

    def lock(self) -> None:
        """Claim the store for this process: a second writer is refused.

        An flock on the store's folder itself, held until the process ends (a kill
        -9 releases it too): no lock file inside the store, which zarr would warn
        about as an unknown object. Versions before this one locked
        <store>/writer.lock: if one is there, it is checked too (a busy one means an
        older version is writing) and then removed. Works on local file systems; on
        network file systems without flock it is a no-op, so start only one run per
        store there.
        """
        import fcntl

        legacy = self.path / "writer.lock"
        if legacy.is_dir():
            raise StoreError(f"{legacy} is a folder, not a lock file; remove it (rmdir) and "
                             "run again")
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise StoreError(f"cannot open {self.path} to lock it: "
                             f"{exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StoreError(f"{self.path} is being written by {self._writer()}; only one "
                             "run may write a store at a time") from None
        except OSError:  # no flock here (some network file systems)
            os.close(fd)
            return
        if legacy.is_file():
            who = self._legacy_lock(legacy)
            if who is not None:
                os.close(fd)
                raise StoreError(f"{self.path} is being written by {who} (an older "
                                 "wordle-dp); only one run may write a store at a time")
        self._lock_fd = fd  # keep it open (and locked) while the store is in use
        self.group.attrs["writer"] = f"pid {os.getpid()} on {os.uname().nodename}"

    @staticmethod
    def _legacy_lock(legacy: Path) -> str | None:
        """Who holds an older version's lock file; None when nobody does (the file is
        then removed: zarr warns about files it does not know in a store)."""
        import fcntl

        try:
            with open(legacy, "a+") as f:
                try:
                    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    f.seek(0)
                    return f.read().strip() or "another process"
                legacy.unlink()
        except OSError:  # no flock (network file systems), or gone meanwhile
            pass
        return None

    def _writer(self) -> str:
        """Who holds the lock, as that process wrote it into the root attributes."""
        try:
            doc = json.loads((self.path / "zarr.json").read_text())
            who = doc["attributes"].get("writer")
        except (OSError, ValueError, KeyError, AttributeError, TypeError):
            who = None
        return who if isinstance(who, str) and who else "another process"

    def upgrade_layout(self) -> list[str]:
        """Bring a store made before the xarray layout up to date, in place and
        keeping every result: dimension names on every array, the opener and pattern
        coordinates and the average array. One line per change (empty: none)."""
        done = []
        for name in self._layout():
            if _name_dimensions(self.path, name):
                done.append(name)
        missing = [n for n in XARRAY_ARRAYS if n not in self.group]
        if done or missing:
            zarr = zarr_module()
            self.group = zarr.open_group(str(self.path), mode="r+", zarr_format=3)
            snap = self.snapshot()
            _add_xarray_arrays(self.group, self.words, snap.status, snap.fields["total"],
                               self.problem.n_answers, self.problem.length,
                               snap.fields.get("wins"))
            self._mirror = None
            self._average = None
        out = []
        if done:
            out.append(f"named the dimensions of {len(done)} array(s)")
        if missing:
            out.append(f"added the array(s) {', '.join(missing)} (for xarray)")
        return out

    def write_every_chunk(self) -> None:
        """Bring a store made before every chunk was written up to date: write its
        missing chunks (zarr reads them as the fill value, so nothing changes) and
        mark it, so that from now on a missing chunk counts as damage."""
        if self.group.attrs.get(EVERY_CHUNK) is True:
            return
        for name, (shape, chunks, _dtype, _fill) in self._layout().items():
            arr = self.group[name]
            for c in range(-(-shape[0] // chunks[0])):
                key = arr.metadata.encode_chunk_key((c,) + (0,) * (len(shape) - 1))
                if not (self.path / name / key).is_file():
                    lo, hi = c * chunks[0], min((c + 1) * chunks[0], shape[0])
                    arr[lo:hi] = np.asarray(arr[lo:hi])
        self.group.attrs[EVERY_CHUNK] = True

    def _layout(self) -> dict[str, tuple[tuple, tuple, str, object]]:
        p = self.problem
        return layout(p.n_guesses, p.n_answers, p.length, p.objective)

    def _fields(self) -> dict[str, tuple[str, object]]:
        """The per-opener result fields of this store (wins: one more, fields_of)."""
        return fields_of(self.problem.objective)

    def unlock(self) -> None:
        fd = self._lock_fd
        if fd is not None:
            os.close(fd)
            self._lock_fd = None

    def check_problem(self, prob: Problem) -> None:
        diff = self.problem.differences(prob)
        if diff:
            raise StoreError(
                f"{self.path} holds results for another problem: different "
                + "; ".join(diff) + " (use another ", Param("store"), ", or the same lists/",
                Param("mode"), "/", Param("max_guesses"), " as the run that made it)"
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
        w = word.strip()
        i = self._index.get(w.lower()) if w.isascii() else None
        if i is None:
            raise StoreError(f"{quote(word)} is not in the store's guess list")
        return i

    @property
    def answers(self) -> list[str]:
        ids = self.group["answer_ids"][...]
        words = self.words
        return [words[i] for i in ids]

    def status(self) -> np.ndarray:
        return np.asarray(self.group["status"][...])

    def todo(self, cutoff=None, retry_failed: bool = False) -> np.ndarray:
        """Which openers a run still has to value (bool per opener): pending ones;
        failed ones with `retry_failed`; and lower bounds below `cutoff` (None: every
        lower bound), since a lower bound at or above it already proves the opener
        cannot beat it."""
        snap = self.snapshot()
        todo = snap.status == PENDING
        if retry_failed:
            todo |= snap.status == FAILED
        weak = snap.status == LOWER_BOUND
        if cutoff is not None:
            weak &= snap.fields["total"] < cutoff
        return todo | weak

    def count_status(self) -> np.ndarray:
        return np.bincount(self.status(), minlength=len(STATUS_NAMES))

    def snapshot(self) -> Snapshot:
        """All per-opener fields, consistent with `status` (status is read first)."""
        status = self.status()
        fields = {name: np.asarray(self.group[name][...]) for name in self._fields()}
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
            p = self.problem
            small = p.n_guesses * p.n_patterns * 4 <= _MIRROR_MAX
            names = ("status", *self._fields(), *(("second",) if small else ()))
            self._mirror = {n: np.array(self.group[n][...]) for n in names}
        return self._mirror

    def _has_average(self) -> bool:
        if self._average is None:
            self._average = "average" in self.group
        return self._average

    def write(self, records: list[Record], run_info: dict | None = None) -> float:
        """Write a batch of finished openers; `status` last. Returns the seconds taken.

        The writer keeps a copy of every array in memory (the store has one writer),
        so a batch is pure writes: each 1-D array in one chunk, and the touched
        row-blocks of `second` (read first when `second` is too big to keep).
        """
        if self.read_only:
            raise RuntimeError("store opened read-only")
        if not records:
            return 0.0
        t0 = time.perf_counter()
        m = self._load_mirror()
        idx = np.array([r.index for r in records], dtype=np.int64)
        for name, (dtype, _fill) in self._fields().items():
            m[name][idx] = np.array([getattr(r, name) for r in records], dtype=dtype)
            self.group[name][...] = m[name]
        arr = self.group["second"]
        rows = arr.chunks[0]
        for c in np.unique(idx // rows):
            lo, hi = int(c) * rows, min((int(c) + 1) * rows, arr.shape[0])
            # the block: from the writer's copy, or (too big to keep) read from disk;
            # rewritten only when a row changes (a cutoff run's lower bounds have no
            # second guesses: rewriting their chunks was 6 % of a book build's time)
            block = m["second"][lo:hi] if "second" in m else np.asarray(arr[lo:hi])
            changed = False
            for r in records:
                if lo <= r.index < hi:
                    row = block[r.index - lo]
                    new = -1 if r.second is None else r.second
                    if not np.array_equal(row, np.broadcast_to(new, row.shape)):
                        row[...] = new
                        changed = True
            if changed:
                arr[lo:hi] = block
        status = m["status"].copy()
        status[idx] = np.array([r.status for r in records], dtype=np.uint8)
        if self._has_average():  # (a store of the older layout lacks it: upgrade_layout)
            self.group["average"][...] = averages(status, m["total"], self.problem.n_answers,
                                                  m.get("wins"))
        m["status"] = status
        self.group["status"][...] = m["status"]  # LAST: makes the batch visible
        if run_info is not None:
            self.group.attrs["run"] = run_info
        dt = time.perf_counter() - t0
        self.flushes += 1
        self.flush_seconds += dt
        self.flushed_records += len(records)
        return dt
