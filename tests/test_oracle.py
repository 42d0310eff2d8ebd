"""The engine against an external oracle: Alex Selby's published exact per-opener
totals (independent C++ solver), kept in ../shared/exact/ (formats in its README).

* selby/normal.top105.proven: easy, cap 6, original lists (`word total`). The
  project's data/ lists hold the same sets (checked below).
* selby/hard.top101.proven: hard, cap 6, original lists.
* selby/results_{easy,hard}_nyt20220215: every opener on the NYT lists of 2022-02-15
  (`word average total`, infeasible = 1000000000); a deterministic sample of them.

All of it is marked slow (minutes) except one cheap check. One slow case is hours,
not minutes: the hard sample holds that list's worst feasible opener, qajaq, which has
never finished (issue 34; on 2026-11-26 it ran 25 minutes at load 2 without an
answer). Until the engine settles it, leave it out of a `-m slow` run with
`--deselect 'tests/test_oracle.py::test_nyt20220215_hard_sample[qajaq]'`. The module
skips when ../shared (next to the repository) is absent.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from solver import Solver
from solver.words import WordLists, read_words

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SELBY = SHARED / "exact" / "selby"
NYT = SHARED / "wordlists" / "nyt"

if not SELBY.is_dir():
    pytest.skip(f"oracle data {SELBY} is absent", allow_module_level=True)

INFEASIBLE = 1_000_000_000
SAMPLE_SIZE = 50  # evenly spaced over the ranking, plus best / median / worst


def _read_totals(name: str) -> list[tuple[str, int]]:
    """(word, total) per line of `word total` or `word average total` files."""
    out = []
    for line in (SELBY / name).read_text().splitlines():
        parts = line.split()
        if parts:
            out.append((parts[0], int(parts[-1])))
    return out


def _sample(rows: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Best, median and worst opener (and the worst feasible one, where some are
    infeasible), plus SAMPLE_SIZE openers evenly spaced over the ranking."""
    ranked = sorted(rows, key=lambda r: (r[1], r[0]))
    n = len(ranked)
    idx = {0, n // 2, n - 1}
    idx |= {round(i * (n - 1) / (SAMPLE_SIZE - 1)) for i in range(SAMPLE_SIZE)}
    feasible = [i for i, r in enumerate(ranked) if r[1] != INFEASIBLE]
    if feasible and feasible[-1] != n - 1:
        idx |= {feasible[-1], feasible[len(feasible) // 2]}
    return [ranked[i] for i in sorted(idx)]


def _ids(rows):
    return [w for w, _ in rows]


EASY_TOP = _read_totals("normal.top105.proven")
HARD_TOP = _read_totals("hard.top101.proven")
NYT_EASY = _sample(_read_totals("results_easy_nyt20220215"))
NYT_HARD = _sample(_read_totals("results_hard_nyt20220215"))
CHEAP = ["salet", "slate"]  # a couple of top openers that solve in seconds


@functools.cache
def _original() -> WordLists:
    return WordLists.load(quiet=True)


@functools.cache
def _nyt() -> WordLists:
    return WordLists.from_words(read_words(NYT / "wordlist_nyt20220215_hidden.txt"),
                                read_words(NYT / "wordlist_nyt20220215_all.txt"))


@functools.cache
def _solver(lists: str, mode: str) -> Solver:
    return Solver(_original() if lists == "original" else _nyt(), mode=mode, max_guesses=6)


def _check(lists: str, mode: str, opener: str, total: int) -> None:
    r = _solver(lists, mode).solve(opener)
    if total == INFEASIBLE:
        assert (r.status, r.total) == ("infeasible", None), r.describe()
    else:
        assert (r.status, r.total) == ("exact", total), (
            f"oracle {total}; engine {r.describe()}")
        assert r.depth is not None and r.depth <= 6, r.describe()


def test_original_lists_are_the_oracles():
    """data/ holds the same sets as the original lists the oracle used."""
    lists = _original()
    shared = SHARED / "wordlists"
    assert set(lists.answers) == set(read_words(shared / "answers.txt"))
    assert set(lists.guesses) == set(read_words(shared / "allowed.txt"))
    assert len(EASY_TOP) == 105 and len(HARD_TOP) == 101
    assert len(NYT_EASY) >= SAMPLE_SIZE and len(NYT_HARD) >= SAMPLE_SIZE
    assert any(t == INFEASIBLE for _, t in NYT_HARD)
    nyt = _nyt()
    assert (len(nyt.answers), len(nyt.guesses), nyt.added_answers) == (2309, 12947, 0)


@pytest.mark.parametrize("opener", CHEAP)
def test_oracle_cheap(opener):
    """The default-suite oracle check: a couple of top easy openers, original lists."""
    _check("original", "easy", opener, dict(EASY_TOP)[opener])


@pytest.mark.slow
@pytest.mark.parametrize("opener,total", EASY_TOP, ids=_ids(EASY_TOP))
def test_selby_easy_top105(opener, total):
    _check("original", "easy", opener, total)


@pytest.mark.slow
@pytest.mark.parametrize("opener,total", HARD_TOP, ids=_ids(HARD_TOP))
def test_selby_hard_top101(opener, total):
    _check("original", "hard", opener, total)


@pytest.mark.slow
@pytest.mark.parametrize("opener,total", NYT_EASY, ids=_ids(NYT_EASY))
def test_nyt20220215_easy_sample(opener, total):
    _check("nyt", "easy", opener, total)


@pytest.mark.slow
@pytest.mark.parametrize("opener,total", NYT_HARD, ids=_ids(NYT_HARD))
def test_nyt20220215_hard_sample(opener, total):
    _check("nyt", "hard", opener, total)


# The bounds a cutoff proves, against the published exact values: every random opener
# of the NYT lists is refuted under a cutoff one past the best value, and the proven
# bound (the strongest found, often far above the cutoff) must never pass its exact
# value; an infeasible opener is never given a value. Cheap: bounds, not searches.
BOUND_SAMPLE = 30


def _bound_sample(name: str) -> tuple[int, list[tuple[str, int]]]:
    rows = _read_totals(name)
    best = min(t for _, t in rows if t != INFEASIBLE)
    import random

    return best, random.Random(20261124).sample(rows, BOUND_SAMPLE)


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_cutoff_bounds_never_pass_the_published_values(mode):
    best, sample = _bound_sample(f"results_{mode}_nyt20220215")
    s = _solver("nyt", mode)
    for opener, total in sample:
        r = s.solve(opener, cutoff=best + 1)
        if total == INFEASIBLE:
            assert r.status in ("infeasible", "lower_bound"), r.describe()
        elif r.status == "exact":
            assert r.total == total, r.describe()
        else:
            assert r.status == "lower_bound" and best + 1 <= r.total <= total, (
                f"published {total}; {r.describe()}")
