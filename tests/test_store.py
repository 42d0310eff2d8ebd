"""The Zarr result store: layout, batch writes, crash safety, refusal, merge."""

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
from solver.errors import UsageError
from solver.words import WordLists

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade"]
EXTRA = ["salet", "crane", "trace", "adieu", "roate", "soare", "tares"]


@pytest.fixture
def lists() -> WordLists:
    return WordLists.from_words(ANSWERS, EXTRA)


def _rec(i: int, status: int = S.EXACT, total: int | None = None) -> S.Record:
    second = np.full(243, -1, dtype=np.int32)
    second[i % 243] = i
    return S.Record(i, status, total=100 + i if total is None else total, depth=3,
                    cpu_seconds=0.5, wall_seconds=0.6, nodes=10 * i, rank=1,
                    finished_at=time.time(), second=second)


def test_create_layout_and_attributes(tmp_path, lists):
    st, created = S.Store.open_or_create(tmp_path / "s.zarr", lists, "hard", 5, None, "9.9")
    assert created
    g = st.group
    n = len(lists.guesses)
    assert g["status"].shape == (n,) and g["status"].dtype == np.uint8
    assert g["total"].dtype == np.int64 and g["second"].shape == (n, 243)
    assert g["second"].dtype == np.int32
    assert (g["status"][...] == 0).all() and (g["total"][...] == -1).all()
    a = dict(g.attrs)
    assert a["answers_sha256"] == lists.answers_sha256
    assert a["guesses_sha256"] == lists.guesses_sha256
    assert (a["n_answers"], a["n_guesses"]) == (len(ANSWERS), n)
    assert (a["mode"], a["max_guesses"], a["cutoff"], a["solver_version"]) == (
        "hard", 5, None, "9.9")
    # the store names its words and answers without the list files
    ro = S.Store.open(tmp_path / "s.zarr")
    assert ro.words == lists.guesses and ro.answers == lists.answers
    assert ro.index_of("SALET") == lists.guess_index["salet"]


def test_write_snapshot_ranks_and_second(tmp_path, lists):
    st, _ = S.Store.open_or_create(tmp_path / "s.zarr", lists, "easy", 6)
    st.write([_rec(0, total=30), _rec(3, total=25), _rec(5, total=30),
              _rec(7, status=S.INFEASIBLE, total=-1), _rec(8, status=S.LOWER_BOUND, total=40),
              _rec(9, status=S.FAILED, total=-1)])
    snap = S.Store.open(tmp_path / "s.zarr").snapshot()
    c = snap.counts()
    assert (c["exact"], c["infeasible"], c["lower_bound"], c["failed"]) == (3, 1, 1, 1)
    ranks = snap.ranks()
    assert ranks[3] == 1 and ranks[0] == 2 and ranks[5] == 2 and ranks[7] == 0
    best = snap.best(2)
    assert [b["opener"] for b in best] == [lists.guesses[3], lists.guesses[0]]
    assert best[0]["average"] == pytest.approx(25 / len(ANSWERS), abs=1e-6)
    row = snap.row(7, ranks)
    assert row["status"] == "infeasible" and row["total"] is None and row["rank"] is None
    assert snap.row(1, ranks)["status"] == "pending" and snap.row(1, ranks)["nodes"] is None
    assert snap.row(8, ranks)["total"] == 40 and snap.row(8, ranks)["rank"] is None
    assert st.second_guesses(5) == {5: lists.guesses[5]}


def test_status_is_written_last(tmp_path, lists, monkeypatch):
    """A batch that dies half-way leaves its openers pending, never half-written."""
    st, _ = S.Store.open_or_create(tmp_path / "s.zarr", lists, "easy", 6)
    order = []
    real = type(st.group["status"]).__setitem__

    def spy(arr, key, value):
        order.append(arr.basename)
        return real(arr, key, value)

    monkeypatch.setattr(type(st.group["status"]), "__setitem__", spy)
    st.write([_rec(1)])
    assert order[-1] == "status" and order.count("status") == 1
    assert set(order[:-1]) == set(S.FIELDS) | {"second", "average"}

    def boom(arr, key, value):
        if arr.basename == "second":
            raise OSError("disk gone")
        return real(arr, key, value)

    monkeypatch.setattr(type(st.group["status"]), "__setitem__", boom)
    with pytest.raises(OSError):
        st.write([_rec(2)])
    snap = S.Store.open(tmp_path / "s.zarr").snapshot()
    assert snap.status[1] == S.EXACT and snap.status[2] == S.PENDING


