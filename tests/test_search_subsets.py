"""Bounds from a set's parts (bounds.subset_bound, issue 52): opt(X) >= opt(Y) +
opt(X \\ Y) for the part Y of X without a letter, read from the memo with no row
read. Checked here: the inequality itself by brute force (easy and hard mode, capped
and uncapped, at every word length) and its failure in strict mode, where the
engine does not use it; the kernel's bounds and their taint against the brute
force on memos that real searches left; and the engine with the bounds on every
node against the brute force (values and cutoffs) and against itself without them
on a bigger instance."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import numpy as np
import pytest
import test_search_crosscheck as X
import test_search_lengths as lengths
from brute import Brute, no_constraint
from test_search_crosscheck import SEEDS, Instance, _solver, brute, instance

from solver.search import engine
from solver.search import kernels as K
from solver.search.engine import Solver
from solver.search.layout import EXACT, P_SUBSET, TAINT, class_lb_py
from solver.words import WordLists


def _after(b: Brute, mode: str, opener: str):
    """The non-green classes of `opener` on all the answers, with the hard-mode
    constraint after it: [(pattern, frozenset of answer ids, constraint)]."""
    g = b.guesses.index(opener)
    con = no_constraint(len(opener)) if mode == "hard" else None
    out = []
    for p, cls in sorted(b.split(g, frozenset(range(len(b.answers)))).items()):
        if p != b.green:
            out.append((p, cls, b.update(con, opener, p) if mode == "hard" else None))
    return out


def _letter_parts(answers, cls: frozenset):
    """(letter, the members without it) for each letter some but not all have."""
    letters = sorted({c for a in cls for c in answers[a]})
    for x in letters:
        part = frozenset(a for a in cls if x not in answers[a])
        if 0 < len(part) < len(cls):
            yield x, part


def _superadditive(b: Brute, cls: frozenset, part: frozenset, left, con) -> bool:
    """opt(cls) >= opt(part) + opt(cls - part), None (infeasible) as infinity."""
    whole, one, other = (b.value(s, left, con) for s in (cls, part, cls - part))
    if one is None or other is None:
        return whole is None
    return whole is None or whole >= one + other


def _check_inequality(inst: Instance, b: Brute) -> int:
    checked = 0
    for opener in inst.openers:
        for _p, cls, con in _after(b, inst.mode, opener):
            for left in {None, *([inst.cap - 1] if inst.cap > 1 else [])}:
                for x, part in _letter_parts(b.answers, cls):
                    assert _superadditive(b, cls, part, left, con), (
                        opener, x, sorted(cls), left, inst.describe())
                    checked += 1
    return checked


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_parts_bound_the_whole_by_brute_force(mode):
    """The inequality on every class of every opener of the cross-check instances of
    the mode, split by every letter, with the instance's cap and with none."""
    checked = sum(_check_inequality(instance(s), brute(instance(s)))
                  for s in SEEDS if instance(s).mode == mode)
    assert checked > 1000, checked


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_parts_bound_the_whole_at_every_length(mode):
    checked = sum(_check_inequality(lengths.instance(s), lengths.brute(lengths.instance(s)))
                  for s in lengths.SEEDS if lengths.instance(s).mode == mode)
    assert checked > 100, checked


def test_parts_do_not_bound_the_whole_in_strict_mode():
    """Why strict mode is left out: X = four ?ills words and a word that tells them
    apart. Guessing that word first costs 5 + 4 = 9 on X, but the ?ills words alone
    can only be guessed one by one (strict: a guess must be a possible answer), 1 + 2
    + 3 + 4 = 10: the part costs more than the whole. In easy and hard mode the
    same sets obey the inequality."""
    words = ["bills", "fills", "gills", "hills", "fghkx"]
    cls, part = frozenset(range(5)), frozenset(range(4))
    strict = Brute(words, words, "strict")
    assert strict.value(part, None) == 10 and strict.value(cls, None) == 9
    assert not _superadditive(strict, cls, part, None, None)
    for mode in ("easy", "hard"):
        b = Brute(words, words, mode)
        con = no_constraint(5) if mode == "hard" else None
        assert _superadditive(b, cls, part, None, con)


