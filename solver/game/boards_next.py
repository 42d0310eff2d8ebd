"""The next guess at a several-board position, for `next --boards`, `play --boards`
and the web page: exact (boards_exact.py) where that takes seconds, else a heuristic
(boards.py), labelled so."""

from __future__ import annotations

from ..errors import Param, UsageError
from ..search import Solver
from ..search.engine import UNCAPPED_DEPTH
from ..status import Status
from ..variant import Mode
from .boards import BoardsHeuristic, BoardsPosition
from .boards_exact import BoardsExact

EXACT_NEXT = 400  # tuples at a position up to which --strategy optimal values it (3 boards at most)
AUTO_WORK = 100_000  # tuples x guesses up to which auto is exact: 70 tuples of 3 boards
# with the 12972 default guesses took 65 s CPU, 30 answers x 110 guesses 2 s


def advise(lists, table, pos: BoardsPosition, top: int = 5, strategy: str = "auto",
           fallback: bool = False):
    """(best, alternatives, how): the next guess at a multi-board position. Exact
    (BoardsExact) with --strategy optimal up to 3 open boards and EXACT_NEXT tuples,
    and with auto where the work is small too (tuples x guesses <= AUTO_WORK: seconds);
    else the heuristic, labelled so.
    `fallback`: where no strategy meets the cap any more, the heuristic (play plays on
    past the cap) instead of (None, [], 'infeasible')."""

    sets = tuple(pos.members[i] for i in pos.open)
    n = pos.tuples
    left = (pos.variant.max_guesses or UNCAPPED_DEPTH) - pos.guesses_made
    small = len(sets) <= 3 and n <= EXACT_NEXT
    if strategy == "auto":
        small = small and n * len(lists.guesses) <= AUTO_WORK
    if strategy == "optimal" and not small:
        raise UsageError(f"{pos}: {len(sets)} open boards and {n} answer tuples; the exact "
                         f"next guess is offered up to 3 open boards and {EXACT_NEXT} tuples "
                         "(use ", Param("strategy"), " entropy, expected or minimax)")
    if strategy in ("auto", "optimal") and small:
        cap = pos.variant.max_guesses
        ex = BoardsExact(Solver(lists, mode=Mode.EASY, max_guesses=cap, table=table), pos.boards,
                         cap)
        r = ex.value(sets, left)
        if r is None and not fallback:
            return None, [], Status.INFEASIBLE
        if r is not None:
            return {"guess": lists.guesses[r[2]], "status": Status.EXACT, "total": r[0],
                "average": round(r[0] / n, 6), "worst": r[1]}, [], Status.EXACT
    measure = "entropy" if strategy in ("auto", "optimal") else strategy
    h = BoardsHeuristic(table, lists, measure)
    for i in pos.open:  # the rule: a board with one candidate left is guessed now
        if len(pos.members[i]) == 1:
            g = lists.answers[pos.members[i][0]]
            return {"guess": g, "status": "heuristic",
                    "why": f"board {i + 1} has one candidate left"}, [], "heuristic"
    ranked = h.ranked(pos, top + 1)
    if not ranked:
        raise UsageError(f"{pos}: no guess splits or solves an open board")
    rows = [{"guess": lists.guesses[g], "status": "heuristic", measure: round(v, 6),
             "candidate": c} for g, v, c in ranked]
    return rows[0], rows[1:], "heuristic"
