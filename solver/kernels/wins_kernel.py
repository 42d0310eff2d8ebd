"""The objective wins' kernel for a set with three guesses left (wins_jit.wins3),
from the compiled module of scan_kernel (numba's jit as the fallback)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..aot import use_compiled
from .scan_kernel import MEASURES

EASY, HARD, STRICT = 0, 1, 2  # wins_jit's modes


def _jitted():
    from .wins_jit import wins3

    return wins3


def wins3(table: np.ndarray, letters: np.ndarray, members: np.ndarray, cands: np.ndarray,
          spread: np.ndarray, agid: np.ndarray, greens: np.ndarray, mins: np.ndarray,
          mode: int, green: int, need: tuple[int, int] | None) -> tuple[int, int, int] | None:
    """(wins, total, guess id) of the candidates `members` with three guesses left
    (wins_jit.wins3), searched over `cands` in their order (`spread`: each one's
    patterns over the set); None when no guess has a key (-wins, total) below
    `need`."""
    cands = np.ascontiguousarray(cands, np.int64)
    out = np.zeros(3, np.int64)
    need_w, need_t = (-1, 0) if need is None else (-need[0], need[1])
    fn = None
    if use_compiled() and table.dtype == np.uint8 and table.flags.c_contiguous and \
            table.flags.writeable:
        mod = MEASURES.module()
        if mod is not None:
            fn = mod.wins3
    (fn or _jitted())(table, letters, np.ascontiguousarray(members, np.int32), cands,
                      np.ascontiguousarray(spread, np.int64), agid,
                      greens, mins, int(mode), int(green), int(need_w), int(need_t), out)
    if out[2] < 0:
        return None
    return int(out[0]), int(out[1]), int(out[2])


def same_guesses(table: np.ndarray, letters: np.ndarray, members: np.ndarray,
                 gids: np.ndarray, coloured: np.ndarray, hard: bool) -> np.ndarray:
    """For each guess of `gids`, the index of the first one that is the same guess on
    the candidates `members`, or -1 (wins_jit.same_guesses)."""
    gids = np.ascontiguousarray(gids, np.int64)
    out = np.empty(len(gids), np.int64)
    fn: Callable | None = None
    if use_compiled() and table.dtype == np.uint8 and table.flags.c_contiguous and \
            table.flags.writeable:
        mod = MEASURES.module()
        if mod is not None:
            fn = mod.same_guesses
    if fn is None:
        from .wins_jit import same_guesses as jitted

        fn = jitted
    fn(table, letters, np.ascontiguousarray(members, np.int32), gids, coloured, bool(hard), out)
    return out
