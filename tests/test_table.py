"""The pattern table: contents, backends, and the on-disk cache."""

from __future__ import annotations

import os
import random
import sys

import numpy as np
import pytest

from solver import table
from solver.feedback import score
from solver.table import BackendError, get_table
from solver.words import WordLists


@pytest.fixture(scope="module")
def full_lists() -> WordLists:
    return WordLists.load()


@pytest.fixture(scope="module")
def full_table(full_lists) -> np.ndarray:
    return table.build_numpy(full_lists)


@pytest.fixture(scope="module")
def small_lists(full_lists) -> WordLists:
    rng = random.Random(5)
    answers = sorted(rng.sample(full_lists.answers, 150))
    guesses = sorted(rng.sample(full_lists.guesses, 300))
    return WordLists.from_words(answers, guesses)


@pytest.fixture
def no_gpu(monkeypatch):
    """Make the cupy backend unavailable, whatever this machine has."""

    def unavailable():
        raise BackendError("cupy backend unavailable: test")

    monkeypatch.setattr(table, "_cupy", unavailable)


def _tmp_leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --- contents ----------------------------------------------------------------------


def test_full_table_shape_and_dtype(full_lists, full_table):
    assert full_table.shape == (12972, 2315)
    assert full_table.dtype == np.uint8
    assert full_table.flags.c_contiguous
    assert int(full_table.max()) <= 242


def test_full_table_matches_scalar_rule_on_sample(full_lists, full_table):
    rng = np.random.default_rng(20240611)
    n = 25_000
    gi = rng.integers(0, len(full_lists.guesses), n)
    ai = rng.integers(0, len(full_lists.answers), n)
    got = full_table[gi, ai]
    g, a = full_lists.guesses, full_lists.answers
    expected = np.array([score(g[i], a[j]) for i, j in zip(gi, ai, strict=True)], np.uint8)
    bad = np.flatnonzero(got != expected)
    assert bad.size == 0, [(g[gi[k]], a[ai[k]], int(got[k]), int(expected[k])) for k in bad[:5]]


def test_full_table_all_green_exactly_on_the_diagonal(full_lists, full_table):
    rows, cols = np.nonzero(full_table == 242)
    assert np.array_equal(cols, np.arange(len(full_lists.answers)))
    assert np.array_equal(rows, full_lists.answer_guess_ids)


def test_full_table_known_entries(full_lists, full_table):
    gid, aid = full_lists.guess_index, full_lists.answer_index
    assert full_table[gid["salet"], aid["sheen"]] == 56
    assert full_table[gid["speed"], aid["abide"]] == 90
    assert full_table[gid["lolly"], aid["loyal"]] == 98


def test_small_table_all_pairs(small_lists):
    t = table.build_numpy(small_lists)
    expected = np.array(
        [[score(g, a) for a in small_lists.answers] for g in small_lists.guesses], np.uint8
    )
    assert np.array_equal(t, expected)


def test_build_numpy_odd_sizes():
    # Fewer guesses than one block, and a count that is not a multiple of it.
    ws = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal"]
    lists = WordLists.from_words(ws[:3], ws)
    t = table.build_numpy(lists)
    assert t.shape == (7, 3)
    assert t.tolist() == [[score(g, a) for a in ws[:3]] for g in ws]


# --- backends ----------------------------------------------------------------------


def test_unknown_backend(small_lists):
    with pytest.raises(BackendError, match="unknown backend"):
        table.build(small_lists, "opencl")


def test_cupy_backend_without_gpu_raises(small_lists, no_gpu):
    with pytest.raises(BackendError):
        table.build(small_lists, "cupy")


def test_auto_falls_back_to_numpy(small_lists, no_gpu):
    t, used = table.build(small_lists, "auto")
    assert used == "numpy"
    assert np.array_equal(t, table.build_numpy(small_lists))
    assert table.gpu_available() is False


def test_cupy_import_failure_is_a_backend_error(monkeypatch, small_lists):
    monkeypatch.setitem(sys.modules, "cupy", None)  # makes `import cupy` fail
    with pytest.raises(BackendError, match="cupy"):
        table.build_cupy(small_lists)
    assert table.gpu_available() is False
    assert table.build(small_lists, "auto")[1] == "numpy"