def test_refuses_other_problem(tmp_path, lists):
    S.Store.open_or_create(tmp_path / "s.zarr", lists, "easy", 6)
    with pytest.raises(UsageError, match="another problem: different mode"):
        S.Store.open_or_create(tmp_path / "s.zarr", lists, "hard", 6)
    with pytest.raises(UsageError, match="max_guesses"):
        S.Store.open_or_create(tmp_path / "s.zarr", lists, "easy", 5)
    other = WordLists.from_words(ANSWERS[:-1], EXTRA)
    with pytest.raises(UsageError, match="answer list"):
        S.Store.open_or_create(tmp_path / "s.zarr", other, "easy", 6)
    more = WordLists.from_words(ANSWERS, EXTRA + ["slate"])
    with pytest.raises(UsageError, match="guess list"):
        S.Store.open_or_create(tmp_path / "s.zarr", more, "easy", 6)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "x").write_text("x")
    with pytest.raises(UsageError, match="not a wordle-dp result store"):
        S.Store.open_or_create(tmp_path / "junk", lists, "easy", 6)
    with pytest.raises(UsageError, match="no result store"):
        S.Store.open(tmp_path / "missing.zarr")


def test_one_writer_at_a_time(tmp_path, lists):
    st, _ = S.Store.open_or_create(tmp_path / "s.zarr", lists, "easy", 6)
    with pytest.raises(UsageError, match="being written by pid"):
        S.Store.open_or_create(tmp_path / "s.zarr", lists, "easy", 6)
    S.Store.open(tmp_path / "s.zarr").snapshot()  # readers are never blocked
    st.unlock()
    st2, created = S.Store.open_or_create(tmp_path / "s.zarr", lists, "easy", 6)
    assert not created
    st2.write([_rec(1)])
    assert S.Store.open(tmp_path / "s.zarr").status()[1] == S.EXACT


def test_new_cutoff_reuses_lower_bounds(tmp_path, lists):
    """A lower bound holds its own proven total: a store made with one cutoff takes
    another, and only the lower bounds below the new cutoff are to do again."""
    st, _ = S.Store.open_or_create(tmp_path / "s.zarr", lists, "easy", 6, cutoff=50)
    st.write([S.Record(0, S.LOWER_BOUND, total=55), S.Record(1, S.LOWER_BOUND, total=70),
              _rec(2), S.Record(3, S.FAILED)])
    st.unlock()
    st, created = S.Store.open_or_create(tmp_path / "s.zarr", lists, "easy", 6, cutoff=60)
    assert not created and st.cutoff == 60
    assert S.Store.open(tmp_path / "s.zarr").cutoff == 60
    todo = st.todo(60)
    assert todo[0] and not todo[1] and not todo[2] and not todo[3] and todo[4:].all()
    assert st.todo(None)[[0, 1]].all() and not st.todo(None)[2]
    assert not st.todo(40)[0] and st.todo(40, retry_failed=True)[3]


