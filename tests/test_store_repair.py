"""Damaged stores: detected on open, refused with a recovery hint, and repaired
without touching a readable result."""

from __future__ import annotations

import itertools
import json
import time

import numpy as np
import pytest

from solver import cli
from solver import store as S
from solver.errors import StoreError
from solver.words import WordLists

ANSWERS = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade"]


def _lists(n_guesses: int) -> WordLists:
    """The answers plus made-up guesses: more than 1024 makes two 'second' chunks."""
    extra = ("".join(t) for t in itertools.product("bcdfg", "aeiou", "lmnrst", "aeiou", "xyz"))
    return WordLists.from_words(ANSWERS, list(itertools.islice(extra, n_guesses)))


def _store(tmp_path, n_guesses=20, every=2):
    lists = _lists(n_guesses)
    path = tmp_path / "s.zarr"
    st, _ = S.Store.open_or_create(path, lists, "easy", 6)
    recs = []
    for i in range(0, len(lists.guesses), every):
        second = np.full(243, -1, dtype=np.int32)
        second[i % 243] = i
        status = S.INFEASIBLE if i % 10 == 4 else S.EXACT
        recs.append(S.Record(i, status, total=-1 if status == S.INFEASIBLE else 20 + i,
                             depth=3, cpu_seconds=0.5, wall_seconds=0.5, nodes=i, rank=1,
                             finished_at=time.time(), second=second))
    st.write(recs)
    st.unlock()
    return path, lists


def _results(path):
    st = S.Store.open(path)
    snap = st.snapshot()
    return snap.status.copy(), snap.fields["total"].copy(), np.asarray(st.group["second"][...])


def _chunk(path, name, i=0):
    return path / name / "c" / "/".join([str(i)] + ["0"] * (name in ("second", "words")))


def test_every_chunk_is_on_disk(tmp_path):
    """Chunks equal to the fill value are written too: a missing one means damage."""
    lists = _lists(5)
    st, _ = S.Store.open_or_create(tmp_path / "s.zarr", lists, "easy", 6)
    st.write([S.Record(0, S.INFEASIBLE)])  # total stays all -1 (the fill value)
    for name in S.layout(len(lists.guesses), len(lists.answers)):
        assert _chunk(tmp_path / "s.zarr", name).is_file(), name
    S.Store.open(tmp_path / "s.zarr")  # validates


def test_deleted_status_chunk_is_refused_then_repaired(tmp_path):
    path, _ = _store(tmp_path)
    _chunk(path, "status").unlink()
    with pytest.raises(StoreError, match=r"chunk status/c/0 is missing.*repair it") as info:
        S.Store.open(path)
    # the library names no command; the CLI's line does (cli/flags.HINTS)
    from solver.cli.flags import error_line

    assert "wordle-dp" not in str(info.value)
    assert f"run 'wordle-dp repair --store {path}'" in error_line(info.value)
    done = S.repair(path)
    assert any("status array was lost" in d for d in done)
    status, _, _ = _results(path)
    assert (status == S.PENDING).all()  # nothing claimed that cannot be proven
    assert S.Store.open(path).group.attrs["repairs"][-1]["actions"] == done


def test_unreadable_second_chunk_repends_only_its_openers(tmp_path):
    path, lists = _store(tmp_path, n_guesses=1100, every=3)
    status0, total0, second0 = _results(path)
    _chunk(path, "second", 1).write_bytes(b"garbage")
    with pytest.raises(StoreError, match=r"second/c/1/0 is unreadable"):
        S.Store.open(path)
    done = S.repair(path)
    status, total, second = _results(path)
    lo = 1024
    assert (status[lo:] == S.PENDING).all()
    assert (status[:lo] == status0[:lo]).all() and (status0[:lo] != S.PENDING).any()
    assert (total[:lo] == total0[:lo]).all() and (second[:lo] == second0[:lo]).all()
    assert (second[lo:] == -1).all()
    lost = int((status0[lo:] != S.PENDING).sum())
    assert any(f"{lost} finished result(s)" in d for d in done)


def test_status_out_of_range_and_info_array(tmp_path):
    path, _ = _store(tmp_path)
    status0, total0, _ = _results(path)
    import zarr

    g = zarr.open_group(str(path), mode="r+")
    bad = status0.copy()
    bad[2] = 9
    g["status"][...] = bad
    _chunk(path, "cpu_seconds").unlink()
    with pytest.raises(StoreError, match="out of range"):
        S.Store.open(path)
    S.repair(path)
    status, total, _ = _results(path)
    want = status0.copy()
    want[2] = S.PENDING
    assert (status == want).all() and (total == total0).all()  # cpu loss keeps results
    assert np.isnan(S.Store.open(path).snapshot().fields["cpu_seconds"]).all()


