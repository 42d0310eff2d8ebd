"""What a run is asked to do (RunConfig: the Problem, the RunOptions and the
Tuning), what it reports (RunSummary), and the parsers of its options: time
limits, shards and opener selections."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TextIO

from ..errors import Param, UsageError
from ..variant import Mode, Objective, Variant, check_max_guesses, check_mode, check_objective
from ..words import WordLists

EXIT_USAGE = 2
# Up to this many ranks, rank 0 solves too (a thread beside the coordinator): at 16
# ranks its core is 6 % of the job; from a few hundred ranks on, the coordinator's
# answers matter more than one core.
RANK0_SOLVES_MAX = 64


@dataclass(frozen=True)
class Problem:
    """What a run values: the word lists (built-in by name or by word length, or
    files) and the game played on them, a Variant once the lists are read
    (`variant`)."""

    answers: str | None = None
    guesses: str | None = None
    lists: str | None = None  # built-in lists by name (words.BUILTIN), or...
    length: int | None = None  # ...by word length
    cache_dir: str | None = None  # where the pattern table is kept
    mode: Mode = Mode.EASY
    max_guesses: int = 6
    # expected, worst (fewest guesses first: search/worst.py) or wins (search/wins.py)
    objective: Objective = Objective.EXPECTED

    def __post_init__(self) -> None:  # a name is taken too; checked here, once
        object.__setattr__(self, "mode", check_mode(self.mode))
        object.__setattr__(self, "objective", check_objective(self.objective))
        check_max_guesses(self.max_guesses)

    def load(self, quiet: bool = True) -> WordLists:
        """The word lists."""

        return WordLists.load(self.answers, self.guesses, quiet=quiet, lists=self.lists,
                              length=self.length)

    def variant(self, lists) -> Variant:
        """The game on `lists` (their word length)."""
        return Variant.of(lists, self.mode, self.max_guesses, objective=self.objective)


@dataclass(frozen=True)
class RunOptions:
    """How a run goes: which openers, under which cutoff, for how long."""

    openers: str = "all"  # all | FILE | w1,w2,...
    cutoff: int | None = None
    no_cutoff: bool = False  # value exactly, whatever cutoff the store was made with
    time_limit: float | None = None  # seconds from the start of the run
    retry_failed: bool = False
    quiet: bool = False
    shard: tuple[int, int] | None = None  # (i, n): this run takes every n-th opener
    # transposition table per solving rank, MB; None: default_memo_mb of the node
    memo_mb: float | None = None
    split: str = "auto"  # auto | all | off: value big openers as classes (split)
    # a split opener's big classes in parts (split.parts_for): None auto, 0 never, N > 1
    # every class of more than two answers in N parts
    parts: int | None = None
    # the best K openers with proof (`best`, the book): every other opener under a
    # cutoff one past the K-th best exact total known so far (cutoffs.py)
    best: int | None = None
    exact: tuple[str, ...] = ()  # openers valued exactly whatever the cutoff
    # exact openers whose class values are missing from the store's class checkpoint
    # (a store of an older version) are valued again, exactly (the book needs them)
    fill_classes: bool = False


@dataclass(frozen=True)
class Tuning:
    """The run's pace and its hooks for tests and benches: none changes a value."""

    flush_seconds: float = 5.0  # write buffered results at least this often...
    flush_every: int = 256  # ...or when this many are buffered
    progress_seconds: float = 30.0
    grace: float = 60.0  # after a stop, wait this long for results in flight
    chunk_seconds: float = 0.5  # cheap openers go out in chunks of about this much work
    max_chunk: int = 64
    # when the queue runs dry, an opener valued whole for at least this many seconds
    # is taken back and split, so that idle ranks share it (None: never): it gives
    # back its classes not started once the class in progress is valued
    steal_after: float | None = 0.0
    # whether rank 0 solves too, in a thread beside the coordinator: None auto (yes up
    # to RANK0_SOLVES_MAX ranks, where its core is a noticeable part of the job)
    rank0_solves: bool | None = None
    # builds the per-rank solver: factory(lists, mode, max_guesses, table) -> solver
    solver_factory: Callable[..., Any] | None = None
    progress_file: TextIO | None = None  # default sys.stderr
    # what turns the run's data into lines: None a text.TextReport on progress_file
    # (an interface may pass its own, e.g. one naming parameters as its flags)
    report: Any = None
    extra: dict = field(default_factory=dict)


_PARTS = {"problem": Problem, "options": RunOptions, "tuning": Tuning}
_FIELD_OF = {f.name: part for part, cls in _PARTS.items() for f in fields(cls)}


