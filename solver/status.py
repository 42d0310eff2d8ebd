"""How far a value is proven: the one list of statuses, shared by a search's results
(`SolveResult.status`) and the result store's int codes.

A status is a str (`status == "exact"`, JSON and the store's attributes take it as
is). The store keeps a code per opener: the position in STORED, which no change may
reorder (stores on disk hold these codes). A result's not_found is stored as failed.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    PENDING = "pending"  # the store's: not valued yet
    EXACT = "exact"  # the proven optimum
    INFEASIBLE = "infeasible"  # no strategy meets the cap (no total)
    LOWER_BOUND = "lower_bound"  # the optimum is at least the total (a cutoff)
    UPPER_BOUND = "upper_bound"  # a strategy achieving the total exists (a beam)
    FAILED = "failed"  # the store's: the valuation failed (a result's not_found)
    NOT_FOUND = "not_found"  # a restricted search found no strategy: proves nothing

    def __repr__(self) -> str:  # as the plain name: a result's repr, a message's !r
        return repr(self.value)

    @property
    def code(self) -> int:
        """The store's code of this status (not_found: failed's)."""
        return STORED.index(Status.FAILED if self is Status.NOT_FOUND else self)

    @classmethod
    def of_code(cls, code: int) -> Status:
        """The status a store's `code` stands for."""
        return STORED[int(code)]


# the store's codes, in order: never reorder (stores on disk hold them)
STORED: tuple[Status, ...] = (Status.PENDING, Status.EXACT, Status.INFEASIBLE,
                              Status.LOWER_BOUND, Status.UPPER_BOUND, Status.FAILED)
# what a search's SolveResult carries
RESULTS: tuple[Status, ...] = (Status.EXACT, Status.INFEASIBLE, Status.UPPER_BOUND,
                               Status.LOWER_BOUND, Status.NOT_FOUND)
