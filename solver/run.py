"""Value many openers: dynamic distribution over MPI ranks into a result store.

`run(RunConfig(...))` is the Python API behind `wordle-dp run`. Launched with
`mpiexec -n N` (or srun) it uses N ranks: rank 0 coordinates and is the only
writer of the store, ranks 1..N-1 solve. Each idle worker asks rank 0 for the
next opener (plain request/reply with comm.send/recv); openers are handed out
most expensive first (by Solver.estimate, larger = more expensive), so the long
ones do not end up alone at the tail. As a single process, rank 0 solves itself.

Every rank keeps one Solver for the whole run, so its memo (positions already
valued) carries over from one opener to the next.

Stopping: --time-limit, SIGUSR1 or SIGTERM make rank 0 stop handing out work,
flush the buffered results and exit 0; a run of the same command resumes. Results
that come back within `grace` seconds are still recorded; openers still being
solved after that stay pending (rank 0 then ends the job with MPI_Abort(0), since
an MPI rank inside a numba kernel cannot be interrupted politely).
"""

from __future__ import annotations

import math
import os
import re
import signal
import socket
import sys
import time
import traceback
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from .errors import UsageError
from .store import (
    EXACT,
    FAILED,
    LOWER_BOUND,
    STATUS_CODES,
    STATUS_NAMES,
    UPPER_BOUND,
    Record,
    Store,
)

TAG_REQ = 11  # worker -> rank 0: ("ready"|"result", payload)
TAG_REP = 12  # rank 0 -> worker: ("work", index, word) | ("stop",)
EXIT_USAGE = 2


@dataclass
class RunConfig:
    store: str | Path
    answers: str | None = None
    guesses: str | None = None
    lists: str | None = None  # built-in lists by name (words.BUILTIN), or...
    length: int | None = None  # ...by word length
    cache_dir: str | None = None
    openers: str = "all"  # all | FILE | w1,w2,...
    mode: str = "easy"
    max_guesses: int = 6
    objective: str = "expected"  # or worst: fewest guesses first (game/objective.py)
    cutoff: int | None = None
    no_cutoff: bool = False  # value exactly, whatever cutoff the store was made with
    time_limit: float | None = None  # seconds from the start of the run
    retry_failed: bool = False
    quiet: bool = False
    shard: tuple[int, int] | None = None  # (i, n): this run takes every n-th opener
    flush_seconds: float = 5.0  # write buffered results at least this often...
    flush_every: int = 256  # ...or when this many are buffered
    progress_seconds: float = 30.0
    grace: float = 60.0  # after a stop, wait this long for results in flight
    chunk_seconds: float = 0.5  # cheap openers go out in chunks of about this much work
    max_chunk: int = 64
    # builds the per-rank solver: factory(lists, mode, max_guesses, table) -> solver
    solver_factory: Any = None
    progress_file: Any = None  # default sys.stderr
    extra: dict = field(default_factory=dict)


@dataclass
class RunSummary:
    exit_code: int
    state: str  # finished | stopped | refused
    solved: int = 0
    failed: int = 0
    queued: int = 0
    wall_seconds: float = 0.0
    write_seconds: float = 0.0
    flushes: int = 0
    solve_cpu_seconds: float = 0.0
    ranks: int = 1
    stats: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- helpers


def parse_time_limit(text: str) -> float:
    """'90', '90s', '45m', '2h', 'MM:SS', 'HH:MM:SS' or 'D-HH:MM:SS' -> seconds."""
    t = str(text).strip()
    m = re.fullmatch(r"(\d{1,12}(?:\.\d{1,9})?)\s*([smhd]?)", t)  # bounded: no huge ints
    if m:
        return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]
    m = re.fullmatch(r"(?:(\d{1,6})-)?(\d{1,9}):(\d{1,2})(?::(\d{1,2}))?", t)
    if m:
        days = int(m.group(1) or 0)
        if m.group(4) is None:  # MM:SS
            h, mi, s = 0, int(m.group(2)), int(m.group(3))
        else:
            h, mi, s = int(m.group(2)), int(m.group(3)), int(m.group(4))
            if mi > 59:
                raise ValueError(f"bad time limit {text[:40]!r}: minutes above 59")
        if s > 59:
            raise ValueError(f"bad time limit {text[:40]!r}: seconds above 59")
        return float(days * 86400 + h * 3600 + mi * 60 + s)
    raise ValueError(f"bad time limit {str(text)[:40]!r} (seconds, or HH:MM:SS)")


