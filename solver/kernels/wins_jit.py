"""numba's jit of the objective wins' last searched level (see wins_kernel.py; imported
only when the compiled module is not used, or to build it).

A set with three guesses left: each guess g splits it into classes, each class then
has two guesses left, and a class's value there is exact from the class counts of
its legal guesses (WinsSearch._two): the guess with the most distinct patterns wins
that many answers, at a total of 2 x patterns - hit. So the set's value is one
double loop over guesses: the Python search spent most of a best-chance search
here, refuting one guess at a time (BENCHMARKS.md, issue 48). A class's value is
memoised (the same class recurs under many guesses) in a table of arrays that
keeps each key whole (`_find`, `_store`; wins_kernel.Memo3 owns the arrays): a
look-up compares the key in full, so a hash collision costs a probe, never a
value. The level above (wins4_jit) shares the table, its keys tagged by level."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jitcache import install

install()  # numba's cache sees an edit to any kernel source (solver/jitcache.py)

EASY, HARD, STRICT = 0, 1, 2


# the memo's state array: entries used, pool used, full (an entry was not stored)
M_USED, M_POOL, M_FULL = 0, 1, 2
# an entry's columns: hash, pool offset, key length, wins, total
E_HASH, E_OFF, E_LEN, E_WINS, E_TOTAL = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True)
def _hash(key, klen):
    h = np.uint64(14695981039346656037)
    prime = np.uint64(1099511628211)
    for i in range(klen):
        h = (h ^ np.uint64(key[i])) * prime
    return h


@njit(cache=True, nogil=True)
def _find(slots, entries, pool, key, klen, h):
    """The entry of `key`, or -1 - (the free slot where it would go)."""
    mask = slots.shape[0] - 1
    hs = np.int64(h & np.uint64(0x7FFFFFFFFFFFFFFF))
    i = hs & mask
    while True:
        e = slots[i]
        if e < 0:
            return -1 - i
        if entries[e, E_HASH] == hs and entries[e, E_LEN] == klen:
            off = entries[e, E_OFF]
            same = True
            for j in range(klen):
                if pool[off + j] != key[j]:
                    same = False
                    break
            if same:
                return e
        i = (i + 1) & mask


@njit(cache=True, nogil=True)
def _store(slots, entries, pool, state, key, klen, h, free, wins, total):
    """Store a value at the free slot `_find` gave; where the table or the pool is
    full (or the slots more than half taken), store nothing and say so (state's
    M_FULL): the caller grows the memo or empties it between calls."""
    used, pu = state[M_USED], state[M_POOL]
    if used >= entries.shape[0] or 2 * (used + 1) > slots.shape[0] or \
            pu + klen > pool.shape[0]:
        state[M_FULL] = 1
        return
    for j in range(klen):
        pool[pu + j] = key[j]
    entries[used, E_HASH] = np.int64(h & np.uint64(0x7FFFFFFFFFFFFFFF))
    entries[used, E_OFF] = pu
    entries[used, E_LEN] = klen
    entries[used, E_WINS] = wins
    entries[used, E_TOTAL] = total
    slots[free] = used
    state[M_USED] = used + 1
    state[M_POOL] = pu + klen


@njit(cache=True, nogil=True)
def _child_constraint(letters, g, p, greens, mins, cg, cm, cols):
    """(cg, cm) = the hard-mode constraint after guess g with pattern p from (greens,
    mins): constraint.constraint_after's rule."""
    length = letters.shape[1]
    for i in range(length):
        cg[i] = greens[i]
    for ch in range(26):
        cm[ch] = mins[ch]
    q = p
    for i in range(length):
        cols[i] = q % 3
        q //= 3
    for i in range(length):
        if cols[i] == 2:
            cg[i] = letters[g, i]
    for i in range(length):
        ch = letters[g, i]
        seen = 0
        for i2 in range(length):
            if letters[g, i2] == ch and cols[i2] > 0:
                seen += 1
        if seen > cm[ch]:
            cm[ch] = seen