def test_get_table_cupy_without_gpu_raises(tmp_path, small_lists, no_gpu):
    with pytest.raises(BackendError):
        get_table(small_lists, "cupy", cache_dir=tmp_path)
    assert not any(tmp_path.iterdir())


@pytest.mark.skipif(table.gpu_available(), reason="a GPU is usable here")
def test_real_cupy_backend_unavailable_here(small_lists):
    with pytest.raises(BackendError):
        table.build(small_lists, "cupy")
    assert table.build(small_lists, "auto")[1] == "numpy"


@pytest.mark.gpu
@pytest.mark.skipif(not table.gpu_available(), reason="no usable CUDA device / cupy")
def test_cupy_matches_numpy_full(full_lists, full_table):
    t = table.build_cupy(full_lists)
    assert t.dtype == np.uint8 and t.shape == full_table.shape
    assert np.array_equal(t, full_table)
    t2, used = table.build(full_lists, "auto")
    assert used == "cupy" and np.array_equal(t2, full_table)


# --- cache -------------------------------------------------------------------------


def test_cache_round_trip(tmp_path, small_lists):
    t1, info1 = get_table(small_lists, "numpy", cache_dir=tmp_path)
    assert info1.backend == "numpy"
    assert info1.path == table.cache_path(small_lists, tmp_path)
    assert info1.path.is_file() and info1.rebuilt_reason is None
    t2, info2 = get_table(small_lists, "numpy", cache_dir=tmp_path)
    assert info2.backend == "cache" and info2.path == info1.path
    assert info2.rebuilt_reason is None
    assert t2.dtype == np.uint8 and t2.shape == t1.shape
    assert t2.tobytes() == t1.tobytes()
    assert _tmp_leftovers(tmp_path) == []


def test_cache_is_keyed_by_both_lists(tmp_path, small_lists):
    other = WordLists.from_words(small_lists.answers[:-1], small_lists.guesses)
    assert table.table_key(other) != table.table_key(small_lists)
    assert table.cache_path(other, tmp_path) != table.cache_path(small_lists, tmp_path)
    get_table(small_lists, "numpy", cache_dir=tmp_path)
    t, info = get_table(other, "numpy", cache_dir=tmp_path)
    assert info.backend == "numpy" and t.shape == (len(small_lists.guesses), 149)
    more = WordLists.from_words(small_lists.answers, small_lists.guesses + ["zzzzz"])
    assert table.table_key(more) != table.table_key(small_lists)


def test_no_cache_writes_nothing(tmp_path, small_lists):
    t, info = get_table(small_lists, "numpy", cache_dir=tmp_path, use_cache=False)
    assert info.backend == "numpy" and info.path is None
    assert list(tmp_path.iterdir()) == []


