"""The web app's searches in worker processes, so that one long search never holds
up the answers everyone else is waiting for (issue 24).

- `SharedTables`: the pattern table and its transpose in one shared-memory block,
  filled once by the server and mapped read-only by every worker (as `run` shares
  them between the ranks of a node).
- `Slot`: one worker process (an `Engine`) and the thread that feeds it. A slot
  runs one task at a time; stopping a task that does not stop by itself within
  `GRACE` seconds kills the process and starts a fresh one.
- `Task`: one computation, shared by everyone who asks for the same thing.
- `Scheduler`: two queues. *Quick* tasks (a request waiting for its answer) go
  first, the cheapest kind first (a bare next guess before a ranking of
  alternatives, or a strategy; with two quick slots or more, the last idle slot
  is kept for a cheap one), and always have `reserve` slots kept free for them; *background* tasks
  (jobs) use the others. A quick task that runs longer than `quick_slice` seconds
  becomes a background task, and a new slot is started so that the quick lane
  stays free. Finished results are kept in a bounded LRU cache.
"""

from __future__ import annotations

import itertools
import logging
import math
import multiprocessing as mp
import os
import signal
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing import shared_memory
from typing import Any

import numpy as np

from ..errors import WordleDPError
from ..progress import Pace
from ..variant import Mode

log = logging.getLogger("wordle-dp.web")

GRACE = 0.3  # seconds a cancelled task may take to stop by itself before its process dies
POLL = 0.05  # seconds between a slot's checks for messages and cancellation
PROGRESS_EVERY = 0.1  # seconds between progress messages from a worker


class QueueFull(WordleDPError):
    """Too many computations waiting, or too many jobs for one client (HTTP 429)."""


# ----------------------------------------------------------------- shared table
class SharedTables:
    """The table (guess-major) and its transpose (answer-major) in shared memory."""

    def __init__(self, table: np.ndarray):
        rows, cols = table.shape
        self.shape = (rows, cols)
        self.dtype = table.dtype.str  # uint8 up to 5 letters, uint16 above
        size = 2 * rows * cols * table.dtype.itemsize
        self.shm = shared_memory.SharedMemory(create=True, size=max(1, size))
        both = np.ndarray((2, rows * cols), dtype=table.dtype, buffer=self.shm.buf)
        both[0] = np.ascontiguousarray(table).ravel()
        both[1].reshape(cols, rows)[...] = table.T
        self.name = self.shm.name

    def close(self) -> None:
        try:
            self.shm.unlink()  # first: close() fails while an array still maps it
            self.shm.close()
        except (FileNotFoundError, BufferError):
            pass


def _attach(name: str, shape: tuple[int, int], dtype: str = "|u1"):
    from multiprocessing import resource_tracker

    # the server owns the block and unlinks it; a worker that registered it too would
    # have the tracker unlink it (or warn) a second time
    register = resource_tracker.register
    resource_tracker.register = lambda *a, **k: None
    try:
        shm = shared_memory.SharedMemory(name=name)
    finally:
        resource_tracker.register = register
    rows, cols = shape
    # left writeable: the compiled kernels take writeable arrays (a read-only one
    # would send numba to compile another version); no worker writes the table
    both = np.ndarray((2, rows * cols), dtype=np.dtype(dtype), buffer=shm.buf)
    return shm, both[0].reshape(rows, cols), both[1].reshape(cols, rows)


@dataclass
class WorkerSpec:
    """What a worker process needs to make its Engine (all picklable)."""

    answers: list[str]
    guesses: list[str]
    answers_source: str
    guesses_source: str
    table_name: str
    table_shape: tuple[int, int]
    table_dtype: str  # numpy's code: "|u1" (up to 5 letters) or "<u2"
    memo_entries: int | None
    warm: tuple[Mode, int]  # the problem whose solver is made before the first task
    nice: int = 0


