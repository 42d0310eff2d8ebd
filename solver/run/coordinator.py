"""Rank 0 of a run: the buffer of results, the single writer of the store (and of
its class checkpoint), the cutoffs the work goes out under, progress lines,
stopping and the final report. The work itself: work.py; the message loop:
loop.py."""

from __future__ import annotations

import math
import signal
import socket
import time

import numpy as np

from ..progress import fmt_duration
from ..store import EXACT, FAILED, PENDING, ClassResult, ClassStore, Record, Store
from .config import RunConfig, RunSummary
from .cutoffs import Cutoffs
from .eta import eta as estimate
from .mpi import Signals
from .split import PartResult
from .work import Work


class Coordinator:
    """Rank 0: the queue, the buffer, the single writer, progress and stopping."""

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
        self.out = out
        self.buffer: list[Record] = []
        # the class checkpoint: classes of split openers, and the class values of
        # every exact opener (None: the engine gives none)
        self.classes = classes
        self.class_buffer: list[ClassResult] = []
        self.classes_valued = 0
        self.parts_valued = 0  # parts of classes valued in parts (quick bounds included)
        self.handle_seconds = 0.0  # rank 0's time on results (MPI loop), writes included
        self.handled = 0
        self.errors: dict[str, str] = dict(store.group.attrs.get("errors", {}) or {})
        self.t_start = time.time()
        self.last_flush = time.monotonic()
        self.last_progress = time.monotonic()
        self.solved = 0
        self.failed = 0
        self.wall_avg = 0.0  # recent wall time per unit of work (chunk sizing)
        self.wall_n = 0
        self.cpu = 0.0
        self.stats_by_rank: dict[int, dict] = {}
        snap = store.snapshot()
        tot = snap.fields["total"]
        ex = np.flatnonzero(snap.status == EXACT)
        # the best exact opener so far: (its key, its word, its total, its wins); by
        # the total, under the objective wins by the most wins first
        self.best: tuple[tuple[int, int], str, int, int] | None = None
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
        wins_first = self.cfg.problem.objective == "wins"
        key = (-wins if wins_first else 0, total)
        if self.best is None or key < self.best[0]:
            self.best = (key, self.lists.guesses[index], total, wins)

    def best_text(self, avg: bool) -> str:
        """The best opener so far in words (with `avg`, 'avg' after the average)."""
        assert self.best is not None
        _key, word, total, wins = self.best
        unit = " avg" if avg else ""
        if self.cfg.problem.objective == "wins":
            return (f"{word} wins {wins} of {len(self.lists.answers)}, total {total} "
                    f"({total / max(wins, 1):.4f}{unit} over those)")
        return f"{word} {total} ({total / len(self.lists.answers):.4f}{unit})"

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
                   time.monotonic() if now is None else now)

    def sent(self, rank: int, units: list) -> None:
        """Units went out to `rank` (for the ETA)."""
        self.in_flight[rank] = (time.monotonic(), units)

    def returned(self, rank: int) -> None:
        """`rank`'s units came back, valued or not."""
        self.in_flight.pop(rank, None)

    def cutoffs_for(self, units) -> Cutoffs | None:
        """The cutoffs a chunk of units goes out under."""
        if self.cutoffs is None:
            return None
        return self.cutoffs.for_units(u.index for u in units)

    # ---- results ----
    def unit_wall(self, w: float) -> None:
        """Moving average of the wall time of a unit of work (chunk sizing)."""
        if math.isfinite(w):
            self.wall_avg = w if self.wall_n == 0 else 0.8 * self.wall_avg + 0.2 * w
            self.wall_n += 1

    def add_item(self, item: Record | ClassResult | PartResult, err: str | None,
                 stats: dict | None) -> None:
        """One result from a worker: an opener, a class of a split opener, or a part
        of a class valued in parts."""
        if isinstance(item, PartResult):
            if stats and item.rank >= 0:
                self.stats_by_rank[item.rank] = stats
            self.parts_valued += 1
            whole, err = self.work.on_part(item, err)
            if whole is None:
                return
            item = whole
        if not isinstance(item, ClassResult):
            self.add(item, err, stats)
            return
        if stats and item.rank >= 0:
            self.stats_by_rank[item.rank] = stats
        if item.status != PENDING:  # valued: checkpointed, even if its opener is settled
            self.class_buffer.append(item)
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
                print(f"wordle-dp: opener {word} failed on rank {rec.rank}: {first}"
                      + (" (further failures are not shown; see the store's 'errors' "
                         "attribute)" if self.failed == 5 else ""), file=self.out, flush=True)
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
        done = self.solved + self.failed
        el = time.time() - self.t_start
        rate = done / el * 60 if el > 0 else 0.0
        left = self.n_queued - done
        eta, whole = self.eta()
        eta_text = "0s" if not left else (fmt_duration(eta) if whole or eta == float("inf")
                                           else f"over {fmt_duration(eta)}")
        best = self.best_text(False) if self.best else "-"
        pct = 100.0 * done / self.n_queued if self.n_queued else 100.0
        print(f"[{time.strftime('%H:%M:%S')}] {done}/{self.n_queued} openers ({pct:.1f}%), "
              f"{rate:.1f}/min, ETA {eta_text}, best {best}"
              + (f", {self.failed} failed" if self.failed else "")
              # work below the opener moves even while no opener completes
              + (f"; {self.classes_valued} classes and {self.parts_valued} parts valued"
                 if self.classes_valued or self.parts_valued else ""),
              file=self.out, flush=True)

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
            parts=self.parts_valued,
            coordinator_seconds=self.handle_seconds, results=self.handled,
        )