def parse_shard(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d{1,9})\s*/\s*(\d{1,9})\s*", str(text))
    if not m or int(m.group(2)) < 1 or int(m.group(1)) >= int(m.group(2)):
        raise ValueError(f"bad shard {str(text)[:40]!r}: use I/N with 0 <= I < N")
    return int(m.group(1)), int(m.group(2))


def opener_file(spec: str) -> str | None:
    """The file an --openers value names, or None when it is words.

    Files are explicit, so that a file in the working folder named like a word
    cannot change the meaning: '@FILE', or a path containing '/' or ending in '.txt'.
    """
    if spec.startswith("@"):
        return spec[1:]
    if "/" in spec or spec.lower().endswith(".txt"):
        return spec
    return None


def select_openers(spec: str, lists) -> list[int]:
    """Guess indices named by 'all', a file of words ('@FILE', a path with '/' or
    ending in '.txt') or 'w1,w2,...'."""
    from .errors import UsageError, quote
    from .words import read_words

    spec = "all" if spec is None else spec.strip()
    if spec == "all":
        return list(range(len(lists.guesses)))
    path = opener_file(spec)
    if path is not None:
        if not path:
            raise UsageError("--openers '@': the file name is missing (use @FILE)")
        words = read_words(path)
    else:
        words = [w.strip() for w in spec.split(",")]
        if not any(words):
            raise UsageError(f"--openers {quote(spec)} names no opener (use all, @FILE "
                             "or w1,w2,...)")
        if not all(words):
            raise UsageError(f"--openers {quote(spec)} has an empty item (use w1,w2,...)")
    seen: set[int] = set()
    out = []
    for w in words:
        i = lists.guess_id(w)
        if i not in seen:
            seen.add(i)
            out.append(i)
    return out


def fallback_estimate(table: np.ndarray, index: int) -> float:
    """Cost guess without the engine: sum of squared feedback-class sizes."""
    c = np.bincount(table[index]).astype(np.float64)
    return float((c * c).sum())


def default_factory(lists, mode, max_guesses, table):
    from .search import Solver

    return Solver(lists, mode=mode, max_guesses=max_guesses, table=table)


