"""The command line, run as a real process (`python -m solver`, `wordle-dp`).

Each process start imports numpy and numba, so the number of runs is kept small.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from solver import cli

ROOT = Path(__file__).resolve().parents[1]


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["WORDLE_DP_CACHE"] = str(tmp_path / "user-cache")  # never the real cache
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def run_cli(tmp_path: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "solver", *args],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _assert_one_error_line(proc: subprocess.CompletedProcess, *needles: str) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("wordle-dp: error:"), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


# --- help --------------------------------------------------------------------------


def test_help(tmp_path):
    proc = run_cli(tmp_path, "--help")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("usage: wordle-dp")
    for word in ("Exact Wordle solver", "table", "solve", "best", "examples:", "--version"):
        assert word in out, word
    assert proc.stderr == ""


def test_table_help(tmp_path):
    proc = run_cli(tmp_path, "table", "--help")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("usage: wordle-dp table")
    for word in ("pattern", "--answers", "--guesses", "--cache-dir", "--backend", "cupy",
                 "numpy", "--no-cache", "--json", "WORDLE_DP_CACHE"):
        assert word in out, word


def test_solve_help(tmp_path):
    proc = run_cli(tmp_path, "solve", "--help")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("usage: wordle-dp solve")
    for word in ("WORD", "--mode", "easy", "hard", "strict", "--max-guesses", "--json",
                 "exact", "--answers"):
        assert word in out, word


# --- bad word lists ----------------------------------------------------------------


@pytest.mark.parametrize("case", ["bad-word", "duplicate", "missing", "bad-guesses"])
def test_bad_lists_one_error_line(tmp_path, case):
    good = tmp_path / "good.txt"
    good.write_text("cigar\nrebut\nsissy\n")
    bad = tmp_path / "bad.txt"
    opt = "--answers"
    if case == "bad-word":
        bad.write_text("cigar\nrebut\n\nsis5y\n")
        needles = (f"{bad}:4:", "sis5y")
    elif case == "duplicate":
        bad.write_text("cigar\nrebut\nCigar\n")
        needles = (f"{bad}:3:", "duplicate", "line 1")
    elif case == "missing":
        bad = tmp_path / "no-such-file.txt"
        needles = (f"{bad}:",)
    else:
        bad.write_text("cigar\nrebut\nsissy\nhumph\ntoolong\n")
        opt = "--guesses"
        needles = (f"{bad}:5:", "toolong")
    other = "--guesses" if opt == "--answers" else "--answers"
    proc = run_cli(tmp_path, "table", opt, str(bad), other, str(good), "--no-cache")
    _assert_one_error_line(proc, *needles)


# --- table -------------------------------------------------------------------------


def test_table_json_build_then_cache(tmp_path):
    cache = tmp_path / "cache"
    first = run_cli(tmp_path, "table", "--json", "--backend", "numpy", "--cache-dir", str(cache))
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr
    row = json.loads(first.stdout)
    assert row["backend"] == "numpy"
    assert row["shape"] == [12972, 2315]
    assert Path(row["cache"]).parent == cache and Path(row["cache"]).is_file()
    assert row["answers_sha256"] == (
        "f40e47975cf360ff9febe7d49c8e285054d8fa3fb9644cea575922060951d6ee"
    )
    assert row["seconds"] >= 0
    assert not (tmp_path / "user-cache").exists()

    second = run_cli(tmp_path, "table", "--json", "--cache-dir", str(cache))
    assert second.returncode == 0, second.stderr
    row2 = json.loads(second.stdout)
    assert row2["backend"] == "cache"
    assert row2["cache"] == row["cache"] and row2["shape"] == row["shape"]


def test_console_script(tmp_path):
    exe = Path(sys.executable).with_name("wordle-dp")
    script = str(exe) if exe.exists() else shutil.which("wordle-dp")
    if script is None:
        pytest.skip("wordle-dp console script not installed (pip install -e .)")
    words = tmp_path / "w.txt"
    words.write_text("cigar\nrebut\nsissy\nhumph\n")
    proc = subprocess.run(
        [script, "table", "--json", "--answers", str(words), "--guesses", str(words),
         "--backend", "numpy", "--no-cache"],
        env=_env(tmp_path), cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)
    assert row["shape"] == [4, 4] and row["cache"] is None and row["backend"] == "numpy"


# --- in-process (cheap) ------------------------------------------------------------


def test_main_unknown_opener(tmp_path, capsys):
    rc = cli.main(["solve", "zzzzz", "--cache-dir", str(tmp_path)])
    assert rc == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("wordle-dp: error:") and "zzzzz" in err[0]
    assert list(tmp_path.iterdir()) == []  # rejected before any table work


def test_main_table_text_output(tmp_path, capsys):
    words = tmp_path / "w.txt"
    words.write_text("cigar\nrebut\nsissy\n")
    rc = cli.main(["table", "--answers", str(words), "--guesses", str(words),
                   "--backend", "numpy", "--cache-dir", str(tmp_path / "c")])
    assert rc == 0
    out = capsys.readouterr().out
    assert "3 guesses x 3 answers" in out and "built with numpy" in out
    assert str(tmp_path / "c") in out


def test_main_no_command_prints_help(capsys):
    assert cli.main([]) == 2
    assert "usage: wordle-dp" in capsys.readouterr().out


def test_solves_memo_follows_the_openers(tmp_path):
    """solve's default memo: 8 MB when every opener's biggest first-feedback class has
    at most 700 answers (salet: 221), 75 MB when one is bigger (qajaq: 1369); an
    explicit --memo-mb wins; the game commands keep 75 MB (best is a run: its ranks'
    memo follows the node's memory, config.default_memo_mb)."""
    import numpy as np

    from solver.cli.common import SMALL_MEMO_CLASS, make_solver
    from solver.search.engine import memo_entries_for
    from solver.words import WordLists

    lists = WordLists.load(quiet=True)
    cache = ["--cache-dir", str(tmp_path)]

    def entries(argv, words):
        args = cli.build_parser().parse_args(argv + cache)
        return make_solver(args, lists, words).stats["memo_entries"]

    from solver.table import get_table

    table, _ = get_table(lists, "numpy", str(tmp_path))
    biggest = {w: int(np.bincount(table[lists.guess_id(w)]).max()) for w in ("salet", "qajaq")}
    assert biggest["salet"] <= SMALL_MEMO_CLASS < biggest["qajaq"]
    assert entries(["solve", "salet"], ["salet"]) == memo_entries_for(8)
    assert entries(["solve", "salet", "qajaq"], ["salet", "qajaq"]) == memo_entries_for(75)
    assert entries(["solve", "salet", "--memo-mb", "40"], ["salet"]) == memo_entries_for(40)
    assert entries(["next", "salet:BBBBB"], []) == memo_entries_for(75)


# --- custom lists of any length (issue 33) ------------------------------------------


@pytest.mark.parametrize("words", [
    ["cat", "dog", "cow", "cot"],                                   # 3 letters
    ["abandoning", "abdicating", "abolitions", "absolutely"],       # 10 letters
    ["blueberry", "chocolate", "raspberry"],                        # 9 letters
])
def test_custom_lists_of_lengths_without_builtin_lists(tmp_path, capsys, words):
    # both lists given: nothing built in is needed, whatever the length (there are no
    # built-in lists of 3, 9 or 10 letters)
    f = tmp_path / "w.txt"
    f.write_text("\n".join(words) + "\n")
    lists = ["--answers", str(f), "--guesses", str(f), "--cache-dir", str(tmp_path / "c")]
    rc = cli.main(["solve", words[0], "--json", *lists])
    out, err = capsys.readouterr()
    assert rc == 0, err
    r = json.loads(out)
    # n answers, each word a guess: 1 guess for the one guessed first, at least 2 for
    # every other, and a guess that splits them all gives exactly that
    n = len(words)
    assert r["status"] == "exact" and r["total"] >= 2 * n - 1
    rc = cli.main(["next", "-", "--json", *lists])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert json.loads(out)["best"]["total"] <= r["total"]


def test_one_custom_list_of_a_length_without_builtin_lists_is_refused(tmp_path, capsys):
    f = tmp_path / "w.txt"
    f.write_text("cat\ndog\n")
    rc = cli.main(["solve", "cat", "--answers", str(f), "--cache-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and "no built-in lists of 3-letter words" in err


def test_table_names_its_type(tmp_path, capsys):
    words = tmp_path / "w.txt"
    words.write_text("abcdef\nbcdefa\n")  # 6 letters: 729 patterns, two bytes each
    rc = cli.main(["table", "--answers", str(words), "--guesses", str(words),
                   "--backend", "numpy", "--no-cache"])
    assert rc == 0 and "2 guesses x 2 answers (uint16)" in capsys.readouterr().out
    rc = cli.main(["table", "--json", "--answers", str(words), "--guesses", str(words),
                   "--backend", "numpy", "--no-cache"])
    assert json.loads(capsys.readouterr().out)["dtype"] == "uint16"
    rc = cli.main(["table", "--help"])
    help_text = capsys.readouterr().out
    assert "uint8 feedback table" not in help_text and "uint16" in help_text


def test_unknown_words_name_the_builtin_lists_not_their_path(capsys):
    rc = cli.main(["next", "salte:BBBBB"])  # the players' default: today's NYT lists
    err = capsys.readouterr().err
    assert rc == 2 and "not in the guess list of the nyt lists" in err
    assert "/" not in err.split("error:", 1)[1]  # no installed path


def test_ctrl_c_ends_the_progress_line_first(monkeypatch):
    """Interrupted while a progress line is drawn on a terminal: 'interrupted' gets a
    line of its own, not '...salet 7920^Cwordle-dp: interrupted'."""
    import io

    from solver import progress
    from solver.cli import solve

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)

    def long_command(args) -> int:
        p = progress.Progress("best", sys.stderr, "openers", every=0)
        p(3, 10, "best so far salet 7920")
        raise KeyboardInterrupt

    monkeypatch.setattr(solve, "_cmd_table", long_command)
    assert cli.main(["table"]) == 130
    text = err.getvalue()
    assert text.endswith("salet 7920\nwordle-dp: interrupted\n"), text
    # with no line drawn, nothing is added
    err.seek(0)
    err.truncate()
    progress.end_open_line()
    assert err.getvalue() == ""


def test_a_wait_with_nothing_to_count_shows_its_time_on_a_terminal():
    """Progress.wait: one step of unknown length (a search with no count) redraws its
    note and the time so far every second on a terminal; a log gets nothing."""
    import io
    import re
    import time

    from solver import progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    p = progress.Progress("next", tty, "guesses")
    with p.wait("the smallest worst case"):
        t0 = time.monotonic()  # a busy machine may delay the thread: wait for its line
        while "so far" not in tty.getvalue() and time.monotonic() - t0 < 60:
            time.sleep(0.05)
    assert re.search(r"\rnext: the smallest worst case, \d+s so far", tty.getvalue())
    log = io.StringIO()
    with progress.Progress("next", log, "guesses").wait("the smallest worst case"):
        time.sleep(1.2)
    assert log.getvalue() == ""
