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

With a beam (params[P_BEAM] > 0) every value is that of the beam-restricted problem (the
beam of a set depends on the set alone, so the memo stays consistent): a value under
the budget is a real strategy's total, but a bound or "infeasible" proves nothing
about the unrestricted problem. The engine labels root results accordingly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jitcache import install
from .bounds import (  # noqa: F401 (re-exported)
    _big_classes_extra,
    _in_set_full_split,
    _member_split,
    class_bound,
    class_lb,
    guess_classes,
    letter_factors,
    set_bound,
    subset_bound,
)
from .ctxref import as_struct
from .layout import (  # noqa: F401 (re-exported: the kernels' constants)
    CAND_BLOCK,
    CHUNK,
    DENSE_PATTERNS,
    EASY,
    EXACT,
    HARD,
    INF,
    N_STATS,
    P_BEAM,
    P_DEPTH_LIMIT,
    P_GREEN,
    P_LAZY_DEPTH,
    P_LAZY_SET,
    P_LIMIT,
    P_MEMO_MASK,
    P_MODE,
    P_PART,
    P_PARTS,
    P_PATTERNS,
    P_PRE_CLASS,
    P_PRE_SET,
    P_SMALL_FIRST,
    P_STOP,
    P_SUBSET,
    SAMPLE_GUESSES,
    ST_BOUNDS,
    ST_DEPTH,
    ST_EVICT,
    ST_GEN,
    ST_HITS,
    ST_LAZY,
    ST_NODES,
    ST_PART_INF,
    ST_SCANNED,
    ST_STORES,
    ST_SUBSET,
    ST_SUBSET_CUT,
    STRICT,
    TAINT,
    TAINT_REUSE,
    Ctx,
    stats_size,
)
from .memo import (  # noqa: F401 (re-exported)
    _find,
    _key,
    _probe,
    _store,
    memo_find,
    memo_probe,
    memo_store,
    set_key,
)
from .pool import root_pool, undominated_guesses  # noqa: F401 (re-exported)
from .rules import (  # noqa: F401 (re-exported)
    _child_rules,
    _rules,
    hard_child_constraint,
    hard_ok,
    hard_rules,
)
from .scans import full_split_guess, refute_pool, scan_prepare  # noqa: F401 (re-exported)

install()  # numba's cache sees an edit to any kernel source (solver/jitcache.py)


@njit(cache=True, nogil=True)
def partition(ctx, g, off, n, dst, d):
    """Counting-sort S by the feedback of g into arena[dst:dst+n] (and each
    member's position in S into larena): the class of pattern p starts at
    arena[dst + cstart[d, p]] and has csize[d, p] members. Returns how many
    patterns occur, listed in touched[d], or -1 when every code was scanned (up to
    DENSE_PATTERNS patterns: a loop over 243 codes beats keeping a list)."""
    cnt = ctx.cnt[d]
    row = ctx.tbl[g]
    arena = ctx.arena
    larena = ctx.larena
    cs = ctx.cstart[d]
    sz = ctx.csize[d]
    n_pat = ctx.params[P_PATTERNS]
    acc = 0
    if n_pat <= DENSE_PATTERNS:
        for i in range(n):
            cnt[row[arena[off + i]]] += 1
        for p in range(n_pat):
            c = cnt[p]
            cs[p] = acc
            sz[p] = c
            acc += c
            cnt[p] = 0
        k = -1
    else:
        touched = ctx.touched[d]
        k = 0
        for i in range(n):
            p = row[arena[off + i]]
            if cnt[p] == 0:
                touched[k] = p
                k += 1
            cnt[p] += 1
        for t in range(k):
            p = touched[t]
            c = cnt[p]
            cs[p] = acc
            sz[p] = c
            acc += c
            cnt[p] = 0
    for i in range(n):
        a = arena[off + i]
        p = row[a]
        arena[dst + cs[p] + cnt[p]] = a
        larena[dst + cs[p] + cnt[p]] = i
        cnt[p] += 1
    if k < 0:
        for p in range(n_pat):
            cnt[p] = 0
    else:
        for t in range(k):
            cnt[ctx.touched[d, t]] = 0
    return k


