"""Value many openers: dynamic distribution over MPI ranks into a result store.

`run(RunConfig(...))` is the Python API behind `wordle-dp run` (a RunConfig is a
Problem, the RunOptions and the Tuning); `best` (best.py) and the opening book's
build are runs too. Launched with `mpiexec -n N` (or srun)
it uses N ranks: rank 0 coordinates and is the only writer of the store, and
every rank solves (rank 0 in a thread beside the coordinator, up to
config.RANK0_SOLVES_MAX ranks). Each idle solver asks rank 0 for work (plain
request/reply) and gets the next unit: an opener, a bundle of openers that share
their most expensive first-feedback class (one rank values them back to back and
the memo does the shared class once), or first-feedback classes of an opener too
big for one rank's fair share (split, checkpointed class by class, a big class in
parts). Units go out most expensive first by a predicted cost (costs: class sizes,
the spreads of big classes and the quick bounds of classes in parts;
Solver.estimate under a cutoff, or with --split off), so the long ones do not end
up alone at the tail; the K best openers (best, the book) go most promising
first, under a cutoff that follows them (cutoffs). As a single process, rank 0's
solver thread does all the work.

Every solver keeps one Solver for the whole run, so its memo (positions already
valued) carries over from one opener to the next; its size follows the node's
memory and ranks (config.default_memo_mb) unless --memo-mb says otherwise. An
exact opener's class values come back with it and are kept in the store's class
checkpoint (split), for the book.

The package's seams: config (what a run is asked), mpi (MPI, the node, waiting
without spinning, signals), cutoffs (the cutoff of each opener), work (the plan
and the queue), worker (a solver's side), loop (rank 0's message loop and its own
solver thread), coordinator (rank 0's results, store writes, progress), split
(work below the opener), costs (the predicted costs it is planned by), best (the
K best openers); main starts a run and sets rank 0 up.

Waiting: a rank that waits (for rank 0's plan, for work, at the end) sleeps
between looks at MPI instead of spinning in a blocking call (MPICH's spin: 80 %
system CPU in a bcast), so an idle rank costs no CPU.

Stopping: --time-limit, SIGUSR1 or SIGTERM make rank 0 stop handing out work,
flush the buffered results and exit 0; a run of the same command resumes. Results
that come back within `grace` seconds are still recorded; solves still running
after that are cut short through the engine's stop flag (Solver.request_stop:
the kernels look at it on entry to every node) and stay pending. Every rank
learns how the run ended, so a stopped book build or best ends on every rank."""

from ..errors import UsageError
from ..store import LOWER_BOUND, STATUS_NAMES
from .config import (
    SPLIT_MODES,
    Problem,
    RunConfig,
    RunOptions,
    RunSummary,
    Tuning,
    check_config,
    opener_file,
    parse_shard,
    parse_time_limit,
    select_openers,
)
from .main import run
from .mpi import LAUNCHER_SIZE_VARS, check_launcher
from .work import fallback_estimate
from .worker import default_factory

__all__ = ["RunConfig", "Problem", "RunOptions", "Tuning", "check_config", "SPLIT_MODES",
           "RunSummary",
           "run", "parse_time_limit", "parse_shard",
           "select_openers", "opener_file", "check_launcher", "fallback_estimate",
           "default_factory", "LAUNCHER_SIZE_VARS", "STATUS_NAMES", "LOWER_BOUND", "UsageError"]
