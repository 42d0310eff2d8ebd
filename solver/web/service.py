"""What the web app serves, without the web framework: stores, jobs, answers.

One `Service` per server. It owns the word lists (named by file name only: no
answer shows a server path), the result stores, and a `Scheduler` of worker
processes that do every search (see `workers`). A request waits for its answer
at most `request_seconds`; past that it becomes a job to poll (202), or 503 when
its client may not hold another job. Identical requests share one computation,
and finished results are kept in a bounded LRU cache.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import UsageError, WordleDPError
from ..variant import MODES, Mode, Variant
from ..words import WordLists
from . import adapter
from .workers import QueueFull, Scheduler, SharedTables, Task, WorkerSpec

MAX_TOP = 50
MAX_ADVERSARY_TOP = 10  # other first guesses that beat the adversary as fast, at most
JOB_KEEP_SECONDS = 600.0
REQUEST_SECONDS = 10.0  # a request's budget before it becomes a job
QUICK_WORKERS = 2  # worker processes kept for requests waiting for their answer
JOBS_PER_CLIENT = 4  # jobs one client may have running or waiting
JOB_LEASE_SECONDS = 120.0  # an unfinished job nobody asked about for this long is cancelled
DEFAULT_OPENER = "salet"  # the Strategy view's placeholder word
DISCONNECT_POLL = 0.25  # seconds between checks that a waiting client is still there
SLOW_STRATEGY = 5.0  # predicted CPU seconds above which a strategy request waits in the
# background lane (salet: 0.6 s predicted; qajaq 260 s)


# --------------------------------------------------------------------- jobs
class NotFound(UsageError):
    """An unknown store or job id."""


class Busy(WordleDPError):
    """No answer within the budget and no job possible: HTTP 503."""


@dataclass(eq=False)
class Job:
    """One client's handle on a task (the task may be shared with others)."""

    id: str
    client: str
    task: Task
    created: float = field(default_factory=time.monotonic)
    cancelled: bool = False
    seen: float = field(default_factory=time.monotonic)  # last asked about

    @property
    def state(self) -> str:
        return "cancelled" if self.cancelled else self.task.state

    @property
    def final(self) -> bool:
        return self.cancelled or self.task.final

    def to_dict(self) -> dict:
        t = self.task
        out = {"id": self.id, "kind": t.kind, "params": _public(t.params),
               "state": self.state, "progress": t.progress, "elapsed": t.elapsed()}
        if self.state == "done":
            out["result"] = t.result
        if self.state == "error":
            out["error"] = t.error
        return out


def _public(params: dict) -> dict:
    return {k: v for k, v in params.items() if k != "store"}  # a store is a server path


class JobBoard:
    """Jobs by id, with a limit per client on those running or waiting."""

    def __init__(self, sched: Scheduler, per_client: int = JOBS_PER_CLIENT,
                 lease: float = JOB_LEASE_SECONDS, ids: Iterator[int] | None = None):
        """`ids`: job numbers, shared by the boards of one server's lists (a job id
        names one job whatever lists it is for)."""
        self.sched = sched
        self.per_client = per_client
        self.lease = lease
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._ids = ids if ids is not None else itertools.count(1)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        threading.Thread(target=self._sweep, name="wordle-dp-job-lease", daemon=True).start()

    def _sweep(self) -> None:
        """Cancel the jobs of clients that left without a word (a closed page, a
        script that died): they would hold a worker for nobody."""
        while not self._stop.wait(min(5.0, self.lease / 4)):
            now = time.monotonic()
            with self._lock:
                stale = [j for j in self._jobs.values()
                         if not j.final and now - j.seen > self.lease]
            for job in stale:
                self.cancel(job.id)

    def close(self) -> None:
        self._stop.set()

    def _admit(self, client: str) -> Job:
        """A new job id for `client`, or QueueFull when it holds too many."""
        self._expire()
        mine = sum(1 for j in self._jobs.values() if j.client == client and not j.final)
        if mine >= self.per_client:
            raise QueueFull(f"you have {mine} jobs running or waiting (the limit per client); "
                            "cancel one or wait for it")
        return Job(f"j{next(self._ids)}", client, None)  # type: ignore[arg-type]

    def submit(self, client: str, key: tuple, kind: str, params: dict) -> Job:
        with self._lock:
            job = self._admit(client)
            job.task = self.sched.submit(key, kind, params, "background", job)
            self._jobs[job.id] = job
            return job

    def adopt(self, client: str, task: Task) -> Job:
        """A job for a task a request started and stopped waiting for."""
        with self._lock:
            job = self._admit(client)
            job.task = task
            with self.sched.cv:
                task.holders.add(job)
            self._jobs[job.id] = job
        self.sched.to_background(task)
        return job

    def get(self, jid: str) -> Job | None:
        with self._lock:
            job = self._jobs.get(jid)
            if job is not None:
                job.seen = time.monotonic()
            return job

    def cancel(self, jid: str) -> Job | None:
        with self._lock:
            job = self._jobs.get(jid)
        if job is None:
            return None
        if not job.final:
            job.cancelled = True
            self.sched.release(job.task, job)
        return job

    def _expire(self) -> None:
        old = time.monotonic() - JOB_KEEP_SECONDS
        for jid in [j for j, job in self._jobs.items()
                    if job.final and (job.task.finished or job.created) < old]:
            del self._jobs[jid]


