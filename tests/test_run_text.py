"""The run's configuration in three parts, and its lines made from data (issue 51):
run/config.py's RunConfig, run/text.py's formatters (pure: no store, no clock)."""

from __future__ import annotations

import pytest

from solver.errors import UsageError
from solver.run import Problem, RunConfig, RunOptions, Tuning
from solver.run.config import RunSummary
from solver.run.text import (
    Best,
    Plan,
    RunProgress,
    in_flight_text,
    plan_line,
    progress_line,
    summary_lines,
)
from solver.run.units import Classes, Part, Whole
from solver.variant import Mode, Objective


def test_the_flat_form_and_the_parts_make_the_same_config():
    flat = RunConfig(store="s.zarr", answers="a.txt", mode="hard", max_guesses=5,
                     cutoff=8000, split="off", grace=3.0, extra={"k": 1})
    parts = RunConfig("s.zarr", Problem(answers="a.txt", mode=Mode.HARD, max_guesses=5),
                      RunOptions(cutoff=8000, split="off"), Tuning(grace=3.0, extra={"k": 1}))
    assert flat == parts
    assert flat.problem.mode is Mode.HARD and flat.problem.objective is Objective.EXPECTED
    assert flat.with_options(cutoff=None).options.cutoff is None and flat.options.cutoff == 8000
    # a part given, and fields of it by name on top
    assert RunConfig("s", RunOptions(cutoff=1), cutoff=2).options.cutoff == 2
    with pytest.raises(TypeError, match="unexpected keyword argument 'cutof'"):
        RunConfig(store="s", cutof=1)
    with pytest.raises(UsageError, match="unknown mode 'medium'"):
        RunConfig(store="s", mode="medium")


def test_the_lines_are_made_from_data():
    best = Best("salet", 7920, -1, 2315)
    assert best.text(True) == "salet 7920 (3.4212 avg)"
    assert Best("salet", 7920, 2300, 2315, wins_first=True).text(False) == (
        "salet wins 2300 of 2315, total 7920 (3.4435 over those)")
    p = RunProgress(5, 20, 2.5, 125.0, False, best, failed=1, classes=3, parts=0)
    assert progress_line(p, "12:00:00") == (
        "[12:00:00] 5/20 openers (25.0%), 2.5/min, ETA over 2m05s, best salet 7920 "
        "(3.4212), 1 failed; 3 classes and 0 parts valued")
    done = RunProgress(20, 20, 1.0, 0.0, True, None)
    assert progress_line(done, "12:00:01") == (
        "[12:00:01] 20/20 openers (100.0%), 1.0/min, ETA 0s, best -")
    assert plan_line(Plan(3, 10, "s.zarr", 4, 4, True, 1, True, below=2, split=1)) == (
        "wordle-dp: 3 opener(s) to value on 4 rank(s) (all solving, rank 0 coordinating "
        "too) over 1 node(s) (one table copy per node); 7 of 10 selected already in "
        "s.zarr; 2 lower bound(s) below the cutoff are valued again; 1 valued as "
        "first-feedback classes")
    s = RunSummary(0, "stopped", solved=2, failed=1, queued=9, wall_seconds=60.0,
                   stop_reason="time limit (1m00s)")
    lines = summary_lines(s, {"exact": 2, "failed": 1, "pending": 0}, "s.zarr", best, 3)
    assert lines[0].startswith("wordle-dp: stopped (time limit (1m00s)): 3 of 9 openers ")
    assert lines[1] == "  store: 2 exact, 1 failed (s.zarr)"
    assert lines[3] == "  1 opener(s) failed; rerun with retry_failed to try again"


def test_the_unit_in_flight_longest_in_words():
    """Each kind of unit in words, and on the progress line once it has been out a
    minute: a split opener's classes can run for hours while no count moves."""
    words = ["lants", "salet"]
    text = {0: "BBBBB", 7: "BBGYB"}.__getitem__
    assert in_flight_text([Whole(1)], words, text) == "salet"
    assert in_flight_text([Whole(1), Whole(0)], words, text) == "2 openers from salet on"
    assert in_flight_text([Classes(0, (7,))], words, text) == "lants:BBGYB"
    assert in_flight_text([Classes(0, (0, 7))], words, text) == (
        "lants, 2 classes from lants:BBBBB on")
    assert in_flight_text([Part(0, 7, 2, 8, -1), Part(0, 7, 3, 8, -1)], words, text) == (
        "lants:BBGYB, part 3 of 8 and 1 more unit(s)")
    assert in_flight_text([Part(0, 0, 0, -1, -1)], words, text) == (
        "lants:BBBBB, its quick bound")
    base = dict(done=0, queued=1, rate=0.0, eta=float("inf"), whole=False, best=None)
    line = progress_line(RunProgress(**base, longest="lants:BBBBB", longest_seconds=61.0),
                         "03:00:00")
    assert line.endswith("best -; in flight longest: lants:BBBBB (1m01s)")
    assert "in flight" not in progress_line(
        RunProgress(**base, longest="lants:BBBBB", longest_seconds=59.0), "03:00:00")