def test_default_cache_dir_env(monkeypatch, tmp_path):
    monkeypatch.setenv("WORDLE_DP_CACHE", str(tmp_path / "c"))
    assert table.default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("WORDLE_DP_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert table.default_cache_dir() == tmp_path / "xdg" / "wordle-dp"


def test_get_table_uses_env_cache_dir(monkeypatch, tmp_path, small_lists):
    monkeypatch.setenv("WORDLE_DP_CACHE", str(tmp_path / "envcache"))
    _, info = get_table(small_lists, "numpy")
    assert info.path is not None and info.path.parent == tmp_path / "envcache"


def _flip_payload_byte(path, data, header):
    data[header + 1234] ^= 0x01
    path.write_bytes(bytes(data))


def _flip_last_byte(path, data, header):
    data[-1] ^= 0x80
    path.write_bytes(bytes(data))


def _truncate(path, data, header):
    path.write_bytes(bytes(data[:-1]))


def _truncate_header(path, data, header):
    path.write_bytes(bytes(data[: header // 2]))


def _extra_byte(path, data, header):
    path.write_bytes(bytes(data) + b"\0")


def _empty(path, data, header):
    path.write_bytes(b"")


def _garbage(path, data, header):
    path.write_bytes(os.urandom(len(data)))


def _bad_magic(path, data, header):
    data[0:4] = b"XXXX"
    path.write_bytes(bytes(data))


CORRUPTIONS = [
    _flip_payload_byte,
    _flip_last_byte,
    _truncate,
    _truncate_header,
    _extra_byte,
    _empty,
    _garbage,
    _bad_magic,
]


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__.strip("_"))
def test_corrupt_cache_is_rebuilt(tmp_path, small_lists, corrupt):
    good, info = get_table(small_lists, "numpy", cache_dir=tmp_path)
    path = info.path
    corrupt(path, bytearray(path.read_bytes()), table._HEADER.size)
    assert table.load(path, table.table_key(small_lists), good.shape) is None
    t, info2 = get_table(small_lists, "numpy", cache_dir=tmp_path)
    assert info2.backend == "numpy"  # rebuilt, not trusted
    assert info2.rebuilt_reason
    assert np.array_equal(t, good)
    # ...and the rebuilt table replaced the bad file.
    t3, info3 = get_table(small_lists, "numpy", cache_dir=tmp_path)
    assert info3.backend == "cache" and np.array_equal(t3, good)
    assert _tmp_leftovers(tmp_path) == []


def test_cache_for_other_key_is_not_trusted(tmp_path, small_lists):
    good = table.build_numpy(small_lists)
    path = table.cache_path(small_lists, tmp_path)
    table.save(path, np.zeros_like(good), "0" * 64)  # valid file, wrong key
    t, info = get_table(small_lists, "numpy", cache_dir=tmp_path)
    assert info.backend == "numpy" and info.rebuilt_reason
    assert np.array_equal(t, good)


def test_cache_with_wrong_shape_is_not_trusted(tmp_path, small_lists):
    good = table.build_numpy(small_lists)
    key = table.table_key(small_lists)
    path = table.cache_path(small_lists, tmp_path)
    table.save(path, good[:-1], key)  # right key, one row short
    assert table.load(path, key, good.shape) is None
    table.save(path, good.T.copy(), key)  # right key, transposed
    assert table.load(path, key, good.shape) is None
    t, info = get_table(small_lists, "numpy", cache_dir=tmp_path)
    assert info.backend == "numpy" and info.rebuilt_reason
    assert np.array_equal(t, good)


def test_load_missing_file(tmp_path):
    assert table.load(tmp_path / "none.bin", "0" * 64, (1, 1)) is None


def test_save_leaves_no_temp_files(tmp_path):
    path = tmp_path / "sub" / "t.bin"
    data = np.arange(35, dtype=np.uint8).reshape(7, 5)
    table.save(path, data, "a" * 64)
    assert sorted(p.name for p in path.parent.iterdir()) == ["t.bin"]
    assert np.array_equal(table.load(path, "a" * 64, (7, 5)), data)


@pytest.mark.parametrize("where", ["fsync", "replace"])
@pytest.mark.parametrize("exc", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_failed_save_keeps_old_file(tmp_path, monkeypatch, where, exc):
    path = tmp_path / "t.bin"
    old = np.full((4, 6), 7, dtype=np.uint8)
    table.save(path, old, "a" * 64)
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise exc

    monkeypatch.setattr(table.os, where, boom)
    with pytest.raises(type(exc)):
        table.save(path, np.zeros((4, 6), np.uint8), "a" * 64)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert np.array_equal(table.load(path, "a" * 64, (4, 6)), old)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.bin"]


def test_failed_partial_write_leaves_no_final_file(tmp_path, monkeypatch):
    path = tmp_path / "t.bin"
    real_fdopen = os.fdopen

    class HalfWriter:
        """Writes the header, then fails in the middle of the payload."""

        def __init__(self, f):
            self.f, self.calls = f, 0

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, b):
            self.calls += 1
            if self.calls > 1:
                self.f.write(bytes(memoryview(b)[:10]))
                raise OSError(5, "Input/output error")
            return self.f.write(b)

        def __getattr__(self, name):
            return getattr(self.f, name)

    monkeypatch.setattr(table.os, "fdopen", lambda fd, mode: HalfWriter(real_fdopen(fd, mode)))
    with pytest.raises(OSError):
        table.save(path, np.ones((50, 50), np.uint8), "a" * 64)
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


def test_unwritable_cache_does_not_stop_the_build(tmp_path, monkeypatch, small_lists):
    def boom(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(table, "save", boom)
    t, info = get_table(small_lists, "numpy", cache_dir=tmp_path)
    assert info.backend == "numpy" and info.path is None
    assert "could not write cache" in info.rebuilt_reason
    assert np.array_equal(t, table.build_numpy(small_lists))
