"""`wordle-dp run` under a system MPI: Debian's Open MPI with mpi4py built against it
in its own virtual environment (issue 11), next to the mpich wheel of this one.

The Open MPI venv is $WORDLE_DP_OPENMPI_VENV (set by .ci/run), else .venv-ompi in
the checkout (how to build one: tests/run_helpers.openmpi). Open MPI's launcher is
`mpirun.openmpi` or `mpirun` on PATH. Everything skips cleanly when either is missing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from solver import store as S
from tests.run_helpers import mpi_env, openmpi, reference_table, write_lists

pytestmark = [pytest.mark.mpi, pytest.mark.openmpi]

ROOT = Path(__file__).resolve().parents[1]
MPIRUN, OMPI_PYTHON, _why = openmpi()
if OMPI_PYTHON is None:
    pytest.skip(_why, allow_module_level=True)
MPICH_EXEC = Path(sys.executable).parent / "mpiexec"  # the mpich wheel's




def _mpirun(n: int, python: Path | str, *args: str) -> list[str]:
    """Open MPI's launcher: --oversubscribe (more ranks than cores here) and, as root
    (CI), --allow-run-as-root."""
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    return [MPIRUN, *root, "--oversubscribe", "-n", str(n), str(python), "-m", "solver", *args]


def _table(path: Path) -> dict[str, np.ndarray]:
    """Everything in a store that defines the result (not timings, ranks or node
    counts, which depend on the schedule and on each rank's memo)."""
    st = S.Store.open(path)
    g = st.group
    out = {k: g[k][...] for k in ("status", "total", "depth", "second", "words",
                                  "answer_ids", "selected")}
    out["problem"] = np.array([str(st.problem), str(st.cutoff)])
    return out


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cache")


def test_openmpi_mpich_and_one_process_give_identical_stores(tmp_path, cache):
    a, g = write_lists(tmp_path / "lists", 60, 10)
    args = ["run", "--answers", a, "--guesses", g, "--progress-seconds", "2"]
    ompi = tmp_path / "openmpi.zarr"
    p = subprocess.run(_mpirun(3, OMPI_PYTHON, *args, "--store", str(ompi)), env=mpi_env(cache),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "3 rank(s) (all solving, rank 0 coordinating too)" in p.stderr
    assert "run finished" in p.stderr
    assert set(np.unique(S.Store.open(ompi).snapshot().fields["rank"])) == {0, 1, 2}

    single = tmp_path / "single.zarr"
    p1 = subprocess.run([sys.executable, "-m", "solver", *args, "--store", str(single),
                         "--quiet"], env=mpi_env(cache), capture_output=True, text=True,
                        timeout=300)
    assert p1.returncode == 0, p1.stderr
    ref = reference_table(a, g, cache)
    snap = S.Store.open(ompi).snapshot()
    got = {w: (S.STATUS_NAMES[snap.status[i]], int(snap.fields["total"][i]))
           for i, w in enumerate(S.Store.open(ompi).words)}
    assert got == ref

    tables = {"openmpi": _table(ompi), "single": _table(single)}
    if MPICH_EXEC.exists():
        mpich = tmp_path / "mpich.zarr"
        p2 = subprocess.run([str(MPICH_EXEC), "-n", "3", sys.executable, "-m", "solver", *args,
                             "--store", str(mpich)], env=mpi_env(cache), capture_output=True,
                            text=True, timeout=300)
        assert p2.returncode == 0, p2.stderr
        tables["mpich"] = _table(mpich)
    first = tables["single"]
    assert (first["second"] >= 0).any()
    for name, t in tables.items():
        for key in first:
            assert np.array_equal(t[key], first[key]), (name, key)


def test_openmpi_sigusr1_stops_and_the_run_resumes(tmp_path, cache):
    """Open MPI's mpirun forwards SIGUSR1 to the ranks: a clean stop (exit 0), then the
    same command finishes the table."""
    a, g = write_lists(tmp_path / "lists", 150, 8)
    store = tmp_path / "run.zarr"
    cmd = _mpirun(3, OMPI_PYTHON, "run", "--store", str(store), "--answers", a, "--guesses",
                  g, "--flush-seconds", "0.2")
    p = subprocess.Popen(cmd, env=mpi_env(cache), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    t0 = time.time()
    while time.time() - t0 < 120 and p.poll() is None:
        try:
            if int((S.Store.open(store).status() != S.PENDING).sum()) >= 30:
                break
        except Exception:  # not created yet
            pass
        time.sleep(0.05)
    assert p.poll() is None, p.communicate()
    p.send_signal(signal.SIGUSR1)
    _out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert "can be resumed" in err
    snap = S.Store.open(store).snapshot()
    assert snap.run["state"] == "stopped" and snap.counts()["pending"] > 0
    p = subprocess.run(cmd, env=mpi_env(cache), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    snap = S.Store.open(store).snapshot()
    got = {w: (S.STATUS_NAMES[snap.status[i]], int(snap.fields["total"][i]))
           for i, w in enumerate(S.Store.open(store).words)}
    assert got == reference_table(a, g, cache)


@pytest.mark.skipif(not MPICH_EXEC.exists(), reason="no mpich wheel mpiexec")
def test_mismatched_launchers_fail_loudly(tmp_path, cache):
    """mpich's mpiexec with the Open MPI build gives singletons: every rank refuses
    with one line. Open MPI's mpirun with the mpich build: mpich itself aborts (it
    sees a PMIx environment). Neither writes a store."""
    a, g = write_lists(tmp_path / "lists", 20, 50)
    store = tmp_path / "never.zarr"
    args = ["run", "--store", str(store), "--answers", a, "--guesses", g]
    p = subprocess.run([str(MPICH_EXEC), "-n", "2", str(OMPI_PYTHON), "-m", "solver", *args],
                       env=mpi_env(cache), capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr
    # one refusal per rank, counted in the whole stream rather than per line: the
    # launcher forwards both ranks' stderr (mpi4py's warnings too) through its own
    # pipes and can join their lines (seen once in a fresh clone's CI, not since)
    refusal = "wordle-dp: error: launched as 2 processes (PMI_SIZE=2) but MPI (Open MPI"
    assert p.stderr.count(refusal) == 2, p.stderr
    p = subprocess.run(_mpirun(2, sys.executable, *args), env=mpi_env(cache),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    assert "PMIx" in p.stderr or "OMPI_COMM_WORLD_SIZE=2" in p.stderr, p.stderr
    assert not store.exists()
