"""The exact optimum of a several-board game on small instances (boards.py has the
rules).

A state is the candidates of the open boards (their answers all different), with
the guesses left. Its value is the least total, over every tuple still possible,
of the guesses until every board is solved; the next guess costs 1 for every
tuple, and splits the tuples by the joint feedback of the open boards (a board
whose feedback is all green is solved, and its word leaves the other boards):

    V(S, b) = N(S) + min over guesses g of  sum over joint classes C of V(C, b - 1)

with N(S) the tuples of S (boards.count_tuples). V is None (infeasible) when no
strategy solves every board within b guesses. One open board is the ordinary
game, valued by the exact engine (Solver.set_value). Ties in the total go to the
smaller worst case, as in the one-board game (objective.py): the pair (total,
height) is minimised lexicographically, which decomposes over the classes.

A board with one candidate left is guessed at once: that is optimal (an exchange
argument). Take any strategy S and let S' guess that word w first, then play as S
does, skipping w when S would guess it (S' knows every feedback S knows, and w's
earlier). A tuple that S finishes in max(p, q) guesses (w at guess p, its other
boards solved by guess q, p != q) S' finishes in q + 1 <= p when q < p, and in q
when q > p: never more, so neither the total nor the worst case grows. This makes endgames such as
one board with one candidate and another with seven instant, where the search
below would try every guess (issue 33: 17.5 s of CPU).

Pruning, all of it admissible: a state of m open boards and N tuples costs at
least m N (a guess solves at most one board of a tuple; one board: 2N - 1); a
guess whose classes' bounds already pass the best total is skipped (guesses are
tried by that bound); guesses with the same feedback rows on every open board are
one guess; a guess that splits no board and solves none is never useful (the same
state with a guess fewer). Boards are interchangeable, so a state is remembered
with its boards sorted.

The state space grows like the product of the boards' sets: this is for small
lists (two boards of about 40 answers, three of about 12). `check_size` refuses
larger instances before any search.
"""

from __future__ import annotations

import math
import time
from itertools import product

import numpy as np

from ..errors import Hint, UsageError
from ..search.engine import UNCAPPED_DEPTH
from ..status import Status
from .boards import BoardsPosition, BoardsStrategy, _propagate, count_tuples
from .measures import SUMSQ, scan

EXACT_TUPLES = 2000  # ordered tuples at the start: above this the exact search refuses


def check_size(n_answers: int, boards: int, limit: int = EXACT_TUPLES) -> int:
    """The tuples of a game of `boards` boards on `n_answers` answers; UsageError
    (one line, saying why) when the exact search is out of reach."""
    n = math.perm(n_answers, boards)
    if n > limit:
        raise UsageError(
            f"the exact value of {boards} boards on {n_answers} answers is out of reach here: "
            f"{n} ordered tuples of distinct answers, the exact search takes at most {limit} "
            f"(e.g. {boards} boards of {_max_answers(boards, limit)} answers); ",
            Hint("boards_heuristics", "for heuristics simulate a strategy", boards=boards),
            " (the mean of a strategy, an upper bound on the optimum over the tuples it "
            "plays)")
    return n


def _max_answers(boards: int, limit: int) -> int:
    n = boards
    while math.perm(n + 1, boards) <= limit:
        n += 1
    return n


