"""The run loop as one process (the MPI runs are in test_run_mpi.py).

Most tests use a tiny fake solver so that stopping, resuming, failures and the
ordering can be checked exactly and fast; the CLI test at the end uses the real
engine on a tiny problem.
"""

from __future__ import annotations

import io
import json
import os
import signal
import time

import numpy as np
import pytest

from solver import cli
from solver import store as S
from solver.run import RunConfig, parse_shard, parse_time_limit, run, select_openers
from solver.run.units import Whole
from solver.search.result import SolveResult
from solver.variant import Variant
from solver.words import WordListError, WordLists

ANSWERS = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade"]
EXTRA = ["salet", "crane", "trace", "adieu", "roate", "soare", "tares", "lions", "pzazz"]


def _value(word: str) -> int:
    return 20 + sum(ord(c) for c in word) % 17


class FakeSolver:
    """Deterministic stand-in for the engine; records every call."""

    calls: list[str] = []
    bad: set[str] = set()
    sleep = 0.0
    signal_after: int | None = None  # send SIGUSR1 to ourselves after this many solves

    def __init__(self, lists, mode, max_guesses, table):
        self.lists = lists
        self.mode = mode
        self.max_guesses = max_guesses
        self.n = 0

    @property
    def stats(self):
        return {"memo_hits": 3 * self.n, "memo_stores": self.n, "nodes": 5 * self.n}

    def estimate(self, word: str) -> float:
        return float(ord(word[0]))  # larger = more expensive = first

    def solve(self, word: str, cutoff=None) -> SolveResult:
        type(self).calls.append(word)
        self.n += 1
        if self.sleep:
            time.sleep(self.sleep)
        if type(self).signal_after is not None and len(type(self).calls) == self.signal_after:
            os.kill(os.getpid(), signal.SIGUSR1)
            time.sleep(0.2)  # the coordinator (main thread) sees it before this solve ends
        if word in type(self).bad:
            raise RuntimeError(f"cannot solve {word}")
        total = _value(word)
        status = "exact"
        if word == "pzazz":
            status, total = "infeasible", None
        elif cutoff is not None and total >= cutoff:
            status = "lower_bound"
        return SolveResult(word, status, total, len(self.lists.answers),
                           3 if status == "exact" else None, 0.001, 7, self.mode,
                           self.max_guesses)

    def second_guesses(self, word: str) -> dict[int, str]:
        return {0: word, 242: "salet"}


@pytest.fixture(autouse=True)
def _reset_fake():
    FakeSolver.calls = []
    FakeSolver.bad = set()
    FakeSolver.sleep = 0.0
    FakeSolver.signal_after = None
    yield


@pytest.fixture
def lists_files(tmp_path):
    a = tmp_path / "answers.txt"
    g = tmp_path / "guesses.txt"
    a.write_text("\n".join(ANSWERS) + "\n")
    g.write_text("\n".join(EXTRA + ANSWERS) + "\n")
    return str(a), str(g)


def _cfg(tmp_path, lists_files, **kw) -> RunConfig:
    a, g = lists_files
    base = dict(store=tmp_path / "run.zarr", answers=a, guesses=g,
                cache_dir=str(tmp_path / "cache"), solver_factory=FakeSolver,
                progress_file=io.StringIO(), flush_seconds=0.0)
    base.update(kw)
    return RunConfig(**base)


def _lists(lists_files) -> WordLists:
    return WordLists.load(*lists_files, quiet=True)


def test_single_process_run_fills_the_store(tmp_path, lists_files):
    out = io.StringIO()
    s = run(_cfg(tmp_path, lists_files, progress_file=out))
    lists = _lists(lists_files)
    n = len(lists.guesses)
    assert s.exit_code == 0 and s.state == "finished" and s.solved == n
    # most expensive (by the solver's estimate) first
    assert FakeSolver.calls == sorted(lists.guesses, key=lambda w: (-ord(w[0]),
                                                                    lists.guess_index[w]))
    st = S.Store.open(tmp_path / "run.zarr")
    snap = st.snapshot()
    for i, w in enumerate(lists.guesses):
        if w == "pzazz":
            assert snap.status[i] == S.INFEASIBLE and snap.fields["total"][i] == -1
        else:
            assert snap.status[i] == S.EXACT and snap.fields["total"][i] == _value(w)
            assert st.second_guesses(i) == {0: w, 242: "salet"}
    assert (snap.fields["rank"] == 0).all() and (snap.selected == 1).all()
    assert np.isfinite(snap.fields["finished_at"]).all()
    assert snap.run["state"] == "finished"
    text = out.getvalue()
    assert "run finished" in text and "store writes" in text and "memo reuse" in text


