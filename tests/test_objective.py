"""The worst-case objective and the worst-case tie-break of the expected objective
(solver.search.worst), checked against the brute force: the capped values of
tests/brute.py, and a separate recursion on (total, height) pairs."""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest

from solver import Solver
from solver.feedback import score
from solver.game import Position, analyse, tree
from solver.search.worst import (
    WorstSolver,
    capped_second_guesses,
    guess_height,
    guess_worst,
    set_worst,
)
from tests.brute import Brute, no_constraint
from tests.game_helpers import small_lists


class LexBrute(Brute):
    """Brute force on the pair (total, height), ordered lexicographically: the best
    total, then among strategies of that total the smallest worst case. A child's
    pair is its own lexicographic optimum (the total decomposes over the classes, and
    with every class at its optimum the height is 1 + the largest class height), so
    plain recursion is exact. Capped at b guesses (None: no cap)."""

    def lex(self, s: frozenset, b, con=None):
        if not s:
            return (0, 0)
        if b is not None and b <= 0:
            return None
        key = ("lex", s, b, con)
        if key in self.memo:
            return self.memo[key]
        best = None
        for g in self.candidates(s, con):
            c = self.lex_guess(g, s, b, con)
            if c is not None and (best is None or c < best):
                best = c
        self.memo[key] = best
        return best

    def lex_guess(self, g: int, s: frozenset, b, con):
        if b is not None and b <= 0:
            return None
        parts = self.split(g, s)
        if len(parts) == 1 and self.green not in parts:
            return None
        total, height = len(s), 1
        for p, cls in parts.items():
            if p == self.green:
                continue
            ncon = self.update(con, self.guesses[g], p) if self.mode == "hard" else None
            v = self.lex(cls, None if b is None else b - 1, ncon)
            if v is None:
                return None
            total += v[0]
            height = max(height, 1 + v[1])
        return total, height


def _lex_opener(brute: LexBrute, opener: str, cap: int):
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    g = brute.guesses.index(opener)
    s = frozenset(range(len(brute.answers)))
    con = no_constraint(len(opener)) if brute.mode == "hard" else None
    return brute.lex_guess(g, s, cap or None, con)


def _min_cap(brute: Brute, opener: str, cap: int):
    for c in range(1, (cap or 20) + 1):
        v = brute.solve(opener, c)
        if v is not None:
            return c, v
    return None, None


@pytest.mark.parametrize("seed,mode,cap", [(1, "easy", 6), (2, "hard", 6), (3, "easy", 0),
                                           (4, "strict", 6), (5, "hard", 4), (6, "easy", 3)])
def test_worst_objective_and_tie_break_match_brute_force(seed, mode, cap):
    lists = small_lists(seed, n_answers=16, n_guesses=24)
    solver = Solver(lists, mode, cap)
    brute = LexBrute(lists.answers, lists.guesses, mode)
    members = np.arange(len(lists.answers), dtype=np.int32)
    budget = cap or 30
    openers = random.Random(seed).sample(lists.guesses, 8) + lists.answers[:2]
    for w in openers:
        gid = lists.guess_index[w]
        # worst: the smallest feasible cap, then the capped optimum there
        c, v = _min_cap(brute, w, cap)
        got = guess_worst(solver, gid, members, budget)
        assert got[:2] == (c, v), (w, got, c, v)
        # expected with the tie-break: the brute's lexicographic (total, height)
        lex = _lex_opener(brute, w, cap)
        total, _status = solver.guess_value(gid, members, budget)
        if lex is None:
            assert total is None and got[0] is None
            continue
        assert total == lex[0]
        assert guess_height(solver, gid, members, budget, None, total) == lex[1], w


@pytest.mark.parametrize("seed,mode", [(11, "easy"), (12, "hard")])
def test_tree_has_the_smallest_worst_case_among_optimal_trees(seed, mode):
    """`tree` (default objective) prints a tree of optimal total and, among those, of
    the smallest height; `tree` under the worst objective one of the smallest height
    at all and the smallest total within it; both agree with the brute force."""
    lists = small_lists(seed, n_answers=18, n_guesses=30)
    brute = LexBrute(lists.answers, lists.guesses, mode)
    for w in lists.guesses[:12]:
        lex = _lex_opener(brute, w, 6)
        solver = Solver(lists, mode, 6)
        if lex is None:
            continue
        t = tree(solver, w)
        assert t.total == lex[0] and max(t.histogram) == lex[1], w
        pos = Position.start(lists, mode, 6, objective="worst")
        tw = tree(solver, w, pos)
        c, v = _min_cap(brute, w, 6)
        assert (max(tw.histogram), tw.total) == (c, v), w
        assert tw.total >= t.total and max(tw.histogram) <= max(t.histogram)
        for a, steps in tw.games.items():  # every game really ends on its answer
            assert steps[-1][0] == a and len(steps) <= c


