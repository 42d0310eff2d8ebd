"""The search context inside the kernels: one reference, not a tuple of 49 arrays.

Python builds the context as a namedtuple (layout.Ctx) and hands it to the entry
points of the search (kernels.node, kernels.class_bound_entry). numba passes a
tuple by value, and a call with it as an argument takes and drops a reference to
every one of its arrays: about 100 atomic counts per call of a kernel as small as
`partition`, which the search calls for every guess it reads. perf put a third of a
hard search's CPU in them (NRT_incref, NRT_decref: BENCHMARKS.md). So each entry
point copies the tuple's fields once into a StructRef (`as_struct`), and every
kernel below it takes that: a call then counts one reference. Reading a field
(`ctx.arena`) is the same code on either; the kernels are generic over the two, so
tests may still pass the tuple to any kernel.
"""

from __future__ import annotations

from numba import types
from numba.core.extending import overload
from numba.experimental import structref

from ..jitcache import install

install()  # numba's cache sees an edit to any kernel source (solver/jitcache.py)


@structref.register
class CtxStruct(types.StructRef):
    """The StructRef type of a context: the namedtuple's fields, same names and
    array types."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


def struct_type(ctx_type: types.NamedTuple) -> CtxStruct:
    """The StructRef type holding the fields of the namedtuple type `ctx_type`."""
    return CtxStruct(list(zip(ctx_type.fields, ctx_type.types, strict=True)))


def as_struct(ctx):  # pragma: no cover (compiled only: the overload below)
    """The context as a CtxStruct (itself if it is one already)."""
    raise NotImplementedError


@overload(as_struct)
def _as_struct(ctx):
    if isinstance(ctx, CtxStruct):
        return lambda ctx: ctx
    if not isinstance(ctx, types.NamedTuple):
        return None
    st = struct_type(ctx)
    # one assignment per field (numba cannot loop over a tuple's names)
    src = "def impl(ctx):\n    s = new(st)\n" + "".join(
        f"    s.{f} = ctx.{f}\n" for f in ctx.fields) + "    return s\n"
    scope = {"new": structref.new, "st": st}
    exec(src, scope)  # noqa: S102 (our own field names, from layout.CTX_FIELDS)
    return scope["impl"]