def _limit_threads() -> None:
    """One numba thread per rank (ranks already use the cores)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    nb = sys.modules.get("numba")
    if nb is None:
        os.environ["NUMBA_NUM_THREADS"] = "1"
    else:  # already imported (changing the variable now would upset numba): cap at run time
        try:
            nb.set_num_threads(1)
        except Exception:
            pass


def _fmt_dur(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    s = int(round(s))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


def _mpi():
    """(comm, MPI) or (None, None) when mpi4py is unusable: then a plain process."""
    try:
        from mpi4py import MPI

        return MPI.COMM_WORLD, MPI
    except Exception:  # ImportError, missing libmpi...
        return None, None


def _mpi_name(MPI) -> str | None:
    """'MPICH Version: 5.0.2', 'Open MPI v4.1.4', ... (None without mpi4py)."""
    if MPI is None:
        return None
    first = (MPI.Get_library_version().replace("\0", "").strip().splitlines() or ["?"])[0]
    return " ".join(first.split(",")[0].split())


# Job size as each launcher exports it: Open MPI's mpirun, PMI (mpich's mpiexec, Intel
# MPI, srun --mpi=pmi2), and any srun step.
LAUNCHER_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS")


def check_launcher(size: int, mpi_library: str | None,
                   env: Mapping[str, str] = os.environ) -> None:
    """Refuse N singletons: a launcher started N processes but MPI sees a world of 1.

    That is what a launcher that does not match mpi4py's MPI gives (srun with the
    wrong --mpi plugin, mpich's mpiexec with an Open MPI build, ...): every process
    would be rank 0 of 1 and value everything into the same store.
    """
    if size != 1:
        return
    for var in LAUNCHER_SIZE_VARS:
        n = env.get(var, "")
        if n.isdigit() and int(n) > 1:
            mpi = f"MPI ({mpi_library})" if mpi_library else "mpi4py (not usable here)"
            raise UsageError(
                f"launched as {n} processes ({var}={n}) but {mpi} sees a world of 1: the "
                "launcher does not match the MPI that mpi4py uses, so each process would run "
                "alone. Use that MPI's own mpiexec, or srun --mpi=pmi2 for the mpich wheel and "
                "the plugin your site names for its MPI (often pmix); see slurm/README.md")


def _wait_message(comm, MPI, source, tag, should_break=None, max_sleep=0.02):
    """Wait for a message without busy-polling the CPU (MPICH's recv spins).

    Returns (source, message), or None when should_break() turns true first.
    """
    st = MPI.Status()
    delay = 0.0002
    while not comm.Iprobe(source=source, tag=tag, status=st):
        if should_break is not None and should_break():
            return None
        time.sleep(delay)
        delay = min(delay * 1.5, max_sleep)
    src = st.Get_source()
    return src, comm.recv(source=src, tag=tag)


class _Signals:
    """SIGUSR1/SIGTERM -> a flag (handled between openers / between messages)."""

    def __init__(self):
        self.received: int | None = None
        self._old = {}

    def install(self):
        for sig in (signal.SIGUSR1, signal.SIGTERM):
            try:
                self._old[sig] = signal.signal(sig, self._handler)
            except (ValueError, OSError):  # not the main thread
                pass
        return self

    def _handler(self, signum, frame):
        self.received = signum

    def restore(self):
        for sig, old in self._old.items():
            try:
                signal.signal(sig, old)
            except (ValueError, OSError):
                pass


# --------------------------------------------------------------------------- solving


class _Worker:
    """One rank's solver, kept for the whole run (memo reused across openers)."""

    def __init__(self, cfg: RunConfig, lists, table, rank: int):
        factory = cfg.solver_factory or default_factory
        self.solver = factory(lists, cfg.mode, cfg.max_guesses, table)
        if cfg.objective == "worst":
            from .game.objective import WorstSolver

            self.solver = WorstSolver(self.solver)
        self.lists = lists
        self.cutoff = cfg.cutoff
        self.rank = rank
        self.has_second = callable(getattr(self.solver, "second_guesses", None))

    def stats(self) -> dict:
        s = getattr(self.solver, "stats", None)
        if callable(s):
            s = s()
        if not isinstance(s, dict):
            return {}
        return {k: v for k, v in s.items() if isinstance(v, int | float)}

    def solve(self, index: int) -> tuple[Record, str | None]:
        word = self.lists.guesses[index]
        t0 = time.perf_counter()
        c0 = time.process_time()
        try:
            if self.cutoff is None:
                r = self.solver.solve(word)
            else:
                r = self.solver.solve(word, cutoff=self.cutoff)
            second = None
            code = STATUS_CODES[r.status]
            if self.has_second and code in (EXACT, UPPER_BOUND):
                sg = self.solver.second_guesses(word)
                if sg:
                    second = np.full(3**self.lists.length, -1, dtype=np.int32)
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
            )
            return rec, None
        except Exception as exc:  # one bad opener must not end the run
            msg = f"{type(exc).__name__}: {exc}"
            tb = traceback.format_exc(limit=4)
            rec = Record(index=index, status=FAILED, cpu_seconds=time.process_time() - c0,
                         wall_seconds=time.perf_counter() - t0, rank=self.rank,
                         finished_at=time.time())
            return rec, msg + "\n" + tb


# --------------------------------------------------------------------------- rank 0


class _Coordinator:
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
        self.signals = _Signals().install()
        self.deadline = None if cfg.time_limit is None else self.t_start + cfg.time_limit

    # ---- stopping ----
    def check_stop(self) -> bool:
        if self.stop_reason is None:
            if self.signals.received is not None:
                self.stop_reason = f"signal {signal.Signals(self.signals.received).name}"
            elif self.deadline is not None and time.time() >= self.deadline:
                self.stop_reason = f"time limit ({_fmt_dur(self.cfg.time_limit or 0.0)})"
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
              f"{rate:.1f}/min, ETA {_fmt_dur(eta) if left else '0s'}, best {best}"
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


def _report(summary: RunSummary, co: _Coordinator, store: Store, out) -> None:
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
                     f"{_fmt_dur(s.wall_seconds)} on {s.ranks} rank(s) ({rate:.1f}/min)")
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


# --------------------------------------------------------------------------- setup


