"""Numba kernels compiled ahead of time into extension modules.

A process that runs numba-jitted code first imports numba (about 0.2 s of CPU on
the development machine) and then loads the compiled functions from numba's cache
(0.1-0.2 s more, mostly numba initialising its compiler). For a short command
that is most of the work: `wordle-dp solve salet` searches for about 0.3 s. So
the same kernel source is also compiled with numba's ahead-of-time compiler
(numba.pycc) into a small extension module, once per version of its sources, and
processes import that instead: no numba, no cache lookup. It is built on first
use, after the jit compilation that a first run paid anyway (numba.pycc compiles
what the exported functions call through their jit dispatchers), in a few seconds.

Where modules are kept: $NUMBA_CACHE_DIR/wordle_dp if set, else the __pycache__
folder beside the kernel source (where numba keeps its cache too), else the user
cache folder. A module's file name carries a hash of its sources and the Python
ABI, so an edited kernel is rebuilt. A build writes a temporary file and renames
it: processes that start together may each build, but none reads a half-written
module, and a file that does not import (damaged) is built again.

The jitted functions stay the fallback, and `WORDLE_DP_KERNELS=jit` selects them:
when the build cannot run (no C compiler, a numba without pycc) and when the
arrays passed do not have the types the module was built for (the callers check).
This module does not import numba; only `build` does.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path


def use_compiled() -> bool:
    """False when WORDLE_DP_KERNELS=jit asks for numba's jit only."""
    return os.environ.get("WORDLE_DP_KERNELS", "").strip() != "jit"


class CompiledKernels:
    """One extension module: `exports()` (called only to build) returns its
    functions as (exported name, jit dispatcher, numba signature); `sources` are
    the files whose text it is built from."""

    def __init__(self, name: str, sources: list[Path],
                 exports: Callable[[], list[tuple[str, object, object]]]):
        self.name = name
        self.sources = [Path(p).resolve() for p in sources]
        self.exports = exports
        self.reason: str | None = None  # why the last attempt fell back to the jit
        self._module = None
        self._tried = False

    def fingerprint(self) -> str:
        """Hash of what the module depends on: its sources, this file (the build
        recipe), the Python ABI and the machine architecture."""
        h = hashlib.sha256()
        for p in [*self.sources, Path(__file__).resolve()]:
            h.update(p.read_bytes())
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

    def module(self):
        """The compiled module, built first if needed; None if it cannot be had (the
        reason in `.reason`). Tried once per process."""
        if not self._tried:
            self._tried = True
            path = self.path()
            try:
                if path.exists():
                    try:
                        self._module = self.load(path)
                    except ImportError:  # damaged (a full disk, a killed copy): rebuild
                        pass
                if self._module is None:
                    self.build(path)
                    self._module = self.load(path)
            except Exception as e:  # no compiler, no numba.pycc, an unwritable folder...
                self.reason = f"{type(e).__name__}: {e}"
        return self._module

    def reset(self) -> None:
        """Forget this process's attempt (tests)."""
        self._module, self._tried, self.reason = None, False, None
