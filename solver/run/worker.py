"""A solving rank: one engine for the whole run (its memo carries over from one
opener to the next), and the loop that asks rank 0 for work (`serve`): on ranks
1..N-1 over MPI (worker_main), on rank 0 in a thread beside the coordinator
(loop.LocalSolver). A stop that outlasts the run's grace reaches a solve in
progress through the engine's stop flag (Solver.request_stop): over MPI a watcher
thread listens for rank 0's abandon message while the solve runs."""

from __future__ import annotations

import inspect
import threading
import time
import traceback
from collections.abc import Callable

import numpy as np

from ..search.engine import Stopped
from ..store import EXACT, FAILED, PENDING, STATUS_CODES, UPPER_BOUND, Record
from ..variant import Objective, n_patterns
from .config import RunConfig, RunSummary, default_memo_mb
from .cutoffs import Cutoffs
from .mpi import (
    QUIET_SLEEP,
    TAG_ABANDON,
    TAG_REP,
    TAG_REQ,
    Signals,
    gather_spreads,
    node_layout,
    node_memory_bytes,
    node_table,
    quiet_bcast,
    threads_ok,
    wait_message,
)
from .split import (
    ClassBound,
    ClassResult,
    PartResult,
    class_status_code,
    classes_of,
    decisive,
)
from .units import Classes, Part, Unit, Whole

# A quick bound that finds nothing within the cap among its candidates is tried
# again with this many times more: parts with no bound refute only against their
# own best and cost more (hard jiffy's all-grey class, 394 s whole: 16 parts
# about 3x that without a bound, 1.8x with one). Its first 10 candidates fail in
# 0.24 s, the first 100 find trape 3925 in 5.3 s (goony's: 0.2 s, then 1.2 s)
QUICK_RETRY = 10
# A unit of several classes hands what it has valued to rank 0 at least this often
# (seconds), not only at its end: a split opener's head of "cheap" classes ran for
# hours on the bighidden lists, and a kill there lost every class it had valued.
PARTIAL_EVERY = 60.0


def _test_slow(taken_back: Callable[[], bool]) -> None:
    """Test hook: with WORDLE_DP_TEST_SLOW=S, each opener valued whole waits S
    seconds first, so that a test can stop a run of a tiny problem part-way (its
    openers take milliseconds) at a known point. A steal (`taken_back()`) ends the
    wait: the opener then gives back its classes after its first, however late in
    the S seconds the steal came, so a test can wait long for one at no cost."""
    import os

    slow = os.environ.get("WORDLE_DP_TEST_SLOW")
    if slow:
        end = time.monotonic() + float(slow)
        while time.monotonic() < end and not taken_back():
            time.sleep(min(0.05, max(0.0, end - time.monotonic())))


def _partial_every() -> float:
    """PARTIAL_EVERY, or the test hook WORDLE_DP_TEST_PARTIAL_EVERY (seconds): the
    MPI tests make every class of a unit travel alone on the worker ranks."""
    import os

    hook = os.environ.get("WORDLE_DP_TEST_PARTIAL_EVERY")
    return PARTIAL_EVERY if not hook else float(hook)


def default_factory(lists, mode, max_guesses, table, memo_mb: float | None = None):
    from ..search import Solver
    from ..search.engine import DEFAULT_MEMO_ENTRIES, memo_entries_for

    memo = DEFAULT_MEMO_ENTRIES if memo_mb is None else memo_entries_for(memo_mb)
    return Solver(lists, mode=mode, max_guesses=max_guesses, table=table, memo_entries=memo)


