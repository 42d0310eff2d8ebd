"""The engine's Python API: `Solver(lists, mode, max_guesses).solve(opener)`.

Python handles the root (the opener's feedback classes, the cutoff, the result
object); everything below the root runs in the numba kernels (kernels.py; loaded
compiled ahead of time when possible, see compiled.py). One Solver keeps its memo
across calls, so later openers reuse earlier states.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

import numpy as np

from .. import stops
from ..progress import class_reporter
from ..shared_table import registered_transpose
from ..status import Status
from ..table import get_table
from ..variant import Mode, Variant
from ..words import WordLists, encode_words
from . import layout as K
from .classes import ClassQueries
from .compiled import kernel_set
from .layout import partition_bound
from .positions import PositionQueries
from .result import SolveResult

MODES: dict[str, int] = {m: getattr(K, m.name) for m in Mode}  # each mode's code in the kernels
UNCAPPED_DEPTH = 30  # "no cap": deeper than any strategy the search can build here
DEFAULT_MEMO_ENTRIES = 1 << 21  # 36 bytes each: 75 MB
MEMO_ENTRY_BYTES = 36
PROGRESS_EVERY = 10.0  # seconds between progress lines on long solves
PROGRESS_FIRST = 2.0  # seconds before the first one
# Sets of at least this many answers solved from the root get their guess pool cut
# to the undominated guesses (kernels.root_pool; easy mode; smaller sets are cheap
# to search as they are)
DOMINANCE_MIN_SET = 48
NEVER = 1 << 30
# Per mode, below depth 1: sets of at least this many answers get the lazy scan (the
# refutation pass collects the pool; no local table); smaller ones are scanned in
# full and rid of duplicate guesses (scans.scan_prepare). Hard mode took the lazy scan
# once the scans could refute guesses unread (their classes on the parent's set):
# hard swerf 2.4 -> 1.2 s, chink's big class 15.9 -> 10.6 s; before that its children
# reading the big table made it slower (swerf 14.0 -> 17.8 s). From 17 to 65 in
# hard mode when it dropped duplicates too (about half the legal guesses of a small
# set repeat another's patterns and letters): 0.74-0.87x CPU on four random openers
# of today's lists (BENCHMARKS, issue 52). Not in strict mode, whose pool is the set
# itself.
LAZY_MIN_SET = {"easy": 17, "hard": 65, "strict": NEVER}
# Per mode, nodes of at least this many answers search a guess's classes smallest
# first under a budget (kernels.node, P_SMALL_FIRST): hard mode's big all-grey
# classes, where the C++ reference (which always goes smallest first) beat us. Hard
# shush's grey class (1149 answers): refuting 1/40 of its second guesses against the
# class's value took 64 s largest first, 6.7 s smallest first. On every class at
# depth 1 it was 1.3-2x slower on typical hard openers and 3-8x in easy mode (even
# on easy fubby's 1205-answer grey class). By grey class size in hard mode: nippy
# (867) 1.1x slower, gunky (922) 0.89x, potoo (950) 0.82x, doggy (970) 1.07x, known
# (1063) 0.69x; the rule as kept: pakka 0.39x, jiffy 0.41x, shush 0.16x, and qajaq
# finishes (BENCHMARKS, issue 34)
SMALL_FIRST_MIN_SET = {"easy": NEVER, "hard": 900, "strict": NEVER}
# Per mode, from this node size up a guess's open classes of 10+ answers get the
# one-guess look-ahead bound (set_bound) before any is searched (kernels.node,
# P_PRE_SET, P_PRE_CLASS): on big sets most second guesses are refuted by those
# bounds alone, where a class searched with only the others' cheap bounds had to be
# valued almost exactly first. Easy qajaq's all-grey class: 1/80 of its second
# guesses refuted against the class's value in 9.9 s before, 1.5 s with it. Sizes
# from interleaved in-process A/Bs on random openers: easy 159 -> 94 s over 16 (from
# 800; from 300 106 s: smaller sets lose about what they gain), and from 700 best on
# 9 with big all-grey classes; hard 88 -> 49 s over 14 (from 300; from 500 64 s),
# the same from 150 on 14 more, and from 150 the hard classes of 150-300 answers where
# the C++ reference was faster go too (skers 129 -> 7 s, rheum 46 -> 3 s); strict
# 11.1 -> 3.4 s over 16 openers with big all-grey classes, 6.3 -> 2.4 s over 30
# random ones (from 150; from 300 3.6 and 2.5) (BENCHMARKS, issue 34). Easy from 400
# since the look-ahead got cheaper (blocked reads): random openers 0.87x, and a class
# just under 700 searched 1.7 M nodes without it (today's akoja:YBBBB, 696 answers,
# 605 -> 13 s; BENCHMARKS, issue 52). From 200 since: today's lists 0.56-0.67x (their
# classes of 200-400 answers are common), the original lists 0.95x; 100 the same as 200
PRE_BOUND = {"easy": (200, 10), "hard": (150, 10), "strict": (150, 10)}
# Per mode, whether those classes are first bounded from a part of them that the
# memo knows (bounds.subset_bound, P_SUBSET: opt(X) >= opt(Y) + opt(X \ Y), no row
# read). Not in strict mode, where the inequality fails (a guess must be a possible
# answer: X's strategy may guess a member of X \ Y), nor under a beam (set by set
# restricted values). Easy woody: 3.85 -> 2.98 billion patterns read (BENCHMARKS,
# issue 52)
SUBSET_BOUNDS = {"easy": True, "hard": True, "strict": False}
# Below the root, the look-ahead bound of a set of more than this many answers reads
# the rows of its guesses 128 at a time, member by member, from the answer-major
# table (bounds._set_bound_blocked, P_BLOCK_SET): a member's patterns under nearby
# guesses share cache lines, where row by row each member read was a cache miss in
# a big parent's table. The same bound, so the same nodes: easy hyphy 9164, 51 ->
# 37 s (BENCHMARKS, issue 52). Smaller sets are read in one or two CHUNKs anyway
BLOCK_MIN_SET = 16
# Under a cutoff, classes of the opener of at least this many answers get the
# one-guess look-ahead bound (kernels.set_bound) before any is searched
DEEP_BOUND_MIN = 8
# ... and classes of at most this many answers are solved exactly: in hard and
# strict mode first, as that proves most infeasible openers before a bound refutes
# them; in easy mode after the bounds, which refute most openers first at a
# sixth of the cost (easy, cutoff 7921, 200 random openers: an exact small class
# gained its opener's bound about 1 a millisecond, a look-ahead bound about 7)
EXACT_SMALL = 16
# Under a cutoff (hard mode), the node limit of an opener's class in the first round
# of its search (Solver._guess_total), and its factor from one round to the next:
# small steps let the class that refutes soonest finish before much goes into the
# others (NYT lists, hard: 0.71x the nodes of 100 000 and 4x over 40 pending openers
# of the book; BENCHMARKS.md, "Smaller steps, big classes first")
DEFER_NODES = 25_000
DEFER_GROWTH = 2


def hard_masks(letters: np.ndarray) -> np.ndarray:
    """Each guess's row of the context's hmask (see layout.CTX_FIELDS), from its
    letters (0-25, [G, L]): what the hard-mode legality test reads."""
    n_g, length = letters.shape
    rows = np.zeros((n_g, 3), np.int64)
    counts = np.zeros((n_g, 26), np.int64)
    for i in range(length):
        rows[:, 0] |= letters[:, i].astype(np.int64) << (5 * i)
        np.add.at(counts, (np.arange(n_g), letters[:, i]), 1)
    bit = np.int64(1) << np.arange(26, dtype=np.int64)
    for level in range(1, 5):
        has = ((counts >= level) * bit).sum(axis=1)
        rows[:, 1 + (level - 1) // 2] |= has << (26 * ((level - 1) % 2))
    return rows


def memo_entries_for(mb: float) -> int:
    """Memo entries that fit in `mb` megabytes (rounded down to a power of two)."""
    n = max(16, int(mb * 2**20 / MEMO_ENTRY_BYTES))
    return 1 << (n.bit_length() - 1)


def _transpose(table: np.ndarray, block: int = 256) -> np.ndarray:
    """table.T, contiguous, copied in blocks of rows (whose transposes stay in cache):
    0.04 s instead of 0.13 s for numpy's one strided copy of the default table (a
    numba kernel was as fast once loaded, but loading it from numba's cache took
    0.15 s of start-up)."""
    out = np.empty(table.shape[::-1], table.dtype)
    for i in range(0, table.shape[0], block):
        out[:, i : i + block] = table[i : i + block].T
    return out


def _class_cost_estimate(n_answers: int) -> np.ndarray:
    """Rough cost of a class of size c (used only to order guesses, never to prune)."""
    c = np.arange(n_answers + 1, dtype=np.float64)
    f = 2 * c - 1 + 0.25 * c * np.log(np.maximum(c, 1.0))
    f[0] = 0.0
    f[1] = 1.0
    return f


class Stopped(Exception):
    """A search cut short by Solver.request_stop: it has no result."""


class Solver(ClassQueries, PositionQueries):
    """Exact optimal values of openers for one problem: `lists` and a Variant, or
    a mode and a cap (`Solver(lists, Variant.of(lists, "hard", 6))` is
    `Solver(lists, "hard", 6)`).

    max_guesses=0 means no cap (the default is 6). beam=N restricts every position to the N most
    promising guesses: results are then upper bounds (or not_found), never exact.
    table_t: the answer-major transpose of `table` when the caller already has one
    (an MPI node's shared copy); else it is looked up (shared_table) or made here.
    """

    def __init__(
        self,
        lists: WordLists | None = None,
        mode: Mode | Variant = Mode.EASY,
        max_guesses: int | None = None,
        table: np.ndarray | None = None,
        backend: str = "auto",
        cache_dir=None,
        beam: int | None = None,
        memo_entries: int = DEFAULT_MEMO_ENTRIES,
        dedup: bool = True,
        seed: int = 20260101,
        table_t: np.ndarray | None = None,
    ) -> None:
        self.lists = lists if lists is not None else WordLists.load()
        # the game: a Variant, or a mode and a cap (default 6); validated
        self.variant = Variant.given(self.lists, mode, max_guesses)
        self.mode = mode = self.variant.mode
        # the order of _root_facts' last two steps (see EXACT_SMALL)
        self._small_first = MODES[mode] != K.EASY
        self.max_guesses = max_guesses = self.variant.max_guesses
        self.beam = beam
        if table is None:
            table, _ = get_table(self.lists, backend, cache_dir)
        n_g, n_a = len(self.lists.guesses), len(self.lists.answers)
        if table.shape != (n_g, n_a):
            raise ValueError(f"table shape {table.shape} does not match the lists ({n_g}, {n_a})")
        self.table = np.ascontiguousarray(table, dtype=self.variant.pattern_dtype)
        if table_t is None:
            table_t = registered_transpose(table)  # shared by the ranks of a node
        if table_t is None or table_t.shape != (n_a, n_g):
            table_t = _transpose(self.table)
        self._table_t = table_t
        self.depth_limit = max_guesses if max_guesses else UNCAPPED_DEPTH
        self._ctx = self._make_ctx(memo_entries, dedup, seed)
        self._kernels = kernel_set(self._ctx)  # compiled ahead of time, or numba's jit
        # no guess makes more classes on any set than on all the answers: their most
        # values big classes at depth 1 (class_lb), 150 instead of 243 here
        self._kernels.guess_classes(self.table, self.variant.n_patterns, self._ctx.gclass)
        self._ctx.gorder[:] = np.argsort(-self._ctx.gclass, kind="stable")
        self._ctx.kmax[0] = self._ctx.gclass.max()
        self._class_cost = _class_cost_estimate(n_a)
        self._root_cache: dict[str, SolveResult] = {}
        stops.register(self)  # a Ctrl-C stops it mid-kernel (solver/stops.py)

    # ------------------------------------------------------------------ setup
    def _make_ctx(self, memo_entries: int, dedup: bool, seed: int) -> K.Ctx:
        n_g, n_a = self.table.shape
        d = self.depth_limit + 2
        rng = np.random.default_rng(seed)

        def rand64(size):
            return rng.integers(0, 2**63 - 1, size=size, dtype=np.int64).astype(np.uint64) * 2 + 1

        memo = 1 << (max(16, memo_entries) - 1).bit_length()  # power of two
        h = 1 << (2 * n_g + 1).bit_length()  # dedup table: a power of two > 2 n_g
        letters = encode_words(self.lists.guesses)
        gans = np.full(n_g, -1, np.int32)
        gans[self.lists.answer_guess_ids] = np.arange(n_a, dtype=np.int32)
        pools = np.zeros((d, n_g), np.int32)
        pools[0] = np.arange(n_g, dtype=np.int32)
        npool = np.zeros(d, np.int64)
        npool[0] = n_g
        v = self.variant
        n_p, length = v.n_patterns, v.length
        params = np.array(  # in the order of layout.py's P_MODE ... P_BLOCK_SET
            [MODES[self.mode], self.beam or 0, int(dedup), memo - 1, self.depth_limit,
             LAZY_MIN_SET[self.mode], 2, DOMINANCE_MIN_SET,
             n_p, length, v.all_green, 0, 0, 0, 0,
             SMALL_FIRST_MIN_SET[self.mode], *PRE_BOUND[self.mode],
             int(SUBSET_BOUNDS[self.mode] and not self.beam), BLOCK_MIN_SET], np.int64
        )
        pat = v.pattern_dtype
        return K.Ctx(
            tbl=self.table,
            tblT=self._table_t,
            agid=self.lists.answer_guess_ids,
            gans=gans,
            aletters=np.ascontiguousarray(letters[self.lists.answer_guess_ids]),
            distinct=np.array([len(set(row)) == length for row in letters.tolist()], np.uint8),
            arena=np.zeros(n_a * (d + 2), np.int32),
            larena=np.zeros(n_a * (d + 2), np.int32),
            ltab=np.zeros(2 * n_g * n_a + 1, pat),
            ltoff=np.full(d, -1, np.int64),
            ltn=np.zeros(d, np.int64),
            pools=pools,
            npool=npool,
            kmax=np.full(d, n_p, np.int64),
            lbs=np.zeros((d, n_g), np.int64),
            kcl=np.zeros((d, n_g), np.int32),
            ests=np.zeros((d, n_g), np.float64),
            cnt=np.zeros((d, n_p), np.int32),
            seen=np.zeros((d, n_p), np.int64),
            cstart=np.zeros((d, n_p + 1), np.int64),
            csize=np.zeros((d, n_p), np.int64),
            corder=np.zeros((d, n_p), np.int64),
            touched=np.zeros((d, n_a + 1 if n_p > K.DENSE_PATTERNS else 1), np.int64),
            qval=np.zeros((d, n_p), np.int64),
            qflag=np.zeros((d, n_p), np.int64),
            lnc=np.log(np.maximum(np.arange(n_a + 1, dtype=np.float64), 1.0)),
            prow=np.zeros((d, n_a), pat),
            z1=rand64(n_a),
            z2=rand64(n_a),
            mk1=np.zeros(memo, np.uint64),
            mk2=np.zeros(memo, np.uint64),
            mval=np.zeros(memo, np.int64),
            mmeta=np.zeros(memo, np.int64),
            mbest=np.zeros(memo, np.int32),
            stats=np.zeros(K.stats_size(d), np.int64),
            params=params,
            dkey=np.zeros(h, np.uint64),
            dgid=np.zeros(h, np.int32),
            dgen=np.full(h, -1, np.int64),
            rpos=rand64(n_a),
            letters=letters,
            hmask=hard_masks(letters),
            cgreen=np.full((d, length), 255, np.uint8),
            cmin=np.zeros((d, 26), np.uint8),
            cz1=rand64(K.constraint_keys(length)),
            cz2=rand64(K.constraint_keys(length)),
            gclass=np.zeros(n_g, np.int64),
            gorder=np.arange(n_g, dtype=np.int64),
            rank=np.zeros((5, n_g), np.int64),
        )

    def depth_profile(self) -> np.ndarray:
        """Per depth: [nodes scanned, guesses scanned, patterns read, guesses
        evaluated], cumulated over this solver's life (for profiling)."""
        return self._ctx.stats[K.ST_DEPTH :].reshape(-1, 4).copy()

    @property
    def stats(self) -> dict[str, int]:
        s = self._ctx.stats
        return {
            "nodes": int(s[K.ST_NODES]),
            "memo_hits": int(s[K.ST_HITS]),
            "memo_stores": int(s[K.ST_STORES]),
            "memo_evictions": int(s[K.ST_EVICT]),
            "guesses_scanned": int(s[K.ST_SCANNED]),
            "refuted_unread": int(s[K.ST_UNREAD]),
            "lazy_scans": int(s[K.ST_LAZY]),
            "subset_bounds": int(s[K.ST_SUBSET]),
            "subset_cuts": int(s[K.ST_SUBSET_CUT]),
            "infeasible_parts": int(s[K.ST_PART_INF]),
            "bounds_stored": int(s[K.ST_BOUNDS]),
            "memo_entries": int(self._ctx.mk1.shape[0]),
        }

    # ------------------------------------------------------------------ root
    def _classes(self, gid: int, members: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """Feedback classes of `members` under guess gid: (pattern, answer ids),
        largest first."""
        row = self.table[gid, members]
        order = np.argsort(row, kind="stable")
        pats, starts = np.unique(row[order], return_index=True)
        bounds = list(starts[1:]) + [len(order)]
        classes = [
            (int(p), members[order[s:e]].astype(np.int32))
            for p, s, e in zip(pats, starts, bounds, strict=True)
        ]
        classes.sort(key=lambda pc: -len(pc[1]))
        return classes

    def _child_sets(self, gid: int, members: np.ndarray, cons):
        """The non-green classes of `members` under guess gid, largest first, as
        (pattern, answer ids, hard-mode constraint after it; None in other modes)."""
        hard = self.mode == Mode.HARD
        for p, m in self._classes(gid, members):
            if p != self.variant.all_green:
                yield p, m, self._constraint_after(cons, gid, p) if hard else None

    def _constraint_after(self, cons, gid: int, pattern: int):
        """Hard-mode constraint (greens, minimum counts) after guess gid with
        `pattern`, from constraint `cons` (None = no constraint yet)."""
        ctx = self._ctx
        ctx.cgreen[0] = 255 if cons is None else cons[0]
        ctx.cmin[0] = 0 if cons is None else cons[1]
        self._kernels.hard_child_constraint(ctx, gid, pattern, 0)
        return ctx.cgreen[1].copy(), ctx.cmin[1].copy()

    def _solve_set(self, members: np.ndarray, left: int, cons, beta: int = K.INF,
                   limit: int = 0):
        """Search the set `members` with `left` guesses left under the hard-mode
        constraint `cons`: (value, flags, height, best guess id), or None when
        `limit` (> 0) nodes did not finish it (the memo keeps what they proved).
        Raises Stopped when request_stop cut the search short."""
        ctx = self._ctx
        n = len(members)
        ctx.arena[:n] = members
        if MODES[self.mode] == K.HARD:
            ctx.cgreen[1] = cons[0]
            ctx.cmin[1] = cons[1]
        ctx.params[K.P_LIMIT] = ctx.stats[K.ST_NODES] + limit if limit > 0 else 0
        out = self._kernels.node(ctx, 0, n, left, beta, 1, n, 0)
        cut_short = ctx.params[K.P_LIMIT] < 0
        ctx.params[K.P_LIMIT] = 0
        if ctx.params[K.P_STOP]:
            self._forget()
            raise Stopped("the search was asked to stop")
        return None if cut_short else out

    # ------------------------------------------------------------------ stopping
    def request_stop(self) -> None:
        """Cut the search in progress short, from another thread (the kernels run
        without the GIL and look at the flag on entry to every node): it raises
        Stopped within milliseconds, and so does every later search until
        clear_stop. Nothing it computed is kept."""
        self._ctx.params[K.P_STOP] = 1

    def clear_stop(self) -> None:
        """Let searches run again after request_stop."""
        self._ctx.params[K.P_STOP] = 0

    @property
    def stop_requested(self) -> bool:
        """Whether request_stop is in force: searches built on the engine's (the
        objective wins) look at it between their own steps."""
        return bool(self._ctx.params[K.P_STOP])

    def _forget(self) -> None:
        """Empty the memo after request_stop. memo_store stores nothing once the flag
        is up (every node fails high from then on), so what is left is true; a
        stopped run starts again from an empty memo all the same."""
        ctx = self._ctx
        ctx.mk1[:] = 0
        ctx.mk2[:] = 0
        self._root_cache.clear()

    def _gid(self, word: str) -> int:
        return self.lists.guess_id(word)

    def solve(
        self, opener: str, cutoff: int | None = None, progress: TextIO | None = None,
        on_class: Callable[[int, str, int, int, str], None] | None = None,
        on_bounds: Callable[[dict[int, int]], None] | None = None,
    ) -> SolveResult:
        """Exact value of `opener`; with `cutoff`, openers that cannot beat it get
        status lower_bound (a proven total >= cutoff) instead of an exact value.
        `progress`: a stream for a line every few seconds on long solves.
        `on_class(pattern, status, total, depth, second)`: called as each
        first-feedback class is searched to its value, as class_value would value it
        (exact or upper_bound), so that a solve cut short (Stopped) keeps them.
        `on_bounds({pattern: total})`: under a cutoff, once, before any class is
        searched: a lower bound of every non-green class's total (the cheap facts
        the cutoff's refutation starts from), so that a solve cut short can hand
        the classes it has not valued to others with budgets (run/split.py)."""
        gid = self._gid(opener)
        word = self.lists.guesses[gid]
        n_a = len(self.lists.answers)
        t0 = time.perf_counter()
        c0 = time.process_time()
        nodes0 = int(self._ctx.stats[K.ST_NODES])
        beta = K.INF if cutoff is None else int(cutoff)
        all_answers = np.arange(n_a, dtype=np.int32)

        report = class_reporter(word, "solved", progress, lambda: self.stats["nodes"] - nodes0,
                                t0, PROGRESS_EVERY, PROGRESS_FIRST) if progress else None
        def tell_class(p: int, v: int, h: int, g: int, tainted: bool) -> None:
            assert on_class is not None
            status, _note = self._label(Status.EXACT, True, tainted)
            on_class(p, status, v, h + 1, self.lists.guesses[g])

        status, total, depth, searched, tainted = self._guess_total(
            gid, all_answers, self.depth_limit, None, beta, report, weighted=True,
            valued=tell_class if on_class is not None else None, bounded=on_bounds)
        status, note = self._label(status, searched, tainted)
        return SolveResult(
            opener=word,
            status=status,
            total=None if status in (Status.INFEASIBLE, Status.NOT_FOUND) else int(total),
            answers=n_a,
            depth=depth if status in (Status.EXACT, Status.UPPER_BOUND) else None,
            seconds=time.perf_counter() - t0,
            nodes=int(self._ctx.stats[K.ST_NODES]) - nodes0,
            mode=self.mode,
            max_guesses=self.max_guesses,
            cpu_seconds=time.process_time() - c0,
            note=note,
        )

    def _guess_total(self, gid: int, members: np.ndarray, left: int, cons, beta: int,
                     report=None, weighted: bool = False, valued=None, bounded=None
                     ) -> tuple[str, int, int, bool, bool]:
        """Guess gid on `members` with `left` guesses left, then optimal play: (status
        before labelling, total, depth, searched, tainted). Status: exact, infeasible,
        or lower_bound once the total is proven >= beta (the total is then the
        strongest bound found, often above beta). `searched`: the status came from
        the search or the memo, not from the partition bound alone; `tainted`: some
        class value depends on the depth limit. `report(i, n)` is called before each
        class is searched (i classes done of n); `weighted`: `report(i, n, work)`,
        with the share of the work done, each class weighed by its size squared.
        `valued(pattern, total, height, second guess id, tainted)`: each class the
        search values exactly (as it comes back, before the next is searched).
        `bounded({pattern: total})`: under a budget, once the root facts leave the
        guess unrefuted, a lower bound of each class (an exact fact is its value)."""
        classes = list(self._child_sets(gid, members, cons))
        weight = [float(len(m)) ** 2 for _, m, _ in classes]
        all_work, work = sum(weight) or 1.0, 0.0

        def tell(done: int) -> None:
            if report is not None:
                if weighted:
                    report(done, len(classes), work / all_work)
                else:
                    report(done, len(classes))

        total = partition_bound(len(members), [len(m) for _, m, _ in classes])
        if left < 2 and classes:
            return Status.INFEASIBLE, total, 1, False, False
        if total >= beta:
            return Status.LOWER_BOUND, total, 1, False, False
        # Smallest class first. Without a budget every class is solved anyway, so the
        # order only matters when one is infeasible: that ends the work, and small
        # classes settle fast (hatha, hard: its 840-answer class takes minutes, the
        # infeasible 11-answer one 0.06 s). Under a budget their exact values replace
        # bounds cheaply, so the big classes, where the time goes, are searched last
        # under the tightest budgets (largest first: 2.5x the time over 30 random
        # openers, easy, cutoff 7921).
        classes.reverse()
        weight.reverse()
        if beta >= K.INF:
            facts = [(2 * len(m) - 1, 0, 0) for _, m, _ in classes]
        else:
            facts = self._root_facts(classes, left, len(members), beta)
            total = len(members) + sum(v for v, _, _ in facts)
            tainted = any(fl & K.TAINT for _, fl, _ in facts)
            if any(v >= K.INF and fl & K.EXACT for v, fl, _ in facts):
                return Status.INFEASIBLE, total, 1, True, tainted
            if total >= beta:
                return Status.LOWER_BOUND, total, 1, True, tainted
            if bounded is not None:
                bounded({int(p): int(v) for (p, _m, _c), (v, _f, _h) in zip(
                    classes, facts, strict=True)})
        depth, tainted = 1, False
        # Under a budget (hard mode), a class is first searched with a node limit: one
        # that does not finish within it waits until the classes after it are
        # searched, as one of them may refute the opener sooner; the classes that
        # wait are then searched again, largest first (the small ones settled in the
        # first round; a big class's bound is the loosest, so it often refutes),
        # with DEFER_GROWTH times the limit each round (the last class of a round
        # has none if no class waits: nothing comes after)
        limit = DEFER_NODES if beta < K.INF and MODES[self.mode] == K.HARD else 0
        todo, done = list(range(len(classes))), 0
        while todo:
            waiting: list[int] = []
            for i in todo:
                (p, m, child), (lbc, fl, h) = classes[i], facts[i]
                tell(done)
                v = lbc
                if not fl & K.EXACT:
                    last = i == todo[-1] and not waiting
                    out = self._solve_set(m, left - 1, child, beta - (total - lbc),
                                          0 if last else limit)
                    if out is None:
                        waiting.append(i)
                        continue
                    v, fl, h, g = out
                    v = int(v) if fl & K.EXACT else max(int(v), lbc)
                    if valued is not None and fl & K.EXACT and v < K.INF and g >= 0:
                        valued(int(p), v, int(h), int(g), bool(fl & K.TAINT))
                tainted = tainted or bool(fl & K.TAINT)
                total += v - lbc
                if v >= K.INF and fl & K.EXACT:
                    return Status.INFEASIBLE, total, depth, True, tainted
                if total >= beta:
                    return Status.LOWER_BOUND, total, depth, True, tainted
                depth = max(depth, int(h) + 1)
                done += 1
                work += weight[i]
            todo, limit = sorted(waiting, reverse=True), DEFER_GROWTH * limit
        work = all_work
        tell(len(classes))
        return Status.EXACT, total, depth, True, tainted

    def _root_facts(self, classes, left: int, n: int, beta: int) -> list[tuple[int, int, int]]:
        """Under a budget, what is cheap to know of every class of a guess (smallest
        first) before any is searched, from the cheapest fact up, until the sum
        passes the budget: class_lb by size; the memo and a separating member; then
        the exact values of the classes of at most EXACT_SMALL answers and bounds
        looked one guess ahead on the classes of at least DEEP_BOUND_MIN answers,
        largest first, in the order of `_small_first`. (value, flags, height) per
        class: exact (EXACT in flags), or a lower bound. The sum alone refutes most
        bad openers; the classes left are then searched with the budget that the
        others' bounds leave them."""
        kmax = int(self._ctx.kmax[0])
        facts = [(K.class_lb_py(len(m), kmax), 0, 0) for _, m, _ in classes]
        total = n + sum(v for v, _, _ in facts)

        def refine(i: int, fact) -> bool:
            """Record a new fact of class i; True when the work can stop."""
            nonlocal total
            v, fl, h = (int(x) for x in fact)
            if not fl & K.EXACT:
                v = max(v, facts[i][0])
            total += v - facts[i][0]
            facts[i] = (v, fl, h)
            return total >= beta or (v >= K.INF and bool(fl & K.EXACT))

        def small() -> bool:
            for i, (_p, m, c) in enumerate(classes):
                if len(m) > EXACT_SMALL:
                    break
                if not facts[i][1] & K.EXACT and refine(i, self._solve_set(m, left - 1, c)[:3]):
                    return True
            return False

        def deep() -> bool:
            for i in reversed(range(len(classes))):
                _p, m, c = classes[i]
                if len(m) < DEEP_BOUND_MIN:
                    break
                if not facts[i][1] & K.EXACT and refine(i, self._class_bound(m, left - 1, c, True)):
                    return True
            return False

        if total >= beta:
            return facts
        for i, (_p, m, c) in enumerate(classes):
            if refine(i, self._class_bound(m, left - 1, c, deep=False)):
                return facts
        first, then = (small, deep) if self._small_first else (deep, small)
        if not first():
            then()
        return facts

    def _class_bound(self, members: np.ndarray, left: int, cons, deep: bool):
        """What is known of a class before it is searched: (value, flags, height),
        exact or a lower bound (kernels.class_bound; `deep`: one guess looked ahead)."""
        ctx = self._ctx
        n = len(members)
        ctx.arena[:n] = members
        if MODES[self.mode] == K.HARD:
            ctx.cgreen[1] = cons[0]
            ctx.cmin[1] = cons[1]
        return self._kernels.class_bound(ctx, 0, n, left, 1, int(deep))

    def _label(self, status: str, searched: bool, tainted: bool) -> tuple[str, str]:
        """What a root result proves. A beam search only finds strategies: its totals
        are upper bounds, and its failures (infeasible, or nothing under the cutoff)
        prove nothing. Uncapped means a depth limit of UNCAPPED_DEPTH: if the limit
        was used anywhere (TAINT at the root), the same holds."""
        under = " under the cutoff" if status == Status.LOWER_BOUND else ""
        if self.beam:
            if status == Status.EXACT:
                return Status.UPPER_BOUND, ""
            if searched:
                return Status.NOT_FOUND, f"none found within a beam of {self.beam}{under}"
        elif not self.max_guesses and tainted:
            limit = f"the uncapped search reached its limit of {self.depth_limit} guesses"
            if status == Status.EXACT:
                return Status.UPPER_BOUND, f"{limit}: a strategy within it achieves this total"
            if searched:
                return Status.NOT_FOUND, f"{limit}: none found within it{under}"
        return status, ""

    def class_costs(self) -> np.ndarray:
        """The engine's rough cost of a feedback class by its size: entry c is the
        estimated total of a class of c answers (2c - 1 + c ln(c) / 4; 0 and 1 for
        sizes 0 and 1). It only orders guesses, most promising first (`estimate`,
        and the game layer's ranking of a position's guesses); it never prunes, so
        any order gives the same exact values. Read-only, shared: do not modify."""
        return self._class_cost

    def best(self, top: int = 1, progress: Callable[[int, int, str], None] | None = None,
             check: Callable[[], None] | None = None) -> list[SolveResult]:
        """The `top` best openers with proof: every other opener is shown to have a
        lower bound above the top-th best value (ties are solved exactly; among equal
        totals an answer first, then alphabetical). Openers go by `estimate`, so the
        cutoff soon gets tight; an opener whose cheap bound (`lower_bound`) passes
        it is never searched. `progress(done, total, note)` is called after every
        opener; `check()` too, before each, and may raise to stop the work. Not
        resumable: `wordle-dp run --cutoff X` is the resumable way (a store)."""
        words = self.lists.guesses
        answers = set(self.lists.answer_index)
        order = sorted(range(len(words)), key=lambda i: self.estimate(words[i]))
        found: list[SolveResult] = []
        for k, i in enumerate(order):
            if check is not None:
                check()
            w = words[i]
            cut = None
            if len(found) >= top:
                cut = (found[top - 1].total or 0) + 1  # prove strictly worse, else solve exactly
            if cut is None or self.lower_bound(w) < cut:
                r = self.solve(w, cutoff=cut)
                if r.status == Status.EXACT:
                    found.append(r)
                    found.sort(key=lambda x: (x.total, x.opener not in answers, x.opener))
                    del found[top:]
            if progress is not None:
                note = f"best so far {found[0].opener} {found[0].total}" if found else ""
                progress(k + 1, len(order), note)
        return found
