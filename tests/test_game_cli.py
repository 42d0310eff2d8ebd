"""The game commands (next, tree, play, simulate, score, compare, query --plot) on
small custom lists in every mode, the issue's known values on the default lists,
and bad input (one error line, exit status 2)."""

from __future__ import annotations

import csv
import json
import os
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from solver import Solver, cli
from solver import store as S
from solver.feedback import score, to_text
from solver.words import WordLists
from tests.game_helpers import small_lists, write_lists

GREEN = 242  # all five letters green: 3**5 - 1

ROOT = Path(__file__).resolve().parents[1]
MODES = ("easy", "hard", "strict")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A small problem on disk: (lists, answers file, guesses file, cache dir)."""
    d = tmp_path_factory.mktemp("lists")
    lists = small_lists(7, n_answers=25, n_guesses=50)
    a, g = write_lists(d, lists)
    return lists, a, g, str(d / "cache")


def run(capsys, small, *args):
    lists, a, g, cache = small
    rc = cli.main([*args, "--answers", a, "--guesses", g, "--cache-dir", cache])
    out = capsys.readouterr()
    return rc, out.out, out.err


def one_error(rc, out, err, *needles):
    assert rc == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("wordle-dp: error:"), err
    for n in needles:
        assert n in lines[0], (n, lines[0])


def png_size(path) -> tuple[int, int]:
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def position_for(lists, answer, guesses):
    return ",".join(f"{g}:{to_text(score(g, answer), 5)}" for g in guesses)


# ---- next -----------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_next_json_on_small_lists(capsys, small, mode):
    lists = small[0]
    solver = Solver(lists, mode=mode)
    opener = lists.answers[3]
    pos = position_for(lists, lists.answers[10], [opener])
    rc, out, err = run(capsys, small, "next", pos, "--mode", mode, "--json", "--top", "3")
    assert rc == 0, err
    d = json.loads(out)
    members = [a for a in lists.answers if score(opener, a) == score(opener, lists.answers[10])]
    assert d["position"] == pos and d["candidates"] == len(members)
    assert d["words"] == members
    total, g, status = solver.set_value(np.array([lists.answer_index[a] for a in members]), 5,
                                        solver._constraint_after(None, lists.guess_index[opener],
                                                                 score(opener, lists.answers[10]))
                                        if mode == "hard" else None)
    assert d["best"]["total"] == total and d["best"]["status"] == status == "exact"
    assert d["mode"] == mode and d["max_guesses"] == 6
    assert [a["total"] for a in d["alternatives"]] == sorted(a["total"] for a in
                                                              d["alternatives"])


def test_next_text_and_start_of_small_game(capsys, small):
    lists = small[0]
    rc, out, _ = run(capsys, small, "next", "-", "--top", "2")
    assert rc == 0
    best = min(Solver(lists).solve(w).total for w in lists.guesses)
    assert f"total {best} " in out and "25 candidates" in out
    assert out.count("exact") == 3


@pytest.mark.parametrize("args,needles", [
    (["next", "zzzzz:BBBBB"], ["zzzzz", "not in the guess list"]),
    (["next", "{g}:GGGGY"], ["no answer in the list fits", "nor does any allowed word"]),
    (["next", "{g}:BBXQB"], ["not a mark"]),
    (["next", "{g}"], ["GUESS:PATTERN"]),
    (["next", "{g}:BBBBB", "--top", "-1"], ["--top"]),
    (["next", "{a}:BBBBB,{a}:BBBBB,{a}:BBBBB", "--max-guesses", "2"], ["cap of 2"]),
    (["tree", "zzzzz"], ["zzzzz"]),
    (["simulate", "--strategy", "bogus"], ["unknown strategy", "entropy"]),
    (["simulate", "--plot", "x.txt"], ["PNG"]),
    (["score", "--top", "0"], ["--top"]),
    (["score", "--position", "{a}:GGGGG"], ["already solved"]),
    (["compare", "--openers", "zzzzz"], ["zzzzz"]),
    (["play", "--answer", "zzzzz"], ["zzzzz", "answer list"]),
])
def test_bad_input_one_error_line(capsys, small, args, needles):
    lists = small[0]
    g = next(w for w in lists.guesses if w not in lists.answers)
    a = lists.answers[0]
    args = [x.format(g=g, a=a) for x in args]
    one_error(*run(capsys, small, *args), *needles)


def test_next_hard_mode_illegal_guess(capsys, small):
    lists = small[0]
    ans = lists.answers[4]
    # a first guess with a green letter, then a second guess without it
    for o in lists.guesses:
        p = score(o, ans)
        greens = [i for i in range(5) if (p // 3 ** i) % 3 == 2]
        if greens and p != GREEN:
            i = greens[0]
            bad = next(w for w in lists.guesses if w[i] != o[i])
            break
    pos = f"{o}:{to_text(p, 5)},{bad}:{to_text(score(bad, ans), 5)}"
    one_error(*run(capsys, small, "next", pos, "--mode", "hard"), "hard mode",
              f"position {i + 1} must be")


def test_next_issue_example_original_lists(capsys, tmp_path):
    """The original lists, easy: after salet:BBBBB, 221 answers and total 609."""
    rc = cli.main(["next", "salet:BBBBB", "--lists", "original", "--json", "--top", "1"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 0 and d["candidates"] == 221 and d["best"]["total"] == 609
    rc = cli.main(["next", "-", "--lists", "original", "--no-book"])
    err = capsys.readouterr().err
    assert rc == 2 and "cluster job" in err and len(err.splitlines()) == 1
    assert "wordle-dp book build" in err


# ---- result store ---------------------------------------------------------------

@pytest.fixture(scope="module")
def store(small, tmp_path_factory):
    """A finished store for the small problem, written with the engine's values."""
    lists = small[0]
    solver = Solver(lists)
    path = tmp_path_factory.mktemp("store") / "s.zarr"
    st, _ = S.Store.open_or_create(path, lists, "easy", 6)
    recs = []
    for i, w in enumerate(lists.guesses):
        r = solver.solve(w)
        second = np.full(243, -1, np.int32)
        for p, g in solver.second_guesses(w).items():
            second[p] = lists.guess_index[g]
        recs.append(S.Record(i, S.STATUS_CODES[r.status], total=r.total or -1,
                             depth=r.depth or -1, cpu_seconds=r.cpu_seconds,
                             wall_seconds=r.seconds, nodes=r.nodes, rank=0,
                             finished_at=time.time(), second=second))
    st.write(recs)
    st.unlock()
    return str(path), solver