def _die_with_parent() -> None:
    """Linux: the kernel kills this process when the server dies, even by kill -9."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _child(conn, cancel, spec: WorkerSpec) -> None:
    """A worker process: make the Engine, say ready, then run tasks until EOF."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server stops its workers itself
    if spec.nice:
        os.nice(spec.nice)
    from ..words import WordLists
    from . import adapter
    from .compute import Engine

    shm, table, table_t = _attach(spec.table_name, spec.table_shape, spec.table_dtype)
    lists = WordLists(spec.answers, spec.guesses, spec.answers_source, spec.guesses_source)
    engine = Engine(lists, table, table_t, spec.memo_entries)
    engine.solver(*spec.warm)  # no kernel needed yet (the book answers the first move)
    running = threading.Event()  # a task is under way: its progress goes to the page

    def check() -> None:
        if cancel.is_set():
            raise adapter.Cancelled()

    report = Reporter(conn.send)
    _warm_kernels(table.dtype, running, report)
    conn.send(("ready", os.getpid()))
    while True:
        try:
            kind, params = conn.recv()
        except (EOFError, OSError):
            return
        report.start()
        out: tuple[str, object]
        running.set()
        try:
            out = ("done", engine.run(kind, params, check, report))
        except adapter.Cancelled:
            out = ("cancelled", None)
        except WordleDPError as exc:
            out = ("error", str(exc))
        except Exception as exc:  # a bug: logged here, reported without a traceback
            log.exception("internal error in a worker")
            out = ("error", f"internal error ({type(exc).__name__}); see the server log")
        finally:
            running.clear()
        conn.send(out)


class Reporter:
    """A worker's progress messages to the server, as report(done, total, message,
    eta): at most one every PROGRESS_EVERY seconds (the last of a count always), and
    each with the seconds left. The task may give them (a strategy's cost model);
    otherwise they come from the count's present pace (progress.Pace, as on the
    command line), so the page's estimate follows a ranking that speeds up instead of
    its average."""

    def __init__(self, send: Callable[[tuple[str, dict]], None]):
        self.send = send
        self.start()

    def start(self) -> None:
        """A new task: its own pace, and its first message at once."""
        self.last = -math.inf
        self.pace = Pace()

    def __call__(self, done: int, total: int, message: str = "",
                 eta: float | None = None) -> None:
        now = time.monotonic()
        if now - self.last < PROGRESS_EVERY and done < total and eta is None:
            return
        self.last = now
        if eta is None and total > 0:
            left = self.pace.eta(now, done, total)
            eta = left if math.isfinite(left) else None  # nothing done yet: no estimate
        self.send(("progress", {"done": done, "total": total, "message": message,
                                "eta": eta}))


def _warm_kernels(dtype, running: threading.Event, report) -> None:
    """The search kernels, loaded (or, after a source install, compiled: a minute
    or more) on a thread of the worker, so that the worker takes its first task at
    once: the first move comes from the book, which needs none. A task that needs
    them meanwhile waits for that build, and its progress says so, with about how
    long is left (solver.aot's notices); the workers take turns on the build's lock,
    so one compiles, and says so on the server's stderr."""
    from .. import aot
    from . import adapter

    def notice(kind: str, message: str, eta: float | None) -> None:
        # the main thread alone talks to the server, and only during a task
        if running.is_set() and threading.current_thread() is threading.main_thread():
            # the page adds its own ellipsis and the time left, counted down
            report(0, 0, message.split(" (")[0].rstrip("."), eta)
        elif kind != "wait":  # the console of `serve`: the one worker that compiles
            aot.to_stderr(kind, message, eta)

    aot.set_notice(notice)

    def warm() -> None:
        try:
            adapter.prepare_kernels(dtype)
        except Exception:  # the task that needs them tries again, and says why
            log.exception("the search kernels could not be prepared")

    threading.Thread(target=warm, name="wordle-dp-kernels", daemon=True).start()


# ------------------------------------------------------------------------ tasks
FINAL = ("done", "error", "cancelled")


@dataclass(eq=False)
class Task:
    """One computation, shared by every request and job that asks for it."""

    key: tuple
    kind: str
    params: dict
    lane: str = "quick"  # or "background"
    priority: int = 1  # in the quick lane, lower first (0: a bare next guess, cheap)
    state: str = "queued"  # queued, running, done, error, cancelled
    progress: dict = field(default_factory=lambda: {"done": 0, "total": 0, "message": ""})
    result: dict | None = None
    error: str | None = None
    created: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    holders: set = field(default_factory=set)
    stop: bool = False  # cancel asked: the slot stops it
    done_event: threading.Event = field(default_factory=threading.Event)
    on_done: list = field(default_factory=list)  # callables, run once when final

    @property
    def final(self) -> bool:
        return self.state in FINAL

    def elapsed(self) -> float | None:
        if self.started is None:
            return None
        return round((self.finished or time.monotonic()) - self.started, 3)


