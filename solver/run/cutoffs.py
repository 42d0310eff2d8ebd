"""The cutoff each opener of a run is valued under (Cutoffs).

A run values an opener whole either exactly or under a cutoff X: below X it gets
its exact value, at or above X a proven lower bound >= X, which costs far less.
Three rules, in this order:

- openers that must be exact (the opening book's popular ones) take no cutoff;
- a fixed cutoff (run --cutoff X) applies to every other opener;
- the best K openers (`best --top K`, the book): the cutoff is one past the K-th
  best exact total known so far, or none while fewer than K are known.

The third rule is sound however the work is spread: exact totals only ever join
the K best, so the K-th best only falls, and a lower bound proven against an
earlier cutoff is at or above every later one. Every opener outside the final K
best is then exact, or has a lower bound above the K-th best (ties with the K-th
are valued exactly, since the cutoff is one past it). Rank 0 sends its current
view with each chunk of work; a worker tightens its copy with the exact totals it
finds itself, between two chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass
class Cutoffs:
    fixed: int | None = None  # run --cutoff
    top: int | None = None  # the best `top` openers: the cutoff follows them
    exact: frozenset[int] = frozenset()  # openers always valued exactly
    # the `top` least exact totals, by opener: an opener valued again (a resumed
    # book's exact openers valued again for their class values) counts once
    totals: dict[int, int] = field(default_factory=dict)

    def cutoff(self, index: int) -> int | None:
        """The cutoff opener `index` is valued under now (None: exactly)."""
        if index in self.exact:
            return None
        if self.fixed is not None:
            return self.fixed
        if self.top is not None and len(self.totals) >= self.top:
            return max(self.totals.values()) + 1
        return None

    def add(self, index: int, total: int) -> None:
        """Opener `index`'s exact total found: it may tighten the cutoff."""
        if self.top is None:
            return
        self.totals[int(index)] = int(total)
        if len(self.totals) > self.top:
            del self.totals[max(self.totals, key=lambda i: (self.totals[i], i))]

    @property
    def dynamic(self) -> bool:
        return self.top is not None and self.fixed is None

    def resume_cutoff(self) -> int | None:
        """The cutoff every opener other than the exact ones is held to now: lower
        bounds below it are valued again (Store.todo)."""
        return self.fixed if self.fixed is not None else self.cutoff(-1)

    def for_units(self, indices) -> Cutoffs:
        """What a worker needs for a chunk of these openers (the exact set cut down
        to them: the message stays small)."""
        return replace(self, exact=frozenset(i for i in indices if i in self.exact),
                       totals=dict(self.totals))
