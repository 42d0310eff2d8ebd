"""Every workflow on every rank, under real MPI (mpiexec from the mpich wheel):
`best` and `book build` on several ranks give what one process gives; a stop
(time limit, SIGTERM) in any step of them, and a solve cut short past the grace,
end every rank cleanly with exit 0 and the resume hint; a resumed build values
nothing twice; and a waiting rank does not spin."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from solver import Solver
from solver import store as S
from solver.book import Book
from solver.run.split import has_class_values
from solver.store import ClassStore
from solver.table import get_table
from solver.words import WordLists
from tests.run_helpers import MPIEXEC, mpi_env, write_lists

pytestmark = pytest.mark.mpi

if not MPIEXEC.exists():
    pytest.skip("no mpiexec next to the interpreter (pip install mpich)",
                allow_module_level=True)

BAD_END = ("BAD TERMINATION", "MPI_Abort", "Traceback")


def _cmd(n: int | None, *args: str) -> list[str]:
    base = [sys.executable, "-m", "solver", *args]
    return base if n is None else [str(MPIEXEC), "-n", str(n), *base]


def _run(n, *args, env, timeout=300) -> subprocess.CompletedProcess:
    p = subprocess.run(_cmd(n, *args), env=env, capture_output=True, text=True,
                       timeout=timeout)
    assert p.returncode == 0, p.stderr
    assert not any(b in p.stderr for b in BAD_END), p.stderr
    return p


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """120 answers and every 9th guess: a book builds in seconds."""
    a, g = write_lists(tmp_path_factory.mktemp("lists"), 120, 9)
    return a, g


def _stamps(store: Path) -> np.ndarray:
    """When each opener's result was written (NaN: pending): a resumed run that values
    nothing again leaves them all as they were."""
    return S.Store.open(store).snapshot().fields["finished_at"]


def test_best_on_three_ranks_is_the_engines_best_and_resumes_at_once(tmp_path, cache,
                                                                     small):
    a, g = small
    lists = ["--answers", a, "--guesses", g, "--mode", "hard"]
    store = tmp_path / "best.zarr"
    p = _run(3, "best", *lists, "--top", "3", "--json", "--store", str(store),
             env=mpi_env(cache))
    assert "3 rank(s) (all solving, rank 0 coordinating too)" in p.stderr
    got = [(r["opener"], r["total"]) for r in map(json.loads, p.stdout.splitlines())]
    wl = WordLists.load(a, g, quiet=True)
    ref = Solver(wl, mode="hard", table=get_table(wl, "numpy", cache)[0]).best(3)
    assert got == [(r.opener, r.total) for r in ref]
    snap = S.Store.open(store).snapshot()
    assert set(np.unique(snap.fields["rank"][snap.status != S.PENDING])) == {0, 1, 2}
    # the proof: every other opener is exact or has a lower bound above the 3rd
    assert snap.counts()["pending"] == 0
    kth = got[-1][1]
    others = np.ones(len(snap.status), bool)
    others[[S.Store.open(store).index_of(w) for w, _ in got]] = False
    low = others & (snap.status == S.LOWER_BOUND)
    assert (snap.fields["total"][low] > kth).all()
    assert (snap.fields["total"][others & (snap.status == S.EXACT)] >= kth).all()
    before = _stamps(store)
    again = _run(None, "best", *lists, "--top", "3", "--json", "--store", str(store),
                 env=mpi_env(cache))
    assert "0 opener(s) to value" in again.stderr and again.stdout == p.stdout
    assert np.array_equal(before, _stamps(store), equal_nan=True)


def test_book_on_three_ranks_stops_in_each_step_and_resumes_without_recomputing(
        tmp_path, cache, small):
    """A SIGTERM to every rank while rank 0 scores the openers, a time limit in the
    middle of the run, a SIGTERM while rank 0 writes: each ends every rank with exit
    0 (the write, a second's work, completes); the resumed builds value each opener
    once, and the book equals one built by one process."""
    a, g = small
    store, book = tmp_path / "b.zarr", tmp_path / "b.npz"
    args = ["book", "build", "--answers", a, "--guesses", g, "--mode", "hard", "--top", "3",
            "--popular", "12", "--store", str(store), "--out", str(book)]
    env = mpi_env(cache)

    def paused(step: str) -> subprocess.CompletedProcess:
        marker = tmp_path / f"{step}.marker"
        p = subprocess.Popen(_cmd(3, *args), env=env | {
            "WORDLE_DP_TEST_PAUSE": f"{step}:{marker}"}, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, start_new_session=True)
        t0 = time.time()
        while not marker.exists():  # against a hang only: reaching the step takes seconds
            assert p.poll() is None and time.time() - t0 < 600, p.communicate()
            time.sleep(0.05)
        os.killpg(p.pid, signal.SIGTERM)  # every rank, as Slurm does
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert not any(b in err for b in BAD_END), err
        return subprocess.CompletedProcess(p.args, p.returncode, out, err)

    p = paused("scoring")
    assert "stopped (signal SIGTERM)" in p.stderr and "can be resumed" in p.stderr
    assert not book.exists()
    p = _run(3, *args, "--time-limit", "3", env=env)  # the run stops, every rank exits
    if "stopped (time limit" in p.stderr:
        assert "can be resumed" in p.stderr and not book.exists()
    stamps = _stamps(store)
    p = paused("writing")
    assert book.exists() and "wrote the book" in p.stderr
    done = ~np.isnan(stamps)
    now = _stamps(store)
    assert np.array_equal(stamps[done], now[done])  # valued once, kept
    assert not np.isnan(now).any()
    # again: nothing to value, the same book
    first = Book.read(book, WordLists.load(a, g, quiet=True))
    p = _run(3, *args, env=env)
    assert "0 opener(s) to value" in p.stderr
    assert np.array_equal(now, _stamps(store), equal_nan=True)
    again = Book.read(book, WordLists.load(a, g, quiet=True))
    assert np.array_equal(first.second_rows, again.second_rows)
    # one process from scratch: the same book
    one = tmp_path / "one.npz"
    _run(None, *args[:-4], "--store", str(tmp_path / "one.zarr"), "--out", str(one),
         "--quiet", env=env)
    ref = Book.read(one, WordLists.load(a, g, quiet=True))
    top = [(w, int(t)) for w, t in zip(ref.words, ref.total, strict=True)]
    k = ref.info["top"]
    assert k == again.info["top"] >= 3 and ref.info["kth_total"] == again.info["kth_total"]
    best = sorted(np.flatnonzero(ref.status_codes == S.EXACT), key=lambda i: top[i][1])[:k]
    assert all(again.status_codes[i] == S.EXACT and again.total[i] == ref.total[i]
               for i in best)
    # which openers end exact depends on when the cutoff tightened: where both books
    # have a value they agree, and a lower bound is never above the other's value
    x, y = ref.status_codes, again.status_codes
    both = (x == S.EXACT) & (y == S.EXACT)
    assert np.array_equal(ref.total[both], again.total[both])
    assert (again.total[(x == S.EXACT) & (y == S.LOWER_BOUND)]
            <= ref.total[(x == S.EXACT) & (y == S.LOWER_BOUND)]).all()
    assert (ref.total[(y == S.EXACT) & (x == S.LOWER_BOUND)]
            <= again.total[(y == S.EXACT) & (x == S.LOWER_BOUND)]).all()
    assert ref.info["popular"] == again.info["popular"]
    # every exact opener's class values are in the store (no search to write the book)
    st = S.Store.open(store)
    wl = WordLists.load(a, g, quiet=True)
    table = get_table(wl, "numpy", cache)[0]
    cs = ClassStore(store, len(st.words))
    snap = st.snapshot()
    assert all(has_class_values(cs, int(i), table[i], 243)
               for i in np.flatnonzero(snap.status == S.EXACT))


def test_a_solve_past_the_grace_is_cut_short_on_every_rank(tmp_path, cache):
    """qajaq (minutes) and salet (seconds) on two ranks, default lists, an 8 s time
    limit and 1 s of grace: qajaq is cut short through the engine's stop flag
    wherever it runs, the job ends within seconds with exit 0, qajaq stays pending,
    and salet, if it finished, has its value."""
    store = tmp_path / "q.zarr"
    # that it ended early is what it says and stores (qajaq pending), not a wall-clock
    # bound, which a busy machine stretches; the timeout is against a hang only
    p = _run(2, "run", "--store", str(store), "--openers", "qajaq,salet", "--split", "off",
             "--time-limit", "8", "--grace", "1", env=mpi_env(cache), timeout=600)
    assert "cut short and stay pending" in p.stderr and "can be resumed" in p.stderr
    st = S.Store.open(store)
    snap = st.snapshot()
    assert snap.status[st.index_of("qajaq")] == S.PENDING
    salet = st.index_of("salet")
    assert snap.status[salet] == S.PENDING or (
        snap.status[salet], snap.fields["total"][salet]) == (S.EXACT, 7920)


def test_a_worker_rank_hears_the_abandon(tmp_path, cache):
    """The same with rank 0 only coordinating (RunConfig.rank0_solves=False): qajaq
    is on rank 1, whose watcher thread hears rank 0's abandon message."""
    script = tmp_path / "abandon.py"
    script.write_text(
        "import sys\n"
        "from solver.run import RunConfig, run\n"
        "s = run(RunConfig(store=sys.argv[1], openers='qajaq', split='off',\n"
        "                  time_limit=5, grace=1, rank0_solves=False))\n"
        "print('state', s.state, flush=True)\n")
    store = tmp_path / "a.zarr"
    p = subprocess.run([str(MPIEXEC), "-n", "2", sys.executable, str(script), str(store)],
                       env=mpi_env(cache), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["state", "stopped"] * 2
    assert "cut short" in p.stderr and not any(b in p.stderr for b in BAD_END), p.stderr
    assert S.Store.open(store).snapshot().counts()["pending"] == len(S.Store.open(store).words)


def test_waiting_ranks_sleep(tmp_path):
    """While rank 0 is busy for 3 s, the others wait in the run's waits (a barrier
    before a collective, a message) using next to no CPU; MPICH's own blocking calls
    spin (a bcast: about 80 % system time). Rank 0 prints every rank's row: lines
    printed by several ranks can interleave mid-line."""
    script = tmp_path / "wait.py"
    script.write_text(
        "import resource, sys, time\n"
        "from mpi4py import MPI\n"
        "from solver.run.mpi import QUIET_SLEEP, quiet_bcast, wait_message\n"
        "comm = MPI.COMM_WORLD\n"
        "rank = comm.Get_rank()\n"
        "def cpu():\n"
        "    r = resource.getrusage(resource.RUSAGE_SELF)\n"
        "    return r.ru_utime + r.ru_stime\n"
        "c0 = cpu()\n"
        "if rank == 0:\n"
        "    time.sleep(3)\n"
        "quiet_bcast(comm, 1)\n"
        "c1 = cpu()\n"
        "if rank == 0:\n"
        "    time.sleep(3)\n"
        "    for w in range(1, comm.Get_size()):\n"
        "        comm.send('go', dest=w, tag=5)\n"
        "else:\n"
        "    wait_message(comm, MPI, 0, 5, max_sleep=QUIET_SLEEP)\n"
        "c2 = cpu()\n"
        "rows = comm.gather((rank, round(c1 - c0, 3), round(c2 - c1, 3)), root=0)\n"
        "if rank == 0:\n"
        "    for row in rows:\n"
        "        print(*row, flush=True)\n")
    p = subprocess.run([str(MPIEXEC), "-n", "3", sys.executable, str(script)],
                       env=mpi_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = {int(r[0]): (float(r[1]), float(r[2])) for r in map(str.split,
                                                                p.stdout.splitlines())}
    for rank in (1, 2):
        barrier, message = rows[rank]
        assert barrier < 0.3 and message < 0.3, rows  # of 3 s each



def test_a_book_that_cannot_be_written_ends_every_rank(tmp_path, cache, small):
    """An error on rank 0 in the book's last step (here a fixed cutoff too low to prove
    the 10 best) ends the command on every rank with one error line and exit 2: the
    other ranks waited for the write for ever (the 6-letter book's build hung so)."""
    a, g = small
    # the hang (the other ranks waiting for ever) shows as the timeout
    p = subprocess.run(_cmd(2, "book", "build", "--answers", a, "--guesses", g, "--store",
                            str(tmp_path / "b.zarr"), "--out", str(tmp_path / "b.npz"),
                            "--cutoff", "1", "--popular", "3", "--no-players", "--quiet"),
                       env=mpi_env(cache), capture_output=True, text=True, timeout=600)
    assert p.returncode == 2, p.stderr
    assert "proves none of the best openers, not 10" in p.stderr
    assert p.stderr.count("wordle-dp: error:") == 1
    assert not any(b in p.stderr for b in BAD_END), p.stderr
