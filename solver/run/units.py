"""The units of work rank 0 hands out, one small frozen class a shape: an opener
valued whole, some first-feedback classes of a split opener, or one part of a
class valued in parts. Each names its opener's guess index (`index`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, order=True)
class Whole:
    """Opener `index` valued whole (under the run's cutoff, if any)."""

    index: int


@dataclass(frozen=True, slots=True, order=True)
class Classes:
    """Those first-feedback classes of opener `index`, in this order, stopping at
    one that settles the opener (split.py); under a cutoff with `budgets`, one per
    class: each class is valued exactly only below its budget (Solver.class_value),
    set by rank 0 as the unit goes out (empty: none)."""

    index: int
    patterns: tuple[int, ...]
    budgets: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True, order=True)
class Part:
    """Part `part` of `parts` of the class `pattern` of opener `index`
    (Solver.class_part; parts < 0: the quick bound), against the total `below`
    (< 0: none)."""

    index: int
    pattern: int
    part: int
    parts: int
    below: int


Unit = Whole | Classes | Part
