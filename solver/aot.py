"""Numba kernels compiled ahead of time into extension modules.

A process that runs numba-jitted code first imports numba (about 0.2 s of CPU on
the development machine) and then loads the compiled functions from numba's cache
(0.1-0.2 s more, mostly numba initialising its compiler). For a short command
that is most of the work: `wordle-dp solve salet` searches for about 0.3 s. So
the same kernel source is also compiled with numba's ahead-of-time compiler
(numba.pycc) into a small extension module, once per version of its sources, and
processes import that instead: no numba, no cache lookup.

Building one costs about a minute of CPU (the search's: numba compiles the whole
search once for its jit, which numba.pycc needs to compile what the exported
functions call through their jit dispatchers, then again into the module), and a
first run that paid it was silent for minutes (issue 48). So a wheel carries them:
setup.py builds every module of `all_kernels()` into solver/_kernels/ (`SHIPPED`)
while the wheel is built, and a fresh install loads them from there. Modules are
looked for there first ($WORDLE_DP_KERNEL_DIR instead, if set), then in the cache:
$NUMBA_CACHE_DIR/wordle_dp if set, else the __pycache__ folder beside the kernel
source (where numba keeps its cache too), else the user cache folder; a build
(a checkout, an edited kernel, a wheel built without them) writes to the cache.
A module's file name carries a hash of its sources and the Python ABI, so an
edited kernel is rebuilt and a module built for another Python is never loaded.

A build runs in a child process (`build_apart`): a Ctrl-C ends it at once,
where in this process it would wait for the LLVM call under way (single calls of
up to 5 s at load 5), and the GIL stays free for this process's other threads.
It writes into a temporary folder and renames the module into place, so no
process reads a half-written module and an interrupted build leaves nothing
behind, and a file that does not import (damaged, or built against another
numpy) is built again. Processes that need the same module at once take
turns on a lock file beside it: one compiles, the others wait and load its module
(the web app's workers start together). A build says so on stderr first, with
about how long it takes (`set_notice` sends the line elsewhere: the web page's
progress), and so does a process that waits for another's build.

The jitted functions stay the fallback, and `WORDLE_DP_KERNELS=jit` selects them:
when the build cannot run (no C compiler, a numba without pycc) and when the
arrays passed do not have the types the module was built for (the callers check).
This module does not import numba; only `build` does.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import platform
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

try:
    import fcntl
except ImportError:  # not on Windows: builds there may overlap (each still atomic)
    fcntl = None  # type: ignore[assignment]

# modules built with the wheel (setup.py), beside this file
SHIPPED = Path(__file__).resolve().parent / "_kernels"
# the modules that make the package's CompiledKernels: importing them registers
# every one (tests/test_cold_start.py checks that the list is complete)
KERNEL_MODULES = ("solver.search.compiled", "solver.kernels.scan_kernel")
_REGISTRY: list[CompiledKernels] = []

# (kind, message, seconds left or None): what a build ("build"), a wait for one
# ("wait") and a failed build ("jit": numba's jit runs instead) say first
Notice = Callable[[str, str, "float | None"], None]


def to_stderr(kind: str, message: str, eta: float | None) -> None:
    """The default notice: one line on stderr (under mpiexec, from rank 0 alone:
    every rank would say the same)."""
    for var in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"):
        if os.environ.get(var, "0") not in ("", "0"):
            return
    print(f"wordle-dp: {message}", file=sys.stderr, flush=True)


_notice: Notice = to_stderr


def set_notice(fn: Notice | None) -> Notice:
    """Send the build notices to `fn` (None: stderr again); returns the one before."""
    global _notice
    before, _notice = _notice, fn or to_stderr
    return before


def notify(kind: str, message: str, eta: float | None = None) -> None:
    """Say `message` wherever the notices go now (stderr, or the page's progress)."""
    _notice(kind, message, eta)


def shipped_dir() -> Path:
    """Where prebuilt modules are looked for first: $WORDLE_DP_KERNEL_DIR, else the
    package's own (filled when a wheel is built)."""
    env = os.environ.get("WORDLE_DP_KERNEL_DIR", "").strip()
    return Path(env) if env else SHIPPED


def all_kernels() -> list[CompiledKernels]:
    """Every extension module of the package (what a wheel ships)."""
    for name in KERNEL_MODULES:
        importlib.import_module(name)
    package = Path(__file__).resolve().parent
    return [k for k in _REGISTRY if k.sources[0].is_relative_to(package)]


_RECIPE: list[bytes] = []


def _recipe() -> bytes:
    """The text of CompiledKernels.build (read once per process)."""
    if not _RECIPE:
        text = Path(__file__).read_bytes()
        start = text.index(b"    def build(self")
        _RECIPE.append(text[start:text.index(b"    def load(self", start)])
    return _RECIPE[0]


def _about(seconds: float) -> str:
    from .progress import fmt_duration

    return fmt_duration(max(5.0, 5 * round(seconds / 5)))


def use_compiled() -> bool:
    """False when WORDLE_DP_KERNELS=jit asks for numba's jit only."""
    return os.environ.get("WORDLE_DP_KERNELS", "").strip() != "jit"


class CompiledKernels:
    """One extension module: `exports()` (called only to build) returns its
    functions as (exported name, jit dispatcher, numba signature); `sources` are
    the files whose text it is built from; `title` names it in the notice of a
    build, which expects it to take about `seconds` (measured on the 2-core
    development machine, BENCHMARKS.md: cold start)."""

    def __init__(self, name: str, sources: list[Path],
                 exports: Callable[[], list[tuple[str, object, object]]],
                 title: str = "", seconds: float = 15.0):
        self.name = name
        self.sources = [Path(p).resolve() for p in sources]
        self.exports = exports
        self.title = title or f"the {name.removeprefix('wordle_dp_')} kernels"
        self.seconds = seconds
        self.reason: str | None = None  # why the last attempt fell back to the jit
        self._module = None
        self._tried = False
        self._lock = threading.Lock()  # one attempt per process, threads included
        self._eta: float | None = None  # when the build under way should end (monotonic)
        _REGISTRY.append(self)

    def fingerprint(self) -> str:
        """Hash of what the module depends on: its sources, the build recipe (the
        text of `build` below: not the rest of this file, so that a change to how
        modules are found does not rebuild them all), the Python ABI and the
        machine architecture."""
        h = hashlib.sha256()
        for p in self.sources:
            h.update(p.read_bytes())
        h.update(_recipe())
        h.update(f"{sys.implementation.cache_tag} {platform.machine()}".encode())
        return h.hexdigest()[:16]

    def directory(self) -> Path:
        env = os.environ.get("NUMBA_CACHE_DIR")
        if env:
            return Path(env) / "wordle_dp"
        here = self.sources[0].parent
        pyc = here / "__pycache__"
        if os.access(pyc if pyc.exists() else here, os.W_OK):
            return pyc
        from .table import default_cache_dir

        return default_cache_dir() / "kernels"

    def path(self, directory: Path | None = None) -> Path:
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        return (directory or self.directory()) / f"{self.name}-{self.fingerprint()}{suffix}"

    def build(self, path: Path) -> Path:
        """Compile the exports into the extension module `path` (imports numba)."""
        import warnings

        from numba.core import compiler as nb_compiler

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba.pycc's (pending) deprecation notice
            from numba.pycc import CC
            from numba.pycc import compiler as pycc_compiler

        class _ReleaseGil(nb_compiler.Flags):
            # the exported wrappers release the GIL like jitted nogil functions: the
            # web app's worker thread must not stall the server while it searches
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self.release_gil = True

        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=path.parent, prefix=".build-") as tmp:
            cc = CC(self.name)
            cc.output_dir = tmp
            cc.verbose = False
            for name, dispatcher, sig in self.exports():
                cc.export(name, sig)(dispatcher.py_func)  # type: ignore[attr-defined]
            saved = pycc_compiler.Flags
            pycc_compiler.Flags = _ReleaseGil  # type: ignore[misc]
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    cc.compile()
            finally:
                pycc_compiler.Flags = saved  # type: ignore[misc]
            built = next(Path(tmp).glob(f"{self.name}*"))
            os.replace(built, path)
        return path

    def load(self, path: Path):
        """Import the extension module at `path`."""
        spec = importlib.util.spec_from_file_location(self.name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    def expected(self) -> float:
        """Seconds of wall a build should take here: its CPU on an idle core, longer
        on a busy machine (it gets about cores / load of one; at load 8 on the two
        cores of the development machine, 84 s of CPU took 264 s)."""
        try:
            busy = os.getloadavg()[0] / (os.cpu_count() or 1)
        except OSError:  # no load average on this platform
            busy = 1.0
        return self.seconds * max(1.0, busy)

    def find(self):
        """The module if one is already built (shipped, or in the cache), without
        building it; None otherwise, and while another thread builds it."""
        if not self._lock.acquire(blocking=False):
            return self._module
        try:
            return self._find()
        finally:
            self._lock.release()

    def _find(self):
        if self._module is None:
            for path in (self.path(shipped_dir()), self.path()):
                if path.exists():
                    try:
                        self._module = self.load(path)
                        break
                    except ImportError:  # damaged, another numpy's: rebuilt in the cache
                        pass
        return self._module

    def module(self):
        """The compiled module, built first if needed; None if it cannot be had (the
        reason in `.reason`). Tried once per process; a thread that asks while
        another builds it waits for that build."""
        if not self._lock.acquire(blocking=False):
            self._say_waiting()
            self._lock.acquire()
        try:
            if not self._tried:
                self._tried = True
                try:
                    if self._find() is None:
                        self._module = self._build_shared(self.path())
                except BuildError as e:  # the child's own reason
                    self._jit_instead(str(e))
                except Exception as e:  # no compiler, no numba.pycc, an unwritable folder...
                    self._jit_instead(f"{type(e).__name__}: {e}")
                except BaseException:  # a Ctrl-C: a later call may try again
                    self._tried = False
                    raise
            return self._module
        finally:
            self._lock.release()

    def _jit_instead(self, reason: str) -> None:
        self.reason = reason
        _notice("jit", f"could not compile {self.title} ({reason}); numba's jit runs "
                "them instead", None)

    def _say_waiting(self) -> None:
        left = None if self._eta is None else max(0.0, self._eta - time.monotonic())
        about = "" if left is None else f", about {_about(left)} left"
        _notice("wait", f"waiting for {self.title} to be compiled (first run after "
                f"install{about})...", left)

    def _build_shared(self, path: Path):
        """Build and load the module at `path`, one process at a time: one that finds
        the lock taken waits, then loads what the other built."""
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = path.parent / f".{self.name}.lock"
        with open(lock, "a+") as f:
            if fcntl is not None:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    f.seek(0)
                    try:  # the other build's start (wall clock), written below
                        started = float(f.read().split()[0])
                        self._eta = time.monotonic() + self.expected() - (time.time() - started)
                    except (ValueError, IndexError):
                        self._eta = time.monotonic() + self.expected()
                    self._say_waiting()
                    fcntl.flock(f, fcntl.LOCK_EX)
                    if path.exists():
                        try:
                            return self.load(path)
                        except ImportError:
                            pass  # that build failed or was damaged: build it here
            f.seek(0)
            f.truncate()
            f.write(f"{time.time()}\n")
            f.flush()
            expected = self.expected()
            self._eta = time.monotonic() + expected
            _notice("build", f"compiling {self.title} (first run after install, about "
                    f"{_about(expected)}; later runs load them)...", expected)
            try:
                self.build_apart(path)
            finally:
                self._eta = None
            return self.load(path)

    def build_apart(self, path: Path) -> Path:
        """`build` in a child process, into a temporary folder beside `path`, then
        renamed to `path`. An exception here (a Ctrl-C included) kills the child and
        removes the folder; a failed build raises BuildError with the child's reason."""
        import shutil
        import subprocess

        tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{self.name}-"))
        try:
            proc = _child(self.name, tmp / path.name, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
            try:
                _out, err = proc.communicate()
            except BaseException:
                proc.kill()
                proc.wait()
                raise
            if proc.returncode != 0:
                lines = [ln for ln in (err or "").splitlines() if ln.strip()]
                raise BuildError(lines[-1].strip() if lines else
                                 f"the build ended with status {proc.returncode}")
            os.replace(tmp / path.name, path)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return path

    def reset(self) -> None:
        """Forget this process's attempt (tests)."""
        self._module, self._tried, self.reason = None, False, None


class BuildError(Exception):
    """A build in a child process failed; the message is the child's last line."""


# A child's build: a Ctrl-C (sent to the whole foreground process group) ends it
# at once, in the middle of an LLVM call too; its jit compiles say nothing (the
# parent announced the build).
_CHILD_CODE = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL)\n"
    "from pathlib import Path\n"
    "from solver import aot, jitcache\n"
    "k = {m.name: m for m in aot.all_kernels()}[sys.argv[1]]\n"
    "with jitcache.quiet():\n"
    "    k.build(Path(sys.argv[2]))\n")