def test_worst_solver_and_second_guesses_match_the_capped_strategy():
    lists = small_lists(21, n_answers=20, n_guesses=30)
    solver = Solver(lists, "easy", 6)
    ws = WorstSolver(solver)
    brute = Brute(lists.answers, lists.guesses, "easy")
    for w in lists.guesses[:6]:
        r = ws.solve(w)
        c, v = _min_cap(brute, w, 6)
        assert (r.depth, r.total) == (c, v)
        assert r.to_dict()["objective"] == "worst"
        if c is None:
            assert r.status == "infeasible"
            continue
        assert "every answer within" in r.describe()
        second = ws.second_guesses(w)
        assert second == capped_second_guesses(solver, w, c)
        # each second guess keeps its class within c - 1 more guesses at the class's
        # capped optimum
        row = solver.table[lists.guess_index[w]]
        for p, g in second.items():
            m = np.flatnonzero(row == p).astype(np.int32)
            best, _g, _s = solver.set_value(m, c - 1)
            val, _st = solver.guess_value(lists.guess_index[g], m, c - 1)
            assert val == best
    with pytest.raises(ValueError, match="cutoff"):
        ws.solve(lists.guesses[0], cutoff=100)


def test_analysis_under_both_objectives_matches_brute_force():
    lists = small_lists(31, n_answers=22, n_guesses=30)
    brute = LexBrute(lists.answers, lists.guesses, "easy")
    solver = Solver(lists, "easy", 6)
    rng = random.Random(31)
    for _ in range(6):
        answer = rng.choice(lists.answers)
        first = rng.choice(lists.guesses)
        p = score(first, answer)
        if p == 242:
            continue
        for objective in ("expected", "worst"):
            pos = Position.start(lists, "easy", 6, objective=objective).play(first, p)
            res = analyse(solver, pos, top=3)
            s = frozenset(int(i) for i in pos.members)
            if objective == "expected":
                lex = brute.lex(s, 5)
                assert (res.best.total, res.best.worst) == lex
            else:
                c = next(c for c in range(1, 6) if brute.value(s, c) is not None)
                assert (res.best.worst, res.best.total) == (c, brute.value(s, c))
                for alt in res.alternatives:  # alternatives keep the same worst case
                    g = brute.guesses.index(alt.guess)
                    assert brute.cost(g, s, c, None) == alt.total
            d = res.to_dict()
            assert d["objective"] == objective and d["best"]["worst"] == res.best.worst
    assert set_worst(solver, np.arange(1, dtype=np.int32), 6)[:2] == (1, 1)


# ---- the commands ------------------------------------------------------------------

@pytest.fixture(scope="module")
def small(tmp_path_factory):
    from tests.game_helpers import write_lists

    d = tmp_path_factory.mktemp("lists")
    lists = small_lists(41, n_answers=24, n_guesses=40)
    a, g = write_lists(d, lists)
    return lists, a, g, str(d / "cache")