def test_words_need_the_lists(tmp_path):
    path, lists = _store(tmp_path)
    status0, total0, _ = _results(path)
    _chunk(path, "words").unlink()
    with pytest.raises(StoreError, match="words/c/0/0 is missing"):
        S.Store.open(path)
    with pytest.raises(StoreError, match="needs the lists"):
        S.repair(path)
    with pytest.raises(StoreError, match="needs the lists"):
        S.repair(path, _lists(21))
    S.repair(path, lists)
    st = S.Store.open(path)
    assert st.words == lists.guesses
    status, total, _ = _results(path)
    assert (status == status0).all() and (total == total0).all()


def test_wrong_shape_array_is_remade_and_lock_folder_removed(tmp_path):
    path, _ = _store(tmp_path)
    meta = path / "depth" / "zarr.json"
    doc = json.loads(meta.read_text())
    doc["shape"] = [3]
    meta.write_text(json.dumps(doc))
    assert not (path / "writer.lock").exists()  # the lock is on the folder itself now
    (path / "writer.lock").mkdir()  # as an older version's lock file could become
    with pytest.raises(StoreError, match="depth"):
        S.Store.open(path)
    done = S.repair(path)
    assert any("writer.lock" in d for d in done)
    status, _, _ = _results(path)
    assert (status == S.PENDING).all()  # depth is part of every result
    assert S.repair(path) == []  # nothing left to do


def test_root_damage_is_not_repairable(tmp_path):
    path, _ = _store(tmp_path)
    meta = path / "zarr.json"
    doc = json.loads(meta.read_text())
    del doc["attributes"]["mode"]
    meta.write_text(json.dumps(doc))
    with pytest.raises(StoreError, match="cannot be repaired automatically"):
        S.Store.open(path)
    with pytest.raises(StoreError, match="cannot be repaired automatically"):
        S.repair(path)


def test_cli_repair_then_run_resumes(tmp_path, capsys):
    a, g = tmp_path / "a.txt", tmp_path / "g.txt"
    a.write_text("\n".join(ANSWERS) + "\n")
    g.write_text("\n".join(["salet", "crane", *ANSWERS]) + "\n")
    path = tmp_path / "s.zarr"
    common = ["--answers", str(a), "--guesses", str(g), "--cache-dir", str(tmp_path / "c")]
    assert cli.main(["run", "--store", str(path), *common, "--quiet"]) == 0
    status0, total0, _ = _results(path)
    _chunk(path, "total").write_bytes(b"\x00" * 5)
    capsys.readouterr()
    assert cli.main(["run", "--store", str(path), *common, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "is damaged" in err and "wordle-dp repair" in err and len(err.splitlines()) == 1
    assert cli.main(["repair", "--store", str(path), *common]) == 0
    assert "re-marked pending" in capsys.readouterr().err
    assert cli.main(["run", "--store", str(path), *common, "--quiet"]) == 0
    status, total, _ = _results(path)
    assert (status == status0).all() and (total == total0).all()
    assert cli.main(["repair", "--store", str(path)]) == 0  # default lists not needed
    assert "nothing to repair" in capsys.readouterr().err


def test_store_from_before_every_chunk_was_written(tmp_path):
    """Older stores left out chunks equal to the fill value: they still open, a
    writer fills the gaps in (same values), and from then on a gap is damage."""
    import zarr

    path, lists = _store(tmp_path)
    g = zarr.open_group(str(path), mode="r+")
    del g.attrs[S.EVERY_CHUNK]
    _chunk(path, "depth").unlink()  # as if never written: reads as the fill value
    status0, _, _ = _results(path)
    assert (S.Store.open(path).snapshot().fields["depth"] == -1).all()
    st, created = S.Store.open_or_create(path, lists, "easy", 6)
    st.unlock()
    assert not created and _chunk(path, "depth").is_file()
    assert S.Store.open(path).group.attrs[S.EVERY_CHUNK] is True
    _chunk(path, "depth").unlink()
    with pytest.raises(StoreError, match="depth/c/0 is missing"):
        S.Store.open(path)
    # an old store whose status chunk is gone although results were written: damage
    g = zarr.open_group(str(path), mode="r+")
    del g.attrs[S.EVERY_CHUNK]
    _chunk(path, "status").unlink()
    with pytest.raises(StoreError, match="status/c/0 is missing"):
        S.Store.open(path)
    assert (status0 != S.PENDING).any()  # there were results to lose


def test_progress_note_attribute_is_reset(tmp_path):
    path, _ = _store(tmp_path)
    status0, total0, _ = _results(path)
    meta = path / "zarr.json"
    doc = json.loads(meta.read_text())
    doc["attributes"]["errors"] = [1, 2]
    meta.write_text(json.dumps(doc))
    with pytest.raises(StoreError, match="'errors' is not a mapping.*repair it"):
        S.Store.open(path)
    assert any("'errors'" in d for d in S.repair(path))
    status, total, _ = _results(path)
    assert (status == status0).all() and (total == total0).all()
    assert S.Store.open(path).group.attrs["errors"] == {}