@dataclass(frozen=True, init=False)
class RunConfig:
    """What a run is asked to do: the `store` it fills, the `problem`, the run's
    `options` and its `tuning`. Made from the parts, or from their fields by name
    (`RunConfig(store=..., mode="hard", cutoff=8000)`: the flat form, which the
    book's builder and the API's examples use; cli/cluster.run_config makes the
    parts)."""

    store: str | Path
    problem: Problem
    options: RunOptions
    tuning: Tuning

    def __init__(self, store: str | Path, problem: Problem | None = None,
                 options: RunOptions | None = None, tuning: Tuning | None = None,
                 **fields_: Any) -> None:
        given: dict[str, dict[str, Any]] = {part: {} for part in _PARTS}
        for name, value in fields_.items():
            if name not in _FIELD_OF:
                raise TypeError(f"RunConfig got an unexpected keyword argument {name!r}")
            given[_FIELD_OF[name]][name] = value
        parts = {"problem": problem, "options": options, "tuning": tuning}
        object.__setattr__(self, "store", store)
        for part, cls in _PARTS.items():
            base = parts[part] or cls()
            object.__setattr__(self, part, replace(base, **given[part]) if given[part]
                               else base)

    def with_options(self, **changes: Any) -> RunConfig:
        """The same run with some of its options changed (`cutoff=`, `best=`)."""
        return replace(self, options=replace(self.options, **changes))


SPLIT_MODES = ("auto", "all", "off")


def check_config(cfg: RunConfig) -> None:
    """Refuse options that do not go together or are out of range: the one place of
    these checks (the CLI calls it before a run starts, the run on rank 0 again)."""
    o = cfg.options
    if o.cutoff is not None and o.no_cutoff:
        raise UsageError(Param("cutoff"), " and ", Param("no_cutoff"), " exclude each other")
    if o.parts not in (None, 0) and o.split == "off":
        raise UsageError(Param("parts"), " values classes of split openers, so it needs ",
                         Param("split"), " auto or all")
    if o.split == "all" and o.cutoff is not None:
        raise UsageError(Param("split"), " all values openers exactly, so it does not go "
                         "with ", Param("cutoff"), " (a cutoff run values every opener "
                         "whole)")
    check_max_guesses(cfg.problem.max_guesses)
    if o.split not in SPLIT_MODES:
        raise UsageError(Param("split"), f" must be one of {', '.join(SPLIT_MODES)}")
    other = {"worst": "the worst-case objective ranks by the worst case first",
             "wins": "the objective wins ranks by the answers won first"}.get(cfg.problem.objective)
    if other and o.cutoff is not None:
        raise UsageError(Param("cutoff"), f" is a total: {other} and takes no cutoff")
    if other and o.split == "all":
        raise UsageError(Param("split"), " all sums class values of the expected "
                         f"objective; {other} and values openers whole")
    if o.memo_mb is not None and not (o.memo_mb > 0 and math.isfinite(o.memo_mb)):
        raise UsageError(Param("memo_mb"), " must be a number above 0")
    if o.best is not None and (o.best < 1 or cfg.problem.objective != "expected"):
        raise UsageError("the best openers are those of the expected objective, K >= 1")


@dataclass
class RunSummary:
    exit_code: int
    state: str  # finished | stopped | refused
    solved: int = 0
    failed: int = 0
    queued: int = 0
    wall_seconds: float = 0.0
    write_seconds: float = 0.0
    flushes: int = 0
    solve_cpu_seconds: float = 0.0
    ranks: int = 1
    stats: dict = field(default_factory=dict)
    split_openers: int = 0  # openers valued as classes in this run
    classes: int = 0  # classes valued (and checkpointed) in this run
    class_bounds: int = 0  # of those, lower bounds at a budget (not checkpointed)
    parts: int = 0  # parts of classes valued in parts (split.parts_for), quick bounds too
    stolen: int = 0  # openers taken back from a rank when the queue ran dry, and split
    coordinator_seconds: float = 0.0  # rank 0's time handling results (writes included)
    results: int = 0  # results rank 0 handled (openers and classes)
    memo_mb: float = 0.0  # memo per solving rank (as asked; rank 0's view)
    solvers: int = 1  # solving ranks (rank 0's solver thread included)
    plan_seconds: float = 0.0  # rank 0's set-up and plan before any work went out
    cutoff: int | None = None  # where the cutoff ended (best: one past the K-th best)
    stop_reason: str | None = None  # why a stopped run stopped


# Memory rule for the memo (run --memo-mb's default): half of the node's memory,
# shared by the ranks on the node, less MEMO_OVERHEAD_MB per rank for everything
# else a rank holds (Python, numba, the search's arrays: ~120 MB), between MEMO_MIN_MB
# (the engine's default) and MEMO_MAX_MB. The other half is left to the OS, the page
# cache, the node's one table copy and rank 0's store writer. Why the cap: an easy
# opener stores ~6600 memo entries (bench/bench_memo.py), so 1024 MB (16.8M entries
# of 36 bytes after the engine's rounding to a power of two) holds ~2500 openers'
# worth, more than any rank values in a whole-table run of 6 or more ranks; and the
# memo's pages are all in use soon (random writes, transparent huge pages), so a
# larger one only costs memory.
MEMO_MIN_MB = 75.0
MEMO_MAX_MB = 1024.0
MEMO_OVERHEAD_MB = 250.0


