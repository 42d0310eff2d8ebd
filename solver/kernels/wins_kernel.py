"""The objective wins' kernel for a set with three guesses left (wins_jit.wins3),
from the compiled module of scan_kernel (numba's jit as the fallback)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..aot import use_compiled
from .scan_kernel import MEASURES

EASY, HARD, STRICT = 0, 1, 2  # wins_jit's modes


def _kernel(table: np.ndarray, name: str) -> Callable:
    """wins_jit's function `name`, from the compiled module where the table has the
    type it was built for (writable, C-contiguous uint8), else numba's jit."""
    if use_compiled() and table.dtype == np.uint8 and table.flags.c_contiguous and \
            table.flags.writeable:
        mod = MEASURES.module()
        if mod is not None:
            return getattr(mod, name)
    from . import wins_jit

    return getattr(wins_jit, name)


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
    _kernel(table, "wins3")(table, letters, np.ascontiguousarray(members, np.int32), cands,
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
    _kernel(table, "same_guesses")(table, letters, np.ascontiguousarray(members, np.int32),
                                   gids, coloured, bool(hard), out)
    return out