def test_next_from_store(capsys, small, store):
    path, solver = store
    lists = small[0]
    rc, out, _ = run(capsys, small, "next", "-", "--store", path, "--json", "--top", "2")
    d = json.loads(out)
    vals = sorted((solver.solve(w).total, w) for w in lists.guesses)
    assert rc == 0 and d["best"]["total"] == vals[0][0]
    assert [a["total"] for a in d["alternatives"]] == [v for v, _ in vals[1:3]]
    opener = d["best"]["guess"]
    pos = position_for(lists, lists.answers[2], [opener])
    rc, out, _ = run(capsys, small, "next", pos, "--store", path, "--json")
    d2 = json.loads(out)
    p = score(opener, lists.answers[2])
    assert d2["best"]["guess"] == solver.second_guesses(opener)[p] or d2["candidates"] == 1
    # a store for another problem is refused in one line
    one_error(*run(capsys, small, "next", "-", "--store", path, "--mode", "hard"),
              "another problem")


def test_query_plot(tmp_path, store):
    pytest.importorskip("matplotlib")
    path, _ = store
    png = tmp_path / "q.png"
    rc = cli.main(["query", "--store", path, "--plot", str(png), "--top", "1"])
    assert rc == 0 and png_size(png) == (1000, 560)


# ---- tree -----------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_tree_json_and_text(capsys, small, tmp_path, mode):
    lists = small[0]
    opener = lists.guesses[1]
    want = Solver(lists, mode=mode).solve(opener)
    out_file = tmp_path / "t.json"
    rc, out, err = run(capsys, small, "tree", opener, "--mode", mode, "--format", "json",
                       "--out", str(out_file))
    assert rc == 0 and out == "" and "wrote" in err
    d = json.loads(out_file.read_text())
    assert d["total"] == want.total and set(d["games"]) == set(lists.answers)
    for a, steps in d["games"].items():
        assert steps[-1] == f"{a}:GGGGG"
        assert all(s.split(":")[1] == to_text(score(s.split(":")[0], a), 5) for s in steps)
    rc, out, _ = run(capsys, small, "tree", opener, "--mode", mode)
    lines = out.splitlines()
    assert rc == 0 and f"total {want.total} " in lines[0] and len(lines) == 26


