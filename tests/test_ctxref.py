"""The search context as one reference inside the kernels (solver/search/ctxref.py):
the StructRef holds the tuple's own arrays (what a kernel writes, Python reads),
and the kernels give the same answers whichever of the two they are handed."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from solver.search import kernels as K
from solver.search.bounds import set_bound
from solver.search.constraint import no_constraint
from solver.search.ctxref import CtxStruct, as_struct, struct_type
from solver.search.engine import Solver
from solver.search.layout import CTX_FIELDS, ST_NODES
from solver.words import WordLists


@njit
def _write_through(ctx, v):
    s = as_struct(ctx)
    s.stats[ST_NODES] = v
    again = as_struct(s)  # a StructRef is passed on as it is
    return again.arena.shape[0], again.tbl.shape[0], again.stats[ST_NODES]


def _ctx():
    return Solver(WordLists.load(length=4), mode="easy")._ctx


def test_the_struct_shares_the_tuples_arrays():
    ctx = _ctx()
    before = ctx.stats.copy()
    n_arena, n_guesses, seen = _write_through(ctx, 12345)
    assert (n_arena, n_guesses, seen) == (len(ctx.arena), ctx.tbl.shape[0], 12345)
    assert ctx.stats[ST_NODES] == 12345  # written through the struct, read in Python
    ctx.stats[:] = before


def test_the_struct_type_has_every_field_of_the_layout():
    _write_through(_ctx(), 0)
    st = _write_through.nopython_signatures[0].args[0]  # the tuple's numba type
    names = [name for name, _, _ in CTX_FIELDS]
    s = struct_type(st)
    assert isinstance(s, CtxStruct)
    assert list(s.field_dict) == names
    assert list(s.field_dict.values()) == list(st.types)


@njit
def _set_bound_via_struct(ctx, n, ceil):
    return set_bound(as_struct(ctx), 0, n, 1, 0, ceil)


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_a_kernel_answers_the_same_on_the_tuple_and_on_the_struct(mode):
    """The look-ahead bound (set_bound: pools, tables, counts, the hard-mode rules)
    on every class of three openers of the 4-letter lists, with and without a
    ceiling: the tuple and the StructRef give the same bound."""
    s = Solver(WordLists.load(length=4), mode=mode)
    ctx = s._ctx
    members = np.arange(len(s.lists.answers), dtype=np.int32)
    start = no_constraint(4)
    checked = 0
    for opener in (0, 7, 100):
        for p, m in s._classes(opener, members):
            if len(m) < 3:
                continue
            ctx.arena[:len(m)] = m
            if mode == "hard":
                cons = s._constraint_after(start, opener, p)
                ctx.cgreen[1], ctx.cmin[1] = cons[0], cons[1]
            want = int(K.set_bound(ctx, 0, len(m), 1))
            assert int(_set_bound_via_struct(ctx, len(m), K.INF)) == want
            assert int(_set_bound_via_struct(ctx, len(m), want - 1)) == want - 1
            checked += 1
    assert checked >= 10