@njit(cache=True, nogil=True)
def _memo_key(key, tag, cls, m, hard, cg, cm):
    """The memo's key of the class cls[:m] (ascending) at level `tag` (the guesses
    left) in key[:klen], and klen: the tag, the answers, and in hard mode the
    constraint."""
    key[0] = tag
    klen = 1
    for j in range(m):
        key[klen] = cls[j]
        klen += 1
    if hard:
        for i in range(cg.shape[0]):
            key[klen] = cg[i]
            klen += 1
        for c in range(26):
            key[klen] = cm[c]
            klen += 1
    return klen


@njit(cache=True, nogil=True)
def split_classes(row, members, cnt, start, order, pats, sizes):
    """The classes of a guess (its pattern row) over `members`, by a counting sort:
    returns nc, with pats[:nc] the patterns in order of first appearance, sizes[:nc]
    their classes' sizes, and class c the members[order[start[pats[c]] + j]] for j
    below sizes[c], in the order of `members`. `cnt` (zero, one entry a pattern)
    is left zero."""
    n = members.shape[0]
    nc = 0
    for j in range(n):
        p = row[members[j]]
        if cnt[p] == 0:
            pats[nc] = p
            nc += 1
        cnt[p] += 1
    pos = 0
    for c in range(nc):
        start[pats[c]] = pos
        sizes[c] = cnt[pats[c]]
        pos += cnt[pats[c]]
    for j in range(n):
        p = row[members[j]]
        order[start[p]] = j
        start[p] += 1
    for c in range(nc):  # start[p] was the class's end
        start[pats[c]] -= sizes[c]
        cnt[pats[c]] = 0
    return nc


@njit(cache=True, nogil=True)
def _patterns(row, ids, m, green, stamp, tick):
    """(distinct patterns, hit) of one guess's row over the answers ids[:m]. `stamp`
    and `tick` mark the patterns seen without clearing an array per guess."""
    tick[0] += 1
    t = tick[0]
    ns = 0
    h = 0
    for j in range(m):
        p = row[ids[j]]
        if stamp[p] != t:
            stamp[p] = t
            ns += 1
            if p == green:
                h = 1
    return ns, h


@njit(cache=True, nogil=True)
def _class_value(tbl, cls, m, guesses, bounds, ng, green, stamp, tick, agid):
    """(patterns, hit) of the best guess among guesses[:ng] for the class cls[:m]
    (answer ids): the most distinct patterns, then a hit. bounds[k] >= the patterns
    of guesses[k] on the class, in decreasing order: the scan stops where no later
    guess can do better. Once a guess splits the class into m patterns without a
    hit, only a candidate can do better (a hit needs the answer itself), and each
    candidate is among the guesses (it is legal, and it hits the set above): so
    those m are tried instead of the rest of the scan."""
    best_ns, best_h = 0, 0
    for k in range(ng):
        b = min(bounds[k], m)
        if b < best_ns or (b == best_ns and best_h == 1):
            break
        ns, h = _patterns(tbl[guesses[k]], cls, m, green, stamp, tick)
        if ns > best_ns or (ns == best_ns and h > best_h):
            best_ns, best_h = ns, h
            if best_ns == m and best_h == 0:
                for j in range(m):
                    ns, h = _patterns(tbl[agid[cls[j]]], cls, m, green, stamp, tick)
                    if ns == m:
                        return m, 1
                return m, 0
    return best_ns, best_h


