"""The worst-case objective, and the worst case as the tie-break of the expected one.

Both come from exact capped values (the engine's value of a guess or a set with c
guesses left, `Solver.guess_value` / `Solver.set_value` with `left=c`), never from
which of several equal guesses the engine's memo or move ordering happens to keep:

- objective `worst`: first the fewest guesses that solve every answer, then the
  smallest total within that many. That is the smallest cap c* at which a strategy
  exists (the capped optimum is feasible), and the capped optimum at c*.
- objective `expected` (the default), ties in the total broken by the smaller worst
  case: a strategy of total T and height h exists iff the capped optimum at h is
  <= T. Capped optima only grow as the cap shrinks, so the smallest height among
  the optimal-total strategies is the smallest cap c whose capped optimum equals
  the optimum T; the strategy the engine builds at cap c has total T and height c.

Both are therefore exactly as exact as the capped values, which tests/
test_objective.py checks against the brute force (tests/brute.py) together with a
separate brute-force recursion on (total, height) pairs.

The engine labels a value 'upper_bound' / 'not_found' when a solver without a cap
(max_guesses 0) reached its depth limit. Here the limit is the cap c asked for, so
such values are the exact capped values at c: they are relabelled exact /
infeasible (unless a beam restricted the search, which proves nothing).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..plural import counted
from ..status import Status
from ..variant import Mode
from .result import SolveResult


def _relabel(solver, status: str) -> str:
    if solver.beam:
        return status
    if status == Status.UPPER_BOUND:
        return Status.EXACT
    return Status.INFEASIBLE if status == Status.NOT_FOUND else status


def _first_cap(solver, members: np.ndarray, gid: int | None) -> int:
    """The smallest cap worth trying: 1 when the guess (or the set's only answer) can
    end the game at once, else 2."""
    if len(members) == 1 and (gid is None or solver.lists.answer_guess_ids[members[0]] == gid):
        return 1
    return 2


def guess_worst(solver, gid: int, members: np.ndarray, budget: int, cons=None):
    """Guess `gid` now, then play for the worst case: (c*, total at c*, status) where c*
    (counting this guess) is the fewest guesses that solve every answer of `members`
    after `gid`; (None, None, 'infeasible') when `budget` guesses do not suffice."""
    members = np.ascontiguousarray(members, np.int32)
    for c in range(_first_cap(solver, members, gid), budget + 1):
        total, status = solver.guess_value(gid, members, c, cons)
        status = _relabel(solver, status)
        if status in (Status.EXACT, Status.UPPER_BOUND):
            return c, int(total), status
        if status != Status.INFEASIBLE:
            return None, None, status
    return None, None, Status.INFEASIBLE


def set_worst(solver, members: np.ndarray, budget: int, cons=None):
    """The worst-case optimum of a set: (c*, total at c*, best guess id, status);
    (None, None, -1, 'infeasible') when `budget` guesses do not suffice."""
    members = np.ascontiguousarray(members, np.int32)
    for c in range(_first_cap(solver, members, None), budget + 1):
        total, g, status = solver.set_value(members, c, cons)
        status = _relabel(solver, status)
        if total is not None and status in (Status.EXACT, Status.UPPER_BOUND):
            return c, int(total), int(g), status
        if status != Status.INFEASIBLE:
            return None, None, -1, status
    return None, None, -1, Status.INFEASIBLE


def guess_height(solver, gid: int, members: np.ndarray, budget: int, cons, total: int) -> int:
    """The smallest worst case (guesses, counting `gid`) among the strategies that
    start with `gid` and reach the optimal `total` within `budget`: the smallest cap
    whose capped value equals `total` (a cutoff of total + 1 makes each smaller cap
    that cannot reach it cheap to refute)."""
    members = np.ascontiguousarray(members, np.int32)
    for c in range(_first_cap(solver, members, gid), budget):
        v, status = solver.guess_value(gid, members, c, cons, cutoff=total + 1)
        if _relabel(solver, status) == Status.EXACT and v == total:
            return c
    return budget


def set_height(solver, members: np.ndarray, budget: int, cons, total: int) -> tuple[int, int]:
    """(c, guess id): the smallest worst case among the strategies of optimal `total`
    for the set, and a first guess of one of them. Caps below `budget` are searched
    with a cutoff of total + 1: a capped optimum is never below `total`, so it either
    equals `total` (exact, under the cutoff) or is refuted as soon as it passes it,
    which is cheap (as in guess_height; 1.4x less CPU for `next` than full capped
    solves on salet's classes)."""
    members = np.ascontiguousarray(members, np.int32)
    first = _first_cap(solver, members, None)
    if not solver.beam:  # a beam proves nothing: every cap searched in full below
        for c in range(first, budget):
            v, _flags, _h, g = solver._solve_set(members, c, solver._cons_for(cons), total + 1)
            if v == total and g >= 0:
                return c, int(g)
        first = budget
    for c in range(first, budget + 1):
        v2, g2, status = solver.set_value(members, c, cons)
        if v2 is not None and _relabel(solver, status) == Status.EXACT and v2 == total:
            return c, int(g2)
    raise ValueError("the optimal total is not reached within the budget")  # pragma: no cover


@dataclass
class WorstResult(SolveResult):
    """A `SolveResult` under the worst-case objective: `depth` is the fewest guesses
    that solve every answer after the opener (counting it), `total` the smallest total
    within that many."""

    objective: str = "worst"

    def to_dict(self) -> dict:
        d = super().to_dict()
        d["objective"] = self.objective
        return d

    def describe(self) -> str:
        if self.status != Status.EXACT:
            return super().describe() + " [objective worst]"
        return (f"{self.opener} {self.status}: every answer within {self.depth} guesses, "
                f"total {self.total} ({self.average:.4f} avg) within that, over "
                f"{counted(self.answers, 'answer')} [{self.mode}, objective worst, "
                f"{counted(self.nodes, 'node')}, "
                f"{self.seconds:.2f} s]")


class WorstSolver:
    """A `Solver` seen through the worst-case objective: `solve(opener)` gives the fewest
    guesses (`depth`) and the smallest total within them; `second_guesses` the second
    guesses of that strategy. What `wordle-dp run --objective worst` stores."""

    objective = "worst"

    def __init__(self, solver) -> None:
        self.solver = solver
        self.lists = solver.lists
        self.mode = solver.mode
        self.max_guesses = solver.max_guesses
        self._caps: dict[str, int] = {}

    def __getattr__(self, name):  # estimate, lower_bound, stats, table, ...
        return getattr(self.solver, name)

    def solve(self, opener: str, cutoff: int | None = None, progress=None) -> WorstResult:
        import time

        if cutoff is not None:
            raise ValueError("a cutoff is a total; the worst-case objective ranks by the "
                             "worst case first and takes none")
        s = self.solver
        gid = s.lists.guess_id(opener)
        members = np.arange(len(s.lists.answers), dtype=np.int32)
        t0, c0 = time.perf_counter(), time.process_time()
        n0 = s.stats["nodes"]
        cap, total, status = guess_worst(s, gid, members, s.depth_limit, _start_cons(s))
        if cap is not None:
            self._caps[s.lists.guesses[gid]] = cap
        return WorstResult(
            opener=s.lists.guesses[gid], status=status, total=total, answers=len(members),
            depth=cap, seconds=time.perf_counter() - t0, nodes=s.stats["nodes"] - n0,
            mode=s.mode, max_guesses=s.max_guesses, cpu_seconds=time.process_time() - c0)

    def second_guesses(self, opener: str) -> dict[int, str]:
        """Best second guess per first-feedback pattern of the opener's worst-case
        strategy (the capped optimum at its c*)."""
        s = self.solver
        word = s.lists.guesses[s.lists.guess_id(opener)]
        cap = self._caps.get(word)
        if cap is None:
            cap = self.solve(word).depth
            if cap is None:
                return {}
        return capped_second_guesses(s, word, cap)


def _start_cons(solver):
    if solver.mode != Mode.HARD:
        return None
    from .constraint import no_constraint

    return no_constraint(solver.variant.length)


def capped_second_guesses(solver, opener: str, cap: int) -> dict[int, str]:
    """For each first-feedback pattern of `opener` (green excluded): the best second
    guess of the capped optimum with `cap` guesses in all."""
    from .constraint import constraint_after

    lists = solver.lists
    gid = lists.guess_id(opener)
    word = lists.guesses[gid]
    green = solver.variant.all_green
    row = solver.table[gid]
    out: dict[int, str] = {}
    start = _start_cons(solver)
    for p in np.unique(row):
        p = int(p)
        if p == green:
            continue
        members = np.flatnonzero(row == p).astype(np.int32)
        cons = constraint_after(start, word, p) if start is not None else None
        total, g, _status = solver.set_value(members, cap - 1, cons)
        if total is not None and g >= 0:
            out[p] = lists.guesses[g]
    return out
