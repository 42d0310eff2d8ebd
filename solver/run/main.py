"""Start a run (`run`, the API behind `wordle-dp run`): rank 0 loads the lists,
opens the store and plans the work, then coordinates while its own solver thread
works beside the others (loop.py); every other rank goes to worker.worker_main.
At the end every rank learns how the run ended. What a run does: the package
docstring."""

from __future__ import annotations

import sys
import time

import numpy as np

from ..store import EXACT, LOWER_BOUND, ClassStore, Store
from ..variant import Objective, n_patterns
from .config import (
    EXIT_USAGE,
    RANK0_SOLVES_MAX,
    RunConfig,
    RunSummary,
    check_config,
    default_memo_mb,
    select_openers,
    work_memo_mb,
)
from .coordinator import Coordinator
from .cutoffs import Cutoffs
from .loop import Links, LocalSolver, coordinate
from .mpi import (
    Signals,
    abort_job,
    check_launcher,
    gather_spreads,
    limit_threads,
    mpi,
    mpi_name,
    node_layout,
    node_memory_bytes,
    node_table,
    quiet_bcast,
)
from .split import has_class_values
from .text import Plan
from .work import order, plan_work
from .worker import Worker, default_factory, worker_main


def _setup_rank0(cfg: RunConfig):
    """Load lists, open/create the store, build the queue. Raises user errors."""
    from .. import __version__
    from ..table import check_fits, get_table

    check_config(cfg)
    lists = cfg.problem.load(quiet=cfg.options.quiet)
    chosen = select_openers(cfg.options.openers, lists)
    check_fits(lists)  # before a store is made for lists whose table cannot exist
    store, created = Store.open_or_create(cfg.store, lists, cfg.problem.variant(lists),
                                          cutoff=cfg.options.cutoff,
                                          solver_version=__version__)
    if not created and store.solver_version and store.solver_version != __version__:
        print(f"note: {cfg.store} was started by wordle-dp {store.solver_version}, this is "
              f"{__version__}", file=sys.stderr)
    table, _info = get_table(lists, "numpy", cfg.problem.cache_dir)
    return lists, store, chosen, table


def run(cfg: RunConfig) -> RunSummary:
    """Run (or resume) a valuation into cfg.store; see the package docstring.

    User errors (bad lists, foreign store) raise on rank 0 (the CLI prints them);
    other ranks return a summary with exit_code 2. Every rank returns the run's
    final state (finished, stopped)."""
    signals = Signals().install()  # from the start: a stop while planning counts too
    try:
        return _run(cfg)
    finally:
        signals.restore()


def _run(cfg: RunConfig) -> RunSummary:
    t_start = time.perf_counter()
    limit_threads()
    out = cfg.tuning.progress_file or sys.stderr
    comm, MPI = mpi()
    size = comm.Get_size() if comm is not None else 1
    rank = comm.Get_rank() if comm is not None else 0
    if cfg.options.shard is None:  # shards are independent processes by design
        check_launcher(size, mpi_name(MPI))

    if rank == 0:
        try:
            lists, store, chosen, table = _setup_rank0(cfg)
            err = None
        except BaseException as exc:
            err = exc
        if err is None and cfg.options.cutoff is None and store.cutoff is not None and (
                not cfg.options.no_cutoff and cfg.options.best is None):
            cfg = cfg.with_options(cutoff=store.cutoff)  # resuming a --cutoff store without it
        spread = None  # (patterns, openers): the big classes' spreads for the cost model
        if err is None and _wants_spreads(cfg, size):  # the exact openers still to value
            todo = store.todo(cfg.options.cutoff, cfg.options.retry_failed)
            exact = {lists.guess_id(w) for w in cfg.options.exact}
            spread = (n_patterns(lists.length), [i for i in chosen if todo[i] and (
                i in exact or (cfg.options.cutoff is None and cfg.options.best is None))])
        memo_cap = _work_memo(cfg, store, chosen, size) if err is None else 0.0
        if size > 1:  # the others wait for this asleep (MPICH's bcast spins)
            quiet_bcast(comm, (err is None, cfg.options.cutoff, spread, memo_cap))
        if err is not None:
            raise err
        shared = None
        if size > 1:  # one copy of the tables per node (rank 0 fills its node's)
            shared = node_table(comm, MPI, lambda: table)
            table = table if shared is None else shared
        on_node, nodes, tables = node_layout(comm, MPI, shared)  # as in worker_main
        t_spread = time.perf_counter()
        spreads = gather_spreads(comm, table, *spread) if spread else None  # collective
        t_spread = time.perf_counter() - t_spread
    else:
        ok, cutoff, spread, memo_cap = quiet_bcast(comm)
        cfg = cfg.with_options(cutoff=cutoff)
        if not ok:
            return RunSummary(exit_code=EXIT_USAGE, state="refused", ranks=size)
        try:
            return worker_main(cfg, comm, MPI, rank, spread, memo_cap)
        except BaseException:
            abort_job(comm, f"rank {rank}")
            raise

    try:
        memo = cfg.options.memo_mb or min(memo_cap, default_memo_mb(node_memory_bytes(), on_node))
        summary = _rank0_main(cfg, comm, MPI, size, out, lists, store, chosen, table, memo,
                              (nodes, tables), spreads, t_spread, t_start)
    except BaseException:
        if size > 1:  # never leave the workers waiting for a reply
            abort_job(comm, "rank 0")
        raise
    finally:
        store.unlock()
    if size > 1:
        quiet_bcast(comm, summary.state)  # the workers return the same state
    return summary


