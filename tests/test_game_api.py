"""Positions, the next-guess analysis and tree export (solver.game), checked
against the plain feedback rule and the brute-force reference."""

from __future__ import annotations

import random

import numpy as np
import pytest

from solver import Solver
from solver.errors import PatternError, UsageError, WordleDPError
from solver.feedback import score, to_text
from solver.game import Position, analyse, evaluate, tree
from solver.game.measures import class_counts, letter_scores, measures, scan
from solver.words import WordLists
from tests.brute import NO_CONSTRAINT, Brute, hard_allowed, hard_update
from tests.game_helpers import small_lists, small_solver

GREEN = 242  # all five letters green: 3**5 - 1


def random_position(solver: Solver, rng: random.Random, steps: int) -> Position:
    """A position reached by legal random guesses against a random answer."""
    lists = solver.lists
    answer = rng.choice(lists.answers)
    pos = Position.start(lists, solver.mode, solver.max_guesses)
    for _ in range(steps):
        legal = [lists.guesses[i] for i in np.flatnonzero(pos.legal())]
        g = rng.choice(legal)
        p = score(g, answer)
        if p == GREEN or (solver.max_guesses and pos.guesses_made + 1
                              >= solver.max_guesses):
            break
        pos = pos.play(g, p)
    return pos


# ---- positions ------------------------------------------------------------------

def test_parse_round_trip_and_candidates():
    lists = WordLists.load()
    pos = Position.parse("salet:BBYBG, drone:bbbbb", lists)
    assert str(pos) == "salet:BBYBG,drone:BBBBB"
    expect = [a for a in lists.answers
              if score("salet", a) == pos.history[0][1] and score("drone", a)
              == pos.history[1][1]]
    assert pos.candidates == expect
    assert pos.guesses_left == 4
    assert str(Position.parse("-", lists)) == "-"
    assert len(Position.parse("  ", lists).members) == len(lists.answers)
    # squares and digits are accepted too
    assert str(Position.parse("salet:⬛⬛🟨⬛🟩", lists)) == "salet:BBYBG"
    assert str(Position.parse("salet:00102", lists)) == "salet:BBYBG"


@pytest.mark.parametrize("text,mode,cap,kind,needle", [
    ("salet:GGGGG", "easy", 6, UsageError, "no answer in the list fits"),
    ("salet:BBBBB,courd:GGGGG", "easy", 6, UsageError, "no answer"),
    ("zzzzz:BBBBB", "easy", 6, UsageError, "not in the guess list"),
    ("salet:BBQBB", "easy", 6, PatternError, "is not a mark"),
    ("salet:BBBB", "easy", 6, PatternError, "5 marks"),
    ("salet", "easy", 6, UsageError, "GUESS:PATTERN"),
    ("salet:BBYBG,crane:BBBBB", "hard", 6, UsageError, "position 5 must be T"),
    ("salet:BBYBG,print:BBBBG", "hard", 6, UsageError, "must contain L"),
    ("salet:BBBBB,crane:BBBBB", "strict", 6, UsageError, "strict mode"),
    ("salet:BBBBB,crony:BBBBB,dumpy:BBBBB", "easy", 2, UsageError, "cap of 2"),
    ("salet:BBBBB,crony:BBBBB", "easy", 2, UsageError, "all 2 guesses are used"),
    ("cigar:GGGGG,salet:BBBBB", "easy", 6, UsageError, "already solved"),
])
def test_parse_errors_are_one_line(text, mode, cap, kind, needle):
    lists = WordLists.load()
    with pytest.raises(kind) as exc:
        Position.parse(text, lists, mode, cap)
    assert isinstance(exc.value, WordleDPError)
    msg = str(exc.value)
    assert needle in msg and "\n" not in msg


def test_hard_constraint_matches_engine_and_reference():
    rng = random.Random(5)
    solver = small_solver(3, mode="hard", cap=0)
    for _ in range(20):
        pos = random_position(solver, rng, 3)
        cons = None
        ref = NO_CONSTRAINT
        for g, p in pos.history:
            cons = solver._constraint_after(cons, solver.lists.guess_index[g], p)
            ref = hard_update(ref, g, p)
        if cons is not None:
            assert np.array_equal(cons[0], pos.cons[0]) and np.array_equal(cons[1], pos.cons[1])
        legal = {solver.lists.guesses[i] for i in np.flatnonzero(pos.legal())}
        assert legal == {w for w in solver.lists.guesses if hard_allowed(ref, w)}


