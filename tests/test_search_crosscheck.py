"""The exact engine against the brute-force reference (tests/brute.py) on small
random instances.

Instances are deterministic functions of their seed (the test id names the seed, so a
failure is reproducible with `pytest -k 'seed-N'`; the assertion message prints the
lists). Four kinds cycle with the seed, together with the mode and the cap (2-6 and 0 =
no cap), so every (kind, mode, cap) combination appears equally often:

* random: answers drawn from data/answers.txt, guesses from data/guesses.txt;
* cluster: answers sharing 3 or 4 letters in place with a centre word (the _IGHT
  family kind), where the guess cap binds;
* alphabet: synthetic words over 3-6 letters (guesses over a few more letters);
* deep: a cluster with few guesses, so that trees are deep and modes differ.

On top of those: deep instances at every cap 2-7 where a cap raises a finite value
(DEEP_SEEDS), hard-mode instances chosen so that plausible misreadings of the hard rule
change a value (HARD_RULE_SEEDS), chains (depth n), memo reuse, cutoff and best().
The suite checks that it really exercises binding caps and mode differences.
"""

from __future__ import annotations

import functools
import os
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from brute import Brute

from solver import Solver
from solver.feedback import colours_of
from solver.table import build_numpy
from solver.words import WordLists

DATA = Path(__file__).resolve().parents[1] / "data"
ANSWERS = (DATA / "answers.txt").read_text().split()
GUESSES = (DATA / "guesses.txt").read_text().split()
LETTERS = "abcdefghijklmnopqrstuvwxyz"

KINDS = ("random", "cluster", "alphabet", "deep")
MODES = ("easy", "hard", "strict")
CAPS = (2, 3, 4, 5, 6, 0)
N_INSTANCES = 360  # 5 of each (kind, mode, cap)
SEEDS = list(range(N_INSTANCES))
MIN_BINDING = 30  # instances (opener, cap) where the cap changes the value
MIN_BINDING_FINITE = 5  # ... to a larger finite value (not just infeasible)
MIN_MODE_SENSITIVE = 8  # hard (and strict) values that differ from easy ones


@dataclass(frozen=True)
class Instance:
    seed: int
    kind: str
    mode: str
    cap: int
    answers: tuple[str, ...]
    guesses: tuple[str, ...]
    openers: tuple[str, ...]

    def describe(self) -> str:
        return (f"seed={self.seed} kind={self.kind} mode={self.mode} cap={self.cap}\n"
                f"  answers={list(self.answers)}\n  guesses={list(self.guesses)}")


def _size(rng: random.Random, lo: int, hi: int) -> int:
    """A size in [lo, hi], skewed towards small ones (the brute force is slow on big
    hard-mode instances); both ends still occur."""
    return lo + int((hi - lo + 1) * rng.random() ** 2)


def _gen_random(rng: random.Random):
    return rng.sample(ANSWERS, _size(rng, 8, 40)), rng.sample(GUESSES, _size(rng, 20, 150))


def _near(centre: str, k: int) -> list[str]:
    """Answers sharing at least k letters in place with `centre`."""
    return [w for w in ANSWERS if sum(x == y for x, y in zip(w, centre, strict=True)) >= k]


def _gen_cluster(rng: random.Random):
    while True:
        near = _near(rng.choice(ANSWERS), rng.choice((3, 3, 4)))
        if len(near) >= 8:
            break
    answers = rng.sample(near, min(len(near), _size(rng, 8, 40)))
    return answers, rng.sample(GUESSES, _size(rng, 20, 150))


def _gen_alphabet(rng: random.Random):
    alpha = rng.sample(LETTERS, rng.randint(3, 6))
    extra = rng.sample([c for c in LETTERS if c not in alpha], rng.randint(0, 3))
    na, ng = _size(rng, 8, 40), _size(rng, 20, 150)
    answers: set[str] = set()
    while len(answers) < na:
        answers.add("".join(rng.choice(alpha) for _ in range(5)))
    guesses: set[str] = set()
    while len(guesses) < ng:
        guesses.add("".join(rng.choice(alpha + extra) for _ in range(5)))
    return sorted(answers), sorted(guesses)


