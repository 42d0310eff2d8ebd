"""The MPI side of a run: mpi4py when it is usable, the launcher check, message
waiting without busy-polling, signals, the per-node table and ending a job.

mpi4py is imported only here and only when a run starts, so the other commands do
not pay for it.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from ..errors import UsageError

# worker -> rank 0: ("ready",) | ("partial", results: a unit's classes so far) |
# ("result", results, stats, signal) | ("failed", why)
TAG_REQ = 11
TAG_REP = 12  # rank 0 -> worker: ("work", units, bounds) | ("stop",)
TAG_ABANDON = 13  # rank 0 -> a busy worker, past the grace of a stop: cut the unit short

# How long a waiting rank sleeps between looks at MPI, at most: its waits cost no CPU
# (MPICH's blocking calls spin: 80 % system time in a bcast, 100 % user in a recv)
# while a message still arrives within a few ms of being sent.
QUIET_SLEEP = 0.02


def limit_threads() -> None:
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



def mpi():
    """(comm, MPI) or (None, None) when mpi4py is unusable: then a plain process."""
    try:
        from mpi4py import MPI

        return MPI.COMM_WORLD, MPI
    except Exception:  # ImportError, missing libmpi...
        return None, None


def mpi_name(MPI) -> str | None:
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


def wait_message(comm, MPI, source, tag, should_break=None, max_sleep=QUIET_SLEEP):
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


def quiet_barrier(comm, max_sleep: float = QUIET_SLEEP) -> None:
    """A barrier whose waiting ranks sleep instead of spinning: call it before a
    collective that some ranks may reach long before the others (rank 0 loading,
    planning or writing), so that the collective itself finds everyone there.
    No-op without MPI."""
    if comm is None or comm.Get_size() == 1:
        return
    req = comm.Ibarrier()
    delay = 0.0002
    while not req.Test():
        time.sleep(delay)
        delay = min(delay * 1.5, max_sleep)


def quiet_bcast(comm, obj=None, root: int = 0):
    """comm.bcast after a quiet_barrier: the others wait for the root asleep."""
    if comm is None or comm.Get_size() == 1:
        return obj
    quiet_barrier(comm)
    return comm.bcast(obj, root=root)


class NodeCounter:
    """A counter the ranks of one node draw from, with no messages: each draw is a
    fetch-and-add on a word of shared memory, inside one passive epoch held from the
    start, so it waits on no other rank (a plain lock per draw waited, in MPICH, for
    the target's next MPI call: seconds, while rank 0 solves). Made and freed by
    every rank together; `on_node` gives None where the ranks span nodes."""

    def __init__(self, win, node):
        import numpy as np

        self.win, self.node, self.rank = win, node, node.Get_rank()
        self._one = np.ones(1, np.int64)
        self._zero = np.zeros(1, np.int64)
        self._got = np.zeros(1, np.int64)
        win.Lock_all()

    @classmethod
    def on_node(cls, comm) -> NodeCounter | None:
        """Collective over `comm`: a counter at 0, or None (every rank alike) when
        its ranks are not all on one node."""
        from mpi4py import MPI

        node = comm.Split_type(MPI.COMM_TYPE_SHARED)
        whole = node.Get_size() == comm.Get_size()
        if not whole:
            node.Free()
            return None
        win = MPI.Win.Allocate_shared(8 if node.Get_rank() == 0 else 0, 8, comm=node)
        counter = cls(win, node)
        if counter.rank == 0:
            counter.reset()
        node.Barrier()
        return counter

    def draw(self) -> int:
        """The next number (0, 1, 2, ... across every rank's draws)."""
        from mpi4py import MPI

        self.win.Fetch_and_op(self._one, self._got, 0, 0, MPI.SUM)
        self.win.Flush(0)
        return int(self._got[0])

    def reset(self) -> None:
        """Back to 0: by one rank, while no rank draws."""
        from mpi4py import MPI

        self.win.Accumulate(self._zero, 0, op=MPI.REPLACE)
        self.win.Flush(0)

    def close(self, n: int) -> None:
        """Every later draw gives n or more (a rank that stops ends the others'
        draws): an addition, atomic beside their fetch-and-adds."""
        import numpy as np
        from mpi4py import MPI

        self.win.Accumulate(np.array([n], np.int64), 0, op=MPI.SUM)
        self.win.Flush(0)

    def free(self) -> None:
        """Collective: every rank, once done drawing."""
        self.win.Unlock_all()
        self.win.Free()
        self.node.Free()


def threads_ok(MPI) -> bool:  # noqa: N803
    """Whether two threads of a rank may call MPI at once (MPI_THREAD_MULTIPLE),
    as a worker's abandon watcher does beside its solving thread."""
    try:
        return MPI.Query_thread() >= MPI.THREAD_MULTIPLE
    except Exception:
        return False


class Signals:
    """SIGUSR1/SIGTERM -> a flag, looked at between units of work and messages.

    One flag per process: installs nest (a book build, then its run), the handlers
    go in at the first and out at the last, and a signal received at any depth is
    seen at every depth and by every Signals() (the coordinator's, a worker's), so
    a stop asked for while rank 0 plans or a rank waits is not lost, and never
    kills a rank."""

    _received: int | None = None
    _depth = 0
    _old: dict = {}

    @property
    def received(self) -> int | None:
        return Signals._received

    @received.setter
    def received(self, signum: int | None) -> None:
        Signals._received = signum

    def install(self) -> Signals:
        if Signals._depth == 0:
            Signals._received = None
            Signals._old = {}
            for sig in (signal.SIGUSR1, signal.SIGTERM):
                try:
                    Signals._old[sig] = signal.signal(sig, Signals._handler)
                except (ValueError, OSError):  # not the main thread
                    pass
        Signals._depth += 1
        return self

    @staticmethod
    def _handler(signum, frame):
        Signals._received = signum

    def restore(self) -> None:
        Signals._depth = max(0, Signals._depth - 1)
        if Signals._depth == 0:
            for sig, old in Signals._old.items():
                try:
                    signal.signal(sig, old)
                except (ValueError, OSError):
                    pass
            Signals._old = {}


@contextmanager
def signals_reach(stop: Callable[[], None]) -> Iterator[None]:
    """While the body runs, a SIGTERM or SIGUSR1 also calls `stop` at once (a
    search's request_stop), from stops.on_signals' watcher thread: Signals' own
    handler runs only when the main thread is back in Python, and a compiled search
    does not come back until it ends (an hour and more for a big class of a moves
    file). Signals must be installed, so that the signal has a Python handler."""
    from ..stops import on_signals

    with on_signals({int(signal.SIGTERM), int(signal.SIGUSR1)}, lambda _s: stop()):
        yield


def pause_for_test(step: str) -> None:
    """Test hook: with WORDLE_DP_TEST_PAUSE=STEP:MARKER, the caller (rank 0, or after
    its first class of a moves file every rank) adds a line to the file MARKER at
    STEP and waits there (up to 30 s) for a stop signal, so that a test can stop a
    build at a point too short to hit otherwise (the book's scoring and writing, a
    moves file's first classes). Each caller adds one line (its pid), so that a test
    can wait for every rank."""
    want = os.environ.get("WORDLE_DP_TEST_PAUSE", "")
    if not want.startswith(step + ":"):
        return
    with open(want.split(":", 1)[1], "a") as f:
        f.write(f"{os.getpid()}\n")
    end = time.monotonic() + 30
    while Signals().received is None and time.monotonic() < end:
        time.sleep(0.05)


def abort_job(comm, who: str) -> None:
    """An unexpected error on one rank: end every rank (MPI_Abort) instead of leaving
    the others waiting forever for a message that will not come."""
    traceback.print_exc()
    print(f"wordle-dp: unexpected error on {who}; aborting all ranks (the store is "
          "consistent; run the same command again to resume)", file=sys.stderr, flush=True)
    comm.Abort(1)



def node_table(comm, MPI, make):  # noqa: N803
    """The pattern table in node-shared memory (None: each rank loads its own)."""
    from ..shared_table import node_tables

    return node_tables(comm, MPI, make, quiet_barrier)



def node_layout(comm, MPI, shared) -> tuple[int, int, bool]:  # noqa: N803
    """Collective over `comm`: (ranks on this rank's node, nodes in the job, whether
    every rank maps its node's shared table; `shared`: this rank's, or None).
    Without MPI: (1, 1, False)."""
    if comm is None:
        return 1, 1, False
    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        on_node = node.Get_size()
        leader = node.Get_rank() == 0
    finally:
        node.Free()
    every = comm.allgather((leader, shared is not None))
    return on_node, sum(x for x, _ in every), all(y for _, y in every)


def gather_spreads(comm, table, n_patterns: int, openers, min_size: int | None = None
                   ) -> dict[int, dict[int, int]]:
    """Collective over `comm`: the spreads of the openers' big classes
    (costs.spreads_of), each rank scanning every size-th opener, so that the plan's
    cost model does not keep the other ranks waiting on rank 0. Rank 0 gets them
    all; the other ranks {}. `min_size`: costs.SPREAD_MIN unless given (tests)."""
    from .costs import SPREAD_MIN, spreads_of

    rank, size = comm.Get_rank(), comm.Get_size()
    mine = list(openers)[rank::size]
    part = spreads_of(table, n_patterns, mine, min_size=min_size or SPREAD_MIN)
    quiet_barrier(comm)  # slices take unequal times
    got = comm.gather(part, root=0)
    out: dict[int, dict[int, int]] = {}
    for part in got or []:
        out.update(part)
    return out


def _cgroup_limit() -> int | None:
    """The memory limit of this process's cgroup (v2, else v1), if any: what a Slurm
    job with --mem, or a container, may really use."""
    try:
        lines = open("/proc/self/cgroup").read().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        rel = parts[2].lstrip("/")
        if parts[1] == "":  # v2
            base = "/sys/fs/cgroup"
            names = ("memory.max",)
        elif "memory" in parts[1].split(","):
            base = "/sys/fs/cgroup/memory"
            names = ("memory.limit_in_bytes",)
        else:
            continue
        for name in names:
            for d in (os.path.join(base, rel), base):
                try:
                    text = open(os.path.join(d, name)).read().strip()
                except OSError:
                    continue
                if text.isdigit() and int(text) < 2**60:
                    return int(text)
    return None


def node_memory_bytes(env: Mapping[str, str] = os.environ) -> int:
    """The memory this job may use on this node: the least of the machine's, its
    cgroup limit, and Slurm's allocation (SLURM_MEM_PER_NODE, or SLURM_MEM_PER_CPU
    times SLURM_CPUS_ON_NODE; both in MB)."""
    from ..table import memory_bytes

    out = [memory_bytes()]
    limit = _cgroup_limit()
    if limit:
        out.append(limit)
    per_node = env.get("SLURM_MEM_PER_NODE", "")
    per_cpu, cpus = env.get("SLURM_MEM_PER_CPU", ""), env.get("SLURM_CPUS_ON_NODE", "")
    if per_node.isdigit() and int(per_node) > 0:
        out.append(int(per_node) * 2**20)
    elif per_cpu.isdigit() and cpus.isdigit() and int(per_cpu) * int(cpus) > 0:
        out.append(int(per_cpu) * int(cpus) * 2**20)
    return min(out)
