"""`wordle-dp run --objective wins` under real MPI into a real Zarr store, checked
against the brute force of tests/test_wins.py (WinsBrute): every opener's answers
won within the cap and its total over those, in easy and hard mode, on lists where
some answers cannot be won; a run stopped part-way and resumed gives the same
store; `query` shows the values; the store's wins array survives damage and
repair; stores of the other objectives have no such array."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from solver import store as S
from solver.feedback import score
from tests.game_helpers import write_lists
from tests.run_helpers import MPIEXEC, mpi_env
from tests.test_wins import WinsBrute, stem_lists
from tests.test_wins import brute_no_constraint as start_con

pytestmark = pytest.mark.mpi

if not MPIEXEC.exists():
    pytest.skip("no mpiexec next to the interpreter (pip install mpich)",
                allow_module_level=True)

CAP = 4


def _cmd(n: int | None, *args: str) -> list[str]:
    base = [sys.executable, "-m", "solver", *args]
    return base if n is None else [str(MPIEXEC), "-n", str(n), *base]


@pytest.fixture(scope="module")
def stems(tmp_path_factory):
    """21 answers in three families of 7 (4 letters), 14 other guesses: at a cap of 4
    every opener loses answers in every mode."""
    d = tmp_path_factory.mktemp("stems")
    lists = stem_lists(0, 4, variants=7, n_guesses=14)
    a, g = write_lists(d, lists)
    return lists, ["--answers", a, "--guesses", g, "--max-guesses", str(CAP)], \
        tmp_path_factory.mktemp("cache")


def _done(store: Path) -> int:
    try:
        return int((S.Store.open(store).status() != S.PENDING).sum())
    except Exception:
        return 0


def _wait_for(pred, proc, timeout=180.0) -> bool:
    import time

    t0 = time.time()
    while time.time() - t0 < timeout:
        if pred():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.05)
    raise AssertionError("timed out")


def _check(store: Path, lists, mode: str) -> S.Snapshot:
    """Every opener of the store against the brute force: status exact, (wins, total),
    the average over the answers won, the ranking, and each second guess stored
    wins its class's best."""
    st = S.Store.open(store)
    assert st.problem.objective == "wins" and "wins" in st.group
    snap = st.snapshot()
    assert snap.counts()["exact"] == len(lists.guesses)
    brute = WinsBrute(lists.answers, lists.guesses, mode)
    n = len(lists.answers)
    s_all = frozenset(range(n))
    con0 = start_con(4) if mode == "hard" else None
    lost = 0
    want = {}
    for i, w in enumerate(st.words):
        bw = brute.wins_guess(brute.guesses.index(w), s_all, CAP, con0)
        want[w] = bw
        got = (int(snap.fields["wins"][i]), int(snap.fields["total"][i]))
        assert got == bw, (w, got, bw)
        lost += bw[0] < n
        # the second guesses: each wins what its class can win with CAP - 1 left
        for p, g2 in st.second_guesses(i).items():
            cls = frozenset(a for a in range(n) if score(w, lists.answers[a]) == p)
            con = brute.update(con0, w, p) if mode == "hard" else None
            best = brute.wins(cls, CAP - 1, con)
            gi = brute.guesses.index(g2)
            assert gi in brute.candidates(cls, con)  # legal there
            assert brute.wins_guess(gi, cls, CAP - 1, con) == best
    assert lost == len(lists.guesses), "every opener loses an answer here"
    # the ranking: the most wins first, then the least total
    rows = snap.best(len(st.words))
    keys = [(-r["wins"], r["total"]) for r in rows]
    assert keys == sorted((-w, t) for w, t in want.values())
    assert all(r["average"] == round(r["total"] / r["wins"], 6) for r in rows)
    avg = np.asarray(st.group["average"][...])
    i0 = st.index_of(rows[0]["opener"])
    assert avg[i0] == pytest.approx(rows[0]["total"] / rows[0]["wins"])
    return snap


