"""The run's ETA, a pure function of what the coordinator knows: how much work of
each kind is left and what it has cost so far, and the units in flight.

A kind is whether an opener is valued exactly (True) or under a cutoff (False): a
book's popular openers take seconds each, the rest milliseconds, so each kind's
openers left are weighed by that kind's own mean."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from .units import Unit, Whole

# a kind's [openers left, openers valued, their CPU seconds]
Kinds = Mapping[bool, Sequence[float]]


def eta(kinds: Kinds, in_flight: Iterable[tuple[float, Sequence[Unit]]],
        kind_of: Callable[[int], bool], solvers: int, now: float) -> tuple[float, bool]:
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
    still queued: an opener is never shared by ranks."""
    if not any(n for _, n, _ in kinds.values()):
        return float("inf"), False  # nothing valued yet: no scale at all
    mean = {k: cpu / n if n else 0.0 for k, (_, n, cpu) in kinds.items()}
    whole = all(n for n_left, n, _ in kinds.values() if n_left > 0)
    work = sum(n_left * mean[k] for k, (n_left, _, _) in kinds.items())
    longest = 0.0
    flying = {True: 0, False: 0}
    for t0, units in in_flight:
        ran = max(0.0, now - t0)
        # a whole opener's cost is its kind's mean; a class or a part of one:
        # unknown here (its opener's cost is counted with the openers left)
        cost = 0.0
        for u in units:
            if isinstance(u, Whole):
                kind = kind_of(u.index)
                cost += mean[kind]
                flying[kind] += 1
        left = max(cost - ran, ran)
        work += left - cost
        longest = max(longest, left)
    queued = [mean[k] for k, (n_left, _, _) in kinds.items() if n_left > flying[k]]
    wall = max(work / max(1, solvers), longest, max(queued, default=0.0))
    if not whole and wall == 0:
        return float("inf"), False
    return wall, whole
