"""What the web app serves, without the web framework: solvers, stores, jobs.

One `Service` per process. It owns the word lists, the pattern table and one
`Solver` (with its memo) per problem (mode, cap), shared by every request. The
numba memo is not thread-safe, so every use of a solver holds `Service.lock`;
requests run on worker threads, never on the event loop. Long work runs as a
`Job` on one background thread: clients poll its progress and may cancel it
(checked between search steps: openers, feedback classes).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import UsageError, WordleDPError
from ..store import (
    EXACT,
    FAILED,
    INFEASIBLE,
    LOWER_BOUND,
    PENDING,
    STATUS_NAMES,
    UPPER_BOUND,
    Problem,
    Store,
)
from ..words import WordLists
from . import adapter

MODES = ("easy", "hard", "strict")
MAX_TOP = 50
MAX_JOBS_QUEUED = 8
JOB_KEEP_SECONDS = 600.0
SNAPSHOT_MAX_AGE = 2.0  # seconds: a running store is re-read at most this often


# ------------------------------------------------------------------- stores
class StoreView:
    """A result store opened read-only, re-read at most every few seconds so the
    page follows an unfinished run."""

    def __init__(self, sid: str, path: str | Path, lists: WordLists | None):
        self.id = sid
        self.store = Store.open(path, read_only=True)
        p = self.store.problem
        self.matches = lists is not None and not p.differences(
            Problem.from_lists(lists, p.mode, p.max_guesses))
        self._snap = None
        self._snap_at = 0.0
        self._lock = threading.Lock()

    @property
    def problem(self) -> Problem:
        return self.store.problem

    def snapshot(self):
        with self._lock:
            if self._snap is None or time.monotonic() - self._snap_at > SNAPSHOT_MAX_AGE:
                self._snap = self.store.snapshot()
                self._snap_at = time.monotonic()
            return self._snap

    def info(self) -> dict:
        p = self.problem
        prog = self.snapshot().progress()
        return {
            "id": self.id, "path": str(self.store.path), "mode": p.mode,
            "max_guesses": p.max_guesses, "answers": p.n_answers, "guesses": p.n_guesses,
            "cutoff": self.store.cutoff, "matches_lists": self.matches, "progress": prog,
        }

    def openers(self, q: str = "", sort: str = "total", desc: bool = False,
                status: str | None = None, offset: int = 0, limit: int = 100) -> dict:
        snap = self.snapshot()
        words = self.store.words
        idx = np.arange(len(words))
        if status:
            idx = idx[snap.status[idx] == STATUS_NAMES.index(status)]
        if q:
            idx = np.array([i for i in idx if q in words[i]], dtype=np.int64)
        ranks = snap.ranks()
        f = snap.fields
        if sort == "opener":
            order = np.argsort(np.array([words[i] for i in idx], dtype="U5"), kind="stable")
            idx = idx[order[::-1] if desc else order]
        else:
            # unknown values (pending, failed, ...) always last; for totals, lower bounds
            # after every exact value (a bound is not a value), then infeasible
            st = snap.status[idx]
            if sort == "rank":
                vals = ranks[idx].astype(np.float64)
                group = (vals == 0).astype(np.int64)
            elif sort == "status":
                vals = st.astype(np.float64)
                group = np.zeros(len(idx), np.int64)
            else:
                vals = np.asarray(f[sort][idx], dtype=np.float64)
                unknown = (st == PENDING) | ~np.isfinite(vals) | (vals < 0)
                group = unknown.astype(np.int64) * 3
                if sort == "total":
                    group = np.where(st == LOWER_BOUND, 1, group)
                    group = np.where(st == INFEASIBLE, 2, group)
            order = np.lexsort((idx, -vals if desc else vals, group))
            idx = idx[order]
        page = idx[offset:offset + limit]
        return {"total_rows": len(idx), "offset": offset, "limit": limit,
                "rows": [snap.row(int(i), ranks) for i in page]}

    def distribution(self, bins: int) -> dict:
        snap = self.snapshot()
        ok = (snap.status == EXACT) | (snap.status == UPPER_BOUND)
        totals = snap.fields["total"][ok]
        counts = snap.counts()
        out = {"values": int(ok.sum()), "bins": [], "counts": counts,
               "n_answers": snap.n_answers, "best": None}
        if len(totals):
            lo, hi = int(totals.min()), int(totals.max())
            width = max(1, -(-(hi - lo + 1) // bins))
            edges = np.arange(lo, hi + width + 1, width)
            hist, _ = np.histogram(totals, bins=edges)
            out["bins"] = [{"from": int(a), "to": int(b) - 1, "count": int(c)}
                           for a, b, c in zip(edges[:-1], edges[1:], hist, strict=True)]
            out["best"] = snap.best(1)[0]
        return out


def _proves_best(snap) -> bool:
    """True when the store proves its best opener best: every opener is finished
    and every lower bound (a --cutoff run) is at least the best exact total."""
    st = snap.status
    if ((st == PENDING) | (st == FAILED)).any():
        return False
    best = snap.best(1)
    if not best or best[0]["status"] != "exact":
        return False
    bounds = snap.fields["total"][st == LOWER_BOUND]
    return bool((bounds >= best[0]["total"]).all())


# --------------------------------------------------------------------- jobs
@dataclass
class Job:
    id: str
    kind: str
    params: dict
    fn: Callable[[Job], dict]
    state: str = "queued"  # queued, running, done, error, cancelled
    progress: dict = field(default_factory=lambda: {"done": 0, "total": 0, "message": ""})
    result: dict | None = None
    error: str | None = None
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    cancel_event: threading.Event = field(default_factory=threading.Event)

    def check(self) -> None:
        if self.cancel_event.is_set():
            raise adapter.Cancelled()

    def report(self, done: int, total: int, message: str = "") -> None:
        self.progress = {"done": done, "total": total, "message": message}

    def to_dict(self) -> dict:
        now = time.time()
        elapsed = None
        if self.started is not None:
            elapsed = round((self.finished or now) - self.started, 3)
        out = {"id": self.id, "kind": self.kind, "params": self.params, "state": self.state,
               "progress": self.progress, "elapsed": elapsed}
        if self.state == "done":
            out["result"] = self.result
        if self.state == "error":
            out["error"] = self.error
        return out


class JobQueue:
    """Jobs run one at a time on one thread (they would serialise on the solver
    lock anyway). Finished jobs are kept for a while for their clients to read."""

    def __init__(self):
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._pending: deque[Job] = deque()
        self._cv = threading.Condition()
        self._ids = itertools.count(1)
        self._thread: threading.Thread | None = None
        self._stop = False

    def submit(self, kind: str, params: dict, fn: Callable[[Job], dict]) -> Job:
        with self._cv:
            self._expire()
            if len(self._pending) >= MAX_JOBS_QUEUED:
                raise QueueFull(f"{len(self._pending)} jobs are waiting; try again later")
            job = Job(f"j{next(self._ids)}", kind, params, fn)
            self._jobs[job.id] = job
            self._pending.append(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="wordle-dp-jobs",
                                                daemon=True)
                self._thread.start()
            self._cv.notify()
            return job

    def get(self, jid: str) -> Job | None:
        with self._cv:
            return self._jobs.get(jid)

    def cancel(self, jid: str) -> Job | None:
        with self._cv:
            job = self._jobs.get(jid)
            if job is None:
                return None
            job.cancel_event.set()
            if job.state == "queued":
                self._pending.remove(job)
                job.state = "cancelled"
                job.finished = time.time()
            return job

    def close(self) -> None:
        with self._cv:
            self._stop = True
            for job in self._pending:
                job.cancel_event.set()
            self._cv.notify_all()

    def _expire(self) -> None:
        old = time.time() - JOB_KEEP_SECONDS
        for jid in [j for j, job in self._jobs.items()
                    if job.finished is not None and job.finished < old]:
            del self._jobs[jid]

    def _work(self) -> None:
        while True:
            with self._cv:
                while not self._pending and not self._stop:
                    self._cv.wait()
                if self._stop:
                    return
                job = self._pending.popleft()
                job.state = "running"
                job.started = time.time()
            try:
                job.check()
                result = job.fn(job)
                state, job.result = "done", result
            except adapter.Cancelled:
                state = "cancelled"
            except WordleDPError as exc:
                state, job.error = "error", str(exc)
            except Exception as exc:  # a bug: report it without a traceback
                state, job.error = "error", f"internal error: {type(exc).__name__}"
            if job.cancel_event.is_set():
                state = "cancelled"  # a result that came too late is dropped
            job.finished = time.time()
            job.state = state


class QueueFull(WordleDPError):
    """Too many jobs waiting."""


class NotFound(UsageError):
    """An unknown store or job id."""


# ------------------------------------------------------------------ service
class Service:
    """Solvers, stores and jobs of one server process."""

    def __init__(self, lists: WordLists, table: np.ndarray | None = None,
                 stores: list[str] | tuple[str, ...] = (), mode: str = "easy",
                 max_guesses: int = 6, memo_entries: int | None = None,
                 max_solvers: int = 3, cache_dir=None, backend: str = "auto"):
        from ..table import get_table

        if mode not in MODES:
            raise UsageError(f"unknown mode {mode!r} (easy, hard or strict)")
        self.lists = lists
        if table is None:
            table, _ = get_table(lists, backend, cache_dir)
        self.table = table
        self.mode = mode
        self.max_guesses = max_guesses
        self.memo_entries = memo_entries
        self.max_solvers = max_solvers
        self.lock = threading.Lock()
        self._solvers: OrderedDict[tuple[str, int], object] = OrderedDict()
        self.stores: dict[str, StoreView] = {}
        for path in stores:
            sid = self._store_id(Path(path).name)
            self.stores[sid] = StoreView(sid, path, lists)
        self.jobs = JobQueue()

    def _store_id(self, name: str) -> str:
        base = "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "store"
        sid, n = base, 2
        while sid in self.stores:
            sid, n = f"{base}-{n}", n + 1
        return sid

    # -- solvers (call with self.lock held)
    def _solver(self, mode: str, cap: int):
        from ..search import Solver

        key = (mode, cap)
        s = self._solvers.get(key)
        if s is None:
            kw = {} if self.memo_entries is None else {"memo_entries": self.memo_entries}
            s = Solver(self.lists, mode=mode, max_guesses=cap, table=self.table, **kw)
            self._solvers[key] = s
            while len(self._solvers) > self.max_solvers:
                self._solvers.popitem(last=False)  # least recently used
        self._solvers.move_to_end(key)
        return s

    def _store_for(self, mode: str, cap: int) -> StoreView | None:
        for sv in self.stores.values():
            if sv.matches and sv.problem.mode == mode and sv.problem.max_guesses == cap:
                return sv
        return None

    def info(self) -> dict:
        from .. import __version__

        lst = self.lists
        return {
            "version": __version__,
            "answers": len(lst.answers), "guesses": len(lst.guesses),
            "answers_source": str(lst.answers_source), "guesses_source": str(lst.guesses_source),
            "answers_sha256": lst.answers_sha256, "guesses_sha256": lst.guesses_sha256,
            "mode": self.mode, "max_guesses": self.max_guesses, "modes": list(MODES),
            "stores": [{"id": s.id, "path": str(s.store.path), "mode": s.problem.mode,
                        "max_guesses": s.problem.max_guesses, "matches_lists": s.matches}
                       for s in self.stores.values()],
        }

    # -- the next guess
    def next(self, position: str, mode: str, cap: int, top: int,
             job: Job | None = None) -> dict:
        """`wordle-dp next --json` for a position (plus `source`, `note`)."""
        check = job.check if job is not None else adapter._noop
        pos, searched = self.check_next(position, mode, cap)
        if searched:
            return self._search_start(pos, top, job)
        sv = self._store_for(mode, cap)
        with self.lock:
            check()
            solver = self._solver(mode, cap)
            return adapter.analyse(solver, pos, top, store=sv.store if sv else None)

    def check_next(self, position: str, mode: str, cap: int):
        """Validate a next-guess request before any search: (position, whether the
        opening move must be searched). Refuses the opening search on big lists."""
        pos = adapter.parse_position(position, self.lists, mode, cap)
        sv = self._store_for(mode, cap)
        searched = not pos.history and not (sv is not None and _proves_best(sv.snapshot()))
        n = len(self.lists.answers)
        if searched and n > adapter.EMPTY_EXACT_LIMIT:
            raise UsageError(
                f"choosing the opener over {n} answers is a cluster job (wordle-dp run "
                "--store S, then serve --store S); type your first guess instead")
        return pos, searched

    def _search_start(self, pos, top: int, job: Job | None) -> dict:
        """The opening move without a complete store: opener by opener, with
        progress and cancellation between openers (small lists only, as `next`)."""
        n = len(self.lists.answers)
        check = job.check if job is not None else adapter._noop
        report = job.report if job is not None else None
        with self.lock:
            solver = self._solver(pos.mode, pos.max_guesses)
            picks = adapter.best_openers(solver, top + 1, check, report)
        best = picks[0] if picks else {"guess": None, "total": None, "average": None,
                                       "status": "infeasible"}
        return {"position": "-", "candidates": n,
                "words": list(self.lists.answers) if n <= 20 else None,
                "best": best, "alternatives": [{k: p[k] for k in ("guess", "total", "status")}
                                               for p in picks[1:]],
                "mode": pos.mode, "max_guesses": pos.max_guesses, "source": "engine"}

    # -- strategy
    def strategy(self, opener: str, mode: str, cap: int, job: Job | None = None) -> dict:
        self.lists.guess_id(opener)  # unknown words fail before taking the lock
        check = job.check if job is not None else adapter._noop
        with self.lock:
            return adapter.strategy(self._solver(mode, cap), opener, check,
                                    job.report if job is not None else None)

    def store(self, sid: str) -> StoreView:
        sv = self.stores.get(sid)
        if sv is None:
            raise NotFound(f"no store {sid!r} (known: {', '.join(self.stores) or 'none'})")
        return sv

    def close(self) -> None:
        self.jobs.close()
