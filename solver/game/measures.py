"""Class counts of many guesses over one candidate set, and the one-step
measures built on them (vectorised: the whole guess list in one pass).

For a candidate set S (n answers) and a guess g, the feedback classes of S under g
have sizes c_p. Every measure here is a function of those sizes:

- expected remaining answers  sum c_p^2 / n          (smaller is better)
- entropy (bits)              -sum (c_p/n) log2(c_p/n) (larger)
- expected eliminations       n - sum c_p^2 / n + [g in S] / n  (larger; the answer
                              itself counts as eliminated when g hits it)
- worst case                  max c_p                (smaller)
- distinct patterns           number of classes      (larger)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..feedback import ALL_GREEN, N_PATTERNS


@njit(cache=True)
def _class_counts(tbl, members, gids, out):
    for k in range(gids.shape[0]):
        row = tbl[gids[k]]
        o = out[k]
        for j in range(members.shape[0]):
            o[row[members[j]]] += 1


def class_counts(table: np.ndarray, members: np.ndarray, gids: np.ndarray) -> np.ndarray:
    """int32 (len(gids), 243): how many members of S give each pattern for each guess."""
    out = np.zeros((len(gids), N_PATTERNS), np.int32)
    _class_counts(table, np.ascontiguousarray(members, np.int32),
                  np.ascontiguousarray(gids, np.int64), out)
    return out


def measures(counts: np.ndarray) -> dict[str, np.ndarray]:
    """All measures for each row of `counts` (from class_counts)."""
    c = counts.astype(np.float64)
    n = c[0].sum() if len(c) else 0.0
    hit = counts[:, ALL_GREEN] > 0
    sq = (c * c).sum(axis=1)
    p = c / max(n, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.where(c > 0, p * np.log2(np.where(c > 0, p, 1.0)), 0.0).sum(axis=1)
    expected = sq / max(n, 1.0)
    return {
        "expected": expected,
        "entropy": ent + 0.0,  # + 0.0 turns -0.0 into 0.0
        "eliminations": n - expected + hit / max(n, 1.0),
        "worst": counts.max(axis=1).astype(np.int64),
        "patterns": (counts > 0).sum(axis=1).astype(np.int64),
        "candidate": hit,
    }


def lower_bounds(counts: np.ndarray) -> np.ndarray:
    """Admissible lower bound on the total of each guess over S (the engine's
    3n - 2[g in S] - (non-green classes): a class of c answers costs >= 2c - 1)."""
    n = int(counts[0].sum()) if len(counts) else 0
    hit = (counts[:, ALL_GREEN] > 0).astype(np.int64)
    k = (counts > 0).sum(axis=1) - hit
    return 3 * n - 2 * hit - k
