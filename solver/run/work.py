"""What rank 0 plans and hands out: the order of the openers, the Work queue
(units by predicted cost, most expensive first; openers whole, as classes, or
classes in parts) and the plan that fills it (plan_work)."""

from __future__ import annotations

import heapq
import inspect
import math
import time
from dataclasses import replace

import numpy as np

from ..store import EXACT, FAILED, PENDING, UPPER_BOUND, Record, Store
from ..variant import Mode, Objective, Variant
from .config import RunConfig
from .costs import CostModel, cost_after_quick, quick_model_applies
from .cutoffs import Cutoffs
from .eta import SplitLeft
from .split import (
    MAX_PARTS,
    PROBE_SHARE,
    QUICK,
    ClassResult,
    ClassStore,
    PartResult,
    Parts,
    Split,
    affinity,
    bundle_cost,
    classes_of,
    combine,
    least_part,
    make_units,
    parts_for,
    plan,
    second_row,
)
from .units import Classes, Part, Unit, Whole


def fallback_estimate(table: np.ndarray, index: int) -> float:
    """Cost guess without the engine: sum of squared feedback-class sizes."""
    c = np.bincount(table[index]).astype(np.float64)
    return float((c * c).sum())


class Work:
    """What rank 0 still has to hand out: units in a heap by predicted cost, most
    expensive first (ties: first added first), and the openers valued as classes
    (split): their head unit goes where the whole opener would have gone, their
    big classes too (biggest first), once the head came back without settling the
    opener."""

    def __init__(self, variant: Variant, n_answers: int, table: np.ndarray,
                 parts: int | None = 0, share: float = 0.0, workers: int = 1,
                 uncapped: bool = False, costs: CostModel | None = None,
                 gate: bool = True):
        self.mode = variant.mode
        # whether a split opener's big classes wait for its head unit (gate): worth
        # it where openers are often infeasible (found in the head's small classes)
        self.gate = gate
        self.costs = costs or CostModel(variant, table)  # predicted seconds
        # classes valued in parts (split.parts_for): run --parts, a solving rank's
        # fair share of the predicted work, the solving ranks
        self.parts, self.share, self.workers = parts, share, workers
        self.uncapped = uncapped  # a tainted part is then an upper bound, as in solve
        self.partial: dict[tuple[int, int], Parts] = {}  # (opener, pattern) in parts
        self.n_patterns = variant.n_patterns  # 3^L for L-letter words
        self._key: dict[int, float] = {}  # a split opener's place in the queue
        self.n_answers = n_answers
        self.table = table
        # (-cost, order, units): units go out together (openers bundled for affinity)
        self._heap: list[tuple[float, int, tuple[Unit, ...]]] = []
        self._seq = 0
        self.splits: dict[int, Split] = {}
        # the ETA's view of the split openers: the classes still to value of each one
        # still open, with their predicted seconds, and of each one the [predicted,
        # CPU] seconds of its classes valued in this run (the model's scale)
        self.todo_cost: dict[int, dict[int, float]] = {}
        self.cost_left: dict[int, float] = {}  # the sum of each todo_cost's predictions
        self.valued_cost: dict[int, list[float]] = {}
        self.gated: set[int] = set()  # splits whose big classes wait for their head
        # whether an opener valued whole may be taken back and split (steal): the
        # engine values classes alone, and the run values them (plan_work says);
        # steal_cutoff: one valued under a cutoff too (split.py)
        self.stealable = False
        self.steal_cutoff = False

    def __len__(self) -> int:
        self._drop_settled()
        return len(self._heap)

    def more(self) -> bool:
        """Units queued now, or to come once a head unit or a quick bound in flight
        is back."""
        return bool(len(self)) or bool(self.gated) or bool(self.partial)

    def _drop_settled(self) -> None:
        """Forget queued classes of openers another class has settled meanwhile."""
        while self._heap:
            unit = self._heap[0][2][0]  # class units are never bundled
            sp = None if isinstance(unit, Whole) else self.splits.get(unit.index)
            if sp is None or not sp.finished:
                return
            heapq.heappop(self._heap)

    def push(self, unit: Unit, cost: float) -> None:
        self.push_bundle((unit,), cost)

    def push_bundle(self, units: tuple[Unit, ...], cost: float) -> None:
        """Units that go out together, to one worker, in this order."""
        heapq.heappush(self._heap, (-float(cost), self._seq, tuple(units)))
        self._seq += 1

    def alone(self, unit: Unit | None) -> bool:
        """Whether a unit goes out in a chunk of its own: a class of an opener split
        under a cutoff, whose budget must count every class valued before it went
        out (a chunk's units all go out at once)."""
        if not isinstance(unit, Classes):
            return False
        sp = self.splits.get(unit.index)
        return sp is not None and sp.cutoff is not None

    def peek(self) -> Unit | None:
        """The next unit to go out, left queued (None: none queued now)."""
        self._drop_settled()
        return self._heap[0][2][0] if self._heap else None

    def pop(self) -> list[Unit]:
        """The next unit, with any bundled with it."""
        self._drop_settled()
        units = list(heapq.heappop(self._heap)[2])
        sp = None if isinstance(units[0], Whole) else self.splits.get(units[0].index)
        if sp is not None and math.isnan(sp.started):
            sp.started = time.time()
        if sp is not None and sp.cutoff is not None:  # budgets from what is known now
            units = [replace(u, budgets=tuple(sp.budget(p) for p in u.patterns))
                     if isinstance(u, Classes) else u for u in units]
        return units

    def add_split(self, index: int, done: dict[int, ClassResult], cost: float,
                  stolen: bool = False, cutoff: int | None = None,
                  bounds: dict[int, int] | None = None
                  ) -> tuple[Record, str | None] | None:
        """Value opener `index` as classes, `done` already valued (the checkpoint);
        the opener's record at once when those settle it. `stolen`: taken back from
        a rank valuing it whole when the queue ran dry, so every solving rank may
        share it: its big classes go out at once, each in parts. `cutoff`: taken
        back under that cutoff, `bounds` the lower bounds its rank knew of the
        classes not valued: each class goes out whole with a budget (split.py)."""
        sp = Split(index, classes_of(self.table[index], self.n_patterns), dict(done),
                   stolen=stolen, cutoff=cutoff, bounds=dict(bounds or {}),
                   answers=self.n_answers)
        self.splits[index] = sp
        self._key[index] = cost
        if sp.settled():
            return self._finish(sp)
        self.todo_cost[index] = {p: self.costs.of_class(index, p, s) for p, s in sp.todo()}
        self.cost_left[index] = sum(self.todo_cost[index].values())
        if cutoff is not None:
            # each class alone, smallest first (solve's order under a budget: the big
            # classes, where the time goes, last, under the tightest budgets)
            sp.big = [(p,) for p, _s in sp.todo()]
            self._release(sp)
            return None
        make_units(sp, lambda p, s: self.todo_cost[index][p])
        if sp.head:
            self.push(Classes(index, sp.head), cost)
            if sp.big and self.gate and not stolen:
                self.gated.add(index)
            else:
                self._release(sp)
        else:
            self._release(sp)
        return None

    def _release(self, sp: Split) -> None:
        # the big classes keep their opener's place (they are most of its cost), so
        # they go out as soon as the head is back; and in one process the opener
        # completes within one batch, its classes never written
        sizes = dict(sp.classes)
        for u in sp.big:
            size = sizes[u[0]]
            if sp.cutoff is not None:  # a budget per class, set as it goes out
                self.push(Classes(sp.index, u), self._key[sp.index])
                continue
            cost = self.costs.of_class(sp.index, u[0], size)
            n = parts_for(size, cost, self.share, self.workers, self.parts)
            if sp.stolen and self.parts is None and size > 2:
                # the cost model had put it under a rank's share, and it was not:
                # every rank gets a part (the quick bound first, as below)
                n = max(n, min(self.workers, MAX_PARTS))
            # auto: a class near its share gets a quick bound too, whose total
            # predicts its cost better (on_part), even if it then goes out in one part
            probe = (self.parts is None and self.workers > 1 and cost > PROBE_SHARE
                     * self.share and quick_model_applies(size, self.mode))
            if n > 1 or probe:  # the quick bound first; its parts once it is back
                self.partial[(sp.index, u[0])] = Parts(n, n)
                self.push(Part(sp.index, u[0], 0, -QUICK, 0), self._key[sp.index])
            else:
                self.push(Classes(sp.index, u), self._key[sp.index])
        sp.big = []
        self.gated.discard(sp.index)

    def on_class(self, cr: ClassResult, err: str | None) -> tuple[Record, str | None] | None:
        """Take one class result; the opener's record when it completes the opener."""
        sp = self.splits.get(cr.index)
        if sp is None or sp.finished:
            return None  # settled already (a class in flight when another decided it)
        if err is not None:  # an error, not a value: the opener fails as a whole would
            self._close(sp)
            return Record(index=cr.index, status=FAILED, cpu_seconds=cr.cpu_seconds,
                          wall_seconds=cr.wall_seconds, rank=cr.rank,
                          finished_at=time.time()), err
        sp.done[cr.pattern] = cr
        predicted = self.todo_cost.get(cr.index, {}).pop(cr.pattern, None)
        if predicted is not None:
            self.cost_left[cr.index] = max(0.0, self.cost_left[cr.index] - predicted)
            if cr.status != PENDING and math.isfinite(cr.cpu_seconds):
                acc = self.valued_cost.setdefault(cr.index, [0.0, 0.0])
                acc[0] += predicted
                acc[1] += cr.cpu_seconds
        if sp.settled():
            return self._finish(sp)
        if sp.big and all(p in sp.done for p in sp.head):
            self._release(sp)
        return None

    def on_part(self, pr: PartResult, err: str | None
                ) -> tuple[ClassResult | None, str | None]:
        """Take one part of a class valued in parts: the class's result once its
        last part is back (or at an error), else None. The quick bound's return
        queues the parts against it; with no quick bound (nothing within the cap
        among its candidates: hard jiffy's all-grey class, 394 s) the parts go out
        without one, each refuting against its own best. Where no part finds a
        strategy, the class goes out whole, for solve's status."""
        key = (pr.index, pr.pattern)
        st = self.partial.get(key)
        sp = self.splits.get(pr.index)
        if st is None or sp is None or sp.finished:
            self.partial.pop(key, None)
            return None, None
        st.add(pr)
        if err is not None:
            del self.partial[key]
            return ClassResult(pr.index, pr.pattern, PENDING, cpu_seconds=st.cpu_seconds,
                               wall_seconds=pr.wall_seconds, rank=pr.rank), err
        if pr.parts < 0:  # the quick bound; the parts against it (-1: none found)
            if pr.found is None and st.parts == 1:  # one part with no bound: the class
                del self.partial[key]  # whole does the same search, and gives the status
                self.push(Classes(pr.index, (pr.pattern,)), self._key[pr.index])
                return None, None
            below = -1 if pr.found is None else pr.found[0]
            if self.parts is None and pr.found is not None:  # auto: sized again by
                # what the quick bound found (costs.cost_after_quick), when it applies
                size = dict(sp.classes)[pr.pattern]
                cost = cost_after_quick(size, pr.found[0], self.mode)
                if cost is not None:
                    st.parts = st.out = parts_for(size, cost, self.share, self.workers,
                                                  None)
            for j in range(st.parts):
                self.push(Part(pr.index, pr.pattern, j, st.parts, below), self._key[pr.index])
            return None, None
        st.out -= 1
        if st.out > 0:
            return None, None
        del self.partial[key]
        best = least_part(st.found)
        if best is None:  # no strategy within the cap, or the search's limits: the
            # whole class says which (infeasible, not_found), as solve would
            self.push(Classes(pr.index, (pr.pattern,)), self._key[pr.index])
            return None, None
        assert st.longest is not None
        total, depth, second, tainted = best
        return ClassResult(pr.index, pr.pattern, UPPER_BOUND if tainted and self.uncapped
                           else EXACT, total, depth, second, st.cpu_seconds,
                           st.longest.wall_seconds, st.nodes, st.longest.rank), None

    def split_left(self) -> SplitLeft:
        """For the ETA: the predicted seconds of the classes still to value of each
        split opener still open, the [predicted, CPU] seconds of each split opener's
        classes valued in this run, and a class unit's prediction (a part's: its
        share of its class's)."""
        return SplitLeft(self.cost_left, self.valued_cost, self._unit_cost)

    def _unit_cost(self, unit: Unit) -> float:
        todo = self.todo_cost.get(unit.index, {})
        if isinstance(unit, Classes):
            return sum(todo.get(p, 0.0) for p in unit.patterns)
        if isinstance(unit, Part):
            return todo.get(unit.pattern, 0.0) / max(1, unit.parts)
        return 0.0

    def _close(self, sp: Split) -> None:
        sp.finished = True
        self.todo_cost.pop(sp.index, None)
        self.cost_left.pop(sp.index, None)
        self.gated.discard(sp.index)
        for key in [k for k in self.partial if k[0] == sp.index]:
            del self.partial[key]  # parts still out are ignored when they come back

    def _finish(self, sp: Split) -> tuple[Record, str | None]:
        self._close(sp)
        results = [sp.done[p] for p, _s in sp.classes if p in sp.done]
        code, total, depth = combine(self.n_answers, results,
                                     {p: sp.bound(p, s) for p, s in sp.classes}, sp.rest())
        cpu = [r.cpu_seconds for r in results if math.isfinite(r.cpu_seconds)]
        nodes = [r.nodes for r in results if r.nodes >= 0]
        worked = [r for r in results if r.rank >= 0]
        top = max(worked, key=lambda r: r.cpu_seconds, default=None)
        wall = time.time() - sp.started if math.isfinite(sp.started) else sum(
            r.wall_seconds for r in results if math.isfinite(r.wall_seconds))
        rec = Record(index=sp.index, status=code, total=total, depth=depth,
                     cpu_seconds=float(sum(cpu)) if cpu else float("nan"),
                     wall_seconds=wall, nodes=int(sum(nodes)) if nodes else -1,
                     rank=top.rank if top is not None else -1, finished_at=time.time(),
                     second=second_row(results, self.n_patterns)
                     if code in (EXACT, UPPER_BOUND) else None)
        err = None
        if code == FAILED:
            err = ("not_found: a first-feedback class found no strategy within the "
                   "search's limits (a beam or the uncapped depth limit)")
        return rec, err



