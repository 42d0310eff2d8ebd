"""Answers outside the lists (solver.game.wider): feedback no answer fits goes on with
every allowed guess as a possible answer, in the API, in `next` and in the terminal
game (a real pseudo-terminal), checked against the feedback rule and brute force."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from solver import cli
from solver.errors import UsageError
from solver.feedback import score, to_text
from solver.game import Position, analyse, wider
from solver.game.position import NoFit
from solver.words import WordLists
from tests.brute import NO_CONSTRAINT, Brute, hard_update
from tests.game_helpers import small_lists, write_lists

ROOT = Path(__file__).resolve().parents[1]
GREEN = 242
# agave is an answer of today's NYT game but not of the original lists; following the
# suggestions of the original lists' book and engine, the fourth feedback rules out
# every original answer
AGAVE = "salet:BYBYB,beard:BYGBB,aking:GBBBY,agape:GGGBG"


def _fits(lists: WordLists, steps) -> list[str]:
    return [w for w in lists.guesses if all(score(g, w) == p for g, p in steps)]


def test_fitting_guesses_follow_the_feedback_rule():
    lists = WordLists.load(quiet=True)
    rng = random.Random(5)
    for _ in range(5):
        answer = rng.choice(lists.guesses)
        steps = [(g, score(g, answer)) for g in rng.sample(lists.guesses, 2)]
        got = wider.fitting_guesses(lists, steps)
        assert got == _fits(lists, steps) and answer in got


def test_parse_widens_where_no_answer_fits_and_plays_on():
    lists = WordLists.load(quiet=True)
    with pytest.raises(NoFit, match="no answer in the list fits salet:BYBYB,beard:BYGBB,"
                       r"aking:GBBBY,agape:GGGBG \(check the feedback of guess 4\)"):
        Position.parse(AGAVE, lists)  # the plain parse is unchanged
    pos, said = wider.parse(AGAVE, lists)
    assert pos.candidates == _fits(lists, pos.history) == ["agave", "agaze"]
    assert wider.is_wide(pos.lists) and pos.lists.guesses == lists.guesses
    assert said == (f"no answer in the list fits {AGAVE}: the answer may be missing from "
                    "it, so every allowed guess is now a possible answer (2 fit)")
    assert "\n" not in said
    # the steps after the widening are played on the wider list
    more, said2 = wider.parse(AGAVE + ",agaze:GGGBG", lists)
    assert more.candidates == ["agave"] and said2 == said
    # lists the answer is in need no widening
    same, none = wider.parse(AGAVE, WordLists.load(lists="nyt", quiet=True))
    assert none is None and same.candidates == ["agave"]


def test_a_guess_outside_the_answers_can_be_the_answer():
    lists = WordLists.load(quiet=True)
    pos, said = wider.parse("salet:GGGGG", lists)
    assert pos.solved and pos.candidates == ["salet"] and "(1 fits)" in said


@pytest.mark.parametrize("text,mode,cap,needle", [
    ("salet:GGGGY", "easy", 6, "nor does any allowed word (check the feedback of guess 1)"),
    (f"{AGAVE},agave:GGGGB", "easy", 6, "nor does any allowed word"),
    ("salet:BYBYB,agape:GGGBG", "easy", 2, "all 2 guesses are used"),  # widened at the cap
])
def test_widening_refuses_what_no_word_explains(text, mode, cap, needle):
    lists = WordLists.load(quiet=True)
    with pytest.raises(UsageError, match=re.escape(needle)):
        wider.parse(text, lists, mode, cap)


def test_hard_mode_keeps_its_constraint_after_widening():
    lists = WordLists.load(quiet=True)
    pos, _ = wider.parse("salet:BYBYB,agape:GGGBG", lists, "hard")
    assert pos.candidates == _fits(lists, pos.history)
    assert pos.check_guess("agave") == lists.guess_index["agave"]
    with pytest.raises(UsageError, match="not allowed in hard mode"):
        pos.check_guess("crony")


@pytest.mark.parametrize("seed", range(6))
def test_widened_positions_are_valued_exactly(seed):
    """The engine on a widened position agrees with brute force on the wider lists."""
    mode = ("easy", "hard", "strict")[seed % 3]
    lists = small_lists(100 + seed, n_answers=20, n_guesses=60)
    rng = random.Random(seed)
    outside = [w for w in lists.guesses if w not in lists.answer_index]
    checked = 0
    for answer in rng.sample(outside, 12):
        pos = Position.start(lists, mode, 6)
        try:
            for _ in range(3):
                legal = [lists.guesses[i] for i in np.flatnonzero(pos.legal())]
                g = rng.choice(legal)
                pos = pos.play(g, score(g, answer))
            continue  # some answer still fits: nothing to widen
        except NoFit as exc:
            pos = wider.widen(exc.position, exc.guess, exc.pattern)
        if pos.solved:
            continue
        res = analyse(wider.solver_for(pos), pos, top=2)
        brute = Brute(pos.lists.answers, pos.lists.guesses, mode)
        con = None
        if mode == "hard":
            con = NO_CONSTRAINT
            for g, p in pos.history:
                con = hard_update(con, g, p)
        want = brute.value(frozenset(range(len(pos.members))), pos.budget, con)
        assert answer in pos.candidates
        assert (res.best.total, res.best.status) == (want, "exact"), (str(pos), mode)
        checked += 1
    assert checked


# ---- next ---------------------------------------------------------------------------

def test_next_says_so_and_answers_on_the_wider_list(capsys):
    assert cli.main(["next", AGAVE, "--lists", "original", "--json", "--top", "1"]) == 0
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert out["candidates"] == 2 and out["words"] == ["agave", "agaze"]
    assert (out["best"]["total"], out["best"]["status"]) == (3, "exact")  # 1 + 2
    assert cap.err.startswith("note: no answer in the list")  # fitted to the terminal
    assert "every allowed guess is now a possible answer (2 fit)" in " ".join(cap.err.split())


# ---- the terminal game ----------------------------------------------------------------

def _play_in_pty(args: list[str], answer: str, cache: str, cwd, timeout: float = 120) -> str:
    """`wordle-dp play ARGS` in a pseudo-terminal, typing the feedback of each
    suggested guess against `answer` as a player of the real game would."""
    import pty
    import select

    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT), WORDLE_DP_CACHE=cache)
    proc = subprocess.Popen([sys.executable, "-m", "solver", "play", *args], stdin=slave,
                            stdout=slave, stderr=slave, env=env, cwd=cwd, close_fds=True)
    os.close(slave)
    buf = b""
    asked = 0
    deadline = time.time() + timeout
    try:
        while time.time() < deadline:
            r, _, _ = select.select([master], [], [], 1.0)
            if r:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                buf += chunk
                prompts = re.findall(rb"play (\w+), type its feedback.*?q quits: ", buf)
                if len(prompts) > asked:
                    guess = prompts[-1].decode().lower()
                    os.write(master, to_text(score(guess, answer), 5).encode() + b"\n")
                    asked = len(prompts)
            if proc.poll() is not None and not r:
                break
    finally:
        proc.kill() if proc.poll() is None else None
        proc.wait()
        os.close(master)
    return buf.decode("utf-8", "replace").replace("\r\n", "\n")


def test_terminal_game_goes_on_when_the_answer_is_not_in_the_list(tmp_path):
    """A real terminal: the player types the game's feedback; the answer is an allowed
    guess missing from the answer list. One line says so, and the game is won."""
    lists = small_lists(7, n_answers=25, n_guesses=50)
    a, g = write_lists(tmp_path, lists)
    answer = next(w for w in lists.guesses if w not in lists.answer_index
                  and _leaves_nothing(lists, w))
    text = _play_in_pty(["--answers", a, "--guesses", g], answer,
                        str(tmp_path / "cache"), tmp_path)
    said = " ".join(text.split())  # long lines are broken between phrases
    notes = said.split("no answer in the list fits")
    assert len(notes) == 2, text
    assert "every allowed guess is now a possible answer" in notes[1]
    assert "! " not in text  # not an error: the game went on
    assert re.search(rf"solved: {answer.upper()} in \d guesses", text), text


def _leaves_nothing(lists: WordLists, answer: str) -> bool:
    """Whether the engine's play against `answer` rules out every listed answer
    within 5 guesses (so the terminal game has to widen)."""
    from solver import Solver
    from solver.game.play import Game

    said: list[str] = []
    game = Game(Solver(lists), said.append)
    pos = game.pos
    for _ in range(5):
        guess, _how = game.suggest()
        try:
            pos = pos.play(guess, score(guess, answer))
        except NoFit:
            return True
        game.pos = pos
    return False
