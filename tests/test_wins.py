"""The objective `wins` (solver.search.wins) against a separate brute-force recursion:
every mode, caps 3 to 5, 5 and 4 letters, on lists where some answers cannot be won."""

from __future__ import annotations

import functools
import random
import sys

import numpy as np
import pytest

from solver import Solver
from solver.game.position import constraint_after, no_constraint
from solver.search import Stopped
from solver.search.wins import WinsSearch
from solver.words import WordLists
from tests.brute import Brute
from tests.brute import no_constraint as brute_no_constraint
from tests.game_helpers import ANSWERS, GUESSES, run_on_lists


class WinsBrute(Brute):
    """The pair (wins, total) by plain recursion over every allowed guess, splitting
    or not: the most answers solved within b guesses, then the fewest guesses summed
    over those (the next guess counts 1; a lost answer counts nothing)."""

    def wins(self, s: frozenset, b: int, con=None) -> tuple[int, int]:
        if not s or b <= 0:
            return (0, 0)
        key = ("wins", s, b, con)
        if key not in self.memo:
            self.memo[key] = min((self.wins_guess(g, s, b, con)
                                  for g in self.candidates(s, con)),
                                 key=lambda v: (-v[0], v[1]))
        return self.memo[key]

    def wins_guess(self, g: int, s: frozenset, b: int, con) -> tuple[int, int]:
        if not s or b <= 0:
            return (0, 0)
        wins = total = 0
        for p, cls in self.split(g, s).items():
            if p == self.green:
                wins, total = wins + 1, total + 1
                continue
            ncon = self.update(con, self.guesses[g], p) if self.mode == "hard" else None
            w, t = self.wins(cls, b - 1, ncon)
            wins, total = wins + w, total + t + w  # each answer won also paid for g
        return wins, total

    def start(self, b: int) -> tuple[int, int]:
        """The best first guess (strict mode: any guess, as for every opener)."""
        s = frozenset(range(len(self.answers)))
        con = brute_no_constraint(len(self.answers[0])) if self.mode == "hard" else None
        return min((self.wins_guess(g, s, b, con) for g in range(len(self.guesses))),
                   key=lambda v: (-v[0], v[1]))


def stem_lists(seed: int, length: int, stems: int = 3, variants: int = 6,
               n_guesses: int = 12) -> WordLists:
    """Synthetic words: `stems` families of `variants` answers that differ in one
    place only (as -atch, -ight), so small caps cannot win them all; a few random
    guesses over the same letters."""
    rng = random.Random(seed)
    alpha = "abcdefghijkl"
    answers: set[str] = set()
    for _ in range(stems):
        stem = [rng.choice(alpha) for _ in range(length)]
        slot = rng.randrange(length)
        for c in rng.sample(alpha, variants):
            answers.add("".join(stem[:slot] + [c] + stem[slot + 1:]))
    guesses: set[str] = set()
    while len(guesses) < n_guesses:
        guesses.add("".join(rng.choice(alpha) for _ in range(length)))
    return WordLists.from_words(sorted(answers), sorted(guesses - answers))


