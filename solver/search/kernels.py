"""Numba kernels of the exact search.

A node is a set S of answers (a slice of an int32 arena of answer ids) with b
guesses left. `node` returns the optimal total number of guesses for S
(everyone pays each guess; the answer equal to the guess is then solved) or, when
that is at least the budget `beta`, a proven lower bound >= beta (fail-soft branch
and bound). Values >= INF mean infeasible within the cap.

Each result carries flags: EXACT (the value is the optimum, not just a bound) and
TAINT (the cap was used somewhere in the proof). An untainted exact value is the
uncapped optimum and holds for any b >= the height of its strategy; a tainted one
holds only for the b it was computed with, and as a lower bound for fewer guesses
left (memo_probe reads those of up to TAINT_REUSE more guesses left). Reusing capped
results across depths without this distinction is the classic bug.

With a beam (params[1] > 0) every value is that of the beam-restricted problem (the
beam of a set depends on the set alone, so the memo stays consistent): a value under
the budget is a real strategy's total, but a bound or "infeasible" proves nothing
about the unrestricted problem. The engine labels root results accordingly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import (  # noqa: F401 (re-exported: the kernels' constants)
    CHUNK,
    DEDUP_MAX_SET,
    EASY,
    EXACT,
    GREEN,
    HARD,
    INF,
    N_STATS,
    SAMPLE_GUESSES,
    ST_DEPTH,
    ST_EVICT,
    ST_GEN,
    ST_HITS,
    ST_NODES,
    ST_SCANNED,
    ST_STORES,
    STRICT,
    TAINT,
    TAINT_REUSE,
    Ctx,
    class_lb_py,
    stats_size,
)

# memo meta packing: tag (0 = untainted, else guesses left) | kind | height | size
_KIND_EXACT = 1 << 8


@njit(cache=True, nogil=True)
def hard_rules(ctx, d):
    """The hard-mode constraint at depth d as masks over a guess's row of ctx.hmask
    (see hard_ok): (green mask, green letters, min-count bits of levels 1-2, of
    levels 3-4). A guess obeys it when its row has every required bit."""
    return _rules(ctx.cgreen, ctx.cmin, d)


@njit(cache=True, nogil=True)
def _rules(cgreen, cmin, d):
    gm = np.int64(0)
    gv = np.int64(0)
    for i in range(5):
        v = cgreen[d, i]
        if v != 255:
            gm |= np.int64(31) << (5 * i)
            gv |= np.int64(v) << (5 * i)
    m12 = np.int64(0)
    m34 = np.int64(0)
    for c in range(26):
        v = np.int64(cmin[d, c])
        # never more than 4: five revealed copies of a letter are five greens, the
        # end of the game, so no constraint below a node requires five
        for level in range(1, min(v, 4) + 1):
            if level <= 2:
                m12 |= np.int64(1) << (26 * (level - 1) + c)
            else:
                m34 |= np.int64(1) << (26 * (level - 3) + c)
    return gm, gv, m12, m34


@njit(cache=True, nogil=True)
def hard_ok(letters5, counts12, counts34, gm, gv, m12, m34):
    """Does a guess whose hmask row is (letters5, counts12, counts34) obey the
    rules from hard_rules? Scalars only: an array argument would cost two atomic
    reference counts per call, and this runs once per pool guess per scan (it was
    40 % of hard-mode time as a function of the letter and count arrays)."""
    return (letters5 & gm) == gv and (counts12 & m12) == m12 and (counts34 & m34) == m34


@njit(cache=True, nogil=True)
def hard_child_constraint(ctx, g, p, d):
    """Constraint at depth d+1 after guessing g with pattern p at depth d."""
    _child_rules(ctx.cgreen, ctx.cmin, ctx.letters, g, p, d)


@njit(cache=True, nogil=True)
def _child_rules(cg, cm, letters, g, p, d):
    for i in range(5):
        cg[d + 1, i] = cg[d, i]
    for c in range(26):
        cm[d + 1, c] = cm[d, c]
    q = p
    for i in range(5):
        col = q % 3
        q //= 3
        letter = letters[g, i]
        if col == 2:
            cg[d + 1, i] = letter
        if col != 0:
            # count this letter's revealed copies in g (each position once)
            seen = 0
            q2 = p
            for i2 in range(5):
                if q2 % 3 != 0 and letters[g, i2] == letter:
                    seen += 1
                q2 //= 3
            if seen > cm[d + 1, letter]:
                cm[d + 1, letter] = seen


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
    if hard:
        for i in range(5):
            v = cgreen[d, i]
            j = i * 27 + (26 if v == 255 else v)
            k1 ^= cz1[j]
            k2 ^= cz2[j]
        for c in range(26):
            v = cmin[d, c]
            if v:
                j = 135 + c * 6 + min(v, 5)
                k1 ^= cz1[j]
                k2 ^= cz2[j]
    return k1 | np.uint64(1), k2


@njit(cache=True, nogil=True)
def set_key(ctx, off, n, d):
    return _key(ctx.arena, ctx.z1, ctx.z2, ctx.cgreen, ctx.cmin, ctx.cz1, ctx.cz2,
                ctx.params[0] == HARD, off, n, d)


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
    return _find(ctx.mk1, ctx.mk2, ctx.mmeta, ctx.params[3], k1, k2, tag, n)


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
    _store(ctx.mk1, ctx.mk2, ctx.mval, ctx.mmeta, ctx.mbest, ctx.stats, ctx.params[3],
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
    return _probe(ctx.mk1, ctx.mk2, ctx.mval, ctx.mmeta, ctx.mbest, ctx.params[3],
                  ctx.params[4], k1, k2, b, n)


@njit(cache=True, nogil=True)
def _in_set_full_split(ctx, off, n, d):
    """A member of S whose feedback separates all of S (then 2n-1 is optimal)."""
    return _member_split(ctx.cnt[d], ctx.arena, ctx.agid, ctx.tbl, off, n)


@njit(cache=True, nogil=True)
def _member_split(cnt, arena, agid, tbl, off, n):
    for j in range(n):
        g = agid[arena[off + j]]
        ok = True
        i = 0
        while i < n:
            p = tbl[g, arena[off + i]]
            if cnt[p]:
                ok = False
                break
            cnt[p] = 1
            i += 1
        for t in range(i):
            cnt[tbl[g, arena[off + t]]] = 0
        if ok:
            return g
    return -1


@njit(cache=True, nogil=True)
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


class_lb = njit(cache=True, nogil=True)(class_lb_py)


@njit(cache=True, nogil=True)
def _big_classes_extra(cnt, row, n, k):
    """What class_lb(c, k) adds to 2c-1 summed over the classes of more than k+1
    answers, given the class counts of a row's patterns; clears the counts."""
    extra = np.int64(0)
    for i in range(n):
        p = row[i]
        c = cnt[p]
        if c > k + 1:  # the class's first member (later ones see 0)
            extra += class_lb(c, k) - (2 * c - 1)
        cnt[p] = 0
    return extra


