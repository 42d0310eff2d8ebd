"""The one-pass kernel behind solver.game.measures and the objective wins (scan):
class sizes of a candidate set under each guess, reduced to the raw columns below.
Compiled ahead of time like the search kernels (solver.aot), numba's jit as the
fallback. The same compiled module holds the objective wins' kernel (wins_kernel)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..aot import CompiledKernels, use_compiled
from .scan_columns import ENTROPY, EST, HIT, PATTERNS, SUMSQ, WORST  # noqa: F401 (re-exported)


def _jitted():
    from .scan_jit import scan

    return scan


def _exports():
    from numba import types

    from .wins4_jit import wins4
    from .wins_jit import same_guesses, wins3

    sig = types.none(types.uint8[:, ::1], types.int32[::1], types.int64[::1],
                     types.float64[::1], types.int64, types.float64[:, ::1])
    i64, u8 = types.int64, types.uint8
    wins_sig = types.none(u8[:, ::1], u8[:, ::1], types.int32[::1], i64[::1], i64[::1],
                          i64[::1], u8[::1], u8[::1], i64, i64, i64, i64, i64[::1],
                          i64[:, ::1], types.int32[::1], i64[::1], i64[::1])
    same_sig = types.none(u8[:, ::1], u8[:, ::1], types.int32[::1], i64[::1], i64[::1],
                          types.boolean, i64[::1])
    f64, b1 = types.float64, types.boolean
    wins4_sig = types.none(u8[:, ::1], u8[:, ::1], u8[:, ::1], types.int32[::1], i64[::1],
                           i64[::1], i64, i64[::1], i64[::1], u8[::1], u8[::1], i64, i64, i64,
                           i64, f64[::1], i64[::1], b1, i64[::1], i64, i64[::1], i64[:, ::1],
                           types.int32[::1], i64[::1], i64[::1])
    return [("scan", _jitted(), sig), ("wins3", wins3, wins_sig),
            ("same_guesses", same_guesses, same_sig), ("wins4", wins4, wins4_sig)]


_HERE = Path(__file__).resolve().parent
MEASURES = CompiledKernels(
    "wordle_dp_measures",
    [_HERE / "scan_jit.py", _HERE / "scan_kernel.py", _HERE / "scan_columns.py",
     _HERE / "wins_jit.py", _HERE / "wins4_jit.py"], _exports,
    seconds=12.0,  # 14.6 s of CPU at load 3.1, 9.4 without wins4 (BENCHMARKS: 6.8 then)
)


def scan(table: np.ndarray, members: np.ndarray, gids: np.ndarray, green: int,
         cost: np.ndarray | None = None) -> np.ndarray:
    """float64 (len(gids), 6): per guess the raw columns SUMSQ, ENTROPY, WORST,
    PATTERNS, HIT, EST (sum of cost[c] over non-green classes; 0 without cost).
    `green`: the all-green code of the game (Variant.all_green)."""
    out = np.zeros((len(gids), 6), np.float64)
    if len(members) == 0 or len(gids) == 0:
        return out
    if cost is None:
        cost = np.zeros(len(members) + 1)
    scan_kernel(table)(table, np.ascontiguousarray(members, np.int32),
                       np.ascontiguousarray(gids, np.int64),
                       np.ascontiguousarray(cost, np.float64), int(green), out)
    return out


def scan_kernel(table: np.ndarray):
    """The scan to run over `table`: compiled when the table has the type it was
    built for (writable, C-contiguous uint8, words of up to 5 letters; the caller
    makes the other arrays contiguous), else the jitted one."""
    if use_compiled() and table.dtype == np.uint8 and table.ndim == 2 and (
            table.flags.c_contiguous and table.flags.writeable):
        mod = MEASURES.module()
        if mod is not None:
            return mod.scan
    return _jitted()
