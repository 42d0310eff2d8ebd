"""Result stores in the scientific Python stack (issue 20): xarray opens a store
directly, zarr opens it without warnings, export writes Parquet, and a store of the
layout written before all this (tests/data/old-layout.zarr, made by that version;
old-layout.json: what it wrote) keeps opening and upgrades in place."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from solver import store as S
from tests.web_helpers import STORE_BOUND, STORE_EXACT, make_store, small_problem

xr = pytest.importorskip("xarray")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    d = tmp_path_factory.mktemp("ds")
    lists, table = small_problem(d)
    wrote = make_store(d / "s.zarr", lists, table)
    return d / "s.zarr", lists, wrote


def _check_dataset(ds, lists, wrote):
    """Known values: what make_store wrote, on named dimensions."""
    assert dict(ds.sizes) == {"opener": len(lists.guesses), "pattern": 243, "letter": 5,
                              "answer": len(lists.answers)}
    assert list(ds.opener.values) == lists.guesses
    assert ds.pattern.values[0] == "BBBBB" and ds.pattern.values[242] == "GGGGG"
    names = ds.status.attrs["flag_meanings"].split()
    assert names == list(S.STATUS_NAMES) and list(ds.status.attrs["flag_values"]) == [
        0, 1, 2, 3, 4, 5]
    for w, (status, total) in wrote.items():
        row = ds.sel(opener=w)
        assert names[int(row.status)] == status and int(row.total) == total
        assert float(row.average) == pytest.approx(total / len(lists.answers))
    pending = ds.sel(opener=lists.guesses[-1])
    assert names[int(pending.status)] == "pending" and np.isnan(float(pending.average))
    assert ds.second.dims == ("opener", "pattern") and ds.total.dims == ("opener",)
    assert ds.cpu_seconds.attrs["units"] == "s"
    assert np.issubdtype(ds.finished_at.dtype, np.datetime64)
    exact = ds.where(ds.status == 1, drop=True)
    assert int(exact.sizes["opener"]) == STORE_EXACT


def test_xarray_opens_a_store_directly_without_warnings(made):
    path, lists, wrote = made
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = xr.open_zarr(path, consolidated=False)
        _check_dataset(ds, lists, wrote)
    with pytest.warns(RuntimeWarning, match="consolidated metadata"):
        plain = xr.open_zarr(path)  # works as typed, only noting that it looked for it
    _check_dataset(plain, lists, wrote)
    from solver.dataset import open_dataset

    same = open_dataset(path)  # the same Dataset through Store
    for name in ("status", "total", "average", "depth", "second", "selected", "words",
                 "answer_ids", "finished_at", "cpu_seconds"):
        np.testing.assert_array_equal(same[name].values, ds[name].values)


def test_zarr_opens_the_store_without_warnings(made):
    import zarr

    path, _, _ = made
    with _locked(path):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            g = zarr.open_group(str(path), mode="r")
            members = dict(g.members())
    assert {"status", "total", "opener", "pattern", "average", "second"} <= set(members)
    assert not (path / "writer.lock").exists()


class _locked:
    """A writer holding the store's lock meanwhile (as a run does)."""

    def __init__(self, path):
        self.st = S.Store.open(path, read_only=False)

    def __enter__(self):
        self.st.lock()
        return self.st

    def __exit__(self, *exc):
        self.st.unlock()