class Worker:
    """One rank's solver, kept for the whole run (memo reused across openers)."""

    def __init__(self, cfg: RunConfig, lists, table, rank: int, memo_mb: float | None = None):
        p = cfg.problem
        if cfg.tuning.solver_factory is not None:
            self.solver = cfg.tuning.solver_factory(lists, p.mode, p.max_guesses, table)
        else:
            self.solver = default_factory(lists, p.mode, p.max_guesses, table, memo_mb)
        if p.objective == Objective.WORST:
            from ..search.worst import WorstSolver

            self.solver = WorstSolver(self.solver)
        elif p.objective == Objective.WINS:
            from ..search.wins import WinsSolver

            self.solver = WinsSolver(self.solver)
        self.lists = lists
        self.cutoff = cfg.options.cutoff
        self.rank = rank
        self.has_second = callable(getattr(self.solver, "second_guesses", None))
        # an exact opener's class values come with its second guesses (one pass over
        # its classes, from the memo its solve just filled), so that the book needs
        # no search of its own; not under the other objectives (other values)
        self.has_classes = p.objective == Objective.EXPECTED and callable(
            getattr(self.solver, "class_rows", None))
        # an exact opener cut short by a stop keeps the classes it valued: they go to
        # the class checkpoint, and the resumed run values only the others (split)
        solve = getattr(self.solver, "solve", None)
        takes = inspect.signature(solve).parameters if callable(solve) else {}
        self.keeps_classes = self.has_classes and "on_class" in takes
        # ... and under a cutoff, with lower bounds of the classes it had not valued,
        # so that a steal can hand those out with budgets (split.py)
        self.keeps_bounds = self.keeps_classes and "on_bounds" in takes
        self._cut_short: list[ClassResult | ClassBound] = []
        # the chunk of work in hand (its number from rank 0), so that a steal meant
        # for one chunk never touches a later one; whether a steal asked the opener
        # in hand to give up its classes not started yet. Rank 0 numbers its chunks
        # in order, so a steal naming a chunk above the last one begun is for the
        # chunk still on its way here (the steal's message, on another tag or
        # straight from rank 0's thread, can overtake it): it waits for that chunk
        self._lock = threading.Lock()
        self._chunk: int | None = None
        self._last_begun = 0
        self._steal_ahead: int | None = None
        self._yield = False
        self.table = table

    def stop(self) -> None:
        """Cut the solve in progress short (from another thread): it raises Stopped,
        and so does every later solve (the run is stopping)."""
        request = getattr(self.solver, "request_stop", None)
        if callable(request):
            request()

    def begin(self, chunk: int | None) -> None:
        """Chunk number `chunk` of rank 0's is in hand (None: unnumbered)."""
        with self._lock:
            self._chunk = chunk
            if chunk is not None:
                self._last_begun = max(self._last_begun, chunk)
                self._yield = chunk == self._steal_ahead
                if self._steal_ahead is not None and self._steal_ahead <= chunk:
                    self._steal_ahead = None

    def end(self) -> None:
        """The chunk in hand is done: a steal that came for it no longer does
        anything."""
        with self._lock:
            self._chunk = None
            self._yield = False

    def steal(self, chunk: int) -> None:
        """Rank 0 takes chunk `chunk` back to hand its opener out as classes (the
        queue ran dry): if it is still in hand, the opener valued whole stops once
        the class in progress is valued (nothing computed is lost, the memo is
        kept) and gives back the classes not started; a steal that comes after the
        chunk is ignored, and one that comes before it (the chunk's message still on
        its way) takes effect when it begins."""
        with self._lock:
            if self._chunk is not None and self._chunk == chunk:
                self._yield = True
            elif chunk > self._last_begun:
                self._steal_ahead = chunk

    def stats(self) -> dict:
        s = getattr(self.solver, "stats", None)
        if callable(s):
            s = s()
        if not isinstance(s, dict):
            return {}
        return {k: v for k, v in s.items() if isinstance(v, int | float)}

    def solve(self, index: int, cutoff: int | None = None) -> tuple[Record, str | None]:
        """Value one opener whole under `cutoff` (None: exactly). Stopped passes
        through: the opener stays pending."""
        word = self.lists.guesses[index]
        t0 = time.perf_counter()
        c0 = time.process_time()
        _test_slow(lambda: self._yield)
        valued: list[ClassResult | ClassBound] = []
        last = [c0, t0]

        def bounds(known: dict[int, int]) -> None:  # under a cutoff, before any class
            valued.extend(ClassBound(index, int(p), int(b)) for p, b in known.items())

        def keep(pattern: int, status: str, total: int, depth: int, second: str) -> None:
            c, w = time.process_time(), time.perf_counter()
            valued.append(ClassResult(index, int(pattern), class_status_code(status), total,
                                      depth, self.lists.guess_index[second], c - last[0],
                                      w - last[1], -1, self.rank))
            last[:] = c, w
            n_valued = sum(isinstance(v, ClassResult) for v in valued)
            if self._yield and n_valued < len(classes_of(self.table[index],
                                                         n_patterns(self.lists.length))):
                raise Stopped("taken back: the classes not started go to idle ranks")

        try:
            if cutoff is None and self.keeps_classes:
                r = self.solver.solve(word, on_class=keep)
            elif cutoff is None:
                r = self.solver.solve(word)
            elif self.keeps_bounds:
                r = self.solver.solve(word, cutoff=cutoff, on_class=keep, on_bounds=bounds)
            else:
                r = self.solver.solve(word, cutoff=cutoff)
            second = rows = None
            code = STATUS_CODES[r.status]
            n_p = n_patterns(self.lists.length)
            if self.has_classes and code == EXACT:
                second = np.full(n_p, -1, dtype=np.int32)
                rows = np.full((2, n_p), -1, dtype=np.int32)  # total, depth
                for p, (v, w, d) in self.solver.class_rows(word).items():
                    second[int(p)] = self.lists.guess_index[w]
                    rows[:, int(p)] = v, d
            elif self.has_second and code in (EXACT, UPPER_BOUND):
                sg = self.solver.second_guesses(word)
                if sg:
                    second = np.full(n_p, -1, dtype=np.int32)
                    for p, w in sg.items():
                        second[int(p)] = self.lists.guess_index[w]
            rec = Record(
                index=index,
                status=code,
                total=-1 if r.total is None else int(r.total),
                depth=-1 if r.depth is None else int(r.depth),
                cpu_seconds=time.process_time() - c0,
                wall_seconds=time.perf_counter() - t0,
                nodes=int(r.nodes) if r.nodes is not None else -1,
                rank=self.rank,
                finished_at=time.time(),
                second=second,
                class_rows=rows,
                wins=-1 if getattr(r, "wins", None) is None else int(r.wins),
            )
            return rec, None
        except Stopped:
            self._cut_short = valued
            raise
        except Exception as exc:  # one bad opener must not end the run
            msg = f"{type(exc).__name__}: {exc}"
            tb = traceback.format_exc(limit=4)
            rec = Record(index=index, status=FAILED, cpu_seconds=time.process_time() - c0,
                         wall_seconds=time.perf_counter() - t0, rank=self.rank,
                         finished_at=time.time())
            return rec, msg + "\n" + tb

    def cut_short(self) -> list[tuple[ClassResult | ClassBound, None]]:
        """The classes that the last unit cut short by a stop had valued (once): an
        opener valued whole, or a split opener's classes; under a cutoff, with a
        lower bound of each class not valued (ClassBound)."""
        out, self._cut_short = self._cut_short, []
        return [(cr, None) for cr in out]

    def _measured(self, fn):
        """fn() timed, its exception caught (the opener fails, the run goes on):
        (its value or None, CPU s, wall s, nodes searched or -1, error or None)."""
        t0, c0 = time.perf_counter(), time.process_time()
        n0 = self.stats().get("nodes", -1)
        try:
            out, err = fn(), None
        except Stopped:
            raise
        except Exception as exc:
            out, err = None, f"{type(exc).__name__}: {exc}\n" + traceback.format_exc(limit=4)
        n1 = self.stats().get("nodes", -1)
        nodes = int(n1 - n0) if n0 >= 0 and n1 >= 0 and err is None else -1
        return out, time.process_time() - c0, time.perf_counter() - t0, nodes, err

    def solve_class(self, index: int, pattern: int, budget: int | None = None
                    ) -> tuple[ClassResult, str | None]:
        """One first-feedback class of an opener (Solver.class_value, exact only
        below `budget` if one is given); on an error, a result with status PENDING
        (nothing valued) and the message."""
        word = self.lists.guesses[index]

        def value() -> tuple[int, int, int, int]:
            status, total, depth, second = (
                self.solver.class_value(word, pattern) if budget is None
                else self.solver.class_value(word, pattern, budget=budget))
            return (class_status_code(status), -1 if total is None else int(total),
                    -1 if depth is None else int(depth),
                    -1 if second is None else self.lists.guess_index[second])

        v, cpu, wall, nodes, err = self._measured(value)
        if v is None:
            return ClassResult(index, int(pattern), PENDING, cpu_seconds=cpu,
                               wall_seconds=wall, rank=self.rank), err
        code, total, depth, second = v
        return ClassResult(index, int(pattern), code, total, depth, second, cpu, wall, nodes,
                           self.rank), None

    def solve_part(self, index: int, pattern: int, part: int, parts: int,
                   below: int) -> tuple[PartResult, str | None]:
        """One part of a class valued in parts (Solver.class_part; `below` < 0: no
        quick bound); on an error, a result with nothing found and the message."""
        word = self.lists.guesses[index]

        def found() -> tuple[int, int, int, bool] | None:
            f = self.solver.class_part(word, pattern, part, parts,
                                       below=below if parts > 0 and below >= 0 else None)
            if f is None and parts < 0:  # none of the first few within the cap: more
                f = self.solver.class_part(word, pattern, 0, parts * QUICK_RETRY)
            return None if f is None else (int(f[0]), int(f[1]),
                                           int(self.lists.guess_index[f[2]]), bool(f[3]))

        f, cpu, wall, nodes, err = self._measured(found)
        return PartResult(index, int(pattern), part, parts, f, cpu, wall, nodes,
                          self.rank), err

    def do(self, unit: Unit, cutoffs: Cutoffs | None = None,
           partial: Callable[[list], None] | None = None
           ) -> list[tuple[Record | ClassResult | PartResult, str | None]]:
        """Value one unit: [(result, error or None)], one per opener, class or part
        valued. A whole opener is valued under cutoffs.cutoff(its index) (None: the
        run's fixed cutoff), and an exact total it finds tightens `cutoffs`.
        `partial(results)`: a unit of several classes hands the classes valued so far
        to it every PARTIAL_EVERY seconds; those are not returned again."""
        if isinstance(unit, Whole):
            index = unit.index
            cutoff = self.cutoff if cutoffs is None else cutoffs.cutoff(index)
            rec, err = self.solve(index, cutoff)
            if cutoffs is not None and rec.status == EXACT:
                cutoffs.add(index, rec.total)
            return [(rec, err)]
        if isinstance(unit, Part):
            return [self.solve_part(unit.index, unit.pattern, unit.part, unit.parts,
                                    unit.below)]
        assert isinstance(unit, Classes)
        out: list[tuple[Record | ClassResult | PartResult, str | None]] = []
        every = _partial_every()
        last = time.monotonic()
        budgets = unit.budgets or (None,) * len(unit.patterns)
        for p, budget in zip(unit.patterns, budgets, strict=True):
            try:
                cr, err = self.solve_class(unit.index, p, budget)
            except Stopped:  # the classes before it are kept (cut_short)
                self._cut_short = [c for c, _e in out if isinstance(c, ClassResult)]
                raise
            out.append((cr, err))
            if err is not None or decisive(cr):
                break  # the opener is settled: its other classes are not needed
            if partial is not None and time.monotonic() - last >= every:
                partial(out)
                out = []
                last = time.monotonic()
        return out


