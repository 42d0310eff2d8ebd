"""Shared by the MPI and Slurm run tests: small problem lists and the reference
table every run must reproduce."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from solver.words import WordLists

ROOT = Path(__file__).resolve().parents[1]
MPIEXEC = Path(sys.executable).parent / "mpiexec"  # the mpich wheel's launcher


def mpi_env(cache: Path) -> dict:
    """Environment for a child run: its own table cache, this checkout first on the
    path, one numba thread per rank."""
    env = dict(os.environ)
    env["WORDLE_DP_CACHE"] = str(cache)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env["NUMBA_NUM_THREADS"] = "1"
    return env


def write_lists(d: Path, n_answers: int, step: int) -> tuple[str, str]:
    """The first n_answers answers and every step-th guess, as list files in d."""
    answers = (ROOT / "data" / "answers.txt").read_text().split()[:n_answers]
    guesses = (ROOT / "data" / "guesses.txt").read_text().split()[::step]
    d.mkdir(parents=True, exist_ok=True)
    a, g = d / "answers.txt", d / "guesses.txt"
    a.write_text("\n".join(answers) + "\n")
    known = set(guesses)
    g.write_text("\n".join(guesses + [w for w in answers if w not in known]) + "\n")
    return str(a), str(g)


def reference_table(a: str, g: str, cache) -> dict[str, tuple[str, int]]:
    """Every opener valued by one fresh Solver in this process: (status, total or -1)."""
    from solver import Solver
    from solver.table import get_table

    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", cache)
    s = Solver(lists, table=table)
    out = {}
    for w in lists.guesses:
        r = s.solve(w)
        out[w] = (r.status, -1 if r.total is None else r.total)
    return out


def openmpi() -> tuple[str | None, Path | None, str]:
    """(Open MPI's mpirun, the python of a venv whose mpi4py is built against it, why
    not): the venv is $WORDLE_DP_OPENMPI_VENV (set by .ci/run), else .venv-ompi here.
    Build one with
      python3 -m venv .venv-ompi
      MPICC=mpicc .venv-ompi/bin/pip install --no-binary mpi4py -e .
    """
    import os
    import shutil
    import subprocess

    mpirun = None
    for name in ("mpirun.openmpi", "mpirun"):
        exe = shutil.which(name)
        if exe:
            v = subprocess.run([exe, "--version"], capture_output=True, text=True)
            if "open-mpi.org" in (v.stdout + v.stderr).lower():  # Open MPI 4 and 5
                mpirun = exe
                break
    if mpirun is None:
        return None, None, "no Open MPI mpirun (apt-get install openmpi-bin libopenmpi-dev)"
    venv = Path(os.environ.get("WORDLE_DP_OPENMPI_VENV") or ROOT / ".venv-ompi")
    python = venv / "bin" / "python"
    if not python.exists():
        return mpirun, None, f"no Open MPI venv at {venv} (see tests/run_helpers.openmpi)"
    lib = subprocess.run([str(python), "-c", "from mpi4py import MPI; "
                          "print(MPI.Get_library_version())"], capture_output=True, text=True)
    if "Open MPI" not in lib.stdout:
        return mpirun, None, f"mpi4py in {venv} is not Open MPI's: {lib.stdout or lib.stderr}"
    return mpirun, python, ""


def rank_pid(store: Path, rank: int) -> int | None:
    """pid of MPI rank `rank` of the mpich run writing `store` (from /proc), or None."""
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            cmd = (p / "cmdline").read_bytes().split(b"\0")
            env = (p / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if str(store).encode() in cmd and b"-m" in cmd and f"PMI_RANK={rank}".encode() in env:
            return int(p.name)
    return None
