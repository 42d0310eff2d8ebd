"""Which search kernels a solver runs: the module compiled ahead of time from
kernels.py (solver.aot: no numba import, no cache lookup, about 0.35 s less CPU per
process) when it can be had and the search context has the layout it was built
for, else numba's jit of the same code. tests/test_compiled_kernels.py checks that
both give the same results.

The choice is made when a kernel is first called, not when a Solver is made: a
solver whose answers come from a book or a store (the web page's first move, a
worker warming up) never waits for a compile. Only `guess_classes`, which every
Solver runs once, is called before that; until the module is at hand it runs
here in numpy (the same counts; under a second for the default lists)."""

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
    from .ctxref import struct_type

    ctx_t = types.NamedTuple(
        [types.Array(from_dtype(field_dtype(dt, pattern)), nd, "C")
         for _, dt, nd in CTX_FIELDS], Ctx
    )
    i64 = types.int64
    node_sig = types.UniTuple(i64, 4)(ctx_t, *[i64] * 7)
    # _node calls itself through its jit dispatcher: that one must be compiled (or
    # loaded from numba's cache) first, or numba refuses the re-entry; the entry point
    # `node` hands it the context as a StructRef (ctxref.py)
    K._node.compile((struct_type(ctx_t), *node_sig.args[1:]))
    table_t = types.Array(from_dtype(np.dtype(pattern)), 2, "C")
    return [
        ("node", K.node, node_sig),
        ("hard_child_constraint", K.hard_child_constraint, types.none(ctx_t, i64, i64, i64)),
        ("class_bound", K.class_bound_entry, types.UniTuple(i64, 3)(ctx_t, *[i64] * 5)),
        ("guess_classes", K.guess_classes,
         types.none(table_t, i64, types.Array(types.int64, 1, "C"))),
    ]


# the search's kernel sources, as the jit's cache stamp names them, and this recipe
_SOURCES = [p for p in JIT_SOURCES if p.parent == _HERE] + [_HERE / "compiled.py"]
# one module per table dtype: one byte a pattern up to 5 letters, two above (built
# only when a game of 6 letters or more first needs it)
# (seconds: the CPU of a build on the development machine, BENCHMARKS.md: cold start;
# 46-49 s for either since the context became a StructRef, 74-77 s before)
SEARCH = CompiledKernels("wordle_dp_search", _SOURCES, lambda: _exports("uint8"),
                         "the search kernels", 50.0)
SEARCH16 = CompiledKernels("wordle_dp_search16", _SOURCES, lambda: _exports("uint16"),
                           "the search kernels for words of 6 letters or more", 50.0)

KERNELS = ("node", "hard_child_constraint", "class_bound", "guess_classes")


def for_table(dtype) -> CompiledKernels:
    """The module for a pattern table of this dtype."""
    return SEARCH16 if str(dtype) == "uint16" else SEARCH


def guess_classes_np(tbl, n_patterns: int, out) -> None:
    """kernels.guess_classes in numpy: out[g], the distinct codes of tbl[g]."""
    import numpy as np

    rows = max(1, (1 << 22) // max(1, tbl.shape[1]))  # blocks of about 4 M codes
    for s in range(0, tbl.shape[0], rows):
        block = tbl[s:s + rows]
        if n_patterns <= 256:
            seen = np.zeros((len(block), 256), np.bool_)
            seen[np.arange(len(block))[:, None], block] = True
            out[s:s + len(block)] = seen.sum(axis=1)
        elif block.shape[1]:
            srt = np.sort(block, axis=1)
            out[s:s + len(block)] = 1 + np.count_nonzero(np.diff(srt, axis=1), axis=1)
        else:
            out[s:s + len(block)] = 0


class LazyKernels:
    """kernel_set's answer: the kernels of `KERNELS` and `.kind`, chosen (and the
    module built if need be) when one is first read. `guess_classes` before that
    takes the module only if it is already built, else runs in numpy."""

    def __init__(self, ctx: Ctx):
        self._ctx = ctx
        self._compiled = use_compiled()  # as the environment says when the solver is made
        self._chosen: SimpleNamespace | None = None

    def _choose(self) -> SimpleNamespace:
        if self._chosen is None:
            self._chosen = _choose(self._ctx, self._compiled)
            self.__dict__.update(vars(self._chosen))  # read directly from now on
        return self._chosen

    def __getattr__(self, name: str):
        if name not in (*KERNELS, "kind"):
            raise AttributeError(name)
        return getattr(self._choose(), name)

    def guess_classes(self, tbl, n_patterns, out) -> None:
        if self._chosen is None:
            ctx = self._ctx
            ready = (self._compiled and ctx_mismatch(ctx) is None
                     and for_table(ctx.tbl.dtype).find() is not None)
            if not ready:
                guess_classes_np(tbl, n_patterns, out)
                return
        self._choose().guess_classes(tbl, n_patterns, out)

    @property
    def chosen(self) -> bool:
        """Whether the kernels are chosen (a module loaded or the jit taken)."""
        return self._chosen is not None


def kernel_set(ctx: Ctx) -> LazyKernels:
    """The kernels that run on `ctx` (`node`, `hard_child_constraint`, `class_bound`,
    `guess_classes`) and `.kind`, "compiled" or "jit" (the reason for the jit in
    `SEARCH.reason`, or SEARCH16's for two-byte tables), chosen on first use."""
    return LazyKernels(ctx)


def prepare(dtype="uint8") -> bool:
    """Load, or build now, the module for tables of `dtype` (the web app's workers,
    in the background): True when it is at hand."""
    return use_compiled() and for_table(dtype).module() is not None


def _choose(ctx: Ctx, use: bool) -> SimpleNamespace:
    if use:
        why = ctx_mismatch(ctx)
        which = for_table(ctx.tbl.dtype)
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
        class_bound=K.class_bound_entry, guess_classes=K.guess_classes, kind="jit",
    )