def serve(worker: Worker, receive: Callable[[], tuple], send: Callable[[tuple], None],
          signals: Signals) -> int:
    """A solver's side of the conversation with rank 0's coordinator: ready, then
    units until told to stop; the number of results sent. A signal received here
    ends the chunk in hand after its current unit (the coordinator hears of it);
    a unit cut short (Stopped) stays pending, but the first-feedback classes it had
    valued are sent (the checkpoint keeps them)."""
    send(("ready",))
    n = 0

    def partial(items: list) -> None:  # classes valued so far: checkpointed at once
        nonlocal n
        n += len(items)
        send(("partial", items))

    while True:
        msg = receive()
        if msg[0] != "work":
            return n
        units, cutoffs = msg[1], msg[2] if len(msg) > 2 else None
        worker.begin(msg[3] if len(msg) > 3 else None)
        results: list = []
        abandoned = False
        try:
            for unit in units:
                if results and signals.received is not None:
                    break  # the rest of the chunk stays pending
                try:
                    results.extend(worker.do(unit, cutoffs, partial))
                except Stopped:  # the opener stays pending; the classes it valued are kept
                    results.extend(worker.cut_short())
                    abandoned = True
                    break
        finally:
            worker.end()
        n += len(results)
        send(("result", results, worker.stats(), signals.received, abandoned))