# ---- simulate -------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_simulate_optimal_equals_the_exact_value(capsys, small, mode):
    lists = small[0]
    opener = lists.guesses[5]
    want = Solver(lists, mode=mode, max_guesses=0).solve(opener).total
    rc, out, _ = run(capsys, small, "simulate", "--strategy", "optimal", "--opener", opener,
                     "--mode", mode, "--max-guesses", "0", "--json")
    d = json.loads(out)
    assert rc == 0 and d["total"] == want and d["games"] == 25 and d["failures"] == 0
    assert set(d) >= {"strategy", "opener", "mode", "games", "total", "mean", "stdev",
                      "histogram", "failures"}
    assert sum(int(k) * v for k, v in d["histogram"].items()) == want


def test_simulate_all_strategies_csv_and_plot(capsys, small, tmp_path):
    pytest.importorskip("matplotlib")
    lists = small[0]
    csv_file, png = tmp_path / "g.csv", tmp_path / "h.png"
    rc, out, err = run(capsys, small, "simulate", "--strategy", "all", "--opener",
                       lists.guesses[0], "--json", "--csv", str(csv_file), "--plot", str(png),
                       "--mode", "hard")
    assert rc == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    opt = rows[0]
    assert opt["strategy"] == "optimal"
    for r in rows:  # no strategy beats the optimum (the cap binds nobody here)
        assert r["total"] >= opt["total"] or r["failures"] > 0
        assert r["games"] == 25
    with open(csv_file) as f:
        games = list(csv.DictReader(f))
    assert len(games) == 25 * len(rows)
    for g in games:  # each game's steps are true feedback, and it ends solved
        steps = g["steps"].split()
        assert len(steps) == int(g["guesses"]) and steps[-1] == f"{g['answer']}:GGGGG"
        assert all(s[6:] == to_text(score(s[:5], g["answer"]), 5) for s in steps)
    assert png_size(png) == (1000, 560)


