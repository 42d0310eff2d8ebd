"""Decision-tree export: the optimal strategy from an opener (or a position) as
one game per answer."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError
from ..feedback import all_green, to_text
from .objective import guess_height, guess_worst
from .position import Position


@dataclass
class Tree:
    """Every answer's game under the optimal strategy: steps (guess, pattern)
    from the position on, the last one all green."""

    opener: str
    position: str
    mode: str
    max_guesses: int
    games: dict[str, list[tuple[str, int]]]
    prior: int = 0  # guesses already made at the position
    objective: str = "expected"  # expected (ties: smaller worst case), or worst first

    @property
    def total(self) -> int:
        return sum(len(s) for s in self.games.values())

    @property
    def average(self) -> float:
        return self.total / len(self.games)

    @property
    def histogram(self) -> dict[int, int]:
        """Guesses needed (counting the position's guesses) -> number of answers."""
        h: dict[int, int] = {}
        for steps in self.games.values():
            k = self.prior + len(steps)
            h[k] = h.get(k, 0) + 1
        return dict(sorted(h.items()))

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
        if self.position != "-":
            d["position"] = self.position
        return d

    def nested(self) -> dict:
        """The tree as nested nodes (for an expandable view): {"guess", "answers"
        (how many reach this node), "total" (their guesses from here on),
        "children": {PATTERN: node}}; the all-green outcome has no child."""
        root: dict = {"guess": self.opener, "answers": 0, "total": 0, "children": {}}
        length = len(self.opener)
        for steps in self.games.values():
            node = root
            for i, (_g, p) in enumerate(steps):
                node["answers"] += 1
                node["total"] += len(steps) - i
                if p == all_green(length):
                    break
                nxt = steps[i + 1][0]
                node = node["children"].setdefault(
                    to_text(p, length), {"guess": nxt, "answers": 0, "total": 0,
                                         "children": {}})
        return root

    def text(self) -> str:
        """One line per answer: answer, guesses needed, then guess:PATTERN steps."""
        lines = [f"# {self.opener} from {self.position}: total {self.total} over "
                 f"{len(self.games)} answers ({self.average:.4f} avg), {self.mode}, max "
                 f"{self.max_guesses or 'no cap'}, objective {self.objective}; histogram "
                 + " ".join(f"{k}:{v}" for k, v in self.histogram.items())]
        for a, steps in self.games.items():
            lines.append(f"{a} {self.prior + len(steps)} "
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
    if total is None:
        raise UsageError(f"{lists.guesses[gid]}: no strategy solves every answer within "
                         f"{solver.max_guesses} guesses")
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


def _stored_second(store, pos: Position, opener: str) -> dict[int, int] | None:
    """The opener's second guesses (pattern -> guess id) from a store of this problem
    that holds its exact value, at the start; None otherwise."""
    from .analysis import _check_store

    if pos.history:
        return None
    _check_store(store, pos)
    i = store.index_of(opener)
    if store.snapshot().row(i)["status"] != "exact":
        return None
    second = store.second_guesses(i)
    return {p: pos.lists.guess_index[w] for p, w in second.items()} or None