def family_lists(seed: int, n_answers: int = 16, n_guesses: int = 24) -> WordLists:
    """Real words: half of them from families that share four letters (-atch, -ight,
    -ound, -ill), the rest a random sample."""
    rng = random.Random(seed)
    fam = [w for w in ANSWERS if w.endswith(("atch", "ight", "ound", "ill"))]
    answers = rng.sample(fam, n_answers // 2)
    answers += rng.sample([w for w in ANSWERS if w not in answers], n_answers - len(answers))
    guesses = rng.sample([w for w in GUESSES if w not in answers], n_guesses)
    return WordLists.from_words(answers, guesses)


def _hard_cons(brute_con, length: int):
    """The brute's hard-mode constraint in the game layer's form (arrays)."""
    greens, counts = brute_con
    g = np.array([255 if not c else ord(c) - 97 for c in greens], np.uint8)
    m = np.zeros(26, np.uint8)
    for letter, k in counts:
        m[ord(letter) - 97] = k
    return g, m


MODES = ("easy", "hard", "strict")
INSTANCES = [  # (lists, mode, cap): each loses answers from the start on
    *[(("stem", 0, 4), mode, cap) for mode in MODES for cap in (3, 4)],
    *[(("stem", 0, 5), mode, cap) for mode in MODES for cap in (3, 4)],
    *[(("family", 1), mode, 3) for mode in MODES],
    # families of twelve: at cap 5, classes one guess in lose answers with four
    # guesses left (the compiled four-guess level, wins4, below the first guess)
    *[(("wide", 0, 4), mode, 5) for mode in MODES],
]


def _lists(spec) -> WordLists:
    if spec[0] == "family":
        return family_lists(spec[1], n_answers=20)
    if spec[0] == "wide":
        return stem_lists(spec[1], spec[2], variants=12, n_guesses=6)
    return stem_lists(spec[1], spec[2])


@pytest.mark.parametrize("spec,mode,cap", INSTANCES,
                         ids=["-".join(map(str, [*s, m, c])) for s, m, c in INSTANCES])
def test_wins_match_brute_force(spec, mode, cap):
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    lists = _lists(spec)
    solver = Solver(lists, mode, cap)
    ws = WinsSearch(solver)
    brute = WinsBrute(lists.answers, lists.guesses, mode)
    n = len(lists.answers)
    members = np.arange(n, dtype=np.int32)
    length = lists.length
    start = no_constraint(length) if mode == "hard" else None
    # the start: the best first guess, every guess allowed
    want = brute.start(cap)
    got = ws.set_value(members, cap, start, first=True)
    assert (got.wins, got.total) == want
    g = got.guess
    assert g >= 0
    v = ws.guess_value(g, members, cap, start)  # the guess named achieves it
    assert (v.wins, v.total) == want
    # every opener's value, and every state one guess in
    lost = deep = 0
    con0 = brute_no_constraint(length) if mode == "hard" else None
    s_all = frozenset(range(n))
    for gi, word in enumerate(brute.guesses):
        gid = lists.guess_index[word]
        bw = brute.wins_guess(gi, s_all, cap, con0)
        assert (lambda x: (x.wins, x.total))(ws.guess_value(gid, members, cap, start)) == bw
        lost += bw[0] < n
        row = solver.table[gid]
        for p in np.unique(row).tolist():
            if p == solver.variant.all_green:
                continue
            m = np.flatnonzero(row == p).astype(np.int32)
            bcon = brute.update(con0, word, p) if mode == "hard" else None
            cons = constraint_after(start, word, p) if mode == "hard" else None
            if mode == "hard":
                assert np.array_equal(_hard_cons(bcon, length)[0], cons[0])
            s = frozenset(m.tolist())
            for left in range(cap):  # 0 .. cap - 1 guesses left
                bv = brute.wins(s, left, bcon)
                sv = ws.set_value(m, left, cons)
                assert (sv.wins, sv.total) == bv, (word, p, left)
                deep += left >= cap - 1 >= 2 and bv[0] < len(m)  # a search under the cap
                if left and len(m):  # its guess is legal and achieves the value
                    gw = lists.guesses[sv.guess]
                    if mode == "strict":
                        assert gw in {lists.answers[i] for i in m}
                    assert (lambda x: (x.wins, x.total))(
                        ws.guess_value(sv.guess, m, left, cons)) == bv
    assert lost and deep, "nothing is lost: the instance tests nothing"


RANKED = [((0, 7, 14), m, c) for m in MODES for c in (3, 4)] + [((1, 6, 20), "easy", 4)]


@pytest.mark.parametrize("stem,mode,cap", RANKED)
def test_ranked_and_bounds_match_brute_force(stem, mode, cap):
    """The K best first guesses, ties valued exactly; a bound only ever refuses
    guesses that are no better than it. (Easy mode at cap 4 on the first lists needs
    the bound's discount for the answers a guess must lose: without it a guess is
    refused that ties the 4th best; the last lists need the engine's cutoff on a
    class that must be won outright to be exactly what the guess needs.)"""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    seed, variants, guesses = stem
    lists = stem_lists(seed, 4, stems=3 if seed == 0 else 4, variants=variants,
                       n_guesses=guesses)
    brute = WinsBrute(lists.answers, lists.guesses, mode)
    solver = Solver(lists, mode, cap)
    ws = WinsSearch(solver)
    n = len(lists.answers)
    members = np.arange(n, dtype=np.int32)
    s = frozenset(range(n))
    con = brute_no_constraint(4) if mode == "hard" else None
    cons = no_constraint(4) if mode == "hard" else None
    vals = {w: brute.wins_guess(brute.guesses.index(w), s, cap, con) for w in lists.guesses}
    infeasible = max(v[0] for v in vals.values()) < n
    ranked = ws.ranked(members, cap, cons, True, 4, infeasible=infeasible)
    keys = sorted((-w, t) for w, t in vals.values())
    assert [(-r.wins, r.total) for r in ranked] == keys[:4]
    words = [lists.guesses[r.guess] for r in ranked]
    assert all(vals[w] == (r.wins, r.total) for w, r in zip(words, ranked, strict=True))
    for w, (bw, bt) in list(vals.items())[:10]:
        gid = lists.guess_index[w]
        for bound in [(-bw, bt), (-bw, bt + 1), (-bw - 1, 0), (-bw + 1, 10**6)]:
            v = ws.guess_value(gid, members, cap, cons, bound, n - 1 if infeasible else None)
            if (-bw, bt) < bound:
                assert v is not None and (v.wins, v.total) == (bw, bt)
            else:
                assert v is None or (v.wins, v.total) == (bw, bt)


def test_won_sets_take_the_engines_capped_optimum():
    lists = family_lists(3)
    solver = Solver(lists, "easy", 6)
    ws = WinsSearch(solver)
    members = np.arange(len(lists.answers), dtype=np.int32)
    total, _g, _s = solver.set_value(members, 6)
    v = ws.set_value(members, 6)
    assert total is not None and (v.wins, v.total) == (len(members), total)
    with pytest.raises(ValueError, match="beam"):
        WinsSearch(Solver(lists, "easy", 6, beam=3))


# ---- the analysis: objective wins, and the fallback of the others ---------------------

def _position_losing(lists, mode: str, cap: int, brute: WinsBrute):
    """A position one guess in whose candidates cannot all be won, with 2+ guesses
    left and at least 4 candidates."""
    from solver.feedback import score
    from solver.game import Position

    start = Position.start(lists, mode, cap)
    for w in lists.guesses + lists.answers:
        for a in lists.answers:
            p = score(w, a)
            if p == 3 ** lists.length - 1:
                continue
            pos = start.play(w, p)
            s = frozenset(int(i) for i in pos.members)
            con = None
            if mode == "hard":
                con = brute.update(brute_no_constraint(lists.length), w, p)
            if len(s) >= 4 and brute.wins(s, cap - 1, con)[0] < len(s):
                return pos, s, con
    raise AssertionError("no position loses an answer")


@pytest.mark.parametrize("mode", MODES)
def test_analysis_under_wins_and_the_fallback_match_brute_force(mode):
    import dataclasses

    from solver.game import analyse

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    lists = stem_lists(0, 4, variants=7, n_guesses=14)
    cap = 4
    solver = Solver(lists, mode, cap)
    brute = WinsBrute(lists.answers, lists.guesses, mode)
    pos, s, con = _position_losing(lists, mode, cap, brute)
    n, left = len(s), cap - 1
    want = brute.wins(s, left, con)
    # every allowed guess by the brute force, best first (ties: candidates first,
    # then alphabetical)
    allowed = [g for g in brute.candidates(s, con)]
    vals = {brute.guesses[g]: brute.wins_guess(g, s, left, con) for g in allowed}
    cands = {lists.answers[i] for i in s}
    order = sorted(vals, key=lambda w: (-vals[w][0], vals[w][1], w not in cands, w))
    # the default objective has no value here: infeasible, or the fallback
    res = analyse(solver, pos, top=3)
    assert res.best.status == "infeasible" and res.best.total is None
    assert res.fallback_from is None and res.objective == "expected"
    for asked in ("expected", "worst"):
        res = analyse(solver, dataclasses.replace(pos, objective=asked), top=3, fallback=True)
        assert res.fallback_from == asked and res.objective == "wins"
        assert (res.best.wins, res.best.total) == want == vals[res.best.guess]
        got = [(a.wins, a.total) for a in res.alternatives]
        assert got == [vals[w] for w in order if w != res.best.guess][:3]
        d = res.to_dict()
        assert d["objective"] == "wins" and d["fallback_from"] == asked
        assert (d["best"]["wins"], d["best"]["total"]) == want
        assert d["best"]["average"] == round(want[1] / want[0], 6)
        assert [(a["wins"], a["total"]) for a in d["alternatives"]] == got
        text = res.describe()
        assert f"no strategy wins every candidate within the {left} guesses left" in text
        assert "playing for the most wins instead" in text
        assert (f"best chance: {res.best.guess}  wins {want[0]} of the {n} "
                f"({round(100 * want[0] / n)} %), then {want[1] / want[0]:.4f} more guesses "
                f"on average over those (total {want[1]})") in text
    # asked for directly: the same values, and no fallback said
    res = analyse(solver, dataclasses.replace(pos, objective="wins"), top=3)
    assert (res.best.wins, res.best.total) == want and res.fallback_from is None
    text = res.describe()
    assert "instead" not in text and "best chance" in text and "no strategy wins" in text
    # where every candidate can be won: the capped optimum, and the best totals
    won = next(p for p in (pos.lists.guesses + pos.lists.answers)
               if (lambda r: r.best.total is not None)(analyse(solver, _one_in(pos, p), 0)))
    won_pos = dataclasses.replace(_one_in(pos, won), objective="wins")
    exp = analyse(solver, dataclasses.replace(won_pos, objective="expected"), top=2)
    res = analyse(solver, won_pos, top=2)
    k = len(won_pos.members)
    assert (res.best.wins, res.best.total) == (k, exp.best.total)
    assert [(a.wins, a.total) for a in res.alternatives] == [
        (k, a.total) for a in exp.alternatives if a.guess != res.best.guess][:2] or k <= 2
    assert "best (wins first)" in res.describe() and "wins every candidate" in res.describe()


def _lost_hard():
    """(lists, a hard-mode solver capped at 4, a position one guess in that cannot
    all be won, its candidates' number)."""
    lists = stem_lists(0, 4, variants=7, n_guesses=14)
    pos, s, _con = _position_losing(lists, "hard", 4, WinsBrute(lists.answers,
                                                               lists.guesses, "hard"))
    return lists, Solver(lists, "hard", 4), pos, len(s)


def test_the_progress_line_says_each_step_of_a_best_chance():
    """`next` on a set that cannot be won counts guesses three times over (no guess
    wins all, the most wins, the alternatives): a progress line with steps says
    which, the best chance's guess once it is known; a new analysis starts with no
    step said."""
    import dataclasses

    from solver.game import analyse

    lists, solver, pos, n = _lost_hard()

    class Steps:
        def __init__(self) -> None:
            self.steps: list[str] = []

        def phase(self, step: str) -> None:
            self.steps.append(step)

        def __call__(self, done: int, total: int, note: str = "") -> None:
            pass

    seen = Steps()
    res = analyse(solver, pos, top=3, fallback=True, progress=seen)
    assert seen.steps == ["", f"not all {n} can be won: the most wins, then 3 alternatives",
                          f"{res.best.guess} wins {res.best.wins} of {n}; its 3 alternatives"]
    seen = Steps()
    analyse(solver, dataclasses.replace(pos, objective="wins"), top=1, progress=seen)
    assert seen.steps == ["", "the most wins, then 1 alternative",
                          f"{res.best.guess} wins {res.best.wins} of {n}; its 1 alternative"]
    seen = Steps()
    analyse(solver, pos, top=0, fallback=True, progress=seen)
    assert seen.steps == ["", f"not all {n} can be won: the most wins"]


def test_a_best_chance_counts_every_guess():
    """The count of a best chance moves with each guess valued, not every 64th: a
    guess of a big lost class takes seconds, so a count by 64 sat at 0 for minutes
    (ocean:BBYYB, 1908 guesses). Both searches count: the most wins, and the
    alternatives."""
    lists = _lists(("wide", 0, 4))  # loses answers at cap 5 (five guesses left: Python)
    ws = WinsSearch(Solver(lists, "hard", 5))
    everything = np.arange(len(lists.answers), dtype=np.int32)
    calls: list[tuple[int, int]] = []
    v = ws.set_value(everything, 5, no_constraint(4), True, lambda d, t: calls.append((d, t)))
    assert v.wins < len(everything)
    total = calls[0][1]
    assert total > 2 and calls == [(j, total) for j in range(total)]
    calls.clear()
    ws.ranked(everything, 5, no_constraint(4), True, 3, infeasible=True,
              progress=lambda d, t: calls.append((d, t)))
    assert calls == [(j, total) for j in range(total)]


def test_the_page_says_each_step_of_a_best_chance():
    """The page's progress for the same analysis (web/compute.Steps): the guesses
    ranked, then each step after them, and a fresh pace for each step."""
    from solver.web.compute import Engine

    lists, solver, pos, n = _lost_hard()

    class Reporter:
        def __init__(self) -> None:
            self.said: list[str] = []
            self.starts = 0

        def start(self) -> None:
            self.starts += 1

        def __call__(self, done: int, total: int, message: str = "") -> None:
            if not self.said or self.said[-1] != message:
                self.said.append(message)

    report = Reporter()
    out = Engine(lists, solver.table).run(
        "next", {"position": str(pos), "mode": "hard", "max_guesses": 4, "top": 3,
                 "store": None}, report=report)
    best = out["best"]
    # (the most wins of so small a set is one kernel call: no count of its own)
    steps = [f"guesses ranked, not all {n} can be won: the most wins, then 3 alternatives",
             f"guesses ranked, {best['guess']} wins {best['wins']} of {n}; its 3 alternatives"]
    assert report.said[0] == "guesses ranked" and report.said[-1] == steps[1]
    assert set(report.said) <= {"guesses ranked", *steps} and report.starts == 2


def _one_in(pos, word: str):
    """The start of `pos`'s game after `word` and the feedback of its first candidate."""
    from solver.feedback import score
    from solver.game import Position

    start = Position.start(pos.lists, pos.mode, pos.max_guesses)
    return start.play(word, score(word, pos.candidates[0]))


def test_percent_never_rounds_to_all_or_nothing():
    from solver.plural import percent

    assert percent(5, 6) == "83 %" and percent(6, 6) == "100 %" and percent(0, 6) == "0 %"
    assert percent(3157, 3158) == "99.97 %" and percent(1, 3158) == "0.03 %"
    assert percent(99999, 100000) == "99.9990 %"


# ---- the commands -------------------------------------------------------------------

@pytest.fixture(scope="module")
def stems(tmp_path_factory):
    from tests.game_helpers import write_lists

    d = tmp_path_factory.mktemp("stems")
    lists = stem_lists(0, 4, variants=7, n_guesses=14)
    a, g = write_lists(d, lists)
    return lists, a, g, str(d / "cache")


def _run(capsys, small, *args):
    return run_on_lists(capsys, small, *args)


def test_solve_and_next_with_objective_wins(capsys, stems):
    import json

    from solver.feedback import to_text

    lists = stems[0]
    brute = WinsBrute(lists.answers, lists.guesses, "hard")
    n = len(lists.answers)
    s = frozenset(range(n))
    con0 = brute_no_constraint(4)
    for w in lists.guesses[:3]:
        want = brute.wins_guess(brute.guesses.index(w), s, 4, con0)
        rc, out, err = _run(capsys, stems, "solve", w, "--objective", "wins", "--mode", "hard",
                            "--max-guesses", "4", "--json")
        d = json.loads(out)
        assert rc == 0 and (d["wins"], d["total"], d["objective"]) == (*want, "wins")
        assert d["average"] == round(want[1] / want[0], 6)
        rc, out, err = _run(capsys, stems, "solve", w, "--objective", "wins", "--mode", "hard",
                            "--max-guesses", "4")
        assert f"wins {want[0]} of {n} answers" in out and f"total {want[1]} over those" in out
    # next: the start, searched on small lists, and a position that loses answers
    rc, out, err = _run(capsys, stems, "next", "-", "--objective", "wins", "--mode", "hard",
                        "--max-guesses", "4", "--json", "--top", "1")
    d = json.loads(out)
    assert rc == 0 and (d["best"]["wins"], d["best"]["total"]) == brute.start(4)
    pos, s2, con = _position_losing(lists, "hard", 4, brute)
    want = brute.wins(s2, 3, con)
    text = ",".join(f"{g}:{to_text(p, 4)}" for g, p in pos.history)
    rc, out, err = _run(capsys, stems, "next", text, "--mode", "hard", "--max-guesses", "4",
                        "--json")
    d = json.loads(out)
    assert rc == 0 and d["objective"] == "wins" and d["fallback_from"] == "expected"
    assert (d["best"]["wins"], d["best"]["total"]) == want
    rc, out, err = _run(capsys, stems, "next", text, "--mode", "hard", "--max-guesses", "4")
    assert rc == 0 and "playing for the most wins instead" in out
    assert f"wins {want[0]} of the {len(s2)}" in out
    # a beam proves nothing: one line
    rc, out, err = _run(capsys, stems, "solve", lists.answers[0], "--objective", "wins",
                        "--beam", "2")
    assert rc == 2 and "exclude each other" in err and len(err.splitlines()) == 1, err
    assert err.startswith("wordle-dp: error: ") and "wins" in err


# ---- the tree -----------------------------------------------------------------------

def _check_games(t, lists, mode: str, cap: int, prior=()) -> None:
    """Every game of a tree is a game of the rules: each feedback is the answer's, each
    guess legal (hard: the constraint of the feedbacks so far; strict: a candidate);
    a won game ends all green within the cap, a lost one uses every guess left; the
    same guess at the same history for every answer (one strategy)."""
    from solver.feedback import score

    green = 3 ** lists.length - 1
    brute = WinsBrute(lists.answers, lists.guesses, mode)
    chosen: dict[tuple, str] = {}
    for a, steps in t.games.items():
        con = brute_no_constraint(lists.length) if mode == "hard" else None
        cands = set(range(len(lists.answers)))
        seen: list = list(prior)
        for g, p in prior:
            if mode == "hard":
                con = brute.update(con, g, p)
            cands = {c for c in cands if score(g, lists.answers[c]) == p}
        for i, (g, p) in enumerate(steps):
            assert p == score(g, a)
            assert chosen.setdefault(tuple(seen), g) == g  # one strategy
            if mode == "hard":
                assert brute.allowed(con, g), (a, g)
                con = brute.update(con, g, p)
            if mode == "strict" and (i or prior):
                assert g in {lists.answers[c] for c in cands}
            cands = {c for c in cands if score(g, lists.answers[c]) == p}
            seen.append((g, p))
        if t.won(a):
            assert steps[-1][1] == green and len(prior) + len(steps) <= cap
        else:
            assert len(prior) + len(steps) == cap and steps[-1][1] != green


@pytest.mark.parametrize("mode", MODES)
def test_tree_falls_back_to_the_most_wins(mode):
    """tree where no strategy after the opener wins every answer: the strategy of the
    most wins, its value the brute force's, from the start and from a position, and
    under the objective wins asked for (no fallback said)."""
    from solver.feedback import score
    from solver.game import Position
    from solver.game.tree import tree

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    lists = stem_lists(0, 4, variants=7, n_guesses=14)
    solver = Solver(lists, mode, 4)
    brute = WinsBrute(lists.answers, lists.guesses, mode)
    n = len(lists.answers)
    s = frozenset(range(n))
    con0 = brute_no_constraint(4) if mode == "hard" else None
    for w in lists.guesses[::5]:
        want = brute.wins_guess(brute.guesses.index(w), s, 4, con0)
        assert want[0] < n
        for objective in ("expected", "worst", "wins"):
            t = tree(solver, w, Position.start(lists, mode, 4, objective=objective))
            assert (t.objective, t.wins, t.total) == ("wins", *want), (w, objective)
            assert t.fallback_from == (None if objective == "wins" else objective)
            assert len(t.games) == n and len(t.lost) == n - want[0]
            _check_games(t, lists, mode, 4)
        d = t.to_dict()
        assert (d["wins"], d["answers"], d["total"], sorted(d["lost"])) == (
            want[0], n, want[1], sorted(t.lost))
        assert sum(t.histogram.values()) == want[0]
        root = t.nested()
        assert root["answers"] == n and root["total"] == want[1]
    # from a position one guess in that cannot win every candidate
    pos, s2, con = _position_losing(lists, mode, 4, brute)
    (g0, p0), = pos.history
    from solver.errors import UsageError

    tried = 0
    for w in lists.guesses[:8] + [lists.answers[i] for i in sorted(s2)][:2]:
        try:
            pos.check_guess(w)
        except UsageError:  # a guess the rules do not allow here
            continue
        t = tree(solver, w, pos)
        tried += 1
        want = brute.wins_guess(brute.guesses.index(w), s2, 3, con)
        assert (t.wins, t.total) == want and t.prior == 1
        assert all(score(g0, a) == p0 for a in t.games)
        _check_games(t, lists, mode, 4, prior=[(g0, p0)])
    assert tried


def test_tree_of_an_opener_that_wins_everything_under_wins():
    """Under the objective wins an opener that wins every answer gets the engine's
    capped optimum: the tree wins them all at the exact total."""
    from solver.game import Position
    from solver.game.tree import tree

    lists = stem_lists(0, 4, variants=7, n_guesses=14)
    solver = Solver(lists, "hard", 5)
    t = tree(solver, "flbd", Position.start(lists, "hard", 5, objective="wins"))
    assert (t.wins, t.total, t.lost) == (len(lists.answers), 65, [])
    _check_games(t, lists, "hard", 5)


def test_tree_command_says_it_plays_for_the_most_wins(capsys, stems, tmp_path):
    import json

    lists = stems[0]
    brute = WinsBrute(lists.answers, lists.guesses, "hard")
    n = len(lists.answers)
    w = lists.guesses[0]
    want = brute.wins_guess(0, frozenset(range(n)), 4, brute_no_constraint(4))
    rc, out, err = _run(capsys, stems, "tree", w, "--mode", "hard", "--max-guesses", "4",
                        "--quiet")
    assert rc == 0
    head = out.splitlines()[0]
    assert head.startswith(f"# {w} from -: no strategy wins every answer within 4 guesses "
                           "in hard mode, so this tree plays for the most wins: ")
    assert f"wins {want[0]} of {n} answers" in head and f"total {want[1]} over those" in head
    lost = [x.split()[0] for x in out.splitlines()[1:] if x.split()[1] == "lost"]
    assert len(lost) == n - want[0] and f"lost: {' '.join(lost)}" in head
    assert f"no strategy after {w.upper()} wins every answer within 4 guesses" in err
    out_file = tmp_path / "t.json"
    rc, out, err = _run(capsys, stems, "tree", w, "--mode", "hard", "--max-guesses", "4",
                        "--format", "json", "--out", str(out_file), "--objective", "wins")
    d = json.loads(out_file.read_text())
    assert rc == 0 and (d["objective"], d["wins"], d["total"]) == ("wins", *want)
    assert "fallback_from" not in d and "no strategy after" not in err
    assert f"({want[0]} of {n} answers won, " in err


def test_play_falls_back_and_wins_what_the_best_chance_says(capsys, stems, monkeypatch):
    """play with an answer, played out (stdin not a terminal): after an opener that
    cannot win every answer the game says so, plays for the most wins, and over every
    candidate of a class that cannot all be won it wins exactly the number it
    announced, in the guesses it announced."""
    from solver.plural import percent

    lists = stems[0]
    brute = WinsBrute(lists.answers, lists.guesses, "hard")
    pos, s, con = _position_losing(lists, "hard", 4, brute)
    (opener, _p), = pos.history
    wins, total = brute.wins(s, 3, con)
    n = len(s)
    all_won = brute.wins_guess(brute.guesses.index(opener), frozenset(range(len(lists.answers))),
                               4, brute_no_constraint(4))[0] == len(lists.answers)
    won, used = 0, 0
    for a in pos.candidates:
        rc, out, err = run_on_lists(capsys, stems, "play", "--answer", a, "--opener", opener,
                                    "--mode", "hard", "--max-guesses", "4", stdin="",
                                    monkeypatch=monkeypatch)
        assert rc == 0 and err == "", err
        lines = out.splitlines()
        # the long lines are broken between phrases (at most 120 columns): read them
        # as the words they are
        said = " ".join(out.split())
        if not all_won:
            assert (f"no strategy after {opener.upper()} wins every answer within 4 guesses "
                    "in hard mode") in said.split(" guess 1: ")[0]
        report = said.split(" guess 1: ")[1]
        assert "no strategy wins every candidate from here: " in report
        assert (f"wins {wins} of the {n} ({percent(wins, n)}), then {total / wins:.1f} more "
                "guesses on average over those (exact)") in report
        if lines[-1].startswith("solved:"):
            won += 1
            used += int(lines[-1].split(" in ")[1].split()[0]) - 1
        else:
            assert lines[-1] == f"out of guesses (cap 4); the answer was {a.upper()}"
            assert lines[-2].startswith("guess 4: ")
    assert (won, used) == (wins, total)


def test_solve_under_wins_reports_progress(capsys, stems, monkeypatch):
    """A long solve --objective wins says how far it is on stderr, with an ETA, as the
    engine's solve does (here every class: the lines' interval set to 0); --quiet and
    --json's stdout stay clean."""
    import json

    import solver.search.engine as engine

    monkeypatch.setattr(engine, "PROGRESS_EVERY", 0.0)
    monkeypatch.setattr(engine, "PROGRESS_FIRST", 0.0)
    lists = stems[0]
    w = lists.guesses[0]
    rc, out, err = _run(capsys, stems, "solve", w, "--objective", "wins", "--mode", "hard",
                        "--max-guesses", "4", "--json", "--no-book")
    assert rc == 0 and json.loads(out)["wins"] > 0
    lines = err.splitlines()
    assert lines and all(x.startswith(f"{w}: ") for x in lines)
    assert "feedback classes valued for the most wins (about " in lines[-1]
    assert "% of the work)" in lines[-1] and "ETA about" in lines[-1]
    done = [int(x.split(": ")[1].split("/")[0]) for x in lines]
    assert done == sorted(done) and done[-1] == int(lines[-1].split("/")[1].split()[0])
    rc, out, err = _run(capsys, stems, "solve", w, "--objective", "wins", "--mode", "hard",
                        "--max-guesses", "4", "--quiet")
    assert rc == 0 and err == ""


@pytest.mark.parametrize("length", [4, 5])
def test_child_constraints_and_classes_are_the_game_layers(length):
    """The search takes the hard-mode constraint after a guess from the engine's
    kernel and splits sets itself: both as the game layer and Solver._classes do, for
    every guess and feedback from the start and one guess in."""
    from solver.feedback import score

    lists = stem_lists(2, length, variants=6, n_guesses=16)
    solver = Solver(lists, "hard", 4)
    ws = WinsSearch(solver)
    start = no_constraint(length)
    members = np.arange(len(lists.answers), dtype=np.int32)
    for gid, word in enumerate(lists.guesses):
        got = ws._split(gid, members)
        want = solver._classes(gid, members)[::-1]
        assert [(p, m.tolist()) for p, m in got] == [(p, m.tolist()) for p, m in want]
        for p, m in got:
            for cons in (start, constraint_after(start, lists.guesses[-1],
                                                 score(lists.guesses[-1], lists.answers[0]))):
                a = ws._child_cons(cons, gid, p)
                b = constraint_after(cons, word, p)
                assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
            sub = m[::2].copy()  # a subset in another order: the order is kept
            assert [x.tolist() for _p, x in ws._split(gid, sub)] == [
                x.tolist() for _p, x in solver._classes(gid, sub)[::-1]]
    assert ws._child_cons(None, 0, 0)[1].sum() == 0


def _sets_one_guess_in(solver, rng, words: int, least: int) -> list:
    """(set, constraint, first): the opener's whole set (every guess allowed), then
    the classes of at least `least` answers of `words` random openers."""
    lists = solver.lists
    start = no_constraint(lists.length) if solver.mode == "hard" else None
    cases = [(np.arange(len(lists.answers), dtype=np.int32), start, True)]
    for word in rng.sample(lists.guesses, words):
        row = solver.table[lists.guess_index[word]]
        for p in np.unique(row).tolist():
            m = np.flatnonzero(row == p).astype(np.int32)
            if p != solver.variant.all_green and len(m) >= least:
                cons = constraint_after(start, word, p) if solver.mode == "hard" else None
                cases.append((m, cons, False))
    return cases


def _check_needs(search, m, left: int, cons, first: bool, infeasible: bool, want) -> None:
    """Under a need around the value `want`: the value where it beats the need,
    None where it does not."""
    w, t = want.wins, want.total
    for need in [(-w, t), (-w, t + 1), (-w - 1, 0), (-w + 1, 10**6), (-w, t - 1)]:
        v = search._search(m, left, cons, first, infeasible, need=need)
        if (-w, t) < need:
            assert v is not None and (v.wins, v.total, v.guess) == (w, t, want.guess)
        else:
            assert v is None


@pytest.mark.parametrize("length", (4, 5, 6))
@pytest.mark.parametrize("mode", MODES)
def test_the_three_guess_kernel_matches_the_python_search(mode, length):
    """Sets with three guesses left are valued by a compiled kernel (wins_kernel);
    the Python branch and bound it replaces must give the same value and the same
    guess (the first of the order searched), and the same answer under every need:
    the value below it, None at or above it. Six letters run numba's jit (two-byte
    patterns); the others the compiled module."""
    lists = stem_lists(11 + length, length, stems=4, variants=9, n_guesses=14)
    solver = Solver(lists, mode, 6)
    fast, slow = WinsSearch(solver), WinsSearch(solver)
    slow.kernel = False
    lost = 0
    for m, cons, first in _sets_one_guess_in(solver, random.Random(length), 30, 3):
        want = slow._search(m, 3, cons, first, False)
        got = fast._search(m, 3, cons, first, False)
        assert want is not None and got is not None
        assert (got.wins, got.total, got.guess) == (want.wins, want.total, want.guess)
        lost += want.wins < len(m)
        _check_needs(fast, m, 3, cons, first, False, want)
    assert lost >= 20, "too few sets lose an answer: the cases test little"


@pytest.mark.parametrize("length", (4, 5, 6))
@pytest.mark.parametrize("mode", MODES)
def test_the_four_guess_kernel_matches_the_python_search(mode, length):
    """Sets with four guesses left are searched by a compiled kernel (wins4, with its
    memo of the values two and three guesses left); the Python branch and bound
    it replaces must give the same value and the same guess, and the same answer
    under every need, on sets that cannot be won outright too (searched with the
    cap |S| - 1). Each set is searched twice by one search, the second time from
    the memo the first left. Six letters run numba's jit."""
    lists = stem_lists(21 + length, length, stems=4, variants=12, n_guesses=6)
    solver = Solver(lists, mode, 6)
    fast, slow = WinsSearch(solver), WinsSearch(solver)
    slow.kernel4 = False
    lost = 0
    for m, cons, first in _sets_one_guess_in(solver, random.Random(length), 12, 5):
        want = slow._search(m, 4, cons, first, False)
        assert want is not None
        infeasible = want.wins < len(m)
        lost += infeasible
        for _twice in range(2):
            got = fast._search(m, 4, cons, first, infeasible)
            assert got is not None
            assert (got.wins, got.total, got.guess) == (want.wins, want.total, want.guess)
        _check_needs(fast, m, 4, cons, first, infeasible, want)
    assert lost >= 5, "too few sets lose an answer: the cases test little"
    assert len(fast.memo3) > 100


def test_the_kernels_memo_grows_and_keeps_its_values():
    """The kernels' memo starts small, grows when full and is emptied at its
    largest size: the values stay the same at every size."""
    from solver.kernels import wins_kernel

    lists = stem_lists(25, 5, stems=4, variants=10, n_guesses=10)
    solver = Solver(lists, "hard", 6)
    everything = np.arange(len(lists.answers), dtype=np.int32)
    start = no_constraint(5)
    want = WinsSearch(solver).set_value(everything, 5, start, first=True)
    for first_size, largest in ((1 << 4, 1 << 6), (1 << 4, 1 << 4)):
        ws = WinsSearch(solver)
        ws.memo3 = wins_kernel.Memo3(first_size)
        old = wins_kernel.MEMO3_MAX_SLOTS
        wins_kernel.MEMO3_MAX_SLOTS = largest
        try:
            got = ws.set_value(everything, 5, start, first=True)
        finally:
            wins_kernel.MEMO3_MAX_SLOTS = old
        assert (got.wins, got.total, got.guess) == (want.wins, want.total, want.guess)
        assert len(ws.memo3.slots) == largest
        assert 0 <= len(ws.memo3) <= largest // 2


def test_the_same_guesses_are_the_same_on_every_class_below():
    """The search values once each group of guesses that are the same on a set
    (WinsSearch._same): every answer gets the same pattern from each, and in hard mode
    each has the same letters wherever an answer sees a colour. Checked here on the
    real words of today's lists (repeated letters included), in hard mode, on sets
    one and two guesses in: the two give the same classes, each class the same
    constraint, and on every class below, under the constraint after any guess of
    the set, one is legal exactly where the other is (what lets the three-guess
    kernel search each group once as a class's guesses too)."""
    from solver.game.position import legal_mask

    lists = WordLists.load(lists="nyt", quiet=True)
    solver = Solver(lists, "hard", 6)
    ws = WinsSearch(solver)
    rng = random.Random(52112929)
    start = no_constraint(5)
    everything = np.arange(len(lists.answers), dtype=np.int32)
    sets = []
    for w in ("aisle", "crane", "jiffy", "eerie", "llama"):
        for p, m in ws._split(lists.guess_index[w], everything):
            if p != solver.variant.all_green and 8 <= len(m) <= 150:
                sets.append((m, constraint_after(start, w, p)))
    sets = rng.sample(sets, 8)
    for m, cons in list(sets):  # and a class of each, one guess further in
        g = int(rng.choice(ws._legal_ids(m, cons, False)))
        p, sub = max(ws._split(g, m), key=lambda x: len(x[1]))
        if p != solver.variant.all_green and len(sub) >= 3:
            sets.append((sub, constraint_after(cons, lists.guesses[g], p)))
    merged = checked = 0
    for m, cons in sets:
        gids = ws._legal_ids(m, cons, False)
        same = ws._same(gids, m)
        pairs = [(int(gids[same[j]]), int(gids[j])) for j in np.flatnonzero(same >= 0)]
        merged += len(pairs)
        assert all(same[same >= 0] < np.flatnonzero(same >= 0))  # the first of a group
        below = []  # the constraints of the classes of a few guesses of the set
        for g in rng.sample(gids.tolist(), 4):
            for p, c in ws._split(g, m):
                below.append((c, constraint_after(cons, lists.guesses[g], p)))
        for a, b in rng.sample(pairs, min(len(pairs), 25)):
            assert np.array_equal(solver.table[a, m], solver.table[b, m])
            for p, _c in ws._split(a, m):
                ca = constraint_after(cons, lists.guesses[a], p)
                cb = constraint_after(cons, lists.guesses[b], p)
                assert np.array_equal(ca[0], cb[0]) and np.array_equal(ca[1], cb[1])
            for c, cc in below:
                legal = legal_mask(lists, solver.mode, cc, c, False)
                assert legal[a] == legal[b], (lists.guesses[a], lists.guesses[b])
                checked += 1
        # and a hard-mode difference is not merged: rows alike, a coloured letter not
        rows = solver.table[gids][:, m]
        for j in range(1, min(len(gids), 80)):
            if same[j] < 0:
                assert not any(np.array_equal(rows[j], rows[i]) and
                               _coloured_letters(ws, gids[i], rows[i]) ==
                               _coloured_letters(ws, gids[j], rows[j])
                               for i in range(j))
    assert merged > 1000 and checked > 2000


def _coloured_letters(ws, g, row) -> list:
    bits = [any((int(p) // 3 ** i) % 3 for p in row) for i in range(5)]
    return [ws.lists.guesses[g][i] if bits[i] else None for i in range(5)]


def _lost_sets(mode: str):
    """(solver, [(set, guesses left, constraint)]): sets that lose answers, searched
    with guesses merged. Hard: the classes, four guesses left, of a few second
    guesses of one of lares' lost classes on today's lists (as the moves build meets
    them). Easy: three of lares' classes that lose answers with three guesses left, where every
    guess is an answer of today's list. Strict: two families of today's answers
    (-ight and -atch ...), three and four guesses left."""
    import re

    nyt = WordLists.load(lists="nyt", quiet=True)
    lists = WordLists.from_words(nyt.answers, ["lares"]) if mode == "easy" else nyt
    solver = Solver(lists, mode, 6)
    ws = WinsSearch(solver)
    everything = np.arange(len(lists.answers), dtype=np.int32)
    lares = dict(ws._split(lists.guess_index["lares"], everything))
    if mode == "hard":
        cons = constraint_after(no_constraint(5), "lares", 60)
        gids = ws._candidates(lares[60], cons, False, True)[0]
        out = []
        for g in [*gids[:2].tolist(), *random.Random(1).sample(gids.tolist(), 4)]:
            for p, c in ws._split(g, lares[60]):
                if len(c) >= 8:
                    out.append((c, 4, constraint_after(cons, lists.guesses[g], p)))
        return solver, out
    if mode == "easy":
        return solver, [(lares[p], 3, None) for p in (69, 60, 39)]  # 39, 59, 63 answers
    out = []
    for a, b in ((r".ight", r".atch"), (r".ound", r".ower"), (r"..ake", r".ater")):
        m = np.array([i for i, w in enumerate(lists.answers)
                      if re.fullmatch(a, w) or re.fullmatch(b, w)], np.int32)
        out += [(m, 3, None), (m, 4, None)]
    return solver, out


@pytest.mark.parametrize("mode", MODES)
def test_valuing_the_same_guesses_once_changes_no_value(mode):
    """Sets valued with every guess searched (merge off) and with each group of the
    same guesses once: the same value, the same guess, and the same six best with
    their ties, in the compiled three-guess kernel and in the Python search above
    it (at three guesses left too, with the kernel off, on the smaller sets)."""
    solver, sets = _lost_sets(mode)
    lost = merged = 0
    for m, left, cons in sets:
        for kernel in (True, False) if left == 3 and len(m) <= 45 else (True,):
            fast, slow = WinsSearch(solver), WinsSearch(solver)
            slow.merge = False
            fast.kernel = slow.kernel = kernel
            want = slow.set_value(m, left, cons)
            got = fast.set_value(m, left, cons)
            assert (got.wins, got.total, got.guess) == (want.wins, want.total, want.guess)
            infeasible = want.wins < len(m)
            lost += infeasible
            rw = slow.ranked(m, left, cons, False, 6, infeasible=infeasible)
            rg = fast.ranked(m, left, cons, False, 6, infeasible=infeasible)
            assert [(r.wins, r.total, r.guess) for r in rg] == \
                [(r.wins, r.total, r.guess) for r in rw]
        gids = fast._legal_ids(m, cons, False)
        merged += int((fast._same(gids, m) >= 0).sum())
    assert lost >= 4, "too few sets lose an answer: the cases test little"
    # strict mode guesses only candidates below the first guess: no two are the same
    assert merged == 0 if mode == "strict" else merged > 100


def test_guesses_alike_but_for_a_coloured_letter_are_not_the_same():
    """Hard mode: pzzzc and qzzzc colour every answer alike here (p and q are in each,
    neither in front; c ends one answer), but after them the next guess needs a p,
    or a q, and only pcdef (a p, no q) splits the rest. So they are not the same
    guess: with three guesses left pzzzc wins 5 answers, qzzzc 3, and a search that
    merged them by their patterns alone would give qzzzc the 5."""
    answers = ["apqbc", "apqbd", "apqbe", "apqbf", "apqbg", "apqbh"]
    lists = WordLists.from_words(answers, ["pzzzc", "qzzzc", "pcdef"])
    solver = Solver(lists, "hard", 3)
    m = np.arange(len(answers), dtype=np.int32)
    ws = WinsSearch(solver)
    p, q = lists.guess_index["pzzzc"], lists.guess_index["qzzzc"]
    assert np.array_equal(solver.table[p, m], solver.table[q, m])
    gids = ws._legal_ids(m, no_constraint(5), True)
    assert ws._same(gids, m)[np.flatnonzero(gids == q)[0]] == -1
    ranked = {lists.guesses[r.guess]: r.wins
              for r in ws.ranked(m, 3, no_constraint(5), True, len(lists.guesses))}
    assert ranked["pzzzc"] == 5 and ranked["qzzzc"] == 3
    easy = WinsSearch(Solver(lists, "easy", 3))  # where letters do not matter: merged
    assert easy._same(gids, m)[np.flatnonzero(gids == q)[0]] == np.flatnonzero(gids == p)[0]


@pytest.mark.parametrize("mode", MODES)
def test_a_stop_request_ends_the_wins_search_at_its_next_step(mode):
    """request_stop (a stop signal in `book moves`) raises Stopped at the search's
    next guess or class, not only at its next engine call: no compiled level (three
    or four guesses left) is entered once the flag is up, and one that is running
    stops at its next guess. What the search kept is true: after clear_stop it
    gives a fresh search's value."""
    lists = _lists(("wide", 0, 4))  # loses answers at cap 5 in every mode
    solver = Solver(lists, mode, 5)
    search = WinsSearch(solver)
    everything = np.arange(len(lists.answers), dtype=np.int32)
    start = no_constraint(lists.length) if mode == "hard" else None
    flags: list[bool] = []
    kernels = search._kernel3, search._kernel4

    def counted(kernel, *args, **kwargs):
        flags.append(solver.stop_requested)
        if len(flags) == 3:
            solver.request_stop()
        return kernel(*args, **kwargs)

    search._kernel3 = functools.partial(counted, kernels[0])  # type: ignore[method-assign]
    search._kernel4 = functools.partial(counted, kernels[1])  # type: ignore[method-assign]
    with pytest.raises(Stopped):
        search.set_value(everything, 5, start, first=True)
    assert flags == [False, False, False]
    solver.clear_stop()
    fresh = WinsSearch(Solver(lists, mode, 5)).set_value(everything, 5, start, first=True)
    assert search.set_value(everything, 5, start, first=True) == fresh
    # the four-guess kernel itself looks at the flag before each guess
    solver.request_stop()
    with pytest.raises(Stopped):
        kernels[1](everything, start, True, None, *search._candidates(
            everything, start, True, False)[:1], np.zeros(len(lists.guesses), np.int64),
            len(everything))
    solver.clear_stop()
