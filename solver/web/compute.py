"""What one worker process of the web app computes (see `workers`).

An `Engine` holds the solvers (one per problem: mode and cap, the most recently
used few, each with its memo) and the result stores one process reads. It runs one
computation at a time, named by a kind and a dict of plain parameters, so the
request that asks and the process that answers share nothing but the pattern table.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from ..variant import Mode
from ..words import WordLists
from . import adapter

Report = Callable[..., None]  # (done, total, what is counted[, eta: seconds left])
KINDS = ("next", "strategy", "boards", "adversary")
ADVERSARY_MEMO = 200_000  # failed (set, depth) pairs kept between requests, at most


class Steps:
    """The game layer's progress for the page: each count of guesses as "guesses
    ranked", with the step of the analysis in hand after it (game.analysis says
    them: a class no strategy wins is ranked three times over), each step with its
    own pace where `report` keeps one (workers.Reporter). `check()` may raise
    adapter.Cancelled between guesses."""

    def __init__(self, check: adapter.Check, report: Report | None):
        self.check, self.report = check, report
        self.step = ""

    def phase(self, step: str) -> None:
        self.step = step
        start = getattr(self.report, "start", None)
        if step and start is not None:
            start()

    def __call__(self, done: int, total: int) -> None:
        self.check()
        if self.report is not None:
            self.report(done, total, "guesses ranked" + (f", {self.step}" if self.step else ""))


class Engine:
    """Solvers and stores of one process; `run` computes one request."""

    def __init__(self, lists: WordLists, table: np.ndarray, table_t: np.ndarray | None = None,
                 memo_entries: int | None = None, max_solvers: int = 3):
        self.lists = lists
        self.table = table
        self.table_t = table_t
        self.memo_entries = memo_entries
        self.max_solvers = max_solvers
        self._solvers: OrderedDict[tuple[str, int], object] = OrderedDict()
        self._stores: dict[str, object] = {}
        self._adversary = None

    def solver(self, mode: Mode, cap: int):
        """The solver of a problem, made on first use (the least recently used of
        more than `max_solvers` is dropped with its memo)."""
        key = (mode, cap)
        s = self._solvers.get(key)
        if s is None:
            s = adapter.make_solver(self.lists, mode, cap, self.table, self.table_t,
                                    self.memo_entries)
            self._solvers[key] = s
            while len(self._solvers) > self.max_solvers:
                self._solvers.popitem(last=False)
        self._solvers.move_to_end(key)
        return s

    def _store(self, path: str | None):
        """The store or opening book (a .npz file) at `path`, opened once."""
        if path is None:
            return None
        if path not in self._stores:
            self._stores[path] = adapter.open_store(path, self.lists)
        return self._stores[path]

    def run(self, kind: str, params: dict, check: adapter.Check = adapter._noop,
            report: Report | None = None) -> dict:
        """One computation: `next` (position, mode, max_guesses, top, store: the path
        of a store proving the opening move, or None) or `strategy` (opener, mode,
        max_guesses). `check()` raises adapter.Cancelled to stop between steps."""
        if kind == "boards":
            return self._boards(params)
        if kind == "adversary":
            return self._adversary_run(params, check, report)
        mode, cap = params["mode"], params["max_guesses"]
        solver = self.solver(mode, cap)
        if kind == "strategy":
            return adapter.strategy(solver, params["opener"], check, report)
        if kind != "next":
            raise ValueError(f"unknown kind {kind!r}")
        pos = adapter.parse_position(params["position"], self.lists, mode, cap)
        store = self._store(params.get("store"))
        if not pos.history and store is None and len(self.lists.answers) <= \
                adapter.EMPTY_EXACT_LIMIT:
            return self._search_start(solver, pos, params["top"], check, report)

        return adapter.analyse(solver, pos, params["top"], store=store,
                               progress=Steps(check, report))

    def _boards(self, params: dict) -> dict:
        """The next guess at a several-board position (adapter.boards_advice)."""
        return adapter.boards_advice(self.lists, self.table, params["position"],
                                     params["boards"], params["max_guesses"], params["top"])

    def adversary(self):
        """The adversary of these lists (game/adversary.py), made on first use; its
        memo of failed sets is kept between requests (later positions of a game
        reuse it) and dropped when it grows past ADVERSARY_MEMO entries."""
        if self._adversary is None:
            self._adversary = adapter.make_adversary(self.lists, self.table)
        elif len(self._adversary.failed) > ADVERSARY_MEMO:
            self._adversary.failed.clear()
        return self._adversary

    def _adversary_run(self, params: dict, check: adapter.Check,
                       report: Report | None) -> dict:
        """A game against the adversary (position: its guesses) and the exact
        fewest guesses that still beat it, with a winning line."""
        pos = adapter.adversary_position(params["position"], self.adversary())

        def step(d: int) -> None:  # before each depth of the iterative deepening
            check()
            if report is not None:
                report(0, 0, f"looking for a win within {d} guess{'es' if d != 1 else ''}")

        return {**adapter.adversary_state(pos),
                "analysis": adapter.adversary_analysis(pos, params["top"], step)}

    def _search_start(self, solver, pos, top: int, check: adapter.Check,
                      report: Report | None) -> dict:
        """The opening move without a complete store: opener by opener, with progress
        and cancellation between openers (small lists only: the caller refuses big
        ones)."""
        n = len(self.lists.answers)
        picks = adapter.best_openers(solver, top + 1, check, report)
        if not picks:  # no opener wins every answer: the best chance instead

            def step(done: int, total: int) -> None:
                check()
                if report is not None:
                    report(done, total, "guesses ranked for the most wins")

            return adapter.wins_start(solver, pos, top, step)
        best = picks[0]
        return {"position": "-", "candidates": n,
                "words": list(self.lists.answers) if n <= 20 else None,
                "best": best, "alternatives": [{k: p[k] for k in ("guess", "total", "status")}
                                               for p in picks[1:]],
                "mode": pos.mode, "max_guesses": pos.max_guesses, "source": "engine"}