@njit(cache=True, nogil=True)
def class_order(ctx, d, k):
    """The last partition at depth d (`k` as partition returned it): its non-green
    classes of >= 3 answers, largest first (the biggest are most likely to exceed
    the budget), their sizes by pattern, and the largest non-green class."""
    sz = ctx.csize[d]
    order = ctx.corder[d]
    green = ctx.params[P_GREEN]
    n = ctx.params[P_PATTERNS] if k < 0 else k
    m = 0
    biggest = np.int64(0)
    for t in range(n):
        p = t if k < 0 else ctx.touched[d, t]
        c = sz[p]
        if p == green:
            continue
        if c > biggest:
            biggest = c
        if c >= 3:
            # stable insertion by size (a few dozen classes: cheaper than a sort of
            # every pattern per guess evaluated)
            i = m
            while i > 0 and sz[order[i - 1]] < c:
                order[i] = order[i - 1]
                i -= 1
            order[i] = p
            m += 1
    return order[:m], sz, biggest


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
def _under(lbs, rows, cut, fail_lb):
    """The pool rows of `rows` whose bound is under the budget `cut`, in their order,
    and fail_lb lowered to the least bound of the others."""
    keep = np.empty(len(rows), np.int64)
    nk = 0
    for j in rows:
        if lbs[j] < cut:
            keep[nk] = j
            nk += 1
        elif lbs[j] < fail_lb:
            fail_lb = lbs[j]
    return keep[:nk], fail_lb


@njit(cache=True, nogil=True)
def _candidates(ctx, d, m, beta):
    """Pool rows worth evaluating (bound under the budget; the beam's only, if one),
    in pool order, and the least bound among the others (INF if none). node takes
    them most promising first, a block at a time (_next_block)."""
    beam = ctx.params[P_BEAM]
    if beam > 0 and m > beam:
        rows = np.argsort(ctx.ests[d, :m])[:beam]  # the beam depends on S alone
    else:
        rows = np.arange(m)
    return _under(ctx.lbs[d], rows, beta, np.int64(INF))


@njit(cache=True, nogil=True)
def _next_block(lbs, ests, rest, cut, fail_lb, size):
    """The next candidates to evaluate: of `rest`, those still under the budget `cut`,
    and of them the `size` most promising (with their ties) sorted by promise,
    stably; the others come back as the new rest. Blocks in turn give the order of
    one stable sort of every candidate by promise, less those the budget has ruled
    out by then, which the loop would skip anyway (their bounds go into fail_lb),
    whatever the sizes. A node often needs only its first few candidates: sorting
    thousands per node took a tenth of the search. The caller doubles `size` from
    block to block, so a node that needs thousands selects among the rest a few
    times, not once per 16 (a seventh of the CPU of akoja's big class on today's
    lists). Returns (block, rest, fail_lb)."""
    keep, fail_lb = _under(lbs, rest, cut, fail_lb)
    if len(keep) <= 2 * size:
        return keep[np.argsort(ests[keep], kind="mergesort")], keep[:0], fail_lb
    vals = ests[keep]
    t = np.partition(vals.copy(), size - 1)[size - 1]
    first = keep[vals <= t]
    return first[np.argsort(ests[first], kind="mergesort")], keep[vals > t], fail_lb


