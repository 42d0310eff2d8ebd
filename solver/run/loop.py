"""Rank 0's message loop (coordinate): the work goes to the solvers as they ask
for it, results come back to the Coordinator, and a stop is carried out.

The solvers are the worker ranks 1..N-1 (over MPI) and, unless the job is large,
rank 0 itself: its solver runs in a thread (LocalSolver) beside this loop, which
stays in the main thread, so signals and the time limit are seen at once, and the
engine's kernels run without the GIL. Links hides which is which.

Stopping (a signal, the time limit): no more work goes out; what is in flight may
finish within the run's grace; past it, every solve still running is abandoned
through the engine's stop flag (it ends within milliseconds and its opener stays
pending, the classes it valued checkpointed: worker.serve), and the run ends as
a stopped run, exit status 0. Only a worker that cannot hear the abandon message
(an MPI without MPI_THREAD_MULTIPLE) and is still busy ABANDON_WAIT seconds later
makes rank 0 end the job with MPI_Abort.

No tail: when the queue runs dry, an idle solver is not stopped while another one
values an opener whole that may be split (a run that splits, exactly or under a
cutoff): once that opener has run Tuning.steal_after seconds, rank 0 takes its
chunk back (a steal naming the chunk, which the worker ignores once that chunk is
done). The worker finishes the class in progress and answers with every class it
valued (nothing is lost), and the opener's classes not started go out again (the
big ones in parts, Work.add_split) to every idle solver; under a cutoff with the
lower bounds it knew of them, each class whole with the budget they leave it. The
values are those of the opener valued whole: split openers are combined by solve's
own rules (split.py)."""

from __future__ import annotations

import queue
import threading
import time
import traceback

from .coordinator import Coordinator
from .mpi import QUIET_SLEEP, TAG_ABANDON, TAG_REP, TAG_REQ, Signals
from .units import Unit
from .worker import Worker, serve

ABANDON_WAIT = 30.0  # seconds an abandoned solve has to answer before the job ends
BUSY_SLEEP = 0.004  # the longest the coordinator sleeps between looks while work is out


class LocalSolver:
    """Rank 0's own solver, in a thread: the same conversation (worker.serve) as a
    worker rank, over two in-process queues."""

    def __init__(self, worker: Worker, signals: Signals):
        self.worker = worker
        self.inbox: queue.Queue = queue.Queue()
        self.outbox: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="rank0-solver", daemon=True)
        self._signals = signals

    def start(self) -> LocalSolver:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            serve(self.worker, self.inbox.get, self.outbox.put, self._signals)
        except BaseException as exc:  # a bug: say so, as a worker rank that cannot go on
            self.outbox.put(("failed", f"{type(exc).__name__}: {exc}\n"
                             + traceback.format_exc(limit=6)))

    def alive(self) -> bool:
        return self._thread.is_alive()


class Links:
    """Rank 0's side of the conversation with every solver: solver 0 is the local
    thread (when rank 0 solves), solvers 1..N-1 the worker ranks."""

    def __init__(self, comm, MPI, local: LocalSolver | None):  # noqa: N803
        self.comm, self.MPI, self.local = comm, MPI, local
        size = comm.Get_size() if comm is not None else 1
        self.solvers = ([0] if local is not None else []) + list(range(1, size))
        self._abandons: list = []
        # the solvers a steal reaches mid-solve: rank 0's thread, and worker ranks
        # whose watcher thread may call MPI beside the solve (worker.AbandonWatcher)
        from .mpi import threads_ok

        self.can_steal = set(self.solvers) if comm is None or threads_ok(MPI) else (
            {0} & set(self.solvers))

    def poll(self, until: float, should_break, max_sleep: float = QUIET_SLEEP
             ) -> tuple[int, tuple] | None:
        """The next message from any solver, or None at `until` (monotonic) or when
        should_break() turns true first. Sleeps between looks, up to `max_sleep`."""
        comm = self.comm
        st = self.MPI.Status() if comm is not None else None
        delay = 0.0002
        while True:
            if self.local is not None:
                try:
                    return 0, self.local.outbox.get_nowait()
                except queue.Empty:
                    pass
            if comm is not None and st is not None and comm.Iprobe(
                    source=self.MPI.ANY_SOURCE, tag=TAG_REQ, status=st):
                src = st.Get_source()
                return src, comm.recv(source=src, tag=TAG_REQ)
            if time.monotonic() >= until or should_break():
                return None
            time.sleep(delay)
            delay = min(delay * 1.5, max_sleep)

    def send(self, w: int, msg: tuple) -> None:
        if w == 0:
            assert self.local is not None
            self.local.inbox.put(msg)
        else:
            self.comm.send(msg, dest=w, tag=TAG_REP)

    def abandon(self, w: int) -> None:
        """Cut solver w's unit in flight short (it answers with what it finished)."""
        if w == 0:
            assert self.local is not None
            self.local.worker.stop()
        else:
            self._abandons.append(self.comm.isend(("abandon",), dest=w, tag=TAG_ABANDON))

    def steal(self, w: int, chunk: int) -> None:
        """Take solver w's chunk number `chunk` back (it answers with what it
        finished; ignored once that chunk is done)."""
        if w == 0:
            assert self.local is not None
            self.local.worker.steal(chunk)
        else:
            self._abandons.append(self.comm.isend(("steal", chunk), dest=w,
                                                  tag=TAG_ABANDON))

    def close(self) -> None:
        for req in self._abandons:  # small messages: sent eagerly, done or droppable
            if not req.Test():
                req.Cancel()


