"""The objective wins' kernels for a set with three guesses left (wins_jit.wins3) and
four (wins4_jit.wins4, with its memo of three-guess values, Memo3), from the
compiled module of scan_kernel (numba's jit as the fallback)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..aot import use_compiled
from .scan_kernel import MEASURES

EASY, HARD, STRICT = 0, 1, 2  # wins_jit's modes


STOPPED = -2  # wins4_jit.STOPPED: the guess wins4 gives when the stop flag was seen
# Memo3: its state array's "full" flag, and its largest size (slots; entries are half
# that, the pool of keys 16 int32 a slot: about 180 MB in all)
_M_FULL = 2
MEMO3_SLOTS, MEMO3_MAX_SLOTS = 1 << 12, 1 << 21


def _kernel(table: np.ndarray, name: str) -> Callable:
    """The function `name` of wins_jit or wins4_jit, from the compiled module where
    the table has the type it was built for (writable, C-contiguous uint8), else
    numba's jit."""
    if use_compiled() and table.dtype == np.uint8 and table.flags.c_contiguous and \
            table.flags.writeable:
        mod = MEASURES.module()
        if mod is not None:
            return getattr(mod, name)
    if name == "wins4":
        from . import wins4_jit

        return wins4_jit.wins4
    from . import wins_jit

    return getattr(wins_jit, name)


class Memo3:
    """wins4's memo of three-guess values: an open-addressing table of arrays that
    keeps each key (a class's answers and, in hard mode, its constraint) whole. It
    starts small; when wins4 could not store a value it is made four times larger
    (empty) after the call, and emptied once at its largest size."""

    def __init__(self, slots: int = MEMO3_SLOTS) -> None:
        self._make(slots)

    def _make(self, slots: int) -> None:
        self.slots = np.full(slots, -1, np.int64)
        self.entries = np.zeros((slots // 2, 5), np.int64)
        self.pool = np.zeros(16 * slots, np.int32)
        self.state = np.zeros(3, np.int64)

    def __len__(self) -> int:
        return int(self.state[0])

    def after_call(self) -> None:
        if not self.state[_M_FULL]:
            return
        if len(self.slots) < MEMO3_MAX_SLOTS:
            self._make(4 * len(self.slots))
        else:
            self.slots.fill(-1)
            self.state[:] = 0


def wins3(table: np.ndarray, letters: np.ndarray, members: np.ndarray, cands: np.ndarray,
          spread: np.ndarray, agid: np.ndarray, greens: np.ndarray, mins: np.ndarray,
          mode: int, green: int, need: tuple[int, int] | None,
          memo: Memo3) -> tuple[int, int, int] | None:
    """(wins, total, guess id) of the candidates `members` with three guesses left
    (wins_jit.wins3), searched over `cands` in their order (`spread`: each one's
    patterns over the set); None when no guess has a key (-wins, total) below
    `need`. `memo`: the values of classes with two guesses left."""
    cands = np.ascontiguousarray(cands, np.int64)
    out = np.zeros(3, np.int64)
    need_w, need_t = (-1, 0) if need is None else (-need[0], need[1])
    _kernel(table, "wins3")(table, letters, np.ascontiguousarray(members, np.int32), cands,
                      np.ascontiguousarray(spread, np.int64), agid,
                      greens, mins, int(mode), int(green), int(need_w), int(need_t),
                      memo.slots, memo.entries, memo.pool, memo.state, out)
    memo.after_call()
    if out[2] < 0:
        return None
    return int(out[0]), int(out[1]), int(out[2])


def same_guesses(table: np.ndarray, letters: np.ndarray, members: np.ndarray,
                 gids: np.ndarray, coloured: np.ndarray, hard: bool) -> np.ndarray:
    """For each guess of `gids`, the index of the first one that is the same guess on
    the candidates `members`, or -1 (wins_jit.same_guesses)."""
    gids = np.ascontiguousarray(gids, np.int64)
    out = np.empty(len(gids), np.int64)
    _kernel(table, "same_guesses")(table, letters, np.ascontiguousarray(members, np.int32),
                                   gids, coloured, bool(hard), out)
    return out


def wins4(table: np.ndarray, letters: np.ndarray, counts: np.ndarray, members: np.ndarray,
          cands: np.ndarray, lb: np.ndarray, cap: int, legal: np.ndarray, agid: np.ndarray,
          greens: np.ndarray, mins: np.ndarray, mode: int, green: int,
          need: tuple[int, int] | None, cost: np.ndarray, coloured: np.ndarray, merge: bool,
          params: np.ndarray, stop_at: int, memo: Memo3) -> tuple[int, int, int] | None:
    """(wins, total, guess id) of the candidates `members` with four guesses left
    (wins4_jit.wins4), searched over `cands` in their order; None when no guess has a
    key (-wins, total) below `need`; guess STOPPED when params[stop_at] was set."""
    out = np.zeros(3, np.int64)
    need_w, need_t = (-1, 0) if need is None else (-need[0], need[1])
    _kernel(table, "wins4")(
        table, letters, counts, np.ascontiguousarray(members, np.int32),
        np.ascontiguousarray(cands, np.int64), np.ascontiguousarray(lb, np.int64), int(cap),
        np.ascontiguousarray(legal, np.int64), agid, greens, mins, int(mode), int(green),
        int(need_w), int(need_t), np.ascontiguousarray(cost, np.float64), coloured,
        bool(merge), params, int(stop_at), memo.slots, memo.entries, memo.pool, memo.state,
        out)
    memo.after_call()
    if out[2] == STOPPED:
        return int(out[0]), int(out[1]), STOPPED
    if out[2] < 0:
        return None
    return int(out[0]), int(out[1]), int(out[2])
