"""The book's second moves (solver/moves.py): built by `wordle-dp book moves` beside a
book on small lists in every mode, then checked against a fresh engine class by
class (best total, worst case, every alternative's exact total and the ranking),
read by `next` without any search, resumed, and refused where foreign or damaged."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from solver import Solver, cli
from solver.book import Book
from solver.errors import StoreError
from solver.feedback import to_text
from solver.game.analysis import analyse, evaluate, ranked_guesses
from solver.game.position import Position
from solver.moves import Moves, moves_path
from solver.table import build_numpy
from tests.game_helpers import small_lists, write_lists
from tests.run_helpers import MPIEXEC, mpi_env

MODES = ("easy", "hard", "strict")
K = 3  # alternatives kept in these tests


@pytest.fixture(scope="module", params=MODES)
def built(request, tmp_path_factory):
    """A book and its moves for small lists in one mode: (mode, lists, common CLI
    arguments, book path)."""
    mode = request.param
    d = tmp_path_factory.mktemp(f"moves-{mode}")
    lists = small_lists(37, n_answers=40, n_guesses=90)
    a, g = write_lists(d, lists)
    cache, book = str(d / "cache"), str(d / "b.npz")
    common = ["--answers", a, "--guesses", g, "--cache-dir", cache, "--mode", mode]
    assert cli.main(["book", "build", *common, "--store", str(d / "b.zarr"), "--out", book,
                     "--top", "3", "--popular", "6", "--quiet"]) == 0
    assert cli.main(["book", "moves", *common, "--book", book, "--alternatives", str(K),
                     "--openers", "popular", "--out", str(moves_path(book)), "--quiet"]) == 0
    return mode, lists, common, book


def _fresh(lists, mode) -> Solver:
    return Solver(lists, mode=mode, max_guesses=6, table=build_numpy(lists))


def test_every_class_against_a_fresh_engine(built):
    mode, lists, _common, book_file = built
    book = Book.read(book_file, lists)
    moves = book.moves
    assert moves is not None and moves.alternatives == K
    ref = _fresh(lists, mode)
    start = Position.start(lists, mode, 6)
    openers = moves.openers()
    # the book's 3 best and its popular openers, each with every class it can get
    assert set(openers) == set(book.info["popular"]) | {
        book.words[int(i)] for i in book.snapshot().order()[:3]}
    seen = 0
    for w in openers:
        g = lists.guess_index[w]
        pats = {int(p) for p in ref.table[g, start.members]} - {start.variant.all_green}
        for p in pats:
            move = moves.lookup(g, p)
            assert move is not None, (w, p)
            pos = start.play(w, p)
            truth = analyse(ref, pos, top=0)  # no book: the engine from scratch
            assert (move.total, move.worst) == (truth.best.total, truth.best.worst), (w, p)
            if move.total is None:
                assert move.best is None and move.alternatives == ()
                continue
            # the best guess really has that total, and so has each alternative
            assert evaluate(ref, pos, move.best).total == move.total
            for a, t in move.alternatives:
                assert evaluate(ref, pos, a).total == t, (w, p, a)
            # the best and its alternatives are the K+1 best totals, in order
            ranked = ranked_guesses(ref, pos, K + 1)
            assert sorted([move.total] + [t for _, t in move.alternatives]) == \
                [c.total for c in ranked]
            assert [t for _, t in move.alternatives] == sorted(t for _, t in move.alternatives)
            assert move.best not in [a for a, _ in move.alternatives]
            seen += 1
    assert seen > 20


def test_next_answers_the_second_move_without_a_search(built, capsys, monkeypatch):
    mode, lists, common, book_file = built
    book = Book.read(book_file, lists)
    assert book.moves is not None
    w = book.moves.openers()[0]
    g = lists.guess_index[w]
    rows = [int(p) for o, p in zip(book.moves.arrays["opener"], book.moves.arrays["pattern"],
                                   strict=True) if o == g]
    pos = f"{w}:{to_text(max(rows, key=lambda p: book.moves.lookup(g, p).total or -1), 5)}"
    outs = {}
    for top in (0, 2, K):
        assert cli.main(["next", pos, "--no-book", "--json", "--top", str(top), *common]) == 0
        engine = json.loads(capsys.readouterr().out)
        with monkeypatch.context() as m:  # from the data: no solver may be made
            m.setattr("solver.cli.game.make_solver", _no_solver)
            m.setattr("solver.cli.common.make_solver", _no_solver)
            assert cli.main(["next", pos, "--book", book_file, "--json", "--top", str(top),
                             *common]) == 0
        outs[top] = data = json.loads(capsys.readouterr().out)
        assert data["best"]["total"] == engine["best"]["total"]
        assert data["best"]["worst"] == engine["best"]["worst"]
        assert [a["total"] for a in data["alternatives"]] == \
            [a["total"] for a in engine["alternatives"]]
        assert data["candidates"] == engine["candidates"]
    # a prefix of the same ranking whatever --top
    assert outs[2]["alternatives"] == outs[K]["alternatives"][:2]
    # more alternatives than the data keeps: the search answers (and may make a solver)
    assert cli.main(["next", pos, "--book", book_file, "--json", "--top", str(K + 2),
                     *common]) == 0
    more = json.loads(capsys.readouterr().out)
    assert more["alternatives"][:K] == outs[K]["alternatives"]


def _no_solver(*_a, **_k):
    raise AssertionError("a solver was made for an answer the moves file holds")


def test_building_resumes_and_skips_what_is_done(tmp_path, capsys):
    lists = small_lists(41, n_answers=30, n_guesses=60)
    a, g = write_lists(tmp_path, lists)
    out = tmp_path / "m.moves.npz"
    common = ["--answers", a, "--guesses", g, "--cache-dir", str(tmp_path / "c"),
              "--mode", "hard", "--out", str(out), "--alternatives", "2", "--quiet"]
    w1, w2 = lists.guesses[0], lists.guesses[1]
    # a time limit of 0 stops before the first class: nothing written
    assert cli.main(["book", "moves", *common, "--openers", w1, "--time-limit", "0"]) == 0
    assert not out.exists()
    assert cli.main(["book", "moves", *common, "--openers", w1]) == 0
    one = Moves.read(out, lists, "hard", 6)
    assert one.openers() == [w1]
    assert cli.main(["book", "moves", *common, "--openers", f"{w1},{w2}"]) == 0
    two = Moves.read(out, lists, "hard", 6)
    assert two.openers() == [w1, w2]
    g1 = lists.guess_index[w1]
    for i in np.flatnonzero(one.arrays["opener"] == g1):
        p = int(one.arrays["pattern"][i])
        assert one.lookup(g1, p) == two.lookup(g1, p)
    # another alternative count for the same file is refused, in one line
    assert cli.main(["book", "moves", *common[:-3], "--out", str(out), "--openers", w1,
                     "--alternatives", "3"]) == 2
    assert "keeps 2 alternatives per class" in capsys.readouterr().err
    # an unknown opener: one line
    assert cli.main(["book", "moves", *common, "--openers", "zzzzz"]) == 2
    assert "wordle-dp: error: 'zzzzz' is not in the guess list" in \
        capsys.readouterr().err


def _counted_build(tmp_path: Path, monkeypatch, lists, w: str):
    """build(out, after=None): `book moves` of the opener w into `out`, returning the
    classes it valued; after(i) runs once the i-th class is valued, before the build
    gets it (a stop signal there, or an exception as a kill)."""
    import solver.moves as moves_mod

    a, g = write_lists(tmp_path, lists)
    real = moves_mod.class_move

    def build(out: Path, after=None) -> int:
        n = [0]

        def counting(solver, pos, k, store=None):
            res = real(solver, pos, k, store)
            n[0] += 1
            if after is not None:
                after(n[0])
            return res

        monkeypatch.setattr(moves_mod, "class_move", counting)
        assert cli.main(["book", "moves", "--answers", a, "--guesses", g, "--cache-dir",
                         str(tmp_path / "c"), "--openers", w, "--out", str(out),
                         "--alternatives", "2", "--quiet"]) == 0
        return n[0]

    return build


def test_a_build_stopped_part_way_keeps_its_classes(tmp_path, monkeypatch):
    """A stop (SIGUSR1, as Slurm sends before its time limit) after the third class
    of an opener: the file keeps those three classes, the opener is not done, and
    the same command values only the other classes, into a file equal to one built
    without a stop."""
    lists = small_lists(53, n_answers=30, n_guesses=60)
    w = lists.guesses[0]
    build = _counted_build(tmp_path, monkeypatch, lists, w)

    def stop_after_3(i: int) -> None:
        if i == 3:
            os.kill(os.getpid(), signal.SIGUSR1)

    whole = tmp_path / "w.moves.npz"
    n = build(whole)
    assert n > 3
    out = tmp_path / "m.moves.npz"
    assert build(out, stop_after_3) == 3
    part = Moves.read(out, lists, "easy", 6)
    assert part.openers() == [] and len(part) == 3
    assert build(out) == n - 3  # only the classes the file lacks
    got, ref = Moves.read(out, lists, "easy", 6), Moves.read(whole, lists, "easy", 6)
    assert got.openers() == ref.openers() == [w]
    for k in ("opener", "pattern", "best", "total", "worst", "alt_guess", "alt_total"):
        assert np.array_equal(got.arrays[k], ref.arrays[k]), k


def test_a_time_limit_stops_between_classes(tmp_path, monkeypatch):
    """The time limit is checked before each class: with one opener and a limit that
    passes during its fourth class, the file
    keeps four classes, the opener is not done, and the same command without a limit
    values only the rest, into a file equal to one built without a stop."""
    import types

    import solver.moves as moves_mod

    lists = small_lists(54, n_answers=30, n_guesses=60)
    a, g = write_lists(tmp_path, lists)
    w = lists.guesses[0]
    real = moves_mod.class_move
    clock = [0.0]  # each class takes 10 s of this clock
    calls: list[tuple] = []

    def slow(solver, pos, k, store=None):
        calls.append(pos.history)
        clock[0] += 10.0
        return real(solver, pos, k, store)

    monkeypatch.setattr(moves_mod, "class_move", slow)
    monkeypatch.setattr(moves_mod, "time", types.SimpleNamespace(
        perf_counter=lambda: clock[0], process_time=time.process_time,
        strftime=time.strftime, gmtime=time.gmtime, time=time.time))

    def build(out: Path, limit: str | None = None) -> int:
        calls.clear()
        clock[0] = 0.0
        extra = ["--time-limit", limit] if limit else []
        assert cli.main(["book", "moves", "--answers", a, "--guesses", g, "--cache-dir",
                         str(tmp_path / "c"), "--openers", w, "--out", str(out),
                         "--alternatives", "2", "--quiet", *extra]) == 0
        return len(calls)

    whole = tmp_path / "w.moves.npz"
    n = build(whole)
    assert n > 4
    out = tmp_path / "m.moves.npz"
    assert build(out, "35") == 4  # at 40 s on this clock the limit has passed
    part = Moves.read(out, lists, "easy", 6)
    assert part.openers() == [] and len(part) == 4
    assert build(out) == n - 4
    got, ref = Moves.read(out, lists, "easy", 6), Moves.read(whole, lists, "easy", 6)
    assert got.openers() == ref.openers() == [w]
    for k in ("opener", "pattern", "best", "total", "worst", "alt_guess", "alt_total"):
        assert np.array_equal(got.arrays[k], ref.arrays[k]), k


def test_a_stop_signal_reaches_the_main_thread_blocked_outside_python():
    """signals_reach calls `stop` from its watcher as the SIGTERM comes, while the
    main thread waits where Signals' Python handler can do nothing for it (a
    compiled search: here a wait on an event only the watcher sets)."""
    from solver.run.mpi import Signals, signals_reach

    stopped = threading.Event()
    signals = Signals().install()
    try:
        with signals_reach(stopped.set):
            os.kill(os.getpid(), signal.SIGTERM)
            assert stopped.wait(10)  # without the watcher nothing sets it
        assert signals.received == signal.SIGTERM  # and the run's flag is set too
    finally:
        signals.restore()


def test_a_stop_signal_cuts_the_class_in_flight_short(tmp_path, monkeypatch):
    """SIGTERM during a build's second class: the search of that class stops (the
    engine raises Stopped, as from request_stop) instead of running to its end, the
    build ends normally with its first class written, and the same command values
    the rest, into a file equal to one built without a stop."""
    import solver.moves as moves_mod
    from solver.search.engine import Stopped
    from solver.search.layout import P_STOP

    lists = small_lists(56, n_answers=30, n_guesses=60)
    a, g = write_lists(tmp_path, lists)
    w = lists.guesses[0]
    real = moves_mod.class_move
    calls: list[str] = []

    def signalled(solver, pos, k, store=None):
        calls.append("class")
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGTERM)
            t0 = time.monotonic()  # the watcher sets the engine's flag, not this thread
            while not solver._ctx.params[P_STOP] and time.monotonic() - t0 < 10:
                time.sleep(0.01)
            try:
                return real(solver, pos, k, store)
            except Stopped:
                calls.append("stopped")
                raise
        return real(solver, pos, k, store)

    def build(out: Path) -> int:
        calls.clear()
        assert cli.main(["book", "moves", "--answers", a, "--guesses", g, "--cache-dir",
                         str(tmp_path / "c"), "--openers", w, "--out", str(out),
                         "--alternatives", "2", "--quiet"]) == 0
        return calls.count("class")

    def counted(solver, pos, k, store=None):
        calls.append("class")
        return real(solver, pos, k, store)

    monkeypatch.setattr(moves_mod, "class_move", counted)
    whole = tmp_path / "w.moves.npz"
    n = build(whole)
    assert n > 2
    monkeypatch.setattr(moves_mod, "class_move", signalled)
    out = tmp_path / "m.moves.npz"
    assert build(out) == 2 and calls[-1] == "stopped"
    part = Moves.read(out, lists, "easy", 6)
    assert part.openers() == [] and len(part) == 1
    monkeypatch.setattr(moves_mod, "class_move", counted)
    assert build(out) == n - 1
    got, ref = Moves.read(out, lists, "easy", 6), Moves.read(whole, lists, "easy", 6)
    assert got.openers() == ref.openers() == [w]
    for k in ("opener", "pattern", "best", "total", "worst", "alt_guess", "alt_total"):
        assert np.array_equal(got.arrays[k], ref.arrays[k]), k


def test_a_killed_build_loses_only_the_class_in_flight(tmp_path, monkeypatch):
    """A build killed after its third class (no stop signal, no merge: as by
    SIGKILL or an out-of-memory kill) leaves those classes in its part file; the
    same command merges them first and values only the others, into a file equal to
    one built at once, with the killed run's CPU counted."""
    lists = small_lists(55, n_answers=30, n_guesses=60)
    w = lists.guesses[1]
    build = _counted_build(tmp_path, monkeypatch, lists, w)

    class Killed(BaseException):
        pass

    def kill_in_the_4th(i: int) -> None:
        if i == 4:  # valued, not yet handed back: in flight
            raise Killed

    whole = tmp_path / "w.moves.npz"
    n = build(whole)
    out = tmp_path / "m.moves.npz"
    with pytest.raises(Killed):
        build(out, kill_in_the_4th)
    kept = [json.loads(x) for x in (tmp_path / "m.moves.npz.part-0").read_text().splitlines()]
    assert not out.exists() and len(kept) == 3
    # the biggest classes first (the feedback players get most)
    from solver.feedback import all_green

    row = build_numpy(lists)[lists.guess_index[w]].astype(np.int64)
    sizes = np.bincount(row, minlength=all_green(5) + 1)
    sizes[all_green(5)] = 0  # (never a class to value)
    assert sorted((int(sizes[k[1]]) for k in kept), reverse=True) == \
        sorted(sizes.tolist(), reverse=True)[:3]
    assert build(out) == n - 3
    assert not list(tmp_path.glob("m.moves.npz.part-*"))
    got, ref = Moves.read(out, lists, "easy", 6), Moves.read(whole, lists, "easy", 6)
    assert got.openers() == ref.openers() == [w]
    for k in ("opener", "pattern", "best", "total", "worst", "alt_guess", "alt_total"):
        assert np.array_equal(got.arrays[k], ref.arrays[k]), k
    assert got.info["cpu_seconds"] > 0


