"""The web app's one contact with the engine, the game, the book and the store.

Positions and the next guess (`solver.game`), the opening move searched opener by
opener so a job can report progress and stop, the strategy tree
(`Solver.strategy`), several boards and the adversary; the solvers, the pattern
table and the compiled kernels a worker needs; the stores and opening books the
page reads (`StoreView`). The rest of web/ (app.py, service.py, compute.py,
workers.py, catalog.py) imports only the vocabulary and the word lists besides
this module: pyproject.toml's import contract holds it (docs/architecture.md).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .. import game
from ..feedback import score, to_text
from ..game.analysis import EMPTY_EXACT_LIMIT
from ..status import Status
from ..store import (
    EXACT,
    FAILED,
    INFEASIBLE,
    LOWER_BOUND,
    PENDING,
    STATUS_NAMES,
    UPPER_BOUND,
    Problem,
    Store,
)
from ..variant import Mode
from ..words import WordLists

__all__ = ["EMPTY_EXACT_LIMIT", "Cancelled", "StoreView", "adversary_analysis",
           "adversary_position", "adversary_state", "analyse", "best_openers",
           "boards_advice", "boards_position", "check_known_opening", "find_book",
           "from_data", "known_openings", "load_table", "make_adversary", "make_solver",
           "open_store", "parse_position", "predicted_strategy_seconds",
           "prepare_kernels", "proves_best", "strategy", "wins_start"]

WORDS_SHOWN = 20  # the candidates are listed when at most this many are left


class Cancelled(Exception):
    """Raised inside a job when its client asked to stop it."""


Check = Callable[[], None]  # raises Cancelled when the job was cancelled


def _noop() -> None:
    return None


def parse_position(text: str, lists, mode: Mode, max_guesses: int):
    """'salet:BBYBG,drone:YBBBG' ('-' for the start) as a game Position; one-line
    UsageError/PatternError for unknown words, bad patterns, illegal guesses,
    histories no answer fits, or more guesses than the cap."""
    return game.Position.parse(text or "-", lists, mode, max_guesses)


def check_known_opening(pos) -> None:
    """The start on lists too big to search without a store: UsageError (why, one
    line) unless a best known opener answers it (game/known.py: not proven best)."""
    from ..game.analysis import best_known

    best_known(pos, 0)


def known_openings(lists, modes, caps) -> list[dict]:
    """The problems (mode, cap) whose start has best known openers (not proven)."""
    from ..game.known import known_openers

    return [{"mode": m, "max_guesses": c} for m in modes for c in caps
            if (k := known_openers(lists, m, c)) is not None and k.openers]


def analyse(solver, pos, top: int = 5, store=None,
            progress: Callable[[int, int], None] | None = None) -> dict:
    """The next-guess analysis of a position, in `wordle-dp next --json` form plus
    `source` (engine or store) and `note` when the game layer adds one. `progress`
    (guesses ranked, of) may raise Cancelled to stop between guesses.

    Where no strategy wins every candidate within the guesses left, the answer falls
    back to the objective wins, as `next` does (search/wins.py): `objective` is then
    "wins", `fallback_from` the objective that has no value here, and `best` and each
    alternative gain `wins` (candidates won), `total` and `average` being over the
    candidates won. Everywhere else the answer is unchanged."""
    res = game.analyse(solver, pos, top=top, store=store, progress=progress, fallback=True)
    return _with_source(res)


def wins_start(solver, pos, top: int, progress: Callable[[int, int], None] | None = None) -> dict:
    """The opening move under the objective wins, where no opener wins every answer
    within the cap (small lists only: the caller refuses big ones), in `analyse`'s
    form with `fallback_from`."""
    from ..game.analysis import analyse_wins

    res = analyse_wins(solver, pos, top, None, True, progress, fallback_from=pos.objective)
    return _with_source(res)


def _with_source(res) -> dict:
    out = res.to_dict()
    out["source"] = res.source
    if res.note:
        out["note"] = res.note
    return out


def from_data(pos, top: int, store) -> dict | None:
    """The next-guess analysis that a store or book holds as data (the start, or a
    book's second move: solver.moves), in `analyse`'s form, without a solver; None
    when the data does not have it (a worker searches)."""
    from ..game.analysis import opening

    res = opening(pos, top, store, fallback=True)
    return None if res is None else _with_source(res)


def best_openers(solver, top: int, check: Check = _noop,
                 progress: Callable[[int, int, str], None] | None = None) -> list[dict]:
    """The `top` best openers with proof (`Solver.best`), checking for cancellation
    and reporting progress between openers."""
    found = solver.best(top, progress=progress, check=check)
    n = len(solver.lists.answers)
    return [{"guess": r.opener, "total": r.total, "average": round(r.total / n, 6),
             "status": Status.EXACT} for r in found]


# ---------------------------------------------------------------- strategy
def _node_dict(node, answers: dict[str, int] | None = None) -> dict:
    kids = sorted(node.children.items(), key=lambda pc: (-pc[1].answers, pc[0]))
    return {
        "guess": node.guess,
        "answers": node.answers,
        "total": node.total,
        "solved_here": node.answers > sum(c.answers for c in node.children.values()),
        "children": [dict(pattern=to_text(p, len(node.guess)), **_node_dict(c))
                     for p, c in kids],
    }


def _eta(predicted: np.ndarray, k: int, spent: float) -> float:
    """Seconds left after the first k classes of a strategy, `spent` seconds in: the
    cost model's prediction for the classes left (run/costs.py, fitted on this kind
    of machine), scaled by how far off it was for the classes done once those were
    predicted to take a measurable time; before that, at least the time per class so
    far for each class left (many small classes: the tree's own work dominates)."""
    left = float(predicted[k:].sum())
    done = float(predicted[:k].sum())
    if done >= 0.5 and spent >= 0.5:
        return round(spent / done * left, 1)
    per_class = spent / k if k else 0.0
    return round(max(left, per_class * (len(predicted) - k)), 1)


def predicted_strategy_seconds(lists, table, opener: str, mode: Mode) -> float:
    """The cost model's CPU seconds for an opener's strategy (run/costs.py: by the
    sizes of its first-feedback classes), before anything is searched."""
    from ..run.costs import class_cost

    row = table[lists.guess_id(opener)]
    sizes = np.bincount(row, minlength=3 ** lists.length)[:-1]  # not the all-green
    sizes = sizes[sizes > 2]
    return float(class_cost(sizes, mode).sum()) if len(sizes) else 0.0


def strategy(solver, opener: str, check: Check = _noop,
             progress: Callable[..., None] | None = None) -> dict:
    """The optimal strategy after `opener`: nested tree, histogram of guesses
    needed, and every answer's game as 'guess:PATTERN' steps (where no strategy wins
    every answer within the cap: the objective wins, `_strategy_wins`). Built one
    first-feedback class at a time (the biggest first), so a job can report
    progress and stop; `progress(done, total, what, eta)` also gets an estimate of
    the seconds left (the first class can take minutes: its count says nothing)."""
    from ..run.costs import class_cost
    from ..search.positions import StrategyNode

    start = game.Position.start(solver.lists, solver.mode, solver.max_guesses)
    word = solver.lists.guesses[start.check_guess(opener)]
    row = solver.table[solver.lists.guess_id(word), start.members]
    codes = sorted({int(c) for c in row}, key=lambda c: (-(row == c).sum(), c))
    n = len(start.members)
    root = StrategyNode(word, n, n, {})
    sizes = np.array([0 if c == solver.variant.all_green else int((row == c).sum())
                      for c in codes])
    predicted = np.where(sizes > 2, class_cost(sizes, solver.mode), 0.0)
    t0 = time.monotonic()
    if progress is not None:
        progress(0, len(codes), "feedback classes", _eta(predicted, 0, 0.0))
    lost: list[tuple[int, object, object]] = []  # (pattern, position, WinsValue)
    for k, code in enumerate(codes):
        check()
        if code != solver.variant.all_green:
            pos = start.play(word, code)
            total, g, _status = solver.set_value(pos.members, pos.budget, pos.cons)
            if total is None:  # no strategy wins this class: its best chance
                lost.append((code, pos, _class_wins(solver, pos, check)))
            else:
                child = solver.subtree(g, pos.members, pos.budget, pos.cons)
                root.children[code] = child
                root.total += child.total
        if progress is not None:
            progress(k + 1, len(codes), "feedback classes",
                     _eta(predicted, k + 1, time.monotonic() - t0))
    games: dict[str, list[str]] = {}
    for answer, seq in sorted(root.paths().items()):
        games[answer] = [f"{g}:{to_text(score(g, answer), len(g))}" for g in seq]
    if lost:
        return _strategy_wins(solver, word, root, lost, dict(games))
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


def _class_wins(solver, pos, check: Check):
    """The best chance of a first-feedback class that no strategy wins outright
    (search/wins.py: the most answers won within the guesses left, then the fewest
    guesses summed over those); `check` may stop it between guesses."""
    from ..search.wins import search_for

    return search_for(solver).set_value(pos.members, pos.budget, pos.cons,
                                        progress=lambda _done, _of: check())


def _strategy_wins(solver, word: str, root, lost: list,
                   games: dict[str, list[str] | None]) -> dict:
    """An opener after which no strategy wins every answer within the cap: its value
    under the objective wins (answers won, guesses summed over those, the opener
    included), the tree of the classes won outright (their strategies are the
    capped optimum, as under wins) and, for each class that loses answers, a leaf
    with its best first guess and what it wins: no tree is built below it, and its
    answers' games are null."""
    n = len(solver.lists.answers)
    tree = _node_dict(root)
    won_total = root.total  # the opener counted for every answer, classes won outright
    wins = n
    for code, pos, v in lost:
        m = len(pos.members)
        wins -= m - v.wins
        won_total += v.total + v.wins - m  # its answers won pay the opener, the lost none
        for a in pos.candidates:
            games[a] = None
        tree["children"].append({
            "pattern": to_text(code, len(word)), "guess": solver.lists.guesses[v.guess],
            "answers": m, "wins": v.wins, "total": v.total, "solved_here": False,
            "children": [], "not_built": True})
    tree["children"].sort(key=lambda c: (-c["answers"], c["pattern"]))
    tree["total"], tree["wins"] = won_total, wins
    return {
        "opener": word,
        "mode": solver.mode,
        "max_guesses": solver.max_guesses,
        "objective": "wins",
        "fallback_from": "expected",
        "wins": wins,
        "total": won_total,
        "average": round(won_total / wins, 6) if wins else None,
        "answers": n,
        "depth": None,  # of the answers whose games are not built: unknown
        "histogram": None,
        "lost_classes": [{"pattern": to_text(code, len(word)), "answers": len(pos.members),
                          "wins": v.wins, "total": v.total,
                          "guess": solver.lists.guesses[v.guess]}
                         for code, pos, v in lost],
        "tree": tree,
        "games": games,
    }


# ---------------------------------------------------------------- the adversary
def adversary_state(pos) -> dict:
    """A game against the adversary (game.adversary.AdversaryPosition) as the page
    shows it: every guess with the adversary's reply, the answers it still keeps
    (listed when at most WORDS_SHOWN), and whether the last guess won."""
    from ..game.adversary import TIE_RULE

    L = pos.adversary.lists.length
    n = len(pos.members)
    rows = [{"guess": g, "reply": to_text(p, L)} for g, p in pos.history]
    return {"position": str(pos), "rows": rows, "guesses": len(rows),
            "reply": rows[-1]["reply"] if rows else None, "candidates": n,
            "words": pos.candidates if n <= WORDS_SHOWN else None, "won": pos.won,
            "tie_rule": TIE_RULE}


def adversary_analysis(pos, top: int, progress: Callable[[int], None] | None = None) -> dict:
    """The exact fewest guesses that still beat the adversary from `pos`, a winning
    line and up to `top` other first guesses as fast (`next --adversary --json`'s
    fields). Searched without a depth bound, as `next --adversary` does: every
    useful guess removes an answer, so the value is always exact."""
    adv = pos.adversary
    res = adv.analyse(pos, max(1, len(pos.members)), top=top, progress=progress)
    out = res.to_dict()
    for k in ("position", "candidates", "tie_rule"):  # in adversary_state already
        out.pop(k)
    return out



# ------------------------------------------------------- engines and positions
def load_table(lists: WordLists, backend: str = "auto", cache_dir=None) -> np.ndarray:
    """The pattern table of `lists` (table.get_table)."""
    from ..table import get_table

    return get_table(lists, backend, cache_dir)[0]


def prepare_kernels(dtype) -> None:
    """Load (or build) the search's compiled kernels for tables of `dtype`."""
    from ..search.compiled import prepare

    prepare(dtype)


def make_solver(lists: WordLists, mode: Mode, cap: int, table: np.ndarray,
                table_t: np.ndarray | None = None, memo_entries: int | None = None):
    """A Solver of the problem (mode, cap) on a shared table."""
    from ..search import Solver

    kw: dict[str, Any] = {} if memo_entries is None else {"memo_entries": memo_entries}
    return Solver(lists, mode=mode, max_guesses=cap, table=table, table_t=table_t, **kw)


def open_store(path: str, lists: WordLists):
    """The store, or the opening book (a .npz file), at `path`, read-only."""
    from ..book import Book

    return Book.read(path, lists) if path.endswith(".npz") else Store.open(path, read_only=True)


def find_book(lists: WordLists, mode: Mode, cap: int):
    """The packaged opening book of the problem on `lists`, or None."""
    from ..book import Book

    return Book.find(lists, mode, cap)


def boards_position(lists: WordLists, position: str, boards: int, cap: int | None):
    """A several-board position (easy mode; cap boards + 5 unless given): bad input
    raises."""
    from ..game.boards import BoardsPosition, boards_variant

    return BoardsPosition.parse(position, lists, boards_variant(lists, boards, cap))


def boards_advice(lists: WordLists, table: np.ndarray, position: str, boards: int,
                  cap: int | None, top: int) -> dict:
    """The next guess at a several-board position (game/boards_next.py): each
    board's candidates (up to 20 words shown), solved boards, the suggestion."""
    from ..game.boards_next import advise

    pos = boards_position(lists, position, boards, cap)
    board = [{"solved": pos.solved[i], "candidates": len(pos.members[i]),
              "words": pos.candidates(i)[:20]} for i in range(pos.boards)]
    out = {"position": str(pos), "boards": pos.boards,
           "max_guesses": pos.variant.max_guesses, "board": board, "done": pos.done}
    if pos.done:
        return {**out, "best": None, "alternatives": [], "status": "solved"}
    best, alts, how = advise(lists, table, pos, top, "auto", fallback=True)
    # tuples_text: the same count as text, exact on a page (a JSON number past
    # 2^53, an Octordle's 9.8e27 tuples, loses its last digits in JavaScript)
    return {**out, "tuples": pos.tuples, "tuples_text": str(pos.tuples),
            "tuples_exact": len(pos.open) <= 8,
            "best": best, "alternatives": alts, "status": how}


def make_adversary(lists: WordLists, table: np.ndarray):
    """The adversary of `lists` (game/adversary.py; its memo of failed sets in
    `.failed`)."""
    from ..game.adversary import Adversary

    return Adversary(lists, table)


def adversary_position(position: str, adversary):
    """A game against `adversary`: its guesses, replayed (bad input raises)."""
    from ..game.adversary import AdversaryPosition

    return AdversaryPosition.parse(position, adversary)

# ------------------------------------------------------------------- stores
SNAPSHOT_MAX_AGE = 2.0  # seconds: a running store is re-read at most this often


def _table_info(store) -> dict | None:
    """What the table beside a book holds (book/table.py), for the page: None for a
    store, or a book without one."""
    t = getattr(store, "table", None)
    if t is None:
        return None
    return {"valued": int(t.info["valued"]), "complete": t.complete,
            "cpu_hours": round(float(t.info["cpu_seconds"]) / 3600, 2),
            "written_at": t.info["written_at"]}


class StoreView:
    """A result store opened read-only, re-read at most every few seconds so the
    page follows an unfinished run."""

    def __init__(self, sid: str, path, lists: WordLists | None):
        """`path`: a store's folder, or an already open store or opening book."""
        self.id = sid
        self.store = Store.open(path, read_only=True) if isinstance(path, str | Path) else path
        self.kind = getattr(self.store, "source", "store")  # "store" or "book"
        p = self.store.problem
        self.matches = lists is not None and not p.differences(
            Problem.from_lists(lists, p.mode, p.max_guesses))
        self._snap = None
        self._snap_at = 0.0
        self._lock = threading.Lock()

    @property
    def problem(self) -> Problem:
        return self.store.problem

    def snapshot(self):
        with self._lock:
            if self._snap is None or time.monotonic() - self._snap_at > SNAPSHOT_MAX_AGE:
                self._snap = self.store.snapshot()
                self._snap_at = time.monotonic()
            return self._snap

    def info(self) -> dict:
        p = self.problem
        snap = self.snapshot()
        prog = snap.progress()
        prog["store"] = self.id  # a name, never the server's path
        edge = snap.frontier()
        proven = int(((snap.status == EXACT) & (snap.fields["total"] < edge)).sum())
        return {
            "id": self.id, "kind": self.kind, "mode": p.mode, "proves_best": proves_best(snap),
            "proven_ranks": proven,  # the best openers whose ranks are proven
            "max_guesses": p.max_guesses, "answers": p.n_answers, "guesses": p.n_guesses,
            "cutoff": self.store.cutoff, "matches_lists": self.matches, "progress": prog,
            "table": _table_info(self.store),
        }

    def openers(self, q: str = "", sort: str = "total", desc: bool = False,
                status: str | None = None, offset: int = 0, limit: int = 100) -> dict:
        snap = self.snapshot()
        words = self.store.words
        idx = np.arange(len(words))
        if status:
            idx = idx[snap.status[idx] == STATUS_NAMES.index(status)]
        if q:
            idx = np.array([i for i in idx if q in words[i]], dtype=np.int64)
        ranks = snap.ranks()
        f = snap.fields
        if sort == "opener":
            order = np.argsort(np.array([words[i] for i in idx], dtype="U5"), kind="stable")
            idx = idx[order[::-1] if desc else order]
        else:
            # unknown values (pending, failed, ...) always last; for totals, lower bounds
            # after every exact value (a bound is not a value), then infeasible
            st = snap.status[idx]
            if sort == "rank":
                vals = ranks[idx].astype(np.float64)
                group = (vals == 0).astype(np.int64)
            elif sort == "status":
                vals = st.astype(np.float64)
                group = np.zeros(len(idx), np.int64)
            else:
                vals = np.asarray(f[sort][idx], dtype=np.float64)
                unknown = (st == PENDING) | ~np.isfinite(vals) | (vals < 0)
                group = unknown.astype(np.int64) * 3
                if sort == "total":
                    group = np.where(st == LOWER_BOUND, 1, group)
                    group = np.where(st == INFEASIBLE, 2, group)
            order = np.lexsort((idx, -vals if desc else vals, group))
            idx = idx[order]
        page = idx[offset:offset + limit]
        # a finished store (a book) shows a rank only where it is proven: below every
        # stored lower bound (a running store's ranks are among the finished openers)
        edge = snap.frontier()
        if np.isfinite(edge):
            ranks = np.where(f["total"] < edge, ranks, 0)
        return {"total_rows": len(idx), "offset": offset, "limit": limit,
                "rows": [snap.row(int(i), ranks) for i in page]}

    def distribution(self, bins: int) -> dict:
        snap = self.snapshot()
        ok = (snap.status == EXACT) | (snap.status == UPPER_BOUND)
        totals = snap.fields["total"][ok]
        counts = snap.counts()
        out = {"values": int(ok.sum()), "bins": [], "counts": counts,
               "n_answers": snap.n_answers, "best": None}
        if len(totals):
            lo, hi = int(totals.min()), int(totals.max())
            width = max(1, -(-(hi - lo + 1) // bins))
            edges = np.arange(lo, hi + width + 1, width)
            hist, _ = np.histogram(totals, bins=edges)
            out["bins"] = [{"from": int(a), "to": int(b) - 1, "count": int(c)}
                           for a, b, c in zip(edges[:-1], edges[1:], hist, strict=True)]
            out["best"] = snap.best(1)[0]
        return out


def proves_best(snap) -> bool:
    """True when the store proves its best opener best: every opener is finished
    and every lower bound (a --cutoff run) is at least the best exact total."""
    st = snap.status
    if ((st == PENDING) | (st == FAILED)).any():
        return False
    best = snap.best(1)
    if not best or best[0]["status"] != Status.EXACT:
        return False
    bounds = snap.fields["total"][st == LOWER_BOUND]
    return bool((bounds >= best[0]["total"]).all())
