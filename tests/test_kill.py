"""SIGKILL at random moments during a multi-rank run, many times over.

Every kill is followed by a check that the store still opens (validation included)
and that every opener finished before the kill kept exactly its result (status,
total, depth and second guesses); the next run resumes. The final store must hold
the same table as an uninterrupted single-process run.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from solver import store as S
from tests.run_helpers import MPIEXEC, mpi_env, rank_pid, write_lists

pytestmark = pytest.mark.mpi

ROOT = Path(__file__).resolve().parents[1]
if not MPIEXEC.exists():
    pytest.skip("no mpiexec next to the interpreter (pip install mpich)",
                allow_module_level=True)




def _finished(store: Path) -> dict[int, tuple]:
    """Every non-pending opener's result: (status, total, depth, second row)."""
    if not store.exists():
        return {}
    st = S.Store.open(store)  # raises if the kill left the store damaged
    snap = st.snapshot()
    sec = np.asarray(st.group["second"][...])
    return {int(i): (int(snap.status[i]), int(snap.fields["total"][i]),
                     int(snap.fields["depth"][i]), sec[i].tobytes())
            for i in np.flatnonzero(snap.status != S.PENDING)}


def _n_done(store: Path) -> int:
    """Non-pending openers, read cheaply (no validation) while a run writes."""
    try:
        import zarr

        return int((np.asarray(zarr.open_group(str(store), mode="r")["status"][...])
                    != S.PENDING).sum())
    except Exception:
        return 0


def _classes(store: Path) -> dict[tuple[int, int], int]:
    """Every checkpointed class of a split run: (opener, pattern) -> packed word."""
    if not (store / "classes" / "zarr.json").exists():
        return {}
    import zarr

    v = np.asarray(zarr.open_group(str(store), mode="r")["classes"]["value"][...])
    return {(int(i), int(p)): int(v[i, p]) for i, p in zip(*np.nonzero(v), strict=True)}


def _descendants(root: int) -> set[int]:
    """The processes below `root` now (mpiexec's proxies and ranks run in sessions of
    their own, so the job's process group does not hold them)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                ppid = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue  # gone meanwhile
            children.setdefault(ppid, []).append(int(d))
    out, todo = set(), [root]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def _wait_gone(pids: set[int], timeout: float = 60.0) -> None:
    """Wait until none of `pids` is alive (a zombie holds no lock). mpiexec can exit
    before its ranks have died (they hear of it through their proxy), and a rank
    holds the store's lock until it has: a resume started at once is then refused,
    rightly (a clean-clone CI run saw it once, beside another test run)."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        live = []
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue  # gone
            if state != "Z":
                live.append(pid)
        if not live:
            return
        time.sleep(0.02)
    raise AssertionError(f"processes {sorted(pids)} of the killed job still run after "
                         f"{timeout:.0f} s")