def _child(name: str, dest: Path, env: dict | None = None, **popen):
    """A process that builds the package's module `name` into the file `dest`
    (this package first on its path)."""
    import subprocess

    env = dict(os.environ if env is None else env)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
    return subprocess.Popen([sys.executable, "-c", _CHILD_CODE, name, str(dest)], env=env,
                            **popen)


def build_all(out: Path | None = None, names: list[str] | None = None) -> list[Path]:
    """Build the package's modules (those named, or all) into the folder `out` (None:
    each where a first use would build it, its cache folder), one process each and
    side by side (a minute of CPU each): what setup.py ships in a wheel, and
    `python -m solver.aot [DIR]`. numba's jit cache goes to a temporary folder, not
    beside the sources. Returns the files."""
    kernels = [k for k in all_kernels() if names is None or k.name in names]
    dest = [k.path(Path(out).resolve()) if out is not None else k.path() for k in kernels]
    with tempfile.TemporaryDirectory(prefix="wordle-dp-jit-") as jit:
        env = dict(os.environ, NUMBA_CACHE_DIR=jit)
        procs = [_child(k.name, d, env) for k, d in zip(kernels, dest, strict=True)]
        failed = [k.name for k, p in zip(kernels, procs, strict=True) if p.wait() != 0]
    if failed:
        raise RuntimeError(f"could not build {', '.join(failed)}")
    return dest


def main(argv: list[str] | None = None) -> int:
    """python -m solver.aot [DIR]: build every module into DIR (setup.py: the wheel's
    solver/_kernels), or where this install looks for them first after the shipped
    ones (its cache: compile once now, e.g. after an editable install)."""
    import argparse  # here: the module is imported by every process that loads a kernel

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:  # one line and exit 2, as the CLI
            self.exit(2, f"wordle-dp: error: {message}\n")

    parser = Parser(prog="python -m solver.aot",
                    description="Compile the search kernels ahead of time (about a minute "
                                "of CPU), so that no later command waits on a compile.")
    parser.add_argument("dir", nargs="?", type=Path,
                        help="folder for the modules (default: where this install "
                             "looks for them after the shipped ones)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    t0 = time.monotonic()
    for p in build_all(args.dir):
        print(p)
    print(f"built in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":  # the package's own copy of this module holds the registry
    from solver.aot import main as _main

    sys.exit(_main())