def test_simulate_default_lists_salet_is_7920(capsys):
    rc = cli.main(["simulate", "--strategy", "optimal", "--opener", "salet", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 0 and d["total"] == 7920 and d["games"] == 2315 and d["failures"] == 0


# ---- score ----------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_score_csv_is_sorted_and_complete(capsys, small, tmp_path, mode):
    lists = small[0]
    pos = position_for(lists, lists.answers[1], [lists.guesses[2]])
    f = tmp_path / "s.csv"
    rc, _, _ = run(capsys, small, "score", "--position", pos, "--csv", str(f), "--mode", mode)
    assert rc == 0
    with open(f) as fh:
        rows = list(csv.DictReader(fh))
    exp = [float(r["expected"]) for r in rows]
    assert exp == sorted(exp)
    if mode == "easy":
        assert len(rows) == len(lists.guesses)
    rc, out, _ = run(capsys, small, "score", "--position", pos, "--top", "3", "--mode", mode,
                     "--sort", "entropy")
    lines = out.splitlines()
    assert rc == 0 and len(lines) == 5 and "sorted by entropy" in lines[0]


def test_score_default_lists_hard(capsys, tmp_path):
    """The full guess list scored from a hard-mode position; the top row's measures
    recomputed with the plain feedback rule."""
    f = tmp_path / "s.csv"
    rc = cli.main(["score", "--position", "salet:BBYBG", "--mode", "hard", "--csv", str(f)])
    assert rc == 0
    with open(f) as fh:
        rows = list(csv.DictReader(fh))
    lists = WordLists.load()
    cands = [a for a in lists.answers if score("salet", a) == score("salet", "quilt")]
    assert all("l" in r["guess"] for r in rows)  # L was revealed
    assert all(r["guess"][4] == "t" for r in rows)  # T is green in place
    top = rows[0]["guess"]
    sizes: dict[int, int] = {}
    for a in cands:
        sizes[score(top, a)] = sizes.get(score(top, a), 0) + 1
    n = len(cands)
    assert float(rows[0]["expected"]) == pytest.approx(sum(c * c for c in sizes.values()) / n,
                                                       abs=1e-6)
    assert int(rows[0]["worst"]) == max(sizes.values())
    assert int(rows[0]["patterns"]) == len(sizes)
    assert [float(r["expected"]) for r in rows] == sorted(float(r["expected"]) for r in rows)


# ---- compare --------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["hard", "strict"])
def test_compare_other_modes(capsys, small, mode):
    lists = small[0]
    rc, out, err = run(capsys, small, "compare", "--openers", lists.guesses[3], "--mode", mode,
                       "--strategies", "patterns,entropy-cand", "--max-guesses", "0")
    assert rc == 0, err
    opt = Solver(lists, mode=mode, max_guesses=0).solve(lists.guesses[3]).total
    assert f"exact optimum {opt} " in out
    for line in out.splitlines()[2:]:
        name, total, _mean, _over, regret, _per = line.split()
        assert int(regret) == int(total) - opt >= 0


@pytest.mark.slow
def test_simulate_default_lists_salet_hard_is_8122(capsys):
    rc = cli.main(["simulate", "--strategy", "optimal", "--opener", "salet", "--mode", "hard",
                   "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 0 and d["total"] == 8122 and d["failures"] == 0


def test_compare_regret_and_plot(capsys, small, tmp_path):
    pytest.importorskip("matplotlib")
    lists = small[0]
    ops = lists.guesses[:2]
    png = tmp_path / "r.png"
    rc, out, err = run(capsys, small, "compare", "--openers", *ops, "--json",
                       "--strategies", "entropy,minimax-cand,random", "--plot", str(png))
    assert rc == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 6
    solver = Solver(lists)
    for r in rows:
        assert r["optimum"] == solver.solve(r["opener"]).total
        assert r["regret"] == r["total"] - r["optimum"] and r["regret"] >= 0
    assert png_size(png) == (1000, 560)


# ---- play -----------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_play_answer_from_stdin_plays_to_the_end(capsys, small, monkeypatch, mode):
    import io

    lists = small[0]
    ans = lists.answers[9]
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    rc, out, _ = run(capsys, small, "play", "--answer", ans, "--mode", mode)
    lines = out.splitlines()
    assert rc == 0
    k = sum(1 for line in lines if line.startswith("guess "))
    assert lines[-1] == f"solved: {ans.upper()} in {k} guess{'es' if k != 1 else ''}"


def test_play_with_typed_feedback(capsys, small, monkeypatch):
    """The player reports the real game's feedback; bad lines are re-asked."""
    import io

    lists = small[0]
    ans = lists.answers[12]
    other = lists.guesses[7]
    feed = ["nonsense words here", "GGGXQ", f"{other} {to_text(score(other, ans), 5)}"]
    # then accept suggestions, reporting their true feedback, found by replaying
    from solver.game import Position, analyse

    solver = Solver(lists)
    pos = Position.start(lists).play(other, score(other, ans))
    while not pos.solved:
        g = analyse(solver, pos, top=0).best.guess
        feed.append(to_text(score(g, ans), 5))
        pos = pos.play(g, score(g, ans))
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(feed) + "\n"))
    rc, out, _ = run(capsys, small, "play")
    assert rc == 0
    assert out.count("! ") == 2  # two bad lines, each explained once
    assert out.rstrip().endswith(f"solved: {ans.upper()} in {pos.guesses_made} guesses")


def test_play_quit(capsys, small, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    rc, out, _ = run(capsys, small, "play")
    assert rc == 0 and out.rstrip().endswith("quit")


def test_play_says_how_far_the_valuation_of_its_opener_is(capsys, small, monkeypatch):
    """An opener no book holds is valued before the first prompt (crane in hard mode
    on today's lists: minutes): stderr says how far it is, with an ETA by the work
    done; the value is the engine's."""
    import io

    from solver import Solver
    from solver.search import engine

    lists = small[0]
    monkeypatch.setattr(engine, "PROGRESS_EVERY", 0.0)
    monkeypatch.setattr(engine, "PROGRESS_FIRST", 0.0)
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    w = lists.guesses[3]
    rc, out, err = run(capsys, small, "play", "--opener", w)
    assert rc == 0
    lines = [x for x in err.splitlines() if x.startswith(f"{w}: ")]
    assert lines and all("feedback classes solved (about" in x for x in lines), err
    assert "ETA about" in err and lines[-1].split(": ")[1].split()[0].split("/")[0] == \
        lines[-1].split("/")[1].split()[0]  # the last line: every class solved
    want = Solver(lists).solve(w).total / len(lists.answers)
    assert f"(given opener): {want:.4f} guesses on average" in " ".join(out.split())


def test_play_prompt_fits_a_terminal_and_says_why_once(capsys, small, monkeypatch):
    """The prompt stays under 80 characters (no wrapping on a standard terminal) and
    the reason for the suggestion is said once, in the line above it."""
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    rc, out, _ = run(capsys, small, "play")
    lines = out.split("\n")
    at = next(i for i, x in enumerate(lines) if x.startswith("guess 1: play "))
    first, prompt = " ".join(lines[:at]), lines[at]  # the first line may wrap at 120
    assert rc == 0 and "suggested opener" in first and "(optimal opener)" in first
    assert out.count("optimal opener") == 1
    prompt = prompt[:prompt.index("q quits: ") + len("q quits: ")]
    assert prompt.startswith("guess 1: play ") and len(prompt) < 80, prompt


def test_play_asks_for_the_colours_of_a_word_typed_alone(capsys, small, monkeypatch):
    """Assist mode: a guess typed without its colours is asked for them (it used to
    be read as colours: "'c' is not a mark")."""
    import io

    from solver.feedback import score, to_text

    lists = small[0]
    word, answer = lists.guesses[7], lists.answers[3]
    colours = to_text(score(word, answer), 5)
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{word}\n{colours}\nq\n"))
    rc, out, _ = run(capsys, small, "play")
    assert rc == 0 and f"colours {word.upper()} got (e.g. BBYBG): " in out
    assert f"guess 1: {word.upper()}  {colours}" in out and "is not a mark" not in out


def test_play_help_names_the_book_as_the_default_opener(capsys):
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["play", "--help"])
    assert "opening book" in " ".join(capsys.readouterr().out.split())


def test_play_in_a_pseudo_terminal(small, tmp_path):
    """End to end in a real pty: prompts appear, Enter takes the suggestion."""
    import pty
    import select

    lists, a, g, cache = small
    ans = lists.answers[20]
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT), WORDLE_DP_CACHE=cache)
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver", "play", "--answer", ans, "--answers", a,
         "--guesses", g, "--cache-dir", cache],
        stdin=slave, stdout=slave, stderr=slave, env=env, cwd=tmp_path, close_fds=True)
    os.close(slave)
    buf = b""
    deadline = time.time() + 120
    try:
        while time.time() < deadline:
            r, _, _ = select.select([master], [], [], 1.0)
            if r:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                buf += chunk
                if buf.rstrip().endswith(b"quits):"):
                    os.write(master, b"\n")
            if proc.poll() is not None and not r:
                break
    finally:
        proc.kill() if proc.poll() is None else None
        proc.wait()
        os.close(master)
    text = buf.decode("utf-8", "replace")
    assert "(Enter = " in text  # it prompted: stdin was a terminal
    assert f"solved: {ans.upper()} in " in text


