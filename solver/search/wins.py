"""The objective `wins`: the most answers won within the cap, then the fewest guesses
summed over the answers won.

Where no strategy solves every answer within the guesses left (hard mode after most
openers on today's lists, or a small cap), the expected and worst-case objectives
have no value at all. This one always has: the value of a state (a set S of
candidates, c guesses left, in hard mode the constraint of the history) is the pair
(wins, total), ordered by more wins first, then the smaller total:

- `wins`: how many answers of S the strategy solves within the c guesses;
- `total`: the guesses, counted from this state on (the next guess counts 1), summed
  over the answers won. A lost answer adds nothing: it used every guess left and
  was not found. `total / wins` is the average over the answers won.

Guessing g from (S, c) leaves each non-green feedback class C with c - 1 guesses:

    wins  = [g in S] + sum over C of wins(C)
    total = [g in S] + sum over C of (total(C) + wins(C))   (each answer won in C
                                                             also paid for g)

with (0, 0) once no guess is left. Pairs add, and (w, t) -> (w, t + w) keeps their
order, so the best value of every class gives the best value of the guess: values
of classes are exact on their own and memoised on (set, guesses left, constraint).

Where S can be won outright (the engine's capped value is feasible) its value is
(|S|, the capped optimum): a strategy that wins every answer with the least total.
By the guesses left:

- c = 1: one guess wins one answer (a candidate; every candidate is a legal guess
  in every mode), at total 1;
- c = 2: a guess with hit h (it is a candidate) and k non-green classes wins h + k
  (each class then wins one of its answers with the last guess) at total h + 2k:
  exact from the class counts of every guess at once, whether S can be won
  outright or not (then h + k = |S|, at the capped optimum), so no engine search;
- c >= 3: the engine first: a set it values outright takes its capped optimum; only
  the sets it proves infeasible are searched here, and they lose at least one
  answer: branch and bound over the legal guesses that split S. At c = 3 every
  class of a guess has two guesses left, so the whole search is one compiled double
  loop over guesses (kernels/wins_jit.py: no engine; largest class first, each
  guess dropped as soon as it cannot beat the best or the need; each class's
  value at two guesses left memoised). At c = 4 the branch and bound below is
  compiled too (kernels/wins4_jit.py), with the same memo of arrays for its
  three-guess values (Memo3: nine look-ups in ten find a value there on a best
  chance); above it, it is the Python below. A guess is bounded
  from its class sizes first (a class of m answers wins at most m, at a total of at
  least 2m - 1 before this guess; S itself at most |S| - 1), then class by class as
  they are valued: small classes first, every class first by the engine alone (a
  feasible class is exact at once, an infeasible one wins at most m - 1), the
  infeasible ones then searched. A guess stops as soon as its bound cannot beat the
  best so far (or, ranking the K best, tie the K-th).

Nothing here is a heuristic: the order only decides which of several equal guesses
is found first. tests/test_wins.py checks every value against a separate brute-force
recursion in every mode, at caps 3 and 4 and at 4 letters.
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..kernels.scan_kernel import EST, HIT, PATTERNS, scan
from ..kernels.wins_kernel import EASY, HARD, STOPPED, STRICT, Memo3, same_guesses, wins3, wins4
from ..status import Status
from ..variant import Mode
from .constraint import Constraint, guess_letters, legal_mask, no_constraint
from .engine import Stopped
from .layout import EXACT, INF, P_STOP
from .result import SolveResult

Progress = Callable[[int, int], None]
PROGRESS_EVERY = 1  # guesses between progress calls: each (the callers' lines keep time)
MEMO_LIMIT = 1 << 20  # entries; the memo is emptied when it grows past this
LEGAL_LIMIT = 4096  # hard-mode constraints whose legal guesses are kept (up to 119 kB each)


@dataclass(frozen=True)
class WinsValue:
    """The value of a state or a guess: `wins` answers solved within the guesses
    left, `total` guesses summed over them (the next guess counts 1), `guess` a
    first guess that achieves it (-1: none needed or none known), `status` exact
    (or the engine's weaker label, upper_bound, when its search was restricted)."""

    wins: int
    total: int
    guess: int = -1
    status: str = Status.EXACT

    @property
    def key(self) -> tuple[int, int]:
        """Smaller is better: more wins, then the smaller total."""
        return (-self.wins, self.total)


NONE = WinsValue(0, 0)
CUT = WinsValue(-1, -1)  # quick under a cutoff: won outright at a total >= it, or not at all
UNKNOWN = WinsValue(-2, -2)  # quick: left to the search (four guesses left, no cutoff)


@functools.cache
def _coloured(length: int) -> np.ndarray:
    """Per pattern, the positions it colours (green or yellow) as bits."""
    codes = np.arange(3 ** length)
    bits = np.zeros(3 ** length, np.int64)
    for i in range(length):
        bits |= (((codes // 3 ** i) % 3) != 0).astype(np.int64) << i
    return bits


def _lb_total(w: int, left: int) -> int:
    """The least total of winning w answers with `left` guesses (the next counts 1):
    one answer can be won by the next guess, every other needs at least two."""
    if w <= 0:
        return 0
    return w if left <= 1 else 2 * w - 1


class WinsSearch:
    """Exact values under the objective `wins` for one Solver (its lists, mode and
    cap), with a memo kept across calls: `set_value`, `guess_value`, `ranked`."""

    def __init__(self, solver) -> None:
        if solver.beam:
            raise ValueError("a beam restricts the search: it proves no value under wins")
        self.solver = solver
        self.lists = solver.lists
        self.mode = solver.mode
        # read on every node: two bools, not the enum's (slow) attribute lookups
        self.hard, self.strict = self.mode == Mode.HARD, self.mode == Mode.STRICT
        self.green = solver.variant.all_green
        self.agid = solver.lists.answer_guess_ids  # the property builds it on every call
        self.agid64 = np.ascontiguousarray(self.agid, np.int64)
        self.letters = guess_letters(solver.lists)
        self.kernel = True  # sets with three guesses left by wins_kernel (False: in Python)
        self.kernel4 = True  # and those with four (when kernel is True too)
        self.memo3: Memo3 | None = None  # the kernels' memo (two and three guesses left)
        self._counts: np.ndarray | None = None  # each guess's letter counts (wins4)
        self.merge = True  # each guess valued once among the same ones (_same; tests: off)
        self.memo: dict = {}
        self.infeasible: set = set()  # states the engine proved cannot be won outright
        self.lower: dict = {}  # state -> a lower bound on its key, from cutoffs
        self._legal: dict = {}

    def _check_stop(self) -> None:
        """Raise Stopped once the solver's request_stop is in force. The engine looks
        at it on every node, but a set with four or five guesses left can run for
        minutes on wins3 and Python alone, calling no engine (a stopped `book
        moves` went on for about 50 s): so each guess and each class searched here
        looks too. Nothing is stored on the way out, so the memo stays true."""
        if self.solver.stop_requested:
            raise Stopped("the search was asked to stop")

    # ---- keys and legality -------------------------------------------------------

    def _cons_key(self, cons: Constraint | None):
        if not self.hard or cons is None:
            return None
        return cons[0].tobytes() + cons[1].tobytes()

    def _key(self, members: np.ndarray, left: int, cons) -> tuple:
        return (np.sort(members).tobytes(), left, self._cons_key(cons))

    def _legal_ids(self, members: np.ndarray, cons, first: bool) -> np.ndarray:
        if self.strict and not first:
            return np.sort(self.agid[members]).astype(np.int64)
        key = self._cons_key(cons)
        ids = self._legal.get(key)
        if ids is None:
            mask = legal_mask(self.lists, self.mode, cons, members, first)
            ids = np.flatnonzero(mask).astype(np.int64)
            if len(self._legal) >= LEGAL_LIMIT:  # a long search meets many constraints
                self._legal.clear()
            self._legal[key] = ids
        return ids

    def _child_cons(self, cons, gid: int, pattern: int):
        """The hard-mode constraint after guess gid with `pattern` (None in the other
        modes): position.constraint_after's rule, from the engine's compiled kernel
        (the Python one was a quarter of the CPU of a search of many small sets;
        tests/test_wins.py checks that the two agree)."""
        if not self.hard:
            return None
        return self.solver._constraint_after(cons, gid, pattern)

    def _split(self, gid: int, members: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """The feedback classes of `members` under guess gid as (pattern, answer ids),
        smallest first, ties the higher pattern first (Solver._classes reversed), each
        in the order of `members`: one sort where Solver._classes takes two and a
        copy of every class."""
        row = self.solver.table[gid, members]
        order = np.argsort(row, kind="stable")
        srt = row[order]
        cut = np.flatnonzero(srt[1:] != srt[:-1]) + 1
        starts = np.concatenate(([0], cut))
        ends = np.concatenate((cut, [len(srt)]))
        pats = srt[starts].astype(np.int64)
        by = np.lexsort((-pats, ends - starts)).tolist()
        ms = members[order]
        return [(int(pats[j]), ms[starts[j]:ends[j]]) for j in by]

    def _store(self, key, value: WinsValue) -> WinsValue:
        if len(self.memo) + len(self.lower) >= MEMO_LIMIT:
            self.memo.clear()
            self.infeasible.clear()
            self.lower.clear()
        self.memo[key] = value
        return value

    # ---- states ------------------------------------------------------------------

    def quick(self, members: np.ndarray, left: int, cons,
              beta: int | None = None) -> WinsValue | None:
        """The value of a state when it needs no search of ours: memoised, trivial
        (empty, no guess left, one or two answers), exact from the kernel (three
        guesses left, won outright or not), or won outright (the engine's capped
        value); None when the engine proved it cannot be won outright; UNKNOWN with
        four guesses left and no `beta` (the search values it: the engine's proof
        first cost more than it saved).
        `cons` may be a function that makes the constraint: called only when needed.
        `beta`: a total at which winning the set outright no longer matters to the
        caller; the engine then searches under that cutoff and CUT says that the set
        is either won outright at a total >= beta or not at all (which one is left
        open: cheaper to prove)."""
        n = len(members)
        if n == 0 or left <= 0:
            return NONE
        agid = self.agid
        if n == 1:
            return WinsValue(1, 1, int(agid[members[0]]))
        if n == 2 and left >= 2:  # a candidate, then the other
            return WinsValue(2, 3, int(agid[min(members)]))
        if left == 1:  # n >= 2: one answer at most
            return WinsValue(1, 1, int(agid[min(members)]))
        if callable(cons):
            cons = cons()
        key = self._key(members, left, cons)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if key in self.infeasible:
            return None
        if left == 2:  # exact from the class counts: no engine search needed
            return self._store(key, self._two(members, cons))
        s = self.solver
        if left == 4 and beta is None and self.kernel and s.max_guesses:
            return UNKNOWN
        if left == 3 and self.kernel and s.max_guesses:
            w, t, g = self._kernel3(members, cons, False, None)
            return self._store(key, WinsValue(w, t, g))
        if beta is not None and s.max_guesses:  # (uncapped values may be upper bounds)
            v, flags, _h, g = s._solve_set(members, left, s._cons_for(cons), int(beta))
            if flags & EXACT and v < INF and g >= 0:
                return self._store(key, WinsValue(n, int(v), int(g)))
            if flags & EXACT and v >= INF:
                self.infeasible.add(key)
                return None
            if v >= beta:
                return CUT
        total, g, status = s.set_value(members, left, cons)
        if total is not None:
            return self._store(key, WinsValue(n, int(total), int(g), status))
        if status != Status.INFEASIBLE:  # pragma: no cover (a beam is refused)
            raise ValueError(f"the engine could not value the state ({status})")
        self.infeasible.add(key)
        return None

    def set_value(self, members: np.ndarray, left: int, cons=None, first: bool = False,
                  progress: Progress | None = None) -> WinsValue:
        """The exact value of the candidates `members` with `left` guesses left under
        the hard-mode constraint `cons` (None: none yet), and a guess achieving it.
        `first`: no guess has been played (strict mode then allows every guess).
        `progress(done, of)` is called before each guess of this set's
        own search (not of the classes below it)."""
        v = self.bounded(members, left, cons, first, progress)
        assert v is not None  # no bound: always valued
        return v

    def bounded(self, members: np.ndarray, left: int, cons=None, first: bool = False,
                progress: Progress | None = None,
                need: tuple[int, int] | None = None) -> WinsValue | None:
        """`set_value`, or None once the set's key (-wins, total) is proven >= `need`
        (what a guess above it needs of it: a cutoff). Such proofs are kept as lower
        bounds on the key, so that a later search under a need no looser stops at
        once."""
        members = np.ascontiguousarray(members, np.int32)
        if first and self.strict and len(members) > 1 and left > 0:
            # strict mode's first guess is free: not the state the engine (or the
            # memo of later states) values, so every guess is valued
            return self._search(members, left, cons, True, False, progress, need)
        v = self.quick(members, left, cons)
        if v is not None and v is not UNKNOWN:
            return v
        key = self._key(members, left, cons)
        low = self.lower.get(key)
        if need is not None and low is not None and low >= need:
            return None
        v = self._search(members, left, cons, first, v is None, progress, need)
        if v is None:
            assert need is not None
            self.lower[key] = need if low is None else max(low, need)
            return None
        return self._store(key, v)

    def _candidates(self, members: np.ndarray, cons, first: bool, infeasible: bool,
                    same: bool = True):
        """The legal guesses that split the set or hit a candidate, in the order
        searched (the engine's estimate of the total: its good guesses tend to win
        the most, and are found first), with their wins if every class wins what it
        can (hit + non-green classes at 2 guesses left: exact there) and the cheap
        bound on their key: at most |S| wins (|S| - 1 on a set that cannot be won
        outright, where the one answer lost saves at most 3 guesses) at a total of
        at least the partition bound 3n - 2h - k."""
        n = len(members)
        gids = self._legal_ids(members, cons, first)
        raw = scan(self.solver.table, members, gids, self.green, self.solver.class_costs())
        hit = raw[:, HIT] > 0
        keep = (raw[:, PATTERNS] > 1) | hit
        gids, raw, hit = gids[keep], raw[keep], hit[keep]
        est = n + raw[:, EST] - 0.5 * hit
        order = np.lexsort((gids, est))
        gids, raw = gids[order], raw[order]
        h = raw[:, HIT].astype(np.int64)
        k = raw[:, PATTERNS].astype(np.int64) - h
        lb = 3 * n - 2 * h - k - (3 if infeasible else 0)
        return gids, h, k, lb, self._same(gids, members) if same else None

    def _same(self, gids: np.ndarray, members: np.ndarray) -> np.ndarray:
        """For each guess, the index of the first earlier guess of `gids` that is the
        same guess here, or -1. Two guesses are the same on a set when they give every
        answer the same pattern and (hard mode) have the same letters wherever some
        answer sees a colour: then every class, and its constraint, is the same, so
        their values are equal. Below it too: on any class, the two still give every
        answer the same pattern, and one is legal wherever the other is (a new green
        is a coloured position; a letter needed n times is coloured n times in each).
        On small sets about half of the legal guesses repeat another (hard mode,
        today's lists), and a search values each once. Found by a hash, then checked
        in full (wins_kernel.same_guesses), so a collision only costs a repeat."""
        if not self.merge or len(gids) < 2:
            return np.full(len(gids), -1, np.int64)
        return same_guesses(self.solver.table, self.letters, members, gids,
                            _coloured(self.lists.length), self.hard)

    def _kernel3(self, members, cons, first: bool, need, found=None):
        """wins_kernel.wins3 on this set with three guesses left (`found`: what
        _candidates gave for it, if the caller has it)."""
        self._check_stop()
        if found is None:
            found = self._candidates(members, cons, first, False)
        gids, h, k, _lb, same = found
        if same is not None and (same >= 0).any():  # each guess once: its first
            keep = same < 0
            gids, h, k = gids[keep], h[keep], k[keep]
        cons = cons if cons is not None else no_constraint(self.lists.length)
        mode = STRICT if self.strict else HARD if self.hard else EASY
        return wins3(self.solver.table, self.letters, members, gids, h + k, self.agid64,
                     cons[0], cons[1], mode, self.green, need, self._memo3())

    def _memo3(self) -> Memo3:
        """The kernels' memo (two and three guesses left), made on first use."""
        if self.memo3 is None:
            self.memo3 = Memo3()
        return self.memo3

    def _kernel4(self, members, cons, first: bool, need, gids, lb, cap: int):
        """wins_kernel.wins4 on this set with four guesses left, over the guesses
        `gids` (in the order searched, each group of the same guesses once, `lb`
        their bounds on the total), at most `cap` wins."""
        if self._counts is None:
            counts = np.zeros((len(self.letters), 26), np.uint8)
            rows = np.arange(len(self.letters))
            for i in range(self.letters.shape[1]):
                counts[rows, self.letters[:, i]] += 1
            self._counts = counts
        legal = self._legal_ids(members, cons, first)
        cons = cons if cons is not None else no_constraint(self.lists.length)
        mode = STRICT if self.strict else HARD if self.hard else EASY
        s = self.solver
        r = wins4(s.table, self.letters, self._counts, members, gids, lb, cap, legal,
                  self.agid64, cons[0], cons[1], mode, self.green, need, s.class_costs(),
                  _coloured(self.lists.length), self.merge, s._ctx.params, P_STOP,
                  self._memo3())
        if r is not None and r[2] == STOPPED:
            raise Stopped("the search was asked to stop")
        return r

    def _two(self, members: np.ndarray, cons) -> WinsValue:
        """The exact value of a set with two guesses left (not the first guess), from
        the class counts of every legal guess at once: a guess with hit h and k
        non-green classes wins h + k (each class then wins one answer with the last
        guess) at total h + 2k; the most wins, then the least total, then the
        smallest guess id. The same as the engine's capped optimum where that wins
        every answer, at a fraction of the cost: a wins search of many small sets
        asks this of most of them."""
        gids = self._legal_ids(members, cons, False)
        raw = scan(self.solver.table, members, gids, self.green)
        h = raw[:, HIT].astype(np.int64)
        k = raw[:, PATTERNS].astype(np.int64) - h
        j = int(np.lexsort((gids, h + 2 * k, -(h + k)))[0])
        return WinsValue(int(h[j] + k[j]), int(h[j] + 2 * k[j]), int(gids[j]))

    def _search(self, members: np.ndarray, left: int, cons, first: bool, infeasible: bool,
                progress: Progress | None = None,
                need: tuple[int, int] | None = None) -> WinsValue | None:
        """Branch and bound over the guesses of a set (`infeasible`: proven not to
        be won outright, so it loses at least one answer): its exact value, or None
        when no guess beats `need`."""
        n = len(members)
        kernel = left == 3 and self.kernel  # the last searched level, compiled
        dedupe = left > 2
        found = self._candidates(members, cons, first, infeasible, same=dedupe)
        if kernel:
            r = self._kernel3(members, cons, first, need, found)
            return None if r is None else WinsValue(*r)
        gids, h, k, lb, same = found
        if dedupe:  # a guess the same as an earlier one is no better
            keep = same < 0
            gids, h, k, lb = gids[keep], h[keep], k[keep], lb[keep]
        if left == 2:  # exact from the counts: h + k wins at total h + 2k
            j = int(np.lexsort((h + 2 * k, -(h + k)))[0])
            return WinsValue(int(h[j] + k[j]), int(h[j] + 2 * k[j]), int(gids[j]))
        cap = n - 1 if infeasible else n
        if left == 4 and self.kernel and self.kernel4:  # compiled, as the level below
            if progress is not None:
                progress(0, len(gids))
            r = self._kernel4(members, cons, first, need, gids, lb, cap)
            return None if r is None else WinsValue(*r)
        best: WinsValue | None = None
        for j in range(len(gids)):
            if progress is not None and j % PROGRESS_EVERY == 0:
                progress(j, len(gids))
            self._check_stop()
            bound = need if best is None else best.key  # a best found beats need
            if bound is not None and (-cap, int(lb[j])) >= bound:
                continue
            v = self.guess_value(int(gids[j]), members, left, cons, bound, cap)
            if v is not None and (best is None or v.key < best.key):
                best = v
        assert best is not None or need is not None  # a candidate splits or hits
        return best

    # ---- guesses -----------------------------------------------------------------

    def guess_value(self, gid: int, members: np.ndarray, left: int, cons=None,
                    bound: tuple[int, int] | None = None,
                    cap: int | None = None,
                    report: Callable[[int, int, float], None] | None = None
                    ) -> WinsValue | None:
        """The exact value of guessing `gid` now (then playing for wins), or None
        once it is proven no better than `bound` (a key, (-wins, total); None: no
        bound, always valued). `cap`: a known upper bound on the wins (|S| - 1 on a
        set that cannot be won outright). `report(done, of, work)`: called as the
        classes are valued (`done` of `of`, `work` the share of the work done, each
        class weighed by its size squared; a class searched counts as far as its
        own search has gone)."""
        members = np.ascontiguousarray(members, np.int32)
        if len(members) == 0:
            return WinsValue(0, 0, gid)
        classes = self._split(gid, members)  # smallest first: the cheap ones refine
        hit = 0  # the bound first
        parts: list[list] = []  # [pattern, members, upper bound on wins, value]
        for p, cls in classes:
            if p == self.green:
                hit = 1
            else:
                parts.append([p, cls, len(cls), None])
        if left <= 1:
            return WinsValue(hit if left == 1 else 0, hit if left == 1 else 0, gid)
        c1 = left - 1

        def f(u: int) -> int:  # least total of a class winning u, this guess included
            return _lb_total(u, c1) + u

        ub = hit + sum(x[2] for x in parts)
        lbt = hit + sum(f(x[2]) for x in parts)

        def pruned() -> bool:
            if bound is None:
                return False
            u, t = ub, lbt
            if cap is not None and u > cap:  # each answer lost saves at most 3
                t -= 3 * (u - cap)
                u = cap
            return (-u, t) >= bound

        if pruned():
            return None
        weight = sum(len(x[1]) ** 2 for x in parts) or 1
        valued = [0, 0]  # classes valued, their weight

        def tell(x, share: float = 1.0) -> None:  # class x valued (or `share` of it)
            if report is None:
                return
            m2 = len(x[1]) ** 2
            if share >= 1.0:
                valued[0] += 1
                valued[1] += m2
                report(valued[0], len(parts), valued[1] / weight)
            else:
                report(valued[0], len(parts), (valued[1] + share * m2) / weight)

        status = Status.EXACT
        # first what the engine (or the memo) knows of every class (the hard-mode
        # constraint after the guess is made only where a class needs it). Under a
        # bound, where the guess needs a class won outright below some total to tie
        # the bound on wins and beat it on total, the engine searches it under that
        # cutoff: above it (CUT) the class is either won at a total that refutes the
        # guess, or loses an answer, so the guess is refuted if losing one refutes it
        for x in parts:
            x.append(None)
            if self.hard:
                x[4] = functools.partial(self._child_cons, cons, gid, x[0])
            beta = None
            if bound is not None:
                m = len(x[1])
                w, t = ub, lbt - f(x[2]) + f(m)  # this class won outright
                if cap is not None and w > cap:
                    t -= 3 * (w - cap)
                    w = cap
                if -w == bound[0]:  # a tie on wins: the total decides
                    beta = bound[1] - (t - f(m)) - m
            v = self.quick(x[1], c1, x[4], beta)
            if v is UNKNOWN:  # searched below
                continue
            old = x[2]
            if v is None or v is CUT:  # cannot be won outright (or, CUT, too dear)
                x[2] = old - 1
                ub -= 1
                lbt += f(old - 1) - f(old)
            else:
                x[2], x[3] = v.wins, v
                ub += v.wins - old
                lbt += v.total + v.wins - f(old)
                tell(x)
            if pruned():
                return None
        # then the classes that cannot be won outright, searched: under a bound, each
        # for what the guess needs of it, the others at their best (their bounds)
        for x in parts:
            if x[3] is None:
                self._check_stop()
                need = None
                if bound is not None:
                    w0 = -bound[0] - (ub - x[2])  # the wins it needs at least
                    need = (-w0, bound[1] - (lbt - f(x[2])) - w0)
                inner = None
                if report is not None:
                    inner = functools.partial(lambda x, j, n: tell(x, j / max(n, 1)), x)
                v = self.bounded(x[1], c1, x[4]() if callable(x[4]) else x[4], need=need,
                                 progress=inner)
                if v is None:
                    return None
                tell(x)
                old = x[2]
                x[2], x[3] = v.wins, v
                ub += v.wins - old
                lbt += v.total + v.wins - f(old)
                if pruned():
                    return None
            if x[3].status != Status.EXACT:
                status = x[3].status
        return WinsValue(ub, lbt, gid, status)

    def ranked(self, members: np.ndarray, left: int, cons, first: bool, k: int,
               exclude: int = -1, infeasible: bool = False,
               progress: Progress | None = None) -> list[WinsValue]:
        """The k best guesses under wins with exact values (ties valued too; order:
        the value, then candidates first, then alphabetical), by branch and bound
        against the k-th best so far. `infeasible`: the set is known not to be won
        outright (a sharper bound)."""
        members = np.ascontiguousarray(members, np.int32)
        n = len(members)
        if k <= 0 or n == 0:
            return []
        gids, _h, _k, lb, same = self._candidates(members, cons, first, infeasible)
        cap = n - 1 if infeasible else n
        cand = set(self.agid[members].tolist())
        words = self.lists.guesses
        found: list[tuple[tuple[int, int], int, str, WinsValue]] = []
        # the outcome of each guess valued, under the index of the first of its same
        # guesses (None: refuted; the bound only tightens, so its same ones are too)
        seen: dict[int, WinsValue | None] = {}
        for j, g in enumerate(gids.tolist()):
            if progress is not None and j % PROGRESS_EVERY == 0:
                progress(j, len(gids))
            self._check_stop()
            if g == exclude:
                continue
            first_same = j if same[j] < 0 else int(same[j])
            if first_same in seen:
                v = seen[first_same]
                if v is not None:
                    v = dataclasses.replace(v, guess=g)
            else:
                bound = None
                if len(found) >= k:
                    w, t = found[k - 1][0]
                    bound = (w, t + 1)  # ties are valued exactly too
                if bound is not None and (-cap, int(lb[j])) >= bound:
                    v = None
                else:
                    v = self.guess_value(g, members, left, cons, bound, cap)
                seen[first_same] = v
            if v is not None:
                found.append((v.key, int(g not in cand), words[g], v))
                found.sort(key=lambda r: r[:3])
                del found[k:]
        return [r[3] for r in found]


_SEARCHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def search_for(solver) -> WinsSearch:
    """The WinsSearch of `solver`, made once: its memo serves every later position
    of the same game (the terminal game values each position twice)."""
    s = _SEARCHES.get(solver)
    if s is None:
        s = WinsSearch(solver)
        _SEARCHES[solver] = s
    return s


@dataclass
class WinsResult(SolveResult):
    """A `SolveResult` under the objective wins: `wins` answers won within the cap
    after the opener, `total` the guesses summed over those (the opener counts 1),
    `average` over the answers won."""

    wins: int | None = None
    objective: str = "wins"

    @property
    def average(self) -> float | None:
        if self.total is None or not self.wins:
            return None
        return self.total / self.wins

    def to_dict(self) -> dict:
        d = super().to_dict()
        d["objective"] = self.objective
        return d

    def describe(self) -> str:
        from ..plural import percent

        if self.status != Status.EXACT or self.wins is None or self.total is None:
            return super().describe() + " [objective wins]"
        won = (f"wins every answer, total {self.total}" if self.wins == self.answers else
               f"wins {self.wins} of {self.answers} answers ({percent(self.wins, self.answers)})"
               f" within {self.max_guesses} guesses, total {self.total} over those")
        how = (f"from the {self.source}" if self.source else
               f"{self.nodes} nodes, {self.seconds:.2f} s")
        return (f"{self.opener} {self.status}: {won} ({self.average:.4f} avg) "
                f"[{self.mode}, objective wins, {how}]")


class WinsSolver:
    """A `Solver` seen through the objective wins: `solve(opener)` gives the most
    answers won within the cap after the opener and the least total over those
    (`solve --objective wins`)."""

    objective = "wins"

    def __init__(self, solver) -> None:
        self.solver = solver
        self.search = search_for(solver)
        self.lists = solver.lists
        self.mode = solver.mode
        self.max_guesses = solver.max_guesses

    def __getattr__(self, name):  # estimate, stats, request_stop, table, ...
        return getattr(self.solver, name)

    def _start(self):
        """The hard-mode constraint at the start (None in the other modes)."""
        if self.mode != Mode.HARD:
            return None
        from .constraint import no_constraint

        return no_constraint(self.solver.variant.length)

    def solve(self, opener: str, cutoff: int | None = None, progress=None) -> WinsResult:
        """The opener's value under wins. `progress`: a stream for a line every few
        seconds on long solves (the first after PROGRESS_FIRST seconds), with an ETA
        from the work done, as the engine's solve writes them."""
        import time

        from ..progress import class_reporter
        from .engine import PROGRESS_EVERY as EVERY
        from .engine import PROGRESS_FIRST as FIRST

        if cutoff is not None:
            raise ValueError("a cutoff is a total; the objective wins ranks by the answers "
                             "won first and takes none")
        s = self.solver
        gid = s.lists.guess_id(opener)
        word = s.lists.guesses[gid]
        members = np.arange(len(s.lists.answers), dtype=np.int32)
        t0, c0 = time.perf_counter(), time.process_time()
        n0 = s.stats["nodes"]
        report = None if progress is None else class_reporter(
            word, "valued for the most wins", progress, lambda: s.stats["nodes"] - n0, t0,
            EVERY, FIRST)
        v = self.search.guess_value(gid, members, s.depth_limit, self._start(), report=report)
        assert v is not None  # no bound: always valued
        return WinsResult(
            opener=s.lists.guesses[gid], status=v.status, total=v.total,
            answers=len(members), depth=None, seconds=time.perf_counter() - t0,
            nodes=s.stats["nodes"] - n0, mode=s.mode, max_guesses=s.max_guesses,
            cpu_seconds=time.process_time() - c0, wins=v.wins)

    def second_guesses(self, opener: str) -> dict[int, str]:
        """The second guess of the opener's strategy under wins, per first-feedback
        pattern (green excluded): each class's best guess with the guesses left
        after the opener (from the memo `solve` filled)."""
        s = self.solver
        gid = s.lists.guess_id(opener)
        left = s.depth_limit - 1
        out: dict[int, str] = {}
        if left <= 0:
            return out
        start = self._start()
        for p, m in s._classes(gid, np.arange(len(s.lists.answers), dtype=np.int32)):
            if p == s.variant.all_green:
                continue
            cons = self.search._child_cons(start, gid, p)
            v = self.search.set_value(m, left, cons)
            if v.guess >= 0:
                out[int(p)] = s.lists.guesses[v.guess]
        return out
