"""Lower bounds and cheap exact values of answer sets: class_lb by size, a member
that separates the set (2n - 1), the most classes of any guess, the one-guess
look-ahead bound (set_bound), a bound from the parts of a set that the memo knows
(subset_bound) and what is known of a set before it is searched (class_bound).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jitcache import install
from .layout import (
    CHUNK,
    DENSE_PATTERNS,
    EXACT,
    HARD,
    INF,
    P_BLOCK_SET,
    P_DEPTH_LIMIT,
    P_GREEN,
    P_MEMO_MASK,
    P_PATTERNS,
    ST_BOUNDS,
    STRICT,
    TAINT,
    class_lb_py,
)
from .memo import _probe, memo_probe, memo_store, set_key
from .pool import _collision_order, _collision_rank, _parent_table, _pool_source
from .rules import hard_high, hard_ok

install()  # numba's cache sees an edit to any kernel source (solver/jitcache.py)


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


class_lb = njit(cache=True, nogil=True)(class_lb_py)


@njit(cache=True, nogil=True)
def letter_factors(aletters, arena, off, n, fac):
    """fac[q, x]: the most feedback colours a guess with letter x at position q can
    get on the set arena[off:off+n] (answers' letters `aletters`): 1 if no member
    has x (grey everywhere) or every member has x there (green), 2 if no member has
    x there (yellow or grey), else 3. A guess then makes at most the product over
    its positions of fac[q, its letter] feedback classes on the set (or any subset),
    whatever its repeated letters: each position's colour is one of those."""
    length = fac.shape[0]
    anyl = np.zeros(26, np.bool_)
    for i in range(n):
        for q in range(length):
            anyl[aletters[arena[off + i], q]] = True
    for q in range(length):
        for x in range(26):
            fac[q, x] = 2 if anyl[x] else 1
        x0 = aletters[arena[off], q]
        fixed = True
        for i in range(n):
            x = aletters[arena[off + i], q]
            fac[q, x] = 3
            if x != x0:
                fixed = False
        if fixed:
            fac[q, x0] = 1


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
def guess_classes(tbl, n_patterns, out):
    """out[g]: the feedback classes (green included) guess g makes on the whole
    answer list. No guess makes more on a subset: their maximum bounds kmax
    everywhere, and each bounds its guess on the root's classes (set_bound).
    (Up to 256 patterns, marks without a branch then a count: about 15 ms for the
    default table; above, a stamp per pattern seen.)"""
    if n_patterns <= DENSE_PATTERNS:
        seen = np.zeros(DENSE_PATTERNS, np.uint8)
        for g in range(tbl.shape[0]):
            row = tbl[g]
            for a in range(tbl.shape[1]):
                seen[row[a]] = 1
            k = np.int64(0)
            for p in range(DENSE_PATTERNS):
                k += seen[p]
                seen[p] = 0
            out[g] = k
        return
    stamp = np.zeros(n_patterns, np.int64)
    for g in range(tbl.shape[0]):
        row = tbl[g]
        k = np.int64(0)
        for a in range(tbl.shape[1]):
            p = row[a]
            if stamp[p] != g + 1:
                stamp[p] = g + 1
                k += 1
        out[g] = k


# set_bound at the root reads these best-splitting guesses (gorder) first
ROOT_FIRST = 256


@njit(cache=True, nogil=True)
def set_bound(ctx, off, n, d, known=0, ceil=INF):
    """A lower bound on the optimal total of the set arena[off:off+n] at depth d,
    whatever the guesses left (the cap only removes strategies): the least, over the
    useful guesses of its pool, of n - [g in S] + sum over g's non-green classes of
    class_lb(c, kmax[d - 1]) (one guess looked ahead; every class then needs at least
    2c - 1 more). For the root's classes, where a strong bound on each class before
    any is searched tightens every budget. A guess's row is read only until its
    collisions show it cannot beat the least bound so far (after i members with c
    collisions its bound is at least 2n - [g may be in S] + c), members that collide
    most read first (as in refute_pool); not at all when the colours its letters
    can get on S, or its classes on the parent's set (on all the answers at the
    root), show that already. Once the
    least bound so far is at most `known` (a bound the caller has already) the rest
    is not read: it returns that least bound, no better than `known`. `ceil`: the
    least bound that would do for the caller (the budget its guess has left for
    this set): the least bound starts there instead of INF, so every guess is
    refuted against it from the first read, and the result is min(ceil, the
    bound), a lower bound all the same. Below the root, a set of more than
    params[P_BLOCK_SET] answers reads its guesses' rows in blocks (_set_bound_blocked,
    the same bound)."""
    if n <= 2:
        return np.int64(2 * n - 1)
    root = d == 1  # every guess, most classes on all the answers first (gorder)
    if root and ctx.npool[0] != ctx.pools.shape[1]:
        for g in range(ctx.pools.shape[1]):  # pools[0] may hold another set's pool
            ctx.pools[0, g] = g
        ctx.npool[0] = ctx.pools.shape[1]
    mode, nsrc, gm, gv, m12, m34, high = _pool_source(ctx.params, ctx.npool, ctx.cgreen,
                                                 ctx.cmin, n, d)
    if (not root and mode != STRICT and ctx.params[P_PATTERNS] <= DENSE_PATTERNS
            and n > ctx.params[P_BLOCK_SET]):
        return _set_bound_blocked(ctx, off, n, d, known, ceil, mode, nsrc, gm, gv, m12,
                                  m34, high)
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
    kup = ctx.kcl[d - 1]  # (below the root) the most classes of src[j] on the parent's set
    hmask = ctx.hmask
    idx = _collision_order(ctx, off, n, d, nsrc, use_parent, pbase, pstride)
    green = ctx.params[P_GREEN]
    gletters = ctx.letters
    length = gletters.shape[1]
    fac = np.ones((length, 26), np.int64)
    if mode != STRICT:
        letter_factors(ctx.aletters, arena, off, n, fac)
    best = np.int64(ceil)
    # At the root: first the ROOT_FIRST guesses that make the most classes on all
    # the answers (gorder), for a tight least bound soon, then every guess in id
    # order, so that guesses next to each other read the same cache lines of the
    # answer-major table (in gorder's order each read missed the cache).
    head = min(nsrc, ROOT_FIRST) if root and mode != STRICT else 0
    for j in range(nsrc + head):
        if mode == STRICT:
            g = agid[arena[off + j]]
        else:
            g = (gorder[j] if j < head else j - head) if root else src[j]
            # a guess makes at most min(n, gclass[g]) classes, so its bound is at
            # least 3n - 1 - that
            if root and 3 * n - 1 - min(n, gclass[g]) >= best:
                continue
            if mode == HARD and not hard_ok(hmask[g, 0], hmask[g, 1], hmask[g, 2],
                                            gm, gv, m12, m34):
                continue
            if high and not hard_high(ctx.letters, g, ctx.cmin, d):
                continue  # a letter required five times or more
        floor = 2 * n - (1 if gans[g] >= 0 else 0)
        if mode != STRICT:
            # the colours its letters can get on S bound its classes (letter_factors):
            # at least n - that many members collide, so skip it unread when that
            # cannot beat the least bound so far
            lk = np.int64(1)
            for q in range(length):
                lk *= fac[q, gletters[g, q]]
            # and so do its classes on the parent's set, of which S is a part (as in
            # refute_pool; kcl[d - 1] comes with pools[d - 1])
            if not root and kup[j] < lk:
                lk = kup[j]
            if floor + n - lk >= best:
                continue
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
        ins = np.int64(cnt[green] > 0)
        if k == 1 and ins == 0:
            cnt[row[0]] = 0
            continue  # splits nothing: never useful
        lb = 3 * n - ins - k + _big_classes_extra(cnt, row, n, kpar)
        if lb < best:
            best = lb
            if best <= known:
                break
    return best


# guesses whose rows set_bound reads side by side, member by member (below the root)
BOUND_BLOCK = 128
SEEN_WORDS = DENSE_PATTERNS // 64  # a guess's patterns seen, as bits


@njit(cache=True, nogil=True)
def _set_bound_blocked(ctx, off, n, d, known, ceil, mode, nsrc, gm, gv, m12, m34, high):
    """set_bound below the root, with the same result: the rows of up to BOUND_BLOCK
    pool guesses at a time are read member by member from the answer-major table,
    where one member's patterns under guesses of nearby ids share a few cache lines;
    read guess by guess, each member was a cache miss of its own in a big parent's
    table (hyphy's look-ahead: 6.5 ns a pattern). Each member is read under every
    guess of the block in turn, so that consecutive reads mark different guesses'
    bits: read guess by guess, each mark waited on the last write to the same four
    words (easy hyphy 34 -> 24 s). A guess leaves its block once its collisions
    refute it, as the row-by-row read stops; the survivors' rows are read again for
    their class sizes. (Up to DENSE_PATTERNS patterns: 256 bits a guess mark the
    patterns seen.)"""
    kpar = ctx.kmax[d - 1]
    cnt = ctx.cnt[d]
    row = ctx.prow[d]
    tblT = ctx.tblT
    arena = ctx.arena
    gans = ctx.gans
    src = ctx.pools[d - 1]
    kup = ctx.kcl[d - 1]
    hmask = ctx.hmask
    # the members' answer ids, most colliding first (set_bound's order, ranked on
    # the parent's local table where there is one: its rows are short and whole)
    use_parent, pbase, pstride = _parent_table(ctx, d)
    idx = np.empty(n, np.int64)
    for i in range(n):
        idx[i] = ctx.larena[off + i] if use_parent else arena[off + i]
    perm = _collision_rank(ctx, off, n, d, nsrc, use_parent, pbase, pstride, idx)
    ids = np.empty(n, np.int64)
    for t in range(n):
        ids[t] = arena[off + perm[t]]
    green = ctx.params[P_GREEN]
    gletters = ctx.letters
    length = gletters.shape[1]
    fac = np.ones((length, 26), np.int64)
    letter_factors(ctx.aletters, arena, off, n, fac)
    best = np.int64(ceil)
    # Each pool guess's bound before any read, in a pass of its own with no branch
    # per guess: floor + n - the most classes it can make (the colours its letters
    # can get on S, its classes on the parent's set); those under the ceiling stay
    # (ok, in pool order). Five letters are spelt out: the loop over the positions
    # made each guess's product wait on the last. Interleaved with the reads (a
    # branch a guess, which goes either way) this took about a quarter of the
    # function's samples (perf annotate); easy openers 0.92x (BENCHMARKS.md).
    ok = np.empty(nsrc, np.int32)
    okb = np.empty(nsrc, np.int32)
    nok = 0
    last = length - 1  # (shorter words never read the rows past their length)
    f0, f1, f2 = fac[0], fac[min(1, last)], fac[min(2, last)]
    f3, f4 = fac[min(3, last)], fac[min(4, last)]
    for j in range(nsrc):
        g = src[j]
        if length == 5:
            lk = ((f0[gletters[g, 0]] * f1[gletters[g, 1]])
                  * (f2[gletters[g, 2]] * f3[gletters[g, 3]]) * f4[gletters[g, 4]])
        else:
            lk = np.int64(1)
            for q in range(length):
                lk *= fac[q, gletters[g, q]]
        bnd = 3 * n - (1 if gans[g] >= 0 else 0) - min(lk, np.int64(kup[j]))
        ok[nok] = g
        okb[nok] = bnd
        nok += bnd < best
    bg = np.empty(BOUND_BLOCK, np.int64)
    bfloor = np.empty(BOUND_BLOCK, np.int64)
    bcol = np.empty(BOUND_BLOCK, np.int64)
    bits = np.empty((BOUND_BLOCK, SEEN_WORDS), np.uint64)
    nb = 0
    j = 0
    while j < nok or nb > 0:
        if j < nok:
            g = np.int64(ok[j])
            bnd = okb[j]
            j += 1
            if bnd >= best:  # (best falls as guesses are read in full)
                continue
            if mode == HARD and not hard_ok(hmask[g, 0], hmask[g, 1], hmask[g, 2],
                                            gm, gv, m12, m34):
                continue
            if high and not hard_high(ctx.letters, g, ctx.cmin, d):
                continue
            floor = 2 * n - (1 if gans[g] >= 0 else 0)
            bg[nb] = g
            bfloor[nb] = floor
            nb += 1
            if nb < BOUND_BLOCK and j < nok:
                continue
        # read the block's rows member by member, each member under every guess
        # still in the block; those stay at the front of the block's arrays (a
        # refuted guess is overwritten by the next survivor)
        for b in range(nb):
            bcol[b] = 0
            for w in range(SEEN_WORDS):
                bits[b, w] = 0
        na = nb
        i = 0
        while i < n and na > 0:
            e = min(i + CHUNK, n)
            for t in range(i, e):
                arow = tblT[ids[t]]
                for b in range(na):
                    p = np.int64(arow[bg[b]])
                    w = p >> 6
                    bit = np.uint64(1) << np.uint64(p & 63)
                    m = bits[b, w]
                    bcol[b] += (m & bit) != 0
                    bits[b, w] = m | bit
            q2 = 0
            for b in range(na):
                if bfloor[b] + bcol[b] < best:
                    if q2 != b:
                        bg[q2] = bg[b]
                        bfloor[q2] = bfloor[b]
                        bcol[q2] = bcol[b]
                        for w in range(SEEN_WORDS):
                            bits[q2, w] = bits[b, w]
                    q2 += 1
            i = e
            na = q2
        for b in range(na):  # read in full and not refuted: its bound
            g = bg[b]
            k = n - bcol[b]
            ins = np.int64((bits[b, green >> 6] >> np.uint64(green & 63)) & np.uint64(1))
            if k == 1 and ins == 0:
                continue  # splits nothing: never useful
            for t in range(n):
                p = tblT[ids[t], g]
                row[t] = p
                cnt[p] += 1
            lb = 3 * n - ins - k + _big_classes_extra(cnt, row, n, kpar)
            if lb < best:
                best = lb
                if best <= known:
                    return best
        nb = 0
    return best


@njit(cache=True, nogil=True)
def class_bound(ctx, off, n, b, d, deep):
    """What can be known cheaply of the set arena[off:off+n] at depth d with b
    guesses left, before searching it: (value, flags, height) as node returns them,
    exact (EXACT) from the memo, a member that separates it (2n - 1) or the trivial
    cases, else a lower bound: the memo's, 2n, class_lb(n, kmax[d - 1]) and, if
    `deep`, set_bound (one guess looked ahead over the whole pool), which then goes
    into the memo."""
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
        sb = set_bound(ctx, off, n, d)
        if sb > lb:
            lb = sb
            # a bound whatever the guesses left (tag 0): another opener with this
            # class (anagrams share their all-grey class) reads it from the memo
            ctx.stats[ST_BOUNDS] += 1
            memo_store(ctx, k1, k2, 0, sb, False, 0, -1, n)
    return lb, fl & TAINT, np.int64(0)



@njit(cache=True, nogil=True)
def subset_bound(ctx, off, n, b, k1, k2, kpar):
    """A lower bound on the set X = arena[off:off+n] with b guesses left (memo key
    k1, k2), read from the memo without reading any guess's row: for each letter x,
    the members of X without x form a part Y, and

        opt(X) >= opt(Y) + opt(X \\ Y) >= bound(Y) + class_lb(|X \\ Y|, kpar).

    Why (superadditivity): play an optimal strategy for X on the answers of Y alone
    (the same guess after the same feedbacks). Each answer of Y is found after as
    many guesses as before, within the same cap, so opt(Y) is at most the share of
    Y's answers in opt(X); the same holds for X \\ Y, and the shares add up to
    opt(X). Hence the bound, and: Y infeasible with b left makes X infeasible. It
    is what the memo holds for Y, so it carries Y's cap: an untainted bound of Y
    (a bound on its uncapped optimum) gives an untainted one for X, a capped one
    (TAINT) one for b guesses left only, exactly the memo's rules. Hard mode: the
    restricted strategy plays the same guess after the same history, so it is
    still legal; X and Y share the history's constraint, which is in both keys
    (k1, k2 carry X's; Y's key is X's with the members of X \\ Y taken out). Not
    in strict mode, where a guess must be a possible answer: X's strategy may guess
    a member of X \\ Y, which Y's may not (the caller does not ask there), nor
    under a beam, whose values are of a problem restricted set by set. kpar: the
    most classes of a guess on any subset of X's parent (kmax, as class_lb takes).

    Where it finds Y: the all-grey class of a guess whose live letters are X's
    guess's and one more (a guess with a repeated or dead letter after one with
    five live ones: its grey class is the other's and the members with that letter),
    or any other set the memo holds, such as a bound this function stored. Returns
    (bound, flags): EXACT | TAINT when a part is infeasible, TAINT when the bound
    holds only for b guesses left, else 0."""
    arena = ctx.arena
    al = ctx.aletters
    z1 = ctx.z1
    z2 = ctx.z2
    length = al.shape[1]
    acc1 = np.zeros(26, np.uint64)  # the keys' share of the members with letter x
    acc2 = np.zeros(26, np.uint64)
    cx = np.zeros(26, np.int64)  # and their count
    for i in range(n):
        a = arena[off + i]
        za = z1[a]
        zb = z2[a]
        seen = 0
        for q in range(length):
            x = al[a, q]
            if not (seen >> x) & 1:  # each letter of a member once
                seen |= 1 << x
                acc1[x] ^= za
                acc2[x] ^= zb
                cx[x] += 1
    mk1, mk2, mval, mmeta, mbest = ctx.mk1, ctx.mk2, ctx.mval, ctx.mmeta, ctx.mbest
    mask, limit = ctx.params[P_MEMO_MASK], ctx.params[P_DEPTH_LIMIT]
    best = np.int64(0)
    bfl = np.int64(0)
    for x in range(26):
        c = cx[x]
        if c == 0 or n - c < 3:
            continue  # no part, or one the memo does not hold (1-2 answers)
        # a key is the XOR of its members' (and the constraint's) keys, bit 0 set
        v, fl, _h, _g = _probe(mk1, mk2, mval, mmeta, mbest, mask, limit,
                               (k1 ^ acc1[x]) | np.uint64(1), k2 ^ acc2[x], b, n - c)
        if fl & EXACT and v >= INF:
            return np.int64(INF), np.int64(EXACT | TAINT)
        if v == 0:
            continue  # nothing known
        v += class_lb(c, kpar)
        fl &= TAINT
        if v > best or (v == best and fl == 0):
            best = v
            bfl = fl
    return best, bfl
