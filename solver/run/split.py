"""Work below the opener: an expensive opener valued as its first-feedback classes
on different ranks, and the classes checkpointed in the result store.

Why: the unit of work used to be a whole opener, so the worst opener (qajaq, about
400 s in easy mode) set the finish time of a many-rank run. An opener's value is
len(answers) plus the values of its non-green first-feedback classes, and each
class can be valued alone (Solver.class_value, on the search path `solve` takes
for it), so rank 0 can hand the classes of a big opener to different ranks and add
up what comes back.

Which openers (`plan`): with --split auto, those whose predicted cost (costs.py)
is above SPLIT_SHARE of a solving rank's fair share of the run (the predicted cost
of all the work over the number of solving ranks); --split all splits every opener (tests,
benchmarks); --split off none. An opener with classes already checkpointed is
always split, so a resumed run finishes it from there. Never planned under a
cutoff: there `solve` refutes most openers from bounds over all their classes at
once, in well under a second, and a class valued alone cannot take part in that;
a cutoff run values every opener whole.

Under a cutoff X, an opener taken back from its rank when the queue runs dry (a
steal, loop.py) is split all the same. Its rank hands back the classes it valued
and a lower bound of each of the others (the facts its refutation started from,
Solver.solve's on_bounds). Each class then goes out with a budget (Classes.budgets),
set as it goes out: X less len(answers) and what is known of every other class (its
value, or its lower bound). Valued below its budget a class is exact; at its budget
it comes back as a lower bound, which shows the opener at X or over (`lower_total`
sums the bounds: at least the budget plus the others' bounds). Those bounds only
rise as classes come back, so a budget set earlier stays sound. Such a split's
classes go out whole (no parts), each alone and in a chunk of its own, smallest
first as `solve` takes them under a budget (a chunk's budgets would all be set
before any of its classes came back: trine, hard, today's lists, was valued
exactly at 11750, 58 s, under a cutoff of 11679 that way), and its lower bounds
never enter the checkpoint: they depend on the budget, the checkpoint's values
only on the problem.

The units of a split opener: its smallest classes, together up to HEAD_FRACTION
of the opener's predicted cost, go first as one 'head' unit solved smallest first,
as `solve` does; every other class goes out alone, costliest first, in the
opener's place in the queue, once the head came back without settling the
opener: in hard mode about one opener in
ten is infeasible, almost always through a small class, which `solve` finds in
well under a second (fesse: 0.2 s) and which would otherwise cost every big class
too (fesse: 48 s).

The status rules (`combine`) are solve's: the opener is infeasible if a class is;
not_found (stored as failed, as an unsplit not_found is) if a class is; a lower
bound if a class stopped at its budget, or (under a cutoff) once what is known of
its classes sums to the cutoff; an upper bound if a class is one (a beam or
the uncapped depth limit restricted it); else exact, with total len(answers) plus
the class totals and depth the deepest class's. Those rules do not depend on the
order of the classes, so any rank may value any class.

The checkpoint (`ClassStore`, store/classes.py): a Zarr group 'classes' inside the store folder,
arrays [G, 3^L] over (opener, pattern): 'value' (uint64: status, total, depth and
best second guess packed in one word; 0 = not valued) and 'cpu_seconds'
(float32). Chunks of CHUNK_ROWS openers, written only where a class was valued.
A chunk file is replaced whole (Zarr writes a temporary file and renames it), and
one word holds all of a class, so a SIGKILL at any moment leaves every class
either valued with all its fields or not valued. Rank 0 writes the classes before
the openers they complete. The checkpoint also keeps the class values of every
exact opener valued whole (the worker has them from its solve's memo): the
opening book is written from them (has_class_values). A class value depends
only on the problem (lists, mode, cap), never on a cutoff, so it stays valid for
every later run of the store. The group is a cache of work: a missing or
unreadable part only means those classes are valued again.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..status import Status
from ..store import (
    EXACT,
    FAILED,
    INFEASIBLE,
    LOWER_BOUND,
    PENDING,
    UPPER_BOUND,
)
from ..store.classes import (  # noqa: F401 (the run's names for them)
    CHUNK_ROWS,
    GROUP,
    ClassResult,
    ClassStore,
    pack,
    unpack,
)
from ..variant import Mode
from .costs import class_cost, class_sizes

# Split an opener predicted above this part of a solving rank's fair share. An opener
# well below its share cannot make the run late by itself, and splitting it only adds
# messages; a third, not all of it, because the predictions miss: the heaviest
# classes run up to 2.5-4x what even the best model says (costs.py). Chosen on
# bench/sim_schedule.py's 500-opener samples (BENCHMARKS.md, issue 23), from 0.5,
# 0.35 and 0.25 with PART_SHARE 0.25: 1024 ranks easy 91 / 89 / 87 %, hard 75 / 83 /
# 83 %; 4096 ranks easy 35 / 29 / 24 %: more splitting lengthens the tail there
SPLIT_SHARE = 0.35
HEAD_FRACTION = 0.05  # classes predicted below this part of their opener: one head unit

def classes_of(row: np.ndarray, n_patterns: int) -> list[tuple[int, int]]:
    """(pattern, size) of the non-green classes of an opener's table row, in the
    order `solve` values them: smallest first, ties by pattern, highest first."""
    counts = class_sizes(row, n_patterns)
    cls = [(int(p), int(counts[p])) for p in np.flatnonzero(counts)]
    cls.sort(key=lambda pc: -pc[1])  # solve: largest first (stable over patterns) ...
    return cls[::-1]  # ... then reversed


@dataclass
class ClassBound:
    """A lower bound of one class of an opener cut short under a cutoff, not valued
    yet (Solver.solve's on_bounds): what that class's total is known to reach."""

    index: int
    pattern: int
    total: int
    wall_seconds: float = 0.0  # (none of its own: the loop sums a unit's results')


def known(r: ClassResult, bound: int) -> int:
    """What a valued class counts for in an opener's lower total: its value, or, if
    it stopped at its budget, the larger of that bound and the one known before."""
    return max(r.total, bound) if r.status == LOWER_BOUND else r.total


def combine(n_answers: int, results: list[ClassResult],
            bounds: dict[int, int] | None = None, rest: int = 0) -> tuple[int, int, int]:
    """(status code, total, depth) of an opener from its classes' results, by
    solve's rules (module docstring); total and depth -1 where solve has none.
    `bounds`: lower bounds known of the classes before they were valued; `rest`:
    the sum of those of the classes not valued (a split settled under a cutoff
    before all came back: a lower bound)."""
    codes = {r.status for r in results}
    for code in (INFEASIBLE, FAILED):
        if code in codes:
            return code, -1, -1
    b = bounds or {}
    total = n_answers + rest + sum(known(r, b.get(r.pattern, 0)) for r in results)
    if LOWER_BOUND in codes or rest:
        return LOWER_BOUND, total, -1
    depth = max([1] + [r.depth for r in results])
    return (UPPER_BOUND if UPPER_BOUND in codes else EXACT), total, depth


# A class valued in parts (Solver.class_part), when one class alone would make the
# run late: first the quick bound (the best of the search's first QUICK candidate
# second guesses: 1.8 s, and the optimum itself, on qajaq's
# all-grey class), then `parts` units, each the second guesses g = j mod parts,
# refuted against that bound or beating it. Auto: classes predicted above
# PART_SHARE of a solving rank's fair share, in enough parts that each is predicted
# at a quarter of the share (16 parts together cost 1.8 times the whole class,
# bench/bench_parts.py on qajaq, and the heaviest classes run up to 2.5-4x their
# prediction), at most MAX_PARTS (never more than the solving ranks). A quarter, not
# a half: hard mode at 256 ranks 80 -> 98 %, nothing lost elsewhere (the schedule
# simulation, BENCHMARKS.md)
QUICK = 10
PART_SHARE = 0.25
# auto: a class predicted above PROBE_SHARE of the share, where the quick bound's
# total predicts its cost (costs.cost_after_quick), gets the quick bound first
# and is sized by that prediction instead (hard tutti's all-grey class: 69 s
# predicted by its spread, 256 s measured, 101 s from its quick bound)
PROBE_SHARE = 0.1
MAX_PARTS = 64


def parts_for(size: int, cost: float, share: float, workers: int,
              forced: int | None) -> int:
    """How many parts a class of `size` answers and predicted `cost` seconds
    (costs.CostModel) is valued in (1: whole). `forced`: run --parts N values every
    class of more than two answers in N parts (0: never); None: the auto rule above,
    by the predicted cost against `share`."""
    if forced is not None:
        return forced if size > 2 and forced > 1 else 1
    if workers < 2 or share <= 0 or cost <= PART_SHARE * share:
        return 1
    return max(1, min(MAX_PARTS, workers, math.ceil(4.0 * cost / share)))


@dataclass
class PartResult:
    """What a worker found for one part of a class (parts < 0: the quick bound)."""

    index: int
    pattern: int
    part: int
    parts: int
    found: tuple[int, int, int, bool] | None  # (total, depth, second guess id, tainted)
    cpu_seconds: float = float("nan")
    wall_seconds: float = float("nan")
    nodes: int = -1
    rank: int = -1


@dataclass
class Parts:
    """Rank 0's view of one class valued in parts."""

    parts: int
    out: int  # parts not back yet
    found: list[tuple[int, int, int, bool]] = field(default_factory=list)
    cpu_seconds: float = 0.0  # of the quick bound and the parts so far
    nodes: int = 0
    longest: PartResult | None = None  # the part of most CPU (its rank and wall time)

    def add(self, pr: PartResult) -> None:
        self.cpu_seconds += pr.cpu_seconds if math.isfinite(pr.cpu_seconds) else 0.0
        self.nodes += max(pr.nodes, 0)
        if self.longest is None or pr.cpu_seconds > self.longest.cpu_seconds:
            self.longest = pr
        if pr.found is not None:
            self.found.append(pr.found)


def least_part(found: list[tuple]) -> tuple | None:
    """A class valued in parts (Solver.class_part): the least total of the quick
    bound and of what the parts found below it, (total, depth, second guess,
    tainted); the first of equal totals (the quick bound's, listed first)."""
    best = None
    for f in found:
        if best is None or f[0] < best[0]:
            best = f
    return best


def decisive(r: ClassResult) -> bool:
    """Whether one class settles its opener whatever the others are (a lower bound:
    the class reached the budget the others' bounds left it)."""
    return r.status in (INFEASIBLE, FAILED, LOWER_BOUND)


def kept(r: ClassResult) -> bool:
    """Whether a class result goes to the checkpoint: valued, and not a lower bound
    (that depends on the budget it was valued under)."""
    return r.status not in (PENDING, LOWER_BOUND)


def second_row(results: list[ClassResult], n_patterns: int) -> np.ndarray:
    """The opener's second-guess row (-1 where none is known)."""
    row = np.full(n_patterns, -1, dtype=np.int32)
    for r in results:
        if r.second >= 0:
            row[r.pattern] = r.second
    return row


def class_status_code(status: str) -> int:
    """Store code of a class status from Solver.class_value (not_found -> FAILED)."""
    return Status(status).code


# --------------------------------------------------------------------------- planning


@dataclass
class Split:
    """One opener valued as classes: what is known and what is still to do."""

    index: int
    classes: list[tuple[int, int]]  # (pattern, size), solve's order
    done: dict[int, ClassResult] = field(default_factory=dict)
    head: tuple[int, ...] = ()  # patterns of the head unit (empty: none or done)
    big: list[tuple[int, ...]] = field(default_factory=list)  # units waiting for the head
    started: float = math.nan
    finished: bool = False
    # taken back from a rank still valuing it whole when the queue ran dry (the
    # idle ranks share what is left: its biggest classes, each in parts)
    stolen: bool = False
    # under a cutoff (module docstring): the cutoff, and the lower bounds its rank
    # knew of the classes it had not valued (2c - 1 for a class of c answers where
    # none is known)
    cutoff: int | None = None
    bounds: dict[int, int] = field(default_factory=dict)
    answers: int = 0  # len(answers): every answer's first guess

    def todo(self) -> list[tuple[int, int]]:
        return [(p, s) for p, s in self.classes if p not in self.done]

    def bound(self, pattern: int, size: int) -> int:
        """The lower bound known of a class before it is valued."""
        return max(self.bounds.get(pattern, 0), 2 * size - 1)

    def rest(self) -> int:
        """The lower bounds of the classes not valued, summed."""
        return sum(self.bound(p, s) for p, s in self.todo())

    def lower_total(self) -> int:
        """A lower bound of the opener's total from what is known of each class."""
        sizes = dict(self.classes)
        return self.answers + self.rest() + sum(
            known(r, self.bound(p, sizes[p])) for p, r in self.done.items())

    def budget(self, pattern: int) -> int:
        """Under a cutoff, the budget of a class not valued: the cutoff less
        len(answers) and what is known of every other class."""
        assert self.cutoff is not None
        size = dict(self.classes)[pattern]
        return self.cutoff - self.lower_total() + self.bound(pattern, size)

    def settled(self) -> bool:
        """Every class valued, one that decides the opener alone, or (under a
        cutoff) what is known at the cutoff or over."""
        return (not self.todo() or any(decisive(r) for r in self.done.values())
                or (self.cutoff is not None and self.lower_total() >= self.cutoff))


def make_units(split: Split, cost: Callable[[int, int], float]) -> None:
    """Fill split.head (the cheapest classes, smallest first, up to HEAD_FRACTION of
    the opener's predicted cost together) and split.big (every other class alone,
    the costliest first) from the classes still to value. `cost(pattern, size)`: a
    class's predicted seconds."""
    todo = split.todo()
    each = [cost(p, s) for p, s in todo]
    whole = sum(each)
    head: list[int] = []
    acc = 0.0
    for (p, _s), c in zip(todo, each, strict=True):
        acc += c
        if acc > HEAD_FRACTION * whole:
            break
        head.append(p)
    split.head = tuple(head)
    rest = list(zip(todo[len(head):], each[len(head):], strict=True))
    rest.reverse()  # biggest first; the costliest first where predictions differ
    rest.sort(key=lambda pc: -pc[1])
    split.big = [(p,) for (p, _s), _c in rest]


def plan(costs: dict[int, float], workers: int, how: str, forced: set[int],
         fraction: float = SPLIT_SHARE, share: float | None = None) -> set[int]:
    """Openers to split: `forced` (partly valued already) and, by `how`, all of them
    or those predicted above `fraction` of a worker's fair share (`share`; default
    the openers' costs over the workers)."""
    if how == "all":
        return set(costs)
    out = {i for i in forced if i in costs}
    if how == "auto" and workers > 1 and costs:
        if share is None:
            share = sum(costs.values()) / workers
        out |= {i for i, c in costs.items() if c > fraction * share}
    return out


# --------------------------------------------------------------------------- affinity

# A shared class worth keeping on one rank: at least this part of its opener's
# predicted cost (below it, the bundle saves little and only constrains the order)
AFFINITY_PART = 0.25


def affinity(table: np.ndarray, costs: dict[int, float], mode: Mode, share: float,
             n_patterns: int) -> list[list[int]]:
    """Bundles of openers (two or more) whose most expensive first-feedback class is
    the same set of answers, at least AFFINITY_PART of their predicted cost: given
    to one rank back
    to back, the second finds that class's value in the memo the first left, at no
    cost (anagrams share their all-grey class). A bundle stays within `share` (a
    rank's fair share), so it never becomes the run's longest unit. Easy mode: any
    class; hard and strict modes only the all-grey one, whose position carries no
    constraint from the opener (the memo key holds the constraint)."""
    rng = np.random.default_rng(2026)
    z = np.asarray(rng.integers(0, 2**63 - 1, size=table.shape[1], dtype=np.int64),
                   dtype=np.uint64)
    groups: dict[tuple[int, int], list[int]] = {}
    shared: dict[tuple[int, int], float] = {}
    for i in costs:
        row = table[i]
        cnt = class_sizes(row, n_patterns)
        p = int(np.argmax(cnt))
        c = float(class_cost(cnt[p], mode))
        if c < AFFINITY_PART * costs[i] or (mode != Mode.EASY and p != 0):
            continue
        key = (int(z[row == p].sum(dtype=np.uint64)), int(cnt[p]))
        groups.setdefault(key, []).append(i)
        shared[key] = c
    out = []
    for key, members in groups.items():
        members.sort(key=lambda i: (-costs[i], i))
        bundle: list[int] = []
        load = 0.0
        for i in members:
            extra = costs[i] - (shared[key] if bundle else 0.0)
            if bundle and load + extra > share:
                if len(bundle) > 1:
                    out.append(bundle)
                bundle, load, extra = [], 0.0, costs[i]
            bundle.append(i)
            load += extra
        if len(bundle) > 1:
            out.append(bundle)
    return out


def bundle_cost(costs: dict[int, float], bundle: list[int], table: np.ndarray,
                mode: Mode, n_patterns: int) -> float:
    """Predicted cost of a bundle: its openers, the shared class once."""
    cnt = class_sizes(table[bundle[0]], n_patterns)
    return sum(costs[i] for i in bundle) - (len(bundle) - 1) * float(
        class_cost(cnt.max(), mode))


# --------------------------------------------------------------------------- checkpoint

def has_class_values(classes: ClassStore, index: int, row: np.ndarray,
                     n_patterns: int) -> bool:
    """Whether the checkpoint holds the exact value of every non-green class of
    opener `index` (its table row `row`): what the opening book needs of an exact
    opener."""
    got = classes.results(index)
    return all(p in got and got[p].status == EXACT for p, _ in classes_of(row, n_patterns))