def test_a_long_build_says_how_far_it_is(tmp_path, monkeypatch):
    """While the classes are valued, a line every `say_every` seconds (from a
    thread: rank 0 may be inside one class for an hour) counts the classes valued
    and the share of the predicted work, then one line says the outcome."""
    import solver.moves as moves_mod

    lists = small_lists(56, n_answers=30, n_guesses=60)
    real = moves_mod.class_move

    def slow(solver, pos, k, store=None):
        time.sleep(0.15)
        return real(solver, pos, k, store)

    monkeypatch.setattr(moves_mod, "class_move", slow)
    lines: list[str] = []
    w = lists.guesses[2]
    info = moves_mod.build(lists, "easy", 6, [w], tmp_path / "m.moves.npz", k=2,
                           say=lines.append, cache_dir=str(tmp_path / "c"), say_every=0.1)
    assert info is not None and info["openers"] == [lists.guess_index[w]]
    n = len(Moves.read(tmp_path / "m.moves.npz", lists, "easy", 6))
    ticks = [x for x in lines if "% of the work)" in x]
    assert ticks and all(re.match(rf"moves: \d+/{n} classes \(about \d+ % of the work\)", x)
                         for x in ticks)
    assert lines[-1].startswith(f"moves: 1/1 openers ({n} classes) in m.moves.npz; ")


