"""The shared progress line's ETA (solver/progress.py): timed by the pace of the
last quarter of the work's time, so work that speeds up (a ranking refutes its later
guesses fast) or slows down is not timed by its average. A fake clock: worked cases
by hand."""

from __future__ import annotations

import io

import pytest

from solver import progress


@pytest.fixture
def clock(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    return now


def _line_after(clock, paces: list[tuple[float, float]], total: int) -> str:
    """The line after running at each (items a second, seconds) in turn, the
    counts given every half second."""
    p = progress.Progress("next", io.StringIO(), "guesses", every=0, tty=False)
    done = 0.0
    for rate, seconds in paces:
        for _ in range(int(seconds * 2)):
            clock[0] += 0.5
            done += rate / 2
            p(int(done), total)
    return p.line(int(done), total)


def test_a_steady_pace_gives_the_average(clock):
    # 10 a second for 40 s: 400 of 1000, 600 left at 10 a second
    assert "400/1000 guesses (40.0%), 40s elapsed, ETA 1m00s" in _line_after(
        clock, [(10, 40)], 1000)


def test_work_that_speeds_up_is_timed_by_its_present_pace(clock):
    # 1 a second for 20 s, then 100 a second for 20 s: 2020 of 4000 done. The
    # average (50.5 a second) would say 39 s; the last 10 s ran at 100 a second
    assert "2020/4000 guesses (50.5%), 40s elapsed, ETA 20s" in _line_after(
        clock, [(1, 20), (100, 20)], 4000)


def test_work_that_slows_down_is_not_promised_early(clock):
    # 100 a second for 20 s, then 2 a second for 20 s: 2040 of 3000; 960 left at 2
    # a second is 8 minutes (the average, 51 a second, would say 19 s)
    assert "2040/3000 guesses (68.0%), 40s elapsed, ETA 8m00s" in _line_after(
        clock, [(100, 20), (2, 20)], 3000)


def test_a_new_count_starts_its_own_pace(clock):
    p = progress.Progress("next", io.StringIO(), "guesses", every=0, tty=False)
    for i in range(1, 41):
        clock[0] += 1
        p(10 * i, 1000)
    for i in range(1, 11):  # a second phase counts from 0 again, 5 a second
        clock[0] += 1
        p(5 * i, 100)
    assert p.line(50, 100).endswith("50s elapsed, ETA 10s")
