"""The slurm/ scripts on a real single-node Slurm that the test brings up itself.

tests/slurm_local.sh installs the Debian packages if needed (root + apt-get),
starts munged, slurmctld and slurmd from a generated slurm.conf in a temporary
folder and stops exactly those daemons afterwards; where that is impossible the
tests skip. They take a minute or two (a requeued job waits ~10 s before it may
start again), so they are also marked slow:  pytest -m slurm
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solver import store as S
from solver.words import WordLists
from tests.run_helpers import openmpi, reference_table, write_lists

pytestmark = [pytest.mark.slurm, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
HELPER = ROOT / "tests" / "slurm_local.sh"


def _local_slurm(tmp_path_factory, nodes: int):
    if shutil.which("bash") is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("a local Slurm needs root (slurmd)")
    d = tmp_path_factory.mktemp("slurm")
    p = subprocess.run(["bash", str(HELPER), "start", str(d), str(nodes)],
                       capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        subprocess.run(["bash", str(HELPER), "stop", str(d)], capture_output=True)
        pytest.skip(f"cannot start a local Slurm: {p.stderr.strip()[-300:]}")
    env = dict(os.environ)
    env["SLURM_CONF"] = str(d / "slurm.conf")
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"],
                                   "/usr/sbin", "/sbin"])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env["WORDLE_DP_CACHE"] = str(d / "cache")
    env["WDP_CMD"] = f"{sys.executable} -m solver"
    yield env
    subprocess.run(["scancel", "--user=root"], env=env, capture_output=True)
    subprocess.run(["bash", str(HELPER), "stop", str(d)], capture_output=True, timeout=300)


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    yield from _local_slurm(tmp_path_factory, 1)


@pytest.fixture(scope="module")
def slurm2(tmp_path_factory):
    """Two node names (wdp1, wdp2) on this machine, one slurmd each."""
    yield from _local_slurm(tmp_path_factory, 2)


def _table(store: Path) -> dict[str, tuple[str, int]]:
    st = S.Store.open(store)
    snap = st.snapshot()
    return {w: (S.STATUS_NAMES[snap.status[i]], int(snap.fields["total"][i]))
            for i, w in enumerate(st.words)}


def _sh(env, *cmd: str, cwd=None) -> str:
    p = subprocess.run(list(cmd), env=env, capture_output=True, text=True, timeout=300,
                       cwd=cwd)
    assert p.returncode == 0, (cmd, p.stdout, p.stderr)
    return p.stdout.strip()


def _job(env, jid: str) -> dict[str, str]:
    out = _sh(env, "scontrol", "-o", "show", "job", jid)
    return dict(re.findall(r"(\w+)=(\S*)", out))


def _done(store: Path) -> int:
    try:
        return int((S.Store.open(store).status() != S.PENDING).sum())
    except Exception:
        return 0


def _wait(pred, what: str, timeout: float = 240.0, log: Path | None = None):
    t0 = time.time()
    while time.time() - t0 < timeout:
        v = pred()
        if v:
            return v
        time.sleep(0.2)
    text = log.read_text() if log and log.exists() else ""
    raise AssertionError(f"timed out waiting for {what}\n{text[-3000:]}")


def test_mpi_job_signal_requeue_and_resume(slurm, tmp_path):
    """srun-launched MPI job: USR1 (what --signal=B:USR1@120 sends) -> clean stop ->
    the script requeues itself -> resumes; then a hard requeue by Slurm (SIGTERM to
    every rank) mid-run -> resumes again; the final store is the exact table."""
    a, g = write_lists(tmp_path / "lists", 150, 8)
    store = tmp_path / "ckpt" / "run.zarr"
    log = tmp_path / "job.log"
    env = dict(slurm, WDP_STORE=str(store), WDP_LAUNCH="srun",
               WDP_ARGS=f"--answers {a} --guesses {g} --flush-seconds 0.2 --grace 20")
    jid = _sh(env, "sbatch", "--parsable", "--ntasks=3", f"--output={log}",
              f"--chdir={tmp_path}", str(ROOT / "slurm" / "wordle-dp-mpi.sbatch"))
    n = len(WordLists.load(a, g, quiet=True).guesses)

    _wait(lambda: _done(store) >= 40, "first progress", log=log)
    _sh(env, "scancel", "--batch", "--signal=USR1", jid)
    _wait(lambda: "start #1" in log.read_text(), "the requeued job to start", log=log)
    text = log.read_text()
    assert "SIGUSR1: asking the run to stop" in text and "can be resumed" in text
    assert "requeueing job" in text
    done1 = int(re.search(r"stopped \(signal SIGUSR1\): (\d+)", text).group(1))
    assert 40 <= done1 < n

    _wait(lambda: _done(store) >= done1 + 40, "progress after the restart", log=log)
    _sh(env, "scontrol", "requeue", jid)
    _wait(lambda: "start #2" in log.read_text(), "the second restart", log=log)
    _wait(lambda: _job(env, jid).get("JobState") in ("COMPLETED", "FAILED"),
          "the job to end", log=log)
    job = _job(env, jid)
    text = log.read_text()
    assert job["JobState"] == "COMPLETED", text[-3000:]
    assert "3 rank(s) (all solving, rank 0 coordinating too)" in text  # srun gave real MPI ranks
    assert "run finished" in text
    # no opener was valued twice: each start only took what was still pending
    todo = [int(x) for x in re.findall(r"wordle-dp: (\d+) opener\(s\) to value", text)]
    assert todo[0] == n and todo[1] == n - done1 and len(todo) == 3
    assert _table(store) == reference_table(a, g, slurm["WORDLE_DP_CACHE"])


def test_array_job_and_merge(slurm, tmp_path):
    """Job-array variant: 3 slices in their own stores, merged after the array."""
    a, g = write_lists(tmp_path / "lists", 60, 10)
    store = tmp_path / "ckpt" / "arr.zarr"
    env = dict(slurm, WDP_STORE=str(store), WDP_ARGS=f"--answers {a} --guesses {g} --quiet")
    out = _sh(env, "bash", str(ROOT / "slurm" / "submit-array.sh"), "3",
              f"--chdir={tmp_path}", cwd=tmp_path)
    m = re.fullmatch(r"array job (\d+) \(3 tasks\), merge job (\d+)", out)
    assert m, out
    merge_id = m.group(2)
    _wait(lambda: _job(env, merge_id).get("JobState") in ("COMPLETED", "FAILED", "CANCELLED"),
          "the merge job", log=None)
    assert _job(env, merge_id)["JobState"] == "COMPLETED"
    assert "merged 3 store(s)" in (tmp_path / f"wordle-dp-merge-{merge_id}.log").read_text()
    assert len(list(tmp_path.glob("wordle-dp-array-*_*.log"))) == 3
    parts = sorted(p.name for p in store.parent.glob("arr.part-*-of-3.zarr"))
    assert parts == [f"arr.part-{i}-of-3.zarr" for i in range(3)]
    sizes = [int(S.Store.open(store.parent / p).snapshot().selected.sum()) for p in parts]
    assert max(sizes) - min(sizes) <= 1
    assert _table(store) == reference_table(a, g, slurm["WORDLE_DP_CACHE"])


def test_mpiexec_inside_a_job(slurm, tmp_path):
    """The mpich wheel's own mpiexec inside an allocation (WDP_LAUNCH=mpiexec)."""
    a, g = write_lists(tmp_path / "lists", 40, 20)
    store = tmp_path / "m.zarr"
    log = tmp_path / "m.log"
    env = dict(slurm, WDP_STORE=str(store), WDP_LAUNCH="mpiexec",
               WDP_ARGS=f"--answers {a} --guesses {g}")
    jid = _sh(env, "sbatch", "--parsable", "--ntasks=3", f"--output={log}",
              f"--chdir={tmp_path}", str(ROOT / "slurm" / "wordle-dp-mpi.sbatch"))
    _wait(lambda: _job(env, jid).get("JobState") in ("COMPLETED", "FAILED"), "the job",
          log=log)
    assert _job(env, jid)["JobState"] == "COMPLETED", log.read_text()
    assert "3 rank(s) (all solving, rank 0 coordinating too)" in log.read_text()
    assert _table(store) == reference_table(a, g, slurm["WORDLE_DP_CACHE"])