# ---- analysis -------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(9))
def test_analysis_matches_brute_force(seed):
    rng = random.Random(seed)
    mode = ("easy", "hard", "strict")[seed % 3]
    cap = (0, 4, 6)[seed // 3 % 3]
    solver = small_solver(seed, mode=mode, cap=cap)
    lists = solver.lists
    brute = Brute(lists.answers, lists.guesses, mode)
    checked = 0
    for steps in (1, 2, 2):
        pos = random_position(solver, rng, steps)
        if not pos.history or pos.solved:
            continue
        s = frozenset(int(i) for i in pos.members)
        con = None
        if mode == "hard":
            con = NO_CONSTRAINT
            for g, p in pos.history:
                con = hard_update(con, g, p)
        b = None if not cap else pos.budget
        res = analyse(solver, pos, top=4)
        want = brute.value(s, b, con)
        if want is None:
            assert res.best.status == "infeasible" and res.best.total is None
            continue
        assert res.best.total == want and res.best.status == "exact"
        checked += 1
        g = lists.guess_index[res.best.guess]
        assert brute.cost(g, s, b, con) == want
        # alternatives: exact totals, sorted, and nothing unlisted is better
        totals = [a.total for a in res.alternatives]
        assert totals == sorted(totals)
        for a in res.alternatives:
            assert a.total == brute.cost(lists.guess_index[a.guess], s, b, con)
            assert evaluate(solver, pos, a.guess).total == a.total
        # and exactly the first four by (total, not a candidate, word), the best left
        # out: computed as the top five, ranked before the best is valued (analyse)
        cands = {lists.answers[i] for i in s}
        costs = [(brute.cost(int(w), s, b, con), lists.guesses[w] not in cands, lists.guesses[w])
                 for w in np.flatnonzero(pos.legal())
                 if len(brute.split(int(w), s)) > 1 or GREEN in brute.split(int(w), s)]
        want_alts = [w for c, _nc, w in sorted(x for x in costs if x[0] is not None)
                     if w != res.best.guess][:4]
        assert [a.guess for a in res.alternatives] == want_alts
        listed = {res.best.guess} | {a.guess for a in res.alternatives}
        if len(res.alternatives) == 4:
            for w in np.flatnonzero(pos.legal()):
                if lists.guesses[w] in listed or len(brute.split(w, s)) == 1 and \
                        GREEN not in brute.split(w, s):
                    continue
                c = brute.cost(int(w), s, b, con)
                assert c is None or c >= totals[-1]
    assert checked >= 1


def test_analysis_json_schema_and_known_value():
    """The issue's example: default lists, easy, after salet:BBBBB 221 answers
    remain and the optimal further total is 609."""
    lists = WordLists.load()
    solver = Solver(lists)
    res = analyse(solver, Position.parse("salet:BBBBB", lists), top=3)
    d = res.to_dict()
    assert list(d) == ["position", "candidates", "words", "best", "alternatives", "mode",
                       "max_guesses", "objective"]
    assert d["candidates"] == 221 and d["words"] is None
    assert d["best"]["total"] == 609 and d["best"]["status"] == "exact"
    assert d["best"]["average"] == round(609 / 221, 6)
    # worst: the smallest worst case among the guesses of total 609 (issue 18's tie-break)
    assert set(d["best"]) == {"guess", "total", "average", "status", "worst"}
    assert d["best"]["worst"] == 4 and d["objective"] == "expected"
    assert len(d["alternatives"]) == 3
    assert all(set(a) == {"guess", "total", "status"} for a in d["alternatives"])
    assert all(a["total"] >= 609 for a in d["alternatives"])
    assert d["mode"] == "easy" and d["max_guesses"] == 6
    # the best guess's own value agrees
    assert evaluate(solver, res.position, d["best"]["guess"]).total == 609


def test_analysis_start_of_small_game_and_solved_position():
    solver = small_solver(11, n_answers=14, n_guesses=25)
    lists = solver.lists
    res = analyse(solver, Position.start(lists), top=2)
    best = min(solver.solve(w).total for w in lists.guesses)
    assert res.best.total == best
    assert res.to_dict()["words"] == lists.answers
    a = lists.answers[0]
    done = analyse(solver, Position.parse(f"{a}:GGGGG", lists))
    assert done.best.status == "solved" and done.best.total == 0


def test_empty_position_on_full_lists_needs_a_store():
    lists = WordLists.load()
    with pytest.raises(UsageError, match="cluster job"):
        analyse(Solver(lists), Position.start(lists))


# ---- measures -------------------------------------------------------------------

def test_class_counts_and_measures_by_hand():
    lists = small_lists(2)
    solver = Solver(lists)
    members = np.arange(len(lists.answers), dtype=np.int32)
    gids = np.arange(len(lists.guesses))
    m = measures(scan(solver.table, members, gids, solver.variant.all_green), len(members))
    counts = class_counts(solver.table, members, gids, solver.variant.n_patterns)
    letters = letter_scores(lists, members, gids)
    for g in gids[:10]:
        pats = [score(lists.guesses[g], a) for a in lists.answers]
        sizes = [pats.count(p) for p in set(pats)]
        assert sorted(counts[g][counts[g] > 0]) == sorted(sizes)
        n = len(pats)
        assert m["worst"][g] == max(sizes) and m["patterns"][g] == len(sizes)
        assert m["expected"][g] == pytest.approx(sum(c * c for c in sizes) / n)
        assert m["entropy"][g] == pytest.approx(-sum(c / n * np.log2(c / n) for c in sizes))
        hit = lists.guesses[g] in lists.answers
        assert m["eliminations"][g] == pytest.approx(n - m["expected"][g] + hit / n)
        assert letters[g] == sum(sum(ch in a for a in lists.answers)
                                 for ch in set(lists.guesses[g]))
        assert m["candidate"][g] == (lists.guesses[g] in lists.answers)


# ---- trees ----------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_tree_is_a_valid_optimal_strategy(seed):
    rng = random.Random(seed)
    mode = ("easy", "hard", "strict")[seed % 3]
    cap = (6, 4)[seed % 2]
    solver = small_solver(seed + 20, mode=mode, cap=cap, n_answers=30, n_guesses=60)
    lists = solver.lists
    opener = rng.choice(lists.guesses)
    r = solver.solve(opener)
    if r.status == "infeasible":
        with pytest.raises(UsageError, match="no strategy"):
            tree(solver, opener)
        return
    t = tree(solver, opener)
    assert t.total == r.total
    assert sorted(t.games) == sorted(lists.answers)  # every answer exactly once
    d = t.to_dict()
    assert d["total"] == r.total and d["opener"] == opener
    assert sum(d["histogram"].values()) == len(lists.answers)
    assert sum(int(k) * v for k, v in d["histogram"].items()) == r.total
    for answer, steps in t.games.items():
        assert steps[0][0] == opener and steps[-1] == (answer, GREEN)
        assert len(steps) <= cap
        con = NO_CONSTRAINT
        for i, (g, p) in enumerate(steps):
            assert p == score(g, answer)  # true feedback
            if mode == "hard":
                assert hard_allowed(con, g)
                con = hard_update(con, g, p)
            if mode == "strict" and i > 0:
                assert g in lists.answers
        assert d["games"][answer] == [f"{g}:{to_text(p, 5)}" for g, p in steps]
    root = t.nested()
    assert root["guess"] == opener and root["total"] == r.total
    assert root["answers"] == len(lists.answers)

    def check(node):  # every node: its answers are its children's plus a possible hit
        below = sum(c["answers"] for c in node["children"].values())
        assert node["answers"] - below in (0, 1)
        assert node["total"] == node["answers"] + sum(c["total"] for c in
                                                      node["children"].values())
        for c in node["children"].values():
            check(c)

    check(root)
    lines = t.text().splitlines()
    assert len(lines) == len(lists.answers) + 1
    first = lines[1].split()
    assert first[0] == sorted(lists.answers)[0] and int(first[1]) == len(t.games[first[0]])


def test_tree_from_a_position_and_its_errors():
    solver = small_solver(4, n_answers=30, n_guesses=60)
    lists = solver.lists
    opener = lists.guesses[0]
    answer = lists.answers[5]
    pos = Position.start(lists).play(opener, score(opener, answer))
    best = analyse(solver, pos, top=0).best
    t = tree(solver, best.guess, pos)
    assert t.total == best.total and t.prior == 1
    assert sorted(t.games) == pos.candidates
    with pytest.raises(UsageError, match="not in the guess list"):
        tree(solver, "zzzzz")


def test_analysis_progress_and_cancel():
    solver = small_solver(11, n_answers=14, n_guesses=25)
    lists = solver.lists
    seen = []
    res = analyse(solver, Position.start(lists), top=2, progress=lambda d, n: seen.append((d, n)))
    assert seen and seen[0][0] == 0 and all(d < n for d, n in seen)

    class Stop(Exception):
        pass

    def stop(done, of):
        raise Stop

    with pytest.raises(Stop):
        analyse(solver, Position.start(lists), top=2, progress=stop)
    assert analyse(solver, Position.start(lists), top=2).to_dict() == res.to_dict()