def test_merge(tmp_path, lists):
    a, _ = S.Store.open_or_create(tmp_path / "a.zarr", lists, "easy", 6)
    b, _ = S.Store.open_or_create(tmp_path / "b.zarr", lists, "easy", 6)
    a.write([_rec(0), _rec(2, status=S.FAILED, total=-1)])
    a.mark_selected([0, 2, 4])
    b.write([_rec(1), _rec(2)])
    b.mark_selected([1, 2, 3])
    res = S.merge(tmp_path / "m.zarr", [tmp_path / "a.zarr", tmp_path / "b.zarr"])
    assert res["copied"] == 3
    snap = S.Store.open(tmp_path / "m.zarr").snapshot()
    assert list(snap.status[:4]) == [S.EXACT, S.EXACT, S.EXACT, S.PENDING]
    assert list(snap.fields["total"][:3]) == [100, 101, 102]
    assert snap.selected[:5].tolist() == [1, 1, 1, 1, 1]
    m = S.Store.open(tmp_path / "m.zarr")
    assert m.second_guesses(2) == {2: lists.guesses[2]}
    hard, _ = S.Store.open_or_create(tmp_path / "h.zarr", lists, "hard", 6)
    with pytest.raises(UsageError):
        S.merge(tmp_path / "m2.zarr", [tmp_path / "a.zarr", tmp_path / "h.zarr"])


def test_merge_keeps_what_knows_most_across_cutoffs(tmp_path, lists):
    a, _ = S.Store.open_or_create(tmp_path / "a.zarr", lists, "easy", 6, cutoff=50)
    b, _ = S.Store.open_or_create(tmp_path / "b.zarr", lists, "easy", 6, cutoff=80)
    a.write([S.Record(0, S.LOWER_BOUND, total=51), S.Record(1, S.LOWER_BOUND, total=90),
             S.Record(2, S.LOWER_BOUND, total=60), S.Record(3, S.FAILED)])
    b.write([S.Record(0, S.LOWER_BOUND, total=85), S.Record(1, S.LOWER_BOUND, total=82),
             _rec(2), S.Record(3, S.LOWER_BOUND, total=81)])
    S.merge(tmp_path / "m.zarr", [tmp_path / "a.zarr", tmp_path / "b.zarr"])
    m = S.Store.open(tmp_path / "m.zarr")
    snap = m.snapshot()
    assert m.cutoff == 80
    assert list(snap.status[:4]) == [S.LOWER_BOUND, S.LOWER_BOUND, S.EXACT, S.LOWER_BOUND]
    assert list(snap.fields["total"][:4]) == [85, 90, 102, 81]


_WRITER = """
import sys, time, numpy as np
sys.path.insert(0, {root!r})
from solver import store as S
from solver.words import WordLists
g = ["a" + "".join(chr(97 + (i // 26**k) % 26) for k in range(4)) for i in range(3000)]
lists = WordLists.from_words(g[:50], g)
st, _ = S.Store.open_or_create({path!r}, lists, "easy", 6)
i = 0
while i < len(g):
    recs = []
    for j in range(i, min(i + 37, len(g))):
        sec = np.arange(243, dtype=np.int32) + j
        recs.append(S.Record(j, 1, total=7 * j + 1, depth=j % 9, cpu_seconds=j / 2,
                             wall_seconds=j / 3, nodes=11 * j, rank=j % 3,
                             finished_at=1000.0 + j, second=sec))
    st.write(recs)
    i += 37
    print(i, flush=True)
"""


def test_kill_9_during_writes_leaves_a_consistent_store(tmp_path):
    """kill -9 a writer at several moments: every non-pending opener is intact."""
    script = tmp_path / "writer.py"
    partial = 0
    for n, delay in enumerate((0.0, 0.15, 0.4)):
        path = tmp_path / f"k{n}.zarr"
        script.write_text(_WRITER.format(root=str(ROOT), path=str(path)))
        p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
        assert p.stdout.readline().strip() == "37"  # first batch written
        time.sleep(delay)
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        snap = S.Store.open(path).snapshot()
        done = np.flatnonzero(snap.status != S.PENDING)
        partial += 37 <= len(done) < 3000
        f = snap.fields
        assert (f["total"][done] == 7 * done + 1).all()
        assert (f["nodes"][done] == 11 * done).all()
        assert (f["depth"][done] == done % 9).all()
        assert (f["finished_at"][done] == 1000.0 + done).all()
        sec = S.Store.open(path).group["second"][...]
        assert (sec[done] == np.arange(243)[None, :] + done[:, None]).all()
    assert partial  # at least one kill landed mid-run