@njit(cache=True, nogil=True)
def _quick_pass(ctx, g, classes, sizes, biggest, lbg, b, d, free, cut):
    """Cheap facts for every class of guess g (partitioned at arena[free:]) before
    any is searched: qval/qflag[d] per class: exact (memo, or a member that
    separates it: 2c-1) or a bound at least class_lb(size, kmax) (2c, or better
    from the memo). Returns (running bound of g, height so far, taint). Once the
    running bound reaches `cut`, g is refuted and the classes left are not read:
    their qval/qflag are stale, which the callers never read of a refuted guess,
    and taint covers the bounds used (in hard mode on today's lists the probes,
    keys and member checks of those classes were a tenth of the CPU)."""
    qv = ctx.qval[d]
    qf = ctx.qflag[d]
    kmax = ctx.kmax[d]
    hard = ctx.params[P_MODE] == HARD
    arena, z1, z2, cz1, cz2 = ctx.arena, ctx.z1, ctx.z2, ctx.cz1, ctx.cz2
    cgreen, cmin, cstart = ctx.cgreen, ctx.cmin, ctx.cstart[d]
    mk1, mk2, mval, mmeta, mbest = ctx.mk1, ctx.mk2, ctx.mval, ctx.mmeta, ctx.mbest
    mask, limit = ctx.params[P_MEMO_MASK], ctx.params[P_DEPTH_LIMIT]
    letters, agid, tbl, ccnt = ctx.letters, ctx.agid, ctx.tbl, ctx.cnt[d + 1]
    h = np.int64(3 if biggest >= 2 else 2)
    if biggest == 0:
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
        if running >= cut:
            break
    ctx.stats[ST_HITS] += hits
    return running, h, taint


@njit(cache=True, nogil=True)
def _parts_bound(ctx, g, p, sz, b, d, free, hard):
    """subset_bound of g's class p (sz answers at arena[free + cstart[d, p]:]), with
    b - 1 guesses left and its constraint after g in hard mode: (bound, flags, memo
    key) for _part_infeasible and _pre_bound."""
    if hard:
        hard_child_constraint(ctx, g, p, d)
    off = free + ctx.cstart[d, p]
    k1, k2 = set_key(ctx, off, sz, d + 1)
    sb, fl = subset_bound(ctx, off, sz, b - 1, k1, k2, ctx.kmax[d])
    return sb, fl, k1, k2


@njit(cache=True, nogil=True)
def _part_infeasible(ctx, g, classes, sizes, b, d, free, hard):
    """Whether a class of g (partitioned at arena[free:]), with b - 1 guesses left,
    has a part that the memo knows no strategy solves within them (subset_bound):
    then neither the class nor g has a strategy, and the class goes into the memo as
    infeasible. A strategy for a set plays, on any part of it, a strategy for that
    part within the same cap, legal in hard mode too (the same guesses after the same
    feedback), so an infeasible part makes its whole set infeasible.

    For a node with no budget yet (every candidate so far infeasible): it refutes g
    with no class searched, where the search would value g's smaller classes exactly
    first. An infeasibility proof visits many sets that differ by a few members, so
    the memo holds their parts: hard algae:YBBBY on today's lists, 819 205 -> 128 332
    nodes (BENCHMARKS, issue 52)."""
    qf = ctx.qflag[d]
    for p in classes:  # largest first
        sz = sizes[p]
        if sz < 4:
            break  # (a part of 3 or more and the rest)
        if qf[p] & EXACT:
            continue
        sb, _fl, k1, k2 = _parts_bound(ctx, g, p, sz, b, d, free, hard)
        if sb >= INF:
            ctx.stats[ST_PART_INF] += 1
            memo_store(ctx, k1, k2, b - 1, INF, True, 0, -1, sz)
            return True
    return False


