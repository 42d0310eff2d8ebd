"""The K best openers with proof, on every rank of a run (`best`, the API behind
`wordle-dp best`): a run over every opener in which each opener is valued under a
cutoff one past the K-th best exact total known so far (cutoffs.py), the most
promising openers first, into a result store, so that it resumes like any run."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..search.result import SolveResult
from ..status import Status
from ..store import EXACT, Store
from .config import RunConfig, RunSummary
from .main import run
from .mpi import mpi


@dataclass
class BestResult:
    """What `best` proved: the `top` best openers (best first: least total, an
    answer before a non-answer, then alphabetical), every other opener exact or
    with a proven lower bound above the K-th; `summary` is the run's."""

    results: list[SolveResult]
    summary: RunSummary
    cpu_seconds: float  # of every opener's valuation in the store, earlier runs too


def best(cfg: RunConfig, top: int = 1) -> BestResult | None:
    """Find the `top` best openers with proof (cfg: the run's options; cfg.options.openers
    should be 'all' for a proof over every opener). Under MPI every rank calls it
    and the run uses them all; rank 0 returns the result, the other ranks None, as
    does a stopped run (the same call resumes it)."""
    summary = run(cfg.with_options(best=top))
    comm = mpi()[0]
    if summary.state != "finished" or summary.exit_code or (
            comm is not None and comm.Get_rank() != 0):
        return None
    return BestResult(top_results(Store.open(cfg.store), top), summary,
                      float(np.nansum(Store.open(cfg.store).snapshot()
                                      .fields["cpu_seconds"])))


def top_results(store: Store, top: int) -> list[SolveResult]:
    """The `top` best exact openers of a store, as SolveResults (best first)."""
    snap = store.snapshot()
    p = store.problem
    words = store.words
    answers = set(store.answers)
    f = snap.fields
    exact = [int(i) for i in np.flatnonzero(snap.status == EXACT)]
    exact.sort(key=lambda i: (int(f["total"][i]), words[i] not in answers, words[i]))

    def num(x, default=0.0) -> float:
        return float(x) if math.isfinite(float(x)) else default

    return [SolveResult(opener=words[i], status=Status.EXACT, total=int(f["total"][i]),
                        answers=p.n_answers, depth=int(f["depth"][i]),
                        seconds=num(f["wall_seconds"][i]), nodes=int(f["nodes"][i]),
                        mode=p.mode, max_guesses=p.max_guesses,
                        cpu_seconds=num(f["cpu_seconds"][i]))
            for i in exact[:top]]
