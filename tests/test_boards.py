"""Several boards (issue 18): the exact search against the independent brute force
(tests/brute_boards.py), tuple counting, positions, heuristics, simulation and the
commands' output and errors."""

from __future__ import annotations

import json
import random
import re
from itertools import permutations, product

import numpy as np
import pytest

from solver import Solver
from solver.errors import UsageError
from solver.feedback import score, to_text
from solver.game.boards import (
    BoardsPosition,
    boards_variant,
    count_tuples,
    lower_bound,
    make_boards_strategy,
    sample_tuples,
    simulate_boards,
)
from solver.game.boards_exact import BoardsExact, check_size
from solver.table import get_table
from solver.words import WordLists
from tests.brute_boards import BruteBoards
from tests.game_helpers import small_lists


def _lists(seed: int, n_answers: int, n_guesses: int, length: int = 5) -> WordLists:
    if length == 5:
        return small_lists(seed, n_answers=n_answers, n_guesses=n_guesses)
    full = WordLists.load(length=length)
    rng = random.Random(seed)
    return WordLists.from_words(rng.sample(full.answers, n_answers),
                                rng.sample(full.guesses, n_guesses))


def _exact(lists: WordLists, k: int, cap: int) -> BoardsExact:
    table, _ = get_table(lists, "numpy", None, use_cache=False)
    return BoardsExact(Solver(lists, mode="easy", max_guesses=cap, table=table), k, cap)


# every mode the boards search has: 2 and 3 boards, caps that bind, the default cap
# (k + 5), no cap (0), an infeasible cap, and another word length
@pytest.mark.parametrize("seed,k,n_answers,n_guesses,cap,length", [
    (1, 2, 8, 10, 7, 5), (2, 2, 9, 12, 4, 5), (3, 2, 7, 8, 3, 5), (4, 3, 6, 8, 8, 5),
    (5, 3, 5, 6, 4, 5), (6, 2, 8, 10, 0, 5), (7, 2, 8, 8, 5, 4), (8, 2, 7, 8, 2, 5)])
def test_exact_matches_brute_force(seed, k, n_answers, n_guesses, cap, length):
    lists = _lists(seed, n_answers, n_guesses, length)
    ex = _exact(lists, k, cap)
    brute = BruteBoards(lists.answers, lists.guesses, k)
    b_cap = cap or 2 * n_answers  # no cap: deeper than any useful strategy
    for g in random.Random(seed).sample(lists.guesses, 4):
        r = ex.solve(g)
        want = brute.opener(g, b_cap)
        assert r["tuples"] == len(brute.all_tuples())
        if want is None:
            assert r["status"] == "infeasible" and r["total"] is None
        else:
            assert r["status"] == "exact" and (r["total"], r["depth"]) == want, g
            assert r["average"] == round(want[0] / r["tuples"], 6)
    # a position one guess in (the rest of the game), exact against the brute force
    v = boards_variant(lists, k, cap)
    answers = tuple(random.Random(seed).sample(lists.answers, k))
    pos = BoardsPosition.start(lists, v)
    g = lists.guesses[0]
    pos = pos.play(g, pos.feedback(g, answers), check_cap=False)
    if not pos.done:
        sets = tuple(pos.members[i] for i in pos.open)
        left = (cap or 30) - 1
        got = ex.value(sets, left)
        tuples = frozenset(t for t in brute.all_tuples()
                           if all(score(g, t[i]) == score(g, answers[i]) for i in range(k)))
        solved = frozenset(i for i in range(k) if pos.solved[i] is not None)
        want = brute.lex(tuples, solved, (cap or 2 * n_answers) - 1)
        assert (None if got is None else got[:2]) == want
        if got is not None:
            assert got[0] >= lower_bound(pos) * pos.tuples - 1e-9


