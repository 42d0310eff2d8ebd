"""Hard-mode rules in the search kernels: the constraint a history imposes
(greens by position, least copies of each revealed letter), as bit masks over
each guess's row of ctx.hmask, and the constraint after a guess and its feedback.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..jitcache import install

install()  # numba's cache sees an edit to any kernel source (solver/jitcache.py)


@njit(cache=True, nogil=True)
def hard_rules(ctx, d):
    """The hard-mode constraint at depth d as masks over a guess's row of ctx.hmask
    (see hard_ok): (green mask, green letters, min-count bits of levels 1-2, of
    levels 3-4). A guess obeys it when its row has every required bit (and, when
    `hard_high`, enough copies of the letters required five times or more)."""
    gm, gv, m12, m34, _high = _rules(ctx.cgreen, ctx.cmin, d)
    return gm, gv, m12, m34


@njit(cache=True, nogil=True)
def _rules(cgreen, cmin, d):
    """hard_rules, and whether some letter is required five times or more (only
    possible from six letters on: five revealed copies of a 5-letter word's letter
    are five greens, the end of the game)."""
    gm = np.int64(0)
    gv = np.int64(0)
    for i in range(cgreen.shape[1]):
        v = cgreen[d, i]
        if v != 255:
            gm |= np.int64(31) << (5 * i)
            gv |= np.int64(v) << (5 * i)
    m12 = np.int64(0)
    m34 = np.int64(0)
    high = False
    for c in range(26):
        v = np.int64(cmin[d, c])
        high |= v > 4
        for level in range(1, min(v, 4) + 1):
            if level <= 2:
                m12 |= np.int64(1) << (26 * (level - 1) + c)
            else:
                m34 |= np.int64(1) << (26 * (level - 3) + c)
    return gm, gv, m12, m34, high


@njit(cache=True, nogil=True)
def hard_ok(letters5, counts12, counts34, gm, gv, m12, m34):
    """Does a guess whose hmask row is (letters5, counts12, counts34) obey the
    rules from hard_rules? Scalars only: an array argument would cost two atomic
    reference counts per call, and this runs once per pool guess per scan (it was
    40 % of hard-mode time as a function of the letter and count arrays)."""
    return (letters5 & gm) == gv and (counts12 & m12) == m12 and (counts34 & m34) == m34


@njit(cache=True, nogil=True)
def hard_high(letters, g, cmin, d):
    """Does guess g have the copies the constraint at depth d requires of every
    letter required five times or more (the rare rules hard_ok's masks leave out)?"""
    for c in range(26):
        need = cmin[d, c]
        if need > 4:
            have = 0
            for i in range(letters.shape[1]):
                have += letters[g, i] == c
            if have < need:
                return False
    return True


@njit(cache=True, nogil=True)
def hard_legal(ctx, g, d):
    """The whole hard-mode rule for guess g at depth d (for tests and cold paths)."""
    gm, gv, m12, m34, high = _rules(ctx.cgreen, ctx.cmin, d)
    ok = hard_ok(ctx.hmask[g, 0], ctx.hmask[g, 1], ctx.hmask[g, 2], gm, gv, m12, m34)
    return ok and (not high or hard_high(ctx.letters, g, ctx.cmin, d))


@njit(cache=True, nogil=True)
def hard_child_constraint(ctx, g, p, d):
    """Constraint at depth d+1 after guessing g with pattern p at depth d."""
    _child_rules(ctx.cgreen, ctx.cmin, ctx.letters, g, p, d)


@njit(cache=True, nogil=True)
def _child_rules(cg, cm, letters, g, p, d):
    length = letters.shape[1]
    for i in range(length):
        cg[d + 1, i] = cg[d, i]
    for c in range(26):
        cm[d + 1, c] = cm[d, c]
    q = p
    for i in range(length):
        col = q % 3
        q //= 3
        letter = letters[g, i]
        if col == 2:
            cg[d + 1, i] = letter
        if col != 0:
            # count this letter's revealed copies in g (each position once)
            seen = 0
            q2 = p
            for i2 in range(length):
                if q2 % 3 != 0 and letters[g, i2] == letter:
                    seen += 1
                q2 //= 3
            if seen > cm[d + 1, letter]:
                cm[d + 1, letter] = seen