def _in_pty(args: list[str], cache: str, cwd, timeout: float = 120) -> str:
    """Run `wordle-dp ARGS` with a pseudo-terminal as stdin, stdout and stderr."""
    import pty
    import select

    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT), WORDLE_DP_CACHE=cache)
    proc = subprocess.Popen([sys.executable, "-m", "solver", *args], stdin=slave,
                            stdout=slave, stderr=slave, env=env, cwd=cwd, close_fds=True)
    os.close(slave)
    buf = b""
    deadline = time.time() + timeout
    try:
        while time.time() < deadline:
            r, _, _ = select.select([master], [], [], 1.0)
            if r:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                buf += chunk
            if proc.poll() is not None and not r:
                break
    finally:
        proc.kill() if proc.poll() is None else None
        proc.wait()
        os.close(master)
    return buf.decode("utf-8", "replace")


@pytest.mark.parametrize("command", ["compare", "simulate"])
def test_long_commands_show_progress_on_a_terminal(tmp_path, command):
    """compare and simulate draw the shared progress line (games, ETA) on a terminal
    once they run longer than a moment, erased before each result row; without a
    terminal they print only the rows. (Big enough to last past the first quiet
    0.25 s on an idle machine too: 200 answers against the whole default guess list;
    compare with 200 allowed guesses alone took under 0.25 s.)"""
    words = WordLists.load(quiet=True).answers[:200]
    a = tmp_path / "a.txt"
    a.write_text("\n".join(words) + "\n")
    cache = str(tmp_path / "cache")
    # the heuristics scan the whole default guess list at every position
    what = (["compare", "--openers", words[0], words[1]]
            if command == "compare" else ["simulate", "--strategy", "all"])
    args = [*what, "--answers", str(a), "--cache-dir", cache]
    text = _in_pty(args, cache, tmp_path)
    assert re.search(rf"{command}: \d+/\d+ games \(\d+\.\d%\), \d+s elapsed, ETA ", text), text
    assert "\r" in text  # redrawn in place
    plain = subprocess.run([sys.executable, "-m", "solver", *args], capture_output=True,
                           text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=tmp_path)
    assert plain.returncode == 0 and plain.stderr == ""
    rows = plain.stdout.splitlines()
    assert rows and rows[0] in text  # (later rows carry timings)


