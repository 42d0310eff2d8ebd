"""Decision-tree export: the optimal strategy from an opener (or a position) as
one game per answer.

Where no strategy after the opener wins every answer within the cap (hard mode
after crane on today's lists), the objective asked for has no strategy: the tree
falls back to the objective wins (search/wins.py) and says so: the strategy that wins
the most answers, then with the fewest guesses summed over those. A lost answer's
game ends after the last guess allowed, without the all-green step."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from ..feedback import all_green, to_text
from ..search.worst import guess_height, guess_worst
from ..status import Status
from ..variant import Mode
from .position import Position


@dataclass
class Tree:
    """Every answer's game under the optimal strategy: steps (guess, pattern)
    from the position on, the last one all green."""

    opener: str
    position: str
    mode: Mode
    max_guesses: int
    games: dict[str, list[tuple[str, int]]]
    prior: int = 0  # guesses already made at the position
    objective: str = "expected"  # expected (ties: smaller worst case), worst first, wins
    # the objective asked for where it had no strategy and the tree fell back to wins
    fallback_from: str | None = None

    def won(self, answer: str) -> bool:
        """Whether the strategy solves `answer` within the cap (its last step green)."""
        steps = self.games[answer]
        return bool(steps) and steps[-1][1] == all_green(len(answer))

    @property
    def lost(self) -> list[str]:
        """The answers the strategy does not solve within the cap (objective wins)."""
        return [a for a in self.games if not self.won(a)]

    @property
    def wins(self) -> int:
        return len(self.games) - len(self.lost)

    @property
    def total(self) -> int:
        """Guesses summed over the answers won (every answer but under wins)."""
        return sum(len(s) for a, s in self.games.items() if self.won(a))

    @property
    def average(self) -> float:
        return self.total / max(1, self.wins)

    @property
    def histogram(self) -> dict[int, int]:
        """Guesses needed (counting the position's guesses) -> number of answers won."""
        h: dict[int, int] = {}
        for a, steps in self.games.items():
            if self.won(a):
                k = self.prior + len(steps)
                h[k] = h.get(k, 0) + 1
        return dict(sorted(h.items()))

    def summary(self) -> str:
        """What the tree achieves in words: '3158 games, total 11752' (every answer
        won), or under wins '3157 of 3158 answers won, 99.97 %, total 11752 over
        those'."""
        from ..plural import percent

        n = len(self.games)
        if self.objective != "wins":
            return f"{n} games, total {self.total}"
        return (f"{self.wins} of {n} answers won, {percent(self.wins, n)}, total "
                f"{self.total} over those")

    def to_dict(self) -> dict:
        d = {
            "opener": self.opener,
            "mode": self.mode,
            "max_guesses": self.max_guesses,
            "objective": self.objective,
            "total": self.total,
            "average": round(self.average, 6),
            "histogram": {str(k): v for k, v in self.histogram.items()},
            "games": {a: [f"{g}:{to_text(p, len(a))}" for g, p in s]
                      for a, s in self.games.items()},
        }
        if self.objective == "wins":
            d.update(wins=self.wins, answers=len(self.games), lost=self.lost)
        if self.fallback_from:
            d["fallback_from"] = self.fallback_from
        if self.position != "-":
            d["position"] = self.position
        return d

    def nested(self) -> dict:
        """The tree as nested nodes (for an expandable view): {"guess", "answers"
        (how many reach this node), "total" (their guesses from here on),
        "children": {PATTERN: node}}; the all-green outcome has no child."""
        root: dict = {"guess": self.opener, "answers": 0, "total": 0, "children": {}}
        length = len(self.opener)
        for a, steps in self.games.items():
            node = root
            won = self.won(a)  # a lost game (objective wins) adds nothing to the totals
            for i, (_g, p) in enumerate(steps):
                node["answers"] += 1
                node["total"] += len(steps) - i if won else 0
                if p == all_green(length) or i + 1 == len(steps):
                    break
                nxt = steps[i + 1][0]
                node = node["children"].setdefault(
                    to_text(p, length), {"guess": nxt, "answers": 0, "total": 0,
                                         "children": {}})
        return root

    def text(self) -> str:
        """One line per answer: answer, guesses needed (or 'lost'), then guess:PATTERN
        steps."""
        from ..plural import percent

        n = len(self.games)
        cap = self.max_guesses or "no cap"
        hist = " ".join(f"{k}:{v}" for k, v in self.histogram.items())
        if self.objective == "wins":
            lost = self.lost
            why = (f"no strategy wins every answer within {cap} guesses in {self.mode} "
                   "mode, so this tree plays for the most wins: " if self.fallback_from
                   else "")
            head = (f"# {self.opener} from {self.position}: {why}wins {self.wins} of {n} "
                    f"answers ({percent(self.wins, n)}), total {self.total} over those "
                    f"({self.average:.4f} avg), {self.mode}, max {cap}, objective wins; "
                    f"histogram {hist}" + (f"; lost: {' '.join(lost)}" if lost else ""))
        else:
            head = (f"# {self.opener} from {self.position}: total {self.total} over {n} "
                    f"answers ({self.average:.4f} avg), {self.mode}, max {cap}, objective "
                    f"{self.objective}; histogram {hist}")
        lines = [head]
        for a, steps in self.games.items():
            used = self.prior + len(steps) if self.won(a) else "lost"
            lines.append(f"{a} {used} "
                         + " ".join(f"{g}:{to_text(p, len(a))}" for g, p in steps))
        return "\n".join(lines)


def tree(solver, opener: str, position: Position | None = None, store=None,
         progress=None) -> Tree:
    """The optimal strategy starting with `opener` (from the start, or from
    `position`): UsageError when the opener cannot be played there or no strategy
    meets the cap. Under the expected objective, of the strategies of optimal total
    one of the smallest worst case; under `position.objective` worst, one of the
    fewest guesses in the worst case and the smallest total within it (objective.py).
    With a result `store` or book of the same problem that holds the opener's exact
    value, the tree starts from its second guesses when they can be those of such a
    strategy (no smaller worst case exists)."""
    lists = solver.lists
    pos = position if position is not None else Position.start(
        lists, solver.mode, solver.max_guesses)
    gid = pos.check_guess(opener)
    if pos.solved:
        raise UsageError(f"{pos} is already solved")
    if pos.objective == "wins":
        return wins_tree(solver, gid, pos, progress=progress)
    if store is not None and _stored_infeasible(store, pos, lists.guesses[gid]):
        return wins_tree(solver, gid, pos, pos.objective, progress)  # known: no search
    # the cap the strategy is built under: the smallest worst case among the optimal
    # totals (expected), or the fewest guesses at all (worst); see objective.py
    if pos.objective == "worst":
        height, total, _status = guess_worst(solver, gid, pos.members, pos.budget, pos.cons)
        second = None
    else:
        second = _stored_second(store, pos, lists.guesses[gid]) if store is not None else None
        if second is not None:  # exact in the store: its total, no search
            total = int(store.snapshot().row(store.index_of(lists.guesses[gid]))["total"])
        else:
            total, _status = solver.guess_value(gid, pos.members, pos.budget, pos.cons,
                                                progress=progress)
        height = None if total is None else guess_height(solver, gid, pos.members,
                                                         pos.budget, pos.cons, total)
        if height is not None and height < pos.budget:
            second = None  # the stored second guesses were chosen under the full cap
    if total is None:  # no strategy wins every answer: the most wins instead
        return wins_tree(solver, gid, pos, pos.objective, progress)
    root = solver.subtree(gid, pos.members, height, pos.cons, second=second)
    games: dict[str, list[tuple[str, int]]] = {}
    table = solver.table

    def walk(node, members, steps):
        g = lists.guess_index[node.guess]
        row = table[g, members]
        for a, p in zip(members, row, strict=True):
            path = steps + [(node.guess, int(p))]
            if p == solver.variant.all_green:
                games[lists.answers[a]] = path
        for p, child in node.children.items():
            walk(child, members[row == p], steps + [(node.guess, p)])

    walk(root, pos.members, [])
    games = {a: games[a] for a in sorted(games)}
    return Tree(lists.guesses[gid], str(pos), solver.mode, solver.max_guesses, games,
                len(pos.history), pos.objective)


def wins_tree(solver, gid: int, pos: Position, fallback_from: str | None = None,
              progress=None) -> Tree:
    """The strategy of the objective wins after guess `gid` at `pos` (wins.py): the
    most answers won within the cap, then the fewest guesses summed over those; each
    position's guess is the one WinsSearch values it by (a set won outright: the
    engine's capped optimum), so the tree achieves the value of `gid`. `fallback_from`:
    the objective asked for, which has no strategy here. `progress(done, of)`: as
    the opener's first-feedback classes are valued."""
    from ..search.wins import search_for

    lists = solver.lists
    ws = search_for(solver)
    green = solver.variant.all_green
    table = solver.table
    report = None
    if progress is not None:
        def report(i: int, n: int, _work: float) -> None:
            progress(i, n)
    v = ws.guess_value(gid, pos.members, pos.budget, pos.cons, report=report)
    assert v is not None  # no bound: always valued
    games: dict[str, list[tuple[str, int]]] = {}

    def walk(g: int, members: np.ndarray, left: int, cons, steps) -> None:
        row = table[g, members]
        for p in np.unique(row).tolist():
            m = members[row == p]
            path = steps + [(lists.guesses[g], p)]
            if p == green or left <= 1:  # solved, or out of guesses: lost
                for a in m.tolist():
                    games[lists.answers[a]] = path
                continue
            child = ws._child_cons(cons, g, p)
            nxt = ws.set_value(m, left - 1, child)
            walk(nxt.guess, m, left - 1, child, path)

    walk(gid, np.ascontiguousarray(pos.members, np.int32), pos.budget, pos.cons, [])
    games = {a: games[a] for a in sorted(games)}
    t = Tree(lists.guesses[gid], str(pos), solver.mode, solver.max_guesses, games,
             len(pos.history), "wins", fallback_from)
    assert (t.wins, t.total) == (v.wins, v.total), "the tree achieves the value"
    return t


def _stored_infeasible(store, pos: Position, opener: str) -> bool:
    """Whether a store or book of this problem says the opener cannot win every
    answer (at the start of the game)."""
    from .analysis import _check_store

    if pos.history or getattr(store.problem, "objective", "expected") != pos.objective:
        return False
    _check_store(store, pos)
    return store.snapshot().row(store.index_of(opener))["status"] == Status.INFEASIBLE


def _stored_second(store, pos: Position, opener: str) -> dict[int, int] | None:
    """The opener's second guesses (pattern -> guess id) from a store of this problem
    that holds its exact value, at the start; None otherwise."""
    from .analysis import _check_store

    if pos.history:
        return None
    _check_store(store, pos)
    i = store.index_of(opener)
    if store.snapshot().row(i)["status"] != Status.EXACT:
        return None
    second = store.second_guesses(i)
    return {p: pos.lists.guess_index[w] for p, w in second.items()} or None