def test_srun_without_the_right_plugin_is_refused(slurm, tmp_path):
    """srun --mpi=none with the mpich wheel starts N singletons: each task refuses with
    one line naming the fix, and no store is written."""
    a, g = write_lists(tmp_path / "lists", 20, 50)
    store = tmp_path / "never.zarr"
    p = subprocess.run(["srun", "--mpi=none", "-n", "3", sys.executable, "-m", "solver",
                        "run", "--store", str(store), "--answers", a, "--guesses", g],
                       env=slurm, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    errs = [x for x in p.stderr.splitlines() if x.startswith("wordle-dp: error:")]
    assert len(errs) == 3
    assert all("SLURM_STEP_NUM_TASKS=3" in e and "--mpi=pmi2" in e for e in errs)
    assert not store.exists()


def test_cluster_openmpi_through_srun_pmix(slurm, tmp_path):
    """The cluster-MPI set-up: mpi4py built against Open MPI, the batch script with
    WDP_SRUN_MPI=pmix gives the exact table; srun --mpi=pmi2 (the mpich wheel's
    plugin) makes Debian's Open MPI abort at start-up."""
    _mpirun, python, why = openmpi()
    if python is None:
        pytest.skip(why)
    a, g = write_lists(tmp_path / "lists", 40, 20)
    store = tmp_path / "o.zarr"
    log = tmp_path / "o.log"
    env = dict(slurm, WDP_STORE=str(store), WDP_SRUN_MPI="pmix",
               WDP_CMD=f"{python} -m solver", WDP_ARGS=f"--answers {a} --guesses {g}")
    jid = _sh(env, "sbatch", "--parsable", "--ntasks=3", f"--output={log}",
              f"--chdir={tmp_path}", str(ROOT / "slurm" / "wordle-dp-mpi.sbatch"))
    _wait(lambda: _job(env, jid).get("JobState") in ("COMPLETED", "FAILED"), "the job",
          log=log)
    assert _job(env, jid)["JobState"] == "COMPLETED", log.read_text()
    assert "3 rank(s) (all solving, rank 0 coordinating too)" in log.read_text()
    assert _table(store) == reference_table(a, g, slurm["WORDLE_DP_CACHE"])

    p = subprocess.run(["srun", "--mpi=pmi2", "-n", "2", str(python), "-m", "solver", "run",
                        "--store", str(tmp_path / "never.zarr"), "--answers", a,
                        "--guesses", g], env=slurm, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode != 0 and "not built with SLURM's PMI support" in p.stderr
    assert not (tmp_path / "never.zarr").exists()


def test_mpi_job_across_two_node_names(slurm2, tmp_path):
    """One job over two Slurm nodes (two slurmds on this machine): srun's PMI puts
    3 ranks on wdp1 and 1 on wdp2, so each node fills its own table copy, every
    opener goes out as classes (--split all), and the memo follows Slurm's memory
    (--mem-per-cpu=500M: half of it per rank is below the 250 MB a rank needs
    besides its memo, so the 75 MB floor). The store equals one process's."""
    a, g = write_lists(tmp_path / "lists", 60, 10)
    store = tmp_path / "two.zarr"
    log = tmp_path / "two.log"
    env = dict(slurm2, WDP_STORE=str(store), WDP_LAUNCH="srun",
               WDP_ARGS=f"--answers {a} --guesses {g} --split all")
    jid = _sh(env, "sbatch", "--parsable", "--nodes=2", "--ntasks=4",
              "--ntasks-per-node=3", "--mem-per-cpu=500M", f"--output={log}",
              f"--chdir={tmp_path}", str(ROOT / "slurm" / "wordle-dp-mpi.sbatch"))
    _wait(lambda: _job(env, jid).get("JobState") in ("COMPLETED", "FAILED"), "the job",
          log=log)
    text = log.read_text()
    assert _job(env, jid)["JobState"] == "COMPLETED", text[-3000:]
    assert "on wdp[1-2]" in text
    assert "4 rank(s) (all solving, rank 0 coordinating too) over 2 node(s) (one table copy per " \
           "node)" in text
    n = len(WordLists.load(a, g, quiet=True).guesses)
    assert f"{n} valued as first-feedback classes" in text
    assert "memo_entries=2097152" in text  # 75 MB: the rule under Slurm's 500M per CPU
    assert _table(store) == reference_table(a, g, slurm2["WORDLE_DP_CACHE"])


def test_the_tables_recipe_submits_one_job_a_mode(slurm, tmp_path):
    """slurm/submit-tables.sh: one self-requeueing MPI job per mode, each into its own
    store named for the lists and the mode; both end with the exact table."""
    a, g = write_lists(tmp_path / "lists", 60, 40)
    out = tmp_path / "ckpt"
    env = dict(slurm, WDP_LISTS_ARGS=f"--answers {a} --guesses {g}",
               WDP_STORE_DIR=str(out), WDP_LAUNCH="srun")
    said = _sh(env, "bash", str(ROOT / "slurm" / "submit-tables.sh"), "mine",
               "--ntasks=2", f"--output={tmp_path}/job-%j.log", f"--chdir={tmp_path}")
    jobs = dict(re.findall(r"^(\w+): job (\d+) ->", said, re.M))
    assert set(jobs) == {"easy", "hard"}, said
    for mode, jid in jobs.items():
        _wait(lambda jid=jid: _job(env, jid).get("JobState") in ("COMPLETED", "FAILED"),
              f"the {mode} job to end", log=tmp_path / f"job-{jid}.log")
        assert _job(env, jid)["JobState"] == "COMPLETED"
        st = S.Store.open(out / f"table-mine-{mode}-6.zarr")
        assert st.problem.mode == mode and (st.status() != S.PENDING).all()
    assert _table(out / "table-mine-easy-6.zarr") == reference_table(
        a, g, slurm["WORDLE_DP_CACHE"])