def _work_memo(cfg: RunConfig, store: Store, chosen: list[int], size: int) -> float:
    """The memo a solving rank's share of this run needs (config.work_memo_mb), from
    the openers it values: exactly (every one without a cutoff; else the openers
    asked exact and, following the best K, a few times K of them) or under a
    cutoff."""
    todo = store.todo(cfg.options.cutoff, cfg.options.retry_failed)
    n = int(todo[np.asarray(chosen, dtype=np.int64)].sum()) if chosen else 0
    if cfg.options.cutoff is None and cfg.options.best is None:
        exact = n
    else:
        exact = min(n, len(cfg.options.exact) + 4 * (cfg.options.best or 0))
    solvers = size if rank0_solves(cfg, size) else size - 1
    return work_memo_mb(exact, n - exact, solvers)


def _wants_spreads(cfg: RunConfig, size: int) -> bool:
    """Whether the plan needs the spreads of big classes (costs.py): only where it
    may split openers and value classes in parts by predicted cost (--split auto,
    two or more solving ranks, the expected objective, openers valued exactly)."""
    o = cfg.options
    return (size > 2 and o.split == "auto" and cfg.problem.objective == Objective.EXPECTED
            and ((o.cutoff is None and o.best is None) or bool(o.exact)))


def rank0_solves(cfg: RunConfig, size: int) -> bool:
    """Whether rank 0 solves beside coordinating (RunConfig.rank0_solves)."""
    if size == 1:
        return True
    asked = cfg.tuning.rank0_solves
    return asked if asked is not None else size <= RANK0_SOLVES_MAX


def _cutoffs(cfg: RunConfig, lists, table, store: Store, chosen: list[int]
             ) -> tuple[Cutoffs | None, set[int]]:
    """The cutoffs of a run that has openers to value exactly or follows the best
    openers (None: one fixed cutoff, or none, for every opener), and the exact
    openers to value again because the class checkpoint lacks their class values
    (RunConfig.fill_classes)."""
    exact = {lists.guess_id(w) for w in cfg.options.exact}
    snap = store.snapshot()
    refill: set[int] = set()
    if cfg.options.fill_classes:
        classes = ClassStore(store.path, len(lists.guesses), n_patterns(lists.length))
        refill = {i for i in chosen if snap.status[i] == EXACT and not has_class_values(
            classes, i, table[i], n_patterns(lists.length))}
    exact |= refill
    if cfg.options.best is None and not exact:
        return None, refill
    cutoffs = Cutoffs(fixed=cfg.options.cutoff, top=cfg.options.best, exact=frozenset(exact))
    for i in np.flatnonzero(snap.status == EXACT):
        cutoffs.add(int(i), int(snap.fields["total"][i]))
    return cutoffs, refill