def test_export_parquet_equals_the_csv(made, tmp_path):
    path, lists, wrote = made
    out = subprocess.run([sys.executable, "-m", "solver", "export", "--store", str(path),
                          "--csv", str(tmp_path / "t.csv"), "--parquet",
                          str(tmp_path / "t.parquet")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("wrote 84 openers (49 pending)") == 2
    pq = pd.read_parquet(tmp_path / "t.parquet")
    csv = pd.read_csv(tmp_path / "t.csv")
    assert list(pq.columns) == list(csv.columns) == list(S.ROW_KEYS)
    assert list(pq.opener) == list(csv.opener) == lists.guesses
    assert list(pq.status.cat.categories) == list(S.STATUS_NAMES)
    got = {r.opener: (r.status, int(r.total)) for r in pq.itertuples() if r.status != "pending"}
    assert got == {w: tuple(v) for w, v in wrote.items()}
    assert pq.total.isna().sum() == len(lists.guesses) - STORE_EXACT - STORE_BOUND
    np.testing.assert_allclose(pq.average.fillna(-1), csv.average.fillna(-1))
    import pyarrow.parquet as papq

    meta = json.loads(papq.read_schema(tmp_path / "t.parquet").metadata[b"wordle-dp"])
    assert meta["mode"] == "easy" and meta["n_answers"] == len(lists.answers)


def test_export_needs_an_output_and_a_parquet_name(made, tmp_path):
    path, _, _ = made
    for args, message in [([], "export needs --csv FILE and/or --parquet"),
                          (["--parquet", str(tmp_path / "t.csv")], "name the file *.parquet"),
                          (["--parquet", "-"], "Parquet is binary")]:
        out = subprocess.run([sys.executable, "-m", "solver", "export", "--store", str(path),
                              *args], capture_output=True, text=True)
        assert out.returncode == 2 and out.stderr.startswith("wordle-dp: error: ")
        assert message in out.stderr and out.stderr.count("\n") == 1


@pytest.fixture
def old(tmp_path):
    path = tmp_path / "old.zarr"
    shutil.copytree(DATA / "old-layout.zarr", path)
    wrote = json.loads((DATA / "old-layout.json").read_text())
    return path, wrote


@pytest.mark.filterwarnings("ignore:Object at writer.lock")  # the old layout's lock file
def test_an_old_layout_store_keeps_opening(old):
    path, wrote = old
    st = S.Store.open(path)  # as every command opens it: checked, nothing written
    snap = st.snapshot()
    ranks = snap.ranks()
    rows = {st.words[i]: snap.row(i, ranks) for i in range(len(st.words))}
    for w, (status, total) in wrote.items():
        assert (rows[w]["status"], rows[w]["total"]) == (status, total)
    from solver.dataset import open_dataset

    ds = open_dataset(path)  # any layout
    assert int(ds.sel(opener=next(iter(wrote))).total) == next(iter(wrote.values()))[1]
    with pytest.raises(Exception, match="dimension_names"):
        xr.open_zarr(path, consolidated=False)  # before the upgrade: what users saw


def test_repair_upgrades_an_old_layout_store_in_place(old):
    path, wrote = old
    before = S.Store.open(path).snapshot()
    done = S.repair(path)
    assert done == ["named the dimensions of 12 array(s)",
                    "added the array(s) opener, pattern, average (for xarray)"]
    assert not (path / "writer.lock").exists()  # the older version's lock file: gone
    after = S.Store.open(path).snapshot()
    np.testing.assert_array_equal(before.status, after.status)
    for k in S.FIELDS:
        np.testing.assert_array_equal(before.fields[k], after.fields[k])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = xr.open_zarr(path, consolidated=False)
    for w, (_status, total) in wrote.items():
        assert int(ds.sel(opener=w).total) == total
        assert float(ds.sel(opener=w).average) == pytest.approx(total / 40)
    assert S.repair(path) == []  # nothing left


def test_a_busy_legacy_lock_refuses_a_second_writer(old):
    """An older wordle-dp writing the store holds <store>/writer.lock: refused."""
    import fcntl

    path, _ = old
    with open(path / "writer.lock", "a+") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        f.seek(0)
        f.truncate()
        f.write("pid 4242 on oldhost\n")
        f.flush()
        st = S.Store.open(path, read_only=False)
        with pytest.raises(S.StoreError, match=r"being written by pid 4242 on oldhost \(an "
                                               r"older wordle-dp\)"):
            st.lock()
    st = S.Store.open(path, read_only=False)
    st.lock()  # free now: taken, and the file removed
    assert not (path / "writer.lock").exists()
    st.unlock()
