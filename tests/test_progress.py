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


def test_a_step_is_said_and_timed_by_its_own_pace(clock):
    """Progress.phase: every line says the step (before any note), and the ETA is
    the step's own, even where its count does not go down."""
    p = progress.Progress("next", io.StringIO(), "guesses", every=0, tty=False)
    for i in range(1, 41):
        clock[0] += 1
        p(i, 1000)  # 1 a second
    p.phase("the most wins")
    for i in range(1, 11):
        clock[0] += 1
        p(100 * i, 2000)  # 100 a second: by the first pace, hours
    assert p.line(1000, 2000, "a note").endswith(
        "50s elapsed, ETA 10s, the most wins, a note")
    p.phase("")
    assert p.line(5, 10).endswith("ETA ?")


def test_the_web_workers_estimate_by_the_same_present_pace(clock):
    """The page's worker sends each progress message with the seconds left at the
    count's present pace (the page counts them down), throttled, with a task's own
    estimate passed through."""
    from solver.web.workers import PROGRESS_EVERY, Reporter

    sent: list[dict] = []
    report = Reporter(lambda msg: sent.append(msg[1]))
    report(0, 4000, "guesses ranked")
    assert sent[-1]["eta"] is None  # nothing done: no estimate
    done = 0.0
    for rate, seconds in [(1, 20), (100, 20)]:  # as in the speeding-up case above
        for _ in range(seconds * 2):
            clock[0] += 0.5
            done += rate / 2
            report(int(done), 4000, "guesses ranked")
    # the average (50.5 a second) would say 39 s; the last 10 s ran at 100 a second
    assert sent[-1]["done"] == 2020 and sent[-1]["eta"] == pytest.approx(19.8)
    n = len(sent)
    clock[0] += PROGRESS_EVERY / 2
    report(2021, 4000, "guesses ranked")
    assert len(sent) == n  # too soon after the last
    report(4000, 4000, "guesses ranked")
    assert sent[-1]["eta"] == 0.0  # the last of a count always goes
    report(0, 3, "feedback classes", 111.0)
    assert sent[-1]["eta"] == 111.0  # the task's own estimate, at once
    report.start()
    report(0, 0, "compiling the search kernels")
    assert len(sent) == n + 3 and sent[-1]["eta"] is None


def test_a_step_with_no_count_writes_plain_lines_to_a_log():
    """Progress.wait in a log (not a terminal): a line every `every` seconds while
    the step runs, each whole and ending in a newline, none after it ends. It once
    wrote nothing to a log, so a long search's log stayed silent."""
    import time

    out = io.StringIO()
    p = progress.Progress("next", out, every=0.01, tty=False)
    with p.wait("the smallest worst case"):
        deadline = time.monotonic() + 30  # a busy machine's thread may start late
        while out.getvalue().count("\n") < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    lines = out.getvalue().split("\n")
    assert lines[-1] == "" and "\r" not in out.getvalue()
    assert len(lines) >= 3
    assert all(s.startswith("next: the smallest worst case, ") and s.endswith(" so far")
               for s in lines[:-1])
    after = out.getvalue()
    time.sleep(0.05)
    assert out.getvalue() == after  # the thread ended with the step