def test_signal_stops_cleanly_and_resume_never_recomputes(tmp_path, lists_files):
    FakeSolver.signal_after = 3
    out = io.StringIO()
    s = run(_cfg(tmp_path, lists_files, progress_file=out))
    assert s.exit_code == 0 and s.state == "stopped" and s.solved == 3
    assert "can be resumed" in out.getvalue() and "SIGUSR1" in out.getvalue()
    snap = S.Store.open(tmp_path / "run.zarr").snapshot()
    assert snap.counts()["pending"] == len(_lists(lists_files).guesses) - 3
    assert snap.run["state"] == "stopped"
    first = list(FakeSolver.calls)
    FakeSolver.signal_after = None
    s2 = run(_cfg(tmp_path, lists_files))
    assert s2.state == "finished"
    assert not set(first) & set(FakeSolver.calls[3:])  # nothing solved twice
    assert sorted(FakeSolver.calls) == sorted(_lists(lists_files).guesses)
    assert S.Store.open(tmp_path / "run.zarr").snapshot().counts()["pending"] == 0


def test_time_limit(tmp_path, lists_files):
    FakeSolver.sleep = 0.1
    s = run(_cfg(tmp_path, lists_files, time_limit=0.25))
    assert s.state == "stopped" and 1 <= s.solved < len(_lists(lists_files).guesses)
    assert S.Store.open(tmp_path / "run.zarr").snapshot().counts()["pending"] > 0


def test_failed_opener_is_recorded_and_retried(tmp_path, lists_files):
    FakeSolver.bad = {"crane"}
    out = io.StringIO()
    s = run(_cfg(tmp_path, lists_files, progress_file=out))
    assert s.exit_code == 0 and s.failed == 1
    # the library names its parameter; the CLI's report (cli/flags.run_report) the flag
    assert "crane failed" in out.getvalue() and "rerun with retry_failed" in out.getvalue()
    from solver.cli.flags import flag
    from solver.run.text import summary_lines

    assert "rerun with --retry-failed to try again" in "\n".join(
        summary_lines(s, {}, "run.zarr", None, 1, flag))
    st = S.Store.open(tmp_path / "run.zarr")
    i = st.index_of("crane")
    assert st.status()[i] == S.FAILED
    assert "cannot solve crane" in st.group.attrs["errors"]["crane"]
    FakeSolver.bad = set()
    FakeSolver.calls = []
    run(_cfg(tmp_path, lists_files))
    assert FakeSolver.calls == []  # failed ones stay failed without --retry-failed
    run(_cfg(tmp_path, lists_files, retry_failed=True))
    assert FakeSolver.calls == ["crane"]
    st = S.Store.open(tmp_path / "run.zarr")
    assert st.status()[i] == S.EXACT and "crane" not in st.group.attrs.get("errors", {})


def test_cutoff_and_opener_selection(tmp_path, lists_files):
    s = run(_cfg(tmp_path, lists_files, cutoff=28, openers="salet,crane,trace,cigar"))
    assert s.solved == 4 and sorted(FakeSolver.calls) == ["cigar", "crane", "salet", "trace"]
    snap = S.Store.open(tmp_path / "run.zarr").snapshot()
    st = S.Store.open(tmp_path / "run.zarr")
    for w in ("salet", "crane", "trace", "cigar"):
        i = st.index_of(w)
        want = S.LOWER_BOUND if _value(w) >= 28 else S.EXACT
        assert snap.status[i] == want and snap.fields["total"][i] == _value(w)
    assert snap.selected.sum() == 4 and snap.progress()["done"] == 4
    assert st.group.attrs["cutoff"] == 28
    # resuming without --cutoff keeps the store's cutoff
    others = [w for w in EXTRA if w not in ("salet", "crane", "trace") and w != "pzazz"]
    run(_cfg(tmp_path, lists_files, openers=",".join(others)))
    snap = S.Store.open(tmp_path / "run.zarr").snapshot()
    for w in others:
        want = S.LOWER_BOUND if _value(w) >= 28 else S.EXACT
        assert snap.status[st.index_of(w)] == want
    assert {S.LOWER_BOUND, S.EXACT} <= {int(snap.status[st.index_of(w)]) for w in others}