@njit(cache=True, nogil=True)
def undominated_guesses(letters, distinct, aletters, members, out):
    """Easy mode: the guesses worth keeping for a set S and all its subsets. A letter
    that no member of S contains is grey wherever a guess puts it; for a guess g of
    five distinct letters the colour at each other position depends on that letter
    and the answer alone. So another distinct-letter guess g' with the same letters
    at all of g's live positions gives every feedback class of g or a finer one on
    S (and its subsets), which is never worse; g (not a member, as it has a dead
    letter) is dropped when such a g' has more live letters, or as many and a
    smaller id (so every dropped guess leads, step by step, to a kept one).
    Guesses with repeated letters are always kept. Writes the kept ids to `out`
    (ascending) and returns their count."""
    n_g = letters.shape[0]
    present = np.zeros(26, np.bool_)
    for a in members:
        for q in range(5):
            present[aletters[a, q]] = True
    live = np.zeros(n_g, np.int64)  # bit q: letter q of the guess occurs in S
    keys = np.zeros(n_g, np.int64)  # live mask | the live letters, 5 bits each
    for g in range(n_g):
        lm = 0
        key = 0
        for q in range(5):
            if present[letters[g, q]]:
                lm |= 1 << q
                key |= (np.int64(letters[g, q]) + 1) << (5 * q + 5)
        live[g] = lm
        keys[g] = key | lm
    # open-addressing table of the keys of distinct-letter guesses with a dead letter
    size = 1
    while size < 4 * n_g:
        size *= 2
    hkey = np.full(size, -1, np.int64)
    hbest = np.full(size, -1, np.int64)  # best dominator: live count << 32 | (2^31 - id)
    for g in range(n_g):
        if distinct[g] and live[g] != 31:
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
        for q in range(5):
            nl += (lm >> q) & 1
        rank = (nl << 32) | ((1 << 31) - g)
        sm = lm
        while True:
            key = sm
            for q in range(5):
                if (sm >> q) & 1:
                    key |= (np.int64(letters[g, q]) + 1) << (5 * q + 5)
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
        if distinct[g] and live[g] != 31:
            s = (keys[g] * 0x9E3779B1) & (size - 1)
            while hkey[s] != keys[g]:
                s = (s + 1) & (size - 1)
            nl = 0
            for q in range(5):
                nl += (live[g] >> q) & 1
            keep = hbest[s] <= ((nl << 32) | ((1 << 31) - g))
        if keep:
            out[m] = g
            m += 1
    return m


