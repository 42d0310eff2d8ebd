"""`wordle-dp run` under real MPI (mpiexec from the mpich wheel), real engine.

Each MPI run pays the numba compile once per rank (seconds), so the problems are
small and the phases of one scenario share a test.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from solver import store as S
from solver.words import WordLists
from tests.run_helpers import MPIEXEC, mpi_env, rank_pid, reference_table, write_lists

pytestmark = pytest.mark.mpi

ROOT = Path(__file__).resolve().parents[1]
if not MPIEXEC.exists():
    pytest.skip("no mpiexec next to the interpreter (pip install mpich)",
                allow_module_level=True)




def _cmd(n: int | None, *args: str) -> list[str]:
    base = [sys.executable, "-m", "solver", *args]
    return base if n is None else [str(MPIEXEC), "-n", str(n), *base]


def _check_against(store: Path, ref: dict[str, tuple[str, int]]) -> S.Snapshot:
    st = S.Store.open(store)
    snap = st.snapshot()
    assert snap.counts()["pending"] == 0 and snap.counts()["failed"] == 0
    got = {w: (S.STATUS_NAMES[snap.status[i]], int(snap.fields["total"][i]))
           for i, w in enumerate(st.words)}
    assert got == ref
    sec = st.group["second"][...]
    exact = snap.status == S.EXACT
    assert (sec[exact] >= 0).any(axis=1).all()  # every exact opener has second guesses
    assert (sec < len(st.words)).all()
    return snap


def _done(store: Path) -> int:
    try:
        return int((S.Store.open(store).status() != S.PENDING).sum())
    except Exception:
        return 0


def _wait_for(pred, proc, timeout=120.0):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if pred():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.05)
    raise AssertionError("timed out")


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cache")


def test_three_ranks_match_single_process(tmp_path, cache):
    a, g = write_lists(tmp_path / "lists", 60, 10)
    lists = ["--answers", a, "--guesses", g]
    store = tmp_path / "mpi.zarr"
    p = subprocess.run(_cmd(3, "run", "--store", str(store), *lists, "--progress-seconds",
                            "2"), env=mpi_env(cache), capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert "3 rank(s) (all solving, rank 0 coordinating too)" in p.stderr
    assert "run finished" in p.stderr and "memo reuse" in p.stderr
    assert "bundle(s) sharing their biggest class" in p.stderr  # affinity at work
    snap = _check_against(store, reference_table(a, g, cache))
    assert set(np.unique(snap.fields["rank"])) == {0, 1, 2}  # rank 0 solves too
    # the same table as a single-process run of the CLI
    single = tmp_path / "single.zarr"
    p1 = subprocess.run(_cmd(None, "run", "--store", str(single), *lists, "--quiet"),
                        env=mpi_env(cache), capture_output=True, text=True, timeout=300)
    assert p1.returncode == 0, p1.stderr
    s1 = S.Store.open(single).snapshot()
    assert (s1.status == snap.status).all() and (s1.fields["total"] == snap.fields["total"]).all()
    assert set(np.unique(s1.fields["rank"])) == {0}
    # a store made for another problem definition is refused by every launch
    p2 = subprocess.run(_cmd(2, "run", "--store", str(store), *lists, "--max-guesses", "5"),
                        env=mpi_env(cache), capture_output=True, text=True, timeout=120)
    assert p2.returncode != 0
    errs = [x for x in p2.stderr.splitlines() if x.startswith("wordle-dp: error:")]
    assert len(errs) == 1 and "max_guesses" in errs[0]


def test_stop_kill_resume_and_query_during_run(tmp_path, cache):
    """SIGUSR1 to mpiexec stops cleanly; kill -9 of a rank loses nothing written;
    resuming twice gives the table of an uninterrupted run; query works meanwhile."""
    a, g = write_lists(tmp_path / "lists", 150, 8)
    store = tmp_path / "run.zarr"
    args = ["run", "--store", str(store), "--answers", a, "--guesses", g,
            "--flush-seconds", "0.2", "--progress-seconds", "1"]
    n_total = len(WordLists.load(a, g, quiet=True).guesses)

    # phase 1: SIGUSR1 to mpiexec (what the Slurm batch script forwards) -> exit 0
    p = subprocess.Popen(_cmd(3, *args), env=mpi_env(cache), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert _wait_for(lambda: _done(store) >= 50, p), p.communicate()
    p.send_signal(signal.SIGUSR1)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert "can be resumed" in err
    snap = S.Store.open(store).snapshot()
    done1 = int((snap.status != S.PENDING).sum())
    assert 50 <= done1 < n_total and snap.run["state"] == "stopped"

    # phase 2: resume, then kill -9 one worker rank mid-run (right away: on a loaded
    # machine anything slower risks the run finishing first)
    p = subprocess.Popen(_cmd(3, *args), env=mpi_env(cache), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert _wait_for(lambda: _done(store) >= done1 + 20, p), p.communicate()
    pid = rank_pid(store, 1)
    assert pid is not None, "rank 1 not found"
    os.kill(pid, signal.SIGKILL)
    p.communicate(timeout=120)
    assert p.returncode != 0
    snap = S.Store.open(store).snapshot()
    done2 = int((snap.status != S.PENDING).sum())
    assert done1 < done2 < n_total

    # phase 3: resume to the end, querying the store while the run writes it
    p = subprocess.Popen(_cmd(3, *args), env=mpi_env(cache), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert _wait_for(lambda: _done(store) > done2, p), p.communicate()
    q = subprocess.run(_cmd(None, "query", "--store", str(store), "--json", "--top", "2"),
                       env=mpi_env(cache), capture_output=True, text=True, timeout=300)
    assert q.returncode == 0, q.stderr
    rows = [json.loads(x) for x in q.stdout.splitlines()]
    assert len(rows) == 2 and rows[0]["rank"] == 1 and "progress:" in q.stderr
    _out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert f"{n_total - done2} opener(s) to value" in err
    _check_against(store, reference_table(a, g, cache))


def test_sigterm_single_process(tmp_path, cache):
    """SIGTERM to a single-process run: finishes the opener at hand, flushes, exit 0."""
    a, g = write_lists(tmp_path / "lists", 150, 8)
    store = tmp_path / "one.zarr"
    p = subprocess.Popen(_cmd(None, "run", "--store", str(store), "--answers", a,
                              "--guesses", g, "--flush-seconds", "0.2"),
                         env=mpi_env(cache), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    assert _wait_for(lambda: _done(store) >= 20, p), p.communicate()
    p.send_signal(signal.SIGTERM)
    _out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert "stopped (signal SIGTERM)" in err and "can be resumed" in err
    snap = S.Store.open(store).snapshot()
    assert 20 <= int((snap.status != S.PENDING).sum()) < len(snap.status)


def _whole_run(store, lists: list[str], cache, timeout: int = 300) -> S.Store:
    """The reference the split runs must match: one process, every opener whole."""
    p = subprocess.run(_cmd(None, "run", "--store", str(store), *lists, "--split", "off",
                            "--quiet"), env=mpi_env(cache), capture_output=True, text=True,
                       timeout=timeout)
    assert p.returncode == 0, p.stderr
    return S.Store.open(store)


@pytest.mark.parametrize("partial", ["", "0"], ids=["units-whole", "every-class-alone"])
def test_split_openers_over_ranks_match_whole_ones(tmp_path, cache, partial):
    """--split all on 3 ranks, hard mode under a cap of 3 (some openers infeasible):
    the table and the second guesses of one process valuing every opener whole;
    also with each class of a unit sent to rank 0 as it is valued (worker's
    partial results, WORDLE_DP_TEST_PARTIAL_EVERY=0)."""
    a, g = write_lists(tmp_path / "lists", 60, 10)
    lists = ["--answers", a, "--guesses", g, "--mode", "hard", "--max-guesses", "3"]
    store, single = tmp_path / "split.zarr", tmp_path / "whole.zarr"
    env = mpi_env(cache)
    env["WORDLE_DP_TEST_PARTIAL_EVERY"] = partial
    p = subprocess.run(_cmd(3, "run", "--store", str(store), *lists, "--split", "all"),
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    n = len(WordLists.load(a, g, quiet=True).guesses)
    assert f"{n} valued as first-feedback classes" in p.stderr
    assert "coordinator:" in p.stderr and "ms each" in p.stderr
    got, ref = S.Store.open(store), _whole_run(single, lists, cache)
    sg, sr = got.snapshot(), ref.snapshot()
    assert sr.counts()["infeasible"] > 0 and sr.counts()["exact"] > 0
    for name in ("total", "depth"):
        assert (sg.fields[name] == sr.fields[name]).all(), name
    assert (sg.status == sr.status).all()
    assert (np.asarray(got.group["second"][...]) == np.asarray(ref.group["second"][...])).all()
    assert set(np.unique(sg.fields["rank"])) <= {0, 1, 2}


@pytest.mark.parametrize("mode,cap", [("easy", 6), ("hard", 3)])
def test_classes_in_parts_over_ranks_match_whole_openers(tmp_path, cache, mode, cap):
    """--split all --parts 4 on 3 ranks: every class of more than two answers goes out
    as a quick bound and 4 parts to different ranks; the values are those of one
    process valuing every opener whole."""
    a, g = write_lists(tmp_path / "lists", 60, 10)
    lists = ["--answers", a, "--guesses", g, "--mode", mode, "--max-guesses", str(cap)]
    store, single = tmp_path / "parts.zarr", tmp_path / "whole.zarr"
    p = subprocess.run(_cmd(3, "run", "--store", str(store), *lists, "--split", "all",
                            "--parts", "4"),
                       env=mpi_env(cache), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    parts = re.search(r"(\d+) part\(s\) of classes", p.stderr)
    assert parts and int(parts.group(1)) >= 20, p.stderr[-2000:]
    sg, sr = S.Store.open(store).snapshot(), _whole_run(single, lists, cache).snapshot()
    assert sr.counts()["exact"] > 0
    assert (sg.status == sr.status).all()
    assert (sg.fields["total"] == sr.fields["total"]).all()


@pytest.mark.parametrize("ranks", [16, pytest.param(32, marks=pytest.mark.slow),
                                   pytest.param(64, marks=pytest.mark.slow)])
def test_many_ranks_with_auto_split_match_one_rank(tmp_path, cache, ranks):
    """16 ranks (the node of issue 31; 32 and 64 in -m slow) oversubscribed on this
    machine, --split auto, on a 150-answer problem: the openers with the biggest
    classes (10 per 32 ranks) and others (50 per 32 ranks), so that a rank's fair
    share is about two openers and the big ones go out as classes. The store equals
    one process's, second guesses included."""
    from solver.run.costs import opener_cost
    from solver.table import get_table

    a, g = write_lists(tmp_path / "lists", 150, 25)
    lists_ = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists_, "numpy", cache)
    words = sorted(lists_.guesses, key=lambda w: -opener_cost(table[lists_.guess_id(w)],
                                                              "easy", 3**lists_.length))
    n_big, n_rest = ranks * 10 // 32, ranks * 50 // 32
    openers = ",".join(words[:n_big] + random.Random(23).sample(words[n_big:], n_rest))
    lists = ["--answers", a, "--guesses", g, "--openers", openers]
    store, single = tmp_path / "many.zarr", tmp_path / "one.zarr"
    p = subprocess.run(_cmd(ranks, "run", "--store", str(store), *lists),
                       env=mpi_env(cache), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    split = re.search(r"(\d+) valued as first-feedback classes", p.stderr)
    assert split and int(split.group(1)) >= n_big // 2, p.stderr[-3000:]
    got, ref = S.Store.open(store), _whole_run(single, lists, cache, timeout=600)
    sg, sr = got.snapshot(), ref.snapshot()
    assert sr.counts()["exact"] == n_big + n_rest
    assert (sg.status == sr.status).all()
    for name in ("total", "depth"):
        assert (sg.fields[name] == sr.fields[name]).all(), name
    assert (np.asarray(got.group["second"][...]) == np.asarray(ref.group["second"][...])).all()
    assert len(set(np.unique(sg.fields["rank"]))) > ranks // 4  # the work was spread


_SPREADS = """
import json, sys
from solver.run.mpi import gather_spreads, mpi
from solver.table import get_table
from solver.words import WordLists
comm, _MPI = mpi()
lists = WordLists.load(sys.argv[1], sys.argv[2], quiet=True)
table, _ = get_table(lists, "numpy", None)
got = gather_spreads(comm, table, 243, range(len(lists.guesses)), min_size=15)
if comm.Get_rank() == 0:
    print(json.dumps({str(o): {str(p): k for p, k in d.items()} for o, d in got.items()}))
else:
    assert got == {}
"""


def test_spreads_gathered_over_ranks_equal_one_process(tmp_path, cache):
    """The plan's spreads, each rank scanning every third opener, are those of one
    process scanning all of them."""
    from solver.run.costs import spreads_of
    from solver.table import get_table

    a, g = write_lists(tmp_path / "lists", 120, 20)
    p = subprocess.run([str(MPIEXEC), "-n", "3", sys.executable, "-c", _SPREADS, a, g],
                       env=mpi_env(cache), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    got = {int(o): {int(q): k for q, k in d.items()}
           for o, d in json.loads(p.stdout).items()}
    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", cache)
    want = spreads_of(table, 243, range(len(lists.guesses)), min_size=15)
    assert got == want and len(want) > 10


@pytest.mark.parametrize("mode,cap,k,seed", [("easy", 6, 3, "one-whole-a"),
                                             ("hard", 6, 4, "steal-hard"),
                                             ("strict", 4, 2, "steal-strict")])
def test_an_opener_still_running_when_the_queue_runs_dry_is_shared(tmp_path, cache, mode,
                                                                   cap, k, seed):
    """No tail: k openers on 2 solving ranks, the plan splitting all but one (the
    drawn openers are such that it does), so exactly one opener goes out whole. It
    waits, by the test hook, until it is taken back (at most two minutes), while the
    other rank values the split openers' classes; once the queue runs dry that rank
    is idle, so the opener is taken back: it values one class and gives back the
    others (the biggest in parts) to both ranks. The order of events is pinned: no
    timing decides whether the steal happens. (Two clean-clone CIs took nothing
    back: a steal sent just after its chunk, as when the idle rank asks at once,
    could reach the worker before the chunk did and was dropped: 3 runs in 70
    here.) The values and second guesses are those of one process valuing every
    opener whole."""
    a, g = write_lists(tmp_path / "lists", 60, 10)
    lists = ["--answers", a, "--guesses", g, "--mode", mode, "--max-guesses", str(cap)]
    words = WordLists.load(a, g, quiet=True).guesses
    pick = ",".join(random.Random(seed).sample(words, k))
    store, single = tmp_path / "steal.zarr", tmp_path / "whole.zarr"
    env = mpi_env(cache)
    env["WORDLE_DP_TEST_SLOW"] = "120"  # the whole opener's wait ends with the steal
    p = subprocess.run(_cmd(2, "run", "--store", str(store), *lists, "--openers", pick,
                            "--split", "auto"),
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    planned = re.search(r"(\d+) valued as first-feedback classes", p.stderr)
    assert planned and int(planned.group(1)) == k - 1, p.stderr[:1000]
    stolen = re.search(r"no tail: (\d+) opener\(s\) valued whole were taken back",
                       p.stderr)
    assert stolen and int(stolen.group(1)) == 1, p.stderr[-2000:]
    ref = _whole_run(single, [*lists, "--openers", pick], cache)
    sg, sr = S.Store.open(store).snapshot(), ref.snapshot()
    assert sg.counts()["pending"] == sr.counts()["pending"] == len(sr.status) - k
    assert (sg.status == sr.status).all()
    assert (sg.fields["total"] == sr.fields["total"]).all()
    assert (sg.fields["depth"] == sr.fields["depth"]).all()
    got, want = S.Store.open(store), ref
    assert (np.asarray(got.group["second"][...]) == np.asarray(want.group["second"][...])).all()


@pytest.mark.parametrize("mode,over", [("easy", 0), ("easy", 1), ("hard", 0)])
def test_an_opener_under_a_cutoff_still_running_when_the_queue_runs_dry_is_shared(
        tmp_path, cache, mode, over):
    """No tail under a cutoff: one opener (check, whose solve under these cutoffs
    searches classes) on 2 solving ranks under --cutoff its value (refuted) or one
    more (exact). The other rank is idle at once, so the opener is taken back: it
    gives back the classes it valued and a bound of each other, which go out to both
    ranks each with the budget the others' bounds leave it (the test hook holds the
    whole opener until then). The verdict is that of one process valuing it whole
    under the same cutoff: exact at its value, or a lower bound at the cutoff
    (which is its value here; classes valued at once can also show it exact)."""
    a, g = write_lists(tmp_path / "lists", 60, 10)
    lists = ["--answers", a, "--guesses", g, "--mode", mode, "--openers", "check"]
    exact = _whole_run(tmp_path / "exact.zarr", lists, cache).snapshot()
    i = int(np.flatnonzero(exact.status == S.EXACT)[0])
    value = int(exact.fields["total"][i])
    cutoff = ["--cutoff", str(value + over)]
    env = mpi_env(cache)
    env["WORDLE_DP_TEST_SLOW"] = "120"  # the whole opener's wait ends with the steal
    store = tmp_path / "steal.zarr"
    p = subprocess.run(_cmd(2, "run", "--store", str(store), *lists, *cutoff),
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    stolen = re.search(r"no tail: (\d+) opener\(s\) valued whole were taken back",
                       p.stderr)
    assert stolen and int(stolen.group(1)) == 1, p.stderr[-2000:]
    ref = _whole_run(tmp_path / "whole.zarr", [*lists, *cutoff], cache).snapshot()
    got = S.Store.open(store).snapshot()
    assert ref.status[i] == (S.EXACT if over else S.LOWER_BOUND)
    total = int(got.fields["total"][i])
    # (a lower bound at the cutoff and at most the value: here the value itself)
    assert total == value, (got.status[i], total)
    assert got.status[i] == S.EXACT if over else got.status[i] in (S.LOWER_BOUND, S.EXACT)
    assert (got.status != S.PENDING).sum() == 1
