"""The run's cost model (solver/run/costs.py): spreads against a brute-force count,
the two models, and what a run plans with."""

from __future__ import annotations

import numpy as np
import pytest

from solver.run.costs import (
    SPREAD_MIN,
    CostModel,
    class_cost,
    class_sizes,
    opener_cost,
    probe_guesses,
    spreads_of,
)
from solver.table import get_table
from solver.variant import Variant
from solver.words import WordLists
from tests.run_helpers import write_lists


@pytest.fixture(scope="module")
def lists_table(tmp_path_factory):
    d = tmp_path_factory.mktemp("lists")
    a, g = write_lists(d, 300, 25)
    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", str(d / "cache"))
    return lists, table


def test_probe_guesses_make_the_most_classes(lists_table):
    _lists, table = lists_table
    per = np.array([len(np.unique(row)) for row in table])
    probe = probe_guesses(table, 243, 40)
    assert len(probe) == 40 and len(set(probe.tolist())) == 40
    assert per[probe].min() >= np.sort(per)[-40]  # no guess left out makes more
    assert (np.diff(per[probe]) <= 0).all()  # most first


def test_spreads_match_a_brute_force_count(lists_table):
    _lists, table = lists_table
    probe = probe_guesses(table, 243, 60)
    openers = list(range(0, table.shape[0], 7))
    got = spreads_of(table, 243, openers, probe, min_size=20)
    want: dict[int, dict[int, int]] = {}
    for o in openers:
        sizes = class_sizes(table[o], 243)
        for p in np.flatnonzero(sizes >= 20):
            members = np.flatnonzero(table[o] == p)
            want.setdefault(o, {})[int(p)] = max(
                len(np.unique(table[g, members])) for g in probe)
    assert got == want and len(want) > 5
    assert spreads_of(table, 243, [], probe) == {}


def test_the_spread_model_and_the_size_model():
    sizes = np.arange(1, 2316)
    for mode in ("easy", "hard"):
        cost = class_cost(sizes, mode)
        assert (np.diff(cost) > 0).all()  # size alone: rises with size
        # unknown spread, or a class below SPREAD_MIN: the size model
        assert class_cost(900, mode, 0) == class_cost(900, mode)
        assert class_cost(SPREAD_MIN - 1, mode, 3) == class_cost(SPREAD_MIN - 1, mode)
        # a class whose best split leaves bigger classes costs more
        k = np.arange(40, 200)
        assert (np.diff(class_cost(900, mode, k)) < 0).all()
    # the steep part: 1369 answers cost far more than twice 1000 (measured ~9x)
    assert class_cost(1369, "easy") > 4 * class_cost(1000, "easy")
    # deedy's class 3 in hard mode (490 answers, spread 82 over the probe guesses):
    # measured 174 s, size alone 3.7 s (47x under); the spread model is 6x under,
    # its worst over the sample's classes of 300+ answers is 10x
    assert 174 / 10 < class_cost(490, "hard", 82) < 174
    assert class_cost(490, "hard") < 174 / 30


def test_cost_model_sums_its_classes(lists_table):
    _lists, table = lists_table
    probe = probe_guesses(table, 243, 60)
    spreads = spreads_of(table, 243, range(table.shape[0]), probe, min_size=20)
    model = CostModel(Variant(5, "hard"), table, spreads)
    i = max(spreads, key=lambda o: len(spreads[o]))
    sizes = class_sizes(table[i], 243)
    pats = np.flatnonzero(sizes)
    want = sum(model.of_class(i, int(p), int(sizes[p])) for p in pats)
    assert model.of_opener(i) == pytest.approx(want)
    assert CostModel(Variant(5, "hard"), table).of_opener(i) == pytest.approx(
        opener_cost(table[i], "hard", 243))


def test_the_cost_after_a_quick_bound():
    """More guesses per answer in the quick bound: a costlier class; no prediction
    where the fit does not reach (small classes, no real total)."""
    from solver.run.costs import cost_after_quick, quick_model_applies

    for mode in ("easy", "hard", "strict"):
        ts = [cost_after_quick(1000, t, mode) for t in (3000, 3100, 3200, 3300)]
        assert all(t is not None for t in ts) and ts == sorted(ts) and ts[0] < ts[-1]
        assert cost_after_quick(SPREAD_MIN - 1, 3 * SPREAD_MIN, mode) is None
        assert cost_after_quick(1000, 999, mode) is None  # under one guess an answer
    assert cost_after_quick(1000, 3000, "worst") is None
    assert quick_model_applies(SPREAD_MIN, "hard") and not quick_model_applies(
        SPREAD_MIN - 1, "easy") and not quick_model_applies(1000, "worst")