# ------------------------------------------------------------------ service
def _named(lists: WordLists) -> WordLists:
    """The lists with their sources as file names: messages never show a path."""
    return replace(lists, answers_source=Path(str(lists.answers_source)).name,
                   guesses_source=Path(str(lists.guesses_source)).name)


class Service:
    """Stores, jobs and worker processes of one server."""

    def __init__(self, lists: WordLists, table: np.ndarray | None = None,
                 stores: list[str] | tuple[str, ...] = (), mode: Mode | Variant = Mode.EASY,
                 max_guesses: int | None = None, memo_entries: int | None = None,
                 cache_dir=None, backend: str = "auto", workers: int | None = None,
                 request_seconds: float = REQUEST_SECONDS,
                 jobs_per_client: int = JOBS_PER_CLIENT, cache_entries: int = 32,
                 max_queued: int = 32, quick_slice: float = 3.0,
                 quick_workers: int = QUICK_WORKERS, job_ids: Iterator[int] | None = None):
        v = Variant.given(lists, mode, max_guesses)  # the game served by default
        mode, max_guesses = v.mode, v.max_guesses
        # what a service for other lists of the same server is made with (catalog.py)
        self.options = dict(mode=mode, max_guesses=max_guesses, memo_entries=memo_entries,
                            cache_dir=cache_dir, backend=backend, workers=workers,
                            request_seconds=request_seconds, jobs_per_client=jobs_per_client,
                            cache_entries=cache_entries, max_queued=max_queued,
                            quick_slice=quick_slice, quick_workers=quick_workers)
        self.id = lists.name or "served"  # how the page names these lists
        self.lists = _named(lists)
        if table is None:
            table = adapter.load_table(lists, backend, cache_dir)
        self.table = table
        self.mode = mode
        self.max_guesses = max_guesses
        self.request_seconds = request_seconds
        self.stores: dict[str, adapter.StoreView] = {}
        for path in stores:
            sid = self._store_id(Path(path).name)
            self.stores[sid] = adapter.StoreView(sid, path, lists)
        # the packaged opening books of these lists, read like stores (the page's
        # first move and its Results view come from them when no store covers them)
        for m in Mode:
            book = adapter.find_book(lists, m, max_guesses)
            if book is not None and self._store_for(m, max_guesses) is None:
                sid = self._store_id(f"book-{m}-{max_guesses}")
                self.stores[sid] = adapter.StoreView(sid, book, lists)
        self.tables = SharedTables(table)
        spec = WorkerSpec(self.lists.answers, self.lists.guesses, self.lists.answers_source,
                          self.lists.guesses_source, self.tables.name, self.tables.shape,
                          self.tables.dtype, memo_entries, (mode, max_guesses))
        try:
            self.sched = Scheduler(spec, workers or default_workers(), reserve=quick_workers,
                                   quick_slice=quick_slice,
                                   cache_entries=cache_entries, max_queued=max_queued)
        except BaseException:
            self.tables.close()
            raise
        self.jobs = JobBoard(self.sched, jobs_per_client, ids=job_ids)
        self._known: list[dict] | None = None  # info()'s known_openings, made once
        self._adversary: Any = None  # game.adversary.Adversary, made on first use
        self._adversary_lock = threading.Lock()

    def _store_id(self, name: str) -> str:
        base = "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "store"
        sid, n = base, 2
        while sid in self.stores:
            sid, n = f"{base}-{n}", n + 1
        return sid

    def _store_for(self, mode: Mode, cap: int) -> adapter.StoreView | None:
        for sv in self.stores.values():
            if sv.matches and sv.problem.mode == mode and sv.problem.max_guesses == cap:
                return sv
        return None

    def info(self) -> dict:
        from .. import __version__

        lst = self.lists

        def about(words: list[str], name: str, sha: str) -> dict:
            return {"name": name, "words": len(words), "sha256": sha}

        if self._known is None:  # the lists' sha256 per look-up: once is enough
            self._known = adapter.known_openings(lst, MODES, range(21))
        known = self._known
        return {
            "version": __version__, "id": self.id, "name": lst.name or None,
            "answers": len(lst.answers), "guesses": len(lst.guesses), "length": lst.length,
            "answers_source": lst.answers_source, "guesses_source": lst.guesses_source,
            "answers_sha256": lst.answers_sha256, "guesses_sha256": lst.guesses_sha256,
            "lists": {"answers": about(lst.answers, lst.answers_source, lst.answers_sha256),
                      "guesses": about(lst.guesses, lst.guesses_source, lst.guesses_sha256)},
            "mode": self.mode, "max_guesses": self.max_guesses, "modes": list(MODES),
            "opening_search_limit": adapter.EMPTY_EXACT_LIMIT,
            "known_openings": known,  # best known openers, not proven (game/known.py)
            "default_opener": self.default_opener(),
            "request_seconds": self.request_seconds,
            "workers": self.sched.workers, "jobs_per_client": self.jobs.per_client,
            "stores": [{"id": s.id, "kind": s.kind, "mode": s.problem.mode,
                        "max_guesses": s.problem.max_guesses, "matches_lists": s.matches,
                        "proves_best": s.matches and adapter.proves_best(s.snapshot())}
                       for s in self.stores.values()],
        }

    def default_opener(self) -> str:
        """The word the Strategy view shows before one is chosen: the proven best
        opener of the served mode when a store or book proves it, else a placeholder."""
        sv = self._store_for(self.mode, self.max_guesses)
        if sv is not None and adapter.proves_best(sv.snapshot()):
            return sv.snapshot().best(1)[0]["opener"]
        return DEFAULT_OPENER if DEFAULT_OPENER in self.lists.guess_index else (
            self.lists.answers[0])

    # -- what a request asks, checked before any search
    def check_next(self, position: str, mode: Mode, cap: int):
        """Validate a next-guess request before any search: (position, whether the
        opening move must be searched). Refuses the opening search on big lists."""
        pos = adapter.parse_position(position, self.lists, mode, cap)
        sv = self._store_for(mode, cap)
        searched = not pos.history and not (sv is not None and adapter.proves_best(sv.snapshot()))
        n = len(self.lists.answers)
        if searched and n > adapter.EMPTY_EXACT_LIMIT:
            adapter.check_known_opening(pos)  # the best known opener, else why not
            searched = False
        return pos, searched

    def plan_next(self, position: str, mode: Mode, cap: int, top: int) -> tuple:
        """(key, kind, params) of a next-guess request; bad input raises here."""
        pos, searched = self.check_next(position, mode, cap)
        sv = self._store_for(mode, cap)
        store = None if sv is None or searched else str(sv.store.path)  # a book's file too
        params = {"position": str(pos), "mode": mode, "max_guesses": cap, "top": top,
                  "store": store}
        return ("next", str(pos), mode, cap, top, store), "next", params

    def plan_boards(self, position: str, boards: int, cap: int | None, top: int) -> tuple:
        """(key, kind, params) of a several-board next guess (issue 18; easy mode, cap
        boards + 5 unless given); bad input raises here."""
        pos = adapter.boards_position(self.lists, position, boards, cap)
        cap = pos.variant.max_guesses
        params = {"position": str(pos), "boards": boards, "max_guesses": cap, "top": top}
        return (("boards", str(pos), boards, cap, top), "boards", params)

    def adversary_position(self, position: str):
        """A game against the adversary (issue 18: Absurdle; easy mode, no cap):
        `position` is its guesses ('raise,acold' or with the replies checked,
        'raise:BBBBB,...'), replayed here. Each reply is one look at the table (no
        search), so the cheap answer never waits for a worker; bad input raises."""
        with self._adversary_lock:
            if self._adversary is None:
                self._adversary = adapter.make_adversary(self.lists, self.table)
        return adapter.adversary_position(position, self._adversary)

    def plan_adversary(self, position: str, top: int) -> tuple:
        """(key, kind, params) of the exact analysis against the adversary (a search:
        the workers run it); bad input raises here."""
        if not 0 <= top <= MAX_ADVERSARY_TOP:
            raise UsageError(f"top: at most {MAX_ADVERSARY_TOP} for the adversary (not {top})")
        pos = self.adversary_position(position)
        params = {"position": str(pos), "top": top}
        return ("adversary", str(pos), top), "adversary", params

    def plan_strategy(self, opener: str, mode: Mode, cap: int) -> tuple:
        word = self.lists.guesses[self.lists.guess_id(opener)]
        params = {"opener": word, "mode": mode, "max_guesses": cap}
        return ("strategy", word, mode, cap), "strategy", params

    def lane_of(self, kind: str, params: dict) -> tuple[str, int]:
        """(lane, priority) of a request that waits for its answer: the quick lane,
        a bare next guess first; a strategy the cost model calls slow (qajaq: minutes)
        waits in the background lane, so that it never holds a quick slot."""
        if kind == "strategy" and adapter.predicted_strategy_seconds(
                self.lists, self.table, params["opener"], params["mode"]) > SLOW_STRATEGY:
            return "background", 1
        cheap = kind == "next" and params.get("top") == 0 and params.get("position") != "-"
        return "quick", 0 if cheap else 1

    # -- answering
    async def answer(self, plan: tuple, client: str, disconnected) -> tuple[int, dict]:
        """Wait for a computation at most `request_seconds`: (200, result), or (202,
        job) past the budget. `disconnected()` (awaitable) says the client left: its
        computation is then dropped (stopped unless someone else waits for it)."""
        key, kind, params = plan
        res = self.sched.cached(key)
        if res is not None:
            return 200, res
        res = self._from_data(kind, params)
        if res is not None:  # a book's answer: no worker, no kernel, no queue
            return 200, res
        token = object()
        loop = asyncio.get_running_loop()
        done = asyncio.Event()
        lane, priority = self.lane_of(kind, params)
        task = self.sched.submit(key, kind, params, lane, token, priority=priority)
        with self.sched.cv:  # woken by the slot's thread the moment the task ends
            task.on_done.append(lambda: loop.call_soon_threadsafe(done.set))
            if task.final:
                done.set()
        deadline = time.monotonic() + self.request_seconds
        try:
            while not done.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                try:
                    await asyncio.wait_for(done.wait(), min(left, DISCONNECT_POLL))
                except TimeoutError:
                    if await disconnected():
                        return 499, {"error": "the client closed the connection"}
            if task.done_event.is_set():
                return 200, self._outcome(task)
            try:
                job = self.jobs.adopt(client, task)
            except QueueFull as exc:
                raise Busy(f"no answer within {self.request_seconds:g} s, and {exc}") from None
            body = job.to_dict()
            body["message"] = (f"still computing after {self.request_seconds:g} s: poll "
                               f"/api/jobs/{job.id} (DELETE it to cancel)")
            return 202, body
        finally:
            self.sched.release(task, token)

    def _from_data(self, kind: str, params: dict) -> dict | None:
        """A next guess that the problem's store or book holds (the start, a second
        move), answered here; None when it must be computed."""
        if kind != "next" or not params.get("store"):
            return None
        sv = self._store_for(params["mode"], params["max_guesses"])
        if sv is None or str(sv.store.path) != params["store"]:
            return None
        pos = adapter.parse_position(params["position"], self.lists, params["mode"],
                                     params["max_guesses"])
        return adapter.from_data(pos, params["top"], sv.store)

    @staticmethod
    def _outcome(task: Task) -> dict:
        if task.state == "done":
            return task.result  # type: ignore[return-value]
        if task.state == "error":
            raise UsageError(task.error or "error")
        raise Busy("the computation was cancelled (the server is stopping)")

    def submit(self, plan: tuple, client: str) -> Job:
        key, kind, params = plan
        return self.jobs.submit(client, key, kind, params)

    def store(self, sid: str) -> adapter.StoreView:
        sv = self.stores.get(sid)
        if sv is None:
            raise NotFound(f"no store {sid!r} (known: {', '.join(self.stores) or 'none'})")
        return sv

    def close(self) -> None:
        """Cancel every job and end the worker processes."""
        self.jobs.close()
        self.sched.close()
        self.tables.close()


def default_workers() -> int:
    """Background searches at once: one less than the cores this process may use
    (at least one), so that slow searches never hold every core and a player's next
    guess always finds one (issue 33)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return max(1, cores - 1)