def default_memo_mb(node_bytes: int, ranks_on_node: int) -> float:
    """The memo per rank for a node of `node_bytes` memory running `ranks_on_node`
    ranks (the rule above)."""
    per_rank = 0.5 * node_bytes / 2**20 / max(1, ranks_on_node) - MEMO_OVERHEAD_MB
    return float(min(MEMO_MAX_MB, max(MEMO_MIN_MB, per_rank)))


# ...and no larger than a rank's share of the work needs: every memo page a rank
# touches costs a page fault, 2.6 s of system CPU for 1024 MB here (4 kB pages), 4 %
# of a 60 s book build on 16 ranks for a memo 10 times too big. Memo entries an
# opener stores: exact, the hard book's popular openers 3.13M for 315 (easy ones
# about 6600 each); under a cutoff, the hard book's other openers 1.19M for 12657.
# MEMO_HEADROOM entries per store keep the 4-way buckets from evicting much.
STORES_EXACT, STORES_CUTOFF = 10_000, 100
MEMO_HEADROOM = 8


def work_memo_mb(n_exact: int, n_cutoff: int, solvers: int) -> float:
    """The memo a solving rank's share of `n_exact` exact valuations and `n_cutoff`
    valuations under a cutoff needs, MB (at least MEMO_MIN_MB)."""
    from ..search.engine import MEMO_ENTRY_BYTES

    stores = (STORES_EXACT * n_exact + STORES_CUTOFF * n_cutoff) / max(1, solvers)
    return float(max(MEMO_MIN_MB, MEMO_HEADROOM * stores * MEMO_ENTRY_BYTES / 2**20))



def parse_time_limit(text: str) -> float:
    """'90', '90s', '45m', '2h', 'MM:SS', 'HH:MM:SS' or 'D-HH:MM:SS' -> seconds."""
    t = str(text).strip()
    m = re.fullmatch(r"(\d{1,12}(?:\.\d{1,9})?)\s*([smhd]?)", t)  # bounded: no huge ints
    if m:
        return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]
    m = re.fullmatch(r"(?:(\d{1,6})-)?(\d{1,9}):(\d{1,2})(?::(\d{1,2}))?", t)
    if m:
        days = int(m.group(1) or 0)
        if m.group(4) is None:  # MM:SS
            h, mi, s = 0, int(m.group(2)), int(m.group(3))
        else:
            h, mi, s = int(m.group(2)), int(m.group(3)), int(m.group(4))
            if mi > 59:
                raise ValueError(f"bad time limit {text[:40]!r}: minutes above 59")
        if s > 59:
            raise ValueError(f"bad time limit {text[:40]!r}: seconds above 59")
        return float(days * 86400 + h * 3600 + mi * 60 + s)
    raise ValueError(f"bad time limit {str(text)[:40]!r} (seconds, or HH:MM:SS)")


def parse_shard(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d{1,9})\s*/\s*(\d{1,9})\s*", str(text))
    if not m or int(m.group(2)) < 1 or int(m.group(1)) >= int(m.group(2)):
        raise ValueError(f"bad shard {str(text)[:40]!r}: use I/N with 0 <= I < N")
    return int(m.group(1)), int(m.group(2))


def opener_file(spec: str) -> str | None:
    """The file an `openers` value names, or None when it is words.

    Files are explicit, so that a file in the working folder named like a word
    cannot change the meaning: '@FILE', or a path containing '/' or ending in '.txt'.
    """
    if spec.startswith("@"):
        return spec[1:]
    if "/" in spec or spec.lower().endswith(".txt"):
        return spec
    return None


def select_openers(spec: str, lists) -> list[int]:
    """Guess indices named by 'all', a file of words ('@FILE', a path with '/' or
    ending in '.txt') or 'w1,w2,...'."""
    from ..errors import quote
    from ..words import read_words

    spec = "all" if spec is None else spec.strip()
    if spec == "all":
        return list(range(len(lists.guesses)))
    path = opener_file(spec)
    if path is not None:
        if not path:
            raise UsageError(Param("openers"), " '@': the file name is missing (use @FILE)")
        words = read_words(path)
    else:
        words = [w.strip() for w in spec.split(",")]
        if not any(words):
            raise UsageError(Param("openers"), f" {quote(spec)} names no opener (use all, "
                             "@FILE or w1,w2,...)")
        if not all(words):
            raise UsageError(Param("openers"), f" {quote(spec)} has an empty item (use "
                             "w1,w2,...)")
    seen: set[int] = set()
    out = []
    for w in words:
        i = lists.guess_id(w)
        if i not in seen:
            seen.add(i)
            out.append(i)
    return out

