"""A Solver's answers for positions after the opener: the optimal strategy as a
tree (StrategyNode), the next guess after a history, and the values of a set of
answers or of one guess on it (the entry points of solver.game). A mixin of
engine.Solver."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..status import Status
from ..variant import Mode
from . import layout as K
from .parts import SolverParts


@dataclass
class StrategyNode:
    """One position of a strategy: the guess to play, how many answers reach it,
    the total guesses they use from here on, and the subtree for each feedback."""

    guess: str
    answers: int
    total: int
    children: dict[int, StrategyNode]

    def paths(self, prefix: tuple[str, ...] = ()) -> dict[str, tuple[str, ...]]:
        """Guess sequence for every answer below this position (the answer solved
        by this guess ends with it)."""
        seq = prefix + (self.guess,)
        out: dict[str, tuple[str, ...]] = {}
        if self.answers > sum(c.answers for c in self.children.values()):
            out[self.guess] = seq
        for child in self.children.values():
            out.update(child.paths(seq))
        return out

    @property
    def height(self) -> int:
        return 1 + max((c.height for c in self.children.values()), default=0)


class PositionQueries(SolverParts):
    def strategy(self, opener: str) -> StrategyNode:
        """The optimal strategy after `opener` as a decision tree (raises
        ValueError when the opener is infeasible under the cap)."""
        gid = self._gid(opener)
        members = np.arange(len(self.lists.answers), dtype=np.int32)
        return self._subtree(gid, members, self.depth_limit, None)

    def _subtree(self, gid: int, members: np.ndarray, left: int, cons,
                 second: dict[int, int] | None = None) -> StrategyNode:
        node = StrategyNode(self.lists.guesses[gid], len(members), len(members), {})
        for p, m, child_cons in self._child_sets(gid, members, cons):
            if second is not None and p in second:
                g = second[p]  # known optimal (a result store's second guess)
            else:
                v, _flags, _h, g = self._solve_set(m, left - 1, child_cons)
                if v >= K.INF or g < 0:
                    raise ValueError(f"{node.guess}: no strategy within the cap")
            child = self._subtree(int(g), m, left - 1, child_cons)
            node.children[p] = child
            node.total += child.total
        return node

    def next_guess(self, history: list[tuple[str, int]]) -> tuple[str | None, int]:
        """Best next guess after `history` (guess, pattern code) pairs, and how many
        answers remain; (None, 0) if no answer is consistent with the history, and
        None with the count when no strategy meets the cap from here."""
        if not history:
            raise ValueError("give at least the opener (use `best` to choose one)")
        members = np.arange(len(self.lists.answers), dtype=np.int32)
        cons = None
        for word, pattern in history:
            gid = self._gid(word)
            members = members[self.table[gid, members] == pattern]
            if self.mode == Mode.HARD:
                cons = self._constraint_after(cons, gid, pattern)
        if len(members) == 0:
            return None, 0
        left = self.depth_limit - len(history)
        if left < 1:
            return None, len(members)
        v, _flags, _h, g = self._solve_set(members, left, cons)
        if v >= K.INF or g < 0:
            return None, len(members)
        return self.lists.guesses[int(g)], len(members)

    # ------------------------------------------------------- positions (solver.game)
    # Public entry points for mid-game positions: a set of answer ids, the guesses
    # left and (hard mode) the constraint (greens uint8[L], 255 = none; minimum
    # letter counts uint8[26]); None means no constraint yet.

    def _cons_for(self, cons):
        if self.mode != Mode.HARD:
            return None
        if cons is None:
            return np.full(self.variant.length, 255, np.uint8), np.zeros(26, np.uint8)
        return cons

    def set_value(
        self, members: np.ndarray, left: int, cons=None
    ) -> tuple[int | None, int, str]:
        """Optimal total for the answers `members` with `left` guesses left: (total,
        best guess id, status), status exact, or as `solve` labels it (upper_bound when
        a beam or the uncapped depth limit restricted the search); (None, -1,
        infeasible or not_found) when no strategy was found within the budget."""
        members = np.ascontiguousarray(members, dtype=np.int32)
        if len(members) == 0:
            return 0, -1, Status.EXACT
        if left < 1:
            return None, -1, Status.INFEASIBLE
        v, flags, _h, g = self._solve_set(members, left, self._cons_for(cons))
        found = v < K.INF and g >= 0
        status, _note = self._label(Status.EXACT if found else Status.INFEASIBLE, True,
                                    bool(flags & K.TAINT))
        return (int(v), int(g), status) if found else (None, -1, status)

    def guess_value(
        self, gid: int, members: np.ndarray, left: int, cons=None, cutoff: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> tuple[int | None, str]:
        """Total of guessing `gid` now and playing optimally after: (total, status),
        labelled as `solve` labels an opener: exact, infeasible or not_found (total
        None), upper_bound, or with `cutoff` lower_bound (a proven total >= cutoff).
        `progress(done, classes)` is called before each feedback class is searched."""
        members = np.ascontiguousarray(members, dtype=np.int32)
        if len(members) == 0:
            return 0, Status.EXACT
        if left < 1:
            return None, Status.INFEASIBLE
        beta = K.INF if cutoff is None else int(cutoff)
        status, total, _depth, searched, tainted = self._guess_total(
            gid, members, left, self._cons_for(cons), beta, progress)
        status, _note = self._label(status, searched, tainted)
        return (None if status in (Status.INFEASIBLE, Status.NOT_FOUND) else total), status

    def ranks_in_kernel(self, left: int, n: int) -> bool:
        """Whether `rank_values` serves a set of n answers with `left` guesses left:
        capped, without a beam, 3 or more answers and 3 or more guesses left (with 2
        every value is a count)."""
        return bool(self.max_guesses) and not self.beam and left >= 3 and n >= 3

    def rank_values(
        self, members: np.ndarray, left: int, cons, pool: np.ndarray, pool_classes: np.ndarray,
        cand: np.ndarray, cand_lb: np.ndarray, k: int,
        progress: Callable[[int, int], None] | None = None, every: int = 64,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The exact totals of the guesses `cand`, tried in this order, on the set
        `members` with `left` guesses left, wherever they can be among the k smallest
        (ties included): (totals, exact mask); a total not exact is a lower bound
        that rules the guess out. `cand_lb`: an admissible bound of each (those at
        or over the k-th total are not searched). `pool`: the guesses playable
        later (every useful one, hard mode's legal ones), with their classes on the
        set (`pool_classes`). One compiled loop (node with d == 0) per `every`
        guesses, `progress(done, of)` before each: `done` the guesses searched so
        far (those whose bound was under the k-th total at their turn), `of` those
        plus the guesses still under it (the others are ruled out unsearched), so
        the count, and an ETA from it, shrinks as the k-th total falls (a count of
        every guess said minutes for a ranking of seconds). Only where
        ranks_in_kernel."""
        ctx = self._ctx
        members = np.ascontiguousarray(members, dtype=np.int32)
        n, m = len(members), len(pool)
        if not self.ranks_in_kernel(left, n):
            raise ValueError("rank_values needs a cap, no beam, 3 or more answers and 3 or "
                             "more guesses left")
        c = len(cand)
        if c == 0 or k < 1:
            return np.zeros(0, np.int64), np.zeros(0, np.bool_)
        k = min(k, c)  # (more than the guesses: every one is valued anyway)
        ctx.rank[0, :c] = cand
        ctx.rank[1, :c] = cand_lb
        ctx.rank[4, :k] = K.INF
        # depth 1 as node's scan would set it; the children write only deeper, so it
        # holds from one call to the next
        ctx.arena[:n] = members
        cons = self._cons_for(cons)
        if cons is not None:
            ctx.cgreen[1] = cons[0]
            ctx.cmin[1] = cons[1]
        ctx.pools[1, :m] = pool
        ctx.kcl[1, :m] = pool_classes
        ctx.npool[1] = m
        ctx.kmax[1] = max(1, int(pool_classes.max(initial=1)))
        ctx.ltoff[1] = -1
        ctx.ltn[1] = n
        ctx.params[K.P_LIMIT] = 0
        searched = 0
        for s in range(0, c, every):
            e = min(c, s + every)
            cut = self._rank_cut(k)
            still = int(np.count_nonzero(ctx.rank[1, s:c] < cut))
            if still == 0:  # every guess left is ruled out by its bound, as node marks it
                ctx.rank[2, s:c] = ctx.rank[1, s:c]
                ctx.rank[3, s:c] = 0
                break
            if progress is not None:
                progress(searched, searched + still)
            self._kernels.node(ctx, s, n, left, k, 0, e, 0)
            searched += int(np.count_nonzero(ctx.rank[1, s:e] < cut))
            if ctx.params[K.P_STOP]:
                from .engine import Stopped

                self._forget()
                raise Stopped("the search was asked to stop")
        return ctx.rank[2, :c].copy(), (ctx.rank[3, :c] & K.EXACT) != 0

    def _rank_cut(self, k: int) -> int:
        """What rules a guess out of the ranking now: one over the k-th smallest total
        found so far (ties are valued too), INF while fewer than k are known."""
        kth = int(self._ctx.rank[4, k - 1])
        return K.INF if kth >= K.INF else kth + 1

    def subtree(self, gid: int, members: np.ndarray, left: int, cons=None,
                second: dict[int, int] | None = None) -> StrategyNode:
        """The optimal strategy from a position that starts with guess `gid`
        (ValueError when it cannot meet the budget). `second`: feedback pattern ->
        guess id of the next guess after gid, already known to be optimal (a result
        store's or book's second guesses): those are taken, not searched."""
        members = np.ascontiguousarray(members, dtype=np.int32)
        return self._subtree(gid, members, left, self._cons_for(cons), second)
