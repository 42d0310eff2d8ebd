"""The run's sentences: every line a run prints, made from the data the plan, the
coordinator and the message loop hand over (counts, times, the ETA). Nothing here
reads a store, a clock or the run's state; `TextReport` writes the lines to a
stream. An interface that wants other text (or none) passes its own object with
TextReport's methods as `Tuning.report`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from ..progress import fmt_duration
from .config import RunSummary
from .units import Classes, Part, Unit, Whole


@dataclass(frozen=True)
class Best:
    """The best exact opener so far: its word, total and wins of `answers`; by the
    most wins first under the objective wins (`wins_first`)."""

    word: str
    total: int
    wins: int
    answers: int
    wins_first: bool = False

    def text(self, avg: bool) -> str:
        """In words (with `avg`, 'avg' after the average)."""
        unit = " avg" if avg else ""
        if self.wins_first:
            return (f"{self.word} wins {self.wins} of {self.answers}, total {self.total} "
                    f"({self.total / max(self.wins, 1):.4f}{unit} over those)")
        return f"{self.word} {self.total} ({self.total / self.answers:.4f}{unit})"


@dataclass(frozen=True)
class RunProgress:
    """Where a run stands: openers done of `queued`, per minute, the ETA (seconds;
    `whole`: an estimate of all that is left, else a lower bound), the best so far,
    failures, and the classes and parts valued (work below the opener)."""

    done: int
    queued: int
    rate: float  # openers per minute
    eta: float
    whole: bool
    best: Best | None
    failed: int = 0
    classes: int = 0
    parts: int = 0
    # the unit of work out longest (in_flight_text) and its seconds: a split
    # opener's classes can run for hours with no other number moving
    longest: str = ""
    longest_seconds: float = 0.0


# a unit out at least this long is named on the progress line
LONGEST_SHOWN = 60.0


def in_flight_text(units: list[Unit], words, pattern_text: Callable[[int], str]) -> str:
    """A chunk of units of work (units.py) in words: `words[index]` an opener's word,
    `pattern_text(code)` a feedback pattern's letters. A chunk of whole openers by
    its first and their number; any other by its first unit and how many more."""
    u = units[0]
    word = words[u.index]
    if len(units) > 1 and all(isinstance(x, Whole) for x in units):
        return f"{len(units)} openers from {word} on"
    if isinstance(u, Classes):
        n = len(u.patterns)
        first = pattern_text(u.patterns[0])
        what = f"{word}:{first}" if n == 1 else f"{word}, {n} classes from {word}:{first} on"
    elif isinstance(u, Part):
        part = "its quick bound" if u.parts < 0 else f"part {u.part + 1} of {u.parts}"
        what = f"{word}:{pattern_text(u.pattern)}, {part}"
    else:
        what = word
    return what + (f" and {len(units) - 1} more unit(s)" if len(units) > 1 else "")


def progress_line(p: RunProgress, clock: str) -> str:
    """The progress line at `clock` (HH:MM:SS)."""
    left = p.queued - p.done
    eta = "0s" if not left else (fmt_duration(p.eta) if p.whole or p.eta == float("inf")
                                 else f"over {fmt_duration(p.eta)}")
    best = p.best.text(False) if p.best else "-"
    pct = 100.0 * p.done / p.queued if p.queued else 100.0
    return (f"[{clock}] {p.done}/{p.queued} openers ({pct:.1f}%), "
            f"{p.rate:.1f}/min, ETA {eta}, best {best}"
            + (f", {p.failed} failed" if p.failed else "")
            # work below the opener moves even while no opener completes
            + (f"; {p.classes} classes and {p.parts} parts valued"
               if p.classes or p.parts else "")
            + (f"; in flight longest: {p.longest} ({fmt_duration(p.longest_seconds)})"
               if p.longest and p.longest_seconds >= LONGEST_SHOWN else ""))


@dataclass(frozen=True)
class Plan:
    """What rank 0 planned: `queued` openers to value of `selected` (the others in
    `store` already) on `ranks` ranks (`solvers` solving, rank 0 among them when
    `rank0_solves`; `nodes` nodes, one table copy per node when `node_copies`); the
    lower bounds valued again (`below`: under a higher cutoff, `exactly`: to value
    exactly); the openers `split`; the big classes whose spreads it used and the
    seconds they took; the openers `bundled` in `bundles` bundles."""

    queued: int
    selected: int
    store: str
    ranks: int
    solvers: int
    rank0_solves: bool
    nodes: int = 1
    node_copies: bool = False
    below: int = 0
    exactly: int = 0
    split: int = 0
    spread_classes: int | None = None  # None: planned without spreads
    spread_seconds: float = 0.0
    bundled: int = 0
    bundles: int = 0


def plan_line(p: Plan) -> str:
    again = [f"{n} lower bound(s) {why}" for n, why in (
        (p.below, "below the cutoff"), (p.exactly, "to value exactly")) if n]
    where = "(1 process)"
    if p.ranks > 1:
        copies = "one table copy per node" if p.node_copies else "a table copy per rank"
        who = ("all solving, rank 0 coordinating too" if p.rank0_solves
               else f"{p.solvers} solving + coordinator")
        where = f"({who}) over {p.nodes} node(s) ({copies})"
    return (f"wordle-dp: {p.queued} opener(s) to value on {p.ranks} rank(s) {where}; "
            f"{p.selected - p.queued} of {p.selected} selected already in "
            f"{p.store}" + (f"; {' and '.join(again)} are valued again" if again else "")
            + (f"; {p.split} valued as first-feedback classes" if p.split else "")
            + (f"; planned with the spreads of {p.spread_classes} big "
               f"class(es) ({p.spread_seconds:.1f} s)" if p.spread_classes is not None else "")
            + (f"; {p.bundled} in {p.bundles} bundle(s) "
               "sharing their biggest class" if p.bundled else ""))


def summary_lines(s: RunSummary, counts: dict[str, int], store: str, best: Best | None,
                  flushed: int, param: Callable[[str], str] = str) -> list[str]:
    """The report at the end of a run: `counts` the store's openers by status,
    `flushed` the records written to it (`param`: TextReport's)."""
    done = s.solved + s.failed
    rate = done / s.wall_seconds * 60 if s.wall_seconds > 0 else 0.0
    lines = []
    if s.state == "stopped":
        lines.append(f"wordle-dp: stopped ({s.stop_reason}): {done} of {s.queued} openers "
                     f"valued in this run; the store is consistent and the run can be resumed "
                     f"by running the same command again ({store})")
    else:
        lines.append(f"wordle-dp: run finished: {done} openers valued in "
                     f"{fmt_duration(s.wall_seconds)} on {s.ranks} rank(s) ({rate:.1f}/min)")
    lines.append("  store: " + ", ".join(f"{v} {k}" for k, v in counts.items() if v)
                 + f" ({store})")
    if best:
        lines.append(f"  best: {best.text(True)}")
    if s.failed:
        lines.append(f"  {s.failed} opener(s) failed; rerun with {param('retry_failed')} to "
                     "try again")
    share = 100.0 * s.write_seconds / s.wall_seconds if s.wall_seconds > 0 else 0.0
    per = 1000.0 * s.write_seconds / max(1, flushed)
    lines.append(f"  store writes: {s.flushes} batch(es), {s.write_seconds:.3f} s "
                 f"({share:.2f}% of wall time, {per:.2f} ms per opener) vs "
                 f"{s.solve_cpu_seconds:.1f} s of solving")
    if s.split_openers or s.classes:
        lines.append(f"  split: {s.split_openers} opener(s) valued as first-feedback classes, "
                     f"{s.classes} class(es) valued and checkpointed"
                     + (f" ({s.class_bounds} of them under a cutoff only up to their "
                        "budget: not checkpointed)" if s.class_bounds else "")
                     + (f", {s.parts} part(s) of classes valued in parts" if s.parts else ""))
    if s.stolen:
        lines.append(f"  no tail: {s.stolen} opener(s) valued whole were taken back when the "
                     "queue ran dry and shared among the idle ranks as classes")
    if s.results:
        lines.append(f"  coordinator: {s.results} result(s) handled, "
                     f"{1000.0 * s.coordinator_seconds / s.results:.2f} ms each (store "
                     f"writes included); {s.plan_seconds:.1f} s of set-up and planning "
                     "before the work went out")
    st = s.stats
    if st:
        hits = st.get("memo_hits")
        if hits is not None:
            stores = st.get("memo_stores", 0)
            nodes = st.get("nodes", 0)
            lines.append(f"  solver memo reuse (kept across openers on each rank): "
                         f"{int(hits)} hits vs {int(stores)} stores, {int(nodes)} nodes")
        lines.append("  solver stats: " + ", ".join(f"{k}={int(v)}" for k, v in st.items()))
    return lines


class TextReport:
    """The run's lines on `out`, each flushed as it is written. `param`: how a line
    names one of the run's parameters (the library: its name; the CLI: its flag)."""

    def __init__(self, out: TextIO, param: Callable[[str], str] = str):
        self.out, self.param = out, param

    def _print(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def plan(self, p: Plan) -> None:
        self._print(plan_line(p))

    def note(self, text: str) -> None:
        self._print(f"wordle-dp: note: {text}")

    def progress(self, p: RunProgress, clock: str) -> None:
        self._print(progress_line(p, clock))

    def failed(self, word: str, rank: int, why: str, failures: int) -> None:
        """Opener `word` failed on `rank` (the run's `failures`-th failure)."""
        self._print(f"wordle-dp: opener {word} failed on rank {rank}: {why}"
                    + (" (further failures are not shown; see the store's 'errors' "
                       "attribute)" if failures == 5 else ""))

    def cannot_solve(self, rank: int, why: str) -> None:
        name = "rank 0's solver" if rank == 0 else f"rank {rank}"
        self._print(f"wordle-dp: {name} cannot solve: {why}")

    def stopping(self, reason: str | None, grace: float, in_flight: int) -> None:
        self._print(f"wordle-dp: stopping ({reason}); waiting up to {grace:.0f} s for "
                    f"{in_flight} unit(s) of work in flight")

    def cut_short(self, in_flight: int) -> None:
        self._print(f"wordle-dp: {in_flight} unit(s) of work still in flight are cut short "
                    "and stay pending")

    def summary(self, s: RunSummary, counts: dict[str, int], store: str, best: Best | None,
                flushed: int) -> None:
        self._print("\n".join(summary_lines(s, counts, store, best, flushed, self.param)))

    def cutoff_applies(self, cutoff: int) -> None:
        """split all asked, yet the store's cutoff applies."""
        p = self.param
        self.note(f"the store's cutoff {cutoff} applies, so every opener is valued whole "
                  f"({p('split')} all needs {p('no_cutoff')})")
