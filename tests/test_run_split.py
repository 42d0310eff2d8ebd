"""Openers valued as first-feedback classes (run --split, solver/run/split.py), in
one process with the real engine: the same store as valued whole, in every mode
and under caps; the class checkpoint across a stop and a resume; the pieces
(status rules, the checkpoint word, the plan, the head gate, the memo rule).
The MPI runs and the SIGKILLs are in test_run_mpi.py and test_kill.py."""

from __future__ import annotations

import io
import os
import random
import re
import signal
import time

import numpy as np
import pytest

from solver import cli
from solver import store as S
from solver.run import RunConfig, run
from solver.run.config import MEMO_MAX_MB, MEMO_MIN_MB, default_memo_mb, work_memo_mb
from solver.run.costs import class_cost
from solver.run.mpi import node_memory_bytes
from solver.run.split import (
    CHUNK_ROWS,
    GROUP,
    ClassResult,
    ClassStore,
    Split,
    classes_of,
    combine,
    has_class_values,
    make_units,
    pack,
    plan,
    unpack,
)
from solver.run.units import Classes, Part
from solver.run.work import Work
from solver.run.worker import default_factory
from solver.variant import Variant
from solver.words import WordLists
from tests.run_helpers import write_lists


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """60 answers, every 40th guess: a few hundred openers solved in milliseconds."""
    d = tmp_path_factory.mktemp("lists")
    a, g = write_lists(d, 60, 40)
    return a, g, str(d / "cache")


def _run(small, store, **kw) -> S.Snapshot:
    a, g, cache = small
    out = io.StringIO()
    cfg = RunConfig(store=store, answers=a, guesses=g, cache_dir=cache, progress_file=out,
                    **kw)
    s = run(cfg)
    assert s.exit_code == 0 and s.state == "finished", out.getvalue()
    return S.Store.open(store)


def _table(st: S.Store):
    snap = st.snapshot()
    return (snap.status, snap.fields["total"], snap.fields["depth"],
            np.asarray(st.group["second"][...]))


def _same(a: S.Store, b: S.Store) -> None:
    for x, y, name in zip(_table(a), _table(b), ("status", "total", "depth", "second"),
                          strict=True):
        bad = np.flatnonzero((x != y).reshape(len(x), -1).any(axis=1))
        assert not len(bad), f"{name} differs for {[a.words[i] for i in bad[:5]]}"


def _openers(small, k: int, seed: int | str) -> str:
    words = WordLists.load(small[0], small[1], quiet=True).guesses
    return ",".join(random.Random(seed).sample(words, k))


@pytest.mark.parametrize("mode,cap", [("easy", 6), ("hard", 6), ("strict", 6), ("easy", 3),
                                      ("hard", 3), ("strict", 4), ("easy", 0), ("hard", 2)])
def test_split_equals_whole_in_every_mode_and_cap(tmp_path, small, mode, cap):
    openers = _openers(small, 40, seed=f"{mode}{cap}")  # (hash() of a str varies by run)
    kw = dict(openers=openers, mode=mode, max_guesses=cap)
    whole = _run(small, tmp_path / "whole.zarr", split="off", **kw)
    parts = _run(small, tmp_path / "split.zarr", split="all", **kw)
    _same(whole, parts)
    _class_values_kept(small, whole, parts)
    counts = whole.snapshot().counts()
    if (mode, cap) in (("hard", 3), ("hard", 2)):
        assert counts["infeasible"] > 0  # the infeasible path is exercised
    if (mode, cap) == ("easy", 6):
        assert counts["exact"] == 40


def _class_values_kept(small, *stores: S.Store) -> None:
    """Every exact opener of each store has the exact value of each of its classes
    in the class checkpoint (valued whole: from the worker's solve; split: from its
    class units), they add up to its total, and they are those of a fresh solver."""
    a, g, cache = small
    lists = WordLists.load(a, g, quiet=True)
    st = stores[0]
    p = st.problem
    from solver import Solver
    from solver.table import get_table

    table = get_table(lists, "numpy", cache)[0]
    fresh = Solver(lists, p.mode, p.max_guesses, table=table)
    rows = []
    for store in stores:
        snap = store.snapshot()
        cs = ClassStore(store.path, len(store.words))
        got = {}
        for i in np.flatnonzero(snap.status == S.EXACT):
            assert has_class_values(cs, int(i), table[i], 243), store.words[i]
            r = {pt: c.total for pt, c in cs.results(int(i)).items()}
            assert p.n_answers + sum(r.values()) == snap.fields["total"][i]
            got[store.words[i]] = r
        rows.append(got)
    assert rows[0] == rows[-1]
    for w in sorted(rows[0])[:3]:
        assert rows[0][w] == {pt: v for pt, (v, _g) in fresh.class_values(w).items()}


@pytest.fixture(scope="module", params=(4, 6))
def other_length(request, tmp_path_factory):
    """A random sample of the built-in lists of 4 or 6 letters (uint8 and uint16
    tables): 50 answers, 120 more guesses, as list files."""
    length = request.param
    real = WordLists.load(length=length, quiet=True)
    rng = random.Random(2300 + length)
    answers = sorted(rng.sample(real.answers, 50))
    guesses = sorted(set(rng.sample(real.guesses, 120)) | set(answers))
    d = tmp_path_factory.mktemp(f"len{length}")
    (d / "a.txt").write_text("\n".join(answers) + "\n")
    (d / "g.txt").write_text("\n".join(guesses) + "\n")
    return str(d / "a.txt"), str(d / "g.txt"), str(d / "cache")


@pytest.mark.parametrize("mode,cap", [("easy", 6), ("hard", 6), ("strict", 5), ("easy", 3),
                                      ("hard", 3), ("strict", 4)])
def test_split_equals_whole_at_other_word_lengths(tmp_path, other_length, mode, cap):
    """Random openers of 4- and 6-letter lists: valued as classes, the store (status,
    total, depth, second guesses over 3^L patterns) equals the one valued whole."""
    words = WordLists.load(other_length[0], other_length[1], quiet=True).guesses
    openers = ",".join(random.Random(f"{mode}{cap}").sample(words, 30))
    kw = dict(openers=openers, mode=mode, max_guesses=cap)
    whole = _run(other_length, tmp_path / "whole.zarr", split="off", **kw)
    parts = _run(other_length, tmp_path / "split.zarr", split="all", **kw)
    assert whole.problem.length == parts.problem.length != 5
    _same(whole, parts)
    counts = whole.snapshot().counts()
    if cap >= 4:
        assert counts["exact"] > 0
    if (mode, cap) == ("hard", 3):
        assert counts["infeasible"] > 0  # the infeasible path is exercised


