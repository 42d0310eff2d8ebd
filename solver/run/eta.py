"""The run's ETA, a pure function of what the coordinator knows: how much work of
each kind is left and what it has cost so far, and the units in flight.

A kind is whether an opener is valued exactly (True) or under a cutoff (False): a
book's popular openers take seconds each, the rest milliseconds, so each kind's
openers left are weighed by that kind's own mean."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from .units import Unit, Whole

# a kind's [openers left, openers valued, their CPU seconds]
Kinds = Mapping[bool, Sequence[float]]


class SplitLeft(NamedTuple):
    """What the run knows of its split openers (work.Work.split_left)."""

    left: Mapping[int, float]  # each one still open: its classes left, predicted seconds
    valued: Mapping[int, Sequence[float]]  # each one: [predicted, CPU] of classes valued
    unit_cost: Callable[[Unit], float]  # a class unit's predicted seconds


def eta(kinds: Kinds, in_flight: Iterable[tuple[float, Sequence[Unit]]],
        kind_of: Callable[[int], bool], solvers: int, now: float,
        split: SplitLeft | None = None) -> tuple[float, bool]:
    """(seconds left, whether that is an estimate of all of it). `in_flight`: (when
    they went out, the units) of each rank at work; `kind_of(index)`: the kind of
    opener `index`; `solvers`: the solving ranks; `now`: the time, on the clock of
    `in_flight`.

    Each kind's openers left cost its mean CPU so far; while a kind still to do has
    no mean yet, what the others need (a lower bound). Units in flight count what
    they have left: their expected cost less the time they have run, but at least
    that time again once they run past it (a unit that has outlived its mean is a
    dear one, and dear ones run long: the last openers of a book take minutes where
    the mean says seconds). The wall time is that work over the solvers, but never
    less than the longest unit in flight has left, nor than one opener of a kind
    still queued: an opener is never shared by ranks.

    `split`: once a class of a split opener of a kind has been valued, the split
    openers of that kind still open cost the cost model's predictions for their
    classes left, scaled by what the kind's classes valued so far took against
    theirs, instead of their kind's mean (a run of one split opener has no mean at
    all, and had no ETA)."""
    scale: dict[bool, float] = {}  # a kind's CPU per predicted second of its classes
    by_classes = {True: 0, False: 0}  # split openers costed by their classes
    classes_work = 0.0
    if split is not None:
        valued = {True: [0.0, 0.0], False: [0.0, 0.0]}
        for i, (pred, cpu) in split.valued.items():
            valued[kind_of(i)][0] += pred
            valued[kind_of(i)][1] += cpu
        scale = {k: cpu / pred for k, (pred, cpu) in valued.items() if pred > 0}
        for i, pred in split.left.items():
            k = kind_of(i)
            if k in scale:
                by_classes[k] += 1
                classes_work += scale[k] * pred
    todo = {k: max(0, int(n_left) - by_classes[k]) for k, (n_left, _, _) in kinds.items()}
    if not any(n for _, n, _ in kinds.values()) and not scale:
        return float("inf"), False  # nothing valued yet: no scale at all
    mean = {k: cpu / n if n else 0.0 for k, (_, n, cpu) in kinds.items()}
    whole = all(kinds[k][1] for k in kinds if todo[k] > 0)
    work = classes_work + sum(todo[k] * mean[k] for k in kinds)
    longest = 0.0
    flying = {True: 0, False: 0}
    for t0, units in in_flight:
        ran = max(0.0, now - t0)
        # a whole opener's cost is its kind's mean; a class or a part of one: its
        # scaled prediction (in classes_work), else unknown here (its opener's cost
        # is counted with the openers left)
        cost = 0.0
        for u in units:
            if isinstance(u, Whole):
                kind = kind_of(u.index)
                cost += mean[kind]
                flying[kind] += 1
            elif split is not None and kind_of(u.index) in scale:
                cost += scale[kind_of(u.index)] * split.unit_cost(u)
        left = max(cost - ran, ran)
        work += left - cost
        longest = max(longest, left)
    queued = [mean[k] for k in kinds if todo[k] > flying[k]]
    wall = max(work / max(1, solvers), longest, max(queued, default=0.0))
    if not whole and wall == 0:
        return float("inf"), False
    return wall, whole
