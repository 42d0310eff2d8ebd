"""The adversary (Absurdle, solver.game.adversary): the fewest guesses that beat it
agree with a plain brute force (tests/brute_adversary.py) on small lists, every
reported winning line replays to a win under the documented tie rule, and bad input
is one line."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from solver.errors import UsageError
from solver.feedback import score, to_text
from solver.game.adversary import Adversary, AdversaryPosition, priorities
from solver.table import get_table
from solver.words import WordLists
from tests.brute_adversary import BruteAdversary
from tests.game_helpers import small_lists


def _replay(brute: BruteAdversary, line: list[str]) -> None:
    """Play `line` against the brute force's own adversary: each reply is the one
    the line shows, and the last guess is the only answer left."""
    s = frozenset(brute.answers)
    for step in line:
        g, pat = step.split(":")
        code, s = brute.kept(g, s)
        assert to_text(code, brute.length) == pat, step
    assert s == {line[-1].split(":")[0]} and pat == "G" * brute.length


def test_priorities_follow_the_rule():
    pr = priorities(5)
    code = {t: sum("BYG".index(c) * 3**i for i, c in enumerate(t)) for t in
            ("BBBBB", "YBBBB", "BYBBB", "GBBBB", "YYBBB", "GGGGG")}
    order = sorted(code, key=lambda t: pr[code[t]])
    assert order == ["BBBBB", "YBBBB", "BYBBB", "YYBBB", "GBBBB", "GGGGG"]


@pytest.mark.parametrize("seed,n_answers,n_guesses,length", [
    (1, 20, 20, 5), (2, 30, 10, 5), (3, 40, 30, 5), (4, 25, 0, 5), (5, 14, 12, 4)])
def test_minimum_matches_brute_force_and_lines_replay(seed, n_answers, n_guesses, length):
    if length == 5:
        lists = small_lists(seed, n_answers=n_answers, n_guesses=max(n_guesses, 1))
        if n_guesses == 0:  # answers only
            lists = WordLists.from_words(lists.answers, lists.answers)
    else:
        full = WordLists.load(length=length)
        rng = random.Random(seed)
        lists = WordLists.from_words(rng.sample(full.answers, n_answers),
                                     rng.sample(full.guesses, n_guesses))
    table, _ = get_table(lists, "numpy", None, use_cache=False)
    adv = Adversary(lists, table)
    brute = BruteAdversary(lists.answers, lists.guesses)
    start = AdversaryPosition.start(adv)
    # the minimum over every opener, and a winning line that replays
    res = adv.analyse(start, limit=12, top=3)
    best = min(brute.opener_value(g) for g in lists.guesses)
    assert res.status == "exact" and res.guesses == best
    _replay(brute, res.line.text())
    for g, v in res.alternatives:  # other openers said to win as fast do
        assert v == best and brute.opener_value(g) == best
    # every opener's own minimum, and its line
    for g in random.Random(seed).sample(lists.guesses, 8):
        r = adv.analyse(start, limit=12, first=g)
        assert r.guesses == brute.opener_value(g), g
        assert r.line.steps[0][0] == g
        _replay(brute, r.line.text())
    # a position two guesses in: the rest of the game
    pos = start.play(lists.guesses[0]).play(lists.guesses[1])
    r = adv.analyse(pos, limit=12)
    s = frozenset(pos.candidates)
    want = 0 if pos.won else brute.value(s)
    assert r.guesses == want
    if want:
        _replay(brute, pos_text_steps(pos) + r.line.text())


def pos_text_steps(pos: AdversaryPosition) -> list[str]:
    return [] if str(pos) == "-" else str(pos).split(",")


def test_lower_bound_when_the_limit_is_too_small():
    lists = small_lists(9, n_answers=40, n_guesses=5)
    adv = Adversary(lists)
    brute = BruteAdversary(lists.answers, lists.guesses)
    best = min(brute.opener_value(g) for g in lists.guesses)
    res = adv.analyse(AdversaryPosition.start(adv), limit=best - 1)
    assert res.status == "lower_bound" and res.guesses == best and res.line is None
    assert "at least" in res.describe()
    assert adv.min_guesses(1) == 1 and adv.min_guesses(2) == 2
    assert adv.min_guesses(adv.kmax + 1) == 3


def test_positions_parse_check_replies_and_refuse_bad_input():
    lists = small_lists(10, n_answers=30, n_guesses=20)
    adv = Adversary(lists)
    brute = BruteAdversary(lists.answers, lists.guesses)
    g1, g2 = lists.guesses[3], lists.guesses[7]
    c1, s1 = brute.kept(g1, frozenset(lists.answers))
    c2, s2 = brute.kept(g2, s1)
    pos = AdversaryPosition.parse(f"{g1},{g2}", adv)
    assert str(pos) == f"{g1}:{to_text(c1, 5)},{g2}:{to_text(c2, 5)}"
    assert sorted(pos.candidates) == sorted(s2)
    assert str(AdversaryPosition.parse(str(pos), adv)) == str(pos)  # round trip
    wrong = (c1 + 1) % 243
    with pytest.raises(UsageError, match="the adversary answers"):
        AdversaryPosition.parse(f"{g1}:{to_text(wrong, 5)}", adv)
    with pytest.raises(UsageError, match="not in the guess list"):
        AdversaryPosition.parse("zzzzz", adv)
    with pytest.raises(UsageError, match="GUESS or GUESS:PATTERN"):
        AdversaryPosition.parse(f"{g1}:", adv)
    # a won game takes no more guesses
    w = next(iter(s2)) if len(s2) == 1 else None
    if w is not None:
        won = pos.play(w)
        assert won.won
        with pytest.raises(UsageError, match="already won"):
            won.play(g1)


def test_the_adversary_concedes_only_the_last_answer():
    """With two answers left and one of them guessed, the adversary keeps the other
    (the tie goes to fewer greens); guessing the last one wins."""
    lists = WordLists.from_words(["cigar", "rebut"], ["cigar", "rebut"])
    adv = Adversary(lists)
    members = np.arange(2, dtype=np.int32)
    p, rest = adv.play(lists.guess_index["cigar"], members)
    assert p == score("cigar", "rebut") and lists.answers[rest[0]] == "rebut"
    res = adv.analyse(AdversaryPosition.start(adv), limit=4)
    assert res.guesses == 2


def test_a_long_chain_needs_the_deep_search():
    """Seven words that differ in one letter, guessed only among themselves: each
    guess removes one answer at best, so the deep (Python) levels and their memo
    carry the search."""
    words = ["batch", "catch", "hatch", "latch", "match", "patch", "watch"]
    lists = WordLists.from_words(words, words)
    adv = Adversary(lists)
    brute = BruteAdversary(words, words)
    res = adv.analyse(AdversaryPosition.start(adv), limit=10, top=6)
    assert res.guesses == min(brute.opener_value(g) for g in words) == 7
    _replay(brute, res.line.text())
    assert len(res.alternatives) == 6  # every opener is as good (or as bad)


# ---- the commands ------------------------------------------------------------------

@pytest.fixture(scope="module")
def small(tmp_path_factory):
    from tests.game_helpers import write_lists

    d = tmp_path_factory.mktemp("lists")
    lists = small_lists(12, n_answers=30, n_guesses=20)
    a, g = write_lists(d, lists)
    return lists, a, g, str(d / "cache")


def _run(capsys, small, *args, stdin=None, monkeypatch=None):
    from tests.game_helpers import run_on_lists

    return run_on_lists(capsys, small, *args, stdin=stdin, monkeypatch=monkeypatch)


def test_solve_next_play_adversary_commands(capsys, small, monkeypatch):
    import json

    lists = small[0]
    brute = BruteAdversary(lists.answers, lists.guesses)
    w = lists.guesses[5]
    rc, out, err = _run(capsys, small, "solve", w, "--adversary", "--json")
    d = json.loads(out)
    assert rc == 0 and d["guesses"] == brute.opener_value(w) and d["status"] == "exact"
    assert d["opener"] == w and d["adversary"] is True
    _replay(brute, d["line"])
    rc, out, err = _run(capsys, small, "solve", w, "--adversary")
    assert rc == 0 and f"beats the adversary in {d['guesses']} guesses" in out
    rc, out, err = _run(capsys, small, "next", "-", "--adversary", "--json", "--top", "2")
    d = json.loads(out)
    assert d["guesses"] == min(brute.opener_value(g) for g in lists.guesses)
    _replay(brute, d["line"])
    rc, out, err = _run(capsys, small, "next", w, "--adversary")
    assert rc == 0 and "winning line:" in out and "on a tie, the fewest greens" in out
    # play: Enter takes each suggestion until the adversary gives in
    rc, out, err = _run(capsys, small, "play", "--adversary", stdin="\n" * 12,
                        monkeypatch=monkeypatch)
    assert rc == 0 and "won:" in out
    # the prompt has the form of the other games': 'guess 1 (Enter = W; q quits): '
    assert re.search(r"guess 1 \(Enter = [a-z]+; q quits\): ", out), out
    won = [x for x in out.splitlines() if x.startswith("won:")][0]
    assert f"in {d['guesses']} guess" in won  # the suggestions are a fastest win
    # a bad word is explained and asked again; q quits
    rc, out, err = _run(capsys, small, "play", "--adversary", stdin="zzzzz\nq\n",
                        monkeypatch=monkeypatch)
    assert rc == 0 and "! " in out and "not in the guess list" in out and "quit" in out


@pytest.mark.parametrize("args,needle", [
    (["solve", "zzzzz", "--adversary"], "not in the guess list"),
    (["solve", "SALET", "--adversary", "--mode", "hard"], "easy mode only"),
    (["solve", "SALET", "--adversary", "--objective", "worst"], "does not apply"),
    (["solve", "SALET", "--adversary", "--beam", "3"], "--beam does not apply"),
    (["next", "-", "--adversary", "--mode", "strict"], "easy mode only"),
    (["next", "x:", "--adversary"], "GUESS or GUESS:PATTERN"),
    (["play", "--adversary", "--answer", "cigar"], "no hidden answer"),
])
def test_adversary_bad_input_is_one_line(capsys, small, args, needle):
    lists = small[0]
    args = [lists.guesses[0] if a == "SALET" else a for a in args]
    rc, out, err = _run(capsys, small, *args)
    assert rc == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("wordle-dp: error:") and needle in err, err


def test_the_terminal_groups_the_adversarys_counts(capsys):
    """Issue 50: Absurdle said '3158 answers' where everything else says '3,158'."""
    from solver import cli

    n = len(WordLists.load(lists="nyt", quiet=True).answers)
    rc = cli.main(["next", "-", "--adversary", "--max-guesses", "1"])  # a bound: at once
    out = capsys.readouterr().out
    assert rc == 0 and f"against the adversary: {n:,} candidates\n" in out, out
    assert re.search(r"\[\d+\.\d\d s\]", out) and "node" not in out, out  # a player's line


def test_shipped_lines_win_and_the_start_of_today_s_lists_is_exact():
    """solver/data/adversary-lines.json (issue 50 item 7): every line wins on its
    lists under the tie rule, replayed by the engine; on today's lists no win within
    3 guesses exists (the engine proves it, as the search does before it uses a
    line), so the shipped length is the exact value, and next - --adversary answers
    from the lines at once, its alternatives included."""
    import json
    from importlib import resources

    data = json.loads(resources.files("solver").joinpath("data", "adversary-lines.json")
                      .read_text())
    by_lists: dict[str, list[list[str]]] = {}
    for entry in data["lines"]:
        by_lists.setdefault(entry["lists"], []).append(entry["guesses"])
    assert set(by_lists) == {"nyt"}
    lists = WordLists.load(lists="nyt", quiet=True)
    adv = Adversary(lists)
    start = AdversaryPosition.start(adv)
    for words in by_lists["nyt"]:
        steps = adv.line_steps(start.members, [lists.guess_index[w] for w in words])
        assert [g for g, _p in steps] == words and len(steps) == 4  # ends all green
    fresh = Adversary(lists, adv.table)
    fresh._known = {}  # the engine alone: no line known
    assert fresh.win(start.members, 3) is None  # no win within 3: 4 is exact
    res = adv.analyse(start, limit=8, top=5)
    assert res.status == "exact" and res.guesses == 4
    assert res.line is not None and res.line.text()[-1].endswith(":GGGGG")
    assert len(res.alternatives) == 5
    for g, v in res.alternatives:  # each alternative wins in 4 too
        assert v == 4
        assert any(words[0] == g for words in by_lists["nyt"])
    # after the line's first guess the tail is used, and 2 more guesses ruled out
    after = start.play(by_lists["nyt"][0][0])
    res2 = adv.analyse(after, limit=8)
    assert res2.status == "exact" and res2.guesses == 3


def test_lines_that_do_not_win_on_the_lists_in_use_are_ignored(monkeypatch):
    """A line is used only where it replays to a win: on lists that lack its words,
    or where the adversary answers otherwise, the search finds its own."""
    lists = small_lists(3, n_answers=40, n_guesses=30)
    table, _ = get_table(lists, "numpy", None, use_cache=False)
    adv = Adversary(lists, table)
    start = AdversaryPosition.start(adv)
    assert adv.known_lines(start.members) == []
    bogus = [lists.guesses[0], lists.guesses[1]]  # does not end all green
    adv2 = Adversary(lists, table)
    monkeypatch.setattr("solver.game.adversary.shipped_lines", lambda: [bogus])
    assert adv2.known_lines(start.members) == []
    assert adv2.analyse(start, limit=12).guesses == adv.analyse(start, limit=12).guesses
