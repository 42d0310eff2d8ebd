"""One-step measures of every guess over a candidate set, in one compiled pass
(solver/kernels/scan_kernel.py).

For a candidate set S (n answers) and a guess g, the feedback classes of S under g
have sizes c_p. The measures are functions of those sizes:

- expected remaining answers  sum c_p^2 / n            (smaller is better)
- entropy (bits)              -sum (c_p/n) log2(c_p/n) (larger)
- expected eliminations       n - sum c_p^2 / n + [g in S] / n  (larger; the answer
                              itself counts as eliminated when g hits it)
- worst case                  max c_p                  (smaller)
- distinct patterns           number of classes        (larger)
- letter frequency            sum over the distinct letters of g of the number of
                              candidates containing that letter (larger)

The kernel keeps one count slot per pattern (3**L) and clears only the slots it
touched, so a small set costs O(n) per guess, not O(3**L).
"""

from __future__ import annotations

import numpy as np

from ..kernels.scan_kernel import (  # noqa: F401 (the raw columns and the scan,
    ENTROPY,  # re-exported for analysis.py and the strategies)
    EST,
    HIT,
    PATTERNS,
    SUMSQ,
    WORST,
    scan,
)
from ..words import encode_words
from .position import guess_letters


def measures(raw: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """The named measures from `scan` output over a set of n candidates."""
    expected = raw[:, SUMSQ] / max(n, 1)
    hit = raw[:, HIT] > 0
    return {
        "expected": expected,
        "entropy": np.abs(raw[:, ENTROPY]),  # abs: -0.0 for a single class
        "eliminations": n - expected + hit / max(n, 1),
        "worst": raw[:, WORST].astype(np.int64),
        "patterns": raw[:, PATTERNS].astype(np.int64),
        "candidate": hit,
    }


def letter_scores(lists, members: np.ndarray, gids: np.ndarray) -> np.ndarray:
    """Letter-frequency score of each guess over the candidates."""
    cand = encode_words([lists.answers[i] for i in members])
    present = np.zeros((len(cand), 26), bool)
    present[np.arange(len(cand))[:, None], cand] = True
    freq = present.sum(axis=0)
    letters = guess_letters(lists)[gids]
    has = np.zeros((len(gids), 26), bool)
    has[np.arange(len(gids))[:, None], letters] = True
    return has.astype(np.int64) @ freq


def lower_bounds(raw: np.ndarray, n: int) -> np.ndarray:
    """Admissible lower bound on the total of each guess over S (the engine's
    3n - 2[g in S] - (non-green classes): a class of c answers costs >= 2c - 1)."""
    hit = raw[:, HIT].astype(np.int64)
    return 3 * n - 2 * hit - (raw[:, PATTERNS].astype(np.int64) - hit)


def class_counts(table: np.ndarray, members: np.ndarray, gids: np.ndarray,
                 n_patterns: int) -> np.ndarray:
    """int32 (len(gids), n_patterns) class sizes (plain numpy; for tests and small
    sets)."""
    rows = table[np.asarray(gids)[:, None], np.asarray(members)[None, :]]
    out = np.zeros((len(gids), n_patterns), np.int32)
    np.add.at(out, (np.repeat(np.arange(len(gids)), len(members)), rows.ravel()), 1)
    return out