def _kill_cycles(tmp_path: Path, n_answers: int, step: int, kills: int, seed: int,
                 extra: tuple[str, ...] = (), single: tuple[str, ...] = (),
                 same_depth: bool = True) -> None:
    """`extra`: options of the killed runs; `single`: those of the uninterrupted
    single-process run they must match (`same_depth`: in depth too; a class valued
    in parts may end on another optimal strategy of another height)."""
    a, g = write_lists(tmp_path / "lists", n_answers, step)
    cache = tmp_path / "cache"
    store = tmp_path / "kill.zarr"
    args = ["run", "--store", str(store), "--answers", a, "--guesses", g,
            "--flush-seconds", "0.05", "--quiet"]
    mpi = [str(MPIEXEC), "-n", "3", sys.executable, "-m", "solver", *args, *extra]
    rng = random.Random(seed)
    before: dict[int, tuple] = {}
    classes: dict[tuple[int, int], int] = {}
    progressed = 0
    for k in range(kills):
        p = subprocess.Popen(mpi, env=mpi_env(cache), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, start_new_session=True)
        if k % 2:  # a random moment, start-up and store creation included
            time.sleep(rng.uniform(0.2, 3.0))
        else:  # a random moment once this run is writing results
            t0 = time.time()
            while _n_done(store) <= len(before) and p.poll() is None and time.time() - t0 < 60:
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 0.4))
        whole = k % 3 != 2  # mostly the whole job at once; sometimes rank 0 (the writer)
        pid = None if whole else rank_pid(store, 0)
        job = _descendants(p.pid)
        try:
            if pid is None:
                os.killpg(p.pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
        _wait_gone(job)
        if p.returncode == 0:
            break  # finished before the kill: nothing left to interrupt
        after = _finished(store)
        lost = {i: v for i, v in before.items() if after.get(i) != v}
        assert not lost, f"kill {k}: {len(lost)} finished result(s) lost or changed"
        now = _classes(store)
        gone = {c for c, v in classes.items() if now.get(c) != v}
        assert not gone, f"kill {k}: {len(gone)} checkpointed class(es) lost or changed"
        progressed += len(after) > len(before)
        before, classes = after, now
    # resume to the end, then compare with one uninterrupted single process
    p = subprocess.run(mpi, env=mpi_env(cache), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    final = _finished(store)
    assert all(final.get(i) == v for i, v in before.items())
    one = tmp_path / "single.zarr"
    p1 = subprocess.run([sys.executable, "-m", "solver", *args[:2], str(one), *args[3:],
                         *single],
                        env=mpi_env(cache), capture_output=True, text=True, timeout=300)
    assert p1.returncode == 0, p1.stderr
    ref = S.Store.open(one).snapshot()
    got = S.Store.open(store).snapshot()
    assert got.counts()["pending"] == 0 and got.counts()["failed"] == 0
    assert (got.status == ref.status).all()
    assert (got.fields["total"] == ref.fields["total"]).all()
    if same_depth:
        assert (got.fields["depth"] == ref.fields["depth"]).all()
    assert progressed >= 1, "no kill landed while results were being written"
    if extra:  # a split run: kills landed while openers were partly valued
        assert classes, "no class was ever checkpointed before a kill"


def test_sigkill_many_times_loses_nothing(tmp_path):
    _kill_cycles(tmp_path, n_answers=100, step=24, kills=4, seed=1)


def test_sigkill_split_run_loses_only_classes_in_flight(tmp_path):
    """Every opener valued as classes (--split all), hard mode: a kill never loses a
    checkpointed class, and the resumed runs end with the table of a single process
    that valued every opener whole."""
    _kill_cycles(tmp_path, n_answers=100, step=24, kills=4, seed=3,
                 extra=("--split", "all", "--mode", "hard"),
                 single=("--split", "off", "--mode", "hard"))


def test_sigkill_run_with_classes_in_parts(tmp_path):
    """Every class of more than two answers valued in 3 parts (--parts 3): kills lose
    no finished opener or checkpointed class (parts in flight are valued again),
    and the resumed runs end with the values of one process valuing openers whole."""
    _kill_cycles(tmp_path, n_answers=100, step=24, kills=4, seed=5,
                 extra=("--split", "all", "--parts", "3"), single=("--split", "off"),
                 same_depth=False)


@pytest.mark.slow
def test_sigkill_many_times_loses_nothing_long(tmp_path):
    _kill_cycles(tmp_path, n_answers=200, step=6, kills=25, seed=2)


@pytest.mark.parametrize("bad", [["--grace", "nan"], ["--openers", ","]], ids=str)
def test_errors_under_mpiexec_are_one_line(tmp_path, bad):
    """Every rank parses the command line; only rank 0 reports what is wrong."""
    env = mpi_env(tmp_path / "cache")
    for extra in ({}, {"NUMBA_NUM_THREADS": "0"}):
        p = subprocess.run([str(MPIEXEC), "-n", "3", sys.executable, "-m", "solver", "run",
                            "--store", str(tmp_path / "s.zarr"), *bad],
                           env=env | extra, capture_output=True, text=True, timeout=120)
        lines = p.stderr.splitlines()
        assert p.returncode != 0 and len(lines) == 1, p.stderr
        assert lines[0].startswith("wordle-dp: error:")
        assert ("NUMBA_NUM_THREADS" if extra else bad[0].lstrip("-")) in lines[0]