@pytest.mark.parametrize("mode", ["easy", "hard"])
def test_wins_run_stopped_resumed_matches_brute_force(tmp_path, stems, mode):
    lists, files, cache = stems
    store = tmp_path / f"wins-{mode}.zarr"
    args = ["run", "--store", str(store), *files, "--mode", mode, "--objective", "wins",
            "--flush-seconds", "0.1", "--progress-seconds", "0.5"]
    env = mpi_env(cache)
    env["WORDLE_DP_TEST_SLOW"] = "0.25"  # each opener takes a quarter second
    n = len(lists.guesses)
    # stopped part-way (SIGUSR1 to mpiexec, as the Slurm script forwards it)
    p = subprocess.Popen(_cmd(2, *args), env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert _wait_for(lambda: _done(store) >= 6, p), p.communicate()
    p.send_signal(signal.SIGUSR1)
    _out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert "can be resumed" in err
    snap = S.Store.open(store).snapshot()
    done1 = int((snap.status != S.PENDING).sum())
    assert 6 <= done1 < n and snap.run["state"] == "stopped"
    # what is written is final: its values already are the brute force's
    assert (snap.fields["wins"][snap.status != S.PENDING] >= 0).all()
    # resumed to the end, on 2 ranks, without the delay
    p = subprocess.run(_cmd(2, *args), env=mpi_env(cache), capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert f"{n - done1} opener(s) to value" in p.stderr and "run finished" in p.stderr
    assert "best: " in p.stderr and f" of {len(lists.answers)}, total " in p.stderr
    _check(store, lists, mode)
    # query: the values, in words and as JSON
    q = subprocess.run(_cmd(None, "query", "--store", str(store), "--top", "3"),
                       env=mpi_env(cache), capture_output=True, text=True, timeout=300)
    assert q.returncode == 0, q.stderr
    assert "objective wins" in q.stdout and "(the most wins first)" in q.stdout
    top = S.Store.open(store).snapshot().best(1)[0]
    assert (f"{top['opener']}  exact       wins {top['wins']} of {len(lists.answers)}, "
            f"total {top['total']}") in q.stdout
    q = subprocess.run(_cmd(None, "query", "--store", str(store), "--json", lists.guesses[0]),
                       env=mpi_env(cache), capture_output=True, text=True, timeout=300)
    row = json.loads(q.stdout.splitlines()[0])
    assert row["objective"] == "wins" and row["wins"] >= 0 and row["total"] > 0
    assert row["wins_total"] == row["total"]
    # the same store under another objective is another problem; a cutoff is refused
    p = subprocess.run(_cmd(None, *args[:-4]), env=mpi_env(cache), capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0 and "0 opener(s) to value" in p.stderr
    p = subprocess.run(_cmd(None, "run", "--store", str(store), *files, "--mode", mode),
                       env=mpi_env(cache), capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "objective (store: wins, requested: expected)" in p.stderr
    p = subprocess.run(_cmd(None, *args, "--cutoff", "50"), env=mpi_env(cache),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "takes no cutoff" in p.stderr
    assert len(p.stderr.splitlines()) == 1


def test_wins_array_damage_repair_and_other_objectives(tmp_path, stems):
    """A lost chunk of the wins array is damage (its openers pending again after
    repair, valued again by the next run); stores of the expected objective have no
    wins array and their rows no wins."""
    lists, files, cache = stems
    store = tmp_path / "w.zarr"
    run = _cmd(None, "run", "--store", str(store), *files, "--mode", "hard", "--objective",
               "wins", "--quiet")
    assert subprocess.run(run, env=mpi_env(cache), timeout=300).returncode == 0
    for f in (store / "wins" / "c").iterdir():
        f.unlink()
    with pytest.raises(S.StoreError, match="chunk wins/c/0 is missing"):
        S.Store.open(store)
    r = subprocess.run(_cmd(None, "repair", "--store", str(store), *files[:4]),
                       env=mpi_env(cache), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert S.Store.open(store).snapshot().counts()["pending"] == len(lists.guesses)
    assert subprocess.run(run, env=mpi_env(cache), timeout=300).returncode == 0
    snap = _check(store, lists, "hard")
    # xarray and pandas see the wins too, the average over the answers won
    pytest.importorskip("xarray")
    pytest.importorskip("pandas")
    from solver.dataset import open_dataset, to_dataframe

    ds = open_dataset(store)
    assert ds.attrs["objective"] == "wins"
    assert (ds["wins"].values == snap.fields["wins"]).all()
    assert np.allclose(ds["average"].values, snap.fields["total"] / snap.fields["wins"])
    df = to_dataframe(S.Store.open(store))
    assert list(df["wins"]) == list(snap.fields["wins"])
    # two shards merged: the same store
    halves = [tmp_path / f"half{i}.zarr" for i in (0, 1)]
    for i, h in enumerate(halves):
        assert subprocess.run(_cmd(None, "run", "--store", str(h), *files, "--mode", "hard",
                                   "--objective", "wins", "--shard", f"{i}/2", "--quiet"),
                              env=mpi_env(cache), timeout=300).returncode == 0
    merged = tmp_path / "merged.zarr"
    assert S.merge(merged, halves)["copied"] == len(lists.guesses)
    m = S.Store.open(merged).snapshot()
    assert (m.fields["wins"] == snap.fields["wins"]).all()
    assert (m.fields["total"] == snap.fields["total"]).all()
    plain = tmp_path / "plain.zarr"
    p = subprocess.run(_cmd(None, "run", "--store", str(plain), *files, "--mode", "hard",
                            "--max-guesses", "6", "--quiet"), env=mpi_env(cache),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    st = S.Store.open(plain)
    assert "wins" not in st.group and "wins" not in st.snapshot().fields
    assert {st.snapshot().row(i)["wins"] for i in range(len(st.words))} == {None}
    shutil.rmtree(plain)