@njit(cache=True, nogil=True)
def _pre_bound(ctx, g, classes, sizes, running, cut, b, d, free, hard):
    """The one-guess look-ahead bound (set_bound) for g's open classes of at least
    P_PRE_CLASS answers, largest first, raising qval[d] and the running bound, until
    g is refuted, each against what would refute g (set_bound's `ceil`). First
    (P_SUBSET) the same classes get what the memo knows of their parts
    (subset_bound), which reads no row: a guess that these refute never reads a
    third guess's row. Returns (running, still under cut, taint: TAINT when a bound
    used depends on the cap)."""
    qv = ctx.qval[d]
    qf = ctx.qflag[d]
    least = ctx.params[P_PRE_CLASS]
    taint = np.int64(0)
    if ctx.params[P_SUBSET]:
        for p in classes:
            sz = sizes[p]
            if sz < least:
                break  # classes come largest first
            if qf[p] & EXACT:
                continue
            sb, fl, k1, k2 = _parts_bound(ctx, g, p, sz, b, d, free, hard)
            if sb > qv[p]:
                ctx.stats[ST_SUBSET] += 1
                running += sb - qv[p]
                qv[p] = sb
                qf[p] |= fl
                taint |= fl & TAINT
                if not fl & EXACT:  # (an infeasible part ends g below)
                    ctx.stats[ST_BOUNDS] += 1
                    memo_store(ctx, k1, k2, b - 1 if fl else 0, sb, False, 0, -1, sz)
                if running >= cut:
                    ctx.stats[ST_SUBSET_CUT] += 1
                    return running, False, taint
    for p in classes:
        sz = sizes[p]
        if sz < least:
            break  # classes come largest first
        if qf[p] & EXACT:
            continue
        if hard:
            hard_child_constraint(ctx, g, p, d)
        off = free + ctx.cstart[d, p]
        # whether the bound reaches what refutes g is all that matters here: set_bound
        # refutes the third guesses against that from its first read (a bound that
        # reaches it comes back as it, and goes into the memo as such)
        sb = set_bound(ctx, off, sz, d + 1, qv[p], cut - (running - qv[p]))
        if sb > qv[p]:
            running += sb - qv[p]
            qv[p] = sb
            k1, k2 = set_key(ctx, off, sz, d + 1)
            ctx.stats[ST_BOUNDS] += 1
            memo_store(ctx, k1, k2, 0, sb, False, 0, -1, sz)
            if running >= cut:
                return running, False, taint
    return running, True, taint


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
def _node(ctx, off, n, b, beta, d, free, tfree):
    """Optimal total for the set arena[off:off+n] with b guesses left, or a lower
    bound >= beta. Returns (value, flags, height, best guess).

    d == 0 is not a node but the ranking of a position's guesses (Solver.rank_values;
    here because numba cannot call this recursive function from another one that
    its cache compiled apart): the exact totals of the guesses rank[0, off:free], in
    this order, on the set arena[0:n] with b >= 3 guesses left, wherever they can be
    among the beta smallest, evaluated as a node evaluates its guesses (quick pass,
    look-ahead bounds, classes searched under the budget) with the budget the
    beta-th smallest total found so far plus one (ties are valued too), those
    totals kept sorted in rank[4, :beta] from call to call (INF where none yet).
    rank[1]: an admissible bound per guess (at or over the budget: not searched);
    out: rank[2] the total, or a lower bound >= the budget of its turn, and rank[3]
    EXACT or 0. The caller sets depth 1 as node's scan would: the pool that the
    children draw from (pools, npool, kcl, kmax at 1; no local table) and, in hard
    mode, the set's constraint (cgreen, cmin at 1); tfree is 0. Returns zeros."""
    ctx.stats[ST_NODES] += 1
    limit = ctx.params[P_LIMIT]
    if limit > 0 and ctx.stats[ST_NODES] > limit:
        ctx.params[P_LIMIT] = limit = -1
    if ctx.params[P_STOP] != 0 or limit < 0:
        # asked to stop, or past the node limit: fail high at once, up the whole
        # stack (the result is not one; memo_store stores nothing from here on)
        return np.int64(max(beta, 2 * n)), np.int64(0), np.int64(0), np.int64(-1)
    if n == 1:
        return np.int64(1), np.int64(EXACT), np.int64(1), np.int64(ctx.agid[ctx.arena[off]])
    if b <= 1:
        return np.int64(INF), np.int64(EXACT | TAINT), np.int64(0), np.int64(-1)
    if n == 2:
        return np.int64(3), np.int64(EXACT), np.int64(2), np.int64(ctx.agid[ctx.arena[off]])
    if d == 0:
        rk = ctx.rank
        dd = 1
        rfree = n
        hard0 = ctx.params[P_MODE] == HARD
        big0 = n >= ctx.params[P_SMALL_FIRST]
        kmax0 = ctx.kmax[dd]
        green0 = ctx.params[P_GREEN]
        n_pat0 = ctx.params[P_PATTERNS]
        qv0 = ctx.qval[dd]
        qf0 = ctx.qflag[dd]
        topk = rk[4]
        sub0 = ctx.params[P_SUBSET] != 0 and hard0
        k = beta
        for i in range(off, free):
            rk[3, i] = 0
            rk[2, i] = rk[1, i]
            if ctx.params[P_STOP] != 0:
                break
            kth = topk[k - 1]
            cut0 = INF if kth >= INF else kth + 1
            if rk[1, i] >= cut0:
                continue
            g = rk[0, i]
            ctx.stats[ST_DEPTH + 4 * dd + 3] += 1
            kk = partition(ctx, g, 0, n, rfree, dd)
            classes, sizes, biggest = class_order(ctx, dd, kk)
            # every class at class_lb (what _quick_pass then improves on, as below)
            lbg = np.int64(n)
            for t in range(n_pat0 if kk < 0 else kk):
                p = t if kk < 0 else ctx.touched[dd, t]
                if p != green0 and sizes[p] > 0:
                    lbg += class_lb(sizes[p], kmax0)
            if lbg >= cut0:
                rk[2, i] = lbg
                continue
            running, _h, _t = _quick_pass(ctx, g, classes, sizes, biggest, lbg, b, dd, rfree, cut0)
            ok = running < cut0
            if ok and cut0 >= INF // 2 and sub0 and _part_infeasible(
                    ctx, g, classes, sizes, b, dd, rfree, hard0):
                running = np.int64(INF)
                ok = False
            if ok and cut0 < INF // 2:
                # look-ahead bounds at any size: most guesses of a ranking are refuted
                # by them alone (a node uses them from P_PRE_SET answers up)
                running, ok, _t = _pre_bound(ctx, g, classes, sizes, running, cut0, b, dd,
                                             rfree, hard0)
            if ok:
                walk = classes[::-1] if big0 or cut0 >= INF // 2 else classes
                for p in walk:
                    if qf0[p] & EXACT:
                        continue
                    if hard0:
                        hard_child_constraint(ctx, g, p, dd)
                    v, _fl, _ch, _bg = _node(ctx, rfree + ctx.cstart[dd, p], sizes[p], b - 1,
                                             cut0 - (running - qv0[p]), dd + 1, rfree + n, tfree)
                    running += v - qv0[p]
                    if running >= cut0:
                        ok = False
                        break
            rk[2, i] = running
            if ok:
                rk[3, i] = EXACT
                j = k - 1
                if running < topk[j]:
                    while j > 0 and topk[j - 1] > running:
                        topk[j] = topk[j - 1]
                        j -= 1
                    topk[j] = running
        return np.int64(0), np.int64(0), np.int64(0), np.int64(0)

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
        # from depth params[P_LAZY_DEPTH] (2: depth 1's few nodes keep their local tables for
        # their children), on sets of at least params[P_LAZY_SET] answers (smaller ones are
        # deduplicated by scan_prepare), without a beam (whose choice must not
        # depend on the budget): the refutation pass also collects the pool
        lazy = (d >= ctx.params[P_LAZY_DEPTH] and n >= ctx.params[P_LAZY_SET]
                and ctx.params[P_BEAM] == 0)
        lb, m, full = refute_pool(ctx, off, n, d, beta, 1 if lazy else 0)
        if lb >= beta:
            memo_store(ctx, k1, k2, 0, lb, False, 0, -1, n)
            return lb, np.int64(0), np.int64(0), np.int64(-1)
        if lazy:
            ctx.stats[ST_DEPTH + 4 * d] += 1
            ctx.stats[ST_LAZY] += 1
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
    rest, fail_lb = _candidates(ctx, d, m, beta)
    ests = ctx.ests[d]

    best = np.int64(INF)
    best_g = np.int64(-1)
    best_h = np.int64(0)
    taint = 0
    hard = ctx.params[P_MODE] == HARD
    big = n >= ctx.params[P_SMALL_FIRST]  # (hard mode's big sets: see below)
    pre = n >= ctx.params[P_PRE_SET]
    qv = ctx.qval[d]
    qf = ctx.qflag[d]
    # a root valued in parts evaluates only its part of the guesses, and must not
    # store what it finds (the least over a part is not the set's value)
    parts = ctx.params[P_PARTS] if d == 1 else 0
    if parts < 0:
        rest = rest[np.argsort(ests[rest], kind="mergesort")][:-parts]
    block = CAND_BLOCK
    # (bounds from parts hold: not strict, no beam; and not in easy mode, where 16
    # random openers never had a guess refuted this way, at up to 8 % more CPU)
    sub = ctx.params[P_SUBSET] != 0 and hard
    while len(rest) > 0:
        if parts < 0:
            order, rest = rest, rest[:0]
        else:
            order, rest, fail_lb = _next_block(lbs, ests, rest, min(best, beta), fail_lb,
                                               block)
            block *= 2
        for j in order:
            if ctx.params[P_STOP] != 0:
                # asked to stop: a guess's look-ahead (_pre_bound) may read for a long
                # time without entering a node, so look before each guess; the result
                # is not one (as at the node's entry)
                return np.int64(max(beta, 2 * n)), np.int64(0), np.int64(0), np.int64(-1)
            lbg = lbs[j]
            cut = min(best, beta)
            if lbg >= cut:
                fail_lb = min(fail_lb, lbg)
                continue
            g = ctx.pools[d, j]
            if parts > 0 and g % parts != ctx.params[P_PART]:
                continue
            ctx.stats[ST_DEPTH + 4 * d + 3] += 1
            k = partition(ctx, g, off, n, free, d)
            classes, sizes, biggest = class_order(ctx, d, k)
            running, h, t = _quick_pass(ctx, g, classes, sizes, biggest, lbg, b, d, free, cut)
            taint |= t
            ok = running < cut
            if ok and cut >= INF // 2 and sub and _part_infeasible(
                    ctx, g, classes, sizes, b, d, free, hard):
                taint |= TAINT
                running = np.int64(INF)
                ok = False
            if ok and pre and cut < INF // 2:
                running, ok, t = _pre_bound(ctx, g, classes, sizes, running, cut, b, d,
                                            free, hard)
                taint |= t
            if ok:
                # search the classes the quick pass left open, largest first (the likeliest
                # to push g over the budget); with no budget yet every class must be solved
                # unless one is infeasible, so then smallest first (they settle fastest);
                # on big sets in hard mode smallest first too (P_SMALL_FIRST). On big
                # sets the bigger classes first get the one-guess look-ahead bound
                # (_pre_bound): most guesses there are refuted by those bounds alone,
                # and the rest search each class with what the others' bounds leave.
                # Descendants use the arena above free + n, so g's classes stay intact at
                # arena[free:]
                walk = classes[::-1] if big or cut >= INF // 2 else classes
                for p in walk:
                    if qf[p] & EXACT:
                        continue
                    if hard:
                        hard_child_constraint(ctx, g, p, d)
                    v, fl, ch, _bg = _node(
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
    if parts != 0:
        if best < beta:
            return best, np.int64(EXACT | taint), best_h, best_g
        return max(fail_lb, beta), np.int64(taint), np.int64(0), np.int64(-1)
    return _settle(ctx, k1, k2, b, n, beta, best, best_g, best_h, fail_lb, taint)


# ---- entry points from Python: the context tuple as one reference (ctxref.py) ----


@njit(cache=True, nogil=True)
def node(ctx, off, n, b, beta, d, free, tfree):
    """`_node` on the context `ctx` (the namedtuple Python builds): the search."""
    return _node(as_struct(ctx), off, n, b, beta, d, free, tfree)


@njit(cache=True, nogil=True)
def class_bound_entry(ctx, off, n, b, d, deep):
    """`class_bound` on the context `ctx` (the namedtuple Python builds)."""
    return class_bound(as_struct(ctx), off, n, b, d, deep)
