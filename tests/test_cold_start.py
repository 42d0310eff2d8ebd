"""A fresh install answers without waiting on a compile it was not asked for (issue
48, part 3): a Solver chooses its kernels on first use, so a book's answer needs
none; a build says so first, with about how long it takes, and processes that need
one module at once build it once; the modules a wheel ships (setup.py,
solver.aot.all_kernels) are every module the package has, and with them `next`
never imports numba."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from solver import aot
from solver.kernels import scan_kernel
from solver.search import compiled
from solver.search.compiled import SEARCH, guess_classes_np

ROOT = Path(__file__).resolve().parents[1]
needs_build = pytest.mark.skipif(
    not (shutil.which("cc") or shutil.which("gcc")), reason="no C compiler")


def _run(code: str, env: dict, timeout: float = 600) -> subprocess.CompletedProcess:
    full = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    full.pop("WORDLE_DP_KERNELS", None)
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full, cwd=ROOT,
                       capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stderr
    return p


def _empty_caches(tmp_path: Path) -> dict:
    """A fresh install's state: no numba cache, no kernel module anywhere."""
    (tmp_path / "none").mkdir(exist_ok=True)
    return {"NUMBA_CACHE_DIR": str(tmp_path / "numba"),
            "WORDLE_DP_KERNEL_DIR": str(tmp_path / "none")}


def test_a_solver_and_the_books_first_move_compile_nothing(tmp_path):
    """Making a Solver (the web worker's warm-up) and `next -` (the book) choose no
    kernel: no module is built, numba is not even imported."""
    env = _empty_caches(tmp_path)
    p = _run("""
        import sys
        from solver import cli
        from solver.search import Solver
        s = Solver(mode="easy")
        assert s.solve  # made, with its guess classes counted
        print("chosen", s._kernels.chosen, int(s._ctx.kmax[0]))
        assert cli.main(["next", "-", "--lists", "original"]) == 0
        print("numba", "numba" in sys.modules)
    """, env)
    assert "chosen False 150" in p.stdout and "numba False" in p.stdout, p.stdout
    assert "compiling" not in p.stderr
    assert not (tmp_path / "numba").exists() or not list((tmp_path / "numba").rglob("*.so"))


def test_guess_classes_in_numpy_match_the_kernel():
    """The numpy count a Solver takes before its kernels are chosen equals the
    kernel's, on one-byte and two-byte tables."""
    from solver.search import Solver

    s = Solver(mode="easy")
    assert s._kernels.kind in ("compiled", "jit")  # chosen now (built if need be)
    want = np.zeros(len(s.table), np.int64)
    s._kernels.guess_classes(s.table, 243, want)
    got = np.zeros_like(want)
    guess_classes_np(s.table, 243, got)
    assert np.array_equal(got, want)
    rows = np.random.default_rng(1).choice(len(s.table), 200, replace=False)
    assert [len(set(s.table[g].tolist())) for g in rows] == want[rows].tolist()
    wide = s.table.astype(np.uint16) * 200  # over 256 codes: the sorting branch
    got16 = np.zeros_like(want)
    guess_classes_np(wide, 243 * 200, got16)
    assert np.array_equal(got16, want)
    empty = np.zeros(3, np.int64)
    guess_classes_np(np.zeros((3, 0), np.uint16), 1000, empty)
    assert empty.tolist() == [0, 0, 0]


def test_every_compiled_module_is_in_the_list_a_wheel_ships():
    """all_kernels() (what setup.py builds) has every CompiledKernels of the package:
    a module made elsewhere would be compiled on a user's first run."""
    made = set()
    for p in (ROOT / "solver").rglob("*.py"):
        if p.name != "aot.py":
            made |= set(re.findall(r'CompiledKernels\(\s*"(\w+)"', p.read_text()))
    names = {k.name for k in aot.all_kernels()}
    assert made == names == {"wordle_dp_search", "wordle_dp_search16", "wordle_dp_measures"}
    for m in aot.KERNEL_MODULES:  # each names a module of the package that makes some
        assert importlib.util.find_spec(m) is not None


def _fake_build(src: Path, pause: float):
    """A CompiledKernels.build_apart that copies an already built module after
    `pause` seconds (a compile takes a minute)."""

    def build(path: Path) -> Path:
        import time

        time.sleep(pause)
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, path)
        return path

    return build