def order(cfg, lists, table, chosen, todo, estimator, cutoffs: Cutoffs | None = None
          ) -> tuple[list[int], list[int]]:
    """(openers still to do, all openers of this run), most expensive first (ties: list
    order). `todo`: Store.todo. With a shard, the expensive-first order is dealt
    round-robin, so every shard gets a similar mix. With `cutoffs`: the openers that
    must be exact first (most expensive first), then, where the cutoff follows the
    best openers (best, the book), the most promising first, so that it soon gets
    tight; the least promising, refuted at once, make a short tail."""
    est: dict[int, float | None] = {}
    for i in chosen:
        try:
            est[i] = float(estimator(lists.guesses[i])) if estimator else None
        except Exception:
            est[i] = None
        if est[i] is None:
            est[i] = fallback_estimate(table, i)
    ordered = sorted(chosen, key=lambda i: (-(est[i] or 0.0), i))  # (never None here)
    if cutoffs is not None:
        sign = 1.0 if cutoffs.dynamic else -1.0
        ordered = sorted(chosen, key=lambda i: (0, -(est[i] or 0.0), i) if i in cutoffs.exact
                         else (1, sign * (est[i] or 0.0), i))
    if cfg.options.shard is not None:
        k, n = cfg.options.shard
        ordered = ordered[k::n]
    return [i for i in ordered if todo[i]], ordered