def test_a_stopped_split_run_resumes_at_six_letters(tmp_path):
    """The class checkpoint at 6 letters ([G, 729] arrays): a run stopped part way
    leaves classes checkpointed, the resumed run values none of them again and ends
    with the store valued whole."""
    real = WordLists.load(length=6, quiet=True)
    rng = random.Random(623)
    answers = sorted(rng.sample(real.answers, 60))
    guesses = sorted(set(rng.sample(real.guesses, 60)) | set(answers))
    (tmp_path / "a.txt").write_text("\n".join(answers) + "\n")
    (tmp_path / "g.txt").write_text("\n".join(guesses) + "\n")
    six = (str(tmp_path / "a.txt"), str(tmp_path / "g.txt"), str(tmp_path / "cache"))
    kw = dict(openers=",".join(rng.sample(guesses, 25)), mode="hard", max_guesses=6)
    ref = _run(six, tmp_path / "ref.zarr", split="off", **kw)
    store = tmp_path / "split.zarr"
    _Counting.calls, _Counting.stop_after = [], 50  # part way into an opener (60 ended one exactly)
    cfg = RunConfig(store=store, answers=six[0], guesses=six[1], cache_dir=six[2],
                    split="all", solver_factory=_Counting, progress_file=io.StringIO(),
                    flush_seconds=0.0, **kw)
    assert run(cfg).state == "stopped"
    first = set(_Counting.calls)
    st = S.Store.open(store)
    assert st.problem.length == 6
    cs = ClassStore(store, len(st.words))  # the word length from the store
    assert cs.n_p == 3**6
    partial = cs.partly_done(np.flatnonzero(st.status() == S.PENDING))
    assert partial, "the stop left no opener partly valued"
    saved = {(st.words[i], p) for i in partial for p in cs.results(i)}
    assert saved <= first
    _Counting.calls, _Counting.stop_after = [], None
    assert run(cfg).state == "finished"
    assert not saved & set(_Counting.calls), "checkpointed classes were valued again"
    _same(ref, S.Store.open(store))


def test_split_under_a_cutoff_values_openers_whole(tmp_path, small, capsys):
    a, g, cache = small
    store = str(tmp_path / "cut.zarr")
    common = ["--answers", a, "--guesses", g, "--cache-dir", cache]
    # an explicit cutoff with --split all: refused
    assert cli.main(["run", "--store", store, *common, "--cutoff", "150", "--split",
                     "all"]) == 2
    assert "does not go with --cutoff" in capsys.readouterr().err
    # a store's own cutoff applies on resume: a note, and nothing split
    assert cli.main(["run", "--store", store, *common, "--cutoff", "150", "--openers",
                     "aback", "--quiet"]) == 0
    assert cli.main(["run", "--store", store, *common, "--split", "all", "--openers",
                     "aback,abase"]) == 0
    err = capsys.readouterr().err
    assert "every opener is valued whole" in err and "split:" not in err
    assert not (tmp_path / "cut.zarr" / GROUP).exists()


class _Counting:
    """The real engine, counting class_value calls; SIGUSR1 after `stop_after`."""

    calls: list[tuple[str, int]] = []
    stop_after: int | None = None

    def __init__(self, lists, mode, max_guesses, table):
        self.s = default_factory(lists, mode, max_guesses, table)

    def __getattr__(self, name):
        return getattr(self.s, name)

    def class_value(self, opener, pattern):
        type(self).calls.append((opener, pattern))
        if type(self).stop_after is not None and len(type(self).calls) == type(
                self).stop_after:
            os.kill(os.getpid(), signal.SIGUSR1)
            # the solver runs in a thread beside the coordinator (the main thread, whose
            # handler sees the signal): let it, before this unit ends, on a busy machine
            time.sleep(0.5)
        return self.s.class_value(opener, pattern)


def test_a_stopped_split_run_resumes_from_its_checkpoint(tmp_path, small):
    openers = _openers(small, 30, seed=7)
    kw = dict(openers=openers, mode="hard", max_guesses=6)
    ref = _run(small, tmp_path / "ref.zarr", split="off", **kw)
    a, g, cache = small
    store = tmp_path / "split.zarr"
    _Counting.calls, _Counting.stop_after = [], 101
    cfg = RunConfig(store=store, answers=a, guesses=g, cache_dir=cache, split="all",
                    solver_factory=_Counting, progress_file=io.StringIO(),
                    flush_seconds=0.0, **kw)
    s = run(cfg)
    assert s.state == "stopped"
    first = set(_Counting.calls)
    st = S.Store.open(store)
    pending = np.flatnonzero(st.status() == S.PENDING)
    cs = ClassStore(store, len(st.words))
    partial = cs.partly_done(pending)
    assert partial, "the stop left no opener partly valued"
    saved = {(st.words[i], p) for i in partial for p in cs.results(i)}
    assert saved <= first
    _Counting.calls, _Counting.stop_after = [], None
    s = run(cfg)
    assert s.state == "finished"
    assert not saved & set(_Counting.calls), "checkpointed classes were valued again"
    _same(ref, S.Store.open(store))


def test_combine_follows_solves_status_rules():
    def r(status, total=-1, depth=-1):
        return ClassResult(0, 0, status, total, depth)

    ex, inf, lb, ub, nf = S.EXACT, S.INFEASIBLE, S.LOWER_BOUND, S.UPPER_BOUND, S.FAILED
    assert combine(10, [r(ex, 5, 2), r(ex, 7, 4)]) == (ex, 22, 4)
    assert combine(10, [r(ex, 5, 2), r(ub, 7, 3)]) == (ub, 22, 3)
    assert combine(10, [r(ex, 5, 2), r(inf), r(ub, 7, 3)]) == (inf, -1, -1)
    assert combine(10, [r(ex, 5, 2), r(nf)]) == (nf, -1, -1)
    assert combine(10, [r(ex, 5, 2), r(lb, 90)]) == (lb, 105, -1)
    assert combine(3, []) == (ex, 3, 1)  # only the opener itself was an answer


def test_checkpoint_word_round_trip_and_range():
    for st, total, depth, second in [(S.EXACT, 0, 1, 0), (S.EXACT, 2**32 - 2, 254, 2**21 - 2),
                                     (S.INFEASIBLE, -1, -1, -1), (S.UPPER_BOUND, 7, 3, 5)]:
        r = ClassResult(3, 17, st, total, depth, second)
        back = unpack(3, 17, pack(r))
        assert (back.status, back.total, back.depth, back.second) == (st, total, depth,
                                                                       second)
    big = unpack(0, 0, pack(ClassResult(0, 0, S.LOWER_BOUND, 2**40)))
    assert big.status == S.LOWER_BOUND and big.total == 2**32 - 2  # still a lower bound
    with pytest.raises(ValueError):
        pack(ClassResult(0, 0, S.EXACT, 5, 300, 1))