def test_the_progress_line_names_the_class_in_flight_longest(tmp_path, monkeypatch):
    """A dear class holds the ETA back without the size model knowing why: while one
    is valued, the line names it as a position, with its candidates and its time so
    far, and the marker goes when the build ends; a mark a killed run left (here of
    a rank this run does not have) is cleared first, not named for ever."""
    import solver.moves as moves_mod
    from solver.feedback import to_text

    lists = small_lists(57, n_answers=30, n_guesses=60)
    real = moves_mod.class_move
    calls: list[int] = []
    # a killed run of more ranks left its rank 3's mark: not in flight now
    (tmp_path / "m.moves.npz.flight-3").write_text(json.dumps([0, 0, 99, 0.0]))

    def first_is_dear(solver, pos, k, store=None):
        calls.append(1)
        if len(calls) == 1:
            time.sleep(1.2)
        return real(solver, pos, k, store)

    monkeypatch.setattr(moves_mod, "class_move", first_is_dear)
    lines: list[str] = []
    w = lists.guesses[3]
    out = tmp_path / "m.moves.npz"
    moves_mod.build(lists, "easy", 6, [w], out, k=2, say=lines.append,
                    cache_dir=str(tmp_path / "c"), say_every=0.25)
    sizes = np.bincount(build_numpy(lists)[lists.guess_index[w]].astype(np.int64),
                        minlength=243)
    sizes[242] = 0
    big = int(np.argmax(sizes))  # the first class drawn: the biggest
    named = [re.search(r"; in flight longest: (\w+):([BYG]+) \((\d+) candidates, "
                       r"(\d+)s\)$", x) for x in lines if "% of the work)" in x]
    dear = [m for m in named if m and m[2] == to_text(big, 5)]  # (none between classes)
    assert dear and all(m[1] == w and int(m[3]) == sizes[big] for m in dear), lines
    assert max(int(m[4]) for m in dear) >= 1  # a line after a second of the dear class
    assert not list(tmp_path.glob("m.moves.npz.flight-*"))


