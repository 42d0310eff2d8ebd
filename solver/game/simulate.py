"""Simulation of a strategy over every answer, and its regret against the exact
optimum.

A strategy is a function of the position only, so playing every answer is one
walk of its decision tree: each position is decided once, however many answers
pass through it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import UsageError
from ..feedback import all_green, to_text
from ..variant import Mode
from .position import Position, constraint_after
from .strategies import Strategy

SAFETY_DEPTH = 40  # every chosen guess splits the candidates, so games end long before


@dataclass
class Simulation:
    strategy: str
    opener: str
    mode: Mode
    max_guesses: int
    games: dict[str, list[tuple[str, int]]]  # answer -> steps, the last one all green
    cpu_seconds: float = 0.0
    positions: int = 0  # distinct positions the strategy decided
    optimum: int | None = field(default=None)  # exact optimum from the opener, if known

    @property
    def counts(self) -> np.ndarray:
        return np.array([len(s) for s in self.games.values()], dtype=np.int64)

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    @property
    def mean(self) -> float:
        return self.total / len(self.games)

    @property
    def stdev(self) -> float:
        """Population standard deviation of the guesses per game."""
        c = self.counts
        return float(math.sqrt(((c - c.mean()) ** 2).mean()))

    @property
    def histogram(self) -> dict[int, int]:
        vals, n = np.unique(self.counts, return_counts=True)
        return {int(v): int(k) for v, k in zip(vals, n, strict=True)}

    @property
    def failures(self) -> int:
        """Games needing more guesses than the cap (0 without a cap)."""
        if not self.max_guesses:
            return 0
        return int((self.counts > self.max_guesses).sum())

    @property
    def regret(self) -> int | None:
        return None if self.optimum is None else self.total - self.optimum

    def to_dict(self) -> dict:
        d = {
            "strategy": self.strategy,
            "opener": self.opener,
            "mode": self.mode,
            "max_guesses": self.max_guesses,
            "games": len(self.games),
            "total": self.total,
            "mean": round(self.mean, 6),
            "stdev": round(self.stdev, 6),
            "histogram": {str(k): v for k, v in self.histogram.items()},
            "failures": self.failures,
            "cpu_seconds": round(self.cpu_seconds, 4),
            "ms_per_game": round(1000 * self.cpu_seconds / len(self.games), 4),
        }
        if self.optimum is not None:
            d["optimum"] = self.optimum
            d["regret"] = self.regret
        return d

    def describe(self) -> str:
        h = "  ".join(f"{k}:{v}" for k, v in self.histogram.items())
        cap = f", {self.failures} over the cap of {self.max_guesses}" if self.max_guesses \
            else ""
        lines = [f"{self.strategy} from {self.opener} ({self.mode}): {len(self.games)} games, "
                 f"total {self.total}, mean {self.mean:.4f}, stdev {self.stdev:.4f}{cap}",
                 f"histogram (guesses:games) {h}",
                 f"{self.cpu_seconds:.2f} s CPU, {1e3 * self.cpu_seconds / len(self.games):.3f} "
                 f"ms per game, {self.positions} positions decided"]
        if self.optimum is not None and self.regret is not None:
            lines.append(f"exact optimum from {self.opener}: {self.optimum}, regret "
                         f"{self.regret} guesses ({self.regret / len(self.games):+.4f} per game)")
        return "\n".join(lines)

    def rows(self):
        """(answer, guesses, steps) per game, for CSV."""
        for a, steps in self.games.items():
            yield a, len(steps), " ".join(f"{g}:{to_text(p, len(a))}" for g, p in steps)


def simulate(solver, strategy: Strategy, opener: str | None = None,
             start: Position | None = None,
             progress: Callable[[int, int], None] | None = None) -> Simulation:
    """Play every candidate of `start` (default: every answer) with `strategy`,
    its first guess forced to `opener` when given. `progress(games done, games)` is
    called as games end (solver.progress.Progress draws it)."""
    lists = solver.lists
    table = solver.table
    pos0 = start if start is not None else Position.start(lists, solver.mode,
                                                          solver.max_guesses)
    first = pos0.check_guess(opener) if opener else None
    games: dict[str, list[tuple[str, int]]] = {}
    decided = 0
    c0 = time.process_time()

    def walk(pos: Position, steps: list[tuple[str, int]], forced: int | None) -> None:
        nonlocal decided
        if len(steps) >= SAFETY_DEPTH:
            raise UsageError(f"{strategy.name}: no game may last {SAFETY_DEPTH} guesses "
                             f"(at {pos})")
        if forced is None:
            g = strategy.choose(pos)
            decided += 1
        else:
            g = forced
        word = lists.guesses[g]
        row = table[g, pos.members]
        for p in np.unique(row):
            p = int(p)
            sub = pos.members[row == p]
            path = steps + [(word, p)]
            if p == all_green(lists.length):
                games[lists.answers[int(sub[0])]] = path
                if progress is not None:
                    progress(len(games), len(pos0.members))
                continue
            cons = constraint_after(pos.cons, word, p) if pos.cons is not None else None
            child = Position(lists, pos.mode, pos.max_guesses, pos.history + ((word, p),),
                             sub, cons)
            walk(child, path, None)

    walk(pos0, [], first)
    games = {a: games[a] for a in sorted(games)}
    opener_word = next(iter(games.values()))[0][0] if games else ""
    return Simulation(strategy.name, opener_word, solver.mode, solver.max_guesses, games,
                      time.process_time() - c0, decided)