def test_higher_cutoff_values_again_only_the_weaker_bounds(tmp_path, lists_files):
    run(_cfg(tmp_path, lists_files, cutoff=24))
    st = S.Store.open(tmp_path / "run.zarr")
    first = st.snapshot()
    bounds = {w: int(first.fields["total"][st.index_of(w)]) for w in st.words
              if first.status[st.index_of(w)] == S.LOWER_BOUND}
    assert bounds and all(v >= 24 for v in bounds.values())
    FakeSolver.calls = []
    out = io.StringIO()
    run(_cfg(tmp_path, lists_files, cutoff=30, progress_file=out))
    again = sorted(w for w, v in bounds.items() if v < 30)
    assert again and sorted(FakeSolver.calls) == again
    assert f"{len(again)} lower bound(s) below the cutoff are valued again" in out.getvalue()
    snap = S.Store.open(tmp_path / "run.zarr").snapshot()
    for w in again:
        assert snap.status[st.index_of(w)] == S.EXACT
    for w, v in bounds.items():
        if v >= 30:
            assert snap.status[st.index_of(w)] == S.LOWER_BOUND
    assert S.Store.open(tmp_path / "run.zarr").cutoff == 30
    # a bound far past the cutoff, named to be valued exactly (a book's popular
    # opener): valued again, and the line says why
    far = max(bounds, key=lambda w: bounds[w])
    assert bounds[far] >= 30
    FakeSolver.calls = []
    out = io.StringIO()
    run(_cfg(tmp_path, lists_files, cutoff=30, exact=(far,), progress_file=out))
    assert FakeSolver.calls == [far]
    assert "; 1 lower bound(s) to value exactly are valued again" in out.getvalue()
    snap = S.Store.open(tmp_path / "run.zarr").snapshot()
    assert snap.status[st.index_of(far)] == S.EXACT


def test_select_openers_and_parsers(tmp_path, lists_files):
    lists = _lists(lists_files)
    assert select_openers("all", lists) == list(range(len(lists.guesses)))
    f = tmp_path / "op.txt"
    f.write_text("TRACE\nsalet\n")
    assert select_openers(str(f), lists) == [lists.guess_index["trace"],
                                             lists.guess_index["salet"]]
    assert select_openers("salet", lists) == [lists.guess_index["salet"]]
    with pytest.raises(WordListError):
        select_openers("salet,zzzzz", lists)
    with pytest.raises(WordListError):
        select_openers(str(tmp_path / "nope.txt"), lists)
    assert parse_time_limit("90") == 90 and parse_time_limit("01:02:03") == 3723
    assert parse_time_limit("2:30") == 150 and parse_time_limit("1-00:00:00") == 86400
    assert parse_time_limit("5m") == 300
    with pytest.raises(ValueError):
        parse_time_limit("soon")
    assert parse_shard("1/4") == (1, 4)
    with pytest.raises(ValueError):
        parse_shard("4/4")


def test_shards_partition_the_openers(tmp_path, lists_files):
    n = len(_lists(lists_files).guesses)
    seen = []
    for k in range(3):
        FakeSolver.calls = []
        run(_cfg(tmp_path, lists_files, store=tmp_path / f"p{k}.zarr", shard=(k, 3)))
        seen += FakeSolver.calls
    assert sorted(seen) == sorted(_lists(lists_files).guesses) and len(seen) == n
    res = S.merge(tmp_path / "all.zarr", [tmp_path / f"p{k}.zarr" for k in range(3)])
    assert res["counts"]["pending"] == 0


# ---------------------------------------------------------------- CLI, real engine