def test_checkpoint_survives_damage_by_valuing_again(tmp_path, small):
    st = _run(small, tmp_path / "s.zarr", split="off", openers="aback")
    n = len(st.words)
    a = st.index_of("aback")  # exact, valued whole: its class values are kept too
    assert a // CHUNK_ROWS not in (0, 20 // CHUNK_ROWS)
    cs = ClassStore(st.path, n)
    cs.write([ClassResult(0, 5, S.EXACT, 9, 3, 1), ClassResult(20, 7, S.INFEASIBLE)])
    again = ClassStore(st.path, n)
    assert again.results(0)[5].total == 9 and again.results(20)[7].status == S.INFEASIBLE
    assert again.partly_done(range(n)) == {0, 20, a}
    assert sorted(again._chunks) == [0, 20 // CHUNK_ROWS, a // CHUNK_ROWS]  # only those
    chunk = st.path / GROUP / "value" / "c" / "0" / "0"  # the chunk of opener 0
    assert chunk.is_file()
    chunk.write_bytes(b"\0garbage")
    damaged = ClassStore(st.path, n)
    assert damaged.partly_done(range(n)) == {20, a} and "damaged" in damaged.notes[0]
    (st.path / GROUP / "value" / "zarr.json").unlink()  # as if killed while created
    broken = ClassStore(st.path, n)
    assert broken.partly_done(range(n)) == set() and "unusable" in broken.notes[0]
    broken.write([ClassResult(1, 2, S.EXACT, 4, 2, 0)])  # made again
    assert ClassStore(st.path, n).partly_done(range(n)) == {1}
    S.Store.open(st.path)  # the store itself is untouched and valid


def test_a_best_run_plans_its_exact_openers_first_and_may_split_them(tmp_path, small):
    """Under cutoffs that follow the best openers, the openers asked exact go first
    (most expensive first) and may go out as classes; every other opener follows
    whole, in the queue's order (most promising first)."""
    from solver.run.cutoffs import Cutoffs
    from solver.run.work import plan_work
    from solver.table import get_table

    a, g, cache = small
    lists = WordLists.load(a, g, quiet=True)
    table = get_table(lists, "numpy", cache)[0]
    store, _ = S.Store.open_or_create(tmp_path / "p.zarr", lists, "easy", 6)
    engine = default_factory(lists, "easy", 6, table)
    queue = list(range(40))
    exact = frozenset(queue[5:10])
    for how in ("all", "off"):
        cfg = RunConfig(store=store.path, split=how)
        work, classes, order, split, _b, settled = plan_work(
            cfg, lists, table, store, queue, 3, engine, None, Cutoffs(top=2, exact=exact))
        assert classes is not None and not settled
        assert set(order[:5]) == exact and order[5:] == [i for i in queue if i not in exact]
        assert split == (set(exact) if how == "all" else set())
        popped = []
        while work.more() and len(work):
            popped += [u.index for u in work.pop()]
            for sp in work.splits.values():  # as if the heads came back: the big
                if sp.big:  # classes go out too
                    work._release(sp)
        whole = [i for i in popped if i not in exact]
        assert whole == order[5:]  # after every exact one's units, in order
        assert max(k for k, i in enumerate(popped) if i in exact) < popped.index(whole[0])
    store.unlock()


def test_plan_splits_what_exceeds_a_share():
    costs = {0: 100.0, 1: 10.0, 2: 10.0, 3: 5.0}  # total 125
    assert plan(costs, 1, "auto", set()) == set()  # one solving rank: nothing to gain
    assert plan(costs, 2, "auto", set(), fraction=1.0) == {0}  # share 62.5
    assert plan(costs, 8, "auto", set(), fraction=1.0) == {0}  # share 15.6
    assert plan(costs, 16, "auto", set(), fraction=1.0) == {0, 1, 2}  # share 7.8
    assert plan(costs, 16, "auto", set(), fraction=0.5) == {0, 1, 2, 3}
    assert plan(costs, 8, "auto", set()) == {0, 1, 2}  # the default: a third of the share
    assert plan(costs, 4, "off", {3}) == {3}  # a partly valued opener is finished so
    assert plan(costs, 4, "all", set()) == {0, 1, 2, 3}


def test_head_gates_the_big_classes_and_an_infeasible_head_settles(small):
    from solver.table import get_table

    a, g, cache = small
    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", cache)
    i = lists.guess_id("aback")
    sp = Split(i, classes_of(table[i], 243))
    make_units(sp, lambda _p, s: float(class_cost(s, "easy")))
    sizes = dict(sp.classes)
    assert sp.head and sp.big
    assert max(sizes[p] for p in sp.head) <= min(sizes[u[0]] for u in sp.big)
    work = Work(Variant(5, "easy"), len(lists.answers), table)
    assert work.add_split(i, {}, 5.0) is None
    assert len(work) == 1 and work.more()  # only the head; the big classes wait
    unit, = work.pop()
    assert unit == Classes(i, sp.head) and not len(work) and work.more()
    first = unit.patterns[0]
    rec, err = work.on_class(ClassResult(i, first, S.INFEASIBLE), None)
    assert rec.status == S.INFEASIBLE and rec.total == -1 and err is None
    assert not work.more()  # the big classes never go out
    assert work.on_class(ClassResult(i, unit.patterns[1], S.EXACT, 3, 2, 0), None) is None
    # without a head, every class goes out at once; one settling the opener drops
    # the others still queued
    j = lists.guess_id("abase")
    sp = Split(j, classes_of(table[j], 243))
    work.add_split(j, {p: ClassResult(j, p, S.EXACT, 1, 1, 0) for p in (
        sp.classes[k][0] for k in range(len(sp.classes) - 3))}, 5.0)  # 3 left: all big
    assert len(work) == 3
    first, = work.pop()
    rec, _err = work.on_class(ClassResult(j, first.patterns[0], S.INFEASIBLE), None)
    assert rec.status == S.INFEASIBLE and not len(work) and not work.more()


def test_memo_rule():
    gib = 2**30
    assert default_memo_mb(64 * gib, 64) == 0.5 * 64 * 1024 / 64 - 250
    assert default_memo_mb(4 * gib, 64) == MEMO_MIN_MB
    assert default_memo_mb(1024 * gib, 1) == MEMO_MAX_MB
    env = {"SLURM_MEM_PER_NODE": "2048"}
    assert node_memory_bytes(env) == min(2048 * 2**20, node_memory_bytes({}))
    env = {"SLURM_MEM_PER_CPU": "100", "SLURM_CPUS_ON_NODE": "4"}
    assert node_memory_bytes(env) == min(400 * 2**20, node_memory_bytes({}))


def test_memo_mb_reaches_the_engine(tmp_path, small):
    from solver.search.engine import memo_entries_for

    a, g, cache = small
    many = ",".join(WordLists.load(a, g, quiet=True).guesses[:300])
    for mb, openers, want in ((10.0, "aback", 10.0), (None, "aback", MEMO_MIN_MB),
                              (None, many, None)):
        cfg = RunConfig(store=tmp_path / f"m{mb}{len(openers)}.zarr", answers=a, guesses=g,
                        cache_dir=cache, openers=openers, memo_mb=mb,
                        progress_file=io.StringIO())
        s = run(cfg)
        if want is None:  # 300 exact openers: the node's rule, or their 3M entries
            want = min(default_memo_mb(node_memory_bytes(), 1), work_memo_mb(300, 0, 1))
            assert want > MEMO_MIN_MB
        assert s.memo_mb == want
        assert s.stats["memo_entries"] == memo_entries_for(want)


def test_memo_follows_the_work():
    """A rank's memo is what its share of the work stores (with headroom), at least
    the engine's default: a big memo costs page faults, not speed."""
    assert work_memo_mb(1, 0, 1) == MEMO_MIN_MB
    one = work_memo_mb(300, 0, 1)
    assert one == pytest.approx(8 * 300 * 10_000 * 36 / 2**20)
    assert work_memo_mb(300, 0, 3) == pytest.approx(one / 3)
    assert work_memo_mb(0, 30_000, 1) == pytest.approx(one)  # 100 cutoff ones: 1 exact


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_affinity_bundles_openers_sharing_their_biggest_class(small, mode):
    from solver.run.costs import class_sizes, opener_cost
    from solver.run.split import affinity, bundle_cost
    from solver.table import get_table

    a, g, cache = small
    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", cache)
    costs = {i: opener_cost(table[i], mode, 243) for i in range(len(lists.guesses))}
    share = sum(costs.values()) / 8
    bundles = affinity(table, costs, mode, share, 243)
    assert len(bundles) >= 3

    def biggest(i):
        cnt = class_sizes(table[i], 243)
        p = int(np.argmax(cnt))
        return p, frozenset(np.flatnonzero(table[i] == p).tolist())

    seen = set()
    for b in bundles:
        assert len(b) >= 2 and not seen & set(b)
        seen |= set(b)
        assert len({biggest(i)[1] for i in b}) == 1  # the very same answers
        if mode != "easy":
            assert all(biggest(i)[0] == 0 for i in b)  # all grey: no constraint
        assert bundle_cost(costs, b, table, mode, 243) <= share
        assert bundle_cost(costs, b, table, mode, 243) < sum(costs[i] for i in b)
    tight = affinity(table, costs, mode, min(costs.values()), 243)  # nothing fits a share
    assert tight == []


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_a_bundle_pays_its_shared_class_once(small, mode):
    """What bundles are for, and what bench/sim_schedule.py --after-* counts on: the
    second opener of a bundle, solved after the first by the same solver (as one rank
    solves them back to back), finds the shared class in the memo: the same value as
    solved fresh, with fewer nodes. bundles_of (the run's plan) bundles only with
    more than one solving rank, and only the openers it is given."""
    from solver import Solver
    from solver.run.costs import opener_cost
    from solver.run.work import bundles_of
    from solver.table import get_table

    a, g, cache = small
    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", cache)
    costs = {i: opener_cost(table[i], mode, 243) for i in range(len(lists.guesses))}
    whole = sorted(costs, key=lambda i: (-costs[i], i))
    assert bundles_of(table, costs, whole, Variant(5, mode), 1) == {}
    got = bundles_of(table, costs, whole, Variant(5, mode), 8)
    pairs = sorted({tuple(b[:2]) for b in got.values()})
    assert len(pairs) >= 3 and all(got[i] == got[j] for i, j in pairs)
    assert bundles_of(table, costs, [i for i in whole if i not in got], Variant(5, mode),
                      8) == {}
    saved = 0
    for first, second in pairs:
        fresh = Solver(lists, mode=mode, max_guesses=6, table=table)
        alone = fresh.solve(lists.guesses[second])
        rank = Solver(lists, mode=mode, max_guesses=6, table=table)
        rank.solve(lists.guesses[first])
        n0 = rank.stats["nodes"]
        after = rank.solve(lists.guesses[second])
        assert (after.status, after.total) == (alone.status, alone.total)
        assert rank.stats["nodes"] - n0 <= fresh.stats["nodes"]
        saved += fresh.stats["nodes"] - (rank.stats["nodes"] - n0)
    assert saved > 0


@pytest.mark.parametrize("mode,cap", [("easy", 6), ("hard", 6), ("strict", 6), ("easy", 3),
                                      ("hard", 3), ("easy", 0)])
def test_classes_in_parts_equal_whole_openers(tmp_path, small, mode, cap):
    """--parts 3 (every class of more than two answers: a quick bound, then 3 parts of
    its second guesses) gives every opener's status and total as valued whole; the
    depth and second guesses are those of an optimal strategy, which may be another
    one of equal total, so only their range is checked."""
    a, g, cache = small
    openers = _openers(small, 30, seed=f"parts{mode}{cap}")
    kw = dict(openers=openers, mode=mode, max_guesses=cap)
    whole = _run(small, tmp_path / "whole.zarr", split="off", **kw)
    out = io.StringIO()
    s = run(RunConfig(store=tmp_path / "parts.zarr", answers=a, guesses=g, cache_dir=cache,
                      progress_file=out, split="all", parts=3, **kw))
    assert s.exit_code == 0 and s.state == "finished", out.getvalue()
    assert s.parts >= 4 * 10, out.getvalue()  # a quick bound and 3 parts, many classes
    assert "part(s) of classes valued in parts" in out.getvalue()
    got, ref = S.Store.open(tmp_path / "parts.zarr").snapshot(), whole.snapshot()
    assert (got.status == ref.status).all()
    assert (got.fields["total"] == ref.fields["total"]).all()
    ex = got.status == S.EXACT
    assert ex.any() or cap == 3  # (cap 3: mostly infeasible, some exact in easy mode)
    assert (got.fields["depth"][ex] >= 2).all()
    if cap:
        assert (got.fields["depth"][ex] <= cap).all()


def test_a_class_without_a_quick_bound_goes_out_whole_and_settled_parts_are_dropped(small):
    """The Work queue of classes in parts: the quick bound comes first; with none found
    the class goes out whole; a quick bound queues its parts, and the class's result
    (the least found, CPU summed) comes with the last part; an opener settled by
    another class drops its parts, queued or in flight, so the run can end."""
    from solver.run.split import QUICK, PartResult
    from solver.table import get_table

    a, g, cache = small
    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", cache)

    def n_big(k: int) -> int:
        sp = Split(k, classes_of(table[k], 3**lists.length))
        make_units(sp, lambda _p, s: float(class_cost(s, "easy")))
        return len(sp.big)

    i = max(range(len(lists.guesses)), key=n_big)  # the most classes valued alone
    work = Work(Variant.of(lists), len(lists.answers), table, parts=2, share=1.0, workers=4)
    assert work.add_split(i, {}, 1.0) is None
    units = []
    while len(work):
        units += work.pop()
    head = [u for u in units if isinstance(u, Classes)]
    quick = [u for u in units if isinstance(u, Part)]
    # the head is valued: the big classes are released, each as a quick bound
    for u in head:
        for p in u.patterns:
            work.on_class(ClassResult(i, p, S.EXACT, 1, 2, 0), None)
    while len(work):
        quick += [u for u in work.pop() if isinstance(u, Part)]  # (classes of 1-2 go whole)
    assert quick and all((u.part, u.parts, u.below) == (0, -QUICK, 0) for u in quick)
    big = [u.pattern for u in quick]
    # no quick bound for the first class: its parts go out without one (-1); when
    # no part finds a strategy either, the class goes out whole (for its status)
    assert work.on_part(PartResult(i, big[0], 0, -QUICK, None, 0.5), None) == (None, None)
    unbound = work.pop() + work.pop()
    assert sorted(unbound) == [Part(i, big[0], 0, 2, -1), Part(i, big[0], 1, 2, -1)]
    assert work.on_part(PartResult(i, big[0], 0, 2, None, 1.0), None) == (None, None)
    assert work.on_part(PartResult(i, big[0], 1, 2, None, 1.0), None) == (None, None)
    assert work.pop() == [Classes(i, (big[0],))]
    assert len(big) > 2
    # a quick bound for the second: two parts against it, then the least of all
    p = big[1]
    assert work.on_part(PartResult(i, p, 0, -QUICK, (50, 4, 7, False), 0.5), None) == (None, None)
    parts = work.pop() + work.pop()
    assert sorted(parts) == [Part(i, p, 0, 2, 50), Part(i, p, 1, 2, 50)]
    assert work.on_part(PartResult(i, p, 0, 2, None, 1.0), None) == (None, None)
    cr, err = work.on_part(PartResult(i, p, 1, 2, (48, 5, 9, False), 2.0, rank=3), None)
    assert err is None and (cr.status, cr.total, cr.depth, cr.second) == (S.EXACT, 48, 5, 9)
    assert cr.cpu_seconds == 3.5 and cr.rank == 3
    # the third's quick bound is back, its parts queued: still work to do
    work.on_part(PartResult(i, big[2], 0, -QUICK, (60, 4, 7, False), 0.5), None)
    assert work.more()
    # an infeasible class settles the opener: whatever is out is dropped
    work.on_class(ClassResult(i, big[0], S.INFEASIBLE), None)
    assert not work.more()


def test_parts_rule_and_the_cost_model():
    """parts_for: forced N for classes of more than two answers; auto only above a
    rank's share, in parts of a quarter of it, capped by the ranks and MAX_PARTS.
    class_cost rises with size, steeply above ~600 answers (hard above easy)."""
    from solver.run.split import MAX_PARTS, parts_for

    assert parts_for(2, 5.0, 10.0, 8, 3) == 1 and parts_for(3, 5.0, 10.0, 8, 3) == 3
    assert parts_for(900, 30.0, 1e9, 100, None) == 1  # under the share: whole
    assert parts_for(900, 30.0, 1.0, 1, None) == 1  # one solving rank: whole
    c = float(class_cost(1369, "easy"))
    share = c / 2.5
    assert parts_for(1369, c, share, 1000, None) == 10  # ceil(4 * 2.5)
    assert parts_for(1369, c, share, 6, None) == 6
    assert parts_for(1369, c, c / 100, 10_000, None) == MAX_PARTS
    sizes = np.arange(1, 2316)
    for mode in ("easy", "hard"):
        cost = class_cost(sizes, mode)
        assert (np.diff(cost) > 0).all()
    # the steep part: 1369 answers cost far more than twice 1000 (measured ~9x)
    assert class_cost(1369, "easy") > 4 * class_cost(1000, "easy")


@pytest.mark.parametrize("broken", ["class_value", "class_part"])
def test_an_error_in_a_class_or_a_part_fails_its_opener_only(tmp_path, small, broken):
    """A class (or a part of one) that raises fails its opener, with the message in
    the store's errors; the other openers are valued as usual."""
    a, g, cache = small
    words = _openers(small, 6, seed="broken").split(",")
    bad = words[0]

    class Broken:
        def __init__(self, lists, mode, max_guesses, table):
            self.s = default_factory(lists, mode, max_guesses, table)

        def __getattr__(self, name):
            real = getattr(self.s, name)
            if name != broken:
                return real

            def call(opener, *rest, **kw):
                if opener == bad:
                    raise RuntimeError(f"broken {name}")
                return real(opener, *rest, **kw)
            return call

    out = io.StringIO()
    s = run(RunConfig(store=tmp_path / "s.zarr", answers=a, guesses=g, cache_dir=cache,
                      progress_file=out, openers=",".join(words), split="all", parts=2,
                      solver_factory=Broken))
    assert s.state == "finished" and s.failed == 1, out.getvalue()
    st = S.Store.open(tmp_path / "s.zarr")
    snap = st.snapshot()
    i = st.words.index(bad)
    assert snap.status[i] == S.FAILED
    assert f"broken {broken}" in st.group.attrs["errors"][bad]
    others = [st.words.index(w) for w in words[1:]]
    assert (snap.status[others] == S.EXACT).all()


def test_a_quick_bound_sizes_the_parts_again():
    """Auto parts: a big class predicted under PART_SHARE of the share, but above
    PROBE_SHARE, gets a quick bound first; its total sizes the parts (costs.
    cost_after_quick): many guesses per answer, many parts; few, one part."""
    from solver.run.costs import cost_after_quick
    from solver.run.split import PART_SHARE, PROBE_SHARE, QUICK, PartResult, parts_for

    row = np.array([0] * 900 + [1] * 5 + [2] * 3, dtype=np.uint8)  # one big class
    table = row[None, :]
    cost = float(class_cost(900, "hard"))
    share = cost / (PART_SHARE + PROBE_SHARE) * 2  # between the two thresholds
    assert PROBE_SHARE * share < cost < PART_SHARE * share
    for total in (2970, 2700):
        work = Work(Variant(5, "hard"), len(row), table, parts=None, share=share, workers=100)
        assert work.add_split(0, {}, cost) is None
        head, = work.pop()
        for p in head.patterns:
            work.on_class(ClassResult(0, p, S.EXACT, 2, 2, 0), None)
        unit, = work.pop()
        assert unit == Part(0, 0, 0, -QUICK, 0)  # the quick bound first
        assert work.on_part(PartResult(0, 0, 0, -QUICK, (total, 6, 7, False), 0.3),
                            None) == (None, None)
        n = parts_for(900, cost_after_quick(900, total, "hard"), share, 100, None)
        units = []
        while len(work):
            units += work.pop()
        assert sorted(units) == [Part(0, 0, j, n, total) for j in range(n)]
        assert (n > 4) if total == 2970 else (n == 1)


def test_easy_mode_releases_the_big_classes_with_the_head(small):
    """Without the gate (easy mode, cap 6 or more) a split opener's head and big
    classes are queued together; hard mode and short caps keep the gate."""
    from solver.run.work import gate_heads
    from solver.table import get_table

    assert not gate_heads(Variant(5, "easy", 6)) and not gate_heads(Variant(5, "easy", 0))
    assert gate_heads(Variant(5, "easy", 5)) and gate_heads(Variant(5, "hard", 6))
    assert gate_heads(Variant(5, "strict", 0))
    a, g, cache = small
    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", cache)
    i = lists.guess_id("aback")
    work = Work(Variant(5, "easy"), len(lists.answers), table, gate=False)
    assert work.add_split(i, {}, 5.0) is None
    sp = work.splits[i]
    units = []
    while len(work):
        units += work.pop()
    assert units[0] == Classes(i, sp.head)  # the head first, then every big class
    assert sorted(u.patterns for u in units[1:]) == sorted(
        (p,) for p, _s in sp.classes if p not in sp.head)
    assert not work.more()


def test_a_quick_bound_that_finds_nothing_tries_more_candidates(small):
    """The worker's quick bound: when none of the first QUICK candidates is within
    the cap, QUICK_RETRY times as many are tried; parts are passed through."""
    from solver.run.config import RunConfig
    from solver.run.split import QUICK
    from solver.run.worker import QUICK_RETRY, Worker
    from solver.table import get_table

    a, g, cache = small
    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", cache)
    calls = []

    class Stub:
        def __init__(self, *_a):
            pass

        def class_part(self, word, pattern, part, parts, below=None):
            calls.append((part, parts, below))
            if parts == -QUICK * QUICK_RETRY or parts > 0:
                return (40, 5, lists.guesses[3], False)
            return None

    cfg = RunConfig(store="unused", answers=a, guesses=g, solver_factory=Stub)
    w = Worker(cfg, lists, table, 1)
    pr, err = w.solve_part(0, 7, 0, -QUICK, 0)
    assert err is None and pr.found == (40, 5, 3, False) and pr.parts == -QUICK
    assert calls == [(0, -QUICK, None), (0, -QUICK * QUICK_RETRY, None)]
    calls.clear()
    pr, _ = w.solve_part(0, 7, 2, 4, -1)  # a part with no bound: below None
    assert calls == [(2, 4, None)] and pr.found == (40, 5, 3, False)
    calls.clear()
    w.solve_part(0, 7, 1, 4, 55)
    assert calls == [(1, 4, 55)]


def test_a_probed_class_with_no_quick_bound_goes_out_whole():
    """A class given a quick bound only to size it (one part): when the bound finds
    nothing, the class goes out whole (the same search, and it gives the status)."""
    from solver.run.split import PART_SHARE, PROBE_SHARE, QUICK, PartResult

    row = np.array([0] * 900 + [1] * 5 + [2] * 3, dtype=np.uint8)
    table = row[None, :]
    cost = float(class_cost(900, "hard"))
    work = Work(Variant(5, "hard"), len(row), table, parts=None,
                share=cost / (PART_SHARE + PROBE_SHARE) * 2, workers=100)
    work.add_split(0, {}, cost)
    head, = work.pop()
    for p in head.patterns:
        work.on_class(ClassResult(0, p, S.EXACT, 2, 2, 0), None)
    assert work.pop() == [Part(0, 0, 0, -QUICK, 0)]
    assert work.on_part(PartResult(0, 0, 0, -QUICK, None, 0.3), None) == (None, None)
    assert work.pop() == [Classes(0, (0,))] and not len(work)


def test_progress_counts_classes_and_parts(tmp_path, small):
    """A split run's progress lines count the classes and parts valued, which move
    while a big opener is still open."""
    a, g, cache = small
    out = io.StringIO()
    cfg = RunConfig(store=str(tmp_path / "p.zarr"), answers=a, guesses=g, cache_dir=cache,
                    progress_file=out, progress_seconds=0.0, split="all", parts=2,
                    openers=_openers(small, 3, seed="progress"))
    assert run(cfg).exit_code == 0
    lines = [x for x in out.getvalue().splitlines() if "openers (" in x and "ETA" in x]
    got = [re.search(r"; (\d+) classes and (\d+) parts valued", x) for x in lines]
    counts = [(int(m[1]), int(m[2])) for m in got if m]
    assert counts and counts == sorted(counts) and counts[-1][1] > 0


def test_a_split_opener_tells_the_eta_what_its_classes_left_cost(small):
    """Work.split_left, the ETA's view of the split openers: each class still to
    value at its predicted cost, and per opener the predicted and CPU seconds of its
    classes valued (an untimed one has no say); a finished opener leaves nothing to
    value but keeps what its classes took."""
    from solver.table import get_table

    a, g, cache = small
    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", cache)
    i = lists.guess_id("aback")
    work = Work(Variant(5, "easy"), len(lists.answers), table)
    assert work.split_left()[:2] == ({}, {})
    assert work.add_split(i, {}, 5.0) is None
    each = {p: float(class_cost(s, "easy")) for p, s in classes_of(table[i], 243)}
    left, valued, unit_cost = work.split_left()
    assert left == {i: pytest.approx(sum(each.values()))} and valued == {}
    head, = work.pop()
    assert unit_cost(head) == pytest.approx(sum(each[p] for p in head.patterns))
    big = max(each, key=each.__getitem__)
    assert unit_cost(Part(i, big, 0, 4, -1)) == pytest.approx(each[big] / 4)
    p0, p1 = head.patterns[:2]
    work.on_class(ClassResult(i, p0, S.EXACT, 3, 2, 0, cpu_seconds=3 * each[p0]), None)
    work.on_class(ClassResult(i, p1, S.EXACT, 3, 2, 0, cpu_seconds=float("nan")), None)
    left, valued, _ = work.split_left()
    assert left == {i: pytest.approx(sum(each.values()) - each[p0] - each[p1])}
    assert valued == {i: [pytest.approx(each[p0]), pytest.approx(3 * each[p0])]}
    rec, _err = work.on_class(ClassResult(i, head.patterns[2], S.INFEASIBLE), None)
    assert rec.status == S.INFEASIBLE
    left, valued, _ = work.split_left()
    assert left == {} and set(valued) == {i}


def test_a_run_of_one_split_opener_shows_an_eta(tmp_path, small):
    """One opener valued as classes: no opener is valued whole before the end, so
    no kind has a mean, and its progress said 'ETA ?' throughout. Once a class is
    back its classes left are costed (eta.py)."""
    a, g, cache = small
    out = io.StringIO()
    cfg = RunConfig(store=str(tmp_path / "one.zarr"), answers=a, guesses=g,
                    cache_dir=cache, progress_file=out, progress_seconds=0.0, split="all",
                    openers=_openers(small, 1, seed="eta"))
    assert run(cfg).exit_code == 0
    etas = re.findall(r"ETA ([^,]+), best", out.getvalue())
    assert etas and any(re.fullmatch(r"(\d+m)?\d+s", e) for e in etas[:-1]), etas


def test_progress_names_the_unit_in_flight_longest(tmp_path, small, monkeypatch):
    """A split opener's classes can be out for hours while no count moves: the
    progress line names the unit out longest, as an opener's word and feedback
    pattern (here shown from the first second on)."""
    import solver.run.text as text

    monkeypatch.setattr(text, "LONGEST_SHOWN", 0.0)
    a, g, cache = small
    words = _openers(small, 3, seed="flight")
    out = io.StringIO()
    cfg = RunConfig(store=str(tmp_path / "f.zarr"), answers=a, guesses=g, cache_dir=cache,
                    progress_file=out, progress_seconds=0.0, split="all", openers=words)
    assert run(cfg).exit_code == 0
    named = re.findall(r"; in flight longest: ([a-z]+)(:[BYG]{5})?(.*) \(\d+s\)$",
                       out.getvalue(), re.M)
    assert named, out.getvalue()[-2000:]
    assert {w for w, _p, _rest in named} <= set(words.split(","))
    assert any(p for _w, p, _rest in named)  # a class or a part, by its pattern


def test_a_resumed_best_run_counts_an_opener_valued_again_once(tmp_path, small):
    """A book resumed over a store whose exact openers lack class values (made before
    they were kept) values those openers again; their totals must not count twice
    among the K best, or the cutoff falls below the K-th best and the openers valued
    after it get bounds too weak to prove the K best (the 6-letter book: 'proves only
    the 6 best openers, not 10'). Every lower bound ends at or above the final
    cutoff, one past the K-th best exact total."""
    import shutil

    from solver.book import proven_top

    a, g, _cache = small
    words = WordLists.load(a, g, quiet=True).guesses
    first = ",".join(words[:40])
    popular = tuple(words[:12])
    store = tmp_path / "b.zarr"
    kw = dict(best=3, exact=popular, fill_classes=True, split="off")
    _run(small, store, openers=first, **kw)
    shutil.rmtree(store / "classes")  # as a store written before class values were kept
    out = io.StringIO()
    cfg = RunConfig(store=store, answers=a, guesses=g, cache_dir=small[2], progress_file=out,
                    openers="all", **kw)
    s = run(cfg)
    assert s.state == "finished", out.getvalue()
    st = S.Store.open(store)
    snap = st.snapshot()
    exact = np.sort(snap.fields["total"][snap.status == S.EXACT])
    bounds = snap.fields["total"][snap.status == S.LOWER_BOUND]
    assert len(bounds) and s.cutoff == exact[2] + 1
    assert bounds.min() >= s.cutoff and proven_top(snap) >= 3
    # the same as one run from scratch
    fresh = _run(small, tmp_path / "fresh.zarr", openers="all", **kw).snapshot()
    assert sorted(fresh.fields["total"][fresh.status == S.EXACT])[:3] == list(exact[:3])


class _CutShort:
    """The real engine. The first opener valued whole raises SIGUSR1 once `after` of
    its classes are valued, and waits for the run to abandon it (grace 0) before
    its next class: a stop that cuts a whole opener short."""

    told: list[tuple[str, int]] = []
    after = 3

    def __init__(self, lists, mode, max_guesses, table):
        import threading

        self.s = default_factory(lists, mode, max_guesses, table)
        self.asked = threading.Event()

    def __getattr__(self, name):
        return getattr(self.s, name)

    def request_stop(self) -> None:
        self.asked.set()
        self.s.request_stop()

    def solve(self, opener, cutoff=None, progress=None, on_class=None):
        def tell(p, *rest) -> None:
            on_class(p, *rest)
            type(self).told.append((opener, p))
            if len(type(self).told) == type(self).after:
                os.kill(os.getpid(), signal.SIGUSR1)
                assert self.asked.wait(120), "the run did not abandon the opener"

        return self.s.solve(opener, cutoff, progress,
                            on_class=None if on_class is None else tell)


def test_a_whole_opener_cut_short_keeps_its_valued_classes(tmp_path, small):
    """A stop past the grace cuts an opener valued whole short: the classes it had
    valued go to the class checkpoint, the opener stays pending, and the resumed run
    values it as classes without valuing those again, ending with the store an
    uninterrupted run makes."""
    words = WordLists.load(small[0], small[1], quiet=True).guesses
    kw = dict(openers=",".join(words[:4]), mode="easy", max_guesses=6)
    ref = _run(small, tmp_path / "ref.zarr", split="off", **kw)
    a, g, cache = small
    store = tmp_path / "cut.zarr"
    _CutShort.told = []
    cfg = RunConfig(store=store, answers=a, guesses=g, cache_dir=cache, grace=0.0,
                    solver_factory=_CutShort, progress_file=io.StringIO(),
                    flush_seconds=0.0, **kw)
    assert run(cfg).state == "stopped"
    st = S.Store.open(store)
    cut = _CutShort.told[0][0]  # the first opener solved
    assert st.status()[st.index_of(cut)] == S.PENDING
    cs = ClassStore(store, len(st.words))
    kept = cs.results(st.index_of(cut))
    assert sorted(kept) == sorted(p for w, p in _CutShort.told if w == cut)
    assert len(kept) == _CutShort.after
    _Counting.calls, _Counting.stop_after = [], None
    cfg = RunConfig(store=store, answers=a, guesses=g, cache_dir=cache,
                    solver_factory=_Counting, progress_file=io.StringIO(), **kw)
    assert run(cfg).state == "finished"
    again = {p for w, p in _Counting.calls if w == cut}
    assert again and not again & set(kept), "kept classes were valued again"
    _same(ref, S.Store.open(store))


class _CutClasses(_CutShort):
    """The same for a split opener: the `after`-th class valued alone raises
    SIGUSR1 and waits for the abandon, so the unit in flight is cut short in it."""

    calls: list[tuple[str, int]] = []

    def class_value(self, opener, pattern):
        type(self).calls.append((opener, pattern))
        if len(type(self).calls) == type(self).after:
            os.kill(os.getpid(), signal.SIGUSR1)
            assert self.asked.wait(120), "the run did not abandon the unit"
        return self.s.class_value(opener, pattern)


def test_a_split_unit_cut_short_keeps_the_classes_before_the_stop(tmp_path, small):
    words = WordLists.load(small[0], small[1], quiet=True).guesses
    kw = dict(openers=",".join(words[:3]), mode="hard", max_guesses=6)
    ref = _run(small, tmp_path / "ref.zarr", split="off", **kw)
    a, g, cache = small
    store = tmp_path / "cut.zarr"
    _CutClasses.calls, _CutClasses.after = [], 4
    cfg = RunConfig(store=store, answers=a, guesses=g, cache_dir=cache, grace=0.0,
                    split="all", solver_factory=_CutClasses, progress_file=io.StringIO(),
                    flush_seconds=0.0, **kw)
    assert run(cfg).state == "stopped"
    st = S.Store.open(store)
    cs = ClassStore(store, len(st.words))
    # the first unit is the first opener's head (its small classes, one unit): the
    # fourth class is cut short in the unit that valued the three before it
    assert len({w for w, _p in _CutClasses.calls[:4]}) == 1
    valued = set(_CutClasses.calls[:3])
    kept = {(w, p) for w in {w for w, _p in valued} for p in cs.results(st.index_of(w))}
    assert kept == valued
    _resume_split(small, store, kept, ref, **kw)


def _resume_split(small, store, kept: set, ref, **kw) -> None:
    """The same split run resumed on `store` values none of the classes `kept` and
    ends with the store `ref` of an uninterrupted run."""
    a, g, cache = small
    _Counting.calls, _Counting.stop_after = [], None
    cfg = RunConfig(store=store, answers=a, guesses=g, cache_dir=cache, split="all",
                    solver_factory=_Counting, progress_file=io.StringIO(), **kw)
    assert run(cfg).state == "finished"
    assert not kept & set(_Counting.calls), "kept classes were valued again"
    _same(ref, S.Store.open(store))


class _Killed(BaseException):
    """What a kill is to the solver: nothing of its unit comes back."""


class _DiesAt(_Counting):
    """The real engine; its `after`-th class valued dies (_Killed), as a rank killed
    by the scheduler or the kernel would, without a stop or an answer."""

    after = 4

    def class_value(self, opener, pattern):
        type(self).calls.append((opener, pattern))
        if len(type(self).calls) == type(self).after:
            raise _Killed
        return self.s.class_value(opener, pattern)


def test_classes_valued_in_a_unit_survive_a_kill_in_it(tmp_path, small, monkeypatch):
    """A unit of several classes hands rank 0 what it has valued as it goes
    (worker.PARTIAL_EVERY; every class here): a solver that dies in the unit's
    fourth class leaves the three before it in the checkpoint, and the same command
    then values only the rest, ending with the store of an uninterrupted run."""
    import solver.run.worker as worker

    monkeypatch.setattr(worker, "PARTIAL_EVERY", 0.0)
    words = WordLists.load(small[0], small[1], quiet=True).guesses
    kw = dict(openers=",".join(words[:3]), mode="hard", max_guesses=6)
    ref = _run(small, tmp_path / "ref.zarr", split="off", **kw)
    a, g, cache = small
    store = tmp_path / "killed.zarr"
    _DiesAt.calls = []
    cfg = RunConfig(store=store, answers=a, guesses=g, cache_dir=cache, split="all",
                    solver_factory=_DiesAt, progress_file=io.StringIO(), **kw)
    run(cfg)
    # the first unit is the first opener's head, one unit of its small classes
    assert len({w for w, _p in _DiesAt.calls[:4]}) == 1
    st = S.Store.open(store)
    cs = ClassStore(store, len(st.words))
    w = _DiesAt.calls[0][0]
    kept = {(w, p) for p in cs.results(st.index_of(w))}
    assert kept == set(_DiesAt.calls[:3])
    _resume_split(small, store, kept, ref, **kw)


class _StealAt(_CutShort):
    """The real engine; its `after`-th class valued calls `hook` (from the solve's
    own thread, as rank 0's steal would land from another)."""

    hook = None

    def solve(self, opener, cutoff=None, progress=None, on_class=None):
        def tell(p, *rest) -> None:
            on_class(p, *rest)
            type(self).told.append((opener, p))
            if len(type(self).told) == type(self).after and type(self).hook is not None:
                type(self).hook()

        return self.s.solve(opener, cutoff, progress,
                            on_class=None if on_class is None else tell)


def test_a_steal_stops_only_the_chunk_it_names(tmp_path, small):
    """Worker.steal (rank 0 taking an opener back when the queue runs dry): a steal
    for no chunk or for another chunk changes nothing; one for the chunk in hand
    stops its solve (Stopped) once the class in progress is valued, every valued
    class kept (cut_short), and the next solve values as a fresh engine does."""
    from solver.run.units import Whole
    from solver.run.worker import Worker
    from solver.search.engine import Stopped
    from solver.table import get_table

    a, g, cache = small
    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", cache)
    cfg = RunConfig(store=tmp_path / "s.zarr", answers=a, guesses=g, cache_dir=cache,
                    mode="hard", max_guesses=6, solver_factory=_StealAt)
    w = Worker(cfg, lists, table, rank=0)
    fresh = default_factory(lists, "hard", 6, table)
    words = lists.guesses[:3]
    _StealAt.told, _StealAt.after = [], 2
    w.steal(1)  # nothing in hand
    w.begin(2)
    _StealAt.hook = lambda: w.steal(1)  # a steal for an earlier chunk, mid-solve
    [(rec, err)] = w.do(Whole(lists.guess_index[words[0]]))
    assert err is None and rec.status == S.EXACT and rec.total == fresh.solve(words[0]).total
    w.end()
    _StealAt.told, _StealAt.after = [], 2
    w.begin(3)
    _StealAt.hook = lambda: w.steal(3)
    with pytest.raises(Stopped):
        w.do(Whole(lists.guess_index[words[1]]))
    kept = w.cut_short()
    # the steal came after the second class: the third, in progress, is finished
    assert [cr.pattern for cr, _e in kept][:2] == [p for _w, p in _StealAt.told]
    assert len(kept) == 3 and all(cr.status == S.EXACT for cr, _e in kept)
    for cr, _e in kept:  # each as the engine values the class alone
        st, total, _d, _g = fresh.class_value(words[1], cr.pattern)
        assert (st, total) == ("exact", cr.total)
    w.end()
    _StealAt.hook = None
    w.begin(4)
    [(rec, err)] = w.do(Whole(lists.guess_index[words[2]]))
    w.end()
    assert err is None and rec.total == fresh.solve(words[2]).total
    # a steal that overtakes its chunk (the chunk's message still on its way, the
    # steal's on another tag) takes effect when that chunk begins: before, it was
    # dropped, and the idle rank waited for the whole opener (a run's tail)
    w.steal(6)
    w.begin(5)  # not the chunk it names
    [(rec, err)] = w.do(Whole(lists.guess_index[words[0]]))
    w.end()
    assert err is None and rec.total == fresh.solve(words[0]).total
    w.begin(6)
    with pytest.raises(Stopped):
        w.do(Whole(lists.guess_index[words[1]]))
    assert 1 <= len(w.cut_short()) < len(set(table[lists.guess_index[words[1]]]))
    w.end()
    w.steal(6)  # once its chunk is done, a late steal for it does nothing
    w.begin(7)
    [(rec, err)] = w.do(Whole(lists.guess_index[words[1]]))
    w.end()
    assert err is None and rec.total == fresh.solve(words[1]).total
