"""A Solver's queries of one opener's first-feedback classes: its cheap promise and
bound, each class's exact value and best second guess, a class valued alone or in
parts (so that work below an opener can go to other processes). A mixin of
engine.Solver."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..status import Status
from ..variant import Mode
from . import layout as K
from .layout import partition_bound
from .parts import SolverParts


class ClassQueries(SolverParts):
    def estimate(self, opener: str) -> float:
        """Cheap promise of an opener (smaller is better), from its partition alone."""
        gid = self._gid(opener)
        green = self.variant.all_green
        counts = np.bincount(self.table[gid], minlength=green + 1)
        ins = counts[green]
        counts[green] = 0
        f = self._class_cost
        return float(len(self.lists.answers) + f[counts[counts > 0]].sum() - 0.5 * ins)

    def lower_bound(self, opener: str) -> int:
        """Admissible lower bound on the opener's total from its partition alone:
        every class valued at class_lb(size, kmax) (2c - 1, more for classes larger
        than the most classes any guess makes)."""
        gid = self._gid(opener)
        green = self.variant.all_green
        counts = np.bincount(self.table[gid], minlength=green + 1)
        counts[green] = 0
        kmax = int(self._ctx.kmax[0])
        return len(self.lists.answers) + sum(K.class_lb_py(int(c), kmax)
                                             for c in counts[counts > 0])

    def class_values(self, opener: str) -> dict[int, tuple[int, str]]:
        """For every first-feedback pattern of `opener` (green excluded): the
        optimal total of its class after the opener, and the best second guess
        (the solved answer itself for a singleton class). Patterns of infeasible
        classes are left out."""
        return {p: (v, g) for p, (v, g, _d) in self.class_rows(opener).items()}

    def class_rows(self, opener: str) -> dict[int, tuple[int, str, int]]:
        """class_values with each class's depth: (total, second guess, its deepest
        answer's guesses with the opener), as class_value gives them; right after
        `solve(opener)` they come from its memo, and the opener's depth is the
        deepest class's."""
        gid = self._gid(opener)
        out: dict[int, tuple[int, str, int]] = {}
        members = np.arange(len(self.lists.answers), dtype=np.int32)
        for p, m, cons in self._child_sets(gid, members, None):
            v, _flags, h, g = self._solve_set(m, self.depth_limit - 1, cons)
            if g >= 0 and v < K.INF:
                out[p] = (int(v), self.lists.guesses[int(g)], int(h) + 1)
        return out

    def class_value(self, opener: str, pattern: int, budget: int | None = None
                    ) -> tuple[str, int | None, int | None, str | None]:
        """One first-feedback class of `opener` valued alone, as `solve` (no cutoff)
        values it inside the opener, so that work below the opener can go to other
        processes: (status, total, depth, second guess). status is labelled as
        `solve` labels an opener: exact; infeasible (no strategy within the cap;
        total and depth None); upper_bound or not_found (a beam, or the uncapped
        depth limit, restricted the search); lower_bound only if the search stopped
        at its budget (without `budget`, INF less the other classes' bounds: never
        seen). total: the
        class's guesses after the opener; depth: its deepest answer's guesses, the
        opener included; second guess: the best next guess (the answer itself for a
        singleton class). The opener's value is len(answers) plus the class totals,
        infeasible if any class is. `budget`: a total that is enough to know the
        class reaches (under a run's cutoff X: X less len(answers) and the other
        classes' lower bounds, so that the class alone shows the opener at X or over):
        the class is valued exactly only below it, else it comes back as lower_bound
        with a total at or over the budget (or infeasible); None: no budget. ValueError
        for the all-green pattern or a pattern with no class."""
        if self.depth_limit < 2:
            self._class_set(opener, pattern)  # (checks the pattern)
            return Status.INFEASIBLE, None, None, None
        m, cons, beta = self._class_set(opener, pattern)
        if budget is not None:
            beta = min(beta, int(budget))
        v, fl, h, g = self._solve_set(m, self.depth_limit - 1, cons, beta)
        tainted = bool(fl & K.TAINT)
        if not fl & K.EXACT:  # at or over the budget
            # (a beam's, or the uncapped depth limit's, proves nothing: not_found)
            status, _note = self._label(Status.LOWER_BOUND, True, tainted)
            if status != Status.LOWER_BOUND:
                return status, None, None, None
            return status, int(v), None, None
        status, _note = self._label(Status.EXACT if v < K.INF else Status.INFEASIBLE, True, tainted)
        if status not in (Status.EXACT, Status.UPPER_BOUND):
            return status, None, None, None
        return status, int(v), int(h) + 1, self.lists.guesses[int(g)]

    def _class_set(self, opener: str, pattern: int) -> tuple[np.ndarray, Any, int]:
        """A first-feedback class of `opener`: (members, hard-mode constraint, the
        budget solve's loop gives it when it comes first: INF less the others'
        bounds, so that it is searched on the same path with the same values).
        ValueError for the all-green pattern or a pattern with no class."""
        gid = self._gid(opener)
        members = np.arange(len(self.lists.answers), dtype=np.int32)
        classes = [(p, m) for p, m in self._classes(gid, members)
                   if p != self.variant.all_green]
        found = [m for p, m in classes if p == int(pattern)]
        if not found:
            raise ValueError(f"{self.lists.guesses[gid]}: no feedback class {pattern}")
        m = found[0]
        cons = self._constraint_after(None, gid, int(pattern)) if self.mode == Mode.HARD else None
        others = partition_bound(len(members), [len(x) for _, x in classes]) - (2 * len(m) - 1)
        return m, cons, K.INF - others

    def class_part(self, opener: str, pattern: int, part: int, parts: int,
                   below: int | None = None) -> tuple[int, int, str, bool] | None:
        """A first-feedback class of `opener` valued in parts, so that one big class
        can go to several processes: its value is the least, over the second guesses,
        of each second guess's total, and every part takes its own second guesses.

        parts < 0, the quick bound: the best of the search's first -parts candidate
        second guesses (its own order, most promising first): a real strategy, so
        an upper bound of the class. parts > 0: the best second guess g with
        g % parts == part, if it beats `below` (the quick bound's total; the search
        then refutes the others against it, as the whole class's search would once
        it found that strategy). The class's value is the least of the quick bound
        and what the parts find.

        Returns (total after the opener, depth with the opener, second guess,
        tainted: the uncapped depth limit was used) or None: nothing within the cap
        among the quick bound's candidates, or no second guess of the part beats
        `below`. The memo keeps everything found below the class, never the class's
        own value from a part. No beam: a beam's choice is its own restriction."""
        if self.beam:
            raise ValueError("a class valued in parts takes no beam")
        if parts == 0 or (parts > 0 and not 0 <= part < parts):
            raise ValueError(f"part {part} of {parts}")
        m, cons, beta = self._class_set(opener, pattern)
        if self.depth_limit < 2:
            return None
        if parts > 0 and below is not None:
            beta = min(beta, int(below))
        params = self._ctx.params
        params[K.P_PARTS], params[K.P_PART] = parts, max(part, 0)
        try:
            v, fl, h, g = self._solve_set(m, self.depth_limit - 1, cons, beta)
        finally:
            params[K.P_PARTS] = params[K.P_PART] = 0
        if not fl & K.EXACT or v >= min(beta, K.INF) or g < 0:
            return None
        return int(v), int(h) + 1, self.lists.guesses[int(g)], bool(fl & K.TAINT)

    def second_guesses(self, opener: str) -> dict[int, str]:
        """Best second guess for every first-feedback pattern of `opener` (from the
        optimal strategy; the solved answer itself for singleton classes)."""
        gid = self._gid(opener)
        out: dict[int, str] = {}
        members = np.arange(len(self.lists.answers), dtype=np.int32)
        for p, m, cons in self._child_sets(gid, members, None):
            v, flags, _h, g = self._solve_set(m, self.depth_limit - 1, cons)
            if g >= 0 and v < K.INF:
                out[p] = self.lists.guesses[int(g)]
        return out