def test_kernel_bounds_are_sound_and_carry_the_cap():
    """subset_bound against the brute force, on memos where the engine valued a
    part Y of a class X (the members without a letter) with L guesses left, then X
    is bounded with L' left, for every L, L' up to the cap: it finds Y by the key it
    derives from X's (the bound reaches Y's value + class_lb of the rest when Y's
    value applies), never exceeds X's value with L' left, an untainted bound not
    even X's uncapped value, and 'infeasible' only where X is. Tainted bounds (Y's
    value depending on its cap) and untainted ones both occur."""
    seen = {"easy": 0, "hard": 0, "tainted": 0, "infeasible": 0}
    for seed in SEEDS[::3]:
        inst = instance(seed)
        if inst.mode == "strict" or inst.cap in (0, 2):
            continue
        b = brute(inst)
        s = _solver(inst, inst.cap)
        kpar = int(s._ctx.kmax[0])
        for opener in inst.openers:
            gid = s.lists.guess_id(opener)
            bg = b.guesses.index(opener)
            con0 = no_constraint(len(opener)) if inst.mode == "hard" else None
            members = np.arange(len(s.lists.answers), dtype=np.int32)
            for _p, m, cons in s._child_sets(gid, members, s._cons_for(None)):
                if len(m) < 4:
                    continue
                cls = frozenset(b.answers.index(s.lists.answers[a]) for a in m)
                con = (b.update(con0, opener, b.pattern[bg][next(iter(cls))])
                       if inst.mode == "hard" else None)
                for _x, part in _letter_parts(b.answers, cls):
                    if len(part) < 3:
                        continue
                    y = np.array(sorted(s.lists.answer_index[b.answers[a]] for a in part),
                                 np.int32)
                    for left_y in range(2, inst.cap):
                        fresh = _solver(inst, inst.cap)  # only Y in its memo
                        vy, fy, _h, _g = fresh._solve_set(y, left_y, cons)
                        for left in range(2, inst.cap):
                            v, fl = _subset_bound(fresh, m, cons, left, kpar)
                            capped = b.value(cls, left, con)
                            where = (opener, sorted(cls), sorted(part), left_y, left, v, fl,
                                     capped, inst.describe())
                            if fl & EXACT:
                                assert v >= K.INF and capped is None, where
                                seen["infeasible"] += 1
                                continue
                            assert capped is None or v <= capped, where
                            if not fl & TAINT:
                                assert v <= (b.value(cls, None, con) or K.INF), where
                            else:
                                seen["tainted"] += 1
                            # Y's value applies when untainted, or computed with as
                            # many guesses left: then the bound is found
                            if fy & EXACT and vy < K.INF and (not fy & TAINT or left_y == left):
                                rest = class_lb_py(len(m) - len(y), kpar)
                                assert v >= vy + rest, where
                                seen[inst.mode] += 1
    assert min(seen.values()) > 0, seen


def _subset_bound(s: Solver, m: np.ndarray, cons, left: int, kpar: int):
    """bounds.subset_bound of the set m (depth 1, constraint `cons`) in s's memo."""
    ctx = s._ctx
    ctx.arena[: len(m)] = m
    if cons is not None:
        ctx.cgreen[1] = cons[0]
        ctx.cmin[1] = cons[1]
    k1, k2 = (np.uint64(k) for k in K.set_key(ctx, 0, len(m), 1))
    return K.subset_bound(ctx, 0, len(m), left, k1, k2, kpar)


def _everywhere(monkeypatch) -> None:
    """The look-ahead bounds, and the bounds from parts before them, on every node's
    classes of 3+ answers in every mode (the engine's sizes are never reached by
    the brute-force instances)."""
    monkeypatch.setattr(engine, "PRE_BOUND", dict.fromkeys(engine.MODES, (0, 3)))


# Clusters (answers sharing letters in place, as in the cross-check suite's cluster
# and deep kinds) where, with the bounds on every node, bounds from parts refute
# guesses: the seeds of 0..2999 where they did (a random instance seldom has a part
# in the memo whose bound beats a class's own), 5 letters; and of 0..1499 at 4, 6
# and 7 letters (the built-in lists)
SUBSET_SEEDS = [
    25, 41, 114, 138, 160, 225, 313, 360, 394, 433, 457, 502, 520, 530, 537, 633, 693,
    728, 768, 814, 916, 995, 1009, 1034, 1036, 1148, 1163, 1186, 1261, 1304, 1330,
    1376, 1409, 1422, 1433, 1516, 1532, 1577, 1628, 1657, 1664, 1668, 1893, 1994, 2108,
    2181, 2209, 2219, 2273, 2334, 2339, 2441, 2484, 2507, 2577, 2651, 2849, 2906, 2915,
    2945, 2971, 2972, 2979,
]
LENGTH_SEEDS = [
    23, 30, 57, 78, 182, 213, 243, 271, 288, 351, 441, 478, 540, 549, 559, 562, 591, 652,
    676, 689, 690, 695, 715, 720, 767, 769, 796, 822, 840, 861, 894, 922, 927, 963, 1011,
    1020, 1063, 1145, 1197, 1299, 1306, 1323, 1332, 1351, 1485, 1486,
]