class BoardsExact:
    """Exact values of a k-board game (easy mode) on small lists. `solver`: the
    one-board engine for the same lists (any cap: its depth limit must reach the
    game's); `cap`: the game's guess cap (0: none)."""

    def __init__(self, solver, boards: int, cap: int):
        self.solver = solver
        self.lists = solver.lists
        self.table = solver.table
        self.boards = boards
        self.cap = cap or UNCAPPED_DEPTH
        if self.cap > solver.depth_limit:
            raise ValueError("the engine's cap must reach the game's")
        self.green = solver.variant.all_green
        self.agid = self.lists.answer_guess_ids
        self.gans = np.full(len(self.lists.guesses), -1, np.int64)
        self.gans[self.agid] = np.arange(len(self.lists.answers))
        self.memo: dict = {}
        self.leaves: dict = {}
        self.nodes = 0

    # ---- values -----------------------------------------------------------------

    def solve(self, opener: str) -> dict:
        """The exact value of `opener` from the start (the fields of solve --boards)."""
        t0, c0 = time.perf_counter(), time.process_time()
        n0 = self.nodes
        gid = self.lists.guess_id(opener)
        n = len(self.lists.answers)
        sets = tuple(np.arange(n, dtype=np.int32) for _ in range(self.boards))
        res = self.guess_value(gid, sets, self.cap)
        tuples = count_tuples(sets)
        status = Status.EXACT if res is not None else Status.INFEASIBLE
        return {"opener": self.lists.guesses[gid], "boards": self.boards,
                "status": status, "total": None if res is None else res[0],
                "tuples": tuples,
                "average": None if res is None else round(res[0] / tuples, 6),
                "depth": None if res is None else res[1],
                "max_guesses": self.cap if self.cap != UNCAPPED_DEPTH else 0,
                "seconds": round(time.perf_counter() - t0, 4),
                "cpu_seconds": round(time.process_time() - c0, 4),
                "nodes": self.nodes - n0}

    def value(self, sets: tuple[np.ndarray, ...], left: int):
        """(total, height, best guess id) of the open boards' candidate `sets` with
        `left` guesses, or None when no strategy solves every board in time."""
        m = len(sets)
        if m == 0:
            return 0, 0, -1
        if left < m:
            return None
        if m == 1:
            return self._leaf(sets[0], left)
        key = (tuple(sorted(s.tobytes() for s in sets)), left)
        if key in self.memo:
            return self.memo[key]
        self.nodes += 1
        n = count_tuples(sets)
        single = next((s for s in sets if len(s) == 1), None)
        if single is not None:  # its one candidate now is optimal (see _forced)
            g = int(self.agid[single[0]])
            r = self._children_value(n, self._children(g, sets), left, None)
            best = None if r is None else (r[0], r[1], g)
            self.memo[key] = best
            return best
        best = None
        for floor, lb, g, children in self._candidates(sets, n):
            if best is not None and floor > best[0]:
                break  # no guess still to come can do better
            if best is not None and lb > best[0]:
                continue
            r = self._children_value(n, children, left, None if best is None else best[0])
            if r is not None and (best is None or r < best[:2]):
                best = (r[0], r[1], g)
        self.memo[key] = best
        return best

    def guess_value(self, gid: int, sets: tuple[np.ndarray, ...], left: int):
        """(total, height) of guessing gid at `sets` and playing optimally after, or
        None when that cannot solve every board within `left` guesses."""
        m = len(sets)
        if left < m or m == 0:
            return None if m else (0, 0)
        n = count_tuples(sets)
        return self._children_value(n, self._children(gid, sets), left, None)

    def _children_value(self, n: int, children, left: int, beta):
        """n + the children's values (None: infeasible, or the total passes beta)."""
        total, height = n, 1
        rest = sum(lb for _c, lb in children)
        for c, lb in children:
            rest -= lb
            v = self.value(c, left - 1)
            if v is None:
                return None
            total += v[0]
            height = max(height, 1 + v[1])
            if beta is not None and total + rest > beta:
                return None
        return total, height

    def _leaf(self, members: np.ndarray, left: int):
        key = (members.tobytes(), left)
        hit = self.leaves.get(key)
        if hit is None:
            from ..search.worst import set_height

            total, g, _status = self.solver.set_value(members, left)
            if total is None:
                hit = None
            else:
                h, g = set_height(self.solver, members, left, None, total)
                hit = (total, h, g)
            self.leaves[key] = hit
        return hit

    # ---- moves ------------------------------------------------------------------

    def _children(self, gid: int, sets: tuple[np.ndarray, ...]):
        """The joint classes of guess gid: [(open boards' candidates, lower bound)],
        largest first."""
        parts = []
        for s in sets:
            row = self.table[gid, s]
            codes = np.unique(row)
            parts.append([(int(c), s[row == c]) for c in codes])
        a = int(self.gans[gid])
        out = []
        for combo in product(*parts):
            greens = [i for i, (c, _m) in enumerate(combo) if c == self.green]
            if len(greens) > 1:
                continue  # one word cannot be two boards' answer
            members = [m for _c, m in combo]
            solved: list[int | None] = [None] * len(members)
            if greens:
                solved[greens[0]] = 1
                members = [m if i == greens[0] else m[m != a] for i, m in enumerate(members)]
            members = _propagate(members, solved)
            child = tuple(m for i, m in enumerate(members) if solved[i] is None)
            if any(len(m) == 0 for m in child):
                continue
            nc = count_tuples(child)
            if nc == 0:
                continue
            out.append((child, _bound(child, nc)))
        out.sort(key=lambda x: -x[1])
        return out

    def _candidates(self, sets, n: int):
        """(floor, bound, guess id, children) of the useful guesses (floor: a bound on
        this guess and every one after it), one per distinct set of
        feedback rows, lazily. The candidates of the open boards come first, by their
        children's bound; every other guess solves no board, so its bound is the same
        n + m n (m >= 2 open boards) and only its children tell whether it is useful:
        those come next, the lowest expected number of tuples left first (the boards'
        sums of squared class sizes, a numba scan), and their bound is checked once
        their children are known. Ties: list order."""
        rows = np.concatenate([self.table[:, s] for s in sets], axis=1)
        _u, first = np.unique(rows, axis=0, return_index=True)
        first.sort()
        cand_set: set[int] = set()
        for s in sets:
            cand_set.update(int(x) for x in self.agid[s])
        is_cand = np.isin(first, np.fromiter(cand_set, np.int64, len(cand_set)))
        cands = []
        for g in first[is_cand].tolist():
            ch = self._children(g, sets)
            cands.append((n + sum(b for _c, b in ch), g, ch))
        cands.sort(key=lambda x: (x[0], x[1]))
        others = first[~is_cand]
        if len(others):
            log_exp = np.zeros(len(others))
            for s in sets:
                raw = scan(self.table, s, others, self.green)
                log_exp += np.log(raw[:, SUMSQ] / len(s))
            others = others[np.lexsort((others, np.round(log_exp, 9)))]
        flat = n + len(sets) * n
        i = 0
        for g in others.tolist():
            while i < len(cands) and cands[i][0] <= flat:
                yield (cands[i][0], *cands[i])
                i += 1
            ch = self._children(g, sets)
            if len(ch) <= 1:
                continue  # one joint class for every tuple: nothing learnt, nothing solved
            yield flat, n + sum(b for _c, b in ch), g, ch
        for c in cands[i:]:
            yield (c[0], *c)

    def strategy(self) -> BoardsStrategy:
        return _Optimal(self)


