"""The search's memo (transposition table): 128-bit keys of answer sets (and,
in hard mode, of the constraint), four-way buckets that evict the smallest sets
first, and entries that are exact values or lower bounds, tainted by the cap or not
(see kernels.py for what taint means).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jitcache import install
from .layout import (
    EXACT,
    HARD,
    INF,
    P_DEPTH_LIMIT,
    P_LIMIT,
    P_MEMO_MASK,
    P_MODE,
    P_STOP,
    ST_EVICT,
    ST_STORES,
    TAINT,
    TAINT_REUSE,
)

install()  # numba's cache sees an edit to any kernel source (solver/jitcache.py)

# memo meta packing: tag (0 = untainted, else guesses left) | kind | height | size
_KIND_EXACT = 1 << 8


# The helpers called once per class of every guess evaluated take arrays, not the
# context: numba takes a reference to each of the context's 40-odd arrays on entry
# to some functions and drops them on exit (atomic operations, about 0.5 us a call;
# numba's pass that prunes such pairs gives up on these), while a few array
# arguments cost a few nanoseconds. The ctx forms are kept for the tests and the
# cold paths.


@njit(cache=True, nogil=True)
def _key(arena, z1, z2, cgreen, cmin, cz1, cz2, hard, off, n, d):
    """128-bit key of the set (and, in hard mode, of the constraint at depth d)."""
    k1 = np.uint64(0)
    k2 = np.uint64(0)
    for i in range(n):
        a = arena[off + i]
        k1 ^= z1[a]
        k2 ^= z2[a]
    if hard:  # keys as layout.constraint_keys counts them
        length = cgreen.shape[1]
        for i in range(length):
            v = cgreen[d, i]
            j = i * 27 + (26 if v == 255 else v)
            k1 ^= cz1[j]
            k2 ^= cz2[j]
        for c in range(26):
            v = cmin[d, c]
            if v:
                j = 27 * length + c * (length + 1) + min(v, length)
                k1 ^= cz1[j]
                k2 ^= cz2[j]
    return k1 | np.uint64(1), k2


@njit(cache=True, nogil=True)
def set_key(ctx, off, n, d):
    return _key(ctx.arena, ctx.z1, ctx.z2, ctx.cgreen, ctx.cmin, ctx.cz1, ctx.cz2,
                ctx.params[P_MODE] == HARD, off, n, d)


@njit(cache=True, nogil=True)
def _find(mk1, mk2, mmeta, mask, k1, k2, tag, n):
    """Slot holding (key, tag) for a set of n answers, or -1. The set size is
    checked too, on top of the 128-bit key."""
    base = np.int64(k1 & np.uint64(mask)) & ~np.int64(3)
    for s in range(base, base + 4):
        if mk1[s] == k1 and mk2[s] == k2 and (mmeta[s] & 255) == tag and (mmeta[s] >> 32) == n:
            return s
    return -1


@njit(cache=True, nogil=True)
def memo_find(ctx, k1, k2, tag, n):
    return _find(ctx.mk1, ctx.mk2, ctx.mmeta, ctx.params[P_MEMO_MASK], k1, k2, tag, n)


@njit(cache=True, nogil=True)
def _store(mk1, mk2, mval, mmeta, mbest, stats, mask, k1, k2, tag, val, exact, height,
           best, n):
    base = np.int64(k1 & np.uint64(mask)) & ~np.int64(3)
    victim = -1
    vsize = np.int64(1) << 62
    for s in range(base, base + 4):
        if mk1[s] == k1 and mk2[s] == k2 and (mmeta[s] & 255) == tag and (mmeta[s] >> 32) == n:
            victim = s  # the same entry (matched exactly as _find matches it)
            break
        if mk1[s] == 0 and mk2[s] == 0:
            if vsize > -1:
                victim = s
                vsize = -1
        else:
            sz = mmeta[s] >> 32
            if sz < vsize:
                victim = s
                vsize = sz
    s = victim
    same = (mk1[s] == k1 and mk2[s] == k2 and (mmeta[s] & 255) == tag
            and (mmeta[s] >> 32) == n)
    if mk1[s] != 0 and not same:
        stats[ST_EVICT] += 1
    elif same and not exact:
        # never let a bound overwrite an exact value, or a weaker bound a stronger one
        if mmeta[s] & _KIND_EXACT or mval[s] >= val:
            return
    mk1[s] = k1
    mk2[s] = k2
    mval[s] = val
    mmeta[s] = tag | (_KIND_EXACT if exact else 0) | (height << 16) | (np.int64(n) << 32)
    mbest[s] = best
    stats[ST_STORES] += 1


@njit(cache=True, nogil=True)
def memo_store(ctx, k1, k2, tag, val, exact, height, best, n):
    if ctx.params[P_STOP] != 0 or ctx.params[P_LIMIT] < 0:
        # a search cut short: every node fails high from here on, and what the nodes
        # still open would store is not a result; what finished before is kept
        return
    _store(ctx.mk1, ctx.mk2, ctx.mval, ctx.mmeta, ctx.mbest, ctx.stats, ctx.params[P_MEMO_MASK],
           k1, k2, tag, val, exact, height, best, n)


@njit(cache=True, nogil=True)
def _probe(mk1, mk2, mval, mmeta, mbest, mask, limit, k1, k2, b, n):
    """What the memo knows of a set with b guesses left: (value, flags, height,
    best guess); flags has EXACT for a usable exact value, else value is the best
    known lower bound (0 if none), TAINT when it depends on the cap."""
    known = np.int64(0)
    taint = np.int64(0)
    s = _find(mk1, mk2, mmeta, mask, k1, k2, 0, n)
    if s >= 0:
        meta = mmeta[s]
        height = (meta >> 16) & 255
        if meta & _KIND_EXACT and height <= b:
            return mval[s], np.int64(EXACT), height, np.int64(mbest[s])
        known = mval[s]  # uncapped optimum or bound: a lower bound for any b
    s = _find(mk1, mk2, mmeta, mask, k1, k2, b, n)
    if s >= 0:
        meta = mmeta[s]
        if meta & _KIND_EXACT:
            return mval[s], np.int64(EXACT | TAINT), (meta >> 16) & 255, np.int64(mbest[s])
        if mval[s] > known:
            known = mval[s]
            taint = np.int64(TAINT)
    # A value found with more guesses left (b' > b) bounds this one from below: fewer
    # guesses only remove strategies, and infeasible with b' left is infeasible here.
    top = min(b + TAINT_REUSE, limit)
    for t in range(b + 1, top + 1):
        s = _find(mk1, mk2, mmeta, mask, k1, k2, t, n)
        if s >= 0:
            v = mval[s]
            if v >= INF and mmeta[s] & _KIND_EXACT:
                return np.int64(INF), np.int64(EXACT | TAINT), np.int64(0), np.int64(-1)
            if v > known:
                known = v
                taint = np.int64(TAINT)
    return known, taint, np.int64(0), np.int64(-1)


@njit(cache=True, nogil=True)
def memo_probe(ctx, k1, k2, b, n):
    return _probe(ctx.mk1, ctx.mk2, ctx.mval, ctx.mmeta, ctx.mbest, ctx.params[P_MEMO_MASK],
                  ctx.params[P_DEPTH_LIMIT], k1, k2, b, n)
