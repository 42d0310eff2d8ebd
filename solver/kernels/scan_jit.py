"""numba's jit of the measures scan (see scan_kernel.py; imported only when the
compiled module is not used, or to build it)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jitcache import install
from .scan_columns import ENTROPY, EST, HIT, PATTERNS, SUMSQ, WORST

install()  # numba's cache sees an edit to any kernel source (solver/jitcache.py)


@njit(cache=True, nogil=True)
def scan(tbl, members, gids, cost, green, out):
    """`green`: the all-green code (3**L - 1), so there are green + 1 patterns."""
    n = members.shape[0]
    cnt = np.zeros(green + 1, np.int64)
    seen = np.empty(min(n, green + 1), np.int64)
    inv = 1.0 / n
    for k in range(gids.shape[0]):
        row = tbl[gids[k]]
        ns = 0
        for j in range(n):
            p = row[members[j]]
            if cnt[p] == 0:
                seen[ns] = p
                ns += 1
            cnt[p] += 1
        sq = 0.0
        ent = 0.0
        worst = 0
        est = 0.0
        hit = 0
        for t in range(ns):
            p = seen[t]
            c = cnt[p]
            sq += c * c
            q = c * inv
            ent -= q * np.log2(q)
            if c > worst:
                worst = c
            if p == green:
                hit = 1
            else:
                est += cost[c]
            cnt[p] = 0
        out[k, SUMSQ] = sq
        out[k, ENTROPY] = ent
        out[k, WORST] = worst
        out[k, PATTERNS] = ns
        out[k, HIT] = hit
        out[k, EST] = est
