"""Rank 0 of a run: the work still to hand out (most expensive first, openers
whole or as classes), the buffer of results, the single writer of the store,
progress lines, stopping and the final report; the serial loop (one process) and
the MPI loop that answers the workers."""

from __future__ import annotations

import heapq
import math
import signal
import socket
import time

import numpy as np

from ..progress import fmt_duration
from ..store import EXACT, FAILED, PENDING, UPPER_BOUND, Record, Store
from .config import RunConfig, RunSummary
from .costs import CostModel, cost_after_quick, quick_model_applies
from .mpi import TAG_REP, TAG_REQ, Signals, wait_message
from .split import (
    PROBE_SHARE,
    QUICK,
    ClassResult,
    ClassStore,
    PartResult,
    Parts,
    Split,
    affinity,
    bundle_cost,
    classes_of,
    combine,
    least_part,
    make_units,
    parts_for,
    plan,
    second_row,
)
from .worker import Unit, Worker


def fallback_estimate(table: np.ndarray, index: int) -> float:
    """Cost guess without the engine: sum of squared feedback-class sizes."""
    c = np.bincount(table[index]).astype(np.float64)
    return float((c * c).sum())


class Work:
    """What rank 0 still has to hand out: units in a heap by predicted cost, most
    expensive first (ties: first added first), and the openers valued as classes
    (split): their head unit goes where the whole opener would have gone, their
    big classes too (biggest first), once the head came back without settling the
    opener."""

    def __init__(self, mode: str, n_answers: int, table: np.ndarray, n_patterns: int,
                 parts: int | None = 0, share: float = 0.0, workers: int = 1,
                 uncapped: bool = False, costs: CostModel | None = None,
                 gate: bool = True):
        self.mode = mode
        # whether a split opener's big classes wait for its head unit (gate): worth
        # it where openers are often infeasible (found in the head's small classes)
        self.gate = gate
        self.costs = costs or CostModel(mode, table, n_patterns)  # predicted seconds
        # classes valued in parts (split.parts_for): run --parts, a solving rank's
        # fair share of the predicted work, the solving ranks
        self.parts, self.share, self.workers = parts, share, workers
        self.uncapped = uncapped  # a tainted part is then an upper bound, as in solve
        self.partial: dict[tuple[int, int], Parts] = {}  # (opener, pattern) in parts
        self.n_patterns = n_patterns  # 3^L for L-letter words
        self._key: dict[int, float] = {}  # a split opener's place in the queue
        self.n_answers = n_answers
        self.table = table
        # (-cost, order, units): units go out together (openers bundled for affinity)
        self._heap: list[tuple[float, int, tuple[Unit, ...]]] = []
        self._seq = 0
        self.splits: dict[int, Split] = {}
        self.gated: set[int] = set()  # splits whose big classes wait for their head

    def __len__(self) -> int:
        self._drop_settled()
        return len(self._heap)

    def more(self) -> bool:
        """Units queued now, or to come once a head unit or a quick bound in flight
        is back."""
        return bool(len(self)) or bool(self.gated) or bool(self.partial)

    def _drop_settled(self) -> None:
        """Forget queued classes of openers another class has settled meanwhile."""
        while self._heap:
            unit = self._heap[0][2][0]  # class units are never bundled
            sp = self.splits.get(unit[0]) if unit[1] is not None else None
            if sp is None or not sp.finished:
                return
            heapq.heappop(self._heap)

    def push(self, unit: Unit, cost: float) -> None:
        self.push_bundle((unit,), cost)

    def push_bundle(self, units: tuple[Unit, ...], cost: float) -> None:
        """Units that go out together, to one worker, in this order."""
        heapq.heappush(self._heap, (-float(cost), self._seq, tuple(units)))
        self._seq += 1

    def pop(self) -> list[Unit]:
        """The next unit, with any bundled with it."""
        self._drop_settled()
        units = list(heapq.heappop(self._heap)[2])
        sp = self.splits.get(units[0][0]) if units[0][1] is not None else None
        if sp is not None and math.isnan(sp.started):
            sp.started = time.time()
        return units

    def add_split(self, index: int, done: dict[int, ClassResult], cost: float
                  ) -> tuple[Record, str | None] | None:
        """Value opener `index` as classes, `done` already valued (the checkpoint);
        the opener's record at once when those settle it."""
        sp = Split(index, classes_of(self.table[index], self.n_patterns), dict(done))
        self.splits[index] = sp
        self._key[index] = cost
        if sp.settled():
            return self._finish(sp)
        make_units(sp, lambda p, s: self.costs.of_class(index, p, s))
        if sp.head:
            self.push((index, sp.head), cost)
            if sp.big and self.gate:
                self.gated.add(index)
            else:
                self._release(sp)
        else:
            self._release(sp)
        return None

    def _release(self, sp: Split) -> None:
        # the big classes keep their opener's place (they are most of its cost), so
        # they go out as soon as the head is back; and in one process the opener
        # completes within one batch, its classes never written
        sizes = dict(sp.classes)
        for u in sp.big:
            size = sizes[u[0]]
            cost = self.costs.of_class(sp.index, u[0], size)
            n = parts_for(size, cost, self.share, self.workers, self.parts)
            # auto: a class near its share gets a quick bound too, whose total
            # predicts its cost better (on_part), even if it then goes out in one part
            probe = (self.parts is None and self.workers > 1 and cost > PROBE_SHARE
                     * self.share and quick_model_applies(size, self.mode))
            if n > 1 or probe:  # the quick bound first; its parts once it is back
                self.partial[(sp.index, u[0])] = Parts(n, n)
                self.push((sp.index, u, (0, -QUICK, 0)), self._key[sp.index])
            else:
                self.push((sp.index, u), self._key[sp.index])
        sp.big = []
        self.gated.discard(sp.index)

    def on_class(self, cr: ClassResult, err: str | None) -> tuple[Record, str | None] | None:
        """Take one class result; the opener's record when it completes the opener."""
        sp = self.splits.get(cr.index)
        if sp is None or sp.finished:
            return None  # settled already (a class in flight when another decided it)
        if err is not None:  # an error, not a value: the opener fails as a whole would
            self._close(sp)
            return Record(index=cr.index, status=FAILED, cpu_seconds=cr.cpu_seconds,
                          wall_seconds=cr.wall_seconds, rank=cr.rank,
                          finished_at=time.time()), err
        sp.done[cr.pattern] = cr
        if sp.settled():
            return self._finish(sp)
        if sp.big and all(p in sp.done for p in sp.head):
            self._release(sp)
        return None

    def on_part(self, pr: PartResult, err: str | None
                ) -> tuple[ClassResult | None, str | None]:
        """Take one part of a class valued in parts: the class's result once its
        last part is back (or at an error), else None. The quick bound's return
        queues the parts against it; with no quick bound (nothing within the cap
        among its candidates: hard jiffy's all-grey class, 394 s) the parts go out
        without one, each refuting against its own best. Where no part finds a
        strategy, the class goes out whole, for solve's status."""
        key = (pr.index, pr.pattern)
        st = self.partial.get(key)
        sp = self.splits.get(pr.index)
        if st is None or sp is None or sp.finished:
            self.partial.pop(key, None)
            return None, None
        st.add(pr)
        if err is not None:
            del self.partial[key]
            return ClassResult(pr.index, pr.pattern, PENDING, cpu_seconds=st.cpu_seconds,
                               wall_seconds=pr.wall_seconds, rank=pr.rank), err
        if pr.parts < 0:  # the quick bound; the parts against it (-1: none found)
            if pr.found is None and st.parts == 1:  # one part with no bound: the class
                del self.partial[key]  # whole does the same search, and gives the status
                self.push((pr.index, (pr.pattern,)), self._key[pr.index])
                return None, None
            below = -1 if pr.found is None else pr.found[0]
            if self.parts is None and pr.found is not None:  # auto: sized again by
                # what the quick bound found (costs.cost_after_quick), when it applies
                size = dict(sp.classes)[pr.pattern]
                cost = cost_after_quick(size, pr.found[0], self.mode)
                if cost is not None:
                    st.parts = st.out = parts_for(size, cost, self.share, self.workers,
                                                  None)
            for j in range(st.parts):
                self.push((pr.index, (pr.pattern,), (j, st.parts, below)),
                          self._key[pr.index])
            return None, None
        st.out -= 1
        if st.out > 0:
            return None, None
        del self.partial[key]
        best = least_part(st.found)
        if best is None:  # no strategy within the cap, or the search's limits: the
            # whole class says which (infeasible, not_found), as solve would
            self.push((pr.index, (pr.pattern,)), self._key[pr.index])
            return None, None
        assert st.longest is not None
        total, depth, second, tainted = best
        return ClassResult(pr.index, pr.pattern, UPPER_BOUND if tainted and self.uncapped
                           else EXACT, total, depth, second, st.cpu_seconds,
                           st.longest.wall_seconds, st.nodes, st.longest.rank), None

    def _close(self, sp: Split) -> None:
        sp.finished = True
        self.gated.discard(sp.index)
        for key in [k for k in self.partial if k[0] == sp.index]:
            del self.partial[key]  # parts still out are ignored when they come back

    def _finish(self, sp: Split) -> tuple[Record, str | None]:
        self._close(sp)
        results = [sp.done[p] for p, _s in sp.classes if p in sp.done]
        code, total, depth = combine(self.n_answers, results)
        cpu = [r.cpu_seconds for r in results if math.isfinite(r.cpu_seconds)]
        nodes = [r.nodes for r in results if r.nodes >= 0]
        worked = [r for r in results if r.rank >= 0]
        top = max(worked, key=lambda r: r.cpu_seconds, default=None)
        wall = time.time() - sp.started if math.isfinite(sp.started) else sum(
            r.wall_seconds for r in results if math.isfinite(r.wall_seconds))
        rec = Record(index=sp.index, status=code, total=total, depth=depth,
                     cpu_seconds=float(sum(cpu)) if cpu else float("nan"),
                     wall_seconds=wall, nodes=int(sum(nodes)) if nodes else -1,
                     rank=top.rank if top is not None else -1, finished_at=time.time(),
                     second=second_row(results, self.n_patterns)
                     if code in (EXACT, UPPER_BOUND) else None)
        err = None
        if code == FAILED:
            err = ("not_found: a first-feedback class found no strategy within the "
                   "search's limits (a beam or the uncapped depth limit)")
        return rec, err