@needs_build
def test_a_build_says_so_and_the_next_process_loads_it(monkeypatch, tmp_path):
    k = scan_kernel.MEASURES
    built = k.module()  # this checkout's module (built here if missing)
    assert built is not None, k.reason
    src = k.path()
    assert src.exists()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setenv("WORDLE_DP_KERNEL_DIR", str(tmp_path / "none"))
    monkeypatch.setattr(k, "build_apart", _fake_build(src, 0.0))
    said: list[tuple] = []
    before = aot.set_notice(lambda *a: said.append(a))
    k.reset()
    try:
        assert k.find() is None  # nothing built yet, and find() builds nothing
        assert k.module() is not None
        assert [s[0] for s in said] == ["build"]
        kind, message, eta = said[0]
        assert message.startswith("compiling the measures kernels (first run after install, "
                                  "about ") and eta == pytest.approx(k.expected(), rel=0.5)
        assert eta >= k.seconds  # its CPU alone, more on a busy machine
        said.clear()
        k.reset()  # as a new process: it loads the module built before, silently
        assert k.module() is not None and said == []
    finally:
        aot.set_notice(before)
        k.reset()


@needs_build
def test_processes_that_start_together_build_once(tmp_path):
    """Two processes that need one module at once: one builds, the other says it
    waits (with about how long is left), then loads that module."""
    k = scan_kernel.MEASURES
    assert k.module() is not None, k.reason
    code = f"""
        import sys, time
        from pathlib import Path
        from solver import aot
        from solver.kernels import scan_kernel
        k = scan_kernel.MEASURES
        src = Path({str(k.path())!r})
        def build(path):
            time.sleep(3)
            import shutil; shutil.copy(src, path)
        k.build_apart = build
        aot.set_notice(lambda kind, msg, eta: print("NOTICE", kind, eta, msg, flush=True))
        assert k.module() is not None, k.reason
        print("LOADED", flush=True)
    """
    env = dict(os.environ, PYTHONPATH=str(ROOT), **_empty_caches(tmp_path))

    def start() -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=env,
                                cwd=ROOT, stdout=subprocess.PIPE, text=True)

    first = start()
    assert first.stdout is not None
    line = first.stdout.readline()  # the second starts once the first holds the lock
    assert line.startswith("NOTICE build"), line
    second = start()
    outs = [line] + [p.communicate(timeout=120)[0] for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0
    text = "".join(outs)
    assert text.count("NOTICE build") == 1 and text.count("LOADED") == 2, text
    wait = re.search(r"NOTICE wait ([\d.]+) waiting for the measures kernels to be "
                     r"compiled \(first run after install, about \w+ left\)", text)
    assert wait and 0 < float(wait.group(1)) <= 1.5 * k.expected(), text


def test_a_thread_that_needs_the_module_waits_for_the_build_under_way(monkeypatch, tmp_path):
    """The web worker builds on a thread while its task may need the kernels: the
    task says it waits, then gets the same module."""
    k = aot.CompiledKernels("wordle_dp_fake", [Path(aot.__file__)], list, "the fake kernels",
                            30.0)
    aot._REGISTRY.remove(k)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    started, release = threading.Event(), threading.Event()
    module = object()

    def build(path):
        started.set()
        release.wait(10)
        path.write_bytes(b"x")

    monkeypatch.setattr(k, "build_apart", build)
    monkeypatch.setattr(k, "load", lambda path: module)
    monkeypatch.setattr(k, "expected", lambda: 30.0)  # whatever the machine's load
    said: list[tuple] = []
    before = aot.set_notice(lambda *a: said.append(a))
    try:
        th = threading.Thread(target=k.module)
        th.start()
        assert started.wait(10)
        assert k.find() is None  # under way: not waited for by find()
        threading.Timer(0.5, release.set).start()
        assert k.module() is module
        th.join()
        assert [s[0] for s in said] == ["build", "wait"]
        assert "about 30s left" in said[1][1] or "about 25s left" in said[1][1], said
    finally:
        aot.set_notice(before)


def test_a_notice_is_one_line_on_stderr_from_rank_0_alone(monkeypatch, capsys):
    for var in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"):
        monkeypatch.delenv(var, raising=False)
    aot.to_stderr("build", "compiling the search kernels...", 75.0)
    assert capsys.readouterr().err == "wordle-dp: compiling the search kernels...\n"
    monkeypatch.setenv("PMI_RANK", "0")
    aot.to_stderr("build", "rank 0", None)
    monkeypatch.setenv("PMI_RANK", "1")
    aot.to_stderr("build", "rank 1", None)
    assert capsys.readouterr().err == "wordle-dp: rank 0\n"


def test_the_estimate_grows_with_the_load(monkeypatch):
    k = aot.CompiledKernels("wordle_dp_fake3", [Path(aot.__file__)], list, seconds=70.0)
    aot._REGISTRY.remove(k)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    assert k.expected() == 70.0  # an idle machine: the build's CPU
    monkeypatch.setattr(os, "getloadavg", lambda: (8.0, 8.0, 8.0))
    assert k.expected() == 280.0  # a quarter of a core each
    assert aot._about(280.0) == "4m40s" and aot._about(61.0) == "1m00s"


def test_a_failed_build_says_the_jit_runs(monkeypatch, tmp_path):
    k = aot.CompiledKernels("wordle_dp_fake2", [Path(aot.__file__)], list)
    aot._REGISTRY.remove(k)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))

    def fail(path):
        raise OSError("no compiler here")

    monkeypatch.setattr(k, "build_apart", fail)
    said: list[tuple] = []
    before = aot.set_notice(lambda *a: said.append(a))
    try:
        assert k.module() is None
    finally:
        aot.set_notice(before)
    assert [s[0] for s in said] == ["build", "jit"]
    assert "could not compile the fake2 kernels (OSError: no compiler here); numba's jit" \
        in said[1][1]


