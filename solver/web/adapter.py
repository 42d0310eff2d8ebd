"""The web app's only contact with the engine and the game layer.

Everything the pages show is computed here from the Python API: positions and
the next guess (`solver.game` when it is installed, else a small fallback on
`Solver` that gives the best guess without alternatives), and the strategy tree
(from `Solver.strategy`). Keeping it in one module means a change of the game
layer's API touches this file only.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import UsageError
from ..feedback import ALL_GREEN, score, to_text
from ..feedback import parse as parse_pattern

try:  # the game layer (issue 7) may not be merged yet
    from .. import game as _game
except ImportError:  # pragma: no cover - depends on what is merged
    _game = None

HAVE_GAME = _game is not None


class Cancelled(Exception):
    """Raised inside a job when its client asked to stop it."""


Check = Callable[[], None]  # raises Cancelled when the job was cancelled


def _noop() -> None:
    return None


# ---------------------------------------------------------------- positions
def parse_history(text: str, lists) -> list[tuple[str, int]]:
    """'salet:BBYBG,drone:YBBBG' (or '-' / '' for the start) -> [(word, code)]."""
    text = (text or "").strip()
    if text in ("", "-"):
        return []
    out = []
    for step in text.split(","):
        word, sep, pat = step.strip().partition(":")
        if not sep:
            raise UsageError(f"position step {step.strip()!r} must be GUESS:PATTERN, "
                             "e.g. salet:BBYBG")
        gid = lists.guess_id(word)
        out.append((lists.guesses[gid], parse_pattern(pat)))
    return out


def candidates_after(solver, history: list[tuple[str, int]]) -> np.ndarray:
    """Answer ids consistent with every (guess, pattern) of the history."""
    members = np.arange(len(solver.lists.answers), dtype=np.int32)
    for word, code in history:
        gid = solver.lists.guess_id(word)
        members = members[solver.table[gid, members] == code]
    return members


def _fallback_analyse(solver, text: str, top: int) -> dict:
    """Best next guess and its exact value (no alternatives): used until the
    game layer is merged."""
    history = parse_history(text, solver.lists)
    cap = solver.max_guesses
    if cap and len(history) >= cap:
        raise UsageError(f"the position already has {len(history)} guesses (cap {cap})")
    members = candidates_after(solver, history)
    if len(members) == 0:
        raise UsageError("no answer is consistent with this position")
    if history and history[-1][1] == ALL_GREEN:
        raise UsageError("the position is already solved")
    words = [solver.lists.answers[i] for i in members]
    cons = None
    if solver.mode == "hard":
        for word, code in history:
            cons = solver._constraint_after(cons, solver.lists.guess_id(word), code)
    left = solver.depth_limit - len(history)
    v, _flags, _h, g = solver._solve_set(members, left, cons)
    best = None
    if g >= 0 and v < 10**15:
        best = {"guess": solver.lists.guesses[int(g)], "total": int(v),
                "average": round(int(v) / len(members), 6), "status": "exact"}
    out = {"position": _canonical(history), "candidates": len(members), "best": best,
           "alternatives": [], "mode": solver.mode, "max_guesses": cap}
    if len(members) <= 20:
        out["words"] = words
    return out


def _canonical(history) -> str:
    return ",".join(f"{w}:{to_text(c)}" for w, c in history) or "-"


def analyse(solver, text: str, top: int = 5, store=None, check: Check = _noop) -> dict:
    """The next-guess analysis of a position, in `wordle-dp next --json` form."""
    if _game is None:
        return _fallback_analyse(solver, text, top)
    pos = _game.Position.parse(text, solver.lists, solver.mode, solver.max_guesses)
    return _game.analyse(solver, pos, top=top, store=store).to_dict()


def best_openers(solver, top: int, check: Check = _noop,
                 progress: Callable[[int, int, str], None] | None = None) -> list[dict]:
    """The `top` best openers with proof (like `Solver.best`), checking for
    cancellation and reporting progress between openers."""
    words = solver.lists.guesses
    order = sorted(range(len(words)), key=lambda i: solver.estimate(words[i]))
    found = []
    for k, i in enumerate(order):
        check()
        w = words[i]
        cut = None
        if len(found) >= top:
            cut = found[top - 1].total + 1
        if cut is None or solver.lower_bound(w) < cut:
            r = solver.solve(w, cutoff=cut)
            if r.status == "exact":
                found.append(r)
                found.sort(key=lambda x: (x.total, x.opener))
                del found[top:]
        if progress is not None:
            lead = f"openers checked, best so far {found[0].opener} {found[0].total}" if found \
                else "openers checked"
            progress(k + 1, len(order), lead)
    n = len(solver.lists.answers)
    return [{"guess": r.opener, "total": r.total, "average": round(r.total / n, 6),
             "status": "exact"} for r in found]


# ---------------------------------------------------------------- strategy
def _node_dict(node, answers: dict[str, int] | None = None) -> dict:
    kids = sorted(node.children.items(), key=lambda pc: (-pc[1].answers, pc[0]))
    return {
        "guess": node.guess,
        "answers": node.answers,
        "total": node.total,
        "solved_here": node.answers > sum(c.answers for c in node.children.values()),
        "children": [dict(pattern=to_text(p), **_node_dict(c)) for p, c in kids],
    }


def strategy(solver, opener: str) -> dict:
    """The optimal strategy after `opener`: nested tree, histogram of guesses
    needed, and every answer's game as 'guess:PATTERN' steps."""
    gid = solver.lists.guess_id(opener)
    word = solver.lists.guesses[gid]
    try:
        root = solver.strategy(word)
    except ValueError as exc:  # infeasible under the cap
        raise UsageError(str(exc)) from None
    games = {}
    for answer, seq in sorted(root.paths().items()):
        games[answer] = [f"{g}:{to_text(score(g, answer))}" for g in seq]
    hist: dict[int, int] = {}
    for steps in games.values():
        hist[len(steps)] = hist.get(len(steps), 0) + 1
    n = len(solver.lists.answers)
    return {
        "opener": word,
        "mode": solver.mode,
        "max_guesses": solver.max_guesses,
        "total": root.total,
        "average": round(root.total / n, 6),
        "answers": n,
        "depth": max(hist),
        "histogram": {str(k): hist[k] for k in sorted(hist)},
        "tree": _node_dict(root),
        "games": games,
    }