def _todo(cfg: RunConfig, store: Store, cutoffs: Cutoffs | None, refill: set[int]
          ) -> np.ndarray:
    """Which openers this run values: Store.todo under the cutoff that applies now,
    the openers to value exactly that hold only a lower bound, and `refill`."""
    if cutoffs is None:
        return store.todo(cfg.options.cutoff, cfg.options.retry_failed)
    todo = store.todo(cutoffs.resume_cutoff(), cfg.options.retry_failed)
    status = store.status()
    for i in cutoffs.exact:
        if status[i] == LOWER_BOUND or i in refill:
            todo[i] = True
    return todo


def _rank0_main(cfg, comm, MPI, size, out, lists, store, chosen, table, memo,
                nodes: tuple[int, bool] = (1, False), spreads=None,
                spread_seconds: float = 0.0, t_start: float | None = None) -> RunSummary:
    solves = rank0_solves(cfg, size)
    local = Worker(cfg, lists, table, 0, memo) if solves else None
    if local is not None:
        engine = local.solver
    else:
        try:  # the engine's estimate lives on a Solver; build a light one for it
            engine = (cfg.tuning.solver_factory or default_factory)(
                lists, cfg.problem.mode, cfg.problem.max_guesses, table)
        except Exception:
            engine = None
    solvers = size if solves else size - 1
    cutoffs, refill = _cutoffs(cfg, lists, table, store, chosen)
    queue, ordered = order(cfg, lists, table, chosen, _todo(cfg, store, cutoffs, refill),
                           getattr(engine, "estimate", None), cutoffs)
    store.mark_selected(ordered)
    work, classes, queue, split, bundled, settled = plan_work(
        cfg, lists, table, store, queue, solvers, engine, spreads, cutoffs)
    co = Coordinator(cfg, store, lists, work, queue, size, out, classes, cutoffs, solvers)
    for rec, err in settled:
        co.add(rec, err, None)
    if not cfg.options.quiet:
        status = store.status()
        redo = [i for i in queue if status[i] == LOWER_BOUND]
        # a bound is valued again under a higher cutoff, or to be valued exactly (a
        # book's popular openers: their bounds may lie far past the cutoff)
        exactly = sum(1 for i in redo if cutoffs is not None and i in cutoffs.exact)
        co.report.plan(Plan(
            len(queue), len(ordered), str(cfg.store), size, solvers, solves, nodes[0],
            nodes[1], len(redo) - exactly, exactly, len(split),
            sum(map(len, spreads.values())) if spreads else None, spread_seconds,
            len(bundled), len(set(map(id, bundled.values())))))
        if cfg.options.split == "all" and cfg.options.cutoff is not None:
            co.report.cutoff_applies(cfg.options.cutoff)
        if classes is not None:
            for note in classes.notes:
                co.report.note(note)
    co.flush("running")
    # rank 0's planning, before any work goes out (the other ranks wait for it)
    plan_seconds = time.perf_counter() - (t_start or time.perf_counter())
    links = Links(comm if size > 1 else None, MPI,
                  LocalSolver(local, co.signals).start() if local is not None else None)
    try:
        coordinate(co, links)
    except BaseException:
        try:  # keep what was solved; the store stays consistent either way
            co.flush("crashed")
        except BaseException:
            pass
        raise
    finally:
        links.close()
    if co.work.more() and not co.stop_reason:  # every solver failed to start
        co.stop_reason = "no rank could solve (see the messages above)"
    state = "stopped" if co.stop_reason else "finished"
    if state == "finished" and cutoffs is not None and cutoffs.dynamic:
        store.set_attrs(cutoff=cutoffs.resume_cutoff())  # what the run proved against
    co.flush(state)
    summary = co.summary(state)
    summary.memo_mb = memo
    summary.solvers = solvers
    summary.plan_seconds = plan_seconds
    summary.cutoff = cutoffs.resume_cutoff() if cutoffs is not None else cfg.options.cutoff
    if co.work.more() and co.stop_reason and co.stop_reason.startswith("no rank"):
        summary.exit_code = 1
    co.final_report(summary)
    if co.abort_needed:  # a worker that cannot hear the abandon message, still busy
        comm.Abort(0)
    return summary
