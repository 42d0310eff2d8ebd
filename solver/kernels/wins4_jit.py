"""numba's jit of the objective wins' level above wins3: a set with four guesses left
(see wins_kernel.py; imported only when the compiled module is not used, or to
build it).

Each guess splits the set into classes with three guesses left. A class of one or
two answers is exact at once, a larger one is valued by wins3 over its own legal
guesses, and the guess is dropped as soon as its bound cannot beat the best so far
or the need: WinsSearch's branch and bound at this level (guess_value, quick and
_candidates), the same values and the same guess, without the Python around every
guess and class (half of a best chance's CPU, BENCHMARKS.md).

The three-guess values are memoised in a table of arrays (`Memo3` in wins_kernel):
on a best chance nine class look-ups in ten find a class valued before. Each entry
keeps its whole key (the class's answers and, in hard mode, its constraint) and a
look-up compares it in full, so a hash collision costs a probe, never a value."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jitcache import install
from .scan_columns import EST, HIT, PATTERNS
from .scan_jit import scan
from .wins_jit import (
    E_TOTAL,
    E_WINS,
    EASY,
    HARD,
    STRICT,
    _child_constraint,
    _find,
    _hash,
    _memo_key,
    _store,
    same_guesses,
    split_classes,
    wins3,
)

STOPPED = -2  # out[2] when the stop flag was seen

install()  # numba's cache sees an edit to any kernel source (solver/jitcache.py)

@njit(cache=True, nogil=True)
def _value3(tbl, letters, counts, cls, legal, agid, cg, cm, mode, green, cost, coloured,
            merge, slots, entries, pool, state, key, out3):
    """(wins, total) of the class `cls` (answer ids, ascending) with three guesses
    left under the hard-mode constraint (cg, cm): from the memo, or as
    WinsSearch.quick values it (its legal guesses scanned, ordered by the engine's
    estimate, each group of the same guesses once, then wins3), and memoised."""
    m = cls.shape[0]
    length = letters.shape[1]
    klen = _memo_key(key, 3, cls, m, mode == HARD, cg, cm)
    h = _hash(key, klen)
    e = _find(slots, entries, pool, key, klen, h)
    if e >= 0:
        return entries[e, E_WINS], entries[e, E_TOTAL]
    # the class's legal guesses, ascending (as WinsSearch._legal_ids)
    if mode == STRICT:
        ids = np.sort(agid[cls])
    elif mode == HARD:  # the positions and letters the constraint fixes, then each guess
        fix = np.empty(length + 26, np.int64)
        nfix = 0
        for i in range(length):
            if cg[i] != 255:
                fix[nfix] = i
                nfix += 1
        nneed = nfix
        for c in range(26):
            if cm[c] > 0:
                fix[nneed] = c
                nneed += 1
        ids = np.empty(legal.shape[0], np.int64)
        ng = 0
        for k in range(legal.shape[0]):
            gk = legal[k]
            ok = True
            for r in range(nfix):
                if letters[gk, fix[r]] != cg[fix[r]]:
                    ok = False
                    break
            if ok:
                for r in range(nfix, nneed):
                    if counts[gk, fix[r]] < cm[fix[r]]:
                        ok = False
                        break
            if ok:
                ids[ng] = gk
                ng += 1
        ids = ids[:ng]
    else:
        ids = legal
    raw = np.zeros((ids.shape[0], 6), np.float64)
    scan(tbl, cls, ids, cost, green, raw)
    # those that split the class or hit it, by the estimate, ties the smaller id
    nk = 0
    for k in range(ids.shape[0]):
        if raw[k, PATTERNS] > 1 or raw[k, HIT] > 0:
            nk += 1
    kept = np.empty(nk, np.int64)
    est = np.empty(nk, np.float64)
    spread = np.empty(nk, np.int64)
    nk = 0
    for k in range(ids.shape[0]):
        if raw[k, PATTERNS] > 1 or raw[k, HIT] > 0:
            kept[nk] = ids[k]
            hit = 0.5 if raw[k, HIT] > 0 else 0.0
            est[nk] = (m + raw[k, EST]) - hit
            spread[nk] = np.int64(raw[k, PATTERNS])
            nk += 1
    order = np.argsort(est, kind="mergesort")
    cands = kept[order]
    spread = spread[order]
    if merge and nk >= 2:
        same = np.empty(nk, np.int64)
        same_guesses(tbl, letters, cls, cands, coloured, mode == HARD, same)
        nf = 0
        for k in range(nk):
            if same[k] < 0:
                cands[nf] = cands[k]
                spread[nf] = spread[k]
                nf += 1
        cands = cands[:nf]
        spread = spread[:nf]
    wins3(tbl, letters, cls, cands, spread, agid, cg, cm, mode, green, -1, 0, slots, entries,
          pool, state, out3)
    e = _find(slots, entries, pool, key, klen, h)  # wins3 stored its classes meanwhile
    _store(slots, entries, pool, state, key, klen, h, -1 - e, out3[0], out3[1])
    return out3[0], out3[1]


@njit(cache=True, nogil=True)
def wins4(tbl, letters, counts, members, cands, lb, cap, legal, agid, greens, mins, mode,
          green, need_w, need_t, cost, coloured, merge, params, stop_at, slots, entries,
          pool, state, out):
    """The value of the candidates `members` with four guesses left under the
    objective wins: out = (wins, total, guess id) of the first guess of `cands` (the
    order searched, each group of the same guesses once) with the best key
    (-wins, total); guess -1 when no guess has a key below the need (-need_w,
    need_t) (need_w < 0: no need), STOPPED once params[stop_at] is set.

    `lb`: each guess's bound on the total (the partition bound), `cap`: the most
    wins the set allows (|S| - 1 where it cannot be won outright); `legal`: the
    legal guesses now, ascending (a class's legal guesses are among them); `counts`:
    each guess's letter counts; (`greens`, `mins`): the hard-mode constraint now;
    `cost`, `coloured`, `merge`: as WinsSearch uses them; (slots, entries, pool,
    state): the three-guess memo."""
    n = members.shape[0]
    length = letters.shape[1]
    cnt = np.zeros(green + 1, np.int64)
    start = np.zeros(green + 1, np.int64)
    order = np.empty(n, np.int64)
    pats = np.empty(n + 1, np.int64)
    sizes = np.empty(n + 1, np.int64)
    by_size = np.empty(n + 1, np.int64)
    cls = np.empty(n, np.int32)
    key = np.empty(n + length + 27, np.int32)
    cols = np.empty(length, np.int64)
    cg = np.empty(length, np.uint8)
    cm = np.empty(26, np.uint8)
    out3 = np.zeros(3, np.int64)
    have_best = need_w >= 0
    bw, bt = need_w, need_t
    out[0], out[1], out[2] = -1, -1, -1
    for gi in range(cands.shape[0]):
        if params[stop_at] != 0:
            out[2] = STOPPED
            return
        if have_best and (cap < bw or (cap == bw and lb[gi] >= bt)):
            continue
        g = cands[gi]
        row = tbl[g]
        nc = split_classes(row, members, cnt, start, order, pats, sizes)
        # the bound: each class wins at most all it holds, at a total of at least
        # 3m - 1 with this guess (one answer next, two guesses for the rest)
        ub = 0
        lbt = 0
        nb = 0
        for c in range(nc):
            m = sizes[c]
            if pats[c] == green:
                ub += 1
                lbt += 1
            else:
                ub += m
                lbt += 3 * m - 1
                if m >= 3:
                    by_size[nb] = c
                    nb += 1
        u, t = ub, lbt
        if u > cap:  # each answer lost saves at most 3
            t -= 3 * (u - cap)
            u = cap
        refuted = have_best and (u < bw or (u == bw and t >= bt))
        # then the classes of three or more, smallest first, each exact
        if not refuted and nb > 1:
            sizes_nb = np.empty(nb, np.int64)
            for r in range(nb):
                sizes_nb[r] = sizes[by_size[r]]
            srt = np.argsort(sizes_nb, kind="mergesort")
            tmp = by_size[:nb].copy()
            for r in range(nb):
                by_size[r] = tmp[srt[r]]
        r = 0
        while not refuted and r < nb:
            c = by_size[r]
            r += 1
            m = sizes[c]
            p = pats[c]
            lo = start[p]
            sub = cls[:m]
            for j in range(m):
                sub[j] = members[order[lo + j]]
            sorted_ok = True
            for j in range(1, m):
                if sub[j] < sub[j - 1]:
                    sorted_ok = False
                    break
            if not sorted_ok:
                sub.sort()
            if mode == HARD:
                _child_constraint(letters, g, p, greens, mins, cg, cm, cols)
            w, tt = _value3(tbl, letters, counts, sub, legal, agid, cg, cm, mode, green,
                            cost, coloured, merge, slots, entries, pool, state, key, out3)
            ub += w - m
            lbt += tt + w - (3 * m - 1)
            u, t = ub, lbt
            if u > cap:
                t -= 3 * (u - cap)
                u = cap
            refuted = have_best and (u < bw or (u == bw and t >= bt))
        if refuted:
            continue
        # every class valued: (ub, lbt) is exact, and better than the best so far
        bw, bt = ub, lbt
        have_best = True
        out[0], out[1], out[2] = ub, lbt, g


__all__ = ["EASY", "HARD", "STRICT", "STOPPED", "wins4"]