def gate_heads(variant: Variant) -> bool:
    """Whether split openers' big classes wait for their head unit: in hard and
    strict modes (85 of 500 hard openers are infeasible within 6, nearly always
    through a small class the head finds in well under a second) and under caps
    below 6; not in easy mode under 6 or more guesses (no infeasible opener of 500),
    where the wait only lengthens the tail: simulated 4096 ranks 29 -> 39 %
    efficient, 1024 ranks 89 -> 90 % (bench/sim_schedule.py)."""
    return variant.mode != Mode.EASY or 0 < variant.max_guesses < 6


# What planning takes an opener valued under a cutoff to cost, in the cost model's
# seconds (a book's 12657 such openers took 390 s of CPU in hard mode, about 0.03
# s each; easy about 0.07): only to size a rank's fair share beside exact openers
CUTOFF_COST = 0.05


def bundles_of(table: np.ndarray, costs: dict[int, float], whole: list[int],
               variant: Variant, solvers: int) -> dict[int, list[int]]:
    """opener -> its bundle: the openers of `whole` (valued whole, not split) that
    share their most expensive class go to one rank back to back (split.affinity),
    where there is more than one solving rank. `costs`: the predicted costs of all
    the openers valued exactly (their sum over `solvers` is a rank's fair share)."""
    bundled: dict[int, list[int]] = {}
    if costs and solvers > 1:
        alone = {i: costs[i] for i in whole}
        share = sum(costs.values()) / max(1, solvers)
        for b in affinity(table, alone, variant.mode, share, variant.n_patterns):
            bundled.update({i: b for i in b})
    return bundled


