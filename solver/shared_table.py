"""One copy of the pattern tables per node for MPI runs (MPI-3 shared memory).

Every solving rank needs the pattern table (guess-major) and its transpose
(answer-major), 2 x 30 MB on the default lists (two bytes a pattern above 5
letters). Under MPI, the ranks of one node
(`Split_type(COMM_TYPE_SHARED)`) map one window allocated by the node's first rank
(`Win.Allocate_shared`), which fills it once; the others only map it. Without MPI,
or when shared memory is unavailable, each process keeps its own copy (the Solver
transposes privately).

mpi4py is never imported here: the caller hands in its communicator and MPI module,
so `wordle-dp solve` does not pay for it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

# table -> its shared transpose, for Solver (looked up by identity); windows kept alive
_TRANSPOSES: list[tuple[np.ndarray, np.ndarray]] = []
_WINDOWS: list = []


def registered_transpose(table: np.ndarray) -> np.ndarray | None:
    """The shared answer-major copy of `table` set up by node_tables, if any."""
    for t, tt in _TRANSPOSES:
        if t is table:
            return tt
    return None


def node_tables(comm, MPI, make: Callable[[], np.ndarray],  # noqa: N803
                wait: Callable[[object], None] | None = None) -> np.ndarray | None:
    """Collective over `comm`: the pattern table in node-shared memory (its transpose
    registered for Solver), or None when it could not be shared (then every rank
    loads its own). `make()` is called on each node's first rank only; `wait(node)`,
    if given, is a barrier over the node's ranks that does not spin, called while
    the leader makes the table."""
    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    leader = node.Get_rank() == 0
    table = None
    if leader:
        try:
            table = np.ascontiguousarray(make())  # uint8, or uint16 above 5 letters
        except Exception:  # the ranks fall back to their own copies (and report there)
            table = None
    if wait is not None:  # the leader may build the table: the others wait asleep
        wait(node)
    meta = node.bcast(None if table is None else (table.shape, table.dtype.str), root=0)
    if meta is None:
        return None
    (rows, cols), dtype = meta
    dtype = np.dtype(dtype)
    size = rows * cols
    try:
        win = MPI.Win.Allocate_shared(2 * size * dtype.itemsize if leader else 0, 1,
                                      comm=node)
        buf, _unit = win.Shared_query(0)
    except Exception:  # no shared memory on this MPI: all ranks of the node fall back
        ok = False
    else:
        ok = True
    if not all(node.allgather(ok)):
        return None
    both = np.ndarray((2, size), dtype=dtype, buffer=buf)
    if leader:
        assert table is not None  # the leader made it, or shape would be None
        both[0] = table.ravel()
        both[1].reshape(cols, rows)[...] = table.T
        del table
    node.Barrier()  # filled before anyone reads
    shared = both[0].reshape(rows, cols)
    _TRANSPOSES.append((shared, both[1].reshape(cols, rows)))
    _WINDOWS.append(win)
    return shared