@njit(cache=True, nogil=True)
def root_pool(ctx, off, n):
    """The pool a set solved from the root (depth 1) starts from, in pools[0]: its
    undominated guesses (easy mode, no beam, at least params[7] answers), else every
    guess. Done here, after the memo probe, so that a set the memo already knows
    costs nothing."""
    n_g = ctx.pools.shape[1]
    if ctx.params[0] == EASY and ctx.params[1] == 0 and n >= ctx.params[7]:
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
    outside hard mode)."""
    mode = params[0]
    nsrc = n if mode == STRICT else npool[d - 1]
    gm, gv, m12, m34 = np.int64(0), np.int64(0), np.int64(0), np.int64(0)
    if mode == HARD:
        gm, gv, m12, m34 = _rules(cgreen, cmin, d)
    return mode, nsrc, gm, gv, m12, m34


@njit(cache=True, nogil=True)
def _parent_table(ctx, d):
    """Where the scans of depth d (refute_pool, full_split_guess, scan_prepare) read
    the patterns of the parent's pool guesses: the parent's local table (use it,
    its offset and row length) when it has one, else the global answer-major table
    (strict mode always: its pool is the set itself; and below a lazy scan)."""
    use = ctx.params[0] != STRICT and d >= 2 and ctx.ltoff[d - 1] >= 0
    if use:
        return True, ctx.ltoff[d - 1], ctx.ltn[d - 1]
    return False, np.int64(0), np.int64(0)


@njit(cache=True, nogil=True)
def refute_pool(ctx, off, n, d, beta, collect):
    """Try to prove, cheaply, that every useful guess of the pool costs >= beta on S
    (the fail-high that ends most scans). A guess costs at least 3n - ins - k (k
    feedback classes, ins = it is a member); after reading i members with c
    collisions (i - classes seen), k <= n - c, so its bound is >= 2n - ins + c and
    the guess is refuted as soon as c >= beta - 2n + ins: its row is not read to
    the end.

    collect = 0: returns (least proven bound, 0, -1): >= beta is a fail high, -1 as
    soon as one guess cannot be refuted (the node then scans its pool).
    collect = 1: a lazy scan for a node that will search, instead of scan_prepare:
    every useful guess goes to pools[d] (refuted ones with their bound, >= beta, so
    they stay for the descendants but are no candidates here; the others read in
    full, with their promise), kmax[d] gets the parent's bound, and no local table is
    written (children read the global table). Returns (least bound, guesses kept,
    a guess separating S into singletons or -1)."""
    mode, nsrc, gm, gv, m12, m34 = _pool_source(ctx.params, ctx.npool, ctx.cgreen,
                                                 ctx.cmin, n, d)
    tblT = ctx.tblT
    ltab = ctx.ltab
    arena = ctx.arena
    larena = ctx.larena
    agid = ctx.agid
    src = ctx.pools[d - 1]
    hmask = ctx.hmask
    seen = ctx.seen[d]
    gans = ctx.gans
    cnt = ctx.cnt[d]
    use_parent, pbase, pstride = _parent_table(ctx, d)
    # Read first the members that collide under most guesses (near-identical
    # answers): a sample of the pool ranks each member by the size of its classes.
    idx = np.empty(n, np.int64)
    for i in range(n):
        idx[i] = larena[off + i] if use_parent else arena[off + i]
    if n > 2 * CHUNK:  # (on smaller sets every row is read in one or two blocks)
        score = np.zeros(n, np.int64)
        row = ctx.prow[d]
        step = max(1, nsrc // SAMPLE_GUESSES)
        for j in range(0, nsrc, step):
            g = agid[arena[off + j]] if mode == STRICT else src[j]
            for i in range(n):
                if use_parent:
                    p = ltab[pbase + j * pstride + idx[i]]
                else:
                    p = tblT[idx[i], g]
                row[i] = p
                cnt[p] += 1
            for i in range(n):
                score[i] += cnt[row[i]]
            for i in range(n):
                cnt[row[i]] = 0
        idx = idx[np.argsort(-score, kind="mergesort")]
    base = beta - 2 * n  # collisions that refute a non-member (>= 1 here)
    least = np.int64(INF)
    stamp = ctx.stats[ST_GEN] + 1
    ctx.stats[ST_GEN] = stamp
    reads = 0
    kept = 0
    pool = ctx.pools[d]
    lbs = ctx.lbs[d]
    ests = ctx.ests[d]
    lnc = ctx.lnc
    prow = ctx.prow[d]  # (a field read in a loop costs a reference count each time)
    kpar = ctx.kmax[d - 1] if d >= 1 else np.int64(243)
    for j in range(nsrc):
        if mode == STRICT:
            g = agid[arena[off + j]]
        else:
            g = src[j]
            if mode == HARD and not hard_ok(hmask[g, 0], hmask[g, 1], hmask[g, 2],
                                            gm, gv, m12, m34):
                continue
        stamp += 1
        member = 1 if gans[g] >= 0 else 0  # may be in S: its answer would pay 1 less
        need = base + member
        col = 0
        i = 0
        while i < n:
            # blocks of CHUNK reads without a branch each: collisions are too
            # irregular for the branch predictor
            e = min(i + CHUNK, n)
            if use_parent:
                row = pbase + j * pstride
                for t in range(i, e):
                    p = ltab[row + idx[t]]
                    col += seen[p] == stamp
                    seen[p] = stamp
            else:
                for t in range(i, e):
                    p = tblT[idx[t], g]
                    col += seen[p] == stamp
                    seen[p] = stamp
            i = e
            if col >= need and (not collect or i - col >= 2 or i == n):
                break  # (collecting: go on until the guess is known to be useful)
        ins = np.int64(seen[GREEN] == stamp)
        reads += i
        if col >= need:
            # refuted: classes <= (i - col) seen + (n - i) unread
            lb = 2 * n - member + col
            if lb < least:
                least = lb
            if collect and (i - col >= 2 or ins):
                pool[kept] = g
                lbs[kept] = lb
                ests[kept] = lb
                kept += 1
            continue
        k = i - col
        if k == 1 and ins == 0:
            continue  # splits nothing: never useful
        lb = 3 * n - ins - k
        if lb < beta and not collect:
            ctx.stats[ST_GEN] = stamp
            ctx.stats[ST_DEPTH + 4 * d + 2] += reads
            return np.int64(-1), 0, -1
        if lb < least:
            least = lb
        if collect:
            if k == n:
                ctx.stats[ST_GEN] = stamp
                ctx.stats[ST_DEPTH + 4 * d + 2] += reads
                return least, kept, g
            # class sizes, for the promise and (big sets) class_lb
            for t in range(n):
                p = ltab[pbase + j * pstride + idx[t]] if use_parent else tblT[idx[t], g]
                cnt[p] += 1
                prow[t] = p
            acc = 0.0
            for t in range(n):
                acc += lnc[cnt[prow[t]]]
            lb += _big_classes_extra(cnt, prow, n, kpar)
            pool[kept] = g
            lbs[kept] = lb
            ests[kept] = lb + 0.25 * acc - (0.5 if ins else 0.0)
            kept += 1
    ctx.stats[ST_GEN] = stamp
    ctx.stats[ST_DEPTH + 4 * d + 2] += reads
    if collect:
        # the parent's bound, with which the candidates' big classes were valued
        # above: _quick_pass must value them with the same one, or a total it adds
        # up from exact class values would be off (refuted guesses' classes were
        # not all seen, so this node's own maximum is not known anyway)
        ctx.kmax[d] = kpar
        ctx.ltoff[d] = -1
        ctx.ltn[d] = n
        ctx.npool[d] = kept
    return least, kept, -1


@njit(cache=True, nogil=True)
def guess_classes(tbl, out):
    """out[g]: the feedback classes (green included) guess g makes on the whole
    answer list. No guess makes more on a subset: their maximum bounds kmax
    everywhere, and each bounds its guess on the root's classes (set_bound).
    (Marks without a branch, then a count: about 15 ms for the default table.)"""
    seen = np.zeros(256, np.uint8)
    for g in range(tbl.shape[0]):
        row = tbl[g]
        for a in range(tbl.shape[1]):
            seen[row[a]] = 1
        k = np.int64(0)
        for p in range(256):
            k += seen[p]
            seen[p] = 0
        out[g] = k


@njit(cache=True, nogil=True)
def set_bound(ctx, off, n, d):
    """A lower bound on the optimal total of the set arena[off:off+n] at depth d,
    whatever the guesses left (the cap only removes strategies): the least, over the
    useful guesses of its pool, of n - [g in S] + sum over g's non-green classes of
    class_lb(c, kmax[d - 1]) (one guess looked ahead; every class then needs at least
    2c - 1 more). For the root's classes, where a strong bound on each class before
    any is searched tightens every budget. A guess's row is read only until its
    collisions show it cannot beat the least bound so far (after i members with c
    collisions its bound is at least 2n - [g may be in S] + c), members that collide
    most read first (as in refute_pool)."""
    if n <= 2:
        return np.int64(2 * n - 1)
    root = d == 1  # every guess, most classes on all the answers first (gorder)
    if root and ctx.npool[0] != ctx.pools.shape[1]:
        for g in range(ctx.pools.shape[1]):  # pools[0] may hold another set's pool
            ctx.pools[0, g] = g
        ctx.npool[0] = ctx.pools.shape[1]
    mode, nsrc, gm, gv, m12, m34 = _pool_source(ctx.params, ctx.npool, ctx.cgreen,
                                                 ctx.cmin, n, d)
    gorder = ctx.gorder
    gclass = ctx.gclass
    use_parent, pbase, pstride = _parent_table(ctx, d)
    kpar = ctx.kmax[d - 1]
    cnt = ctx.cnt[d]
    row = ctx.prow[d]
    tblT = ctx.tblT
    ltab = ctx.ltab
    arena = ctx.arena
    agid = ctx.agid
    gans = ctx.gans
    src = ctx.pools[d - 1]
    hmask = ctx.hmask
    idx = _collision_order(ctx, off, n, d, nsrc, use_parent, pbase, pstride)
    best = np.int64(INF)
    for j in range(nsrc):
        if mode == STRICT:
            g = agid[arena[off + j]]
        else:
            g = gorder[j] if root else src[j]
            # a guess makes at most min(n, gclass[g]) classes, so its bound is at
            # least 3n - 1 - that; guesses come in decreasing gclass, so once it
            # cannot beat the least bound so far, no later one can
            if root and 3 * n - 1 - min(n, gclass[g]) >= best:
                break
            if mode == HARD and not hard_ok(hmask[g, 0], hmask[g, 1], hmask[g, 2],
                                            gm, gv, m12, m34):
                continue
        floor = 2 * n - (1 if gans[g] >= 0 else 0)
        col = 0
        i = 0
        while i < n:
            e = min(i + CHUNK, n)
            for t in range(i, e):
                if use_parent:
                    p = ltab[pbase + j * pstride + idx[t]]
                else:
                    p = tblT[idx[t], g]
                row[t] = p
                c = cnt[p]
                col += c > 0
                cnt[p] = c + 1
            i = e
            if floor + col >= best:
                break
        if i < n or floor + col >= best:
            for t in range(i):
                cnt[row[t]] = 0
            continue
        k = n - col
        ins = np.int64(cnt[GREEN] > 0)
        if k == 1 and ins == 0:
            cnt[row[0]] = 0
            continue  # splits nothing: never useful
        lb = 3 * n - ins - k + _big_classes_extra(cnt, row, n, kpar)
        if lb < best:
            best = lb
    return best


@njit(cache=True, nogil=True)
def _collision_order(ctx, off, n, d, nsrc, use_parent, pbase, pstride):
    """The members of the set arena[off:off+n] as indices into the table rows that
    the scans of depth d read (positions in the parent's local table, or answer
    ids), those that collide under most of a sample of the pool first."""
    cnt = ctx.cnt[d]
    idx = np.empty(n, np.int64)
    for i in range(n):
        idx[i] = ctx.larena[off + i] if use_parent else ctx.arena[off + i]
    if n <= 2 * CHUNK:
        return idx
    mode = ctx.params[0]
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
    return idx[np.argsort(-score, kind="mergesort")]


@njit(cache=True, nogil=True)
def class_bound(ctx, off, n, b, d, deep):
    """What can be known cheaply of the set arena[off:off+n] at depth d with b
    guesses left, before searching it: (value, flags, height) as node returns them,
    exact (EXACT) from the memo, a member that separates it (2n - 1) or the trivial
    cases, else a lower bound: the memo's, 2n, class_lb(n, kmax[d - 1]) and, if
    `deep`, set_bound (one guess looked ahead over the whole pool)."""
    if n == 1:
        return np.int64(1), np.int64(EXACT), np.int64(1)
    if b <= 1:
        return np.int64(INF), np.int64(EXACT | TAINT), np.int64(0)
    if n == 2:
        return np.int64(3), np.int64(EXACT), np.int64(2)
    k1, k2 = set_key(ctx, off, n, d)
    val, fl, height, _g = memo_probe(ctx, k1, k2, b, n)
    if fl & EXACT:
        return val, fl, height
    if _in_set_full_split(ctx, off, n, d) >= 0:
        return np.int64(2 * n - 1), np.int64(EXACT), np.int64(2)
    lb = max(val, 2 * n, class_lb(n, ctx.kmax[d - 1]))
    if deep:
        lb = max(lb, set_bound(ctx, off, n, d))
    return lb, fl & TAINT, np.int64(0)


@njit(cache=True, nogil=True)
def full_split_guess(ctx, off, n, d):
    """A pool guess whose feedback separates every member of S, or -1 (all a set
    with 2 guesses left can use). A row is read only up to its first collision."""
    mode, nsrc, gm, gv, m12, m34 = _pool_source(ctx.params, ctx.npool, ctx.cgreen,
                                                 ctx.cmin, n, d)
    use_parent, pbase, pstride = _parent_table(ctx, d)
    seen = ctx.seen[d]
    stamp = ctx.stats[ST_GEN]
    hmask = ctx.hmask
    agid = ctx.agid
    arena = ctx.arena
    larena = ctx.larena
    src = ctx.pools[d - 1]
    ltab = ctx.ltab
    tblT = ctx.tblT
    found = -1
    for j in range(nsrc):
        if mode == STRICT:
            g = agid[arena[off + j]]
        else:
            g = src[j]
            if mode == HARD and not hard_ok(hmask[g, 0], hmask[g, 1], hmask[g, 2],
                                            gm, gv, m12, m34):
                continue
        stamp += 1
        i = 0
        while i < n:
            if use_parent:
                p = ltab[pbase + j * pstride + larena[off + i]]
            else:
                p = tblT[arena[off + i], g]
            if seen[p] == stamp:
                break
            seen[p] = stamp
            i += 1
        if i == n:
            found = g
            break
    ctx.stats[ST_GEN] = stamp
    return found


@njit(cache=True, nogil=True)
def scan_prepare(ctx, off, n, d, tfree, beta):
    """One pass over the parent's pool for a node that searches: keep the useful
    guesses (more than one feedback class, or a member) in pools[d], with for each
    its lower bound (lbs[d]: 3n - k - [g in S], classes larger than kmax + 1 valued
    by class_lb) and its promise (ests[d]); drop guesses equivalent on S to an
    earlier one (easy mode, small
    sets and depth 1: identical feedback on every member, verified byte by byte);
    and write this node's local table (the patterns of its pool guesses on its
    members, row-major at ltab[tfree:]) so that children scan short contiguous
    rows instead of the 30 MB table.

    kmax is this node's most classes of any pool guess; until the pass ends the
    parent's (an upper bound: a subset of its set, a subset of its pool) values
    the big classes, and a short second pass re-values them if it fell.
    Returns (kept, full): full is a guess separating S into singletons (the pass
    stops there; -1 if none)."""
    mode, nsrc, gm, gv, m12, m34 = _pool_source(ctx.params, ctx.npool, ctx.cgreen,
                                                 ctx.cmin, n, d)
    build = mode != STRICT and tfree + nsrc * n <= ctx.ltab.shape[0]
    # duplicates are common on small sets; at depth 1 there are few nodes, each
    # feeding a whole subtree, so removing them pays there too
    dedup = build and ctx.params[2] != 0 and mode == EASY and (n <= DEDUP_MAX_SET or d == 1)
    ltab = ctx.ltab
    tblT = ctx.tblT
    arena = ctx.arena
    larena = ctx.larena
    agid = ctx.agid
    src = ctx.pools[d - 1]
    hmask = ctx.hmask
    pool = ctx.pools[d]
    lbs = ctx.lbs[d]
    ests = ctx.ests[d]
    lnc = ctx.lnc
    rpos = ctx.rpos
    cnt = ctx.cnt[d]
    dkey = ctx.dkey
    dgen = ctx.dgen
    dgid = ctx.dgid
    mask = dkey.shape[0] - 1
    ctx.stats[ST_GEN] += 1
    gen = ctx.stats[ST_GEN]
    use_parent, pbase, pstride = _parent_table(ctx, d)
    kpar = ctx.kmax[d - 1] if d >= 1 else np.int64(243)
    beam = ctx.params[1] > 0
    scratch = ctx.prow[d]
    kmax = 1
    kept = 0
    scanned = 0
    for j in range(nsrc):
        if mode == STRICT:
            g = agid[arena[off + j]]
        else:
            g = src[j]
            if mode == HARD and not hard_ok(hmask[g, 0], hmask[g, 1], hmask[g, 2],
                                            gm, gv, m12, m34):
                continue
        scanned += 1
        w = tfree + kept * n
        row = ltab[w : w + n] if build else scratch
        k = 0
        for i in range(n):
            # the lookup is written out here and in refute_pool (a shared helper
            # doubled the search time, inlined or not)
            if use_parent:
                p = ltab[pbase + j * pstride + larena[off + i]]
            else:
                p = tblT[arena[off + i], g]
            row[i] = p
            c = cnt[p]
            k += c == 0
            cnt[p] = c + 1
        ins = np.int64(cnt[GREEN] > 0)
        if k == 1 and ins == 0:
            cnt[row[0]] = 0
            continue  # splits nothing: never useful
        if k == n:
            for i in range(n):
                cnt[row[i]] = 0
            ctx.stats[ST_SCANNED] += scanned
            ctx.stats[ST_DEPTH + 4 * d + 1] += scanned
            ctx.stats[ST_DEPTH + 4 * d + 2] += scanned * n
            return kept, g
        if k > kmax:
            kmax = k
        # promise = lb + 0.25 * sum over members of ln(class size) - 0.5 [g in S],
        # computed branch-free in member order (see _class_cost_estimate); only
        # candidates (bound under the budget) and beams need it
        lbj = 3 * n - ins - k
        acc = 0.0
        big = n > kpar + 1  # else no class can exceed kmax + 1 (most nodes)
        if big or lbj < beta or beam:
            for i in range(n):
                acc += lnc[cnt[row[i]]]
        h = np.uint64(0)
        if dedup:
            for i in range(n):
                h += np.uint64(row[i] + 1) * rpos[i]
        if big:
            lbj += _big_classes_extra(cnt, row, n, kpar)
        else:
            for i in range(n):
                cnt[row[i]] = 0
        if dedup:
            s = np.int64(h & np.uint64(mask))
            dup = False
            while dgen[s] == gen:
                if dkey[s] == h:
                    o = tfree + dgid[s] * n
                    same = True
                    for i in range(n):
                        if ltab[w + i] != ltab[o + i]:
                            same = False
                            break
                    if same:
                        dup = True
                        break
                s = (s + 1) & mask
            if dup:
                continue
            dgen[s] = gen
            dkey[s] = h
            dgid[s] = kept
        pool[kept] = g
        lbs[kept] = lbj
        ests[kept] = lbj + 0.25 * acc - (0.5 if ins else 0.0)
        kept += 1
    ctx.stats[ST_SCANNED] += scanned
    ctx.stats[ST_DEPTH + 4 * d + 1] += scanned
    ctx.stats[ST_DEPTH + 4 * d + 2] += scanned * n
    # every descendant's pool is a subset of this one and its sets are subsets of S,
    # so no guess below gives more than kmax classes (see class_lb)
    ctx.kmax[d] = kmax
    if kmax < kpar and n > kmax + 1:
        # _quick_pass values classes with this node's kmax: lbs must do the same
        for t in range(kept):
            w = tfree + t * n
            g = pool[t]
            for i in range(n):
                if build:
                    p = ltab[w + i]
                else:
                    p = tblT[arena[off + i], g]
                scratch[i] = p
                cnt[p] += 1
            extra = np.int64(0)
            for i in range(n):
                p = scratch[i]
                c = cnt[p]
                if c > kmax + 1:
                    new = class_lb(c, kmax) - (2 * c - 1)
                    if c > kpar + 1:
                        new -= class_lb(c, kpar) - (2 * c - 1)
                    extra += new
                cnt[p] = 0
            lbs[t] += extra
            ests[t] += extra
    ctx.ltoff[d] = tfree if build else -1
    ctx.ltn[d] = n
    ctx.npool[d] = kept
    return kept, -1


@njit(cache=True, nogil=True)
def partition(ctx, g, off, n, dst, d):
    """Counting-sort S by the feedback of g into arena[dst:dst+n] (and each
    member's position in S into larena); class starts (by pattern) go to
    cstart[d] (cstart[d, p] .. cstart[d, p+1])."""
    cnt = ctx.cnt[d]
    row = ctx.tbl[g]
    arena = ctx.arena
    larena = ctx.larena
    for i in range(n):
        cnt[row[arena[off + i]]] += 1
    cs = ctx.cstart[d]
    acc = 0
    for p in range(243):
        cs[p] = acc
        acc += cnt[p]
        cnt[p] = 0
    cs[243] = acc
    for i in range(n):
        a = arena[off + i]
        p = row[a]
        arena[dst + cs[p] + cnt[p]] = a
        larena[dst + cs[p] + cnt[p]] = i
        cnt[p] += 1
    for p in range(243):
        cnt[p] = 0


@njit(cache=True, nogil=True)
def class_order(ctx, d):
    """Non-green patterns of the last partition at depth d with >= 3 answers,
    largest class first (the biggest are most likely to exceed the budget)."""
    cs = ctx.cstart[d]
    sizes = np.empty(243, np.int64)
    order = np.empty(243, np.int64)
    k = 0
    for p in range(243):
        c = cs[p + 1] - cs[p]
        sizes[p] = c
        if c >= 3 and p != GREEN:
            # stable insertion by size (a few dozen classes: cheaper than a sort of
            # all 243 patterns per guess evaluated)
            t = k
            while t > 0 and sizes[order[t - 1]] < c:
                order[t] = order[t - 1]
                t -= 1
            order[t] = p
            k += 1
    sizes[GREEN] = 0
    return order[:k], sizes


@njit(cache=True, nogil=True)
def _scan_node(ctx, off, n, b, d, k1, k2, tfree, beta):
    """Scan the pool for a node that must search (profile counters included).
    Returns (m, done, value, flags, height, guess): done when the scan settles S
    (a guess separating every member, or nothing useful with b guesses left)."""
    ctx.stats[ST_DEPTH + 4 * d] += 1
    if b == 2:
        full = full_split_guess(ctx, off, n, d)
        m = 0
    else:
        m, full = scan_prepare(ctx, off, n, d, tfree, beta)
    if full >= 0:
        memo_store(ctx, k1, k2, 0, 2 * n, True, 2, full, n)
        return m, True, np.int64(2 * n), np.int64(EXACT), np.int64(2), np.int64(full)
    if b == 2 or m == 0:
        memo_store(ctx, k1, k2, b, INF, True, 0, -1, n)
        return m, True, np.int64(INF), np.int64(EXACT | TAINT), np.int64(0), np.int64(-1)
    return m, False, np.int64(0), np.int64(0), np.int64(0), np.int64(-1)


@njit(cache=True, nogil=True)
def _candidates(ctx, d, m, beta):
    """Pool rows worth evaluating (bound under the budget; the beam's only, if one),
    most promising first, and the least bound among the others (INF if none).
    Only these are sorted: a full sort of thousands of guesses per node dominated."""
    lbs = ctx.lbs[d]
    beam = ctx.params[1]
    fail_lb = np.int64(INF)
    if beam > 0 and m > beam:
        pick = np.argsort(ctx.ests[d, :m])[:beam]  # the beam depends on S alone
        cand = np.empty(beam, np.int64)
        nc = 0
        for j in pick:
            if lbs[j] < beta:
                cand[nc] = j
                nc += 1
            elif lbs[j] < fail_lb:
                fail_lb = lbs[j]
    else:
        cand = np.empty(m, np.int64)
        nc = 0
        for j in range(m):
            if lbs[j] < beta:
                cand[nc] = j
                nc += 1
            elif lbs[j] < fail_lb:
                fail_lb = lbs[j]
    cand = cand[:nc]
    return cand[np.argsort(ctx.ests[d][cand])], fail_lb


@njit(cache=True, nogil=True)
def _quick_pass(ctx, g, classes, sizes, lbg, b, d, free):
    """Cheap facts for every class of guess g (partitioned at arena[free:]) before
    any is searched: qval/qflag[d] per class: exact (memo, or a member that
    separates it: 2c-1) or a bound at least class_lb(size, kmax) (2c, or better
    from the memo). Returns (running bound of g, height so far, taint)."""
    qv = ctx.qval[d]
    qf = ctx.qflag[d]
    kmax = ctx.kmax[d]
    hard = ctx.params[0] == HARD
    arena, z1, z2, cz1, cz2 = ctx.arena, ctx.z1, ctx.z2, ctx.cz1, ctx.cz2
    cgreen, cmin, cstart = ctx.cgreen, ctx.cmin, ctx.cstart[d]
    mk1, mk2, mval, mmeta, mbest = ctx.mk1, ctx.mk2, ctx.mval, ctx.mmeta, ctx.mbest
    mask, limit = ctx.params[3], ctx.params[4]
    letters, agid, tbl, ccnt = ctx.letters, ctx.agid, ctx.tbl, ctx.cnt[d + 1]
    h = np.int64(3 if sizes.max() >= 2 else 2)
    if sizes.max() == 0:
        h = 1
    taint = 0
    hits = 0
    running = lbg  # lbg counts every class at class_lb(size, kmax)
    for p in classes:
        sz = sizes[p]
        off = free + cstart[p]
        if hard:
            _child_rules(cgreen, cmin, letters, g, p, d)
        k1, k2 = _key(arena, z1, z2, cgreen, cmin, cz1, cz2, hard, off, sz, d + 1)
        v, fl, ch, _bg = _probe(mk1, mk2, mval, mmeta, mbest, mask, limit, k1, k2, b - 1, sz)
        if fl & EXACT:
            hits += 1  # (most memo hits happen here, not in node)
        else:
            if _member_split(ccnt, arena, agid, tbl, off, sz) >= 0:
                v, fl, ch = np.int64(2 * sz - 1), np.int64(EXACT), np.int64(2)
            elif v < 2 * sz:
                v, fl = np.int64(2 * sz), np.int64(0)
        clb = class_lb(sz, kmax)
        if v < clb and not fl & EXACT:
            v = clb
        qv[p] = v
        qf[p] = fl
        running += v - clb
        if fl & TAINT:
            taint = TAINT
        if fl & EXACT and ch + 1 > h:
            h = ch + 1
    ctx.stats[ST_HITS] += hits
    return running, h, taint


@njit(cache=True, nogil=True)
def _settle(ctx, k1, k2, b, n, beta, best, best_g, best_h, fail_lb, taint):
    """Store and return a searched node's result: exact if a guess came under the
    budget, else infeasible (no guess had a finite bound) or the least bound."""
    tag = b if taint else 0
    if best < beta:
        memo_store(ctx, k1, k2, tag, best, True, best_h, best_g, n)
        return best, np.int64(EXACT | taint), best_h, best_g
    if fail_lb >= INF:
        memo_store(ctx, k1, k2, b, INF, True, 0, -1, n)
        return np.int64(INF), np.int64(EXACT | TAINT), np.int64(0), np.int64(-1)
    memo_store(ctx, k1, k2, tag, fail_lb, False, 0, -1, n)
    return fail_lb, np.int64(taint), np.int64(0), np.int64(-1)


@njit(cache=True, nogil=True)
def node(ctx, off, n, b, beta, d, free, tfree):
    """Optimal total for the set arena[off:off+n] with b guesses left, or a lower
    bound >= beta. Returns (value, flags, height, best guess)."""
    ctx.stats[ST_NODES] += 1
    if n == 1:
        return np.int64(1), np.int64(EXACT), np.int64(1), np.int64(ctx.agid[ctx.arena[off]])
    if b <= 1:
        return np.int64(INF), np.int64(EXACT | TAINT), np.int64(0), np.int64(-1)
    if n == 2:
        return np.int64(3), np.int64(EXACT), np.int64(2), np.int64(ctx.agid[ctx.arena[off]])

    k1, k2 = set_key(ctx, off, n, d)
    val, fl, height, bg = memo_probe(ctx, k1, k2, b, n)
    if fl & EXACT or val >= beta:
        ctx.stats[ST_HITS] += 1
        return val, fl, height, bg
    g = _in_set_full_split(ctx, off, n, d)
    if g >= 0:
        memo_store(ctx, k1, k2, 0, 2 * n - 1, True, 2, g, n)
        return np.int64(2 * n - 1), np.int64(EXACT), np.int64(2), np.int64(g)
    if 2 * n >= beta:
        # no member separates S, so every guess costs at least 2n: fail high unscanned
        return np.int64(2 * n), np.int64(0), np.int64(0), np.int64(-1)
    if d == 1:
        root_pool(ctx, off, n)
    lazy = False
    if beta < INF and b > 2:  # with 2 left, full_split_guess is as cheap and exact
        # from depth params[6] (2: depth 1's few nodes keep their local tables for
        # their children), on sets of at least params[5] answers (smaller ones are
        # deduplicated by scan_prepare), without a beam (whose choice must not
        # depend on the budget): the refutation pass also collects the pool
        lazy = d >= ctx.params[6] and n >= ctx.params[5] and ctx.params[1] == 0
        lb, m, full = refute_pool(ctx, off, n, d, beta, 1 if lazy else 0)
        if lb >= beta:
            memo_store(ctx, k1, k2, 0, lb, False, 0, -1, n)
            return lb, np.int64(0), np.int64(0), np.int64(-1)
        if lazy:
            ctx.stats[ST_DEPTH + 4 * d] += 1
            if full >= 0:
                memo_store(ctx, k1, k2, 0, 2 * n, True, 2, full, n)
                return np.int64(2 * n), np.int64(EXACT), np.int64(2), np.int64(full)
    if not lazy:
        m, done, val, fl, height, g = _scan_node(ctx, off, n, b, d, k1, k2, tfree, beta)
        if done:
            return val, fl, height, g
    lbs = ctx.lbs[d]
    minlb = lbs[:m].min()
    if minlb >= beta:
        memo_store(ctx, k1, k2, 0, minlb, False, 0, -1, n)
        return minlb, np.int64(0), np.int64(0), np.int64(-1)
    tnext = tfree + m * n if ctx.ltoff[d] >= 0 else tfree
    order, fail_lb = _candidates(ctx, d, m, beta)

    best = np.int64(INF)
    best_g = np.int64(-1)
    best_h = np.int64(0)
    taint = 0
    hard = ctx.params[0] == HARD
    qv = ctx.qval[d]
    qf = ctx.qflag[d]
    for j in order:
        lbg = lbs[j]
        cut = min(best, beta)
        if lbg >= cut:
            fail_lb = min(fail_lb, lbg)
            continue
        g = ctx.pools[d, j]
        ctx.stats[ST_DEPTH + 4 * d + 3] += 1
        partition(ctx, g, off, n, free, d)
        classes, sizes = class_order(ctx, d)
        running, h, t = _quick_pass(ctx, g, classes, sizes, lbg, b, d, free)
        taint |= t
        ok = running < cut
        if ok:
            # search the classes the quick pass left open, largest first (the likeliest
            # to push g over the budget); with no budget yet every class must be solved
            # unless one is infeasible, so then smallest first (they settle fastest).
            # Descendants use the arena above free + n, so g's classes stay intact at
            # arena[free:]
            walk = classes[::-1] if cut >= INF // 2 else classes
            for p in walk:
                if qf[p] & EXACT:
                    continue
                if hard:
                    hard_child_constraint(ctx, g, p, d)
                v, fl, ch, _bg = node(
                    ctx, free + ctx.cstart[d, p], sizes[p], b - 1, cut - (running - qv[p]),
                    d + 1, free + n, tnext,
                )
                taint |= fl & TAINT
                running += v - qv[p]
                if running >= cut:
                    ok = False
                    break
                h = max(h, ch + 1)
        if ok:
            best = running
            best_g = g
            best_h = h
        else:
            fail_lb = min(fail_lb, running)
    return _settle(ctx, k1, k2, b, n, beta, best, best_g, best_h, fail_lb, taint)
