"""Where a node's guesses come from: the root's undominated guesses (easy mode),
the parent's pool (or, in strict mode, the set's own members), the hard-mode rules
that filter it, the table the scans read it from, and the order in which members
are read (those that collide most first).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jitcache import install
from .layout import (
    CHUNK,
    EASY,
    HARD,
    P_BEAM,
    P_DOMINANCE_SET,
    P_MODE,
    SAMPLE_GUESSES,
    STRICT,
)
from .rules import _rules

install()  # numba's cache sees an edit to any kernel source (solver/jitcache.py)


@njit(cache=True, nogil=True)
def undominated_guesses(letters, distinct, aletters, members, out):
    """Easy mode: the guesses worth keeping for a set S and all its subsets. A letter
    that no member of S contains is grey wherever a guess puts it; for a guess g of
    distinct letters the colour at each other position depends on that letter
    and the answer alone. So another distinct-letter guess g' with the same letters
    at all of g's live positions gives every feedback class of g or a finer one on
    S (and its subsets), which is never worse; g (not a member, as it has a dead
    letter) is dropped when such a g' has more live letters, or as many and a
    smaller id (so every dropped guess leads, step by step, to a kept one).
    Guesses with repeated letters are always kept. Writes the kept ids to `out`
    (ascending) and returns their count."""
    n_g, length = letters.shape
    full = (1 << length) - 1  # every position live
    present = np.zeros(26, np.bool_)
    for a in members:
        for q in range(length):
            present[aletters[a, q]] = True
    live = np.zeros(n_g, np.int64)  # bit q: letter q of the guess occurs in S
    keys = np.zeros(n_g, np.int64)  # live mask | the live letters, 5 bits each above it
    for g in range(n_g):
        lm = 0
        key = 0
        for q in range(length):
            if present[letters[g, q]]:
                lm |= 1 << q
                key |= (np.int64(letters[g, q]) + 1) << (5 * q + length)
        live[g] = lm
        keys[g] = key | lm
    # open-addressing table of the keys of distinct-letter guesses with a dead letter
    size = 1
    while size < 4 * n_g:
        size *= 2
    hkey = np.full(size, -1, np.int64)
    hbest = np.full(size, -1, np.int64)  # best dominator: live count << 32 | (2^31 - id)
    for g in range(n_g):
        if distinct[g] and live[g] != full:
            s = (keys[g] * 0x9E3779B1) & (size - 1)
            while hkey[s] != -1 and hkey[s] != keys[g]:
                s = (s + 1) & (size - 1)
            hkey[s] = keys[g]
    # every distinct-letter guess offers itself for each subset of its live positions
    for g in range(n_g):
        if not distinct[g]:
            continue
        lm = live[g]
        nl = 0
        for q in range(length):
            nl += (lm >> q) & 1
        rank = (nl << 32) | ((1 << 31) - g)
        sm = lm
        while True:
            key = sm
            for q in range(length):
                if (sm >> q) & 1:
                    key |= (np.int64(letters[g, q]) + 1) << (5 * q + length)
            s = (key * 0x9E3779B1) & (size - 1)
            while hkey[s] != -1 and hkey[s] != key:
                s = (s + 1) & (size - 1)
            if hkey[s] == key and rank > hbest[s]:
                hbest[s] = rank
            if sm == 0:
                break
            sm = (sm - 1) & lm
    m = 0
    for g in range(n_g):
        keep = True
        if distinct[g] and live[g] != full:
            s = (keys[g] * 0x9E3779B1) & (size - 1)
            while hkey[s] != keys[g]:
                s = (s + 1) & (size - 1)
            nl = 0
            for q in range(length):
                nl += (live[g] >> q) & 1
            keep = hbest[s] <= ((nl << 32) | ((1 << 31) - g))
        if keep:
            out[m] = g
            m += 1
    return m


@njit(cache=True, nogil=True)
def root_pool(ctx, off, n):
    """The pool a set solved from the root (depth 1) starts from, in pools[0]: its
    undominated guesses (easy mode, no beam, at least params[P_DOMINANCE_SET] answers), else every
    guess. Done here, after the memo probe, so that a set the memo already knows
    costs nothing."""
    n_g = ctx.pools.shape[1]
    if ctx.params[P_MODE] == EASY and ctx.params[P_BEAM] == 0 and n >= ctx.params[P_DOMINANCE_SET]:
        ctx.npool[0] = undominated_guesses(ctx.letters, ctx.distinct, ctx.aletters,
                                           ctx.arena[off : off + n], ctx.pools[0])
    elif ctx.npool[0] != n_g:
        for g in range(n_g):
            ctx.pools[0, g] = g
        ctx.npool[0] = n_g


@njit(cache=True, nogil=True)
def _pool_source(params, npool, cgreen, cmin, n, d):
    """What the scans of depth d draw from (called once per scan, with the context's
    fields: see _key): (mode, how many source guesses: the parent's pool, or in
    strict mode the set's own members, and the hard-mode rules for hard_ok, all zero
    outside hard mode, and whether hard_high must be asked too)."""
    mode = params[P_MODE]
    nsrc = n if mode == STRICT else npool[d - 1]
    gm, gv, m12, m34 = np.int64(0), np.int64(0), np.int64(0), np.int64(0)
    high = False
    if mode == HARD:
        gm, gv, m12, m34, high = _rules(cgreen, cmin, d)
    return mode, nsrc, gm, gv, m12, m34, high


@njit(cache=True, nogil=True)
def _parent_table(ctx, d):
    """Where the scans of depth d (refute_pool, full_split_guess, scan_prepare) read
    the patterns of the parent's pool guesses: the parent's local table (use it,
    its offset and row length) when it has one, else the global answer-major table
    (strict mode always: its pool is the set itself; and below a lazy scan)."""
    use = ctx.params[P_MODE] != STRICT and d >= 2 and ctx.ltoff[d - 1] >= 0
    if use:
        return True, ctx.ltoff[d - 1], ctx.ltn[d - 1]
    return False, np.int64(0), np.int64(0)


@njit(cache=True, nogil=True)
def _collision_order(ctx, off, n, d, nsrc, use_parent, pbase, pstride):
    """The members of the set arena[off:off+n] as indices into the table rows that
    the scans of depth d read (positions in the parent's local table, or answer
    ids), those that collide under most of a sample of the pool first."""
    idx = np.empty(n, np.int64)
    for i in range(n):
        idx[i] = ctx.larena[off + i] if use_parent else ctx.arena[off + i]
    if n <= 2 * CHUNK:
        return idx
    return idx[_collision_rank(ctx, off, n, d, nsrc, use_parent, pbase, pstride, idx)]


@njit(cache=True, nogil=True)
def _collision_rank(ctx, off, n, d, nsrc, use_parent, pbase, pstride, idx):
    """The order of _collision_order as positions in the set (0 to n - 1), from the
    rows that idx indexes (as _collision_order's)."""
    cnt = ctx.cnt[d]
    mode = ctx.params[P_MODE]
    score = np.zeros(n, np.int64)
    row = ctx.prow[d]
    step = max(1, nsrc // SAMPLE_GUESSES)
    for j in range(0, nsrc, step):
        g = ctx.agid[ctx.arena[off + j]] if mode == STRICT else ctx.pools[d - 1, j]
        for i in range(n):
            if use_parent:
                p = ctx.ltab[pbase + j * pstride + idx[i]]
            else:
                p = ctx.tblT[idx[i], g]
            row[i] = p
            cnt[p] += 1
        for i in range(n):
            score[i] += cnt[row[i]]
        for i in range(n):
            cnt[row[i]] = 0
    return np.argsort(-score, kind="mergesort")
