"""Published exact values on the original Wordle lists (data/answers.txt, 2315
answers, and data/guesses.txt, 12972 guesses): totals = guesses summed over all
answers. Sources: Alex Selby's exact results (see ../shared/exact/README.md) and the
answers_small benchmark of ../shared/wordlists/README.md.

Only the cheap cases run by default; the rest are marked slow (run with -m slow).
Solvers are shared per (mode, cap) within the module, so later openers also exercise
memo reuse across openers.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from solver import Solver
from solver.words import WordLists, read_words

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ANSWERS_SMALL = SHARED / "wordlists" / "answers_small.txt"


@functools.cache
def _lists() -> WordLists:
    return WordLists.load(quiet=True)


@functools.cache
def _solver(mode: str, cap: int) -> Solver:
    return Solver(_lists(), mode=mode, max_guesses=cap)


def _exact(mode: str, cap: int, opener: str, total: int):
    r = _solver(mode, cap).solve(opener)
    assert (r.opener, r.status, r.total) == (opener, "exact", total), r.describe()
    assert r.answers == 2315 and r.mode == mode and r.max_guesses == cap
    assert r.depth is not None and 2 <= r.depth <= (cap or 2315)
    return r


# (opener, total); the fast ones (a few seconds) run by default.
EASY6 = [("salet", 7920), ("reast", 7923), ("crate", 7926), ("trace", 7926),
         ("slate", 7928), ("crane", 7930), ("roate", 8000), ("raise", 8014)]
HARD6 = [("salet", 8122), ("least", 8127), ("reast", 8134), ("crate", 8143)]
HARD6_INFEASIBLE = ["trace", "slate", "raise", "arise", "soare"]
HARD_NOCAP = [("salet", 8116), ("trace", 8122)]
FAST = {("easy", 6, "salet"), ("hard", 6, "slate"), ("hard", 0, "salet")}


def _params(mode, cap, cases):
    out = []
    for case in cases:
        opener = case[0] if isinstance(case, tuple) else case
        marks = () if (mode, cap, opener) in FAST else (pytest.mark.slow,)
        out.append(pytest.param(*(case if isinstance(case, tuple) else (case,)),
                                marks=marks, id=opener))
    return out


@pytest.mark.parametrize("opener,total", _params("easy", 6, EASY6))
def test_easy_cap6(opener, total):
    _exact("easy", 6, opener, total)


@pytest.mark.parametrize("opener,total", _params("hard", 6, HARD6))
def test_hard_cap6(opener, total):
    _exact("hard", 6, opener, total)


@pytest.mark.parametrize("opener", _params("hard", 6, HARD6_INFEASIBLE))
def test_hard_cap6_infeasible(opener):
    r = _solver("hard", 6).solve(opener)
    assert (r.status, r.total) == ("infeasible", None), r.describe()


@pytest.mark.parametrize("opener,total", _params("hard", 0, HARD_NOCAP))
def test_hard_no_cap(opener, total):
    r = _exact("hard", 0, opener, total)
    # Without a cap these openers do better than with 6 guesses (salet 8122 capped;
    # trace is infeasible capped), so every optimal strategy needs more than 6.
    assert r.depth > 6, r.describe()


def test_answers_small_heart_is_unique_best():
    if not ANSWERS_SMALL.is_file():
        pytest.skip(f"{ANSWERS_SMALL} is absent")
    lists = WordLists.from_words(read_words(ANSWERS_SMALL), _lists().guesses)
    assert len(lists.answers) == 50 and lists.added_answers == 0
    best = Solver(lists, mode="easy", max_guesses=6).best(top=2)
    assert len(best) == 2
    assert (best[0].opener, best[0].status, best[0].total) == ("heart", "exact", 116), best
    assert best[1].total is not None and best[1].total > 116, best