@pytest.mark.parametrize("seed,k", [(12, 2), (13, 2), (14, 3)])
def test_a_board_with_one_candidate_is_guessed_at_once(seed, k):
    # endgames where a board has one candidate left: the search guesses it without
    # trying other guesses (an exchange argument, boards_exact's docstring), and the
    # value is still the brute force's
    lists = _lists(seed, 7, 9)
    cap = k + 3
    ex = _exact(lists, k, cap)
    brute = BruteBoards(lists.answers, lists.guesses, k)
    v = boards_variant(lists, k, cap)
    seen = 0
    searched = ex._candidates

    def candidates(sets, n):  # the guesses tried: never at a state with such a board
        assert min(len(s) for s in sets) > 1
        return searched(sets, n)

    ex._candidates = candidates
    for g in lists.guesses:
        for answers in permutations(lists.answers, k):
            pos = BoardsPosition.start(lists, v)
            pos = pos.play(g, pos.feedback(g, answers), check_cap=False)
            sets = tuple(pos.members[i] for i in pos.open)
            if pos.done or len(sets) < 2 or min(len(s) for s in sets) != 1:
                continue
            seen += 1
            ex.memo.clear()
            got = ex.value(sets, cap - 1)
            tuples = frozenset(t for t in brute.all_tuples() if all(
                score(g, t[i]) == score(g, answers[i]) for i in range(k)))
            solved = frozenset(i for i in range(k) if pos.solved[i] is not None)
            assert (None if got is None else got[:2]) == brute.lex(tuples, solved, cap - 1)
            single = next(s for s in sets if len(s) == 1)
            if got is not None:
                assert lists.guesses[got[2]] == lists.answers[single[0]]
    assert seen >= 3  # the instances do have such endgames


def test_the_quordle_endgame_of_issue_33_is_not_searched():
    # one board with one candidate, another with seven: 93613 nodes and 17.5 s of CPU
    # before the forced guess, one node now
    lists = WordLists.load()
    table, _ = get_table(lists, "numpy", None)
    v = boards_variant(lists, 4)
    pos = BoardsPosition.parse("soare:YBBBG/BBBYY/BBYYB/YBYBY,linty:BYBBB/BYBBB/BBYBB/"
                               "BBBYB,urban:YBBBB/BGBBB/GGGGG/BBBYB,asset:BGGYB/BBBGB/-/GGGGG",
                               lists, v)
    ex = BoardsExact(Solver(lists, mode="easy", max_guesses=9, table=table), 4, 9)
    total, _height, g = ex.value(tuple(pos.members[i] for i in pos.open), 9 - 4)
    assert lists.guesses[g] == "issue" and ex.nodes == 1
    # the value: 7 tuples guess ISSUE, then board 2's candidates split by it are one
    # board's game (the one-board engine, cross-checked elsewhere)
    board2 = pos.members[pos.open[1]]
    row = table[lists.guess_index["issue"], board2]
    rest = sum(ex.solver.set_value(board2[row == c], 4)[0] for c in np.unique(row))
    assert total == len(board2) + rest


def test_the_optimal_strategy_plays_the_exact_value():
    lists = _lists(11, 8, 10)
    k, cap = 2, 7
    ex = _exact(lists, k, cap)
    table, _ = get_table(lists, "numpy", None, use_cache=False)
    start = BoardsPosition.start(lists, boards_variant(lists, k, cap))
    opener = lists.guesses[3]
    tuples, sampled, n = sample_tuples(lists, k, 10_000, 0)
    assert not sampled and len(tuples) == n == len(set(tuples)) == 8 * 7
    sim = simulate_boards(start, make_boards_strategy("optimal", table, lists, ex), tuples,
                          sampled, n, 0, opener)
    r = ex.solve(opener)
    assert int(sim.counts.sum()) == r["total"] and int(sim.counts.max()) == r["depth"]
    for name in ("entropy", "expected", "minimax", "entropy-pure", "minimax-pure"):
        h = simulate_boards(start, make_boards_strategy(name, table, lists), tuples,
                            sampled, n, 0, opener)
        assert h.counts.sum() >= r["total"]  # no heuristic beats the optimum
        for answers, guesses in h.games:  # every game ends with every board solved
            assert set(answers) <= set(guesses)
            assert guesses[0] == opener


@pytest.mark.parametrize("seed", range(6))
def test_count_tuples_is_exact(seed):
    rng = random.Random(seed)
    k = rng.randint(1, 5)
    sets = [frozenset(rng.sample(range(9), rng.randint(0, 5))) for _ in range(k)]
    want = sum(1 for t in product(*sets) if len(set(t)) == k)
    assert count_tuples(sets) == want


def test_positions_round_trip_and_keep_the_answers():
    lists = WordLists.load()
    v = boards_variant(lists, 4)
    assert v.max_guesses == 9 and boards_variant(lists, 2).max_guesses == 7
    rng = random.Random(3)
    for _ in range(5):
        answers = tuple(rng.sample(list(lists.answers), 4))
        pos = BoardsPosition.start(lists, v)
        for g in ["salet", "crony", answers[2], "dumpy"]:
            if pos.done:
                break
            pos = pos.play(g, pos.feedback(g, answers), check_cap=False)
            again = BoardsPosition.parse(str(pos), lists, v)
            assert str(again) == str(pos) and again.solved == pos.solved
            for i in range(4):
                assert np.array_equal(again.members[i], pos.members[i])
                assert lists.answer_index[answers[i]] in pos.members[i]
        assert pos.solved[2] is not None  # guessing board 3's answer solved it


