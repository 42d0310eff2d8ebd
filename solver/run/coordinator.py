"""Rank 0 of a run: the buffer of results, the single writer of the store (and of
its class checkpoint), the cutoffs the work goes out under, where the run stands
(its progress, its summary) and stopping. The work itself: work.py; the message
loop: loop.py; the lines the run's data is written as: text.py."""

from __future__ import annotations

import math
import signal
import socket
import time

import numpy as np

from ..feedback import to_text
from ..progress import fmt_duration
from ..store import EXACT, FAILED, PENDING, ClassResult, ClassStore, Record, Store
from ..variant import Objective
from .config import RunConfig, RunSummary
from .cutoffs import Cutoffs
from .eta import eta as estimate
from .mpi import Signals
from .split import ClassBound, PartResult, kept
from .text import Best, RunProgress, TextReport, in_flight_text
from .units import Whole
from .work import Work


class Coordinator:
    """Rank 0: the queue, the buffer, the single writer, progress and stopping.
    `out`: the stream of the run's lines, when the config brings no report."""

    def __init__(self, cfg: RunConfig, store: Store, lists, work: Work, queue: list[int],
                 size: int, out, classes: ClassStore | None = None,
                 cutoffs: Cutoffs | None = None, solvers: int = 1):
        self.cfg = cfg
        n_queued = len(queue)
        self.solvers = max(1, solvers)
        # the ETA weighs what is left by what each kind of valuation has cost so far
        # (a book's popular openers take seconds each, the rest milliseconds):
        # [openers left, valued, CPU seconds] for exact ones and those under a cutoff
        # the cutoffs each chunk of work goes out under (None: the run's fixed cutoff,
        # which every rank has from the start)
        self.cutoffs = cutoffs
        self.kinds = {kind: [0, 0, 0.0] for kind in (True, False)}
        for i in queue:
            self.kinds[self.exact_kind(i)][0] += 1
        # rank -> (when its units went out, the units): the ETA's units in flight
        self.in_flight: dict[int, tuple[float, list]] = {}
        self.store = store
        self.lists = lists
        self.work = work
        self.n_queued = n_queued
        self.size = size
        self.report = cfg.tuning.report or TextReport(out)
        self.buffer: list[Record] = []
        # the class checkpoint: classes of split openers, and the class values of
        # every exact opener (None: the engine gives none)
        self.classes = classes
        self.class_buffer: list[ClassResult] = []
        self.classes_valued = 0
        self.class_bounds = 0  # of those, lower bounds at their budget (not checkpointed)
        self.parts_valued = 0  # parts of classes valued in parts (quick bounds included)
        self.stolen = 0  # openers taken back from a rank and split (steal)
        self.handle_seconds = 0.0  # rank 0's time on results (MPI loop), writes included
        self.handled = 0
        self.errors: dict[str, str] = dict(store.group.attrs.get("errors", {}) or {})
        self.t_start = time.time()
        self.last_flush = time.monotonic()
        self.last_progress = time.monotonic()
        self.solved = 0
        self.failed = 0
        # recent wall time per unit of work, by the unit's kind (chunk sizing): a
        # whole opener is not sized by the milliseconds of a split one's classes
        self.walls: dict[str, tuple[float, int]] = {}
        self.cpu = 0.0
        self.stats_by_rank: dict[int, dict] = {}
        snap = store.snapshot()
        tot = snap.fields["total"]
        ex = np.flatnonzero(snap.status == EXACT)
        # the best exact opener so far (text.Best) and its key: by the total, under
        # the objective wins by the most wins first
        self.best_key: tuple[int, int] | None = None
        self.best: Best | None = None
        wins = snap.fields.get("wins")
        for i in ex.tolist():
            self._better(i, int(tot[i]), -1 if wins is None else int(wins[i]))
        # every machine any run of this store ran on (rank 0's), for provenance
        before = (store.group.attrs.get("run", {}) or {}).get("hosts", [])
        self.hosts = sorted({*before, socket.gethostname()}) if isinstance(before, list) \
            else [socket.gethostname()]
        self.stop_reason: str | None = None
        self.abort_needed = False
        self.errors_dirty = False
        self.signals = Signals()  # the run's flag (run() installs the handlers)
        limit = cfg.options.time_limit
        self.deadline = None if limit is None else self.t_start + limit

    def _better(self, index: int, total: int, wins: int) -> None:
        """Opener `index` is exact at `total` (and `wins`): the best so far?"""
        wins_first = self.cfg.problem.objective == Objective.WINS
        key = (-wins if wins_first else 0, total)
        if self.best_key is None or key < self.best_key:
            self.best_key = key
            self.best = Best(self.lists.guesses[index], total, wins,
                             len(self.lists.answers), wins_first)

    # ---- stopping ----
    def check_stop(self) -> bool:
        if self.stop_reason is None:
            if self.signals.received is not None:
                self.stop_reason = f"signal {signal.Signals(self.signals.received).name}"
            elif self.deadline is not None and time.time() >= self.deadline:
                limit = self.cfg.options.time_limit or 0.0
                self.stop_reason = f"time limit ({fmt_duration(limit)})"
        return self.stop_reason is not None

    def exact_kind(self, index: int) -> bool:
        """Whether opener `index` is valued without a cutoff in this run."""
        c = self.cutoffs
        if c is None:
            return self.cfg.options.cutoff is None
        return index in c.exact or (c.fixed is None and c.top is None)

    def eta(self, now: float | None = None) -> tuple[float, bool]:
        """(seconds left, whether that is an estimate of all of it): eta.py's."""
        return estimate(self.kinds, self.in_flight.values(), self.exact_kind, self.solvers,
                        time.monotonic() if now is None else now, self.work.split_left())

    def sent(self, rank: int, units: list) -> None:
        """Units went out to `rank` (for the ETA)."""
        self.in_flight[rank] = (time.monotonic(), units)

    def returned(self, rank: int) -> None:
        """`rank`'s units came back, valued or not."""
        self.in_flight.pop(rank, None)

    # ---- taking work back when the queue runs dry ----
    def stealable(self, units: list) -> bool:
        """Whether a chunk in flight may be taken back and split: one opener valued
        whole, exactly or (where the work allows it) under a cutoff, in a run whose
        work can be split."""
        return (self.work.stealable and self.cfg.tuning.steal_after is not None
                and len(units) == 1 and isinstance(units[0], Whole)
                and (self.work.steal_cutoff or self.exact_kind(units[0].index))
                and units[0].index not in self.work.splits)

    def cutoff_of(self, index: int) -> int | None:
        """The cutoff opener `index` is valued under now (None: exactly)."""
        if self.cutoffs is not None:
            return self.cutoffs.cutoff(index)
        return self.cfg.options.cutoff

    def steal_target(self, busy: dict[int, list], can: set[int], now: float) -> int | None:
        """The solver whose chunk to take back now (of those in `can`, which can
        hear it): the one valuing a stealable opener the longest, at least
        steal_after seconds; None when there is none yet."""
        after = self.cfg.tuning.steal_after
        best, since = None, math.inf
        for w, units in busy.items():
            if w in can and self.stealable(units) and w in self.in_flight:
                t = self.in_flight[w][0]
                if after is not None and now - t >= after and t < since:
                    best, since = w, t
        return best

    def split_stolen(self, index: int, results: list) -> None:
        """Opener `index` came back cut short by a steal: value it as classes, with
        those it had valued (`results`, already checkpointed by add_item)."""
        done = {r.pattern: r for r, _e in results
                if isinstance(r, ClassResult) and r.index == index and r.status != PENDING}
        bounds = {r.pattern: r.total for r, _e in results
                  if isinstance(r, ClassBound) and r.index == index}
        cost = self.work.costs.of_opener(index)
        rec = self.work.add_split(index, done, cost, stolen=True,
                                  cutoff=self.cutoff_of(index), bounds=bounds)
        self.stolen += 1
        if rec is not None:
            self.add(rec[0], rec[1], None, count_cpu=False)

    def cutoffs_for(self, units) -> Cutoffs | None:
        """The cutoffs a chunk of units goes out under."""
        if self.cutoffs is None:
            return None
        return self.cutoffs.for_units(u.index for u in units)

    # ---- results ----
    def unit_wall(self, kind: str, w: float) -> None:
        """Moving average of the wall time of a unit of work of this kind (the
        unit's class name; chunk sizing)."""
        if math.isfinite(w):
            avg, n = self.walls.get(kind, (w, 0))
            self.walls[kind] = (0.8 * avg + 0.2 * w, n + 1)

    def wall_of(self, kind: str) -> tuple[float, int]:
        """The moving average of a unit of this kind and how many it has seen."""
        return self.walls.get(kind, (0.0, 0))

    def add_item(self, item: Record | ClassResult | ClassBound | PartResult, err: str | None,
                 stats: dict | None) -> None:
        """One result from a worker: an opener, a class of a split opener, a part
        of a class valued in parts, or a class's lower bound from an opener cut
        short under a cutoff."""
        if isinstance(item, PartResult):
            if stats and item.rank >= 0:
                self.stats_by_rank[item.rank] = stats
            self.parts_valued += 1
            whole, err = self.work.on_part(item, err)
            if whole is None:
                return
            item = whole
        if isinstance(item, ClassBound):
            return  # what a steal under a cutoff splits with (split_stolen)
        if not isinstance(item, ClassResult):
            self.add(item, err, stats)
            return
        if stats and item.rank >= 0:
            self.stats_by_rank[item.rank] = stats
        if item.status != PENDING:  # valued: counted; checkpointed, even if its
            # opener is settled, unless it is a bound that only its budget gave
            if kept(item):
                self.class_buffer.append(item)
            else:
                self.class_bounds += 1
            self.classes_valued += 1
            self.cpu += item.cpu_seconds if math.isfinite(item.cpu_seconds) else 0.0
        done = self.work.on_class(item, err)
        if done is not None:
            self.add(done[0], done[1], None, count_cpu=False)
        elif self.due():
            self.flush()

    def due(self) -> bool:
        return (len(self.buffer) >= self.cfg.tuning.flush_every
                or time.monotonic() - self.last_flush >= self.cfg.tuning.flush_seconds)

    def add(self, rec: Record, err: str | None, stats: dict | None,
            count_cpu: bool = True) -> None:
        self.buffer.append(rec)
        if count_cpu:
            self.cpu += 0.0 if math.isnan(rec.cpu_seconds) else rec.cpu_seconds
        kind = self.kinds[self.exact_kind(rec.index)]
        kind[0] -= 1
        if math.isfinite(rec.cpu_seconds):
            kind[1] += 1
            kind[2] += rec.cpu_seconds
        if stats:
            self.stats_by_rank[rec.rank] = stats
        word = self.lists.guesses[rec.index]
        if rec.status == FAILED:
            self.failed += 1
            first = (err or "").splitlines()[0] if err else "unknown error"
            self.errors[word] = first
            self.errors_dirty = True
            if self.failed <= 5:
                self.report.failed(word, rec.rank, first, self.failed)
        else:
            self.solved += 1
            if self.errors.pop(word, None) is not None:
                self.errors_dirty = True
            if rec.status == EXACT:
                self._better(rec.index, rec.total, rec.wins)
            if rec.status == EXACT and self.cutoffs is not None:
                self.cutoffs.add(rec.index, rec.total)
            if rec.class_rows is not None and self.classes is not None:
                self.class_buffer.extend(class_rows(rec))
        if self.due():
            self.flush()

    def run_info(self, state: str) -> dict:
        return {
            "state": state,
            "started_at": self.t_start,
            "updated_at": time.time(),
            "ranks": self.size,
            "host": socket.gethostname(),
            "hosts": self.hosts,
            "queued": self.n_queued,
            "done_this_run": self.solved + self.failed,
            "stop_reason": self.stop_reason,
        }

    def flush(self, state: str = "running") -> None:
        if self.class_buffer and self.classes is not None:
            done, self.class_buffer = self.class_buffer, []
            t0 = time.perf_counter()
            self.classes.write(done)  # before the openers they complete
            self.store.flush_seconds += time.perf_counter() - t0
        if self.buffer or state != "running":
            recs, self.buffer = self.buffer, []
            self.store.write(recs, None)
            attrs = {"run": self.run_info(state)}
            if self.errors_dirty:
                attrs["errors"] = dict(list(self.errors.items())[-1000:])
                self.errors_dirty = False
            self.store.set_attrs(**attrs)
        self.last_flush = time.monotonic()

    # ---- progress ----
    def progress(self, force: bool = False) -> None:
        now = time.monotonic()
        every = self.cfg.tuning.progress_seconds
        if self.cfg.options.quiet or (not force and now - self.last_progress < every):
            return
        self.last_progress = now
        self.report.progress(self.standing(), time.strftime("%H:%M:%S"))

    def standing(self) -> RunProgress:
        """Where the run stands now."""
        done = self.solved + self.failed
        el = time.time() - self.t_start
        eta, whole = self.eta()
        longest, seconds = self.longest_in_flight()
        return RunProgress(done, self.n_queued, done / el * 60 if el > 0 else 0.0, eta, whole,
                           self.best, self.failed, self.classes_valued, self.parts_valued,
                           longest, seconds)

    def longest_in_flight(self, now: float | None = None) -> tuple[str, float]:
        """The chunk of units out longest, in words (text.in_flight_text), and for
        how many seconds; ("", 0) when none is out."""
        if not self.in_flight:
            return "", 0.0
        t0, units = min(self.in_flight.values(), key=lambda v: v[0])
        length = self.lists.length
        what = in_flight_text(units, self.lists.guesses, lambda p: to_text(p, length))
        return what, (time.monotonic() if now is None else now) - t0

    def tick(self) -> None:
        if (self.buffer or self.class_buffer) and (
                time.monotonic() - self.last_flush >= self.cfg.tuning.flush_seconds):
            self.flush()
        self.progress()

    def summary(self, state: str) -> RunSummary:
        agg: dict[str, float] = {}
        for st in self.stats_by_rank.values():
            for k, v in st.items():
                if k == "memo_entries":
                    agg[k] = max(agg.get(k, 0), v)
                else:
                    agg[k] = agg.get(k, 0) + v
        return RunSummary(
            exit_code=0, state=state, solved=self.solved, failed=self.failed,
            queued=self.n_queued, wall_seconds=time.time() - self.t_start,
            write_seconds=self.store.flush_seconds, flushes=self.store.flushes,
            solve_cpu_seconds=self.cpu, ranks=self.size, stats=agg,
            split_openers=len(self.work.splits), classes=self.classes_valued,
            class_bounds=self.class_bounds,
            parts=self.parts_valued, stolen=self.stolen,
            coordinator_seconds=self.handle_seconds, results=self.handled,
            stop_reason=self.stop_reason,
        )

    def final_report(self, summary: RunSummary) -> None:
        """The report at the end of the run (none for a quiet run that finished with
        no failure)."""
        if self.cfg.options.quiet and summary.state == "finished" and not summary.failed:
            return
        self.report.summary(summary, self.store.snapshot().counts(), str(self.store.path),
                            self.best, self.store.flushed_records)


def class_rows(rec: Record) -> list[ClassResult]:
    """An exact opener's class values (Record.class_rows, with its second guesses)
    as rows of the class checkpoint."""
    assert rec.class_rows is not None and rec.second is not None
    total, depth = rec.class_rows
    return [ClassResult(rec.index, int(p), EXACT, int(total[p]), int(depth[p]),
                        int(rec.second[p]), rank=rec.rank)
            for p in np.flatnonzero(total >= 0)]