@needs_build
def test_with_the_shipped_modules_next_never_imports_numba(tmp_path):
    """The modules of all_kernels() are all that `next` on a second move needs (the
    search and the measures scan): with them as the shipped folder and an empty
    numba cache, numba is not imported, so nothing is compiled."""
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    for k in (SEARCH, scan_kernel.MEASURES):  # this checkout's (built here if missing)
        assert k.module() is not None, k.reason
        shutil.copy(k.path(), shipped / k.path().name)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba"), "WORDLE_DP_KERNEL_DIR": str(shipped)}
    p = _run("""
        import sys
        from solver import cli
        assert cli.main(["next", "salet:BBBBB", "--lists", "original", "--top", "2"]) == 0
        assert cli.main(["next", "salet:BBBBB,courd:BBBBB", "--lists", "original"]) == 0
        print("numba", "numba" in sys.modules)
    """, env)
    assert "numba False" in p.stdout, p.stdout + p.stderr
    assert "compiling" not in p.stderr
    assert not (tmp_path / "numba").exists()


def test_the_web_worker_sends_a_tasks_notices_to_its_progress(monkeypatch):
    from solver.web import workers

    prepared = []
    monkeypatch.setattr(compiled, "prepare", lambda dtype: prepared.append(dtype))
    running, reports = threading.Event(), []
    before = aot.set_notice(None)
    try:
        workers._warm_kernels(np.dtype("uint8"), running,
                              lambda *a: reports.append(a))
        for th in threading.enumerate():
            if th.name == "wordle-dp-kernels":
                th.join(10)
        assert prepared == [np.dtype("uint8")]
        running.set()
        aot._notice("wait", "waiting for the search kernels to be compiled (first run "
                    "after install, about 40s left)...", 42.0)
        assert reports == [(0, 0, "waiting for the search kernels to be compiled", 42.0)]
        other = threading.Thread(target=aot._notice, args=("wait", "from a thread", 1.0))
        other.start()
        other.join()
        assert len(reports) == 1  # the worker's own thread alone talks to the server
    finally:
        aot.set_notice(before)


def test_setup_builds_kernels_only_where_it_can(monkeypatch):
    spec = importlib.util.spec_from_file_location("wordle_dp_setup", ROOT / "setup.py")
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)  # not as __main__: setup() does not run
    monkeypatch.delenv("WORDLE_DP_BUILD_KERNELS", raising=False)
    assert setup.skip_kernels() is None
    assert setup.KernelDistribution().has_ext_modules()  # a platform wheel
    monkeypatch.setenv("WORDLE_DP_BUILD_KERNELS", "0")
    assert setup.skip_kernels() == "WORDLE_DP_BUILD_KERNELS=0"
    assert not setup.KernelDistribution().has_ext_modules()  # a pure one


def test_a_build_in_its_child_process_says_why_it_failed(monkeypatch, tmp_path):
    """Builds run in a child process (a Ctrl-C ends them at once): a failed one gives
    the child's last line as the reason, and leaves only its lock file behind."""
    k = aot.CompiledKernels("wordle_dp_fake4", [Path(aot.__file__)], list)
    aot._REGISTRY.remove(k)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    said: list[tuple] = []
    before = aot.set_notice(lambda *a: said.append(a))
    try:
        assert k.module() is None
    finally:
        aot.set_notice(before)
    assert k.reason == "KeyError: 'wordle_dp_fake4'"  # the child knows no such module
    assert [s[0] for s in said] == ["build", "jit"]
    assert [p.name for p in (tmp_path / "wordle_dp").iterdir()] == [".wordle_dp_fake4.lock"]