@njit(cache=True, nogil=True)
def wins3(tbl, letters, members, cands, spread, agid, greens, mins, mode, green,
          need_w, need_t, slots, entries, pool, state, out):
    """The value of the candidates `members` with three guesses left under the
    objective wins: out = (wins, total, guess id) of the first guess of `cands` (the
    order searched) with the best key (-wins, total), or guess -1 when no guess has a
    key below the need (-need_w, need_t) (need_w < 0: no need).

    `cands`: the legal guesses that split the set or hit it. A class's legal guesses
    in easy and hard mode are among them (a guess that neither splits nor hits the
    set wins one answer of a class, never the most of a class of three or more),
    scanned by their patterns over the whole set (`spread`, the scan's count), most
    first: that bounds their patterns over any class. `agid`: each answer's guess id
    (strict mode's classes guess only their candidates); `greens`, `mins`: the
    hard-mode constraint now; `mode`: EASY, HARD or STRICT; (slots, entries, pool,
    state): the memo (wins_kernel.Memo3) of the classes' values, two guesses left
    (a class's value there depends on its answers and its constraint alone: a
    guess that neither splits nor hits the set, left out of `cands`, is never a
    class's best)."""
    n = members.shape[0]
    length = letters.shape[1]
    cnt = np.zeros(green + 1, np.int64)
    start = np.zeros(green + 1, np.int64)
    order = np.empty(n, np.int64)
    cls = np.empty(n, np.int64)
    pats = np.empty(n, np.int64)
    sizes = np.empty(n, np.int64)
    legal = np.empty(max(cands.shape[0], n), np.int64)
    cols = np.empty(length, np.int64)
    key = np.empty(n + length + 27, np.int32)
    cg = greens.copy()
    cm = mins.copy()
    # hard mode: each candidate's letter counts; a class's legal guesses are those
    # of `cands` (legal now) that keep what the class's feedback adds: new greens
    # (pos, letter) and letters now needed more often (letter, copies)
    nb = cands.shape[0]
    stamp = np.zeros(green + 1, np.int64)
    tick = np.zeros(1, np.int64)
    rank = np.argsort(-spread, kind="mergesort")
    by_p = np.empty(nb, np.int64)
    p_of = np.empty(max(nb, n), np.int64)
    for k in range(nb):
        by_p[k] = cands[rank[k]]
        p_of[k] = spread[rank[k]]
    bounds = np.empty(max(nb, n), np.int64)
    counts = np.zeros((nb if mode == HARD else 0, 26), np.uint8)
    for k in range(counts.shape[0]):
        for i in range(length):
            counts[k, letters[by_p[k], i]] += 1
    new_pos = np.empty(length, np.int64)
    new_let = np.empty(length, np.int64)
    need_let = np.empty(length, np.int64)
    need_cnt = np.empty(length, np.int64)
    have_best = need_w >= 0
    bw, bt = need_w, need_t
    out[0], out[1], out[2] = -1, -1, -1
    for gi in range(cands.shape[0]):
        g = cands[gi]
        row = tbl[g]
        nc = split_classes(row, members, cnt, start, order, pats, sizes)
        # exact at once: the hit and the classes of one or two answers; the rest
        # at their best (every answer won, two guesses for all but one)
        ub = 0
        lbt = 0
        for c in range(nc):
            m = sizes[c]
            if pats[c] == green:
                ub += 1
                lbt += 1
            else:
                ub += m
                lbt += 3 * m - 1
        # then the classes of three or more, largest first, each exact
        refuted = have_best and (ub < bw or (ub == bw and lbt >= bt))
        while not refuted:
            big = -1
            for c in range(nc):
                if pats[c] != green and sizes[c] >= 3 and (big < 0 or sizes[c] > sizes[big]):
                    big = c
            if big < 0:
                break
            m = sizes[big]
            sizes[big] = -m  # valued (restored below)
            p = pats[big]
            lo = start[p]
            for j in range(m):
                cls[j] = members[order[lo + j]]
            ascending = True
            for j in range(1, m):
                if cls[j] < cls[j - 1]:
                    ascending = False
                    break
            if not ascending:
                cls[:m].sort()
            if mode == HARD:
                _child_constraint(letters, g, p, greens, mins, cg, cm, cols)
            klen = _memo_key(key, 2, cls, m, mode == HARD, cg, cm)
            hk = _hash(key, klen)
            e = _find(slots, entries, pool, key, klen, hk)
            if e >= 0:
                ns, h = entries[e, E_WINS], entries[e, E_TOTAL]
                ub += ns - m
                lbt += (2 * ns - h) + ns - (3 * m - 1)
                refuted = have_best and (ub < bw or (ub == bw and lbt >= bt))
                continue
            ng = 0
            if mode == STRICT:
                for j in range(lo, lo + m):
                    legal[ng] = agid[members[order[j]]]
                    bounds[ng] = m
                    ng += 1
            elif mode == HARD:
                q = p
                for i in range(length):
                    cols[i] = q % 3
                    q //= 3
                ngr = 0
                for i in range(length):
                    if cols[i] == 2 and greens[i] == 255:
                        new_pos[ngr] = i
                        new_let[ngr] = letters[g, i]
                        ngr += 1
                nl = 0
                for i in range(length):
                    ch = letters[g, i]
                    first = True
                    for i2 in range(i):
                        if letters[g, i2] == ch:
                            first = False
                    if not first:
                        continue
                    seen = 0
                    for i2 in range(length):
                        if letters[g, i2] == ch and cols[i2] > 0:
                            seen += 1
                    if seen > mins[ch]:
                        need_let[nl] = ch
                        need_cnt[nl] = seen
                        nl += 1
                for k in range(nb):
                    gk = by_p[k]
                    ok = True
                    for r in range(ngr):
                        if letters[gk, new_pos[r]] != new_let[r]:
                            ok = False
                            break
                    if ok:
                        for r in range(nl):
                            if counts[k, need_let[r]] < need_cnt[r]:
                                ok = False
                                break
                    if ok:
                        legal[ng] = gk
                        bounds[ng] = p_of[k]
                        ng += 1
            else:
                for k in range(nb):
                    legal[k] = by_p[k]
                    bounds[k] = p_of[k]
                ng = nb
            ns, h = _class_value(tbl, cls, m, legal, bounds, ng, green, stamp, tick, agid)
            _store(slots, entries, pool, state, key, klen, hk, -1 - e, ns, h)
            ub += ns - m
            lbt += (2 * ns - h) + ns - (3 * m - 1)
            refuted = have_best and (ub < bw or (ub == bw and lbt >= bt))
        for c in range(nc):
            if sizes[c] < 0:
                sizes[c] = -sizes[c]
        if refuted:
            continue
        # every class valued: (ub, lbt) is exact, and better than the best so far
        bw, bt = ub, lbt
        have_best = True
        out[0], out[1], out[2] = ub, lbt, g


