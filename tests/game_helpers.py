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
