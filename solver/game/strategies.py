"""Strategies behind one small interface: `choose(position) -> guess id`.

- `optimal`: the exact engine (at the start: a result store's best opener, or the
  smallest exact total on small lists, see `analysis.analyse`).
- One-step heuristics, each scoring the guesses allowed at the position over the
  candidates (`measures.py` defines the measures):
  `entropy` (max), `expected` (min expected remaining answers), `eliminations`
  (max expected eliminations), `minimax` (min worst-case class), `patterns` (max
  distinct patterns), `letters` (max letter frequency), `random` (uniform among
  the candidates, seeded).
- `NAME-cand`: the same heuristic choosing among the candidates only (every
  heuristic but random, which always picks a candidate).

Rules shared by the heuristics, so every game ends and ties are deterministic:
with one candidate left it is guessed; a guess that cannot split the candidates
(one class and not a candidate) is never chosen; ties on the measure go to a
candidate (it may win at once), then to the guess earliest in the guess list.
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError, quote
from .measures import measures, scan
from .position import Position

HEURISTICS = {
    # name: (measure, True when larger is better)
    "entropy": ("entropy", True),
    "expected": ("expected", False),
    "eliminations": ("eliminations", True),
    "minimax": ("worst", False),
    "patterns": ("patterns", True),
    "letters": ("letters", True),
}
CAND_SUFFIX = "-cand"


def strategy_names() -> list[str]:
    names = ["optimal", *HEURISTICS, "random"]
    return names + [f"{h}{CAND_SUFFIX}" for h in HEURISTICS]


class Strategy:
    """Picks the next guess at a position (a guess id of the solver's lists)."""

    name = "?"

    def choose(self, position: Position) -> int:  # pragma: no cover - interface
        raise NotImplementedError


class Optimal(Strategy):
    name = "optimal"

    def __init__(self, solver, store=None):
        self.solver = solver
        self.store = store

    def choose(self, position: Position) -> int:
        from .analysis import analyse

        if position.history:
            total, g, _status = self.solver.set_value(position.members, position.budget,
                                                      position.cons)
            if total is None:
                raise UsageError(f"{position}: no strategy solves every answer within "
                                 f"{position.max_guesses} guesses")
            return g
        best = analyse(self.solver, position, top=0, store=self.store).best
        if best.guess is None:
            raise UsageError("no opener solves every answer within the cap")
        return self.solver.lists.guess_index[best.guess]


class Heuristic(Strategy):
    def __init__(self, solver, measure: str, larger: bool, candidates_only: bool = False,
                 name: str | None = None):
        self.solver = solver
        self.measure = measure
        self.larger = larger
        self.candidates_only = candidates_only
        self.name = name or measure

    def choose(self, position: Position) -> int:
        lists = self.solver.lists
        members = position.members
        agid = lists.answer_guess_ids
        if len(members) == 1:
            return int(agid[members[0]])
        legal = position.legal()
        if self.candidates_only:
            only = np.zeros_like(legal)
            only[agid[members]] = True
            legal &= only
        gids = np.flatnonzero(legal)
        raw = scan(self.solver.table, members, gids, self.solver.variant.all_green)
        m = measures(raw, len(members))
        useful = (m["patterns"] > 1) | m["candidate"]
        if self.measure == "letters":
            from .measures import letter_scores

            value = letter_scores(lists, members, gids).astype(np.float64)
        else:
            value = m[self.measure].astype(np.float64)
        key = np.round(-value if self.larger else value, 9)
        key = np.where(useful, key, np.inf)
        j = np.lexsort((gids, ~m["candidate"], key))[0]
        if not useful[j]:
            raise UsageError(f"{self.name}: no allowed guess splits the candidates at "
                             f"{position}")
        return int(gids[j])


class RandomCandidate(Strategy):
    name = "random"

    def __init__(self, solver, seed: int = 0):
        self.solver = solver
        self.rng = np.random.default_rng(seed)

    def choose(self, position: Position) -> int:
        members = position.members
        return int(self.solver.lists.answer_guess_ids[members[self.rng.integers(len(members))]])


def make_strategy(name: str, solver, store=None, seed: int = 0) -> Strategy:
    """A strategy by name (see `strategy_names`); UsageError for an unknown one."""
    if name == "optimal":
        return Optimal(solver, store)
    if name == "random":
        return RandomCandidate(solver, seed)
    base, cand = name, False
    if name.endswith(CAND_SUFFIX):
        base, cand = name[: -len(CAND_SUFFIX)], True
    if base not in HEURISTICS:
        raise UsageError(f"unknown strategy {quote(name)} (choose from "
                         f"{', '.join(strategy_names())})")
    measure, larger = HEURISTICS[base]
    return Heuristic(solver, measure, larger, cand, name)
