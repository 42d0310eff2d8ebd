"""docs/example_api.py, the tour of the Python API, runs as a user runs it (a
separate process, a small problem) and its numbers are the engine's."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("xarray")
pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]


def test_the_api_example_runs_and_tells_the_truth(tmp_path):
    env = dict(os.environ, EXAMPLE_ANSWERS="60", PYTHONPATH=str(ROOT),
               WORDLE_DP_CACHE=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, str(ROOT / "docs" / "example_api.py"),
                          str(tmp_path / "ex")], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    from solver import Solver, WordLists

    words = WordLists.load(quiet=True).answers[:60]
    solver = Solver(WordLists.from_words(words, words))
    lines = out.stdout.splitlines()
    assert lines[0] == "60 answers, 60 allowed guesses"
    r = solver.solve(words[0])
    assert lines[1] == f"{words[0]}: exact total {r.total} = {r.total / 60:.4f} guesses per answer"
    best = solver.best(3)
    assert lines[2] == f"best openers: {[(b.opener, b.total) for b in best]}"
    assert f"best 3 in the store: {[(b.opener, b.total) for b in best]}" in lines
    assert "run finished: 60 openers valued" in lines
    png = tmp_path / "ex" / "openers.png"
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", head[16:24]) == (800, 420)


def test_every_public_name_of_the_package_resolves():
    """solver.__all__ is what the package docstring promises, each name importable."""
    import solver

    for name in solver.__all__:
        assert getattr(solver, name) is not None, name
    assert {"Solver", "Position", "analyse", "tree", "simulate", "make_strategy",
            "open_dataset", "to_dataframe", "Store", "WordLists"} <= set(solver.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        solver.nothing  # noqa: B018