def _setup_rank0(cfg: RunConfig):
    """Load lists, open/create the store, build the queue. Raises user errors."""
    from . import __version__
    from .table import check_fits, get_table
    from .words import WordLists

    if cfg.max_guesses < 0:
        raise ValueError("--max-guesses must be >= 0 (0 = no cap)")
    if cfg.objective == "worst" and cfg.cutoff is not None:
        raise ValueError("--cutoff is a total: the worst-case objective ranks by the worst "
                         "case first and takes no cutoff")
    lists = WordLists.load(cfg.answers, cfg.guesses, quiet=cfg.quiet, lists=cfg.lists,
                           length=cfg.length)
    chosen = select_openers(cfg.openers, lists)
    check_fits(lists)  # before a store is made for lists whose table cannot exist
    store, created = Store.open_or_create(cfg.store, lists, cfg.mode, cfg.max_guesses,
                                          cfg.cutoff, __version__, cfg.objective)
    if not created and store.solver_version and store.solver_version != __version__:
        print(f"note: {cfg.store} was started by wordle-dp {store.solver_version}, this is "
              f"{__version__}", file=sys.stderr)
    table, _info = get_table(lists, "numpy", cfg.cache_dir)
    return lists, store, chosen, table


def _order(cfg, lists, table, chosen, todo, estimator) -> tuple[list[int], list[int]]:
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


# --------------------------------------------------------------------------- main


def run(cfg: RunConfig) -> RunSummary:
    """Run (or resume) a valuation into cfg.store; see the module docstring.

    User errors (bad lists, foreign store) raise on rank 0 (the CLI prints them);
    other ranks return a summary with exit_code 2.
    """
    cfg = replace(cfg)  # private copy: the store may supply the cutoff
    _limit_threads()
    out = cfg.progress_file or sys.stderr
    comm, MPI = _mpi()
    size = comm.Get_size() if comm is not None else 1
    rank = comm.Get_rank() if comm is not None else 0
    if cfg.shard is None:  # shards are independent processes by design
        check_launcher(size, _mpi_name(MPI))

    if rank == 0:
        try:
            lists, store, chosen, table = _setup_rank0(cfg)
            err = None
        except BaseException as exc:
            err = exc
        if err is None and cfg.cutoff is None and store.cutoff is not None and (
                not cfg.no_cutoff):
            cfg.cutoff = store.cutoff  # resuming a --cutoff store without the option
        if size > 1:
            comm.bcast((err is None, cfg.cutoff), root=0)
        if err is not None:
            raise err
        if size > 1:  # one copy of the tables per node (rank 0 fills its node's)
            shared = _node_table(comm, MPI, lambda: table)
            table = table if shared is None else shared
    else:
        ok, cfg.cutoff = comm.bcast(None, root=0)
        if not ok:
            return RunSummary(exit_code=EXIT_USAGE, state="refused", ranks=size)
        try:
            return _worker_main(cfg, comm, MPI, rank)
        except BaseException:
            _abort_job(comm, f"rank {rank}")
            raise

    try:
        return _rank0_main(cfg, comm, MPI, size, out, lists, store, chosen, table)
    except BaseException:
        if size > 1:  # never leave the workers waiting for a reply
            _abort_job(comm, "rank 0")
        raise
    finally:
        store.unlock()


def _rank0_main(cfg, comm, MPI, size, out, lists, store, chosen, table) -> RunSummary:
    local = _Worker(cfg, lists, table, 0) if size == 1 else None
    estimator = None
    if local is not None:
        estimator = getattr(local.solver, "estimate", None)
    else:
        try:  # the engine's estimate lives on a Solver; build a light one for it
            estimator = getattr(
                (cfg.solver_factory or default_factory)(lists, cfg.mode, cfg.max_guesses,
                                                        table), "estimate", None)
        except Exception:
            estimator = None
    queue, ordered = _order(cfg, lists, table, chosen,
                            store.todo(cfg.cutoff, cfg.retry_failed), estimator)
    store.mark_selected(ordered)
    co = _Coordinator(cfg, store, lists, queue, size, out)
    if not cfg.quiet:
        status = store.status()
        redo = int((status[np.asarray(queue, dtype=np.int64)] == LOWER_BOUND).sum()) \
            if queue else 0
        print(f"wordle-dp: {len(queue)} opener(s) to value on {size} rank(s) "
              f"({'1 process' if size == 1 else f'{size - 1} worker(s) + coordinator'}); "
              f"{len(ordered) - len(queue)} of {len(ordered)} selected already in "
              f"{cfg.store}" + (f"; {redo} lower bound(s) below the cutoff are valued again"
                                if redo else ""), file=out, flush=True)
    co.flush("running")
    try:
        if size == 1:
            assert local is not None  # a single process solves itself
            _serial(co, local)
        else:
            _coordinate(co, comm, MPI)
    except BaseException:
        try:  # keep what was solved; the store stays consistent either way
            co.flush("crashed")
        except BaseException:
            pass
        raise
    finally:
        co.signals.restore()
    if co.queue and not co.stop_reason:  # every worker failed to start
        co.stop_reason = "no rank could solve (see the messages above)"
    state = "stopped" if co.stop_reason else "finished"
    co.flush(state)
    summary = co.summary(state)
    if co.queue and co.stop_reason and co.stop_reason.startswith("no rank"):
        summary.exit_code = 1
    _report(summary, co, store, out)
    if co.abort_needed:  # workers stuck in a solve past the grace
        comm.Abort(0)
    return summary


