"""Start a run (`run`, the API behind `wordle-dp run`): rank 0 loads the lists,
opens the store and plans the work, then coordinates (or, as a single process,
solves itself); every other rank goes to worker.worker_main. What a run does:
the package docstring."""

from __future__ import annotations

import math
import sys
import time
from dataclasses import replace

import numpy as np

from ..store import LOWER_BOUND, Store
from .config import (
    EXIT_USAGE,
    RunConfig,
    RunSummary,
    default_memo_mb,
    select_openers,
)
from .coordinator import (
    Coordinator,
    coordinate,
    order,
    plan_work,
    report,
    serial,
)
from .mpi import (
    abort_job,
    check_launcher,
    gather_spreads,
    limit_threads,
    mpi,
    mpi_name,
    node_layout,
    node_memory_bytes,
    node_table,
)
from .split import SPLIT_MODES
from .worker import Worker, default_factory, worker_main


def _setup_rank0(cfg: RunConfig):
    """Load lists, open/create the store, build the queue. Raises user errors."""
    from .. import __version__
    from ..table import check_fits, get_table
    from ..words import WordLists

    if cfg.max_guesses < 0:
        raise ValueError("--max-guesses must be >= 0 (0 = no cap)")
    if cfg.split not in SPLIT_MODES:
        raise ValueError(f"--split must be one of {', '.join(SPLIT_MODES)}")
    if cfg.split == "all" and cfg.cutoff is not None:
        raise ValueError("--split all values openers exactly, so it does not go with "
                         "--cutoff (a cutoff run values every opener whole)")
    if cfg.objective == "worst" and cfg.cutoff is not None:
        raise ValueError("--cutoff is a total: the worst-case objective ranks by the worst "
                         "case first and takes no cutoff")
    if cfg.objective == "worst" and cfg.split == "all":
        raise ValueError("--split all sums class values of the expected objective; the "
                         "worst-case objective values openers whole")
    if cfg.memo_mb is not None and not (cfg.memo_mb > 0 and math.isfinite(cfg.memo_mb)):
        raise ValueError("--memo-mb must be a number above 0")
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


def run(cfg: RunConfig) -> RunSummary:
    """Run (or resume) a valuation into cfg.store; see the package docstring.

    User errors (bad lists, foreign store) raise on rank 0 (the CLI prints them);
    other ranks return a summary with exit_code 2.
    """
    cfg = replace(cfg)  # private copy: the store may supply the cutoff
    limit_threads()
    out = cfg.progress_file or sys.stderr
    comm, MPI = mpi()
    size = comm.Get_size() if comm is not None else 1
    rank = comm.Get_rank() if comm is not None else 0
    if cfg.shard is None:  # shards are independent processes by design
        check_launcher(size, mpi_name(MPI))

    if rank == 0:
        try:
            lists, store, chosen, table = _setup_rank0(cfg)
            err = None
        except BaseException as exc:
            err = exc
        if err is None and cfg.cutoff is None and store.cutoff is not None and (
                not cfg.no_cutoff):
            cfg.cutoff = store.cutoff  # resuming a --cutoff store without the option
        spread = None  # (3^L, openers): the big classes' spreads for the cost model
        if err is None and _wants_spreads(cfg, size):  # the openers still to value
            todo = store.todo(cfg.cutoff, cfg.retry_failed)
            spread = (3**lists.length, [i for i in chosen if todo[i]])
        if size > 1:
            comm.bcast((err is None, cfg.cutoff, spread), root=0)
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
        ok, cfg.cutoff, spread = comm.bcast(None, root=0)
        if not ok:
            return RunSummary(exit_code=EXIT_USAGE, state="refused", ranks=size)
        try:
            return worker_main(cfg, comm, MPI, rank, spread)
        except BaseException:
            abort_job(comm, f"rank {rank}")
            raise

    try:
        memo = cfg.memo_mb or default_memo_mb(node_memory_bytes(), on_node)
        return _rank0_main(cfg, comm, MPI, size, out, lists, store, chosen, table, memo,
                           (nodes, tables), spreads, t_spread)
    except BaseException:
        if size > 1:  # never leave the workers waiting for a reply
            abort_job(comm, "rank 0")
        raise
    finally:
        store.unlock()