class Coordinator:
    """Rank 0: the queue, the buffer, the single writer, progress and stopping."""

    def __init__(self, cfg: RunConfig, store: Store, lists, work: Work, n_queued: int,
                 size: int, out, classes: ClassStore | None = None):
        self.cfg = cfg
        self.store = store
        self.lists = lists
        self.work = work
        self.n_queued = n_queued
        self.size = size
        self.out = out
        self.buffer: list[Record] = []
        self.classes = classes  # the class checkpoint (None: no opener is split)
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
        self.best = None
        if len(ex):
            i = int(ex[np.argmin(tot[ex])])
            self.best = (int(tot[i]), lists.guesses[i])
        # every machine any run of this store ran on (rank 0's), for provenance
        before = (store.group.attrs.get("run", {}) or {}).get("hosts", [])
        self.hosts = sorted({*before, socket.gethostname()}) if isinstance(before, list) \
            else [socket.gethostname()]
        self.stop_reason: str | None = None
        self.abort_needed = False
        self.errors_dirty = False
        self.signals = Signals().install()
        self.deadline = None if cfg.time_limit is None else self.t_start + cfg.time_limit

    # ---- stopping ----
    def check_stop(self) -> bool:
        if self.stop_reason is None:
            if self.signals.received is not None:
                self.stop_reason = f"signal {signal.Signals(self.signals.received).name}"
            elif self.deadline is not None and time.time() >= self.deadline:
                self.stop_reason = f"time limit ({fmt_duration(self.cfg.time_limit or 0.0)})"
        return self.stop_reason is not None

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
        return (len(self.buffer) >= self.cfg.flush_every
                or time.monotonic() - self.last_flush >= self.cfg.flush_seconds)

    def add(self, rec: Record, err: str | None, stats: dict | None,
            count_cpu: bool = True) -> None:
        self.buffer.append(rec)
        if count_cpu:
            self.cpu += 0.0 if math.isnan(rec.cpu_seconds) else rec.cpu_seconds
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
            if rec.status == EXACT and (self.best is None or rec.total < self.best[0]):
                self.best = (rec.total, word)
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
            complete = {r.index for r in self.buffer}  # their records say it all
            done = [c for c in self.class_buffer if c.index not in complete]
            self.class_buffer = []
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
        if self.cfg.quiet or (not force and now - self.last_progress < self.cfg.progress_seconds):
            return
        self.last_progress = now
        done = self.solved + self.failed
        el = time.time() - self.t_start
        rate = done / el * 60 if el > 0 else 0.0
        left = self.n_queued - done
        eta = left / rate * 60 if rate > 0 else float("inf")
        best = f"{self.best[1]} {self.best[0]} ({self.best[0] / len(self.lists.answers):.4f})" \
            if self.best else "-"
        pct = 100.0 * done / self.n_queued if self.n_queued else 100.0
        print(f"[{time.strftime('%H:%M:%S')}] {done}/{self.n_queued} openers ({pct:.1f}%), "
              f"{rate:.1f}/min, ETA {fmt_duration(eta) if left else '0s'}, best {best}"
              + (f", {self.failed} failed" if self.failed else "")
              # work below the opener moves even while no opener completes
              + (f"; {self.classes_valued} classes and {self.parts_valued} parts valued"
                 if self.classes_valued or self.parts_valued else ""),
              file=self.out, flush=True)

    def tick(self) -> None:
        if (self.buffer or self.class_buffer) and (
                time.monotonic() - self.last_flush >= self.cfg.flush_seconds):
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
    if co.cfg.quiet and summary.state == "finished" and not summary.failed:
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
        lines.append(f"  best: {co.best[1]} {co.best[0]} "
                     f"({co.best[0] / len(co.lists.answers):.4f} avg)")
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
                     f"writes included)")
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


