"""Small problems for the game tests (random samples of the real lists)."""

from __future__ import annotations

import random

from solver import Solver
from solver.words import WordLists, read_words

ANSWERS = read_words("data/answers.txt")
GUESSES = read_words("data/guesses.txt")


def small_lists(seed: int, n_answers: int = 18, n_guesses: int = 40) -> WordLists:
    rng = random.Random(seed)
    return WordLists.from_words(rng.sample(ANSWERS, n_answers), rng.sample(GUESSES, n_guesses))


def small_solver(seed: int, mode: str = "easy", cap: int = 6, **kw) -> Solver:
    return Solver(small_lists(seed, **kw), mode=mode, max_guesses=cap)


def write_lists(tmp_path, lists: WordLists) -> tuple[str, str]:
    a = tmp_path / "answers.txt"
    g = tmp_path / "guesses.txt"
    a.write_text("\n".join(lists.answers) + "\n")
    g.write_text("\n".join(lists.guesses) + "\n")
    return str(a), str(g)


def run_on_lists(capsys, small, *args, stdin=None, monkeypatch=None):
    """`wordle-dp ARGS` in-process on the list files of a `small` fixture
    (lists, answers file, guesses file, cache folder): (exit status, stdout, stderr).
    `stdin` (with `monkeypatch`) is what the command reads."""
    import io
    import sys

    from solver import cli

    _lists, a, g, cache = small
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    rc = cli.main([*args, "--answers", a, "--guesses", g, "--cache-dir", cache])
    out = capsys.readouterr()
    return rc, out.out, out.err
