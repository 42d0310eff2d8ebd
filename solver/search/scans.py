"""The scans of a node's guess pool: the refutation pass (refute_pool), the
search for a guess that separates every member (full_split_guess) and the pass
that keeps the useful guesses with their bounds and writes the node's local
table (scan_prepare).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jitcache import install
from .bounds import _big_classes_extra, class_lb, letter_factors
from .layout import (
    CHUNK,
    HARD,
    INF,
    P_BEAM,
    P_DEDUP,
    P_GREEN,
    P_LAZY_SET,
    SAMPLE_GUESSES,
    ST_DEPTH,
    ST_GEN,
    ST_SCANNED,
    ST_UNREAD,
    STRICT,
)
from .pool import _parent_table, _pool_source
from .rules import hard_high, hard_ok

install()  # numba's cache sees an edit to any kernel source (solver/jitcache.py)


@njit(cache=True, nogil=True)
def refute_pool(ctx, off, n, d, beta, collect):
    """Try to prove, cheaply, that every useful guess of the pool costs >= beta on S
    (the fail-high that ends most scans). A guess costs at least 3n - ins - k (k
    feedback classes, ins = it is a member); after reading i members with c
    collisions (i - classes seen), k <= n - c, so its bound is >= 2n - ins + c and
    the guess is refuted as soon as c >= beta - 2n + ins: its row is not read to
    the end. A guess that makes at most k' classes on the parent's set (kcl, or on
    all the answers at depth 1) makes at most k' on S, and at most the product of
    the colours its letters can get on S (letter_factors); it is refuted without
    reading its row at all when n - k' collisions would do (stats ST_UNREAD).

    collect = 0: returns (least proven bound, 0, -1): >= beta is a fail high, -1 as
    soon as one guess cannot be refuted (the node then scans its pool).
    collect = 1: a lazy scan for a node that will search, instead of scan_prepare:
    every useful guess goes to pools[d] (refuted ones with their bound, >= beta, so
    they stay for the descendants but are no candidates here; the others read in
    full, with their promise), with its most classes on S in kcl[d] (exact if read
    in full), kmax[d] gets the parent's bound, and no local table is written
    (children read the global table). Returns (least bound, guesses kept,
    a guess separating S into singletons or -1)."""
    mode, nsrc, gm, gv, m12, m34, high = _pool_source(ctx.params, ctx.npool, ctx.cgreen,
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
    unread = 0
    kept = 0
    pool = ctx.pools[d]
    lbs = ctx.lbs[d]
    ests = ctx.ests[d]
    lnc = ctx.lnc
    prow = ctx.prow[d]  # (a field read in a loop costs a reference count each time)
    kpar = ctx.kmax[d - 1]
    green = ctx.params[P_GREEN]
    kcl = ctx.kcl[d]
    kup = ctx.kcl[d - 1]
    gclass = ctx.gclass
    gletters = ctx.letters
    length = gletters.shape[1]
    fac = np.ones((length, 26), np.int64)
    if mode != STRICT:  # (strict mode's pool is S itself: no bound read from it)
        letter_factors(ctx.aletters, arena, off, n, fac)
    for j in range(nsrc):
        kub = n
        if mode == STRICT:
            g = agid[arena[off + j]]
        else:
            g = src[j]
            if mode == HARD and not hard_ok(hmask[g, 0], hmask[g, 1], hmask[g, 2],
                                            gm, gv, m12, m34):
                continue
            if high and not hard_high(ctx.letters, g, ctx.cmin, d):
                continue  # a letter required five times or more
            kub = min(n, gclass[g] if d == 1 else kup[j])
        member = 1 if gans[g] >= 0 else 0  # may be in S: its answer would pay 1 less
        need = base + member
        if n - kub < need and mode != STRICT:
            # the colours its letters can get on S bound its classes too
            lk = np.int64(1)
            for q in range(length):
                lk *= fac[q, gletters[g, q]]
            if lk < kub:
                kub = lk
        if n - kub >= need:
            # refuted unread: it makes at most kub classes on S (on the parent's set,
            # or by the colours its letters can get), so at least n - kub collide
            lb = 3 * n - member - kub
            unread += 1
            if lb < least:
                least = lb
            if collect and (kub >= 2 or member):
                pool[kept] = g
                lbs[kept] = lb
                ests[kept] = lb
                kcl[kept] = kub
                kept += 1
            continue
        stamp += 1
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
        ins = np.int64(seen[green] == stamp)
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
                kcl[kept] = min(kub, n - col)  # classes seen, and the unread members
                kept += 1
            continue
        k = i - col
        if k == 1 and ins == 0:
            continue  # splits nothing: never useful
        lb = 3 * n - ins - k
        if lb < beta and not collect:
            ctx.stats[ST_GEN] = stamp
            ctx.stats[ST_DEPTH + 4 * d + 2] += reads
            ctx.stats[ST_UNREAD] += unread
            return np.int64(-1), 0, -1
        if lb < least:
            least = lb
        if collect:
            if k == n:
                ctx.stats[ST_GEN] = stamp
                ctx.stats[ST_DEPTH + 4 * d + 2] += reads
                ctx.stats[ST_UNREAD] += unread
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
            kcl[kept] = k
            kept += 1
    ctx.stats[ST_GEN] = stamp
    ctx.stats[ST_DEPTH + 4 * d + 2] += reads
    ctx.stats[ST_UNREAD] += unread
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
def full_split_guess(ctx, off, n, d):
    """A pool guess whose feedback separates every member of S, or -1 (all a set
    with 2 guesses left can use). A row is read only up to its first collision, and
    not at all when the guess makes fewer than n classes on the parent's set."""
    mode, nsrc, gm, gv, m12, m34, high = _pool_source(ctx.params, ctx.npool, ctx.cgreen,
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
    kup = ctx.kcl[d - 1]
    gclass = ctx.gclass
    found = -1
    for j in range(nsrc):
        if mode == STRICT:
            g = agid[arena[off + j]]
        else:
            g = src[j]
            if (gclass[g] if d == 1 else kup[j]) < n:
                continue  # too few classes on the parent's set to separate S
            if mode == HARD and not hard_ok(hmask[g, 0], hmask[g, 1], hmask[g, 2],
                                            gm, gv, m12, m34):
                continue
            if high and not hard_high(ctx.letters, g, ctx.cmin, d):
                continue  # a letter required five times or more
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
def _coloured_difference(ltab, w, n, letters, g, g0):
    """Hard mode: whether guesses g and g0, which give the node's n members the same
    patterns (ltab[w:w + n]), differ in a letter that some member sees coloured.
    Where they do not, they are the same guess on this set and on every set below
    it: the same classes under the same constraints, and one is legal wherever the
    other is (a new green is a coloured position; a letter needed k times is
    coloured k times in each). Where they do, the constraints after them differ
    (WinsSearch._same, tests/test_wins.py)."""
    length = letters.shape[1]
    diff = 0
    for i in range(length):
        if letters[g, i] != letters[g0, i]:
            diff |= 1 << i
    if diff == 0:
        return False
    for j in range(n):
        q = np.int64(ltab[w + j])
        for i in range(length):
            if (diff >> i) & 1 and q % 3 != 0:
                return True
            q //= 3
    return False


@njit(cache=True, nogil=True)
def scan_prepare(ctx, off, n, d, tfree, beta):
    """One pass over the parent's pool for a node that searches: keep the useful
    guesses (more than one feedback class, or a member) in pools[d], with for each
    its classes on S (kcl[d]), its lower bound (lbs[d]: 3n - k - [g in S], classes
    larger than kmax + 1 valued by class_lb) and its promise (ests[d]); drop
    guesses equivalent on S to an earlier one (easy and hard mode, sets scanned in
    full and depth 1: identical feedback on every member, verified byte by byte, and
    in hard mode the same letters wherever a member sees a colour); and write this
    node's local table (the patterns of its pool guesses on its
    members, row-major at ltab[tfree:]) so that children scan short contiguous
    rows instead of the 30 MB table.

    kmax is this node's most classes of any pool guess; until the pass ends the
    parent's (an upper bound: a subset of its set, a subset of its pool) values
    the big classes, and a short second pass re-values them if it fell.
    Returns (kept, full): full is a guess separating S into singletons (the pass
    stops there; -1 if none)."""
    mode, nsrc, gm, gv, m12, m34, high = _pool_source(ctx.params, ctx.npool, ctx.cgreen,
                                                 ctx.cmin, n, d)
    build = mode != STRICT and tfree + nsrc * n <= ctx.ltab.shape[0]
    # duplicates are dropped wherever a node is scanned in full: below the lazy scan's
    # size (params[P_LAZY_SET], set by mode), and at depth 1, whose few nodes each feed
    # a whole subtree. Hard mode compares the letters a guess shows too
    # (_coloured_difference)
    dedup = (build and ctx.params[P_DEDUP] != 0 and mode != STRICT
             and (n < ctx.params[P_LAZY_SET] or d == 1))
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
    kpar = ctx.kmax[d - 1]
    green = ctx.params[P_GREEN]
    beam = ctx.params[P_BEAM] > 0
    scratch = ctx.prow[d]
    kcl = ctx.kcl[d]
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
            if high and not hard_high(ctx.letters, g, ctx.cmin, d):
                continue  # a letter required five times or more
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
        ins = np.int64(cnt[green] > 0)
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
                    if same and mode == HARD:
                        same = not _coloured_difference(ltab, w, n, ctx.letters, g,
                                                        pool[dgid[s]])
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
        kcl[kept] = k
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
