"""Shared test set-up."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Import the package from this checkout even when it is not pip-installed.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture
def classes_cut_short(monkeypatch):
    """Hard mode under a cutoff searches an opener's classes with a node limit first
    (engine.DEFER_NODES, times DEFER_GROWTH each round); a class cut short waits for
    the others and comes back in a later round. On instances small enough for the
    brute force a class is mostly settled in its first node, so here the limit
    starts at one node, a search given less than 8 is cut short before it starts
    (as if its first node were past the limit), and an opener's classes start from
    their bounds by size alone (no memo, nothing solved before the loop): every
    class waits at least three rounds, unless it is the last one searched. Searches
    that really pass their limit are tested on big classes in test_search_pruning.
    Yields a dict whose "cut" counts the searches cut short."""
    from solver.search import engine
    from solver.search import layout as K

    seen = {"cut": 0}
    solve_set = engine.Solver._solve_set

    def cut_early(self, members, left, cons, beta=K.INF, limit=0):
        out = None if 0 < limit < 8 else solve_set(self, members, left, cons, beta, limit)
        seen["cut"] += out is None
        return out

    def by_size(self, classes, left, n, beta):
        kmax = int(self._ctx.kmax[0])
        return [(K.class_lb_py(len(m), kmax), 0, 0) for _, m, _ in classes]

    monkeypatch.setattr(engine, "DEFER_NODES", 1)
    monkeypatch.setattr(engine.Solver, "_solve_set", cut_early)
    monkeypatch.setattr(engine.Solver, "_root_facts", by_size)
    yield seen