def _abort_job(comm, who: str) -> None:
    """An unexpected error on one rank: end every rank (MPI_Abort) instead of leaving
    the others waiting forever for a message that will not come."""
    traceback.print_exc()
    print(f"wordle-dp: unexpected error on {who}; aborting all ranks (the store is "
          "consistent; run the same command again to resume)", file=sys.stderr, flush=True)
    comm.Abort(1)


def _serial(co: _Coordinator, worker: _Worker) -> None:
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


def _chunk_size(co: _Coordinator, n_workers: int) -> int:
    """Openers per hand-out: one while openers are slow, more once they take only
    milliseconds (so messaging does not dominate), never so many that the tail of
    the queue is unbalanced."""
    if co.wall_n < 3:
        return 1
    k = int(co.cfg.chunk_seconds / max(co.wall_avg, 1e-6))
    k = min(k, co.cfg.max_chunk, len(co.queue) // (2 * n_workers))
    return max(1, k)


def _coordinate(co: _Coordinator, comm, MPI) -> None:
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
        got = _wait_message(
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
            k = _chunk_size(co, co.size - 1)
            work = [co.queue.popleft() for _ in range(min(k, len(co.queue)))]
            busy[src] = work
            comm.send(("work", work), dest=src, tag=TAG_REP)
        co.tick()


def _node_table(comm, MPI, make):  # noqa: N803
    """The pattern table in node-shared memory (None: each rank loads its own)."""
    from .shared_table import node_tables

    return node_tables(comm, MPI, make)


def _worker_main(cfg: RunConfig, comm, MPI, rank: int) -> RunSummary:
    from .table import get_table
    from .words import WordLists

    def load_table():
        lists = WordLists.load(cfg.answers, cfg.guesses, quiet=True, lists=cfg.lists,
                               length=cfg.length)
        return get_table(lists, "numpy", cfg.cache_dir)[0]

    shared = _node_table(comm, MPI, load_table)  # collective: before anything can fail
    sigs = _Signals().install()
    try:
        lists = WordLists.load(cfg.answers, cfg.guesses, quiet=True, lists=cfg.lists,
                               length=cfg.length)
        table = shared if shared is not None else get_table(lists, "numpy", cfg.cache_dir)[0]
        worker = _Worker(cfg, lists, table, rank)
    except Exception as exc:
        comm.send(("failed", f"{type(exc).__name__}: {exc}"), dest=0, tag=TAG_REQ)
        _wait_message(comm, MPI, 0, TAG_REP)
        return RunSummary(exit_code=1, state="failed", ranks=comm.Get_size())
    comm.send(("ready",), dest=0, tag=TAG_REQ)
    n = 0
    while True:
        _src, msg = _wait_message(comm, MPI, 0, TAG_REP, max_sleep=0.002)
        if msg[0] != "work":
            break
        results: list = []
        for i in msg[1]:
            if results and sigs.received is not None:
                break  # the rest of the chunk stays pending
            results.append(worker.solve(i))
        n += len(results)
        comm.send(("result", results, worker.stats(), sigs.received), dest=0, tag=TAG_REQ)
    sigs.restore()
    return RunSummary(exit_code=0, state="finished", solved=n, ranks=comm.Get_size())


__all__ = ["RunConfig", "RunSummary", "run", "parse_time_limit", "parse_shard",
           "select_openers", "STATUS_NAMES", "LOWER_BOUND"]