def test_cli_run_query_export_refuse(tmp_path, lists_files, capsys):
    a, g = lists_files
    store = str(tmp_path / "cli.zarr")
    common = ["--answers", a, "--guesses", g, "--cache-dir", str(tmp_path / "c")]
    assert cli.main(["run", "--store", store, *common, "--quiet"]) == 0
    capsys.readouterr()
    assert cli.main(["query", "--store", store, "salet", "cigar", "--json"]) == 0
    out = capsys.readouterr()
    rows = [json.loads(x) for x in out.out.splitlines()]
    assert [r["opener"] for r in rows] == ["salet", "cigar"]
    assert all(r["status"] == "exact" and r["rank"] >= 1 for r in rows)
    assert rows[0]["average"] == pytest.approx(rows[0]["total"] / len(ANSWERS), abs=1e-6)
    assert "progress:" in out.err
    # the engine agrees with what the store says
    from solver import Solver

    lists = _lists(lists_files)
    r = Solver(lists, table=None, cache_dir=str(tmp_path / "c")).solve("salet")
    assert r.total == rows[0]["total"]
    assert cli.main(["query", "--store", store, "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "progress:" in out and "#1" in out and len(out.splitlines()) == 6
    # the progress line sums what the valued openers cost
    cpu = np.nansum(S.Store.open(store).snapshot().fields["cpu_seconds"])
    # (the progress record keeps 3 decimals, so 0.04997 prints as 0.1)
    assert cpu > 0 and f"; {round(float(cpu), 3):.1f} CPU-s spent;" in out
    csv_path = tmp_path / "all.csv"
    assert cli.main(["export", "--store", store, "--csv", str(csv_path)]) == 0
    lines = csv_path.read_text().splitlines()
    assert lines[0].startswith("opener,index,status,total,average,rank")
    assert len(lines) == 1 + len(lists.guesses)
    capsys.readouterr()
    # a store of another problem definition: one line, exit 2
    assert cli.main(["run", "--store", store, *common, "--mode", "hard"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wordle-dp: error: ") and len(err.strip().splitlines()) == 1
    assert cli.main(["run", "--store", store, *common, "--time-limit", "soon"]) == 2
    assert cli.main(["query", "--store", store, "qqqqq"]) == 2
    assert cli.main(["query", "--store", str(tmp_path / "none.zarr")]) == 2


def test_chunks_are_sized_by_their_own_kind(tmp_path, lists_files):
    """Openers valued whole go out one at a time while they take seconds, however
    quick the classes of split openers are: a chunk of two whole openers cannot be
    taken back, and the run would end on it (a flaky no-tail test under load)."""
    from solver.run.coordinator import Coordinator
    from solver.run.loop import chunk_size
    from solver.run.work import Work

    cfg = _cfg(tmp_path, lists_files)
    lists = _lists(lists_files)
    store, _ = S.Store.open_or_create(cfg.store, lists, "easy", 6)
    table = np.zeros((len(lists.guesses), len(lists.answers)), np.uint8)
    work = Work(Variant(5, "easy"), len(lists.answers), table)
    co = Coordinator(cfg, store, lists, work, list(range(10)), 1, io.StringIO(), None,
                     None, solvers=2)
    for i in range(40):
        work.push(Whole(i), 40 - i)
    assert work.peek() == Whole(0) and len(work) == 40  # peeking leaves it queued
    assert chunk_size(co, 2, "Whole") == chunk_size(co, 2, "Classes") == 1  # untimed
    for _ in range(3):
        co.unit_wall("Whole", 3.0)
    for _ in range(10):
        co.unit_wall("Classes", 0.001)
    assert co.wall_of("Whole") == (pytest.approx(3.0), 3)
    assert chunk_size(co, 2, "Whole") == 1
    assert chunk_size(co, 2, "Classes") == 40 // (2 * 2)  # capped by the queue left
    co.unit_wall("Whole", float("nan"))  # a unit with no time does not count
    assert co.wall_of("Whole")[1] == 3
    store.unlock()


def test_eta_weighs_what_is_left_by_what_each_kind_cost(tmp_path, lists_files):
    """A book's popular openers take seconds, the others milliseconds: the ETA is each
    kind's openers left at its mean CPU so far, over the solvers, but never less than
    one opener of a kind still queued, nor than a unit in flight has left: at least
    as long again as it has run, once it has outrun its mean (the last openers of the
    NYT hard book ran minutes while the ETA said 9 s)."""
    from solver.run.coordinator import Coordinator
    from solver.run.cutoffs import Cutoffs
    from solver.run.work import Work

    cfg = _cfg(tmp_path, lists_files)
    lists = _lists(lists_files)
    store, _ = S.Store.open_or_create(cfg.store, lists, "easy", 6)
    table = np.zeros((len(lists.guesses), len(lists.answers)), np.uint8)
    co = Coordinator(cfg, store, lists, Work(Variant(5, "easy"), len(lists.answers), table),
                     list(range(10)), 1, io.StringIO(), None,
                     Cutoffs(top=1, exact=frozenset({0, 1})), solvers=2)
    assert co.eta() == (float("inf"), False)  # nothing valued yet
    co.add(S.Record(0, S.EXACT, 40, 3, cpu_seconds=10.0), None, None)
    # the exact one left takes one rank 10 s; the others: no mean yet
    assert co.eta() == (10.0, False)
    co.add(S.Record(5, S.LOWER_BOUND, 50, cpu_seconds=0.1), None, None)
    assert co.eta() == (10.0, True)  # 10 s for the exact one, 0.7 s for the rest
    co.add(S.Record(1, S.EXACT, 41, 3, cpu_seconds=10.0), None, None)
    eta, whole = co.eta()
    assert whole and eta == pytest.approx(7 * 0.1 / 2)  # what is left, shared
    # in flight: 2 s into an opener of mean 0.1 s (outrun: as long again), and one
    # just sent (its mean less the time it ran)
    co.sent(0, [Whole(2)])
    co.sent(1, [Whole(3)])
    t0 = co.in_flight[0][0]
    co.in_flight[0] = (t0 - 2.0, co.in_flight[0][1])
    eta, whole = co.eta(now=t0)
    assert whole and eta == pytest.approx(2.0)  # the outrun one sets the wall
    co.returned(0)
    co.returned(1)
    assert co.in_flight == {}
    assert co.eta(now=t0)[0] == pytest.approx(7 * 0.1 / 2)
    store.unlock()
