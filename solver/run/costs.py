"""Predicted CPU cost of valuing a first-feedback class, and of an opener: what a
run orders its work by, chooses what to split by, and sizes parts by. Never used
to prune: a wrong prediction costs time, never a value.

Two models, both fitted on bench/bench_class_costs.py's stratified samples (seed
20262323; BENCHMARKS.md, issue 23):

- by size alone: the larger of A1[mode] * s ** 2.6 and A2[mode] * s ** B2[mode].
  The cost of a class climbs much faster above about 600 answers (qajaq's 1369:
  about 414 s in easy mode), so one power law under-predicted the heaviest
  openers 1.3-2.8x. A1 and A2 make each part's sum equal the measured sum, B2 is
  the log-log slope above 600 answers. Off by a factor of 3.5 (easy) to 3.5^1.27
  (hard) in the rms of the log; the worst hard class ran 47 times its prediction.
- by size and spread, for classes of SPREAD_MIN answers or more: the spread k is
  the most feedback classes any of the SPREAD_GUESSES probe guesses (those that
  make the most classes on the whole answer list) makes on the class, so s / k is
  the size of the classes the best of them leaves. Cost exp(a) * s^b * (s/k)^c:
  a class whose best split still leaves big classes needs deep strategies, and
  proving that the cap holds them is what costs (deedy's class 3 in hard mode:
  490 answers, k 82, 174 s; size alone predicted 3.7 s). The rms error of the log
  halves (hard 1.04 -> 0.63, easy 0.95 -> 0.48, on the sample's classes of 300+
  answers).

A class valued in parts (split.py) first gets a quick bound, and its total says
more again: COST_QUICK predicts the class's cost from the guesses per answer of
that bound, and the class's parts are sized by it (coordinator.Work.on_part).

The spreads cost a scan of SPREAD_GUESSES guesses over each class's members
(about 1 ms a class, 14 s for all classes of 300+ answers of the 12972 openers),
so a run computes them only where they can change a decision (many ranks, --split
auto) and spreads that work over every rank (run.main).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jitcache import install
from ..variant import Mode, Variant

install()  # numba's cache sees an edit to any kernel source (solver/jitcache.py)

# size alone (module docstring)
COST_A1 = {"easy": 2.0e-7, "hard": 3.7e-7, "strict": 3.7e-7}
COST_B1 = 2.6
COST_A2 = {"easy": 6.1e-16, "hard": 4.6e-13, "strict": 4.6e-13}
COST_B2 = {"easy": 5.62, "hard": 4.76, "strict": 4.76}
# size and spread: (a, b, c) of exp(a) * s^b * (s/k)^c, least squares on the log
# over the sample's classes of SPREAD_MIN answers or more (easy 292, hard 351;
# classes measured under 2 s and predicted under 2 s by size were not recorded)
COST_SPREAD = {"easy": (-5.22, -1.554, 9.842), "hard": (-8.242, -0.732, 9.014),
               "strict": (-8.242, -0.732, 9.014)}
SPREAD_MIN = 300
SPREAD_GUESSES = 1000
# after the quick bound (split.QUICK): (a, b, c) of exp(a) * s^b * exp(c * t / s),
# t the quick bound's total, so t / s its guesses per answer after the opener.
# A class whose good strategies need many guesses has much to prove under the
# cap. Least squares on the log over bench/bench_probe.py's classes of SPREAD_MIN
# answers or more (hard 171, easy 135): rms of the log 0.35 hard and 0.18 easy,
# where the spread model has 0.52 and 0.35 on the same classes; the spread adds
# nothing to it. Strict mode takes hard's
COST_QUICK = {"easy": (-51.335, 0.706, 16.166), "hard": (-42.58, 1.707, 11.197),
              "strict": (-42.58, 1.707, 11.197)}


def class_cost(size, mode: Mode, spread=None):
    """Predicted CPU seconds of one class of `size` answers (arrays too). `spread`:
    the class's spread (0 or None: unknown, the size model)."""
    m = mode if mode in COST_A1 else "easy"
    s = np.asarray(size, dtype=np.float64)
    by_size = np.maximum(COST_A1[m] * s**COST_B1, COST_A2[m] * s ** COST_B2[m])
    if spread is None:
        return by_size
    k = np.asarray(spread, dtype=np.float64)
    a, b, c = COST_SPREAD[m]
    with np.errstate(divide="ignore", invalid="ignore"):
        by_spread = np.exp(a) * s**b * (s / np.maximum(k, 1.0)) ** c
    return np.where((k > 0) & (s >= SPREAD_MIN), by_spread, by_size)


def class_sizes(row: np.ndarray, n_patterns: int) -> np.ndarray:
    """Answers per first-feedback pattern of an opener's table row (3^L patterns of
    L-letter words), the all-green class (the last pattern) counted as empty."""
    sizes = np.bincount(row, minlength=n_patterns)
    sizes[n_patterns - 1] = 0
    return sizes