def test_expected_and_eliminations_choose_the_same_guesses(small):
    """As --help and the README say: the two heuristics play the same games."""
    from solver.game.simulate import simulate
    from solver.game.strategies import make_strategy

    lists = small[0]
    for mode in MODES:
        solver = Solver(lists, mode=mode)
        for cand in ("", "-cand"):
            a = make_strategy("expected" + cand, solver)
            b = make_strategy("eliminations" + cand, solver)
            for opener in [None, *lists.guesses[:6]]:
                ga, gb = simulate(solver, a, opener).games, simulate(solver, b, opener).games
                assert ga == gb, (mode, cand, opener)


def test_simulate_reports_every_game_to_progress(small):
    from solver.game.simulate import simulate
    from solver.game.strategies import make_strategy

    lists = small[0]
    seen = []
    sim = simulate(Solver(lists), make_strategy("entropy", Solver(lists)), None,
                   progress=lambda done, total: seen.append((done, total)))
    n = len(lists.answers)
    assert seen[-1] == (n, n) and len(seen) == n == len(sim.games)
    assert [d for d, _ in seen] == list(range(1, n + 1))


def test_player_commands_default_to_one_constant(capsys, monkeypatch):
    """play, next, tree and serve read their default lists from words.PLAY_LISTS,
    today's NYT lists (issue 32: what a player asks help with); the analyst
    commands keep the original lists whatever it says."""
    import io

    from solver import words

    assert words.PLAY_LISTS == "nyt"
    # agave is a NYT answer, not an original one: no widening needed here
    assert cli.main(["next", "salet:BYBYB,beard:BYGBB,aking:GBBBY,agape:GGGBG",
                     "--json"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)["words"] == ["agave"] and cap.err == ""
    # the start: from the NYT books, proven, in both modes
    assert cli.main(["next", "-", "--json", "--top", "0"]) == 0
    start = json.loads(capsys.readouterr().out)
    assert start["candidates"] == 3158 and "source" not in start
    assert start["best"] == {"guess": "tarse", "total": 11219,
                             "average": start["best"]["average"], "status": "exact"}
    assert cli.main(["next", "-", "--mode", "hard", "--json", "--top", "0"]) == 0
    start = json.loads(capsys.readouterr().out)
    assert start["best"]["guess"] == "tarse" and start["best"]["total"] == 11627
    assert "source" not in start and start["best"]["status"] == "exact"
    from solver.game.play import Game

    played = []  # the game itself is tested above; here only the lists it gets
    monkeypatch.setattr(Game, "run", lambda self, auto=False: played.append(self.pos))
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert cli.main(["play"]) == 0 and len(played[0].members) == 3158
    assert cli.main(["play", "--lists", "original"]) == 0
    assert len(played[1].members) == 2315
    monkeypatch.setattr(words, "PLAY_LISTS", "nyt-2022-08")  # one constant decides
    assert cli.main(["play"]) == 0 and len(played[2].members) == 2309
    # named lists win; the analyst commands are not player commands
    assert cli.main(["next", "-", "--lists", "original", "--json", "--top", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["candidates"] == 2315
    assert cli.main(["solve", "salet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["answers"] == 2315


def test_boards_and_adversary_take_the_players_lists(capsys, monkeypatch):
    """Issue 50: next and play with --boards or --adversary loaded the original lists
    while plain next and play (and the page) play today's: each asks for the lists
    plain next asks for, and named lists still win. The loading is stopped there
    (what the commands do with the lists is tested in test_boards/test_adversary)."""
    from solver import words
    from solver.cli import boards, game, variants
    from solver.errors import UsageError

    asked = []

    def stop(args, quiet=False):
        asked.append((args.lists, args.length))
        raise UsageError("stopped by the test")

    for mod in (boards, game, variants):
        monkeypatch.setattr(mod, "load_lists", stop)
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO("q\n"))
    assert cli.main(["next", "-"]) == 2 and cli.main(["play"]) == 2
    plain = asked[:]
    assert plain == [(words.PLAY_LISTS, None)] * 2
    for argv in (["next", "-", "--boards", "4"], ["next", "salet:BBBBB/BYBBG"],
                 ["play", "--boards", "4"], ["next", "-", "--adversary"],
                 ["play", "--adversary"]):
        asked.clear()
        assert cli.main(argv) == 2, argv
        assert asked == plain[:1], argv
        assert "stopped by the test" in capsys.readouterr().err
    for named, want in ((["--lists", "original"], ("original", None)),
                        (["--length", "6"], (None, 6))):
        for argv in (["next", "-", "--boards", "4"], ["play", "--adversary"]):
            asked.clear()
            assert cli.main(argv + named) == 2 and asked == [want], (argv, named)


def test_next_shows_progress_on_a_terminal(tmp_path):
    """A search for the next guess draws the shared progress line (guesses ranked,
    elapsed, ETA) on a terminal and erases it before the answer; without a terminal
    a search of a few seconds prints only the answer (a log gets a line every
    progress.LOG_EVERY seconds: the next test)."""
    cache = str(tmp_path / "cache")
    # cigar is not a book opener (salet:BBBBB would come from the book, no search)
    args = ["next", "cigar:BBBBB", "--lists", "original", "--top", "1", "--cache-dir", cache]
    text = _in_pty(args, cache, tmp_path)  # about 4 s: past the first quiet 0.25 s
    assert re.search(r"next: \d+/\d+ guesses \(\d+\.\d%\), \d+s elapsed, ETA ", text), text
    plain = subprocess.run([sys.executable, "-m", "solver", *args], capture_output=True,
                           text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=tmp_path)
    assert plain.returncode == 0 and plain.stderr == ""
    best = next(x for x in plain.stdout.splitlines() if x.startswith("best: "))
    assert best in text  # the same answer, after the line was erased


def test_next_writes_progress_lines_to_a_log(capsys, monkeypatch):
    """Without a terminal (a log, a pipe), a search for the next guess writes a plain
    progress line every progress.LOG_EVERY seconds: a best chance in hard mode can
    search for many minutes, and its log had said nothing until the answer."""
    from solver import progress

    monkeypatch.setattr(progress, "LOG_EVERY", 0.0)  # every report gets its line
    args = ["next", "cigar:BBBBB", "--lists", "original", "--top", "1"]
    assert cli.main(args) == 0
    cap = capsys.readouterr()
    # the tie-break's search has no count: its lines say the step and its time
    steps = [ln for ln in cap.err.splitlines() if ln.endswith(" so far")]
    assert all(re.fullmatch(r"next: [a-z ]+, \S+ so far", ln) for ln in steps), steps
    lines = [ln for ln in cap.err.splitlines() if ln not in steps]
    assert lines and all(re.fullmatch(r"next: \d+/\d+ guesses \(\d+\.\d%\), \d+s elapsed, "
                                      r"ETA \S+", ln) for ln in lines), cap.err
    assert "\r" not in cap.err  # plain lines, not a redrawn one
    counts = [tuple(map(int, re.match(r"next: (\d+)/(\d+)", ln).groups())) for ln in lines]
    for total in {t for _, t in counts}:  # each step's count only grows
        done = [d for d, t in counts if t == total]
        assert done == sorted(done) and done[-1] <= total, counts
    assert re.search(r"^best: ", cap.out, re.M), cap.out


def test_next_never_lists_its_best_guess_among_the_alternatives(capsys):
    """Issue 50, item 12: under hard crane:BBYBB (today's lists) the tie-break picks
    balot among equal totals while the engine's own choice was another guess, which
    the alternatives then left out instead of balot: balot came again, +0. The
    alternatives are the next guesses by total, the shown best excluded."""
    rc = cli.main(["next", "crane:BBYBB", "--mode", "hard", "--top", "3", "--lists", "nyt",
                   "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 0
    alts = [a["guess"] for a in d["alternatives"]]
    assert d["best"]["guess"] not in alts and len(set(alts)) == 3
    assert [a["total"] for a in d["alternatives"]] == sorted(a["total"] for a in
                                                             d["alternatives"])
    assert d["alternatives"][0]["total"] >= d["best"]["total"]


def test_fit_breaks_lines_between_phrases():
    """progress.fit (issue 50 item 10): at most the limit in terminal columns (the
    squares take two), broken after '; ' or ': ' outside parentheses first, never
    inside a word."""
    from solver.progress import columns, fit

    line = ("3158 possible answers; suggested opener TARSE (proven best, from the opening "
            "book): 3.5526 guesses on average with best play (exact)")
    assert fit(line, 120) == [line[:83], line[84:]]
    assert fit(line, 200) == [line]
    text = ("the adversary keeps the largest class (the largest class; ties: the fewest "
            "greens, then the fewest yellows, then the lowest code); you win at the end")
    for limit in (40, 60, 80):
        lines = fit(text, limit)
        assert all(columns(ln) <= limit for ln in lines), lines
        assert " ".join(lines) == text  # only spaces were broken
    assert columns("🟩🟨⬛ ab") == 9
    assert fit(" ".join(["🟩🟨⬛⬛⬛"] * 3), 12) == ["🟩🟨⬛⬛⬛"] * 3


@pytest.mark.parametrize("args,stdin", [
    (["play"], "q\n"),
    (["play", "--lists", "original", "--opener", "salet"], "BBBBB\nq\n"),
    (["play", "--boards", "4"], "q\n"),
    (["play", "--boards", "16", "--random", "--seed", "1"], ""),
    (["play", "--adversary"], "q\n"),
])
def test_play_lines_fit_a_120_column_terminal(capsys, monkeypatch, args, stdin):
    """Every line the terminal games print is at most 120 columns (issue 50 item 10:
    the first play line was 129 characters, the Quordle header wrapped inside
    'GUESS'), broken between phrases: the phrases are all there."""
    import io

    from solver.progress import columns

    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    monkeypatch.delenv("COLUMNS", raising=False)
    rc = cli.main(args)
    out = capsys.readouterr().out
    assert rc == 0, out
    lines = out.splitlines()
    assert all(columns(ln) <= 120 for ln in lines), [ln for ln in lines if columns(ln) > 120]
    text = " ".join(out.split())
    if args == ["play"]:
        assert re.search(r"3158 possible answers; suggested opener [A-Z]{5} \(proven best, "
                         r"from the opening book\): \d\.\d{4} guesses on average with best "
                         r"play \(exact\)", text), out
    if "--boards" in args and "--random" not in args:
        assert "or GUESS F1/F2/... for your own guess; q quits" in text
    if "--random" in args:
        assert "guess 1: " in out and "every board solved" in out
    if "--adversary" in args:
        assert ("after each guess the adversary answers with the colours that keep the most "
                "answers possible; on a tie, the fewest greens, then the fewest yellows, then "
                "a fixed order of the colours; you win when your guess is the only answer "
                "left") in text


# words of the search, not of the game: a player meets none of them in play or next
# (issue 50 item 11; --json and solve keep them for the analyst)
JARGON = re.compile(r"\b(class(es)?|tuples?|nodes?|cutoffs?|infeasible|objective|heuristic|"
                    r"entropy|pattern codes?|lower bound|upper bound)\b", re.IGNORECASE)


@pytest.mark.parametrize("args,stdin", [
    (["play"], "tarse BYBBG\nclank YBGBB\nq\n"),
    (["play", "--mode", "hard"], "match BGGGG\nBGGGG\nq\n"),
    (["play", "--boards", "4"], "BBYBB/BGBBY/YBBBG/BBBBB\nq\n"),
    (["play", "--adversary"], "\nq\n"),
    (["next", "-"], ""),
    (["next", "tarse:BYBBG"], ""),
    (["next", "tarse:BYBBG", "--mode", "hard"], ""),
    (["next", "match:BGGGG", "--mode", "hard"], ""),
    (["next", "-", "--max-guesses", "0"], ""),
    (["next", "tarse:BBBBB", "--max-guesses", "3"], ""),
    (["next", "crane:BGGGG"], ""),
    (["next", "-", "--boards", "4"], ""),
    (["next", "-", "--boards", "2", "--strategy", "expected"], ""),
    (["next", "-", "--adversary"], ""),
])
def test_player_lines_are_in_a_players_words(capsys, monkeypatch, args, stdin):
    """play and next on the default lists, in easy and hard mode, with four boards and
    against the adversary: no word of the search (class, tuple, node, cutoff,
    infeasible, objective, heuristic, entropy, ...) and every line within 120
    columns, on stdout and stderr."""
    import io

    from solver.progress import columns

    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    monkeypatch.delenv("COLUMNS", raising=False)
    rc = cli.main(args)
    out, err = capsys.readouterr()
    assert rc == 0, err
    lines = (out + err).splitlines()
    assert [ln for ln in lines if JARGON.search(ln)] == []
    assert [ln for ln in lines if columns(ln) > 120] == []
    if args[-1] == "--adversary" and args[0] == "next":
        assert "the adversary answers with the colours that keep the most answers" in out
    if "--boards" in args and args[0] == "next":
        assert "answer combinations" in out and "not proven best" in out, out


def test_an_alternative_that_cannot_win_in_time_says_so(capsys):
    """An alternative with no strategy that solves every candidate in the guesses left
    says so in words (it said 'infeasible')."""
    from solver.game.analysis import Analysis, Choice
    from solver.game.position import Position

    lists = small_lists(2, n_answers=12, n_guesses=20)
    pos = Position.parse("-", lists, "easy", 3)
    a = Analysis(pos, Choice(lists.guesses[0], 30, "exact"), [Choice(lists.guesses[1], None,
                                                                     "exact")])
    text = a.describe()
    assert f"  {lists.guesses[1]}  cannot solve every candidate in time  exact" in text, text
    assert not JARGON.search(text)