def report(summary: RunSummary, co: Coordinator, store: Store, out) -> None:
    if co.cfg.options.quiet and summary.state == "finished" and not summary.failed:
        return
    s = summary
    done = s.solved + s.failed
    rate = done / s.wall_seconds * 60 if s.wall_seconds > 0 else 0.0
    counts = store.snapshot().counts()
    lines = []
    if s.state == "stopped":
        lines.append(f"wordle-dp: stopped ({co.stop_reason}): {done} of {s.queued} openers "
                     f"valued in this run; the store is consistent and the run can be resumed "
                     f"by running the same command again ({store.path})")
    else:
        lines.append(f"wordle-dp: run finished: {done} openers valued in "
                     f"{fmt_duration(s.wall_seconds)} on {s.ranks} rank(s) ({rate:.1f}/min)")
    lines.append("  store: " + ", ".join(f"{v} {k}" for k, v in counts.items() if v)
                 + f" ({store.path})")
    if co.best:
        lines.append(f"  best: {co.best_text(True)}")
    if s.failed:
        lines.append(f"  {s.failed} opener(s) failed; rerun with --retry-failed to try again")
    share = 100.0 * s.write_seconds / s.wall_seconds if s.wall_seconds > 0 else 0.0
    per = 1000.0 * s.write_seconds / max(1, store.flushed_records)
    lines.append(f"  store writes: {s.flushes} batch(es), {s.write_seconds:.3f} s "
                 f"({share:.2f}% of wall time, {per:.2f} ms per opener) vs "
                 f"{s.solve_cpu_seconds:.1f} s of solving")
    if s.split_openers or s.classes:
        lines.append(f"  split: {s.split_openers} opener(s) valued as first-feedback classes, "
                     f"{s.classes} class(es) valued and checkpointed"
                     + (f", {s.parts} part(s) of classes valued in parts" if s.parts else ""))
    if s.results:
        lines.append(f"  coordinator: {s.results} result(s) handled, "
                     f"{1000.0 * s.coordinator_seconds / s.results:.2f} ms each (store "
                     f"writes included); {s.plan_seconds:.1f} s of set-up and planning "
                     "before the work went out")
    st = s.stats
    if st:
        hits = st.get("memo_hits")
        if hits is not None:
            stores = st.get("memo_stores", 0)
            nodes = st.get("nodes", 0)
            lines.append(f"  solver memo reuse (kept across openers on each rank): "
                         f"{int(hits)} hits vs {int(stores)} stores, {int(nodes)} nodes")
        lines.append("  solver stats: " + ", ".join(f"{k}={int(v)}" for k, v in st.items()))
    print("\n".join(lines), file=out, flush=True)


def class_rows(rec: Record) -> list[ClassResult]:
    """An exact opener's class values (Record.class_rows, with its second guesses)
    as rows of the class checkpoint."""
    assert rec.class_rows is not None and rec.second is not None
    total, depth = rec.class_rows
    return [ClassResult(rec.index, int(p), EXACT, int(total[p]), int(depth[p]),
                        int(rec.second[p]), rank=rec.rank)
            for p in np.flatnonzero(total >= 0)]