# ------------------------------------------------------------------------ slots
class Slot:
    """One worker process and the thread in the server that feeds it."""

    ids = itertools.count(1)

    def __init__(self, sched: Scheduler):
        self.sched = sched
        self.id = next(Slot.ids)
        self.task: Task | None = None
        self.retire = False
        self.proc: Any = None  # multiprocessing's Process, Connection, Event
        self.conn: Any = None
        self.cancel: Any = None
        self.ready = False
        self.pid: int | None = None
        self._kill_lock = threading.Lock()
        self._start_process()
        self.thread = threading.Thread(target=self._loop, name=f"wordle-dp-slot-{self.id}",
                                       daemon=True)
        self.thread.start()

    def _start_process(self) -> None:
        ctx = self.sched.ctx
        parent, child = ctx.Pipe()
        self.cancel = ctx.Event()
        proc = ctx.Process(target=_child, args=(child, self.cancel, self.sched.spec),
                           name=f"wordle-dp-worker-{self.id}", daemon=True)
        proc.start()
        self.proc = proc
        child.close()
        self.conn = parent
        self.ready = False
        self.pid = None  # until the process says it is ready

    def kill(self) -> None:
        """End the process now (a search may not reach its next check for minutes).
        Called by the slot's thread and by close(): once per process."""
        with self._kill_lock:
            p, conn = self.proc, self.conn
            self.conn = None
            if p is not None and p.is_alive():
                p.kill()
            if p is not None:
                p.join(2)
            if conn is not None:
                try:
                    conn.close()
                except OSError:
                    pass

    def restart(self) -> None:
        self.kill()
        if not self.sched.closing:
            self._start_process()

    def _wait_ready(self) -> bool:
        while not self.ready:
            if self.sched.closing:
                return False
            try:
                if self.conn is None:
                    raise EOFError
                if self.conn.poll(POLL):
                    msg = self.conn.recv()
                    if msg[0] == "ready":
                        self.ready, self.pid = True, msg[1]
                elif not self.proc.is_alive():
                    log.error("a worker process died while starting (exit %s)",
                              self.proc.exitcode)
                    time.sleep(1.0)  # do not spin on a worker that cannot start
                    self._start_process()
            except (EOFError, OSError):
                time.sleep(1.0)
                self._start_process()
        return True

    def _loop(self) -> None:
        while True:
            task = self.sched._take(self)
            if task is None:
                self.kill()
                return
            self._run(task)

    def _run(self, task: Task) -> None:
        if not self._wait_ready():
            self.sched._finish(task, "cancelled")
            return
        # now that the process's pid is known (a fresh process after a kill has a
        # new one): background work yields the CPU from its first instruction
        self.sched._set_nice(self, task.lane)
        self.cancel.clear()
        conn = self.conn
        try:
            if conn is None:
                raise OSError("no worker process")
            conn.send((task.kind, task.params))
        except (OSError, ValueError):
            self.restart()
            self.sched._finish(task, "error", error="the worker process stopped; try again")
            return
        asked = None  # when the cancel was passed on
        while True:
            if task.stop and asked is None:
                self.cancel.set()
                asked = time.monotonic()
            if asked is not None and time.monotonic() - asked > GRACE:
                self.restart()  # frees the CPU at once; the new process warms up meanwhile
                self.sched._finish(task, "cancelled")
                return
            self.sched._maybe_promote(self, task)
            try:
                if not conn.poll(POLL):
                    if not self.proc.is_alive():
                        raise EOFError
                    continue
                what, value = conn.recv()
            except (EOFError, OSError):
                code = self.proc.exitcode
                self.restart()
                if task.stop or self.sched.closing:
                    self.sched._finish(task, "cancelled")
                else:
                    log.error("a worker process died during a task (exit %s)", code)
                    self.sched._finish(task, "error",
                                       error="the worker process died; see the server log")
                return
            if what == "progress":  # stamped: an estimate ages from when it was made
                at = None if task.started is None else round(time.monotonic() - task.started, 3)
                task.progress = {**value, "at": at}
            elif what == "done":
                self.sched._finish(task, "done", result=value)
                return
            elif what == "error":
                self.sched._finish(task, "error", error=value)
                return
            else:
                self.sched._finish(task, "cancelled")
                return

    def rss_bytes(self) -> int | None:
        """Resident memory of the worker process (Linux), None when unknown."""
        if self.pid is None:
            return None
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            return None
        return None


