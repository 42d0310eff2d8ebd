"""The engine on today's NYT lists (the built-in `nyt` pair: 3158 answers, 14855
guesses) against the published exact value of every opener, easy and hard, from an
independent C++ solver (../shared/exact/selby/results_{easy,hard}_nyt20230701,
`word average total`, infeasible = 1000000000; formats in its README).

Exact values must be equal; a proven lower bound (an opener refuted under a cutoff)
must lie between the cutoff and the published value; an infeasible opener never
gets a value. The default suite checks the best easy opener exactly and seeded random
openers under a cutoff one past the best value, drawn among the feasible openers
whose published value is at least MARGIN past it: those are refuted in well under a
second each (CPU), while in hard mode an opener within a few hundred of the cutoff
(mitre, mairs) or an infeasible one (rimae, 61 s) can take a minute or more.
`-m slow` solves seeded random openers of the
published top 20 exactly in both modes and bounds a larger unfiltered sample: 35
minutes of wall time at load 5-10, most of it the four hard exact values (1-17
minutes each; tarse 64 s of CPU).
The module skips when ../shared (next to the repository) is absent.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest

from solver import Solver
from solver import store as S
from solver.words import WordLists, read_words

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SELBY = SHARED / "exact" / "selby"
FILES = {mode: SELBY / f"results_{mode}_nyt20230701" for mode in ("easy", "hard")}

if not all(f.is_file() for f in FILES.values()):
    pytest.skip(f"the published NYT tables {SELBY} are absent", allow_module_level=True)

INFEASIBLE = 1_000_000_000
SEED = 20261126
MARGIN = 400  # default-suite bounds: openers at least this far past the best value


@functools.cache
def published(mode: str) -> dict[str, int]:
    """opener -> published total (INFEASIBLE for infeasible openers)."""
    out = {}
    for line in FILES[mode].read_text().splitlines():
        parts = line.split()
        if parts:
            out[parts[0]] = int(parts[-1])
    return out


def best(mode: str) -> int:
    return min(published(mode).values())


@functools.cache
def _solver(mode: str) -> Solver:
    return Solver(WordLists.load(lists="nyt", quiet=True), mode=mode, max_guesses=6)


def _sample(mode: str, k: int, far: bool) -> list[str]:
    """k seeded random openers; `far`: only feasible ones MARGIN past the best."""
    rows = published(mode)
    pool = sorted(w for w, t in rows.items()
                  if not far or best(mode) + MARGIN <= t < INFEASIBLE)
    return random.Random(f"{SEED}-{mode}-{far}").sample(pool, k)


def _top(mode: str, k: int) -> list[str]:
    """k seeded random openers among the published 20 best."""
    ranked = sorted(published(mode), key=lambda w: (published(mode)[w], w))
    return random.Random(f"{SEED}-{mode}-top").sample(ranked[:20], k)


def check_exact(mode: str, opener: str) -> None:
    want = published(mode)[opener]
    r = _solver(mode).solve(opener)
    if want == INFEASIBLE:
        assert (r.status, r.total) == ("infeasible", None), r.describe()
    else:
        assert (r.status, r.total) == ("exact", want), f"published {want}; {r.describe()}"


def check_bound(mode: str, opener: str) -> str:
    """Value `opener` under a cutoff one past the best; returns the status."""
    want, cut = published(mode)[opener], best(mode) + 1
    r = _solver(mode).solve(opener, cutoff=cut)
    if want == INFEASIBLE:
        assert r.status in ("infeasible", "lower_bound"), r.describe()
    elif r.status == "exact":
        assert r.total == want, f"published {want}; {r.describe()}"
    else:
        assert r.status == "lower_bound" and cut <= r.total <= want, (
            f"published {want}; {r.describe()}")
    return r.status


def test_the_lists_are_the_published_tables_lists():
    lists = _solver("easy").lists
    nyt = SHARED / "wordlists" / "nyt"
    if nyt.is_dir():
        assert set(lists.answers) == set(read_words(nyt / "wordlist_nyt20230701_hidden.txt"))
        assert set(lists.guesses) == set(read_words(nyt / "wordlist_nyt20220830_all.txt"))
    for mode in ("easy", "hard"):  # every allowed guess is valued, nothing else
        assert set(published(mode)) == set(lists.guesses)
    assert best("easy") < best("hard")


def test_the_best_easy_opener_exactly():
    (first,) = [w for w, t in published("easy").items() if t == best("easy")]
    check_exact("easy", first)


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_cutoff_bounds_on_a_seeded_sample(mode):
    statuses = [check_bound(mode, w) for w in _sample(mode, 6, far=True)]
    assert statuses.count("exact") == 0  # every one is past the cutoff


@pytest.mark.slow
@pytest.mark.parametrize("mode,opener", [(m, w) for m in ("easy", "hard")
                                         for w in _top(m, 4)])
def test_exact_values_of_seeded_top_openers(mode, opener):
    check_exact(mode, opener)


@pytest.mark.slow
@pytest.mark.parametrize("mode,k", [("easy", 40), ("hard", 12)])
def test_cutoff_bounds_on_a_larger_unfiltered_sample(mode, k):
    """Any opener, near the cutoff and infeasible ones too (some take minutes in hard
    mode: k is smaller there)."""
    for w in _sample(mode, k, far=False):
        check_bound(mode, w)


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_the_books_proven_top_is_the_published_ranking(mode):
    """Issue 32: the packaged NYT book's proven best openers are the published best,
    with the same totals (openers tied on a total in any order), and every other
    entry agrees with the table: exact values equal, lower bounds at most the
    published value, infeasible where published infeasible."""
    from solver.book import Book, book_path

    path = book_path(mode, 6, "nyt")
    assert path.is_file(), f"the NYT {mode} book is not in the package ({path})"
    book = Book.read(path, _solver(mode).lists)
    snap = book.snapshot()
    top = [book.words[i] for i in snap.order()[: book.info["top"]]]
    assert len(top) >= 10
    ranked = sorted(published(mode).items(), key=lambda kv: kv[1])
    want = [t for _, t in ranked[: len(top)]]
    assert [int(book.total[book.index_of(w)]) for w in top] == want
    # ties in any order: every opener on a total below the last is in the top; on
    # the last total (a tie the top may cut), the top's are among the published
    for t in set(want):
        ours = {w for w in top if int(book.total[book.index_of(w)]) == t}
        theirs = {w for w, v in ranked if v == t}
        assert ours == theirs if t < want[-1] else ours <= theirs, t
    valued = agrees_with_published(mode, book.words, book.status_codes, book.total,
                                   book.cutoff)
    assert valued == len(book.words)  # a book values every opener


def agrees_with_published(mode: str, words, status, total, cutoff=None) -> int:
    """Every valued entry agrees with the table: exact values equal, infeasible where
    published infeasible, lower bounds at most the published value (and at least the
    cutoff, when one is given). Returns how many entries were valued."""
    valued = 0
    for w, st, t in zip(words, status.tolist(), total.tolist(), strict=True):
        v = published(mode)[w]
        valued += st in (S.EXACT, S.INFEASIBLE, S.LOWER_BOUND)
        if st == S.EXACT:
            assert t == v, w
        elif st == S.INFEASIBLE:
            assert v == INFEASIBLE, w
        elif st == S.LOWER_BOUND:
            assert t <= v, w
            assert cutoff is None or t >= cutoff, w
    return valued


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_the_shipped_moves_files_sum_to_the_published_totals(mode):
    """Every opener of today's shipped moves file, against the published table: for
    a complete opener the first guess for every answer plus its classes' best totals
    is the opener's published total, and an opener with a class no strategy wins
    (held with no move, or with its best chance) is published infeasible, complete
    or not (a build stopped part-way keeps the classes it valued, biggest first).
    This checks each class's best total, the biggest included, with no search."""
    import numpy as np

    from solver.book import Book

    lists = WordLists.load(lists="nyt", quiet=True)
    book = Book.find(lists, mode, 6)
    if book is None or book.moves is None:
        pytest.skip(f"no packaged moves for nyt {mode}")
    a = book.moves.arrays
    table = published(mode)
    lost = a["best"] < 0
    if "wins" in a:
        lost |= a["wins"] >= 0
    complete = set(book.moves.info["openers"])
    assert complete <= set(a["opener"].tolist())
    for g in sorted(set(a["opener"].tolist())):
        rows = a["opener"] == g
        word = lists.guesses[g]
        if lost[rows].any():
            assert table[word] == INFEASIBLE, word
        elif g in complete:
            total = len(lists.answers) + int(a["total"][rows].astype(np.int64).sum())
            assert total == table[word], word