def _wants_spreads(cfg: RunConfig, size: int) -> bool:
    """Whether the plan needs the spreads of big classes (costs.py): only where it
    may split openers and value classes in parts by predicted cost (--split auto,
    two or more solving ranks, no cutoff, the expected objective)."""
    return (size > 2 and cfg.split == "auto" and cfg.cutoff is None
            and cfg.objective == "expected")


def _rank0_main(cfg, comm, MPI, size, out, lists, store, chosen, table, memo,
                nodes: tuple[int, bool] = (1, False), spreads=None,
                spread_seconds: float = 0.0) -> RunSummary:
    local = Worker(cfg, lists, table, 0, memo) if size == 1 else None
    if local is not None:
        engine = local.solver
    else:
        try:  # the engine's estimate lives on a Solver; build a light one for it
            engine = (cfg.solver_factory or default_factory)(lists, cfg.mode,
                                                             cfg.max_guesses, table)
        except Exception:
            engine = None
    queue, ordered = order(cfg, lists, table, chosen,
                           store.todo(cfg.cutoff, cfg.retry_failed),
                           getattr(engine, "estimate", None))
    store.mark_selected(ordered)
    work, classes, queue, split, bundled, settled = plan_work(
        cfg, lists, table, store, queue, size, engine, spreads)
    co = Coordinator(cfg, store, lists, work, len(queue), size, out, classes)
    for rec, err in settled:
        co.add(rec, err, None)
    if not cfg.quiet:
        status = store.status()
        redo = int((status[np.asarray(queue, dtype=np.int64)] == LOWER_BOUND).sum()) \
            if queue else 0
        where = "(1 process)"
        if size > 1:
            copies = "one table copy per node" if nodes[1] else "a table copy per rank"
            where = f"({size - 1} worker(s) + coordinator) over {nodes[0]} node(s) ({copies})"
        print(f"wordle-dp: {len(queue)} opener(s) to value on {size} rank(s) {where}; "
              f"{len(ordered) - len(queue)} of {len(ordered)} selected already in "
              f"{cfg.store}" + (f"; {redo} lower bound(s) below the cutoff are valued again"
                                if redo else "")
              + (f"; {len(split)} valued as first-feedback classes" if split else "")
              + (f"; planned with the spreads of {sum(map(len, spreads.values()))} big "
                 f"class(es) ({spread_seconds:.1f} s)" if spreads else "")
              + (f"; {len(bundled)} in {len(set(map(id, bundled.values())))} bundle(s) "
                 "sharing their biggest class" if bundled else ""),
              file=out, flush=True)
        if cfg.split == "all" and cfg.cutoff is not None:
            print(f"wordle-dp: note: the store's cutoff {cfg.cutoff} applies, so every "
                  "opener is valued whole (--split all needs --no-cutoff)", file=out,
                  flush=True)
        if classes is not None:
            for note in classes.notes:
                print(f"wordle-dp: note: {note}", file=out, flush=True)
    co.flush("running")
    try:
        if size == 1:
            assert local is not None  # a single process solves itself
            serial(co, local)
        else:
            coordinate(co, comm, MPI)
    except BaseException:
        try:  # keep what was solved; the store stays consistent either way
            co.flush("crashed")
        except BaseException:
            pass
        raise
    finally:
        co.signals.restore()
    if co.work.more() and not co.stop_reason:  # every worker failed to start
        co.stop_reason = "no rank could solve (see the messages above)"
    state = "stopped" if co.stop_reason else "finished"
    co.flush(state)
    summary = co.summary(state)
    summary.memo_mb = memo
    if co.work.more() and co.stop_reason and co.stop_reason.startswith("no rank"):
        summary.exit_code = 1
    report(summary, co, store, out)
    if co.abort_needed:  # workers stuck in a solve past the grace
        comm.Abort(0)
    return summary

