"""A consistent read of a result store (Snapshot: `status` read first, so every
opener that is not pending has its fields), the openers' rows and ranking, and
the progress line the commands print."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from .layout import (
    EXACT,
    FAILED,
    INFEASIBLE,
    LOWER_BOUND,
    PENDING,
    STATUS_NAMES,
    UPPER_BOUND,
    Problem,
)


class Source(Protocol):
    """What a snapshot reads of its store: a Store, or a Book (which reads like one)."""

    @property
    def path(self) -> str | Path: ...

    @property
    def problem(self) -> Problem: ...

    @property
    def words(self) -> list[str]: ...


@dataclass
class Snapshot:
    """A consistent read of a store: every non-pending opener has valid fields."""

    store: Source
    status: np.ndarray
    fields: dict[str, np.ndarray]
    selected: np.ndarray
    run: dict

    @property
    def n_answers(self) -> int:
        return self.store.problem.n_answers

    def finished_mask(self) -> np.ndarray:
        return (self.status != PENDING) & (self.status != FAILED)

    def counts(self) -> dict[str, int]:
        c = np.bincount(self.status, minlength=len(STATUS_NAMES))
        return {name: int(c[i]) for i, name in enumerate(STATUS_NAMES)}

    def progress(self) -> dict:
        counts = self.counts()
        selected = int(self.selected.sum())
        done = int(((self.status != PENDING) & (self.selected == 1)).sum())
        best = self.best(1)
        # what the valued openers cost over every run of the store (a book keeps the
        # CPU of its exact openers only, and says what the whole build cost)
        cpu = self.run.get("cpu_seconds")
        if cpu is None:
            cpu = np.nansum(self.fields["cpu_seconds"][self.status != PENDING])
        return {
            "store": str(self.store.path),
            "openers": len(self.status),
            "selected": selected,
            "done": done,
            "remaining": selected - done,
            "counts": counts,
            "best": best[0] if best else None,
            "cpu_seconds": round(float(cpu), 3),
            "run": self.run,
        }

    def ranks(self) -> np.ndarray:
        """Competition rank (1 = best) of each exact/upper-bound opener by total; 0 else.

        Rank r means r-1 finished openers have a strictly smaller total; ties share a
        rank. Lower bounds (cut off by --cutoff) and infeasible openers get no rank.
        A rank is the opener's rank among all openers only below `frontier()`.
        """
        total = self._key()
        ok = (self.status == EXACT) | (self.status == UPPER_BOUND)
        out = np.zeros(len(total), dtype=np.int64)
        vals = np.sort(total[ok])
        out[ok] = np.searchsorted(vals, total[ok], side="left") + 1
        return out

    def _key(self) -> np.ndarray:
        """What openers rank by: the total, or under the worst-case objective the
        depth first and then the total (one int64: depth * 2**40 + total), under the
        objective wins the answers lost first and then the total."""
        total = self.fields["total"]
        objective = getattr(self.store.problem, "objective", "expected")
        if objective == "wins":
            lost = self.n_answers - self.fields["wins"].astype(np.int64)
            return lost * (1 << 40) + total
        if objective != "worst":
            return total
        return self.fields["depth"].astype(np.int64) * (1 << 40) + total

    def frontier(self) -> float:
        """The total below which the ranking is proven: the least stored lower bound
        (an opener known only by its bound might beat any exact opener at or above
        it); infinite when there is none, and -infinite while any opener is pending
        or failed (its value could be anything)."""
        if ((self.status == PENDING) | (self.status == FAILED)).any():
            return -np.inf
        lows = self.fields["total"][self.status == LOWER_BOUND]
        return float(lows.min()) if len(lows) else np.inf

    def row(self, i: int, ranks: np.ndarray | None = None) -> dict:
        st = int(self.status[i])
        f = self.fields
        total = int(f["total"][i]) if st not in (PENDING, FAILED, INFEASIBLE) else None
        if total is not None and total < 0:
            total = None
        done = st != PENDING

        def num(name, cast):
            v = f[name][i]
            if not done or (isinstance(v, float | np.floating) and np.isnan(v)) or v == -1:
                return None
            return cast(v)

        r = int(ranks[i]) if ranks is not None and ranks[i] > 0 else None
        # under the objective wins (the answers won within the cap, and the guesses
        # summed over those): a store of that objective (its total is that sum, its
        # average over the answers won), or a book that holds it for some openers
        # (book/reader.py: field wins_total; an infeasible opener keeps no total)
        wins = int(f["wins"][i]) if "wins" in f and done and f["wins"][i] >= 0 else None
        objective = getattr(self.store.problem, "objective", "expected")
        wins_total = None
        if wins is not None:
            wins_total = total if objective == "wins" else (
                int(f["wins_total"][i]) if "wins_total" in f else None)
        over = wins if objective == "wins" else self.n_answers
        return {
            "opener": self.store.words[i],
            "index": int(i),
            "status": STATUS_NAMES[st],
            "total": total,
            "average": None if total is None or not over else round(total / over, 6),
            "rank": r,
            "depth": num("depth", int),
            "cpu_seconds": None if num("cpu_seconds", float) is None
            else round(float(f["cpu_seconds"][i]), 4),
            "wall_seconds": None if num("wall_seconds", float) is None
            else round(float(f["wall_seconds"][i]), 4),
            "nodes": num("nodes", int),
            "mpi_rank": num("rank", int),
            "finished_at": None if num("finished_at", float) is None
            else round(float(f["finished_at"][i]), 3),
            "objective": objective,
            "wins": wins,
            "wins_total": wins_total,
        }

    def order(self) -> np.ndarray:
        """Indices of exact/upper-bound openers, best (smallest total) first."""
        total = self._key()
        ok = np.flatnonzero((self.status == EXACT) | (self.status == UPPER_BOUND))
        return ok[np.lexsort((ok, total[ok]))]

    def best(self, k: int) -> list[dict]:
        ranks = self.ranks()
        return [self.row(int(i), ranks) for i in self.order()[:k]]


ROW_KEYS = ("opener", "index", "status", "total", "average", "rank", "depth", "cpu_seconds",
            "wall_seconds", "nodes", "mpi_rank", "finished_at", "objective", "wins",
            "wins_total")


def describe_progress(p: dict) -> str:
    c = p["counts"]
    parts = [f"{p['done']}/{p['selected']} selected openers done"
             f" ({p['openers']} in the guess list)"]
    extra = [f"{c[n]} {n}" for n in STATUS_NAMES[1:] if c[n]]
    if extra:
        parts.append(", ".join(extra))
    cpu = p.get("cpu_seconds") or 0.0
    if cpu:
        parts.append(f"{cpu / 3600:.2f} CPU-h spent" if cpu >= 360 else f"{cpu:.1f} CPU-s spent")
    if p["best"]:
        b = p["best"]
        if b.get("objective") == "wins":
            parts.append(f"best {b['opener']} wins {b['wins']}, total {b['total']} "
                         f"({b['average']:.4f} avg over those)")
        else:
            parts.append(f"best {b['opener']} {b['total']} ({b['average']:.4f} avg)")
    run = p.get("run") or {}
    if run.get("state") == "book":
        parts.append(f"opening book built {str(run.get('built_at'))[:10]}")
    elif run.get("state"):
        when = run.get("updated_at")
        age = f", updated {time.time() - when:.0f} s ago" if when else ""
        parts.append(f"run {run['state']}{age}")
    return "; ".join(parts)


def dumps_row(row: dict) -> str:
    return json.dumps(row)