@njit(cache=True, nogil=True)
def same_guesses(tbl, letters, members, gids, coloured, hard, out):
    """out[i] = the index of the first guess of `gids` that is the same guess as
    gids[i] on the candidates `members`, or -1 (WinsSearch._same says when two are
    the same): one hash of each guess's patterns over the set (and, `hard`, of its
    letters where some answer is coloured: `coloured[p]`, the positions pattern p
    colours, as bits), the hashes sorted, and every match checked in full (a
    collision is left unmerged: it only costs a repeat)."""
    nb = gids.shape[0]
    n = members.shape[0]
    length = letters.shape[1]
    hv = np.empty(nb, np.uint64)
    seen = np.empty((nb, length), np.int64)
    prime = np.uint64(1099511628211)
    for k in range(nb):
        row = tbl[gids[k]]
        h = np.uint64(14695981039346656037)
        bits = 0
        for j in range(n):
            p = row[members[j]]
            h = (h ^ np.uint64(p)) * prime
            bits |= coloured[p]
        for i in range(length):
            c = 26
            if hard and (bits >> i) & 1:
                c = letters[gids[k], i]
            seen[k, i] = c
            h = (h ^ np.uint64(c)) * prime
        hv[k] = h
    order = np.argsort(hv, kind="mergesort")  # stable: a run starts at its first index
    for k in range(nb):
        out[k] = -1
    s = 0
    while s < nb:
        e = s + 1
        while e < nb and hv[order[e]] == hv[order[s]]:
            e += 1
        a = order[s]
        for t in range(s + 1, e):
            b = order[t]
            same = True
            for i in range(length):
                if seen[a, i] != seen[b, i]:
                    same = False
                    break
            if same:
                ra, rb = tbl[gids[a]], tbl[gids[b]]
                for j in range(n):
                    if ra[members[j]] != rb[members[j]]:
                        same = False
                        break
            if same:
                out[b] = a
        s = e
