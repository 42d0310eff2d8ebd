"""Value many openers: dynamic distribution over MPI ranks into a result store.

`run(RunConfig(...))` is the Python API behind `wordle-dp run`. Launched with
`mpiexec -n N` (or srun) it uses N ranks: rank 0 coordinates and is the only
writer of the store, ranks 1..N-1 solve (worker). Each idle worker asks rank 0
for work (plain request/reply with comm.send/recv) and gets the next unit: an
opener, a bundle of openers that share their most expensive first-feedback class
(one rank values them back to back and the memo does the shared class once), or
first-feedback classes of an opener too big for one rank's fair share (split,
checkpointed class by class, a big class in parts). Units go out most expensive
first by a predicted cost (costs: class sizes, the spreads of big classes and the
quick bounds of classes in parts; Solver.estimate under a cutoff, or with --split
off), so the long ones do not end up alone at the tail (coordinator). As a single
process, rank 0 solves itself.

Every rank keeps one Solver for the whole run, so its memo (positions already
valued) carries over from one opener to the next; its size follows the node's
memory and ranks (config.default_memo_mb) unless --memo-mb says otherwise.
The package's seams: config (what a run is asked), mpi (MPI and the node),
worker (a solving rank), coordinator (rank 0), split (work below the opener),
costs (the predicted costs it is planned by);
main starts a run and sets rank 0 up.

Stopping: --time-limit, SIGUSR1 or SIGTERM make rank 0 stop handing out work,
flush the buffered results and exit 0; a run of the same command resumes. Results
that come back within `grace` seconds are still recorded; openers still being
solved after that stay pending (rank 0 then ends the job with MPI_Abort(0), since
an MPI rank inside a numba kernel cannot be interrupted politely)."""

from ..errors import UsageError
from ..store import LOWER_BOUND, STATUS_NAMES
from .config import (
    RunConfig,
    RunSummary,
    opener_file,
    parse_shard,
    parse_time_limit,
    select_openers,
)
from .coordinator import fallback_estimate
from .main import run
from .mpi import LAUNCHER_SIZE_VARS, check_launcher
from .mpi import mpi as _mpi  # solver.book reaches MPI through this name
from .worker import default_factory

__all__ = ["RunConfig", "RunSummary", "run", "parse_time_limit", "parse_shard",
           "select_openers", "opener_file", "check_launcher", "fallback_estimate",
           "default_factory", "LAUNCHER_SIZE_VARS", "STATUS_NAMES", "LOWER_BOUND", "UsageError",
           "_mpi"]