def opener_cost(row: np.ndarray, mode: Mode, n_patterns: int,
                spreads: dict[int, int] | None = None) -> float:
    """Predicted CPU seconds of valuing an opener whole (`spreads`: pattern ->
    spread of its big classes, where known)."""
    sizes = class_sizes(row, n_patterns)
    pats = np.flatnonzero(sizes)
    k = None if not spreads else np.array([spreads.get(int(p), 0) for p in pats])
    return float(np.sum(class_cost(sizes[pats], mode, k)))


def quick_model_applies(size: int, mode: Mode) -> bool:
    """Whether a quick bound's total predicts the cost of a class of `size` answers
    (cost_after_quick): classes of SPREAD_MIN answers or more, in a fitted mode."""
    return mode in COST_QUICK and size >= SPREAD_MIN


def cost_after_quick(size: int, total: int, mode: Mode) -> float | None:
    """Predicted CPU seconds of a class of `size` answers whose quick bound has
    `total` guesses after the opener; None where the model does not apply
    (quick_model_applies) or there is no real total."""
    if not quick_model_applies(size, mode) or total < size:
        return None
    a, b, c = COST_QUICK[mode]
    return float(np.exp(a + b * np.log(size) + c * total / size))


class CostModel:
    """The predictions one run plans with: its game (the mode and the patterns), its
    table, and the spreads of the big classes where they were computed (opener ->
    pattern -> spread)."""

    def __init__(self, variant: Variant, table: np.ndarray,
                 spreads: dict[int, dict[int, int]] | None = None):
        self.mode, self.table, self.n_patterns = variant.mode, table, variant.n_patterns
        self.spreads = spreads or {}

    def of_class(self, index: int, pattern: int, size: int) -> float:
        k = self.spreads.get(index, {}).get(pattern)
        return float(class_cost(size, self.mode, k))

    def of_opener(self, index: int) -> float:
        return opener_cost(self.table[index], self.mode, self.n_patterns,
                           self.spreads.get(index))


# --------------------------------------------------------------------------- spreads


@njit(cache=True, nogil=True)
def _classes_per_guess(tbl, n_p):
    """Feedback classes each guess makes on the whole answer list."""
    seen = np.zeros(n_p, np.int64)
    out = np.zeros(tbl.shape[0], np.int64)
    for g in range(tbl.shape[0]):
        k = 0
        for a in range(tbl.shape[1]):
            p = tbl[g, a]
            if seen[p] != g + 1:
                seen[p] = g + 1
                k += 1
        out[g] = k
    return out


@njit(cache=True, nogil=True)
def _spreads(tbl, n_p, openers, probe, min_size, out):
    """For each opener, the spread of every non-green class of min_size answers or
    more over the probe guesses: rows (opener, pattern, spread) into out; the
    number of rows."""
    green = n_p - 1
    n_a = tbl.shape[1]
    cnt = np.zeros(n_p, np.int64)
    members = np.empty(n_a, np.int64)
    seen = np.zeros(n_p, np.int64)
    stamp = 0
    rows = 0
    for o in openers:
        cnt[:] = 0
        for a in range(n_a):
            cnt[tbl[o, a]] += 1
        for p in range(green):
            if cnt[p] < min_size:
                continue
            n = 0
            for a in range(n_a):
                if tbl[o, a] == p:
                    members[n] = a
                    n += 1
            best = 0
            for g in probe:
                stamp += 1
                k = 0
                for j in range(n):
                    q = tbl[g, members[j]]
                    if seen[q] != stamp:
                        seen[q] = stamp
                        k += 1
                if k > best:
                    best = k
            out[rows, 0] = o
            out[rows, 1] = p
            out[rows, 2] = best
            rows += 1
    return rows


def probe_guesses(table: np.ndarray, n_patterns: int, n: int = SPREAD_GUESSES) -> np.ndarray:
    """The n guesses that make the most classes on the whole answer list (ties: list
    order)."""
    per = _classes_per_guess(table, n_patterns)
    return np.argsort(-per, kind="stable")[:n].astype(np.int64)


def spreads_of(table: np.ndarray, n_patterns: int, openers,
               probe: np.ndarray | None = None, min_size: int = SPREAD_MIN
               ) -> dict[int, dict[int, int]]:
    """opener -> pattern -> spread, for the classes of `min_size` answers or more of
    `openers` (guess indices)."""
    op = np.asarray(list(openers), dtype=np.int64)
    if len(op) == 0:
        return {}
    if probe is None:
        probe = probe_guesses(table, n_patterns)
    most = len(op) * max(1, table.shape[1] // max(1, min_size))
    out = np.zeros((most, 3), np.int64)
    n = _spreads(table, n_patterns, op, probe, max(1, int(min_size)), out)
    got: dict[int, dict[int, int]] = {}
    for o, p, k in out[:n]:
        got.setdefault(int(o), {})[int(p)] = int(k)
    return got