class AbandonWatcher:
    """A thread beside a worker's solve: rank 0's abandon message (a stop past its
    grace) sets the engine's stop flag, and so does its steal message while the
    chunk it names is in hand. It sleeps between looks, so it costs no
    CPU; it needs MPI_THREAD_MULTIPLE (threads_ok), else it is not started and rank
    0 falls back to ending the job."""

    def __init__(self, comm, worker: Worker, every: float = 0.05):
        self.comm, self.worker, self.every = comm, worker, every
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="abandon-watcher",
                                        daemon=True)

    def start(self) -> AbandonWatcher:
        self._thread.start()
        return self

    def _watch(self) -> None:
        while not self._done.wait(self.every):
            if self.comm.Iprobe(source=0, tag=TAG_ABANDON):
                msg = self.comm.recv(source=0, tag=TAG_ABANDON)
                if msg[0] == "steal":  # one chunk taken back (the queue ran dry)
                    self.worker.steal(msg[1])
                else:  # the run stops
                    self.worker.stop()

    def close(self) -> None:
        self._done.set()
        self._thread.join()
        while self.comm.Iprobe(source=0, tag=TAG_ABANDON):  # one that came too late
            self.comm.recv(source=0, tag=TAG_ABANDON)


def worker_main(cfg: RunConfig, comm, MPI, rank: int, spread=None,
                memo_cap: float | None = None) -> RunSummary:
    """A solving rank: its share of the plan's spreads (`spread`: (3^L, openers),
    as rank 0 sent them), then units from rank 0 until it says stop, then the run's
    final state from rank 0 (every rank returns the same state). `memo_cap`: the
    memo its share of the work needs (config.work_memo_mb), MB."""
    from ..table import get_table

    def load_table():
        return get_table(cfg.problem.load(), "numpy", cfg.problem.cache_dir)[0]

    shared = node_table(comm, MPI, load_table)  # collective: before anything can fail
    on_node, _nodes, _all = node_layout(comm, MPI, shared)  # collective too
    table = shared
    if spread:  # collective: with rank 0's plan
        table = table if table is not None else load_table()  # (kept for the Worker)
        gather_spreads(comm, table, *spread)
    size = comm.Get_size()
    sigs = Signals()  # the run's flag (run() installs the handlers)
    try:
        lists = cfg.problem.load()
        table = table if table is not None else get_table(lists, "numpy", cfg.problem.cache_dir)[0]
        memo = cfg.options.memo_mb or min(memo_cap or float("inf"),
                                          default_memo_mb(node_memory_bytes(), on_node))
        worker = Worker(cfg, lists, table, rank, memo)
    except Exception as exc:
        comm.send(("failed", f"{type(exc).__name__}: {exc}"), dest=0, tag=TAG_REQ)
        wait_message(comm, MPI, 0, TAG_REP)
        quiet_bcast(comm)  # the run's final state (this rank failed in any case)
        return RunSummary(exit_code=1, state="failed", ranks=size)
    watcher = AbandonWatcher(comm, worker).start() if threads_ok(MPI) else None
    try:
        n = serve(worker, lambda: wait_message(comm, MPI, 0, TAG_REP, max_sleep=QUIET_SLEEP)[1],
                  lambda msg: comm.send(msg, dest=0, tag=TAG_REQ), sigs)
    finally:
        if watcher is not None:
            watcher.close()
    state = quiet_bcast(comm)  # how the run ended, from rank 0
    return RunSummary(exit_code=0, state=state, solved=n, ranks=size)