def test_positions_refuse_bad_feedback():
    lists = WordLists.load()
    v = boards_variant(lists, 2)
    with pytest.raises(UsageError, match="1 feedback"):
        BoardsPosition.parse("salet:BBBBB", lists, v)
    with pytest.raises(UsageError, match="cannot both be solved"):
        BoardsPosition.parse("cigar:GGGGG/GGGGG", lists, v)
    with pytest.raises(UsageError, match="give '-'"):
        BoardsPosition.parse("cigar:GGGGG/BBBBB,salet:BBBBB/BBBBB", lists, v)
    with pytest.raises(UsageError, match="no answer fits"):
        BoardsPosition.parse("salet:GGGGY/BBBBB", lists, v)
    with pytest.raises(UsageError):
        boards_variant(lists, 33)
    with pytest.raises(UsageError, match="out of reach"):
        check_size(2315, 2)


# ---- the commands -------------------------------------------------------------------

@pytest.fixture(scope="module")
def small(tmp_path_factory):
    from tests.game_helpers import write_lists

    d = tmp_path_factory.mktemp("lists")
    lists = small_lists(21, n_answers=9, n_guesses=12)
    a, g = write_lists(d, lists)
    return lists, a, g, str(d / "cache")


def _run(capsys, small, *args, stdin=None, monkeypatch=None):
    from tests.game_helpers import run_on_lists

    return run_on_lists(capsys, small, *args, stdin=stdin, monkeypatch=monkeypatch)


def test_solve_boards_json_matches_brute_force(capsys, small):
    lists = small[0]
    brute = BruteBoards(lists.answers, lists.guesses, 2)
    w = lists.guesses[1]
    rc, out, _ = _run(capsys, small, "solve", w, "--boards", "2", "--json")
    d = json.loads(out)
    assert rc == 0 and d["status"] == "exact" and d["max_guesses"] == 7
    assert d["tuples"] == 9 * 8 and (d["total"], d["depth"]) == brute.opener(w, 7)
    assert d["average"] == round(d["total"] / d["tuples"], 6)
    rc, out, _ = _run(capsys, small, "solve", w, "--boards", "2", "--max-guesses", "2")
    assert rc == 0 and "infeasible" in out  # two boards in two guesses: never for all


def test_next_play_simulate_compare_boards(capsys, small, monkeypatch, tmp_path):
    lists = small[0]
    brute = BruteBoards(lists.answers, lists.guesses, 2)
    a, b = lists.answers[0], lists.answers[4]
    g = lists.guesses[2]
    pos = f"{g}:{to_text(score(g, a), 5)}/{to_text(score(g, b), 5)}"
    rc, out, _ = _run(capsys, small, "next", pos, "--json")  # K read from the position
    d = json.loads(out)
    assert rc == 0 and d["boards"] == 2 and d["status"] == "exact"
    tuples = frozenset(t for t in brute.all_tuples()
                       if score(g, t[0]) == score(g, a) and score(g, t[1]) == score(g, b))
    solved = frozenset(i for i, w in enumerate((a, b)) if w == g)
    assert d["tuples"] == len(tuples)
    assert (d["best"]["total"], d["best"]["worst"]) == brute.lex(tuples, solved, 6)
    assert d["tuples_exact"] is True
    rc, out, _ = _run(capsys, small, "next", "-", "--boards", "9", "--json")
    d9 = json.loads(out)  # 9 boards: counted as the product of the sizes, said so
    assert rc == 0 and d9["tuples_exact"] is False and d9["tuples"] >= 362880
    assert d9["best"]["status"] == "heuristic"
    rc, out, _ = _run(capsys, small, "next", pos, "--strategy", "minimax")
    assert rc == 0 and re.search(r"suggested: [a-z]+ \(board \d has one candidate left: its "
                                 r"answer now\)", out), out
    # play with the answers given: it plays to the end without prompts
    rc, out, _ = _run(capsys, small, "play", "--boards", "2", "--answer", f"{a},{b}",
                      stdin="", monkeypatch=monkeypatch)
    assert rc == 0 and "every board solved in" in out
    # assist mode: the feedbacks typed; Enter-less lines give the suggested guess's
    rc, out, _ = _run(capsys, small, "play", "--boards", "2", "--opener", a,
                      stdin=f"{'G' * 5}/{to_text(score(a, b), 5)}\n{b} -/GGGGG\n",
                      monkeypatch=monkeypatch)
    assert rc == 0 and "every board solved in 2 guesses" in out
    csvf = tmp_path / "games.csv"
    rc, out, _ = _run(capsys, small, "simulate", "--boards", "2", "--strategy",
                      "optimal,entropy", "--opener", g, "--json", "--csv", str(csvf))
    rows = [json.loads(x) for x in out.splitlines()]
    assert rc == 0 and [r["strategy"] for r in rows] == ["optimal", "entropy"]
    assert rows[0]["sample"] == "all" and rows[0]["games"] == 72
    assert rows[0]["mean"] == rows[0]["optimum"] == round(brute.opener(g, 7)[0] / 72, 6)
    assert rows[1]["mean"] >= rows[0]["mean"] and rows[1]["failure_rate"] >= 0
    assert len(csvf.read_text().splitlines()) == 1 + 2 * 72
    rc, out, _ = _run(capsys, small, "simulate", "--boards", "2", "--games", "10",
                      "--seed", "3", "--json")
    r = json.loads(out)
    assert r["games"] == 10 and r["sample"] == "random" and r["seed"] == 3
    rc, out, _ = _run(capsys, small, "compare", "--boards", "2", "--games", "20")
    assert rc == 0 and "entropy-pure" in out and "minimax" in out


