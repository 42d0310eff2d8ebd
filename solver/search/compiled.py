"""Which search kernels a solver runs: the module compiled ahead of time from
kernels.py (solver.aot: no numba import, no cache lookup, about 0.35 s less CPU per
process) when it can be had and the search context has the layout it was built
for, else numba's jit of the same code. tests/test_compiled_kernels.py checks that
both give the same results."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from ..aot import CompiledKernels, use_compiled
from ..jitcache import JIT_SOURCES
from .layout import CTX_FIELDS, Ctx, ctx_mismatch, field_dtype

_HERE = Path(__file__).resolve().parent


def _exports(pattern: str):
    """The exported kernels for contexts whose tables hold `pattern` codes."""
    import numpy as np
    from numba import from_dtype, types

    from . import kernels as K

    ctx_t = types.NamedTuple(
        [types.Array(from_dtype(field_dtype(dt, pattern)), nd, "C")
         for _, dt, nd in CTX_FIELDS], Ctx
    )
    i64 = types.int64
    node_sig = types.UniTuple(i64, 4)(ctx_t, *[i64] * 7)
    # node calls itself through its jit dispatcher: that one must be compiled (or
    # loaded from numba's cache) first, or numba refuses the re-entry
    K.node.compile(node_sig.args)
    table_t = types.Array(from_dtype(np.dtype(pattern)), 2, "C")
    return [
        ("node", K.node, node_sig),
        ("hard_child_constraint", K.hard_child_constraint, types.none(ctx_t, i64, i64, i64)),
        ("class_bound", K.class_bound, types.UniTuple(i64, 3)(ctx_t, *[i64] * 5)),
        ("guess_classes", K.guess_classes,
         types.none(table_t, i64, types.Array(types.int64, 1, "C"))),
    ]


# the search's kernel sources, as the jit's cache stamp names them, and this recipe
_SOURCES = [p for p in JIT_SOURCES if p.parent == _HERE] + [_HERE / "compiled.py"]
# one module per table dtype: one byte a pattern up to 5 letters, two above (built
# only when a game of 6 letters or more first needs it)
SEARCH = CompiledKernels("wordle_dp_search", _SOURCES, lambda: _exports("uint8"))
SEARCH16 = CompiledKernels("wordle_dp_search16", _SOURCES, lambda: _exports("uint16"))


def kernel_set(ctx: Ctx) -> SimpleNamespace:
    """The kernels that run on `ctx` (`node`, `hard_child_constraint`, `class_bound`,
    `guess_classes`) and `.kind`, "compiled" or "jit" (the reason for the jit in
    `SEARCH.reason`, or SEARCH16's for two-byte tables)."""
    if use_compiled():
        why = ctx_mismatch(ctx)
        which = SEARCH16 if ctx.tbl.dtype.name == "uint16" else SEARCH
        mod = which.module() if why is None else None
        if mod is not None:
            return SimpleNamespace(
                node=mod.node, hard_child_constraint=mod.hard_child_constraint,
                class_bound=mod.class_bound, guess_classes=mod.guess_classes, kind="compiled",
            )
        if why is not None:
            which.reason = why
    from . import kernels as K

    return SimpleNamespace(
        node=K.node, hard_child_constraint=K.hard_child_constraint,
        class_bound=K.class_bound, guess_classes=K.guess_classes, kind="jit",
    )