def test_a_foreign_or_damaged_moves_file(built, tmp_path):
    mode, lists, _common, book_file = built
    other = "hard" if mode != "hard" else "easy"
    with pytest.raises(StoreError, match="for another problem .*mode"):
        Moves.read(moves_path(book_file), lists, other, 6)
    with pytest.raises(StoreError, match="for another problem .*word lists"):
        Moves.read(moves_path(book_file), small_lists(5, 40, 90), mode, 6)
    bad = tmp_path / "x.npz"
    bad.write_bytes(Path(book_file).read_bytes())  # a book, not a moves file
    with pytest.raises(StoreError, match="not a wordle-dp moves file|not a readable"):
        Moves.read(bad, lists, mode, 6)
    # beside a book, a damaged moves file is not used: the book still reads
    copy = tmp_path / "b.npz"
    copy.write_bytes(Path(book_file).read_bytes())
    moves_path(copy).write_bytes(b"not an archive")
    assert Book.read(copy, lists).moves is None


@pytest.mark.mpi
def test_two_ranks_write_what_one_rank_writes(tmp_path):
    if not MPIEXEC.exists():
        pytest.skip("no mpiexec next to the interpreter (pip install mpich)")
    lists = small_lists(43, n_answers=30, n_guesses=60)
    a, g = write_lists(tmp_path, lists)
    words = ",".join(lists.guesses[:5])
    files = {}
    for n in (1, 2):
        out = tmp_path / f"m{n}.moves.npz"
        cmd = [str(MPIEXEC), "-n", str(n), sys.executable, "-m", "solver",
               "book", "moves", "--answers", a, "--guesses", g, "--openers", words,
               "--out", str(out), "--alternatives", "2"]
        r = subprocess.run(cmd, env=mpi_env(tmp_path / "cache"), capture_output=True,
                           text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        assert "moves: 5/5 openers" in r.stderr
        files[n] = Moves.read(out, lists, "easy", 6)
        assert files[n].info["ranks"] == n
    for k in ("opener", "pattern", "best", "total", "worst", "alt_guess", "alt_total"):
        assert np.array_equal(files[1].arrays[k], files[2].arrays[k]), k


DRAWS = """
import json, time
from mpi4py import MPI
from solver.run.mpi import NodeCounter
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
c = NodeCounter.on_node(comm)
rounds = []
for _round in range(2):
    got = [c.draw()] if rank == 0 else []  # rank 0 draws first
    comm.Barrier()
    while True:
        if rank == 0:
            time.sleep(2.0)  # valuing its last unit: a long class, no MPI call
        if (i := c.draw()) >= 100:
            break
        got.append(i)
    comm.Barrier()
    if rank == 0:
        c.reset()
    comm.Barrier()
    rounds.append(comm.gather(got))
c.draw()  # 0 and 1 drawn, then a rank stops: every later draw is 100 or more
comm.Barrier()
if rank == 0:
    c.close(100)
comm.Barrier()
closed = comm.gather(c.draw())
c.free()
if rank == 0:
    print(json.dumps([rounds, closed]))
"""


def test_ranks_draw_the_classes_without_waiting_for_each_other(tmp_path):
    """The moves build's deal: rank 0 draws the first unit, then values it (2 s with
    no MPI call); meanwhile rank 1 draws every other unit. Had a draw waited for
    rank 0's next MPI call (as a lock per draw did in MPICH), rank 0 would have
    drawn again between rank 1's draws. Each unit is drawn once; a reset starts again
    at 0, and a close ends every rank's draws. (No timing is asserted:
    the sleep only widens the window.)"""
    if not MPIEXEC.exists():
        pytest.skip("no mpiexec next to the interpreter (pip install mpich)")
    r = subprocess.run([str(MPIEXEC), "-n", "2", sys.executable, "-c", DRAWS],
                       env=mpi_env(tmp_path / "cache"), capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    rounds, closed = json.loads(r.stdout)
    for zero, one in rounds:
        assert zero == [0]  # rank 1 never waited for rank 0
        assert sorted(zero + one) == list(range(100))
    assert sorted(closed) == [102, 103]  # after a close, no draw is a unit


@pytest.mark.mpi
def test_a_stop_signal_ends_every_rank_cleanly_and_the_build_resumes(tmp_path):
    """SIGTERM to every rank (as Slurm sends it) once each has valued a class: every
    rank ends with exit 0 and no MPI abort, the file keeps the two classes valued (no
    opener is done yet), and the same command values only the others, into a file
    equal to one built without a stop."""
    if not MPIEXEC.exists():
        pytest.skip("no mpiexec next to the interpreter (pip install mpich)")
    lists = small_lists(47, n_answers=30, n_guesses=60)
    a, g = write_lists(tmp_path, lists)
    words = lists.guesses[:4]
    env = mpi_env(tmp_path / "cache")

    def cmd(out: Path) -> list[str]:
        return [str(MPIEXEC), "-n", "2", sys.executable, "-m", "solver", "book", "moves",
                "--answers", a, "--guesses", g, "--openers", ",".join(words), "--out",
                str(out), "--alternatives", "2"]

    out, marker = tmp_path / "m.moves.npz", tmp_path / "moves.marker"
    p = subprocess.Popen(cmd(out), env=env | {"WORDLE_DP_TEST_PAUSE": f"moves:{marker}"},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    t0 = time.time()
    # both ranks have valued a class (a hang guard only: the first class takes seconds)
    while not marker.exists() or len(marker.read_text().split()) < 2:
        assert p.poll() is None and time.time() - t0 < 600, p.communicate()
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGTERM)
    _out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert not any(b in err for b in ("BAD TERMINATION", "MPI_Abort", "Traceback")), err
    assert "stopped before every opener was done: the same command resumes" in err
    part = Moves.read(out, lists, "easy", 6)
    assert part.openers() == [] and len(part) == 2  # a class a rank
    assert not list(tmp_path.glob("m.moves.npz.part-*"))  # merged into the file
    r = subprocess.run(cmd(out), env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "moves: 4/4 openers" in r.stderr
    whole = tmp_path / "w.moves.npz"
    r = subprocess.run(cmd(whole), env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    got, ref = Moves.read(out, lists, "easy", 6), Moves.read(whole, lists, "easy", 6)
    assert got.openers() == ref.openers() == words
    for k in ("opener", "pattern", "best", "total", "worst", "alt_guess", "alt_total"):
        assert np.array_equal(got.arrays[k], ref.arrays[k]), k


def test_a_class_whose_best_is_among_its_alternatives_is_valued_again(tmp_path, capsys):
    """Files written before the alternatives left out the tie-broken best (issue 50,
    item 12) may list the best again: resuming values those classes again, only
    those, and they come out as the analysis gives them."""
    lists = small_lists(47, n_answers=30, n_guesses=60)
    a, g = write_lists(tmp_path, lists)
    out = tmp_path / "m.moves.npz"
    common = ["--answers", a, "--guesses", g, "--cache-dir", str(tmp_path / "c"),
              "--mode", "hard", "--out", str(out), "--alternatives", "2", "--quiet"]
    w = lists.guesses[0]
    assert cli.main(["book", "moves", *common, "--openers", w]) == 0
    good = Moves.read(out, lists, "hard", 6)
    rows = [i for i in range(len(good)) if good.arrays["alt_guess"][i, 0] >= 0]
    i = rows[0]
    arrays = {k: v.copy() for k, v in good.arrays.items()}
    arrays["alt_guess"][i, 0] = arrays["best"][i]  # the old fault, planted
    import json as _json

    np.savez_compressed(out, info=np.array(_json.dumps(good.info)), **arrays)
    assert cli.main(["book", "moves", *common[:-1], "--openers", w]) == 0
    assert "1 classes valued again" in capsys.readouterr().err
    fixed = Moves.read(out, lists, "hard", 6)
    for k in good.arrays:
        assert np.array_equal(fixed.arrays[k], good.arrays[k]), k


@pytest.mark.parametrize("mode", MODES)
def test_a_class_no_strategy_solves_keeps_its_best_chance(tmp_path, capsys, mode):
    """At cap 3 some classes cannot be solved whole: their rows hold the best chance
    (the objective wins), and the data answers every class exactly as the analysis
    with fallback does (best, total, wins, alternatives: to_dict equal), without the
    fallback only where it is asked for. A file written before the best chance (no
    wins arrays) gets those classes valued again, and only those."""
    import types

    from solver.game.analysis import opening
    from solver.store import Problem

    lists = small_lists(53, n_answers=60, n_guesses=60)
    a, g = write_lists(tmp_path, lists)
    out = tmp_path / "m.moves.npz"
    cap = 3  # 2-4 of the first three openers' 75 classes cannot be solved whole
    common = ["--answers", a, "--guesses", g, "--cache-dir", str(tmp_path / "c"),
              "--mode", mode, "--max-guesses", str(cap), "--out", str(out),
              "--alternatives", str(K), "--quiet"]
    words = lists.guesses[:3]
    assert cli.main(["book", "moves", *common, "--openers", ",".join(words)]) == 0
    moves = Moves.read(out, lists, mode, cap)
    store = types.SimpleNamespace(problem=Problem.from_lists(lists, mode, cap), moves=moves,
                                  source="book")
    ref = Solver(lists, mode=mode, max_guesses=cap, table=build_numpy(lists))
    start = Position.start(lists, mode, cap)
    chances = 0
    for w in words:
        gid = lists.guess_index[w]
        for p in sorted({int(x) for x in ref.table[gid, start.members]}
                        - {start.variant.all_green}):
            pos = start.play(w, p)
            truth = analyse(ref, pos, top=K, fallback=True)
            got = opening(pos, K, store, fallback=True)
            assert got is not None, (w, p)
            assert got.to_dict() == truth.to_dict(), (w, p)
            if truth.fallback_from:
                chances += 1
                assert opening(pos, K, store) is None  # not asked for: searched
                # the best chance says where it came from, as the expected objective does
                line = next(x for x in got.describe().splitlines()
                            if x.startswith("best chance:"))
                assert line.endswith("exact (from the book)"), line
                assert "from the" not in truth.describe(), (w, p)
    assert chances > 0, "no class without a whole strategy: the test needs a smaller cap"
    # an older file: no best chance; building again values those classes only
    arrays = {k: v.copy() for k, v in moves.arrays.items() if k not in ("wins", "alt_wins")}
    chance = moves.arrays["wins"] >= 0
    arrays["best"][chance] = -1
    arrays["total"][chance] = -1
    arrays["alt_guess"][chance] = -1
    arrays["alt_total"][chance] = -1
    import json as _json

    np.savez_compressed(out, info=np.array(_json.dumps(moves.info)), **arrays)
    assert cli.main(["book", "moves", *common[:-1], "--openers", ",".join(words)]) == 0
    assert f"{int(chance.sum())} classes valued again" in capsys.readouterr().err
    again = Moves.read(out, lists, mode, cap)
    for k in moves.arrays:
        assert np.array_equal(again.arrays[k], moves.arrays[k]), k


@pytest.mark.parametrize("name,mode", [("original", "easy"), ("original", "hard"),
                                       ("nyt", "easy"), ("nyt", "hard")])
def test_the_shipped_moves_files(name, mode):
    """Each packaged moves file: for its problem, well formed (the best never among
    the alternatives, alternatives by total and no better than the best), and a
    seeded sample of its small classes valued again by a fresh engine."""
    import random

    from solver.words import WordLists

    lists = WordLists.load(lists=name, quiet=True)
    book = Book.find(lists, mode, 6)
    if book is None or book.moves is None:
        pytest.skip(f"no packaged moves for {name} {mode}")
    m = book.moves
    a = m.arrays
    moved = a["best"] >= 0
    assert not (a["alt_guess"][moved] == a["best"][moved][:, None]).any()
    # a class no second guess wins within the cap (hard mode) is held as such: no move
    for k in ("total", "worst", "alt_guess", "alt_total"):
        assert (a[k][~moved] == -1).all(), k
    # or, where the file has the best chance, by its most wins: ordered by (-wins, total)
    chance = a["wins"] >= 0 if "wins" in a else np.zeros(len(m), bool)
    ok = moved & ~chance
    if chance.any():
        assert (a["worst"][chance] == -1).all()
        present = a["alt_guess"][chance] >= 0
        key = np.where(present, -a["alt_wins"][chance].astype(np.int64) * 100_000
                       + a["alt_total"][chance], 1 << 40)  # (keys are negative: no max)
        best_key = -a["wins"][chance].astype(np.int64) * 100_000 + a["total"][chance]
        assert (np.diff(key, axis=1) >= 0).all()
        assert (key[:, 0][present[:, 0]] >= best_key[present[:, 0]]).all()
    # int64 first: a padded slot (hard mode: fewer than K guesses allowed) reads as
    # the largest total, which does not fit the file's int16
    alt_t = np.where(a["alt_guess"][ok] >= 0, a["alt_total"][ok].astype(np.int64),
                     np.iinfo(np.int64).max)
    assert (np.diff(alt_t, axis=1) >= 0).all()
    assert (a["alt_total"][ok][:, 0][a["alt_guess"][ok][:, 0] >= 0] >=
            a["total"][ok][a["alt_guess"][ok][:, 0] >= 0]).all()
    # every complete opener has its rows (a stopped build may leave part of another)
    assert set(m.info["openers"]) <= set(int(g) for g in a["opener"])
    start = Position.start(lists, mode, 6)
    ref = Solver(lists, mode=mode, max_guesses=6)
    small = [i for i in range(len(m)) if ok[i] and
             (ref.table[int(a["opener"][i]), start.members] == a["pattern"][i]).sum() <= 30]
    for i in random.Random(f"{name}-{mode}").sample(small, min(4, len(small))):
        w, p = lists.guesses[int(a["opener"][i])], int(a["pattern"][i])
        move = m.lookup(int(a["opener"][i]), p)
        truth = analyse(ref, start.play(w, p), top=m.alternatives)
        assert (move.total, move.worst) == (truth.best.total, truth.best.worst), (w, p)
        assert [t for _, t in move.alternatives] == [c.total for c in truth.alternatives]
    # one class held with its best chance: the analysis with fallback says the same
    from solver.game.analysis import opening

    few = [i for i in range(len(m)) if chance[i] and
           (ref.table[int(a["opener"][i]), start.members] == a["pattern"][i]).sum() <= 30]
    for i in random.Random(f"{name}-{mode}-chance").sample(few, min(1, len(few))):
        pos = start.play(lists.guesses[int(a["opener"][i])], int(a["pattern"][i]))
        truth = analyse(ref, pos, top=m.alternatives, fallback=True)
        got = opening(pos, m.alternatives, book, fallback=True)
        assert got is not None and truth.fallback_from
        assert (got.best.guess, got.best.wins, got.best.total) == (
            truth.best.guess, truth.best.wins, truth.best.total)
        assert [(c.guess, c.wins, c.total) for c in got.alternatives] == [
            (c.guess, c.wins, c.total) for c in truth.alternatives]
    # and one class held as having no move: a fresh engine finds none either
    lost = [i for i in range(len(m)) if not moved[i] and
            (ref.table[int(a["opener"][i]), start.members] == a["pattern"][i]).sum() <= 40]
    for i in random.Random(f"{name}-{mode}-lost").sample(lost, min(1, len(lost))):
        w, p = lists.guesses[int(a["opener"][i])], int(a["pattern"][i])
        assert m.lookup(int(a["opener"][i]), p).best is None
        truth = analyse(ref, start.play(w, p), top=m.alternatives)
        assert truth.best.guess is None and truth.best.status == "infeasible", (w, p)
