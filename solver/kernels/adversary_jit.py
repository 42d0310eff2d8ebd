"""numba kernels of the adversary search (adversary.py): the adversary's reply to
every guess over a set, whether one guess separates a set, and the whole search
three guesses deep, where almost all of the work is."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jitcache import install

install()  # numba's cache sees an edit to any kernel source (solver/jitcache.py)


@njit(cache=True, nogil=True)
def _reply(row, members, n, prio, cnt, seen):
    """The adversary's class of `members[:n]` under the guess of table row `row`:
    (size, pattern) of the largest class, ties to the smallest prio. `cnt` is
    zero on entry and on exit."""
    ns = 0
    for j in range(n):
        p = row[members[j]]
        if cnt[p] == 0:
            seen[ns] = p
            ns += 1
        cnt[p] += 1
    best = -1
    bp = -1
    for t in range(ns):
        p = seen[t]
        c = cnt[p]
        if c > best or (c == best and prio[p] < prio[bp]):
            best = c
            bp = p
        cnt[p] = 0
    return best, bp


@njit(cache=True, nogil=True)
def replies(tbl, members, gids, prio, size_out, pat_out):
    """The adversary's reply to each guess of `gids` over `members`: the size and
    pattern of the class it keeps."""
    n = members.shape[0]
    npat = prio.shape[0]
    cnt = np.zeros(npat, np.int64)
    seen = np.empty(max(1, min(n, npat)), np.int64)
    for k in range(gids.shape[0]):
        s, p = _reply(tbl[gids[k]], members, n, prio, cnt, seen)
        size_out[k] = s
        pat_out[k] = p


@njit(cache=True, nogil=True)
def _separates(row, members, n, stamp, gen):
    """Whether the guess of `row` gives every member of `members[:n]` its own pattern
    (stamp[p] == gen marks a pattern seen in this call)."""
    for j in range(n):
        p = row[members[j]]
        if stamp[p] == gen:
            return False
        stamp[p] = gen
    return True


@njit(cache=True, nogil=True)
def separator(tbl, members, gids, npat):
    """Index into gids of the first guess that separates `members` (each member its
    own feedback), or -1."""
    n = members.shape[0]
    stamp = np.full(npat, -1, np.int64)
    for k in range(gids.shape[0]):
        if _separates(tbl[gids[k]], members, n, stamp, k):
            return k
    return -1


@njit(cache=True, nogil=True)
def win3(tbl, members, gids, prio, maxsep, nodes, stop):
    """A win within three guesses from `members` (more than one answer): the first
    guess g of `gids` whose kept class is one answer, or is separated by some guess
    h (then the third guess is the one answer left). Returns (index of g, index of
    h or -1 when g's class is one answer already), or (-1, -1). Classes larger than
    `maxsep` (the most patterns any guess gives) cannot be separated and are not
    tried. nodes[0] counts the classes tried for a separator. stop[0] != 0 (set
    from another thread: a Ctrl-C) ends it with (-1, -1), which then proves nothing."""
    n = members.shape[0]
    npat = prio.shape[0]
    cnt = np.zeros(npat, np.int64)
    seen = np.empty(max(1, min(n, npat)), np.int64)
    stamp = np.full(npat, -1, np.int64)
    sub = np.empty(n, members.dtype)
    gen = 0
    for k in range(gids.shape[0]):
        if stop[0]:
            return -1, -1
        row = tbl[gids[k]]
        s, p = _reply(row, members, n, prio, cnt, seen)
        if s >= n or s > maxsep:
            continue
        if s == 1:
            return k, -1
        m = 0
        for j in range(n):
            if row[members[j]] == p:
                sub[m] = members[j]
                m += 1
        nodes[0] += 1
        for h in range(gids.shape[0]):
            gen += 1
            if _separates(tbl[gids[h]], sub, m, stamp, gen):
                return k, h
    return -1, -1