def chunk_size(co: Coordinator, n_solvers: int, kind: str) -> int:
    """Units of this kind per hand-out: one while such units are slow, more once
    they take only milliseconds (so messaging does not dominate), never so many
    that the tail of the queue is unbalanced. Kinds are timed apart: quick classes
    must not bundle whole openers, which would then be too many to take back."""
    avg, n = co.wall_of(kind)
    if n < 3:
        return 1
    k = int(co.cfg.tuning.chunk_seconds / max(avg, 1e-6))
    k = min(k, co.cfg.tuning.max_chunk, len(co.work) // (2 * n_solvers))
    return max(1, k)


def coordinate(co: Coordinator, links: Links) -> None:
    """Answer the solvers until every one is stopped. A solver that asks while
    nothing is queued but a head unit in flight may still release classes waits for
    its reply (idle) instead of being stopped."""
    active = set(links.solvers)
    busy: dict[int, list[Unit]] = {}
    idle: list[int] = []
    stop_at = None
    abandoned_at = None
    chunk_of: dict[int, int] = {}  # solver -> the number of the chunk it has
    chunks = 0
    stealing: dict[int, int] = {}  # solver -> the opener being taken back from it
    early: dict[int, float] = {}  # solver -> wall seconds of its chunk's partial results

    def stop(w: int) -> None:
        links.send(w, ("stop",))
        active.discard(w)

    def steal() -> bool:
        """With the queue dry: whether the idle solvers wait, because an opener is
        being taken back (or may be soon) to be split among them."""
        if stealing:
            return True
        can = {w for w in links.can_steal if w in busy}
        w = co.steal_target(busy, can, time.monotonic())
        if w is not None:
            stealing[w] = busy[w][0].index
            links.steal(w, chunk_of[w])
            return True
        return any(co.stealable(busy[v]) for v in can)  # not yet: wait for it

    def dispatch() -> None:
        nonlocal chunks
        while idle:
            if co.check_stop():
                stop(idle.pop(0))
            elif not co.work.more():
                if steal():
                    return  # classes to come from an opener taken back
                stop(idle.pop(0))
            elif not len(co.work):
                return  # classes to come: the idle wait
            else:
                units = co.work.pop()
                kind = type(units[0])
                k = chunk_size(co, len(links.solvers), kind.__name__)
                while (len(units) < k and not co.work.alone(units[0])
                       and isinstance(co.work.peek(), kind)
                       and not co.work.alone(co.work.peek())):
                    units += co.work.pop()
                w = idle.pop(0)
                busy[w] = units
                co.sent(w, units)
                chunks += 1
                chunk_of[w] = chunks
                links.send(w, ("work", units, co.cutoffs_for(units), chunks))

    while active:
        if co.check_stop() and stop_at is None:
            stop_at = time.monotonic()
            co.flush()
            dispatch()  # the idle ones stop now
            n_busy = sum(len(v) for v in busy.values())
            if not co.cfg.options.quiet and busy:
                co.report.stopping(co.stop_reason, co.cfg.tuning.grace, n_busy)
        if stop_at is not None and busy and abandoned_at is None and (
                time.monotonic() - stop_at >= co.cfg.tuning.grace):
            abandoned_at = time.monotonic()
            if not co.cfg.options.quiet:
                n_busy = sum(len(v) for v in busy.values())
                co.report.cut_short(n_busy)
            for w in busy:
                links.abandon(w)
        if abandoned_at is not None and busy and (
                time.monotonic() - abandoned_at > ABANDON_WAIT):
            co.abort_needed = any(w != 0 for w in busy)  # a rank that cannot hear it
            return
        got = links.poll(time.monotonic() + 1.0,  # answers within ms while work is out
                         lambda s=stop_at: s is None and co.check_stop(),
                         BUSY_SLEEP if busy else QUIET_SLEEP)
        if got is None:
            if idle and stop_at is None:
                dispatch()  # an opener may have run long enough to be taken back
            co.tick()
            continue
        t0 = time.perf_counter()
        src, msg = got
        kind = msg[0]
        if kind == "partial":  # classes of the unit in flight, valued so far
            for item, err in msg[1]:
                co.add_item(item, err, None)
            co.handled += len(msg[1])
            early[src] = early.get(src, 0.0) + sum(r.wall_seconds for r, _e in msg[1])
            co.tick()
            co.handle_seconds += time.perf_counter() - t0
            continue
        if kind == "result":
            results, stats, sig = msg[1], msg[2], msg[3]
            units = busy.pop(src, [])
            co.returned(src)
            wall = early.pop(src, 0.0) + sum(r.wall_seconds for r, _e in results)
            if units:
                co.unit_wall(type(units[0]).__name__, wall / len(units))
            for item, err in results:
                co.add_item(item, err, stats)
            co.handled += len(results)
            taken = stealing.pop(src, None)
            if taken is not None and msg[4] and not co.check_stop():
                co.split_stolen(taken, results)  # its classes, for every idle solver
            if sig is not None and co.signals.received is None:
                co.signals.received = sig
        elif kind == "failed":  # the solver could not even be built
            co.report.cannot_solve(src, msg[1].splitlines()[0])
            busy.pop(src, None)
            stealing.pop(src, None)
            co.returned(src)
            if src != 0:
                stop(src)
            else:
                active.discard(0)
            continue
        idle.append(src)
        dispatch()
        co.tick()
        co.handle_seconds += time.perf_counter() - t0
    if co.stop_reason and not co.work.more() and co.solved + co.failed >= co.n_queued:
        co.stop_reason = None  # everything got done anyway
