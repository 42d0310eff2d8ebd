"""Every layer at word lengths other than 5: the pattern table (dtype, cache, the
MPI node copy), result stores (the word length recorded, second guesses over 3^L
patterns, other lengths refused), real MPI runs, the game commands (next, tree,
play, simulate, score, compare) and the book, on small samples of the built-in
4-, 6- and 7-letter lists. The engine's values at every length are checked against
the brute force in test_search_lengths.py."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest

from solver import Solver, cli
from solver import store as S
from solver.feedback import all_green, score, to_text
from solver.table import build_numpy, get_table
from solver.words import WordLists
from tests.run_helpers import MPIEXEC, mpi_env

ROOT = Path(__file__).resolve().parents[1]


def _sample(length: int, n_answers: int, n_guesses: int, seed: int = 5):
    """A small problem from the built-in lists of `length` letters, as files."""
    real = WordLists.load(length=length, quiet=True)
    rng = random.Random(seed + length)
    answers = sorted(rng.sample(real.answers, n_answers))
    guesses = sorted(set(rng.sample(real.guesses, n_guesses)) | set(answers))
    return answers, guesses


@pytest.fixture(scope="module", params=(4, 6, 7))
def problem(request, tmp_path_factory):
    length = request.param
    d = tmp_path_factory.mktemp(f"len{length}")
    answers, guesses = _sample(length, 30, 70)
    (d / "a.txt").write_text("\n".join(answers) + "\n")
    (d / "g.txt").write_text("\n".join(guesses) + "\n")
    lists = WordLists.load(d / "a.txt", d / "g.txt", quiet=True)
    return length, lists, str(d / "a.txt"), str(d / "g.txt"), str(d / "cache"), d


def _cli(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            rc = cli.main(list(argv))
    finally:
        sys.stdin = old
    return rc, out.getvalue(), err.getvalue()


def test_table_dtype_values_and_cache(problem):
    length, lists, _a, _g, cache, _d = problem
    table, info = get_table(lists, "numpy", cache)
    assert table.dtype == (np.uint8 if length <= 5 else np.uint16)
    assert table.shape == (len(lists.guesses), len(lists.answers))
    rng = random.Random(1)
    for _ in range(200):
        g, a = rng.randrange(len(lists.guesses)), rng.randrange(len(lists.answers))
        assert int(table[g, a]) == score(lists.guesses[g], lists.answers[a])
    again, info2 = get_table(lists, "numpy", cache)
    assert info2.backend == "cache" and again.dtype == table.dtype
    assert np.array_equal(again, table)
    assert int(table.max()) <= all_green(length)


def test_store_records_the_length_and_refuses_another(problem, tmp_path):
    length, lists, _a, _g, _cache, _d = problem
    st, _ = S.Store.open_or_create(tmp_path / "s.zarr", lists, "easy", 6)
    second = np.full(3**length, -1, np.int32)
    second[all_green(length) - 1] = 3
    st.write([S.Record(0, S.EXACT, total=70, depth=4, second=second)])
    st.unlock()
    st = S.Store.open(tmp_path / "s.zarr")
    assert st.problem.length == length and st.group.attrs["word_length"] == length
    assert st.group["second"].shape == (len(lists.guesses), 3**length)
    assert st.second_guesses(0) == {all_green(length) - 1: lists.guesses[3]}
    assert st.words == list(lists.guesses)
    other = WordLists.from_words(*_sample(5, 30, 70))
    with pytest.raises(S.StoreError, match="word length"):
        S.Store.open_or_create(tmp_path / "s.zarr", other, "easy", 6)


def test_game_commands(problem):
    length, lists, a, g, cache, d = problem
    common = ["--answers", a, "--guesses", g, "--cache-dir", cache]
    s = Solver(lists, table=build_numpy(lists))
    opener = lists.answers[0]
    answer = lists.answers[7]
    rc, out, err = _cli("solve", opener, "--json", *common)
    assert rc == 0, err
    want = s.solve(opener)
    assert json.loads(out)["total"] == want.total
    pat = to_text(score(opener, answer), length)
    assert len(pat) == length
    rc, out, err = _cli("next", f"{opener}:{pat}", "--json", "--top", "2", *common)
    assert rc == 0, err
    res = json.loads(out)
    assert answer in (res["words"] or [answer]) and res["best"]["status"] == "exact"
    rc, out, err = _cli("tree", opener, "--format", "json", *common)
    assert rc == 0, err
    tree = json.loads(out)
    assert tree["total"] == want.total and len(tree["games"]) == len(lists.answers)
    assert tree["games"][answer][-1] == f"{answer}:{'G' * length}"
    rc, out, err = _cli("play", "--answer", answer, "--opener", opener, *common)
    assert rc == 0, err
    assert f"solved: {answer.upper()}" in out and "G" * length in out
    rc, out, err = _cli("simulate", "--strategy", "optimal,entropy", "--opener", opener,
                        "--json", *common)
    assert rc == 0, err
    sims = [json.loads(x) for x in out.splitlines()]
    assert sims[0]["total"] == want.total and sims[1]["total"] >= want.total
    rc, out, err = _cli("score", "--top", "3", *common)
    assert rc == 0 and len(out.splitlines()) == 5, err
    rc, out, err = _cli("compare", "--openers", opener, "--strategies", "entropy", *common)
    assert rc == 0 and f"exact optimum {want.total}" in out, err
    # feedback of the wrong length is one error line
    rc, out, err = _cli("next", f"{opener}:{'G' * (length - 1)}Z", *common)
    assert rc == 2 and err.count("\n") == 1 and f"must have {length} marks" not in err
    rc, out, err = _cli("next", f"{opener}:{'B' * (length + 1)}", *common)
    assert rc == 2 and f"must have {length} marks" in err


def test_book_at_another_length(problem, tmp_path):
    length, lists, a, g, cache, _d = problem
    book = str(tmp_path / "b.npz")
    rc, _out, err = _cli("book", "build", "--answers", a, "--guesses", g, "--cache-dir",
                         cache, "--store", str(tmp_path / "b.zarr"), "--out", book,
                         "--top", "2", "--popular", "5", "--quiet")
    assert rc == 0, err
    rc, out, err = _cli("next", "-", "--book", book, "--answers", a, "--guesses", g,
                        "--cache-dir", cache, "--json", "--top", "1")
    assert rc == 0, err
    best = json.loads(out)["best"]
    s = Solver(lists, table=build_numpy(lists))
    assert best["total"] == min(s.solve(w).total for w in lists.guesses
                                if s.solve(w).status == "exact")


@pytest.mark.mpi
@pytest.mark.skipif(not MPIEXEC.exists(), reason="no mpiexec next to the interpreter")
def test_mpi_run_at_six_letters(tmp_path):
    """Three ranks share one uint16 table per node and, every opener valued as its
    first-feedback classes (--split all: classes and their 729-wide second-guess
    rows cross MPI), write the same store as one process valuing openers whole."""
    answers, guesses = _sample(6, 25, 60)
    (tmp_path / "a.txt").write_text("\n".join(answers) + "\n")
    (tmp_path / "g.txt").write_text("\n".join(guesses) + "\n")
    lists = ["--answers", str(tmp_path / "a.txt"), "--guesses", str(tmp_path / "g.txt")]
    env = mpi_env(tmp_path / "cache")
    base = [sys.executable, "-m", "solver", "run", *lists]
    p = subprocess.run([str(MPIEXEC), "-n", "3", *base, "--store", str(tmp_path / "m.zarr"),
                        "--split", "all"], env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    assert f"; {len(guesses)} valued as first-feedback classes" in p.stderr, p.stderr
    p1 = subprocess.run([*base, "--quiet", "--store", str(tmp_path / "one.zarr")], env=env,
                        capture_output=True, text=True, timeout=600)
    assert p1.returncode == 0, p1.stderr
    m, one = S.Store.open(tmp_path / "m.zarr"), S.Store.open(tmp_path / "one.zarr")
    assert m.problem.length == 6
    a, b = m.snapshot(), one.snapshot()
    assert (a.status == b.status).all() and (a.fields["total"] == b.fields["total"]).all()
    assert (a.fields["depth"] == b.fields["depth"]).all()
    assert set(np.unique(a.fields["rank"])) == {0, 1, 2}  # rank 0 solves too
    assert np.array_equal(m.group["second"][...], one.group["second"][...])
