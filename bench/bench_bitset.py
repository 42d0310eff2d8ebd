"""Bitset sets against id lists for the search's hottest step: counting the feedback
classes of every guess on a set S (the pool scan).

id list (what the engine does): S is an array of n answer ids; one table read per
member and guess (answer-major table, one hot row per member).
bitset: S is a 2315-bit set (37 words); per guess, the answers giving each pattern
are precomputed as bitsets (only the patterns the guess can give), and a class
exists iff popcount(S & B[g, p]) > 0, at 37 AND+popcount per pattern.

    python bench/bench_bitset.py          # CPU microseconds per guess scanned, by n
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from solver.table import get_table
from solver.words import WordLists


@njit(cache=True)
def scan_ids(tblT, members, guesses):
    total = 0
    cnt = np.zeros(243, np.uint8)
    for g in guesses:
        k = 0
        for a in members:
            p = tblT[a, g]
            if cnt[p] == 0:
                cnt[p] = 1
                k += 1
        for a in members:
            cnt[tblT[a, g]] = 0
        total += k
    return total


@njit(cache=True)
def scan_bits(bits, start, sbits, guesses):
    total = 0
    for g in guesses:
        k = 0
        for r in range(start[g], start[g + 1]):
            for w in range(sbits.shape[0]):
                if bits[r, w] & sbits[w]:
                    k += 1
                    break
        total += k
    return total


def main() -> None:
    lists = WordLists.load()
    table, _ = get_table(lists)
    n_g, n_a = table.shape
    words = (n_a + 63) // 64
    rng = np.random.default_rng(1)
    guesses = rng.choice(n_g, 2000, replace=False).astype(np.int64)
    # per guess, one bitset per pattern it gives on the full answer list
    rows, start = [], [0]
    for g in range(n_g):
        for p in np.unique(table[g]):
            b = np.zeros(words * 64, np.uint8)
            b[: n_a] = table[g] == p
            rows.append(np.packbits(b, bitorder="little").view(np.uint64))
        start.append(len(rows))
    bits = np.array(rows)
    start = np.array(start, np.int64)
    print(f"bitsets: {bits.nbytes / 2**20:.0f} MB ({len(rows) / n_g:.0f} patterns per guess)")
    tblT = np.ascontiguousarray(table.T)
    for n in (20, 50, 150, 400, 1000):
        members = np.sort(rng.choice(n_a, n, replace=False)).astype(np.int64)
        sb = np.zeros(words * 64, np.uint8)
        sb[members] = 1
        sbits = np.packbits(sb, bitorder="little").view(np.uint64)
        assert scan_ids(tblT, members, guesses) == scan_bits(bits, start, sbits, guesses)
        res = []
        for f, args in ((scan_ids, (tblT, members, guesses)),
                        (scan_bits, (bits, start, sbits, guesses))):
            best = 1e9
            for _ in range(3):
                t = time.process_time()
                f(*args)
                best = min(best, time.process_time() - t)
            res.append(best / len(guesses) * 1e6)
        print(f"n={n:5d}: id lists {res[0]:6.2f} us per guess, "
              f"bitsets {res[1]:6.2f} us ({res[1] / res[0]:.1f}x)")


if __name__ == "__main__":
    main()