def _run(capsys, small, *args):
    from solver import cli

    lists, a, g, cache = small
    rc = cli.main([*args, "--answers", a, "--guesses", g, "--cache-dir", cache])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_solve_next_tree_with_objective_worst(capsys, small):
    import json

    lists = small[0]
    brute = LexBrute(lists.answers, lists.guesses, "easy")
    w = lists.answers[0]
    c, v = _min_cap(brute, w, 6)
    rc, out, err = _run(capsys, small, "solve", w, "--objective", "worst", "--json", "--quiet")
    d = json.loads(out)
    assert rc == 0 and (d["depth"], d["total"], d["objective"]) == (c, v, "worst")
    rc, out, err = _run(capsys, small, "solve", w, "--objective", "worst")
    assert rc == 0 and f"every answer within {c} guesses, total {v}" in out
    # next at the start (small lists: searched) agrees with the brute force's best pair
    rc, out, err = _run(capsys, small, "next", "-", "--objective", "worst", "--json")
    d = json.loads(out)
    best = min(p for p in (_min_cap(brute, g, 6) for g in lists.guesses) if p[0] is not None)
    assert rc == 0 and (d["best"]["worst"], d["best"]["total"]) == best
    assert d["objective"] == "worst"
    # tree: every game within c guesses, total v
    rc, out, err = _run(capsys, small, "tree", w, "--objective", "worst", "--format", "json",
                        "--quiet")
    t = json.loads(out)
    assert rc == 0 and t["total"] == v and max(int(k) for k in t["histogram"]) == c
    assert t["objective"] == "worst"
    # the default objective's tree: optimal total, then the smallest worst case
    lex = _lex_opener(brute, w, 6)
    rc, out, err = _run(capsys, small, "tree", w, "--format", "json", "--quiet")
    t = json.loads(out)
    assert (t["total"], max(int(k) for k in t["histogram"])) == lex
    # bad input: one line
    rc, out, err = _run(capsys, small, "solve", w, "--objective", "worst", "--beam", "3")
    assert rc == 2 and "exclude each other" in err and len(err.splitlines()) == 1
    rc, out, err = _run(capsys, small, "next", "-", "--objective", "best")
    assert rc == 2 and "--objective" in err and len(err.splitlines()) == 1


def _bare(capsys, *args):
    from solver import cli

    rc = cli.main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_run_query_export_record_the_objective(capsys, small, tmp_path):
    import csv
    import io
    import json

    from solver.store import Store

    lists = small[0]
    brute = Brute(lists.answers, lists.guesses, "easy")
    store = str(tmp_path / "w.zarr")
    openers = ",".join(lists.guesses[:8])
    rc, out, err = _run(capsys, small, "run", "--store", store, "--openers", openers,
                        "--objective", "worst", "--quiet")
    assert rc == 0, err
    st = Store.open(store)
    assert st.problem.objective == "worst" and st.group.attrs["objective"] == "worst"
    rc, out, err = _bare(capsys, "query", "--store", store, "--json", "--top", "8")
    rows = [json.loads(x) for x in out.splitlines()]
    assert rows and all(r["objective"] == "worst" for r in rows)
    want = sorted((c, v, lists.guesses.index(w)) for w in lists.guesses[:8]
                  for c, v in [_min_cap(brute, w, 6)] if c is not None)
    assert [(r["depth"], r["total"], r["index"]) for r in rows] == want
    rc, out, err = _bare(capsys, "query", "--store", store)
    assert "objective worst" in out and f"within {want[0][0]} guesses" in out
    csv_path = tmp_path / "e.csv"
    rc, out, err = _bare(capsys, "export", "--store", store, "--csv", str(csv_path))
    got = list(csv.DictReader(io.StringIO(csv_path.read_text())))
    assert rc == 0 and {r["objective"] for r in got} == {"worst"}
    # stored second guesses are those of the capped strategy at each opener's c*
    solver = Solver(lists, "easy", 6)
    for c, _v, i in want[:3]:
        w = lists.guesses[i]
        assert st.second_guesses(i) == capped_second_guesses(solver, w, c)
    # the same store under the other objective is another problem; a cutoff is refused
    rc, out, err = _run(capsys, small, "run", "--store", store, "--openers", openers,
                        "--quiet")
    assert rc == 2 and "objective (store: worst, requested: expected)" in err
    rc, out, err = _run(capsys, small, "run", "--store", str(tmp_path / "c.zarr"),
                        "--objective", "worst", "--cutoff", "99", "--quiet")
    assert rc == 2 and "takes no cutoff" in err and len(err.splitlines()) == 1
    # class values are of the expected objective: a worst-case run never splits
    rc, out, err = _run(capsys, small, "run", "--store", str(tmp_path / "s.zarr"),
                        "--objective", "worst", "--split", "all", "--quiet")
    assert rc == 2 and "values openers whole" in err and len(err.splitlines()) == 1
    rc, out, err = _run(capsys, small, "next", "-", "--store", store, "--json")
    assert rc == 2 and "objective" in err
    rc, out, err = _run(capsys, small, "next", "-", "--store", store, "--objective", "worst",
                        "--json", "--top", "2")
    d = json.loads(out)
    assert rc == 0 and (d["best"]["worst"], d["best"]["total"]) == want[0][:2]
