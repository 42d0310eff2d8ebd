"""The result of valuing one opener."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..status import RESULTS, Status
from ..variant import Mode

STATUSES: tuple[str, ...] = tuple(s.value for s in RESULTS)


@dataclass
class SolveResult:
    """Value of one opener.

    status: exact (total is the proven optimum), infeasible (no strategy meets the
    cap; total None), upper_bound (a strategy achieving total exists, e.g. --beam),
    lower_bound (the optimum is at least total, e.g. cut off by --cutoff),
    not_found (a restricted search, --beam or the uncapped search's depth limit, found
    no strategy, or none under the cutoff; that proves nothing: total None).
    note: why a result is weaker than asked for (empty when it is not).
    """

    opener: str
    status: str
    total: int | None
    answers: int
    depth: int | None
    seconds: float
    nodes: int
    mode: Mode
    max_guesses: int
    cpu_seconds: float = 0.0
    note: str = ""
    source: str = ""  # where a value read from data comes from ("book"); "" when searched

    def __post_init__(self) -> None:
        self.status = Status(self.status)  # one of RESULTS (a str: compares as the name)

    @property
    def average(self) -> float | None:
        return None if self.total is None else self.total / self.answers

    def to_dict(self) -> dict:
        d = asdict(self)
        d["average"] = None if self.average is None else round(self.average, 6)
        d["seconds"] = round(self.seconds, 4)
        d["cpu_seconds"] = round(self.cpu_seconds, 4)
        if not self.note:
            del d["note"]
        if not self.source:
            del d["source"]
        return d

    def describe(self) -> str:
        if self.status == Status.INFEASIBLE:
            value = f"infeasible within {self.max_guesses} guesses"
        elif self.status == Status.NOT_FOUND:
            value = "no strategy found"
        else:
            rel = {Status.EXACT: "", Status.UPPER_BOUND: "<= ",
                   Status.LOWER_BOUND: ">= "}[Status(self.status)]
            value = f"{rel}{self.total} ({rel}{self.average:.4f} avg)"
        depth = f", depth {self.depth}" if self.depth else ""
        note = f" ({self.note})" if self.note else ""
        how = (f"from the {self.source}" if self.source else
               f"{self.nodes} node{'s' if self.nodes != 1 else ''}, {self.seconds:.2f} s")
        return (f"{self.opener} {self.status}: {value} over {self.answers} answers"
                f"{depth} [{self.mode}, {how}]{note}")
