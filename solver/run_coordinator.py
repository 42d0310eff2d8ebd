"""Rank 0 of a run: the queue of work (most expensive first), the buffer of
results, the single writer of the store, progress lines, stopping and the final
report; the serial loop (one process) and the MPI loop that answers the workers."""

from __future__ import annotations

import math
import signal
import socket
import time
from collections import deque

import numpy as np

from .run_config import RunConfig, RunSummary
from .run_mpi import TAG_REP, TAG_REQ, Signals, wait_message
from .run_worker import Worker
from .store import EXACT, FAILED, N_PATTERNS, Record, Store


def fallback_estimate(table: np.ndarray, index: int) -> float:
    """Cost guess without the engine: sum of squared feedback-class sizes."""
    c = np.bincount(table[index], minlength=N_PATTERNS).astype(np.float64)
    return float((c * c).sum())



def fmt_dur(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    s = int(round(s))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"



class Coordinator:
    """Rank 0: the queue, the buffer, the single writer, progress and stopping."""

    def __init__(self, cfg: RunConfig, store: Store, lists, queue: list[int], size: int,
                 out):
        self.cfg = cfg
        self.store = store
        self.lists = lists
        self.queue = deque(queue)
        self.n_queued = len(queue)
        self.size = size
        self.out = out
        self.buffer: list[Record] = []
        self.errors: dict[str, str] = dict(store.group.attrs.get("errors", {}) or {})
        self.t_start = time.time()
        self.last_flush = time.monotonic()
        self.last_progress = time.monotonic()
        self.solved = 0
        self.failed = 0
        self.wall_avg = 0.0  # recent solve wall time per opener (chunk sizing)
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
                self.stop_reason = f"time limit ({fmt_dur(self.cfg.time_limit)})"
        return self.stop_reason is not None

    # ---- results ----
    def add(self, rec: Record, err: str | None, stats: dict | None) -> None:
        self.buffer.append(rec)
        if not math.isnan(rec.wall_seconds):  # moving average of the solve time
            w = rec.wall_seconds
            self.wall_avg = w if self.wall_n == 0 else 0.8 * self.wall_avg + 0.2 * w
            self.wall_n += 1
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
        if (len(self.buffer) >= self.cfg.flush_every
                or time.monotonic() - self.last_flush >= self.cfg.flush_seconds):
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
              f"{rate:.1f}/min, ETA {fmt_dur(eta) if left else '0s'}, best {best}"
              + (f", {self.failed} failed" if self.failed else ""), file=self.out, flush=True)

    def tick(self) -> None:
        if self.buffer and time.monotonic() - self.last_flush >= self.cfg.flush_seconds:
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
                     f"{fmt_dur(s.wall_seconds)} on {s.ranks} rank(s) ({rate:.1f}/min)")
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
    est = {}
    for i in chosen:
        try:
            est[i] = float(estimator(lists.guesses[i])) if estimator else None
        except Exception:
            est[i] = None
        if est[i] is None:
            est[i] = fallback_estimate(table, i)
    ordered = sorted(chosen, key=lambda i: (-est[i], i))
    if cfg.shard is not None:
        k, n = cfg.shard
        ordered = ordered[k::n]
    return [i for i in ordered if todo[i]], ordered



def serial(co: Coordinator, worker: Worker) -> None:
    while co.queue:
        if co.check_stop():
            return
        i = co.queue.popleft()
        rec, err = worker.solve(i)
        co.add(rec, err, worker.stats())
        co.progress()
    co.check_stop()
    if co.stop_reason and not co.queue:
        co.stop_reason = None  # everything got done anyway


def chunk_size(co: Coordinator, n_workers: int) -> int:
    """Openers per hand-out: one while openers are slow, more once they take only
    milliseconds (so messaging does not dominate), never so many that the tail of
    the queue is unbalanced."""
    if co.wall_n < 3:
        return 1
    k = int(co.cfg.chunk_seconds / max(co.wall_avg, 1e-6))
    k = min(k, co.cfg.max_chunk, len(co.queue) // (2 * n_workers))
    return max(1, k)


def coordinate(co: Coordinator, comm, MPI) -> None:
    active = set(range(1, co.size))
    busy: dict[int, list[int]] = {}
    stop_at = None
    while active:
        if co.check_stop() and stop_at is None:
            stop_at = time.monotonic()
            co.flush()
            n_busy = sum(len(v) for v in busy.values())
            if not co.cfg.quiet and busy:
                print(f"wordle-dp: stopping ({co.stop_reason}); waiting up to "
                      f"{co.cfg.grace:.0f} s for {n_busy} opener(s) in flight",
                      file=co.out, flush=True)
        if stop_at is not None and busy and time.monotonic() - stop_at > co.cfg.grace:
            if not co.cfg.quiet:
                n_busy = sum(len(v) for v in busy.values())
                print(f"wordle-dp: {n_busy} opener(s) still in flight stay pending",
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
        src, msg = got
        kind = msg[0]
        if kind == "result":
            _, results, stats, sig = msg
            busy.pop(src, None)
            for rec, err in results:
                co.add(rec, err, stats)
            if sig is not None and co.signals.received is None:
                co.signals.received = sig
        elif kind == "failed":  # the worker could not even build its solver
            print(f"wordle-dp: rank {src} cannot solve: {msg[1]}", file=co.out, flush=True)
            comm.send(("stop",), dest=src, tag=TAG_REP)
            active.discard(src)
            continue
        if co.check_stop() or not co.queue:
            comm.send(("stop",), dest=src, tag=TAG_REP)
            active.discard(src)
        else:
            k = chunk_size(co, co.size - 1)
            work = [co.queue.popleft() for _ in range(min(k, len(co.queue)))]
            busy[src] = work
            comm.send(("work", work), dest=src, tag=TAG_REP)
        co.tick()