def order(cfg, lists, table, chosen, todo, estimator) -> tuple[list[int], list[int]]:
    """(openers still to do, all openers of this run), most expensive first (ties: list
    order). `todo`: Store.todo. With a shard, the expensive-first order is dealt
    round-robin, so every shard gets a similar mix."""
    est: dict[int, float | None] = {}
    for i in chosen:
        try:
            est[i] = float(estimator(lists.guesses[i])) if estimator else None
        except Exception:
            est[i] = None
        if est[i] is None:
            est[i] = fallback_estimate(table, i)
    ordered = sorted(chosen, key=lambda i: (-(est[i] or 0.0), i))  # (never None here)
    if cfg.shard is not None:
        k, n = cfg.shard
        ordered = ordered[k::n]
    return [i for i in ordered if todo[i]], ordered


def serial(co: Coordinator, worker: Worker) -> None:
    while len(co.work):
        if co.check_stop():
            return
        for unit in co.work.pop():
            for item, err in worker.do(unit):
                co.add_item(item, err, worker.stats())
        co.progress()
    co.check_stop()
    if co.stop_reason and not co.work.more():
        co.stop_reason = None  # everything got done anyway


def chunk_size(co: Coordinator, n_workers: int) -> int:
    """Units per hand-out: one while units are slow, more once they take only
    milliseconds (so messaging does not dominate), never so many that the tail of
    the queue is unbalanced."""
    if co.wall_n < 3:
        return 1
    k = int(co.cfg.chunk_seconds / max(co.wall_avg, 1e-6))
    k = min(k, co.cfg.max_chunk, len(co.work) // (2 * n_workers))
    return max(1, k)


def coordinate(co: Coordinator, comm, MPI) -> None:
    """Answer the workers until every one is stopped. A worker that asks while
    nothing is queued but a head unit in flight may still release classes waits for
    its reply (idle) instead of being stopped."""
    active = set(range(1, co.size))
    busy: dict[int, list[Unit]] = {}
    idle: list[int] = []
    stop_at = None

    def stop(w: int) -> None:
        comm.send(("stop",), dest=w, tag=TAG_REP)
        active.discard(w)

    def dispatch() -> None:
        while idle:
            if co.check_stop() or not co.work.more():
                stop(idle.pop(0))
            elif not len(co.work):
                return  # classes to come: the idle wait
            else:
                k = chunk_size(co, co.size - 1)
                units = co.work.pop()
                while len(units) < k and len(co.work):
                    units += co.work.pop()
                w = idle.pop(0)
                busy[w] = units
                comm.send(("work", units), dest=w, tag=TAG_REP)

    while active:
        if co.check_stop() and stop_at is None:
            stop_at = time.monotonic()
            co.flush()
            dispatch()  # the idle ones stop now
            n_busy = sum(len(v) for v in busy.values())
            if not co.cfg.quiet and busy:
                print(f"wordle-dp: stopping ({co.stop_reason}); waiting up to "
                      f"{co.cfg.grace:.0f} s for {n_busy} unit(s) of work in flight",
                      file=co.out, flush=True)
        if stop_at is not None and busy and time.monotonic() - stop_at > co.cfg.grace:
            if not co.cfg.quiet:
                n_busy = sum(len(v) for v in busy.values())
                print(f"wordle-dp: {n_busy} unit(s) of work still in flight stay pending",
                      file=co.out, flush=True)
            co.abort_needed = True
            return
        wake = time.monotonic() + 1.0
        got = wait_message(
            comm, MPI, MPI.ANY_SOURCE, TAG_REQ, max_sleep=0.004 if busy else 0.05,
            should_break=lambda w=wake, s=stop_at: time.monotonic() > w
            or (s is None and co.check_stop()),
        )
        if got is None:
            co.tick()
            continue
        t0 = time.perf_counter()
        src, msg = got
        kind = msg[0]
        if kind == "result":
            _, results, stats, sig = msg
            units = busy.pop(src, [])
            co.unit_wall(sum(r.wall_seconds for r, _e in results) / max(1, len(units)))
            for item, err in results:
                co.add_item(item, err, stats)
            co.handled += len(results)
            if sig is not None and co.signals.received is None:
                co.signals.received = sig
        elif kind == "failed":  # the worker could not even build its solver
            print(f"wordle-dp: rank {src} cannot solve: {msg[1]}", file=co.out, flush=True)
            stop(src)
            continue
        idle.append(src)
        dispatch()
        co.tick()
        co.handle_seconds += time.perf_counter() - t0


def gate_heads(mode: str, max_guesses: int) -> bool:
    """Whether split openers' big classes wait for their head unit: in hard and
    strict modes (85 of 500 hard openers are infeasible within 6, nearly always
    through a small class the head finds in well under a second) and under caps
    below 6; not in easy mode under 6 or more guesses (no infeasible opener of 500),
    where the wait only lengthens the tail: simulated 4096 ranks 29 -> 39 %
    efficient, 1024 ranks 89 -> 90 % (bench/sim_schedule.py)."""
    return mode != "easy" or 0 < max_guesses < 6


def plan_work(cfg: RunConfig, lists, table: np.ndarray, store: Store, queue: list[int],
              size: int, engine, spreads: dict[int, dict[int, int]] | None = None
              ) -> tuple[Work, ClassStore | None, list[int], set[int],
                         dict[int, list[int]], list]:
    """Rank 0's plan: the Work queue for the openers `queue` (in `order`'s order),
    the class checkpoint (None when nothing may be split: under a cutoff, with
    --split off, the worst-case objective, or an engine without class_value), the
    queue in the order used,
    the openers split, the bundles (opener -> its bundle) and the records of split
    openers that the checkpoint already completes. `spreads`: those of the big
    classes (costs.spreads_of), for the cost model, where they were computed."""
    n_p = 3**lists.length
    classes = None
    if cfg.cutoff is None and cfg.split != "off" and cfg.objective == "expected" and callable(
            getattr(engine, "class_value", None)):
        # the predicted costs order the work (openers and classes on one scale) and
        # choose which openers go out as classes (split), and which classes in parts
        classes = ClassStore(store.path, len(lists.guesses), n_p)
        model = CostModel(cfg.mode, table, n_p, spreads)
        costs = {i: model.of_opener(i) for i in queue}
        split = plan(costs, max(1, size - 1), cfg.split, classes.partly_done(queue))
        parts_ok = callable(getattr(engine, "class_part", None))
        work = Work(cfg.mode, len(lists.answers), table, n_p, cfg.parts if parts_ok else 0,
                    sum(costs.values()) / max(1, size - 1), max(1, size - 1),
                    cfg.max_guesses == 0, model, gate_heads(cfg.mode, cfg.max_guesses))
        queue = sorted(queue, key=lambda i: (-costs[i], i))
    else:
        costs = {i: float(len(queue) - k) for k, i in enumerate(queue)}  # queue order
        split = set()
        work = Work(cfg.mode, len(lists.answers), table, n_p)
    bundled: dict[int, list[int]] = {}
    if classes is not None and size > 1:
        # openers sharing their most expensive class go to one rank back to back
        whole = {i: costs[i] for i in queue if i not in split}
        share = sum(costs.values()) / max(1, size - 1)
        for b in affinity(table, whole, cfg.mode, share, n_p):
            bundled.update({i: b for i in b})
    settled = []
    for i in queue:
        if i in split:
            assert classes is not None  # split only where classes may be
            done = work.add_split(i, classes.results(i), costs[i])
            if done is not None:  # every class needed was in the checkpoint
                settled.append(done)
        elif i in bundled:
            b = bundled[i]
            if i == b[0]:
                work.push_bundle(tuple((j, None) for j in b),
                                 bundle_cost(costs, b, table, cfg.mode, n_p))
        else:
            work.push((i, None), costs[i])
    return work, classes, queue, split, bundled, settled
