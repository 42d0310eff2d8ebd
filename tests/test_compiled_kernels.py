"""The kernels compiled ahead of time (solver.aot; the search's in
solver.search.compiled, the measures scan's in solver.kernels.scan_kernel) against
numba's jit: the same values, the fallbacks, the rebuild when a source changes or
a module file is damaged, and the GIL released during a search (the web app
searches on a worker thread)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from test_search_crosscheck import SEEDS, _solver, instance

from solver.game.measures import scan
from solver.kernels import scan_kernel
from solver.search import compiled
from solver.search.compiled import SEARCH
from solver.search.engine import Solver


def _can_build() -> str | None:
    """Why no extension module can be built here (None if it can): numba.pycc needs a
    C compiler and Python's headers. Where it cannot, the jit runs and the tests that
    need the compiled module skip; this machine and CI have both."""
    if not (shutil.which("cc") or shutil.which("gcc")):
        return "no C compiler"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python.h"
    return None


needs_build = pytest.mark.skipif(_can_build() is not None, reason=str(_can_build()))

def _kinds(monkeypatch, make):
    """make() once with the compiled kernels and once with the jitted ones."""
    monkeypatch.delenv("WORDLE_DP_KERNELS", raising=False)
    a = make()
    monkeypatch.setenv("WORDLE_DP_KERNELS", "jit")
    b = make()
    monkeypatch.delenv("WORDLE_DP_KERNELS")
    return a, b


@needs_build
def test_default_solver_runs_compiled_kernels():
    """On this machine (a C compiler, numba.pycc) the default is the compiled module."""
    s = Solver(mode="easy")
    assert s._kernels.kind == "compiled", SEARCH.reason
    assert s.solve("salet").total == 7920  # the published value (Selby's table)


@needs_build
def test_a_solve_on_the_compiled_module_never_imports_numba():
    """The point of the module: a short command does not pay numba's import (about
    0.3 s of CPU). A pure-Python helper once moved into a jitted module (bounds.py)
    brought it back into every `solve` unnoticed. The first process may build."""
    code = ("import sys; from solver import cli; rc = cli.main(['solve', 'salet', "
            "'--quiet']); print(rc, 'numba' in sys.modules)")
    for _ in range(2):  # the first builds the module if it is missing (with numba)
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=600, cwd=Path(__file__).resolve().parents[1])
        assert p.returncode == 0, p.stderr
    assert p.stdout.split()[-2:] == ["0", "False"], p.stdout


@needs_build
@pytest.mark.parametrize("seed", SEEDS[::9])
def test_compiled_and_jit_agree_on_random_instances(monkeypatch, seed):
    inst = instance(seed)
    a, b = _kinds(monkeypatch, lambda: _solver(inst, inst.cap))
    assert (a._kernels.kind, b._kernels.kind) == ("compiled", "jit")
    for w in inst.openers:
        ra, rb = a.solve(w), b.solve(w)
        key = ("status", "total", "depth", "nodes")
        assert [getattr(ra, k) for k in key] == [getattr(rb, k) for k in key]


@needs_build
@pytest.mark.parametrize("mode", ["easy", "hard", "strict"])
def test_compiled_and_jit_agree_on_the_full_lists(monkeypatch, mode):
    a, b = _kinds(monkeypatch, lambda: Solver(mode=mode))
    for w in ("salet", "crane"):
        ra, rb = a.solve(w), b.solve(w)
        assert ra.to_dict() | {"seconds": 0, "cpu_seconds": 0} == rb.to_dict() | {
            "seconds": 0, "cpu_seconds": 0}


def test_a_context_of_another_layout_falls_back_to_jit():
    s = Solver(mode="easy")
    ctx = s._ctx._replace(tbl=s._ctx.tbl.astype(np.int16))
    k = compiled.kernel_set(ctx)
    assert k.kind == "jit"
    assert SEARCH.reason == "tbl: expected a uint8 or uint16 table"
    ro = s._ctx.mval.copy()
    ro.flags.writeable = False
    assert compiled.kernel_set(s._ctx._replace(mval=ro)).kind == "jit"
    assert "mval: not a writable" in SEARCH.reason


def test_jit_by_environment(monkeypatch):
    monkeypatch.setenv("WORDLE_DP_KERNELS", "jit")
    assert Solver(mode="easy")._kernels.kind == "jit"


def test_a_failed_build_falls_back_to_jit(monkeypatch, tmp_path):
    """No C compiler, no numba.pycc, an unwritable directory: the jit runs instead."""
    def fail(path):
        raise OSError("no compiler here")

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # no module built there yet
    monkeypatch.setattr(SEARCH, "build_apart", fail)
    SEARCH.reset()
    try:
        s = Solver(mode="easy")
        assert s._kernels.kind == "jit"
        assert SEARCH.reason == "OSError: no compiler here"
        assert s.solve("salet").total == 7920
    finally:
        SEARCH.reset()


@needs_build
def test_a_damaged_module_is_built_again(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    path = SEARCH.path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a shared object")
    SEARCH.reset()
    try:
        s = Solver(mode="easy")
        assert s._kernels.kind == "compiled", SEARCH.reason
        assert path.stat().st_size > 100_000
        assert s.solve("salet").total == 7920
    finally:
        SEARCH.reset()


def test_the_module_name_follows_the_sources(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(compiled._HERE, src, ignore=shutil.ignore_patterns("__pycache__"))
    kernels = compiled.CompiledKernels("m", [src / "kernels.py", src / "layout.py"], list)
    before = kernels.fingerprint()
    assert kernels.path(tmp_path).name.startswith(f"m-{before}")
    assert kernels.fingerprint() == before
    with open(src / "kernels.py", "a") as f:
        f.write("\n# an edit\n")
    assert kernels.fingerprint() != before


@needs_build
def test_the_measures_scan_compiled_and_jit_agree(monkeypatch):
    s = Solver(mode="easy")
    table = s.table
    rng = np.random.default_rng(7)
    members = np.sort(rng.choice(len(s.lists.answers), 150, replace=False)).astype(np.int32)
    gids = rng.choice(len(s.lists.guesses), 2000, replace=False)
    cost = np.log1p(np.arange(len(members) + 1, dtype=np.float64))
    assert scan_kernel.scan_kernel(table) is not scan_kernel._jitted()
    a, b = _kinds(monkeypatch, lambda: scan(table, members, gids, 242, cost))
    assert np.array_equal(a, b) and a[:, scan_kernel.PATTERNS].max() > 1
    ro = table.view()
    ro.flags.writeable = False  # a read-only table: the jit (typed for it) runs
    assert scan_kernel.scan_kernel(ro) is scan_kernel._jitted()
    assert np.array_equal(scan(ro, members, gids, 242, cost), a)


@needs_build
def test_the_compiled_search_releases_the_gil(monkeypatch):
    """One long kernel call on a worker thread: the main thread keeps running (with
    the GIL held it would stop for the whole call)."""
    s, jit = _kinds(monkeypatch, lambda: Solver(mode="easy"))
    assert s._kernels.kind == "compiled"
    members = s._classes(s.lists.guess_id("rotte"), np.arange(len(s.lists.answers),
                                                              dtype=np.int32))[0][1]
    go, out = threading.Event(), []

    def work():
        go.wait()
        t = time.perf_counter()
        out.append(s._solve_set(members, 5, None))
        out.append(time.perf_counter() - t)

    th = threading.Thread(target=work)
    th.start()
    gap, last = 0.0, time.perf_counter()
    go.set()  # from here on the main thread notes its longest stop
    while th.is_alive():
        now = time.perf_counter()
        gap, last = max(gap, now - last), now
    gap = max(gap, time.perf_counter() - last)
    th.join()
    value, seconds = out
    assert value == jit._solve_set(members, 5, None)  # rotte's largest class, 378 answers
    assert seconds > 0.2 and gap < seconds / 2, (gap, seconds)


@pytest.mark.parametrize("argv, message", [(["--bogus"], "unrecognized arguments: --bogus"),
                                           (["a", "b"], "unrecognized arguments: b")])
def test_the_ahead_of_time_command_refuses_bad_input_in_one_line(argv, message):
    """`python -m solver.aot --help` once built every module into a folder named
    '--help'; bad input now gets the CLI's one line and exit 2, before any build."""
    r = subprocess.run([sys.executable, "-m", "solver.aot", *argv],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr == f"wordle-dp: error: {message}\n"
    assert r.stdout == ""
