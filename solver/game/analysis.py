"""The next-guess analysis of a position: the optimal guess with its exact total
and the K best alternatives with theirs.

Values are totals of further guesses summed over the remaining candidates (the
next guess counts 1 for every candidate), under the guesses left.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import Hint, StoreError, UsageError
from ..plural import counted, percent
from ..status import Status
from .measures import EST, HIT, PATTERNS, lower_bounds, scan
from .position import Position

Progress = Callable[[int, int], None]  # (guesses looked at, guesses in all); may raise
PROGRESS_EVERY = 64  # guesses between progress calls

WORDS_SHOWN = 20  # list the candidates when there are this many or fewer
EMPTY_EXACT_LIMIT = 400  # answers: above this the opener needs a store (BENCHMARKS.md)


@dataclass
class Choice:
    """One guess at a position: its exact total (None when infeasible) and status
    (exact, infeasible, solved); `worst`, when known, the most further guesses any
    answer needs under the strategy behind the total (objective.py); `wins`, under
    the objective wins (wins.py), the candidates it wins within the guesses left,
    and `total` is then summed over those alone."""

    guess: str | None
    total: int | None
    status: str
    worst: int | None = None
    wins: int | None = None

    def to_dict(self) -> dict:
        d = {"guess": self.guess, "total": self.total, "status": self.status}
        if self.worst is not None:
            d["worst"] = self.worst
        if self.wins is not None:
            d["wins"] = self.wins
        return d


@dataclass
class Analysis:
    """`fallback_from`: the objective asked for (expected or worst) when it has no
    value here (no strategy wins every candidate) and the analysis fell back to the
    objective wins; None otherwise."""

    position: Position
    best: Choice
    alternatives: list[Choice]
    note: str | None = None
    source: str = "engine"  # or "store", "book"
    seconds: float = field(default=0.0, compare=False)
    fallback_from: str | None = None

    @property
    def candidates(self) -> int:
        return len(self.position.members)

    @property
    def objective(self) -> str:
        """The objective of the values shown: the position's, or wins after a
        fallback."""
        return "wins" if self.fallback_from else self.position.objective

    @property
    def average(self) -> float | None:
        """Further guesses on average over the candidates; under wins over the
        candidates won."""
        n = self.candidates if self.best.wins is None else self.best.wins
        if self.best.total is None or not n:
            return None
        return self.best.total / n

    def to_dict(self) -> dict:
        pos = self.position
        words = pos.candidates if self.candidates <= WORDS_SHOWN else None
        avg = self.average
        best = {"guess": self.best.guess, "total": self.best.total,
                "average": None if avg is None else round(avg, 6),
                "status": self.best.status}
        if self.best.worst is not None:
            best["worst"] = self.best.worst
        if self.best.wins is not None:
            best["wins"] = self.best.wins
        d = {
            "position": str(pos),
            "candidates": self.candidates,
            "words": words,
            "best": best,
            "alternatives": [a.to_dict() for a in self.alternatives],
            "mode": pos.mode,
            "max_guesses": pos.max_guesses,
            "objective": self.objective,
        }
        if self.fallback_from:
            d["fallback_from"] = self.fallback_from
        return d

    def describe(self) -> str:
        """Human-readable lines."""
        pos = self.position
        n = self.candidates
        left = pos.guesses_left
        lines = [f"position {pos} ({pos.mode}, "
                 + (f"{left} guess{'es' if left != 1 else ''} left" if left is not None
                    else "no cap") + ")"]
        cand = counted(n, "candidate")
        if n <= WORDS_SHOWN:
            cand += ": " + " ".join(pos.candidates)
        lines.append(cand)
        b = self.best
        if b.status == "solved":
            lines.append("solved")
        elif b.wins is not None and b.total is not None:
            lines += self._describe_wins()
            return "\n".join(lines)
        elif b.total is None:
            lines.append("no strategy solves every candidate within the guesses left")
        else:
            src = self._from()
            worst = "" if b.worst is None else (
                f", every candidate within {b.worst} more guess{'es' if b.worst != 1 else ''}")
            if pos.objective == "worst":
                lines.append(f"best (worst case first): {b.guess}  every candidate within "
                             f"{b.worst} more guesses, total {b.total} ({b.total / n:.4f} "
                             f"on average) within that, {b.status}{src}")
            else:
                best = "best known" if self.source == "known" else "best"
                lines.append(f"{best}: {b.guess}  total {b.total} ({b.total / n:.4f} more guesses "
                             f"on average){worst}, {b.status}{src}")
        if self.alternatives:
            lines.append("alternatives:")
            for a in self.alternatives:
                val = "cannot solve every candidate in time" if a.total is None else (
                    f"total {a.total} ({a.total / n:.4f})  +{a.total - b.total}"
                    if b.total is not None else f"total {a.total}")
                if a.worst is not None:
                    val = f"within {a.worst}, {val}"
                lines.append(f"  {a.guess}  {val}  {a.status}")
        if self.note:
            lines.append(f"note: {self.note}")
        return "\n".join(lines)


    def _from(self) -> str:
        """Where the answer came from, as the status line says it (nothing for the
        engine, which computed it now)."""
        return {"store": " (from the result store)", "book": " (from the book)",
                "table": " (from the table)",
                "known": " value, not proven best"}.get(self.source, "")

    def _describe_wins(self) -> list[str]:
        """The lines after the candidates under the objective wins."""
        b, n = self.best, self.candidates
        assert b.wins is not None and b.total is not None
        lines = []
        if b.wins < n:
            left = self.position.guesses_left
            within = f"within the {left} guesses left" if left is not None else "from here"
            why = ": playing for the most wins instead" if self.fallback_from else ""
            lines.append(f"no strategy wins every candidate {within}{why}")
            lines.append(f"best chance: {b.guess}  wins {b.wins} of the {n} "
                         f"({percent(b.wins, n)}), then {b.total / max(b.wins, 1):.4f} more "
                         f"guesses on average over those (total {b.total}), {b.status}"
                         f"{self._from()}")
        else:
            lines.append(f"best (wins first): {b.guess}  wins every candidate, total {b.total} "
                         f"({b.total / n:.4f} more guesses on average), {b.status}"
                         f"{self._from()}")
        if self.alternatives:
            lines.append("alternatives:")
            for a in self.alternatives:
                assert a.wins is not None and a.total is not None
                diff = (f"+{a.total - b.total}" if a.wins == b.wins
                        else f"{a.wins - b.wins} win{'s' if abs(a.wins - b.wins) != 1 else ''}")
                avg = f" ({a.total / a.wins:.4f})" if a.wins else ""
                lines.append(f"  {a.guess}  wins {a.wins} of {n}, total {a.total}{avg}  {diff}  "
                             f"{a.status}")
        if self.note:
            lines.append(f"note: {self.note}")
        return lines


def evaluate(solver, position: Position, guess: str) -> Choice:
    """Exact total of playing `guess` now (then optimally): what the guess a player
    has in mind costs. UsageError when it may not be played here."""
    _check(solver, position)
    gid = position.check_guess(guess)
    if position.solved:
        raise UsageError(f"{position} is already solved")
    total, status = solver.guess_value(gid, position.members, position.budget, position.cons)
    return Choice(solver.lists.guesses[gid], total, status)


def _check(solver, position: Position) -> None:
    if (solver.mode != position.mode or solver.max_guesses != position.max_guesses
            or solver.lists.answers != position.lists.answers
            or solver.lists.guesses != position.lists.guesses):
        raise UsageError("the solver and the position are for different lists, modes or caps")


# whether rankings whose totals are counts skip the search (tests compare both)
COUNTED = True


def _counted(lb: np.ndarray, patterns: np.ndarray, hit: np.ndarray, n: int,
             left: int) -> np.ndarray | None:
    """The exact totals of useful guesses where they are counts, not searches: with
    two guesses left a guess must split the candidates into singletons (2n - [g in
    S]); with one, only a lone candidate guessed wins; with 3 or more left and at most
    two candidates, a candidate costs 1 or 3 and a guess that splits the two 4. In
    each case the admissible bound 3n - 2[g in S] - classes is the total where the
    guess finishes in time; -1 where it cannot. None where the position is not one
    of these (its totals need the search)."""
    if left >= 3 and n >= 3:
        return None
    if left >= 3:
        ok = np.ones(len(lb), np.bool_)
    elif left == 2:
        ok = patterns == n
    else:
        ok = hit & (n == 1) & (left == 1)
    return np.where(ok, lb, -1)


def ranked_guesses(solver, position: Position, k: int,
                   progress: Progress | None = None) -> list[Choice]:
    """The k guesses with the smallest exact totals (ties: candidates first, then
    alphabetical), by branch and bound: each guess's admissible bound (3n - 2[g in
    S] - classes) is checked against the k-th best total found so far, and only
    guesses that could still tie or beat it are searched, in order of promise.
    Guesses that cannot split the candidates are never listed (they cost n plus the
    same position with a guess fewer, never optimal)."""
    pos = position
    members = pos.members
    n = len(members)
    gids = np.flatnonzero(pos.legal())
    raw = scan(solver.table, members, gids, solver.variant.all_green, solver.class_costs())
    lb = lower_bounds(raw, n)
    hit = raw[:, HIT] > 0
    useful = (raw[:, PATTERNS] > 1) | hit
    gids, lb, hit, raw = gids[useful], lb[useful], hit[useful], raw[useful]
    classes = raw[:, PATTERNS].astype(np.int64)
    est = n + raw[:, EST] - 0.5 * hit
    order = np.lexsort((gids, est))
    found: list[tuple[int, int, str, int]] = []  # (total, not candidate, word, gid)
    words = solver.lists.guesses
    counts = _counted(lb, classes, hit, n, pos.budget) if COUNTED else None
    if k > 0 and counts is not None:  # every total a count: no search
        found = sorted((int(counts[j]), int(not hit[j]), words[int(gids[j])], int(gids[j]))
                       for j in np.flatnonzero(counts >= 0))
        return [Choice(w, t, Status.EXACT) for t, _c, w, _g in found[:k]]
    if k > 0 and solver.ranks_in_kernel(pos.budget, n):
        # the same branch and bound in one compiled loop (Solver.rank_values)
        totals, exact = solver.rank_values(members, pos.budget, pos.cons, gids, classes,
                                           gids[order], lb[order], k, progress,
                                           PROGRESS_EVERY)
        for j, total in zip(order[exact], totals[exact], strict=True):
            found.append((int(total), int(not hit[j]), words[int(gids[j])], int(gids[j])))
        found.sort()
        return [Choice(w, t, Status.EXACT) for t, _c, w, _g in found[:k]]
    for step, j in enumerate(order):
        if progress is not None and step % PROGRESS_EVERY == 0:
            progress(step, len(order))
        cut = None
        if len(found) >= k:
            cut = found[k - 1][0] + 1  # ties are valued exactly too
            if lb[j] >= cut:
                continue
        g = int(gids[j])
        total, status = solver.guess_value(g, members, pos.budget, pos.cons, cutoff=cut)
        if status in (Status.EXACT, Status.UPPER_BOUND):
            found.append((total, int(not hit[j]), words[g], g))
            found.sort()
            del found[k:]
    return [Choice(w, t, Status.EXACT) for t, _c, w, _g in found]


def analyse(solver, position: Position, top: int = 5, store=None,
            allow_empty: bool = False, progress: Progress | None = None,
            fallback: bool = False) -> Analysis:
    """The optimal next guess at `position` and the `top` best alternatives, all
    with exact totals.

    The best guess is the engine's choice (at the start: the smallest total, ties
    as in `ranked_guesses`); alternatives are ranked by total, then candidates
    first, then alphabetically. With a result `store` (solver.store.Store) for the
    same problem, the opener at the start and the second guess after one guess come
    from the store. At the start without a store, more than EMPTY_EXACT_LIMIT
    answers is a UsageError unless allow_empty (choosing an opener on the full lists
    is a cluster job: `wordle-dp run`). `progress(done, of)` is called every
    PROGRESS_EVERY guesses of the ranking; an exception it raises cancels the
    analysis (the solver stays usable).

    Under the objective wins (wins.py) the best guess wins the most candidates
    within the guesses left, then has the smallest total over those. `fallback`:
    where the objective asked for has no value (no strategy wins every candidate),
    fall back to wins and say so (`Analysis.fallback_from`) instead of answering
    infeasible."""
    import time

    t0 = time.perf_counter()
    _check(solver, position)
    if top < 0:
        raise UsageError("top must be >= 0")
    _phase(progress, "")
    pos = position
    if pos.solved:
        return Analysis(pos, Choice(None, 0, "solved"), [])
    if pos.objective == "wins":
        return analyse_wins(solver, pos, top, store, allow_empty, progress)

    def fall_back(res: Analysis) -> Analysis:
        if fallback and res.best.status == Status.INFEASIBLE:
            return analyse_wins(solver, pos, top, None, allow_empty, progress,
                                fallback_from=pos.objective)
        return res

    if pos.objective == "worst":
        return fall_back(analyse_worst(solver, pos, top, store, allow_empty, progress))
    if store is not None:
        _check_store(store, pos)
        res = _from_store(solver, pos, top, store, fallback, progress)
        if res is not None:
            if (pos.history and res.best.total is not None and res.best.worst is None
                    and not res.fallback_from):
                res.best = _stored_tie_break(solver, pos, res.best)
            res.seconds = time.perf_counter() - t0
            return res
    if not pos.history:
        if len(pos.lists.answers) > EMPTY_EXACT_LIMIT and not allow_empty:
            res = best_known(pos, top)
            res.seconds = time.perf_counter() - t0
            return res
        ranked = ranked_guesses(solver, pos, top + 1, progress=progress)
        if not ranked:
            return fall_back(Analysis(pos, Choice(None, None, Status.INFEASIBLE), []))
        assert ranked[0].total is not None  # ranked guesses are feasible
        best = _smallest_worst(solver, pos, ranked[0].total, ranked[0].status)
        res = Analysis(pos, best, [c for c in ranked if c.guess != best.guess][:top])
        res.seconds = time.perf_counter() - t0
        return res
    # With alternatives asked for, the top + 1 are ranked first, and the best and its
    # tie-break are then valued on the memo the ranking leaves. The best first (its
    # own search, the worst-case tie-break, then the ranking) paid for much of the
    # same search three times (`book moves` of fjeld, easy: 38.7 -> 17.5 s of CPU;
    # BENCHMARKS, "Ranked first").
    ranked = ranked_guesses(solver, pos, top + 1, progress=progress) if top else []
    total, g, status = solver.set_value(pos.members, pos.budget, pos.cons)
    if total is None:
        return fall_back(Analysis(pos, Choice(None, None, status), []))
    best = _smallest_worst(solver, pos, total, status)
    # the alternatives leave out the guess shown as best (the tie-break's, which may
    # not be the engine's g: it was listed again, +0, under hard crane:BBYBB). The
    # top + 1 by (total, not a candidate, word) less the shown guess are the top
    # without it: the shown guess is either among them or ranked below all of them.
    alts = [c for c in ranked if c.guess != best.guess][:top]
    res = Analysis(pos, best, alts)
    res.seconds = time.perf_counter() - t0
    return res


def best_known(pos: Position, top: int) -> Analysis:
    """The start on lists too big to search, with no store or book: the best known
    opener (game/known.py) with its exact value, labelled not proven best; a
    UsageError saying why when nothing is known."""
    from .known import example_position, known_openers

    known = known_openers(pos.lists, pos.mode, pos.max_guesses)
    n = len(pos.lists.answers)
    if known is None or not known.openers:
        why = ""
        if known is not None and known.infeasible:
            shown = ", ".join(known.infeasible[:5]) + (", ..." if len(known.infeasible) > 5
                                                       else "")
            why = (f"no opener is known to solve every answer within {pos.max_guesses} "
                   f"guesses in {pos.mode} mode ({len(known.infeasible)} strong openers "
                   f"are proven unable to, {shown}); ")
        example = example_position(pos.lists)
        raise UsageError(
            f"{why}choosing the opener over {n:,} answers is a cluster job",
            Hint("opener_search", " (a run into a result store); pass a store with its "
                 "results, or an opening book, or choose the first guess yourself (a "
                 f"position like {example}, or an opener)", example=example))
    ch = [Choice(w, t, Status.EXACT) for w, t in known.openers[:top + 1]]
    n = len(known.openers)
    many = n != 1
    note = (f"the best known opener, not proven best: the {n} strong "
            f"opener{'s' if many else ''} measured on the {known.lists} lists "
            f"ha{'ve exact values' if many else 's an exact value'}, but no proof says "
            f"that no other opener beats {'them' if many else 'it'} (an opening book or a "
            "complete run over every opener would prove it)")
    if known.published:  # an independent solver's table of every opener ranks it first
        note += (f"; Alex Selby's published exact values of every opener "
                 f"({known.published}) rank {known.openers[0][0]} first too")
    return Analysis(pos, ch[0], ch[1:], note=note, source="known")


def _smallest_worst(solver, pos: Position, total: int, status: str) -> Choice:
    """Among the guesses of optimal `total`, one whose strategy has the smallest worst
    case (the expected objective's tie-break, exact: objective.set_height)."""
    from ..search.worst import set_height

    worst, g = set_height(solver, pos.members, pos.budget, pos.cons, total)
    return Choice(solver.lists.guesses[g], total, status, worst)


def _stored_tie_break(solver, pos: Position, best: Choice) -> Choice:
    """A stored second guess was chosen among equal totals without the tie-break:
    kept when its smallest worst case is the position's, else replaced by one that
    has it."""
    from ..search.worst import guess_height

    assert best.total is not None  # a stored guess has its total
    choice = _smallest_worst(solver, pos, best.total, best.status)
    if choice.guess == best.guess:
        return choice
    gid = solver.lists.guess_index[best.guess]
    if guess_height(solver, gid, pos.members, pos.budget, pos.cons, best.total) == choice.worst:
        return Choice(best.guess, best.total, best.status, choice.worst)
    return choice


def _check_store(store, pos: Position) -> None:
    """The store (duck-typed: solver.store sits above this layer) must hold this
    problem: same lists, mode and cap."""
    p = store.problem
    diff = []
    if (p.answers_sha256, p.guesses_sha256) != (pos.lists.answers_sha256,
                                                pos.lists.guesses_sha256):
        diff.append("word lists")
    if p.mode != pos.mode:
        diff.append(f"mode (store: {p.mode}, requested: {pos.mode})")
    if p.max_guesses != pos.max_guesses:
        diff.append(f"max_guesses (store: {p.max_guesses}, requested: {pos.max_guesses})")
    if getattr(p, "objective", "expected") != pos.objective:
        diff.append(f"objective (store: {getattr(p, 'objective', 'expected')}, requested: "
                    f"{pos.objective})")
    if diff:
        raise StoreError(f"{store.path} holds results for another problem: different "
                         + "; ".join(diff))


def opening(pos: Position, top: int, store, fallback: bool = False) -> Analysis | None:
    """The start of a game, or a second move, answered from a result store or book
    alone (no solver needed: `next -` from the book in milliseconds): the best opener
    and up to `top` proven alternatives; after one guess, the book's second move
    (solver.moves) with `top` alternatives, and with `fallback` its best chance
    where no strategy solves the class (as `analyse(..., fallback=True)`). None when
    the data does not have it."""
    if len(pos.history) > 1 or pos.objective != "expected":
        return None
    _check_store(store, pos)
    if pos.history:
        return _from_moves(pos, top, store, fallback)
    return _from_store(None, pos, top, store)


def _from_moves(pos: Position, top: int, store, fallback: bool = False) -> Analysis | None:
    """The second move from the book's moves (data computed by this same analysis,
    tie-break included): None where they lack the class, the class is infeasible and
    `fallback` is off or they hold no best chance for it (the search says what else
    can be done), or `top` asks for more alternatives than they keep."""
    moves = getattr(store, "moves", None)
    if moves is None or pos.objective != "expected" or len(pos.history) != 1:
        return None
    opener, pattern = pos.history[0]
    gid = pos.lists.guess_index.get(opener)
    move = None if gid is None else moves.lookup(gid, pattern)
    if move is None or move.best is None or move.total is None:
        return None
    if move.wins is not None and not fallback:
        return None  # the best chance, which this caller did not ask for
    alts = move.alternatives
    if top > len(alts) and len(alts) >= moves.alternatives:
        return None  # more than it keeps (a class with fewer has no more to give)
    source = getattr(store, "source", "store")
    if move.wins is not None:  # as analyse_wins answers the fallback
        best = Choice(move.best, move.total, Status.EXACT, wins=move.wins)
        return Analysis(pos, best, [Choice(g, t, Status.EXACT, wins=w) for (g, t), w in
                                    zip(alts[:top], move.alt_wins, strict=False)],
                        source=source, fallback_from=pos.objective)
    best = Choice(move.best, move.total, Status.EXACT, move.worst)
    return Analysis(pos, best, [Choice(g, t, Status.EXACT) for g, t in alts[:top]],
                    source=source)


def _from_store(solver, pos: Position, top: int, store, fallback: bool = False,
                progress: Progress | None = None) -> Analysis | None:
    source = getattr(store, "source", "store")
    if len(pos.history) == 0:
        snap = store.snapshot()
        rows = snap.best(top + 1)
        if not rows:
            return None
        c = snap.counts()
        note = None
        if c["pending"] or c["failed"]:
            note = (f"the store has {c['pending']} pending and {c['failed']} failed "
                    "openers: the best so far, not proven best")
        else:  # alternatives only where the ranking is proven (Snapshot.frontier)
            edge = snap.frontier()
            rows = [r for r in rows if r["total"] < edge] or rows[:1]
        ch = [Choice(r["opener"], r["total"], r["status"]) for r in rows]
        return Analysis(pos, ch[0], ch[1:], note=note, source=source)
    if len(pos.history) == 1:
        res = _from_moves(pos, top, store, fallback)
        if res is not None:
            return res
        opener, pattern = pos.history[0]
        second = store.second_guesses(store.index_of(opener)).get(pattern)
        if second is None:
            return None
        where = getattr(store, "source_of", None)  # a book: its own, or its table's
        source = where(store.index_of(opener)) if where else source
        gid = solver.lists.guess_index[second]
        # ranked first, as in `analyse`: the searches below then read its memo
        ranked = ranked_guesses(solver, pos, top + 1, progress=progress) if top else []
        known = getattr(store, "class_total", None)  # a book has the class's value
        total = known(store.index_of(opener), pattern) if known else None
        status = Status.EXACT
        if total is None:
            total, status = solver.guess_value(gid, pos.members, pos.budget, pos.cons)
        best = Choice(second, total, status)
        if total is not None:  # the tie-break: the alternatives leave out its guess
            # (a class of an opener from the table, without moves, searches it: 22 s
            # for abaca:BBBBB, where a terminal shows the step and its time)
            wait = getattr(progress, "wait", None)
            with wait("the smallest worst case among guesses of that total") if wait \
                    else contextlib.nullcontext():
                best = _stored_tie_break(solver, pos, best)
        alts = [c for c in ranked if c.guess != best.guess][:top]  # as in `analyse`
        return Analysis(pos, best, alts, source=source)
    return None


def analyse_worst(solver, pos, top: int = 5, store=None, allow_empty: bool = False,
                  progress=None):
    """`analysis.analyse` under the worst-case objective: the guess whose strategy
    solves every candidate in the fewest guesses (`worst`, counting it), the smallest
    total within that many, and the `top` next guesses that also solve every
    candidate within `worst`, by total. A store of this objective answers the start."""
    from ..search.worst import set_worst

    t0 = time.perf_counter()
    if store is not None:
        _check_store(store, pos)
        if not pos.history:
            rows = store.snapshot().best(top + 1)
            if rows:
                ch = [Choice(r["opener"], r["total"], r["status"], r["depth"]) for r in rows]
                return Analysis(pos, ch[0], ch[1:], source=getattr(store, "source", "store"))
    if not pos.history and len(pos.lists.answers) > EMPTY_EXACT_LIMIT and not allow_empty:
        raise UsageError(
            f"choosing the opener over {len(pos.lists.answers)} answers is a cluster job",
            Hint("worst_opener_search", " (a run of the objective worst into a result "
                 "store); pass a store with its results, or choose the first guess yourself "
                 "(a position like salet:BBBBB)"))
    cap, total, g, status = set_worst(solver, pos.members, pos.budget, pos.cons)
    if cap is None:
        return Analysis(pos, Choice(None, None, status), [])
    best = Choice(solver.lists.guesses[g], total, status, cap)
    alts: list = []
    if top:
        capped = dataclasses.replace(pos, max_guesses=len(pos.history) + cap)
        ranked = ranked_guesses(solver, capped, top + 1, progress=progress)
        alts = [Choice(c.guess, c.total, c.status, cap) for c in ranked
                if c.guess != best.guess][:top]
    res = Analysis(pos, best, alts)
    res.seconds = time.perf_counter() - t0
    return res


def check_wins_start(pos: Position, allow_empty: bool = False) -> None:
    """UsageError where the objective wins is asked to choose the opener on lists too
    big to search (no store or book holds its values yet)."""
    n = len(pos.members)
    if pos.objective == "wins" and not pos.history and n > EMPTY_EXACT_LIMIT \
            and not allow_empty:
        raise UsageError(
            f"choosing the opener over {n} answers under the objective wins is a cluster "
            "job that no command offers yet; choose the first guess yourself (a position "
            "like salet:BBBBB)")


def _phase(progress, step: str) -> None:
    """A new step of an analysis, for a progress line that shows steps
    (progress.Progress.phase): said on its lines, with the step's own ETA."""
    phase = getattr(progress, "phase", None)
    if phase is not None:
        phase(step)


def analyse_wins(solver, pos: Position, top: int = 5, store=None, allow_empty: bool = False,
                 progress: Progress | None = None,
                 fallback_from: str | None = None) -> Analysis:
    """`analysis.analyse` under the objective wins (wins.py): the guess that wins the
    most candidates within the guesses left, then the smallest total over those, and
    the `top` next best guesses by the same order (ties: candidates first, then
    alphabetical). Where every candidate can be won these are the capped optimum and
    the best totals, as under the default objective. `fallback_from`: the objective
    that had no value here (said in the result)."""
    from ..search.wins import search_for

    t0 = time.perf_counter()
    if store is not None:  # no store holds this objective yet
        _check_store(store, pos)
    check_wins_start(pos, allow_empty)
    n = len(pos.members)
    ws = search_for(solver)
    first = not pos.history
    words = solver.lists.guesses
    alts_text = f"{top} alternative{'s' * (top > 1)}"
    _phase(progress, (f"not all {n} can be won: the most wins" if fallback_from
                      else "the most wins") + (f", then {alts_text}" if top else ""))
    v = ws.set_value(pos.members, pos.budget, pos.cons, first, progress)
    best = Choice(words[v.guess], v.total, v.status, wins=v.wins)
    alts: list[Choice] = []
    if top:
        _phase(progress, f"{words[v.guess]} wins {v.wins} of {n}; its {alts_text}")
        if v.wins == n:  # every guess that wins them all first, by total
            alts = [Choice(c.guess, c.total, c.status, wins=n)
                    for c in ranked_guesses(solver, pos, top + 1, progress=progress)]
            alts = [c for c in alts if c.guess != best.guess][:top]
        if len(alts) < top:
            skip = {solver.lists.guess_index[c.guess] for c in alts}
            skip.add(v.guess)
            more = ws.ranked(pos.members, pos.budget, pos.cons, first, top + len(skip),
                             infeasible=v.wins < n, progress=progress)
            alts += [Choice(words[r.guess], r.total, r.status, wins=r.wins) for r in more
                     if r.guess not in skip][:top - len(alts)]
    res = Analysis(pos, best, alts, fallback_from=fallback_from)
    res.seconds = time.perf_counter() - t0
    return res