def _gen_deep(rng: random.Random):
    """A cluster with few guesses: optimal trees are deep and a tight cap often costs a
    guess or two (the value changes but stays finite)."""
    while True:
        near = _near(rng.choice(ANSWERS), 3)
        if len(near) >= 12:
            break
    answers = rng.sample(near, min(len(near), rng.randint(12, 30)))
    return answers, rng.sample(GUESSES, rng.randint(20, 40))


@functools.cache
def instance(seed: int) -> Instance:
    kind = KINDS[seed % 4]
    mode = MODES[(seed // 4) % 3]
    cap = CAPS[(seed // 12) % 6]
    rng = random.Random(1000 + seed)
    answers, guesses = {"random": _gen_random, "cluster": _gen_cluster,
                        "alphabet": _gen_alphabet, "deep": _gen_deep}[kind](rng)
    # One opener that is an answer, one from the guess list (maybe also an answer),
    # and sometimes a third.
    openers = [rng.choice(answers), rng.choice(guesses)]
    if rng.random() < 0.3:
        openers.append(rng.choice(guesses + answers))
    openers = list(dict.fromkeys(openers))
    return Instance(seed, kind, mode, cap, tuple(answers), tuple(guesses), tuple(openers))


# Seeds of the deep kind (rng Random(50000 + seed), mode MODES[seed % 3]) where, for
# one of the openers, some cap in 2..7 gives a finite value above the uncapped one
# (found by scanning seeds 0..399 with the brute force).
DEEP_SEEDS = [34, 67, 96, 115, 129, 175, 183, 232, 241, 294, 322, 323, 335, 346, 393]
DEEP_CAPS = (2, 3, 4, 5, 6, 7, 0)


@functools.cache
def deep_instance(seed: int) -> Instance:
    rng = random.Random(50000 + seed)
    answers, guesses = _gen_deep(rng)
    openers = tuple(dict.fromkeys([rng.choice(answers), rng.choice(guesses)]))
    return Instance(seed, "deep", MODES[seed % 3], 0, tuple(answers), tuple(guesses), openers)


# The hard-rule kind: answers sharing 3 letters in place with a word that has a double
# letter L, and keeping two Ls; guesses mostly with a single L (good splitters that hard
# mode forbids once two Ls are revealed) and some with two. Seeds (rng Random(90000 +
# seed), hard mode, cap (0, 4, 5, 6)[seed % 4]) chosen by scanning 0..199 for instances
# whose value changes under a wrong hard-mode rule (see test_hard_rule_seeds_catch_...).
HARD_RULE_SEEDS = [2, 23, 49, 57, 99, 103, 142, 150, 160, 189]
_DOUBLES = [w for w in ANSWERS if any(w.count(c) >= 2 for c in set(w))]


def _gen_hard_rule(rng: random.Random):
    while True:
        centre = rng.choice(_DOUBLES)
        double = next(c for c in centre if centre.count(c) >= 2)
        near = [w for w in _near(centre, 3) if w.count(double) >= 2]
        if len(near) >= 6:
            break
    answers = rng.sample(near, min(len(near), rng.randint(6, 16)))
    others = set("".join(answers)) - {double}
    one = [w for w in GUESSES if w.count(double) == 1 and len(set(w) & others) >= 3]
    two = [w for w in GUESSES if w.count(double) >= 2 and len(set(w) & others) >= 2]
    ng = rng.randint(20, 50)
    guesses = list(dict.fromkeys(rng.sample(one, min(len(one), ng * 2 // 3))
                                 + rng.sample(two, min(len(two), ng // 3))))
    return answers, guesses, [rng.choice(answers), rng.choice(guesses)]


@functools.cache
def hard_rule_instance(seed: int) -> Instance:
    answers, guesses, openers = _gen_hard_rule(random.Random(90000 + seed))
    return Instance(seed, "hard-rule", "hard", (0, 4, 5, 6)[seed % 4], tuple(answers),
                    tuple(guesses), tuple(dict.fromkeys(openers)))


@functools.cache
def brute(inst: Instance) -> Brute:
    return Brute(list(inst.answers), list(inst.guesses), inst.mode)


@functools.cache
def reference(seed: int) -> dict[str, tuple[int | None, int | None]]:
    """opener -> (brute value at the instance's cap, brute value with no cap)."""
    inst = instance(seed)
    b = brute(inst)
    return {o: (b.solve(o, inst.cap), b.solve(o, 0)) for o in inst.openers}


@functools.cache
def deep_reference(seed: int) -> dict[str, tuple[int | None, ...]]:
    """opener -> brute values at each of DEEP_CAPS."""
    inst = deep_instance(seed)
    b = brute(inst)
    return {o: tuple(b.solve(o, c) for c in DEEP_CAPS) for o in inst.openers}


def _lists(inst: Instance) -> WordLists:
    return WordLists.from_words(list(inst.answers), list(inst.guesses))


def _solver(inst: Instance, cap: int) -> Solver:
    lists = _lists(inst)
    return Solver(lists, mode=inst.mode, max_guesses=cap, table=build_numpy(lists))


def _check(r, inst: Instance, opener: str, cap: int, want: int | None) -> None:
    """The engine's SolveResult `r` against the brute value `want`."""
    where = f"opener={opener} engine cap={cap}\n{inst.describe()}"
    assert r.opener == opener, where
    assert r.answers == len(inst.answers), where
    assert r.mode == inst.mode and r.max_guesses == cap, where
    if want is None:
        assert (r.status, r.total) == ("infeasible", None), (
            f"engine {r.status} {r.total}, brute infeasible; {where}")
        return
    assert (r.status, r.total) == ("exact", want), (
        f"engine {r.status} {r.total}, brute {want}; {where}")
    # depth: the most guesses the engine's strategy uses for one answer. It must meet
    # the cap and be the depth of some strategy achieving the optimum.
    assert r.depth is not None and r.depth >= 1, f"depth {r.depth}; {where}"
    if cap:
        assert r.depth <= cap, f"depth {r.depth} > cap; {where}"
    at_depth = brute(inst).solve(opener, r.depth)
    assert at_depth == want, (
        f"engine depth {r.depth}, but brute with cap {r.depth} gives {at_depth} != {want}; "
        f"{where}")


# --- the brute force on its own ---------------------------------------------------

_FAMILY = ["fight", "light", "might", "night", "right", "sight", "tight", "wight"]


@pytest.mark.parametrize("mode", MODES)
def test_brute_hand_cases(mode):
    # One answer, guessed at once.
    assert Brute(["cigar"], ["cigar"], mode).solve("cigar") == 1
    # Two answers the opener tells apart: 2 + 1 + 1.
    assert Brute(["cigar", "rebut"], ["shine"], mode).solve("shine", 2) == 4
    # The opener tells nothing and only one guess is left: infeasible.
    assert Brute(["cigar", "rebut"], ["xxxxx"], mode).solve("xxxxx", 2) is None
    assert Brute(["cigar", "rebut"], ["xxxxx"], mode).solve("xxxxx", 3) == 5
    # A chain: only family words as guesses, each guess rules out one answer:
    # 8 + 7 + ... + 1 = 36, depth 8.
    b = Brute(_FAMILY, _FAMILY, mode)
    assert [b.solve("fight", c) for c in (0, 6, 7, 8, 9)] == [36, None, None, 36, 36]


def test_brute_hand_cases_flmnr():
    # FLMNR tells apart f/l/m/n/r-ight; s/t/w-ight stay together and need 3+2+1.
    g = _FAMILY + ["flmnr"]
    for mode in MODES:
        # FLMNR first: 8 + 5 singletons + (3 + 2 + 1) = 19, depth 4, in every mode
        # (strict: the opener may be any word, S/T/W-IGHT are then guessed in turn).
        b = Brute(_FAMILY, g, mode)
        assert [b.solve("flmnr", c) for c in (0, 3, 4, 5)] == [19, None, 19, 19]
    easy, hard, strict = (Brute(_FAMILY, g, m) for m in MODES)
    assert [easy.solve("flmnr", c) for c in (0, 3, 4)] == [19, None, 19]
    # FIGHT first, then FLMNR (easy only: hard mode must keep _IGHT in place, strict
    # must guess a candidate): 8 + 7 + 4 + (3 + 2 + 1) = 25, depth 5.
    assert [easy.solve("fight", c) for c in (0, 4, 5)] == [25, None, 25]
    assert [hard.solve("fight", c) for c in (0, 8)] == [36, 36]
    assert hard.solve("fight", 7) is None
    assert [strict.solve("fight", c) for c in (0, 8)] == [36, 36]


def test_brute_hard_constraint():
    from brute import NO_CONSTRAINT, hard_allowed, hard_update

    from solver.feedback import parse

    # SPEED against ABIDE: S grey, P grey, E yellow, E grey, D yellow.
    con = hard_update(NO_CONSTRAINT, "speed", parse("BBYBY", 5))
    assert con == (("",) * 5, (("d", 1), ("e", 1)))
    assert hard_allowed(con, "edged") and not hard_allowed(con, "crane")
    # EERIE against EVERY: E green, E yellow, R yellow, I grey, E grey: two Es.
    con = hard_update(con, "eerie", parse("GYYBB", 5))
    assert con == (("e", "", "", "", ""), (("d", 1), ("e", 2), ("r", 1)))
    assert hard_allowed(con, "egret") is False  # has no D
    assert hard_allowed(con, "ended") is False  # no R
    assert hard_allowed(con, "erred") is True
    assert hard_allowed(con, "dreed") is False  # E not in place 0
    # Counts only grow: a later guess revealing one E keeps two.
    con2 = hard_update(con, "eager", parse("GBBBY", 5))
    assert dict(con2[1])["e"] == 2


def test_hard_mode_keeps_guesses_alike_but_for_a_shown_letter():
    """Hard mode drops a guess whose patterns on a set repeat an earlier one's only
    where the letters its answers see coloured are the same too (scans.scan_prepare).
    pcijk and qcijk give every answer here the same colours (p and q are in each,
    neither in front), but after qcijk the next guess needs a q, so qdefz (a q, no p)
    may split the answers qcijk leaves, and after pcijk it may not. After the opener
    xywvu (all grey) qcijk is the only best second guess; a search that merged
    the two by their patterns alone would keep pcijk, the first, and lose it."""
    answers = ["apqb" + c for c in "cijkdefh"]
    lists = WordLists.from_words(answers, ["pcijk", "qcijk", "qdefz", "xywvu"])
    tbl = build_numpy(lists)
    ids = lists.guess_index
    assert (tbl[ids["pcijk"]] == tbl[ids["qcijk"]]).all()
    brute = Brute(answers, lists.guesses, "hard")
    assert brute.solve("qcijk") < min(brute.solve(w) for w in ("pcijk", "qdefz"))
    want = brute.solve("xywvu")
    for dedup in (True, False):
        solver = Solver(lists, "hard", 6, dedup=dedup)
        assert solver.solve("xywvu").total == want


@pytest.mark.parametrize("opener", ["jacal", "grimy"])
def test_hard_mode_without_duplicates_is_the_same_search(opener):
    """Today's lists, hard mode: the classes of a random opener valued with and
    without dropping duplicate guesses: the same values and the same best guesses,
    with fewer guesses evaluated where duplicates were dropped."""
    import numpy as np

    from solver.game.position import Position

    lists = WordLists.load(lists="nyt", quiet=True)
    rng = random.Random(opener)
    a, b = Solver(lists, "hard", 6), Solver(lists, "hard", 6, dedup=False)
    row = a.table[lists.guess_index[opener]]
    pats = [p for p in np.unique(row).tolist() if p != a.variant.all_green
            and 20 <= int((row == p).sum()) <= 120]
    fewer = 0
    for p in rng.sample(pats, min(len(pats), 4)):
        pos = Position.start(lists, "hard", 6).play(opener, p)
        e0, e1 = (s.depth_profile()[:, 3].sum() for s in (a, b))  # guesses evaluated
        va = a.set_value(pos.members, pos.budget, pos.cons)
        vb = b.set_value(pos.members, pos.budget, pos.cons)
        assert va == vb, (opener, p)
        fewer += a.depth_profile()[:, 3].sum() - e0 < b.depth_profile()[:, 3].sum() - e1
    assert fewer, "no class dropped a duplicate: the test compares nothing"


def test_kernel_hard_legality_matches_the_rule():
    """The kernels' hard-mode legality test (bit masks of each guess's letters and
    letter counts) accepts exactly the words the brute-force rule accepts, over the
    whole original guess list, after histories that require up to three copies of a
    letter (ESSES against SASSY reveals three Ss)."""
    from brute import NO_CONSTRAINT, hard_allowed, hard_update

    from solver.feedback import score
    from solver.search import kernels as K

    lists = WordLists.load(quiet=True)
    solver = Solver(lists, mode="hard")
    ctx = solver._ctx
    words = lists.guesses
    rng = random.Random(8)
    histories = [[("esses", "sassy")], [("eerie", "every"), ("eager", "every")],
                 [("speed", "abide")], [("fluff", "puffy"), ("muffs", "puffy")]]
    for _ in range(12):
        answer = rng.choice(lists.answers)
        histories.append([(rng.choice(words), answer) for _ in range(rng.randint(1, 3))])
    levels = set()
    for history in histories:
        con = NO_CONSTRAINT
        for guess, answer in history:
            con = hard_update(con, guess, score(guess, answer))
        ctx.cgreen[1] = [255 if not c else ord(c) - 97 for c in con[0]]
        ctx.cmin[1] = 0
        for letter, n in con[1]:
            ctx.cmin[1, ord(letter) - 97] = n
            levels.add(n)
        rules = K.hard_rules(ctx, 1)
        got = [bool(K.hard_ok(*ctx.hmask[g], *rules)) for g in range(len(words))]
        want = [hard_allowed(con, w) for w in words]
        assert got == want, (history, con)
        assert any(want) and not all(want)
    assert {1, 2, 3} <= levels


@pytest.mark.parametrize("seed", range(0, N_INSTANCES, 7))
def test_brute_consistency(seed):
    """strict >= easy, hard >= easy, and values never grow with the cap."""
    inst = instance(seed)
    by_mode = {m: Brute(list(inst.answers), list(inst.guesses), m) for m in MODES}
    for opener in inst.openers:
        vals = {}
        for m, b in by_mode.items():
            seq = [b.solve(opener, c) for c in (1, 2, 3, 4, 5, 6, 7, 0)]
            finite = [v for v in seq if v is not None]
            assert finite == sorted(finite, reverse=True), (m, opener, seq)
            # once feasible, feasible for every larger cap
            first = next((i for i, v in enumerate(seq) if v is not None), len(seq))
            assert all(v is not None for v in seq[first:]), (m, opener, seq)
            vals[m] = seq
        for m in ("hard", "strict"):
            for e, v in zip(vals["easy"], vals[m], strict=True):
                assert v is None or (e is not None and v >= e), (m, opener, vals)


# --- the engine against the brute force --------------------------------------------


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed-{s}" for s in SEEDS])
def test_engine_matches_brute(seed):
    inst = instance(seed)
    ref = reference(seed)
    s = _solver(inst, inst.cap)
    for opener in inst.openers:
        _check(s.solve(opener), inst, opener, inst.cap, ref[opener][0])
    if inst.cap:
        s0 = _solver(inst, 0)
        for opener in inst.openers:
            _check(s0.solve(opener), inst, opener, 0, ref[opener][1])


@pytest.mark.parametrize("seed", DEEP_SEEDS, ids=[f"deep-{s}" for s in DEEP_SEEDS])
def test_engine_matches_brute_deep(seed):
    """Every cap on instances where a tight cap changes a finite value."""
    inst = deep_instance(seed)
    ref = deep_reference(seed)
    for i, cap in enumerate(DEEP_CAPS):
        s = _solver(inst, cap)
        for opener in inst.openers:
            _check(s.solve(opener), inst, opener, cap, ref[opener][i])


@pytest.mark.parametrize("seed", HARD_RULE_SEEDS, ids=[f"hard-rule-{s}" for s in HARD_RULE_SEEDS])
def test_engine_matches_brute_hard_rule(seed):
    inst = hard_rule_instance(seed)
    b = brute(inst)
    for cap in dict.fromkeys((inst.cap, 0)):
        s = _solver(inst, cap)
        for opener in inst.openers:
            _check(s.solve(opener), inst, opener, cap, b.solve(opener, cap))


class _NoMultiplicity(Brute):
    """Wrong: a letter revealed twice need only be reused once."""

    def update(self, con, guess, pattern):
        greens, counts = super().update(con, guess, pattern)
        return greens, tuple((letter, 1) for letter, _ in counts)


class _GreensOnly(Brute):
    """Wrong: revealed letters need not be reused (only greens stay in place)."""

    def allowed(self, con, word):
        return all(not g or word[i] == g for i, g in enumerate(con[0]))


class _CountsOnly(Brute):
    """Wrong: greens may move (only letter counts are kept)."""

    def allowed(self, con, word):
        return all(word.count(letter) >= n for letter, n in con[1])


class _NoGreyReuse(Brute):
    """Wrong: letters revealed grey may not be guessed again."""

    def update(self, con, guess, pattern):
        greens, counts = super().update(con, guess, pattern)
        colours = colours_of(pattern, 5)
        seen = {guess[i] for i in range(5) if colours[i]}
        greys = {"#" + guess[i] for i in range(5) if not colours[i] and guess[i] not in seen}
        return greens, tuple(sorted(set(counts) | {(g, 1) for g in greys}))

    def allowed(self, con, word):
        if any(letter[1] in word for letter, _ in con[1] if letter[0] == "#"):
            return False
        real = ((c, n) for c, n in con[1] if c[0] != "#")
        return super().allowed((con[0], tuple(real)), word)


def test_hard_rule_seeds_catch_variants():
    """Each plausible misreading of the hard-mode rule changes some value of the
    hard-rule instances, so an engine implementing it fails the test above."""
    for variant in (_NoMultiplicity, _GreensOnly, _CountsOnly, _NoGreyReuse):
        caught = []
        for seed in HARD_RULE_SEEDS:
            inst = hard_rule_instance(seed)
            wrong = variant(list(inst.answers), list(inst.guesses), "hard")
            for opener in inst.openers:
                if wrong.solve(opener, inst.cap) != brute(inst).solve(opener, inst.cap):
                    caught.append((seed, opener))
        assert caught, f"no hard-rule instance tells {variant.__name__} apart"


def test_suite_has_binding_caps():
    """The suite must exercise the cap: enough (instance, opener, cap) cases whose
    value with the cap differs from the value without it, and enough of them where
    it stays finite."""
    binding = finite = 0
    for seed in SEEDS:
        if not instance(seed).cap:
            continue
        for v_cap, v_free in reference(seed).values():
            if v_cap != v_free:
                binding += 1
                finite += v_cap is not None
    for seed in DEEP_SEEDS:
        for values in deep_reference(seed).values():
            v_free = values[-1]
            for v_cap in values[:-1]:
                if v_cap != v_free:
                    binding += 1
                    finite += v_cap is not None
    assert binding >= MIN_BINDING, binding
    assert finite >= MIN_BINDING_FINITE, finite


def test_suite_has_mode_sensitive_cases():
    """Hard and strict must matter: enough deep-kind (instance, opener) pairs whose
    value differs from the easy-mode value of the same instance."""
    differ = {"hard": 0, "strict": 0}
    for seed in SEEDS:
        inst = instance(seed)
        if inst.kind != "deep" or inst.mode == "easy":
            continue
        easy = Brute(list(inst.answers), list(inst.guesses), "easy")
        for opener, (v_cap, _) in reference(seed).items():
            differ[inst.mode] += easy.solve(opener, inst.cap) != v_cap
    assert min(differ.values()) >= MIN_MODE_SENSITIVE, differ


def test_suite_refutes_guesses_unread():
    """The brute-force instances must take the scans' shortcut that refutes a guess
    from its classes on the parent's set without reading its row (stats
    refuted_unread), in easy and hard mode, with the values still the brute
    force's. (Strict mode's pool is the set's own members: no parent pool, no
    shortcut. The lazy scan, which also takes it, is checked on every set in
    tests/test_search_pruning.py.)"""
    unread = {"easy": 0, "hard": 0}
    for seed in SEEDS:
        inst = instance(seed)
        if inst.mode == "strict":
            continue
        s = _solver(inst, inst.cap)
        for opener in inst.openers:
            _check(s.solve(opener), inst, opener, inst.cap, reference(seed)[opener][0])
        unread[inst.mode] += s.stats["refuted_unread"]
    assert min(unread.values()) > 0, unread


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n", [10])
def test_engine_long_chain(mode, n):
    """n answers differing only in the first letter, the answers themselves as the
    only guesses: every guess rules out just itself, so whatever the order the optimum
    is n + (n - 1) + ... + 1 = n (n + 1) / 2 with depth n, and any cap below n is
    infeasible (the brute force confirms it for n <= 12; beyond, 2**n subsets are too
    many). See test_engine_deep_search_in_bounds for a deeper one."""
    chain = [c + "zzzz" for c in LETTERS[:n]]
    inst = Instance(-n, "chain", mode, 0, tuple(chain), tuple(chain), (chain[0], chain[n // 2]))
    want = n * (n + 1) // 2
    if n <= 12:
        b = brute(inst)
        assert [b.solve(chain[0], c) for c in (0, n, n - 1)] == [want, want, None]
    for cap in (0, n - 1, n, n + 1):
        s = _solver(inst, cap)
        for opener in inst.openers:
            r = s.solve(opener)
            where = f"chain n={n} mode={mode} cap={cap} opener={opener}"
            if cap == n - 1:
                assert (r.status, r.total) == ("infeasible", None), (r, where)
            else:
                assert (r.status, r.total, r.depth) == ("exact", want, n), (r, where)


_DEEP_SCRIPT = """
import sys
sys.path.insert(0, {root!r})
from solver import Solver
from solver.table import build_numpy
from solver.words import WordLists
chain = [c + "zzzz" for c in "abcdefghijklmnopqrs"]
lists = WordLists.from_words(chain, chain)
r = Solver(lists, mode="easy", max_guesses=0, table=build_numpy(lists)).solve("azzzz")
print(r.total, r.status, r.depth)
"""


@pytest.mark.slow
def test_engine_deep_search_in_bounds(tmp_path):
    """A search more than 16 levels deep (no cap, the 19-answer chain), in a fresh
    process with numba's bounds checking on: without it an out-of-bounds write in a
    kernel would corrupt memory silently (or crash much later)."""
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               WORDLE_DP_KERNELS="jit")  # the jitted kernels: bounds checks need them
    proc = subprocess.run([sys.executable, "-c", _DEEP_SCRIPT.format(root=root)], cwd=root,
                          env=env, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stdout.split() == ["190", "exact", "19"], proc.stdout


# --- memo reuse, caps in sequence, cutoff, best ------------------------------------

MEMO_SEEDS = [s for s in SEEDS if s % 17 == 5][:12]


@pytest.mark.parametrize("seed", MEMO_SEEDS, ids=[f"seed-{s}" for s in MEMO_SEEDS])
def test_memo_reuse_does_not_change_values(seed):
    inst = instance(seed)
    b = brute(inst)
    openers = list(inst.openers)
    s = _solver(inst, inst.cap)
    first = [(r.status, r.total) for r in map(s.solve, openers)]
    again = [(r.status, r.total) for r in map(s.solve, reversed(openers))][::-1]
    twice = [(r.status, r.total) for r in map(s.solve, openers)]
    assert first == again == twice
    # Several caps in sequence, each on a fresh solver, and all on one solver.
    for cap in (2, 6, 3, 0, 4):
        fresh = _solver(inst, cap)
        for opener in openers:
            _check(fresh.solve(opener), inst, opener, cap, b.solve(opener, cap))
            _check(fresh.solve(opener), inst, opener, cap, b.solve(opener, cap))


CUTOFF_SEEDS = [s for s in SEEDS if s % 13 == 1][:15]


@pytest.mark.parametrize("seed", CUTOFF_SEEDS, ids=[f"seed-{s}" for s in CUTOFF_SEEDS])
def test_cutoff(seed):
    _check_cutoffs(seed)


# Hard mode under a cutoff, every class that needs a search cut short at first (the
# classes_cut_short fixture, conftest.py): the values, the bounds and the memo they
# leave must not change.
DEFER_SEEDS = [s for s in SEEDS if MODES[(s // 4) % 3] == "hard"][::2]


@pytest.mark.parametrize("seed", DEFER_SEEDS, ids=[f"seed-{s}" for s in DEFER_SEEDS])
def test_cutoff_with_classes_cut_short(seed, classes_cut_short):
    _check_cutoffs(seed)
    CUT[seed] = classes_cut_short["cut"]


CUT: dict[int, int] = {}


def test_classes_were_cut_short():
    """The test above is not empty: most instances had searches cut short."""
    if len(CUT) < len(DEFER_SEEDS):
        pytest.skip("run with the test above")
    assert sum(n > 0 for n in CUT.values()) >= len(CUT) // 2, CUT


def _check_cutoffs(seed: int) -> None:
    inst = instance(seed)
    ref = reference(seed)
    s = _solver(inst, inst.cap)
    for opener in inst.openers:
        want = ref[opener][0]
        where = f"opener={opener}\n{inst.describe()}"
        if want is None:
            r = s.solve(opener, cutoff=10**6)
            assert r.status in ("infeasible", "lower_bound"), where
            continue
        # A cutoff above the value: the exact value.
        r = s.solve(opener, cutoff=want + 1)
        assert (r.status, r.total) == ("exact", want), (r, where)
        # A cutoff at or below the value: a proven bound in [cutoff, value].
        for cut in (want, want - 1, want - 5):
            r = s.solve(opener, cutoff=cut)
            assert r.status == "lower_bound", (cut, r, where)
            assert cut <= r.total <= want, (cut, r, where)
        # And the memo is not poisoned by the cut-off searches.
        r = s.solve(opener)
        assert (r.status, r.total) == ("exact", want), (r, where)


BEST_SEEDS = [s for s in SEEDS if s % 11 == 3 and instance(s).cap != 2][:10]


@pytest.mark.parametrize("seed", BEST_SEEDS, ids=[f"seed-{s}" for s in BEST_SEEDS])
def test_best_matches_brute(seed):
    inst = instance(seed)
    b = brute(inst)
    lists = _lists(inst)
    vals = {w: b.solve(w, inst.cap) for w in lists.guesses}
    feasible = sorted(v for v in vals.values() if v is not None)
    top = min(3, len(feasible))
    if top == 0:
        pytest.skip("every opener is infeasible at this cap")
    res = _solver(inst, inst.cap).best(top=top)
    where = inst.describe()
    assert len(res) == top, where
    assert [r.total for r in res] == feasible[:top], (res, where)
    for r in res:
        assert r.status == "exact", (r, where)
        assert vals[r.opener] == r.total, (r, where)