# -------------------------------------------------------------------- scheduler
class Scheduler:
    """Tasks on worker processes: see the module docstring for the rules."""

    def __init__(self, spec: WorkerSpec, workers: int = 2, reserve: int = 1,
                 quick_slice: float = 3.0, cache_entries: int = 32, max_queued: int = 32,
                 background_nice: int = 10):
        if workers < 1 or reserve < 1:
            raise ValueError("workers and reserve must be >= 1")
        self.spec = spec
        self.workers = workers  # background tasks at once
        self.reserve = reserve  # slots kept for quick tasks
        self.quick_slice = quick_slice
        self.cache_entries = cache_entries
        self.max_queued = max_queued
        self.background_nice = background_nice
        self.ctx = _context()
        self.closing = False
        self.cv = threading.Condition()
        self.queues: dict[str, deque[Task]] = {"quick": deque(), "background": deque()}
        self.active: dict[tuple, Task] = {}  # key -> unfinished task
        self.cache: OrderedDict[tuple, dict] = OrderedDict()
        self.stats = {"computed": 0, "shared": 0, "cached": 0, "killed": 0, "promoted": 0}
        self.slots: list[Slot] = []
        with self.cv:  # the slots' threads wait for the list to be complete
            for _ in range(workers + reserve):
                self.slots.append(Slot(self))

    # -- asking
    def cached(self, key: tuple) -> dict | None:
        with self.cv:
            res = self.cache.get(key)
            if res is not None:
                self.cache.move_to_end(key)
                self.stats["cached"] += 1
            return res

    def submit(self, key: tuple, kind: str, params: dict, lane: str, holder,
               priority: int = 1) -> Task:
        """The task computing `key` (an unfinished one is shared), held by `holder`
        until `release`. A cached result gives a finished task. Quick tasks of a
        lower `priority` are taken first (cheap answers do not queue behind dear
        ones)."""
        with self.cv:
            if self.closing:
                raise QueueFull("the server is stopping")
            task = self.active.get(key)
            if task is not None and not task.stop:  # (a stopping one is not shared)
                self.stats["shared"] += 1
                task.holders.add(holder)
                if lane == "quick" and task.state == "queued" and task.lane != "quick":
                    self.queues[task.lane].remove(task)  # someone waits for it now
                    task.lane = "quick"
                    self.queues["quick"].append(task)
                    self.cv.notify_all()
                return task
            if key in self.cache:
                self.cache.move_to_end(key)
                self.stats["cached"] += 1
                task = Task(key, kind, params, lane, state="done", result=self.cache[key])
                task.finished = task.started = time.monotonic()
                task.done_event.set()
                return task
            waiting = sum(len(q) for q in self.queues.values())
            if waiting >= self.max_queued:
                raise QueueFull(f"{waiting} computations are waiting; try again later")
            task = Task(key, kind, params, lane, priority=priority, holders={holder})
            self.active[key] = task
            self.queues[lane].append(task)
            self.cv.notify_all()
            return task

    def release(self, task: Task, holder) -> None:
        """`holder` no longer wants the task: the last one out cancels it."""
        with self.cv:
            task.holders.discard(holder)
            if not task.holders and not task.final:
                self._cancel(task)

    def to_background(self, task: Task) -> None:
        """Nobody waits on the answer now (it became a job): the task may wait its
        turn behind the quick ones, and yields the CPU to them when running."""
        with self.cv:
            if task.state == "queued" and task.lane == "quick":
                self.queues["quick"].remove(task)
                task.lane = "background"
                self.queues["background"].append(task)
            for s in self.slots:
                if s.task is task:
                    self._set_nice(s, "background")

    def _cancel(self, task: Task) -> None:
        if task.state == "queued":
            self.queues[task.lane].remove(task)
            self._finish_locked(task, "cancelled")
        else:
            task.stop = True

    # -- slots
    def _busy(self, lane: str) -> int:
        return sum(1 for s in self.slots if s.task is not None and s.task.lane == lane)

    def _take(self, slot: Slot) -> Task | None:
        with self.cv:
            while True:
                if self.closing or slot.retire:
                    if slot in self.slots:
                        self.slots.remove(slot)
                    return None
                q = self.queues["quick"]
                task = min(q, key=lambda t: t.priority) if q else None  # first cheapest
                if task is not None and task.priority > 0 and self.reserve >= 2 and \
                        sum(1 for s in self.slots if s.task is None and s is not slot) == 0:
                    task = None  # the last idle slot waits for a cheap answer
                if task is not None:
                    q.remove(task)
                elif self.queues["background"] and self._busy("background") < self.workers:
                    task = self.queues["background"].popleft()
                else:
                    self.cv.wait()
                    continue
                task.state = "running"
                task.started = time.monotonic()
                slot.task = task
                self._set_nice(slot, task.lane)
                return task

    def _set_nice(self, slot: Slot, lane: str) -> None:
        """Background searches yield the CPU to quick answers."""
        if slot.pid is None:
            return
        try:
            os.setpriority(os.PRIO_PROCESS, slot.pid,
                           self.background_nice if lane == "background" else 0)
        except OSError:  # lowering a niceness needs privileges: stay niced
            pass

    def _maybe_promote(self, slot: Slot, task: Task) -> None:
        """A quick task running past `quick_slice` becomes background work and a new
        slot keeps the quick lane free (at most `workers` extra slots)."""
        if task.lane != "quick" or task.started is None:
            return
        if time.monotonic() - task.started < self.quick_slice:
            return
        with self.cv:
            # (its priority stays: a client is still waiting for it; it yields the CPU
            # only once it becomes a job, in to_background)
            task.lane = "background"
            self.stats["promoted"] += 1
            free = sum(1 for s in self.slots if s.task is None or s.task.lane == "quick")
            if free < self.reserve and len(self.slots) < 2 * self.workers + self.reserve:
                self.slots.append(Slot(self))

    def _finish(self, task: Task, state: str, result: dict | None = None,
                error: str | None = None) -> None:
        with self.cv:
            self._finish_locked(task, state, result, error)
            for s in self.slots:
                if s.task is task:
                    s.task = None
                    # extra slots made for the quick lane retire when spare
                    if len(self.slots) > self.workers + self.reserve and not s.retire:
                        idle = sum(1 for x in self.slots if x.task is None and not x.retire)
                        if idle > self.reserve:
                            s.retire = True
            self.cv.notify_all()

    def _finish_locked(self, task: Task, state: str, result: dict | None = None,
                       error: str | None = None) -> None:
        if task.final:
            return
        if task.stop and state == "done":
            state = "cancelled"  # a result that came too late is dropped
        task.state, task.result, task.error = state, result, error
        task.finished = time.monotonic()
        if self.active.get(task.key) is task:
            del self.active[task.key]
        if state == "done" and result is not None:
            self.stats["computed"] += 1
            self.cache[task.key] = result
            self.cache.move_to_end(task.key)
            while len(self.cache) > self.cache_entries:
                self.cache.popitem(last=False)
        elif state == "cancelled" and task.started is not None:
            self.stats["killed"] += 1
        task.done_event.set()
        for fn in task.on_done:
            try:
                fn()
            except RuntimeError:  # the waiter's event loop has closed (a stop)
                pass

    # -- state
    def state(self) -> dict:
        """Slots, queues and cache, for /api/info and the load test."""
        with self.cv:
            return {
                "workers": self.workers, "reserve": self.reserve,
                "slots": [{"busy": s.task is not None, "pid": s.pid,
                           "lane": s.task.lane if s.task else None,
                           "rss_bytes": s.rss_bytes()} for s in self.slots],
                "queued": {k: len(q) for k, q in self.queues.items()},
                "cache_entries": len(self.cache), "stats": dict(self.stats),
            }

    def close(self) -> None:
        """Cancel every task and end every worker process (SIGTERM: within seconds)."""
        with self.cv:
            self.closing = True
            for q in self.queues.values():
                while q:
                    self._finish_locked(q.popleft(), "cancelled")
            for t in list(self.active.values()):
                t.stop = True
            slots = list(self.slots)
            self.cv.notify_all()
        for s in slots:
            if s.task is not None:
                self._finish(s.task, "cancelled")
            s.kill()


def _context():
    """forkserver: a worker (also one started after a cancel) is a fork of a process
    that has already imported the engine, with none of the server's threads."""
    try:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["solver.web.compute", "solver.search.engine"])
        return ctx
    except ValueError:  # no forkserver on this platform
        return mp.get_context("spawn")
