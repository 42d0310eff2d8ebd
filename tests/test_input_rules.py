"""What odd input is accepted, and how (the refusals are in test_fuzz.py)."""

from __future__ import annotations

import argparse
import os
import signal

import pytest

from solver import table as T
from solver.cli.common import float_range, int_range
from solver.errors import UsageError, check_environment, one_line, quote
from solver.run import select_openers
from solver.words import WordListError, WordLists, parse_words, read_words

ANSWERS = ["cigar", "rebut", "sissy", "humph", "awake"]


@pytest.fixture
def lists() -> WordLists:
    return WordLists.from_words(ANSWERS, ["salet", "crane"])


def test_bom_at_start_is_tolerated(tmp_path):
    p = tmp_path / "bom.txt"
    p.write_bytes("\ufeffcigar\r\nrebut\n".encode())
    assert read_words(p) == ["cigar", "rebut"]


def test_letters_checked_before_case_folding():
    assert "\u212a".lower() == "k"  # the Kelvin sign lower-cases to ASCII
    with pytest.raises(WordListError, match=r"^src:2:"):
        parse_words("cigar\nawa\u212ae\n", "src")
    assert parse_words("AWAKE\n") == ["awake"]


def test_guess_id_refuses_non_ascii(lists):
    assert lists.guess_id(" AWAKE ") == lists.guess_index["awake"]
    with pytest.raises(WordListError, match="not in the guess list"):
        lists.guess_id("awa\u212ae")


def test_quote_and_one_line_cap_what_is_echoed():
    assert quote("abc") == "'abc'"
    q = quote("x" * 10_000)
    assert len(q) < 80 and q.endswith("(10000 characters)")
    assert one_line("a\nb\r\nc") == "a b  c"
    assert len(one_line("y" * 5000)) < 1100


def test_number_types_have_ranges():
    beam = int_range(1, 10)
    assert beam("3") == 3 and beam(" +10 ") == 10
    for bad in ("0", "11", "9" * 40, "1.0", "x", "", "\u0663"):
        with pytest.raises(argparse.ArgumentTypeError):
            beam(bad)
    secs = float_range(0.0, 100.0)
    assert secs("0") == 0.0 and secs("1e2") == 100.0 and secs(".5") == 0.5
    for bad in ("-0.1", "nan", "inf", "1e400", "100.5", "x"):
        with pytest.raises(argparse.ArgumentTypeError):
            secs(bad)
    with pytest.raises(argparse.ArgumentTypeError):
        float_range(0.0, 1.0, lo_open=True)("0")


@pytest.mark.parametrize("value", ["1", " 2", "+3", "16"])
def test_numba_threads_accepted(value):
    check_environment({"NUMBA_NUM_THREADS": value})


@pytest.mark.parametrize("value", ["0", "-1", "abc", "", "1.5", "9" * 30])
def test_numba_threads_refused(value):
    with pytest.raises(UsageError, match="NUMBA_NUM_THREADS"):
        check_environment({"NUMBA_NUM_THREADS": value})


@pytest.mark.parametrize("value", ["auto", "jit", "", " jit "])
def test_kernel_choice_accepted(value):
    check_environment({"WORDLE_DP_KERNELS": value})


@pytest.mark.parametrize("value", ["JIT", "compiled", "0", "auto jit"])
def test_kernel_choice_refused(value):
    with pytest.raises(UsageError, match="WORDLE_DP_KERNELS=.* must be auto"):
        check_environment({"WORDLE_DP_KERNELS": value})


def test_openers_files_are_explicit(tmp_path, lists, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "salet").write_text("crane\n")  # a file named like a word is ignored
    assert select_openers("salet", lists) == [lists.guess_index["salet"]]
    (tmp_path / "op.txt").write_text("crane\nCIGAR\n")
    want = [lists.guess_index["crane"], lists.guess_index["cigar"]]
    assert select_openers("op.txt", lists) == want
    assert select_openers("@salet", lists) == [lists.guess_index["crane"]]
    assert select_openers("./op.txt", lists) == want
    assert select_openers(" salet , crane ", lists) == [lists.guess_index["salet"],
                                                        lists.guess_index["crane"]]
    for bad in (",", "", "salet,,crane", "@"):
        with pytest.raises(UsageError):
            select_openers(bad, lists)


def test_fifo_in_cache_folder_does_not_block(tmp_path, lists):
    path = T.cache_path(lists, tmp_path)
    tmp_path.mkdir(exist_ok=True)
    os.mkfifo(path)
    old = signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw(TimeoutError()))
    signal.alarm(20)
    try:
        table, info = T.get_table(lists, "numpy", tmp_path)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert info.rebuilt_reason == "cache file failed verification"
    assert path.is_file() and table.shape == (len(lists.guesses), len(lists.answers))
    assert T.get_table(lists, "numpy", tmp_path)[1].backend == "cache"


def test_table_size_is_checked_before_building(lists, monkeypatch):
    monkeypatch.setattr(T, "memory_bytes", lambda: 20)
    with pytest.raises(WordListError, match=r"7 guesses x 5 answers would need 35 bytes"):
        T.get_table(lists, "numpy", use_cache=False)


def test_export_write_is_atomic(tmp_path):
    from solver.cli.cluster import _write_atomically

    target = tmp_path / "out.csv"
    target.write_text("old\n")

    def half(f):
        f.write("new, half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        _write_atomically(target, half)
    assert target.read_text() == "old\n" and sorted(tmp_path.iterdir()) == [target]
    _write_atomically(target, lambda f: f.write("new\n"))
    assert target.read_text() == "new\n" and sorted(tmp_path.iterdir()) == [target]
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    _write_atomically(link, lambda f: f.write("via link\n"))
    assert link.is_symlink() and target.read_text() == "via link\n"
    _write_atomically(tmp_path.parent / "/dev/null", lambda f: f.write("x"))  # in place
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_full_disk_behind_stdout_is_one_line(tmp_path, capsys, monkeypatch):
    import errno
    import io

    from solver import cli

    class Full(io.StringIO):
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

    words = tmp_path / "w.txt"
    words.write_text("cigar\nrebut\n")
    monkeypatch.setattr("sys.stdout", Full())
    rc = cli.main(["table", "--answers", str(words), "--guesses", str(words), "--no-cache"])
    err = capsys.readouterr().err
    assert rc == 2 and err == "wordle-dp: error: cannot write: No space left on device\n"


def test_cli_import_does_not_load_numba():
    """The environment check must run before numba reads NUMBA_NUM_THREADS."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    code = "import sys, solver, solver.cli; print('numba' in sys.modules)"
    p = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "False", p.stderr
