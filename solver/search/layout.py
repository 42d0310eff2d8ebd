"""What the search kernels share with the Python side, without numba: the
constants, the stats slots and the layout of the search context (Ctx).

The engine imports this module, not the kernels, so that a process running the
compiled kernels (solver.search.compiled) never imports numba at all.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

INF = 1 << 40
EXACT = 1
TAINT = 2
EASY, HARD, STRICT = 0, 1, 2
# the slots of ctx.params (int64; the engine fills them, Solver._ctx): the rules
# (EASY, HARD, STRICT), the beam width (0: none), whether easy mode drops duplicate
# guesses (dedup), the memo's index mask (entries - 1), the depth limit, the lazy
# class tables' least set size and least depth, the least set size for the
# undominated guesses of easy mode (pool.py)
(P_MODE, P_BEAM, P_DEDUP, P_MEMO_MASK, P_DEPTH_LIMIT, P_LAZY_SET, P_LAZY_DEPTH,
 P_DOMINANCE_SET) = range(8)
# the game's pattern count, word length and all-green code (solver.variant)
P_PATTERNS, P_LENGTH, P_GREEN = 8, 9, 10
# the guesses a root (depth 1) may evaluate, for a set valued in parts on several
# processes (Solver.set_part): 0 all; k > 0 only guess ids = P_PART mod k; k < 0 only
# the first -k candidates in the search's own order (a quick upper bound)
P_PARTS, P_PART = 11, 12
# set (from another thread: the kernels release the GIL) to cut a search short: every
# node then fails high at once, and the engine raises Stopped (Solver.request_stop)
P_STOP = 13
# a node count (stats ST_NODES) past which a search stops the same way, on its own;
# 0: none. The node that passes it sets it to -1: the search was cut short
# (Solver._solve_set's `limit`)
P_LIMIT = 14
# from this set size up, a node searches a guess's classes smallest first under a
# budget (else largest first): their exact values tighten the budget the big ones
# get, where a big class searched first would have to be valued almost exactly
# (Solver sets it by mode: engine.SMALL_FIRST_MIN_SET)
P_SMALL_FIRST = 15
# from this node size up, a guess's open classes of at least P_PRE_CLASS answers get
# the one-guess look-ahead bound (set_bound) before any class is searched, so each
# class's search gets the budget the others' stronger bounds leave (Solver sets both
# by mode: engine.PRE_BOUND)
P_PRE_SET, P_PRE_CLASS = 16, 17
# 1: before those look-ahead bounds, a class is bounded from a part of it that the
# memo knows (bounds.subset_bound: no row read); 0: not (strict mode, beams, A/Bs)
P_SUBSET = 18
# below the root, the look-ahead bound of a set of more than this many answers reads
# its guesses' rows a block at a time, member by member (bounds._set_bound_blocked;
# the same bound). Solver sets engine.BLOCK_MIN_SET; tests compare with it off
P_BLOCK_SET = 19
N_PARAMS = 20
DENSE_PATTERNS = 256  # up to this many patterns, scan every code; above, only those seen
CHUNK = 8  # members read between refutation checks
CAND_BLOCK = 16  # candidates a node sorts first, then twice as many each time (kernels._next_block)
SAMPLE_GUESSES = 32  # pool guesses that rank a set's members for refute_pool
TAINT_REUSE = 2  # memo_probe also reads tainted entries of up to this many more guesses

# stats slots
ST_NODES, ST_HITS, ST_STORES, ST_EVICT, ST_SCANNED, ST_GEN = 0, 1, 2, 3, 4, 5
ST_UNREAD = 6  # guesses a scan refuted without reading (their classes on the parent)
ST_LAZY = 7  # nodes that searched after a lazy scan (refute_pool collecting)
ST_SUBSET = 8  # class bounds raised from a part the memo knew (bounds.subset_bound)
ST_SUBSET_CUT = 9  # guesses those refuted before any look-ahead bound was read
# guesses refuted, where a node had no budget yet, by a class with a part the memo
# knows to be infeasible (kernels._part_infeasible)
ST_PART_INF = 10
# look-ahead bounds offered to the memo mid-scan (set_bound, subset_bound): facts about
# a class that hold whether or not the node that found them finishes (counted when
# offered, so at least the stores they make: memo_store may keep a better entry)
ST_BOUNDS = 11
N_STATS = 12
ST_DEPTH = 12  # per-depth profile from here: 4 counters per depth (scans, guesses
# scanned, patterns read, guesses evaluated); the array is sized for every depth


def stats_size(depths: int) -> int:
    return ST_DEPTH + 4 * depths


def partition_bound(n_answers: int, sizes) -> int:
    """Admissible bound on the total after a guess splitting n_answers into non-green
    classes of these sizes: everyone pays the guess, and a class of c answers needs
    at least 2c - 1 more (one guess for each, a second for all but one). Plain
    Python, here rather than in bounds.py: the engine calls it, and importing the
    jitted bounds would import numba into every process (about 0.3 s of CPU)."""
    return int(n_answers + sum(2 * int(c) - 1 for c in sizes))


def class_lb_py(c, k):
    """Least total for a set of c answers when no guess gives more than k feedback
    classes on it (green included): guess t can finish at most k**(t-1) answers, one
    per position at that level. Equals 2c-1 while c <= k+1; grows to about 3c - k
    beyond, where the plain 2c-1 bound is weak. (Plain Python: the kernels jit
    this same function as class_lb, and the engine calls it as it is.)"""
    if c <= k + 1:
        return 2 * c - 1
    total = 0
    t = 1
    width = 1
    rem = c
    while rem > 0:
        take = min(width, rem)
        total += t * take
        rem -= take
        width *= k
        t += 1
    return total


# Every field of the search context: (name, dtype, dimensions), all C-contiguous
# and writable. "pattern" is the table's dtype: uint8 up to 5 letters, uint16 above
# (variant.pattern_dtype); the compiled kernels are built once for each. G guesses,
# A answers, D depths, L letters, P = 3**L patterns.
CTX_FIELDS = (
    ("tbl", "pattern", 2),  # [G, A] pattern table (one guess over a set: a row gather)
    ("tblT", "pattern", 2),  # [A, G] its transpose (every guess over a small set: n hot rows)
    ("agid", "int32", 1),  # [A] guess id of each answer
    ("gans", "int32", 1),  # [G] answer id of each guess (-1: not an answer)
    ("aletters", "uint8", 2),  # [A, L] letters of each answer (0-25)
    ("distinct", "uint8", 1),  # [G] 1 if the guess has L different letters
    ("arena", "int32", 1),  # [A * (D + 2)] answer sets, stacked
    ("larena", "int32", 1),  # [same] each member's position in its parent's set
    ("ltab", "pattern", 1),  # [~2 G A] local pattern tables, stacked by depth
    ("ltoff", "int64", 1),  # [D] where depth d's local table starts (-1: none)
    ("ltn", "int64", 1),  # [D] its row length (the node's set size)
    ("pools", "int32", 2),  # [D, G] useful guesses per depth
    ("npool", "int64", 1),  # [D]
    ("kmax", "int64", 1),  # [D] most feedback classes of any pool guess on the node's set
    ("lbs", "int64", 2),  # [D, G] lower bound per pool guess
    # [D, G] per pool guess, at most how many feedback classes it makes on the node's
    # set (exact when its row was read in full): no guess makes more on a subset
    ("kcl", "int32", 2),
    ("ests", "float64", 2),  # [D, G] promise per pool guess (smaller is better)
    ("cnt", "int32", 2),  # [D, P] scratch class counts (kept zero between uses)
    ("seen", "int64", 2),  # [D, P] scratch: stamp of the last guess that showed a pattern
    ("cstart", "int64", 2),  # [D, P + 1] where each class of the last partition starts
    ("csize", "int64", 2),  # [D, P] its size (valid for the patterns it has)
    ("corder", "int64", 2),  # [D, P] its classes of 3+ answers, largest first
    ("touched", "int64", 2),  # [D, A + 1] its patterns, when P > DENSE_PATTERNS
    ("qval", "int64", 2),  # [D, P] quick bound per class of the guess being evaluated
    ("qflag", "int64", 2),  # [D, P]
    ("lnc", "float64", 1),  # [A + 1] ln(c), for the promise of a guess
    ("prow", "pattern", 2),  # [D, A] scratch: one guess's patterns on the node's set
    ("z1", "uint64", 1),  # [A] set hash keys
    ("z2", "uint64", 1),  # [A]
    ("mk1", "uint64", 1),  # [M] memo keys
    ("mk2", "uint64", 1),  # [M]
    ("mval", "int64", 1),  # [M]
    ("mmeta", "int64", 1),  # [M]
    ("mbest", "int32", 1),  # [M]
    ("stats", "int64", 1),  # [N_STATS]
    # [N_PARAMS]: mode, beam (0 = all), dedup on/off, memo mask, depth limit,
    # least set size and least depth scanned lazily (refute_pool collecting),
    # least root set size whose pool is cut (root_pool; never in hard/strict mode),
    # then P_PATTERNS, P_LENGTH, P_GREEN, P_PARTS, P_PART, P_STOP, P_LIMIT,
    # P_SMALL_FIRST, P_PRE_SET, P_PRE_CLASS, P_SUBSET, P_BLOCK_SET
    ("params", "int64", 1),
    ("dkey", "uint64", 1),  # [H] dedup hash set (pattern-vector hashes)
    ("dgid", "int32", 1),  # [H]
    ("dgen", "int64", 1),  # [H] generation stamp: slot valid only for the current node
    ("rpos", "uint64", 1),  # [A] random multipliers by position in S, for pattern hashes
    ("letters", "uint8", 2),  # [G, L] (hard mode)
    # [G, 3] (hard mode) per guess: its letters, 5 bits a position; bit 26 (k-1) + c
    # when it has at least k copies of letter c, k = 1, 2; the same for k = 3, 4
    # (rules of 5 or more copies, possible from 6 letters on, are checked on letters)
    ("hmask", "int64", 2),
    ("cgreen", "uint8", 2),  # [D, L] hard-mode greens per depth (255 = none)
    ("cmin", "uint8", 2),  # [D, 26] hard-mode minimum letter counts per depth
    ("cz1", "uint64", 1),  # [27 L + 26 (L + 1)] constraint hash keys
    ("cz2", "uint64", 1),  # [...]
    ("gclass", "int64", 1),  # [G] classes each guess makes on all the answers
    ("gorder", "int64", 1),  # [G] the guesses by gclass, most first (ties by id)
    # [5, G] a ranking of a position's guesses (node with d == 0): the guesses, their
    # admissible bounds, their totals or bounds, EXACT or 0, the k smallest totals
    ("rank", "int64", 2),
)


def field_dtype(dtype: str, pattern) -> np.dtype:
    """A field's dtype, with "pattern" resolved to the table's dtype."""
    return np.dtype(pattern) if dtype == "pattern" else np.dtype(dtype)


def constraint_keys(length: int) -> int:
    """Hash keys the hard-mode constraint needs: 27 per green position (26 letters or
    none), L + 1 per letter's least count (0..L)."""
    return 27 * length + 26 * (length + 1)


Ctx = namedtuple("Ctx", [name for name, _, _ in CTX_FIELDS])


def ctx_mismatch(ctx: Ctx) -> str | None:
    """Why `ctx` does not have the layout of CTX_FIELDS (None if it does)."""
    pattern = ctx.tbl.dtype if isinstance(ctx.tbl, np.ndarray) else np.uint8
    if np.dtype(pattern) not in (np.dtype(np.uint8), np.dtype(np.uint16)):
        return "tbl: expected a uint8 or uint16 table"
    a: object
    for (name, dtype, ndim), a in zip(CTX_FIELDS, ctx, strict=True):
        want = field_dtype(dtype, pattern)
        if not isinstance(a, np.ndarray) or a.dtype != want or a.ndim != ndim:
            return f"{name}: expected a {ndim}-d {want} array"
        if not (a.flags.c_contiguous and a.flags.writeable):
            return f"{name}: not a writable C-contiguous array"
    return None