def steals_under_cutoff(engine, variant: Variant) -> bool:
    """Whether an opener valued under a cutoff may be taken back and split: the
    engine values a class alone under a budget and tells the bounds a solve under a
    cutoff starts from, and the guesses are capped (uncapped, a class's bound that
    used the depth limit proves nothing, so a split could fail where the whole
    opener is refuted; so is one under a beam)."""
    solve = getattr(engine, "solve", None)
    return (variant.max_guesses > 0 and not getattr(engine, "beam", None)
            and callable(getattr(engine, "class_value", None))
            and callable(solve) and "on_bounds" in inspect.signature(solve).parameters)


def plan_work(cfg: RunConfig, lists, table: np.ndarray, store: Store, queue: list[int],
              solvers: int, engine, spreads: dict[int, dict[int, int]] | None = None,
              cutoffs: Cutoffs | None = None) -> tuple[Work, ClassStore | None, list[int],
                                                       set[int], dict[int, list[int]], list]:
    """Rank 0's plan for `solvers` solving ranks: the Work queue for the openers
    `queue` (in `order`'s order), the class checkpoint (None where the engine values
    no classes, or under the worst-case objective), the queue in the order used,
    the openers split, the bundles (opener -> its bundle) and the records of split
    openers that the checkpoint already completes.

    The openers valued exactly (every one without a cutoff; under `cutoffs`, those
    it names exact) go first, most expensive first by the cost model, and may go
    out as classes (with --split on and an engine that values one class alone,
    class_value); the others follow in `queue`'s order, whole (under a cutoff an
    opener is mostly refuted from bounds over all its classes at once).
    `spreads`: those of the big classes (costs.spreads_of), for the cost model,
    where they were computed."""
    variant = cfg.problem.variant(lists)
    n_p = variant.n_patterns
    classes = None
    if variant.objective == Objective.EXPECTED and (
            callable(getattr(engine, "class_value", None))
            or callable(getattr(engine, "class_rows", None))):
        classes = ClassStore(store.path, len(lists.guesses), n_p)
    if cutoffs is None:
        exact = list(queue) if cfg.options.cutoff is None else []
    else:
        exact = [i for i in queue if i in cutoffs.exact]
    rest = [i for i in queue if i not in set(exact)]
    costs: dict[int, float] = {}
    split: set[int] = set()
    if (exact and classes is not None and cfg.options.split != "off"
            and callable(getattr(engine, "class_value", None))):
        # the predicted costs order the work (openers and classes on one scale) and
        # choose which openers go out as classes (split), and which classes in parts
        model = CostModel(variant, table, spreads)
        costs = {i: model.of_opener(i) for i in exact}
        share = (sum(costs.values()) + CUTOFF_COST * len(rest)) / max(1, solvers)
        split = plan(costs, max(1, solvers), cfg.options.split, classes.partly_done(exact),
                     share=share)
        parts_ok = callable(getattr(engine, "class_part", None))
        work = Work(variant, len(lists.answers), table, cfg.options.parts if parts_ok else 0,
                    share, max(1, solvers), variant.max_guesses == 0, model,
                    gate_heads(variant))
        work.stealable = True
        exact = sorted(exact, key=lambda i: (-costs[i], i))
    else:
        work = Work(variant, len(lists.answers), table)
    if rest and classes is not None and cfg.options.split != "off" and steals_under_cutoff(
            engine, variant):
        work.stealable = work.steal_cutoff = True
    bundled = bundles_of(table, costs, [i for i in exact if i not in split], variant, solvers)
    queue = exact + rest
    # the queue's keys: the predicted costs, and below every one of them the openers
    # without a prediction, in the queue's order
    keys = dict(costs)
    keys.update({i: -1.0 - k for k, i in enumerate(rest if costs else queue)})
    settled = []
    for i in queue:
        if i in split:
            assert classes is not None  # split only where classes may be
            done = work.add_split(i, classes.results(i), keys[i])
            if done is not None:  # every class needed was in the checkpoint
                settled.append(done)
        elif i in bundled:
            b = bundled[i]
            if i == b[0]:
                work.push_bundle(tuple(Whole(j) for j in b),
                                 bundle_cost(costs, b, table, variant.mode, n_p))
        else:
            work.push(Whole(i), keys[i])
    return work, classes, queue, split, bundled, settled