@pytest.mark.parametrize("args,needle", [
    (["solve", "SALET", "--boards", "33"], "from 1 to 32"),
    (["solve", "SALET", "--boards", "2", "--mode", "hard"], "easy mode only"),
    (["solve", "SALET", "--boards", "2", "--objective", "worst"], "not offered"),
    (["solve", "SALET", "--boards", "2", "--adversary"], "plays one board"),
    (["solve", "SALET", "--boards", "10"], "need 10 distinct answers"),
    (["solve", "zzzzz", "--boards", "2"], "not in the guess list"),
    (["next", "SALET:BBBBB/BBBBB/BBBBB", "--boards", "2"], "3 feedback(s) for 2 boards"),
    (["next", "SALET:BBBBB/BBXBQ"], "board 2"),
    (["play", "--boards", "2", "--answer", "A0"], "1 word(s) for 2 boards"),
    (["play", "--boards", "2", "--answer", "A0,A0"], "must all differ"),
    (["simulate", "--games", "5"], "--games applies to --boards"),
    (["next", "-", "--strategy", "entropy"], "--strategy applies to --boards"),
])
def test_boards_bad_input_is_one_line(capsys, small, args, needle):
    lists = small[0]
    args = [a.replace("SALET", lists.guesses[0]).replace("A0", lists.answers[0])
            for a in args]
    rc, out, err = _run(capsys, small, *args)
    assert rc == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("wordle-dp: error:") and needle in err, err


def test_the_exact_search_refuses_big_lists_before_searching(capsys):
    from solver import cli

    rc = cli.main(["solve", "salet", "--boards", "4"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("wordle-dp: error:") and "out of reach" in err
    assert len(err.splitlines()) == 1


def test_brute_force_counts_every_ordered_tuple():
    b = BruteBoards(["abcde", "fghij", "klmno"], [], 2)
    assert b.all_tuples() == frozenset(permutations(["abcde", "fghij", "klmno"], 2))


def test_counts_agree_with_their_nouns_and_group_their_digits(capsys, small):
    """Issue 50: 'total 1 over 1 tuples', '[1 nodes' and '3158 candidates'. A Dordle
    position that leaves one tuple (board 1 solved, board 2 one candidate) is one
    guess over one tuple; today's lists count their 3,158 candidates grouped."""
    from solver import cli
    from solver.plural import counted

    assert [counted(1, "guess", "guesses"), counted(2, "guess", "guesses"),
            counted(3158, "answer"), counted(1, "node")] == \
        ["1 guess", "2 guesses", "3,158 answers", "1 node"]
    lists = small[0]
    start = BoardsPosition.start(lists, boards_variant(lists, 2))
    pos = next(p for a in lists.answers for b in lists.answers if a != b
               and (p := start.play(a, (242, score(a, b)))).tuples == 1)
    rc, out, _ = _run(capsys, small, "next", str(pos))
    assert rc == 0 and "1 answer combination\n" in out, out
    assert "total 1 guess over 1 answer combination (" in " ".join(out.split()), out
    rc = cli.main(["next", "-", "--boards", "2", "--top", "0"])
    out = capsys.readouterr().out
    n = len(WordLists.load(lists="nyt", quiet=True).answers)
    assert rc == 0 and f"board 1: {n:,} candidates" in out and f" {n} " not in out, out
    assert f"{n * (n - 1):,} answer combinations" in out, out
