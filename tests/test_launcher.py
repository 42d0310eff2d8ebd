"""Singleton detection: a launcher that started N processes while MPI sees a world of
1 (wrong srun --mpi plugin, another MPI's mpiexec) is refused before anything is
written. The real mismatched launches are in test_run_openmpi.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from solver.errors import UsageError
from solver.run import LAUNCHER_SIZE_VARS, RunConfig, check_launcher, run

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("var", LAUNCHER_SIZE_VARS)
def test_n_singletons_are_refused(var):
    with pytest.raises(UsageError) as exc:
        check_launcher(1, "MPICH Version: 5.0.2", {var: "4"})
    msg = str(exc.value)
    assert f"launched as 4 processes ({var}=4)" in msg
    assert "MPICH Version: 5.0.2" in msg and "--mpi=pmi2" in msg and "\n" not in msg
    with pytest.raises(UsageError, match="mpi4py \\(not usable here\\)"):
        check_launcher(1, None, {var: "4"})


@pytest.mark.parametrize("env", [
    {},  # plain process
    {"PMI_SIZE": "1", "SLURM_STEP_NUM_TASKS": "1", "OMPI_COMM_WORLD_SIZE": "1"},
    {"SLURM_NTASKS": "32"},  # a batch script running one process in a bigger allocation
    {"PMI_SIZE": ""},
])
def test_single_process_launches_pass(env):
    check_launcher(1, "MPICH", env)


def test_a_real_world_passes():
    check_launcher(4, "Open MPI v4.1.4", {"OMPI_COMM_WORLD_SIZE": "4", "PMI_SIZE": "4"})


def test_run_refuses_before_touching_the_store(tmp_path, monkeypatch):
    monkeypatch.setenv("SLURM_STEP_NUM_TASKS", "3")
    store = tmp_path / "s.zarr"
    with pytest.raises(UsageError, match="SLURM_STEP_NUM_TASKS=3"):
        run(RunConfig(store=store, openers="salet"))
    assert not store.exists()


def test_cli_one_line_exit_2_and_shards_pass(tmp_path):
    """What srun -n 3 without a working --mpi plugin gives each task; with --shard the
    tasks are independent by design and run."""
    a = tmp_path / "a.txt"
    a.write_text("cigar\nrebut\nsissy\nhumph\n")
    env = dict(os.environ, SLURM_STEP_NUM_TASKS="3", WORDLE_DP_CACHE=str(tmp_path / "c"),
               PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="1")
    base = [sys.executable, "-m", "solver", "run", "--answers", str(a), "--guesses", str(a)]
    p = subprocess.run([*base, "--store", str(tmp_path / "x.zarr")], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.startswith("wordle-dp: error: launched as 3 processes")
    assert len(p.stderr.splitlines()) == 1 and not (tmp_path / "x.zarr").exists()
    p = subprocess.run([*base, "--store", str(tmp_path / "s.zarr"), "--shard", "0/3",
                        "--quiet"], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "s.zarr").exists()