# Seeds of the lists above whose instances no longer have a guess refuted by the
# bounds from parts alone since set_bound refutes against its caller's ceiling
# (df973ab): a look-ahead bound that reaches the ceiling comes back as the ceiling,
# so the parts' bounds the memo holds are no stronger than what refuted a guess then,
# and on these (all easy mode) none refutes a later one before its own look-ahead
# bound. Their values still match the brute force, which is what they check now.
NO_CUT_SINCE_CEIL = {("subset", 530), ("subset", 1516), ("subset", 1994),
                     ("length", 271), ("length", 894), ("length", 1063), ("length", 1332)}


@functools.cache
def subset_instance(seed: int) -> Instance:
    rng = random.Random(52000 + seed)
    answers, guesses = (X._gen_deep if seed % 3 else X._gen_cluster)(rng)
    openers = tuple(dict.fromkeys([rng.choice(answers), rng.choice(guesses)]))
    return Instance(seed, "subset", ("easy", "hard")[seed % 2], (0, 6, 5, 4)[(seed // 2) % 4],
                    tuple(answers), tuple(guesses), openers)


@functools.cache
def length_instance(seed: int) -> Instance:
    length = (4, 6, 7)[seed % 3]
    real = WordLists.load(length=length, quiet=True)
    rng = random.Random(53000 + seed)
    while True:
        centre = rng.choice(real.answers)
        k = length - 2 if length > 4 else 2
        near = [w for w in real.answers if sum(a == b for a, b in zip(w, centre, strict=True)) >= k]
        if len(near) >= 8:
            break
    answers = rng.sample(near, min(len(near), rng.randint(8, 30)))
    guesses = rng.sample(real.guesses, rng.randint(20, 60))
    openers = tuple(dict.fromkeys([rng.choice(answers), rng.choice(guesses)]))
    return Instance(seed, f"subset-{length}", ("easy", "hard")[(seed // 3) % 2],
                    (0, 6, 5)[(seed // 6) % 3], tuple(answers), tuple(guesses), openers)


def _matches_brute_with_cuts(inst: Instance, cut_expected: bool = True) -> None:
    """The engine with the bounds everywhere against the brute force, under the
    instance's cap, a binding one and none, each opener twice on one memo and
    under cutoffs around its value; and (cut_expected) the bounds from parts
    refuted guesses."""
    b = Brute(list(inst.answers), list(inst.guesses), inst.mode)
    cuts = 0
    for cap in dict.fromkeys((inst.cap, 4, 0)):
        s = _solver(inst, cap)
        assert s._ctx.params[P_SUBSET] == 1
        for opener in inst.openers * 2:
            want = b.solve(opener, cap)
            _check_with(b, s.solve(opener), inst, opener, cap, want)
            if want is not None:
                for cut in (want - 5, want, want + 1):
                    r = s.solve(opener, cutoff=cut)
                    if cut > want:
                        assert (r.status, r.total) == ("exact", want), (cut, r, inst.describe())
                    else:
                        assert r.status == "lower_bound" and cut <= r.total <= want, (
                            cut, r, inst.describe())
        cuts += s.stats["subset_cuts"]
    assert cuts > 0 or not cut_expected, inst.describe()


def _check_with(b: Brute, r, inst: Instance, opener: str, cap: int, want) -> None:
    where = f"opener={opener} cap={cap}\n{inst.describe()}"
    if want is None:
        assert (r.status, r.total) == ("infeasible", None), (r, where)
        return
    assert (r.status, r.total) == ("exact", want), (r, where)
    assert b.solve(opener, r.depth) == want, (r, where)  # a strategy of that depth


@pytest.mark.parametrize("seed", SUBSET_SEEDS, ids=[f"subset-{s}" for s in SUBSET_SEEDS])
def test_engine_with_subset_bounds_matches_brute(seed, monkeypatch):
    _everywhere(monkeypatch)
    _matches_brute_with_cuts(subset_instance(seed), ("subset", seed) not in NO_CUT_SINCE_CEIL)


@pytest.mark.parametrize("seed", LENGTH_SEEDS, ids=[f"len-{s}" for s in LENGTH_SEEDS])
def test_engine_with_subset_bounds_matches_brute_at_other_lengths(seed, monkeypatch):
    _everywhere(monkeypatch)
    _matches_brute_with_cuts(length_instance(seed), ("length", seed) not in NO_CUT_SINCE_CEIL)


@pytest.mark.parametrize("kind", ["cross-check", "lengths"])
def test_an_infeasible_part_refutes_as_the_brute_force_does(kind):
    """kernels._part_infeasible (hard mode): where a node has no budget yet, a guess
    whose class holds a part the memo knows to be infeasible is refuted unsearched.
    On the hard cross-check instances, and on the hard ones at 4, 6 and 7 letters,
    under caps 3 and 4 (where many classes cannot be solved), each opener twice on
    one memo: every value and every 'infeasible' equals the brute force's, and the
    proof refuted guesses; in easy mode it is off. (That subset_bound says
    'infeasible' only of infeasible sets: test_kernel_bounds_are_sound_and_carry_the_cap.)"""
    fired = 0
    insts = ([instance(s) for s in SEEDS] if kind == "cross-check"
             else [length_instance(s) for s in LENGTH_SEEDS])
    for inst in insts:
        if inst.mode not in ("easy", "hard"):
            continue
        b = Brute(list(inst.answers), list(inst.guesses), inst.mode)
        for cap in (3, 4):
            s = _solver(inst, cap)
            for opener in inst.openers * 2:
                _check_with(b, s.solve(opener), inst, opener, cap, b.solve(opener, cap))
            if inst.mode == "easy":
                assert s.stats["infeasible_parts"] == 0
            fired += s.stats["infeasible_parts"]
    assert fired > 0


def test_off_in_strict_mode_and_under_a_beam():
    lists = WordLists.from_words(["bills", "fills", "gills"], ["fghkx"])
    assert Solver(lists, mode="strict")._ctx.params[P_SUBSET] == 0
    assert Solver(lists, mode="easy", beam=3)._ctx.params[P_SUBSET] == 0
    assert Solver(lists, mode="hard")._ctx.params[P_SUBSET] == 1


@pytest.mark.parametrize("mode,pre", [("easy", (300, 10)), ("hard", None)])
def test_subset_bounds_on_a_real_class(mode, pre, monkeypatch):
    """The all-grey class of famed (original lists), valued with and without the
    bounds from parts: the same value, and guesses refuted by them alone (easy
    mode with the look-ahead bounds from 300 answers: the engine's 700 is past
    this class's 439)."""
    lists = WordLists.load(lists="original", quiet=True)
    if pre:
        monkeypatch.setattr(engine, "PRE_BOUND", dict.fromkeys(engine.MODES, pre))
    monkeypatch.setattr(engine, "SUBSET_BOUNDS", dict.fromkeys(engine.MODES, False))
    s = Solver(lists, mode=mode)
    want = s.class_value("famed", 0)
    monkeypatch.setattr(engine, "SUBSET_BOUNDS", {"easy": True, "hard": True})
    s = Solver(lists, mode=mode, table=s.table)
    assert s.class_value("famed", 0) == want
    assert s.stats["subset_cuts"] > 0, s.stats


SELBY = Path(__file__).resolve().parents[1].parent / "shared" / "exact" / "selby"


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_published_values_of_openers_the_bounds_cut(mode):
    """Openers with big all-grey classes on the NYT lists of 2022-08-30, where the
    bounds from parts refute thousands of guesses at the engine's own sizes, against
    Selby's table of every opener (../shared/exact/selby; about 10 s each)."""
    path = SELBY / f"results_{mode}_nyt20220830"
    if not path.is_file():
        pytest.skip(f"{path} is not here")
    table = {w: int(t) for w, _avg, t in (ln.split() for ln in path.read_text().splitlines())}
    lists = WordLists.load(lists="nyt-2022-08", quiet=True)
    for w in ("waqfs", "hilly"):
        s = Solver(lists, mode=mode)
        r = s.solve(w)
        assert (r.status, r.total) == ("exact", table[w]), (w, r)
        assert s.stats["subset_cuts"] > 500, (w, s.stats)