def _bound(sets, n: int) -> int:
    """A lower bound on a state's total, m open boards and n tuples: every tuple needs
    a guess per open board, and one more unless the next guess (one word for all of
    them) is one of its answers, so (m + 1) n - max over words of the tuples having
    it as an answer (2n - 1 for one board). That count is exact for two boards; with
    more, m n."""
    m = len(sets)
    if m == 0:
        return 0
    if m == 1:
        return 2 * n - 1
    if m == 2:
        a, b = sets
        in_b = np.isin(a, b)
        hits = len(b) - in_b.astype(np.int64)  # word a[j] on board 1, board 2 another
        best = int(hits.max()) if len(a) else 0
        in_a = np.isin(b, a)
        hb = len(a) - in_a.astype(np.int64)
        if len(b):
            best = max(best, int(hb.max()))
            if in_a.any():  # a word on both boards: its hits add up
                both = b[in_a]
                best = max(best, int((len(a) - 1) + (len(b) - 1)) if len(both) else 0)
        return 3 * n - min(best, n)
    return m * n


class _Optimal(BoardsStrategy):
    name = "optimal"

    def __init__(self, exact: BoardsExact):
        self.exact = exact

    def choose(self, pos: BoardsPosition) -> int:
        sets = tuple(pos.members[i] for i in pos.open)
        left = (pos.variant.max_guesses or UNCAPPED_DEPTH) - len(pos.history)
        r = self.exact.value(sets, left)
        if r is None:
            raise UsageError(f"{pos}: no strategy solves every board within the cap")
        return r[2]
